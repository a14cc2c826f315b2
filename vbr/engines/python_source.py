"""The Python engine's rules: each node of the typed program as Python source.

`python_source(program)` gives a module's text with one function per unit, `u<unit>(S, fp, pc)`:
it runs the unit's frame (at fp of the state list S) from block pc until control leaves it (a
choice, an event's handlers, a return, a `goto`, the end, a fault); `UNITS` lists them.

Inside a unit's function:
- the blocks are one `while` loop over `pc`; a block with a single way in (and no resumption
  there) is written inside the block it comes from, so only loop heads, joins and resumption
  points are dispatched on;
- the locals used where the unit loops (all of them in a small unit) are Python variables
  (`l<slot>`), read from the frame on entry (a new frame's set without reading) and written back
  where control leaves, those that may have changed since entry; the rest stay in the frame
  (`S[fp + k]`), except a bound value (an inlined `fn`'s parameter, an aggregate's or a choice's
  item), which is read from a variable and written through to its word;
- a called procedure's function is called from here, and when it returns into this frame play
  goes on here (in a program whose chains of calls are short, vbr.ir.direct_calls.short_chains;
  else the call returns to the run loop, which runs the procedure, so that a deep recursion
  does not grow Python's stack); a procedure that never suspends (vbr.ir.direct_calls) has a function of its own,
  `d<unit>`, that runs it to its return with no frame pushed (`_Direct`), and play goes on in
  the caller's block after the call as after any statement;
- each call of a procedure and its return are told to a log while one listens
  (vbr.engines.events: CALL and RETURN), a test of `LOG` and nothing more without one;
- the steps taken are counted in a variable and written back where control leaves;
- checked arithmetic is written out: the result, then one range test and a none test for each
  operand not known to be a value (a constant, another sum, a count, a zone's item ...), the
  runtime's function (python_runtime.py) only called to raise the fault;
- aggregates, comprehensions and choices are loops in statements, a zone's items a slice of S,
  a thing's membership of a zone its own zone word.
- a loop's parts that give the same value in every round are worked out the first time a round
  reaches them and remembered (`_invariants`); a choice over every thing of a kind goes only
  through the things in the zones its filter requires once they are known (python_narrowing.py);
  a zone's item's field is read without testing its kind where its zones hold one kind
  (zone_kinds.py); a heavy fn works out once the parts its body repeats (`_same_values`).

So the words of the state after each choice are those the C engine leaves (c_source.py):
every local a frame holds and every step counted. Nothing of the rule file's text is in the
source: names are numbers, texts are indexes into the program's tables.
"""
from __future__ import annotations

import math
import weakref
from collections import Counter

from vbr.engines.events import revealed_type
from vbr.engines.python_narrowing import narrowed_loop, skeleton
from vbr.engines.word_source import WordSource
from vbr.engines.zone_kinds import seq_zones, zone_kinds
from vbr.ir import nodes as N
from vbr.ir.cycles import on_cycle
from vbr.ir.never_none import never_none_slots, never_none_vars
from vbr.ir.build import CHOICE_FAULT, COPY_FAULT, DEPTH_FAULT, ITEMS_FAULT, STEP_FAULT
from vbr.ir.direct_calls import DirectCalls
from vbr.ir.chance_program import CAPACITY as DECIDED_ROOM
from vbr.ir.layout import CHOICE, FAULT, FRAME_HEAD, ITEMS_PER_STEP, OVER, RUNNING, Header as H
from vbr.ir.steps import flow_successors, stepped_blocks
from vbr.ir.ranges import ValueRanges
from vbr.ir.values import CELL_BIAS, CELL_SPAN, INT_MAX, NONE

RUNTIME = ("EngineFault", "add", "sub", "mul", "div", "mod", "neg", "absolute", "index", "thing_word", "other",
           "distance", "cell_at", "on_court", "reach", "reach_search", "step_paying", "dir_vec", "take_out", "put",
           "draw_below", "shuffle", "fault", "forced_roll", "forced_pick", "decided", "decided_pick", "decided_shuffle",
           "drew")
_ARITH = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod"}
_CELL_FNS = ("number", "side", "row", "col", "in_court", "on_net")
REGISTERS = 40  # the most locals of a unit held in Python variables
COPIED_LINES = 120  # the most lines a join written out at each way in adds to its unit
COPIED_BUDGET = 2_000  # the most lines joins written out at each way in add to one unit (the books': 500 at most)
INLINED = 48  # the most blocks written one inside the other (each a few calls deep in the writer)


def team_table(p: N.Program) -> tuple[int, ...]:
    """Each seat's team."""
    team = [0] * p.seats
    for t, seats in enumerate(p.teams):
        for s in seats:
            team[s] = t
    return tuple(team)


def python_source(program: N.Program) -> str:
    """The program's module: python_parts, one after the other."""
    return "\n\n".join(python_parts(program)) + "\n"


def python_parts(program: N.Program) -> list[str]:
    """The program's module in parts, each whole statements of it, to be run in order in one
    namespace: the imports, the constants, a function per fn body and unit, the table of units.
    Compiled part by part, the compiler's memory grows with the largest part, not the program."""
    head = f"from vbr.engines.python_runtime import {', '.join(RUNTIME)}"
    pads: set[int] = set()
    kinds = zone_kinds(program)
    calls = DirectCalls(program)
    vars_nn, ranges = never_none_vars(program), ValueRanges(program)
    units = [_Unit(program, u, pads, kinds, calls, vars_nn, ranges).function() for u in range(len(program.units))]
    units += [_Direct(program, u, pads, kinds, calls, vars_nn, ranges).function() for u in sorted(calls.direct)]
    fns = [_FnBody(program, k, kinds, vars_nn, ranges).function() for k in range(len(program.fns))]
    nones = "\n".join([f"P{n} = ({NONE},) * {n}" for n in sorted(pads)] + _cell_answers(program) + _address_tables(program))
    table = "UNITS = (" + "".join(f"u{u}, " for u in range(len(program.units))) + ")"
    return [head, nones, *fns, *units, table]


def _address_tables(p: N.Program) -> list[str]:
    """Where each zone starts (`ZONE_AT[zone]`), and where field `pos` of each thing lies
    (`FIELD_AT<pos>[thing]`): read from a tuple, a word's place costs no arithmetic."""
    lay = p.layout
    tables = [f"ZONE_AT = tuple(range({lay.zones}, {lay.zones + lay.nzones * lay.zone_size}, {lay.zone_size}))"]
    return tables + [f"FIELD_AT{pos} = tuple(range({lay.fields + pos}, {lay.fields + pos + lay.things * lay.width}, "
                     f"{lay.width}))" for pos in range(lay.width)]


def _cell_answers(p: N.Program) -> list[str]:
    """Each position function's answers (build.py's court tables) as a dict from a cell on the
    grid or a declared space to its answer, `CELL_<NAME>`: any other cell is the runtime's
    `on_court` (the answer off the grid, or none's fault)."""
    t = p.court_tables
    if not t:
        return []
    h, out = t["height"], []
    for name in _CELL_FNS:
        table, _, answers = t[name]
        d = dict(zip(t["spaces"], answers))
        d.update({(x + CELL_BIAS) * CELL_SPAN + y + CELL_BIAS: table[x * h + y] for x in range(t["cols"])
                  for y in range(h)})
        out.append(f"CELL_{name.upper()} = {d!r}")
    return out


def _indent(lines: list[str]) -> list[str]:
    return ["    " + x for x in lines]


def _is_literal(code: str) -> bool:
    return code.lstrip("-").isdigit()


def _is_name(code: str) -> bool:
    return code.isidentifier()


def _simple(code: str) -> bool:
    """Code that reads nothing that can change and costs nothing to write twice."""
    return _is_literal(code) or _is_name(code)


# --------------------------------------------------------------------------- what a unit does


def _slot_refs(x) -> list[int]:
    """Every local slot a node and its sub-expressions read or write."""
    out = []
    for n in N.walk(x):
        for name in ("slot", "base", "count", "result"):
            v = getattr(n, name, None)
            if isinstance(v, int) and isinstance(n, (N.Local, N.Bind, N.BindSeq, N.Aggregate, N.Comprehension,
                                                     N.StackItems, N.SetLocal, N.Collect, N.Mark, N.Release,
                                                     N.Choose, N.StackAt)):
                out.append(v)
        if isinstance(n, N.Emit):
            out += n.args
    return out


def _slot_writes(x) -> set[int]:
    """Every local slot a node and its sub-expressions may write."""
    out = set()
    for n in N.walk(x):
        if isinstance(n, (N.SetLocal, N.Mark, N.Bind, N.BindSeq, N.Aggregate, N.Comprehension, N.Choose)):
            out.add(n.slot)
        elif isinstance(n, N.Collect):
            out.update((n.base, n.count))
    return out


def _zone_seq(s: N.Seq) -> bool:
    """A zone's items, or one of two such sequences by a test, or such a sequence under a binding."""
    if isinstance(s, N.ZoneItems):
        return True
    if isinstance(s, N.ChooseSeq):
        return _zone_seq(s.then) and _zone_seq(s.orelse)
    return isinstance(s, N.BindSeq) and _zone_seq(s.body)


_IMPURE = (N.Roll, N.Pick, N.Returned)  # a draw, or what the last call gave back
_CHEAP = (N.Const, N.Local)  # read again as cheaply as a remembered value


def _invariants(body: list, slot: int, p: N.Program) -> list[N.Expr]:
    """The largest expressions of a loop's body (`body`'s nodes, the loop's item in `slot`) that
    give the same value in every round: they read no local the body writes (but one a binding
    around them gives such a value), draw nothing, call no heavy fn that pays steps, and occur
    once in the body. Each is worked out the first time a round reaches it, then remembered
    (_Unit.expr): the state it reads does not change while the loop runs (a filter, an
    aggregate's body or a comprehension writes nothing but locals), and a binding inside it
    leaves its local as every round would."""
    written = {slot}.union(*(_slot_writes(x) for x in body if x is not None))
    deps: dict[int, frozenset] = {}
    seen: dict[int, int] = {}
    varies = frozenset({"round"})

    def visit(x, env: dict) -> frozenset:
        seen[id(x)] = seen.get(id(x), 0) + 1
        if isinstance(x, N.Local):
            d = env.get(x.slot, varies if x.slot in written else frozenset())
        elif isinstance(x, (N.Bind, N.BindSeq)):
            v = visit(x.value, env)
            d = v | visit(x.body, {**env, x.slot: v})
        elif isinstance(x, (N.Aggregate, N.Comprehension)):
            src = visit(x.seq if isinstance(x, N.Aggregate) else x.source, env)
            own = frozenset({id(x)})
            inner = {**env, x.slot: own}
            d = src.union(*(visit(c, inner) for c in (x.cond, x.body) if c is not None)) - own
        else:
            d = frozenset().union(*(visit(c, env) for c in N.sub_exprs(x)))
            if isinstance(x, _IMPURE) or isinstance(x, N.FnCall) and (x.steps or _fn_draws(x.fn, p)):
                d = d | varies
        deps[id(x)] = d
        return d

    for x in body:
        if x is not None:
            visit(x, {})
    found: list[N.Expr] = []

    def pick(x) -> None:
        if (isinstance(x, N.Expr) and not isinstance(x, _CHEAP) and not deps[id(x)] and seen[id(x)] == 1
                and not (isinstance(x, N.Global) and x.index is None)):
            found.append(x)
            return
        if isinstance(x, N.Contains) and _zone_seq(x.seq) and x.item.ty.startswith("ent") and not deps[id(x.seq)] \
                and seen[id(x.seq)] == 1 and not isinstance(x.seq, N.ZoneItems):  # the zone a thing is looked for in
            pick(x.item)
            found.append(x.seq)
            return
        for c in N.sub_exprs(x):
            pick(c)

    for x in body:
        if x is not None:
            pick(x)
    return found


class _Tangled(Exception):
    """A body whose bindings share a local, or whose local is read outside its binding, or
    whose node occurs twice."""


