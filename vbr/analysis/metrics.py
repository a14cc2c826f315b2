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

from array import array
from dataclasses import dataclass
from itertools import compress, repeat
from operator import eq, is_, le
from statistics import fmean
from typing import Callable

from vbr.analysis import stats as S
from vbr.collector import uncollected
from vbr.analysis.columns import Columns
from vbr.analysis.deals import Deals
from vbr.analysis.rounding import rounded
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


def row_columns(measures) -> list[str]:
    """The columns of the rows (`row`, with its run) of games of files that declare these measures
    (names, in order), as a CSV of several runs' games has them: each run's measures, in the
    places `row` gives them."""
    names = list(dict.fromkeys(measures))
    return [*CSV_FIELDS, *(f"measure:{n}" for n in names), *(["measure_kinds"] if names else []), *RUN_FIELDS]


# ------------------------------------------------------------------------------ many games
@dataclass(frozen=True)
class Metric:
    """One summary figure: `sample` draws from a run's columns (`Columns`) what its `kind` of
    interval needs.

    proportion: (k, n, offset), value k/n − offset; mean: one number per game; ratio: per-game
    numerators and denominators, pooled; quantile: one number per game, at `q`. `each` gives the
    same game by game, in the games' order: what a run's interval sums over each deal where a deal
    holds several games (`by_deal_sums`), and, but for a quantile, what a paired comparison takes the
    differences of (`compare(..., paired=True)`).
    """
    name: str
    label: str
    unit: str  # share | choices | points | count
    kind: str  # proportion | mean | ratio | quantile
    over: str  # the games it is taken over, for the reader and for the reason of a missing value
    sample: Callable[[Columns], object]
    q: float = 0.5
    # from a run's columns, each game's value in order (None for a game it is not taken over; for
    # a ratio, its numerators and its denominators); None: never paired, nor clustered by deal
    each: Callable[[Columns], list] | None = None
    least: float | None = 0.0  # the least value a game's figure can take, a mean's interval cut there; None: any


def _first_mover(c: Columns):
    """(wins of the side that chose first, decided games with a first side, 0)."""
    games = [w == f for w, f in zip(c.winner, c.first_side) if w is not None and f is not None]
    return sum(games), len(games), 0.0


def _each_first_mover(c: Columns) -> list:
    return [_BOTH[w == f] if w is not None and f is not None else None for w, f in zip(c.winner, c.first_side)]


def fair_share(c: Columns) -> float:
    """An equal share of the wins: 1 / sides (0 without games)."""
    return 1 / c.sides if c.games else 0.0


def _side_advantage(c: Columns):
    top = c.top_side()
    return (c.wins[top] if top is not None else 0), c.games - c.draws, fair_share(c)


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


def each_won_by(side: int | None):
    """`each` of a side's win rate over every game: 1.0 where it won, else 0.0 (a draw too)."""
    return lambda c: list(map(_BOTH.__getitem__, map(eq, c.winner, repeat(side))))


def each_won_by_of_decided(side: int | None):
    """`each` of a side's win share over the decided games: None for a draw."""
    return lambda c: _floats(map(eq, c.winner, repeat(side)), c.decided)


def _wins_top_side(c: Columns) -> list:
    return each_won_by_of_decided(c.top_side())(c)


def _comebacks(c: Columns):
    return sum(compress(c.comeback, c.decided_scored)), sum(c.decided_scored), 0.0


def _pooled(numerator: str):
    """`sample` and `each` of a ratio: a column's per-game numerators and the choices made, the
    run's own columns (read, never changed)."""
    return lambda c: (getattr(c, numerator), c.choices)


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
           _ordered_lengths, 0.5, each=_each("choices")),
    Metric("length_p10", "length, 10th percentile", "choices", "quantile", "games",
           _ordered_lengths, 0.1, each=_each("choices")),
    Metric("length_p90", "length, 90th percentile", "choices", "quantile", "games",
           _ordered_lengths, 0.9, each=_each("choices")),
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
           _per_game("final_margin"), each=_each("final_margin", "scored"), least=None),  # a side may win behind
    Metric("branching_factor", "branching factor", "count", "ratio", "games",
           _pooled("options"), each=_pooled("options")),
    Metric("forced_share", "forced choices", "share", "ratio", "games",
           _pooled("forced"), each=_pooled("forced")),
)

