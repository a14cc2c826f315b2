"""The interval of a difference between two independent runs when a run's games come in clusters
(the seats rotated: each deal played in both seatings, its two games sharing its draws): each
run's part of the interval is as wide as its own clusters make it, worked out here by hand from
the formulas of vbr.analysis.stats; a run given no clusters keeps its independent games' part."""
import math

import pytest

from vbr.analysis import stats as S

Z = S.Z95


def newcombe_by_hand(pa, a, pb, b):
    """Newcombe's method 10 written out: d − √((p_b − l_b)² + (u_a − p_a)²) .. d + √((u_b − p_b)² + (p_a − l_a)²)."""
    d = pb - pa
    return (d - math.sqrt((pb - b[0]) ** 2 + (a[1] - pa) ** 2), d + math.sqrt((b[1] - pb) ** 2 + (pa - a[0]) ** 2))


# ------------------------------------------------------------------------------ proportions
def test_a_share_whose_deals_games_agree_brings_wilsons_interval_on_its_effective_games():
    # a: 10 deals of two games, both won in 6 deals and both lost in 4: p = 0.6. Over the deals the
    # ratio estimator's residuals are 2 − 1.2 = 0.8 (six times) and −1.2 (four): Σ = 9.6, se² =
    # 9.6 / (10·9) / 2² = 0.02667, against p(1 − p)/n = 0.24/20 = 0.012 for 20 independent games: a
    # design effect of 20/9, so a's interval is Wilson's of 5.4 wins in 9 games. b: 6 of 20
    # independent games, Wilson's own.
    ci = S.diff_proportions(12, 20, 6, 20, clusters_a=([2] * 6 + [0] * 4, [2] * 10))
    expected = newcombe_by_hand(0.6, S.wilson(5.4, 9), 0.3, S.wilson(6, 20))
    assert ci == pytest.approx(expected, abs=1e-12)
    plain = S.diff_proportions(12, 20, 6, 20)
    assert ci[1] - ci[0] > 1.2 * (plain[1] - plain[0])


def test_a_share_of_clusters_of_one_game_is_newcombes_own_figure():
    # every cluster one game: the games are independent, and the interval is Newcombe's Table II
    # figure for 48/80 → 56/70 exactly
    ci = S.diff_proportions(48, 80, 56, 70, clusters_a=([1] * 48 + [0] * 32, [1] * 80),
                            clusters_b=([1] * 56 + [0] * 14, [1] * 70))
    assert ci == S.diff_proportions(48, 80, 56, 70)
    assert (round(ci[0], 4), round(ci[1], 4)) == (0.0524, 0.3339)


def test_a_share_whose_deals_are_each_won_once_keeps_wilsons_interval_as_its_design_effect_is_at_least_1():
    # each deal's two games split 1–1: the share is 0.5 in every deal, the ratio estimator's
    # residuals are all 0 and its design effect 0; `clustered_wilson` takes it at least 1 (an
    # effective number of games above the games played is not claimed), so the part is Wilson's
    ci = S.diff_proportions(10, 20, 6, 20, clusters_a=([1] * 10, [2] * 10))
    assert ci == S.diff_proportions(10, 20, 6, 20)


def test_a_share_no_deal_ever_showed_counts_its_deals_not_its_games():
    # 0 of 40 games in 20 deals of 2: nothing varies, so nothing tells how far a deal's two games
    # move together; taken as together (deff 2), it is Wilson's 0 of 20, up to z²/(20 + z²), not
    # 0 of 40's z²/(40 + z²). So is 20 of 20 deals won; deals of 1, 2 and 3 games hold as much as
    # (1 + 2 + 3)² / (1 + 4 + 9) = 36/14 clusters of equal size would
    assert S.clustered_wilson([0] * 20, [2] * 20) == pytest.approx(S.wilson(0, 20))
    assert S.clustered_wilson([0] * 20, [2] * 20)[1] == pytest.approx(Z * Z / (20 + Z * Z))
    assert S.clustered_wilson([2] * 20, [2] * 20) == pytest.approx(S.wilson(20, 20))
    assert S.clustered_wilson([0, 0, 0], [1, 2, 3]) == pytest.approx(S.wilson(0, 36 / 14))


def test_newcombe_takes_any_two_intervals_that_hold_their_shares():
    # p_a = 0.5 in (0.4, 0.7), p_b = 0.2 in (0.1, 0.25): −0.3 − √(0.1² + 0.2²) .. −0.3 + √(0.05² + 0.1²)
    lo, hi = S.newcombe(0.5, (0.4, 0.7), 0.2, (0.1, 0.25))
    assert (lo, hi) == (pytest.approx(-0.3 - math.sqrt(0.05)), pytest.approx(-0.3 + math.sqrt(0.0125)))


# ------------------------------------------------------------------------------ means
def test_a_mean_whose_deals_games_agree_brings_its_deals_standard_error():
    # x: values 1..5, each deal's two games alike: the deals' sums 2, 4, 6, 8, 10 over 2 games, R = 3,
    # residuals −4, −2, 0, 2, 4: se = √(40 / (5·4)) / 2 = √2/2, s/√5 of one game a deal (s² = 2.5).
    # The 10 games taken as independent: s² = 20/9, se² = 2/9. y: 2, 4, 6, 8 independent: se² = 5/3.
    xs, ys = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], [2, 4, 6, 8]
    ci = S.diff_means(xs, ys, clusters_x=([2, 4, 6, 8, 10], [2] * 5))
    half = Z * math.sqrt(0.5 + 5 / 3)
    assert ci == (pytest.approx(2 - half), pytest.approx(2 + half))
    assert S.diff_means(xs, ys) == (pytest.approx(2 - Z * math.sqrt(2 / 9 + 5 / 3)),
                                    pytest.approx(2 + Z * math.sqrt(2 / 9 + 5 / 3)))


