/* Determinization and information-set Monte Carlo tree search over a program's states, in C.
 * The same search as vbr/engines/python_search.py, whose docstring is the definition (how a world
 * is dealt, how options are keyed, the order of the agent stream's draws): for the same state,
 * seat, parameters and seed both give the same words and the same option. A library of its own,
 * built once for all the programs whose things have VBR_WIDTH words (c_source.search_source
 * defines it before c_runtime.h, whose VbrGame it reads: a key's size known to the compiler).
 * What it knows of a program's layout, and the program's vbr_apply, come from the VbrGame the
 * program's library's vbr_game() gives, the first argument of each function here; a VbrGame of
 * another width is refused (-2). Memory: a node pool grown with realloc, freed before vbr_mcts
 * returns.
 *
 *   int vbr_determinize(const VbrGame *g, W *S, W *out, W seat, U seed)
 *       0, or -2 for a seat out of range / no memory
 *   W vbr_mcts(const VbrGame *g, W *S, W seat, const double *params, U seed, const W *allowed)
 *       the option index; -1 when an imagined world faulted (vbr_search_fault gives its message
 *       id and arguments); -2 for a state not at a choice, a seat out of range, no option
 *       allowed, or no memory. Stops early once the remaining iterations cannot change the answer
 *       (mcts_choice). `params`: P_COUNT numbers, python_search.SearchParams.numbers. `allowed`:
 *       NULL, or a word per option, nonzero for the options the root may take (`among`).
 *   W vbr_mcts_visits(const VbrGame *g, W *S, W seat, const double *params, U seed, W *visits, const W *allowed)
 *       the same search even for a single option and never stopped early, the root's visits per
 *       option into `visits`. */
#include <math.h>

/* The program's layout, as the VbrGame `g` in scope gives it (each function here has one) */
#define VBR_SEATS (g->seats)
#define VBR_TEAMS (g->teams)
#define L_WORDS (g->words)
#define L_STREAMS (g->streams)
#define L_NSTREAMS (g->nstreams)
#define L_VARS (g->vars)
#define L_THINGS (g->things)
#define L_KINDS (g->kinds)
#define L_ZONE_OF (g->zone_of)
#define L_FIELDS (g->fields)
#define L_WIDTH VBR_WIDTH  /* a thing's words: g->width, which the entry points check */
#define L_ZONES (g->zones)
#define L_NZONES (g->nzones)
#define L_ZONE_SIZE (g->zone_size)
#define L_OPTIONS (g->options)
#define L_MAX_OPTIONS (g->max_options)
#define L_PLAIN_VARS (g->plain_vars)
#define L_NLIST_VARS (g->nlist_vars)
#define POINTS_AT (g->points_at)
#define POINTS_COUNT (g->points_count)
#define POINTS_BY_TEAM (g->points_by_team)
#define TEAM_OF (g->team_of)
#define ZONE_SIDE (g->zone_side)
#define HIDDEN_OF(seat, i) (g->hidden_of[(seat) * g->hidden_width + (i)])  /* per seat: how many, then the zones */
#define SITE_OFFERS_THINGS (g->site_offers_things)
#define STREAM_KEYS (g->stream_keys)
#define LIST_VARS(l, i) (g->list_vars[(l) * 4 + (i)])
#define THING_VARS (g->thing_vars)
#define THING_FIELDS(kind) (g->thing_fields + (kind) * g->thing_fields_width)
#define FIXED_FIELDS (g->fixed_fields)

#define VBR_DETERMINIZE_KEY 0x31e77123b7b5b9eaULL /* random_streams.key("determinize") */
#define VBR_MCTS_KEY 0x43c6ac1ffdfca906ULL        /* random_streams.key("mcts") */
#define VBR_LEAD_SCALE 2.0
#define VBR_KEY_WORDS (4 + L_WIDTH)               /* the chooser's seat, the key's tag, its words, the observation */
#define VBR_NODE_KEY(s, k) ((s)->node_keys + (k) * VBR_KEY_WORDS)
#define VBR_OBSERVE_SEED 0x1234567ULL  /* python_search.OBSERVE_SEED */
enum { KEY_PLAIN = 0, KEY_SEEN = 1, KEY_HIDDEN = 2, KEY_ROOT = 3, KEY_UNSEEN = 4 };

static __thread W vbr_search_fault_words[3];

void vbr_search_fault(W *out) {
    memcpy(out, vbr_search_fault_words, sizeof vbr_search_fault_words);
}

/* --------------------------------------------------------------------------- determinization */

/* How a state is dealt anew for a seat (python_search.redeal): the things lying in the zones
 * hidden from it, grouped by pool (a kind on a side), each pool's in the order the zones hold them. */
typedef struct {
    W *pool, *items, *pool_kind, *pool_side;  /* L_THINGS words each: the planning's */
    W *planned_item, *pool_start;  /* the plan: pool p's things from pool_start[p] */
    W npools;
    const VbrGame *g;
} VbrDeal;

#define VBR_REVEALED (L_ZONE_OF + L_THINGS)  /* the things' revealed flags (vbr/ir/layout.py) */

static int vbr_deal_open(const VbrGame *g, VbrDeal *d) {
    d->g = g;
    size_t n = (size_t)L_THINGS + 1;
    W *block = malloc(6 * n * sizeof(W));
    if (!block) return -2;
    d->pool = block; d->items = block + n; d->pool_kind = block + 2 * n; d->pool_side = block + 3 * n;
    d->planned_item = block + 4 * n; d->pool_start = block + 5 * n;
    d->npools = 0;
    return 0;
}

static void vbr_deal_close(VbrDeal *d) { free(d->pool); }

