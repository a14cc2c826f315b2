"""How many words the frames of a program's stack can take at once, read from its call graph.

A `Call` pushes its procedure's frame; an `Emit` pushes the frames of all its handlers at once
(each runs on top of the ones not run yet); a `Goto` drops every frame. So when no unit can
reach itself through calls and emits, the frames on the stack never take more than the heaviest
chain of them, and never number more than its longest chain: a state needs room for that, not
for `limit depth` frames of the largest unit (`Layout.frames`).

A frame's lists (`Collect`) lie on the stack above it until it returns. Each `Collect` has at
most one copy alive at a time (a loop releases a round's copies before the next round), of at
most its sequence's bound: so a unit's copies take at most the sum of its `Collect`s' bounds.
"""
from __future__ import annotations

from vbr.ir import nodes as N
from vbr.ir.layout import FRAME_HEAD

MAX_CHAIN = 256  # longer chains of calls keep the bound by `limit depth` (and Python's stack stays short)


def frame_bound(units: list[N.Unit], depth_limit: int, copies: bool = False) -> int:
    """The most words frames (with `copies`, frames and their lists) can take at once, or -1
    when a unit may reach itself (recursion) or a chain of frames may go past `depth_limit`
    (the depth fault then bounds the stack)."""
    most = _heaviest(units, depth_limit, copies)
    return -1 if most is None else most[0]


def deepest_chain(units: list[N.Unit], depth_limit: int) -> int:
    """The most frames on the stack at once, or -1 as for frame_bound."""
    most = _heaviest(units, depth_limit, False)
    return -1 if most is None else most[1]


def _heaviest(units: list[N.Unit], depth_limit: int, copies: bool) -> tuple[int, int] | None:
    """(words, frames) of the heaviest and of the longest chain of frames, None past the limits."""
    words: dict[int, tuple[int, int]] = {}  # unit -> (words, frames) of its heaviest chain
    visiting: set[int] = set()

    def chain(u: int) -> tuple[int, int] | None:
        if u in words:
            return words[u]
        if u in visiting or len(visiting) >= min(depth_limit, MAX_CHAIN):
            return None
        visiting.add(u)
        own = FRAME_HEAD + units[u].nlocals + (_copies(units[u]) if copies else 0)
        most_words, most_frames = 0, 0
        for block in units[u].blocks:
            above = _above(block.term, chain, units)
            if above is None:
                return None
            most_words, most_frames = max(most_words, above[0]), max(most_frames, above[1])
        visiting.discard(u)
        words[u] = (own + most_words, 1 + most_frames)
        return words[u]

    most_words = most_frames = 0
    for u in range(len(units)):
        got = chain(u)
        if got is None or got[1] > depth_limit:
            return None
        most_words, most_frames = max(most_words, got[0]), max(most_frames, got[1])
    return most_words, most_frames


def _above(term: N.Term, chain, units: list[N.Unit]) -> tuple[int, int] | None:
    """(words, frames) a unit's term may put on the stack above the unit's own frame."""
    if isinstance(term, N.Call):
        return chain(term.unit)
    if isinstance(term, N.Emit) and term.handlers:
        each = [chain(h) for h in term.handlers]
        if None in each:
            return None
        # every handler's frame is pushed at once, and only the one running has more above its own
        # (the sum of their whole chains grew as 2^n for n events each with two handlers emitting the next)
        heads = [FRAME_HEAD + units[h].nlocals for h in term.handlers]
        return (sum(heads) + max(w - head for (w, _), head in zip(each, heads)), len(each) - 1 + max(f for _, f in each))
    return (0, 0)


def _copies(unit: N.Unit) -> int:
    return sum(max(s.seq.bound, 1) for b in unit.blocks for s in b.stmts if isinstance(s, N.Collect))
