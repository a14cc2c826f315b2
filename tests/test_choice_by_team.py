"""`choose ... by team T` (docs/language.md, `choose`): the team's first seat answers; a team with
no seat, one the rules play, cannot be asked, and asking it is a located run-time error in both
typed engines, only when it is asked."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

SOLO = """game "Solo"
seats 1 teams { you: 0 ai: }
var n: int = 0
start p
phase p {
  choose x from [0, 1] by team n
  say "{x}"
  n += 1
  if n == ASKED {
    end winner 0
  }
  goto p
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_seated_team_is_asked_through_its_first_seat_beside_a_team_with_no_seat(tmp_path, engine):
    f = tmp_path / "solo.vbr"
    f.write_text(SOLO.replace("ASKED", "1"))
    state = load(f, {}, engine=engine).new_state(0)
    assert [str(a) for a in state.legal_actions()] == ["0 0", "0 1"]
    state.apply("0 1")
    assert state.is_terminal() and state.outcome().winner == 0


@pytest.mark.parametrize("engine", ["python", "c"])
def test_asking_a_team_with_no_seat_is_a_located_error_when_it_is_asked(tmp_path, engine):
    f = tmp_path / "solo.vbr"
    f.write_text(SOLO.replace("ASKED", "2"))
    state = load(f, {}, engine=engine).new_state(0)
    with pytest.raises(VbrRuntimeError) as caught:
        state.apply("0 0")  # n becomes 1: the next choice asks team 1, the rules' own
    assert str(caught.value).startswith(f"{f}:6:3: error: `by team 1`: that team has no seat to answer "
                                        "(the rules play it)")


# Two teams of two seats whose points are kept per seat: team a (seats 0, 2) scores 1 + 2 after
# the first choice; after the second, seat 1's +1 and seat 3's -1 leave team b at 0, and nothing
# changes for either team; team a wins.
SEAT_POINTS = """game "Seat points"
seats 4 teams { a: 0 2  b: 1 3 }
points score
var score: int per seat = 0
start p
phase p {
  choose x from [1, 2] by 0 as "one"
  score[0] += 1
  score[2] += 2
  choose y from [1, 2] by 1 as "two"
  score[1] += 1
  score[3] -= 1
  choose z from [1, 2] by 2 as "three"
  end winner team 0
}
"""


@pytest.mark.parametrize("agents", ["random", "first"])  # random: the whole game in one engine call
@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_game_of_teams_keeping_points_per_seat_gives_each_teams_points_summed(tmp_path, engine, agents):
    # a run's points are one entry per side (vbr.analysis.trial.Trial): the seats' points were
    # reported as the teams', so `vbr sim` said each team scored what its first seat did, and the
    # margins and leads were worked out over four entries for two sides
    from vbr.play import play_game
    f = tmp_path / "seat_points.vbr"
    f.write_text(SEAT_POINTS)
    game = load(f, engine=engine)
    r = play_game(game, 3, [agents] * 4)
    assert (r.winner, r.points, r.score_track) == (0, (3, 0), [(1, (3, 0))])
    assert r.trial_fields()[1] == (3, 0) and r.trial_fields()[6] == [(1, (3, 0))]
    assert r.state.points() == (1, 1, 2, -1)  # the var itself, seat by seat


# Two teams of one seat, listed out of seat order: team a is seat 1, team b seat 0. Seat 0 chooses
# first and scores 1 for its team (b); seat 1 scores 3 for its team (a) and wins. Every side
# figure is a team's: the winner team a (0), the points (a 3, b 1), the first mover seat 0's team
# b (1), the side measure team_of(1) = 0.
REVERSED_TEAMS = """game "Reversed teams"
seats 2 teams { a: 1  b: 0 }
points score
var score: int per team = 0
measure chooser: seat first mover as "first chooser"
measure second: side as "team of seat 1"
start p
phase p {
  choose x from [1, 2] by 0 as "one"
  measure chooser = 0
  measure second = team_of(1)
  score[team_of(0)] += 1
  choose y from [1, 2] by 1 as "two"
  score[team_of(1)] += 3
  end winner 1
}
"""


# the same game keeping its points per seat: seat 0's 1 is team b's, seat 1's 3 team a's
REVERSED_TEAMS_SEAT_POINTS = (REVERSED_TEAMS.replace("int per team", "int per seat")
                              .replace("score[team_of(0)]", "score[0]").replace("score[team_of(1)]", "score[1]"))


@pytest.mark.parametrize("agents", ["random", "first"])  # random: the whole game in one engine call
@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("rules", [REVERSED_TEAMS, REVERSED_TEAMS_SEAT_POINTS], ids=["per_team", "per_seat"])
def test_teams_listed_out_of_seat_order_are_counted_by_team(tmp_path, engine, agents, rules):
    # one-seat teams were counted by seat: the winner and the first mover were seats while the
    # points and a side measure were teams, so `vbr sim` said "seat 0" of team a's points, gave
    # margins below zero and a side measure the other team's win rate
    from vbr.play import play_game, side_names
    from vbr.sim import game_sides
    f = tmp_path / "reversed_teams.vbr"
    f.write_text(rules)
    game = load(f, engine=engine)
    r = play_game(game, 3, [agents] * 2)
    assert (r.winner, r.points, r.first_side, r.score_track) == (0, (3, 1), 1, [(1, (0, 1)), (2, (3, 1))])
    assert r.measures == {"chooser": ("side", 1), "second": ("side", 0)}
    assert r.trial_fields()[:2] == (0, (3, 1))
    assert (game_sides(game), side_names(game)) == (2, ["team a", "team b"])


def test_a_file_naming_its_one_seat_teams_in_seat_order_reports_them_by_name(tmp_path, capsys):
    # `teams { red: 0  blue: 1 }`: each side is one seat and its team, counted alike; `vbr sim`
    # called them `seat 0` and `seat 1`, not the names the file gave them. Seat 1 (blue) scores 3
    # to red's 1 and wins every game.
    import json
    from vbr.cli import main
    from vbr.play import side_names
    f = tmp_path / "named_teams.vbr"
    f.write_text(REVERSED_TEAMS.replace("teams { a: 1  b: 0 }", "teams { red: 0  blue: 1 }"))
    assert side_names(load(f)) == ["team red", "team blue"]
    assert main(["sim", str(f), "-n", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["sides"], out["side_names"], out["wins"]) == ("team", ["team red", "team blue"], {"0": 0, "1": 4})
    assert main(["sim", str(f), "-n", "4"]) == 0
    assert "  team blue: 4 wins, 100.0% (" in capsys.readouterr().out


def test_vbr_run_names_the_winning_team_as_the_file_names_it(tmp_path, capsys):
    # team north is team 0 (the order written) and seat 1: `vbr run` said `team 0 wins (2, 0)`,
    # a number where vbr sim and vbr play say `team north`
    from vbr.cli import main
    f = tmp_path / "crossed.vbr"
    f.write_text('game "Crossed"\nseats 2 teams { north: 1  south: 0 }\npoints score\nvar score: int per team = 0\n'
                 'start p\nphase p {\n  choose x from [2] by 0 as "which"\n  score[0] += x\n  end winner team 0\n}\n')
    assert main(["run", str(f), "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "result: team north wins (2, 0) after 1 choices"
