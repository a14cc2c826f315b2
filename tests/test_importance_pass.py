"""`vbr importance`'s `pass` row is what passing is worth to the seat that may pass: the runs of
that row take passing away (`never:pass`), as every other row takes its word away."""
from __future__ import annotations

import json

from vbr.cli import main

# Seat 0 may take `risky` (wins on a 6: 1/6) or pass (wins on 4..6: 1/2); seat 1 never chooses.
# Uniformly random, seat 0 passes half the time: it wins (1/2 + 1/6) / 2 = 1/3.
PASS_OR_RISKY = '''game "Pass or risky"
seats 2
enum Move { risky }
die d6 = 1..6
start play
phase play {
  choose m from [risky] by 0 optional as "risky?"
  let r = roll d6
  if m == none and r >= 4 {
    end winner 0
  }
  if m == risky and r == 6 {
    end winner 0
  }
  end winner 1
}
'''


def test_importance_of_pass_takes_passing_away_not_everything_else(tmp_path, capsys):
    path = tmp_path / "pass_or_risky.vbr"
    path.write_text(PASS_OR_RISKY)
    assert main(["importance", str(path), "-n", "2000", "--seed", "1", "--engine", "python", "--json"]) == 0
    rows = {r["word"]: r for r in json.loads(capsys.readouterr().out)["importance"]}
    # without passing seat 0 always takes risky: 1/6 instead of 1/3, a drop of +1/6 (its paired
    # standard error over 2000 deals is about 0.008); forced to pass instead it would win 1/2, -1/6
    assert 0.12 < rows["pass"]["drop"] < 0.21
    assert abs(rows["pass"]["restricted_rate"] - 1 / 6) < 0.04
    # without risky seat 0 always passes: 1/2, a drop of -1/6
    assert -0.21 < rows["risky"]["drop"] < -0.12
