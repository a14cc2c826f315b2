"""The built-in functions of the language: collections, seats and teams, court geometry.

Each is general (no game in here); docs/language.md lists them all with an example each. Here is
how each is type-checked and compiled; its name, arity and one-line doc are its entry in
`vbr/builtin_signatures.py`, which the checker reads without importing the interpreter.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from vbr.builtin_signatures import SIGNATURES, Signature
from vbr.interpreter import pyast as ast

from vbr.interpreter import template_nodes as P
from vbr.court import shifted
from vbr.checking import types as T
from vbr.interpreter.scope import Fault
from vbr.values import Cell, ZoneRef


@dataclass
class Builtin:
    sig: Signature  # name, arity, doc: the table's entry
    build: Callable  # (compiler, node, arg closures, arg types) -> (closure, type)


BUILTINS: dict[str, Builtin] = {}


def builtin(name: str):
    """Register the build function of the built-in `name`; its arity and doc are its entry in
    `vbr/builtin_signatures.py`, the table the checker and the editor read."""
    sig = SIGNATURES.get(name)
    if sig is None:
        raise RuntimeError(f"built-in `{name}` has no entry in vbr/builtin_signatures.py")
    if name in BUILTINS:
        raise RuntimeError(f"built-in `{name}` is registered twice")

    def deco(fn):
        BUILTINS[name] = Builtin(sig, fn)
        return fn
    return deco


def _want(c, node, i, t, want, what):
    if not T.compatible(t, want):
        c.diags.error(node.args[i].span, f"{what} must be {T.show(want)}, not {T.show(t)}")


def _calls(c, fn, helper, *args, bound: tuple = ()):
    """`fn` reads as `helper(*bound, arg values...)` in lowered code. `bound` are objects made
    when the rules are compiled (a memo, the court), passed in as arguments."""
    return c._py(fn, lambda low: P.call(low.ref(helper), *(low.ref(b) for b in bound), *(low.expr(a) for a in args)))


def _zone_list(low, f) -> ast.expr:
    return P.subscript(P.load("Z"), low.expr(f))


def _coll(st, x):
    if isinstance(x, ZoneRef):
        return st.zones[x]
    if x is None:
        raise Fault("expected a list or zone, got none")
    return x


# ------------------------------------------------------------------------- collections
@builtin("count")
def _count(c, node, fs, ts):
    (f,) = fs
    if T.item_type(ts[0]) is None:
        c.diags.error(node.args[0].span, f"`count` needs a list or zone, not {T.show(ts[0])}")
    fn = lambda st, L: len(_coll(st, f(st, L)))  # noqa: E731
    return c._py(fn, lambda low: P.call(low.ref(len), _items(low, f, ts[0]))), "int"


@builtin("empty")
def _empty(c, node, fs, ts):
    (f,) = fs
    if T.item_type(ts[0]) is None:
        c.diags.error(node.args[0].span, f"`empty` needs a list or zone, not {T.show(ts[0])}")
    fn = lambda st, L: not _coll(st, f(st, L))  # noqa: E731
    return c._py(fn, lambda low: ast.UnaryOp(ast.Not(), _items(low, f, ts[0]))), "bool"


def _items(low, f, t: str):
    """A list's or zone's items in lowered code: a zone's list read in place, else `_coll`."""
    if t == "zone":
        return _zone_list(low, f)
    return P.call(low.ref(_coll), P.load("st"), low.expr(f))


def _zone_end(name: str, index: int) -> None:
    """`top` (index -1, the next to be drawn) and `bottom` (index 0) of a zone, or none."""
    @builtin(name)
    def build(c, node, fs, ts):
        (f,) = fs
        _want(c, node, 0, ts[0], "zone", f"`{name}`'s argument")

        def end(st, L):
            z = st.zones[f(st, L)]
            return z[index] if z else None

        def template(low):
            z = low.tmp()
            return ast.IfExp(ast.NamedExpr(P.store(z), _zone_list(low, f)),
                             P.subscript(P.load(z), ast.Constant(index)), ast.Constant(None))
        return c._py(end, template), "ent"


