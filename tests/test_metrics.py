"""Balance metrics and their intervals, against values worked out by hand or taken from textbooks.

The per-game fixtures are small made-up games: a score track of (choices made so far, score)
after every score change, starting level.
"""
import json
import math
from dataclasses import replace

import pytest

from vbr.analysis import comparison as C
from vbr.analysis import pairing as P
from vbr.analysis import metrics as M
from vbr.analysis import stats as S
from vbr.analysis.trial import Trial

from hand_games import DRAW, FOUR, POINTLESS, SEESAW, WIRE, trial

Z = S.Z95


# ------------------------------------------------------------------------------ one game
def test_lead_changes_skip_ties():
    # leaders 0, -, 1: the tie takes no lead away, so 0 → 1 is the one change
    assert M.lead_changes(trial([(1, (1, 0)), (2, (1, 1)), (3, (1, 2))], 1, 3)) == 1
    # leaders 0, -, 1, -, 0 → two changes
    assert M.lead_changes(SEESAW) == 2
    # leaders 0, 0, 0, 0 → none; 1, - → none; no track → none
    assert [M.lead_changes(t) for t in (WIRE, DRAW, POINTLESS)] == [0, 0, 0]


def test_lead_changes_among_three_sides():
    # 0-1-0, 0-1-1, 1-1-1, 2-1-1, 3-1-1: leaders 1, -, -, 0, 0 → one change
    t = trial([(1, (0, 1, 0)), (2, (0, 1, 1)), (3, (1, 1, 1)), (4, (2, 1, 1)), (5, (3, 1, 1))], 0, 6, sides=3)
    assert M.lead_changes(t) == 1
    assert M.largest_lead(t) == 2  # gaps top − second: 1, 0, 0, 1, 2
    assert M.final_margin(t) == 2  # 3 − max(1, 1)
    assert M.comeback(t) is True  # side 1 was ahead of the winner after the first point
    assert M.decisiveness(t) == 0.4  # last not-ahead after the 3rd of 5 points: (5 − 3) / 5


def test_largest_lead_is_the_widest_gap_at_any_point():
    assert M.largest_lead(SEESAW) == 1  # gaps 1, 0, 1, 0, 1
    assert M.largest_lead(WIRE) == 2  # gaps 1, 2, 1, 2
    assert M.largest_lead(DRAW) == 1  # gaps 1, 0
    assert M.largest_lead(POINTLESS) == 0


def test_final_margin_is_winner_minus_best_other():
    assert M.final_margin(SEESAW) == 1  # 3 − 2
    assert M.final_margin(WIRE) == 2  # 3 − 1
    assert M.final_margin(DRAW) == 0  # no winner
    assert M.final_margin(POINTLESS) == 0  # no points
    # a side that wins without the most points has a negative margin
    assert M.final_margin(trial([(1, (0, 1))], 0, 2)) == -1


def test_decisiveness_counts_from_the_stretch_that_won_the_last_lead():
    # leaders 0, -, 1, -, 0: the winner was last not ahead after the 4th point (2-2), then led to
    # the end, so (5 − 4) / 5 of the game's points come after that moment
    assert M.decisiveness(SEESAW) == pytest.approx(1 / 5)
    # led from the first point on: the whole game
    assert M.decisiveness(WIRE) == 1.0


def test_decisiveness_does_not_count_choices_made_before_play():
    # SEESAW after 12 set-up choices that score nothing (as Siatka's tile placement): the same game
    placed = trial([(c + 12, s) for c, s in SEESAW.score_track], 0, SEESAW.choices + 12)
    assert M.decisiveness(placed) == M.decisiveness(SEESAW)


def test_decisiveness_is_zero_without_a_final_lead():
    assert M.decisiveness(DRAW) == 0.0
    assert M.decisiveness(POINTLESS) == 0.0
    # won at 2-2 (on some other rule): the winner never finished ahead on points
    assert M.decisiveness(trial([(1, (1, 0)), (2, (1, 1)), (3, (2, 1)), (4, (2, 2))], 1, 4)) == 0.0


def test_comeback_means_the_winner_trailed():
    assert M.comeback(SEESAW) is True  # 1-2 after choice 6
    assert M.comeback(WIRE) is False
    assert M.comeback(DRAW) is False  # no winner
    assert M.comeback(POINTLESS) is False


def test_points_scored_counts_score_changes():
    assert [M.points_scored(t) for t in FOUR] == [5, 4, 2, 0]


