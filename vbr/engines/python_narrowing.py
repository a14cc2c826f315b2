"""A choice over every thing of a kind, narrowed in the Python engine to the zones its condition
requires, with the same options,
faults and words.

`choose k from Card where usable(k, c) and ...`, where `usable` says `k in hand[c] or (G and k
in faceup[t])`: a card in none of those zones can only be turned down. The condition's
*skeleton* is `k in Z` (Z not reading k), `M and X` (X anything), `G and M` (G not reading k),
`M1 or M2`, and bindings of k or of values not reading k around them. Its parts that do not read
k (the zones, the guards, the bound values) give the same value in every round and are
remembered the first time a round works them out (_Unit.remember). The loop goes through the
things of the kind in order, as written, until a round leaves every remembered part the
skeleton needs known: from there on only the things after it in those zones can pass, and a
thing outside them would work out nothing but known parts and bindings. So:

- the rest of the loop goes through those things alone, in the kind's order (creation order);
- then, when the kind's last thing was not among them, its round is run (it turns it down), so
  that every local the condition binds ends as the whole loop leaves it.

Each option, each fault (a part first worked out in the same round as before) and each word
the state holds after the choice is the same; only rounds that change nothing are skipped.
"""
from __future__ import annotations

from vbr.ir import nodes as N
from vbr.ir.layout import Header as H


class Skeleton:
    """A condition's skeleton over the item's locals: `known` is code true once every remembered
    part it needs is worked out, `zones` code giving the list of zones an item must be in."""

    def __init__(self, known: str, zones: str):
        self.known, self.zones = known, zones


def skeleton(u, cond: N.Expr, slot: int) -> Skeleton | None:
    """The skeleton of a choice's condition over things in `slot` (u: the unit's writer, whose
    `memo` names the remembered parts), or None when the condition has no such shape."""
    needs: list[str] = []
    f = _skel(u, cond, {slot}, needs)
    if f is None:
        return None
    known = " and ".join([f"{n} is not None" for n in needs] + [_known(f)])
    return Skeleton(known, _zones(f))


def _skel(u, e, aliases: set[int], needs: list[str]):
    if isinstance(e, N.Contains):
        if not (isinstance(e.item, N.Local) and e.item.slot in aliases and e.item.ty.startswith("ent")):
            return None
        z = _zone_code(u, e.seq)
        return None if z is None else ("in", z)
    if isinstance(e, N.Binary) and e.op in ("and", "or"):
        left = _skel(u, e.left, aliases, needs)
        if e.op == "or":
            right = _skel(u, e.right, aliases, needs)
            return None if left is None or right is None else ("or", left, right)
        if left is not None:
            return left  # M and X: X runs only for things in M's zones
        guard = _remembered(u, e.left)
        right = _skel(u, e.right, aliases, needs)
        return None if guard is None or right is None else ("and", guard, right)
    if isinstance(e, N.Bind):
        v = e.value
        if isinstance(v, N.Local) and v.slot in aliases:
            return _skel(u, e.body, aliases | {e.slot}, needs)
        if isinstance(v, N.Local) or isinstance(v, N.Const) or isinstance(v, N.Global) and v.index is None:
            return _skel(u, e.body, aliases, needs)  # read without a fault, the same each round
        if id(v) not in u.memo:
            return None
        needs.append(u.memo[id(v)])
        return _skel(u, e.body, aliases, needs)
    return None


def _remembered(u, e) -> str | None:
    if isinstance(e, N.Const):
        return str(e.value)
    return u.memo.get(id(e))


def _zone_code(u, s) -> str | None:
    """The remembered zone of a sequence of a zone's items, or its constant."""
    if not _zone_items(s):
        return None
    if id(s) in u.memo:
        return u.memo[id(s)]
    if isinstance(s, N.ZoneItems):
        return _remembered(u, s.zone)
    return None


def _zone_items(s) -> bool:
    if isinstance(s, N.ZoneItems):
        return True
    if isinstance(s, N.ChooseSeq):
        return _zone_items(s.then) and _zone_items(s.orelse)
    return isinstance(s, N.BindSeq) and _zone_items(s.body)


def _known(f) -> str:
    if f[0] == "in":
        return "True" if f[1].lstrip("-").isdigit() else f"{f[1]} is not None"
    if f[0] == "or":
        return f"({_known(f[1])} and {_known(f[2])})"
    g = f[1]
    if g.lstrip("-").isdigit():
        return _known(f[2]) if int(g) else "True"
    return f"({g} is not None and (not {g} or {_known(f[2])}))"


def _zones(f) -> str:
    if f[0] == "in":
        return f"[{f[1]}]"
    if f[0] == "or":
        return f"{_zones(f[1])} + {_zones(f[2])}"
    return f"({_zones(f[2])} if {f[1]} else [])"


def narrowed_loop(u, kind: int, sk: Skeleton, head: str, var: str, through: list[str], each) -> None:
    """The choice's loop over the things of `kind` (`head` and `through` as loop_head gives
    them, `each` writing one round's lines), narrowed once the skeleton is known."""
    lay = u.lay
    v = head.split()[1]
    at, rest, last, z, x = u.tmp(), u.tmp(), u.tmp(), u.tmp(), u.tmp()
    u.emit(f"{at} = None")
    u.emit(head)
    round_lines = u.capture(each)[0]
    u.out += ["    " + line for line in through + round_lines]
    u.emit(f"    if {sk.known}:")
    u.emit(f"        {at} = {v}")
    u.emit("        break")
    u.emit(f"if {at} is not None:")
    zone = u.tmp()
    u.emit(f"    {rest} = sorted({{{x} for {z} in {sk.zones} if 0 <= {z} < {lay.nzones} for {zone} in (ZONE_AT[{z}],) "
           f"for {x} in S[{zone} + 1:{zone} + 1 + S[{zone}]] if {x} > {at} and S[{lay.kinds} + {x}] == {kind}}})")
    u.emit(f"    for {v} in {rest}:")
    u.out += ["        " + line for line in through[2:] + u.capture(each)[0]]
    u.emit(f"    {last} = S[{H.THINGS}] - 1")
    u.emit(f"    while S[{lay.kinds} + {last}] != {kind}:")
    u.emit(f"        {last} -= 1")
    u.emit(f"    if {last} > {at} and (not {rest} or {rest}[-1] != {last}):")
    u.emit(f"        {v} = {last}")
    u.out += ["        " + line for line in through[2:] + u.capture(each)[0]]