_zone_end("top", -1)
_zone_end("bottom", 0)


@builtin("zone_of")
def _zone_of(c, node, fs, ts):
    (f,) = fs
    _want(c, node, 0, ts[0], "ent", "`zone_of`'s argument")
    return (lambda st, L: ZoneRef(st.where[f(st, L)])), "zone"


@builtin("owner")
def _owner(c, node, fs, ts):
    (f,) = fs
    owners = c.p.zone_owner

    def owner(st, L):
        x = f(st, L)
        return owners[x if isinstance(x, ZoneRef) else st.where[x]]
    return owner, "seat"


@builtin("max")
def _max(c, node, fs, ts):
    return _extreme(c, node, fs, ts, max)


@builtin("min")
def _min(c, node, fs, ts):
    return _extreme(c, node, fs, ts, min)


def _extreme(c, node, fs, ts, fn):
    if len(fs) == 2:
        a, b = fs
        for i in (0, 1):
            _want(c, node, i, ts[i], "int", f"`{fn.__name__}`'s argument")
        return _calls(c, lambda st, L: fn(a(st, L), b(st, L)), fn, a, b), "int"
    (f,) = fs
    _want(c, node, 0, ts[0], "list:int", f"`{fn.__name__}`'s argument")
    of = _EXTREME_OF[fn]
    return c._py(lambda st, L: of(st, f(st, L)),
                 lambda low: P.call(low.ref(of), P.load("st"), low.expr(f))), "int"


def _largest(st, xs):
    return max(_coll(st, xs), default=None)


def _smallest(st, xs):
    return min(_coll(st, xs), default=None)


_EXTREME_OF = {max: _largest, min: _smallest}


@builtin("abs")
def _abs(c, node, fs, ts):
    (f,) = fs
    _want(c, node, 0, ts[0], "int", "`abs`'s argument")
    return _calls(c, lambda st, L: abs(f(st, L)), abs, f), "int"


@builtin("index_of")
def _index_of(c, node, fs, ts):
    a, b = fs

    def index_of(st, L):
        xs = tuple(_coll(st, b(st, L)))
        x = a(st, L)
        return xs.index(x) if x in xs else -1
    return index_of, "int"


# ------------------------------------------------------------------------- seats and teams
@builtin("next_seat")
def _next_seat(c, node, fs, ts):
    (f,) = fs
    n = c.m.seats
    _want(c, node, 0, ts[0], "seat", "`next_seat`'s argument")
    return c._py(lambda st, L: (f(st, L) + 1) % n,
                 lambda low: ast.BinOp(ast.BinOp(low.expr(f), ast.Add(), ast.Constant(1)), ast.Mod(), ast.Constant(n))), "seat"


@builtin("other")
def _other(c, node, fs, ts):
    (f,) = fs
    _want(c, node, 0, ts[0], "int", "`other`'s argument")

    return _calls(c, lambda st, L: other_side(f(st, L)), other_side, f), "seat"


def other_side(x):
    if x != 0 and x != 1:
        raise Fault(f"`other({x})`: only 0 and 1 have an other side; use next_seat or partner")
    return 1 - x


@builtin("team_of")
def _team_of(c, node, fs, ts):
    (f,) = fs
    table = tuple(c.m.team_of)
    return _indexes(c, lambda st, L: table[f(st, L)], table, f), "int"


def _indexes(c, fn, table, f):
    """`fn` reads as `table[arg]` in lowered code."""
    return c._py(fn, lambda low: P.subscript(low.ref(table), low.expr(f)))


@builtin("team_seats")
def _team_seats(c, node, fs, ts):
    (f,) = fs
    table = tuple(tuple(t) for t in c.m.teams)
    return _indexes(c, lambda st, L: table[f(st, L)], table, f), "list:seat"


@builtin("partner")
def _partner(c, node, fs, ts):
    (f,) = fs
    table = []
    for s in range(c.m.seats):
        team = c.m.teams[c.m.team_of[s]]
        table.append(team[(team.index(s) + 1) % len(team)])
    table = tuple(table)
    return _indexes(c, lambda st, L: table[f(st, L)], table, f), "seat"


