"""Measures declared in the rule file (`measure NAME: TYPE [first mover] [as LABEL]`, set by
`measure NAME = EXPR`): what the checker accepts, what a game records under every engine, and
how sims report them (docs/language.md `measure`, docs/analysis.md)."""
import json
from pathlib import Path

import pytest

from vbr.analysis.comparison import compare
from vbr.analysis.metrics import summarize
from vbr.analysis.trial import Trial
from vbr.cli import main
from vbr.errors import VbrRuntimeError
from vbr.grammar.parser import parse
from vbr.grammar.printer import program

ENGINES = ("python", "c")

# A race to 6: the side to move adds 1 or 2 to the count and whoever takes it past 5 wins. Seat 1
# first picks who starts (a set-up phase: `pre` is on no cycle of the turn flow). Under uniformly
# random play the side to move at count n wins with f(n): f(5) = 1, f(4) = 1/2 + 1/2 (1 - f(5)) =
# 1/2, and for n < 4, f(n) = 1/2 (1 - f(n + 1)) + 1/2 (1 - f(n + 2)): f(3) = 1/4, f(2) = 5/8,
# f(1) = 9/16, f(0) = 13/32. So whoever starts wins 13/32 = 40.6 % of games, whoever seat 1 named.
RACE = """game "Race"
seats 2
var n: int = 0
var mover: seat = 0
measure starter: seat as "starter"
measure turns: int
measure long: bool
start pre
phase pre {
  choose who from [0, 1] by 1 as "who starts"
  mover = who
  measure starter = who
  goto turn
}
phase turn {
  measure turns += 1
  choose x from 1..2 by mover
  n += x
  if n > 5 { end winner mover }
  if n > 4 { measure long = true }
  mover = other(mover)
  goto turn
}
"""
STARTER_WINS = 13 / 32


def write(tmp_path: Path, text: str, name: str = "game.vbr") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def sim_json(capsys, path, *more):
    code, out, err = run(capsys, "sim", path, "--json", *more)
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------------------------ the language
def test_a_measure_declaration_and_its_setting_print_as_written():
    text = ('game "M"\nseats 2\nmeasure first: seat first mover as "first to act"\nmeasure count: int\n'
            'start p\nphase p {\n  measure count += 1\n  measure first = 0\n  end winner 0\n}\n')
    assert program(parse(text, "m.vbr")) == text


@pytest.mark.parametrize("decl, message", [
    ("measure m: cell", "a measure is one of seat, side, int, bool, not `cell`"),
    ("measure m: int first mover", "only a seat or side measure can be the first mover"),
    ("measure m: seat first mover\nmeasure k: seat first mover", "`m` is already the first mover"),
    ("measure m: int\nmeasure m: bool", "`measure m` is defined twice"),
])
def test_the_checker_refuses_a_bad_measure_declaration(tmp_path, capsys, decl, message):
    path = write(tmp_path, f'game "M"\nseats 2\n{decl}\nstart p\nphase p {{\n  end winner 0\n}}\n')
    code, _, err = run(capsys, "check", path)
    assert code == 1 and message in err and f"{path}:" in err


def test_setting_an_undeclared_measure_is_an_error_at_the_name(tmp_path, capsys):
    path = write(tmp_path, 'game "M"\nseats 2\nstart p\nphase p {\n  measure nothing = 1\n  end winner 0\n}\n')
    code, _, err = run(capsys, "check", path)
    assert code == 1 and f"{path}:5:11: error: no measure `nothing` is declared" in err


def test_a_measure_cannot_be_read_by_the_rules(tmp_path, capsys):
    path = write(tmp_path, 'game "M"\nseats 2\nmeasure m: int\nstart p\nphase p {\n  if m > 0 { end winner 1 }\n'
                           '  end winner 0\n}\n')
    code, _, err = run(capsys, "check", path)
    assert code == 1 and "6:6: error: `m` is a measure: the rules set it" in err


def test_a_measure_of_the_wrong_type_is_refused_where_it_is_set(tmp_path, capsys):
    path = write(tmp_path, 'game "M"\nseats 2\nmeasure m: bool\nstart p\nphase p {\n  measure m = 3\n'
                           '  end winner 0\n}\n')
    code, _, err = run(capsys, "check", path)
    assert code == 1 and f"{path}:6:3: error: cannot assign int to bool" in err


