"""The built-in functions of the language: collections, seats and teams, court geometry.

Each is general (no game in here); docs/language.md lists them all with an example each.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from vbr.interpreter import pyast as ast

from vbr.interpreter import lowering as P
from vbr.interpreter import types as T
from vbr.interpreter.scope import Fault
from vbr.interpreter.values import Cell, ZoneRef


@dataclass
class Builtin:
    min_args: int
    max_args: int
    build: Callable  # (compiler, node, arg closures, arg types) -> (closure, type)
    doc: str = ""
    raw_args: int = 0  # leading arguments that are names, not expressions (`space(serve, s)`)


BUILTINS: dict[str, Builtin] = {}


def builtin(name: str, lo: int, hi: int | None = None, doc: str = "", raw_args: int = 0):
    def deco(fn):
        BUILTINS[name] = Builtin(lo, hi if hi is not None else lo, fn, doc, raw_args)
        return fn
    return deco


def _want(c, node, i, t, want, what):
    if not T.compatible(t, want):
        c.diags.error(node.args[i].span, f"{what} must be {T.show(want)}, not {T.show(t)}")


def _calls(c, fn, helper, *args):
    """`fn` reads as `helper(arg values...)` in lowered code."""
    return c._py(fn, lambda low: P.call(low.ref(helper), *(low.expr(a) for a in args)))


def _zone_list(low, f) -> ast.expr:
    return P.subscript(P.load("Z"), low.expr(f))


def _coll(st, x):
    if isinstance(x, ZoneRef):
        return st.zones[x]
    if x is None:
        raise Fault("expected a list or zone, got none")
    return x


# ------------------------------------------------------------------------- collections
@builtin("count", 1, doc="how many items a list or zone holds")
def _count(c, node, fs, ts):
    (f,) = fs
    if T.item_type(ts[0]) is None:
        c.diags.error(node.args[0].span, f"`count` needs a list or zone, not {T.show(ts[0])}")
    fn = lambda st, L: len(_coll(st, f(st, L)))  # noqa: E731
    return c._py(fn, lambda low: P.call(low.ref(len), _items(low, f, ts[0]))), "int"


@builtin("empty", 1, doc="true when a list or zone holds nothing")
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


def _zone_end(name: str, index: int, doc: str) -> None:
    """`top` (index -1, the next to be drawn) and `bottom` (index 0) of a zone, or none."""
    @builtin(name, 1, doc=doc)
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


_zone_end("top", -1, "the top item of a zone (the next to be drawn), or none")
_zone_end("bottom", 0, "the bottom item of a zone, or none")


@builtin("zone_of", 1, doc="the zone a card or piece is in")
def _zone_of(c, node, fs, ts):
    (f,) = fs
    _want(c, node, 0, ts[0], "ent", "`zone_of`'s argument")
    return (lambda st, L: ZoneRef(st.where[f(st, L)])), "zone"


@builtin("owner", 1, doc="the seat (or team) owning a zone or the zone a card is in; -1 for a shared zone")
def _owner(c, node, fs, ts):
    (f,) = fs
    owners = c.p.zone_owner

    def owner(st, L):
        x = f(st, L)
        return owners[x if isinstance(x, ZoneRef) else st.where[x]]
    return owner, "seat"


@builtin("max", 1, 2, doc="the larger of two numbers, or the largest of a list (none if empty)")
def _max(c, node, fs, ts):
    return _extreme(c, node, fs, ts, max)


@builtin("min", 1, 2, doc="the smaller of two numbers, or the smallest of a list (none if empty)")
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


@builtin("abs", 1, doc="absolute value")
def _abs(c, node, fs, ts):
    (f,) = fs
    _want(c, node, 0, ts[0], "int", "`abs`'s argument")
    return _calls(c, lambda st, L: abs(f(st, L)), abs, f), "int"


@builtin("index_of", 2, doc="position of an item in a list (0-based), or -1")
def _index_of(c, node, fs, ts):
    a, b = fs

    def index_of(st, L):
        xs = tuple(_coll(st, b(st, L)))
        x = a(st, L)
        return xs.index(x) if x in xs else -1
    return index_of, "int"


# ------------------------------------------------------------------------- seats and teams
@builtin("next_seat", 1, doc="the seat after this one, round the table")
def _next_seat(c, node, fs, ts):
    (f,) = fs
    n = c.m.seats
    _want(c, node, 0, ts[0], "seat", "`next_seat`'s argument")
    return c._py(lambda st, L: (f(st, L) + 1) % n,
                 lambda low: ast.BinOp(ast.BinOp(low.expr(f), ast.Add(), ast.Constant(1)), ast.Mod(), ast.Constant(n))), "seat"


@builtin("other", 1, doc="in a game of two sides: the other side (seat or team), 0 <-> 1")
def _other(c, node, fs, ts):
    (f,) = fs
    _want(c, node, 0, ts[0], "int", "`other`'s argument")

    return _calls(c, lambda st, L: other_side(f(st, L)), other_side, f), "seat"


def other_side(x):
    if x != 0 and x != 1:
        raise Fault(f"`other({x})`: only 0 and 1 have an other side; use next_seat or partner")
    return 1 - x


@builtin("team_of", 1, doc="the team index of a seat")
def _team_of(c, node, fs, ts):
    (f,) = fs
    table = tuple(c.m.team_of)
    return _indexes(c, lambda st, L: table[f(st, L)], table, f), "int"


def _indexes(c, fn, table, f):
    """`fn` reads as `table[arg]` in lowered code."""
    return c._py(fn, lambda low: P.subscript(low.ref(table), low.expr(f)))


@builtin("team_seats", 1, doc="the seats of a team")
def _team_seats(c, node, fs, ts):
    (f,) = fs
    table = tuple(tuple(t) for t in c.m.teams)
    return _indexes(c, lambda st, L: table[f(st, L)], table, f), "list:seat"


@builtin("partner", 1, doc="the next seat of the same team (the seat itself in a team of one)")
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


@builtin("field", 2, doc="the cell of field number n on a side")
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


@builtin("cell_at", 3, doc="the cell at a row and column of a side, in that side's frame (row 1 = its back row, "
                            "col 1 = its left; row 0 is behind its baseline): numbered field or not")
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


@builtin("space", 2, doc="the cell of a named space (e.g. a serve space) of a side", raw_args=1)
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
    return c._py(fn, lambda low: P.call(low.ref(court.space), ast.Constant(sname), low.expr(side))), "cell"


def _cell_fn(name, method, rtype, doc):
    @builtin(name, 1, doc=doc)
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


_cell_fn("number", "number", "int", "the field number of a cell (0 if it is no numbered field)")
_cell_fn("side", "side", "int", "the side a cell belongs to, or -1 on the net or out")
_cell_fn("row", "row", "int", "the row of a cell in its side's frame (1 = back row)")
_cell_fn("col", "col", "int", "the column of a cell in its side's frame (1 = its left)")
_cell_fn("in_court", "in_court", "bool", "true unless the cell is out of the court")
_cell_fn("on_net", "on_net", "bool", "true for the net's own cells")


@builtin("cells", 1, doc="the numbered fields of a side, in number order")
def _cells(c, node, fs, ts):
    court = _court(c, node)
    (f,) = fs
    return (lambda st, L: court.cells(f(st, L))), "list:cell"


@builtin("step", 4, 5, doc="where a cell goes after n unit steps in a direction, in a side's frame (may be out); "
                            "an optional fifth argument is what a step onto the net costs (default 1)")
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
        return P.call(low.ref(court.step), low.expr(cell), P.subscript(low.ref(vec), low.expr(d)),
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


@builtin("reach", 4, 5, doc="every landing cell of an exact-distance movement: no reversing, no stop on the net")
def _reach(c, node, fs, ts):
    court = _court(c, node)
    _want(c, node, 3, ts[3], "list:dir", "`reach`'s directions")
    cell, dist, side, dirs = fs[:4]
    net_cost = fs[4] if len(fs) == 5 else c._fixed(lambda st, L: 1, 1)
    vec = c.p.dir_vec

    answers: dict = {}  # this call's answers by its arguments, before any work (Court.reach remembers too)

    def reach_of(n, at, s, ds, net):
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

    def reach(st, L):
        return reach_of(dist(st, L), cell(st, L), side(st, L), dirs(st, L), net_cost(st, L))
    if court is None:
        return reach, "list:cell"
    return _calls(c, reach, reach_of, dist, cell, side, dirs, net_cost), "list:cell"


@builtin("distance", 2, doc="unit steps between two cells along the axes (Manhattan)")
def _distance(c, node, fs, ts):
    a, b = fs
    for i in (0, 1):
        _want(c, node, i, ts[i], "cell", "`distance`'s argument")

    return _calls(c, lambda st, L: manhattan(a(st, L), b(st, L)), manhattan, a, b), "int"


def manhattan(x, y) -> int:
    return abs(x[0] - y[0]) + abs(x[1] - y[1])


@builtin("directions", 0, doc="every declared direction")
def _directions(c, node, fs, ts):
    dirs = tuple(c.m.directions)
    return c._fixed(lambda st, L: dirs, dirs), "list:dir"


def is_cell(x) -> bool:
    return isinstance(x, Cell)
