"""The values each var and local of a program can hold, as a range lo..hi of words: what lets
an engine leave out an index's test (`Global`, `ZoneAt`, `Lookup`, ...) or an arithmetic's
overflow test where the ranges of its operands prove that it cannot fail.

None is the word NONE, below every number: a range that reaches down to it may give none. A var
holds what a `SetGlobal` writes into it (kept within the var's own range when it has one) or the
0 it starts with; a local holds what its unit's `SetLocal`, `Bind`, `BindSeq` write (read after
a write, as vbr.ir.never_none takes it too), the items of what an aggregate, a comprehension or
a `choose` goes through (and none, where a choice may be passed or find nothing), or, for a parameter, the arguments
of every `Call` and `Emit` of it. Anything this module does not follow (a field, a call's
result, a list's item on the stack, a heavy fn's locals) may be any value (ANY). The ranges are
the least ones every write keeps, found by going over the writes until nothing grows; a slot
that keeps growing (a counter) has its growing end taken as far as it goes after a few rounds, so
the search ends.
"""
from __future__ import annotations

from dataclasses import dataclass

from vbr.ir import nodes as N
from vbr.ir.values import INT_MAX, NONE

Range = tuple[int, int]  # lo..hi, both included, as words (NONE the lowest); None: no value at all
NUMBERS: Range = (-INT_MAX, INT_MAX)  # the language's numbers
ANY: Range = (NONE, INT_MAX)  # any value, none too
GROWTHS = 4  # how often a slot's range may grow before it is taken to be ANY
ROUNDS = 64  # rounds over the writes before every range is taken to be ANY

_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def join(a: Range | None, b: Range | None) -> Range | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a[0], b[0]), max(a[1], b[1])


def _widened(old: Range | None, new: Range) -> Range:
    """`new`, each end that moved past `old`'s taken as far as it goes (a counter's top: INT_MAX)."""
    if old is None:
        return ANY
    return (NONE if new[0] < old[0] else new[0]), (INT_MAX if new[1] > old[1] else new[1])


def _clip(lo: int, hi: int) -> Range | None:
    """The numbers of lo..hi: an operand of none, or a result beyond the language's numbers,
    faults instead of giving a value."""
    lo, hi = max(lo, -INT_MAX), min(hi, INT_MAX)
    return (lo, hi) if lo <= hi else None


def numbers(r: Range | None) -> Range | None:
    return None if r is None else _clip(*r)


def arith(op: str, a: Range, b: Range) -> tuple[int, int]:
    """The exact range of `a op b` for op in + - * (it may pass the language's numbers)."""
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    ends = [x * y for x in a for y in b]
    return min(ends), max(ends)


class ValueRanges:
    """The ranges of a program's vars and of each unit's locals, and of any expression of it."""

    def __init__(self, program: N.Program):
        self.p = program
        self.vars: dict[int, Range] = {}  # a var's base -> its range (every slot of a var per seat)
        self.slots: list[dict[int, Range]] = [{} for _ in program.units]  # unit -> local -> range
        self._writes = _Writes(program)
        self._solve()

    def of(self, e: N.Expr, unit: int | None) -> Range | None:
        """The range of `e`'s values, its locals those of unit `unit` (None: of a heavy fn's
        body, whose locals may hold anything); None when it never gives a value."""
        return _Ranges(self, unit).of(e)

    def stacked(self, unit: int | None, slot: int) -> list[N.Seq] | None:
        """The seqs whose items local `slot` of `unit` points at, when only Collects write it."""
        return None if unit is None else self._writes.stacked[unit].get(slot)

    def within(self, e: N.Expr, unit: int | None, lo: int, hi: int) -> bool:
        """Whether every value `e` gives lies in lo..hi (for lo above NONE: it never gives none)."""
        r = self.of(e, unit)
        return r is not None and lo <= r[0] and r[1] <= hi

    def arith_ends(self, e: N.Binary, unit: int | None) -> tuple[bool, bool]:
        """(whether the result of `e` (+ - *) on numbers may fall below the language's numbers,
        whether it may rise above them): the ends its overflow test must look at."""
        a, b = numbers(self.of(e.left, unit)), numbers(self.of(e.right, unit))
        if a is None or b is None:
            return True, True
        lo, hi = arith(e.op, a, b)
        return lo < -INT_MAX, hi > INT_MAX

    def _solve(self) -> None:
        growths: dict[tuple, int] = {}
        for _ in range(ROUNDS):
            grown = False
            for key, found in self._writes.ranges(self):
                now = self._get(key)
                new = join(now, found)
                if new != now:
                    growths[key] = growths.get(key, 0) + 1
                    self._set(key, _widened(now, new) if growths[key] > GROWTHS else new)
                    grown = True
            if not grown:
                return
        self.vars = {base: ANY for base in self.vars}
        self.slots = [{slot: ANY for slot in slots} for slots in self.slots]

    def _get(self, key: tuple) -> Range | None:
        return self.vars.get(key[1], (0, 0)) if key[0] is None else self.slots[key[0]].get(key[1])

    def _set(self, key: tuple, r: Range) -> None:
        if key[0] is None:
            self.vars[key[1]] = r
        else:
            self.slots[key[0]][key[1]] = r


