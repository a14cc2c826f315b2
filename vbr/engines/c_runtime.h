/* The C engine's runtime: what the generated C of a typed program calls. Each function is the
 * C engine's rule for one operation: the twin of python_runtime.py's function of the same name
 * where it has one, else of what python_source.py writes out in place (vbr_order: a comparison;
 * vbr_below_of: random_streams.below); the differential tests hold the two equal. A state is an
 * array of 64-bit words laid out as vbr/ir/layout.py says. No text of a rule file is ever part
 * of this file or of the generated code: names are numbers, texts stay in Python's tables. */
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <stdlib.h>

typedef int64_t W;
typedef uint64_t U;

#define VBR_NONE INT64_MIN
#define VBR_INT_MAX INT64_MAX
#define CELL_BIAS 32768
#define CELL_SPAN 65536

enum { H_STATUS = 0, H_WINNER = 1, H_STEPS = 2, H_CHOICES = 3, H_FP = 4, H_SEAT = 5, H_SITE = 6, H_NOPTS = 7,
       H_DEST = 8, H_FAULT = 9, H_THINGS = 10, H_TOP = 11, H_RETURNED = 12, H_WINNER_TEAM = 13, H_DEPTH = 14,
       H_FAULT_A = 15, H_FAULT_B = 16 };
enum { RUNNING = 0, CHOICE = 1, OVER = 2, FAULT = 3 };

/* An agent vbr_play_seats hands a seat's choices to (kinds[seat] == VBR_PICKED): the option it
 * takes at S's pending choice, drawing from *stream; below 0 for none (c_search.c's vbr_greedy_pick). */
typedef W (*VbrPick)(W *ctx, W *S, U *stream);
enum { VBR_PICKED = 2, VBR_FIRST = 3 };  /* vbr_play_seats' kinds of seat besides random (0) and by hand (1) */

/* What the search library (c_search.c, built once for all the programs of a thing's width)
 * knows of a program: its layout (vbr/ir/layout.py), the tables c_source.py's search_constants
 * writes, and its vbr_apply. A program's library gives its own through vbr_game(). */
typedef struct VbrGame {
    W seats, teams, words, streams, nstreams, vars, things, kinds, zone_of, fields, width, zones, nzones,
      zone_size, options, max_options, plain_vars, nlist_vars, points_at, points_count, points_by_team, nkinds;
    const W *team_of, *zone_side;
    const W *hidden_of;  /* per seat, hidden_width words: how many zones are hidden from it, then those zones */
    W hidden_width;
    const W *site_offers_things;  /* per choice site: 1 when its options are things */
    const U *stream_keys;
    const W *list_vars;  /* per list var, 4 words: its first word past vars, its slots, a slot's room, 1 for things */
    const W *thing_vars;  /* per plain var word: 1 when it names a thing */
    const W *thing_fields;  /* per kind, thing_fields_width words: how many row words name things, then those words */
    W thing_fields_width;
    const U *fixed_fields;  /* per kind: the row words no statement sets (observed_words.fixed_fields) */
    int (*apply)(W *S, W i);
} VbrGame;

/* A fault leaves the running code at once: GCC's and Clang's own setjmp (a few instructions, no
 * signal mask), else the C library's. */
#if defined(__GNUC__)
#define VBR_COLD __attribute__((noinline, noreturn, cold))
#define VBR_APART __attribute__((noinline))
typedef void *vbr_jmp_buf[5];
#define VBR_SETJMP(b) __builtin_setjmp(b)
#define VBR_LONGJMP(b) __builtin_longjmp(b, 1)
#else
#define VBR_COLD
#define VBR_APART
typedef jmp_buf vbr_jmp_buf;
#define VBR_SETJMP(b) setjmp(b)
#define VBR_LONGJMP(b) longjmp(b, 1)
#endif

static __thread vbr_jmp_buf *vbr_jump;

/* No load or store of memory moves across this point (a unit's locals, written through a restrict
 * pointer, are in the state's words after it: c_source.py's store_locals). */