def test_branching_and_forced_share_are_per_choice():
    assert M.branching(SEESAW) == pytest.approx(30 / 14)
    assert M.forced_share(SEESAW) == pytest.approx(4 / 14)
    assert (M.branching(POINTLESS), M.forced_share(POINTLESS)) == (1.0, 1.0)  # all forced
    assert (M.branching(trial([], None, 0, options=0)), M.forced_share(trial([], None, 0))) == (0.0, 0.0)


def test_a_game_of_one_side_has_no_leads():
    t = trial([(1, (1,)), (2, (2,))], 0, 2, sides=1)
    assert (M.lead_changes(t), M.largest_lead(t), M.final_margin(t), M.comeback(t)) == (0, 0, 0, False)


def test_row_flattens_a_game():
    assert M.row(SEESAW) == {
        "index": 0, "seed": 100, "agents": ["random", "random"], "winner": 0, "score": [3, 2],
        "choices": 14, "points_scored": 5, "lead_changes": 2, "largest_lead": 1, "final_margin": 1,
        "decisiveness": 0.2, "comeback": True, "forced": 4, "branching": 2.1429, "first_side": 1,
        "sides": 2, "offered": 30, "score_track": [[2, [1, 0]], [5, [1, 1]], [6, [1, 2]], [9, [2, 2]], [12, [3, 2]]],
        "restricted": [0, 0]}
    assert tuple(M.row(SEESAW)) == M.CSV_FIELDS


def test_a_per_game_row_is_read_back_as_the_game_it_was():
    # the rows `vbr sim --out` writes (M.row), through JSON as the .jsonl file holds them
    for t in FOUR:
        assert Trial.from_row(json.loads(json.dumps(M.row(t)))) == t


def test_a_row_with_measures_is_read_back_with_them():
    t = trial([(2, (1, 0))], 0, 3)
    t.measures = {"first_server": ("side", 1), "rallies": ("int", 4), "deck_out": ("bool", None)}
    r = M.row(t)
    assert (r["measure:first_server"], r["measure:deck_out"]) == (1, None)
    assert Trial.from_row(json.loads(json.dumps(r))) == t


def test_a_row_names_the_run_it_belongs_to_after_the_game():
    run = {"arm": "base", "rules": "rules/siatka.vbr", "rule_options": {"target": "9"}, "engine": "c",
           "restrict": ["0=never:superatak"]}
    r = M.row(SEESAW, run)
    assert tuple(r) == M.CSV_FIELDS + M.RUN_FIELDS
    assert {k: r[k] for k in M.RUN_FIELDS} == run


def test_a_row_without_the_columns_of_a_game_says_which_are_missing():
    old = {k: v for k, v in M.row(SEESAW).items() if k not in ("sides", "offered", "score_track")}
    with pytest.raises(ValueError, match="without sides, offered, score_track"):
        Trial.from_row(old)


def test_csv_rows_write_lists_as_text(tmp_path):
    import csv

    from vbr.analysis.output import rows_text
    text = rows_text(tmp_path / "g.csv", [M.row(t) for t in (SEESAW, DRAW, POINTLESS)])
    seesaw, draw, pointless = csv.DictReader(text.splitlines())
    assert (seesaw["score"], seesaw["agents"], seesaw["comeback"]) == ("3-2", "random;random", "true")
    assert (draw["winner"], pointless["score"]) == ("", "")


# ------------------------------------------------------------------------------ intervals
def test_wilson_matches_hand_values():
    lo, hi = S.wilson(8, 10)  # p = .8: (.8 + .19207 ± .31362) / 1.38415
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    # at k = 0 the interval is [0, z² / (n + z²)] = [0, 3.8415 / 13.8415]
    assert S.wilson(0, 10) == (0.0, pytest.approx(Z * Z / (10 + Z * Z)))
    assert S.wilson(3, 0) is None


def test_mean_ci_is_students_t():
    # 1..5: mean 3, s = √2.5, se = √2.5 / √5 = √0.5; t(4 df) = 2.776 in the tables
    lo, hi = S.mean_ci([1, 2, 3, 4, 5])
    assert (lo, hi) == (pytest.approx(3 - 2.776 * math.sqrt(0.5), abs=1e-3), pytest.approx(3 + 2.776 * math.sqrt(0.5), abs=1e-3))
    assert S.mean_ci([4.0]) is None and S.mean_ci([]) is None


def test_mean_ci_of_twelve_games_is_wider_than_the_normal_one_by_students_t():
    # 0, 1 six times each: mean ½, s = √(3/11), se = s / √12; t(11 df) = 2.201 in the tables
    xs = [0, 1] * 6
    se = math.sqrt(3 / 11) / math.sqrt(12)
    lo, hi = S.mean_ci(xs)
    assert (hi - lo) / 2 == pytest.approx(2.201 * se, abs=1e-4)


