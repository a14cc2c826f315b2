"""`compare` of two runs whose games come in clusters (the seats rotated: each deal, a game seed,
played in both seatings, its two games sharing its draws) but that do not pair (other seeds):
each run's part of the unpaired interval is as wide as its own deals make it, with values worked
out by hand from the formulas; and through the command line, two `vbr sim --out` files of other
seeds merged by `vbr summarize`."""
import json
import math
from dataclasses import replace

import pytest

from vbr.analysis import comparison as C
from vbr.analysis import stats as S
from vbr.cli import main

from conftest import ROOT
from hand_games import trial

Z = S.Z95
SEATINGS = (["a", "b"], ["b", "a"])


def rotated(deals: list[tuple[dict, dict]], first_seed: int) -> list:
    """Deal d's two games (fields in seating a | b, then in seating b | a) on seed first_seed + d,
    deal by deal as a rotated run plays them."""
    return [trial([], g.get("winner", 0), g.get("choices", 10), index=2 * d + s, seed=first_seed + d,
                  agents=list(SEATINGS[s]), measures=g.get("measures"))
            for d, games in enumerate(deals) for s, g in enumerate(games)]


def alike(winners: list[int], lengths: list[int]) -> list[tuple[dict, dict]]:
    """Deals whose two games agree: the same seat wins both, in the same length."""
    return [({"winner": w, "choices": n}, {"winner": w, "choices": n}) for w, n in zip(winners, lengths)]


def rows_of(a, b, **kw) -> dict:
    return {r["metric"]: r for r in C.compare(a, b, **kw)}


def rounded(ci):
    return [round(ci[0], 4), round(ci[1], 4)]


# a: seat 0 wins both games of 6 deals of 10, lengths 10, 12, ..., 28; b: of 3 deals, lengths 12, ..., 30
AGREE_A = rotated(alike([0] * 6 + [1] * 4, [10 + 2 * d for d in range(10)]), 500)
AGREE_B = rotated(alike([0] * 3 + [1] * 7, [12 + 2 * d for d in range(10)]), 700)


def test_a_seat_win_rate_of_deals_whose_games_agree_takes_each_runs_deals_as_clusters():
    # a: p = 0.6 over 10 deals of two alike games: residuals 0.8 (six deals of 2 wins) and −1.2 (four
    # of 0), se² = 9.6 / 90 / 4 = 0.02667 against 0.24/20 independent: deff 20/9, Wilson's of 5.4
    # wins in 9 games. b: p = 0.3, residuals 1.4 (three) and −0.6 (seven), se² = 8.4 / 90 / 4 =
    # 0.02333 against 0.21/20: deff 20/9 again, Wilson's of 2.7 in 9. Newcombe's hybrid of the two.
    row = rows_of(AGREE_A, AGREE_B)["win_rate_0"]
    la, ua = S.wilson(5.4, 9)
    lb, ub = S.wilson(2.7, 9)
    lo = -0.3 - math.sqrt((0.3 - lb) ** 2 + (ua - 0.6) ** 2)
    hi = -0.3 + math.sqrt((ub - 0.3) ** 2 + (0.6 - la) ** 2)
    assert (row["a"], row["b"], row["diff"]) == (0.6, 0.3, -0.3)
    assert row["ci95"] == rounded((lo, hi))
    assert row["method"] == "Newcombe hybrid score, deals as clusters" and "pairs" not in row
    # the 20 games of each run taken as independent: about √(20/9) narrower
    plain = S.diff_proportions(12, 20, 6, 20)
    assert (hi - lo) / (plain[1] - plain[0]) == pytest.approx(math.sqrt(20 / 9), rel=0.15)


def test_runs_of_other_seeds_asked_to_pair_are_compared_unpaired_with_their_clusters():
    # no deal played in both: `paired=True` finds no pairs, and the interval is the unpaired one above
    assert rows_of(AGREE_A, AGREE_B, paired=True)["win_rate_0"] == rows_of(AGREE_A, AGREE_B)["win_rate_0"]


def test_a_mean_of_deals_whose_games_agree_is_as_wide_as_one_game_a_deal():
    # lengths 10..28 in a, 12..30 in b, each deal's two alike: over the 10 deals the mean's se² is
    # s²/10 of one game a deal, s² = 2·(81 + 49 + 25 + 9 + 1)/9 = 330/9: se² = 3.6667 in each run,
    # 2 ± z·√7.3333. The 20 games as independent: s² = 660/19, se² = 1.7368 a run.
    row = rows_of(AGREE_A, AGREE_B)["length_mean"]
    half = Z * math.sqrt(2 * 33 / 9)
    assert (row["diff"], row["ci95"]) == (2, rounded((2 - half, 2 + half)))
    assert row["method"] == "normal approximation, deals as clusters"
    assert S.diff_means([float(t.choices) for t in AGREE_A], [float(t.choices) for t in AGREE_B]) == (
        pytest.approx(2 - Z * math.sqrt(2 * 33 / 19)), pytest.approx(2 + Z * math.sqrt(2 * 33 / 19)))


