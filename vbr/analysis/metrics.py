"""Balance metrics: what one finished game says, and what many say together, with 95% intervals.

Per game, each metric is a pure function of one `Trial`, read from its score track, its winner
and its choice counts only; a game's names never enter. Over many games, `summarize` gives every
metric a value, an interval and the games it is taken over, and `compare` gives the difference
between two runs (b − a) with an interval of its own; both read a run's games as columns
(`vbr.analysis.columns`), made once per call, every per-game figure of a game the value of its
function here. docs/analysis.md defines each metric and where it comes from (Browne 2008;
Ludii's metrics).

Lead and trail follow the declared points: after each score change the leader is the side with
strictly the most points, and nobody leads while the top is shared. Every game starts level.
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from functools import partial
from itertools import compress, islice, repeat
from operator import eq, is_, is_not, itemgetter, neg, sub
from statistics import fmean
from typing import Callable

from vbr.analysis import stats as S
from vbr.analysis.collector import uncollected
from vbr.analysis.columns import Columns
from vbr.analysis.score import gap_of, leader_of
from vbr.analysis.trial import Trial

SIDE_LABELS = ("seat", "team")


# ------------------------------------------------------------------------------ one game
def _leaders(track: list) -> list:
    """The leader (`leader_of`) after each score change of a track; two sides' written out, the
    common case, as a metric reads every game's track."""
    if track and len(track[0][1]) == 2:
        return [0 if a > b else 1 if b > a else None for _, (a, b) in track]
    return [leader_of(tuple(s)) for _, s in track]


def _gap(score) -> float:
    """Top minus second; a game of one side has nobody to lead."""
    return gap_of(tuple(score))


def final_margin(t: Trial) -> float:
    """The winner's final points minus the best of the other sides': against the nearest rival,
    since with more than two sides the distant ones say nothing about how close it was.
    Negative when a side won without the most points; 0 for a draw or a game without points."""
    if t.winner is None or not t.points or len(t.points) < 2:
        return 0
    return t.points[t.winner] - max(p for i, p in enumerate(t.points) if i != t.winner)


def lead_changes(t: Trial) -> int:
    """How often the lead passed from one side to another, ties skipped: 1-0, 1-1, 1-2 is one
    change (0 leads, nobody, 1 leads), not two, since a tie alone takes no lead away."""
    leaders = [x for x in _leaders(t.score_track) if x is not None]
    return sum(a != b for a, b in zip(leaders, leaders[1:]))


def largest_lead(t: Trial) -> float:
    """The widest gap between first and second at any point: how far a game ran away, even if it
    came back, which the final margin cannot show."""
    track = t.score_track
    if track and len(track[0][1]) == 2:
        return max([abs(a - b) for _, (a, b) in track])
    return max((_gap(s) for _, s in track), default=0)


def decisiveness(t: Trial) -> float:
    """The share of the game's points (score changes) played from the start of the stretch in
    which the eventual winner took the lead for the last time, to the end: 1.0 when it led from
    the first point on, small when it went ahead late.

    Why points, not choices: choices made before play (Siatka's tile placement, a draft, any
    set-up a file plays as choices) score nothing and decide nothing in this sense, yet were a
    fifth of a Siatka game's choices; a point is the unit of play every game with a score has.
    Why from that stretch's start: the point that put the winner ahead for good belongs to the
    part of the game that decided it. 0 for a draw, a game without points, and a winner that did
    not finish strictly ahead on points.
    """
    if t.winner is None or not t.score_track:
        return 0.0
    leaders = _leaders(t.score_track)
    if leaders[-1] != t.winner:
        return 0.0
    # the score changes made up to the last one after which the winner was not ahead
    start = next((i for i in range(len(leaders), 0, -1) if leaders[i - 1] != t.winner), 0)
    return (len(leaders) - start) / len(leaders)


def comeback(t: Trial) -> bool:
    """Whether the winner was behind (some other side strictly ahead of it) at some point."""
    if t.winner is None:
        return False
    w, track = t.winner, t.score_track
    if track and len(track[0][1]) == 2:
        return any(s[1 - w] > s[w] for _, s in track)
    return any(s and max(s) > s[w] for _, s in track)  # only another side can top s[w]


def points_scored(t: Trial) -> int:
    """Score changes: the points (rallies) played, whatever each was worth."""
    return len(t.score_track)


def branching(t: Trial) -> float:
    """Legal options per choice in this game (0 for a game of no choices)."""
    return t.options / t.choices if t.choices else 0.0


def forced_share(t: Trial) -> float:
    """The share of this game's choices that offered one option only (0 for no choices)."""
    return t.forced / t.choices if t.choices else 0.0


def row(t: Trial, run: dict | None = None) -> dict:
    """One game as a flat record for JSONL: lists stay lists, floats have 4 decimals. Its first
    fields are figures of the game (`CSV_FIELDS`); `sides`, `offered` (the legal options summed over
    its choices), `score_track` and `restricted` (under `--restrict`: the choices a restriction
    narrowed and those it left whole) make it whole again (`Trial.from_row`), with the file's measures
    (`measure:NAME` each, and `measure_kinds`) where it declares any; `run`, if given, names
    what was played (`RUN_FIELDS`: the arm, the rule file, its options, the engine, the
    `--restrict` rules), so rows of
    several runs can be merged (`vbr summarize`)."""
    out = {"index": t.index, "seed": t.seed, "agents": list(t.agents), "winner": t.winner,
           "score": list(t.points) if t.points is not None else None, "choices": t.choices,
           "points_scored": points_scored(t), "lead_changes": lead_changes(t),
           "largest_lead": largest_lead(t), "final_margin": final_margin(t),
           "decisiveness": round(decisiveness(t), 4), "comeback": comeback(t), "forced": t.forced,
           "branching": round(branching(t), 4), "first_side": t.first_side, "sides": t.sides,
           "offered": t.options, "score_track": [[c, list(s)] for c, s in t.score_track],
           "restricted": list(t.restricted)}
    if t.measures:  # each measure's value in a column of its own, their kinds in one more
        out |= {f"measure:{name}": value for name, (_, value) in t.measures.items()}
        out["measure_kinds"] = {name: kind for name, (kind, _) in t.measures.items()}
    return out | {k: run[k] for k in RUN_FIELDS} if run is not None else out


