"""Command-line conventions: usage errors exit 2 with `vbr: error:`, file errors in words, the
version, `python -m vbr`, several files for `fmt`, help that lists what it should, `--strict`."""
import subprocess
import sys
from importlib.metadata import version

import pytest

from conftest import ROOT
from vbr.agents import AGENTS
from vbr.cli import main

BUMP = "docs/tutorial/bump.vbr"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------ usage errors
@pytest.mark.parametrize("argv,message", [
    (["sim", BUMP, "-n", "0"], "vbr: error: -n must be at least 1, not 0"),
    (["sim", BUMP, "--agents", "nonsense"], "vbr: error: unknown agent 'nonsense'"),
    (["sim", BUMP, "--option", "=3"], "vbr: error: --option '=3': expected NAME or NAME=VALUE"),
    (["sim", BUMP, "--option", "nope=1"], "vbr: error: unknown option `nope`"),
    (["run", BUMP, "--option", "target=abc"], "vbr: error: option `target` is a whole number, not 'abc'"),
    # `--option target` alone sets it to true, spelt as the language spells it (not Python's True)
    (["run", BUMP, "--option", "target"], "vbr: error: option `target` is a whole number, not true: write one in the digits 0-9, such as 3 (its default)\n"),
])
def test_usage_errors_exit_2_with_one_vbr_error_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith(message)
    assert len(err.splitlines()) == 1  # no source line, no caret: an option has no place in the file


def test_a_flag_given_to_a_number_option_is_refused_after_the_file_was_played_at_1(capsys):
    # true and 1 are equal (and hash alike) in Python: the file played at target=1 earlier in the
    # same process (here by docs/cli.md's `vbr tune` example) must not stand in for it under
    # `--option target`
    assert run(capsys, "tune", BUMP, "--option", "target=1..4", "--target", "length_mean=20", "-n", "400")[0] == 1
    code, out, err = run(capsys, "run", BUMP, "--option", "target")
    assert code == 2 and err.startswith("vbr: error: option `target` is a whole number, not true")


def test_option_error_names_no_location_in_the_rule_file(capsys):
    code, _, err = run(capsys, "run", BUMP, "--option", "nope=1")
    assert code == 2
    assert "bump.vbr:" not in err and "^" not in err


@pytest.mark.parametrize("given,why", [
    ("x", "'x' is not a whole number (write it in the digits 0-9)"),
    ("1.5", "'1.5' is not a whole number (write it in the digits 0-9)"),
    ("-1", "-1 is not a seed: seeds run from 0 to 9223372036854775807 (2**63 - 1)"),
    (str(2**63), f"{2**63} is not a seed: seeds run from 0 to 9223372036854775807 (2**63 - 1)"),
])
def test_a_seed_that_is_not_a_whole_number_in_range_is_a_usage_error_of_the_command(capsys, given, why):
    code, out, err = run(capsys, "run", BUMP, "--seed", given)
    assert code == 2 and out == ""
    assert err.startswith("usage: vbr run ")
    assert err.splitlines()[-1] == f"vbr run: error: argument --seed: {why}"


def test_the_largest_seed_is_accepted(capsys):
    code, out, _ = run(capsys, "run", BUMP, "--seed", str(2**63 - 1), "--quiet")
    assert code == 0 and out.startswith("result: ")


def test_an_unknown_flag_shows_the_commands_usage(capsys):
    code, _, err = run(capsys, "run", BUMP, "--json")
    assert code == 2
    assert err.startswith("usage: vbr run ")
    assert err.splitlines()[-1] == "vbr run: error: unrecognized arguments: --json"


def test_a_bad_agent_is_reported_before_anything_is_printed(capsys):
    code, out, err = run(capsys, "run", BUMP, "--agents", "random,smart")
    assert code == 2 and out == ""
    assert err.startswith("vbr: error: unknown agent 'smart'")


