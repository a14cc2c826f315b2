"""The values fixed before play: each const's, and each die's faces, worked out from the text.

Before play there is no game: every var reads none, every zone is empty and holds nothing that
can be looked up, no kind has a thing, and nothing may roll or pick. A value that cannot be
worked out so gives the reason (`Constants.const`, `Constants.faces`), the same words play would
fail with. What this evaluator does not follow (court geometry) is taken as fixed and unknown:
no reason is given for it, and the typed program works it out itself.
"""
from __future__ import annotations

from vbr import limits as LIM
from vbr.checker import Model
from vbr.checking import types as T
from vbr.grammar import ast as A

INT_MAX = LIM.MAX_INT
_FOLDED_RANGE = 10_000  # a range with fixed ends and fewer numbers costs no steps


class Failure(Exception):
    """Working a value out failed: the reason, as play would give it."""


class Unknown(Exception):
    """A value this evaluator does not work out (the court's geometry)."""


class ZoneRef(int):
    """A zone by slot (all empty before play); named as play's zone values are, for the messages."""


_SCRATCH_ZONES: list = []  # the zones' contents before play: indexing it fails as play's would


class Constants:
    """The consts' values and the dice's faces of model `m`, each worked out once."""

    def __init__(self, m: Model):
        self.m = m
        self.values: dict[str, object] = {}  # const -> value, or Unknown
        self.dice: dict[str, tuple] = {}  # die -> faces, for each die whose faces are known
        self.die_types: dict[str, str] = {}  # die -> type of a face, for each such die
        self.calls: dict[tuple, tuple] = {}  # (fn, its arguments) -> (its value, the steps working it out spent)

    def const(self, name: str) -> str | None:
        """Why const `name` cannot be worked out before play, or None when it can."""
        try:
            self.values[name] = Evaluator(self).value(self.m.consts[name].value, {})
        except Unknown:
            self.values[name] = Unknown
        except Exception as exc:  # noqa: BLE001 — a Failure, or what play would fail with too (`none + 1`)
            self.values[name] = Unknown  # its failure is reported at it, not again at each const it is read by
            return str(exc)
        return None

    def faces(self, name: str) -> tuple | None:
        """Die `name`'s faces (None when this evaluator does not work them out). Raises Failure
        with the reason when they cannot be worked out."""
        try:
            return tuple(Evaluator(self).value(self.m.dice[name].faces, {}))
        except Unknown:
            return None
        except Failure:
            raise
        except Exception as exc:  # noqa: BLE001 — as for a const
            raise Failure(str(exc)) from exc

    def keep_die(self, name: str, faces: tuple | None, item: str) -> None:
        """Die `name` may be rolled: its faces are known (or fixed and unknown here)."""
        self.dice[name] = faces
        self.die_types[name] = item


def read_in_play(m: Model, e: A.Expr, bound: frozenset = frozenset(), seen: frozenset = frozenset(),
                 fns: dict | None = None):
    """The first node of `e` that play changes or draws: a roll, a pick, or a var, zone or kind
    read by name (a name `bound` by a parameter or a comprehension is none of these), looked for
    in `e` and in the body of every fn it calls, each once (`fns`: what each fn looked at gave,
    so that fns each calling the one before twice are looked at once each, not 2^n times).
    Gives (node, fn) with the fn of `e` it was found through (None when in `e` itself), or None
    when `e` is fixed before play."""
    fns = {} if fns is None else fns
    todo = [(e, bound)]
    while todo:
        n, names = todo.pop()
        if isinstance(n, (A.Roll, A.Pick)):
            return n, None
        if isinstance(n, A.Name) and n.id not in names and (n.id in m.vars or n.id in m.zones or n.id in m.kinds):
            return n, None
        if isinstance(n, A.Comprehension):
            inner = names | {n.var}
            todo += [(n.source, names), (n.body, inner)] + ([(n.filter, inner)] if n.filter is not None else [])
            continue
        if isinstance(n, A.Call) and n.func in m.fns and n.func not in seen:
            if n.func not in fns:
                fn = m.fns[n.func]
                fns[n.func] = read_in_play(m, fn.body, frozenset(p.name for p in fn.params), seen | {n.func}, fns)
            found = fns[n.func]
            if found is not None:
                return found[0], n.func
        todo += [(c, names) for c in n.children()]
    return None


def _iterable(v):
    if type(v) is ZoneRef:
        return _SCRATCH_ZONES[v]
    return v