CSV_FIELDS = ("index", "seed", "agents", "winner", "score", "choices", "points_scored", "lead_changes",
              "largest_lead", "final_margin", "decisiveness", "comeback", "forced", "branching", "first_side",
              "sides", "offered", "score_track", "restricted")
RUN_FIELDS = ("arm", "rules", "rule_options", "engine", "restrict")


# ------------------------------------------------------------------------------ many games
@dataclass(frozen=True)
class Metric:
    """One summary figure: `sample` draws from a run's columns (`Columns`) what its `kind` of
    interval needs.

    proportion: (k, n, offset), value k/n − offset; mean: one number per game; ratio: per-game
    numerators and denominators, pooled; quantile: one number per game, at `q`. `each` gives the
    same per game, for the differences of paired games (`compare(..., paired=True)`).
    """
    name: str
    label: str
    unit: str  # share | choices | points | count
    kind: str  # proportion | mean | ratio | quantile
    over: str  # the games it is taken over, for the reader and for the reason of a missing value
    sample: Callable[[Columns], object]
    q: float = 0.5
    # for a paired comparison: from a run's columns, each game's value in order (None for a game
    # it is not taken over; for a ratio, (numerator, denominator)); None: never paired
    each: Callable[[Columns], list] | None = None


def _first_mover(c: Columns):
    """(wins of the side that chose first, decided games with a first side, 0)."""
    games = [w == f for w, f in zip(c.winner, c.first_side) if w is not None and f is not None]
    return sum(games), len(games), 0.0


def _each_first_mover(c: Columns) -> list:
    return [_BOTH[w == f] if w is not None and f is not None else None for w, f in zip(c.winner, c.first_side)]


def _fair_share(c: Columns) -> float:
    """An equal share of the wins: 1 / sides (0 without games)."""
    return 1 / c.sides if c.games else 0.0


def _side_advantage(c: Columns):
    top = c.top_side()
    return (c.wins[top] if top is not None else 0), c.games - c.draws, _fair_share(c)


def _per_game(column: str, select: str | None = "scored"):
    """`sample` of a mean or quantile: a column's values as floats (an array of them: 8 bytes a
    game, not a list's 32), over the games `select` (a column of bools) keeps, or over every game."""
    if select is None:
        return lambda c: array("d", map(float, getattr(c, column)))
    return lambda c: array("d", map(float, compress(getattr(c, column), getattr(c, select))))


def _each(column: str, select: str | None = None):
    """`each` of a metric read off a column: its value as a float, None for a game `select` (a
    column of bools) leaves out."""
    return lambda c: _floats(getattr(c, column), getattr(c, select) if select else None)


def _floats(values, keep: list | None) -> list:
    """Each value as a float, None where `keep` (bools, if given) is false."""
    floats = _shared_floats(values)
    if keep is None or all(keep):
        return floats
    return [v if k else None for v, k in zip(floats, keep)]


def _shared_floats(values, value: Callable = float) -> list:
    """Each value's `value` (a float; None as None), games of one value sharing one float: a game
    costs the list's pointer, not a float of its own (a comparison holds many such lists at once)."""
    values = values if hasattr(values, "__len__") else list(values)
    try:
        table = {v: None if v is None else value(v) for v in set(values)}
        return list(map(table.__getitem__, values))
    except (KeyError, TypeError):  # a NaN, which is not found again; a value without a hash
        return [None if v is None else value(v) for v in values]


_BOTH = (0.0, 1.0)  # a bool's float, one object each


def _each_won_by(side: int | None):
    """`each` of a side's win rate over every game: 1.0 where it won, else 0.0 (a draw too)."""
    return lambda c: list(map(_BOTH.__getitem__, map(eq, c.winner, repeat(side))))


def _each_won_by_of_decided(side: int | None):
    """`each` of a side's win share over the decided games: None for a draw."""
    return lambda c: _floats(map(eq, c.winner, repeat(side)), c.decided)


def _wins_top_side(c: Columns) -> list:
    return _each_won_by_of_decided(c.top_side())(c)


def _comebacks(c: Columns):
    return sum(compress(c.comeback, c.decided_scored)), sum(c.decided_scored), 0.0


def _pooled(numerator: str):
    """`sample` of a ratio: a column's per-game numerators over the choices made."""
    return lambda c: (list(getattr(c, numerator)), list(c.choices))


def _each_pooled(numerator: str):
    return lambda c: list(zip(getattr(c, numerator), c.choices))


_lengths = _per_game("choices", None)


def _ordered_lengths(c: Columns) -> list[float]:
    """`sample` of a quantile of the length: the lengths in order (what a quantile reads of them),
    sorted once for all three."""
    return c.ordered("choices")