/* The plan of S's deal for `seat`. */
static void vbr_deal_plan(const W *S, W seat, VbrDeal *d) {
    const VbrGame *g = d->g;
    W nthings = 0, npools = 0, placed = 0;
    for (W h = 0; h < HIDDEN_OF(seat, 0); h++) {
        W z = HIDDEN_OF(seat, 1 + h), at = L_ZONES + z * L_ZONE_SIZE, side = ZONE_SIDE[z];
        for (W w = at + 1; w <= at + S[at]; w++) {
            W kind = S[L_KINDS + S[w]], p = 0;
            while (p < npools && !(d->pool_kind[p] == kind && d->pool_side[p] == side)) p++;
            if (p == npools) { d->pool_kind[p] = kind; d->pool_side[p] = side; npools++; }
            d->items[nthings] = S[w]; d->pool[nthings] = p; nthings++;
        }
    }
    for (W p = 0; p < npools; p++) {
        d->pool_start[p] = placed;
        for (W k = 0; k < nthings; k++)
            if (d->pool[k] == p) d->planned_item[placed++] = d->items[k];
    }
    d->pool_start[npools] = placed;
    d->npools = npools;
}

/* S, a copy of `src`, the state the plan was made from, dealt anew from `seed`: each pool's things
 * shuffled, and the i-th thing of the pool (in place order) given the revealed flag and the fields
 * `src` gives the i-th from the shuffle's end; each random stream restarted. */
static void vbr_deal(W *S, const W *src, U seed, VbrDeal *d) {
    const VbrGame *g = d->g;
    U st = vbr_first_state(seed, VBR_DETERMINIZE_KEY);
    for (W p = 0; p < d->npools; p++) {
        W a = d->pool_start[p], n = d->pool_start[p + 1] - a;
        memcpy(d->items, d->planned_item + a, (size_t)n * sizeof(W));
        for (W i = n - 1; i > 0; i--) {
            W j = vbr_below_of(&st, i + 1), t = d->items[i];
            d->items[i] = d->items[j]; d->items[j] = t;
        }
        for (W k = 0; k < n; k++) {
            W e = d->planned_item[a + k], from = d->items[n - 1 - k];
            S[VBR_REVEALED + e] = src[VBR_REVEALED + from];
            memcpy(S + L_FIELDS + e * L_WIDTH, src + L_FIELDS + from * L_WIDTH, (size_t)L_WIDTH * sizeof(W));
        }
    }
    for (W k = 0; k < L_NSTREAMS; k++) S[L_STREAMS + k] = (W)vbr_first_state(seed, STREAM_KEYS[k]);
}

int vbr_determinize(const VbrGame *g, W *S, W *out, W seat, U seed) {
    VbrDeal d;
    if (g->width != VBR_WIDTH || seat < 0 || seat >= VBR_SEATS || vbr_deal_open(g, &d)) return -2;
    memcpy(out, S, (size_t)S[H_TOP] * sizeof(W));
    vbr_deal_plan(S, seat, &d);
    vbr_deal(out, S, seed, &d);
    vbr_deal_close(&d);
    return 0;
}

/* --------------------------------------------------------------------------------- the search */

/* The search's settings, as python_search.SearchParams.numbers gives them. */
enum { P_ITERATIONS, P_C, P_DEPTH, P_REWARD, P_ROLLOUT, P_GREEDY_MOVES, P_WORLDS, P_WIDEN, P_TREE, P_INNER_C, P_SPREAD_PLAYOUTS, P_BUDGET,
       P_CUT, P_SPREAD_SCALE, P_EXTEND, P_CONFIDENCE, P_COUNT };
#define VBR_GREEDY_WIN 1000.0
#define VBR_CONFIDENCE_EVERY 16  /* past the budget, confidence is checked after every 16th iteration */

typedef struct {
    W visits, available, side, first, next, nchildren, parent;  /* first child, next sibling, parent: pool indexes, -1 none */
    double total, squares;  /* the rewards' sum, and (a root child's) sum of squares */
} VbrNode;

typedef struct {
    const VbrGame *g;
    VbrNode *nodes;
    W *node_keys;  /* node k's key: VBR_KEY_WORDS words from k * VBR_KEY_WORDS */
    W *path, used, cap;
    W *slots, nslots;  /* the children by parent and key: open addressing, 2 * cap slots, -1 empty */
    W *root_words, *world, *trial, *keys, *key_option, *untried, *legal;
    W *key_at, *key_stamp, key_mask, stamp;  /* a choice's keys by hash (vbr_choose): open addressing, stamped per choice */
    char *hidden;  /* per thing: in a zone the searching seat could not see at the root */
    char *zone_hidden;  /* per zone: hidden from the searching seat */
    W closed;  /* tree=closed: a node's children are told apart by what the searching seat observes */
    W root_things;  /* the things made by the root: their FIXED_FIELDS words go with their ids */
    W *field_plan, *plan_at;  /* tree=closed, per kind: the row words observed (vbr_field_plans) */
    VbrDeal deal;
    U agent;
    W seat, depth, margin, greedy, greedy_moves, root_team, cut_lead;  /* cut_lead: cut=lead */
    W spread_n, spread_squares;  /* the searching team's leads at playouts' ends: count, sum of squares */
    double fixed_spread;  /* > 0: the spread from the spread playouts (vbr_spread_playouts), scaled */
    double spread_scale;
    const W *allowed;  /* NULL, or per root option: nonzero when the root may take it */
    W iterations, work;  /* iterations run; the steps counted and the choices made by their worlds */
    double c, inner_c, widen;  /* inner_c: the UCB constant below the root */
} VbrSearch;

/* Where a child of `parent` with `key` is looked for first among the slots. */
static U vbr_slot_of(const VbrSearch *s, W parent, const W *key) {
    const VbrGame *g = s->g;
    U h = (U)parent;
    for (W i = 0; i < VBR_KEY_WORDS; i++) h = (h + (U)key[i]) * VBR_GAMMA;
    return vbr_mix(h) & (U)(s->nslots - 1);
}

static void vbr_slot_put(VbrSearch *s, W k) {
    const VbrGame *g = s->g;
    U i = vbr_slot_of(s, s->nodes[k].parent, VBR_NODE_KEY(s, k));
    while (s->slots[i] >= 0) i = (i + 1) & (U)(s->nslots - 1);
    s->slots[i] = k;
}

