"""The tables of `reach` whose directions and net cost are fixed before play: for a court, each
start on or next to it (and each declared space), each distance 0..64, both sides, the ends in
the court's order (Court.reach_all). A table depends on nothing but the court's geometry, the
directions' vectors and the net cost, so it is worked out once per process for each of these
(each option set of a rule file, each scenario group, builds its program anew); programs share
it, and nothing writes to it.
"""
from __future__ import annotations

import threading

from vbr.court import Court
from vbr.ir.values import cell
from vbr.values import Cell

DISTANCES = 65  # 0..64: the distances a table holds
KEPT = 32  # the most tables kept: past them, the oldest is dropped

_tables: dict[tuple, tuple[dict, int]] = {}
_keeping = threading.Lock()  # programs may be built in several threads at once


def reach_table(court: Court, vecs: list[tuple[int, int]], net_cost: int) -> tuple[dict, int]:
    """(the table of `reach` on `court` along `vecs` with `net_cost`, the most ends of a row)."""
    key = (court.geometry(), tuple(tuple(v) for v in vecs), net_cost)
    with _keeping:
        if key not in _tables:
            if len(_tables) >= KEPT:
                del _tables[next(iter(_tables))]
            table = _worked_out(court, list(key[1]), net_cost)
            _tables[key] = (table, max(len(v) for v in table.values()))
        return _tables[key]


def _worked_out(court: Court, vecs: list[tuple[int, int]], net_cost: int) -> dict:
    starts = [Cell(x, y) for x in range(-1, court.cols + 1) for y in range(-1, court.height + 1)]
    starts += [c for c in court._cell_space if c not in starts]
    longest = court.cols + court.height + 1
    table = {}
    for c in starts:
        for side in (0, 1):
            by_distance = court.reach_all(c, longest, side, vecs, net_cost)
            for d in range(DISTANCES):
                ends = by_distance[d] if d <= longest else ()
                table[(cell(*c), d, side)] = [cell(*x) for x in ends]
    return table
