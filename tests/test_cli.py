"""The CLI: thin, located errors, exit codes, never a traceback."""
import json
from pathlib import Path

import pytest

from vbr.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_ok(capsys):
    code, out, _ = run(capsys, "check", "siatka", "rules/tests/siatka.vbr")
    assert code == 0 and out.count(": ok") == 2


@pytest.mark.parametrize("content,expect", [
    (b"", "error: the file is empty"),
    (b'game "x"\n\xff\xfe\n', ":2:1: error: the file is not valid UTF-8"),
    # a file saved as UTF-16 (Notepad's "Unicode") says so, not only that its first byte is wrong
    ('game "x"\n'.encode("utf-16"), ":1:1: error: the file is not valid UTF-8 (byte 0xff); it starts with a UTF-16 "
                                      "byte-order mark: save it as UTF-8"),
    (b'game "x"\nphase p { goto }\n', ":2:16: error: unexpected '}'"),
])
def test_bad_files_give_located_errors_without_traceback(tmp_path, capsys, content, expect):
    p = tmp_path / "bad.vbr"
    p.write_bytes(content)
    code, _, err = run(capsys, "check", str(p))
    assert code == 1
    assert expect in err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv", [["run", ""], ["check", "", "siatka"], ["graph", ""]])
def test_an_empty_rule_file_name_is_a_usage_error_not_the_current_folder(capsys, argv):
    # `vbr run "$RULES"` with the variable unset: Path("") is ".", which was reported as
    # `.: error: . is a directory, not a rule file`, naming a folder the user never wrote
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == ("vbr: error: an empty rule file name: give a .vbr file's path or a bundled rule file's name "
                   "(cattack, siatka, tanto-cuore-beach-volleyball, volleyball-high)\n")


def test_an_empty_scenario_file_name_is_a_usage_error_calling_it_a_scenario_file(capsys):
    # `vbr test "$TESTS"` with the variable unset said `an empty rule file name`, of a command that
    # takes scenario files
    code, out, err = run(capsys, "test", "")
    assert (code, out) == (2, "")
    assert err == ("vbr: error: an empty scenario file name: give a scenario file's path (a rule file's scenarios "
                   "are kept in tests/NAME.vbr beside it)\n")


@pytest.mark.parametrize("argv,name", [(["replay", ""], "log"), (["summarize", ""], "ROWS")])
def test_an_empty_log_or_rows_name_is_a_usage_error_not_the_current_folder(capsys, argv, name):
    # `vbr replay ""` said `cannot read : is a directory` (exit 1), `vbr summarize ""` named `.`
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "") and err.endswith(f"error: argument {name}: an empty file name\n"), err


@pytest.mark.parametrize("command", ["graph", "report"])
def test_an_empty_output_name_is_refused_as_empty_not_as_the_current_folder(capsys, command):
    # `-o ""` said `cannot write .: give a file ending in .svg, ...` (`-o : ...` for report)
    code, out, err = run(capsys, command, "docs/tutorial/bump.vbr", "-o", "")
    assert (code, out) == (2, "") and err.endswith(f"vbr {command}: error: argument -o/--output: an empty file name\n"), err


def test_missing_file_and_directory(tmp_path, capsys):
    code, _, err = run(capsys, "check", str(tmp_path / "nope.vbr"))
    assert code == 1 and "cannot find rule file" in err and "siatka" in err
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 1 and "is a directory" in err


def test_error_shows_source_line_and_caret(tmp_path, capsys):
    p = tmp_path / "e.vbr"
    p.write_text('game "x"\nstart p\nphase p {\n  goto nowhere\n}\n')
    code, _, err = run(capsys, "check", str(p))
    lines = err.splitlines()
    assert lines[0] == f"{p}:4:3: error: no phase `nowhere` (phases: p)"
    assert lines[1].strip() == "goto nowhere"
    assert lines[2] == "    " + "  ^"