METHODS = {"proportion": "Wilson score", "mean": "Student's t", "ratio": "ratio, games as clusters",
           "quantile": "order statistics"}
CLUSTERED_METHODS = {"proportion": "Wilson score, deals as clusters", "mean": "Student's t, deals as clusters",
                     "ratio": "ratio, deals as clusters", "quantile": "order statistics, deals as clusters"}


def sample_games(kind: str, sample) -> int:
    """How many games a metric's sample of `kind` is taken over."""
    return sample[1] if kind == "proportion" else len(sample[0] if kind == "ratio" else sample)


def estimate(m: Metric, sample, by_deal: tuple | None = None) -> tuple[float | None, tuple | None, str | None]:
    """(value, 95% interval, why there is none). `by_deal`: the sample's games summed over each
    deal (`by_deal_sums`), where a deal holds several of them: the interval then takes each deal's
    games as one cluster; None: the games are independent."""
    if sample_games(m.kind, sample) == 0:
        return None, None, f"no {m.over}"
    if m.kind == "ratio" and not sum(sample[1]):
        return None, None, "no choices were made"
    value, ci = _value_and_ci(m, sample, by_deal)
    if ci is None and by_deal is not None and m.kind in ("mean", "ratio"):  # one deal: its sums are one value
        return value, None, f"the {m.over} are of one deal: no spread between deals to measure"
    if ci is None:
        few = "for an interval at this quantile" if m.kind == "quantile" else "to measure a spread"
        return value, None, f"too few {m.over} {few}"
    return value, ci, None


def _value_and_ci(m: Metric, sample, by_deal: tuple | None) -> tuple[float, tuple | None]:
    """The value and its interval, one rule per kind: independent games' (Wilson, Student's t,
    the ratio's over games, order statistics), or with `by_deal` the same taken over deals
    (`stats.clustered_wilson`, `clustered_mean_ci`, `ratio_ci` of the deals' sums,
    `clustered_quantile_ci`)."""
    if m.kind == "proportion":
        k, n, off = sample
        lo, hi = S.wilson(k, n) if by_deal is None else S.clustered_wilson(*by_deal)
        return k / n - off, (lo - off, hi - off)
    if m.kind == "mean":
        return fmean(sample), _clip(m, S.mean_ci(sample) if by_deal is None else S.clustered_mean_ci(*by_deal))
    if m.kind == "ratio":
        return sum(sample[0]) / sum(sample[1]), S.ratio_ci(*(sample if by_deal is None else by_deal))
    ci = S.quantile_ci(sample, m.q) if by_deal is None else S.clustered_quantile_ci(sample, m.q, *by_deal)
    return S.quantile(sample, m.q), ci


def by_deal_sums(m: Metric, c: Columns, sample, deals: Deals | None) -> tuple | None:
    """What `estimate` needs to take the games of one deal as one cluster: m's per-game values
    (`each`) summed over each deal, with each deal's games counted, over the deals with a game m is
    taken over (`Deals.totals`); of a ratio, its numerators' and denominators' sums; of a quantile,
    each deal's games at or below the sample quantile, and its games. None where no deal holds two
    of those games (every seed unique: the interval is then the independent games' own)."""
    if deals is None or not deals.repeated or m.each is None:
        return None
    if m.kind == "ratio":
        nums, dens = m.each(c)
        return deals.totals(nums)[0], deals.totals(dens)[0]
    values = m.each(c)
    if m.kind == "quantile":
        values = list(map(le, values, repeat(S.quantile(sample, m.q))))  # at or below it (bools)
    sums, counts = deals.totals(values)
    return (sums, counts) if max(counts, default=0) > 1 else None