METRICS = (
    Metric("first_mover_advantage", "first-mover advantage", "share", "proportion",
           "decided games with a first side", _first_mover, each=_each_first_mover),
    Metric("side_advantage", "side advantage", "share", "proportion", "decided games", _side_advantage,
           each=_wins_top_side),
    Metric("draw_rate", "draw rate", "share", "proportion", "games",
           lambda c: (c.draws, c.games, 0.0), each=lambda c: list(map(float, map(is_, c.winner, repeat(None))))),
    Metric("length_mean", "mean length", "choices", "mean", "games", _lengths, each=_each("choices")),
    Metric("length_median", "median length", "choices", "quantile", "games",
           _ordered_lengths, 0.5),
    Metric("length_p10", "length, 10th percentile", "choices", "quantile", "games",
           _ordered_lengths, 0.1),
    Metric("length_p90", "length, 90th percentile", "choices", "quantile", "games",
           _ordered_lengths, 0.9),
    Metric("points_mean", "points per game", "points", "mean", "games with points", _per_game("points_scored"),
           each=_each("points_scored", "scored")),
    Metric("lead_changes_mean", "lead changes per game", "count", "mean", "games with points",
           _per_game("lead_changes"), each=_each("lead_changes", "scored")),
    Metric("decisiveness_mean", "decisiveness", "share", "mean", "decided games with points",
           _per_game("decisiveness", "decided_scored"), each=_each("decisiveness", "decided_scored")),
    Metric("comeback_rate", "comeback rate", "share", "proportion", "decided games with points",
           _comebacks, each=_each("comeback", "decided_scored")),
    Metric("largest_lead_mean", "mean largest lead", "points", "mean", "games with points",
           _per_game("largest_lead"), each=_each("largest_lead", "scored")),
    Metric("final_margin_mean", "mean final margin", "points", "mean", "games with points",
           _per_game("final_margin"), each=_each("final_margin", "scored")),
    Metric("branching_factor", "branching factor", "count", "ratio", "games",
           _pooled("options"), each=_each_pooled("options")),
    Metric("forced_share", "forced choices", "share", "ratio", "games",
           _pooled("forced"), each=_each_pooled("forced")),
)

METHODS = {"proportion": "Wilson score", "mean": "Student's t", "ratio": "ratio, games as clusters",
           "quantile": "order statistics"}
DIFF_METHODS = {"proportion": "Newcombe hybrid score", "mean": "Welch (normal approximation)",
                "ratio": "ratio, games as clusters", "quantile": "Price-Bonett (order statistics)"}
PAIRED_METHODS = {"proportion": "paired: per-seed differences", "mean": "paired: per-seed differences",
                  "ratio": "paired: ratio, per-seed differences"}
ALPHA = 0.05  # the level of every "significant" mark, after Holm's correction over the figures compared


def _count(kind: str, sample) -> int:
    return sample[1] if kind == "proportion" else len(sample[0] if kind == "ratio" else sample)


def _estimate(m: Metric, sample) -> tuple[float | None, tuple | None, str | None]:
    """(value, 95% interval, why there is none)."""
    if _count(m.kind, sample) == 0:
        return None, None, f"no {m.over}"
    if m.kind == "ratio" and not sum(sample[1]):
        return None, None, "no choices were made"
    value, ci = _value_and_ci(m, sample)
    if ci is None:
        few = "for an interval at this quantile" if m.kind == "quantile" else "to measure a spread"
        return value, None, f"too few {m.over} {few}"
    return value, ci, None


def _value_and_ci(m: Metric, sample) -> tuple[float, tuple | None]:
    if m.kind == "proportion":
        k, n, off = sample
        lo, hi = S.wilson(k, n)
        return k / n - off, (lo - off, hi - off)
    if m.kind == "mean":
        return fmean(sample), _clip(m, S.mean_ci(sample))
    if m.kind == "ratio":
        return sum(sample[0]) / sum(sample[1]), S.ratio_ci(*sample)
    return S.quantile(sample, m.q), S.quantile_ci(sample, m.q)


def _clip(m: Metric, ci: tuple | None) -> tuple | None:
    """A normal interval cut to what the metric can be: no share above 100 %, no count below 0."""
    if ci is None:
        return None
    lo, hi = max(ci[0], 0.0), ci[1]
    return (lo, min(hi, 1.0)) if m.unit == "share" else (lo, hi)


def _r(x):
    """Four decimals for floats, lists for intervals (JSON has no tuples)."""
    if isinstance(x, float):
        return round(x, 4)
    if isinstance(x, tuple):
        return [_r(v) for v in x]
    return x


def _entry(m: Metric, c: Columns) -> dict:
    sample = m.sample(c)
    value, ci, reason = _estimate(m, sample)
    out = {"value": _r(value), "ci95": _r(ci), "label": m.label, "unit": m.unit, "n": _count(m.kind, sample),
           "over": m.over, "method": METHODS[m.kind]}
    if reason:
        out["reason"] = reason
    return out | _extra(m.name, c, value, ci)


def _extra(name: str, c: Columns, value, ci) -> dict:
    """The first mover's excess over an equal share, and which side the side advantage is of."""
    if name == "first_mover_advantage" and value is not None:
        fair = 1 / c.sides
        return {"excess": _r(value - fair), "excess_ci95": _r((ci[0] - fair, ci[1] - fair))}
    if name == "side_advantage" and value is not None:
        return {"side": str(c.top_side()), "balance": _r(_balance(c.wins, c.games))}
    return {}


def balance(ts: list[Trial]) -> float | None:
    """Ludii's Balance: 1 − the largest difference between two sides' win rates over all games."""
    return _balance(_wins(ts), len(ts))


def _balance(wins: list[int], games: int) -> float | None:
    """`balance` of these wins per side over so many games (None for no games or one side)."""
    if not games or len(wins) < 2:
        return None
    rates = [w / games for w in wins]
    return 1 - (max(rates) - min(rates))


def _wins(ts: list[Trial]) -> list[int]:
    """Each side's wins, over the most sides of any game."""
    winners = [t.winner for t in ts]
    return [winners.count(s) for s in range(max((t.sides for t in ts), default=0))]