_BINDERS = (N.Bind, N.BindSeq, N.Aggregate, N.Comprehension)
_BOUND_AFTER = ("value", "seq", "source")  # a binder's field after which its local is bound
_UNKEYED = ("span", "fault", "forced_fault", "slot")  # a fault's id names where; the value is the same
_OPEN = math.inf  # a shape's threshold keeping every local read as the binding it names


class _Shapes:
    """The shape of each node of a heavy fn body: its type, its fields (its sub-expressions'
    shapes) and the locals it reads, a number per distinct shape. A local a binding inside the
    node binds is the binding it names, counted in bindings out from the read (de Bruijn), so
    that two copies of a node binding their own locals alike have one shape; a parameter, or a
    local bound (once) to one outside the node, is that parameter; a node reading any other
    local bound outside it, or one no binding in the body binds, or drawing, has none. Each node
    is visited once and each shape made once from its parts' numbers (`shape`), so keying a
    body takes time in proportion to its size times its nesting of bindings. Raises _Tangled
    for a body whose bindings are not each their own local, read only inside it, on a tree."""

    def __init__(self, binders: Counter, param: dict[int, int], p: N.Program):
        self.binders, self.param, self.p = binders, param, p
        self.scope: dict[int, int] = {}  # the slot of each binding around the node visited -> its depth
        self.read: dict[int, int | None] = {}  # a local read -> the bindings out to the one it names
        self.reach: dict[int, int] = {}  # a node -> how far out of it its reads go (-1: not out of it)
        self.foreign: dict[int, int] = {}  # the same for reads of a local that is no parameter
        self.unshared: set[int] = set()  # nodes that draw or read a local nothing binds
        self.numbers: dict[tuple, int] = {}  # a shape, its parts by number -> its number
        self.made: dict[tuple[int, float], int] = {}  # (a node, within) -> its shape's number (`shape`)

    def visit(self, n) -> None:
        """Note what `n` and each node below it read, its bindings around them as in `scope`."""
        if id(n) in self.reach:
            raise _Tangled
        reach = foreign = -1
        if isinstance(n, N.Local):
            if n.slot in self.scope:
                reach = len(self.scope) - 1 - self.scope[n.slot]
                foreign = -1 if n.slot in self.param else reach
                self.read[id(n)] = reach
            elif n.slot in self.binders:
                raise _Tangled
            else:
                self.read[id(n)] = None
                if n.slot not in self.param:
                    self.unshared.add(id(n))
        else:
            if isinstance(n, _IMPURE) or isinstance(n, N.FnCall) and _fn_draws(n.fn, self.p):
                self.unshared.add(id(n))
            inside = 0
            for name, v in vars(n).items():
                for c in v if isinstance(v, list) else [v]:
                    if isinstance(c, (N.Expr, N.Seq)):
                        self.visit(c)
                        reach = max(reach, self.reach[id(c)] - inside)
                        foreign = max(foreign, self.foreign[id(c)] - inside)
                        if id(c) in self.unshared:
                            self.unshared.add(id(n))
                if isinstance(n, _BINDERS) and name in _BOUND_AFTER:
                    inside = 1
                    self.scope[n.slot] = len(self.scope)
            if inside:
                del self.scope[n.slot]
        self.reach[id(n)], self.foreign[id(n)] = max(reach, -1), max(foreign, -1)

    def key(self, n) -> int | None:
        """The number of `n`'s shape, or None when it has none."""
        if id(n) in self.unshared or self.foreign[id(n)] >= 0:
            return None
        return self.shape(n, 0)

    def shape(self, n, within: float) -> int:
        """The number of `n`'s shape where the bindings `within` out of it are inside the node
        keyed (_OPEN: all of them): a read out past them names its parameter."""
        if self.reach[id(n)] < within:
            within = _OPEN
        made = self.made.get((id(n), within))
        if made is not None:
            return made
        if isinstance(n, N.Local):
            out = self.read.get(id(n))
            part = ("param", self.param.get(n.slot)) if out is None or out >= within else ("local", out)
        else:
            parts, inside = [type(n).__name__], 0
            for name, v in vars(n).items():
                if name in _UNKEYED:
                    continue
                if isinstance(v, (N.Expr, N.Seq)):
                    parts.append(self.shape(v, within + inside))
                elif isinstance(v, list):
                    parts.append(tuple(self.shape(i, within + inside) if isinstance(i, (N.Expr, N.Seq)) else repr(i)
                                       for i in v))
                else:
                    parts.append(repr(v))
                if isinstance(n, _BINDERS) and name in _BOUND_AFTER:
                    inside = 1
            if isinstance(n, _BINDERS):
                parts.append("binds")
            part = tuple(parts)
        made = self.made[(id(n), within)] = self.numbers.setdefault(part, len(self.numbers))
        return made


def _same_values(body: N.Expr, nparams: int, p: N.Program) -> list[list]:
    """A heavy fn body's subexpressions that occur more than once with the same meaning (the
    same nodes and constants, reading the same parameters, binding their own locals alike: one
    _Shapes key): each group gives one value wherever it is first worked out, as nothing a fn
    body runs changes the state or a parameter. The largest such, not inside another. None in
    a body whose bindings are tangled (_Tangled; the builder gives each binding its own local)."""
    nodes = list(N.walk(body))
    binders = Counter(n.slot for n in nodes if isinstance(n, _BINDERS))
    if any(b < nparams for b in binders):
        return []
    param = {i: i for i in range(nparams)}  # a local bound once, to a parameter -> the parameter
    for n in nodes:
        if isinstance(n, N.Bind) and isinstance(n.value, N.Local) and n.value.slot in param and binders[n.slot] == 1:
            param[n.slot] = param[n.value.slot]
    shapes = _Shapes(binders, param, p)
    try:
        if any(c > 1 for c in binders.values()):
            raise _Tangled
        shapes.visit(body)
    except _Tangled:
        return []
    keys = {id(n): shapes.key(n) for n in nodes if isinstance(n, N.Expr) and not isinstance(n, _CHEAP)
            and not (isinstance(n, N.Global) and n.index is None)}
    count = Counter(k for k in keys.values() if k is not None)
    groups: dict = {}

    def pick(x) -> None:
        k = keys.get(id(x))
        if k is not None and count[k] >= 2:
            groups.setdefault(k, []).append(x)
            return
        for c in N.sub_exprs(x):
            pick(c)
    pick(body)
    return [g for g in groups.values() if len(g) >= 2]


MAX_PARENS = 40  # the nesting of parentheses from which an expression's code is named (Python compiles 200)


def _nesting(code: str) -> int:
    """How deeply `code`'s parentheses nest (brackets too)."""
    depth = deepest = 0
    for ch in code:
        if ch in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]":
            depth -= 1
    return deepest


def counts_items(e, p: N.Program) -> bool:
    """Whether working out `e` may count items against the allowance (an aggregate that goes
    through its items, a comprehension, a heavy fn whose body has one)."""
    for n in N.walk(e):
        if isinstance(n, N.Comprehension) or isinstance(n, N.Aggregate) and (n.agg != "count" or n.cond is not None):
            return True
        if isinstance(n, N.FnCall) and counts_items(p.fns[n.fn].body, p):
            return True
    return False


_FN_DRAWS: "weakref.WeakKeyDictionary[N.Program, dict[int, bool]]" = weakref.WeakKeyDictionary()


def draws_logged(x, p: N.Program) -> bool:
    """Whether running statement or expression `x` may draw, and so tell a log of the draw: a
    `shuffle`, a `roll` or a `pick` in it, or a call of a heavy fn that may draw (_fn_draws)."""
    for n in N.walk(x):
        if isinstance(n, (N.Roll, N.Pick, N.Shuffle)) or isinstance(n, N.FnCall) and _fn_draws(n.fn, p):
            return True
    return False


def _fn_draws(k: int, p: N.Program) -> bool:
    """Whether a call of heavy fn `k` may draw: its body draws, or calls a fn that may (each
    fn's answer worked out once per program: a fn calling another twice, eleven deep, is 2,048
    walks of the last at each call otherwise)."""
    known = _FN_DRAWS.setdefault(p, {})
    if k not in known:
        known[k] = draws_logged(p.fns[k].body, p)
    return known[k]


def _successors(t: N.Term, direct: frozenset = frozenset()) -> list[int]:
    """The blocks a terminator goes on to without leaving the unit's function (a call of a
    procedure in `direct` returns into it)."""
    if isinstance(t, N.Jump):
        return [t.target]
    if isinstance(t, N.Branch):
        return [t.then, t.orelse]
    if isinstance(t, N.Choose):
        return [t.empty]
    if isinstance(t, N.Call) and t.unit in direct:
        return [t.next]
    return []


def _resumes(t: N.Term, direct: frozenset = frozenset()) -> list[int]:
    """The blocks play resumes at after this terminator suspends the frame."""
    if isinstance(t, N.Choose):
        return [t.next]
    if isinstance(t, N.Call) and t.unit not in direct or isinstance(t, N.Emit):
        return [t.next]
    return []


