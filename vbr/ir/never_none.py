"""Which vars of a program can never hold `none`: what lets an engine read one where the rules
need a value (`if`, `<`, the end of a range: `N.Known`, a comparison's fault) without testing it.

A var holds what a `SetGlobal` writes into it and nothing else: its start value is one such
write, from the unit that starts play. A var never holds none when every write into it is of a
value that is never none (`never_none`: a constant other than none, arithmetic or a comparison
(on none they fault before they give anything), an aggregate that counts or sums, a test, or
another such var). Anything else (a local, a field, a procedure's result, `top` of a zone) may be
none, so a var written from it is left out.
"""
from __future__ import annotations

from vbr.ir import nodes as N
from vbr.ir.values import NONE


def never_none_vars(program: N.Program) -> frozenset[int]:
    """The `base` of every var (as `N.Global` names it) no write of the program can leave none
    in: the largest such set, where a write may read the vars of the set."""
    writes: dict[int, list[N.Expr]] = {}
    for unit in program.units:
        for block in unit.blocks:
            for x in [*block.stmts, block.term]:
                for n in N.walk(x):
                    if isinstance(n, N.SetGlobal):
                        writes.setdefault(n.target.base, []).append(n.value)
    kept = set(writes)
    while True:
        dropped = {base for base in kept if not all(never_none(v, program, kept) for v in writes[base])}
        if not dropped:
            return frozenset(kept)
        kept -= dropped


def never_none_slots(program: N.Program, unit: N.Unit, vars_nn) -> frozenset[int]:
    """The locals of `unit` no write of it can leave none in (an engine reads them where the rules
    need a value without testing them): the largest set whose every write (`SetLocal`, `Bind`,
    `BindSeq`) is a value never none, the vars in `vars_nn` never holding none. A parameter, a
    choice's slot and the item slot of an aggregate or a comprehension over items that may be
    none are never in it."""
    writes: dict[int, list[N.Expr]] = {}
    banned = set(range(unit.nparams))
    for block in unit.blocks:
        for x in [*block.stmts, block.term]:
            for n in N.walk(x):
                if isinstance(n, (N.SetLocal, N.Bind, N.BindSeq)):
                    writes.setdefault(n.slot, []).append(n.value)
                elif isinstance(n, (N.Aggregate, N.Comprehension)):
                    src = n.seq if isinstance(n, N.Aggregate) else n.source
                    if not isinstance(src, (N.ZoneItems, N.RangeItems, N.KindItems)):
                        banned.add(n.slot)
                elif isinstance(n, N.Choose):
                    banned.add(n.slot)
    kept = set(writes) - banned
    while True:
        dropped = {s for s in kept
                   if not all(never_none(v, program, vars_nn, lambda x: x.slot in kept) for v in writes[s])}
        if not dropped:
            return frozenset(kept)
        kept -= dropped


def never_none(e: N.Expr, program: N.Program, vars_nn, local=None) -> bool:
    """Whether `e` can never give none, the vars in `vars_nn` never holding it; a local's answer
    is `local(e)`'s (an engine's knowledge of one unit's locals), else no."""
    if isinstance(e, N.Const):
        return e.value != NONE
    if isinstance(e, (N.Binary, N.Unary, N.Contains, N.Known)):
        return True
    if isinstance(e, N.Aggregate):
        return e.agg in ("sum", "count", "any", "all")
    if isinstance(e, N.Global):
        return e.base in vars_nn
    if isinstance(e, N.Local):
        return local is not None and local(e)
    if isinstance(e, N.IfElse):
        return never_none(e.then, program, vars_nn, local) and never_none(e.orelse, program, vars_nn, local)
    if isinstance(e, N.Bind):
        return never_none(e.body, program, vars_nn, local)
    if isinstance(e, N.Builtin):
        return e.name in ("next_seat", "team_of", "other", "distance", "zone_of")
    if isinstance(e, N.Roll):
        return NONE not in program.dice[e.die]
    if isinstance(e, N.Lookup):
        return e.fault >= 0 and NONE not in e.table
    return False