@pytest.mark.parametrize("df,table", [(1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (11, 2.201), (30, 2.042),
                                      (100, 1.984)])
def test_student_t_quantiles_match_the_tables(df, table):
    assert S.student_t(df) == pytest.approx(table, rel=1.5e-3)


def test_quantile_interpolates_between_order_statistics():
    assert S.quantile([4, 1, 3, 2], 0.5) == 2.5
    assert S.quantile(list(range(1, 11)), 0.1) == pytest.approx(1.9)  # rank 1 + 0.9·9 = 1.9 → 1.9
    assert S.quantile([7], 0.9) == 7


def test_quantile_ranks_match_the_median_tables():
    # the exact-binomial tables' 95% ranks for the median
    assert S.quantile_ranks(10, 0.5) == (2, 9)
    assert S.quantile_ranks(100, 0.5) == (40, 61)
    assert S.quantile_ranks(5, 0.5) is None  # X(1)..X(5) covers only 94%: too few
    assert S.quantile_ci(list(range(10, 0, -1)), 0.5) == (2, 9)


@pytest.mark.parametrize("q", [0.05, 0.1, 0.25, 0.5, 0.9])
def test_quantile_ranks_cover_at_least_95_percent(q):
    # [X(j), X(k)] covers the q-quantile when j ≤ B < k, B ~ Binomial(n, q)
    for n in range(2, 401):
        ranks = S.quantile_ranks(n, q)
        if ranks:
            pmf = [math.comb(n, b) * q ** b * (1 - q) ** (n - b) for b in range(ranks[0], ranks[1])]
            assert sum(pmf) >= 0.95, (n, ranks)


@pytest.mark.parametrize("a, b, lo, hi", [
    ((48, 80), (56, 70), 0.0524, 0.3339),  # Newcombe (1998), Table II, method 10
    ((3, 10), (9, 10), 0.1705, 0.8090),
    ((0, 29), (5, 56), -0.0381, 0.1926),
    ((0, 20), (0, 10), -0.1611, 0.2775),
    ((0, 20), (10, 10), 0.6791, 1.0000),
])
def test_newcombe_matches_his_table(a, b, lo, hi):
    ci = S.diff_proportions(*a, *b)
    assert (round(ci[0], 4), round(ci[1], 4)) == (lo, hi)


def test_welch_difference_of_means_by_hand():
    # x̄ = 2, s²x = 1; ȳ = 5, s²y = 20/3; se = √(1/3 + 5/3) = √2
    lo, hi = S.diff_means([1, 2, 3], [2, 4, 6, 8])
    assert (lo, hi) == (pytest.approx(3 - Z * math.sqrt(2)), pytest.approx(3 + Z * math.sqrt(2)))
    assert S.diff_means([1], [2, 3]) is None


def test_ratio_interval_by_hand():
    # R = 6/4 = 1.5; residuals 2 − 1.5, 4 − 4.5 → Σ = 0.5; √(0.5 / 2) / x̄ = 0.5 / 2 = 0.25
    assert S.ratio_se([2, 4], [1, 3]) == pytest.approx(0.25)
    assert S.ratio_ci([2, 4], [1, 3]) == (pytest.approx(1.5 - Z * 0.25), pytest.approx(1.5 + Z * 0.25))
    assert S.ratio_ci([2], [1]) is None and S.ratio_ci([0, 0], [0, 0]) is None


def test_difference_of_quantiles_by_hand():
    # medians 5.5 and 15.5, each bounded by X(2)..X(9), 7 apart: se = 7 / 2z each, so the
    # half-width is z · √2 · 7 / 2z = 7 / √2
    lo, hi = S.diff_quantiles(list(range(1, 11)), list(range(11, 21)), 0.5)
    assert (lo, hi) == (pytest.approx(10 - 7 / math.sqrt(2)), pytest.approx(10 + 7 / math.sqrt(2)))
    assert S.diff_quantiles([3] * 20, list(range(20)), 0.5) is None  # ties: no spread to read


# ------------------------------------------------------------------------------ many games
@pytest.fixture(scope="module")
def summary():
    return M.summarize(FOUR)


def test_summary_counts_wins_per_side(summary):
    # side 0 won SEESAW and WIRE, side 1 POINTLESS, DRAW was drawn
    assert summary["games"] == 4 and summary["sides"] == "seat"
    assert summary["win_rate"]["0"] == {"wins": 2, "value": 0.5, "ci95": [0.15, 0.85]}  # Wilson 2/4
    assert summary["win_rate"]["1"]["wins"] == 1


def test_first_mover_advantage_is_over_decided_games(summary):
    # decided: SEESAW (first 1, won by 0), WIRE (0, 0), POINTLESS (1, 1) → 2 of 3
    m = summary["metrics"]["first_mover_advantage"]
    assert (m["value"], m["n"], m["excess"]) == (0.6667, 3, 0.1667)  # 2/3 − 1/2
    assert m["ci95"] == [round(x, 4) for x in S.wilson(2, 3)]


def test_side_advantage_and_balance(summary):
    # of 3 decided games side 0 won 2: 2/3 − 1/2; Ludii's Balance over all 4: 1 − (2/4 − 1/4)
    m = summary["metrics"]["side_advantage"]
    assert (m["value"], m["side"], m["balance"]) == (0.1667, "0", 0.75)


def test_length_figures(summary):
    ms = summary["metrics"]
    # lengths 14, 10, 5, 7: mean 9, deviations 5, 1, −4, −2 → s² = 46/3, se = √(46/3)/2
    se = math.sqrt(46 / 3) / 2
    t3 = S.student_t(3)  # 3.182 in the tables
    assert ms["length_mean"]["value"] == 9.0
    assert ms["length_mean"]["ci95"] == [round(9 - t3 * se, 4), round(9 + t3 * se, 4)]
    # sorted 5, 7, 10, 14: median at rank 1.5 → 8.5; p10 at 0.3 → 5.6; p90 at 2.7 → 12.8
    assert [ms[k]["value"] for k in ("length_median", "length_p10", "length_p90")] == [8.5, 5.6, 12.8]
    # four games are too few for a 95% interval on any of them
    assert ms["length_median"]["ci95"] is None and "too few" in ms["length_median"]["reason"]


def test_score_figures_skip_games_without_points(summary):
    ms = summary["metrics"]
    # SEESAW, WIRE, DRAW: points 5, 4, 2; lead changes 2, 0, 0; largest leads 1, 2, 1; margins 1, 2, 0
    assert ms["points_mean"]["value"] == round(11 / 3, 4) and ms["points_mean"]["n"] == 3
    assert ms["lead_changes_mean"]["value"] == round(2 / 3, 4)
    assert ms["largest_lead_mean"]["value"] == round(4 / 3, 4)
    assert ms["final_margin_mean"]["value"] == 1.0
    # decided with points: SEESAW (1/5, a comeback) and WIRE (1.0, none)
    assert ms["decisiveness_mean"]["value"] == 0.6
    assert (ms["comeback_rate"]["value"], ms["comeback_rate"]["n"]) == (0.5, 2)
    assert ms["draw_rate"]["value"] == 0.25


def test_normal_intervals_are_cut_to_what_the_metric_can_be(summary):
    ms = summary["metrics"]
    # decisiveness 1/5 and 1: mean 0.6, se (1 − 1/5)/2 = 0.4, t(1 df) = 12.706: both ends cut
    assert ms["decisiveness_mean"]["ci95"] == [0.0, 1.0]
    # lead changes 2, 0, 0: mean 2/3, se = √(4/3)/√3 = 2/3, t(2 df) = 4.303, so x̄ − t·se < 0 → 0
    assert ms["lead_changes_mean"]["ci95"] == [0.0, round(2 / 3 + S.student_t(2) * 2 / 3, 4)]


def test_branching_and_forced_are_pooled_over_choices(summary):
    ms = summary["metrics"]
    # options 30 + 25 + 12 + 7 = 74 over 36 choices (the mean of per-game ratios would be 2.0107)
    assert ms["branching_factor"]["value"] == round(74 / 36, 4)
    assert ms["forced_share"]["value"] == round(14 / 36, 4)  # forced 4 + 2 + 1 + 7


def test_every_metric_has_an_interval_or_a_reason(summary):
    for name, m in summary["metrics"].items():
        assert m["unit"] in ("share", "choices", "points", "count"), name
        assert (m["ci95"] is None) == ("reason" in m), name
    json.dumps(summary)


def test_summary_floats_have_four_decimals(summary):
    def floats(x):
        if isinstance(x, dict):
            return [f for v in x.values() for f in floats(v)]
        if isinstance(x, list):
            return [f for v in x for f in floats(v)]
        return [x] if isinstance(x, float) else []
    assert all(round(f, 4) == f for f in floats(summary))


def test_one_game_has_values_without_spread():
    ms = M.summarize([WIRE])["metrics"]
    assert ms["length_mean"]["value"] == 10.0 and ms["length_mean"]["ci95"] is None
    assert ms["length_mean"]["reason"] == "too few games to measure a spread"
    assert ms["first_mover_advantage"]["value"] == 1.0  # Wilson still bounds one game: 1/1
    assert ms["first_mover_advantage"]["ci95"] == [round(x, 4) for x in S.wilson(1, 1)]


def test_a_figure_that_can_be_negative_keeps_its_interval_below_zero():
    # side 0 wins each game behind by 1 or by 3 (metrics.final_margin: negative when a side won
    # without the most points), and an int measure records the same: the mean's interval was cut
    # at 0 as a count's is, which left (0, -0.16) around a mean of -2
    games = [trial([(1, (0, behind))], 0, 1, index=i, seed=200 + i, measures={"net": ("int", -behind)})
             for i, behind in enumerate([1, 1, 3, 3])]
    summary = M.summarize(games)
    half = S.student_t(3) * math.sqrt(4 / 3) / math.sqrt(4)  # s² of -1, -1, -3, -3 is 4/3
    for figure in (summary["metrics"]["final_margin_mean"], summary["measures"]["measure:net"]):
        assert figure["value"] == -2.0
        assert figure["ci95"] == pytest.approx((-2.0 - half, -2.0 + half), abs=1e-4)


def test_games_without_points_have_no_score_figures():
    ms = M.summarize([POINTLESS, POINTLESS])["metrics"]
    for name in ("points_mean", "lead_changes_mean", "decisiveness_mean", "comeback_rate",
                 "largest_lead_mean", "final_margin_mean"):
        assert ms[name]["value"] is None and "points" in ms[name]["reason"], name


def test_all_forced_choices():
    ms = M.summarize([POINTLESS, replace(POINTLESS, seed=104)])["metrics"]  # two deals, played alike
    assert ms["forced_share"]["value"] == 1.0 and ms["forced_share"]["ci95"] == [1.0, 1.0]
    assert ms["branching_factor"]["value"] == 1.0


def test_only_draws():
    ms = M.summarize([DRAW, DRAW])["metrics"]
    assert ms["draw_rate"]["value"] == 1.0
    assert ms["first_mover_advantage"]["value"] is None
    assert ms["first_mover_advantage"]["reason"] == "no decided games with a first side"
    assert ms["decisiveness_mean"]["value"] is None


def test_no_games():
    s = M.summarize([], side_label="team")
    assert (s["games"], s["sides"], s["win_rate"]) == (0, "team", {})
    assert all(m["value"] is None for m in s["metrics"].values())


def test_side_label_is_seat_or_team():
    with pytest.raises(ValueError):
        M.summarize(FOUR, side_label="player")


# ------------------------------------------------------------------------------ two runs
def draws(k, n):
    return [trial([], None if i < k else 0, 10, index=i) for i in range(n)]


def test_compare_proportions_with_newcombe():
    # draw rates 48/80 → 56/70: Newcombe's first example, 0.0524..0.3339
    row = {r["metric"]: r for r in C.compare(draws(48, 80), draws(56, 70))}["draw_rate"]
    assert (row["a"], row["b"], row["diff"]) == (0.6, 0.8, 0.2)
    assert row["ci95"] == [0.0524, 0.3339] and row["excludes_0"] is True
    assert row["sentence"] == "draw rate 60.0 % \u2192 80.0 %, +20.0 percentage points, CI 5.2..33.4"


def test_compare_means_with_welch():
    a = [trial([], 0, c, index=i) for i, c in enumerate([1, 2, 3])]
    b = [trial([], 0, c, index=i) for i, c in enumerate([2, 4, 6, 8])]
    row = {r["metric"]: r for r in C.compare(a, b)}["length_mean"]
    lo, hi = S.diff_means([1, 2, 3], [2, 4, 6, 8])
    assert (row["diff"], row["ci95"]) == (3.0, [round(lo, 4), round(hi, 4)])
    assert row["excludes_0"] is True  # 0.23..5.77
    assert row["sentence"] == "mean length 2 \u2192 5, +3 choices, CI 0.23..5.77"


def test_compare_lists_win_rates_then_every_metric():
    rows = C.compare(FOUR, FOUR)
    assert [r["metric"] for r in rows] == ["win_rate_0", "win_rate_1"] + [m.name for m in M.METRICS]
    assert all(r["diff"] in (0, None) for r in rows)
    assert all(r["significant"] in (False, None) for r in rows)


def test_compare_says_why_there_is_no_interval():
    rows = {r["metric"]: r for r in C.compare([WIRE], [SEESAW])}
    assert rows["length_mean"]["ci95"] is None
    assert rows["length_mean"]["reason"] == "a: too few games to measure a spread"
    assert rows["length_mean"]["sentence"].endswith("no CI (a: too few games to measure a spread)")
    gone = {r["metric"]: r for r in C.compare([POINTLESS], [POINTLESS])}["points_mean"]
    assert gone["sentence"] == "points per game: not measured (a: no games with points)"


def test_holm_adjusts_p_values_step_down():
    # sorted .005, .01, .03, .04 of m = 4: ×4, ×3, ×2, ×1 = .02, .03, .06, .04, then the running
    # maximum keeps them in order: .02, .03, .06, .06 (Holm 1979)
    adjusted = S.holm([0.01, 0.04, 0.03, None, 0.005])
    assert adjusted == [pytest.approx(0.03), pytest.approx(0.06), pytest.approx(0.06), None, pytest.approx(0.02)]


def test_significant_means_below_5_percent_after_holm_over_the_figures():
    rows = [{"p": p} for p in (0.01, 0.04, 0.03, None, 0.005)]
    assert [r["significant"] for r in C.mark_significant(rows)] == [True, False, False, None, True]


def test_a_figure_that_is_another_game_for_game_is_one_holm_test():
    # no draws: seat 1's win rate is 1 − seat 0's in every game, and the side advantage of seat 0
    # (seat 0 wins most in a) counts the same games the same way; PAIRED_A/B (seat 0: 5 → 7 of 10,
    # paired) give them one p-value, which Holm adjusts once over the family
    rows = {r["metric"]: r for r in C.compare(PAIRED_A, PAIRED_B, paired=True)}
    assert rows["win_rate_1"]["same_as"] == "win_rate_0"
    assert rows["side_advantage"]["same_as"] == "win_rate_0"
    assert "same_as" not in rows["win_rate_0"] and "same_as" not in rows["length_mean"]
    family = [r for r in rows.values() if r["p"] is not None and "same_as" not in r]
    adjusted = dict(zip([r["metric"] for r in family], S.holm([r["p"] for r in family])))
    for name in ("win_rate_0", "win_rate_1", "side_advantage"):
        assert rows[name]["p_holm"] == pytest.approx(adjusted["win_rate_0"], abs=2e-4)  # p rounded to 4 places
    assert C.tested(list(rows.values())) == len(family)


def test_a_draw_makes_the_seats_win_rates_two_figures():
    # a draw counts against both seats' win rates: they no longer mirror each other, and the side
    # advantage (over decided games) no longer equals seat 0's win rate (over all games); seat 0
    # chose first in every game, so over the decided games it is the first-mover advantage
    drawn = [*PAIRED_A[:-1], trial([], None, 11, index=9)]
    rows = {r["metric"]: r for r in C.compare(drawn, PAIRED_B, paired=True)}
    assert "same_as" not in rows["win_rate_1"]
    assert rows["side_advantage"]["same_as"] == "first_mover_advantage"


def test_the_first_mover_measure_is_the_first_mover_figure_once():
    # a first-mover measure sets each game's first side (vbr.play._first_mover): its "wins" figure
    # is the first-mover advantage, game for game; a side measure naming other sides is not
    def with_measures(ts):  # first sides 0, 1, 0, 1, ...; `other` 0, 0, 1, 1, 0, 0, ...
        return [replace(t, first_side=t.index % 2, measures={"server": ("side", t.index % 2),
                                                             "other": ("side", t.index // 2 % 2)}) for t in ts]
    a, b = with_measures(PAIRED_A), with_measures(PAIRED_B)
    rows = {r["metric"]: r for r in C.compare(a, b, paired=True)}
    assert rows["measure:server"]["same_as"] == "first_mover_advantage"
    assert "same_as" not in rows["measure:other"]


# paired runs: the same seeds (100 + index) in both; b listed in another order, as pairs are
# matched by seed and seating, not by position
PAIRED_A = [trial([], w, c, index=i) for i, (w, c) in enumerate(zip([0] * 5 + [1] * 5, [10, 12, 9, 15, 11] * 2))]
PAIRED_B = [trial([], w, c, index=i) for i, (w, c) in enumerate(zip([0] * 7 + [1] * 3, [12, 13, 12, 16, 14] * 2))][::-1]


def test_paired_mean_interval_against_a_hand_computation():
    # per-seed differences 2, 1, 3, 1, 3 twice: d̄ = 2, s_d² = 8/9, se = √(8/9)/√10 = 0.29814;
    # 2 ± 1.959964 · 0.29814 = 1.4157..2.5843
    row = {r["metric"]: r for r in C.compare(PAIRED_A, PAIRED_B, paired=True)}["length_mean"]
    assert (row["diff"], row["ci95"], row["pairs"]) == (2.0, [1.4157, 2.5843], 10)
    assert row["method"] == "paired: per-seed differences"
    # unpaired: s_a² = 42.4/9, s_b² = 22.4/9; se² = (64.8/9)/10 = 0.72 against the paired 0.08888:
    # 10 · 0.72 / 0.08888 = 81 games per variant for the same width
    assert row["unpaired_games"] == 81


def test_paired_win_rate_interval_against_a_hand_computation():
    # seat 0 wins 5 of 10 in a, 7 of 10 in b; per seed 1 − 0 in two pairs, 0 in eight:
    # d̄ = 0.2, s_d² = (8 · 0.04 + 2 · 0.64) / 9 = 0.17778, se = 0.13333; 0.2 ± 0.26133
    row = {r["metric"]: r for r in C.compare(PAIRED_A, PAIRED_B, paired=True)}["win_rate_0"]
    assert (row["a"], row["b"], row["ci95"]) == (0.5, 0.7, [-0.0613, 0.4613])


def test_paired_interval_of_runs_with_the_seats_rotated_takes_each_deal_as_one_cluster():
    # ten deals, each played in both seatings with the same outcome in both (the roll decides):
    # seat 0's win differs by +1 in deal 0, by −1 in deals 8 and 9, by 0 elsewhere, in each of
    # its two pairs. The two pairs of a deal are one observation twice: over the deals d̄ = −0.1,
    # Σ(d − d̄)² = 1.21 + 7 · 0.01 + 2 · 0.81 = 2.9, se = √(2.9 / 9 / 10); the twenty pairs taken
    # as independent gave √(5.8 / 19 / 20), a third narrower
    def run(winners):
        return [replace(trial([], w, 10, index=2 * k + s), seed=100 + k, agents=seating)
                for k, w in enumerate(winners) for s, seating in enumerate((["greedy", "random"], ["random", "greedy"]))]
    a = run([1, 0, 0, 0, 0, 1, 1, 1, 0, 0])
    b = run([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    row = {r["metric"]: r for r in C.compare(a, b, paired=True)}["win_rate_0"]
    half = 1.959964 * math.sqrt(2.9 / 9 / 10)
    assert row["diff"] == -0.1 and row["pairs"] == 20
    assert row["ci95"] == [round(-0.1 - half, 4), round(-0.1 + half, 4)]


def test_paired_differences_without_spread_keep_the_unpaired_interval():
    # no draws in either run: every per-seed difference is 0, which measures no spread; a point
    # interval 0..0 would claim a certainty ten games cannot give, so Newcombe's stands
    row = {r["metric"]: r for r in C.compare(PAIRED_A, PAIRED_B, paired=True)}["draw_rate"]
    lo, hi = S.diff_proportions(0, 10, 0, 10)
    assert row["method"] == "Newcombe hybrid score" and row["ci95"] == [round(lo, 4), round(hi, 4)]


def test_unpaired_comparison_ignores_shared_seeds():
    row = {r["metric"]: r for r in C.compare(PAIRED_A, PAIRED_B)}["length_mean"]
    lo, hi = S.diff_means([10, 12, 9, 15, 11] * 2, [12, 13, 12, 16, 14] * 2)
    assert row["ci95"] == [round(lo, 4), round(hi, 4)] and "pairs" not in row


def test_runs_that_share_only_some_deals_are_compared_unpaired():
    row = {r["metric"]: r for r in C.compare(PAIRED_A, PAIRED_B[:9], paired=True)}["length_mean"]
    assert row["method"] == "Welch (normal approximation)" and "pairs" not in row
    assert P.pairing(PAIRED_A, PAIRED_B[:9])["paired"] is False


def test_games_pair_up_by_seed_and_seating():
    a = [trial([], 0, 5, index=i) for i in range(3)]
    b = [trial([], 0, 5, index=i) for i in (2, 0, 5)]
    b[1].agents = ["greedy", "random"]  # seed 100 in another seating: not the same deal
    assert P.pair_up(a, b) == [(2, 0)]


# ------------------------------------------------------------------------------ digits shown
def test_a_significant_change_of_a_share_gets_the_digits_that_show_it():
    # 1.60 % → 1.64 %, CI 0.01..0.07 points: at one decimal both read 1.6 and the CI 0.0..0.1
    assert M.sentence("forced choices", "share", 0.0160, 0.0164, (0.0001, 0.0007)) == (
        "forced choices 1.60 % \u2192 1.64 %, +0.04 percentage points, CI 0.01..0.07")


def test_a_significant_change_of_a_mean_gets_the_digits_that_show_it():
    # 2.001 → 2.004 choices, CI 0.002..0.004: at two decimals a change of 0 with a CI 0..0
    assert M.sentence("mean length", "choices", 2.001, 2.004, (0.002, 0.004)) == (
        "mean length 2.001 \u2192 2.004, +0.003 choices, CI 0.002..0.004")


def test_a_change_that_is_not_significant_keeps_the_usual_digits():
    assert M.sentence("draw rate", "share", 0.0160, 0.0164, (-0.0001, 0.0009)) == (
        "draw rate 1.6 % \u2192 1.6 %, 0.0 percentage points, CI 0.0..0.1")  # no minus on a zero


def test_shares_rounded_together_add_up_to_100():
    assert M.percent_shares([1, 1, 1]) == ["33.4", "33.3", "33.3"]  # not 33.3 three times: 99.9
    assert M.percent_shares([2, 1]) == ["66.7", "33.3"]
    # of 21: 4.76 9.52 14.29 19.05 23.81 28.57; floors add to 97, the 3 left go to .81, .76, .57
    assert M.percent_shares([1, 2, 3, 4, 5, 6], places=0) == ["5", "9", "14", "19", "24", "29"]
    assert M.percent_shares([0, 0]) == ["0.0", "0.0"]


def test_compare_calls_the_sides_by_the_games_names():
    rows = C.compare(FOUR, FOUR, "team", ["team red", "team blue"])
    assert [r["label"] for r in rows[:2]] == ["team red win rate", "team blue win rate"]
    assert rows[0]["sentence"].startswith("team red win rate 50.0 %")


def test_compare_takes_the_side_advantage_of_the_base_runs_side_in_both_runs():
    # side 0 wins 7 of 10 in a, side 1 wins 7 of 10 in b: side 0's advantage goes from +20 to −20 points
    a = [trial([], 0 if i < 7 else 1, 5, index=i) for i in range(10)]
    b = [trial([], 1 if i < 7 else 0, 5, index=i) for i in range(10)]
    row = {r["metric"]: r for r in C.compare(a, b)}["side_advantage"]
    assert (row["label"], row["a"], row["b"], row["diff"]) == ("side advantage of seat 0", 0.2, -0.2, -0.4)


def test_compared_win_rates_of_three_sides_add_up_to_100():
    thirds = [trial([], s, 5, sides=3, points=None, index=s) for s in range(3)]
    rows = C.compare(thirds, thirds)[:3]
    shown = [float(r["sentence"].split()[4]) for r in rows]  # "seat 0 win rate 33.4 % → 33.4 %, ..."
    assert sum(shown) == pytest.approx(100.0)


# ------------------------------------------------------------------------------ two sides written out
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_point = st.sampled_from([(1, 0), (0, 1), (2, 0), (0, 2)])


@settings(max_examples=300, deadline=None)
@given(st.lists(_point, max_size=30), st.sampled_from([0, 1, None]))
def test_two_sides_read_as_the_general_definition_reads_them_with_a_third_side_that_never_scores(steps, winner):
    # metrics read a two-sided track by a path of its own; a third side stuck at 0 changes no
    # lead, gap or comeback of non-negative scores, and sends the same game down the general path
    score, track2, track3 = (0, 0), [], []
    for i, (a, b) in enumerate(steps, 1):
        score = (score[0] + a, score[1] + b)
        track2.append((i, score))
        track3.append((i, (*score, 0)))
    two = trial(track2, winner, len(steps) + 1)
    three = trial(track3, winner, len(steps) + 1, sides=3)
    for metric in (M.lead_changes, M.largest_lead, M.decisiveness, M.comeback, M.points_scored):
        assert metric(two) == metric(three), metric.__name__


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60))
def test_the_sample_standard_deviation_is_the_exact_one_to_twelve_digits(xs):
    import statistics
    exact = statistics.stdev(xs)  # worked out in fractions, then rounded once
    assert math.isclose(S.sample_sd(xs), exact, rel_tol=1e-12, abs_tol=1e-9)
