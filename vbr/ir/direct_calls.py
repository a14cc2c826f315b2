"""Which procedures of a program never suspend, read from its call graph: both engines run them
as plain calls of their language, with no frame pushed while they run (python_source's `_Direct`,
c_source's `d<unit>` functions), and play goes on after the call as after any statement.
"""
from __future__ import annotations

from vbr.ir import nodes as N
from vbr.ir.frames import deepest_chain

DIRECT_CALL_DEPTH = 32  # the longest chain of calls run as calls of an engine's language (its stack holds a function per frame)


def short_chains(p: N.Program) -> bool:
    """Whether no procedure or handler can reach itself through calls and events and no chain of
    them is longer than DIRECT_CALL_DEPTH: only then does an engine run a call as a call of its
    own language. Otherwise a call pushes a frame and the engine's loop runs it, so that neither
    the C stack nor Python's grows with `limit depth` (up to 10,000 frames)."""
    return 0 <= deepest_chain(p.units, p.limits["depth"]) <= DIRECT_CALL_DEPTH


class DirectCalls:
    """Which procedures never suspend (`direct`: no choice, no event, calls only of such
    procedures; the largest such set, so procedures calling each other may be in it), how each
    may leave its callers for good (`leaves`: "end", "goto", itself or through what it calls),
    and which keep a frame's words on the stack while they run (`padded`: those that call, copy
    lists or end the game, where the stack's height or the frame's place can be seen; one that
    only marks the stack and cuts it back to the mark sees no difference).

    `excluded`: units an engine cannot run this way (left out, and so is each procedure calling
    one of them). A program whose chains of calls are not short (short_chains) has none."""

    def __init__(self, p: N.Program, excluded: frozenset[int] = frozenset()):
        units = p.units
        self.short = short_chains(p)  # whether an engine runs a call as a call of its own language
        direct = {u for u, unit in enumerate(units) if unit.kind == "proc" and u not in excluded
                  and not any(isinstance(b.term, (N.Choose, N.Emit)) for b in unit.blocks)} if self.short else set()
        while True:
            out = {u for u in direct if any(isinstance(b.term, N.Call) and b.term.unit not in direct
                                            for b in units[u].blocks)}
            if not out:
                break
            direct -= out
        self.direct = frozenset(direct)
        leaves = {u: {w for b in units[u].blocks for t, w in ((N.End, "end"), (N.Goto, "goto"))
                      if isinstance(b.term, t)} for u in direct}
        changed = True
        while changed:
            changed = False
            for u in direct:
                for b in units[u].blocks:
                    if isinstance(b.term, N.Call) and not leaves[b.term.unit] <= leaves[u]:
                        leaves[u] |= leaves[b.term.unit]
                        changed = True
        self.leaves = {u: frozenset(w) for u, w in leaves.items()}
        self.padded = frozenset(u for u in direct if any(
            isinstance(b.term, (N.Call, N.End)) or any(isinstance(s, N.Collect) for s in b.stmts) for b in units[u].blocks))
