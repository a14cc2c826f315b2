/* Siatka written by hand in plain C: the C yardstick for the engines' speed.
 *
 * The same game as rules/siatka.vbr and benchmarks/handwritten_siatka.py, with the same options
 * (abilities, block_marker, rotation) and the same choice points in the same order: random agents
 * pick uniformly among the legal options of every choice; an optional card or marker choice with
 * nothing to take but "pass" is skipped, and every other choice counts, even one with a single
 * option. Written as a C programmer would write it for this one game: small arrays, no allocation,
 * no checks the rules cannot need.
 *
 * Randomness is the typed engines' kind (vbr/ir/random_streams.py): SplitMix64 streams, one for
 * the dice and shuffles and one per agent, a number below n drawn without bias (Lemire). The
 * streams are seeded from the game's seed here in a way of this file's own, so game `seed` here
 * is another game than game `seed` of the engines, of the same rules: benchmarks/handwritten_c.py
 * compares mean choices and points per game over many games, not games one by one.
 *
 *     cc -O2 -shared -fPIC -o handwritten_siatka.so handwritten_siatka.c   (handwritten_c.py does it)
 */
#include <stdint.h>
#include <string.h>

enum { TARGET = 9, COLS = 3, ROWS = 2 };
enum { ROZEGRANIE, MOCNE_ODBICIE, SUPERATAK, ZASKOCZENIE, TACTICS };
enum { DIAGONAL, STRAIGHT, SIDEWAYS };
enum { AB_A, AB_B, AB_R, AB_Z };
enum { NO_TILE = -1 };

/* a half's field number -> (row, col) in the half's own frame, row 2 at the net */
static const int FIELD_ROW[7] = {0, 2, 2, 2, 1, 1, 1};
static const int FIELD_COL[7] = {0, 1, 2, 3, 3, 2, 1};
/* directions as (right, forward) in the mover's frame, in the rule file's order */
static const int DIR_RIGHT[8] = {0, 0, -1, 1, -1, 1, -1, 1};
static const int DIR_FORWARD[8] = {1, -1, 0, 0, 1, 1, -1, -1};
enum { FORWARD, BACKWARD, LEFT, RIGHT, FORWARD_LEFT, FORWARD_RIGHT, BACK_LEFT, BACK_RIGHT };
static const int MOVEMENT_DIE[6] = {DIAGONAL, DIAGONAL, STRAIGHT, STRAIGHT, SIDEWAYS, SIDEWAYS};
static const int BOUNCES[3][2] = {{FORWARD_LEFT, FORWARD_RIGHT}, {FORWARD, BACKWARD}, {LEFT, RIGHT}};
static const int TILE_DEFENCE[6] = {2, 3, 3, 4, 4, 5};
static const int TILE_ABILITY[6] = {AB_A, AB_B, AB_R, AB_Z, AB_A, AB_B};

typedef struct { uint64_t s; } Stream;

static inline uint64_t next64(Stream *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* a number in 0..n-1 without bias (Lemire), n >= 1 */
static inline int below(Stream *r, uint64_t n) {
    unsigned __int128 m = (unsigned __int128)next64(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t t = -n % n;
        while (low < t) {
            m = (unsigned __int128)next64(r) * n;
            low = (uint64_t)m;
        }
    }
    return (int)(m >> 64);
}

typedef struct {
    int abilities, block_marker, rotation;
    Stream dice, agent[2];
    long choices;
    int score[2];
    int field_of[2][6];      /* each side's tile t lies on field field_of[s][t] (1..6) */
    int court[2][6];         /* court[s][f - 1]: the tile on field f */
    int lineup[2][6];        /* each side's tiles in the order they were placed */
    int deck[2][12], ndeck[2];
    int hand[2][12], nhand[2];
    int discard[2][12], ndiscard[2];
    int server, holder, x, y, bounces, played, hitter, marker;
} Game;

static inline int choose(Game *g, int seat, int n) {
    g->choices++;
    return below(&g->agent[seat], (uint64_t)n);
}

static void shuffle(Game *g, int *items, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = below(&g->dice, (uint64_t)(i + 1));
        int t = items[i]; items[i] = items[j]; items[j] = t;
    }
}