static int vbr_search_grow(VbrSearch *s) {
    const VbrGame *g = s->g;
    W cap = s->cap ? 2 * s->cap : 64;
    VbrNode *nodes = realloc(s->nodes, (size_t)cap * sizeof(VbrNode));
    if (!nodes) return -2;
    s->nodes = nodes;
    W *keys = realloc(s->node_keys, (size_t)cap * VBR_KEY_WORDS * sizeof(W));
    if (!keys) return -2;
    s->node_keys = keys;
    W *path = realloc(s->path, (size_t)cap * sizeof(W));
    if (!path) return -2;
    s->path = path;
    W *slots = malloc(2 * (size_t)cap * sizeof(W));
    if (!slots) return -2;
    free(s->slots);
    s->slots = slots;
    s->nslots = 2 * cap;
    memset(slots, 0xff, 2 * (size_t)cap * sizeof(W));  /* every slot -1 */
    for (W k = 0; k < s->used; k++)
        if (s->nodes[k].parent >= 0) vbr_slot_put(s, k);
    s->cap = cap;
    return 0;
}

static W vbr_new_node(VbrSearch *s, W parent, const W *key, W side) {
    const VbrGame *g = s->g;
    if (s->used == s->cap && vbr_search_grow(s)) return -2;
    W k = s->used++;
    VbrNode *n = &s->nodes[k];
    if (key) memcpy(VBR_NODE_KEY(s, k), key, VBR_KEY_WORDS * sizeof(W));
    else memset(VBR_NODE_KEY(s, k), 0, VBR_KEY_WORDS * sizeof(W));
    n->visits = 0; n->available = 1; n->side = side; n->first = -1; n->nchildren = 0; n->parent = parent;
    n->total = 0.0; n->squares = 0.0;
    if (parent >= 0) {
        n->next = s->nodes[parent].first; s->nodes[parent].first = k; s->nodes[parent].nchildren++;
        vbr_slot_put(s, k);
    } else n->next = -1;
    return k;
}

/* The child of `node` with `key`, or -1. */
static W vbr_child(const VbrSearch *s, W node, const W *key) {
    const VbrGame *g = s->g;
    U i = vbr_slot_of(s, node, key);
    for (W k; (k = s->slots[i]) >= 0; i = (i + 1) & (U)(s->nslots - 1))
        if (s->nodes[k].parent == node && !memcmp(VBR_NODE_KEY(s, k), key, VBR_KEY_WORDS * sizeof(W))) return k;
    return -1;
}

/* What a word naming thing e shows the searching seat (python_search._Search.thing_seen): -1 when
 * e lies where the seat may not look, -2 - its kind when it lay hidden from the seat at the root,
 * else e (none too). */
static W vbr_thing_seen(const VbrSearch *s, const W *world, W e) {
    const VbrGame *g = s->g;
    if (e < 0 || e >= L_THINGS) return e;
    W z = world[L_ZONE_OF + e];
    if (z >= 0 && z < L_NZONES && s->zone_hidden[z]) return -1;
    return s->hidden[e] ? -2 - world[L_KINDS + e] : e;
}

/* Per kind, the row words vbr_observe reads of a thing, in order, each as 2 * its place + 1 when it
 * names a thing: from plan_at[4 * kind] on, plan_at[4 * kind + 1] of them for a thing the root had
 * and the seat saw (the words FIXED_FIELDS leaves out left out), from plan_at[4 * kind + 2] on,
 * plan_at[4 * kind + 3] of them (every word) for any other. -2 for no memory. */
static int vbr_field_plans(VbrSearch *s) {
    const VbrGame *g = s->g;
    W nkinds = g->nkinds, used = 0;
    s->plan_at = malloc(4 * ((size_t)nkinds + 1) * sizeof(W));
    s->field_plan = malloc(2 * ((size_t)nkinds + 1) * L_WIDTH * sizeof(W));
    if (!s->plan_at || !s->field_plan) return -2;
    for (W kind = 0; kind < nkinds; kind++) {
        const W *things = THING_FIELDS(kind);  /* how many, then the words naming things */
        for (W every = 0; every < 2; every++) {
            U fixed = every ? 0 : FIXED_FIELDS[kind];
            s->plan_at[4 * kind + 2 * every] = used;
            for (W f = 0, next = 1; f < L_WIDTH; f++) {
                int thing = next <= things[0] && things[next] == f;
                next += thing;
                if (f >= 64 || !(fixed >> f & 1)) s->field_plan[used++] = 2 * f + thing;
            }
            s->plan_at[4 * kind + 2 * every + 1] = used - s->plan_at[4 * kind + 2 * every];
        }
    }
    return 0;
}

/* tree=closed: what the searching seat observes of a world, hashed (python_search._Search.observe
 * and observed_words): the sum over the observed words, the i-th w, of mix(w ^ i * GAMMA), mixed
 * with the seed; the words: the vars' own (L_PLAIN_VARS plain words, then each list var's slots,
 * a slot's count and its items: LIST_VARS), then zone by zone its count and, in a zone the seat
 * may see, each thing (its id, or -1 - its kind for a thing hidden from the seat at the root)
 * followed by its fields (but those of FIXED_FIELDS for a thing the root had and the seat saw:
 * vbr_field_plans);
 * a word naming a thing (THING_VARS, a list var's items when LIST_VARS says so, THING_FIELDS) as
 * vbr_thing_seen shows it.
 * The terms do not wait for one another: the processor works several out at once. */
