"""Two runs compared figure by figure: for every metric of vbr.analysis.metrics, each side's win
rate and the measures both runs carry, the two values, b − a and its 95% interval (paired over
the games of one deal where the runs played the same deals: vbr.analysis.pairing), its p-value
and whether it stays significant under Holm's correction over all the figures."""
from __future__ import annotations

import hashlib
import math
from array import array
from functools import partial
from itertools import chain, compress, repeat
from operator import add, is_, is_not, neg, sub
from statistics import fmean

from vbr.analysis import stats as S
from vbr.collector import uncollected
from vbr.analysis.columns import Columns
from vbr.analysis.deals import Deals
from vbr.analysis.metrics import (METRICS, SIDE_LABELS, Metric, by_deal_sums, each_won_by, each_won_by_of_decided,
                                  estimate, fair_share, measure_metrics_of, run_deals, sample_games, sentence,
                                  win_shares_of)
from vbr.analysis.pairing import Pairs, pair_up
from vbr.analysis.rounding import rounded
from vbr.analysis.trial import Trial

DIFF_METHODS = {"proportion": "Newcombe hybrid score", "mean": "Welch (normal approximation)",
                "ratio": "ratio, games as clusters", "quantile": "Price-Bonett (order statistics)"}
CLUSTERED_DIFF_METHODS = {"proportion": "Newcombe hybrid score, deals as clusters",
                          "mean": "normal approximation, deals as clusters", "ratio": "ratio, deals as clusters",
                          "quantile": "Price-Bonett (order statistics), deals as clusters"}
PAIRED_METHODS = {"proportion": "paired: per-seed differences", "mean": "paired: per-seed differences",
                  "ratio": "paired: ratio, per-seed differences"}
ALPHA = 0.05  # the level of every "significant" mark, after Holm's correction over the figures compared


def _win_metrics(a: Columns, b: Columns, side_label: str, names: list[str] | None = None) -> list[Metric]:
    return [Metric(f"win_rate_{s}", f"{side_name(s, side_label, names)} win rate", "share", "proportion", "games",
                   lambda c, s=s: (c.wins[s], c.games, 0.0), each=each_won_by(s))
            for s in range(min(a.sides, b.sides))]


def side_name(s: int, side_label: str, names: list[str] | None) -> str:
    """Side s as the game names it (`team red`), else by its number (`seat 1`)."""
    return names[s] if names and s < len(names) else f"{side_label} {s}"


def _side_advantage_of(side: int, name: str) -> Metric:
    """The side advantage of one side, the same in both runs: its win share over decided games
    less an equal share. Why fixed: each run's own top side may differ (base favours red, the
    variant blue), and a difference of two different sides' advantages measures nothing."""
    return Metric("side_advantage", f"side advantage of {name}", "share", "proportion", "decided games",
                  lambda c: (c.wins[side] if side < c.sides else 0, c.games - c.draws, fair_share(c)),
                  each=each_won_by_of_decided(side))


def _difference(m: Metric, sa, sb, ca=None, cb=None) -> tuple | None:
    """The 95% interval of b − a, by the method that suits the metric's kind, each run's part as
    wide as its own games make it: `ca`, `cb`, the run's sample summed over its deals (`by_deal_sums`)
    where a deal holds several of the games m is taken over (the seats rotated), whose games are
    then one cluster in that run's part (`S.diff_proportions` from its clustered Wilson interval,
    `S.diff_means` and `S.diff_ratios` from its clusters' standard error, `S.diff_quantiles` from
    its clustered order statistics); None: the run's games are independent, its part the plain one."""
    if m.kind == "proportion":
        ci = S.diff_proportions(sa[0], sa[1], sb[0], sb[1], clusters_a=ca, clusters_b=cb)
        shift = sa[2] - sb[2]
        return (ci[0] + shift, ci[1] + shift) if ci else None
    if m.kind == "mean":
        return S.diff_means(sa, sb, clusters_x=ca, clusters_y=cb)
    if m.kind == "ratio":
        return S.diff_ratios(*sa, *sb, clusters_a=ca, clusters_b=cb) if sum(sa[1]) and sum(sb[1]) else None
    return S.diff_quantiles(sa, sb, m.q, clusters_x=ca, clusters_y=cb)


