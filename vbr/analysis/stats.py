"""The intervals behind every balance figure: plain Python, one small function each.

Every interval is two-sided at 95%. Each function returns plain floats or a `(lo, hi)` tuple, and
`None` where the data cannot support an interval at all (no observations, one observation, a
quantile too far into the tail for the sample) rather than an interval that only looks like one.
"""
from __future__ import annotations

import math
from array import array
from itertools import repeat
from operator import mul, sub
from statistics import NormalDist, fmean

from vbr.analysis.deals import Deals

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Of a proportion k/n: (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n).

    Why Wilson's score interval rather than p ± z·√(p(1−p)/n): it inverts the score test, so it
    never leaves [0, 1], is not a point at k = 0 or k = n, and keeps close to 95% coverage for
    small n and extreme p, where the textbook (Wald) interval falls well short (Wilson 1927;
    Agresti & Coull 1998; Newcombe 1998, method 3). No games, no interval.
    """
    if n == 0:
        return None
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    lo = 0.0 if k == 0 else max(0.0, centre - half)  # exact ends: no rounding dust below 0
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def mean_se(xs: list[float]) -> float | None:
    """s/√n, with s the sample standard deviation (n − 1 in its denominator); needs n ≥ 2."""
    return sample_sd(xs) / math.sqrt(len(xs)) if len(xs) >= 2 else None


def sample_sd(xs: list[float]) -> float:
    """The sample standard deviation (n − 1 in its denominator; n ≥ 2), from the mean and the
    squared deviations each summed by `math.fsum` without rounding on the way: within a few units
    in the last place of `statistics.stdev`, which sums in fractions at about a microsecond a
    value (a 100,000-game run's summary spent most of its time there)."""
    m = math.fsum(xs) / len(xs)
    deviations = array("d", map(sub, xs, repeat(m)))  # x − m; by map, as a summary takes 100,000s; 8 bytes each
    return math.sqrt(math.fsum(map(mul, deviations, deviations)) / (len(xs) - 1))


def mean_ci(xs: list[float], z: float = Z95) -> tuple[float, float] | None:
    """x̄ ± t·s/√n, t the quantile of Student's t with n − 1 degrees of freedom at the level of z
    (`student_t`: 2.201 at n = 12, 1.984 at n = 101, z itself as n grows).

    Why Student's t rather than z: z is right only once n is large; at n = 12 an interval with z
    covers about 92 %, not 95 %. Both assume the mean is close to normal, which the central limit
    theorem gives for hundreds of games and a sample of a dozen only for a fairly symmetric
    measure. Below 2 there is no spread to measure, so no interval.
    """
    se = mean_se(xs)
    if se is None:
        return None
    m = fmean(xs)
    t = student_t(len(xs) - 1, z)
    return (m - t * se, m + t * se)


def student_t(df: int, z: float = Z95) -> float:
    """The quantile of Student's t with `df` degrees of freedom at the standard normal quantile z
    (1.96 → the 97.5 % point, for two-sided 95 % intervals).

    Exact for 1 and 2 degrees of freedom (the Cauchy, and t = (2u − 1) / √(2u(1 − u)) at level u);
    from 3 on the Cornish-Fisher expansion in 1/df to its fourth term (Abramowitz & Stegun 26.7.5),
    within 0.12 % of the exact value at df = 3, 0.0011 % at df = 8 and closer beyond.
    """
    u = NormalDist().cdf(z)
    if df == 1:
        return math.tan(math.pi * (u - 0.5))
    if df == 2:
        return (2 * u - 1) / math.sqrt(2 * u * (1 - u))
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def quantile(xs: list[float], q: float) -> float:
    """The sample q-quantile, interpolated between order statistics at rank (n − 1)·q.

    Why this definition (Hyndman & Fan's type 7, the default of R and NumPy): the median of an
    even sample is the mean of the two middle values, as readers expect.
    """
    s = sorted(xs)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def quantile_ranks(n: int, q: float, z: float = Z95, deff: float = 1.0) -> tuple[int, int] | None:
    """The 1-based ranks (j, k) of the order statistics that bound the q-quantile with 95%.

    Why: [X₍ⱼ₎, X₍ₖ₎] covers the true q-quantile exactly when j ≤ B < k, where B, the number of
    observations below it, is Binomial(n, q), whatever the distribution. With the normal
    approximation and its continuity correction: j = ⌊nq + ½ − z·√(nq(1−q))⌋ and
    k = ⌈nq + ½ + z·√(nq(1−q))⌉, rounded outward so coverage stays at or above 95% (it does for
    every n up to 400 at q = 0.05, 0.1, 0.25, 0.5, 0.9: tested). For the median this gives the
    textbook ranks: n = 10 → X₍₂₎..X₍₉₎, n = 100 → X₍₄₀₎..X₍₆₁₎. Too few observations to reach
    that far into a tail: None. `deff`: B's variance nq(1 − q) multiplied by a design effect, for
    observations in clusters (`clustered_quantile_ci`); 1 for independent ones.
    """
    s = z * math.sqrt(deff * n * q * (1 - q))
    j, k = math.floor(n * q + 0.5 - s), math.ceil(n * q + 0.5 + s)
    return (j, k) if 1 <= j and k <= n else None


def quantile_ci(xs: list[float], q: float, z: float = Z95, deff: float = 1.0) -> tuple[float, float] | None:
    """Distribution-free: the order statistics at `quantile_ranks` (no assumption of normality,
    which game lengths, skewed by long games, do not satisfy); `deff` as there."""
    ranks = quantile_ranks(len(xs), q, z, deff)
    if ranks is None:
        return None
    s = sorted(xs)
    return (s[ranks[0] - 1], s[ranks[1] - 1])


def quantile_se(xs: list[float], q: float, z: float = Z95, deff: float = 1.0) -> float | None:
    """(X₍ₖ₎ − X₍ⱼ₎) / 2z: the standard error implied by the order-statistic interval
    (`quantile_ci`, its ranks widened by the design effect `deff` for observations in clusters;
    1 for independent ones).

    Why: it is the McKean & Schrader (1984) estimate of the sample median's standard error, which
    Price & Bonett (2002) use for the difference of two medians; it needs no density estimate and
    no resampling. Zero when ties fill the interval: then no standard error can be read off.
    """
    ci = quantile_ci(xs, q, z, deff)
    if ci is None or ci[1] == ci[0]:
        return None
    return (ci[1] - ci[0]) / (2 * z)


def ratio_se(nums: list[float], dens: list[float]) -> float | None:
    """Of the pooled ratio R = Σyᵢ / Σxᵢ over games i: √(Σ(yᵢ − R·xᵢ)² / (n(n − 1))) / x̄.

    Why this and not a binomial interval over all choices: the choices of one game are not
    independent draws (one game's options rise and fall together), so the game is the unit that
    is sampled. This is the linearisation (delta-method) variance of a ratio estimator with games
    as clusters (Cochran, Sampling Techniques, 1977, §6.4).
    """
    n = len(nums)
    if n < 2 or sum(dens) == 0:
        return None
    r = sum(nums) / sum(dens)
    resid = sum(map(pow, map(sub, nums, map(mul, repeat(r), dens)), repeat(2)))  # Σ(y − r·x)²
    return math.sqrt(resid / (n * (n - 1))) / fmean(dens)


def ratio_ci(nums: list[float], dens: list[float], z: float = Z95) -> tuple[float, float] | None:
    """R ± z·se(R), with `ratio_se`; needs two games and at least one choice."""
    se = ratio_se(nums, dens)
    if se is None:
        return None
    r = sum(nums) / sum(dens)
    return (r - z * se, r + z * se)


def clustered_wilson(nums: list[float], dens: list[float], z: float = Z95) -> tuple[float, float] | None:
    """Wilson's interval of the share Σyᵢ / Σxᵢ over clusters i (cluster i holds xᵢ games, yᵢ of
    them successes), on the effective number of games n / deff: deff, the design effect, is
    `ratio_se`² over the variance p(1 − p)/n independent games would give, and at least 1.

    Why: games of one cluster (the games of one deal under several options: a sweep's value
    pooled over the rest of its grid) share their draws and are not independent, so Wilson's
    interval over all n games would be too narrow (for k identical copies of each game, about √k
    times); Kish's effective sample size keeps Wilson's behaviour near 0 and 1 (Korn & Graubard
    1998 use it so for proportions from clustered samples). One game per cluster is Wilson's
    interval itself: the games are then independent, and deff, n/(n − 1) there, would only be the
    ratio estimator's small-sample factor."""
    n, k = sum(dens), sum(nums)
    if n == 0:
        return None
    if max(dens) <= 1:
        return wilson(k, n, z)
    deff = design_effect(nums, dens)
    return wilson(k / deff, n / deff, z)


def design_effect(nums: list[float], dens: list[float]) -> float:
    """Of the share p = Σyᵢ / Σxᵢ of n = Σxᵢ games over clusters i (cluster i holds xᵢ games, yᵢ of
    them successes): `ratio_se`² over p(1 − p)/n, the variance n independent games would give
    (Kish's deff), taken at least 1; 1 for a single cluster, where it cannot be read.

    At p = 0 or 1 nothing varies to read it from, and the games of a cluster are taken to move
    together (intra-cluster correlation 1): deff = Σxᵢ² / Σxᵢ, n over Kish's effective number of
    clusters (Σxᵢ)² / Σxᵢ², the games a cluster holds where all hold as many. So a share no deal's
    games ever showed counts its deals, not its games: 0 of 20 deals played in 2 seatings is as
    sure as 0 of 20 games, never as 0 of 40."""
    n, k = sum(dens), sum(nums)
    if n and k in (0, n) and len(dens) > 1:
        return max(1.0, math.fsum(x * x for x in dens) / n)
    p, se = (k / n if n else 0.0), ratio_se(nums, dens)
    return max(1.0, se * se / (p * (1 - p) / n)) if se is not None and 0 < p < 1 else 1.0


def clustered_mean_ci(sums: list[float], counts: list[int], z: float = Z95) -> tuple[float, float] | None:
    """Of the mean of games that come in clusters (cluster i: counts[i] games whose values sum to
    sums[i]): Σsᵢ / Σcᵢ ± t·`ratio_se`(sums, counts), t Student's with one degree of freedom fewer
    than the clusters; `mean_ci` of the values when every cluster is one game.

    Why: the mean of games is the ratio of the clusters' sums to their games, and the games of one
    cluster (a deal played in every seating) share their draws, so s/√n over the games would be too
    narrow where they move together: for k identical copies of each game, by √k. The ratio
    estimator's standard error over the clusters (Cochran 1977, §6.4) is then s/√m of one game per
    cluster, m the clusters; t's degrees of freedom are the clusters less one, as a survey's
    variance over its clusters has them (Korn & Graubard 1999)."""
    if max(counts, default=0) <= 1:
        return mean_ci(sums, z)
    se = ratio_se(sums, counts)
    if se is None:
        return None
    m = math.fsum(sums) / sum(counts)
    t = student_t(len(sums) - 1, z)
    return (m - t * se, m + t * se)


def clustered_quantile_ci(xs: list[float], q: float, below: list[int], counts: list[int],
                          z: float = Z95) -> tuple[float, float] | None:
    """`quantile_ci` of the q-quantile of games that come in clusters, with the binomial variance
    behind its ranks multiplied by the design effect (`design_effect`) of the share of games at or
    below the sample quantile (cluster i: counts[i] games, below[i] of them at or below it);
    `quantile_ci` itself when every cluster is one game.

    Why (Woodruff 1952; Francisco & Fuller 1991): the order-statistic interval is the interval of
    the share F(Q) = q carried back through the sorted sample, so for clustered games it needs that
    share's clustered variance, read as Kish's design effect. Deterministic and one pass over the
    clusters, where a bootstrap over the deals would sort the games again hundreds of times."""
    return quantile_ci(xs, q, z, clusters_deff(below, counts))


def clusters_deff(nums: list[float], dens: list[float]) -> float:
    """`design_effect` of the share Σyᵢ / Σxᵢ where some cluster holds two games or more; 1 where
    every cluster is one game (independent games, whose interval is the plain one)."""
    return design_effect(nums, dens) if max(dens, default=0) > 1 else 1.0


def cluster_totals(values, clusters) -> tuple[list[float], list[int]]:
    """Each cluster's sum of `values` and its number of them (`clusters[i]`: value i's cluster, any
    hashable key), in the order the clusters first come (`vbr.analysis.deals.Deals`)."""
    deals = Deals(clusters)
    if not deals.repeated:
        return list(values), [1] * deals.games
    return deals.totals(values)


def clustered_share(hits, clusters, z: float = Z95) -> tuple[float, float] | None:
    """`clustered_wilson` of the share of true `hits`, the hits with one key of `clusters` a
    cluster (a game seed: the games of one deal); Wilson's interval when no key repeats."""
    hits = list(map(int, hits))
    deals = Deals(clusters)
    if not deals.repeated:
        return wilson(sum(hits), deals.games, z)
    return clustered_wilson(*deals.totals(hits), z)


def share_ci(k: float, n: float, clusters: tuple | None = None, z: float = Z95) -> tuple[float, float] | None:
    """The 95% interval of the share k/n: Wilson's over n independent games, or, given the games'
    `clusters` (each cluster's successes and its games, summing to k and n: the games of one deal),
    `clustered_wilson`'s, on the effective number of games. None without games."""
    return wilson(k, n, z) if clusters is None else clustered_wilson(*clusters, z)


def newcombe(pa: float, a: tuple[float, float], pb: float, b: tuple[float, float]) -> tuple[float, float]:
    """Of p_b − p_a, from each share's own 95% interval (l, u), which holds its share (Newcombe's
    hybrid score, method 10):

        d − √((p_b − l_b)² + (u_a − p_a)²)  ..  d + √((u_b − p_b)² + (p_a − l_a)²)

    Why: each side of the difference takes its variance from the distance of one share to the
    interval's end on that side, so the difference keeps whatever the two intervals know: Wilson's
    good behaviour near 0 and 1 and for small n, where p̂ ± z·√(Σ p̂q̂/n) is too narrow, and, for a
    share whose games come in clusters, its design effect (Zou & Donner 2008, Stat. Med. 27:1693,
    recover the variances so from any two intervals). No iteration.
    """
    d = pb - pa
    return (d - math.hypot(pb - b[0], a[1] - pa), d + math.hypot(b[1] - pb, pa - a[0]))


def diff_proportions(ka: float, na: float, kb: float, nb: float, z: float = Z95,
                     clusters_a: tuple | None = None, clusters_b: tuple | None = None) -> tuple[float, float] | None:
    """Of p_b − p_a = kb/nb − ka/na by `newcombe` from each share's interval (`share_ci`): Wilson's
    of its games, or, for a share given its `clusters` (each cluster's successes and games), its
    clustered Wilson interval, so that each run's part of the difference is as wide as its own
    games make it. None where a share has no games.

    Without clusters this is Newcombe's own method 10 (Newcombe 1998, Stat. Med. 17:873; for
    56/70 − 48/80 his Table II gives 0.0524..0.3339: tested). With them, a run whose deals' games
    agree (a deal's two games won alike) brings a wider interval than its games taken one by one;
    one whose deals' games disagree brings Wilson's own, as `clustered_wilson` takes its design
    effect at least 1.
    """
    a, b = share_ci(ka, na, clusters_a, z), share_ci(kb, nb, clusters_b, z)
    if a is None or b is None:
        return None
    return newcombe(ka / na, a, kb / nb, b)


def diff_normal(a: float, se_a: float | None, b: float, se_b: float | None,
                z: float = Z95) -> tuple[float, float] | None:
    """Of b − a for two independent estimates: (b − a) ± z·√(se_a² + se_b²).

    Why: independent samples' variances add; the estimates here (means, pooled ratios, quantiles
    of thousands of games) are close enough to normal for the sum to carry a z interval.
    """
    if se_a is None or se_b is None:
        return None
    half = z * math.hypot(se_a, se_b)
    return (b - a - half, b - a + half)


def clustered_mean_se(xs: list[float], clusters: tuple | None = None) -> float | None:
    """The standard error of the mean of xs: s/√n (`mean_se`) for independent games; given the
    games' `clusters` (each cluster's sum of xs and its games: the games of one deal), the ratio
    estimator's over the clusters (`ratio_se`), as `clustered_mean_ci` takes it (and `mean_se`
    where every cluster is one game). None below two games, or two clusters.

    Why: where a cluster's games move together (a deal's two games alike) s/√n is too narrow, and
    where they move against each other (a deal's two seatings mirrored) too wide; the clusters'
    sums carry both."""
    if clusters is None or max(clusters[1], default=0) <= 1:
        return mean_se(xs)
    return ratio_se(*clusters)


def diff_means(xs: list[float], ys: list[float], z: float = Z95,
               clusters_x: tuple | None = None, clusters_y: tuple | None = None) -> tuple[float, float] | None:
    """Of ȳ − x̄, each mean with its own standard error (`clustered_mean_se`), by `diff_normal`:
    for two runs of independent games Welch's unpooled √(s_x²/n_x + s_y²/n_y), with z in place of
    t; a run given its `clusters` (each cluster's sum and its games) brings its clusters' standard
    error instead. None below two games a run.

    Why unpooled: two variants of a game need not have the same spread of lengths or scores, and
    pooling would assume they do; why z: the samples are large (see `mean_ci`).
    """
    if len(xs) < 2 or len(ys) < 2:
        return None
    return diff_normal(fmean(xs), clustered_mean_se(xs, clusters_x), fmean(ys), clustered_mean_se(ys, clusters_y), z)


def diff_ratios(na: list[float], da: list[float], nb: list[float], db: list[float], z: float = Z95,
                clusters_a: tuple | None = None, clusters_b: tuple | None = None) -> tuple[float, float] | None:
    """Of R_b − R_a for two pooled ratios (R = Σn / Σd), each with its cluster standard error
    (`ratio_se`): of its games, or, for a run given its `clusters` (each cluster's summed
    numerators and summed denominators: the games of one deal added up), of those."""
    se_a, se_b = ratio_se(*(clusters_a or (na, da))), ratio_se(*(clusters_b or (nb, db)))
    if se_a is None or se_b is None:
        return None
    return diff_normal(sum(na) / sum(da), se_a, sum(nb) / sum(db), se_b, z)


def diff_quantiles(xs: list[float], ys: list[float], q: float, z: float = Z95,
                   clusters_x: tuple | None = None, clusters_y: tuple | None = None) -> tuple[float, float] | None:
    """Of Q_y(q) − Q_x(q), each quantile's standard error from its order-statistic interval
    (`quantile_se`): the Price & Bonett (2002) interval for a difference of medians, applied at q.
    A run given its `clusters` (each cluster's games at or below its sample quantile, and its
    games) reads its standard error off its clustered interval (`clustered_quantile_ci`: the ranks
    widened by the design effect of that share).

    Why not a bootstrap: this is deterministic and instant at any sample size, and like the
    bootstrap it assumes nothing about the shape of the distribution.
    """
    se_x = quantile_se(xs, q, z, clusters_deff(*clusters_x) if clusters_x else 1.0)
    se_y = quantile_se(ys, q, z, clusters_deff(*clusters_y) if clusters_y else 1.0)
    if se_x is None or se_y is None:
        return None
    return diff_normal(quantile(xs, q), se_x, quantile(ys, q), se_y, z)


# ------------------------------------------------------------------------------ paired runs
def paired_se(ds: list[float]) -> float | None:
    """The standard error of the mean of per-pair differences dᵢ = yᵢ − xᵢ: s_d/√m (needs m ≥ 2).

    Why: when both variants play the same seeds, a pair's two games share every random draw the
    variants' changes leave alone, so yᵢ and xᵢ move together and Var(ȳ − x̄) = s_d²/m is smaller
    than the independent runs' s_x²/m + s_y²/m by 2·Cov(x, y)/m (common random numbers: Law and
    Kelton, Simulation Modeling and Analysis, §11.2). The interval d̄ ± z·s_d/√m is the one-sample
    normal interval of the differences; for a win (0 or 1) in each game, dᵢ is −1, 0 or 1.
    """
    return mean_se(ds)


def clustered_paired_se(ds: list[float], deals: list) -> float | None:
    """The standard error of the mean of per-pair differences dᵢ when the pairs come in clusters
    (`deals[i]`: pair i's deal, a game seed): the ratio estimator's over the deals (`ratio_se` of
    each deal's summed differences over its pairs), which is `paired_se` when no deal repeats.

    Why: with the seats rotated, a deal is played in every seating, and its pairs share their
    draws, so their differences are not independent: s_d/√m over the games would be too narrow
    (greedy against random on a dice game of rallies: by a fifth to a quarter)."""
    return ratio_se(*cluster_totals(ds, deals))


def paired_ratio_se(ya: list[float], xa: list[float], yb: list[float], xb: list[float]) -> float | None:
    """Of R_b − R_a for two pooled ratios over paired games i: √(Σuᵢ² / (m(m − 1))), with
    uᵢ = (y_bᵢ − R_b·x_bᵢ)/x̄_b − (y_aᵢ − R_a·x_aᵢ)/x̄_a, the difference of the two ratios'
    linearised residuals (`ratio_se`), taken pair by pair."""
    m = len(ya)
    if m < 2 or not sum(xa) or not sum(xb):
        return None
    ra, rb = sum(ya) / sum(xa), sum(yb) / sum(xb)
    ma, mb = fmean(xa), fmean(xb)
    us = array("d", ((y2 - rb * x2) / mb - (y1 - ra * x1) / ma for y1, x1, y2, x2 in zip(ya, xa, yb, xb)))
    return math.sqrt(sum(map(mul, us, us)) / (m * (m - 1)))


def unpaired_games(m: int, se_paired: float | None, se_unpaired: float | None) -> int | None:
    """How many games per variant two independent runs would need for an interval as narrow as
    the paired one of m pairs: m·(se_unpaired/se_paired)², as a standard error falls with √n."""
    if not se_paired or se_unpaired is None:
        return None
    return math.ceil(round(m * (se_unpaired / se_paired) ** 2, 6))  # no rounding dust above a whole number


def p_value(diff: float, se: float) -> float:
    """The two-sided normal p-value of a difference with standard error se (0 and 1 at se = 0)."""
    if se == 0:
        return 1.0 if diff == 0 else 0.0
    return 2 * (1 - NormalDist().cdf(abs(diff) / se))


def holm(ps: list[float | None]) -> list[float | None]:
    """Holm's (1979) step-down adjusted p-values, None kept where there is no test.

    Sorted p₍₁₎ ≤ … ≤ p₍ₘ₎: adjusted p₍ᵢ₎ = maxⱼ≤ᵢ min(1, (m − j + 1)·p₍ⱼ₎). Rejecting where the
    adjusted p is below α keeps the chance of any false "significant" mark among the m at most α,
    whatever the dependence between the tests (which figures of one run have).
    """
    tested = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    m = len(tested)
    out: list[float | None] = [None] * len(ps)
    running = 0.0
    for j, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (m - j) * p))
        out[i] = running
    return out