def _win_rates(c: Columns) -> dict:
    n = c.games
    return {str(s): {"wins": k, "value": _r(k / n) if n else None, "ci95": _r(S.wilson(k, n))}
            for s, k in enumerate(c.wins)}


def agent_win_rates(trials: list[Trial], side_of_seat: list[int]) -> dict:
    """Each agent's win rate over the games it played, whatever seat it sat in: the rate that
    rotating the seats makes a measure of the agent rather than of its seat.

    An agent wins a game when the winning side is the side (`side_of_seat[seat]`) of a seat it
    played; draws are nobody's wins. Keyed by agent spec, in the order the agents first appear;
    each entry has its games, wins, the rate and its Wilson interval.
    """
    return seating_win_rates(_seatings_won(trials), side_of_seat)


def seating_win_rates(seatings_won: dict[tuple, int], side_of_seat: list[int]) -> dict:
    """`agent_win_rates` of games counted by (agents in seat order, winner), in the order first
    played (`_seatings_won`, `ColumnStore.seatings_won`)."""
    games: dict[str, int] = {}
    wins: dict[str, int] = {}
    for (agents, winner), n in seatings_won.items():  # in the order first played
        for name in dict.fromkeys(agents):
            games[name] = games.get(name, 0) + n
            won = winner is not None and any(side_of_seat[s] == winner for s, a in enumerate(agents) if a == name)
            wins[name] = wins.get(name, 0) + n * won
    return {name: {"games": n, "wins": wins[name], "value": _r(wins[name] / n), "ci95": _r(S.wilson(wins[name], n))}
            for name, n in games.items()}


def _seatings_won(trials: list[Trial]) -> dict[tuple, int]:
    """How many games each (agents in seat order, winner) came out of, in the order first seen."""
    out: dict[tuple, int] = {}
    for t in trials:
        key = (tuple(t.agents), t.winner)
        out[key] = out.get(key, 0) + 1
    return out


def summarize(trials: list[Trial], side_label: str = "seat", measure_labels: dict | None = None) -> dict:
    """Every metric of METRICS over the trials, each with its interval, or none and the reason;
    then each of the file's measures (`measure_metrics`), with how many games left it unset."""
    return summarize_columns(Columns(trials), side_label, measure_labels)


@uncollected()
def summarize_columns(c: Columns, side_label: str = "seat", measure_labels: dict | None = None) -> dict:
    """`summarize` of a run's columns, for a caller that reads more of them."""
    if side_label not in SIDE_LABELS:
        raise ValueError(f"side_label must be one of {SIDE_LABELS}, not {side_label!r}")
    return {"games": c.games, "sides": side_label, "win_rate": _win_rates(c),
            "metrics": {m.name: _entry(m, c) for m in METRICS},
            "measures": {m.name: _entry(m, c) | _unset(m.name, c)
                         for m in _measure_metrics(c.measure_kinds(), measure_labels)}}


def summary_entry(c: Columns, name: str) -> dict | None:
    """`summarize_columns(c)`'s entry of one metric of METRICS or declared measure
    (`measure:NAME`), worked out alone; None for a name it has no entry of (a measure no game
    carries)."""
    if name.startswith("measure:"):
        m = next((m for m in _measure_metrics(c.measure_kinds(), None) if m.name == name), None)
        return _entry(m, c) | _unset(name, c) if m else None
    m = next((m for m in METRICS if m.name == name), None)
    return _entry(m, c) if m else None


def win_rate_entries(c: Columns) -> dict:
    """`summarize_columns(c)`'s win rates: each side's wins, rate and interval, keyed by side."""
    return _win_rates(c)


# ------------------------------------------------------------------------------ declared measures
def measure_kinds(trials: list[Trial]) -> dict[str, str]:
    """The measures the trials carry, in the order the file declares them, with their kinds."""
    kinds: dict[str, str] = {}
    for t in trials:
        for name, (kind, _) in t.measures.items():
            kinds.setdefault(name, kind)
    return kinds


def measure_metrics(trials: list[Trial], labels: dict | None = None) -> list[Metric]:
    """One metric per declared measure: a side measure as the win rate of the side it names, over
    the decided games that set it ("first server wins"); an int measure as its mean over the games;
    a bool one as the share of games that set it true. `labels` maps a measure to its `as` text."""
    return _measure_metrics(measure_kinds(trials), labels)


def _measure_metrics(kinds: dict[str, str], labels: dict | None) -> list[Metric]:
    """`measure_metrics` of the measures of these kinds (`measure_kinds`)."""
    out = []
    for name, kind in kinds.items():
        label = (labels or {}).get(name, name)
        key = f"measure:{name}"
        if kind == "side":
            out.append(Metric(key, f"{label} wins", "share", "proportion", "decided games that set it",
                              _measure_side_wins(name), each=_each_measure_side(name)))
        elif kind == "int":
            out.append(Metric(key, f"{label}, mean", "count", "mean", "games that set it",
                              lambda c, name=name: [float(v) for v in c.measure(name) if v is not None],
                              each=_each_measure(name, float)))
        else:
            out.append(Metric(key, label, "share", "proportion", "games that set it",
                              _measure_share(name), each=_each_measure(name, lambda v: float(bool(v)))))
    return out


def _measure_side_wins(name: str):
    """`sample` of a side measure: (wins of the side it names, decided games that set it, 0)."""
    def sample(c: Columns):
        games = [w == v for w, v in zip(c.winner, c.measure(name)) if w is not None and v is not None]
        return sum(games), len(games), 0.0
    return sample


def _each_measure_side(name: str):
    return lambda c: [float(w == v) if w is not None and v is not None else None
                      for w, v in zip(c.winner, c.measure(name))]