class Evaluator:
    """One expression's value before play; `env` holds the names a comprehension or a fn binds."""

    def __init__(self, c: Constants):
        self.c, self.m = c, c.m
        self.calling: set[str] = set()  # fns being evaluated: a call of one again is reported elsewhere
        self.steps = 0  # the work of this one value, bounded by the game's step limit

    def value(self, e: A.Expr, env: dict):
        return getattr(self, "v_" + type(e).__name__, self.v_unknown)(e, env)

    def v_unknown(self, e, env):
        raise Unknown

    def v_IntLit(self, e, env):
        return e.value

    v_BoolLit = v_StrLit = v_IntLit

    def v_NoneLit(self, e, env):
        return None

    def spend(self, n: int) -> None:
        self.steps += n
        if self.steps > self.m.limits["steps"]:
            raise Failure("step limit")

    def v_Name(self, e: A.Name, env: dict):
        name, m = e.id, self.m
        if name in env:
            return env[name]
        if name in m.vars:
            v = m.vars[name]
            return (None,) * v.count if v.per else None
        if name in m.consts:
            if name not in self.c.values:
                return None  # defined through itself: reported where it is named
            value = self.c.values[name]
            if value is Unknown:
                raise Unknown
            return value
        if name in m.options:
            return m.options[name]
        if name in m.member_enum or name in m.directions:
            return name
        if name in m.zones:
            z = m.zones[name]
            return tuple(ZoneRef(z.base + i) for i in range(z.count)) if z.per else ZoneRef(z.base)
        if name in m.enums:
            return tuple(m.enums[name])
        if name in m.kinds:
            return ()
        if name == "seats":
            return tuple(range(m.seats))
        if name == "teams":
            return tuple(range(len(m.teams)))
        return None  # a name that is no value: reported where it is written

    def v_Attr(self, e: A.Attr, env):
        x = self.value(e.obj, env)
        if x is None:
            raise Failure(f"`.{e.name}` of none")
        return [][x]  # no thing exists before play

    def v_Index(self, e: A.Index, env):
        if isinstance(e.obj, A.Name) and e.obj.id not in env:
            name = e.obj.id
            slotted = self.m.vars.get(name) or self.m.zones.get(name)
            if slotted is not None and (slotted.per or T.item_type(slotted.type) is None or name in self.m.zones):
                if not slotted.per:
                    return None  # reported where it is written
                i, n = self.value(e.index, env), slotted.count
                if i is None or not 0 <= i < n:
                    raise Failure(f"`{name}[{i}]`: index out of range 0..{n - 1}")
                return ZoneRef(slotted.base + i) if name in self.m.zones else None
        xs, i = self.value(e.obj, env), self.value(e.index, env)
        if not 0 <= i < len(xs):
            raise Failure(f"list index {i} out of range 0..{len(xs) - 1}")
        return xs[i]

    def v_ListLit(self, e: A.ListLit, env):
        return tuple(self.value(x, env) for x in e.items)

    def v_RangeExpr(self, e: A.RangeExpr, env):
        lo, hi = self.value(e.lo, env), self.value(e.hi, env)
        if lo is None or hi is None:
            raise Failure("this end of a range is none, not a number")  # play's words
        fixed = all(isinstance(x, A.IntLit) or (isinstance(x, A.Name) and x.id in self.m.options and x.id not in env
                                                and x.id not in self.m.vars) for x in (e.lo, e.hi))
        if fixed and type(lo) is int and type(hi) is int and hi - lo < _FOLDED_RANGE:
            return tuple(range(lo, hi + 1))
        n = hi - lo + 1
        if n > LIM.MAX_LITERAL_RANGE:
            raise Failure(f"the range {lo}..{hi} holds {n} numbers; a range holds at most {LIM.MAX_LITERAL_RANGE}")
        if n > 0:
            self.spend(n)
        return tuple(range(lo, hi + 1))

    def v_Unary(self, e: A.Unary, env):
        v = self.value(e.operand, env)
        if e.op != "not" and v is None:
            raise Failure("arithmetic on none")  # play's words
        return (not v) if e.op == "not" else -v

    def v_Binary(self, e: A.Binary, env):
        op = e.op
        a = self.value(e.left, env)
        if op == "and":
            return a and self.value(e.right, env)
        if op == "or":
            return a or self.value(e.right, env)
        b = self.value(e.right, env)
        if op in ("in", "not in"):
            inside = _contains(a, b)
            return inside if op == "in" else not inside
        if (a is None or b is None) and op not in ("==", "!="):
            raise Failure("arithmetic on none" if op in "+-*/%" else f"`{op}` compares numbers, not none")
        return _OPS[op](a, b)

    def v_Cond(self, e: A.Cond, env):
        return self.value(e.then, env) if self.value(e.test, env) else self.value(e.orelse, env)

    def v_Comprehension(self, e: A.Comprehension, env):
        items = self.value(e.source, env)
        if items is None:
            raise Failure("cannot iterate over none")
        items = _iterable(items)
        self.spend(len(items))
        out = self._bodies(e, items, env)  # each body only when asked for, as play goes through them
        if e.agg == "sum":
            return _checked(sum(out))
        if e.agg in ("any", "all"):
            return any(out) if e.agg == "any" else all(out)
        return next(out, None) if e.agg == "first" else tuple(out)

    def _bodies(self, e: A.Comprehension, items, env):
        for x in items:
            inner = {**env, e.var: x}
            if e.filter is None or self.value(e.filter, inner):
                yield self.value(e.body, inner)

    def v_Roll(self, e: A.Roll, env):
        if e.die not in self.c.dice:
            return None
        raise Failure("a constant cannot roll dice")

    def v_Pick(self, e: A.Pick, env):
        tuple(_iterable(self.value(e.source, env)))
        raise Failure("a constant cannot pick at random")

    def v_Call(self, e: A.Call, env):
        if e.func in self.m.fns:
            d = self.m.fns[e.func]
            if len(e.args) != len(d.params) or d.name in self.calling:
                return None  # reported where it is written
            args = [self.value(a, env) for a in e.args]
            return self._fn_value(d, args)
        rule = _BUILTINS.get(e.func)
        if rule is None:
            raise Unknown
        args = [self.value(a, env) for a in e.args]
        try:
            return rule(self.m, *args)
        except TypeError:  # the arguments' types are checked: only a none gets here
            raise Failure(f"`{e.func}` of none") from None

    def _fn_value(self, d: A.Fn, args: list):
        """Fn `d`'s value for these arguments: worked out once for the whole model (a fn reads
        nothing but its arguments, consts and options before play), each later call spending
        the steps the first spent. 5,000 consts each calling a fn of 50,000 nodes written out (two
        calls of the fn before it in each of its 11 levels) took a minute a thousand consts."""
        try:
            key = (d.name, *((type(a), a) for a in args))  # `true` is equal to 1, a zone to its number
            known = self.c.calls.get(key)
        except TypeError:  # a list among the arguments
            key = known = None
        if known is not None:
            self.spend(known[1])
            return known[0]
        before = self.steps
        self.calling.add(d.name)
        try:
            value = self.value(d.body, {p.name: a for p, a in zip(d.params, args)})
        finally:
            self.calling.discard(d.name)
        if key is not None:
            self.c.calls[key] = (value, self.steps - before)
        return value