def test_run_prints_play_and_writes_a_log_that_replays(tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    code, out, _ = run(capsys, "run", "siatka", "--seed", "3", "--agents", "random,greedy", "--log", str(log))
    assert code == 0 and "[serve]" in out and "result: seat" in out
    first = json.loads(log.read_text().splitlines()[0])
    assert first["t"] == "header" and first["seed"] == 3 and first["agents"] == ["random", "greedy"]
    code, out, _ = run(capsys, "replay", str(log))
    assert code == 0 and "reproduces exactly" in out
    # tamper with one logged line the rules said: the replay notices
    lines = log.read_text().splitlines()
    i = next(i for i, l in enumerate(lines) if '"t":"say"' in l)
    lines[i] = lines[i].replace('"text":"', '"text":"x')
    log.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "replay", str(log))
    assert code == 1 and f"{log}:{i + 1}: error: differs on replay" in err


def test_run_same_seed_same_output(capsys):
    a = run(capsys, "run", "siatka", "--seed", "11")[1]
    b = run(capsys, "run", "siatka", "--seed", "11")[1]
    assert a == b


def test_sim_json_is_the_same_for_one_and_two_workers(capsys):
    stats = []
    for w in ("1", "2"):
        code, out, _ = run(capsys, "sim", "siatka", "-n", "40", "--seed", "5", "--workers", w, "--json", "--option", "rotation")
        assert code == 0
        s = json.loads(out)
        for key in ("rules", "games", "seed", "wins", "win_rate", "ci95", "mean_steps", "games_per_s"):
            assert key in s
        # How the run was carried out (time, workers, pool start-up) may differ; what it found may not.
        how = ("games_per_s", "seconds", "workers", "load_seconds")
        stats.append({k: v for k, v in s.items() if k not in how})
    assert stats[0] == stats[1]
    assert sum(stats[0]["wins"].values()) == 40
    lo, hi = stats[0]["ci95"]["0"]
    assert lo <= stats[0]["win_rate"]["0"] <= hi


def test_sim_names_options_as_they_are_typed(capsys):
    """The options line reads back as `--option` values: the language's true/false, not Python's."""
    code, out, _ = run(capsys, "sim", "siatka", "-n", "3", "--option", "rotation")
    assert code == 0
    assert ("options: target=9, abilities=false, block_marker=false, rotation=true, r_ability=every_bounce"
            in out.splitlines())  # in the order the rule file declares them


def test_unknown_option_and_agent_are_usage_errors(capsys):
    code, _, err = run(capsys, "run", "siatka", "--option", "rotaton")
    assert code == 2 and "unknown option `rotaton`" in err and "did you mean `rotation`" in err
    code, _, err = run(capsys, "run", "siatka", "--agents", "smart")
    assert code == 2 and "unknown agent 'smart'" in err


def test_test_command_last_line(capsys):
    code, out, _ = run(capsys, "test", "rules/tests/siatka.vbr")
    assert code == 0 and out.splitlines()[-1].endswith(" passed, 0 failed")


def test_fmt_check(tmp_path, capsys):
    p = tmp_path / "f.vbr"
    p.write_text('game "x"\nstart p\nphase p {   goto p }\n')
    code, _, err = run(capsys, "fmt", str(p), "--check")
    assert code == 1 and "not in canonical form" in err
    code, out, _ = run(capsys, "fmt", str(p))
    p.write_text(out)
    assert run(capsys, "fmt", str(p), "--check")[0] == 0


