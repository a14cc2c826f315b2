"""A sweep summarised by its options' values: pooling over the rest of the grid, the values as
entrants, and the Bradley-Terry ranking, against counts and fits worked out by hand."""
import math

import pytest

from vbr.analysis import levels as L
from vbr.analysis import stats as S
from vbr.analysis.sweep import Axis
from vbr.analysis.trial import Trial


def games(winners, start=0):
    return [Trial(start + i, 500 + start + i, ["random", "random"], 2, w, None, 10 + i, 0, 20, 0)
            for i, w in enumerate(winners)]


PICKS = [Axis("pick0", ("a", "b")), Axis("pick1", ("a", "b"))]
# a vs a: seat 0 wins 1 of 2; a vs b: seat 0 (a) wins 3 of 4; b vs a: seat 0 (b) wins 1 of 4, seat 1 (a)
# wins 3; b vs b: a draw and a win of seat 1
CELLS = [L.Cell({"pick0": "a", "pick1": "a"}, games([0, 1])),
         L.Cell({"pick0": "a", "pick1": "b"}, games([0, 0, 0, 1])),
         L.Cell({"pick0": "b", "pick1": "a"}, games([0, 1, 1, 1])),
         L.Cell({"pick0": "b", "pick1": "b"}, games([None, 1]))]


def test_a_value_is_pooled_over_the_rest_of_the_grid():
    pooled = {(p["option"], p["value"]): p for p in L.pooled(PICKS, CELLS)}
    a0 = pooled[("pick0", "a")]  # the cells a-a and a-b: 6 games, seat 0 won 1 + 3
    assert (a0["games"], a0["win_rate"]) == (6, [4 / 6, 2 / 6])
    assert a0["mean_length"] == pytest.approx((10 + 11 + 10 + 11 + 12 + 13) / 6)
    b1 = pooled[("pick1", "b")]  # a-b and b-b: seat 0 won 3, seat 1 won 1 + 1, one draw
    assert (b1["games"], b1["win_rate"]) == (6, [3 / 6, 2 / 6])


def test_a_pooled_value_s_interval_counts_the_games_of_one_deal_as_one_cluster():
    # `dud` changes nothing: its two cells are the same 10 deals played twice, 6 won by seat 0.
    # Wilson over 20 games would claim twice the games there are; with each deal a cluster of two
    # alike games, p = 0.6, se² = p(1 − p)/(m − 1) over m = 10 deals, so the design effect is
    # (p(1 − p)/9) / (p(1 − p)/20) = 20/9, the effective games 20 / (20/9) = 9, the wins 12 / (20/9) = 5.4
    winners = [0, 0, 0, 1, 1, 0, 1, 0, 0, 1]
    cells = [L.Cell({"dud": d, "edge": "1"}, games(winners)) for d in ("a", "b")]
    axes = [Axis("dud", ("a", "b")), Axis("edge", ("1",))]
    one = {(p["option"], p["value"]): p for p in L.pooled(axes, cells)}[("edge", "1")]
    assert one["games"] == 20 and one["win_rate"][0] == pytest.approx(0.6)
    assert one["ci95"][0] == pytest.approx(S.wilson(5.4, 9))
    assert one["ci95"][0][1] - one["ci95"][0][0] > S.wilson(6, 10)[1] - S.wilson(6, 10)[0]


def test_one_swept_option_per_side_over_the_same_values_are_entrants():
    assert L.entrant_axes(PICKS, 2) == PICKS
    assert L.entrant_axes(PICKS, 3) is None  # two options, three sides
    assert L.entrant_axes([Axis("pick0", ("a", "b")), Axis("pick1", ("a", "c"))], 2) is None
    assert L.entrant_axes([Axis("target", ("5", "9"))], 2) is None


def test_entrants_count_wins_wherever_the_value_sat_and_leave_mirror_matches_out():
    e = L.entrants(PICKS, CELLS)
    # a played the 8 games of a-b and b-a; it won 3 as seat 0 and 3 as seat 1
    assert (e["entrants"]["a"]["games"], e["entrants"]["a"]["wins"]) == (8, 6)
    assert (e["entrants"]["b"]["games"], e["entrants"]["b"]["wins"]) == (8, 2)


def test_bradley_terry_of_two_entrants_against_a_hand_computation():
    # a beats b 3 times, b beats a once: π_a/π_b = 3, so θ = ±ln(3)/2 and a's chance against an
    # average entrant is 1/(1 + 3^−½) = 0.634. The information of θ_a − θ_b is n·p(1 − p) =
    # 4 · 0.75 · 0.25 = 0.75; centred, θ_a = (θ_a − θ_b)/2 has variance 1/(4 · 0.75) = 1/3
    fit = L.bradley_terry(["a", "b"], [("a", "b")] * 3 + [("b", "a")])
    a, b = fit["ranking"]
    assert (a["value"], b["value"]) == ("a", "b")
    assert a["theta"] == pytest.approx(math.log(3) / 2) and b["theta"] == pytest.approx(-math.log(3) / 2)
    assert a["vs_average"] == pytest.approx(1 / (1 + 3 ** -0.5))
    half = 1.959964 * math.sqrt(1 / 3)
    assert a["theta_ci95"] == (pytest.approx(a["theta"] - half, abs=1e-6), pytest.approx(a["theta"] + half, abs=1e-6))


