"""A run's games as columns: every per-game figure a summary reads, taken from the trials in one
pass, so that each metric reads a column instead of walking the trials and their score tracks
again.

`figures(t)` gives all of a game's score-track figures from one walk of its track, exactly the
values of the per-game functions of `vbr.analysis.metrics` (points_scored, lead_changes,
largest_lead, final_margin, decisiveness, comeback), which define them and stay what a game's row
reads; tests/test_columns.py holds the two to each other. A `Columns` is built once per list of
trials by each call that summarises it (`Columns(trials)`) and handed to every metric; it is never
kept across calls, since a list of trials may grow (`vbr tune`'s arms). It reads the trials and
never changes them.
"""
from __future__ import annotations

from functools import cached_property
from itertools import repeat
from operator import and_, is_not, itemgetter, methodcaller

from vbr.collector import uncollected
from vbr.analysis.score import gap_of, leader_of
from vbr.analysis.trial import Trial

FIGURES = ("points_scored", "lead_changes", "largest_lead", "final_margin", "decisiveness", "comeback")


# ------------------------------------------------------------------------------ one game, one walk
def figures(t: Trial) -> tuple:
    """(points scored, lead changes, largest lead, final margin, decisiveness, comeback) of one
    game (FIGURES), each the value of the metrics function of that name."""
    track, w = t.score_track, t.winner
    if track and len(track[0][1]) == 2 and (w is None or w == 0 or w == 1):
        return _two_sides(track, w, t.points)
    return _many_sides(track, w, t.points)


def _two_sides(track: list, w: int | None, points: tuple | None) -> tuple:
    """`figures` of a game of a track of two sides' scores, the winner w None, 0 or 1: the leader
    of each score written out, as most games have two sides."""
    changes = largest = last_off = i = 0
    prev = None  # the side that led last
    behind = False  # whether some other side led the winner
    for _, (x, y) in track:
        i += 1
        if x > y:
            lead, gap = 0, x - y
        elif y > x:
            lead, gap = 1, y - x
        else:
            last_off = i  # nobody leads: the winner is not ahead
            continue
        if gap > largest:
            largest = gap
        if lead != prev:
            changes += prev is not None
            prev = lead
        if lead != w:
            last_off, behind = i, True
    if not largest:  # every gap 0: the first one, as `max` gives it (0 or 0.0)
        first = track[0][1]
        largest = abs(first[0] - first[1])
    if w is None:
        return i, changes, largest, 0, 0.0, False
    margin = points[w] - points[1 - w] if points and len(points) == 2 else _margin(points, w)
    return i, changes, largest, margin, (i - last_off) / i, behind


def _many_sides(track: list, w: int | None, points: tuple | None) -> tuple:
    """`figures` of a game of any track (of any number of sides' scores, or none), by
    `leader_of` and `gap_of`."""
    changes = largest = last_off = 0
    prev = None
    behind = False
    for i, (_, s) in enumerate(track, 1):
        s = tuple(s)
        lead, gap = leader_of(s), gap_of(s)
        if gap > largest:
            largest = gap
        if lead is not None and lead != prev:
            changes += prev is not None
            prev = lead
        if lead != w:
            last_off = i
        if w is not None and not behind and s and max(s) > s[w]:
            behind = True
    if not largest and track:
        largest = gap_of(tuple(track[0][1]))
    n = len(track)
    decisive = (n - last_off) / n if w is not None and n else 0.0
    return n, changes, largest, _margin(points, w), decisive, behind


def _margin(points: tuple | None, w: int | None) -> float:
    """The winner's final points less the best other side's (0 for a draw, no points, or fewer
    than two sides)."""
    if w is None or not points or len(points) < 2:
        return 0
    return points[w] - max(p for i, p in enumerate(points) if i != w)


# ------------------------------------------------------------------------------ many games
_ROW = ("sides", "winner", "first_side", "choices", "forced", "options", "points", "measures", "seed")  # Trial's fields


def _walked(k: int) -> property:
    """The column of FIGURES[k]: every game's track walked (`figures`) on the first reading of any
    of them, so that a caller that reads none (a win rate) walks none."""
    return property(lambda self: self._figures[k], doc=f"each game's {FIGURES[k]} (`figures`)")


_NOT_CARRIED = (None, None)  # the (kind, value) of a measure a game does not carry