def _compare_one(m: Metric, a: Columns, b: Columns, shown=None, pairs=None, per_game=None, deals=None,
                 runs_deals: tuple[Deals, Deals] | None = None) -> dict:
    """One row of `compare`: metric m of runs a and b. `shown`: the text of the two values at the
    usual digits; `pairs`: the paired games (a `Pairs`), None for an unpaired comparison;
    `per_game`: m's `each` of a and of b, where it has one; `deals`: each pair's deal where a deal
    holds several pairs (`_deals_of`), else None; `runs_deals`: each run's games by deal
    (`run_deals`), whose deals of several games are clusters of that run's part of an unpaired
    interval (made here when not given)."""
    sa, sb = m.sample(a), m.sample(b)
    da, db = runs_deals or (run_deals(a), run_deals(b))
    ca, cb = _clusters(m, a, sa, da), _clusters(m, b, sb, db)
    (va, _, ra), (vb, _, rb) = estimate(m, sa, ca), estimate(m, sb, cb)
    both = va is not None and vb is not None
    paired = _paired(m, per_game, pairs, sa, sb, deals, (ca, cb)) if both and pairs is not None and per_game else None
    ci = paired["ci"] if paired else _difference(m, sa, sb, ca, cb) if both else None
    reason = None if ci else f"a: {ra}" if ra else f"b: {rb}" if rb else NO_SPREAD
    methods = PAIRED_METHODS if paired else DIFF_METHODS if ca is None and cb is None else CLUSTERED_DIFF_METHODS
    out = {"metric": m.name, "label": m.label, "unit": m.unit, "a": rounded(va), "b": rounded(vb),
           "diff": rounded(vb - va) if both else None, "ci95": rounded(ci), "method": methods[m.kind],
           "excludes_0": (ci[0] > 0 or ci[1] < 0) if ci else None,
           "p": S.p_value(vb - va, (ci[1] - ci[0]) / (2 * S.Z95)) if ci else None}
    if paired:
        out |= {"pairs": paired["pairs"], "unpaired_games": paired["unpaired_games"]}
    if reason:
        out["reason"] = reason
    return out | {"sentence": sentence(m.label, m.unit, va, vb, ci, reason, shown)}


def _clusters(m: Metric, c: Columns, sample, deals: Deals) -> tuple | None:
    """m's sample of run c summed over its deals (`by_deal_sums`: of a proportion or a mean, each
    deal's sum and games; of a ratio, its summed numerators and denominators; of a quantile, its
    games at or below the sample quantile, and its games), where a deal holds several of the games
    m is taken over; None where it has none to sum, or every game m counts is a deal of its own."""
    return by_deal_sums(m, c, sample, deals) if sample_games(m.kind, sample) else None


def _paired(m: Metric, per_game: tuple, pairs: Pairs, sa, sb, deals=None, clusters=(None, None)) -> dict | None:
    """The paired interval of b − a: centred on the difference of the two runs' values, as wide as
    the per-seed differences of the pairs in which both games count make it (`S.paired_se`), with
    the games per run that two independent runs would need for its width. None: fewer than two
    such pairs, or differences without spread (all alike), where the unpaired interval stands.
    `per_game`: m's `each` of a and of b (of a ratio: its numerators and its denominators);
    `pairs`: the paired games; `sa`, `sb`: m's samples of a and b; `deals`: each pair's deal, when
    a deal holds several pairs (the seats rotated), whose differences are then one cluster
    (`S.clustered_paired_se`; a ratio's numerators and denominators summed over each deal);
    `clusters`: each run's sample summed over its deals (`_clusters`), or None, for the unpaired
    standard error that `unpaired_games` weighs the paired one against (two independent runs
    played as these were, each deal in every seating)."""
    ea, eb = per_game
    if m.kind == "ratio":
        (ya, xa), (yb, xb) = ea, eb
        n = len(pairs)
        if n < 2:
            return None
        sums = [_picked(ya, pairs.a, pairs), _picked(xa, pairs.a, pairs), _picked(yb, pairs.b, pairs),
                _picked(xb, pairs.b, pairs)]
        if deals is not None:
            sums = [S.cluster_totals(v, deals)[0] for v in sums]
        se, se_unpaired, va, vb = _paired_ratio(*sums, sa, sb, clusters)
    else:
        in_a, in_b, kept = _both_count(ea, eb, pairs, deals)
        n = len(in_a)
        if n < 2:
            return None
        se, se_unpaired, va, vb = _paired_mean(in_a, in_b, ea, eb, kept, clusters)
    if not se:  # every pair differs alike (no draw in either run, say): no spread to measure
        return None
    d = vb - va
    if m.kind == "proportion":  # a share less a fair share (the side advantage's 1/S): each run's own
        d += sa[2] - sb[2]
    return {"ci": (d - S.Z95 * se, d + S.Z95 * se), "pairs": n, "unpaired_games": S.unpaired_games(n, se, se_unpaired)}