def _in_range(v):
    """An operation's result, which must be an integer of the language (as play's `add`)."""
    if -INT_MAX <= v <= INT_MAX:
        return v
    raise Failure(f"the number {v} is out of the range of integers (-{INT_MAX}..{INT_MAX})")


def _checked(v):
    if type(v) is int and not -INT_MAX <= v <= INT_MAX:
        raise Failure(f"the number {v} is out of the range of integers (-{INT_MAX}..{INT_MAX})")
    return v


def _number(x):
    if x is None or isinstance(x, (str, tuple)):
        raise Failure(f"expected a number, got {x!r}")
    return x


def _divide(x, y):
    x, y = _number(x), _number(y)
    if y == 0:
        raise Failure("division by zero")
    return x // y


def _remainder(x, y):
    x, y = _number(x), _number(y)
    if y == 0:
        raise Failure("division by zero")
    return x % y


_OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "+": lambda a, b: _in_range(a + b),
        "-": lambda a, b: _in_range(a - b), "*": lambda a, b: _in_range(a * b), "/": _divide, "%": _remainder}


def _contains(x, coll):
    if type(coll) is ZoneRef:
        return x is not None and [][x] == coll  # no thing lies anywhere before play
    return x in coll


def _coll(x):
    if type(x) is ZoneRef:
        return _SCRATCH_ZONES[x]
    if x is None:
        raise Failure("expected a list or zone, got none")
    return x


def _other(x):
    if x != 0 and x != 1:
        raise Failure(f"`other({x})`: only 0 and 1 have an other side; use next_seat or partner")
    return 1 - x


def _index_of(m, x, xs):
    xs = tuple(_coll(xs))
    return xs.index(x) if x in xs else -1


def _partner(m, s):
    team = m.teams[m.team_of[s]]
    return team[(team.index(s) + 1) % len(team)]


def _extreme(fn, name: str):
    """`max` or `min` (`fn`) of two numbers, or of a list's items: a none among them fails as
    play does (of two, the TypeError the caller names `NAME of none`)."""
    def extreme(m, *args):
        if len(args) == 2:
            return fn(*args)
        items = _coll(args[0])
        if any(x is None for x in items):
            raise Failure(f"`{name}` of a list holding none")
        return fn(items, default=None)
    return extreme


_BUILTINS = {
    "count": lambda m, x: len(_coll(x)),
    "empty": lambda m, x: not _coll(x),
    "top": lambda m, z: _SCRATCH_ZONES[z],
    "bottom": lambda m, z: _SCRATCH_ZONES[z],
    "zone_of": lambda m, x: ZoneRef([][x]),
    "owner": lambda m, x: m.zone_owner[x] if type(x) is ZoneRef else m.zone_owner[[][x]],
    "max": _extreme(max, "max"),
    "min": _extreme(min, "min"),
    "abs": lambda m, x: abs(x),
    "index_of": lambda m, x, xs: _index_of(m, x, xs),
    "next_seat": lambda m, s: (s + 1) % m.seats,
    "other": lambda m, x: _other(x),
    "team_of": lambda m, s: tuple(m.team_of)[s],
    "team_seats": lambda m, t: tuple(tuple(x) for x in m.teams)[t],
    "partner": _partner,
    "distance": lambda m, a, b: abs(a[0] - b[0]) + abs(a[1] - b[1]),
    "directions": lambda m: tuple(m.directions),
}