def test_an_unwritable_log_is_refused_before_the_game(tmp_path, capsys):
    code, out, err = run(capsys, "run", BUMP, "--log", str(tmp_path / "no" / "g.jsonl"))
    assert code == 2 and out == ""
    assert err == f"vbr: error: --log {tmp_path / 'no' / 'g.jsonl'}: the folder {tmp_path / 'no'} does not exist\n"


def test_a_missing_log_is_said_in_words(tmp_path, capsys):
    log = tmp_path / "nosuch.jsonl"
    code, out, err = run(capsys, "replay", str(log))
    assert code == 1 and out == ""
    assert err == f"vbr: error: cannot read {log}: no such file\n"


def test_a_folder_given_as_a_log_is_said_in_words(tmp_path, capsys):
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 1
    assert err == f"vbr: error: cannot read {tmp_path}: is a directory\n"


# ------------------------------------------------------------------------ version, -m, bare
def test_version_is_the_installed_packages(capsys):
    with pytest.raises(SystemExit) as stop:  # argparse's version action ends the parse
        from vbr.cli import _parser
        _parser().parse_args(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"vbr {version('vbr')}\n"
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"vbr {version('vbr')}\n"


def test_python_dash_m_vbr_runs_the_command():
    done = subprocess.run([sys.executable, "-m", "vbr", "run", BUMP, "--seed", "4", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("result: ")
    done = subprocess.run([sys.executable, "-m", "vbr", "run", BUMP, "--seed", "x"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "vbr run: error: argument --seed" in done.stderr


def test_bare_vbr_prints_help_to_stderr_and_exits_2(capsys):
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: vbr ") and "COMMAND" in err and "check" in err


# ---------------------------------------------------------------------------------- help
def test_agents_help_lists_every_registered_agent(capsys):
    code, out, _ = run(capsys, "run", "--help")
    assert code == 0
    lines = [line.strip() for line in out.splitlines()]
    for name in AGENTS:
        assert any(line.startswith(f"{name} ") for line in lines), name


def test_seed_and_workers_have_help(capsys):
    code, out, _ = run(capsys, "sim", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "--seed S the seed that fixes every roll" in flat and "2**63 - 1" in flat
    assert "--workers W play in W processes at once" in flat


def test_no_commands_help_shows_a_doubled_percent_sign(capsys):
    import argparse

    from vbr.cli import _parser
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in sub.choices:
        code, out, _ = run(capsys, name, "--help")
        assert code == 0 and "%%" not in out, name
    assert "95% CIs" in " ".join(run(capsys, "report", "--help")[1].split())


# ------------------------------------------------------------------------------------ fmt
MESSY = 'game "x"\nstart p\n# the only phase\nphase p {   goto p }\n'


def test_fmt_check_gives_a_verdict_for_each_file(tmp_path, capsys):
    good, bad = tmp_path / "good.vbr", tmp_path / "bad.vbr"
    bad.write_text(MESSY)
    code, canonical, _ = run(capsys, "fmt", str(bad))
    assert code == 0
    good.write_text(canonical)
    code, out, err = run(capsys, "fmt", "--check", str(good), str(bad))
    assert code == 1
    assert out == f"{good}: canonical\n"
    assert err == f"{bad}: not in canonical form\n"
    assert run(capsys, "fmt", "--check", str(good), str(good))[0] == 0


CANONICAL = 'game "x"\nstart p\n# the only phase\nphase p {\n  goto p\n}\n'  # MESSY as docs/cli.md formats


def test_fmt_write_rewrites_each_file_not_in_canonical_form_in_place(tmp_path, capsys):
    messy, good = tmp_path / "messy.vbr", tmp_path / "good.vbr"
    messy.write_text(MESSY)
    messy.chmod(0o640)
    good.write_text(CANONICAL)
    before = good.stat()
    code, out, err = run(capsys, "fmt", "-w", str(messy), str(good))
    assert (code, err) == (0, "")
    assert out == f"{messy}: rewritten in canonical form\n{good}: canonical\n"
    assert messy.read_text() == CANONICAL and run(capsys, "fmt", str(messy))[1] == CANONICAL
    assert messy.stat().st_mode & 0o777 == 0o640  # its own permissions kept
    assert good.stat().st_mtime_ns == before.st_mtime_ns and good.stat().st_ino == before.st_ino  # not touched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.vbr", "messy.vbr"]  # no temporary file left


def test_fmt_write_through_a_link_rewrites_the_file_and_keeps_the_link(tmp_path, capsys):
    real, link = tmp_path / "real.vbr", tmp_path / "link.vbr"
    real.write_text(MESSY)
    link.symlink_to(real)
    assert run(capsys, "fmt", "--write", str(link))[0] == 0
    assert link.is_symlink() and real.read_text() == CANONICAL


def test_fmt_write_leaves_a_file_that_does_not_parse_and_does_the_others(tmp_path, capsys):
    broken, messy = tmp_path / "broken.vbr", tmp_path / "messy.vbr"
    broken.write_text('game "x"\nstart p\nphase p { goto }\n')
    messy.write_text(MESSY)
    code, out, err = run(capsys, "fmt", "-w", str(broken), str(messy))
    assert code == 1 and f"{broken}:3:" in err
    assert broken.read_text() == 'game "x"\nstart p\nphase p { goto }\n'
    assert messy.read_text() == CANONICAL


def test_fmt_write_and_check_together_are_a_usage_error(tmp_path, capsys):
    messy = tmp_path / "messy.vbr"
    messy.write_text(MESSY)
    code, _, err = run(capsys, "fmt", "-w", "--check", str(messy))
    assert code == 2 and "not allowed with argument" in err
    assert messy.read_text() == MESSY


def test_fmt_prints_each_file_in_turn(tmp_path, capsys):
    a, b = tmp_path / "a.vbr", tmp_path / "b.vbr"
    a.write_text(MESSY)
    b.write_text(MESSY.replace('"x"', '"y"'))
    one = run(capsys, "fmt", str(a))[1]
    two = run(capsys, "fmt", str(b))[1]
    code, out, _ = run(capsys, "fmt", str(a), str(b))
    assert code == 0 and out == one + two


def test_fmt_keeps_comments(tmp_path, capsys):
    p = tmp_path / "c.vbr"
    p.write_text(MESSY)
    code, out, _ = run(capsys, "fmt", str(p))
    assert code == 0 and "# the only phase" in out


def test_fmt_check_passes_on_every_bundled_rule_file(capsys):
    from vbr.loader import bundled_names
    names = bundled_names()
    assert len(names) >= 4
    code, out, err = run(capsys, "fmt", "--check", *names)
    assert code == 0, err
    assert out.count(": canonical") == len(names)


# ------------------------------------------------------------------------------- --strict
DEAD_END = """game "Dead"
seats 2
start a
phase a {
  choose c from 1..2 by 0 as "pick"
  if c == 1 {
    goto b
  }
  end draw
}
phase b {
  say "stuck"
}
"""


def test_check_strict_counts_flow_warnings_as_errors(tmp_path, capsys):
    p = tmp_path / "dead.vbr"
    p.write_text(DEAD_END)
    message = f"{p}:11:1: %s: phase `b` has no way out"
    code, out, err = run(capsys, "check", str(p))
    assert code == 0 and out == f"{p}: ok\n" and err.startswith(message % "warning")
    code, out, err = run(capsys, "check", "--strict", str(p))
    assert code == 1 and out == "" and err.startswith(message % "error")
    assert "warning" not in err


def test_check_strict_passes_a_file_without_warnings(capsys):
    code, out, err = run(capsys, "check", "--strict", BUMP)
    assert code == 0 and out == f"{BUMP}: ok\n" and err == ""


def test_check_strict_fails_a_scenario_file_whose_rules_have_flow_warnings(tmp_path, capsys):
    # docs/cli.md: with --strict the warnings are errors and the file fails (exit 1), a scenario
    # file through the rule file it tests, as `vbr test --strict` does
    (tmp_path / "dead.vbr").write_text(DEAD_END)
    scenarios = tmp_path / "dead_test.vbr"
    scenarios.write_text('tests for "dead.vbr"\n\nscenario "choosing 2 ends the game in a draw" {\n  choose 2\n  expect draw\n}\n')
    code, out, err = run(capsys, "check", str(scenarios))
    assert code == 0 and out == f"{scenarios}: ok\n"
    code, out, err = run(capsys, "check", "--strict", str(scenarios))
    assert code == 1 and out == ""
    assert err.startswith(f"{tmp_path / 'dead.vbr'}:11:1: error: phase `b` has no way out")


def test_check_strict_passes_a_scenario_file_whose_rules_have_no_warnings(capsys):
    code, out, err = run(capsys, "check", "--strict", "docs/tutorial/bump_test.vbr")
    assert code == 0 and out == "docs/tutorial/bump_test.vbr: ok\n" and err == ""


# -------------------------------------------------------------------------- faults in sim
DIVIDES = """game "Div"
seats 2
start p
die d = 1..6
var n: int = 0
phase p {
  let r = roll d
  choose c from 1..2 by 0 as "pick"
  n = 10 / (r - 6)
  end draw
}
"""


FRAGILE_UNDER_AN_OPTION = """game "Fragile"
seats 2
start p
option fragile = false
die d = 1..6
var n: int = 0
phase p {
  let r = roll d
  choose c from 1..2 by 0 as "pick"
  if fragile {
    n = 10 / (r - 6)
  }
  end draw
}
"""


def test_a_fault_in_sim_names_the_command_that_plays_its_game_again_options_and_agents_included(tmp_path, capsys):
    # The game faults only with `--option fragile` (a roll of 6 divides by zero), so the command
    # the failure names must carry the option, and the agents in that game's seating, to play it again.
    import shlex
    p = tmp_path / "fragile.vbr"
    p.write_text(FRAGILE_UNDER_AN_OPTION)
    code, _, err = run(capsys, "sim", str(p), "-n", "40", "--option", "fragile", "--agents", "first,random")
    assert code == 1
    lines = [x for x in err.splitlines() if not x.startswith("vbr: the agents differ")]  # the rotation note
    assert lines[0].endswith(": error: division by zero")
    again = lines[-1].split("`")[1]
    argv = shlex.split(again)
    assert argv[:2] == ["vbr", "run"] and "--option" in argv and "--agents" in argv
    code, _, err = run(capsys, *argv[1:])
    assert code == 1 and err.splitlines()[0] == lines[0]
    seed = argv[argv.index("--seed") + 1]
    assert run(capsys, "run", str(p), "--seed", seed)[0] == 0  # without the option the game does not fault


def test_a_fault_in_sim_names_the_game_and_its_seed_for_any_number_of_workers(tmp_path, capsys):
    p = tmp_path / "div.vbr"
    p.write_text(DIVIDES)
    seen = []
    for workers in ("1", "2"):
        code, out, err = run(capsys, "sim", str(p), "-n", "20", "--workers", workers)
        assert code == 1 and out == ""
        seen.append(err)
    assert seen[0] == seen[1]
    lines = seen[0].splitlines()
    assert lines[0].startswith(f"{p}:9:") and lines[0].endswith(": error: division by zero")  # the line that divides
    assert lines[1].strip() == "n = 10 / (r - 6)"
    last = lines[-1]
    assert last.startswith("(game ") and " of the run, seed " in last
    seed = last.split("seed ")[1].split(":")[0]
    # the named seed plays the failing game again
    code, _, err = run(capsys, "run", str(p), "--seed", seed)
    assert code == 1 and err.splitlines()[0] == lines[0]


def test_test_strict_fails_a_file_whose_rules_have_flow_warnings(tmp_path, capsys):
    (tmp_path / "dead.vbr").write_text(DEAD_END)
    scenarios = tmp_path / "dead_test.vbr"
    scenarios.write_text('tests for "dead.vbr"\n\nscenario "choosing 2 ends the game in a draw" {\n  choose 2\n  expect draw\n}\n')
    code, out, err = run(capsys, "test", str(scenarios))
    assert code == 0 and out.splitlines()[-1] == "1 passed, 0 failed"
    code, out, err = run(capsys, "test", "--strict", str(scenarios))
    assert code == 1 and out.splitlines()[-1] == "0 passed, 1 failed"
    assert err.startswith(f"{tmp_path / 'dead.vbr'}:11:1: error: phase `b` has no way out")


def test_test_strict_runs_a_file_whose_rules_have_no_warnings(capsys):
    code, out, err = run(capsys, "test", "--strict", "docs/tutorial/bump_test.vbr")
    assert code == 0 and out.splitlines()[-1] == "4 passed, 0 failed" and err == ""


def test_play_is_a_command_of_vbr(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "play a game yourself, in the terminal" in out
    code, out, err = run(capsys, "play", BUMP, "--seat", "7")
    assert code == 2 and out == ""
    assert err == "vbr: error: --seat 7: no such seat; Bump has seats 0 and 1\n"


def test_any_file_that_cannot_be_opened_is_said_in_words(capsys):
    # a page in a folder that does not exist is a usage error, found before the table is made
    # (docs/cli.md, `vbr trace`), as `-o` of graph and report is
    code, out, err = run(capsys, "trace", BUMP, "--update", "nowhere/doc.md")
    assert code == 2 and out == ""
    assert err == "vbr: error: --update nowhere/doc.md: the folder nowhere does not exist\n"


def test_a_log_over_a_rule_file_of_the_game_is_refused_and_the_rules_are_kept(tmp_path, capsys):
    # `--log` names the file the game's events replace: naming the rule file (or the file it
    # extends) would replace the rules with the log, so it is a usage error before the game.
    base = tmp_path / "base.vbr"
    base.write_text((ROOT / BUMP).read_text())
    variant = tmp_path / "variant.vbr"
    variant.write_text('game "V"\nextends "base.vbr"\noverride option target = 1\n')
    for log in (variant, base):
        before = log.read_text()
        code, out, err = run(capsys, "run", str(variant), "--quiet", "--log", str(log))
        assert (code, out) == (2, "")
        assert err == f"vbr: error: --log {log}: is a rule file of this game; a log written there would replace it\n"
        assert log.read_text() == before


def test_a_ray_address_whose_port_is_no_ascii_number_is_a_usage_error(capsys):
    # `²` is a digit to str.isdigit, but no port number (int() refused it: an error, exit 1)
    code, _, err = run(capsys, "sim", BUMP, "-n", "1", "--backend", "ray", "--ray-address", "localhost:\u00b2")
    assert code == 2 and err.startswith("vbr: error: --ray-address must be auto or HOST:PORT")


# ------------------------------------------------------------------------------ numbers
# Python's int() and float() read other scripts' digits (`٣` ARABIC-INDIC THREE, `３` FULLWIDTH
# THREE), underscores (`1_000`) and spaces around a number, and float() `nan` and `inf`; every
# number vbr is given on its command line is ASCII decimal, and anything else a usage error (exit 2).
NOT_WHOLE = ["\u0663", "\uff13", "1_000", " 5", "5 ", "1.0", "0x10"]
NOT_DECIMAL = ["\u0660.5", "0\uff0e5", "1_0.5", "nan", "inf", "Infinity", " 0.5"]
WHOLE_FLAGS = [  # (command line before the number, what the error names)
    (["sim", BUMP, "-n"], "argument -n"), (["sim", BUMP, "--workers"], "argument --workers"),
    (["sim", BUMP, "--seed"], "argument --seed"), (["run", BUMP, "--seed"], "argument --seed"),
    (["sweep", BUMP, "--grid", "target=1,2", "-n"], "argument -n"),
    (["compare", BUMP, "--variant-option", "target=2", "--workers"], "argument --workers"),
    (["importance", BUMP, "-n"], "argument -n"), (["importance", BUMP, "--workers"], "argument --workers"),
    (["report", BUMP, "-n"], "argument -n"), (["report", BUMP, "--workers"], "argument --workers"),
    (["tune", BUMP, "--option", "target=1..3", "--target", "mean_length=5", "-n"], "argument -n"),
    (["tune", BUMP, "--option", "target=1..3", "--target", "mean_length=5", "--workers"], "argument --workers"),
    (["play", BUMP, "--seat"], "argument --seat"),
    (["mutate", BUMP, "-n"], "argument -n"), (["mutate", BUMP, "--seed"], "argument --seed"),
    (["mutate", BUMP, "--workers"], "argument --workers"), (["mutate", BUMP, "--lines"], "argument --lines"),
    (["graph", BUMP, "--sim"], "argument --sim"), (["graph", BUMP, "--sim", "1", "--workers"], "argument --workers"),
]
DECIMAL_FLAGS = [(["sim", BUMP, "-n", "10", "--precision"], "argument --precision"),
                 (["mutate", BUMP, "--max-seconds"], "argument --max-seconds")]


def _refused_number(capsys, argv, names, given, why) -> None:
    code, out, err = run(capsys, *argv, given)
    assert code == 2 and out == ""
    last = err.splitlines()[-1]
    assert names in last and why in last, err


@pytest.mark.parametrize("given", NOT_WHOLE)
@pytest.mark.parametrize("argv,names", WHOLE_FLAGS, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_a_whole_number_flag_takes_only_ascii_digits(capsys, argv, names, given):
    _refused_number(capsys, argv, names, given, "not a")


@pytest.mark.parametrize("given", NOT_DECIMAL)
@pytest.mark.parametrize("argv,names", DECIMAL_FLAGS, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_a_decimal_flag_takes_only_ascii_decimals(capsys, argv, names, given):
    _refused_number(capsys, argv, names, given, "not a number")


@pytest.mark.parametrize("given", ["\u0663", "1_0", "\uff13"])
@pytest.mark.parametrize("argv,template,message", [
    (["run", BUMP, "--option"], "target={}", "vbr: error: option `target` is a whole number, not {!r}: write one in the digits 0-9, such as 3 (its default)"),
    (["sweep", BUMP, "-n", "1", "--grid"], "target=1,{}", "vbr: error: option `target` is a whole number, not {!r}: write one in the digits 0-9, such as 3 (its default)"),
    (["run", BUMP, "--agents"], "mcts:iterations={}",
     "vbr: error: mcts: iterations must be an integer from 1 to 1000000, not {!r}"),
    (["run", BUMP, "--agents"], "mcts:c={}", "vbr: error: mcts: c must be a number from 0 to 100, not {!r}"),
    (["sim", BUMP, "-n", "1", "--agents", "mcts", "--skill"], "iterations=5,{}",
     "vbr: error: mcts: iterations must be an integer from 1 to 1000000, not {!r}"),
    (["tune", BUMP, "--target", "mean_length=5", "--option"], "target=1..{}",
     "vbr: error: --option 'target=1..{}': a range is two whole numbers, LO..HI (e.g. target=5..21)"),
    (["tune", BUMP, "--option", "target=1..3", "--target"], "mean_length={}",
     "vbr: error: --target 'mean_length={0}': {0!r} is not a number (e.g. 0.5, or 50%)"),
], ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_a_number_inside_a_flags_value_takes_only_ascii_digits(capsys, argv, template, message, given):
    code, out, err = run(capsys, *argv, template.format(given))
    assert code == 2 and out == ""
    assert err == message.format(given) + "\n"


def test_numbers_in_ascii_digits_are_taken_everywhere(capsys):
    # the same flags with their numbers in ASCII: two games of bump, first to 2, by mcts of 5 iterations
    # (a 95% confidence sequence of a rate after two games is far wider than +/-0.25: both are played)
    code, out, err = run(capsys, "sim", BUMP, "-n", "+2", "--seed", "7", "--workers", "1", "--precision", ".25",
                         "--option", "target=2", "--agents", "mcts:iterations=5,c=1e-1", "--json")
    assert code == 0, err
    import json
    result = json.loads(out)
    assert result["games"] == 2 and result["options"] == {"target": 2}
    assert result["agents"] == ["mcts:c=0.1,iterations=5"] * 2
