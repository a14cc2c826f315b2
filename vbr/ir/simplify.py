"""Fewer, longer blocks: jumps to empty blocks go straight on, and a block that only one jump
reaches is joined to the block that jumps there. The program means the same; each engine runs
fewer blocks.
"""
from __future__ import annotations

from vbr.ir import nodes as N


def simplify(unit: N.Unit) -> None:
    _thread_jumps(unit)
    _join(unit)
    _renumber(unit)


def _targets(t: N.Term) -> list[tuple[str, int]]:
    """The fields of terminator t that name a block, with the block they name."""
    if isinstance(t, N.Jump):
        return [("target", t.target)]
    if isinstance(t, N.Branch):
        return [("then", t.then), ("orelse", t.orelse)]
    if isinstance(t, N.Choose):
        return [("empty", t.empty), ("next", t.next)]
    if isinstance(t, (N.Call, N.Emit)):
        return [("next", t.next)]
    return []


def _thread_jumps(unit: N.Unit) -> None:
    def final(b: int) -> int:
        seen = set()
        while b not in seen:
            seen.add(b)
            blk = unit.blocks[b]
            if blk.stmts or not isinstance(blk.term, N.Jump):
                return b
            b = blk.term.target
        return b
    for blk in unit.blocks:
        for name, b in _targets(blk.term):
            setattr(blk.term, name, final(b))


def _join(unit: N.Unit) -> None:
    changed = True
    while changed:
        changed = False
        refs = [0] * len(unit.blocks)
        refs[0] = 1
        for blk in unit.blocks:
            for _, b in _targets(blk.term):
                refs[b] += 1
        for i, blk in enumerate(unit.blocks):
            t = blk.term
            if isinstance(t, N.Jump) and t.target != i and refs[t.target] == 1 and t.target != 0:
                nxt = unit.blocks[t.target]
                blk.stmts += nxt.stmts
                blk.term = nxt.term
                nxt.stmts, nxt.term = [], N.Jump(t.span, t.target)  # unreachable now
                changed = True
                break


def _renumber(unit: N.Unit) -> None:
    live, todo = set(), [0]
    while todo:
        b = todo.pop()
        if b in live:
            continue
        live.add(b)
        todo += [x for _, x in _targets(unit.blocks[b].term)]
    order = sorted(live)
    new = {old: i for i, old in enumerate(order)}
    unit.blocks = [unit.blocks[b] for b in order]
    for blk in unit.blocks:
        for name, b in _targets(blk.term):
            setattr(blk.term, name, new[b])
