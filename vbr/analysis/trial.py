"""One finished game as data: what every metric is computed from.

A `Trial` is what `vbr sim --out` writes one row of, and what `metrics` reads. It holds no state
and no names of a game: sides are seats, or teams in a game of teams; the score is the rule
file's declared `points`, sampled after every choice.

A run keeps millions of them, so a Trial is small: it has slots, and the values many games have
alike are one object shared between them (vbr.shared_values.SHARED): its agents list, its points
and restricted counts, each (choices, score) pair of its score track and each score in them, its
measures dict, and its count of options when it is above SMALL_INT. Nobody mutates these: a
Trial's agents, points, score track pairs and measures may be another Trial's too, so code that
wants other values assigns a new object to the attribute.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter

from vbr.shared_values import SHARED, SMALL_INT


@dataclass(slots=True)
class Trial:
    index: int  # the game's number in its run (0..n-1)
    seed: int  # the game's own seed: `vbr run FILE --seed SEED` plays it again
    agents: list[str]  # one agent spec per seat
    sides: int  # how many sides can win: seats, or teams in a game of teams
    winner: int | None  # the winning side, None for a draw
    points: tuple | None  # the final score, one entry per side (None when the file declares no points)
    choices: int  # choices made, forced ones included
    forced: int  # choices that had exactly one legal option
    options: int  # the sum, over all choices, of the number of legal options offered
    first_side: int | None  # the side that made the game's first choice
    # the score after every choice that changed it: (choices made so far, score); starts empty
    score_track: list = field(default_factory=list)
    # the rule file's measures (`measure NAME: TYPE`): name -> (kind, value), kind `side` (a seat or
    # side measure, as the side it names), `int` or `bool`; value None where the game never set it
    measures: dict = field(default_factory=dict)
    # under `--restrict`: the restricted seat's choices a restriction narrowed, and those it would
    # have emptied (played unrestricted)
    restricted: tuple = (0, 0)

    def __reduce__(self):
        """Pickled as its class and values; unpickled through `SHARED` (`_arrived`), so the trials
        a worker process sends share their values with the ones this process holds."""
        return _arrived, (type(self), *_values(type(self))(self))

    def to_row(self) -> dict:
        return {"index": self.index, "seed": self.seed, "agents": list(self.agents), "sides": self.sides,
                "winner": self.winner, "points": list(self.points) if self.points is not None else None,
                "choices": self.choices, "forced": self.forced, "options": self.options,
                "first_side": self.first_side, "score_track": [[c, list(s)] for c, s in self.score_track],
                "measures": {k: list(v) for k, v in self.measures.items()}, "restricted": list(self.restricted)}

    @classmethod
    def from_row(cls, row: dict) -> "Trial":
        """The game a row holds: a row of `to_row`, or a per-game row of `vbr sim --out` (and of
        `vbr sweep` and `vbr compare --rows`; `metrics.row`), whose final score is `score` and
        whose legal options are `offered` and whose measures are its `measure:NAME` columns. A row
        without what a Trial needs is a ValueError naming the missing columns; the values are
        taken as they are (vbr.analysis.rows checks a file's rows first)."""
        points_key = "points" if "points" in row else "score"
        options_key = "options" if "options" in row else "offered"
        need = ("index", "seed", "agents", "sides", "winner", points_key, "choices", "forced", options_key,
                "first_side", "score_track")
        missing = [k for k in need if k not in row]
        if missing:
            raise ValueError(f"a game row without {', '.join(missing)} (rows written by an older vbr lack them: "
                             f"play the run again)")
        pts = row[points_key]
        return cls(row["index"], row["seed"], list(row["agents"]), row["sides"], row["winner"],
                   tuple(pts) if pts is not None else None, row["choices"], row["forced"], row[options_key],
                   row["first_side"], [(c, tuple(s)) for c, s in row["score_track"]], _measures(row),
                   tuple(row.get("restricted", (0, 0))))


_GETTERS: dict = {}  # a Trial class -> the attrgetter of its fields' values, in order


def _values(cls) -> attrgetter:
    """A function from a `cls` to its fields' values in order (a tuple)."""
    got = _GETTERS.get(cls)
    if got is None:
        names = [f.name for f in fields(cls)]
        got = _GETTERS[cls] = attrgetter(*names) if len(names) > 1 else (lambda t: (getattr(t, names[0]),))
    return got


def _arrived(cls, index, seed, agents, sides, winner, points, choices, forced, options, first_side, score_track,
             measures, restricted, *more) -> Trial:
    """A pickled Trial (or subclass, its own fields in `more`) made again, its values interned by
    `SHARED` as Interner.fields interns a game's."""
    s = SHARED
    return cls(index, seed, s.agents(agents), sides, winner, None if points is None else s.one(points), choices,
               forced, options if options <= SMALL_INT else s.one(options), first_side, s.track(score_track),
               s.measures(measures), s.one(restricted), *more)


def _measures(row: dict) -> dict:
    """The measures of a row: `to_row`'s `measures` ({name: [kind, value]}), or a per-game row's
    `measure:NAME` columns, their kinds in `measure_kinds`."""
    if "measures" in row:
        return {k: tuple(v) for k, v in row["measures"].items()}
    kinds = row.get("measure_kinds") or {}
    return {name: (kind, row.get(f"measure:{name}")) for name, kind in kinds.items()}