def _measure_share(name: str):
    """`sample` of a bool measure: (games that set it true, games that set it, 0)."""
    def sample(c: Columns):
        values = [v for v in c.measure(name) if v is not None]
        return sum(1 for v in values if v), len(values), 0.0
    return sample


def _each_measure(name: str, value: Callable):
    """`each` of a measure: `value` of its value, None where a game did not set it."""
    return lambda c: _shared_floats(c.measure(name), value)


def _unset(key: str, c: Columns) -> dict:
    """How many games never set the measure (as `unset`, when some did not)."""
    unset = c.unset(key.split(":", 1)[1])
    return {"unset": unset, "games": c.games} if unset else {}


# ------------------------------------------------------------------------------ two runs
def _win_metrics(a: Columns, b: Columns, side_label: str, names: list[str] | None = None) -> list[Metric]:
    return [Metric(f"win_rate_{s}", f"{side_name(s, side_label, names)} win rate", "share", "proportion", "games",
                   lambda c, s=s: (c.wins[s], c.games, 0.0), each=_each_won_by(s))
            for s in range(min(a.sides, b.sides))]


def side_name(s: int, side_label: str, names: list[str] | None) -> str:
    """Side s as the game names it (`team red`), else by its number (`seat 1`)."""
    return names[s] if names and s < len(names) else f"{side_label} {s}"


def _side_advantage_of(side: int, name: str) -> Metric:
    """The side advantage of one side, the same in both runs: its win share over decided games
    less an equal share. Why fixed: each run's own top side may differ (base favours red, the
    variant blue), and a difference of two different sides' advantages measures nothing."""
    return Metric("side_advantage", f"side advantage of {name}", "share", "proportion", "decided games",
                  lambda c: (c.wins[side] if side < c.sides else 0, c.games - c.draws, _fair_share(c)),
                  each=_each_won_by_of_decided(side))


def _difference(m: Metric, sa, sb) -> tuple | None:
    """The 95% interval of b − a, by the method that suits the metric's kind."""
    if m.kind == "proportion":
        ci = S.diff_proportions(sa[0], sa[1], sb[0], sb[1])
        shift = sa[2] - sb[2]
        return (ci[0] + shift, ci[1] + shift) if ci else None
    if m.kind == "mean":
        return S.diff_means(sa, sb)
    if m.kind == "ratio":
        return S.diff_ratios(*sa, *sb) if sum(sa[1]) and sum(sb[1]) else None
    return S.diff_quantiles(sa, sb, m.q)


def _compare_one(m: Metric, a: Columns, b: Columns, shown=None, pairs=None, per_game=None) -> dict:
    """One row of `compare`: metric m of runs a and b. `shown`: the text of the two values at the
    usual digits; `pairs`: the paired games (`_orders`), None for an unpaired comparison;
    `per_game`: m's `each` of a and of b, where it has one."""
    sa, sb = m.sample(a), m.sample(b)
    (va, _, ra), (vb, _, rb) = _estimate(m, sa), _estimate(m, sb)
    both = va is not None and vb is not None
    paired = _paired(m, per_game, pairs, sa, sb) if both and pairs is not None and per_game else None
    ci = paired["ci"] if paired else _difference(m, sa, sb) if both else None
    reason = None if ci else f"a: {ra}" if ra else f"b: {rb}" if rb else NO_SPREAD
    out = {"metric": m.name, "label": m.label, "unit": m.unit, "a": _r(va), "b": _r(vb),
           "diff": _r(vb - va) if both else None, "ci95": _r(ci),
           "method": PAIRED_METHODS[m.kind] if paired else DIFF_METHODS[m.kind],
           "excludes_0": (ci[0] > 0 or ci[1] < 0) if ci else None,
           "p": S.p_value(vb - va, (ci[1] - ci[0]) / (2 * S.Z95)) if ci else None}
    if paired:
        out |= {"pairs": paired["pairs"], "unpaired_games": paired["unpaired_games"]}
    if reason:
        out["reason"] = reason
    return out | {"sentence": sentence(m.label, m.unit, va, vb, ci, reason, shown)}


def _paired(m: Metric, per_game: tuple[list, list], pairs: tuple[list, list], sa, sb) -> dict | None:
    """The paired interval of b − a: centred on the difference of the two runs' values, as wide as
    the per-seed differences of the pairs in which both games count make it (`S.paired_se`), with
    the games per run that two independent runs would need for its width. None: fewer than two
    such pairs, or differences without spread (all alike), where the unpaired interval stands.
    `per_game`: m's `each` of a and of b; `pairs`: the paired games (`_orders`); `sa`, `sb`: m's
    samples of a and b."""
    ea, eb = per_game
    in_a, in_b = _both_count(ea, eb, pairs)
    if len(in_a) < 2:
        return None
    if m.kind == "ratio":
        se, se_unpaired, va, vb = _paired_ratio(in_a, in_b, sa, sb)
    else:
        se, se_unpaired, va, vb = _paired_mean(in_a, in_b, ea, eb)
    if not se:  # every pair differs alike (no draw in either run, say): no spread to measure
        return None
    d = vb - va
    return {"ci": (d - S.Z95 * se, d + S.Z95 * se), "pairs": len(in_a),
            "unpaired_games": S.unpaired_games(len(in_a), se, se_unpaired)}


def _both_count(ea: list, eb: list, pairs: tuple[list, list]) -> tuple[list, list]:
    """The values of the pairs' games in a and in b, in step, of the pairs in which both count
    (neither is None)."""
    xs, ys = list(map(ea.__getitem__, pairs[0])), list(map(eb.__getitem__, pairs[1]))
    if None in xs or None in ys:
        kept = [x is not None and y is not None for x, y in zip(xs, ys)]
        return list(compress(xs, kept)), list(compress(ys, kept))
    return xs, ys