class _Unit(WordSource):
    """One unit's function."""

    left = "return"  # how the function returns when play leaves it for good (a `goto`, the end)

    def __init__(self, p: N.Program, u: int, pads: set[int], zone_kinds: list[frozenset[int]], calls: DirectCalls,
                 vars_nn: frozenset[int], ranges: ValueRanges):
        super().__init__(p, ranges)
        self.range_unit = u
        self.u, self.unit, self.pads, self.zone_kinds, self.calls = u, p.units[u], pads, zone_kinds, calls
        self.vars_nn = vars_nn  # the vars that never hold none (vbr.ir.never_none)
        self.direct = calls.direct
        self.nested = calls.short  # a pushed call's function called from here (else the run loop calls it)
        self.ends_game = any(isinstance(b.term, N.End) for b in self.unit.blocks)  # the game may end in this frame
        self.out: list[str] = []
        self.alias: dict[int, str] = {}
        self.known_kind: dict[int, int] = {}  # slots that hold, for now, a value (a thing of this kind, -1: any)
        self.kind_words: dict[str, str] = {}  # a zone item's variable -> a variable holding its kind
        # a heavy fn's thing parameter -> (its offset among the things' words, {kind: whether it is of it})
        self.param_checks: dict[str, tuple[str, dict[int, str]]] = {}
        self.memo: dict[int, str] = {}  # a loop's invariant expression (by id) -> the variable remembering it
        self.limit = p.limits["steps"]
        blocks = self.unit.blocks
        self.preds = [0] * len(blocks)
        entries = {0}
        for b in blocks:
            for s in _successors(b.term, self.direct):
                self.preds[s] += 1
            entries.update(_resumes(b.term, self.direct))
        self.labels = {b for b in range(len(blocks)) if b in entries or self.preds[b] > 1}  # the blocks dispatched on
        self.regs = self._registers()
        self.slots_nn = self._never_none_slots()
        self.dirty = self._written_since_entry()
        self.current = 0  # the block whose lines are being written
        self.cycle = self._in_cycle()
        self.stepped = stepped_blocks(self.unit)  # the blocks that cost a step
        self.copying = False  # whether a resumption's block is being written out where a choice is answered
        self.resumed_room = COPIED_BUDGET  # lines `resumed` may yet copy into the function
        self._cut_long_chains()
        self._copy_small_joins(entries)
        self._cut_long_chains()
        self.resumed_room = COPIED_BUDGET  # the joins' sizes measured, the function's own copies start

    def _cut_long_chains(self) -> None:
        """A block that is no label is written where the block before it goes on to it (`goto`),
        by a call of `block` within that block's: a chain of thousands of them (a phase calling a
        thousand procedures in turn, each call ending a block) went past Python's recursion
        limit. Each block more than INLINED deep in such a chain becomes a label (dispatched on,
        as a join is), which changes nothing of what it does. The blocks that are no label go on
        from one to the next without a loop (a loop's head has two ways in)."""
        blocks, labels = self.unit.blocks, set(self.labels)
        succ = [_successors(b.term, self.direct) for b in blocks]
        ways_in = [0] * len(blocks)  # from blocks not yet placed, to a block that is no label
        for ways_on in succ:
            for s in ways_on:
                if s not in labels:
                    ways_in[s] += 1
        depth = [0] * len(blocks)
        todo = [b for b in range(len(blocks)) if ways_in[b] == 0]
        while todo:
            b = todo.pop()
            for s in succ[b]:
                if s in labels:
                    continue
                depth[s] = max(depth[s], depth[b] + 1)
                ways_in[s] -= 1
                if ways_in[s] == 0:
                    if depth[s] > INLINED:
                        labels.add(s)
                        depth[s] = 0
                    todo.append(s)
        self.labels = labels

    def _copy_small_joins(self, entries: set[int]) -> None:
        """A join (a block with several ways in) on no loop and never resumed at, whose lines are
        few, is written out at each way in rather than dispatched on: successors first, so that a
        join's size counts the joins copied into it; until the copies have added COPIED_BUDGET
        lines to the unit (a phase of thousands of `if`s grew fourfold, and the compiler's memory
        with it)."""
        blocks, cycle = self.unit.blocks, self.cycle
        order, seen = [], set()
        for start in range(len(blocks)):  # post-order: each block after the blocks it goes on to
            if start in seen:
                continue
            seen.add(start)
            todo = [(start, iter(_successors(blocks[start].term, self.direct)))]
            while todo:
                b, rest = todo[-1]
                nxt = next((x for x in rest if x not in seen), None)
                if nxt is None:
                    todo.pop()
                    order.append(b)
                else:
                    seen.add(nxt)
                    todo.append((nxt, iter(_successors(blocks[nxt].term, self.direct))))
        joins = {b for b in self.labels if self.preds[b] > 1} - entries - cycle
        budget = COPIED_BUDGET
        for b in order:
            if b not in joins:
                continue
            added = len(self.capture(self.block, b)[0]) * (self.preds[b] - 1)
            if added <= min(COPIED_LINES, budget):
                self.labels.remove(b)
                budget -= added

    def _written_since_entry(self) -> list[set[int]]:
        """Per block, the registers that may have changed since the function was entered, by the
        time the block ends: what a way out of the block writes back. A choice answered in play
        goes on in the function without writing them back (`answered`)."""
        blocks, regs = self.unit.blocks, set(self.regs)
        own = [set().union(*(_slot_writes(x) for x in [*b.stmts, b.term])) & regs for b in blocks]
        out = [set(w) for w in own]
        changed = True
        while changed:
            changed = False
            for b, block in enumerate(blocks):
                ways_on = _successors(block.term, self.direct) + ([block.term.next] if isinstance(block.term, N.Choose) else [])
                for s in ways_on:
                    if not out[b] <= out[s]:
                        out[s] |= out[b]
                        changed = True
        return out

    # ------------------------------------------------------------------ analysis
    def _in_cycle(self) -> set[int]:
        """The blocks on a loop of the unit's flow (a suspension and its resumption count as a way on)."""
        return on_cycle([flow_successors(b.term) for b in self.unit.blocks])

    def _registers(self) -> list[int]:
        """The locals held in Python variables: all in a small unit, else the most used in loops."""
        weight: dict[int, int] = {}
        cycle = self._in_cycle() if self.unit.nlocals > REGISTERS else set()
        for b, block in enumerate(self.unit.blocks):
            w = 10 if b in cycle else 1
            for x in [*block.stmts, block.term]:
                for slot in _slot_refs(x):
                    weight[slot] = weight.get(slot, 0) + w
        if len(weight) <= REGISTERS:
            return sorted(weight)
        hot = sorted((s for s in weight if weight[s] >= 10), key=lambda s: (-weight[s], s))
        return sorted(hot[:REGISTERS])

    def _never_none_slots(self) -> set[int]:
        """Locals no write of this unit can leave none in (so arithmetic on them skips that test):
        vbr.ir.never_none's."""
        return set(never_none_slots(self.p, self.unit, self.vars_nn))


    # ------------------------------------------------------------------ writing lines
    def emit(self, line: str) -> None:
        self.out.append(line)

    def capture(self, fn, *args):
        """(the lines fn emits, what it returns)."""
        saved, self.out = self.out, []
        try:
            value = fn(*args)
            return self.out, value
        finally:
            self.out = saved

    def tmp(self) -> str:
        return self.fresh("t")

    def owned(self, code: str, mark: int) -> bool:
        """Whether code is a temporary taken since `mark` to hold a construct's result: not a
        local's variable, nor a binding's (those outlive it), so its holder may take it over."""
        return code[:1] == "t" and code[1:].isdigit() and int(code[1:]) >= mark and code not in self.alias.values()

    def hold(self, code: str) -> str:
        """code's value in a name, so that it may be read again."""
        if _simple(code):
            return code
        t = self.tmp()
        self.emit(f"{t} = {code}")
        return t

    def operands(self, exprs: list) -> list[str]:
        """The expressions' code, evaluated left to right: an operand is held in a name before
        the statements a later one needs."""
        held = [self.tmp() for _ in exprs]  # named before any operand's own temporaries
        parts = [self.capture(self.expr, e) for e in exprs]
        last = max((i for i, (lines, _) in enumerate(parts) if lines), default=-1)  # the last with statements
        codes = []
        for i, (lines, code) in enumerate(parts):
            self.out += lines
            if i < last and not _is_literal(code):
                self.emit(f"{held[i]} = {code}")
                code = held[i]
            codes.append(code)
        return codes

    # ------------------------------------------------------------------ the function
    def function(self) -> str:
        """`u<unit>(S, fp, pc)`. A unit whose first block nothing jumps back to runs that block
        first, on entry at 0, without dispatching on it: its `continue` leaves a loop of one
        round for the unit's loop, which dispatches on the other blocks."""
        u = self.u
        written = set().union(*self.dirty)
        if self.preds[0] == 0 and len(self.labels) > 1:
            first, _ = self.capture(self.block, 0)
            rest, _ = self.capture(self.dispatch, sorted(self.labels)[1:])
            entered = ["if pc == 0:", *_indent(self.fresh_frame() + ["for _ in (0,):", *_indent(first)]), "else:",
                       *_indent(self.read(self.regs) or ["pass"]), "while True:", *_indent(rest)]
            lines = [f"def u{u}(S, fp, pc):", f"    st = S[{H.STEPS}]", "    try:", *_indent(_indent(entered))]
        else:
            body, _ = self.capture(self.dispatch, sorted(self.labels))
            lines = [f"def u{u}(S, fp, pc):", *_indent(self.load()), f"    st = S[{H.STEPS}]", "    try:",
                     "        while True:", *_indent(_indent(_indent(body)))]
        lines += ["    except EngineFault as e:", "        if not e.placed:  # raised here, not in a procedure called from here",
                 "            e.placed = True", f"            S[{H.STEPS}] = st", *_indent(_indent(_indent(self.store(written)))),
                 "        raise"]
        return "\n".join(lines)

    def runs(self, slots=None) -> list[list[int]]:
        """The registers (or those of `slots`) in runs of consecutive slots."""
        runs: list[list[int]] = []
        for s in sorted(slots) if slots is not None else self.regs:
            if runs and runs[-1][-1] == s - 1:
                runs[-1].append(s)
            else:
                runs.append([s])
        return runs

    def fresh_frame(self) -> list[str]:
        """The registers of a new frame: its parameters from the frame, the rest none."""
        fresh = [s for s in self.regs if s >= self.unit.nparams]
        return self.read(r for r in self.regs if r < self.unit.nparams) + \
            ([" = ".join(f"l{s}" for s in fresh) + f" = {NONE}"] if fresh else [])

    def load(self) -> list[str]:
        """The registers from the frame; a new frame (entered at block 0, which nothing jumps
        back to) holds its parameters and nones."""
        fresh = [s for s in self.regs if s >= self.unit.nparams]
        if self.preds[0] == 0 and fresh:
            return ["if pc == 0:", *_indent(self.read(r for r in self.regs if r < self.unit.nparams)),
                    "    " + " = ".join(f"l{s}" for s in fresh) + f" = {NONE}", "else:", *_indent(self.read(self.regs))]
        return self.read(self.regs)

    def read(self, slots) -> list[str]:
        out = []
        for r in self.runs(list(slots)):
            at = FRAME_HEAD + r[0]
            if len(r) == 1:
                out.append(f"l{r[0]} = S[fp + {at}]")
            else:
                out.append(", ".join(f"l{s}" for s in r) + f" = S[fp + {at}:fp + {at + len(r)}]")
        return out

    def store(self, slots=None) -> list[str]:
        """Lines that write registers back to the frame: those that may have changed by the end
        of the current block (or `slots`)."""
        out = []
        for r in self.runs(self.dirty[self.current] if slots is None else slots):
            at = FRAME_HEAD + r[0]
            if len(r) == 1:
                out.append(f"S[fp + {at}] = l{r[0]}")
            else:
                out.append(f"S[fp + {at}:fp + {at + len(r)}] = " + ", ".join(f"l{s}" for s in r))
        return out

    def leave(self) -> None:
        """What every way out of the function writes back: the steps and the registers."""
        self.emit(f"S[{H.STEPS}] = st")
        self.out += self.store()

    def dispatch(self, labels: list[int]) -> None:
        if len(labels) == 1:
            self.block(labels[0])
            return
        mid = len(labels) // 2
        self.emit(f"if pc < {labels[mid]}:")
        self.out += _indent(self.capture(self.dispatch, labels[:mid])[0])
        self.out += self.capture(self.dispatch, labels[mid:])[0]

    def block(self, b: int) -> None:
        """Block b's lines: where it costs a step (vbr.ir.steps), the step counted and the limit
        tested first, as in the C engine; then its statements and its terminator. No temporary
        outlives its statement, so each statement names its temporaries afresh from the number
        the block started at (a function's locals are few)."""
        block = self.unit.blocks[b]
        outer, self.current = self.current, b
        base = self.n
        if b in self.stepped:
            self.pay(1)
        for s in block.stmts:
            self.n = base
            getattr(self, "s_" + type(s).__name__)(s)
        self.n = base
        getattr(self, "t_" + type(block.term).__name__)(block.term)
        self.n = base
        self.current = outer

    def goto(self, b: int) -> None:
        if b in self.labels:
            self.emit(f"pc = {b}")
            self.emit("continue")
        else:
            self.block(b)

    # ------------------------------------------------------------------ locals
    def local(self, slot: int) -> str:
        if slot in self.alias:
            return self.alias[slot]
        if slot in self.regs:
            return f"l{slot}"
        return f"S[fp + {FRAME_HEAD + slot}]"

    def set_local(self, slot: int, code: str) -> None:
        if slot in self.regs:
            self.emit(f"l{slot} = {code}")
        else:
            self.emit(f"S[fp + {FRAME_HEAD + slot}] = {code}")
            self.alias.pop(slot, None)

    def bind(self, slot: int, code: str) -> None:
        """slot = code, read from a variable (or the value itself) until the binding construct ends."""
        if slot in self.regs:
            self.emit(f"l{slot} = {code}")
            return
        if _simple(code):  # no construct reassigns a name while a binding to it lasts
            self.emit(f"S[fp + {FRAME_HEAD + slot}] = {code}")
            self.alias[slot] = code
            return
        v = self.alias[slot] = self.tmp()
        self.emit(f"{v} = {code}")
        self.emit(f"S[fp + {FRAME_HEAD + slot}] = {v}")

    def bound_var(self, slot: int) -> tuple[str, list[str]]:
        """A loop variable for slot, and what each round writes through to the frame."""
        if slot in self.regs:
            return f"l{slot}", []
        v = self.alias[slot] = self.tmp()
        return v, [f"S[fp + {FRAME_HEAD + slot}] = {v}"]

    def scope(self) -> tuple:
        """What a binding construct changes while its body is written, to be restored after."""
        return dict(self.alias), dict(self.known_kind), dict(self.kind_words), dict(self.memo)

    def restore(self, saved: tuple) -> None:
        self.alias, self.known_kind, self.kind_words, self.memo = (dict(x) for x in saved)

    def expr(self, e) -> str:
        """e's code; a loop's invariant expression (`memo`) worked out the first time a round
        reaches it, and read from its variable after."""
        name = self.memo.get(id(e))
        if name is None:
            code = super().expr(e)
            # Python compiles at most 200 nested parentheses: a deeply nested value is named
            return self.hold(code) if len(code) > 2 * MAX_PARENS and _nesting(code) > MAX_PARENS else code
        lines, code = self.capture(super().expr, e)
        self.emit(f"if {name} is None:")
        if not counts_items(e, self.p):
            self.out += _indent(lines + [f"{name} = {code}"])
            return name
        # the C engine works it out again, going through its items again: they are counted again
        counted = f"{name}k"
        self.out += _indent([f"{counted} = S[{H.ITEMS}]", *lines, f"{name} = {code}", f"{counted} = S[{H.ITEMS}] - {counted}"])
        self.emit("else:")
        self.out += _indent(self.capture(self.count_items, counted)[0])
        return name

    def remember(self, body, slot: int) -> None:
        """The invariant expressions of a loop over slot whose rounds run `body` (_invariants),
        each given a variable, none until a round works it out (set here, before the loop)."""
        found = [x for x in _invariants(list(body), slot, self.p) if id(x) not in self.memo]
        for x in found:
            self.memo[id(x)] = name = self.fresh("h")
            self.emit(f"{name} = None")

    # ------------------------------------------------------------------ expressions
    def index_call(self, i: str, n: int, fault: int) -> str:
        if _is_literal(i) and 0 <= int(i) < n:
            return i
        if _simple(i):
            return f"({i} if 0 <= {i} < {n} else index({i}, {n}, {fault}))"
        t = self.tmp()
        return f"({t} if 0 <= ({t} := {i}) < {n} else index({t}, {n}, {fault}))"

    def x_Const(self, e):
        return str(e.value)

    def x_Local(self, e):
        return self.local(e.slot)

    def x_StackAt(self, e):
        base = self.local(e.base)
        return f"S[{base} + {self.expr(e.index)}]"

    def x_ItemAt(self, e):
        xs = self.hold(self.seq_list(e.seq))
        i = self.hold(self.expr(e.index))
        return f"({xs}[{i}] if 0 <= {i} < len({xs}) else fault({e.fault}, {i}, len({xs}) - 1))"

    def x_Lookup(self, e):
        table = tuple(e.table)
        i = self.expr(e.index)
        if e.fault < 0 and not self.in_range(e.index, len(table)):
            t = self.tmp()
            return f"({table!r}[{t}] if 0 <= ({t} := {i}) < {len(table)} else {NONE})"
        return f"{table!r}[{self.checked_index(e.index, len(table), e.fault, i)}]"

    def field_word(self, f) -> str:
        lay = self.lay
        obj = self.expr(f.obj)
        if isinstance(f, N.FieldOfAny):
            return self.field_of_any(f, obj)
        at = lay.fields + f.pos
        if isinstance(f.obj, N.Local) and self.known_kind.get(f.obj.slot) == f.kind:
            return f"FIELD_AT{f.pos}[{obj}]"
        checked = self.param_checks.get(obj)
        if checked is not None and f.kind in checked[1]:
            return f"({at} + {checked[0]} if {checked[1][f.kind]} else fault({f.fault}, {obj}))"
        if _simple(obj):
            t, first = obj, obj
        else:
            t = self.tmp()
            first = f"({t} := {obj})"
        test = f"S[{lay.kinds} + {first}] == {f.kind}"
        if obj in self.kind_words:
            test = f"{self.kind_words[obj]} == {f.kind}"
        elif not self.nn(f.obj):
            test = f"{first} != {NONE} and S[{lay.kinds} + {t}] == {f.kind}"
        return f"(FIELD_AT{f.pos}[{t}] if {test} else fault({f.fault}, {t}))"

    def field_of_any(self, f, obj: str) -> str:
        """Where a field several kinds have lies in thing e: its word by e's kind (`positions`, -1
        for a kind without it); none or a kind without it faults. Where every kind keeps the field
        at one word, the thing's kind is not read."""
        lay = self.lay
        first, t = self.named(obj)
        base = f"{lay.fields} + {t} * {lay.width}"
        if len(set(f.positions)) == 1 and f.positions[0] >= 0:
            return f"({base} + {f.positions[0]} if {first} >= 0 else fault({f.fault}, {t}))"
        p = self.tmp()
        return (f"({base} + {p} if {first} >= 0 and ({p} := {tuple(f.positions)!r}[S[{lay.kinds} + {t}]]) >= 0 "
                f"else fault({f.fault}, {t}))")

    def x_Unary(self, e):
        if e.op == "not":
            return f"(not {self.expr(e.operand)})"
        a = self.expr(e.operand)
        if self.nn(e.operand):
            return f"(-{a})"
        t = a if _simple(a) else self.tmp()
        first = a if _simple(a) else f"({t} := {a})"
        return f"(-{t} if {first} != {NONE} else neg({t}, {e.fault}))"

    def x_Binary(self, e):
        if e.op in ("and", "or"):
            return self.short_circuit(e)
        a, b = self.operands([e.left, e.right])
        if e.op in _ARITH:
            return self.arith(e, a, b)
        tests = self.none_tests(e, a, b) if e.fault >= 0 else []
        if tests:  # `<`, `<=`, `>`, `>=` of none fault
            a, b = self.hold(a), self.hold(b)
            return f"({a} {e.op} {b} if {' and '.join(self.none_tests(e, a, b))} else fault({e.fault}))"
        return f"({a} {e.op} {b})"

    def short_circuit(self, e):
        start = self.n
        a = self.expr(e.left)
        t = a if self.owned(a, start) else self.tmp()
        mark = self.n
        lines, b = self.capture(self.expr, e.right)
        if not lines:
            return f"({a} {e.op} {b})"
        self.n = mark  # the right side's temporaries end with it
        if t != a:
            self.emit(f"{t} = {a}")
        self.emit(f"if {t}:" if e.op == "and" else f"if not {t}:")
        self.out += _indent(lines + [f"{t} = {b}"])
        return t

    def arith(self, e, a: str, b: str) -> str:
        """Checked arithmetic: the fast path's result, else the runtime's function raises."""
        op, f = e.op, e.fault
        if op in ("/", "%"):
            a, b = self.hold(a), self.hold(b)
            slow = f"{_ARITH[op]}({a}, {b}, {f})"
            if _is_literal(b) and int(b) == 0:
                return slow
            # a non-zero divisor keeps a quotient or a remainder of integers in range
            tests = ([] if _is_literal(b) else [f"{b} != 0"]) + self.none_tests(e, a, b)
            py = "//" if op == "/" else "%"
            return f"({a} {py} {b} if {' and '.join(tests)} else {slow})" if tests else f"({a} {py} {b})"
        lo, hi = self.bounds_to_test(op, a, b)
        low, high = self.ranges.arith_ends(e, self.range_unit)
        lo, hi = lo and low, hi and high
        a_first, a = self.named(a)
        b_first, b = self.named(b)
        nones = self.none_tests(e, a, b)
        if not (lo or hi or nones):
            return f"({a_first} {op} {b_first})"
        r = self.tmp()
        value = f"({r} := {a_first} {op} {b_first})"
        if lo and hi:
            rng = f"{-INT_MAX} <= {value} <= {INT_MAX}"
        else:
            rng = f"{value} <= {INT_MAX}" if hi else f"{value} >= {-INT_MAX}"
        tests = " and ".join([rng] + nones)
        return f"({r} if {tests} else {_ARITH[op]}({a}, {b}, {f}))"

    def none_tests(self, e, a: str, b: str) -> list[str]:
        return [f"{x} != {NONE}" for x, ex in ((a, e.left), (b, e.right)) if not self.nn(ex)]

    def named(self, code: str) -> tuple[str, str]:
        """(code that evaluates `code` once, a name its value is read by afterwards)."""
        if _simple(code):
            return code, code
        t = self.tmp()
        return f"({t} := {code})", t

    @staticmethod
    def bounds_to_test(op: str, a: str, b: str) -> tuple[bool, bool]:
        """(the low end, the high end) a result of `a op b` can pass when its operands are integers
        in range: a constant term decides which (both for `*`, or no constant)."""
        if op == "*" or _is_literal(a) == _is_literal(b):
            return True, True
        c = int(b) if _is_literal(b) else int(a)
        if op == "-" and _is_literal(b):
            c = -c
        if c == 0:
            return True, True
        return c < 0, c > 0

    def x_IfElse(self, e):
        test = self.expr(e.test)
        t = self.tmp()
        mark = self.n
        then_lines, then = self.capture(self.expr, e.then)
        else_lines, orelse = self.capture(self.expr, e.orelse)
        if not then_lines and not else_lines:
            return f"({then} if {test} else {orelse})"
        self.n = mark
        self.emit(f"if {test}:")
        self.out += _indent(then_lines + [f"{t} = {then}"])
        self.emit("else:")
        self.out += _indent(else_lines + [f"{t} = {orelse}"])
        return t

    def x_Bind(self, e):
        saved = self.scope()
        if isinstance(e.value, N.Local) and e.value.slot in self.known_kind:
            self.known_kind[e.slot] = self.known_kind[e.value.slot]
        result = self.tmp()
        mark = self.n
        value = self.expr(e.value)
        self.bind(e.slot, value)
        if value in self.kind_words:  # the same thing under another name, until the scope ends
            self.kind_words[self.local(e.slot)] = self.kind_words[value]
        body = self.expr(e.body)
        self.restore(saved)
        if self.owned(body, mark):  # the body's own result: it stays the binding's, its name not taken again
            return body
        self.n = mark  # the binding's temporaries end with it
        if _is_literal(body):
            return body
        self.emit(f"{result} = {body}")
        return result

    def x_Roll(self, e):
        faces = tuple(self.p.dice[e.die])
        if e.undecided >= 0:
            face = f"{faces!r}[decided(S, {self.p.forced_at[e.forced]}, {len(faces)}, {e.undecided})]"
        elif e.forced >= 0:
            face = f"forced_roll(S, {self.p.forced_at[e.forced]}, {faces!r}, {self.lay.streams + e.stream})"
        else:
            face = f"{faces!r}[draw_below(S, {self.lay.streams + e.stream}, {len(faces)})]"
        return self.drawn(face, f"'roll', {e.die}")

    def x_Pick(self, e):
        xs = self.hold(self.seq_list(e.seq))
        what = f"'pick', {e.stream}"
        if e.forced >= 0 and e.undecided < 0:  # a forced pick from no items faults, or gives none unlogged
            item = f"forced_pick(S, {self.p.forced_at[e.forced]}, {xs}, {self.lay.streams + e.stream}, {e.forced_fault})"
            return f"({item} if LOG is None or not {xs} else drew(LOG, S, {what}, {item}))"
        if e.undecided >= 0:
            item = f"decided_pick(S, {self.p.forced_at[e.forced]}, {xs}, {DECIDED_ROOM}, {e.undecided})"
        else:
            item = f"{xs}[draw_below(S, {self.lay.streams + e.stream}, len({xs}))]"
        return f"({self.drawn(item, what)} if {xs} else {NONE})"

    @staticmethod
    def drawn(value: str, what: str) -> str:
        """A draw's code, its value told to the log as it is drawn while one listens (`what`: the
        event's kind and site); without a log, one test more. The log reads nothing of the state
        but the value, so the locals need not be written back first."""
        return f"({value} if LOG is None else drew(LOG, S, {what}, {value}))"

    def x_Contains(self, e):
        if _zone_seq(e.seq) and e.item.ty.startswith("ent"):
            return self.in_zone(e)
        item, t = self.expr(e.item), self.tmp()
        lines, xs = self.capture(self.seq_list, e.seq)
        if lines:
            if not _is_literal(item):
                self.emit(f"{t} = {item}")
                item = t
            self.out += lines
        return f"({item} in {xs})"

    def in_zone(self, e) -> str:
        """A thing is in a zone when the zone it is in (each thing is in exactly one) is that zone."""
        item = self.hold(self.expr(e.item))
        zone = self.hold(self.zone_of_seq(e.seq))
        if isinstance(e.item, N.Local) and self.known_kind.get(e.item.slot, -1) >= 0:  # a thing, never none
            return f"(S[{self.lay.zone_of} + {item}] == {zone})"
        return f"(0 <= {item} < S[{H.THINGS}] and S[{self.lay.zone_of} + {item}] == {zone})"

    def x_SeqEqual(self, e):
        left = self.hold(self.seq_list(e.left))  # a list, a slice or a tuple of a fixed list: compared as lists
        return f"(list({left}) == list({self.seq_list(e.right)}))"

    def x_IndexOf(self, e):
        item = self.hold(self.expr(e.item))
        xs = self.hold(self.seq_list(e.seq))
        return f"({xs}.index({item}) if {item} in {xs} else -1)"

    def x_FnCall(self, e):
        """Heavy fn e.fn's body (the module's `f<fn>`) for its arguments worked out left to
        right, the steps paid first. In C the arguments are written to its block of words, which
        is set to none after; here the body never writes its block (_FnBody), so the block is set
        to none only while it is not yet: at the first call (a state starts with zeros)."""
        fn = self.p.fns[e.fn]
        base = self.lay.vars + fn.base
        if e.steps:
            self.pay(e.steps)
        args = [self.hold(a) for a in self.operands(e.args)]
        r = self.tmp()
        self.emit(f"{r} = f{e.fn}(S, {base - FRAME_HEAD}" + "".join(", " + a for a in args) + ")")
        if fn.nlocals:
            self.emit(f"if S[{base}] != {NONE}:")
            self.emit(f"    S[{base}:{base + fn.nlocals}] = ({NONE},) * {fn.nlocals}")
        return r

    def pay(self, steps: int) -> None:
        """`steps` steps more, past the limit a fault."""
        self.emit(f"st += {steps}")
        self.emit(f"if st > {self.limit}:")
        self.emit(f"    raise EngineFault({STEP_FAULT})")

    def zone_of_seq(self, s: N.Seq) -> str:
        """The zone whose items a sequence of zones' items (`_zone_seq`) gives; remembered as a
        loop's invariant expression is (`expr`)."""
        name = self.memo.get(id(s))
        if name is None:
            return self.which_zone(s)
        lines, code = self.capture(self.which_zone, s)
        self.emit(f"if {name} is None:")
        self.out += _indent(lines + [f"{name} = {code}"])
        return name

    def which_zone(self, s: N.Seq) -> str:
        if isinstance(s, N.ZoneItems):
            return self.expr(s.zone)
        if isinstance(s, N.BindSeq):
            self.bind(s.slot, self.expr(s.value))  # its name stays bound to the end of the statement
            return self.which_zone(s.body)
        test, z = self.expr(s.test), self.tmp()
        then_lines, then = self.capture(self.zone_of_seq, s.then)
        else_lines, orelse = self.capture(self.zone_of_seq, s.orelse)
        self.emit(f"if {test}:")
        self.out += _indent(then_lines + [f"{z} = {then}"])
        self.emit("else:")
        self.out += _indent(else_lines + [f"{z} = {orelse}"])
        return z

    def x_Aggregate(self, e):
        r = self.tmp()
        if e.agg == "count" and e.cond is None:
            return self.count(e, r)
        start = {"sum": "0", "count": "0", "any": "False", "all": "True"}.get(e.agg, str(NONE))
        saved = self.scope()
        mark = self.n
        head, var, through = self.loop_head(e.seq, e.slot, (e.cond, e.body), counted=True)
        self.emit(f"{r} = {start}")

        def each():
            self.out += through
            if e.cond is not None:
                c = self.expr(e.cond)
                self.emit(f"if not {c}:")
                self.emit("    continue")
            if e.agg == "count":
                self.emit(f"{r} += 1")
                return
            body = self.expr(e.body)
            if e.agg == "sum":
                b, total = self.hold(body), self.tmp()
                none = "" if self.nn(e.body) else f" or {b} == {NONE}"
                self.emit(f"{total} = {r} + {b}")
                self.emit(f"if not {-INT_MAX} <= {total} <= {INT_MAX}{none}:")
                self.emit(f"    add({r}, {b}, {e.fault})")
                self.emit(f"{r} = {total}")
            elif e.agg == "any":
                self.emit(f"if {body}:")
                self.emit(f"    {r} = True")
                self.emit("    break")
            elif e.agg == "all":
                self.emit(f"if not {body}:")
                self.emit(f"    {r} = False")
                self.emit("    break")
            elif e.agg == "first":
                self.emit(f"{r} = {body}")
                self.emit("break")
            else:
                b = self.hold(body)
                op = ">" if e.agg == "max" else "<"
                if not self.nn(e.body):  # an item that is none: a fault
                    self.emit(f"if {b} == {NONE}:")
                    self.emit(f"    fault({e.fault})")
                self.emit(f"if {r} == {NONE} or {b} {op} {r}:")
                self.emit(f"    {r} = {b}")
        self.emit(head)
        self.out += _indent(self.capture(each)[0])
        self.restore(saved)
        self.n = mark  # the loop's temporaries end with it
        return r

    def count(self, e, r: str) -> str:
        """How many items: the item's local is left holding the last, as a loop over them would."""
        if isinstance(e.seq, N.ZoneItems):
            zb = self.hold(self.zone_word(self.expr(e.seq.zone), e.seq.zone))
            self.emit(f"{r} = S[{zb}]")
            last = f"S[{zb} + {r}]"
        else:
            xs = self.hold(self.seq_list(e.seq))
            self.emit(f"{r} = len({xs})")
            last = f"{xs}[-1]"
        self.emit(f"if {r}:")
        lines, _ = self.capture(self.set_local, e.slot, last)
        self.out += _indent(lines)
        return r

    def x_Known(self, e):
        """A value read from where none may be kept: of none, a fault."""
        v = self.expr(e.value)
        if self.nn(e.value):
            return v
        v = self.hold(v)
        return f"({v} if {v} != {NONE} else fault({e.fault}))"

    def x_Builtin(self, e):
        name, f = e.name, e.fault
        if name in ("top", "bottom"):
            z = self.expr(e.args[0])
            t = self.tmp()
            pick = f"S[{t} + S[{t}]]" if name == "top" else f"S[{t} + 1]"
            return f"({pick} if S[({t} := {self.zone_word(z, e.args[0])})] else {NONE})"
        if name in ("step", "step_paying"):
            return self.step(e.args, f) if name == "step" else self.step_paying(e.args, f)
        a = self.operands(e.args)
        seats = self.p.seats
        if name == "other":
            if self.in_range(e.args[0], 2):
                return f"(1 - {a[0]})"
            t = self.tmp()
            return f"(1 - {t} if 0 <= ({t} := {a[0]}) <= 1 else other({t}, {f}))"
        if name == "next_seat":
            return f"({self.checked_index(e.args[0], seats, f, a[0])} + 1) % {seats}"
        if name == "team_of":
            return f"{team_table(self.p)!r}[{self.checked_index(e.args[0], seats, f, a[0])}]"
        if name == "abs":
            return f"absolute({a[0]}, {f})"
        if name in ("max", "min"):
            x, y = self.hold(a[0]), self.hold(a[1])
            op = ">=" if name == "max" else "<="
            tests = [f"{v} != {NONE}" for v, ex in zip((x, y), e.args) if not self.nn(ex)]
            if tests:  # of none, a fault
                return f"(({x} if {x} {op} {y} else {y}) if {' and '.join(tests)} else fault({f}))"
            return f"({x} if {x} {op} {y} else {y})"
        if name == "zone_of":
            i = self.hold(a[0])
            return f"S[{self.lay.zone_of} + ({i} if 0 <= {i} < S[{H.THINGS}] else index({i}, S[{H.THINGS}], {f}))]"
        if name == "field":
            x, y = self.hold(a[0]), self.hold(a[1])
            return f"(FIELDS_OF.get(({x}, {y})) or field_missing({x}, {y}, {f}))"
        if name in _CELL_FNS:
            t = self.p.court_tables
            table, default, answers = t[name]
            c, v = self.hold(a[0]), self.tmp()
            slow = (f"on_court({c}, {tuple(table)!r}, {default}, {tuple(t['spaces'])!r}, {tuple(answers)!r}, "
                    f"{t['cols']}, {t['height']}, {f})")
            return f"({v} if ({v} := CELL_{name.upper()}.get({c})) is not None else {slow})"
        if name == "distance":
            return f"distance({a[0]}, {a[1]}, {f})"
        if name == "cell_at":
            t = self.p.court_tables
            return f"cell_at({a[0]}, {a[1]}, {a[2]}, {t['cols']}, {t['height']}, {f}, CELL_FAULT)"
        raise AssertionError(f"no Python rule for the built-in {name}")

    def cell_and_direction(self, args: list, f: int) -> tuple[str, str]:
        """A step's cell and direction worked out, in that order, a direction of none a fault
        before the other operands are."""
        c, d = self.hold(self.expr(args[0])), self.hold(self.expr(args[1]))
        if not _is_literal(d) or int(d) == NONE:
            self.emit(f"if {d} == {NONE}:")
            self.emit(f"    raise EngineFault({f})")
        return c, d

    def step(self, args: list, f: int) -> str:
        """n steps of a direction (right, forward) from a cell, in a side's frame (side 1 mirrors
        both); none, or a cell further than CELL_BIAS from the court's corner, faults."""
        c, d = self.cell_and_direction(args, f)
        side, n = (self.hold(self.expr(x)) for x in args[2:])
        r, fw, x, y, out = (self.tmp() for _ in range(5))
        if _is_literal(d) and int(d) != NONE:
            r, fw = self.p.directions[int(d)]
        else:
            self.emit(f"{r}, {fw} = DIRS[{d}]")
        self.emit(f"if {c} == {NONE}:")
        self.emit(f"    raise EngineFault({f})")
        along = {0: "+", 1: "-"}
        for sign in ("+", "-"):
            if _is_literal(side) and along[int(side != "0")] != sign:
                continue
            moved = [f"{x} = {c} // {CELL_SPAN} - {CELL_BIAS} {sign} {r} * {n}",
                     f"{y} = {c} % {CELL_SPAN} - {CELL_BIAS} {sign} {fw} * {n}"]
            if _is_literal(side):
                self.out += moved
            else:
                self.emit(f"if {side} == 0:" if sign == "+" else "else:")
                self.out += _indent(moved)
        self.emit(f"if not ({-CELL_BIAS} <= {x} < {CELL_BIAS} and {-CELL_BIAS} <= {y} < {CELL_BIAS}):")
        self.emit(f"    raise EngineFault({f})")
        self.emit(f"{out} = ({x} + {CELL_BIAS}) * {CELL_SPAN} + {y} + {CELL_BIAS}")
        return out

    def step_paying(self, args: list, f: int) -> str:
        """`step` with a net cost: the runtime's walk over the court's grid."""
        c, d = self.cell_and_direction(args, f)
        side, n, cost = (self.hold(self.expr(x)) for x in args[2:])
        t = self.p.court_tables
        return (f"step_paying({c}, *DIRS[{d}], {side}, {n}, {cost}, {t['cols']}, {t['rows']}, {t['net']}, {f})")

    def zone_word(self, zone: str, e: N.Expr | None = None) -> str:
        """Where zone `zone` (the code of expression e) starts: read from ZONE_AT where e is
        always a zone (vbr.ir.ranges), worked out otherwise."""
        if _is_literal(zone):
            return str(self.lay.zones + int(zone) * self.lay.zone_size)
        if e is not None and self.ranges.within(e, self.range_unit, 0, self.lay.nzones - 1):
            return f"ZONE_AT[{zone}]"
        return f"{self.lay.zones} + {zone if _simple(zone) else '(' + zone + ')'} * {self.lay.zone_size}"

    # ------------------------------------------------------------------ sequences
    def seq_list(self, s: N.Seq) -> str:
        """Code of a sequence's items as a list, a tuple or a range (never a list another holds)."""
        if isinstance(s, N.ZoneItems):
            zb = self.hold(self.zone_word(self.expr(s.zone), s.zone))
            return f"S[{zb} + 1:{zb} + 1 + S[{zb}]]"
        if isinstance(s, N.RangeItems):
            lo, hi = self.operands([s.lo, s.hi])
            if s.fault >= 0:
                lo, hi = self.hold(lo), self.hold(hi)
                self.emit(f"if {hi} - {lo} + 1 > {s.bound}:")
                self.emit(f"    raise EngineFault({s.fault}, {lo}, {hi})")
            return f"range({lo}, {hi} + 1)"
        if isinstance(s, N.Items):
            return "(" + "".join(x + ", " for x in self.operands(s.items)) + ")"
        if isinstance(s, N.StackItems):
            b = self.hold(self.local(s.base))
            return f"S[{b}:{b} + {self.local(s.count)}]"
        if isinstance(s, N.TableItems):
            rows = tuple(tuple(r) for r in s.rows)
            return f"{rows!r}[{self.checked_index(s.index, len(rows), s.fault)}]"
        if isinstance(s, N.FieldItems):
            w = self.hold(self.items_word(s))
            return f"S[{w} + 1:{w} + 1 + S[{w}]]"
        if isinstance(s, N.ReachItems):
            a = self.operands([s.start, s.dist, s.side])
            return f"reach(REACH[{s.table}], {a[0]}, {a[1]}, {a[2]}, {s.fault})"
        if isinstance(s, N.KindItems):
            xs, v = self.tmp(), self.tmp()
            self.emit(f"{xs} = []")
            self.emit(f"for {v} in range(S[{H.THINGS}]):")
            self.emit(f"    if S[{self.lay.kinds} + {v}] == {s.kind}:")
            self.emit(f"        {xs}.append({v})")
            return xs
        if isinstance(s, N.ChooseSeq):
            test = self.expr(s.test)
            xs = self.tmp()
            then_lines, then = self.capture(self.seq_list, s.then)
            else_lines, orelse = self.capture(self.seq_list, s.orelse)
            self.emit(f"if {test}:")
            self.out += _indent(then_lines + [f"{xs} = {then}"])
            self.emit("else:")
            self.out += _indent(else_lines + [f"{xs} = {orelse}"])
            return xs
        if isinstance(s, N.BindSeq):
            saved = dict(self.alias)
            self.bind(s.slot, self.expr(s.value))
            xs = self.hold(self.seq_list(s.body))
            self.alias = saved
            return xs
        if isinstance(s, N.Comprehension):
            xs = self.tmp()
            saved = self.scope()
            mark = self.n
            head, var, through = self.loop_head(s.source, s.slot, (s.cond, s.body), counted=True)
            self.emit(f"{xs} = []")

            def each():
                self.out += through
                if s.cond is not None:
                    self.emit(f"if not {self.expr(s.cond)}:")
                    self.emit("    continue")
                self.emit(f"{xs}.append({self.expr(s.body)})")
            self.emit(head)
            self.out += _indent(self.capture(each)[0])
            self.restore(saved)
            self.n = mark
            return xs
        if isinstance(s, N.VarItems):
            w = self.hold(self.list_word(s))
            return f"S[{w} + 1:{w} + 1 + S[{w}]]"
        if isinstance(s, N.ReachSearch):
            return self.reach_search(s)
        raise AssertionError(f"no Python rule for the sequence {type(s).__name__}")

    def reach_search(self, s: N.ReachSearch) -> str:
        """The ends of a `reach` known only in play: the runtime's search over the court's grid."""
        dist, start, side = (self.hold(self.expr(x)) for x in (s.dist, s.start, s.side))
        dirs = self.hold(self.seq_list(s.dirs))
        net = self.hold(self.expr(s.net))
        t = self.p.court_tables
        return (f"reach_search({start}, {dist}, {side}, {dirs}, {net}, DIRS, {t['cols']}, {t['rows']}, {t['net']}, "
                f"{s.fault})")

    def loop_head(self, seq: N.Seq, slot: int, body=(), counted: bool = False) -> tuple[str, str, list[str]]:
        """A `for` over seq's items (every item worked out first) with each in slot's variable:
        the `for` line, the variable, and the lines each round starts with; the `body` nodes'
        invariant expressions remembered (`remember`). Where the `body` nodes read several
        fields of things, a zone item's kind is read once a round. `counted`: the items (for a
        kind's, every thing) are counted against the program's allowance first (an aggregate's,
        a comprehension's), as the C engine counts them."""
        head = self.items_head(seq, slot, body, counted)
        self.remember([x for x in body if x is not None], slot)
        return head

    def count_items(self, n: str) -> None:
        allowed = ITEMS_PER_STEP * self.p.limits["steps"]
        self.emit(f"S[{H.ITEMS}] += {n}")
        self.emit(f"if S[{H.ITEMS}] > {allowed}:")
        self.emit(f"    raise EngineFault({ITEMS_FAULT})")

    def items_head(self, seq: N.Seq, slot: int, body, counted: bool = False) -> tuple[str, str, list[str]]:
        if isinstance(seq, N.KindItems):
            if counted:
                self.count_items(f"S[{H.THINGS}]")
            v = self.tmp()
            var, through = self.bound_var(slot)
            self.known_kind[slot] = seq.kind  # until the loop's construct restores the map
            return (f"for {v} in range(S[{H.THINGS}]):", var,
                    [f"if S[{self.lay.kinds} + {v}] != {seq.kind}:", "    continue", f"{var} = {v}", *through])
        xs = self.seq_list(seq)
        if counted:
            xs = self.hold(xs)
            self.count_items(f"len({xs})")
        var, through = self.bound_var(slot)
        if isinstance(seq, (N.ZoneItems, N.RangeItems)):
            self.known_kind[slot] = -1  # a thing or a number, never none
        zones = seq_zones(self.p, seq)
        if zones is not None:
            kinds = frozenset().union(*(self.zone_kinds[z] for z in zones))
            if len(kinds) == 1:  # a thing of the one kind its zones ever hold
                self.known_kind[slot] = next(iter(kinds))
                return f"for {var} in {xs}:", var, through
        fields = sum(isinstance(n, N.Field) for x in body if x is not None for n in N.walk(x))
        if isinstance(seq, N.ZoneItems) and fields >= 2:
            kind = self.kind_words[var] = self.tmp()  # a thing's kind never changes
            through = through + [f"{kind} = S[{self.lay.kinds} + {var}]"]
        return f"for {var} in {xs}:", var, through

    # ------------------------------------------------------------------ statements
    def s_SetLocal(self, s):
        self.set_local(s.slot, self.expr(s.value))

    def s_SetGlobal(self, s):
        v = self.expr(s.value)
        if s.lo is None:
            if s.target.index is not None:  # the value first, then the slot's index (as C does), though
                v = self.hold(v)  # the index's own draws are held in names before the line
            self.emit(f"S[{self.global_word(s.target)}] = {v}")
            return
        if s.overflow in ("wrap", "clamp") or not _is_name(v):
            t = self.tmp()
            self.emit(f"{t} = {v}")
            v = t
        if s.overflow in ("wrap", "clamp"):
            # above hi: to `wrap TO`, or hi; below lo: lo; none stays none (NONE is below every lo)
            above = s.wrap_to if s.overflow == "wrap" else s.hi
            below = f"{v} < {s.lo}" if self.nn(s.value) else f"{v} < {s.lo} and {v} != {NONE}"
            self.emit(f"{v} = {above} if {v} > {s.hi} else {s.lo} if {below} else {v}")
        else:
            test = f"not {s.lo} <= {v} <= {s.hi}"
            if not self.nn(s.value):
                test = f"{v} != {NONE} and " + test
            self.emit(f"if {test}:")
            self.emit(f"    raise EngineFault({s.range_fault}, {v})")
        self.emit(f"S[{self.global_word(s.target)}] = {v}")

    def s_SetListItems(self, s):
        xs = self.hold(self.seq_list(s.value))
        self.emit(f"if len({xs}) > {s.target.bound}:")
        self.emit(f"    raise EngineFault({s.fault}, len({xs}))")
        w = self.hold(self.items_word(s.target))
        self.emit(f"S[{w}] = len({xs})")
        self.emit(f"S[{w} + 1:{w} + 1 + len({xs})] = {xs}")

    def items_word(self, s: "N.VarItems | N.FieldItems") -> str:
        """Where a list var's or a thing's list field's record (its count, then its items) starts."""
        if isinstance(s, N.VarItems):
            return self.list_word(s)
        lay = self.lay
        obj = self.hold(self.expr(s.obj))
        return f"thing_word(S, {obj}, {s.kind}, {lay.kinds}, {lay.fields}, {lay.width}, {s.pos}, {s.fault})"

    def s_SetField(self, s):
        v = self.hold(self.expr(s.value))
        self.emit(f"S[{self.field_word(s.target)}] = {v}")

    def s_Check(self, s):
        test = self.expr(s.test)
        self.emit(f"if not {test}:")
        lines, arg = self.capture(self.expr, s.arg) if s.arg is not None else ([], str(NONE))
        self.out += _indent(lines + [f"raise EngineFault({s.fault}, {arg})"])

    def s_Collect(self, s):
        xs = self.hold(self.seq_list(s.seq))
        self.emit(f"if len(S) + len({xs}) > {self.lay.words}:")
        self.emit(f"    raise EngineFault({COPY_FAULT})")
        self.set_local(s.base, "len(S)")
        self.set_local(s.count, f"len({xs})")
        self.emit(f"S += {xs}")

    def s_Mark(self, s):
        self.set_local(s.slot, "len(S)")

    def s_Release(self, s):
        self.emit(f"del S[{self.local(s.slot)}:]")

    def move(self, what: str, d: str, dest: N.Expr, bottom: bool, fault: int) -> list[str]:
        """Thing `what` out of its zone (the items above it down one word, the freed word 0) and
        onto zone d (python_runtime's take_out and put; put on the top written out)."""
        lay = self.lay
        z, n, k = self.tmp(), self.tmp(), self.tmp()
        lines = [f"if {what} == {NONE}:", f"    raise EngineFault({fault})",
                 f"{z} = ZONE_AT[S[{lay.zone_of} + {what}]]", f"{n} = S[{z}]",  # a thing is in a zone
                 f"{k} = S.index({what}, {z} + 1, {z} + 1 + {n})", f"if {k} < {z} + {n}:",
                 f"    S[{k}:{z} + {n}] = S[{k} + 1:{z} + 1 + {n}]", f"S[{z} + {n}] = 0", f"S[{z}] = {n} - 1"]
        if bottom:
            lines.append(f"put(S, {self.zone_word(d, dest)}, {what}, True)")
        else:
            lines += [f"{z} = {self.zone_word(d, dest)}", f"{n} = S[{z}]", f"S[{z} + 1 + {n}] = {what}", f"S[{z}] = {n} + 1"]
        return lines + [f"S[{lay.zone_of} + {what}] = {d}"]

    def s_MoveOne(self, s):
        d = self.hold(self.expr(s.dest))
        what = self.tmp()
        self.emit(f"{what} = {self.expr(s.what)}")
        self.out += self.move(what, d, s.dest, s.bottom, s.fault)

    def s_MoveAll(self, s):
        xs = self.hold(self.seq_list(s.seq))
        d = self.hold(self.expr(s.dest))
        x = self.tmp()
        self.emit(f"for {x} in {'reversed(' + xs + ')' if s.bottom else xs}:")
        self.out += _indent(self.move(x, d, s.dest, s.bottom, s.fault))

    def s_Shuffle(self, s):
        zone = self.hold(self.expr(s.zone))
        if s.undecided >= 0:
            self.emit(f"decided_shuffle(S, {self.zone_word(zone, s.zone)}, {self.p.forced_at[s.forced]}, {s.undecided})")
        else:
            self.emit(f"shuffle(S, {self.zone_word(zone, s.zone)}, {self.lay.streams + s.stream})")
        self.emit("if LOG is not None:")
        self.emit(f"    LOG(S, 'shuffle', {zone})")

    def s_Create(self, s):
        lay = self.lay
        values = []
        for v, at in zip(s.fields, s.offsets):
            if isinstance(v, N.Seq):
                cap = self.p.list_caps[(s.kind, at)]
                xs = self.hold(self.seq_list(v))
                self.emit(f"if len({xs}) > {cap}:")
                self.emit(f"    raise EngineFault({s.fault + 1})")
                values.append((True, xs, at))
            else:
                values.append((False, self.hold(self.expr(v)), at))
        d = self.hold(self.expr(s.dest))
        times = self.expr(s.times) if s.times is not None else "1"
        e, r = self.tmp(), self.tmp()
        self.emit(f"for _ in range({times}):")
        body = [f"{e} = S[{H.THINGS}]", f"if {e} >= {lay.things}:", f"    raise EngineFault({s.fault})",
                f"S[{H.THINGS}] = {e} + 1", f"S[{lay.kinds} + {e}] = {s.kind}",
                f"{r} = {lay.fields} + {e} * {lay.width}"]
        for is_list, v, at in values:
            if is_list:
                body += [f"S[{r} + {at}] = len({v})", f"S[{r} + {at + 1}:{r} + {at + 1} + len({v})] = {v}"]
            else:
                body.append(f"S[{r} + {at}] = {v}")
        body += [f"put(S, {self.zone_word(d, s.dest)}, {e}, False)", f"S[{lay.zone_of} + {e}] = {d}"]
        self.out += _indent(body)

    def logged(self, fn) -> None:
        """Lines run only while a log listens, the state written back first as the log may read it."""
        self.emit("if LOG is not None:")
        lines, _ = self.capture(fn)
        self.out += _indent([f"S[{H.STEPS}] = st", *self.store(), *lines])

    def s_Say(self, s):
        """The holes are worked out with a log and without (one that draws draws either way, one
        that faults faults either way); only the log waits on a log."""
        args = [self.hold(code) for code in self.operands(s.args)]
        pairs = "(" + "".join(f"({a.ty!r}, {c}), " for a, c in zip(s.args, args)) + ")"
        self.logged(lambda: self.emit(f"LOG(S, 'say', {tuple(s.pieces)!r}, {pairs})"))

    def s_CallEvent(self, s):
        """A procedure written out at its call entered or left, told to a log (`told`)."""
        self.logged(lambda: self.emit(f"LOG(S, {s.what!r}, {s.unit})"))

    def s_Reveal(self, s):
        what = self.hold(self.expr(s.what) if s.what is not None else self.expr(s.zone))
        count = "" if s.count is None else f", {self.expr(s.count)}"
        self.logged(lambda: self.emit(f"LOG(S, 'reveal', {revealed_type(s)!r}, {what}{count})"))

    # ------------------------------------------------------------------ terminators
    def t_Jump(self, t):
        self.goto(t.target)

    def t_Branch(self, t):
        test = self.expr(t.test)
        self.emit(f"if {test}:")
        self.out += _indent(self.capture(self.goto, t.then)[0])
        self.goto(t.orelse)

    def t_Choose(self, t):
        lay = self.lay
        opts = self.tmp()
        if t.cond is None:
            xs = self.seq_list(t.seq)
            self.emit(f"{opts} = {xs}" if xs.startswith("S[") else f"{opts} = list({xs})")
        else:
            saved = self.scope()
            mark = self.n
            head, var, through = self.loop_head(t.seq, t.slot, (t.cond,))
            self.emit(f"{opts} = []")

            def each():
                self.emit(f"if {self.expr(t.cond)}:")
                self.emit(f"    {opts}.append({var})")
            # narrowing skips rounds the C engine runs: not where a round counts items
            sk = skeleton(self, t.cond, t.slot) if isinstance(t.seq, N.KindItems) and not counts_items(t.cond, self.p) \
                else None
            if sk is not None:
                narrowed_loop(self, t.seq.kind, sk, head, var, through, each)
            else:
                self.emit(head)
                self.out += _indent(through + self.capture(each)[0])
            self.restore(saved)
            self.n = mark
        if t.repeats:  # each value once, where it first comes
            self.emit(f"{opts} = list(dict.fromkeys({opts}))")
        self.emit(f"if not {opts}:")
        if t.optional or t.empty != t.next:
            def empty():
                self.set_local(t.slot, str(NONE))
                self.goto(t.empty)
            self.out += _indent(self.capture(empty)[0])
        else:
            self.emit(f"    raise EngineFault({t.nothing})")
        self.emit(f"if len({opts}) > {lay.max_options - 1}:")
        self.emit(f"    raise EngineFault({t.too_many}, len({opts}))")
        if t.optional and t.repeats:  # pass, unless an item already offers none
            self.emit(f"if {NONE} not in {opts}:")
            self.emit(f"    {opts}.append({NONE})")
        elif t.optional:
            self.emit(f"{opts}.append({NONE})")
        seat = self.tmp()
        self.emit(f"{seat} = {self.expr(t.by)}")
        self.emit(f"if not 0 <= {seat} < {self.p.seats}:")
        self.emit(f"    raise EngineFault({t.no_seat}, {seat})")
        self.emit(f"S[fp + 2] = {t.next}")
        self.answered(t, opts, seat)
        self.emit(f"S[{lay.options}:{lay.options} + len({opts})] = {opts}")
        self.emit(f"S[{H.NOPTS}] = len({opts})")
        self.emit(f"S[{H.SEAT}] = {seat}")
        self.emit(f"S[{H.SITE}] = {t.site}")
        self.emit(f"S[{H.DEST}] = fp + {FRAME_HEAD + t.slot}")
        self.emit(f"S[{H.STATUS}] = {CHOICE}")
        self.leave()  # an answer in play goes on in this function, whose registers the frame gets when it leaves
        self.emit("return")

    def answered(self, t, opts: str, seat: str) -> None:
        """While an agent answers in play (`AUTO(S, seat, k)`, python_engine.Autoplay.pick: the
        option's index, or -1 for a seat it does not play), its answer is applied here as
        PythonEngine.apply applies it, and play goes on in this function. The agent is asked
        with the frame's pc written but not the choice's other words (the options, their count,
        the seat, the site, where the answer lands: in use only while a choice waits, written
        when it does), nor the status, which only a suspension sets (play goes on, ends or
        faults, each setting it), nor the registers."""
        i = self.tmp()
        self.emit(f"if AUTO is not None and ({i} := AUTO(S, {seat}, len({opts}))) >= 0:")
        if t.slot in self.regs:  # the frame's word is written back where the function leaves
            lines = [f"l{t.slot} = {opts}[{i}]"]
        else:
            lines = [f"S[fp + {FRAME_HEAD + t.slot}] = {opts}[{i}]"]
        lines += [f"S[{H.CHOICES}] += 1", f"if S[{H.CHOICES}] > {self.p.limits['choices']}:",
                  f"    S[{H.STATUS}] = {FAULT}", f"    S[{H.FAULT}] = {CHOICE_FAULT}",
                  f"    S[{H.FAULT_A}] = S[{H.FAULT_B}] = {NONE}", "    return"]
        self.out += _indent(lines + self.resumed(t.next))

    def resumed(self, b: int) -> list[str]:
        """Where play goes on after a choice answered in play: block b written out here when it
        is small (and this is not already such a copy), until such copies have added
        COPIED_BUDGET lines to the function (a phase of 4,000 choices doubled: 250,000 lines,
        840 MB to compile), else dispatched on."""
        if not self.copying:
            self.copying = True
            try:
                lines, _ = self.capture(self.block, b)
            finally:
                self.copying = False
            if len(lines) <= min(COPIED_LINES, self.resumed_room):
                self.resumed_room -= len(lines)
                return lines
        return [f"pc = {b}", "continue"]

    def frame(self, link: str, unit: int, args: list[str]) -> list[str]:
        """Lines that put a frame of `unit` on top of the stack, its first locals `args` and the
        rest none (a constant tuple of nones, `P<n>`, that the module defines)."""
        pad = self.p.units[unit].nlocals - len(args)
        head = self.tmp()
        lines = [f"{head} = ({link}, {unit}, 0, " + "".join(a + ", " for a in args) + ")", f"S[{H.FP}] = len(S)",
                 f"S += {head}"]
        if pad:
            self.pads.add(pad)
            lines.append(f"S += P{pad}")
        return lines

    def push(self, unit: int, link: str, args: list[str], too_deep: int = DEPTH_FAULT) -> None:
        """A frame of `unit` on top of the stack, its first locals `args`; past `limit depth`, the
        fault `too_deep`."""
        callee = self.p.units[unit]
        self.emit(f"if S[{H.DEPTH}] >= {self.lay.depth}:")
        self.emit(f"    raise EngineFault({too_deep})")
        held = [self.hold(a) for a in args]
        self.emit(f"if len(S) + {FRAME_HEAD + callee.nlocals} > {self.lay.words}:")
        self.emit("    raise EngineFault(COPY_FAULT)")
        self.out += self.frame(link, unit, held)
        self.emit(f"S[{H.DEPTH}] += 1")

    def t_Call(self, t):
        if t.unit in self.direct:
            self.direct_call(t, f"S[{H.DEPTH}]", "fp")
            return
        self.emit(f"S[fp + 2] = {t.next}")
        callee = self.p.units[t.unit]
        self.emit(f"if S[{H.DEPTH}] >= {self.lay.depth}:")
        self.emit("    raise EngineFault(DEPTH_FAULT)")
        args = [self.hold(a) for a in self.operands(t.args)]
        self.emit(f"if len(S) + {FRAME_HEAD + callee.nlocals} > {self.lay.words}:")
        self.emit("    raise EngineFault(COPY_FAULT)")
        self.leave()
        self.out += self.frame("fp", t.unit, args)
        self.emit(f"S[{H.DEPTH}] += 1")
        self.told("call", t.unit)
        if not self.nested:  # the run loop runs the procedure, then this frame from `next`
            self.emit("return")
            return
        # the procedure runs from here; when it returns into this frame, so does this function
        self.emit(f"u{t.unit}(S, S[{H.FP}], 0)")
        self.emit(f"if S[{H.STATUS}] != {RUNNING} or S[{H.FP}] != fp or S[fp + 2] != {t.next}:")
        self.emit("    return  # it suspended, ended the game or went to a phase")
        self.emit(f"st = S[{H.STEPS}]")
        self.emit(f"pc = {t.next}")
        self.emit("continue")

    def direct_call(self, t, depth: str, link: str) -> None:
        """A call of a procedure that never suspends (`_Direct`): its function runs it to its
        return and play goes on here at `next`, the steps counted in `st` throughout. When it left
        for good (a `goto`, or the end of the game: -1 for the steps) this function leaves too,
        after the end writing back this frame as it would stand had the call pushed a frame.
        `depth`: the frames on the stack, this one included; `link`: where this frame starts."""
        callee = self.p.units[t.unit]
        self.emit(f"if {depth} >= {self.lay.depth}:")
        self.emit("    raise EngineFault(DEPTH_FAULT)")
        args = [self.hold(a) for a in self.operands(t.args)]
        self.emit(f"if len(S) + {FRAME_HEAD + callee.nlocals} > {self.lay.words}:")
        self.emit("    raise EngineFault(COPY_FAULT)")
        self.before_call(t)
        self.told("call", t.unit)
        self.emit(f"st = d{t.unit}(S, st, {depth} + 1, {link}" + "".join(", " + a for a in args) + ")")
        leaves = self.calls.leaves[t.unit]
        if leaves:
            self.emit("if st < 0:  # it went to a phase or ended the game")
            ended = self.capture(self.ended_in_call, t)[0]
            if leaves == {"goto"}:
                self.emit("    " + self.left)
            elif leaves == {"end"}:
                self.out += _indent(ended + [self.left])
            else:
                self.emit(f"    if S[{H.STATUS}] == {OVER}:")
                self.out += _indent(_indent(ended)) + ["    " + self.left]
        self.goto(t.next)

    def before_call(self, t) -> None:
        """Lines a direct call needs before it: in a unit that may end the game in its own frame,
        the frame's pc word `next`, as a pushed call (and the C engine's direct call) leaves it, so
        that a game ending here after the call holds the same words."""
        if self.ends_game:
            self.emit(f"S[fp + 2] = {t.next}")

    def ended_in_call(self, t) -> None:
        """The game ended in a procedure this frame called at `t`: the frame written back."""
        self.emit(f"S[fp + 2] = {t.next}")
        self.out += self.store()

    def told(self, what: str, unit: int) -> None:
        """A call of procedure `unit` (`what` is `call`), or its return (`return`), told to a
        log that listens (vbr.engines.events): the log reads no word of the state."""
        self.emit("if LOG is not None:")
        self.emit(f"    LOG(S, {what!r}, {unit})")

    def returning(self) -> None:
        """A procedure's return told to a log (`told`); a handler's, a set-up's, not."""
        if self.unit.kind == "proc":
            self.told("return", self.u)

    def t_Emit(self, t):
        oks = []
        for guard in t.guards:
            ok = self.tmp()
            self.emit(f"{ok} = {self.expr(guard) if guard is not None else 'True'}")
            oks.append(ok)
        self.emit(f"S[fp + 2] = {t.next}")
        self.leave()
        args = [self.local(a) for a in t.args]
        for i in reversed(range(len(t.handlers))):
            self.emit(f"if {oks[i]}:")
            lines, _ = self.capture(self.push, t.handlers[i], f"S[{H.FP}]", args, t.depth_fault)
            self.out += _indent(lines)
        self.emit("return")

    def t_Return(self, t):
        value = self.expr(t.value) if t.value is not None else str(NONE)
        self.emit(f"S[{H.RETURNED}] = {value}")
        self.returning()
        self.emit(f"S[{H.FP}] = S[fp]")
        self.emit("del S[fp:]")
        self.emit(f"S[{H.DEPTH}] -= 1")
        self.emit(f"S[{H.STEPS}] = st")
        self.emit("return")

    def t_ReturnList(self, t):
        base, n = self.list_returned(t)
        self.returning()
        self.emit(f"S[{H.FP}] = S[fp]")
        self.emit(f"S[fp:] = S[{base}:{base} + {n}]")
        self.emit(f"S[{H.DEPTH}] -= 1")
        self.emit(f"S[{H.STEPS}] = st")
        self.emit("return")

    def list_returned(self, t) -> tuple[str, str]:
        """A `ReturnList`'s start and count, held; more items than its bound fault here."""
        base, n = self.hold(self.expr(t.base)), self.hold(self.expr(t.count))
        self.emit(f"if {n} > {t.bound}:")
        self.emit(f"    raise EngineFault({t.fault}, {n})")
        self.emit(f"S[{H.RETURNED}] = {n}")
        return base, n

    def t_Goto(self, t):
        self.logged(lambda: self.emit(f"LOG(S, 'phase', {t.unit})"))
        self.emit(f"del S[{self.lay.stack}:]")
        self.out += self.frame("-1", t.unit, [])
        self.emit(f"S[{H.DEPTH}] = 1")
        self.emit(f"S[{H.STEPS}] = st")
        self.emit(self.left)

    def t_End(self, t):
        if t.winner is None:
            self.emit(f"S[{H.WINNER}] = {NONE}")
        else:
            w = self.hold(self.expr(t.winner))
            n = len(self.p.teams) if t.team else self.p.seats
            self.emit(f"if not 0 <= {w} < {n}:")
            self.emit(f"    raise EngineFault({t.fault}, {w})")
            if t.team:
                voices = tuple(ts[0] if ts else NONE for ts in self.p.teams)
                self.emit(f"S[{H.WINNER}] = {voices!r}[{w}]")
                self.emit(f"S[{H.WINNER_TEAM}] = {w} + 1")
            else:
                self.emit(f"S[{H.WINNER}] = {w}")
        self.emit(f"S[{H.STATUS}] = {OVER}")
        self.leave()
        self.emit(self.left)

    def t_Fail(self, t):
        self.emit(f"raise EngineFault({t.fault})")