static W vbr_observe(const VbrSearch *s, const W *world) {
    const VbrGame *g = s->g;
    U h = 0, k = 0;
#define VBR_SEE(v) (k += VBR_GAMMA, h += vbr_mix((U)(v) ^ k))
    for (W w = 0; w < L_PLAIN_VARS; w++) VBR_SEE(THING_VARS[w] ? vbr_thing_seen(s, world, world[L_VARS + w]) : world[L_VARS + w]);
    for (W l = 0; l < L_NLIST_VARS; l++) {
        W cap = LIST_VARS(l, 2);
        for (W t = 0; t < LIST_VARS(l, 1); t++) {
            const W *slot = world + L_VARS + LIST_VARS(l, 0) + t * (1 + cap);
            W n = slot[0] < 0 ? 0 : slot[0] > cap ? cap : slot[0];
            VBR_SEE(slot[0]);
            for (W i = 1; i <= n; i++) VBR_SEE(LIST_VARS(l, 3) ? vbr_thing_seen(s, world, slot[i]) : slot[i]);
        }
    }
    for (W z = 0; z < L_NZONES; z++) {
        W at = L_ZONES + z * L_ZONE_SIZE;
        VBR_SEE(world[at]);
        if (s->zone_hidden[z]) continue;
        for (W w = at + 1, end = at + world[at]; w <= end; w++) {
            W e = world[w], kind = world[L_KINDS + e], hidden = s->hidden[e];
            VBR_SEE(hidden ? -1 - kind : e);
            const W *plan = s->plan_at + 4 * kind + (!hidden && e < s->root_things ? 0 : 2);
            const W *words = s->field_plan + plan[0], *row = world + L_FIELDS + e * L_WIDTH;
            for (W j = 0; j < plan[1]; j++) {
                W v = row[words[j] >> 1];
                VBR_SEE(words[j] & 1 ? vbr_thing_seen(s, world, v) : v);
            }
        }
    }
#undef VBR_SEE
    return (W)vbr_mix(h ^ VBR_OBSERVE_SEED);
}

/* Option i's key (python_search._Search.keys): the chooser's seat, a tag and its words, the observation. */
static void vbr_option_key(const VbrSearch *s, const W *world, W i, int root, W obs, W *key) {
    const VbrGame *g = s->g;
    W v = world[L_OPTIONS + i];
    memset(key, 0, VBR_KEY_WORDS * sizeof(W));
    key[0] = world[H_SEAT];
    if (root) { key[1] = KEY_ROOT; key[2] = i; }
    else if (!SITE_OFFERS_THINGS[world[H_SITE]] || v == VBR_NONE) { key[1] = KEY_PLAIN; key[2] = v; }
    else if (world[H_SEAT] == s->seat && s->zone_hidden[world[L_ZONE_OF + v]]) { key[1] = KEY_UNSEEN; key[2] = i; }
    else if (s->hidden[v]) {
        key[1] = KEY_HIDDEN; key[2] = world[L_KINDS + v];
        memcpy(key + 3, world + L_FIELDS + v * L_WIDTH, L_WIDTH * sizeof(W));
    } else { key[1] = KEY_SEEN; key[2] = v; }
    key[3 + L_WIDTH] = obs;
}

/* Option i applied to the world; -1 (the fault kept) when the world faulted. */
static int vbr_search_apply(const VbrGame *g, W *world, W i) {
    if (g->apply(world, i) != FAULT) return 0;
    vbr_search_fault_words[0] = world[H_FAULT];
    vbr_search_fault_words[1] = world[H_FAULT_A];
    vbr_search_fault_words[2] = world[H_FAULT_B];
    return -1;
}

static double vbr_ucb(const VbrSearch *s, const VbrNode *n, double c) {
    return n->total / (double)n->visits + c * sqrt(log((double)n->available) / (double)n->visits);
}

/* Whether a key equal to `key` is among this choice's first `nk` keys; if not, it is noted as
 * the nk-th (a hash table, so a choice of thousands of options costs time linear in them). */
static int vbr_key_met(VbrSearch *s, const W *key, W nk) {
    const VbrGame *g = s->g;
    U h = 0;
    for (W i = 0; i < VBR_KEY_WORDS; i++) h = (h + (U)key[i]) * VBR_GAMMA;
    for (U at = vbr_mix(h) & (U)s->key_mask;; at = (at + 1) & (U)s->key_mask) {
        if (s->key_stamp[at] != s->stamp) {
            s->key_stamp[at] = s->stamp;
            s->key_at[at] = nk;
            return 0;
        }
        if (!memcmp(s->keys + s->key_at[at] * VBR_KEY_WORDS, key, VBR_KEY_WORDS * sizeof(W))) return 1;
    }
}

/* The chosen option applied to the world; its child, or a negative code. An untried key first
 * (a draw among them when several) while widening allows another child or no tried key is legal
 * here, else the first best UCB bound among the legal ones. */
static W vbr_choose(VbrSearch *s, W node, W *world, int root) {
    const VbrGame *g = s->g;
    W n = world[H_NOPTS], nk = 0, nu = 0, nl = 0, obs = s->closed && !root ? vbr_observe(s, world) : 0;
    s->stamp++;
    for (W i = 0; i < n; i++) {
        if (root && s->allowed && !s->allowed[i]) continue;
        W *key = s->keys + nk * VBR_KEY_WORDS;
        vbr_option_key(s, world, i, root, obs, key);
        if (!root && vbr_key_met(s, key, nk)) continue;  /* a root's keys differ: each holds its option */
        s->key_option[nk++] = i;
    }
    for (W j = 0; j < nk; j++) {
        W child = vbr_child(s, node, s->keys + j * VBR_KEY_WORDS);
        if (child < 0) s->untried[nu++] = j;
        else { s->nodes[child].available++; s->legal[nl++] = child; s->legal[nl++] = j; }
    }
    int grow = nu && (!nl || s->widen == 0.0 ||
                      (double)s->nodes[node].nchildren < floor(pow((double)(s->nodes[node].visits + 1), s->widen)));
    W child, option;
    if (grow) {
        W j = s->untried[nu > 1 ? vbr_below_of(&s->agent, nu) : 0];
        child = vbr_new_node(s, node, s->keys + j * VBR_KEY_WORDS, TEAM_OF[world[H_SEAT]]);
        if (child < 0) return child;
        option = s->key_option[j];
    } else {
        child = s->legal[0]; option = s->key_option[s->legal[1]];
        double cc = root ? s->c : s->inner_c;
        double best = vbr_ucb(s, &s->nodes[child], cc);
        for (W l = 2; l < nl; l += 2) {
            double u = vbr_ucb(s, &s->nodes[s->legal[l]], cc);
            if (u > best) { best = u; child = s->legal[l]; option = s->key_option[s->legal[l + 1]]; }
        }
    }
    if (vbr_search_apply(s->g, world, option)) return -1;
    return child;
}