def test_a_mean_whose_deals_games_mirror_each_other_brings_a_narrower_standard_error():
    # x: deals (1, 5), (2, 4), (5, 2), (4, 2), (3, 3): sums 6, 6, 7, 6, 6 over 2 games, R = 3.1,
    # residuals −0.2 four times and 0.8: Σ = 0.8, se = √(0.8 / 20) / 2 = 0.1. The 10 games as
    # independent: Σ(x − 3.1)² = 16.9, se² = 16.9 / 9 / 10 = 0.18778, four times wider.
    xs, ys = [1, 5, 2, 4, 5, 2, 4, 2, 3, 3], [2, 4, 6, 8]
    assert S.clustered_mean_se(xs, ([6, 6, 7, 6, 6], [2] * 5)) == pytest.approx(0.1)
    assert S.clustered_mean_se(xs) == pytest.approx(math.sqrt(16.9 / 90))
    ci = S.diff_means(xs, ys, clusters_x=([6, 6, 7, 6, 6], [2] * 5))
    half = Z * math.sqrt(0.01 + 5 / 3)
    assert ci == (pytest.approx(1.9 - half), pytest.approx(1.9 + half))


def test_a_mean_of_clusters_of_one_game_is_welchs_figure():
    xs, ys = [1, 2, 3], [2, 4, 6, 8]
    assert S.diff_means(xs, ys, clusters_x=(xs, [1, 1, 1]), clusters_y=(ys, [1] * 4)) == S.diff_means(xs, ys)


def test_a_mean_of_one_cluster_has_no_spread_between_clusters_and_no_interval():
    assert S.diff_means([3, 5], [2, 4, 6], clusters_x=([8], [2])) is None


# ------------------------------------------------------------------------------ ratios
def test_a_pooled_ratio_whose_deals_games_agree_brings_its_deals_standard_error():
    # a: options over choices 6/3, 10/4, 12/4, 8/4, each deal twice alike: R = 2.4; over the deals'
    # sums the residuals are twice −1.2, 0.4, 2.4, −1.6 (squares 4 · 9.92), se = √(39.68/12) / 7.5 =
    # 0.242457, one game a deal's. b: 5/2, 7/2 independent: R = 3, residuals ∓1, se = √(2/2)/2 = 0.5
    na, da = [6, 6, 10, 10, 12, 12, 8, 8], [3, 3, 4, 4, 4, 4, 4, 4]
    ci = S.diff_ratios(na, da, [5, 7], [2, 2], clusters_a=([12, 20, 24, 16], [6, 8, 8, 8]))
    half = Z * math.sqrt((math.sqrt(39.68 / 12) / 7.5) ** 2 + 0.25)
    assert ci == (pytest.approx(0.6 - half), pytest.approx(0.6 + half))
    # the 8 games as independent clusters: se = √(19.84/(8·7)) / 3.75 = 0.158725, narrower
    plain = S.diff_ratios(na, da, [5, 7], [2, 2])
    assert plain[1] - plain[0] == pytest.approx(2 * Z * math.sqrt(0.158725 ** 2 + 0.25), abs=1e-5)


# ------------------------------------------------------------------------------ quantiles
def test_a_quantile_whose_deals_games_agree_reads_its_standard_error_off_its_clustered_ranks():
    # x: lengths 1..100, each deal twice alike; at or below the median 50.5 are the first 50 deals'
    # games, a design effect of 200/99, and the ranks of 200 games 100.5 ∓ z·√(200/99 · 50) =
    # 80..121: X₍₈₀₎..X₍₁₂₁₎ = 40..61, se = 21/2z. y: 1..100 once, X₍₄₀₎..X₍₆₁₎ = 40..61, se = 21/2z.
    # Both medians 50.5: 0 ± z·√2·21/2z = ±21/√2. The 200 games as independent: 43..58, se = 15/2z.
    xs, ys = sorted(float(d) for d in range(1, 101) for _ in range(2)), [float(d) for d in range(1, 101)]
    below = [2] * 50 + [0] * 50
    ci = S.diff_quantiles(xs, ys, 0.5, clusters_x=(below, [2] * 100))
    assert ci == (pytest.approx(-21 / math.sqrt(2)), pytest.approx(21 / math.sqrt(2)))
    plain = S.diff_quantiles(xs, ys, 0.5)
    assert plain == (pytest.approx(-math.sqrt(15 ** 2 + 21 ** 2) / 2), pytest.approx(math.sqrt(15 ** 2 + 21 ** 2) / 2))


def test_a_quantile_of_clusters_of_one_game_keeps_its_independent_interval():
    xs, ys = [float(d) for d in range(1, 11)], [float(d) for d in range(11, 21)]
    below = [1] * 5 + [0] * 5  # at or below the median 5.5
    assert S.diff_quantiles(xs, ys, 0.5, clusters_x=(below, [1] * 10)) == S.diff_quantiles(xs, ys, 0.5)
