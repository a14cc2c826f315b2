"""Which units may leave play's current phase for good, read from the call graph: a unit that
ends the game or goes to a phase itself, or runs one that may (a call, an event's handlers).

These are the procedures a log is told the calls and returns of (vbr.engines.events: CALL,
RETURN): a turn-flow diagram draws exactly such procedures as nodes of their own (a procedure
that always returns to its caller is part of its caller's box), so a traced game's steps through
them can be counted, and calls of the others cost a logged game nothing.
"""
from __future__ import annotations

from vbr.ir import nodes as N


def leaving_units(p: N.Program) -> frozenset[int]:
    """The units with an `end` or a `goto` in their blocks, and those that call a leaving unit
    or emit an event one of whose handlers leaves: the least such set."""
    leaving = {u for u, unit in enumerate(p.units) if any(isinstance(b.term, (N.End, N.Goto)) for b in unit.blocks)}
    changed = True
    while changed:
        changed = False
        for u, unit in enumerate(p.units):
            if u not in leaving and any(_runs_leaving(b.term, leaving) for b in unit.blocks):
                leaving.add(u)
                changed = True
    return frozenset(leaving)


def _runs_leaving(term: N.Term, leaving: set[int]) -> bool:
    if isinstance(term, N.Call):
        return term.unit in leaving
    if isinstance(term, N.Emit):
        return any(h in leaving for h in term.handlers)
    return False