class _Writes:
    """Every write of a program into a var or a local, as (key, how its range is found): key
    (None, base) for a var, (unit, slot) for a local."""

    def __init__(self, p: N.Program):
        self.found: list[tuple[tuple, object]] = []
        self.stacked: list[dict[int, list[N.Seq]]] = []  # per unit: a local only Collects write -> their seqs
        for u, unit in enumerate(p.units):
            below = _below_tests(unit)
            collects: dict[int, list[N.Seq]] = {}
            others: set[int] = set()
            for block in unit.blocks:
                for x in [*block.stmts, block.term]:
                    for n in N.walk(x):
                        self._write(u, below.get(id(n), n))
                        if isinstance(n, N.Collect):
                            collects.setdefault(n.base, []).append(n.seq)
                            others.add(n.count)
                        else:
                            others.update(_slots_written(n))
            self.stacked.append({slot: seqs for slot, seqs in collects.items() if slot not in others})

    def _write(self, u: int, n) -> None:
        add = self.found.append
        if isinstance(n, N.SetGlobal):
            add(((None, n.target.base), (u, n)))
        elif isinstance(n, (N.SetLocal, N.Bind, N.BindSeq, _Below)):
            add(((u, n.slot), (u, n.value)))
        elif isinstance(n, N.Aggregate):
            add(((u, n.slot), (u, n.seq)))
        elif isinstance(n, N.Comprehension):
            add(((u, n.slot), (u, n.source)))
        elif isinstance(n, N.Choose):
            add(((u, n.slot), (u, n.seq)))
            if n.optional or n.empty != n.next:  # passed, or nothing to choose and an `else`
                add(((u, n.slot), (u, N.Const("int", NONE))))
        elif isinstance(n, N.Call):
            for i, a in enumerate(n.args):
                add(((n.unit, i), (u, a)))
            if n.result is not None:
                add(((u, n.result), ANY))
        elif isinstance(n, N.Emit):
            for h in n.handlers:
                for i, slot in enumerate(n.args):
                    add(((h, i), (u, N.Local("int", slot))))
        elif isinstance(n, N.Collect):
            add(((u, n.base), ANY))
            add(((u, n.count), ANY))
        elif isinstance(n, N.Mark):
            add(((u, n.slot), ANY))

    def ranges(self, vr: ValueRanges):
        """(key, the range of what is written there) per write, as the ranges stand now."""
        for key, how in self.found:
            if how is ANY:
                yield key, ANY
                continue
            u, what = how
            ranges = _Ranges(vr, u)
            if isinstance(what, N.SetGlobal):
                yield key, ranges.set_global(what)
            elif isinstance(what, N.Seq):
                yield key, ranges.items(what)
            else:
                yield key, ranges.of(what)


@dataclass(eq=False)
class _Below:
    """`SetLocal(slot, Local(i))` where `i < bound` (or `<=` when not `strict`) is known to hold:
    the first statements of a block entered only where a branch found it so (a `for` over a
    range sets its name from its counter so)."""
    slot: int
    value: "_Bounded"


@dataclass(eq=False)
class _Bounded:
    local: N.Local
    bound: N.Expr
    strict: bool


def _below_tests(unit: N.Unit) -> dict[int, _Below]:
    """The `_Below`s of a unit, by the id of the SetLocal each stands for."""
    entered: dict[int, int] = {}
    for block in unit.blocks:
        for b in _targets(block.term):
            entered[b] = entered.get(b, 0) + 1
    found = {}
    for block in unit.blocks:
        t = block.term
        if not (isinstance(t, N.Branch) and isinstance(t.test, N.Binary) and t.test.op in ("<", "<=")
                and isinstance(t.test.left, N.Local) and t.then != 0 and entered.get(t.then) == 1):
            continue
        i = t.test.left
        for s in unit.blocks[t.then].stmts:
            if not (isinstance(s, N.SetLocal) and isinstance(s.value, N.Local) and s.value.slot == i.slot
                    and s.slot != i.slot):
                break
            found[id(s)] = _Below(s.slot, _Bounded(i, t.test.right, t.test.op == "<"))
    return found


def _targets(t: N.Term) -> list[int]:
    """Every block a terminator may go on to, or resume at."""
    return [v for name in ("target", "then", "orelse", "next", "empty") if isinstance(v := getattr(t, name, None), int)]


def _slots_written(n) -> list[int]:
    """The locals a node writes (a Collect's aside)."""
    if isinstance(n, (N.SetLocal, N.Bind, N.BindSeq, N.Aggregate, N.Comprehension, N.Choose, N.Mark)):
        return [n.slot]
    if isinstance(n, N.Call) and n.result is not None:
        return [n.result]
    return []


