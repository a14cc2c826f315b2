"""`vbr sim --agents A --skill PARAM=LOW,HIGH`: one agent at two settings of a parameter against
itself, seats rotated, with how often the higher setting wins; on tests/fixtures/valid/loaded_die.vbr,
where a game is one roll of a d10 (seat 0 wins on 1-3), whoever plays it."""
import json

import pytest

from conftest import ROOT
from vbr.cli import main

DIE = ROOT / "tests" / "fixtures" / "valid" / "loaded_die.vbr"


def sim(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_skill_plays_one_agent_at_two_settings_seats_rotated_and_says_how_often_the_higher_wins(tmp_path, capsys):
    # on the loaded die both seatings of a deal share the roll: each setting wins one of the two
    out = tmp_path / "games.jsonl"
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 40, "--agents", "greedy", "--skill", "samples=1,4", "--out", out)
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["agents"] for r in rows[:2]] == [["greedy:samples=4", "greedy:samples=1"],
                                               ["greedy:samples=1", "greedy:samples=4"]]
    assert "skill expression: greedy:samples=4 wins 50.0% (" in stdout
    assert "of 40 games against greedy:samples=1" in stdout


@pytest.mark.parametrize("argv,says", [
    (["--agents", "greedy,random", "--skill", "samples=1,4"], "--skill plays one agent against itself"),
    (["--agents", "greedy", "--skill", "samples=1"], "expected PARAM=LOW,HIGH"),
    (["--agents", "greedy", "--skill", "samples=2,2"], "the two values make the same agent"),
    (["--agents", "greedy", "--skill", "budget=1,4"], "unknown parameter 'budget'"),
    (["--agents", "greedy", "--skill", "samples=1,4", "--no-rotate-seats"], "it does not go with --no-rotate-seats"),
])
def test_a_bad_skill_request_is_a_usage_error(capsys, argv, says):
    code, _, err = sim(capsys, "sim", DIE, *argv)
    assert code == 2 and says in err