/* The path's length, or a negative code. */
static W vbr_descend(VbrSearch *s, W *world) {
    W node = vbr_choose(s, 0, world, 1), len = 0;
    if (node < 0) return node;
    s->path[len++] = node;
    while (world[H_STATUS] == CHOICE && s->nodes[node].visits) {
        if (world[H_NOPTS] == 1) {
            if (vbr_search_apply(s->g, world, 0)) return -1;
            continue;
        }
        node = vbr_choose(s, node, world, 0);
        if (node < 0) return node;
        s->path[len++] = node;
    }
    return len;
}

/* Each team's points lead over the best other team into `lead`; 0 when the file keeps no points. */
/* Each team's points into `pts` (python_search.team_points: kept per team, or the seats' summed
 * per team); 0 when the file keeps no points. */
static int vbr_team_points(const VbrGame *g, const W *world, W *pts) {
    if (POINTS_AT < 0 || POINTS_COUNT <= 0) return 0;
    if (POINTS_BY_TEAM) {
        for (W t = 0; t < VBR_TEAMS; t++) pts[t] = world[POINTS_AT + t];
    } else {
        for (W t = 0; t < VBR_TEAMS; t++) pts[t] = 0;
        for (W s = 0; s < VBR_SEATS; s++) pts[TEAM_OF[s]] += world[POINTS_AT + s];
    }
    return 1;
}

static int vbr_leads(const VbrGame *g, const W *world, W *lead) {
    W pts[VBR_TEAMS];
    if (!vbr_team_points(g, world, pts)) return 0;
    for (W t = 0; t < VBR_TEAMS; t++) {
        W best = pts[t];
        int found = 0;
        for (W u = 0; u < VBR_TEAMS; u++)
            if (u != t && (!found || pts[u] > best)) { best = pts[u]; found = 1; }
        lead[t] = pts[t] - best;
    }
    return 1;
}

static void vbr_estimate(const VbrGame *g, const W *world, double *r) {
    W lead[VBR_TEAMS];
    int have = vbr_leads(g, world, lead);
    for (W t = 0; t < VBR_TEAMS; t++) r[t] = have ? 0.5 + 0.5 * tanh((double)lead[t] / VBR_LEAD_SCALE) : 0.5;
}

/* The team that won a finished world, or -1 for a draw. */
static W vbr_won(const VbrGame *g, const W *world) {
    W w = world[H_WINNER];  /* H_WINNER_TEAM: a team as a whole won, its index + 1 */
    return world[H_WINNER_TEAM] ? world[H_WINNER_TEAM] - 1 : w == VBR_NONE ? -1 : TEAM_OF[w];
}

/* The greedy playout choice (python_search._Search.greedy_option); -1 when a trial faulted. */
static W vbr_greedy_option(VbrSearch *s, W *world, W n) {
    const VbrGame *g = s->g;
    s->agent += VBR_GAMMA;
    U seed = vbr_mix(s->agent);
    W team = TEAM_OF[world[H_SEAT]], nbest = 0, lead[VBR_TEAMS];
    double top = 0.0;
    for (W i = 0; i < n; i++) {
        memcpy(s->trial, world, (size_t)world[H_TOP] * sizeof(W));
        for (W k = 0; k < L_NSTREAMS; k++) s->trial[L_STREAMS + k] = (W)vbr_first_state(seed, STREAM_KEYS[k]);
        if (vbr_search_apply(s->g, s->trial, i)) return -1;
        double worth;
        if (s->trial[H_STATUS] == CHOICE) worth = vbr_leads(g, s->trial, lead) ? (double)lead[team] : 0.0;
        else {
            W won = vbr_won(g, s->trial);
            worth = won < 0 ? 0.0 : won == team ? VBR_GREEDY_WIN : -VBR_GREEDY_WIN;
        }
        if (i == 0 || worth > top) { top = worth; nbest = 0; s->legal[nbest++] = i; }
        else if (worth == top) s->legal[nbest++] = i;
    }
    return s->legal[nbest > 1 ? vbr_below_of(&s->agent, nbest) : 0];
}

/* reward=margin: each team's outcome in r averaged with its margin score 0.5 + 0.5 * tanh(lead /
 * spread); `cut`: a playout cut by `depth`, whose outcome is 0.5, or with cut=lead the margin score
 * itself (python_search._Search.with_margin). */
static void vbr_with_margin(VbrSearch *s, const W *world, double *r, int cut) {
    const VbrGame *g = s->g;
    W lead[VBR_TEAMS];
    if (!vbr_leads(g, world, lead)) return;
    double spread = s->fixed_spread;
    if (spread <= 0.0) {
        W x = lead[s->root_team];
        s->spread_n++; s->spread_squares += x * x;
        spread = sqrt((double)s->spread_squares / (double)s->spread_n);
        if (spread < 1.0) spread = 1.0;
        spread *= s->spread_scale;
    }
    for (W t = 0; t < VBR_TEAMS; t++) {
        double m = 0.5 + 0.5 * tanh((double)lead[t] / spread);
        r[t] = 0.5 * (cut && s->cut_lead ? m : r[t]) + 0.5 * m;
    }
}

