"""`vbr importance`'s interval of a drop is never a point: where the per-deal differences are all
alike (the seat won every deal unrestricted and lost every one restricted, or won all in both) or
fewer than two, it is Newcombe's interval of the two win rates' difference from their Wilson
intervals, as `vbr compare` falls back to it; elsewhere the paired one, as before."""
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