def test_a_median_of_deals_whose_games_agree_has_its_clustered_ranks():
    # a's median 19: at or below it the five deals of lengths 10..18, both games each: p = 0.5, a
    # design effect of 20/9 (residuals ±1 over 10 deals: se² = 10/90/4 against 0.25/20). Its ranks
    # 10.5 ∓ z·√(20/9 · 20 · 0.25) = 10.5 ∓ 6.533: 3..18, X₍₃₎..X₍₁₈₎ = 12..26, se = 14/2z. b the
    # same two higher: 2 ± z·√2·14/2z = 2 ± 7√2. As independent games: 6..15, 14..24, 2 ± 5√2.
    row = rows_of(AGREE_A, AGREE_B)["length_median"]
    assert (row["a"], row["b"]) == (19, 21)
    assert row["ci95"] == rounded((2 - 7 * math.sqrt(2), 2 + 7 * math.sqrt(2)))
    assert row["method"] == "Price-Bonett (order statistics), deals as clusters"


# a seat-0 figure of deals whose two games mirror each other: agent a leads by L in each deal, so
# seat 0 leads by +L in seating a | b and by −L in b | a (nearly: the second deal's and fourth's
# leads differ by one), and agent a wins every game, seat 0 in one game of each deal
LEADS = [(3, -3), (2, -1), (-4, 4), (1, -2), (5, -5)]
MIRRORED = rotated([tuple({"winner": s, "measures": {"lead": ("int", lead[s])}} for s in (0, 1)) for lead in LEADS],
                   500)
ONE_SEATING = [trial([], 0, 10, index=i, seed=900 + i, measures={"lead": ("int", v)}) for i, v in enumerate([1, 2, 3, 4])]


def test_a_seat_figure_of_mirrored_deals_is_narrower_than_independent_games_would_make_it():
    # a's seat-0 lead: the deals' sums 0, 1, 0, −1, 0 over two games, mean 0, se = √(2/(5·4)) / 2 =
    # 0.15811; the 10 games as independent: Σx² = 110, se² = 110/9/10 = 1.2222, seven times wider.
    # b, one seating (no deal repeats): 1, 2, 3, 4, se² = (5/3)/4 = 5/12, Welch's part.
    row = rows_of(MIRRORED, ONE_SEATING)["measure:lead"]
    half = Z * math.sqrt(0.025 + 5 / 12)
    assert (row["diff"], row["ci95"]) == (2.5, rounded((2.5 - half, 2.5 + half)))
    assert row["method"] == "normal approximation, deals as clusters"
    independent = Z * math.sqrt(110 / 90 + 5 / 12)
    assert (row["ci95"][1] - row["ci95"][0]) < 0.6 * 2 * independent


def test_a_seat_win_rate_of_deals_each_won_once_by_each_seat_is_wilsons_over_the_games():
    # seat 0 wins one game of every deal: 0.5 in each, no spread between the deals, a design effect
    # of 0 taken as 1 (a Wilson interval claims no more games than were played): a's part is
    # Wilson's of 5 in 10, as if its games were independent; b's 4 of 4 in one seating, Wilson's
    row = rows_of(MIRRORED, ONE_SEATING)["win_rate_0"]
    assert row["ci95"] == rounded(S.diff_proportions(5, 10, 4, 4))


def test_a_run_of_one_seating_whose_seeds_repeat_by_chance_keeps_the_independent_intervals():
    # the same agents in every game: a seed met twice is two independent games, not a deal's seatings
    chance = [replace(t, agents=["a", "b"]) for t in AGREE_A]
    row = rows_of(chance, ONE_SEATING)["win_rate_0"]
    assert row["method"] == "Newcombe hybrid score"
    assert row["ci95"] == rounded(S.diff_proportions(12, 20, 4, 4))


def test_a_mean_of_a_run_of_one_deal_has_no_interval_and_says_why():
    one_deal = rotated(alike([0], [7]), 500)
    one_deal[1].choices = 9
    row = rows_of(one_deal, AGREE_B)["length_mean"]
    assert row["ci95"] is None
    assert row["reason"] == "a: the games are of one deal: no spread between deals to measure"