/* Rewards per team into r; -1 when a world faulted. */
static int vbr_playout(VbrSearch *s, W *world, double *r) {
    const VbrGame *g = s->g;
    W left = s->depth ? s->depth : -1, moves = 0;
    while (world[H_STATUS] == CHOICE) {
        if (left == 0) {
            if (s->margin) {
                for (W t = 0; t < VBR_TEAMS; t++) r[t] = 0.5;
                vbr_with_margin(s, world, r, 1);
            } else vbr_estimate(g, world, r);
            return 0;
        }
        left--;
        W n = world[H_NOPTS], i = 0;
        if (n > 1) {
            if (s->greedy && (!s->greedy_moves || moves < s->greedy_moves)) {
                i = vbr_greedy_option(s, world, n);
                if (i < 0) return -1;
            } else i = vbr_below_of(&s->agent, n);
        }
        moves++;
        if (vbr_search_apply(s->g, world, i)) return -1;
    }
    W team = vbr_won(g, world);
    for (W t = 0; t < VBR_TEAMS; t++) r[t] = team < 0 ? 0.5 : t == team ? 1.0 : 0.0;
    if (s->margin) vbr_with_margin(s, world, r, 0);
    return 0;
}

/* The margin reward's spread from k random playouts of the root to the game's end
 * (python_search._Search.spread_playouts) into s->fixed_spread, left 0 when k is 0 or the file
 * keeps no points; -1 when a world faulted. */
static int vbr_spread_playouts(VbrSearch *s, W k) {
    const VbrGame *g = s->g;
    W lead[VBR_TEAMS], start;
    if (!k || !vbr_leads(g, s->root_words, lead)) return 0;
    start = lead[s->root_team];
    double squares = 0.0;
    for (W p = 0; p < k; p++) {
        s->agent += VBR_GAMMA;
        U world_seed = vbr_mix(s->agent);
        memcpy(s->world, s->root_words, (size_t)s->root_words[H_TOP] * sizeof(W));
        vbr_deal(s->world, s->root_words, world_seed, &s->deal);
        while (s->world[H_STATUS] == CHOICE) {
            W n = s->world[H_NOPTS];
            if (vbr_search_apply(s->g, s->world, n > 1 ? vbr_below_of(&s->agent, n) : 0)) return -1;
        }
        vbr_leads(g, s->world, lead);
        double x = (double)(lead[s->root_team] - start);
        squares += x * x;
    }
    s->fixed_spread = sqrt(squares / (double)k);
    if (s->fixed_spread < 1.0) s->fixed_spread = 1.0;
    s->fixed_spread *= s->spread_scale;
    return 0;
}

static W vbr_iterate(VbrSearch *s) {
    const VbrGame *g = s->g;
    double r[VBR_TEAMS];
    s->agent += VBR_GAMMA;
    U world_seed = vbr_mix(s->agent);
    memcpy(s->world, s->root_words, (size_t)s->root_words[H_TOP] * sizeof(W));
    vbr_deal(s->world, s->root_words, world_seed, &s->deal);
    W len = vbr_descend(s, s->world);
    if (len < 0) return len;
    if (vbr_playout(s, s->world, r)) return -1;
    s->iterations++;
    s->work += s->world[H_STEPS] - s->root_words[H_STEPS] + s->world[H_CHOICES] - s->root_words[H_CHOICES];
    s->nodes[0].visits++;
    for (W k = 0; k < len; k++) {
        VbrNode *n = &s->nodes[s->path[k]];
        n->visits++;
        n->total += r[n->side];
    }
    s->nodes[s->path[0]].squares += r[s->nodes[s->path[0]].side] * r[s->nodes[s->path[0]].side];
    return 0;
}

/* Whether the root's most visited option (the first in option order of those most visited) leads
 * every other root child in mean reward by more than `z` standard errors of the difference, each
 * child visited at least twice (python_search._Search.confident). */
static int vbr_confident(const VbrSearch *s, double z) {
    const VbrGame *g = s->g;
    W a = -1;
    for (W k = s->nodes[0].first; k >= 0; k = s->nodes[k].next) {
        const VbrNode *n = &s->nodes[k];
        if (a < 0 || n->visits > s->nodes[a].visits || (n->visits == s->nodes[a].visits && VBR_NODE_KEY(s, k)[2] < VBR_NODE_KEY(s, a)[2]))
            a = k;
    }
    if (a < 0 || s->nodes[a].visits < 2) return 0;
    const VbrNode *A = &s->nodes[a];
    double ma = A->total / (double)A->visits;
    double va = (A->squares / (double)A->visits - ma * ma) / (double)(A->visits - 1);
    for (W k = s->nodes[0].first; k >= 0; k = s->nodes[k].next) {
        if (k == a) continue;
        const VbrNode *B = &s->nodes[k];
        if (B->visits < 2) return 0;
        double mb = B->total / (double)B->visits;
        double vb = (B->squares / (double)B->visits - mb * mb) / (double)(B->visits - 1);
        if (!(ma - mb > z * sqrt(fmax(0.0, va) + fmax(0.0, vb)))) return 0;
    }
    return 1;
}

/* Adds the root's visits per option to `visits`. */
static void vbr_root_visits(const VbrSearch *s, W n, W *visits) {
    const VbrGame *g = s->g;
    for (W k = s->nodes[0].first; k >= 0; k = s->nodes[k].next)
        if (VBR_NODE_KEY(s, k)[2] < n) visits[VBR_NODE_KEY(s, k)[2]] += s->nodes[k].visits;
}