def _paired_ratio(in_a: list[tuple], in_b: list[tuple], sa, sb) -> tuple:
    """(paired se, unpaired se or None, value of a, value of b) of a ratio's (numerator,
    denominator) pairs, a's and b's in step, the samples of the two runs being sa and sb."""
    first, second = itemgetter(0), itemgetter(1)
    se = S.paired_ratio_se(list(map(first, in_a)), list(map(second, in_a)),
                           list(map(first, in_b)), list(map(second, in_b)))
    alone = S.ratio_se(*sa), S.ratio_se(*sb)
    se_unpaired = math.hypot(*alone) if None not in alone else None
    return se, se_unpaired, sum(sa[0]) / sum(sa[1]), sum(sb[0]) / sum(sb[1])


def _paired_mean(in_a: list, in_b: list, ea: list, eb: list) -> tuple:
    """(paired se, unpaired se or None, mean of a, mean of b) of a per-game figure, from the pairs
    in which both count (a's values and b's in step) and each run's values (None where a game
    does not count)."""
    se = S.paired_se(list(map(sub, in_b, in_a)))
    xs, ys = list(filter(_is_value, ea)), list(filter(_is_value, eb))
    se_x, se_y = S.mean_se(xs), S.mean_se(ys)
    se_unpaired = math.hypot(se_x, se_y) if se_x is not None and se_y is not None else None
    return se, se_unpaired, fmean(xs), fmean(ys)


_is_value = partial(is_not, None)  # not None


NO_SPREAD = "ties fill the order-statistic interval: no standard error can be read off it"


def pair_up(a: list[Trial], b: list[Trial]) -> list[tuple[int, int]]:
    """The games of two runs played on the same deal: (i, j) with a[i] and b[j] of the same seed
    and the same agents in the same seats, in a's order; a game with no partner is left out."""
    where = {(t.seed, *t.agents): j for j, t in enumerate(b)}
    return [(i, where[k]) for i, k in enumerate([(t.seed, *t.agents) for t in a]) if k in where]


def pair_up_stores(a, b) -> list[tuple[int, int]]:
    """`pair_up` of two runs kept as `ColumnStore`s (read by their `seed`, `seating` and
    `seatings`): the same pairs as of the runs' trials. Each deal is keyed by one int (its seed
    times the seatings of both runs, plus its seating's number among them), cheaper than a tuple."""
    numbers = {seating: k for k, seating in enumerate(dict.fromkeys([*a.seatings, *b.seatings]))}
    where = {}
    for j, key in enumerate(_deal_keys(b, numbers)):
        where[key] = j
    return [(i, where[k]) for i, k in enumerate(_deal_keys(a, numbers)) if k in where]


def _deal_keys(store, numbers: dict) -> map:
    """Each game's deal as one int: seed × len(numbers) + its seating's number in `numbers`."""
    own = [numbers[s] for s in store.seatings]  # the store's seating index -> its number in both
    size = len(numbers)
    return map(lambda seed, k: seed * size + own[k], store.seed, store.seating)


