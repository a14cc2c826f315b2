"""The C engine's rules: each node of the typed program as C source.

`c_source(program)` gives one C file: c_runtime.h, per block of each unit a function
`u<unit>(S, fp, pc)` that enters at block pc and returns when control moves,
the tables of blocks, the entry points `vbr_new`, `vbr_apply`, `vbr_play_random`,
`vbr_play_many`, and `vbr_game()`, the program as the search library reads it (`search_source`,
one library for all the programs whose things take as many words). It mirrors python_source.py
rule for rule. Nothing of the rule file's text is in the source: every number is written by
this module from an int, names are numbers, and texts stay in the program's tables on the Python
side.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from itertools import accumulate, chain

from vbr.collector import uncollected
from vbr.engines.c_split import function, splits, statement_groups, unit_functions
from vbr.engines.events import CALL, PHASE, PICK, RETURN, REVEAL, ROLL, SAY, SHUFFLE, reveal_sites, say_sites
from vbr.engines.word_source import WordSource
from vbr.engines.zone_kinds import seq_zones, zone_kinds
from vbr.errors import Span
from vbr.ir import nodes as N
from vbr.ir import random_streams as R
from vbr.ir.build import CELL_FAULT, CHOICE_FAULT, COPY_FAULT, DEPTH_FAULT, ITEMS_FAULT, STEP_FAULT
from vbr.ir.chance_program import CAPACITY as DECIDED_ROOM
from vbr.ir.direct_calls import DirectCalls
from vbr.ir.layout import FRAME_HEAD, ITEMS_PER_STEP, Header as H
from vbr.ir.ranges import ValueRanges
from vbr.ir.steps import stepped_blocks
from vbr.ir.never_none import never_none_slots, never_none_vars
from vbr.ir.observed_words import fixed_fields, observed_vars, thing_fields, thing_vars
from vbr.ir.values import NONE, cell_xy

_ARITH = {"+": "vbr_add", "-": "vbr_sub", "*": "vbr_mul", "/": "vbr_div", "%": "vbr_mod"}
_CELL_FNS = ("number", "side", "row", "col", "in_court", "on_net")
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_ORDER = {"<": 0, "<=": 1, ">": 2, ">=": 3}  # vbr_order's op
# the events of a logged game (vbr/engines/events.py) go to the function its state names, if any
LOG_HOOK = f"""typedef void VbrLogFn(W *S, W what, W code, W n, const W *args);
#define H_LOG {H.LOG}
#if defined(__GNUC__)
#define VBR_LOGGING(S) __builtin_expect((S)[H_LOG] != 0, 0)
#else
#define VBR_LOGGING(S) ((S)[H_LOG] != 0)
#endif
#define VBR_LOG(S, what, code, n, args) \\
    do {{ VBR_BARRIER(); ((VbrLogFn *)(intptr_t)(S)[H_LOG])((S), (what), (code), (n), (args)); }} while (0)
/* a draw told to the log (its value and the site's code; a shuffle, n = 0, only its zone) */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static W vbr_log_draw(W *S, W what, W code, W n, W v) {{
    W a[1] = {{v}};
    VBR_LOG(S, what, code, n, a);
    return v;
}}
/* v, a draw's value, told to the log while one listens: without one, a test of a word */
static inline W vbr_drawn(W *S, W what, W code, W v) {{
    return VBR_LOGGING(S) ? vbr_log_draw(S, what, code, 1, v) : v;
}}"""
STACK_ITEMS = 8192  # words of a list worked out in play kept on the C stack (direct_calls.DIRECT_CALL_DEPTH frames of them fit)


@dataclass
class CModule:
    """A program's C file, and which of the rules made how much of it (what a file too large to
    compile is blamed on): the characters of C each unit's functions, and the definitions made
    while they were written, take; and the statement or terminator whose C (with the definitions
    made while it was written) is the largest, with its size and place (None in a program of none)."""
    text: str
    unit_chars: list[int]
    largest: tuple[int, Span | None] = (0, None)


@uncollected()
def c_source(program: N.Program) -> str:
    """The program's C file (c_module's text)."""
    return c_module(program).text


def c_module(program: N.Program) -> CModule:
    """The program's C file and what made it. A procedure that never suspends runs as a C call
    (`d<unit>`) unless its function would be cut into parts (c_split.py): then it, and what
    calls it, is pushed."""
    excluded: frozenset[int] = frozenset()
    while True:
        source = _Source(program, excluded)
        text = source.module()
        if not source.split_direct:
            return CModule(text, source.unit_chars, source.largest)
        excluded |= source.split_direct


# The program's VbrGame (c_runtime.h), made of search_constants' names, for the search library
GAME_DESCRIPTION = """static const VbrGame VBR_GAME = {
    VBR_SEATS, VBR_TEAMS, L_WORDS, L_STREAMS, L_NSTREAMS, L_VARS, L_THINGS, L_KINDS, L_ZONE_OF, L_FIELDS, L_WIDTH,
    L_ZONES, L_NZONES, L_ZONE_SIZE, L_OPTIONS, L_MAX_OPTIONS, L_PLAIN_VARS, L_NLIST_VARS, POINTS_AT, POINTS_COUNT,
    POINTS_BY_TEAM, L_NKINDS, TEAM_OF, ZONE_SIDE, &HIDDEN_OF[0][0], sizeof HIDDEN_OF[0] / sizeof(W), SITE_OFFERS_THINGS,
    STREAM_KEYS, &LIST_VARS[0][0], THING_VARS, &THING_FIELDS[0][0], sizeof THING_FIELDS[0] / sizeof(W), FIXED_FIELDS,
    vbr_apply};
const VbrGame *vbr_game(void) { return &VBR_GAME; }"""


def search_source(width: int) -> str:
    """The search library's C for the programs whose things have `width` words (c_search.c
    after c_runtime.h): the same text for all of them."""
    return f"#define VBR_WIDTH {int(width)}\n" + runtime() + "\n" + \
        resources.files("vbr.engines").joinpath("c_search.c").read_text()


def runtime() -> str:
    return resources.files("vbr.engines").joinpath("c_runtime.h").read_text()


def _w(v: int) -> str:
    """An int as a C constant of type W (INT64_MIN has no literal of its own)."""
    v = int(v)
    if v == NONE:
        return "VBR_NONE"
    return f"((W){v}LL)"


_CALLED_WITH_ARGS = ("distance", "cell_at", "field")  # built-ins whose C passes several operands to one call


def _unordered(operands: list) -> bool:
    """Whether two or more of these operands may fault or draw (so their order shows)."""
    settled = (N.Const, N.Local, N.Returned)
    return sum(not (isinstance(x, settled) or (isinstance(x, N.Global) and x.index is None)) for x in operands) >= 2


def _fixed_items(seq: N.Seq) -> bool:
    """Whether seq is a list literal of constants (items fixed before play: a table)."""
    return isinstance(seq, N.Items) and bool(seq.items) and all(isinstance(x, N.Const) for x in seq.items)


def _quiet(x: N.Expr) -> bool:
    """Whether working out x can neither fault nor draw: a constant, a local, the value a call
    returned, or a var's word (by a constant index in range)."""
    if isinstance(x, N.Global) and isinstance(x.index, N.Const):
        return 0 <= x.index.value < x.count
    return isinstance(x, (N.Const, N.Local, N.Returned)) or isinstance(x, N.Global) and x.index is None


def _array(values) -> str:
    """The values as a C initializer, each written as _w writes it (tables may be large)."""
    if not values:
        return "{0}"
    return "{" + ", ".join(["VBR_NONE" if v == NONE else f"((W){v}LL)" for v in map(int, values)]) + "}"


def _may_reach_none(e: N.Binary) -> bool:
    """Whether `+`, `-` or `*` of operands that are not none can give INT64_MIN (none) without
    overflowing: not a sum with a constant term >= 0, nor a difference of a constant >= 0 or
    less a constant <= 0 (every operand is above INT64_MIN)."""
    def at_least_0(x):
        return isinstance(x, N.Const) and x.value != NONE and x.value >= 0
    if e.op == "+":
        return not (at_least_0(e.left) or at_least_0(e.right))
    if e.op == "-":
        return not (at_least_0(e.left) or isinstance(e.right, N.Const) and e.right.value != NONE and e.right.value <= 0)
    return True


def _pays_steps(unit: N.Unit) -> bool:
    """Whether a statement or terminator of the unit calls a fn that pays steps (x_FnCall)."""
    nodes = (node for b in unit.blocks for node in [*b.stmts, b.term])
    return any(isinstance(x, N.FnCall) and x.steps for node in nodes for x in N.walk(node))


