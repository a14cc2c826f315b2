"""Where `--log` may write (docs/cli.md, `vbr run`): never over a `.vbr` file, whose rules or
scenarios the log would replace."""
import pytest

from vbr.cli import main

RULES = 'game "L"\nseats 2\nstart a\nphase a {\n  choose x from 1..2 by 0 as "go"\n  end draw\n}\n'
SCENARIOS = 'tests for "l.vbr"\n\nscenario "one choice ends it" {\n  choose 1\n  expect draw\n}\n'


@pytest.mark.parametrize("command", ["run", "play"])
def test_a_log_over_a_scenario_file_is_refused_before_the_game_and_the_scenarios_are_kept(tmp_path, capsys, command):
    # `--log l_<Tab>` completes to the scenario file beside the rules: it is no rule file of the
    # game, and was replaced by the log
    (tmp_path / "l.vbr").write_text(RULES, encoding="utf-8")
    scenarios = tmp_path / "l_test.vbr"
    scenarios.write_text(SCENARIOS, encoding="utf-8")
    assert main([command, str(tmp_path / "l.vbr"), "--engine", "python", "--log", str(scenarios)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"vbr: error: --log {scenarios}: is a .vbr file (rules or scenarios); a log written there would "
                   "replace it: give the log a name of its own (.jsonl)\n")
    assert scenarios.read_text(encoding="utf-8") == SCENARIOS


def test_a_log_may_replace_an_earlier_log(tmp_path, capsys):
    (tmp_path / "l.vbr").write_text(RULES, encoding="utf-8")
    log = tmp_path / "l.jsonl"
    log.write_text("an earlier log\n", encoding="utf-8")
    assert main(["run", str(tmp_path / "l.vbr"), "--engine", "python", "--quiet", "--log", str(log)]) == 0
    assert log.read_text(encoding="utf-8").startswith('{"agents":')