# ------------------------------------------------------------------------------ in a game
@pytest.mark.parametrize("engine", ENGINES)
def test_a_game_records_each_measure_as_the_rules_last_set_it(tmp_path, engine):
    from vbr.sim import game_for
    from vbr.play import play_game
    game = game_for(str(write(tmp_path, RACE)), (), engine)
    for seed in range(20):
        r = play_game(game, seed, ["random", "random"])
        kind, starter = r.measures["starter"]
        assert kind == "side" and starter in (0, 1)
        # one `turn` a choice after the first: the count of turns is the choices made there
        assert r.measures["turns"] == ("int", r.choices - 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_seat_measure_in_a_game_of_teams_records_the_team_the_seat_plays_for(tmp_path, engine):
    """docs/language.md: a seat measure counts for "the side the seat plays for"; seat 3 plays
    for the second team (1), whichever engine plays."""
    from vbr.sim import game_for
    from vbr.play import play_game
    path = write(tmp_path, 'game "M"\nseats 4 teams { red: 0 2 blue: 1 3 }\nmeasure m: seat\nstart p\n'
                           'phase p {\n  choose x from 1..2 by 3\n  measure m = 3\n  end winner team 0\n}\n')
    game = game_for(str(path), (), engine)
    r = play_game(game, 1, ["random"] * 4)
    assert r.measures["m"] == ("side", 1)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["side", "seat"])
def test_a_seat_or_side_measure_outside_its_range_faults_where_it_is_set(tmp_path, engine, kind):
    # two seats, two sides: 2 names neither. A seat measure given 2 in play was stored, and `vbr
    # sim` then counted the game as one that left it unset, though the rules set it in every game
    # (a var, so that the checker cannot see the value)
    from vbr.sim import game_for
    from vbr.play import play_game
    path = write(tmp_path, f'game "M"\nseats 2\nvar k: int = 2\nmeasure m: {kind}\nstart p\nphase p {{\n'
                           '  measure m = k\n  end winner 0\n}\n')
    with pytest.raises(VbrRuntimeError) as err:
        game = game_for(str(path), (), engine)
        play_game(game, 1, ["random", "random"])
    assert err.value.diagnostics[0].span.line == 7
    assert err.value.diagnostics[0].message == "`measure m` = 2 is out of its range 0..1"


# ------------------------------------------------------------------------------ in a sim
@pytest.mark.parametrize("engine", ENGINES)
def test_the_first_mover_after_set_up_wins_as_the_hand_computation_says(tmp_path, capsys, engine):
    stats = sim_json(capsys, write(tmp_path, RACE), "-n", 2000, "--seed", 3, "--engine", engine)
    first = stats["metrics"]["first_mover_advantage"]
    assert first["label"] == "first-mover advantage (first choice)"
    lo, hi = first["ci95"]
    # seat 1 makes every game's first choice (who starts): counting it would give seat 1's win
    # rate, 1/2 by symmetry; the first choice of play, in the repeating phase, is the starter's
    assert lo <= STARTER_WINS <= hi and hi < 0.5
    starter = stats["measures"]["measure:starter"]
    assert starter["label"] == "starter wins" and starter["value"] == first["value"]


def test_a_first_mover_measure_is_what_the_first_mover_figure_measures(tmp_path, capsys):
    text = RACE.replace('measure starter: seat as "starter"', 'measure starter: seat first mover as "starter"')
    stats = sim_json(capsys, write(tmp_path, text), "-n", 300, "--seed", 3)
    first = stats["metrics"]["first_mover_advantage"]
    assert first["label"] == "first-mover advantage (starter)"
    assert first["value"] == stats["measures"]["measure:starter"]["value"]