# ------------------------------------------------------------------------- court geometry
def _court(c, node):
    if c.p.court is None:
        c.diags.error(node.span, f"`{node.func}` needs a `court` declaration")
        return None
    return c.p.court


@builtin("field")
def _field(c, node, fs, ts):
    court = _court(c, node)
    side, num = fs

    def field_of(s, n):
        cell = court.field(s, n)
        if cell is None:
            raise Fault(f"there is no field {n} on side {s}")
        return cell

    def template(low):
        """`cells.get((s, n))`, and field_of only to report a field that is not there."""
        s, n, cell = low.tmp(), low.tmp(), low.tmp()
        key = ast.Tuple([ast.NamedExpr(P.store(s), low.expr(side)), ast.NamedExpr(P.store(n), low.expr(num))], ast.Load())
        look = P.call(ast.Attribute(low.ref(court._field_cell), "get", ast.Load()), key)
        return ast.IfExp(ast.Compare(ast.NamedExpr(P.store(cell), look), [ast.IsNot()], [ast.Constant(None)]),
                         P.load(cell), P.call(low.ref(field_of), P.load(s), P.load(n)))
    fn = lambda st, L: field_of(side(st, L), num(st, L))  # noqa: E731
    return (c._py(fn, template) if court is not None else fn), "cell"


@builtin("cell_at")
def _cell_at(c, node, fs, ts):
    court = _court(c, node)
    for i, what in ((0, "side"), (1, "row"), (2, "column")):
        _want(c, node, i, ts[i], "int", f"`cell_at`'s {what}")

    def cell_of(s, r, col):
        if s not in (0, 1):
            raise Fault(f"`cell_at`: there is no side {s} (0 or 1)")
        return court.cell(s, r, col)
    fn = lambda st, L: cell_of(*(f(st, L) for f in fs))  # noqa: E731
    if court is None:
        return fn, "cell"
    return _calls(c, fn, cell_of, *fs), "cell"


@builtin("space")
def _space(c, node, fs, ts):
    court = _court(c, node)
    name = node.args[0]
    sname = getattr(name, "id", None)
    if court is not None and sname not in court.spaces:
        known = ", ".join(court.spaces) or "none declared"
        c.diags.error(name.span, f"the court has no space `{sname}` (spaces: {known})")
    side = fs[1]
    fn = lambda st, L: court.space(sname, side(st, L))  # noqa: E731
    if court is None:
        return fn, "cell"

    def template(low):
        """`Court.space` written out: `cells.get((side, name))`."""
        key = ast.Tuple([low.expr(side), ast.Constant(sname)], ast.Load())
        return P.call(ast.Attribute(low.ref(court._space_cell), "get", ast.Load()), key)
    return c._py(fn, template), "cell"


def _cell_fn(name, method, rtype):
    @builtin(name)
    def build(c, node, fs, ts):
        court = _court(c, node)
        _want(c, node, 0, ts[0], "cell", f"`{name}`'s argument")
        (f,) = fs
        m = getattr(court, method) if court else None

        def of(x):
            if x is None:
                raise Fault(f"`{name}` of none")
            return m(x)

        def template(low):
            """`table.get(x, default)`: the answer looked up, not computed."""
            x = low.tmp()
            table, default = court.table(method)
            look = P.call(ast.Attribute(low.ref(table), "get", ast.Load()), P.load(x), low.ref(default))
            return ast.IfExp(ast.Compare(ast.NamedExpr(P.store(x), low.expr(f)), [ast.IsNot()], [ast.Constant(None)]),
                             look, P.call(low.ref(of), ast.Constant(None)))
        return (c._py(lambda st, L: of(f(st, L)), template) if m is not None else (lambda st, L: of(f(st, L)))), rtype


_cell_fn("number", "number", "int")
_cell_fn("side", "side", "int")
_cell_fn("row", "row", "int")
_cell_fn("col", "col", "int")
_cell_fn("in_court", "in_court", "bool")
_cell_fn("on_net", "on_net", "bool")