static void refill(Game *g, int s) {
    while (g->nhand[s] < 3) {
        if (g->ndeck[s] == 0) {
            if (g->ndiscard[s] == 0) break;
            memcpy(g->deck[s], g->discard[s], sizeof(int) * g->ndiscard[s]);
            g->ndeck[s] = g->ndiscard[s];
            g->ndiscard[s] = 0;
            shuffle(g, g->deck[s], g->ndeck[s]);
        }
        g->hand[s][g->nhand[s]++] = g->deck[s][--g->ndeck[s]];
    }
}

/* the holder may play a card of this tactic; no choice when the hand holds none */
static int offer_card(Game *g, int tactic) {
    int s = g->holder, matching = 0, first = -1;
    for (int i = 0; i < g->nhand[s]; i++)
        if (g->hand[s][i] == tactic) { matching++; if (first < 0) first = i; }
    if (!matching || choose(g, s, matching + 1) == matching) return 0;
    for (int i = first; i + 1 < g->nhand[s]; i++) g->hand[s][i] = g->hand[s][i + 1];
    g->nhand[s]--;
    g->discard[s][g->ndiscard[s]++] = tactic;
    g->played++;
    return 1;
}

static inline void take_over(Game *g, int seat) {
    g->holder = seat; g->bounces = 0; g->played = 0; g->marker = NO_TILE;
}

static inline void put_ball(Game *g, int side, int number) {
    int row = FIELD_ROW[number], col = FIELD_COL[number];
    if (side == 0) { g->x = col - 1; g->y = row - 1; }
    else { g->x = COLS - col; g->y = 2 * ROWS - row; }
}

/* the field number of the ball's cell (inside the court) */
static inline int ball_number(const Game *g) {
    int side = g->y < ROWS ? 0 : 1;
    int row = side == 0 ? g->y + 1 : 2 * ROWS - g->y;
    int col = side == 0 ? g->x + 1 : COLS - g->x;
    for (int f = 1; f <= 6; f++)
        if (FIELD_ROW[f] == row && FIELD_COL[f] == col) return f;
    return 0;
}

static inline void step(Game *g, int dir, int distance) {
    int right = DIR_RIGHT[dir], forward = DIR_FORWARD[dir];
    if (g->holder == 1) { right = -right; forward = -forward; }
    g->x += right * distance; g->y += forward * distance;
}

static inline int roll_green(Game *g) { return 1 + below(&g->dice, 6); }

static int attack(Game *g) {
    int attacker = g->holder, defender = 1 - g->holder;
    int number = ball_number(g);
    int target = g->court[defender][number - 1];
    int bonus = 0;
    while (bonus < 2 && g->played < 3 && offer_card(g, SUPERATAK)) bonus++;
    refill(g, attacker);
    if (g->abilities && TILE_ABILITY[g->hitter] == AB_A) bonus++;
    if (roll_green(g) + bonus > TILE_DEFENCE[target]) return attacker;
    int blocks = (g->abilities && TILE_ABILITY[target] == AB_B) || (g->block_marker && g->marker == target);
    if (blocks && number <= 3) return defender;
    take_over(g, defender);
    return -1;
}

static void offer_block(Game *g) {
    int defender = 1 - g->holder, options[7], n = 0;
    for (int i = 0; i < 6; i++) {
        int t = g->lineup[defender][i];
        if (g->field_of[defender][t] <= 3) options[n++] = t;
    }
    options[n++] = NO_TILE;
    g->marker = options[choose(g, defender, n)];
}

