"""`vbr importance`'s interval of a drop is never a point: where the per-deal differences are all
alike (the seat won every deal unrestricted and lost every one restricted, or won all in both) or
fewer than two, it is Newcombe's interval of the two win rates' difference from their Wilson
intervals, as `vbr compare` falls back to it; elsewhere the paired one, over the deals: the seats'
differences of one deal (the same deal, restricted on each seat) are one cluster, not independent
pairs."""
from __future__ import annotations

import json
import math

from vbr.analysis.importance import importance_of
from vbr.analysis.stats import Z95
from vbr.analysis.trial import Trial
from vbr.cli import main

# Seat 0 picks `win` (and wins) or `lose` (and loses); seat 1 never chooses. The `first` agent
# always picks `win`: unrestricted, seat 0 wins every deal; with `never:win` it loses every one.
PICK = '''game "Pick"
seats 2
enum Move { win, lose }
start play
phase play {
  choose m from [win, lose] by 0 as "move"
  if m == win {
    end winner 0
  }
  end winner 1
}
'''


def wilson_end(n: int) -> float:
    """Wilson's interval of 0 of n reaches z²/(n + z²) (and of n of n down to 1 less that)."""
    return Z95 * Z95 / (n + Z95 * Z95)


def importance_rows(tmp_path, capsys, *argv) -> dict:
    path = tmp_path / "pick.vbr"
    path.write_text(PICK)
    assert main(["importance", str(path), "--engine", "python", "--json", *map(str, argv)]) == 0
    return {r["word"]: r for r in json.loads(capsys.readouterr().out)["importance"]}


def test_a_seat_that_wins_every_deal_and_loses_every_one_restricted_has_a_drop_interval_wider_than_a_point(tmp_path, capsys):
    # every per-deal difference is 1: the paired interval was [1, 1], certainty 20 deals do not give
    rows = importance_rows(tmp_path, capsys, "-n", 20, "--agents", "first")
    win = rows["win"]
    assert (win["drop"], win["restricted_rate"], win["base_rate"]) == (1.0, 0.0, 1.0)
    # Newcombe: 1 − √((1 − l_b)² + (u_a − 0)²), each distance Wilson's z²/(n + z²) at n = 20
    lo, hi = win["ci95"]
    assert hi == 1.0 and abs(lo - (1 - math.sqrt(2) * wilson_end(20))) < 1e-4
    assert 0.75 < lo < 0.8


def test_a_word_whose_loss_changes_nothing_in_every_deal_has_an_interval_around_0_not_a_point(tmp_path, capsys):
    # without `lose` the first agent still picks `win`: both runs won every deal, every difference
    # 0; the interval was [0, 0]. Newcombe's: ± the one Wilson distance from 1, z²/(n + z²)
    lose = importance_rows(tmp_path, capsys, "-n", 20, "--agents", "first")["lose"]
    assert lose["drop"] == 0.0 and lose["restricted_rate"] == lose["base_rate"] == 1.0
    lo, hi = lose["ci95"]
    assert abs(lo + wilson_end(20)) < 1e-4 and abs(hi - wilson_end(20)) < 1e-4


def test_the_table_marks_an_interval_that_is_not_the_paired_one(tmp_path, capsys):
    path = tmp_path / "pick.vbr"
    path.write_text(PICK)
    assert main(["importance", str(path), "--engine", "python", "-n", "20", "--agents", "first"]) == 0
    lines = capsys.readouterr().out.splitlines()
    win = next(line for line in lines if line.split()[0] == "win")
    assert "+77.2..+100.0*" in win
    assert lines[-2].startswith("  * not paired: the per-deal differences were all alike")


def trial(seed: int, winner: int, narrowed: int = 0) -> Trial:
    return Trial(0, seed, ["random", "random"], 2, winner, None, 1, 0, 2, 0, restricted=(narrowed, 0))


def test_one_deal_has_newcombe_s_interval_where_it_had_none():
    # one pair: won unrestricted, lost restricted; Wilson of 1 of 1 and 0 of 1 reach z²/(1 + z²)
    f = importance_of("w", "a member of M", {0: [trial(7, 0)], 1: [trial(7, 0)]},
                      {0: [trial(7, 1, narrowed=1)], 1: [trial(7, 0)]}, [0, 1])
    assert f.drop == 1.0 and f.games == 1 and not f.paired
    assert f.ci95[1] == 1.0 and abs(f.ci95[0] - (1 - math.sqrt(2) * wilson_end(1))) < 1e-9


def test_differences_with_spread_keep_the_paired_interval():
    # differences 1, 0, 1, 0: mean 1/2, s = √(1/3), t(3) = 3.1824: 1/2 ± 3.1824·√(1/3)/2 (stats.student_t
    # is within 0.12 % of t at 3 degrees of freedom: 0.0011 of the half-width)
    wins_base, wins_restricted = [0, 0, 0, 1], [1, 0, 1, 1]
    base = [trial(s, w) for s, w in enumerate(wins_base)]
    restricted = [trial(s, w, narrowed=1) for s, w in enumerate(wins_restricted)]
    f = importance_of("w", "a member of M", {0: base}, {0: restricted}, [0, 1])
    half = 3.182446305284263 * math.sqrt(1 / 3) / 2
    assert f.paired and f.drop == 0.5
    assert abs(f.ci95[0] - (0.5 - half)) < 2e-3 and abs(f.ci95[1] - (0.5 + half)) < 2e-3


