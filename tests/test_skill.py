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
    # without --agents the agent is random, which has no parameter: that said only `random: unknown
    # parameter 'samples' (parameters: none)`, not that --skill varies the agent --agents names
    (["--skill", "samples=1,4"], "--skill 'samples=1,4': random has no parameters; --skill sets a parameter of "
                                 "the agent --agents names (--agents greedy --skill samples=1,8"),
    (["--agents", "greedy", "--skill", "samples=1,4", "--no-rotate-seats"], "it does not go with --no-rotate-seats"),
])
def test_a_bad_skill_request_is_a_usage_error(capsys, argv, says):
    code, _, err = sim(capsys, "sim", DIE, *argv)
    assert code == 2 and says in err


def test_skill_in_a_game_of_one_seat_is_a_usage_error_not_an_internal_one(tmp_path, capsys):
    # one seat, no second side to play the lower setting: the run ended in `internal error:
    # StopIteration` (exit 3) after its games
    path = tmp_path / "solo.vbr"
    path.write_text('game "Solo"\nseats 1\nstart play\nphase play {\n  choose x from [1, 2] by 0 as "x"\n'
                    '  end winner 0\n}\n', encoding="utf-8")
    code, _, err = sim(capsys, "sim", path, "-n", 2, "--agents", "greedy", "--skill", "samples=1,4")
    assert code == 2 and "the game has no second side with seats" in err


def test_skill_is_refused_where_rotating_the_seats_puts_both_settings_on_one_side(capsys):
    # Cattack for 3 (teams red: seats 0 and 2, blue: seat 1): the settings sit [4, 1, 4], and every
    # seating that puts samples=1 on red puts samples=4 there too (vbr.seating: the one given once
    # goes to each team in turn), a red win counted as a win of each: samples=4 "won" every game of
    # those seatings against samples=1
    code, _, err = sim(capsys, "sim", "cattack", "--option", "players=3", "-n", 3, "--agents", "greedy",
                       "--skill", "samples=1,4", "--engine", "python")
    assert code == 2 and "puts both settings on one side" in err
    # four players, teams red 0 2 and blue 1 3: the settings sit [4, 1, 4, 1], then [1, 4, 1, 4]
    code, out, err = sim(capsys, "sim", "cattack", "-n", 2, "--agents", "greedy", "--skill", "samples=1,4",
                         "--engine", "python")
    assert code == 0, err
    assert "skill expression: greedy:samples=4 wins" in out and "of 2 games against greedy:samples=1" in out


def test_skill_names_the_higher_setting_where_seat_0_is_not_in_the_first_team(tmp_path, capsys):
    # teams a (seats 1, 3) and b (seats 0, 2): HIGH sat in team a's seats, so seat 0, the first
    # agent, which the skill line takes for HIGH, was LOW: the line said samples=1 was the higher
    # setting. Team a wins every game, whoever plays: each setting wins its seating, 50%.
    path = tmp_path / "second_team_first.vbr"
    path.write_text('game "Second team first"\nseats 4 teams { a: 1 3  b: 0 2 }\nstart play\nphase play {\n'
                    '  choose x from [1, 2] by 0 as "x"\n  end winner team 0\n}\n', encoding="utf-8")
    code, out, err = sim(capsys, "sim", path, "-n", 4, "--agents", "greedy", "--skill", "samples=1,4")
    assert code == 0, err
    assert "skill expression: greedy:samples=4 wins 50.0% (" in out and "of 4 games against greedy:samples=1" in out