def _picked(values, order, pairs: Pairs):
    """The values of the paired games `order` names (pairs.a or pairs.b), in the pairs' order:
    the values themselves when pair k is game k of both runs."""
    return values if pairs.same_order else list(map(values.__getitem__, order))


def _both_count(ea: list, eb: list, pairs: Pairs, deals=None) -> tuple[list, list, list | None]:
    """The values of the pairs' games in a and in b, in step, of the pairs in which both count
    (neither is None): a's and b's own lists when pair k is game k of both and every game counts;
    and the deals of those pairs (None without `deals`)."""
    xs, ys = _picked(ea, pairs.a, pairs), _picked(eb, pairs.b, pairs)
    if None in xs or None in ys:
        kept = [x is not None and y is not None for x, y in zip(xs, ys)]
        return (list(compress(xs, kept)), list(compress(ys, kept)),
                list(compress(deals, kept)) if deals is not None else None)
    return xs, ys, deals


def _deals_of(a, pairs: Pairs, deals: Deals | None = None) -> list | None:
    """Each pair's deal (the seed of its game of run a, `a.seed`), where some deal holds several
    pairs of a run played in more than one seating (the seats rotated); None where every pair is a
    deal of its own, or the run's deals are no clusters (`run_deals`: a run of one seating, where a
    seed repeats by chance). `deals`: a's `run_deals`, when made already."""
    if not (deals or run_deals(a)).repeated:
        return None
    seeds = _picked(a.seed, pairs.a, pairs)
    return list(seeds) if len(set(seeds)) < len(seeds) else None


def _paired_ratio(ya, xa, yb, xb, sa, sb, clusters=(None, None)) -> tuple:
    """(paired se, unpaired se or None, value of a, value of b) of a ratio from the pairs' numerators
    and denominators (ya, xa of a; yb, xb of b; in step), the samples of the two runs being sa and sb;
    `clusters`: each run's sample summed over its deals (`_clusters`), or None, for the unpaired se."""
    alone = [S.ratio_se(*(c or s)) for s, c in zip((sa, sb), clusters)]
    se_unpaired = math.hypot(*alone) if None not in alone else None
    return S.paired_ratio_se(ya, xa, yb, xb), se_unpaired, sum(sa[0]) / sum(sa[1]), sum(sb[0]) / sum(sb[1])


def _paired_mean(in_a: list, in_b: list, ea: list, eb: list, deals=None, clusters=(None, None)) -> tuple:
    """(paired se, unpaired se or None, mean of a, mean of b) of a per-game figure, from the pairs
    in which both count (a's values and b's in step; `deals`: their deals, where a deal holds
    several) and each run's values (None where a game does not count); `clusters`: each run's
    values summed over its deals (`_clusters`), or None, for the unpaired se."""
    ds = array("d", map(sub, in_b, in_a))  # 8 bytes a pair
    se = S.paired_se(ds) if deals is None else S.clustered_paired_se(ds, deals)
    xs = ea if None not in ea else list(filter(_is_value, ea))
    ys = eb if None not in eb else list(filter(_is_value, eb))
    se_x, se_y = S.clustered_mean_se(xs, clusters[0]), S.clustered_mean_se(ys, clusters[1])
    se_unpaired = math.hypot(se_x, se_y) if se_x is not None and se_y is not None else None
    return se, se_unpaired, fmean(xs), fmean(ys)


_is_value = partial(is_not, None)  # not None