class _Source(WordSource):
    def __init__(self, p: N.Program, excluded: frozenset[int] = frozenset()):
        super().__init__(p, ValueRanges(p))
        self.tables: dict[tuple, str] = {}  # each constant array once, by its values
        self.reach: dict[int, tuple[str, str, str, str]] = {}  # each reach table's arrays, by its number
        self.says = {id(x): k for k, x in enumerate(say_sites(p))}  # a say's number in its events
        self.reveals = {id(x): k for k, x in enumerate(reveal_sites(p))}  # a reveal's number in its events
        # no recursion and a short chain of calls: a call runs its procedure as a C call (t_Call)
        calls = DirectCalls(p, excluded)
        self.direct_calls = calls.short
        # ... and a procedure that never suspends runs as a C function of its own, without a pushed frame
        self.direct = calls.direct
        self.split_direct: set[int] = set()  # direct procedures whose function would be cut into parts
        self.in_direct = False  # whether the unit whose code is being written is a `d<unit>` function
        self.zone_kinds = zone_kinds(p)  # the kinds each zone can hold
        self.known_kind: dict[int, int] = {}  # locals that hold, where code is being written, a thing of this kind
        self.vars_nn = never_none_vars(p)  # the vars that never hold none (vbr.ir.never_none)
        self.slots_nn: frozenset[int] = frozenset()  # the locals of the code being written that never hold none
        self.unit_chars: list[int] = []  # CModule's
        self.largest: tuple[int, Span | None] = (0, None)  # CModule's

    @contextmanager
    def item_slot(self, slot: int, seq: N.Seq):
        """While the code of a loop over seq's items is written, each item bound in `slot`: the
        slot's kind known when the items are things of one kind (a kind's things, or the items of
        zones that only ever hold that kind: zone_kinds.py), so a field read of it tests no kind."""
        saved = dict(self.known_kind)
        self.known_kind.pop(slot, None)
        if isinstance(seq, N.KindItems):
            self.known_kind[slot] = seq.kind
        else:
            zones = seq_zones(self.p, seq)
            kinds = frozenset().union(*(self.zone_kinds[z] for z in zones)) if zones is not None else ()
            if len(kinds) == 1:
                self.known_kind[slot] = next(iter(kinds))
        try:
            yield
        finally:
            self.known_kind = saved

    @contextmanager
    def rebound(self, slot: int):
        """While code that binds `slot` to another value is written: its kind no longer known."""
        saved = dict(self.known_kind)
        self.known_kind.pop(slot, None)
        try:
            yield
        finally:
            self.known_kind = saved

    # ------------------------------------------------------------------ the file
    def module(self) -> str:
        p = self.p
        units = [self.measured_unit(u, unit) for u, unit in enumerate(p.units)]
        most = max([u.nlocals for u in p.units] + [fn.nlocals for fn in p.fns] + [1])
        head = [runtime(), LOG_HOOK, self.auto_pick(), "typedef void UnitFn(W *S, W fp, W pc);",
                "".join(f"static void u{u}(W *S, W fp, W pc);\n" for u in range(len(p.units))),
                "".join(f"static int d{u}({self.direct_params(u)});\n" for u in sorted(self.direct)),
                f"static const W NONES[{most}] = {{{', '.join(['VBR_NONE'] * most)}}};  /* a frame's fresh locals, a fn's block after its call */",
                self.constants()]
        table = f"static UnitFn *const UNITS[] = {{{', '.join(f'u{u}' for u in range(len(p.units)))}}};"
        return "\n\n".join(head + self.defs + units + [table, self.search_constants(), self.entry_points(),
                                                       GAME_DESCRIPTION]) + "\n"

    def measured_unit(self, u: int, unit: N.Unit) -> str:
        """The unit's C (direct_unit or unit), its size and the definitions made meanwhile counted
        in unit_chars."""
        before = len(self.defs)
        text = self.direct_unit(u, unit) if u in self.direct else self.unit(u, unit)
        self.unit_chars.append(len(text) + sum(len(d) + 2 for d in self.defs[before:]))
        return text

    def measured(self, write, node) -> list[str]:
        """write(node)'s lines (a statement's or a terminator's); their size, with the definitions
        made meanwhile, kept in `largest` when the largest yet (each line counted as written in
        a function of its own, indented once)."""
        before = len(self.defs)
        lines = write(node)
        chars = sum(len(x) + 5 for x in lines) + sum(len(d) + 2 for d in self.defs[before:])
        if chars > self.largest[0] and node.span is not None:
            self.largest = (chars, node.span)
        return lines

    def auto_pick(self) -> str:
        """A whole game's random seats answered where each choice is made (play_to_end): the
        choice's unit calls vbr_auto_pick (inlined there) and goes on at once, instead of pausing
        and returning to the run loop. The counts vbr_play_one keeps, kept in a VbrAuto until the end."""
        p, lay = self.p, self.lay
        points = p.points or (-1, 0)
        return f"""#define POINTS_AT {lay.vars + points[0] if p.points else -1}
#define POINTS_COUNT {points[1]}
#define POINTS_BY_TEAM {int(p.points_by_team)}  /* the points var is kept per team, else per seat */
typedef struct VbrAuto {{
    U *streams;
    W *track, track_rows, offered, ones, first, rows, points[POINTS_COUNT + 1];
}} VbrAuto;
static __thread VbrAuto *vbr_auto;  /* set while play_to_end plays */

/* The points have changed since a->points: kept, and a row of track while there is room */
__attribute__((noinline)) static void vbr_auto_track(W *S, VbrAuto *a) {{
    for (W i = 0; i < POINTS_COUNT; i++) a->points[i] = S[POINTS_AT + i];
    if (a->rows < a->track_rows) {{
        W *row = a->track + a->rows * (1 + POINTS_COUNT);
        row[0] = S[H_CHOICES];
        for (W i = 0; i < POINTS_COUNT; i++) row[1 + i] = a->points[i];
        a->rows += 1;
    }}
}}

/* After a choice, once play has reached the next choice or the end: a row of track when the
 * points changed, while there is room */
static inline void vbr_auto_after(W *S, VbrAuto *a) {{
    int changed = 0;
    for (W i = 0; i < POINTS_COUNT; i++) changed |= S[POINTS_AT + i] != a->points[i];
    if (changed) vbr_auto_track(S, a);
}}

/* The pick of `seat` among the k options of the choice its unit has just made (the one before
 * it accounted for first; the choice's words are not written), counted as apply_in counts it:
 * the option's index, or -1 when the choice passed the limit (the state then at that fault).
 * The first chooser is known: play_to_end keeps it at the choice it starts from. */
static inline W vbr_auto_pick(W *S, VbrAuto *a, W k, W seat) {{
    vbr_auto_after(S, a);
    a->offered += k;
    a->ones += k == 1;
    W i = vbr_below_of(&a->streams[seat], k);
    if (++S[H_CHOICES] > {_w(p.limits['choices'])}) {{
        S[H_STATUS] = FAULT; S[H_FAULT] = {CHOICE_FAULT}; S[H_FAULT_A] = VBR_NONE; S[H_FAULT_B] = VBR_NONE;
        return -1;
    }}
    return i;
}}"""

    def search_constants(self) -> str:
        """What the play loops and the search (c_search.c, through GAME_DESCRIPTION) may know of
        this program's layout."""
        p, lay = self.p, self.lay
        from vbr.engines.python_source import team_table
        hidden = [[len(h), *h] for h in p.hidden]
        width = max(len(h) for h in hidden)
        rows = ", ".join(_array(h + [0] * (width - len(h))) for h in hidden)
        thing_sites = [int(c.item.startswith("ent")) for c in p.choices]
        plain, lists = observed_vars(p)
        thing_words, thing_lists = thing_vars(p)
        kind_things = [[len(w), *w] for w in thing_fields(p)] or [[0]]
        things_width = max(len(w) for w in kind_things)
        return "\n".join([
            f"#define VBR_SEATS {p.seats}", f"#define VBR_TEAMS {len(p.teams)}",
            f"#define L_WORDS {lay.words}", f"#define L_STREAMS {lay.streams}", f"#define L_NSTREAMS {lay.nstreams}",
            f"#define L_VARS {lay.vars}", f"#define L_THINGS {lay.things}", f"#define L_KINDS {lay.kinds}",
            f"#define L_ZONE_OF {lay.zone_of}", f"#define L_FIELDS {lay.fields}", f"#define L_WIDTH {lay.width}",
            f"#define L_ZONES {lay.zones}", f"#define L_NZONES {lay.nzones}", f"#define L_ZONE_SIZE {lay.zone_size}",
            f"#define L_OPTIONS {lay.options}", f"#define L_MAX_OPTIONS {lay.max_options}",
            f"#define L_NKINDS {len(p.kinds)}",
            f"static const W TEAM_OF[] = {_array(team_table(p))};",
            f"static const W ZONE_SIDE[] = {_array(p.zone_side)};",
            f"static const W HIDDEN_OF[][{width}] = {{{rows}}};  /* per seat: how many, then the zones */",
            f"static const W SITE_OFFERS_THINGS[] = {_array(thing_sites)};",
            f"static const U STREAM_KEYS[] = {{{', '.join(f'{R.key(k)}ULL' for k in p.streams) or '0'}}};",
            f"#define L_PLAIN_VARS {plain}", f"#define L_NLIST_VARS {len(lists)}",
            f"static const W LIST_VARS[][4] = {{{', '.join(_array([*v, t]) for v, t in zip(lists, thing_lists)) or '{0, 0, 0, 0}'}}};"
            "  /* per list var: its first word past L_VARS, its slots, a slot's room in items, 1 when they are things */",
            f"static const W THING_VARS[] = {_array(thing_words)};  /* per plain var word: 1 when it names a thing */",
            f"static const W THING_FIELDS[][{things_width}] = {{{', '.join(_array(w + [0] * (things_width - len(w))) for w in kind_things)}}};"
            "  /* per kind: how many row words name things, then those words */",
            f"static const U FIXED_FIELDS[] = {{{', '.join(f'{m}ULL' for m in fixed_fields(p)) or '0'}}};"
            "  /* per kind: the row words no statement sets (observed_words.fixed_fields) */",
        ])

    def unit(self, u: int, unit: N.Unit) -> str:
        """One function per unit: it enters at block `pc`, goes from block to block by `goto`,
        and returns when control moves (a call, a return, a choice, a `goto`, the end)."""
        self.unit_at = self.range_unit = u  # t_Goto's: the unit whose blocks are written
        self.slots_nn = never_none_slots(self.p, unit, self.vars_nn)
        blocks = self.blocks(unit, f"u{u}")
        self.range_unit = None  # code written past the unit's blocks reads no local of it
        counted_here = not splits(blocks) and not _pays_steps(unit)
        functions = unit_functions(f"u{u}", blocks, self.prologue(counted_here))
        return "\n".join([*self.step_macros(counted_here), "\n\n".join(functions),
                          "#undef VBR_STEP", "#undef VBR_LEAVE", "#undef VBR_BACK"])

    def blocks(self, unit: N.Unit, name: str) -> list[list[str]]:
        """Each block's lines: its label, its step where it costs one (vbr.ir.steps), its
        statements (those of a long block in functions of their own, `<name>_stmts<k>`:
        c_split.py) and its terminator."""
        blocks = []
        stepped = stepped_blocks(unit)
        for b, block in enumerate(unit.blocks):
            groups = statement_groups([self.measured(self.stmt, s) for s in block.stmts])
            if len(groups) > 1:
                names = [self.fresh(f"{name}_stmts") for _ in groups]
                self.defs += [function(f"static void {n}(W *S, W *L)", g) for n, g in zip(names, groups)]
                groups = [[f"{n}(S, L);" for n in names]]
            step = ["VBR_STEP();"] if b in stepped else []
            blocks.append([f"L{b}:", *step, *groups[0], *self.measured(self.term, block.term)])
        return blocks

    def direct_params(self, u: int) -> str:
        return "W *S, W link" + "".join(f", W a{i}" for i in range(self.p.units[u].nparams))

    def direct_unit(self, u: int, unit: N.Unit) -> str:
        """A procedure that never suspends (vbr.ir.direct_calls) as `d<unit>(S, link, a0, ...)`,
        which its callers call to run it to its return (direct_call; 0, else 1 when play left it
        for good): its locals a C array, its frame's head alone written (the link, the unit, the
        pc word of its last call) and the stack grown by the frame's words as a pushed frame grows
        it, so that the state's words outside the locals are those of a pushed frame throughout,
        and a fault of the whole game is located at its rule. When the game ends in it (or in what it calls) its locals are written to
        its frame's words, as they stand in a pushed frame. `u<unit>`, for a frame pushed by
        another way (a scenario's `vbr_call`), pops that frame and calls `d<unit>`."""
        self.unit_at = self.range_unit = u
        self.in_direct = True
        self.slots_nn = never_none_slots(self.p, unit, self.vars_nn)
        blocks = self.blocks(unit, f"d{u}")
        self.in_direct, self.range_unit = False, None
        if splits(blocks):
            self.split_direct.add(u)
            return ""
        counted_here = not _pays_steps(unit)
        n, nparams, size = unit.nlocals, unit.nparams, FRAME_HEAD + unit.nlocals
        head = [f"W L[{max(n, 1)}];", *(f"L[{i}] = a{i};" for i in range(nparams)),
                *([f"memcpy(L + {nparams}, NONES, sizeof(W) * {n - nparams});"] if n > nparams else []),
                *([f"W steps = S[{H.STEPS}];"] if counted_here else []),
                f"W fp = S[{H.TOP}];", "S[fp] = link;", f"S[fp + 1] = {u};", "S[fp + 2] = 0;",
                f"S[{H.FP}] = fp;", f"S[{H.TOP}] = fp + {size};", f"S[{H.DEPTH}] += 1;"]
        direct = function(f"static int d{u}({self.direct_params(u)})", head + [x for b in blocks for x in b])
        args = "".join(f", S[fp + {FRAME_HEAD + i}]" for i in range(nparams))
        pushed = function(f"static void u{u}(W *S, W fp, W pc)",
                          ["(void)pc;", f"S[{H.TOP}] = fp;", f"S[{H.DEPTH}] -= 1;", f"d{u}(S, S[fp]{args});"])
        return "\n".join([*self.step_macros(counted_here), direct, pushed,
                          "#undef VBR_STEP", "#undef VBR_LEAVE", "#undef VBR_BACK"])

    def local(self, slot: int) -> str:
        """A local of the running unit: a word of its C array L (load_locals), or of a heavy fn's
        words in the state (x_FnCall passes L = where they start)."""
        return f"L[{slot}]"

    def prologue(self, counted_here: bool) -> list[str]:
        """The unit's locals: its frame's words from fp + FRAME_HEAD on, through a pointer no other
        in the unit's function reaches them by (restrict), so that a store into the state does
        not make the compiler read them again; and the steps taken, in a C variable when
        `counted_here` (step_macros)."""
        return [f"W *restrict L = S + fp + {FRAME_HEAD};", *([f"W steps = S[{H.STEPS}];"] if counted_here else [])]

    def step_macros(self, counted_here: bool) -> list[str]:
        """VBR_STEP at the head of a block that costs a step (vbr.ir.steps), VBR_LEAVE (where
        control may reach the frame's words or the steps by another way: another unit's
        function, or leaving the unit) and VBR_BACK (after another unit's function returns).
        Counted in a C variable `steps` when `counted_here` (a unit in one function, calling no
        fn that pays steps), written to the state's word at each VBR_LEAVE and at a step fault;
        else in the state's word itself."""
        limit, fault = _w(self.p.limits["steps"]), f"vbr_fault(S, {STEP_FAULT}, VBR_NONE, VBR_NONE)"
        if counted_here:
            return [f"#define VBR_STEP() if (++steps > {limit}) {{ S[{H.STEPS}] = steps; {fault}; }}",
                    f"#define VBR_LEAVE() S[{H.STEPS}] = steps; VBR_BARRIER()",
                    f"#define VBR_BACK() steps = S[{H.STEPS}]"]
        return [f"#define VBR_STEP() if (++S[{H.STEPS}] > {limit}) {fault}",
                "#define VBR_LEAVE() VBR_BARRIER()", "#define VBR_BACK() ((void)0)"]

    def store_locals(self) -> str:
        return "VBR_LEAVE();"

    def constants(self) -> str:
        p, lay = self.p, self.lay
        lines = [f"static const U KEYS[] = {{{', '.join(f'{R.key(k)}ULL' for k in p.streams) or '0'}}};",
                 f"static const W DIRS[][2] = {{{', '.join('{%d, %d}' % tuple(v) for v in p.directions) or '{0, 0}'}}};"]
        for i, faces in enumerate(p.dice):
            lines.append(f"static const W DIE{i}[] = {_array(faces)};")
        t = p.court_tables
        if t is not None:
            lines.append(f"static const W SPACES[] = {_array(t['spaces'])};")
            for name in _CELL_FNS:
                table, default, answers = t[name]
                lines.append(f"static const W CT_{name}[] = {_array(table)};")
                lines.append(f"static const W CA_{name}[] = {_array(answers)};")
            lines.append(self.field_of(t["fields"]))
        return "\n".join(lines)

    @staticmethod
    def field_of(fields: dict) -> str:
        """`field_of(S, side, number, f)`: the cell of a side's numbered field, else a fault naming
        both. A table indexed by side and number when they span few values (a cell is never
        negative: -1 marks a pair that names no field), else a search of the pairs."""
        sides, numbers = [k[0] for k in fields], [k[1] for k in fields]
        if fields and min(fields.values()) >= 0 and \
                (max(sides) - min(sides) + 1) * (max(numbers) - min(numbers) + 1) <= 4096:
            s0, n0, width = min(sides), min(numbers), max(numbers) - min(numbers) + 1
            at = [-1] * ((max(sides) - s0 + 1) * width)
            for (side, number), cell in fields.items():
                at[(side - s0) * width + number - n0] = cell
            return (f"static const W FIELD_AT[] = {_array(at)};\n"
                    f"static W field_of(W *S, W side, W number, W f) {{\n"
                    f"    U i = (U)side - (U){_w(s0)}, j = (U)number - (U){_w(n0)};\n"
                    f"    W c = i < (U){len(at) // width} && j < (U){width} ? FIELD_AT[i * {width} + j] : -1;\n"
                    f"    if (c >= 0) return c;\n"
                    f"    vbr_fault(S, f, side, number);\n    return 0;\n}}")
        pairs = sorted(fields.items())
        return (f"static const W FIELD_KEYS[][2] = {{{', '.join('{%d, %d}' % k for k, _ in pairs) or '{0, 0}'}}};\n"
                f"static const W FIELD_CELLS[] = {_array([c for _, c in pairs])};\n"
                f"static W field_of(W *S, W side, W number, W f) {{\n"
                f"    for (int i = 0; i < {len(pairs)}; i++)\n"
                f"        if (FIELD_KEYS[i][0] == side && FIELD_KEYS[i][1] == number) return FIELD_CELLS[i];\n"
                f"    vbr_fault(S, f, side, number);\n    return 0;\n}}")

    def entry_points(self) -> str:
        p, lay = self.p, self.lay
        init = p.units[p.init]
        agent_key, agent_salt = R.AGENT_KEY, R.AGENT_SALT
        return f"""
/* the frame on top run while play runs; the status. A fault jumps to the caller's jump buffer
 * (vbr_jump): run_state sets its own, a caller that runs many choices in one call (vbr_play_game,
 * vbr_play_many) sets one for all of them. `unused`: guarded's argument. */
static inline int run_loop(W *S, W unused) {{
    (void)unused;
    while (S[H_STATUS] == RUNNING) {{
        W fp = S[H_FP];
        UNITS[S[fp + 1]](S, fp, S[fp + 2]);
    }}
    return (int)S[H_STATUS];
}}

/* step(S, arg) with a jump buffer of its own: FAULT if a fault jumps out of it, else its status */
static int guarded(int (*step)(W *, W), W *S, W arg) {{
    vbr_jmp_buf jb;
    vbr_jmp_buf *saved = vbr_jump;
    vbr_jump = &jb;
    if (VBR_SETJMP(jb)) {{
        vbr_restore(saved);
        return FAULT;
    }}
    int status = step(S, arg);
    vbr_restore(saved);
    return status;
}}

static int run_state(W *S) {{ return guarded(run_loop, S, 0); }}

W vbr_words(void) {{ return {lay.words}; }}

/* S as a new game: its words below the stack zeroed (unless they are already: `zeroed`), its
 * streams seeded, the first unit's frame pushed */
static void init_state(W *S, U seed, int zeroed) {{
    if (!zeroed) memset(S, 0, sizeof(W) * {lay.stack});
    S[H_FP] = {lay.stack};
    S[H_WINNER] = S[H_RETURNED] = S[H_FAULT_A] = S[H_FAULT_B] = VBR_NONE;
    for (int k = 0; k < {len(p.streams)}; k++) S[{lay.streams} + k] = (W)vbr_first_state(seed, KEYS[k]);
    S[{lay.stack}] = -1;
    S[{lay.stack} + 1] = {p.init};
    S[{lay.stack} + 2] = 0;
    {self.fresh_locals(str(lay.stack + FRAME_HEAD), init.nlocals)}
    S[H_TOP] = {lay.stack + FRAME_HEAD + init.nlocals};
    S[H_DEPTH] = 1;
}}

int vbr_new(W *S, U seed) {{
    init_state(S, seed, 0);
    return run_state(S);
}}
{self.scenario_entry_points()}

/* vbr_new and vbr_apply with their events heard by `hook` (a VbrLogFn), named in the state while they run */
int vbr_new_logged(W *S, U seed, W hook) {{
    init_state(S, seed, 0);
    S[H_LOG] = hook;
    int status = run_state(S);
    S[H_LOG] = 0;
    return status;
}}

/* vbr_apply inside a caller's jump buffer (run_loop) */
static inline int apply_in(W *S, W i) {{
    S[S[H_DEST]] = S[{lay.options} + i];
    if (++S[H_CHOICES] > {_w(p.limits['choices'])}) {{
        S[H_STATUS] = FAULT; S[H_FAULT] = {CHOICE_FAULT}; S[H_FAULT_A] = VBR_NONE; S[H_FAULT_B] = VBR_NONE;
        return FAULT;
    }}
    S[H_STATUS] = RUNNING;
    return run_loop(S, 0);
}}

int vbr_apply(W *S, W i) {{ return guarded(apply_in, S, i); }}

int vbr_apply_logged(W *S, W i, W hook) {{
    S[H_LOG] = hook;
    int status = vbr_apply(S, i);
    S[H_LOG] = 0;
    return status;
}}

int vbr_play_random(W *S, U agent_seed) {{
    U agent = vbr_first_state(agent_seed, {agent_key}ULL);
    vbr_jmp_buf jb;
    vbr_jmp_buf *saved = vbr_jump;
    vbr_jump = &jb;
    if (!VBR_SETJMP(jb))
        while (S[H_STATUS] == CHOICE) apply_in(S, vbr_below_of(&agent, S[H_NOPTS]));
    vbr_restore(saved);
    return (int)S[H_STATUS];
}}

/* Option i of the seat to move taken, counted in stats (vbr_play_seats says how). */
static inline void vbr_play_index(W *S, W i, W *stats, W *track, W track_rows) {{
    W k = S[H_NOPTS], seat = S[H_SEAT];
    if (stats[2] < 0) stats[2] = seat;
    stats[0] += k;
    stats[1] += k == 1;
    apply_in(S, i);
    int changed = 0;
    for (W i = 0; i < POINTS_COUNT; i++) {{
        if (S[POINTS_AT + i] != stats[4 + i]) changed = 1;
        stats[4 + i] = S[POINTS_AT + i];
    }}
    if (changed && stats[3] < track_rows) {{
        W *row = track + stats[3] * (1 + POINTS_COUNT);
        row[0] = S[H_CHOICES];
        for (W i = 0; i < POINTS_COUNT; i++) row[1 + i] = S[POINTS_AT + i];
        stats[3] += 1;
    }}
}}

/* One choice of the seat to move, drawn below its options from streams[seat], counted in stats. */
static inline void vbr_play_one(W *S, U *streams, W *stats, W *track, W track_rows) {{
    vbr_play_index(S, vbr_below_of(&streams[S[H_SEAT]], S[H_NOPTS]), stats, track, track_rows);
}}

/* Play on while the seat to move is a random one (kinds[seat] == 0), its pick of k options one
 * draw below k from its stream (streams[seat]), a first one (VBR_FIRST: the first option, no
 * draw), or one whose agent `pick` plays (kinds[seat] == VBR_PICKED, pick not NULL:
 * pick(ctx, S, &streams[seat]) gives the option); stop at the end,
 * where another seat is to move, or where pick gives no option (below 0: that seat's stream left
 * as it was, for the choice to be made by hand). stats: [options offered, choices with one
 * option, the first chooser's seat or -1, rows of track, then the points as they last were]; a row
 * of track (the choices made, then the points) is appended, while there is room for it, each time
 * the points change. */
int vbr_play_seats(W *S, U *streams, const W *kinds, W *stats, W *track, W track_rows, VbrPick pick, W *ctx) {{
    vbr_jmp_buf jb;
    vbr_jmp_buf *saved = vbr_jump;
    vbr_jump = &jb;
    if (!VBR_SETJMP(jb))
        while (S[H_STATUS] == CHOICE) {{
            W seat = S[H_SEAT];
            if (kinds[seat] == 0) {{
                vbr_play_one(S, streams, stats, track, track_rows);
                continue;
            }}
            if (kinds[seat] == VBR_FIRST) {{
                vbr_play_index(S, 0, stats, track, track_rows);
                continue;
            }}
            if (kinds[seat] != VBR_PICKED || !pick) break;
            U before = streams[seat];
            W i = pick(ctx, S, &streams[seat]);
            if (i < 0 || i >= S[H_NOPTS]) {{
                streams[seat] = before;
                break;
            }}
            vbr_play_index(S, i, stats, track, track_rows);
        }}
    vbr_restore(saved);
    return (int)S[H_STATUS];
}}

/* vbr_play_one until the end (or a fault): the choice play stands at, then every later one where
 * it is made (VbrAuto); stats as vbr_play_seats keeps them */
static void play_to_end(W *S, U *streams, W *stats, W *track, W track_rows) {{
    VbrAuto a = {{streams, track, track_rows, stats[0], stats[1], stats[2], stats[3], {{0}}}};
    for (W i = 0; i < POINTS_COUNT; i++) a.points[i] = stats[4 + i];
    vbr_auto = &a;
    while (S[H_STATUS] == CHOICE) {{
        W k = S[H_NOPTS], seat = S[H_SEAT];
        if (a.first < 0) a.first = seat;
        a.offered += k;
        a.ones += k == 1;
        apply_in(S, vbr_below_of(&streams[seat], k));
        vbr_auto_after(S, &a);
    }}
    vbr_auto = 0;
    stats[0] = a.offered; stats[1] = a.ones; stats[2] = a.first; stats[3] = a.rows;
    for (W i = 0; i < POINTS_COUNT; i++) stats[4 + i] = a.points[i];
}}

/* random_streams.agent_stream: seat s's agent stream from the game's seed, first_state(derive(seed, AGENT_SALT, s), AGENT_KEY) */
static U vbr_agent_stream(U seed, W seat) {{
    U x = vbr_mix(seed ^ (U){agent_salt} * VBR_GAMMA);
    x = vbr_mix(x ^ (U)seat * VBR_GAMMA);
    return vbr_first_state(vbr_mix(x), {agent_key}ULL);
}}

/* A whole game with every seat random (play.py's play_typed_game, each seat's pick one draw below
 * the options from its own stream, seeded here from the game's seed), in one call. `io` holds
 * what the call takes and gives, at the offsets its first words name: [0] the seed (64 bits),
 * [1] where per unit a flag says whether it is a repeating phase (0: none given, the first move is
 * the game's first choice), [2] where the words to read at the end are listed, [3] how many,
 * [4] where the result goes, [5] where the score track goes, [6] its room in rows. The result:
 * [status, winner, winner's team + 1 or 0, choices, options offered, one-option choices, the
 * first chooser or -1, the first chooser in a repeating phase (none when play reached none; -1
 * when no flags were given), rows of track, the points, then the words read]; a row of track
 * (the choices made, then the points) each time the points change, while there is room. */
static void play_whole_game(W *S, W *io) {{  /* S: any words of a state's size, written over */
    U seed = (U)io[0];
    const W *repeating = io[1] ? io + io[1] : 0, *reads = io + io[2];
    W nreads = io[3], *out = io + io[4], *track = io + io[5], track_rows = io[6];
    U streams[VBR_SEATS + 1];
    for (W s = 0; s < VBR_SEATS; s++) streams[s] = vbr_agent_stream(seed, s);
    memset(S, 0, sizeof(W) * {lay.words});  /* as a new state's array: the same words at the end */
    init_state(S, seed, 1);
    run_loop(S, 0);
    W stats[4 + POINTS_COUNT + 1];
    stats[0] = stats[1] = stats[3] = 0;
    stats[2] = -1;
    for (W i = 0; i < POINTS_COUNT; i++) stats[4 + i] = S[POINTS_AT + i];
    W first_move = repeating ? VBR_NONE : -1;  /* none: no choice of a repeating phase yet */
    while (repeating && S[H_STATUS] == CHOICE) {{  /* the set-up phases: until a repeating phase's choice */
        if (repeating[S[{lay.stack + 1}]]) {{
            first_move = S[H_SEAT];
            break;
        }}
        vbr_play_one(S, streams, stats, track, track_rows);
    }}
    play_to_end(S, streams, stats, track, track_rows);
    out[0] = S[H_STATUS]; out[1] = S[H_WINNER]; out[2] = S[H_WINNER_TEAM]; out[3] = S[H_CHOICES];
    out[4] = stats[0]; out[5] = stats[1]; out[6] = stats[2]; out[7] = first_move; out[8] = stats[3];
    for (W i = 0; i < POINTS_COUNT; i++) out[9 + i] = S[POINTS_AT + i];
    for (W i = 0; i < nreads; i++) out[9 + POINTS_COUNT + i] = S[reads[i]];
}}

/* play_whole_game in its own jump buffer; S: a state's words, whatever they hold */
int vbr_play_game(W *S, W *io) {{
    vbr_jmp_buf jb;
    vbr_jmp_buf *saved = vbr_jump;
    vbr_jump = &jb;
    if (VBR_SETJMP(jb)) {{  /* a fault: its status, and no rows of track */
        vbr_auto = 0;
        W *out = io + io[4];
        out[0] = FAULT;
        out[8] = 0;
    }} else {{
        play_whole_game(S, io);
    }}
    vbr_restore(saved);
    return (int)S[H_STATUS];
}}

/* game g of vbr_play_many, inside its jump buffer */
static void play_many_one(W *S, U seed, U agent_seed) {{
    init_state(S, seed, 0);
    run_loop(S, 0);
    U agent = vbr_first_state(agent_seed, {agent_key}ULL);
    while (S[H_STATUS] == CHOICE) apply_in(S, vbr_below_of(&agent, S[H_NOPTS]));
}}

void vbr_play_many(const U *seeds, const U *agent_seeds, W n, W *S, W *winners, W *statuses, W *choices) {{
    vbr_jmp_buf jb;
    vbr_jmp_buf *saved = vbr_jump;
    vbr_jump = &jb;
    for (volatile W g = 0; g < n; g++) {{
        if (!VBR_SETJMP(jb)) play_many_one(S, seeds[g], agent_seeds[g]);
        winners[g] = S[H_WINNER];
        statuses[g] = S[H_STATUS];
        choices[g] = S[H_CHOICES];
    }}
    vbr_restore(saved);
}}
"""

    # ------------------------------------------------------------------ expressions
    def tested(self, *operands: N.Expr) -> int:
        """The runtime's mask of the operands that may be none (1: the first, 2: the second):
        the others' none tests are left out."""
        return sum(1 << i for i, x in enumerate(operands) if not self.nn(x))

    def index_call(self, i: str, n: int, fault: int) -> str:
        return f"vbr_index(S, {i}, {n}, {fault})"

    def x_Const(self, e):
        return _w(e.value)

    def x_ItemAt(self, e):
        name = self.fresh("item")
        self.function(name, [*self.items(e.seq), f"W i = {self.expr(e.index)};",
                             f"if (i < 0 || i >= n) vbr_fault(S, {e.fault}, i, n - 1);", "return xs[i];"])
        return f"{name}(S, L)"

    def x_Lookup(self, e):
        table = self.table(e.table)
        if e.fault < 0 and not self.in_range(e.index, len(e.table)):
            return f"vbr_lookup_or_none({table}, {len(e.table)}, {self.expr(e.index)})"
        return f"{table}[{self.checked_index(e.index, len(e.table), e.fault)}]"

    def table(self, values) -> str:
        """A constant array of these values, shared by every node that asks for the same one."""
        key = tuple(values)
        if key not in self.tables:
            name = self.fresh("T")
            self.tables[key] = name
            self.defs.append(f"static const W {name}[] = {_array(values)};")
        return self.tables[key]

    def field_word(self, f) -> str:
        lay = self.lay
        if isinstance(f, N.FieldOfAny):
            return (f"vbr_thing_word_any(S, {self.expr(f.obj)}, {self.table(f.positions)}, {lay.kinds}, {lay.fields}, "
                    f"{lay.width}, {f.fault})")
        if isinstance(f.obj, N.Local) and self.known_kind.get(f.obj.slot) == f.kind:  # a thing of that kind
            return f"({lay.fields + f.pos} + {self.expr(f.obj)} * {lay.width})"
        return (f"vbr_thing_word(S, {self.expr(f.obj)}, {f.kind}, {lay.kinds}, {lay.fields}, {lay.width}, "
                f"{f.pos}, {f.fault})")

    def x_Unary(self, e):
        if e.op == "not":
            return f"(W)(!{self.expr(e.operand)})"
        return f"vbr_neg(S, {self.expr(e.operand)}, {self.tested(e.operand)}, {e.fault})"

    def x_Binary(self, e):
        if e.op not in ("and", "or") and _unordered([e.left, e.right]):
            return self.in_order([e.left, e.right], lambda a: self.binary(e, *a))
        return self.binary(e, self.expr(e.left), self.expr(e.right))

    def in_order(self, operands: list, make) -> str:
        """C leaves open the order in which a call's arguments or an operator's operands are
        worked out: operands that may fault or draw are worked out here left to right, as
        Python does, so that the same one faults first."""
        name = self.fresh("ordered")
        self.function(name, [*(f"W o{i} = {self.expr(x)};" for i, x in enumerate(operands)),
                             f"return {make([f'o{i}' for i in range(len(operands))])};"])
        return f"{name}(S, L)"

    def binary(self, e, a: str, b: str) -> str:
        if e.op in _ARITH:
            tested = self.tested(e.left, e.right) | (4 if _may_reach_none(e) else 0)
            return f"{_ARITH[e.op]}(S, {a}, {b}, {tested}, {e.fault})"
        if e.op == "and":
            return f"(W)({a} && {b})"
        if e.op == "or":
            return f"(W)({a} || {b})"
        if e.fault >= 0:  # `<`, `<=`, `>`, `>=` of the rules: of none, a fault
            return f"vbr_order(S, {a}, {b}, {_ORDER[e.op]}, {self.tested(e.left, e.right)}, {e.fault})"
        return f"(W)({a} {e.op} {b})"

    def x_Known(self, e):
        if self.nn(e.value):
            return self.expr(e.value)
        return f"vbr_known(S, {self.expr(e.value)}, {e.fault})"

    def x_IfElse(self, e):
        return f"({self.expr(e.test)} ? {self.expr(e.then)} : {self.expr(e.orelse)})"

    def x_Bind(self, e):
        name = self.fresh("bind")
        value = self.expr(e.value)
        with self.rebound(e.slot):
            body = self.expr(e.body)
        self.function(name, [f"{self.local(e.slot)} = {value};", f"return {body};"])
        return f"{name}(S, L)"

    def x_Roll(self, e):
        faces = len(self.p.dice[e.die])
        if e.undecided >= 0:
            name = self.fresh("decided_roll")
            self.function(name, ["W v;", f"if (!({self.forced_take(e.forced)})) vbr_fault(S, {e.undecided}, {faces}, VBR_NONE);",
                                 f"return {self.drawn(ROLL, e.die, f'DIE{e.die}[v]')};"])
            return f"{name}(S, L)"
        roll = f"DIE{e.die}[vbr_below(S, {self.lay.streams + e.stream}, {faces})]"
        if e.forced < 0:
            return self.drawn(ROLL, e.die, roll)
        name = self.fresh("forced_roll")
        self.function(name, ["W v;", f"if ({self.forced_take(e.forced)}) return {self.drawn(ROLL, e.die, 'v')};",
                             f"return {self.drawn(ROLL, e.die, roll)};"])
        return f"{name}(S, L)"

    def x_Pick(self, e):
        name = self.fresh("pick")
        if e.undecided >= 0:
            q = self.p.forced_at[e.forced]
            self.function(name, [*self.items(e.seq), "W v;", "if (!n) return VBR_NONE;",
                                 f"if (!({self.forced_take(e.forced)})) {{",
                                 f"    W c = S[{q + 1}], k = n < {DECIDED_ROOM} - c ? n : {DECIDED_ROOM} - c;",
                                 "    if (k < 0) k = 0;",
                                 f"    memcpy(S + {q + 2} + c, xs, sizeof(W) * (size_t)k);",
                                 f"    vbr_fault(S, {e.undecided}, n, k);", "}",
                                 f"return {self.drawn(PICK, e.stream, 'xs[v]')};"])
            return f"{name}(S, L)"
        forced = [] if e.forced < 0 else [
            "W v;", f"if ({self.forced_take(e.forced)}) {{",
            f"    for (W i = 0; i < n; i++) if (xs[i] == v) return {self.drawn(PICK, e.stream, 'v')};",
            f"    vbr_fault(S, {e.forced_fault}, v, VBR_NONE);", "}"]
        item = self.drawn(PICK, e.stream, f"xs[vbr_below(S, {self.lay.streams + e.stream}, n)]")
        self.function(name, [*self.items(e.seq), *forced, f"return n ? {item} : VBR_NONE;"])
        return f"{name}(S, L)"

    @staticmethod
    def drawn(what: int, code: int, value: str) -> str:
        """A draw's value (C), told to the log while one listens (events.py: ROLL's code is the
        die, PICK's the pick's stream)."""
        return f"vbr_drawn(S, {what}, {code}, {value})"

    def forced_take(self, queue: int) -> str:
        """A C test that takes the next value a scenario queued (`[taken, count, values...]`) into
        `v`, false when none is left."""
        q = self.p.forced_at[queue]
        return f"S[{q}] < S[{q + 1}] && ((v = S[{q + 2} + S[{q}]]), (S[{q}] += 1), 1)"

    def x_Contains(self, e):
        """`x in seq`; of a thing (a local bound to a thing of a known kind) in a zone's items,
        whether the thing's zone is that zone: a thing lies in one zone, the one its zone word
        names (move_lines and s_Create keep both)."""
        zone = self.items_zone(e.seq) if isinstance(e.item, N.Local) and e.item.slot in self.known_kind else None
        if zone is None:
            return self.search(e, "contains", "1", "0")
        name = self.fresh("contains")
        self.function(name, [f"W x = {self.expr(e.item)};", f"W z = {zone};", f"return S[{self.lay.zone_of} + x] == z;"])
        return f"{name}(S, L)"

    def x_SeqEqual(self, e):
        name = self.fresh("same_items")
        self.function(name, [self.array("a", e.left.bound), f"W na = {self.seq(e.left)}(S, L, a);",
                             self.array("b", e.right.bound), f"W nb = {self.seq(e.right)}(S, L, b);",
                             "if (na != nb) return 0;", "for (W i = 0; i < na; i++) if (a[i] != b[i]) return 0;",
                             "return 1;"])
        return f"{name}(S, L)"

    def x_IndexOf(self, e):
        return self.search(e, "index_of", "i", "-1")

    def search(self, e, kind: str, found: str, missing: str) -> str:
        """A function looking for e.item among e.seq's items: `found` (of its place i) or `missing`."""
        name = self.fresh(kind)
        self.function(name, [f"W x = {self.expr(e.item)};", *self.items(e.seq),
                             f"for (W i = 0; i < n; i++) if (xs[i] == x) return {found};", f"return {missing};"])
        return f"{name}(S, L)"

    def x_FnCall(self, e):
        base, name = self.lay.vars + self.p.fns[e.fn].base, self.fresh("call")
        n, pay = self.p.fns[e.fn].nlocals, []
        if e.steps:
            pay = [f"S[{H.STEPS}] += {e.steps};",
                   f"if (S[{H.STEPS}] > {_w(self.p.limits['steps'])}) vbr_fault(S, {STEP_FAULT}, VBR_NONE, VBR_NONE);"]
        self.function(name, [*pay, *(f"W a{i} = {self.expr(a)};" for i, a in enumerate(e.args)),
                             *(f"S[{base + i}] = a{i};" for i in range(len(e.args))),
                             f"W r = {self.fn_body(e.fn)}(S, S + {base});",
                             self.fresh_locals(str(base), n), "return r;"])
        return f"{name}(S, L)"

    def fn_body(self, k: int) -> str:
        """The function (S, L) giving heavy fn k's value, its locals the words from L on: made once."""
        made = self.fn_bodies
        if k not in made:
            name = self.fresh("fn")
            saved = self.known_kind, self.slots_nn, self.range_unit
            self.known_kind, self.slots_nn, self.range_unit = {}, frozenset(), None  # its locals are its own
            self.function(name, [f"return {self.expr(self.p.fns[k].body)};"])
            self.known_kind, self.slots_nn, self.range_unit = saved
            made[k] = name
        return made[k]

    def items(self, seq: N.Seq) -> list[str]:
        """Lines that make `xs` (the items, read only) and `n` (how many) of a sequence inside an
        expression, which changes no zone: a zone's own words, a fixed list's table, else a copy."""
        zone = self.items_zone(seq)
        if zone is not None:
            return [f"W zb = {self.zone_word(zone)};", "W n = S[zb];", "const W *xs = S + zb + 1;"]
        if _fixed_items(seq):
            return [f"const W *xs = {self.table([x.value for x in seq.items])};", f"W n = {len(seq.items)};"]
        if isinstance(seq, N.ChooseSeq) and self.seen_in_place(seq):
            name = self.fresh("view")
            self.function(name, [f"return {self.view(seq)};"], "W *S, W *L, const W **xs")
            return ["const W *xs;", f"W n = {name}(S, L, &xs);"]
        return [self.array("buf", seq.bound), f"W n = {self.seq(seq)}(S, L, buf);", "const W *xs = buf;"]

    def seen_in_place(self, seq: N.Seq) -> bool:
        """Whether seq's items lie somewhere as they are (view): a zone's, a fixed list's, or
        either of two such by a test."""
        if isinstance(seq, N.ChooseSeq):
            return self.seen_in_place(seq.then) and self.seen_in_place(seq.orelse)
        return isinstance(seq, N.ZoneItems) or _fixed_items(seq)

    def view(self, seq: N.Seq) -> str:
        """An expression (in a function with `const W **xs`) pointing *xs at the items of a
        sequence seen_in_place and giving how many (a choice's test first, then the chosen one's)."""
        if isinstance(seq, N.ChooseSeq):
            return f"({self.expr(seq.test)} ? {self.view(seq.then)} : {self.view(seq.orelse)})"
        if isinstance(seq, N.ZoneItems):
            return f"vbr_zone_view(S, {self.zone_word(self.expr(seq.zone))}, xs)"
        return f"vbr_table_view({self.table([x.value for x in seq.items])}, {len(seq.items)}, xs)"

    def items_zone(self, seq: N.Seq) -> str | None:
        """The zone (an expression) whose items a sequence gives, when it gives a zone's items:
        a zone's, or a choice between two such sequences (its test first, then the chosen
        one's zone, as seq_body works them out); else None."""
        if isinstance(seq, N.ZoneItems):
            return self.expr(seq.zone)
        if isinstance(seq, N.ChooseSeq):
            then, orelse = self.items_zone(seq.then), self.items_zone(seq.orelse)
            if then is not None and orelse is not None:
                return f"({self.expr(seq.test)} ? {then} : {orelse})"
        return None

    def x_Aggregate(self, e):
        name = self.fresh("agg")
        counted = e.agg == "count" and e.cond is None  # each item bound in turn: the last is left bound
        items = self.items(e.seq) if counted else self.loop_items(e.seq)
        with self.item_slot(e.slot, e.seq):
            body = self.expr(e.body)
            cond = self.expr(e.cond) if e.cond is not None else None
            tested = 0 if self.nn(e.body) else 2  # (vbr_operands' mask) the sum so far is never none
        # `max`, `min`: an item that is none faults
        none_item = f"if (b == VBR_NONE) vbr_fault(S, {e.fault}, VBR_NONE, VBR_NONE);" if tested else ""
        start, each = {
            "sum": ("0", f"r = vbr_add(S, r, {body}, {tested | 4}, {e.fault});"),
            "count": ("0", "r += 1;"),
            "any": ("0", f"if ({body}) return 1;"),
            "all": ("1", f"if (!({body})) return 0;"),
            "first": ("VBR_NONE", f"return {body};"),
            "max": ("VBR_NONE", f"{{ W b = {body}; {none_item} if (r == VBR_NONE || b > r) r = b; }}"),
            "min": ("VBR_NONE", f"{{ W b = {body}; {none_item} if (r == VBR_NONE || b < r) r = b; }}"),
        }[e.agg]
        if counted:
            self.function(name, [*items, f"if (n > 0) {self.local(e.slot)} = xs[n - 1];", "return n;"])
            return f"{name}(S, L)"
        skip = [f"if (!({cond})) continue;"] if cond is not None else []
        self.function(name, [*items, *self.count_items(e.seq), f"W r = {start};",
                             *self.each_item(e.seq, e.slot, [*skip, each]), "return r;"])
        return f"{name}(S, L)"

    def loop_items(self, seq: N.Seq) -> list[str]:
        """The lines each_item's loop needs first: `items`' (none for a kind's things)."""
        return [] if isinstance(seq, N.KindItems) else self.items(seq)

    def each_item(self, seq: N.Seq, slot: int, body: list[str]) -> list[str]:
        """A loop running `body` with each of seq's items in turn bound in `slot`: a kind's
        things straight from the things' kind words, in the order the things were made; else
        the items loop_items made."""
        bind = f"    {self.local(slot)} = "
        if isinstance(seq, N.KindItems):
            return [f"for (W e = 0, things = S[{H.THINGS}]; e < things; e++) {{",
                    f"    if (S[{self.lay.kinds} + e] != {seq.kind}) continue;", f"{bind}e;",
                    *("    " + x for x in body), "}"]
        return ["for (W i = 0; i < n; i++) {", f"{bind}xs[i];", *("    " + x for x in body), "}"]

    def count_items(self, seq: N.Seq) -> list[str]:
        """Lines that count the items an aggregate or a comprehension is about to go through
        (`n`; every thing, for a kind's: as many as the Python engine looks at), past the
        program's allowance a fault."""
        n = f"S[{H.THINGS}]" if isinstance(seq, N.KindItems) else "n"
        allowed = _w(ITEMS_PER_STEP * self.p.limits["steps"])
        return [f"S[{H.ITEMS}] += {n};",
                f"if (S[{H.ITEMS}] > {allowed}) vbr_fault(S, {ITEMS_FAULT}, VBR_NONE, VBR_NONE);"]

    def x_Builtin(self, e):
        if e.name in _CALLED_WITH_ARGS and _unordered(e.args):
            return self.in_order(e.args, lambda a: self.builtin(e, a))
        return self.builtin(e, [self.expr(x) for x in e.args])

    def builtin(self, e, a: list[str]) -> str:
        name, f, seats = e.name, e.fault, self.p.seats
        if name == "other":
            return f"vbr_other(S, {a[0]}, {f})"
        if name == "next_seat":
            return f"((vbr_index(S, {a[0]}, {seats}, {f}) + 1) % {seats})"
        if name == "team_of":
            from vbr.engines.python_source import team_table
            table = self.fresh("TEAMS")
            self.defs.append(f"static const W {table}[] = {_array(team_table(self.p))};")
            return f"{table}[vbr_index(S, {a[0]}, {seats}, {f})]"
        if name == "abs":
            return f"vbr_abs(S, {a[0]}, {f})"
        if name in ("max", "min"):
            fn = self.fresh(name)
            op = ">" if name == "max" else "<"
            self.function(fn, [f"W a = {a[0]}, b = {a[1]};",
                               f"if (a == VBR_NONE || b == VBR_NONE) vbr_fault(S, {f}, VBR_NONE, VBR_NONE);",
                               f"return a {op}= b ? a : b;"])
            return f"{fn}(S, L)"
        if name in ("top", "bottom"):
            fn = self.fresh(name)
            pick = "S[zb + S[zb]]" if name == "top" else "S[zb + 1]"
            self.function(fn, [f"W zb = {self.zone_word(a[0])};", f"return S[zb] ? {pick} : VBR_NONE;"])
            return f"{fn}(S, L)"
        if name == "zone_of":
            return f"S[{self.lay.zone_of} + vbr_index(S, {a[0]}, S[{H.THINGS}], {f})]"
        if name == "field":
            return f"field_of(S, {a[0]}, {a[1]}, {f})"
        if name in _CELL_FNS:
            t = self.p.court_tables
            table, default, answers = t[name]
            if not answers and len(set(table)) == 1:  # one answer in the grid, another outside it
                return f"(vbr_in_grid(S, {a[0]}, {t['cols']}, {t['height']}, &(W){{0}}, {f}) ? {_w(table[0])} : {_w(default)})"
            return (f"vbr_on_court(S, {a[0]}, CT_{name}, {_w(default)}, SPACES, CA_{name}, {len(answers)}, "
                    f"{t['cols']}, {t['height']}, {f})")
        if name == "step_paying":
            return self.step_paying_call(a, f)
        if name == "distance":
            return f"vbr_distance(S, {a[0]}, {a[1]}, {f})"
        if name == "cell_at":
            t = self.p.court_tables
            return f"vbr_cell_at(S, {a[0]}, {a[1]}, {a[2]}, {t['cols']}, {t['height']}, {f}, {CELL_FAULT})"
        if name == "step":
            fn = self.fresh("step")
            self.function(fn, [f"W c = {a[0]}, d = {a[1]};", f"if (d == VBR_NONE) vbr_fault(S, {f}, VBR_NONE, VBR_NONE);",
                               f"W s = {a[2]}, n = {a[3]};", f"return vbr_step(S, c, DIRS[d][0], DIRS[d][1], s, n, {f});"])
            return f"{fn}(S, L)"
        raise AssertionError(f"no C rule for the built-in {name}")

    def step_paying_call(self, a: list[str], f: int) -> str:
        t, fn = self.p.court_tables, self.fresh("step_paying")
        self.function(fn, [f"W c = {a[0]}, d = {a[1]};", f"if (d == VBR_NONE) vbr_fault(S, {f}, VBR_NONE, VBR_NONE);",
                           f"W s = {a[2]}, n = {a[3]}, cost = {a[4]};",
                           f"return vbr_step_paying(S, c, DIRS[d][0], DIRS[d][1], s, n, cost, {t['cols']}, {t['rows']}, "
                           f"{t['net']}, {f});"])
        return f"{fn}(S, L)"

    def zone_word(self, zone: str) -> str:
        return f"({self.lay.zones} + ({zone}) * {self.lay.zone_size})"

    def reach_arrays(self, table: int) -> tuple[str, str, str, str, str]:
        """A `reach` table as arrays: the sorted starts, and per (start, distance, side) row where
        its ends begin and how many, and per cell of the court tables' grid the place of that cell
        among the starts (-1: none) (made once per table: each is large)."""
        if table not in self.reach:
            self.reach[table] = self._reach_arrays(table)
        return self.reach[table]

    def _reach_arrays(self, table: int) -> tuple[str, str, str, str, str]:
        rows = self.p.reach_tables[table]
        starts = sorted({k[0] for k in rows})
        ends = [rows[(start, d, side)] for start in starts for d in range(65) for side in (0, 1)]
        sizes = [len(e) for e in ends]
        begin = list(accumulate(sizes, initial=0))[:-1]
        cells = list(chain.from_iterable(ends))
        t = self.p.court_tables
        at = [-1] * (t["cols"] * t["height"])
        for k, start in enumerate(starts):
            x, y = cell_xy(start)
            if 0 <= x < t["cols"] and 0 <= y < t["height"]:
                at[x * t["height"] + y] = k
        return (self.table(starts), self.table(begin), self.table(sizes), self.table(cells or [0]),
                self.table(at or [-1]))

    def scenario_entry_points(self) -> str:
        """What a scenario's runner (vbr.typed_scenario) needs: a state before anything has run, a
        unit run at once where play stands, and play started in a phase (PythonEngine's `held`,
        `call` and `goto` say the contract); only a scenario's program (`held`), one whose draws
        are decided outside (its state is held to fill its queue before play), and one whose file
        declares `returns` (its units are called where play ended) have them."""
        p, lay = self.p, self.lay
        if not p.held and not p.forced_at and not p.returns_units:
            return ""
        nlocals = _array([u.nlocals for u in p.units])
        return f"""
static const W UNIT_LOCALS[] = {nlocals};

int vbr_held(W *S, U seed) {{
    init_state(S, seed, 0);
    S[H_TOP] = {lay.stack};
    S[H_DEPTH] = 0;
    return (int)S[H_STATUS];
}}

static void push_unit(W *S, W link, W unit) {{
    W fp = S[H_TOP], n = UNIT_LOCALS[unit];
    S[fp] = link;
    S[fp + 1] = unit;
    S[fp + 2] = 0;
    for (W i = 0; i < n; i++) S[fp + {FRAME_HEAD} + i] = VBR_NONE;
    S[H_FP] = fp;
    S[H_TOP] = fp + {FRAME_HEAD} + n;
    S[H_STATUS] = RUNNING;
}}

/* the unit whose frame was pushed at `top` run until it returns, or play leaves it (a choice, a
 * `goto` that drops its frame, the end), as the Python engine's call runs it: a `goto` stops
 * it at the new phase's start, not at that phase's first choice */
static int run_called(W *S, W top) {{
    W unit = S[top + 1];
    while (S[H_STATUS] == RUNNING && S[H_TOP] > top && S[top + 1] == unit) {{
        W fp = S[H_FP];
        UNITS[S[fp + 1]](S, fp, S[fp + 2]);
    }}
    return (int)S[H_STATUS];
}}

int vbr_call(W *S, W unit) {{
    W top = S[H_TOP];
    if (top + {FRAME_HEAD} + UNIT_LOCALS[unit] > {lay.words}) {{
        S[H_STATUS] = FAULT; S[H_FAULT] = {COPY_FAULT}; S[H_FAULT_A] = VBR_NONE; S[H_FAULT_B] = VBR_NONE;
        return FAULT;
    }}
    push_unit(S, S[H_FP], unit);
    S[H_DEPTH] += 1;
    return guarded(run_called, S, top);
}}

int vbr_goto(W *S, W unit) {{
    S[H_TOP] = {lay.stack};
    push_unit(S, -1, unit);
    S[H_DEPTH] = 1;
    return run_state(S);
}}
"""

    def function(self, name: str, body: list[str], params: str = "W *S, W *L") -> None:
        self.defs.append(f"static W {name}({params}) {{\n" + "".join(f"    {x}\n" for x in body) + "}")

    def array(self, name: str, size: int) -> str:
        """The declaration of `W name[size]` (at least 1): on the C stack up to STACK_ITEMS words,
        else a buffer of the site's own, made on its first use in a call into the engine (vbr_big):
        a million-item list on the stack would crash the process."""
        size = max(size, 1)
        if size <= STACK_ITEMS:
            return f"W {name}[{size}];"
        kept = self.fresh("big")
        return f"static _Thread_local W *{kept}; W *{name} = {kept} ? {kept} : vbr_big(S, &{kept}, {size}, {COPY_FAULT});"

    def first_of_each(self, bound: int) -> list[str]:
        """Lines that keep the first of each value of `opts[0..k)` in order (k their number), in
        time linear in k: a hash table of the kept values' places (0: empty), twice as large as k
        or more."""
        size = 16
        while size < 2 * (bound + 1):
            size *= 2
        return [self.array("seen", size), "W kept = 0, size = 16;", "while (size < 2 * k) size *= 2;",
                "memset(seen, 0, sizeof(W) * (size_t)size);", "for (W i = 0; i < k; i++) {",
                "    W v = opts[i];", "    U h = ((U)v * 0x9E3779B97F4A7C15ULL) >> 17;",
                "    for (;; h++) {", "        W at = seen[h & (U)(size - 1)];",
                "        if (at == 0) { seen[h & (U)(size - 1)] = kept + 1; opts[kept++] = v; break; }",
                "        if (opts[at - 1] == v) break;", "    }", "}", "k = kept;"]

    # ------------------------------------------------------------------ sequences
    def seq(self, s: N.Seq) -> str:
        """The name of a function (S, L, out) -> how many items it wrote to out (at most s.bound)."""
        name = self.fresh("seq")
        self.function(name, self.seq_body(s), "W *S, W *L, W *out")
        return name

    def seq_body(self, s: N.Seq) -> list[str]:
        if isinstance(s, N.ZoneItems):
            return [f"return vbr_zone_items(S, {self.zone_word(self.expr(s.zone))}, out);"]
        if isinstance(s, N.RangeItems):
            lines = [f"W lo = {self.expr(s.lo)};", f"W hi = {self.expr(s.hi)};"]
            if s.fault >= 0:  # hi - lo as unsigned: the distance between any two words, without overflow
                lines += [f"if (hi >= lo && (U)hi - (U)lo >= (U){s.bound}) vbr_fault(S, {s.fault}, lo, hi);"]
            lines += ["W n = hi < lo ? 0 : hi - lo + 1;"]
            return lines + ["for (W i = 0; i < n; i++) out[i] = lo + i;", "return n;"]
        if isinstance(s, N.Items):
            return self.items_lines(s.items)
        if isinstance(s, N.StackItems):
            return [f"W n = {self.local(s.count)};", f"memcpy(out, S + {self.local(s.base)}, sizeof(W) * (size_t)n);",
                    "return n;"]
        if isinstance(s, N.TableItems):
            width = max((len(r) for r in s.rows), default=0)
            flat = [x for r in s.rows for x in r + [0] * (width - len(r))]
            rows, sizes = self.table(flat), self.table([len(r) for r in s.rows])
            return [f"W i = vbr_index(S, {self.expr(s.index)}, {len(s.rows)}, {s.fault});",
                    f"memcpy(out, {rows} + i * {width}, sizeof(W) * (size_t){sizes}[i]);", f"return {sizes}[i];"]
        if isinstance(s, N.FieldItems):
            return [f"W w = {self.items_word(s)};", "memcpy(out, S + w + 1, sizeof(W) * (size_t)S[w]);", "return S[w];"]
        if isinstance(s, N.ReachItems):
            keys, starts, sizes, cells, at = self.reach_arrays(s.table)
            t = self.p.court_tables
            return [f"W start = {self.expr(s.start)}, dist = {self.expr(s.dist)}, side = {self.expr(s.side)} == 0 ? 0 : 1;",
                    f"if (dist < 0 || dist > 64) vbr_fault(S, {s.fault + 1}, dist, VBR_NONE);",
                    f"W k = vbr_find_cell(S, {keys}, {len(self.p.reach_tables[s.table]) // 130}, {at}, {t['cols']}, "
                    f"{t['height']}, start, {s.fault});",
                    f"W row = (k * 65 + dist) * 2 + side;",
                    f"memcpy(out, {cells} + {starts}[row], sizeof(W) * (size_t){sizes}[row]);", f"return {sizes}[row];"]
        if isinstance(s, N.KindItems):
            return ["W n = 0;", f"for (W e = 0; e < S[{H.THINGS}]; e++) if (S[{self.lay.kinds} + e] == {s.kind}) out[n++] = e;",
                    "return n;"]
        if isinstance(s, N.ChooseSeq):
            return [f"return {self.expr(s.test)} ? {self.seq(s.then)}(S, L, out) : {self.seq(s.orelse)}(S, L, out);"]
        if isinstance(s, N.BindSeq):
            value = self.expr(s.value)
            with self.rebound(s.slot):
                body = self.seq(s.body)
            return [f"{self.local(s.slot)} = {value};", f"return {body}(S, L, out);"]
        if isinstance(s, N.Comprehension):
            items = self.loop_items(s.source)
            with self.item_slot(s.slot, s.source):
                skip = [f"if (!({self.expr(s.cond)})) continue;"] if s.cond is not None else []
                body = self.expr(s.body)
            return [*items, "W k = 0;", *self.count_items(s.source),
                    *self.each_item(s.source, s.slot, [*skip, f"out[k++] = {body};"]), "return k;"]
        if isinstance(s, N.VarItems):
            return self.var_items_lines(s)
        if isinstance(s, N.ReachSearch):
            return self.reach_search_lines(s)
        raise AssertionError(f"no C rule for the sequence {type(s).__name__}")

    def items_lines(self, items: list[N.Expr]) -> list[str]:
        """A list literal's body: its items written to out in order. Items all fixed before play
        are copied from a table; others past STMT_LINES go, a run of them at a time, into
        functions of their own (`static void NAME(W *S, W *L, W *out)`), called in order, so
        that no function grows with the literal (a C compiler's time grows faster than linearly
        with one function's size)."""
        if items and all(isinstance(x, N.Const) for x in items):
            return [f"memcpy(out, {self.table([x.value for x in items])}, sizeof(W) * {len(items)});",
                    f"return {len(items)};"]
        groups = statement_groups([[f"out[{i}] = {self.expr(x)};"] for i, x in enumerate(items)])
        if len(groups) > 1:
            names = [self.fresh("items") for _ in groups]
            self.defs += [function(f"VBR_APART static void {n}(W *S, W *L, W *out)", g) for n, g in zip(names, groups)]
            groups = [[f"{n}(S, L, out);" for n in names]]
        return groups[0] + [f"return {len(items)};"]

    def var_items_lines(self, s: N.VarItems) -> list[str]:
        return [f"W w = {self.list_word(s)};", "memcpy(out, S + w + 1, sizeof(W) * (size_t)S[w]);", "return S[w];"]

    def reach_search_lines(self, s: N.ReachSearch) -> list[str]:
        t = self.p.court_tables
        return [f"W dist = {self.expr(s.dist)};", f"W start = {self.expr(s.start)};", f"W side = {self.expr(s.side)};",
                self.array("dirs", s.dirs.bound), f"W ndirs = {self.seq(s.dirs)}(S, L, dirs);",
                f"W net = {self.expr(s.net)};",
                f"return vbr_reach_search(S, start, dist, side, dirs, ndirs, net, DIRS, {t['cols']}, {t['rows']}, "
                f"{t['net']}, out, {s.fault});"]

    # ------------------------------------------------------------------ statements
    def stmt(self, s: N.Stmt) -> list[str]:
        return ["{", *("    " + x for x in getattr(self, "s_" + type(s).__name__)(s)), "}"]

    def s_SetLocal(self, s):
        return [f"W v = {self.expr(s.value)};", f"{self.local(s.slot)} = v;"]

    def s_SetGlobal(self, s):
        lines = [f"W v = {self.expr(s.value)};"]
        if s.lo is not None:
            if s.overflow in ("wrap", "clamp"):
                # above hi: to `wrap TO`, or hi; below lo: lo; none stays none
                above = s.wrap_to if s.overflow == "wrap" else s.hi
                lines += [f"if (v > {_w(s.hi)}) v = {_w(above)};",
                          f"else if (v < {_w(s.lo)} && v != VBR_NONE) v = {_w(s.lo)};"]
            else:
                lines += [f"if (v != VBR_NONE && !({s.lo} <= v && v <= {s.hi})) vbr_fault(S, {s.range_fault}, v, VBR_NONE);"]
        return lines + [f"S[{self.global_word(s.target)}] = v;"]

    def s_SetListItems(self, s):
        return [self.array("xs", s.value.bound), f"W n = {self.seq(s.value)}(S, L, xs);",
                f"if (n > {s.target.bound}) vbr_fault(S, {s.fault}, n, VBR_NONE);", f"W w = {self.items_word(s.target)};",
                "S[w] = n;", "memcpy(S + w + 1, xs, sizeof(W) * (size_t)n);"]

    def items_word(self, s: "N.VarItems | N.FieldItems") -> str:
        """Where a list var's or a thing's list field's record (its count, then its items) starts."""
        if isinstance(s, N.VarItems):
            return self.list_word(s)
        lay = self.lay
        return f"vbr_thing_word(S, {self.expr(s.obj)}, {s.kind}, {lay.kinds}, {lay.fields}, {lay.width}, {s.pos}, {s.fault})"

    def s_SetField(self, s):
        return [f"W v = {self.expr(s.value)};", f"S[{self.field_word(s.target)}] = v;"]

    def s_Check(self, s):
        arg = self.expr(s.arg) if s.arg is not None else "VBR_NONE"
        return [f"if (!({self.expr(s.test)})) vbr_fault(S, {s.fault}, {arg}, VBR_NONE);"]

    def s_Collect(self, s):
        return [self.array("xs", s.seq.bound), f"W n = {self.seq(s.seq)}(S, L, xs);", f"W top = S[{H.TOP}];",
                f"if (top + n > {self.lay.words}) vbr_fault(S, {COPY_FAULT}, VBR_NONE, VBR_NONE);",
                f"{self.local(s.base)} = top;", f"{self.local(s.count)} = n;",
                "memcpy(S + top, xs, sizeof(W) * (size_t)n);", f"S[{H.TOP}] = top + n;"]

    def s_Mark(self, s):
        return [f"{self.local(s.slot)} = S[{H.TOP}];"]

    def s_Release(self, s):
        return [f"S[{H.TOP}] = {self.local(s.slot)};"]

    def move_lines(self, what: str, bottom: bool, fault: int) -> list[str]:
        lay = self.lay
        return [f"W e = {what};", f"if (e == VBR_NONE) vbr_fault(S, {fault}, VBR_NONE, VBR_NONE);",
                f"vbr_take_out(S, {lay.zones} + S[{lay.zone_of} + e] * {lay.zone_size}, e);",
                f"vbr_put(S, {self.zone_word('d')}, e, {int(bottom)});", f"S[{lay.zone_of} + e] = d;"]

    def s_MoveOne(self, s):
        return [f"W d = {self.expr(s.dest)};", *self.move_lines(self.expr(s.what), s.bottom, s.fault)]

    def s_MoveAll(self, s):
        order = "for (W i = n - 1; i >= 0; i--) {" if s.bottom else "for (W i = 0; i < n; i++) {"
        return [self.array("xs", s.seq.bound), f"W n = {self.seq(s.seq)}(S, L, xs);", f"W d = {self.expr(s.dest)};",
                order, *("    " + x for x in self.move_lines("xs[i]", s.bottom, s.fault)), "}"]

    def s_Shuffle(self, s):
        logged = [f"if (VBR_LOGGING(S)) vbr_log_draw(S, {SHUFFLE}, zi, 0, 0);"]
        if s.undecided >= 0:
            return [f"W zi = {self.expr(s.zone)};", f"W z = {self.zone_word('zi')}, v;", "for (W i = S[z] - 1; i > 0; i--) {",
                    f"    if (!({self.forced_take(s.forced)})) vbr_fault(S, {s.undecided}, i + 1, z);",
                    "    W t = S[z + 1 + i]; S[z + 1 + i] = S[z + 1 + v]; S[z + 1 + v] = t;", "}", *logged]
        return [f"W zi = {self.expr(s.zone)};", f"vbr_shuffle(S, {self.zone_word('zi')}, {self.lay.streams + s.stream});",
                *logged]

    def s_Create(self, s):
        lay = self.lay
        times = self.expr(s.times) if s.times is not None else "1"
        lines, writes = [], []
        for i, (v, at) in enumerate(zip(s.fields, s.offsets)):
            if isinstance(v, N.Seq):
                cap = self.p.list_caps[(s.kind, at)]
                lines += [self.array(f"v{i}", v.bound), f"W n{i} = {self.seq(v)}(S, L, v{i});",
                          f"if (n{i} > {cap}) vbr_fault(S, {s.fault + 1}, VBR_NONE, VBR_NONE);"]
                writes += [f"    S[r + {at}] = n{i};", f"    memcpy(S + r + {at + 1}, v{i}, sizeof(W) * (size_t)n{i});"]
            else:
                lines.append(f"W v{i} = {self.expr(v)};")
                writes.append(f"    S[r + {at}] = v{i};")
        return lines + [f"W d = {self.expr(s.dest)};", f"W times = {times};",
                        "for (W t = 0; t < times; t++) {", f"    W e = S[{H.THINGS}];",
                        f"    if (e >= {lay.things}) vbr_fault(S, {s.fault}, VBR_NONE, VBR_NONE);",
                        f"    S[{H.THINGS}] = e + 1;", f"    S[{lay.kinds} + e] = {s.kind};",
                        f"    W r = {lay.fields} + e * {lay.width};", *writes,
                        f"    vbr_put(S, {self.zone_word('d')}, e, 0);", f"    S[{lay.zone_of} + e] = d;", "}"]

    def s_Say(self, s):
        """The holes are worked out with a log and without, left to right (one may fault or
        draw); only the log waits on one. Holes that can do neither are worked out for a log alone."""
        n = len(s.args)
        values = [f"    a[{i}] = {self.expr(x)};" for i, x in enumerate(s.args)]
        if all(map(_quiet, s.args)):
            return ["if (VBR_LOGGING(S)) {", f"    W a[{max(n, 1)}];", *values,
                    f"    VBR_LOG(S, {SAY}, {self.says[id(s)]}, {n}, a);", "}"]
        return ["{", f"    W a[{max(n, 1)}];", *values,
                f"    if (VBR_LOGGING(S)) VBR_LOG(S, {SAY}, {self.says[id(s)]}, {n}, a);", "}"]

    def s_CallEvent(self, s):
        """A procedure written out at its call entered or left, told to a log (`told`)."""
        return [self.told(CALL if s.what == "call" else RETURN, s.unit)]

    def s_Reveal(self, s):
        zone = s.what is None
        what = self.expr(s.zone if zone else s.what)
        words = [what] if s.count is None else [what, self.expr(s.count)]
        return ["{", f"    W a[{len(words)}] = {{{', '.join(words)}}};",
                f"    if (VBR_LOGGING(S)) VBR_LOG(S, {REVEAL}, {self.reveals[id(s)]}, {len(words)}, a);", "}"]

    # ------------------------------------------------------------------ terminators
    def term(self, t: N.Term) -> list[str]:
        return ["{", *("    " + x for x in getattr(self, "t_" + type(t).__name__)(t)), "}"]

    def t_Jump(self, t):
        return [f"goto L{t.target};"]

    def t_Branch(self, t):
        return [f"if ({self.expr(t.test)}) goto L{t.then};", f"goto L{t.orelse};"]

    def t_Choose(self, t):
        lay, slot = self.lay, self.local(t.slot)
        bound = max(t.seq.bound, 1)
        lines = self.items(t.seq) if t.cond is None else self.loop_items(t.seq)
        if t.cond is None and not t.repeats and not t.optional:  # the options are the items, as they stand
            lines += ["const W *opts = xs;", "W k = n;"]
        elif t.cond is not None:
            with self.item_slot(t.slot, t.seq):
                cond = self.expr(t.cond)
            lines += [self.array("opts", bound + 1), "W k = 0;",
                      *self.each_item(t.seq, t.slot, [f"if ({cond}) opts[k++] = {slot};"])]
        else:
            lines += [self.array("opts", bound + 1), "W k = 0;", "for (W i = 0; i < n; i++) opts[k++] = xs[i];"]
        if t.repeats:  # each value once, where it first comes
            lines += self.first_of_each(bound)
        if t.optional or t.empty != t.next:
            lines += ["if (k == 0) {", f"    {slot} = VBR_NONE;", f"    goto L{t.empty};", "}"]
        else:
            lines += [f"if (k == 0) vbr_fault(S, {t.nothing}, VBR_NONE, VBR_NONE);"]
        lines += [f"if (k > {lay.max_options - 1}) vbr_fault(S, {t.too_many}, k, VBR_NONE);"]
        if t.optional and t.repeats:  # pass, unless an item already offers none
            lines += ["W pass = 0;", "while (pass < k && opts[pass] != VBR_NONE) pass++;",
                      "if (pass == k) opts[k++] = VBR_NONE;"]
        elif t.optional:
            lines += ["opts[k++] = VBR_NONE;"]
        lines += [f"W seat = {self.expr(t.by)};",
                  f"if (!(0 <= seat && seat < {self.p.seats})) vbr_fault(S, {t.no_seat}, seat, VBR_NONE);",
                  # a random seat of a whole game picks at once: the choice's words are not written
                  # (they are in use only while a choice waits: TypedState.words_in_use), nor the
                  # steps, unless the choice passes the limit (as a choice that waits leaves them)
                  f"S[fp + 2] = {t.next};", "VbrAuto *a = vbr_auto;",
                  "if (a) {", "    W i = vbr_auto_pick(S, a, k, seat);",
                  f"    if (i < 0) {{ {self.store_locals()} {self.leaving} }}",
                  f"    {slot} = opts[i];", f"    goto L{t.next};", "}", self.store_locals(),
                  f"memcpy(S + {lay.options}, opts, sizeof(W) * (size_t)k);", f"S[{H.NOPTS}] = k;",
                  f"S[{H.SEAT}] = seat;", f"S[{H.SITE}] = {t.site};", f"S[{H.DEST}] = fp + {FRAME_HEAD + t.slot};",
                  f"S[{H.STATUS}] = CHOICE;", "return;"]
        return lines

    def t_Call(self, t):
        if t.unit in self.direct:
            return self.direct_call(t)
        callee = self.p.units[t.unit]
        lines = [f"S[fp + 2] = {t.next};",
                 f"if (S[{H.DEPTH}] >= {self.lay.depth}) vbr_fault(S, {DEPTH_FAULT}, VBR_NONE, VBR_NONE);"]
        lines += [f"W a{i} = {self.expr(a)};" for i, a in enumerate(t.args)] + [self.store_locals()]
        lines += [f"W nf = S[{H.TOP}];",
                  f"if (nf + {FRAME_HEAD + callee.nlocals} > {self.lay.words}) vbr_fault(S, {COPY_FAULT}, VBR_NONE, VBR_NONE);",
                  "S[nf] = fp;", f"S[nf + 1] = {t.unit};", "S[nf + 2] = 0;"]
        lines += [f"S[nf + {FRAME_HEAD + i}] = a{i};" for i in range(len(t.args))]
        lines += [self.fresh_locals(f"nf + {FRAME_HEAD + len(t.args)}", callee.nlocals - len(t.args)),
                  f"S[{H.FP}] = nf;", f"S[{H.TOP}] = nf + {FRAME_HEAD + callee.nlocals};", f"S[{H.DEPTH}] += 1;",
                  self.told(CALL, t.unit)]
        if not self.direct_calls:
            return lines + ["return;"]  # the run loop (entry_points) runs the procedure
        # run it now; on its return to this frame go on here, else (a choice, a goto, the end) leave
        return lines + [f"u{t.unit}(S, nf, 0);",
                        f"if (S[{H.STATUS}] != RUNNING || S[{H.FP}] != fp || S[fp + 2] != {t.next}) return;",
                        "VBR_BACK();", f"goto L{t.next};"]

    def direct_call(self, t) -> list[str]:
        """A call of a procedure run as a C call (direct_unit): the same tests, in the same order,
        as a pushed frame's; when it returns (0) play goes on at `next`, else (1: the end, a
        `goto`) this function leaves too, after the end with its locals in its frame's words."""
        callee = self.p.units[t.unit]
        lines = [f"S[fp + 2] = {t.next};",
                 f"if (S[{H.DEPTH}] >= {self.lay.depth}) vbr_fault(S, {DEPTH_FAULT}, VBR_NONE, VBR_NONE);"]
        lines += [f"W a{i} = {self.expr(a)};" for i, a in enumerate(t.args)] + [self.store_locals()]
        lines += [f"if (S[{H.TOP}] + {FRAME_HEAD + callee.nlocals} > {self.lay.words}) "
                  f"vbr_fault(S, {COPY_FAULT}, VBR_NONE, VBR_NONE);"]
        lines.append(self.told(CALL, t.unit))
        call = f"d{t.unit}(S, fp" + "".join(f", a{i}" for i in range(len(t.args))) + ")"
        ended = [f"    if (S[{H.STATUS}] == OVER) {self.ended_locals()}"] if self.in_direct else []
        return lines + [f"if ({call}) {{", *ended, f"    {self.leaving}", "}", "VBR_BACK();", f"goto L{t.next};"]

    @staticmethod
    def told(what: int, unit: int) -> str:
        """A call of procedure `unit` (CALL) or its return (RETURN) told to a log that listens
        (vbr.engines.events): without one, a test of a word."""
        return f"if (VBR_LOGGING(S)) VBR_LOG(S, {what}, {unit}, 0, 0);"

    def returning(self) -> list[str]:
        """A procedure's return told to a log (`told`); a handler's, a set-up's, not."""
        return [self.told(RETURN, self.unit_at)] if self.p.units[self.unit_at].kind == "proc" else []

    def ended_locals(self) -> str:
        """A direct_unit's locals written to its frame's words (the game ended in it)."""
        n = self.p.units[self.unit_at].nlocals
        return f"memcpy(S + fp + {FRAME_HEAD}, L, sizeof(W) * {n});" if n else ";"

    @staticmethod
    def fresh_locals(at: str, n: int) -> str:
        """A statement setting words at..at+n-1 (a new frame's locals) to none."""
        return f"memcpy(S + {at}, NONES, sizeof(W) * {n});" if n > 0 else ";"

    def t_Emit(self, t):
        lines = [f"int ok{i} = {self.expr(g) if g is not None else '1'} ? 1 : 0;" for i, g in enumerate(t.guards)]
        lines += [f"S[fp + 2] = {t.next};", self.store_locals()]
        for i in reversed(range(len(t.handlers))):
            callee = self.p.units[t.handlers[i]]
            body = [f"if (S[{H.DEPTH}] >= {self.lay.depth}) vbr_fault(S, {t.depth_fault}, VBR_NONE, VBR_NONE);",
                    f"W nf = S[{H.TOP}];",
                    f"if (nf + {FRAME_HEAD + callee.nlocals} > {self.lay.words}) vbr_fault(S, {COPY_FAULT}, VBR_NONE, VBR_NONE);",
                    f"S[nf] = S[{H.FP}];", f"S[nf + 1] = {t.handlers[i]};", "S[nf + 2] = 0;"]
            body += [f"S[nf + {FRAME_HEAD + j}] = {self.local(a)};" for j, a in enumerate(t.args)]
            body += [self.fresh_locals(f"nf + {FRAME_HEAD + len(t.args)}", callee.nlocals - len(t.args)),
                     f"S[{H.FP}] = nf;", f"S[{H.TOP}] = nf + {FRAME_HEAD + callee.nlocals};", f"S[{H.DEPTH}] += 1;"]
            lines += [f"if (ok{i}) {{", *("    " + x for x in body), "}"]
        return lines + ["return;"]

    def t_Return(self, t):
        value = self.expr(t.value) if t.value is not None else "VBR_NONE"
        return [f"S[{H.RETURNED}] = {value};", *self.returning(), self.store_locals(), f"S[{H.FP}] = S[fp];",
                f"S[{H.TOP}] = fp;", f"S[{H.DEPTH}] -= 1;", self.returned]

    def t_ReturnList(self, t):
        return [f"W base = {self.expr(t.base)}, n = {self.expr(t.count)}, link = S[fp];",
                f"if (n > {t.bound}) vbr_fault(S, {t.fault}, n, VBR_NONE);",
                f"S[{H.RETURNED}] = n;", *self.returning(), self.store_locals(),
                "memmove(S + fp, S + base, sizeof(W) * (size_t)n);",
                f"S[{H.FP}] = link;", f"S[{H.TOP}] = fp + n;", f"S[{H.DEPTH}] -= 1;", self.returned]

    def t_Goto(self, t):
        """The goto's phase in a new frame at the stack's base, every other frame dropped; run by
        the loop that runs units (run_loop), or, when it is the phase that runs here at the
        stack's base (a phase playing again: a rally's next bounce), at once from its first block,
        as that loop would run it, without leaving the function."""
        callee, at = self.p.units[t.unit], self.lay.stack
        lines = [self.store_locals(), f"if (VBR_LOGGING(S)) VBR_LOG(S, {PHASE}, {t.unit}, 0, 0);",
                 f"S[{at}] = -1;", f"S[{at + 1}] = {t.unit};", f"S[{at + 2}] = 0;"]
        tail = [f"S[{H.FP}] = {at};", f"S[{H.TOP}] = {at + FRAME_HEAD + callee.nlocals};", f"S[{H.DEPTH}] = 1;"]
        fresh = self.fresh_locals(f"{at + FRAME_HEAD}", callee.nlocals)
        if t.unit != self.unit_at:
            return lines + [fresh] + tail + [self.leaving]
        again = f"memcpy(L, NONES, sizeof(W) * {callee.nlocals});" if callee.nlocals else ";"  # L: the same words
        return lines + tail + [f"if (fp == {at}) {{", again, "VBR_BACK();", "goto L0;", "}", fresh, self.leaving]

    def t_End(self, t):
        lines = self.ended(t)
        if self.in_direct:  # before `S[STATUS] = OVER;`
            return lines[:-2] + [self.ended_locals()] + lines[-2:]
        return lines

    def ended(self, t):
        if t.team:
            voices = self.table([ts[0] if ts else NONE for ts in self.p.teams])
            return [f"W w = {self.expr(t.winner)};",
                    f"if (!(0 <= w && w < {len(self.p.teams)})) vbr_fault(S, {t.fault}, w, VBR_NONE);",
                    self.store_locals(), f"S[{H.WINNER}] = {voices}[w];", f"S[{H.WINNER_TEAM}] = w + 1;", f"S[{H.STATUS}] = OVER;", self.leaving]
        if t.winner is None:
            return [self.store_locals(), f"S[{H.WINNER}] = VBR_NONE;", f"S[{H.STATUS}] = OVER;", self.leaving]
        return [f"W w = {self.expr(t.winner)};",
                f"if (!(0 <= w && w < {self.p.seats})) vbr_fault(S, {t.fault}, w, VBR_NONE);",
                self.store_locals(), f"S[{H.WINNER}] = w;", f"S[{H.STATUS}] = OVER;", self.leaving]

    def t_Fail(self, t):
        return [f"vbr_fault(S, {t.fault}, VBR_NONE, VBR_NONE);", self.leaving]

    @property
    def returned(self) -> str:
        """How the function of the unit being written returns to its caller's frame."""
        return "return 0;" if self.in_direct else "return;"

    @property
    def leaving(self) -> str:
        """How it returns when play leaves it for good (a `goto`, the end, a fault)."""
        return "return 1;" if self.in_direct else "return;"