def test_a_paired_figure_without_spread_falls_back_to_the_clustered_unpaired_interval():
    # b is a played again on the same deals: every per-deal difference is 0, no spread to measure,
    # and the unpaired interval stands, each run's part Wilson's of 5.4 wins in 9 games (above)
    row = rows_of(AGREE_A, [replace(t) for t in AGREE_A], paired=True)["win_rate_0"]
    l, u = S.wilson(5.4, 9)
    half = math.hypot(0.6 - l, u - 0.6)
    assert row["ci95"] == rounded((-half, half)) and row["method"] == "Newcombe hybrid score, deals as clusters"


def test_the_unpaired_run_a_paired_one_is_weighed_against_is_played_with_the_same_deals_as_clusters():
    # ten deals in both seatings, each deal's two games alike; seat 0 wins deals 1–4 and 8–9 in a
    # (p = 0.6), deals 0–4 in b (0.5). Paired over the deals: se² = 2.9/9/10 (test_metrics).
    # Unpaired, each run's deals as clusters: a's residuals 0.8 (6) and −1.2 (4), se² = 9.6/90/4;
    # b's ±1, se² = 10/90/4; together 0.054444. Two such runs need 20 · 0.054444 / 0.032222 = 33.8,
    # 34 games each; with every game taken as independent it read 17.
    def run(winners):
        return rotated(alike(winners, [10] * 10), 100)
    row = rows_of(run([1, 0, 0, 0, 0, 1, 1, 1, 0, 0]), run([0, 0, 0, 0, 0, 1, 1, 1, 1, 1]), paired=True)["win_rate_0"]
    assert row["pairs"] == 20 and row["unpaired_games"] == math.ceil(20 * (9.6 + 10) / 360 / (2.9 / 90))


# --------------------------------------------------------------------------- through the CLI
def sim(tmp_path, capsys, seed: int, *options) -> list[dict]:
    out = tmp_path / f"seed{seed}.jsonl"
    code = main(["sim", str(ROOT / "docs/tutorial/bump.vbr"), "-n", "40", "--seed", str(seed), "--agents", "greedy,random",
                 "--engine", "python", "--out", str(out), *options])
    capsys.readouterr()
    assert code == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def by_deal(rows: list[dict], value) -> tuple[list, list]:
    """Each seed's sum of value(row) and its games, the seeds in the order first come."""
    sums, games = {}, {}
    for r in rows:
        sums[r["seed"]] = sums.get(r["seed"], 0) + value(r)
        games[r["seed"]] = games.get(r["seed"], 0) + 1
    return list(sums.values()), list(games.values())


def test_vbr_summarize_of_two_rotated_runs_of_other_seeds_takes_each_runs_deals_as_clusters(tmp_path, capsys):
    # two `vbr sim --out` runs, greedy against random (the seats rotated: each deal twice), of other
    # seeds and targets: `vbr summarize` compares them unpaired. Each run's part of an interval is
    # worked out here from its rows grouped by seed: seat 0's wins and the lengths summed per deal.
    ra, rb = sim(tmp_path, capsys, 1), sim(tmp_path, capsys, 2, "--option", "target=5")
    assert all(n == 2 for n in by_deal(ra, lambda r: 1)[1] + by_deal(rb, lambda r: 1)[1])
    code = main(["summarize", str(tmp_path / "seed1.jsonl"), str(tmp_path / "seed2.jsonl"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["pairing"]["pairs"] == 0
    rows = {r["metric"]: r for r in report["metrics"]}

    def won(r):
        return int(r["winner"] == 0)
    ka, kb = sum(map(won, ra)), sum(map(won, rb))
    wins = S.newcombe(ka / 40, S.clustered_wilson(*by_deal(ra, won)), kb / 40, S.clustered_wilson(*by_deal(rb, won)))
    assert rows["win_rate_0"]["ci95"] == rounded(wins)
    assert rows["win_rate_0"]["method"] == "Newcombe hybrid score, deals as clusters"

    def length(r):
        return r["choices"]
    mean_a, mean_b = sum(map(length, ra)) / 40, sum(map(length, rb)) / 40
    se_a, se_b = S.ratio_se(*by_deal(ra, length)), S.ratio_se(*by_deal(rb, length))
    half = Z * math.hypot(se_a, se_b)
    assert rows["length_mean"]["ci95"] == rounded((mean_b - mean_a - half, mean_b - mean_a + half))
    # which is not Welch's over the 80 games as independent ones
    welch = S.diff_means(list(map(length, ra)), list(map(length, rb)))
    assert rounded(welch) != rows["length_mean"]["ci95"]
