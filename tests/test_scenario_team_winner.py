"""`expect winner SEAT` in a game of teams (docs/language.md, section 7): a team that wins as a
whole (`end winner team T`) wins for each of its seats."""
import pytest

from vbr.scenario import run_file

# Teams a (seats 0 and 2) and b (seats 1 and 3): seat 0's choice names the winning team.
RULES = """game "Pairs"
seats 4 teams { a: 0 2 b: 1 3 }
start a
phase a {
  choose t from 0..1 by 0 as "which team wins"
  end winner team t
}
"""

TESTS = """tests for "pairs.vbr"
"""
CASES = [  # (the team chosen, the seat expected to win, the verdict, why)
    (0, 0, True, ""), (0, 2, True, ""), (1, 1, True, ""), (1, 3, True, ""),
    (0, 1, False, "expected seat 1 to win, but team 0 won"),
    (0, 3, False, "expected seat 3 to win, but team 0 won"),
    (1, 2, False, "expected seat 2 to win, but team 1 won"),
]


@pytest.mark.parametrize("team, seat, ok, message", CASES)
def test_every_seat_of_a_team_that_won_as_a_whole_won(tmp_path, team, seat, ok, message):
    (tmp_path / "pairs.vbr").write_text(RULES, encoding="utf-8")
    tests = tmp_path / "pairs_test.vbr"
    tests.write_text(TESTS + f'\nscenario "s" {{\n  choose {team}\n  expect winner {seat}\n}}\n', encoding="utf-8")
    (r,) = run_file(tests, engine="python")
    assert (r.ok, r.message) == (ok, message)