/* one bounce by the holder: the seat that scores, or -1 while the rally goes on */
static int bounce(Game *g) {
    int holder = g->holder;
    g->bounces++;
    if (g->block_marker && g->marker == NO_TILE) offer_block(g);
    g->hitter = g->court[holder][ball_number(g) - 1];
    int free = 0;
    if (g->abilities && TILE_ABILITY[g->hitter] == AB_R) free = choose(g, holder, 2) == 0;
    if (free) {
        step(g, choose(g, holder, 8), 1);
    } else {
        int face = MOVEMENT_DIE[below(&g->dice, 6)];
        while (g->played < 3 && offer_card(g, ROZEGRANIE)) face = MOVEMENT_DIE[below(&g->dice, 6)];
        int distance = 1;
        if (g->played < 3 && offer_card(g, MOCNE_ODBICIE)) distance = 2;
        step(g, BOUNCES[face][choose(g, holder, 2)], distance);
    }
    if (!(0 <= g->x && g->x < COLS && 0 <= g->y && g->y < 2 * ROWS)) return 1 - holder;
    int side = g->y < ROWS ? 0 : 1;
    if (side != holder) {
        if (g->bounces == 3) return attack(g);
        if (g->bounces == 2 && g->played < 3 && offer_card(g, ZASKOCZENIE)) return attack(g);
        refill(g, holder);
        take_over(g, 1 - holder);
        return -1;
    }
    return g->bounces == 3 ? 1 - holder : -1;
}

static int rally(Game *g) {
    int server = g->server, receiver = 1 - server;
    if (g->abilities && TILE_ABILITY[g->court[server][3]] == AB_Z) {
        put_ball(g, receiver, 1 + choose(g, server, 6));
        if (roll_green(g) == 6) return server;
    } else {
        put_ball(g, receiver, roll_green(g));
    }
    take_over(g, receiver);
    for (;;) {
        int scorer = bounce(g);
        if (scorer >= 0) return scorer;
    }
}

static int play(Game *g) {
    for (int s = 0; s < 2; s++) {
        for (int t = 0; t < TACTICS; t++)
            for (int k = 0; k < 3; k++) g->deck[s][g->ndeck[s]++] = t;
        shuffle(g, g->deck[s], g->ndeck[s]);
        refill(g, s);
    }
    g->server = below(&g->dice, 2);
    for (int s = 0; s < 2; s++) {
        int bench[6] = {0, 1, 2, 3, 4, 5}, left = 6;
        for (int f = 1; f <= 6; f++) {
            int i = choose(g, s, left), t = bench[i];
            for (; i + 1 < left; i++) bench[i] = bench[i + 1];
            left--;
            g->field_of[s][t] = f;
            g->court[s][f - 1] = t;
            g->lineup[s][f - 1] = t;
        }
    }
    for (;;) {
        int scorer = rally(g);
        if (++g->score[scorer] >= TARGET) return scorer;
        if (g->rotation && scorer != g->server) {  /* field 6 to 1, 1 to 2, ... */
            int last = g->court[scorer][5];
            memmove(&g->court[scorer][1], &g->court[scorer][0], sizeof(int) * 5);
            g->court[scorer][0] = last;
            for (int f = 1; f <= 6; f++) g->field_of[scorer][g->court[scorer][f - 1]] = f;
        }
        g->server = scorer;
    }
}

/* n games with seeds seed, seed + 1, ...: wins[2], points[2] and choices summed into totals[5];
 * options: bit 0 abilities, bit 1 block_marker, bit 2 rotation */
void play_many(uint64_t seed, long n, int options, long *totals) {
    for (long i = 0; i < n; i++) {
        Game g;
        memset(&g, 0, sizeof g);
        g.abilities = options & 1; g.block_marker = (options >> 1) & 1; g.rotation = (options >> 2) & 1;
        Stream base = {seed + (uint64_t)i};
        g.dice.s = next64(&base);
        g.agent[0].s = next64(&base);
        g.agent[1].s = next64(&base);
        g.marker = NO_TILE;
        int winner = play(&g);
        totals[winner]++;
        totals[2] += g.score[0];
        totals[3] += g.score[1];
        totals[4] += g.choices;
    }
}