#if defined(__GNUC__)
#define VBR_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define VBR_BARRIER() ((void)0)
#endif

VBR_COLD static void vbr_fault(W *S, W f, W a, W b) {
    S[H_STATUS] = FAULT;
    S[H_FAULT] = f;
    S[H_FAULT_A] = a;
    S[H_FAULT_B] = b;
    VBR_LONGJMP(*vbr_jump);
}

/* A site's buffer for a list longer than the C stack should hold (c_source.py's STACK_ITEMS): n
 * words, made on the site's first use and kept in its variable `*site` (a site's list lives while
 * its statement or expression runs, which calls no unit: never two at once) until the thread's
 * outermost call into the engine returns (vbr_restore), so that a thread that ends holds none.
 * Memory that cannot be had is the fault `copy` (the lists held at once fill the state). */
typedef struct VbrBig { W **site; struct VbrBig *next; W words[]; } VbrBig;
static __thread VbrBig *vbr_bigs;  /* the buffers this thread holds */

static W *vbr_big(W *S, W **site, size_t n, W copy) {
    VbrBig *b = malloc(sizeof(VbrBig) + sizeof(W) * n);
    if (!b) vbr_fault(S, copy, VBR_NONE, VBR_NONE);
    b->site = site;
    b->next = vbr_bigs;
    vbr_bigs = b;
    return *site = b->words;
}

/* Where a call into the engine ends: the jump buffer it found is restored; the outermost call's
 * end (none found) releases the thread's long-list buffers. */
static inline void vbr_restore(vbr_jmp_buf *saved) {
    vbr_jump = saved;
    while (!saved && vbr_bigs) {
        VbrBig *b = vbr_bigs;
        vbr_bigs = b->next;
        *b->site = 0;
        free(b);
    }
}

/* The operands of an arithmetic operator that are none fault with message f + 2. `tested` (a
 * constant) names the operands that may be none, 1 the first and 2 the second: the generated
 * code leaves out the test of one that never is (vbr/ir/never_none.py); and 4 when the result
 * may be none (INT64_MIN) without overflowing, which faults with message f as an overflow does
 * (a sum with a term >= 0 never is: c_source.py's may_reach_none). */
static inline void vbr_operands(W *S, W a, W b, int tested, W f) {
    if (((tested & 1) && a == VBR_NONE) || ((tested & 2) && b == VBR_NONE)) vbr_fault(S, f + 2, VBR_NONE, VBR_NONE);
}

static inline W vbr_fits(W *S, W r, int over, int tested, W f) {
    if (over || ((tested & 4) && r == INT64_MIN)) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    return r;
}

/* A value the rules need (a condition, the end of a range); none faults with message f. */
static inline W vbr_known(W *S, W v, W f) {
    if (v == VBR_NONE) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    return v;
}

/* Whether a and b stand in order `op` (0: <, 1: <=, 2: >, 3: >=; a constant); a side that is
 * none, of those `tested` names (as vbr_operands), faults with message f. */
static inline W vbr_order(W *S, W a, W b, int op, int tested, W f) {
    if (((tested & 1) && a == VBR_NONE) || ((tested & 2) && b == VBR_NONE)) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    return op == 0 ? a < b : op == 1 ? a <= b : op == 2 ? a > b : a >= b;
}

static inline W vbr_add(W *S, W a, W b, int tested, W f) {
    W r; vbr_operands(S, a, b, tested, f);
    return vbr_fits(S, r, __builtin_add_overflow(a, b, &r), tested, f);
}

static inline W vbr_sub(W *S, W a, W b, int tested, W f) {
    W r; vbr_operands(S, a, b, tested, f);
    return vbr_fits(S, r, __builtin_sub_overflow(a, b, &r), tested, f);
}

static inline W vbr_mul(W *S, W a, W b, int tested, W f) {
    W r; vbr_operands(S, a, b, tested, f);
    return vbr_fits(S, r, __builtin_mul_overflow(a, b, &r), tested, f);
}

