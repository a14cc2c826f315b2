"""Equal values of many finished games held as one object (`SHARED`): what keeps a run of
millions of games (vbr.sim, vbr.analysis.trial.Trial) a few hundred bytes a game.

Nobody mutates a value handed out here: it may be another game's too.
"""
from __future__ import annotations

INTERN_BOUND = 1 << 17  # values SHARED holds at most (a million Siatka games have a few thousand)
SMALL_INT = 256  # Python's own ints up to this are one object each already; a larger count of options is interned


class Interner:
    """Equal values handed out as one object. `one(value)` is the value interned before that
    equals `value` (`==`, so 1, 1.0 and True are one value, the first one met), else `value`
    itself, kept for the next ones. Bounded: it holds at most `bound` values, and once full it
    stops interning new ones rather than grow: a value it does not hold is handed back as it is
    (equal, only not shared), and the values it holds stay shared. Lists and dicts (agents,
    measures) are interned under a key made of their items, as values nobody mutates; the rows
    of an engine's flat score track under the row (`track_of`)."""

    def __init__(self, bound: int = INTERN_BOUND):
        self.bound = bound
        self.table: dict = {}  # value -> the one equal value handed out; tagged keys -> list or dict
        self.rows: dict = {}  # a flat track row (choices, *points) -> its interned (choices, points) pair

    def __len__(self) -> int:
        return len(self.table) + len(self.rows)

    def one(self, value):
        """The interned value equal to `value`, or `value` itself (also when it cannot be hashed:
        a list of points in a Trial made by hand)."""
        table = self.table
        try:
            got = table.get(value)
        except TypeError:
            return value
        if got is not None:
            return got
        if len(table) + len(self.rows) < self.bound:
            table[value] = value
        return value

    def keyed(self, key: tuple, make):
        """The value kept under `key`, else `make()`, kept under it while there is room."""
        got = self.table.get(key)
        if got is None:
            got = make()
            if len(self) < self.bound:
                self.table[key] = got
        return got

    def agents(self, agents: list) -> list:
        """The one agents list with these agents in this order."""
        return self.keyed((_AGENTS, *agents), lambda: list(agents))

    def measures(self, measures: dict) -> dict:
        """The one measures dict equal to `measures`, its (kind, value) tuples interned; a
        measure whose value cannot be hashed leaves the dict as it is."""
        try:
            return self.keyed((_MEASURES, *measures.items()),
                              lambda: {k: self.one(v) for k, v in measures.items()})
        except TypeError:
            return measures

    def track(self, track: list) -> list:
        """A score track (a new list) of the interned (choices, score) pairs equal to its own, each
        score in them interned too; a track of lists (made by hand) is left as it is."""
        try:
            out = list(map(self.table.get, track))
        except TypeError:
            return track
        if None in out:
            one = self.one
            for k, got in enumerate(out):
                if got is None:
                    c, score = track[k]
                    out[k] = one((c, one(score)))
        return out

    def track_of(self, flat: list, width: int) -> list:
        """The score track whose rows, `width` words each (the choices made, then the points),
        are laid one after the other in `flat`: a new list of the interned (choices, points)
        pairs, as `track` gives, found by the rows themselves."""
        if not flat:
            return []
        words = iter(flat)  # zipped with itself: each row's words in turn, nothing sliced
        rows = zip(words, words, words) if width == 3 else zip(*[words] * width)  # two sides' points: written out
        out = list(map(self.rows.get, rows))  # zip's row tuples are reused: one lookup a row, nothing made
        if None in out:
            one = self.one
            for k, got in enumerate(out):
                if got is None:
                    row = tuple(flat[k * width:(k + 1) * width])
                    out[k] = pair = one((row[0], one(row[1:])))
                    if len(self) < self.bound:
                        self.rows[row] = pair
        return out

    def fields(self, values: tuple) -> tuple:
        """GameResult.trial_fields (winner, points, choices, forced, options, first side, score
        track, measures, restricted) with their points, track, measures and restricted interned."""
        winner, points, choices, forced, options, first, track, measures, restricted = values
        return (winner, None if points is None else self.one(points), choices, forced,
                options if options <= SMALL_INT else self.one(options), first, self.track(track),
                self.measures(measures), self.one(restricted))


_AGENTS, _MEASURES = object(), object()  # the tags of Interner's keys for lists and dicts
SHARED = Interner()  # the process's one Interner: every Trial a run makes or receives uses it