class _Ranges:
    """Ranges of expressions and of sequences' items, in one unit (None: a heavy fn's body)."""

    def __init__(self, vr: ValueRanges, unit: int | None):
        self.vr, self.unit, self.p = vr, unit, vr.p

    def of(self, e: N.Expr) -> Range | None:
        rule = getattr(self, "x_" + type(e).__name__, None)
        return ANY if rule is None else rule(e)

    def set_global(self, s: N.SetGlobal) -> Range | None:
        r = self.of(s.value)
        if s.lo is None or r is None:
            return r
        kept = (s.lo, s.hi) if s.wrap_to is None else join((s.lo, s.hi), (s.wrap_to, s.wrap_to))
        return join(kept, (NONE, NONE)) if r[0] == NONE else kept  # none is kept as it is

    def x_Const(self, e):
        return e.value, e.value

    def x_Local(self, e):
        if self.unit is None:
            return ANY
        return self.vr.slots[self.unit].get(e.slot)

    def x__Bounded(self, e):
        r, bound = self.of(e.local), self.of(e.bound)
        if r is None or bound is None:
            return r
        top = bound[1] - 1 if e.strict else bound[1]
        return (r[0], min(r[1], top)) if r[0] <= top else None

    def x_StackAt(self, e):  # an item of a list a Collect copied
        seqs = self.vr.stacked(self.unit, e.base)
        if seqs is None:
            return ANY
        found = None
        for seq in seqs:
            found = join(found, self.items(seq))
        return found

    def x_ZoneAt(self, e):  # an index out of range faults
        return e.base, e.base + e.count - 1

    def x_Global(self, e):
        return self.vr.vars.get(e.base, (0, 0))

    def x_Known(self, e):  # none faults
        return numbers(self.of(e.value))

    def x_Bind(self, e):
        return self.of(e.body)

    def x_IfElse(self, e):
        return join(self.of(e.then), self.of(e.orelse))

    def x_Unary(self, e):
        if e.op == "not":
            return 0, 1
        r = numbers(self.of(e.operand))
        return None if r is None else (-r[1], -r[0])

    def x_Binary(self, e):
        if e.op in _COMPARISONS:
            return 0, 1
        a, b = self.of(e.left), self.of(e.right)
        if e.op in ("and", "or"):  # either operand's value
            return join(a, b)
        a, b = numbers(a), numbers(b)
        if a is None or b is None:  # none, or no value: a fault
            return None
        if e.op in ("+", "-", "*"):
            return _clip(*arith(e.op, a, b))
        if isinstance(e.right, N.Const) and e.right.value != 0:
            c = e.right.value
            if e.op == "%":  # the divisor's sign
                return (0, c - 1) if c > 0 else (c + 1, 0)
            if e.op == "/":  # rounding down keeps the order (reversed by c < 0)
                ends = (a[0] // c, a[1] // c)
                return _clip(min(ends), max(ends))
        return NUMBERS

    def x_Builtin(self, e):
        p = self.p
        if e.name == "other":
            return 0, 1
        if e.name == "next_seat":
            return 0, p.seats - 1
        if e.name == "team_of":
            return 0, len(p.teams) - 1
        if e.name == "abs":
            r = numbers(self.of(e.args[0]))
            return None if r is None else (0 if r[0] <= 0 <= r[1] else min(abs(r[0]), abs(r[1])),
                                           max(abs(r[0]), abs(r[1])))
        return ANY

    def x_Lookup(self, e):  # an index out of the table gives none when it does not fault
        return join(_spread(e.table), (NONE, NONE) if e.fault < 0 else None)

    def x_Roll(self, e):
        return _spread(self.p.dice[e.die])

    def x_Pick(self, e):  # none from no items
        return join(self.items(e.seq), (NONE, NONE))

    def x_ItemAt(self, e):
        return self.items(e.seq)

    def x_Aggregate(self, e):
        if e.agg in ("any", "all"):
            return 0, 1
        if e.agg == "count":
            return 0, INT_MAX
        if e.agg in ("max", "min"):  # none from no items
            return join(self.of(e.body), (NONE, NONE))
        return ANY

    def x_Contains(self, e):
        return 0, 1

    def x_SeqEqual(self, e):
        return 0, 1

    def items(self, seq: N.Seq) -> Range | None:
        """The range of a sequence's items."""
        if isinstance(seq, N.Items):
            found = None
            for x in seq.items:
                found = join(found, self.of(x))
            return found
        if isinstance(seq, N.RangeItems):  # ends of none fault
            lo, hi = numbers(self.of(seq.lo)), numbers(self.of(seq.hi))
            return None if lo is None or hi is None else (lo[0], hi[1])
        if isinstance(seq, N.TableItems):
            return _spread([v for row in seq.rows for v in row])
        if isinstance(seq, N.ChooseSeq):
            return join(self.items(seq.then), self.items(seq.orelse))
        if isinstance(seq, N.BindSeq):
            return self.items(seq.body)
        if isinstance(seq, N.Comprehension):
            return self.of(seq.body)
        return ANY


def _spread(values) -> Range | None:
    values = list(values)
    return (min(values), max(values)) if values else None