NO_SPREAD = "ties fill the order-statistic interval: no standard error can be read off it"


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
                    measure_labels: dict | None = None, pairs=None) -> list[dict]:
    """`compare` of two runs read as columns (`Columns`, or `ColumnStore`s), `pairs` their paired
    games (`pair_up`, `pair_up_stores`; None: unpaired): the same rows as `compare` of their
    trials with `paired` (or without, for None)."""
    if side_label not in SIDE_LABELS:
        raise ValueError(f"side_label must be one of {SIDE_LABELS}, not {side_label!r}")
    if pairs is not None and not len(pairs) == ca.games == cb.games:
        pairs = None  # some games have no partner: b − a is not the mean of the pairs' differences
    wins = _win_metrics(ca, cb, side_label, names)
    shares = list(zip(win_shares_of(ca), win_shares_of(cb)))
    kinds_b = cb.measure_kinds()
    shared = {name for name, kind in ca.measure_kinds().items() if kinds_b.get(name) == kind}
    measures = [m for m in measure_metrics_of(ca.measure_kinds(), measure_labels) if m.name.split(":", 1)[1] in shared]
    metrics = [*wins, *_compared_metrics(ca, side_label, names), *measures]
    pairs = Pairs.of(pairs) if pairs is not None else None
    runs_deals = run_deals(ca), run_deals(cb)
    deals = _deals_of(ca, pairs, runs_deals[0]) if pairs is not None else None
    rows, twins = [], _Twins()
    for i, m in enumerate(metrics):  # each metric's per-game values let go once read
        each = _per_game_of(m, ca, cb, pairs is not None)
        rows.append(_compare_one(m, ca, cb, shares[i] if i < len(wins) else None, pairs, each, deals, runs_deals))
        if _matched(m):
            twins.see(m, each)
        del each
    twins = twins.found
    for r in rows:
        if r["metric"] in twins and r["p"] is not None:
            r["same_as"] = twins[r["metric"]]
    return mark_significant(rows)


def _per_game_of(m: Metric, a: Columns, b: Columns, paired: bool) -> tuple[list, list] | None:
    """m's `each` of a and of b, where a comparison reads it (a paired one, or `same_figures`); a
    quantile keeps its unpaired interval, as the quantile of differences is not the difference of
    quantiles."""
    if m.each is None or m.kind == "quantile" or not (paired or _matched(m)):
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
    It keeps each distinct shape's 16-byte digest (`_shape`), not the values handed to it."""

    def __init__(self):
        self._seen: dict[tuple, str] = {}
        self.found: dict[str, str] = {}

    def see(self, m: Metric, values: tuple[list, list]) -> None:
        twin = self._seen.setdefault(_shape(m.kind, values), m.name)
        if twin != m.name:
            self.found[m.name] = twin


def _shape(kind: str, values: tuple[list, list]) -> tuple:
    """A metric's per-game values over both runs (None where a game does not count), as
    `same_figures` matches them: two metrics have one shape when the same games count and their
    values there, less the first counted one, are equal or each other's negatives. It is the
    kind, the games, and a BLAKE2 digest of which games count and of those values, shifted and
    their sign made alike (negated when the first that differs from the first is below it; no
    zero negative): 16 bytes however many games, two shapes alike by chance once in 2^128."""
    digest = hashlib.blake2b(bytes(map(is_, chain(*values), repeat(None))), digest_size=16)
    counted = array("d", filter(_is_value, chain(*values)))
    if counted:
        first = counted[0]
        shifted = array("d", map(sub, counted, repeat(first)))
        if next(filter(None, shifted), 0) < 0:
            shifted = array("d", map(neg, shifted))
        digest.update(array("d", map(add, shifted, repeat(0.0))).tobytes())  # + 0.0: −0.0 reads as 0.0
    return kind, len(values[0]) + len(values[1]), digest.digest()


def _compared_metrics(a: Columns, side_label: str, names: list[str] | None) -> list[Metric]:
    """METRICS, with the side advantage fixed to the side that has it in the base run `a`."""
    top = a.top_side()
    if top is None:
        return list(METRICS)
    fixed = _side_advantage_of(top, side_name(top, side_label, names))
    return [fixed if m.name == "side_advantage" else m for m in METRICS]


def mark_significant(rows: list[dict]) -> list[dict]:
    """Each row's `p_holm` (Holm over the rows that have a p-value) and `significant` (below ALPHA;
    None without an interval). A row with `same_as` (the same figure as that metric's row of its
    `combination`, game for game) is one test with it: left out of the family, it takes that row's
    adjusted p-value."""
    family = [r for r in rows if "same_as" not in r]
    for r, adjusted in zip(family, S.holm([r["p"] for r in family])):
        r["p_holm"] = rounded(adjusted)
        r["significant"] = adjusted < ALPHA if adjusted is not None else None
    by_metric = {(r.get("combination"), r.get("metric")): r for r in family}
    for r in rows:
        if "same_as" in r:
            twin = by_metric.get((r.get("combination"), r["same_as"]), {})
            r["p_holm"] = twin.get("p_holm") if r["p"] is not None else None
            r["significant"] = twin.get("significant") if r["p"] is not None else None
    for r in rows:
        r["p"] = rounded(r["p"])
    return rows


def tested(rows: list[dict]) -> int:
    """How many tests Holm's correction of `rows` (mark_significant) was taken over."""
    return sum(1 for r in rows if r.get("p_holm") is not None and "same_as" not in r)
