"""The built-in functions' signatures: what is known of each without compiling anything.

Per built-in: its name, how many arguments it takes, how many leading ones are names rather than
expressions (`space(serve, s)`), and one line of doc. The checker (a function may not take a
built-in's name, one check per entry in vbr/checking/builtins.py), the language server's
completions and the docs read this table. This module imports nothing from `vbr`, so everything
may read it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Signature:
    name: str
    min_args: int
    max_args: int
    doc: str
    raw_args: int = 0  # leading arguments that are names, not expressions (`space(serve, s)`)


def _sig(name: str, lo: int, hi: int | None = None, *, doc: str, raw_args: int = 0) -> Signature:
    return Signature(name, lo, hi if hi is not None else lo, doc, raw_args)


SIGNATURES: dict[str, Signature] = {s.name: s for s in (
    # collections
    _sig("count", 1, doc="how many items a list or zone holds"),
    _sig("empty", 1, doc="true when a list or zone holds nothing"),
    _sig("top", 1, doc="the top item of a zone (the next to be drawn), or none"),
    _sig("bottom", 1, doc="the bottom item of a zone, or none"),
    _sig("zone_of", 1, doc="the zone a card or piece is in"),
    _sig("owner", 1, doc="the seat (or team) owning a zone or the zone a card is in; -1 for a shared zone"),
    _sig("max", 1, 2, doc="the larger of two numbers, or the largest of a list (none if empty); a none among them is an error"),
    _sig("min", 1, 2, doc="the smaller of two numbers, or the smallest of a list (none if empty); a none among them is an error"),
    _sig("abs", 1, doc="absolute value"),
    _sig("index_of", 2, doc="position of an item in a list (0-based), or -1"),
    # seats and teams
    _sig("next_seat", 1, doc="the seat after this one, round the table"),
    _sig("other", 1, doc="in a game of two sides: the other side (seat or team), 0 <-> 1"),
    _sig("team_of", 1, doc="the team index of a seat"),
    _sig("team_seats", 1, doc="the seats of a team"),
    _sig("partner", 1, doc="the next seat of the same team (the seat itself in a team of one)"),
    # court geometry
    _sig("field", 2, doc="the cell of field number n on a side"),
    _sig("cell_at", 3, doc="the cell at a row and column of a side, in that side's frame (row 1 = its back row, "
                           "col 1 = its left; row 0 is behind its baseline): numbered field or not"),
    _sig("space", 2, doc="the cell of a named space (e.g. a serve space) of a side", raw_args=1),
    _sig("number", 1, doc="the field number of a cell (0 if it is no numbered field)"),
    _sig("side", 1, doc="the side a cell belongs to, or -1 on the net or out"),
    _sig("row", 1, doc="the row of a cell in its side's frame (1 = back row)"),
    _sig("col", 1, doc="the column of a cell in its side's frame (1 = its left)"),
    _sig("in_court", 1, doc="true unless the cell is out of the court"),
    _sig("on_net", 1, doc="true for the net's own cells"),
    _sig("cells", 1, doc="the numbered fields of a side, in number order"),
    _sig("step", 4, 5, doc="where a cell goes after n unit steps in a direction, in a side's frame (may be out); "
                           "an optional fifth argument is what a step onto the net costs (default 1)"),
    _sig("reach", 4, 5, doc="every landing cell of an exact-distance movement: no reversing, no stop on the net"),
    _sig("distance", 2, doc="unit steps between two cells along the axes (Manhattan)"),
    _sig("directions", 0, doc="every declared direction"),
)}