/* Rounds towards minus infinity, as Python's //. */
static inline W vbr_div(W *S, W a, W b, int tested, W f) {
    vbr_operands(S, a, b, tested, f);
    if (b == 0) vbr_fault(S, f + 1, VBR_NONE, VBR_NONE);
    W q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

/* Takes the divisor's sign, as Python's %. */
static inline W vbr_mod(W *S, W a, W b, int tested, W f) {
    vbr_operands(S, a, b, tested, f);
    if (b == 0) vbr_fault(S, f + 1, VBR_NONE, VBR_NONE);
    W r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

static inline W vbr_neg(W *S, W a, int tested, W f) {
    vbr_operands(S, a, 0, tested, f);
    return -a;
}

static inline W vbr_abs(W *S, W a, W f) {
    if (a == VBR_NONE) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    return a < 0 ? -a : a;
}

static inline W vbr_index(W *S, W i, W n, W f) {
    if ((U)i >= (U)n) vbr_fault(S, f, i, VBR_NONE);  /* n >= 0: i < 0 or i >= n */
    return i;
}

static inline W vbr_thing_word(W *S, W e, W kind, W kinds, W fields, W width, W pos, W f) {
    if (e == VBR_NONE || e < 0 || S[kinds + e] != kind) vbr_fault(S, f, e, VBR_NONE);
    return fields + e * width + pos;
}

static inline W vbr_thing_word_any(W *S, W e, const W *positions, W kinds, W fields, W width, W f) {
    if (e == VBR_NONE || e < 0) vbr_fault(S, f, e, VBR_NONE);
    W pos = positions[S[kinds + e]];
    if (pos < 0) vbr_fault(S, f, e, VBR_NONE);
    return fields + e * width + pos;
}

static inline W vbr_lookup_or_none(const W *table, W n, W i) {
    return (0 <= i && i < n) ? table[i] : VBR_NONE;
}

/* The index of `key` in a sorted table of n, or a fault naming the key. */
static inline W vbr_find(W *S, const W *sorted, W n, W key, W f) {
    W lo = 0, hi = n - 1;
    while (lo <= hi) {
        W mid = lo + (hi - lo) / 2;
        if (sorted[mid] == key) return mid;
        if (sorted[mid] < key) lo = mid + 1; else hi = mid - 1;
    }
    vbr_fault(S, f, key, VBR_NONE);
    return 0;
}

/* vbr_find for keys that are cells: a cell of the grid of cols by height cells found by its
 * place in `at` (per cell of the grid, its index among the sorted keys, -1: none), another
 * sought among the keys. */
static inline W vbr_find_cell(W *S, const W *sorted, W n, const W *at, W cols, W height, W key, W f) {
    U x = (U)((key >> 16) - CELL_BIAS), y = (U)((key & 0xFFFF) - CELL_BIAS);  /* below 0: past the end */
    if (!(x < (U)cols && y < (U)height)) return vbr_find(S, sorted, n, key, f);
    W k = at[x * (U)height + y];
    if (k < 0) vbr_fault(S, f, key, VBR_NONE);
    return k;
}

static inline W vbr_cell_at(W *S, W side, W row, W col, W cols, W height, W f, W too_far) {
    W x, y;
    if (side == 0) { x = col - 1; y = row - 1; }
    else if (side == 1) { x = cols - col; y = height - row; }
    else { vbr_fault(S, f, side, VBR_NONE); return 0; }
    if (!(-CELL_BIAS <= x && x < CELL_BIAS && -CELL_BIAS <= y && y < CELL_BIAS)) vbr_fault(S, too_far, VBR_NONE, VBR_NONE);
    return (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS);
}

static inline W vbr_distance(W *S, W a, W b, W f) {
    if (a == VBR_NONE || b == VBR_NONE) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    W dx = a / CELL_SPAN - b / CELL_SPAN, dy = a % CELL_SPAN - b % CELL_SPAN;
    return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

static inline W vbr_other(W *S, W x, W f) {
    if ((U)x <= 1) return 1 - x;
    vbr_fault(S, f, x, VBR_NONE);
    return 0;
}

static inline W vbr_floordiv(W a, W b) {
    W q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

static inline W vbr_step(W *S, W c, W right, W forward, W side, W n, W f) {
    if (c == VBR_NONE) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    W x = (c >> 16) - CELL_BIAS, y = (c & 0xFFFF) - CELL_BIAS;  /* c >= 0: an encoded cell */
    W mx, my;  /* a product or sum past 64 bits lies far off the court: as Python finds with its big ints */
    if (__builtin_mul_overflow(right, n, &mx) || __builtin_mul_overflow(forward, n, &my)) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    if (side != 0) { mx = mx == INT64_MIN ? INT64_MAX : -mx; my = my == INT64_MIN ? INT64_MAX : -my; }
    if (__builtin_add_overflow(x, mx, &x) || __builtin_add_overflow(y, my, &y)) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    if (!(-CELL_BIAS <= x && x < CELL_BIAS && -CELL_BIAS <= y && y < CELL_BIAS)) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    return (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS);
}

/* step_paying of python_runtime.py: `step` with a net cost. */
static W vbr_step_paying(W *S, W c, W right, W forward, W side, W n, W cost, W cols, W rows, W net, W f) {
    if (cost < 0) vbr_fault(S, f + 1, cost, VBR_NONE);
    if (n < 0 || n > 1024) vbr_fault(S, f + 2, n, VBR_NONE);
    if (cost == 1 || !net) return vbr_step(S, c, right, forward, side, n, f);
    if (c == VBR_NONE) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    if (right < -2 * CELL_SPAN || right > 2 * CELL_SPAN || forward < -2 * CELL_SPAN || forward > 2 * CELL_SPAN) {
        if (n > 0) vbr_fault(S, f, VBR_NONE, VBR_NONE);  /* the first step leaves the court for good */
        return c;
    }
    W dx = side == 0 ? right : -right, dy = side == 0 ? forward : -forward;
    if (dx == 0 && dy == 0) return c;
    W x = c / CELL_SPAN - CELL_BIAS, y = c % CELL_SPAN - CELL_BIAS, paid = 0;
    while (paid < n) {
        x += dx;
        y += dy;
        if (!(-CELL_BIAS <= x && x < CELL_BIAS && -CELL_BIAS <= y && y < CELL_BIAS)) vbr_fault(S, f, VBR_NONE, VBR_NONE);
        W pay = (0 <= x && x < cols && rows <= y && y < rows + net) ? cost : 1;
        paid = pay >= n - paid ? n : paid + pay;
    }
    return (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS);
}

/* Whether cell c lies in the grid of cols by height cells that the court tables cover (its
 * place there in *at); none faults with message f. */
static inline int vbr_in_grid(W *S, W c, W cols, W height, W *at, W f) {
    if (c == VBR_NONE) vbr_fault(S, f, VBR_NONE, VBR_NONE);
    U x = (U)((c >> 16) - CELL_BIAS), y = (U)((c & 0xFFFF) - CELL_BIAS);  /* below 0: past the end */
    *at = (W)(x * (U)height + y);
    return x < (U)cols && y < (U)height;
}

static inline W vbr_on_court(W *S, W c, const W *table, W dflt, const W *spaces, const W *answers, W nspaces,
                             W cols, W height, W f) {
    W at;
    if (vbr_in_grid(S, c, cols, height, &at, f)) return table[at];
    for (W i = 0; i < nspaces; i++) if (spaces[i] == c) return answers[i];
    return dflt;
}

static inline W vbr_zone_items(const W *S, W z, W *out) {
    W n = S[z];
    memcpy(out, S + z + 1, (size_t)n * sizeof(W));
    return n;
}

/* The items of the zone at z where they lie (*xs) and how many. */
static inline W vbr_zone_view(const W *S, W z, const W **xs) {
    *xs = S + z + 1;
    return S[z];
}

/* The n items of a fixed list's table (*xs) and how many. */
static inline W vbr_table_view(const W *table, W n, const W **xs) {
    *xs = table;
    return n;
}

/* Thing e out of the zone at z; the items above it move down one word, the freed word is 0.
 * Sought from the top down: a thing is taken near the top more often than not (as drawn), and
 * then there are few items above it to move. */
static inline void vbr_take_out(W *S, W z, W e) {
    W n = S[z], k = z + n;
    while (S[k] != e) k--;
    for (; k < z + n; k++) S[k] = S[k + 1];  /* a few words: no call of memmove */
    S[z + n] = 0;
    S[z] = n - 1;
}

static inline void vbr_put(W *S, W z, W e, int bottom) {
    W n = S[z];
    if (bottom) {
        memmove(S + z + 2, S + z + 1, (size_t)n * sizeof(W));
        S[z + 1] = e;
    } else {
        S[z + 1 + n] = e;
    }
    S[z] = n + 1;
}

/* random_streams.py: SplitMix64 counters, Lemire's unbiased draw below n. */
#define VBR_GAMMA 0x9E3779B97F4A7C15ULL

static inline U vbr_mix(U z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline U vbr_first_state(U seed, U key) {
    return vbr_mix(vbr_mix(seed) ^ key);
}

static inline W vbr_below_of(U *state, W n) {
    U s = *state + VBR_GAMMA, x = vbr_mix(s);
    __uint128_t m = (__uint128_t)x * (U)n;
    U low = (U)m;
    if (low < (U)n) {
        U threshold = (0 - (U)n) % (U)n;
        while (low < threshold) {
            s += VBR_GAMMA;
            x = vbr_mix(s);
            m = (__uint128_t)x * (U)n;
            low = (U)m;
        }
    }
    *state = s;
    return (W)(m >> 64);
}

static inline W vbr_below(W *S, W at, W n) {
    U s = (U)S[at];
    W v = vbr_below_of(&s, n);
    S[at] = (W)s;
    return v;
}

static inline void vbr_shuffle(W *S, W z, W at) {
    W n = S[z];
    U s = (U)S[at];  /* the stream in a register while the items are swapped */
    for (W i = n - 1; i > 0; i--) {
        W j = vbr_below_of(&s, i + 1);
        W t = S[z + 1 + i]; S[z + 1 + i] = S[z + 1 + j]; S[z + 1 + j] = t;
    }
    S[at] = (W)s;
}

/* reach_search of python_runtime.py: Court.reach's search, in play. A state is a cell of the grid,
 * the cost paid so far and the sign each axis has taken; the states of each cost are found in
 * turn, and those a free step into the net reaches at the same cost by one pass up the rows and
 * one down (a free step always moves along the rows, never against the way it went). */
static inline int vbr_on_net(W x, W y, W cols, W rows, W net) {
    return 0 <= x && x < cols && rows <= y && y < rows + net;
}

static void vbr_reach_expand(unsigned char *seen, const W (*mv)[2], W nm, W cols, W rows, W net, W dist, W net_cost,
                             W x, W y, W used, W sx, W sy) {
    W height = 2 * rows + net, cells = cols * height;
    int netted = vbr_on_net(x, y, cols, rows, net);
    for (W i = 0; i < nm; i++) {
        W dx = mv[i][0], dy = mv[i][1];
        if ((dx && sx && (dx > 0) != (sx > 0)) || (dy && sy && (dy > 0) != (sy > 0)) || (netted && !dy)) continue;
        W nx = x + dx, ny = y + dy;
        if (!(0 <= nx && nx < cols && 0 <= ny && ny < height)) continue;
        W cost = vbr_on_net(nx, ny, cols, rows, net) ? net_cost : 1;
        if (cost > dist - used) continue;
        W nsx = sx ? sx : (dx > 0) - (dx < 0), nsy = sy ? sy : (dy > 0) - (dy < 0);
        seen[((size_t)(used + cost) * (size_t)cells + (size_t)(ny * cols + nx)) * 9 + (size_t)((nsx + 1) * 3 + nsy + 1)] = 1;
    }
}

static void vbr_reach_pass(unsigned char *seen, const W (*mv)[2], W nm, W cols, W rows, W net, W dist, W net_cost,
                           W used, int up) {
    W height = 2 * rows + net, cells = cols * height;
    for (W k = 0; k < height; k++) {
        W y = up ? k : height - 1 - k;
        for (W x = 0; x < cols; x++)
            for (W s = 0; s < 9; s++)
                if (seen[((size_t)used * (size_t)cells + (size_t)(y * cols + x)) * 9 + (size_t)s])
                    vbr_reach_expand(seen, mv, nm, cols, rows, net, dist, net_cost, x, y, used, s / 3 - 1, s % 3 - 1);
    }
}

static W vbr_reach_search(W *S, W start, W dist, W side, const W *dirs, W ndirs, W net_cost, const W (*vecs)[2],
                          W cols, W rows, W net, W *out, W f) {
    if (dist < 0 || dist > 64) vbr_fault(S, f, dist, VBR_NONE);
    if (net_cost < 0) vbr_fault(S, f + 1, net_cost, VBR_NONE);
    if (start == VBR_NONE) vbr_fault(S, f + 2, VBR_NONE, VBR_NONE);
    for (W i = 0; i < ndirs; i++) if (dirs[i] == VBR_NONE) vbr_fault(S, f + 2, VBR_NONE, VBR_NONE);
    W x0 = start / CELL_SPAN - CELL_BIAS, y0 = start % CELL_SPAN - CELL_BIAS;
    if (dist == 0) {
        if (vbr_on_net(x0, y0, cols, rows, net)) return 0;
        out[0] = start;
        return 1;
    }
    W (*mv)[2] = malloc(sizeof(W[2]) * (size_t)(ndirs ? ndirs : 1)), nm = 0;
    if (!mv) vbr_fault(S, f + 3, VBR_NONE, VBR_NONE);
    for (W i = 0; i < ndirs; i++) {
        W dx = vecs[dirs[i]][0], dy = vecs[dirs[i]][1];
        if (dx < -2 * CELL_SPAN || dx > 2 * CELL_SPAN || dy < -2 * CELL_SPAN || dy > 2 * CELL_SPAN) continue;  /* never lands */
        if (side != 0) { dx = -dx; dy = -dy; }
        int known = 0;
        for (W j = 0; j < nm; j++) known |= mv[j][0] == dx && mv[j][1] == dy;
        if (!known) { mv[nm][0] = dx; mv[nm][1] = dy; nm++; }
    }
    W height = 2 * rows + net, cells = cols * height, n = 0;
    unsigned char *seen = calloc((size_t)cells * (size_t)(dist + 1) * 9, 1);
    if (!seen) {
        free(mv);
        vbr_fault(S, f + 3, VBR_NONE, VBR_NONE);
    }
    vbr_reach_expand(seen, (const W (*)[2])mv, nm, cols, rows, net, dist, net_cost, x0, y0, 0, 0, 0);
    for (W used = 0; used < dist; used++) {
        vbr_reach_pass(seen, (const W (*)[2])mv, nm, cols, rows, net, dist, net_cost, used, 1);
        vbr_reach_pass(seen, (const W (*)[2])mv, nm, cols, rows, net, dist, net_cost, used, 0);
    }
    for (W y = 0; y < height; y++)
        for (W x = 0; x < cols; x++) {
            if (vbr_on_net(x, y, cols, rows, net)) continue;
            const unsigned char *at = seen + ((size_t)dist * (size_t)cells + (size_t)(y * cols + x)) * 9;
            int any = 0;
            for (int s = 0; s < 9; s++) any |= at[s];
            if (any) out[n++] = (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS);
        }
    free(seen);
    free(mv);
    return n;
}