class _Direct(_Unit):
    """A procedure that never suspends (`DirectCalls.direct`) as the function `d<unit>(S, st, dp,
    link, l0, l1, ...)`, which its callers call to run it to its return: `st` the steps so far,
    `dp` the frames on the stack with its own, `link` where its caller's frame starts, then its
    parameters. It returns the steps, or -1 when it went to a phase or ended the game.
    Its locals are Python variables; no frame is pushed, but while it runs the stack holds as
    many words as its frame would (a padded procedure's frame starts at `b`), so lists copied
    onto the stack lie where they would, and when the game ends in it (or in what it calls)
    each frame of the call is written there as it would stand. A fault raised in it places a
    frame of its unit on top, so a limit of the whole game is located at its rule."""

    left = "return -1"

    def __init__(self, p: N.Program, u: int, pads: set[int], zone_kinds: list[frozenset[int]], calls: DirectCalls,
                 vars_nn: frozenset[int], ranges: ValueRanges):
        blocks = p.units[u].blocks
        self.padded = u in calls.padded
        self.size = FRAME_HEAD + p.units[u].nlocals
        self.tracks_pc = any(isinstance(b.term, N.End) for b in blocks) and any(isinstance(b.term, N.Call) for b in blocks)
        super().__init__(p, u, pads, zone_kinds, calls, vars_nn, ranges)  # which writes blocks (_copy_small_joins)

    def _registers(self) -> list[int]:
        """Every local it reads or writes, and its parameters."""
        used = set(range(self.unit.nparams))
        for block in self.unit.blocks:
            for x in [*block.stmts, block.term]:
                used.update(_slot_refs(x))
        return sorted(used)

    def function(self) -> str:
        body = []
        saved, self.out = self.out, body
        self.dispatch(sorted(self.labels))
        self.out = saved
        nparams = self.unit.nparams
        head = [f"def d{self.u}(S, st, dp, link" + "".join(f", l{s}" for s in range(nparams)) + "):"]
        fresh = [f"l{s}" for s in self.regs if s >= nparams]
        lines = [" = ".join(fresh) + f" = {NONE}"] if fresh else []
        if self.tracks_pc:
            lines.append("pw = 0")
        if self.padded:
            self.pads.add(self.size)
            lines += ["b = len(S)", f"S += P{self.size}"]
            place = [f"S[b:b + {self.size}] = {self.frame_words('pw' if self.tracks_pc else '0')}", f"S[{H.FP}] = b"]
        else:
            place = [f"S[{H.FP}] = len(S)", f"S += {self.frame_words('0')}"]
        if len(self.labels) > 1 or self.preds[0]:
            body = ["pc = 0", "while True:", *_indent(body)]
        lines += ["try:", *_indent(body), "except EngineFault as e:", "    if not e.placed:", "        e.placed = True",
                  f"        S[{H.STEPS}] = st", *_indent(_indent(place)), f"        S[{H.DEPTH}] = dp", "    raise"]
        return "\n".join(head + _indent(lines))

    def frame_words(self, pc: str) -> str:
        """Its frame's words as a tuple: the link, the unit, the pc word `pc`, the locals."""
        regs = set(self.regs)
        words = ["link", str(self.u), pc] + [f"l{s}" if s in regs else str(NONE) for s in range(self.unit.nlocals)]
        return "(" + ", ".join(words) + ")"

    def store(self, slots=None) -> list[str]:
        return []  # no frame to write back to while it runs

    def leave(self) -> None:
        """The game ends here: the steps, and its frame as it stands, on top of the stack."""
        self.emit(f"S[{H.STEPS}] = st")
        self.emit(f"S[b:b + {self.size}] = {self.frame_words('pw' if self.tracks_pc else '0')}")
        self.emit(f"S[{H.FP}] = b")
        self.emit(f"S[{H.DEPTH}] = dp")

    def t_Call(self, t):
        self.direct_call(t, "dp", "b")

    def before_call(self, t) -> None:
        if self.tracks_pc:
            self.emit(f"pw = {t.next}")  # the pc word a frame holds from its call on

    def ended_in_call(self, t) -> None:
        self.emit(f"S[b:b + {self.size}] = {self.frame_words(str(t.next))}")

    def t_Return(self, t):
        value = self.expr(t.value) if t.value is not None else str(NONE)
        self.emit(f"S[{H.RETURNED}] = {value}")
        self.returning()
        if self.padded:
            self.emit("del S[b:]")
        self.emit("return st")

    def t_ReturnList(self, t):
        base, n = self.list_returned(t)
        self.returning()
        self.emit(f"S[b:] = S[{base}:{base} + {n}]")  # a unit giving a list copies it first: padded
        self.emit("return st")