def test_siatka_reports_its_first_server_as_its_first_mover(capsys, tmp_path):
    out = tmp_path / "rows.jsonl"
    stats = sim_json(capsys, "siatka", "-n", 60, "--seed", 4, "--engine", "c", "--out", out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    server = [r["measure:first_server"] for r in rows]
    assert set(server) == {0, 1}  # [Setup 5]: drawn at random (an ASSUMPTION in the file)
    wins = sum(1 for r, s in zip(rows, server) if r["winner"] == s)
    assert stats["measures"]["measure:first_server"]["value"] == round(wins / 60, 4)
    assert stats["metrics"]["first_mover_advantage"]["label"] == "first-mover advantage (first server)"


def test_a_team_game_reports_a_side_measure_by_team(capsys, tmp_path):
    out = tmp_path / "rows.jsonl"
    sim_json(capsys, "cattack", "-n", 30, "--seed", 2, "--engine", "c", "--out", out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["measure:first_serving_team"] for r in rows} <= {0, 1}
    assert all(r["first_side"] == r["measure:first_serving_team"] for r in rows)


def test_the_text_report_names_each_measure_and_how_often_it_was_unset(tmp_path, capsys):
    text = RACE.replace("  measure starter = who\n", "  if who == 0 { measure starter = who }\n")
    code, out, _ = run(capsys, "sim", write(tmp_path, text), "-n", 200, "--seed", 5)
    assert code == 0
    block = out[out.index("measures the rule file declares"):]
    assert "starter wins" in block and "turns, mean" in block and "long" in block
    unset = [line for line in block.splitlines() if "starter wins" in line][0]
    assert "; unset in " in unset and " of 200 games" in unset


def test_the_sweep_table_has_a_line_for_each_measure_with_each_combinations_value(tmp_path, capsys):
    # docs/language.md `measure`: `vbr sweep` summarises the measures as `vbr sim` does; an option
    # the rules never read leaves every game as it was, so each column shows the sim's figure
    path = write(tmp_path, RACE.replace("start pre\n", "start pre\noption unused = 0\n"))
    stats = sim_json(capsys, path, "-n", 200, "--seed", 5)
    code, out, err = run(capsys, "sweep", path, "--grid", "unused=0,1", "-n", 200, "--seed", 5)
    assert code == 0, err
    table = out[:out.index("against the first combination")] if "against the first" in out else out
    for key, label in (("measure:starter", "starter wins"), ("measure:turns", "turns, mean"), ("measure:long", "long")):
        line = next(x for x in table.splitlines() if x.startswith(label + " "))
        m = stats["measures"][key]
        shown = f"{100 * m['value']:.1f}%" if m["unit"] == "share" else f"{m['value']:.2f}"
        assert line.split()[len(label.split())::2] == [shown, shown], line


# ------------------------------------------------------------------------------ the figures
def trial(i: int, winner, measures: dict) -> Trial:
    return Trial(i, i, ["random", "random"], 2, winner, None, 3, 0, 6, 0, [], measures)


def test_a_side_measure_is_the_win_rate_of_the_side_it_names_over_decided_games_that_set_it():
    trials = [trial(0, 0, {"m": ("side", 0)}), trial(1, 1, {"m": ("side", 0)}), trial(2, 1, {"m": ("side", 1)}),
              trial(3, None, {"m": ("side", 1)}), trial(4, 0, {"m": ("side", None)})]
    entry = summarize(trials)["measures"]["measure:m"]
    # decided games that set it: 0, 1, 2; the named side won in games 0 and 2
    assert entry["value"] == round(2 / 3, 4) and entry["n"] == 3
    assert entry["unset"] == 1 and entry["games"] == 5


def test_int_and_bool_measures_are_a_mean_and_a_share():
    trials = [trial(0, 0, {"k": ("int", 2), "b": ("bool", True)}), trial(1, 1, {"k": ("int", 5), "b": ("bool", False)}),
              trial(2, 1, {"k": ("int", 8), "b": ("bool", True)}), trial(3, 0, {"k": ("int", 1), "b": ("bool", True)})]
    measures = summarize(trials, measure_labels={"k": "rallies"})["measures"]
    assert measures["measure:k"]["value"] == 4.0 and measures["measure:k"]["label"] == "rallies, mean"
    assert measures["measure:b"]["value"] == 0.75 and "unset" not in measures["measure:b"]


def test_compare_takes_the_measures_both_runs_carry():
    a = [trial(i, i % 2, {"k": ("int", i), "m": ("side", 0)}) for i in range(10)]
    b = [trial(i, i % 2, {"k": ("int", 2 * i)}) for i in range(10)]
    names = [r["metric"] for r in compare(a, b)]
    assert "measure:k" in names and "measure:m" not in names
    row = next(r for r in compare(a, b) if r["metric"] == "measure:k")
    assert row["a"] == 4.5 and row["b"] == 9.0


def test_a_trial_row_keeps_its_measures():
    t = trial(0, 1, {"m": ("side", 1), "k": ("int", 4)})
    assert Trial.from_row(json.loads(json.dumps(t.to_row()))) == t


def test_a_scenario_expects_a_measure_by_its_name_in_both_engines(tmp_path):
    # docs/language.md 7: an `expect` reads the measures; a failed one shows the sides as written
    from vbr.scenario import run_file
    (tmp_path / "g.vbr").write_text('game "M"\nseats 2\nmeasure rallies: int\nmeasure won: bool\n'
                                    'measure opener: seat first mover\nvar n: int = 0\nstart p\n'
                                    'setup {\n  measure opener = 1\n}\nphase p {\n  measure rallies += 1\n'
                                    '  choose c from [1, 2] by 0\n  n += c\n  if n >= 3 {\n    measure won = true\n'
                                    '    end winner 0\n  }\n  goto p\n}\n')
    (tmp_path / "t.vbr").write_text('tests for "g.vbr"\nscenario "two rallies" {\n  choose 1\n'
                                    '  expect rallies == 2 and not won and opener == 1\n  choose 2\n  expect won\n}\n'
                                    'scenario "wrong" {\n  choose 1\n  expect rallies == 5\n}\n')
    for engine in ("python", "c"):
        ok, wrong = run_file(tmp_path / "t.vbr", engine=engine)
        assert ok.ok, ok.message
        assert (wrong.ok, wrong.span.line, wrong.message) == (False, 10, "expectation failed (left side is 2, right side is 5)")