def _clip(m: Metric, ci: tuple | None) -> tuple | None:
    """A normal interval cut to what the metric can be: no share above 100 %, nothing below the
    least a game's figure can be (`Metric.least`: 0 for a count; a margin or an int measure may
    be negative)."""
    if ci is None:
        return None
    lo, hi = ci if m.least is None else (max(ci[0], m.least), ci[1])
    return (lo, min(hi, 1.0)) if m.unit == "share" else (lo, hi)


def _entry(m: Metric, c: Columns, deals: Deals) -> dict:
    """m's summary entry over the run's columns; `deals`: the run's games grouped by deal
    (`Deals`), whose games, where a deal holds several, the interval takes as one cluster."""
    sample = m.sample(c)
    by_deal = by_deal_sums(m, c, sample, deals) if sample_games(m.kind, sample) else None
    value, ci, reason = estimate(m, sample, by_deal)
    out = {"value": rounded(value), "ci95": rounded(ci), "label": m.label, "unit": m.unit, "n": sample_games(m.kind, sample),
           "over": m.over, "method": (METHODS if by_deal is None else CLUSTERED_METHODS)[m.kind]}
    if reason:
        out["reason"] = reason
    return out | _extra(m.name, c, value, ci)


def _extra(name: str, c: Columns, value, ci) -> dict:
    """The first mover's excess over an equal share, and which side the side advantage is of."""
    if name == "first_mover_advantage" and value is not None:
        fair = 1 / c.sides
        return {"excess": rounded(value - fair), "excess_ci95": rounded((ci[0] - fair, ci[1] - fair))}
    if name == "side_advantage" and value is not None:
        return {"side": str(c.top_side()), "balance": rounded(_balance(c.wins, c.games))}
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


def run_deals(c: Columns) -> Deals:
    """The run's games by deal, where it played its deals more than once by design: in more than
    one seating (the seats rotated). In a run of one seating a seed that repeats does so by chance
    (a run's game seeds are 31 bits: about 230 repeats in a million games), and its games are
    independent draws, whose plain intervals stand."""
    return Deals(c.seed if c.seatings_played > 1 else [])


def _win_rates(c: Columns, deals: Deals | None = None) -> dict:
    """Each side's wins, rate and interval, keyed by side. The interval is Wilson's over the games;
    where a deal (a game seed) was played more than once (the seats rotated, each deal played in
    every seating), its games share the deal's draws and are one cluster (`stats.clustered_wilson`
    of each deal's wins and games). `deals`: the run's games by deal (`Deals`), when made already."""
    n = c.games
    deals = run_deals(c) if deals is None else deals
    return {str(s): {"wins": k, "value": rounded(k / n) if n else None,
                     "ci95": rounded(S.clustered_wilson(*deals.totals(list(map(eq, c.winner, repeat(s)))))
                                     if deals.repeated else S.wilson(k, n))}
            for s, k in enumerate(c.wins)}


def agent_win_rates(trials: list[Trial], side_of_seat: list[int]) -> dict:
    """Each agent's win rate over the games it played, whatever seat it sat in: the rate that
    rotating the seats makes a measure of the agent rather than of its seat.

    An agent wins a game when the winning side is the side (`side_of_seat[seat]`) of a seat it
    played; draws are nobody's wins. Keyed by agent spec, in the order the agents first appear;
    each entry has its games, wins, the rate and its interval: Wilson's with the games of one deal
    (seed) a cluster (`stats.clustered_wilson`), as a deal played in every seating shares its
    draws between its games; Wilson's over the games when no deal repeats.
    """
    return seating_win_rates(_seatings_won(trials), side_of_seat)


