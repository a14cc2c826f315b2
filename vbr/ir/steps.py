"""Which blocks of a unit cost a step of the `steps` limit (docs/language.md, Run-time limits):
its first block, entered once each time the phase, procedure or handler starts, and the head of
each loop, entered once before the first round and once after each. Every other block runs at
most once between two of these, so a game that counts only these steps still ends in bounded
time: a cycle of the unit's flow goes through a loop's head, and a `goto`, a call or an event
starts a unit at its first block. Both engines count a step where a block of this set starts,
and test the limit there.
"""
from __future__ import annotations

from vbr.ir import nodes as N


def flow_successors(t: N.Term | None) -> list[int]:
    """The blocks of the same unit play may go on to after terminator `t`: a jump's and a
    branch's targets, where play resumes after a choice, a call or an event, and a choice's way
    on when it has no options."""
    if isinstance(t, N.Jump):
        return [t.target]
    if isinstance(t, N.Branch):
        return [t.then, t.orelse]
    if isinstance(t, N.Choose):
        return [t.next, t.empty]
    if isinstance(t, (N.Call, N.Emit)):
        return [t.next]
    return []


def stepped_blocks(unit: N.Unit) -> frozenset[int]:
    """Block 0 and every block an edge of the unit's flow goes back to (an edge to a block on the
    path that reached it, searching depth first from block 0): in the flow of structured code
    these are the loops' heads, whatever order the search takes the edges in."""
    blocks = unit.blocks
    if not blocks:
        return frozenset()
    heads = {0}
    state = [0] * len(blocks)  # 0 not reached, 1 on the path searched, 2 done
    state[0] = 1
    work = [(0, iter(flow_successors(blocks[0].term)))]
    while work:
        b, ways = work[-1]
        nxt = next(ways, None)
        if nxt is None:
            state[b] = 2
            work.pop()
        elif state[nxt] == 1:
            heads.add(nxt)
        elif state[nxt] == 0:
            state[nxt] = 1
            work.append((nxt, iter(flow_successors(blocks[nxt].term))))
    return frozenset(heads)
