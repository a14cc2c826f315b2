"""A run's games kept as compact columns, filled part by part as the games arrive: what `vbr sim`
keeps of each game instead of its `Trial`.

A `ColumnStore` holds, per game, only the figures a run's summary, plots and per-agent win rates
read: winner, first side, choices, forced choices, options offered, the final points per side,
the six score-track figures (`columns.figures`), the seating it was played in (an index into the
store's `seatings`), its seed (with the seating, its deal: what pairs it with the same deal's game
in another run) and each declared measure's value; and, over all games, the restricted counts'
totals. Each figure is a `Column`: a typed `array` of the narrowest integer type its values fit
(or of floats), widened when a value does not fit, None kept as the type's lowest value. A Siatka
game costs about 25 bytes (a `Trial` about 500).

It reads as `columns.Columns` does (the same names, the same values game for game, a bool read
back as 0 or 1), so the metrics that read a `Columns` read a store as well; tests/test_column_store.py
holds the two to each other.
"""
from __future__ import annotations

from array import array
from collections import Counter
from itertools import repeat
from operator import and_, attrgetter, is_not, itemgetter, methodcaller

from vbr.collector import uncollected
from vbr.analysis.columns import FIGURES, figures

_WIDER = {"b": "h", "h": "i", "i": "q"}  # the next integer type, when a value does not fit
_LOWEST = {code: -(1 << (8 * array(code).itemsize - 1)) for code in "bhiq"}  # each type's None


class Column:
    """One figure of many games, in order: a typed array (ints of the narrowest type their values
    fit, or floats), None kept as the type's lowest value, or a list for values of neither kind
    (or floats with None). `extend(values)` appends; it reads as a sequence of the values given
    (ints and floats as themselves, bools as 0 or 1)."""

    __slots__ = ("values", "nones")

    def __init__(self, games: int = 0):
        """A column of `games` Nones (a figure the games before it did not have)."""
        self.values: array | list = array("b")
        self.nones = False
        if games:
            self.extend([None] * games)

    def extend(self, batch: list) -> None:
        """The values of some more games appended, the array widened (or made a list) if one of
        them does not fit it."""
        values = self.values
        if type(values) is list:
            values.extend(batch)
        elif values.typecode == "d" or (not values and batch and type(batch[0]) is float):
            self._extend_floats(batch)
        else:
            self._extend_ints(batch)

    def _extend_ints(self, batch: list) -> None:
        values, low = self.values, _LOWEST[self.values.typecode]
        if low in batch:  # a real value where None would be: a wider type
            return self._widened(batch)
        if None in batch:
            self.nones = True
            batch = [low if v is None else v for v in batch]
        before = len(values)
        try:
            values.extend(batch)
        except (OverflowError, TypeError):
            del values[before:]
            self._widened(self._decoded(batch))

    def _extend_floats(self, batch: list) -> None:
        if set(map(type, batch)) <= {float} and not self.nones:
            if self.values.typecode != "d":
                self.values = array("d")
            self.values.extend(batch)
        else:
            self._as_list()
            self.values.extend(batch)

    def _as_list(self) -> None:
        """The column as a list of its values, None as itself."""
        self.values, self.nones = list(self), False

    def _decoded(self, batch: list) -> list:
        """A batch mapped for this array back to the values given."""
        low = _LOWEST.get(self.values.typecode)
        return [None if v == low and type(v) is int else v for v in batch] if self.nones else batch

    def _widened(self, batch: list) -> None:
        """The column in the next wider integer type (a list past the widest, or when the batch
        holds a value no integer type takes), then the batch appended."""
        code = _WIDER.get(self.values.typecode)
        ints = all(type(v) in (int, bool) or v is None for v in batch)
        if code is None or not ints:
            self._as_list()
        else:
            old, new = _LOWEST[self.values.typecode], _LOWEST[code]
            self.values = array(code, map({old: new}.get, self.values, self.values) if self.nones else self.values)
        self.extend(batch)

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        values = self.values
        if type(values) is list or not self.nones:
            return iter(values)
        low = _LOWEST[values.typecode]
        return map({low: None}.get, values, values)  # each value, None where the lowest stands

    def __getitem__(self, i: int):
        v = self.values[i]
        return None if self.nones and v == _LOWEST[self.values.typecode] else v

    def count(self, value) -> int:
        """How many games have this value (None: how many have none)."""
        values = self.values
        if type(values) is list:
            return values.count(value)
        if value is None:
            return values.count(_LOWEST[values.typecode]) if self.nones else 0
        return values.count(value)

    def nbytes(self) -> int:
        """The memory its values take (a list: its pointers only)."""
        values = self.values
        return len(values) * (8 if type(values) is list else values.itemsize)


