"""One finished game as data: what every metric is computed from.

A `Trial` is what `vbr sim --out` writes one row of, and what `metrics` reads. It holds no state
and no names of a game: sides are seats, or teams in a game of teams; the score is the rule
file's declared `points`, sampled after every choice.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
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
        without what a Trial needs is a ValueError naming the missing columns."""
        points_key = "points" if "points" in row else "score"
        options_key = "options" if "options" in row else "offered"
        need = ("index", "seed", "agents", "sides", "winner", points_key, "choices", "forced", options_key,
                "first_side", "score_track")
        missing = [k for k in need if k not in row]
        if missing:
            raise ValueError(f"a game row without {', '.join(missing)} (rows written by an older vbr lack them: "
                             f"play the run again)")
        _check_kinds(row, points_key, options_key)
        pts = row[points_key]
        return cls(row["index"], row["seed"], list(row["agents"]), row["sides"], row["winner"],
                   tuple(pts) if pts is not None else None, row["choices"], row["forced"], row[options_key],
                   row["first_side"], [(c, tuple(s)) for c, s in row["score_track"]], _measures(row),
                   tuple(row.get("restricted", (0, 0))))


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _numbers(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)


def _check_kinds(row: dict, points_key: str, options_key: str) -> None:
    """A ValueError naming the first column of `row` holding what no game writes there: rows are
    read from files anyone may have edited."""
    for k in ("index", "seed", "choices", "forced", options_key):
        if not _whole(row[k]):
            raise ValueError(f"`{k}` is not a whole number")
    if not (_whole(row["sides"]) and row["sides"] >= 1):
        raise ValueError("`sides` is not a whole number from 1 up")
    if not (isinstance(row["agents"], list) and all(isinstance(a, str) for a in row["agents"])):
        raise ValueError("`agents` is not a list of agent specs")
    for k in ("winner", "first_side"):
        v = row[k]
        if v is not None and not (_whole(v) and v < row["sides"]):
            raise ValueError(f"`{k}` is {v!r}, not a side (0..{row['sides'] - 1}) or none")
    if row[points_key] is not None and not _numbers(row[points_key]):
        raise ValueError(f"`{points_key}` is not a list of numbers")
    track = row["score_track"]
    if not (isinstance(track, list) and all(isinstance(e, list) and len(e) == 2 and _whole(e[0]) and _numbers(e[1])
                                            for e in track)):
        raise ValueError("`score_track` is not a list of [choices, score] pairs")
    restricted = row.get("restricted", [0, 0])
    if not (isinstance(restricted, (list, tuple)) and len(restricted) == 2 and all(map(_whole, restricted))):
        raise ValueError("`restricted` is not two whole numbers")


def _measures(row: dict) -> dict:
    """The measures of a row: `to_row`'s `measures` ({name: [kind, value]}), or a per-game row's
    `measure:NAME` columns, their kinds in `measure_kinds`."""
    if "measures" in row:
        return {k: tuple(v) for k, v in row["measures"].items()}
    kinds = row.get("measure_kinds") or {}
    return {name: (kind, row.get(f"measure:{name}")) for name, kind in kinds.items()}