@builtin("cells")
def _cells(c, node, fs, ts):
    court = _court(c, node)
    (f,) = fs
    fn = lambda st, L: court.cells(f(st, L))  # noqa: E731
    return (_calls(c, fn, court.cells, f) if court is not None else fn), "list:cell"


@builtin("step")
def _step(c, node, fs, ts):
    court = _court(c, node)
    cell, d, side, n = fs[:4]
    _want(c, node, 1, ts[1], "dir", "`step`'s direction")
    vec = c.p.dir_vec
    if len(fs) == 5:
        _want(c, node, 4, ts[4], "int", "`step`'s net cost")
        return _step_with_net_cost(c, court, cell, d, side, n, fs[4]), "cell"

    def step(st, L):
        return court.step(cell(st, L), vec[d(st, L)], side(st, L), n(st, L))

    def template(low):
        """Court.step at its default net cost (1: the net costs what any cell costs) is
        `shifted`."""
        return P.call(low.ref(shifted), low.expr(cell), P.subscript(low.ref(vec), low.expr(d)),
                      low.expr(side), low.expr(n))
    return (c._py(step, template) if court is not None else step), "cell"


def _step_with_net_cost(c, court, cell, d, side, n, net):
    vec = c.p.dir_vec

    def step_of(at, way, s, k, cost):
        if cost < 0:
            raise Fault(f"`step`'s net cost is {cost}: it must be 0 or more")
        if not 0 <= k <= 1024:  # paid for one unit step at a time
            raise Fault(f"`step` of {k} with a net cost is out of 0..1024")
        return court.step(at, vec[way], s, k, cost)
    fn = lambda st, L: step_of(cell(st, L), d(st, L), side(st, L), n(st, L), net(st, L))  # noqa: E731
    if court is None:
        return fn
    return _calls(c, fn, step_of, cell, d, side, n, net)


@builtin("reach")
def _reach(c, node, fs, ts):
    court = _court(c, node)
    _want(c, node, 3, ts[3], "list:dir", "`reach`'s directions")
    cell, dist, side, dirs = fs[:4]
    net_cost = fs[4] if len(fs) == 5 else c._fixed(lambda st, L: 1, 1)
    vec = c.p.dir_vec

    answers: dict = {}  # this call's answers by its arguments, before any work (Court.reach remembers too)

    def reach(st, L):
        return reach_of(answers, court, vec, dist(st, L), cell(st, L), side(st, L), dirs(st, L), net_cost(st, L))
    if court is None:
        return reach, "list:cell"
    return _calls(c, reach, reach_of, dist, cell, side, dirs, net_cost, bound=(answers, court, vec)), "list:cell"


def reach_of(answers: dict, court, vec, n, at, s, ds, net):
    """`reach`'s cells, remembered in the call's own `answers` by its arguments."""
    key = (n, at, s, ds, net)
    found = answers.get(key)
    if found is not None:
        return found
    if not 0 <= n <= 64:
        raise Fault(f"`reach` distance {n} is out of 0..64")
    if net < 0:
        raise Fault(f"`reach`'s net cost is {net}: it must be 0 or more")
    found = court.reach(at, n, s, [vec[d] for d in ds], net)
    if len(answers) < 1 << 16:
        answers[key] = found
    return found


@builtin("distance")
def _distance(c, node, fs, ts):
    a, b = fs
    for i in (0, 1):
        _want(c, node, i, ts[i], "cell", "`distance`'s argument")

    return _calls(c, lambda st, L: manhattan(a(st, L), b(st, L)), manhattan, a, b), "int"


def manhattan(x, y) -> int:
    return abs(x[0] - y[0]) + abs(x[1] - y[1])


@builtin("directions")
def _directions(c, node, fs, ts):
    dirs = tuple(c.m.directions)
    return c._fixed(lambda st, L: dirs, dirs), "list:dir"


def is_cell(x) -> bool:
    return isinstance(x, Cell)


_unbuilt = [name for name in SIGNATURES if name not in BUILTINS]
if _unbuilt:
    raise RuntimeError(f"vbr/builtin_signatures.py lists built-ins with no build function here: {', '.join(_unbuilt)}")