def test_bradley_terry_of_games_each_a_deal_of_its_own_keeps_the_fisher_interval():
    # four deals of one game each: the interval of the hand computation above, 1/3 for θ_a
    fit = L.bradley_terry(["a", "b"], [("a", "b")] * 3 + [("b", "a")], deals=[1, 2, 3, 4])
    half = 1.959964 * math.sqrt(1 / 3)
    assert fit["ranking"][0]["theta_ci95"] == (pytest.approx(math.log(3) / 2 - half, abs=1e-6),
                                               pytest.approx(math.log(3) / 2 + half, abs=1e-6))


def test_bradley_terry_takes_the_games_of_one_deal_as_one_cluster():
    # the four games above, each deal played twice alike (the seats rotated, the deal deciding):
    # taken as 8 independent games θ_a's variance would be 1/(4 · 8 · 0.75 · 0.25) = 1/6, half of
    # what the 4 deals allow. The sandwich over the G = 4 deals: a deal's score for θ_a is
    # 2 · (1 − 0.75) = 0.5 when a wins, −2 · 0.75 = −1.5 when b wins; Σ s² = 3 · 0.25 + 2.25 = 3,
    # and B = G/(G − 1) · 3 = 4 (−4 off the diagonal); C = [[1/6, −1/6], [−1/6, 1/6]], so
    # (C·B·C)_aa = 4 · (2/6)² = 4/9: the four games' 1/3 by G/(G − 1) = 4/3, as clustered_wilson's
    # design effect k·m/(m − 1) of k copies of m deals
    wins = [("a", "b")] * 6 + [("b", "a")] * 2
    deals = [1, 1, 2, 2, 3, 3, 4, 4]
    fit = L.bradley_terry(["a", "b"], wins, deals=deals)
    a = fit["ranking"][0]
    assert a["theta"] == pytest.approx(math.log(3) / 2)
    half = 1.959964 * math.sqrt(4 / 9)
    assert a["theta_ci95"] == (pytest.approx(a["theta"] - half, abs=1e-6), pytest.approx(a["theta"] + half, abs=1e-6))
    independent = L.bradley_terry(["a", "b"], wins)["ranking"][0]["theta_ci95"]
    assert (a["theta_ci95"][1] - a["theta_ci95"][0]) / (independent[1] - independent[0]) == pytest.approx(math.sqrt(8 / 3))


def test_an_entrant_s_win_rate_takes_the_games_of_one_deal_as_one_cluster():
    # a-b and b-a play the same ten deals (seeds 500..509), a winning both games of deals 0..5
    # and losing both of 6..9: 12 of 20 games, but over the m = 10 deals p = 0.6 and
    # se² = p(1 − p)/(m − 1): a design effect of 20/9, Wilson at 12/(20/9) = 5.4 of 9 games
    cells = [L.Cell({"pick0": "a", "pick1": "b"}, games([0] * 6 + [1] * 4)),
             L.Cell({"pick0": "b", "pick1": "a"}, games([1] * 6 + [0] * 4))]
    a = L.entrants(PICKS, cells)["entrants"]["a"]
    assert (a["games"], a["wins"]) == (20, 12)
    assert a["ci95"] == pytest.approx(S.wilson(5.4, 9))


def test_bradley_terry_meets_its_likelihood_equations():
    # at the maximum of the likelihood each entrant's expected wins equal its wins (Zermelo 1929)
    wins = [("a", "b")] * 5 + [("b", "a")] * 2 + [("b", "c")] * 4 + [("c", "b")] * 3 + [("a", "c")] * 6 + [("c", "a")]
    fit = {r["value"]: r["theta"] for r in L.bradley_terry(["a", "b", "c"], wins)["ranking"]}
    for v in "abc":
        others = [y if x == v else x for x, y in wins if v in (x, y)]
        expected = sum(1 / (1 + math.exp(fit[o] - fit[v])) for o in others)
        assert expected == pytest.approx(sum(1 for w, _ in wins if w == v), abs=1e-6)
    assert sum(fit.values()) == pytest.approx(0, abs=1e-9)  # centred


def test_a_cycle_of_equal_records_ranks_every_entrant_alike():
    fit = L.bradley_terry(["a", "b", "c"], [("a", "b"), ("a", "b"), ("b", "a"), ("b", "c"), ("b", "c"), ("c", "b"),
                                             ("c", "a"), ("c", "a"), ("a", "c")])
    assert all(r["theta"] == pytest.approx(0, abs=1e-9) for r in fit["ranking"])


def test_no_ranking_when_an_entrant_never_won():
    fit = L.bradley_terry(["a", "b", "c"], [("a", "b"), ("b", "a"), ("a", "c"), ("b", "c")])
    assert fit == {"reason": "no Bradley-Terry ranking: c never won a game against another value"}