class Columns:
    """Many games' figures, one list per figure, game i at index i of each, in the trials' order;
    read only.

    Columns of `Trial` fields: winner, first_side, choices, forced, options, points (the final
    score, None without declared points), measures (each game's dict), seed; of `figures`: FIGURES;
    of selections (bools): scored (the game has points), decided (it has a winner),
    decided_scored (both). Counts: games, sides (the most of any game, 0 for none), wins (per
    side, 0..sides-1), draws, seatings_played (the seatings of agents the games were played in).
    `measure(name)` and `unset(name)`: a declared measure's values; `ordered(column)`: a column
    sorted.
    """

    def __init__(self, trials: list[Trial], walk: bool = True):
        """The columns of these trials (of the games in the list now, should it grow later), from
        one pass over them. `walk`: walk each game's score track now, in the same pass, the
        cheaper for a caller that reads the figures; else on the first reading of one of them,
        and not at all for a caller that reads none.

        Why a row a game, read apart by `itemgetter`, made `uncollected`: so many new objects
        would set off a collection of every object there is (vbr.collector), which cost
        more than the figures; and zip(*rows) makes an iterator a row."""
        with uncollected():
            if walk:
                rows = [(t.sides, t.winner, t.first_side, t.choices, t.forced, t.options, t.points, t.measures,
                         t.seed, *figures(t)) for t in trials]
                self._figures = [list(map(itemgetter(k), rows)) for k in range(len(_ROW), len(_ROW) + len(FIGURES))]
            else:
                self._trials = list(trials)  # as they are now: `_figures` walks these
                rows = [(t.sides, t.winner, t.first_side, t.choices, t.forced, t.options, t.points, t.measures,
                         t.seed) for t in trials]
            for k, name in enumerate(_ROW):
                setattr(self, name, list(map(itemgetter(k), rows)))
            self.games = len(rows)
            self.seatings_played = len({tuple(t.agents) for t in trials})
            del rows  # before the collector runs again, which would look through them once more
        self.sides = max(self.sides, default=0)
        self.scored = list(map(is_not, self.points, repeat(None)))
        self.decided = list(map(is_not, self.winner, repeat(None)))
        self.decided_scored = list(map(and_, self.decided, self.scored))
        self.wins = [self.winner.count(s) for s in range(self.sides)]
        self.draws = self.winner.count(None)
        self._measures: dict[str, tuple[list, int]] = {}
        self._ordered: dict[str, list] = {}

    @cached_property
    def _figures(self) -> list[list]:
        """The columns of FIGURES, in order: one walk of each game's score track (unless
        __init__ walked them)."""
        with uncollected():
            walked = [figures(t) for t in self._trials]
        return [list(map(itemgetter(k), walked)) for k in range(len(FIGURES))]

    points_scored, lead_changes, largest_lead, final_margin, decisiveness, comeback = map(_walked, range(len(FIGURES)))

    def top_side(self) -> int | None:
        """The side with the most wins (the lowest-numbered one on a tie); None without sides."""
        return max(range(len(self.wins)), key=self.wins.__getitem__) if self.wins else None

    def ordered(self, column: str) -> list[float]:
        """A column's values as floats in ascending order, as quantiles read them; sorted once."""
        if column not in self._ordered:
            self._ordered[column] = sorted(map(float, getattr(self, column)))
        return self._ordered[column]

    def measure_kinds(self) -> dict[str, str]:
        """The measures the games carry, in the order the file declares them, with their kinds."""
        kinds: dict[str, str] = {}
        for ms in self.measures:
            if not ms.keys() <= kinds.keys():  # a name not seen yet: most games carry the same
                for name, (kind, _) in ms.items():
                    kinds.setdefault(name, kind)
        return kinds

    def measure(self, name: str) -> list:
        """A measure's value in each game; None where the game does not carry it or left it unset."""
        return self._measure(name)[0]

    def unset(self, name: str) -> int:
        """How many games carry the measure but never set it."""
        return self._measure(name)[1]

    def _measure(self, name: str) -> tuple[list, int]:
        """(`measure(name)`, `unset(name)`), read once."""
        if name not in self._measures:
            entries = list(map(methodcaller("get", name, _NOT_CARRIED), self.measures))  # (kind, value)
            values = list(map(itemgetter(1), entries))
            self._measures[name] = values, values.count(None) - entries.count(_NOT_CARRIED)
        return self._measures[name]