def seating_win_rates(seatings_won: dict[tuple, int], side_of_seat: list[int], by_side: bool = False) -> dict:
    """`agent_win_rates` of games counted by (agents in seat order, winner, seed), in the order
    first played (`_seatings_won`, `ColumnStore.seatings_won`). `by_side`: each agent's entry also
    has `sides`, its games and wins on each side (`side_games`)."""
    wins: dict[str, dict] = {}  # agent -> seed -> its wins in that deal's games
    games: dict[str, dict] = {}  # agent -> seed -> the deal's games it played
    roles: dict[tuple, list] = {}  # (agents, winner) -> (agent's wins, agent's games) of each agent in it
    for (agents, winner, seed), n in seatings_won.items():  # in the order first played
        key = (agents, winner)
        if key not in roles:
            roles[key] = [(wins.setdefault(name, {}), games.setdefault(name, {}), _won(name, agents, winner, side_of_seat))
                          for name in dict.fromkeys(agents)]
        for w, g, won in roles[key]:
            g[seed] = g.get(seed, 0) + n
            if won:
                w[seed] = w.get(seed, 0) + n
    out = {}
    for name, g in games.items():
        nums, dens = [wins[name].get(seed, 0) for seed in g], list(g.values())
        k, n = sum(nums), sum(dens)
        out[name] = {"games": n, "wins": k, "value": rounded(k / n), "ci95": rounded(S.clustered_wilson(nums, dens))}
    if by_side:
        for name, sides in side_games(seatings_won, side_of_seat).items():
            out[name]["sides"] = sides
    return out


def side_games(seatings_won: dict[tuple, int], side_of_seat: list[int]) -> dict[str, dict]:
    """For each agent, on each side (by number, as text, in order): the games in which it had a seat
    on that side, and how many of them that side won. A game in which it sat on two sides counts
    on both."""
    every = sorted(set(side_of_seat))
    out: dict[str, dict] = {}
    for (agents, winner, _), n in seatings_won.items():
        for name in dict.fromkeys(agents):
            entry = out.setdefault(name, {str(side): {"games": 0, "wins": 0} for side in every})
            for side in {side_of_seat[s] for s, a in enumerate(agents) if a == name}:
                entry[str(side)]["games"] += n
                entry[str(side)]["wins"] += n if winner == side else 0
    return out


def _won(name: str, agents: tuple, winner: int | None, side_of_seat: list[int]) -> bool:
    """Whether the agent won a game of this seating: the winning side is the side of a seat it played."""
    return winner is not None and any(side_of_seat[s] == winner for s, a in enumerate(agents) if a == name)


def _seatings_won(trials: list[Trial]) -> dict[tuple, int]:
    """How many games each (agents in seat order, winner, seed) came out of, in the order first seen."""
    out: dict[tuple, int] = {}
    for t in trials:
        key = (tuple(t.agents), t.winner, t.seed)
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
    deals = run_deals(c)
    return {"games": c.games, "sides": side_label, "win_rate": _win_rates(c, deals),
            "metrics": {m.name: _entry(m, c, deals) for m in METRICS},
            "measures": {m.name: _entry(m, c, deals) | _unset(m.name, c)
                         for m in measure_metrics_of(c.measure_kinds(), measure_labels)}}


def summary_entry(c: Columns, name: str) -> dict | None:
    """`summarize_columns(c)`'s entry of one metric of METRICS or declared measure
    (`measure:NAME`), worked out alone; None for a name it has no entry of (a measure no game
    carries)."""
    if name.startswith("measure:"):
        m = next((m for m in measure_metrics_of(c.measure_kinds(), None) if m.name == name), None)
        return _entry(m, c, run_deals(c)) | _unset(name, c) if m else None
    m = next((m for m in METRICS if m.name == name), None)
    return _entry(m, c, run_deals(c)) if m else None


def win_rate_entries(c: Columns) -> dict:
    """`summarize_columns(c)`'s win rates (`_win_rates`): each side's wins, rate and interval,
    keyed by side."""
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
    return measure_metrics_of(measure_kinds(trials), labels)


def measure_metrics_of(kinds: dict[str, str], labels: dict | None) -> list[Metric]:
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
                              each=_each_measure(name, float), least=None))  # an int of either sign
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
def win_shares(ts: list[Trial]) -> list[str]:
    """Each side's win rate in percent, then the draw rate, rounded so that they add up to 100."""
    wins = _wins(ts)
    return percent_shares([*wins, len(ts) - sum(wins)])


def win_shares_of(c: Columns) -> list[str]:
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