def test_test_trace_prints_the_events_of_a_failing_scenario(tmp_path, capsys):
    (tmp_path / "bump.vbr").write_text(open("docs/tutorial/bump.vbr").read())
    (tmp_path / "t.vbr").write_text('tests for "bump.vbr"\n\nscenario "a serve of 4 gives power 5 (wrong on purpose)" {\n'
                                    '  given {\n    server = 0\n  }\n  force serve_die = 4\n  choose none\n'
                                    '  expect power == 5\n}\n')
    code, out, _ = run(capsys, "test", str(tmp_path / "t.vbr"), "--trace")  # its log holds the rolls
    assert code == 1
    lines = out.splitlines()
    at = lines.index("  after line 8 (choose none):")
    # the forced roll of 4 and the serve it made, in the rule file's words, after that step
    assert "      roll serve_die: 4" in lines[at:] and "      seat 0 serves with power 4" in lines[at:]
    code, out, _ = run(capsys, "test", str(tmp_path / "t.vbr"))
    assert code == 1 and "after line 8" not in out


def test_a_reader_that_closes_the_pipe_early_ends_vbr_quietly_with_0():
    """`vbr fmt rules/*.vbr | head -c 100`: more than a pipe holds (115 kB), so vbr writes into
    a pipe whose reader has gone; that broken pipe is stdout's, and the end it asks for is quiet."""
    import subprocess
    import sys
    from pathlib import Path
    files = sorted(str(p) for p in Path("rules").glob("*.vbr"))
    assert sum(Path(f).stat().st_size for f in files) > 1 << 16
    p = subprocess.Popen([sys.executable, "-m", "vbr", "fmt", *files], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and err == b""


def test_a_reader_that_closes_the_pipe_before_an_error_is_told_does_not_make_it_a_success(tmp_path):
    """`vbr check BAD 2>&1 | true`: stdout and stderr are one pipe whose reader has gone before
    vbr writes. The file has an error (an unknown variable), so check fails: the pipe breaking
    under the error's own line leaves the exit code 1, not the 0 of a reader that saw enough of
    a command's output (it was 0, the broken file passing for a checked one)."""
    import os
    import subprocess
    import sys
    bad = tmp_path / "bad.vbr"
    bad.write_text('game "Bad"\nseats 2\nstart p\nphase p {\n  x = 1\n  end winner 0\n}\n')
    good = tmp_path / "good.vbr"
    good.write_text('game "Good"\nseats 2\nstart p\nphase p {\n  end winner 0\n}\n')
    codes = {}
    for f in (bad, good):
        read, write = os.pipe()
        os.close(read)  # the reader is gone before vbr starts
        p = subprocess.Popen([sys.executable, "-m", "vbr", "check", str(f)], stdout=write, stderr=write)
        os.close(write)
        codes[f.name] = p.wait(timeout=120)
    assert codes == {"bad.vbr": 1, "good.vbr": 0}


def test_a_broken_pipe_that_is_not_stdout_is_an_error_not_a_quiet_end(capsys):
    from vbr.cli import _guard

    def fails():
        raise BrokenPipeError(32, "Broken pipe")  # as a pipe to an ended worker raises it
    assert _guard(fails) == 1
    assert capsys.readouterr().err == "vbr: error: broken pipe\n"


def test_run_writes_its_log_when_the_reader_closes_the_pipe_early(tmp_path):
    """`vbr run FILE --log LOG | head -1`: the reader goes after a line, and vbr ends quietly with
    0 as for any command (above); the log it was asked for is still written, whole. The game says
    more than a pipe holds (64 kB), so vbr writes into the pipe after its reader has gone."""
    import subprocess
    import sys
    rules, log = tmp_path / "talk.vbr", tmp_path / "g.jsonl"
    rules.write_text('game "Talk"\nstart a\nphase a {\n  repeat 3000 {\n'
                     '    say "a line long enough that three thousand of them fill more than a pipe holds"\n'
                     '  }\n  end draw\n}\n')
    p = subprocess.Popen([sys.executable, "-m", "vbr", "run", str(rules), "--engine", "python", "--log", str(log)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline().startswith(b"Talk: seed 0")
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and err == b""
    assert main(["replay", str(log)]) == 0


def test_a_run_with_an_mcts_agent_takes_a_worker_per_core_unless_told(capsys):
    # docs/cli.md, --workers: by default one per core the process may use when an agent is mcts,
    # else 1; a given --workers is kept
    import os
    cores = len(os.sched_getaffinity(0))
    for agents, given, expected in (("mcts,random", None, cores), ("greedy,random", None, 1), ("mcts", "1", 1)):
        bump = str(Path(__file__).resolve().parent.parent / "docs" / "tutorial" / "bump.vbr")
        code, out, _ = run(capsys, "sim", bump, "-n", "4", "--agents", agents, "--json",
                           *(("--workers", given) if given else ()))
        assert code == 0
        assert json.loads(out)["workers"] == expected


def test_vbr_test_given_a_rule_file_names_the_scenario_file_beside_it(tmp_path, capsys):
    # `vbr test siatka` names the bundled rule file (docs/cli.md, naming rule files), not its
    # scenarios: the error says where they are, tests/NAME.vbr beside it, as `vbr mutate` looks
    rules = tmp_path / "g.vbr"
    rules.write_text('game "G"\nseats 2\nstart p\nphase p {\n  end draw\n}\n', encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "g.vbr").write_text('tests for "../g.vbr"\n', encoding="utf-8")
    assert main(["test", str(rules)]) == 1
    out, err = capsys.readouterr()
    assert out == "0 passed, 1 failed\n"
    assert err.startswith(f"{rules}:1:1: error: not a scenario file: it should start with `tests for \"RULES\"` "
                          f"(this is a rule file; its scenarios are in {tmp_path / 'tests' / 'g.vbr'})\n"), err


def test_vbr_test_of_a_missing_scenario_file_calls_it_one_and_names_the_bundled_scenarios(tmp_path, monkeypatch, capsys):
    # `vbr test rules/tests/siatka.vbr` away from the checkout said `cannot find rule file ...; did
    # you mean siatka?`, and `vbr test siatka` is the rule file, not its scenarios
    from vbr.loader import bundled_dirs
    monkeypatch.chdir(tmp_path)
    assert main(["test", "rules/tests/siatka.vbr"]) == 1
    out, err = capsys.readouterr()
    kept = bundled_dirs()[0] / "tests" / "siatka.vbr"
    assert out == "0 passed, 1 failed\n"
    assert err == (f"rules/tests/siatka.vbr: error: cannot find scenario file 'rules/tests/siatka.vbr'; "
                   f"did you mean {kept}, the scenarios of the bundled siatka?\n")
    assert main(["test", str(kept)]) == 0  # the file named runs
    capsys.readouterr()


def test_vbr_test_of_a_folder_says_it_is_no_scenario_file(tmp_path, capsys):
    (tmp_path / "a.vbr").write_text('tests for "../g.vbr"\n', encoding="utf-8")
    assert main(["test", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err == f"{tmp_path}: error: {tmp_path} is a directory, not a scenario file: name a .vbr file in it (a.vbr)\n"


def test_vbr_test_indents_every_problem_of_a_failing_scenario_under_its_fail_line(tmp_path, capsys):
    # a scenario whose steps do not check fails with every problem of its steps (docs/cli.md,
    # vbr test); only the first was indented under `FAIL`, the others stood at the margin as if
    # they were problems of the file outside any scenario
    tests = tmp_path / "t.vbr"
    tests.write_text('tests for "siatka"\nscenario "x" {\n  start nophase\n  force nodie = 1\n}\n', encoding="utf-8")
    assert main(["test", str(tests)]) == 1
    out, _ = capsys.readouterr()
    fail, *said, count = out.splitlines()
    assert fail == f"FAIL {tests}:3:3: x" and count == "0 passed, 1 failed"
    assert [line[:2] for line in said] == ["  "] * 6, out
    assert said[0].startswith(f"  {tests}:3:3: error: no phase `nophase`") and said[1] == "        start nophase"
    assert said[3].startswith(f"  {tests}:4:3: error: no die `nodie`") and said[4] == "        force nodie = 1"
    assert said[2].index("^") == said[1].index("start") and said[5].index("^") == said[4].index("force")