static int vbr_search_open(const VbrGame *g, VbrSearch *s, W *S, W seat, const double *params, U agent) {
    memset(s, 0, sizeof *s);
    s->g = g;
    s->seat = seat; s->c = params[P_C]; s->depth = (W)params[P_DEPTH]; s->root_words = S;
    s->margin = params[P_REWARD] == 1.0; s->greedy = params[P_ROLLOUT] == 1.0;
    s->greedy_moves = (W)params[P_GREEDY_MOVES]; s->widen = params[P_WIDEN];
    s->agent = agent; s->root_team = TEAM_OF[seat]; s->closed = params[P_TREE] == 1.0; s->root_things = S[H_THINGS];
    s->inner_c = params[P_INNER_C] > 0.0 ? params[P_INNER_C] : params[P_C];
    s->cut_lead = params[P_CUT] == 1.0; s->spread_scale = params[P_SPREAD_SCALE];
    size_t opts = (size_t)L_MAX_OPTIONS + 1;
    s->world = malloc((size_t)L_WORDS * sizeof(W));
    s->trial = malloc((size_t)L_WORDS * sizeof(W));
    s->keys = malloc(opts * VBR_KEY_WORDS * sizeof(W));
    s->key_option = malloc(opts * sizeof(W));
    s->untried = malloc(opts * sizeof(W));
    s->legal = malloc(2 * opts * sizeof(W));
    for (s->key_mask = 15; (size_t)s->key_mask < 2 * opts; s->key_mask = 2 * s->key_mask + 1) {}
    s->key_at = malloc(((size_t)s->key_mask + 1) * sizeof(W));
    s->key_stamp = calloc((size_t)s->key_mask + 1, sizeof(W));
    s->hidden = calloc((size_t)L_THINGS + 1, 1);
    s->zone_hidden = calloc((size_t)L_NZONES + 1, 1);
    if (vbr_field_plans(s)) return -2;
    if (vbr_deal_open(g, &s->deal)) s->deal.pool = NULL;
    else vbr_deal_plan(S, seat, &s->deal);  /* every world is the root dealt anew */
    if (!s->world || !s->trial || !s->keys || !s->key_option || !s->untried || !s->legal || !s->hidden || !s->deal.pool
        || !s->key_at || !s->key_stamp || !s->zone_hidden)
        return -2;
    for (W h = 0; h < HIDDEN_OF(seat, 0); h++) {
        W at = L_ZONES + HIDDEN_OF(seat, 1 + h) * L_ZONE_SIZE;
        for (W w = at + 1; w <= at + S[at]; w++) s->hidden[S[w]] = 1;
        s->zone_hidden[HIDDEN_OF(seat, 1 + h)] = 1;
    }
    return vbr_new_node(s, -1, NULL, -1) < 0 ? -2 : 0;
}

static void vbr_search_close(VbrSearch *s) {
    free(s->nodes); free(s->node_keys); free(s->zone_hidden); free(s->path); free(s->slots); free(s->world); free(s->trial); free(s->keys); free(s->key_option);
    free(s->untried); free(s->legal); free(s->hidden); free(s->key_at); free(s->key_stamp);
    free(s->field_plan); free(s->plan_at);
    if (s->deal.pool) vbr_deal_close(&s->deal);
}

/* The work a tree of `budget` may go on to while its answer is not confident: budget * extend. */
static W vbr_reach(W budget, const double *params) {
    return (W)((double)budget * params[P_EXTEND]);
}

/* Whether the option most visited so far (over the trees before, in `visits`, and this tree's
 * root) leads every other by more than `left`, a bound on the iterations left (each adds at least
 * one to the work: its world makes the root's choice), so that no run of them can change the answer. */
static int vbr_settled(const VbrSearch *s, W n, const W *visits, W left, W *now) {
    for (W i = 0; i < n; i++) now[i] = visits[i];
    vbr_root_visits(s, n, now);
    W first = 0, second = 0;
    for (W i = 0; i < n; i++) {
        if (now[i] > first) { second = first; first = now[i]; }
        else if (now[i] > second) second = now[i];
    }
    return first - second > left;
}

/* `worlds` trees, one after the other on one agent stream, their root visits summed into `visits`
 * (n words); the option most visited, or a negative code. With `settle`, the search stops as
 * soon as the remaining iterations cannot change which option is most visited. */
static W vbr_search_root(const VbrGame *g, W *S, W seat, const double *params, U seed, W *visits, int settle,
                         const W *allowed) {
    if (g->width != VBR_WIDTH || S[H_STATUS] != CHOICE || seat < 0 || seat >= VBR_SEATS) return -2;
    W n = S[H_NOPTS], iterations = (W)params[P_ITERATIONS], worlds = (W)params[P_WORLDS], answer = 0;
    W budget_all = (W)params[P_BUDGET], shares = 0, stop = 0, reach_all = 0, reaches = 0;
    U agent = vbr_first_state(seed, VBR_MCTS_KEY);
    if (worlds < 1) return -2;
    W *now = malloc((size_t)(n + 1) * sizeof(W));
    if (!now) return -2;
    for (W i = 0; i < n; i++) visits[i] = 0;
    for (W t = 0; t < worlds; t++) reach_all += vbr_reach(budget_all / worlds + (t < budget_all % worlds), params);
    for (W t = 0; t < worlds && answer == 0 && !stop; t++) {
        VbrSearch s;
        W share = iterations / worlds + (t < iterations % worlds);
        W budget = budget_all / worlds + (t < budget_all % worlds);
        if (!share && !budget) break;
        W reach = vbr_reach(budget, params);  /* the work this tree may extend to */
        shares += share; reaches += reach;
        answer = vbr_search_open(g, &s, S, seat, params, agent);
        s.allowed = allowed;
        if (answer == 0 && s.margin) answer = vbr_spread_playouts(&s, (W)params[P_SPREAD_PLAYOUTS]);
        while (answer == 0 && (s.iterations < share || s.work < budget
                               || (s.work < reach && (s.iterations % VBR_CONFIDENCE_EVERY || !vbr_confident(&s, params[P_CONFIDENCE]))))) {
            answer = vbr_iterate(&s);
            W left = (share > s.iterations ? share - s.iterations : 0) + (reach > s.work ? reach - s.work : 0)
                     + iterations - shares + reach_all - reaches;
            if (settle && answer == 0 && vbr_settled(&s, n, visits, left, now)) stop = 1;
            if (stop) break;
        }
        if (answer == 0) vbr_root_visits(&s, n, visits);
        agent = s.agent;
        vbr_search_close(&s);
    }
    free(now);
    if (answer < 0) return answer;
    W top = 0, nbest = 0;
    for (W i = 0; i < n; i++) if ((!allowed || allowed[i]) && visits[i] > top) top = visits[i];
    W *best = malloc((size_t)(n + 1) * sizeof(W));
    if (!best) return -2;
    for (W i = 0; i < n; i++) if ((!allowed || allowed[i]) && visits[i] == top) best[nbest++] = i;
    answer = best[nbest > 1 ? vbr_below_of(&agent, nbest) : 0];
    free(best);
    return answer;
}