class _FnBody(_Unit):
    """A heavy fn's body (`Program.fns`) as the function `f<k>(S, fp, a0, a1, ...)` giving its
    value for the arguments a0, a1, ...: its locals are Python variables, never its block's words.
    Every call leaves its block all none (FnCall), so what the body would write there is seen by
    no one (after a fault the words are not looked at): `x_FnCall` leaves the block's words none
    without writing them one by one."""

    def __init__(self, p: N.Program, k: int, zone_kinds: list[frozenset[int]], vars_nn: frozenset[int],
                 ranges: ValueRanges):
        WordSource.__init__(self, p, ranges)
        self.k, self.zone_kinds, self.vars_nn = k, zone_kinds, vars_nn
        self.out, self.known_kind, self.kind_words, self.memo = [], {}, {}, {}
        self.param_checks = {}
        self.alias = {i: f"a{i}" for i in range(p.fns[k].nparams)}
        self.regs, self.slots_nn, self.dirty, self.current = [], set(), [set()], 0

    def function(self) -> str:
        body = self.p.fns[self.k].body
        self.kinds_read_once(body)
        for group in _same_values(body, self.p.fns[self.k].nparams, self.p):
            name = self.fresh("c")
            self.emit(f"{name} = None")
            for x in group:
                self.memo[id(x)] = name
        value = self.expr(body)
        params = "".join(f", a{i}" for i in range(self.p.fns[self.k].nparams))
        return "\n".join([f"def f{self.k}(S, fp{params}):", *_indent(self.out), f"    return {value}"])

    def kinds_read_once(self, body: N.Expr) -> None:
        """A parameter holding a thing (or none) whose fields the body reads more than once:
        its kind is read once, on entry (-1 for none), and with it, whether it is of each kind a
        field read asks for and where its words begin: each field read tests a flag."""
        nparams = self.p.fns[self.k].nparams
        param = {i: i for i in range(nparams)}  # a local -> the parameter it is bound to
        for n in N.walk(body):
            if isinstance(n, N.Bind) and isinstance(n.value, N.Local) and n.value.slot in param:
                param[n.slot] = param[n.value.slot]
        reads = [(param[n.obj.slot], n.kind) for n in N.walk(body) if isinstance(n, N.Field)
                 and isinstance(n.obj, N.Local) and n.obj.slot in param and n.obj.ty.startswith("ent")]
        for i in sorted({i for i, _ in reads}):
            if sum(j == i for j, _ in reads) >= 2:
                self.emit(f"k{i} = S[{self.lay.kinds} + a{i}] if a{i} != {NONE} else -1")
                self.kind_words[f"a{i}"] = f"k{i}"
                self.emit(f"o{i} = a{i} * {self.lay.width}")  # read only once the kind is the field's
                flags = {}
                for kind in sorted({kind for j, kind in reads if j == i}):
                    flags[kind] = f"q{i}_{kind}"
                    self.emit(f"{flags[kind]} = k{i} == {kind}")
                self.param_checks[f"a{i}"] = (f"o{i}", flags)

    def set_local(self, slot: int, code: str) -> None:
        self.emit(f"s{slot} = {code}")
        self.alias[slot] = f"s{slot}"

    def bind(self, slot: int, code: str) -> None:
        if _simple(code):  # no construct reassigns a name while a binding to it lasts
            self.alias[slot] = code
            return
        v = self.alias[slot] = self.tmp()
        self.emit(f"{v} = {code}")

    def bound_var(self, slot: int) -> tuple[str, list[str]]:
        v = self.alias[slot] = self.tmp()
        return v, []

    def pay(self, steps: int) -> None:
        raise AssertionError("a heavy fn's call from inside a fn pays no steps (build_expr.py)")
