"""Hostile input, round three (issue 38, items 2 and 8): a path a file names, or a path given to
`vbr trace`, goes through the loader's checks. A link named like a rule file that leads to another
file never has a line of that file shown; a device or a pipe is refused, never read or waited on."""
import os
import subprocess
import sys

import pytest

SECRET = "TOPSECRET first line"


@pytest.fixture
def leak(tmp_path):
    """A scenario file whose `tests for` names `leak.vbr`, a link to a file that is no rule file."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\nsecond line\n", encoding="utf-8")
    (tmp_path / "leak.vbr").symlink_to(secret)
    tests = tmp_path / "t.vbr"
    tests.write_text('tests for "leak.vbr"\nscenario "x" {\n}\n', encoding="utf-8")
    return tmp_path


def vbr(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", [["check", "t.vbr"], ["test", "t.vbr"], ["trace", "leak.vbr", "--tests", "t.vbr"],
                                     ["check", "leak.vbr"], ["trace", "leak.vbr"], ["mutate", "leak.vbr", "-n", "1"],
                                     ["report", "leak.vbr", "-n", "1", "-o", "out.html"]])
def test_a_link_named_like_a_rule_file_shows_no_line_of_what_it_leads_to(leak, command):
    proc = vbr(*command, cwd=leak)
    assert proc.returncode in (1, 2)
    assert SECRET not in proc.stdout + proc.stderr
    assert "not a rule file" in proc.stderr or "it is a link to a file that is not a .vbr file" in proc.stderr


@pytest.mark.parametrize("path", ["/dev/zero", "fifo.vbr"])
def test_trace_refuses_a_device_or_a_pipe_without_reading_it(tmp_path, path):
    if path == "fifo.vbr":
        os.mkfifo(tmp_path / path)
    proc = vbr("trace", path, cwd=tmp_path)  # the timeout guards against a hang on the pipe
    assert proc.returncode == 1
    assert "is not a regular file (a device, a pipe or a socket)" in proc.stderr


@pytest.mark.parametrize("argv", [
    ["graph", "{rules}", "-o", "{rules}/out.dot"],
    ["report", "{rules}", "-n", "2", "-o", "{rules}/out.html"],
    ["importance", "{rules}", "-n", "2", "--out", "{rules}/out.csv"],
    ["trace", "{rules}", "--update", "{rules}/out.md"],
    ["sim", "{rules}", "-n", "2", "--plot", "{rules}/plots"],
    ["run", "{rules}", "--log", "{rules}/out.jsonl"],
])
def test_an_output_inside_a_file_says_the_file_is_not_a_folder(tmp_path, capsys, argv):
    # `-o rules.vbr/out.svg`: the folder exists, as a file; "the folder rules.vbr does not exist"
    # sent the user looking for a folder that was missing
    from vbr.cli import main
    rules = tmp_path / "rules.vbr"
    rules.write_text('game "G"\nseats 2\nstart p\nphase p {\n  choose x from 1..2 by 0\n  end winner 0\n}\n',
                     encoding="utf-8")
    argv = [a.format(rules=rules) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("vbr: error: ") and err.endswith(f": {rules} is not a folder\n"), err