_NOT_CARRIED = (None, None)  # the (kind, value) of a measure a game does not carry
_FIELDS = ("winner", "first_side", "choices", "forced", "options", "seed")  # Trial fields kept as they are


class ColumnStore:
    """Many games' figures, one `Column` each, game i at index i, in the order they were added;
    read as `columns.Columns` reads (see the module's text).

    `add(trials)` appends games (it reads them and keeps none). Readings: the columns winner,
    first_side, choices, forced, options, seed, FIGURES, seating (an index into `seatings`), points (each
    game's final score, a tuple, or None) and the selections scored, decided, decided_scored;
    counts games, sides (the most of any game), wins, draws, restricted (the restricted counts
    summed); `measure`, `unset`, `measure_kinds`, `ordered`, `top_side`, `seatings_won`, `margins`.
    """

    def __init__(self):
        self.games = self.sides = 0
        for name in (*_FIELDS, *FIGURES, "seating", "points_size"):
            setattr(self, "_" + name, Column())
        self._points: list[Column] = []  # side k's final points in each game
        self._kinds: dict[str, str] = {}  # the measures seen, in the order first seen, with their kinds
        self._measures: dict[str, Column] = {}
        self._not_carried: Counter = Counter()  # games that do not carry each measure
        self._seatings: dict[tuple, int] = {}  # agents in seat order -> seating index, as first seen
        self.restricted = [0, 0]  # choices narrowed, choices left whole, over all games
        self._read: dict[str, object] = {}  # derived columns, made on first reading

    @classmethod
    def of(cls, trials) -> "ColumnStore":
        """The store of these games."""
        store = cls()
        store.add(trials)
        return store

    @uncollected()
    def add(self, trials: list) -> None:
        """These games' figures appended, in their order."""
        if not trials:
            return
        for name in _FIELDS:
            getattr(self, "_" + name).extend(list(map(attrgetter(name), trials)))
        walked = list(map(figures, trials))
        for k, name in enumerate(FIGURES):
            getattr(self, "_" + name).extend(list(map(itemgetter(k), walked)))
        self._add_points(list(map(attrgetter("points"), trials)))
        self._add_measures(list(map(attrgetter("measures"), trials)))
        self._add_seatings(list(map(attrgetter("agents"), trials)))
        self.sides = max(self.sides, max(map(attrgetter("sides"), trials)))
        restricted = [t.restricted for t in trials]
        self.restricted[0] += sum(map(itemgetter(0), restricted))
        self.restricted[1] += sum(map(itemgetter(1), restricted))
        self.games += len(trials)
        self._read.clear()

    def _add_points(self, points: list) -> None:
        """Each game's final score: its size (None without points), and side k's points."""
        sizes = [None if p is None else len(p) for p in points] if None in points else list(map(len, points))
        self._points_size.extend(sizes)
        most = max(filter(None, sizes), default=0)
        while len(self._points) < most:
            self._points.append(Column(self.games))
        alike = sizes.count(len(self._points)) == len(sizes)  # every game has every side's points
        for k, column in enumerate(self._points):
            column.extend(list(map(itemgetter(k), points)) if alike else
                          [p[k] if p is not None and k < len(p) else None for p in points])

    def _add_measures(self, measures: list) -> None:
        """Each measure's value per game (None where unset or not carried), and how many games do
        not carry it; a measure first seen here gets Nones for the games before."""
        for ms in measures:
            if not ms.keys() <= self._kinds.keys():
                for name, (kind, _) in ms.items():
                    if name not in self._kinds:
                        self._kinds[name] = kind
                        self._measures[name] = Column(self.games)
                        self._not_carried[name] += self.games
        for name, column in self._measures.items():
            entries = list(map(methodcaller("get", name, _NOT_CARRIED), measures))
            self._not_carried[name] += entries.count(_NOT_CARRIED)
            column.extend(list(map(itemgetter(1), entries)))

    def _add_seatings(self, agents: list) -> None:
        """Each game's seating, by its agents list: games of one seating mostly share one list
        (vbr.shared_values), so each list is looked up once per call."""
        ids = list(map(id, agents))
        index = {key: self._seating_of(a) for key, a in dict(zip(ids, agents)).items()}
        self._seating.extend(list(map(index.__getitem__, ids)))

    def _seating_of(self, agents) -> int:
        key = tuple(agents)
        index = self._seatings.get(key)
        if index is None:
            index = self._seatings[key] = len(self._seatings)
        return index

    # ---------------------------------------------------------------------------- readings
    winner = property(lambda self: self._winner)
    first_side = property(lambda self: self._first_side)
    choices = property(lambda self: self._choices)
    forced = property(lambda self: self._forced)
    options = property(lambda self: self._options)
    seating = property(lambda self: self._seating)
    seed = property(lambda self: self._seed)
    points_scored = property(lambda self: self._points_scored)
    lead_changes = property(lambda self: self._lead_changes)
    largest_lead = property(lambda self: self._largest_lead)
    final_margin = property(lambda self: self._final_margin)
    decisiveness = property(lambda self: self._decisiveness)
    comeback = property(lambda self: self._comeback)

    @property
    def seatings(self) -> list[tuple]:
        """The seatings played (agents in seat order), in the order first played."""
        return list(self._seatings)

    seatings_played = property(lambda self: len(self._seatings), doc="how many seatings the games were played in")

    points_size = property(lambda self: self._points_size, doc="each game's number of points (None without points)")

    def points_side(self, k: int) -> Column:
        """Side k's final points in each game (None where the game has no points, or fewer sides)."""
        return self._points[k]

    @property
    def points(self):
        """Each game's final score: a tuple of its sides' points, None without points."""
        rows = zip(*self._points) if self._points else repeat((), self.games)  # every side's, per game
        return (None if size is None else row[:size] for size, row in zip(self._points_size, rows))

    @property
    def scored(self) -> array:
        """Per game, 1 where it has points."""
        return self._derived("scored", lambda: array("b", map(is_not, self._points_size, repeat(None))))

    @property
    def decided(self) -> array:
        """Per game, 1 where it has a winner."""
        return self._derived("decided", lambda: array("b", map(is_not, self._winner, repeat(None))))

    @property
    def decided_scored(self) -> array:
        return self._derived("decided_scored", lambda: array("b", map(and_, self.decided, self.scored)))

    @property
    def wins(self) -> list[int]:
        """Each side's wins, sides 0..sides-1."""
        return self._derived("wins", lambda: [self._winner.count(s) for s in range(self.sides)])

    @property
    def draws(self) -> int:
        return self._winner.count(None)

    def _derived(self, name: str, make):
        if name not in self._read:
            self._read[name] = make()
        return self._read[name]

    def top_side(self) -> int | None:
        """The side with the most wins (the lowest-numbered one on a tie); None without sides."""
        wins = self.wins
        return max(range(len(wins)), key=wins.__getitem__) if wins else None

    def ordered(self, column: str) -> list[float]:
        """A column's values as floats in ascending order, as quantiles read them; sorted once."""
        return self._derived("ordered:" + column, lambda: sorted(map(float, getattr(self, column))))

    def measure_kinds(self) -> dict[str, str]:
        """The measures the games carry, in the order first seen, with their kinds."""
        return dict(self._kinds)

    def measure(self, name: str) -> Column | list:
        """A measure's value in each game; None where the game does not carry it or left it unset."""
        column = self._measures.get(name)
        return column if column is not None else [None] * self.games

    def unset(self, name: str) -> int:
        """How many games carry the measure but never set it."""
        return self.measure(name).count(None) - self._not_carried[name]

    def seatings_won(self) -> dict[tuple, int]:
        """How many games each (agents in seat order, winner, seed) came out of, in the order first
        seen: the seed is the game's deal, which it shares with the deal's other seatings."""
        seatings = self.seatings
        won = Counter(zip(self._seating, self._winner, self._seed))
        return {(seatings[k], w, seed): n for (k, w, seed), n in won.items()}

    def nbytes(self) -> int:
        """The memory the per-game columns take."""
        columns = [getattr(self, "_" + n) for n in (*_FIELDS, *FIGURES, "seating", "points_size")]
        return sum(c.nbytes() for c in (*columns, *self._points, *self._measures.values()))