# ------------------------------------------------------------------------------ a deal is one cluster
# A coin decides each deal: on 1, seat 0 may `go` (and win), then seat 1 may (and win); on 0, or
# if both stall, a draw. The `first` agent stalls, so every deal is a draw unrestricted; with
# `never:stall` on either seat, that seat wins every deal the coin showed 1 and draws the rest. The
# coin is rolled before any choice, so a deal's coin is the same in every run: in each deal the two
# seats' differences are the same (−1 on a 1, 0 on a 0), one observation counted twice.
STALL = '''game "Stall"
seats 2
enum Move { stall, go }
die coin = [0, 1]
start play
phase play {
  let c = roll coin
  if c == 1 {
    choose a from [stall, go] by 0 as "first"
    if a == go {
      end winner 0
    }
    choose b from [stall, go] by 1 as "second"
    if b == go {
      end winner 1
    }
  }
  end draw
}
'''

T19, T39 = 2.093024, 2.022691  # Student's t, 97.5 % points at 19 and 39 degrees of freedom (tables)


def test_the_seats_differences_of_one_deal_are_one_cluster_not_two_independent_pairs(tmp_path, capsys):
    path = tmp_path / "stall.vbr"
    path.write_text(STALL)
    assert main(["importance", str(path), "--engine", "python", "--json", "-n", "20", "--agents", "first"]) == 0
    stall = {r["word"]: r for r in json.loads(capsys.readouterr().out)["importance"]}["stall"]
    # p: the share of deals whose coin showed 1, each won restricted by both seats and drawn unrestricted
    p = stall["restricted_rate"]
    heads = round(20 * p)
    assert stall["base_rate"] == 0.0 and stall["drop"] == -p and 0 < heads < 20 and stall["games"] == 40
    # over the 20 deals: the deals' mean differences, −1 on `heads` of them and 0 on the rest, have
    # s² = 20·p(1 − p)/19, so the interval is −p ± t(19)·√(p(1 − p)/19)
    half = T19 * math.sqrt(p * (1 - p) / 19)
    lo, hi = stall["ci95"]
    assert abs(lo - (-p - half)) < 2e-4 and abs(hi - (-p + half)) < 2e-4
    # the 40 differences pooled as independent pairs gave −p ± t(39)·√(p(1 − p)/39), narrower by
    # √(39/19)·t(19)/t(39), about 1.48: half the information counted twice
    pooled = T39 * math.sqrt(p * (1 - p) / 39)
    assert abs((hi - lo) / 2 / pooled - math.sqrt(39 / 19) * T19 / T39) < 2e-3


def test_a_second_seat_whose_differences_copy_the_first_s_adds_no_deal_and_leaves_the_interval_as_it_was():
    # four deals drawn unrestricted; restricted, a seat wins deals 0 and 2: differences −1, 0, −1, 0
    # for each seat. One seat: −1/2 ± t(3)·√(1/3)/2. Both: the same four deals, the same interval
    # (pooled as eight pairs it was −1/2 ± t(7)·√(2/7)/√8, 0.45 where it is 0.92)
    base = [trial(s, None) for s in range(4)]
    restricted = {seat: [trial(s, seat if s % 2 == 0 else None, narrowed=1) for s in range(4)] for seat in (0, 1)}
    half = 3.182446305284263 * math.sqrt(1 / 3) / 2
    for seats in ((0,), (0, 1)):
        f = importance_of("w", "a member of M", {s: base for s in seats}, {s: restricted[s] for s in seats}, [0, 1])
        assert f.paired and f.drop == -0.5 and f.games == 4 * len(seats)
        assert abs(f.ci95[0] - (-0.5 - half)) < 2e-3 and abs(f.ci95[1] - (-0.5 + half)) < 2e-3


def wilson_half(n: int) -> float:
    """Wilson's interval of n/2 of n games is 1/2 ± z·√(1/4n + z²/4n²)/(1 + z²/n)."""
    z2 = Z95 * Z95
    return Z95 * math.sqrt(1 / (4 * n) + z2 / (4 * n * n)) / (1 + z2 / n)


def test_deals_whose_mean_difference_is_the_same_fall_back_to_newcombe_not_a_point():
    # seat 0 wins every deal unrestricted and loses it restricted (difference 1); restricting seat 1
    # changes nothing (0): each deal's mean difference is 1/2, no spread over the deals, so the
    # clustered interval would be the point 1/2. Newcombe's instead: unrestricted the two seats win
    # 3 of 6 games (each deal's share 1/2: no design effect above 1), Wilson 1/2 ± wilson_half(6);
    # restricted 0 of 6 games in 3 deals, nothing varying to read a design effect from, so counted
    # as its 3 deals (stats.design_effect), Wilson up to z²/(3 + z²):
    # 1/2 − √(wilson_half(6)² + wilson_end(3)²) .. 1/2 + wilson_half(6)
    base = [trial(s, 0) for s in range(3)]
    restricted = {0: [trial(s, 1, narrowed=1) for s in range(3)], 1: [trial(s, 0, narrowed=1) for s in range(3)]}
    f = importance_of("w", "a member of M", {0: base, 1: base}, restricted, [0, 1])
    assert f.drop == 0.5 and not f.paired
    assert abs(f.ci95[0] - (0.5 - math.hypot(wilson_half(6), wilson_end(3)))) < 1e-9
    assert abs(f.ci95[1] - (0.5 + wilson_half(6))) < 1e-9


def test_the_header_counts_one_deal_in_the_singular(tmp_path, capsys):
    path = tmp_path / "pick.vbr"
    path.write_text(PICK)
    assert main(["importance", str(path), "--engine", "python", "-n", "1", "--agents", "first"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "(1 deal per seat, agents first | first;" in header