def _orders(pairs: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The paired games as two lists: the games of a, and their partners in b, in step."""
    return [i for i, _ in pairs], [j for _, j in pairs]


@uncollected()
def compare(a: list[Trial], b: list[Trial], side_label: str = "seat", names: list[str] | None = None,
            measure_labels: dict | None = None, paired: bool = False) -> list[dict]:
    """Each side's win rate, then every metric of METRICS, then the measures both runs carry: a, b,
    b − a and its 95% interval, whether it excludes 0 (`excludes_0`), its p-value, and
    `significant`: Holm's adjusted p-value over every figure with an interval (`p_holm`) below
    ALPHA. The sides are called by `names` (the game's, as `vbr.play.side_names` gives them) when
    given, and the side advantage is taken in both runs of the side that has it in `a`.

    `paired`: the runs played the same deals (seeds and seatings), and a figure's interval comes
    from the differences of the games of one deal (`pair_up`), wherever a figure has a value per
    game (`Metric.each`); quantiles keep their unpaired interval. Only when every game of each run
    has its partner in the other: else every interval is unpaired. Why lists of trials rather than
    two summaries: the interval of a difference needs each run's spread, or each pair's difference,
    not only its two interval ends.
    """
    if side_label not in SIDE_LABELS:
        raise ValueError(f"side_label must be one of {SIDE_LABELS}, not {side_label!r}")
    pairs = pair_up(a, b) if paired else None
    return compare_columns(Columns(a), Columns(b), side_label, names, measure_labels, pairs)


@uncollected()
def compare_columns(ca, cb, side_label: str = "seat", names: list[str] | None = None,
                    measure_labels: dict | None = None, pairs: list[tuple[int, int]] | None = None) -> list[dict]:
    """`compare` of two runs read as columns (`Columns`, or `ColumnStore`s), `pairs` their paired
    games (`pair_up`, `pair_up_stores`; None: unpaired): the same rows as `compare` of their
    trials with `paired` (or without, for None)."""
    if side_label not in SIDE_LABELS:
        raise ValueError(f"side_label must be one of {SIDE_LABELS}, not {side_label!r}")
    if pairs is not None and not len(pairs) == ca.games == cb.games:
        pairs = None  # some games have no partner: b − a is not the mean of the pairs' differences
    wins = _win_metrics(ca, cb, side_label, names)
    shares = list(zip(_win_shares(ca), _win_shares(cb)))
    kinds_b = cb.measure_kinds()
    shared = {name for name, kind in ca.measure_kinds().items() if kinds_b.get(name) == kind}
    measures = [m for m in _measure_metrics(ca.measure_kinds(), measure_labels) if m.name.split(":", 1)[1] in shared]
    metrics = [*wins, *_compared_metrics(ca, side_label, names), *measures]
    orders = _orders(pairs) if pairs is not None else None
    rows, twins = [], _Twins()
    for i, m in enumerate(metrics):  # each metric's per-game values let go once read
        each = _per_game_of(m, ca, cb, pairs is not None)
        rows.append(_compare_one(m, ca, cb, shares[i] if i < len(wins) else None, orders, each))
        if _matched(m):
            twins.see(m, each)
        del each
    twins = twins.found
    for r in rows:
        if r["metric"] in twins and r["p"] is not None:
            r["same_as"] = twins[r["metric"]]
    return mark_significant(rows)


def _per_game_of(m: Metric, a: Columns, b: Columns, paired: bool) -> tuple[list, list] | None:
    """m's `each` of a and of b, where a comparison reads it (a paired one, or `same_figures`)."""
    if m.each is None or not (paired or _matched(m)):
        return None
    return m.each(a), m.each(b)


def _matched(m: Metric) -> bool:
    """Whether `same_figures` looks for m's twin."""
    return m.kind in ("proportion", "mean") and m.each is not None


@uncollected()
def same_figures(metrics: list[Metric], a: list[Trial], b: list[Trial]) -> dict[str, str]:
    """Each metric that is an earlier one's figure game for game, by name: the earlier one's name.
    Two proportions or two means are one figure when every game of both runs counts in both or in
    neither, and where it counts, one's value is the other's shifted or mirrored by a constant:
    seat 1's win rate and seat 0's in a game without draws, the side advantage and its side's win
    rate, the first-mover advantage and the file's first-mover measure, the points per game and
    the final margin of a game played to a fixed target. Their differences have the same interval
    up to sign, the same p-value: Holm's correction counts such a figure once."""
    return same_figures_columns(metrics, Columns(a), Columns(b))


def same_figures_columns(metrics: list[Metric], ca, cb) -> dict[str, str]:
    """`same_figures` of two runs read as columns (`Columns`, or `ColumnStore`s)."""
    return _same_figures(metrics, [(m.each(ca), m.each(cb)) if _matched(m) else None for m in metrics])


def _same_figures(metrics: list[Metric], per_game: list) -> dict[str, str]:
    """`same_figures` of metrics, given each one's `each` of both runs (None where it has none)."""
    twins = _Twins()
    for m, values in zip(metrics, per_game):
        if _matched(m):
            twins.see(m, values)
    return twins.found


class _Twins:
    """`same_figures` found one metric at a time: `see(m, its each of both runs)` for each matched
    metric in order; `found` maps each metric that is an earlier one's figure to that one's name.
    It keeps one list (both runs' values) per distinct shape, not the values handed to it."""

    def __init__(self):
        self._seen: dict[_Shape, str] = {}
        self.found: dict[str, str] = {}

    def see(self, m: Metric, values: tuple[list, list]) -> None:
        twin = self._seen.setdefault(_Shape(m.kind, values[0] + values[1]), m.name)
        if twin != m.name:
            self.found[m.name] = twin


class _Shape:
    """A metric's per-game values over both runs (None where a game does not count), as
    `same_figures` matches them: two shapes are equal when the same games count and their values
    there, less the first counted one, are equal or each other's negatives.

    Why an outline: equal shapes have equal outlines (the kind, the games, which do not count,
    and how far the first counted values lie from the first), which are quick to hash; the
    values are compared in full, their sign made alike (`aligned`), only when outlines agree."""
    __slots__ = ("games", "outline", "hash", "_aligned")
    PREFIX = 32  # counted values the outline holds

    def __init__(self, kind: str, games: list):
        self.games = games
        uncounted = tuple(compress(range(len(games)), map(is_, games, repeat(None))))
        head = list(islice(filter(_is_value, games), self.PREFIX))
        first = head[0] if head else 0.0
        self.outline = (kind, len(games), uncounted, tuple(abs(v - first) for v in head))
        self.hash = hash(self.outline)
        self._aligned = None

    def aligned(self) -> list:
        """The counted values less the first, negated when the first that differs from it is below it."""
        if self._aligned is None:
            values = list(filter(_is_value, self.games))
            shifted = list(map(sub, values, repeat(values[0] if values else 0.0)))
            self._aligned = list(map(neg, shifted)) if next(filter(None, shifted), 0) < 0 else shifted
        return self._aligned

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other) -> bool:
        return isinstance(other, _Shape) and self.outline == other.outline and self.aligned() == other.aligned()


def _compared_metrics(a: Columns, side_label: str, names: list[str] | None) -> list[Metric]:
    """METRICS, with the side advantage fixed to the side that has it in the base run `a`."""
    top = a.top_side()
    if top is None:
        return list(METRICS)
    fixed = _side_advantage_of(top, side_name(top, side_label, names))
    return [fixed if m.name == "side_advantage" else m for m in METRICS]


@uncollected()
def pairing(a: list[Trial], b: list[Trial]) -> dict:
    """How alike the paired games of two runs came out: the pairs (`pair_up`), how many had the
    same winner (a draw counts as a winner here) and the same first side, against the number of
    same winners two independent runs with these win rates would give (Σ over outcomes of
    p_a·p_b, times the pairs). Far above it: the pairing shares the runs' luck, and narrows every
    paired interval; near it: the variants' games went their own ways."""
    return pairing_columns(Columns(a, walk=False), Columns(b, walk=False), pair_up(a, b))


def pairing_columns(ca, cb, pairs: list[tuple[int, int]]) -> dict:
    """`pairing` of two runs read as columns (`Columns`, or `ColumnStore`s: their `winner` and
    `first_side`), `pairs` their paired games (`pair_up`, `pair_up_stores`)."""
    wa, wb = ca.winner, cb.winner
    outcomes = sorted({*wa, *wb}, key=lambda w: (w is None, w))
    share = {w: (wa.count(w) / ca.games, wb.count(w) / cb.games) for w in outcomes}
    fa, fb = ca.first_side, cb.first_side
    return {"pairs": len(pairs), "paired": len(pairs) == ca.games == cb.games,
            "same_winner": sum(wa[i] == wb[j] for i, j in pairs),
            "same_winner_if_independent": _r(len(pairs) * sum(pa * pb for pa, pb in share.values())),
            "same_first_side": sum(fa[i] == fb[j] for i, j in pairs)}


def mark_significant(rows: list[dict]) -> list[dict]:
    """Each row's `p_holm` (Holm over the rows that have a p-value) and `significant` (below ALPHA;
    None without an interval). A row with `same_as` (the same figure as that metric's row of its
    `combination`, game for game) is one test with it: left out of the family, it takes that row's
    adjusted p-value."""
    family = [r for r in rows if "same_as" not in r]
    for r, adjusted in zip(family, S.holm([r["p"] for r in family])):
        r["p_holm"] = _r(adjusted)
        r["significant"] = adjusted < ALPHA if adjusted is not None else None
    by_metric = {(r.get("combination"), r.get("metric")): r for r in family}
    for r in rows:
        if "same_as" in r:
            twin = by_metric.get((r.get("combination"), r["same_as"]), {})
            r["p_holm"] = twin.get("p_holm") if r["p"] is not None else None
            r["significant"] = twin.get("significant") if r["p"] is not None else None
    for r in rows:
        r["p"] = _r(r["p"])
    return rows


def tested(rows: list[dict]) -> int:
    """How many tests Holm's correction of `rows` (mark_significant) was taken over."""
    return sum(1 for r in rows if r.get("p_holm") is not None and "same_as" not in r)


def win_shares(ts: list[Trial]) -> list[str]:
    """Each side's win rate in percent, then the draw rate, rounded so that they add up to 100."""
    wins = _wins(ts)
    return percent_shares([*wins, len(ts) - sum(wins)])


def _win_shares(c: Columns) -> list[str]:
    """`win_shares` of a run's columns."""
    return percent_shares([*c.wins, c.games - sum(c.wins)])


# ------------------------------------------------------------------------------ in words
def _minus(text: str) -> str:
    return text.replace("-", "\u2212")


def _num(x: float, unit: str = "", places: int | None = None) -> str:
    """Shares in percent with one decimal; other figures with up to two, trailing zeros dropped;
    `places` more digits where they are needed; a true minus sign, and none on a zero."""
    if unit == "share":
        text = f"{100 * x:.{1 if places is None else places}f}"
    else:
        text = f"{x:.{2 if places is None else places}f}".rstrip("0").rstrip(".")
    if not text.strip("-0."):
        text = text.lstrip("-")
    return _minus(text)


def _delta(x: float, unit: str, places: int | None = None) -> str:
    """A signed change: percentage points for shares, the metric's own unit otherwise."""
    text = _num(x, unit, places)
    return ("+" if x > 0 and text.strip("0.") else "") + text


def _is_zero(text: str) -> bool:
    return not text.strip("\u2212+0.")


MAX_PLACES = 6


def places_for(unit: str, a: float, b: float, ci) -> int:
    """The decimals a change needs to be seen: the usual ones (1 for shares in percent, 2 for the
    rest), or more for a significant change (an interval that excludes 0) until its two values,
    its difference and both ends of its interval print different from each other and from zero."""
    places = 1 if unit == "share" else 2
    if not ci or not (ci[0] > 0 or ci[1] < 0):
        return places
    while places < MAX_PLACES and (_num(a, unit, places) == _num(b, unit, places)
                                   or any(_is_zero(_num(x, unit, places)) for x in (b - a, *ci))):
        places += 1
    return places


def sentence(label: str, unit: str, a, b, ci, reason: str | None = None, shown=None) -> str:
    """One line a designer can read: `first-mover advantage 55.2 % → 50.9 %, −4.3 percentage
    points, CI −6.1..−2.5`. A significant change gets the digits that show it (`places_for`);
    `shown`, if given, is the text of the two values at the usual digits (win rates rounded to
    add up)."""
    if a is None or b is None:
        return f"{label}: not measured ({reason})"
    words = {"share": " percentage points", "choices": " choices", "points": " points"}.get(unit, "")
    places = places_for(unit, a, b, ci)
    lo, hi = (_num(x, unit, places) for x in ci or (0, 0))
    usual = places == (1 if unit == "share" else 2)
    ta, tb = shown if shown and usual else (_num(a, unit, places), _num(b, unit, places))
    pct = " %" if unit == "share" else ""
    text = f"{label} {ta}{pct} \u2192 {tb}{pct}, {_delta(b - a, unit, places)}{words}"
    return f"{text}, no CI ({reason})" if ci is None else f"{text}, CI {lo}..{hi}"


def percent_shares(counts: list[int], places: int = 1) -> list[str]:
    """Each count's share of their sum in percent, rounded so the shares add up to exactly 100
    (largest remainder: each share rounded down, then the units left over go to the largest
    remainders, the first of equal ones first). No counts at all: every share 0."""
    total, unit = sum(counts), 10 ** places
    if not total:
        return [f"{0:.{places}f}" for _ in counts]
    floors = [100 * unit * k // total for k in counts]
    order = sorted(range(len(counts)), key=lambda i: -(100 * unit * counts[i] % total))
    for i in order[:100 * unit - sum(floors)]:
        floors[i] += 1
    return [f"{f / unit:.{places}f}" for f in floors]
