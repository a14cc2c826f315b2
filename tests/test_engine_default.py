"""`--engine auto`, the default of every command that plays (issue 35, goal 6): the C engine
where a C compiler builds the rules, else the typed program's Python engine with a one-line note;
a construct the typed program does not express is a located error under every engine, auto
included, never a fall-back; `--engine c` never falls back. "No compiler" is `CC` naming a
program that does not exist (vbr/engines/c_engine.py reads `CC` first); the compiled engines come
from the shared cache, built by the system's compiler."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import vbr
from vbr.cli import main

ROOT = Path(__file__).resolve().parent.parent
NO_CC = "/nonexistent/cc"
LISTS = ('game "Lists"\nseats 2\nstart one\nvar seen: list of int per seat = [[1], [2, 3]]\n'
         'phase one {\n  let n = [[count(seen)]]\n  end draw\n}\n')
# a list of lists worked out in play: not in the typed program yet
LACKS = "6:12: error: not supported yet: a list worked out in play as an item of a list (such items are lists fixed before play)"
# ... shown as every located error is (docs/cli.md, Errors): line 6 of LISTS and a caret under its column 12
QUOTED = ["      let n = [[count(seen)]]", " " * (4 + 11) + "^"]


def vbr_cli(*argv, env=None):
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, argv)], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_default_engine_is_c_where_a_compiler_builds_the_rules(capsys, tmp_path):
    log = tmp_path / "g.jsonl"
    code, out, err = run(capsys, "sim", "siatka", "-n", 4, "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["engine"] == "c"
    code, out, err = run(capsys, "run", "siatka", "--seed", 3, "--log", log)
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "Siatka: seed 3, agents random | random, engine c"
    assert json.loads(log.read_text().splitlines()[0])["engine"] == "c"


def test_without_a_c_compiler_the_default_plays_through_python_with_a_one_line_note():
    done = vbr_cli("sim", "siatka", "-n", 6, "--json", env={"CC": NO_CC})
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"vbr: --engine auto: the C engine cannot run here (the C compiler `{NO_CC}` does not answer: [Errno 2] "
        f"No such file or directory: '{NO_CC}'); playing through the python engine"]
    assert json.loads(done.stdout)["engine"] == "python"
    asked = vbr_cli("sim", "siatka", "-n", 6, "--json", "--engine", "python")
    timed = ("seconds", "load_seconds", "games_per_s")
    same = [{k: v for k, v in json.loads(d.stdout).items() if k not in timed} for d in (done, asked)]
    assert asked.stderr == "" and same[0] == same[1]  # the python engine's games, as asked for by name


def test_engine_c_without_a_compiler_stops_with_the_reason_and_plays_nothing():
    done = vbr_cli("run", "siatka", "--engine", "c", env={"CC": NO_CC})
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [f"vbr: error: the C engine cannot run here: the C compiler `{NO_CC}` does "
                                        f"not answer: [Errno 2] No such file or directory: '{NO_CC}'"]


def test_a_compiler_that_fails_without_a_word_is_named_with_its_exit_status(tmp_path):
    false = shutil.which("false")  # a "compiler" that answers --version, then fails every build silently
    done = vbr_cli("run", "docs/tutorial/bump.vbr", "--engine", "c",
                   env={"CC": false, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [f"vbr: error: the C engine cannot run here: the C compiler `{false}` failed "
                                        "(exit status 1) and said nothing"]


@pytest.mark.parametrize("engine", ["auto", "c", "python"])
def test_a_construct_the_typed_program_lacks_is_a_located_error_under_every_engine(tmp_path, capsys, engine):
    f = tmp_path / "lists.vbr"
    f.write_text(LISTS)
    code, out, err = run(capsys, "sim", f, "-n", 2, "--json", "--engine", engine)
    assert code == 1 and out == ""  # no game is played: nothing falls back to play it
    assert err.splitlines() == [f"{f}:{LACKS}", *QUOTED]


@pytest.mark.parametrize("command", [["run"], ["sim", "-n", "2"], ["graph", "--sim", "2"]])
def test_a_command_that_plays_shows_a_construct_the_typed_program_lacks_as_vbr_check_does(tmp_path, capsys, command):
    # docs/cli.md, Errors: every problem in a file is `FILE:LINE:COL: error: MESSAGE` with the source
    # line and a caret; the commands that play show the one `vbr check` finds, word for word
    f = tmp_path / "lists.vbr"
    f.write_text(LISTS)
    checked = run(capsys, "check", f)
    played = run(capsys, command[0], f, *command[1:])
    assert checked[0] == played[0] == 1 and played[1] == ""
    assert played[2] == checked[2] and played[2].splitlines() == [f"{f}:{LACKS}", *QUOTED]


def test_compare_of_an_arm_the_typed_program_lacks_is_the_located_error(tmp_path, capsys):
    plain = tmp_path / "plain.vbr"
    plain.write_text('game "Lists"\nseats 2\nstart one\nphase one {\n  end draw\n}\n')  # the typed program has it
    lists = tmp_path / "lists.vbr"
    lists.write_text(LISTS)
    code, out, err = run(capsys, "compare", plain, lists, "-n", 2, "--json")
    assert code == 1 and out == ""
    assert err.splitlines() == [f"{lists}:{LACKS}", *QUOTED]


def test_engine_closure_is_a_usage_error_naming_the_engines(capsys):
    code, out, err = run(capsys, "sim", "siatka", "-n", 2, "--engine", "closure")
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == ("vbr sim: error: argument --engine: no engine 'closure' (engines: auto, c, python); "
                                    "the closure engine was retired")


def test_vbr_load_takes_the_c_engine_by_default():
    game = vbr.load("siatka")
    assert type(game.engine).__name__ == "CEngine"


def test_vbr_load_without_a_compiler_takes_the_python_engine_and_notes_why(monkeypatch):
    monkeypatch.setenv("CC", NO_CC)
    heard = []
    game = vbr.load("siatka", note=heard.append)
    assert type(game.engine).__name__ == "PythonEngine"
    assert len(heard) == 1 and heard[0].startswith("engine='auto': the C engine cannot run here (the C compiler")
    with pytest.warns(UserWarning, match="playing through the python engine"):
        vbr.load("siatka")


@pytest.mark.parametrize("engine", ["auto", "c", "python"])
def test_vbr_load_of_a_construct_the_typed_program_lacks_raises_the_located_error(tmp_path, engine):
    from vbr.errors import EngineUnavailable
    f = tmp_path / "lists.vbr"
    f.write_text(LISTS)
    heard = []
    with pytest.raises(EngineUnavailable) as info:
        vbr.load(f, engine=engine, note=heard.append)
    assert info.value.located() == f"{f}:{LACKS}" and heard == []  # nothing said: nothing stepped down


def test_vbr_load_of_the_closure_engine_is_a_value_error_naming_the_engines():
    with pytest.raises(ValueError, match=r"^no engine 'closure' \(engines: auto, c, python\); the closure engine was "
                                         r"retired$"):
        vbr.load("siatka", engine="closure")


@pytest.mark.parametrize("engine,meant", [("C", "c"), ("Python", "python"), ("pyhton", "python")])
def test_vbr_load_of_an_engine_misspelt_or_in_capitals_is_a_value_error_naming_the_engine_meant(engine, meant):
    with pytest.raises(ValueError, match=rf"^no engine '{engine}'; did you mean {meant}\? \(engines: auto, c, python\)$"):
        vbr.load("siatka", engine=engine)


def test_vbr_test_of_a_rule_file_the_typed_program_lacks_fails_at_the_construct_and_runs_the_rest(tmp_path, capsys):
    (tmp_path / "lists.vbr").write_text(LISTS)
    (tmp_path / "t.vbr").write_text('tests for "lists.vbr"\n\nscenario "a draw at once" {\n  expect draw\n}\n')
    code, out, err = run(capsys, "test", tmp_path / "t.vbr", "docs/tutorial/bump_test.vbr")
    assert code == 1 and out.endswith(" passed, 1 failed\n") and "PASS docs/tutorial/bump_test.vbr" in out
    assert err.splitlines() == [f"{tmp_path / 'lists.vbr'}:{LACKS}", *QUOTED]  # no fall-back runs it


def test_vbr_check_reports_a_construct_no_engine_plays_at_its_place(capsys, tmp_path):
    # every engine plays the typed program, so what it cannot express is an error of the file
    f = tmp_path / "lists.vbr"
    f.write_text(LISTS)
    code, out, err = run(capsys, "check", f)
    assert code == 1 and f"{f}:{LACKS}" in err and "ok" not in out


def test_vbr_check_passes_a_file_the_typed_program_expresses(capsys):
    code, out, err = run(capsys, "check", "siatka")
    assert code == 0 and out.strip().endswith("siatka.vbr: ok"), err


@pytest.mark.parametrize("argv,meant", [
    (["run", "siatka", "--engine", "C"], "c"),
    (["sim", "siatka", "-n", 2, "--engine", "Python"], "python"),
    (["test", "rules/tests/siatka.vbr", "--engine", "C"], "c"),
    (["mutate", "siatka", "--engine", "pyhton"], "python"),
])
def test_an_engine_misspelt_or_in_capitals_is_a_usage_error_naming_the_engine_meant(capsys, argv, meant):
    # `--engine C` was argparse's `invalid choice: 'C'` (test, mutate) or `no engine 'C'` with no hint
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    last = err.splitlines()[-1]
    assert f"argument --engine: no engine {argv[-1]!r}; did you mean {meant}? (engines: " in last, last