/* How many options of S's pending choice the root may take (all without a mask). */
static W vbr_allowed_count(const W *S, const W *allowed) {
    W k = 0;
    for (W i = 0; i < S[H_NOPTS]; i++) k += !allowed || allowed[i];
    return k;
}

W vbr_mcts_visits(const VbrGame *g, W *S, W seat, const double *params, U seed, W *visits, const W *allowed) {
    if (S[H_STATUS] != CHOICE || !vbr_allowed_count(S, allowed)) return -2;
    return vbr_search_root(g, S, seat, params, seed, visits, 0, allowed);
}

W vbr_mcts(const VbrGame *g, W *S, W seat, const double *params, U seed, const W *allowed) {
    if (S[H_STATUS] != CHOICE) return -2;
    W k = vbr_allowed_count(S, allowed);
    if (!k) return -2;
    if (k == 1 && seat >= 0 && seat < VBR_SEATS) {  /* a single option the root may take: no search */
        for (W i = 0; i < S[H_NOPTS]; i++) if (!allowed || allowed[i]) return i;
    }
    W *visits = malloc((size_t)(S[H_NOPTS] + 1) * sizeof(W));
    if (!visits) return -2;
    W answer = vbr_search_root(g, S, seat, params, seed, visits, 1, allowed);
    free(visits);
    return answer;
}

/* ------------------------------------------------------------------------------ the greedy agent */

/* A world's worth to `team` (play._typed_value): a win VBR_GREEDY_WIN, a loss its negative, a draw
 * 0; before the end the team's points less the best other team's (less 0 when there is none), 0
 * when the file keeps no points. */
static double vbr_greedy_value(const VbrGame *g, const W *world, W team) {
    if (world[H_STATUS] == OVER) {
        W won = vbr_won(g, world);
        return won < 0 ? 0.0 : won == team ? VBR_GREEDY_WIN : -VBR_GREEDY_WIN;
    }
    W pts[VBR_TEAMS], best = 0;
    if (!vbr_team_points(g, world, pts)) return 0.0;
    int found = 0;
    for (W t = 0; t < VBR_TEAMS; t++)
        if (t != team && (!found || pts[t] > best)) { best = pts[t]; found = 1; }
    return (double)(pts[team] - best);
}

/* The greedy agent's choice at S's pending choice for the seat to move (play.greedy_choice, the
 * definition, whose draws from *stream it makes in the same order): each of the `n` candidates
 * (`allowed`, option indexes, or NULL for every option) tried on `samples` worlds the seat may
 * imagine (each dealt as vbr_determinize deals, seeded by a draw below 2^62), the best summed
 * worth taken, ties broken by a draw. The option; -1 when an imagined world faulted (the caller
 * plays the choice again where it can say where); -2 for a state not at a choice, no candidate,
 * or no memory. */
W vbr_greedy(const VbrGame *g, W *S, W samples, U *stream, const W *allowed, W n) {
    if (g->width != VBR_WIDTH || S[H_STATUS] != CHOICE || n < 1 || samples < 1) return -2;
    if (n == 1) return allowed ? allowed[0] : 0;
    W seat = S[H_SEAT], team = TEAM_OF[seat], nbest = 0, answer = -2;
    VbrDeal d;
    W *world = calloc((size_t)L_WORDS, sizeof(W)), *best = malloc((size_t)n * sizeof(W));
    if (!world || !best || vbr_deal_open(g, &d)) { free(world); free(best); return -2; }
    vbr_deal_plan(S, seat, &d);
    double top = 0.0;
    for (W c = 0; c < n; c++) {
        W option = allowed ? allowed[c] : c;
        double total = 0.0;
        for (W k = 0; k < samples; k++) {
            U seed = (U)vbr_below_of(stream, (W)1 << 62);
            memcpy(world, S, (size_t)S[H_TOP] * sizeof(W));
            memset(world + S[H_TOP], 0, (size_t)(L_WORDS - S[H_TOP]) * sizeof(W));  /* as a new state's array */
            vbr_deal(world, S, seed, &d);
            if (g->apply(world, option) == FAULT) { answer = -1; goto done; }
            total += vbr_greedy_value(g, world, team);
        }
        if (c == 0 || total > top) { top = total; nbest = 0; }
        if (c == 0 || total >= top) best[nbest++] = option;
    }
    answer = nbest == 1 ? best[0] : best[vbr_below_of(stream, nbest)];
done:
    vbr_deal_close(&d);
    free(world); free(best);
    return answer;
}

/* vbr_play_seats' VbrPick for greedy seats: ctx[0] the program's VbrGame, ctx[1] the imagined
 * worlds its choices may still try (each choice of n > 1 options tries samples * n), ctx[2 + seat]
 * that seat's samples. Once that work is spent, -3 for every choice of more than one option: the
 * call hands play back to its caller (which hears Ctrl-C between calls), to go on in another. */
W vbr_greedy_pick(W *ctx, W *S, U *stream) {
    const VbrGame *g = (const VbrGame *)(intptr_t)ctx[0];
    W n = S[H_NOPTS], samples = ctx[2 + S[H_SEAT]];
    if (n > 1) {
        if (ctx[1] <= 0) return -3;
        ctx[1] -= samples * n;
    }
    return vbr_greedy(g, S, samples, stream, NULL, n);
}
