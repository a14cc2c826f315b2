"""Hostile input, round three (issue 38, items 3, 9, 10, 11): what a rule file or an option value
can make vbr write. TeX in plot text, bidi controls on a terminal and in a report, CSV cells a
spreadsheet would run, and whole-file writes to special files and links."""
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from vbr.analysis.output import rows_text
from vbr.cli import main

BUMP = Path(__file__).resolve().parent.parent / "docs" / "tutorial" / "bump.vbr"
RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: shows what follows it backwards
TOY = 'game "{title}"\nseats 2\noption cost = "{cost}"\nstart p\nphase p {{\n  say "{say}"\n' \
      '  choose x from 1..2 by 0\n  end winner x - 1\n}}\n'


def write_toy(tmp_path: Path, title="Toy", cost="1", say="hello") -> Path:
    path = tmp_path / "toy.vbr"
    path.write_text(TOY.format(title=title, cost=cost, say=say), encoding="utf-8")
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------ 9: TeX
def test_tex_in_a_title_is_drawn_as_its_own_text(tmp_path, capsys):
    toy = write_toy(tmp_path, title=r"Price $\undefinedmacro{x}$")
    code, _, err = run(capsys, "sim", toy, "-n", 10, "--plot", tmp_path / "plots")
    assert code == 0, err
    svgs = list((tmp_path / "plots").glob("*.svg"))
    assert svgs and any(r"$\undefinedmacro{x}$" in p.read_text(encoding="utf-8") for p in svgs)


def test_tex_in_an_option_value_of_a_sweep_is_drawn_as_its_own_text(tmp_path, capsys):
    toy = write_toy(tmp_path)
    code, _, err = run(capsys, "sweep", toy, "-n", 5, "--grid", r"cost=1,$\frac{a}$", "--plot", tmp_path / "plots")
    assert code == 0, err


# ------------------------------------------------------------------------------ 10: bidi
def test_bidi_controls_in_say_text_reach_the_terminal_escaped(tmp_path, capsys):
    toy = write_toy(tmp_path, say=f"abc{RLO}def\u2066x\u2069\u2028y")
    code, out, _ = run(capsys, "run", toy)
    assert code == 0
    assert RLO not in out and "\u2066" not in out and "\u2028" not in out
    assert "abc\\u202edef\\u2066x\\u2069\\u2028y" in out


def test_bidi_controls_in_the_title_never_reach_the_report_page(tmp_path):
    toy = write_toy(tmp_path, title=f"Toy {RLO}evil")
    page = tmp_path / "page.html"
    proc = subprocess.run([sys.executable, "-m", "vbr", "report", str(toy), "-n", "5", "-o", str(page)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    html = page.read_text(encoding="utf-8")
    assert RLO not in html and "Toy \\u202eevil" in html


# ------------------------------------------------------------------------------ 11: CSV
def test_text_cells_that_start_like_a_formula_get_a_quote_and_numbers_stay_numbers():
    text = rows_text(Path("rows.csv"), [{"=cmd": "=1+1", "b": "@SUM(A1)", "c": -3, "d": "+x", "e": "\tx",
                                         "f": "plain", "g": 2.5}])
    header, row = text.splitlines()
    assert header == "'=cmd,b,c,d,e,f,g"
    assert row == "'=1+1,'@SUM(A1),-3,'+x,'\tx,plain,2.5"


def test_a_sweep_value_that_is_a_formula_lands_quoted_in_its_csv(tmp_path, capsys):
    toy = write_toy(tmp_path)
    out = tmp_path / "rows.csv"
    code, _, err = run(capsys, "sweep", toy, "-n", 3, "--grid", "cost==1+1,@SUM(A1)", "--out", out)
    assert code == 0, err
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith("'=1+1,") and lines[2].startswith("'@SUM(A1),")


@pytest.mark.parametrize("name", ["-toy.vbr", "t\x1b[2Joy.vbr", "=toy" + RLO + ".vbr", "@\ttoy.vbr"])
def test_csv_rows_of_a_rule_file_whose_name_starts_like_a_formula_or_holds_controls_summarize_again(
        tmp_path, capsys, monkeypatch, name):
    # the rows' cell shows the name as a spreadsheet and a terminal may (quoted, escaped), and
    # summarize still finds the file the run played
    (tmp_path / name).write_text(TOY.format(title="Toy", cost="1", say="hi"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "sim", "./" + name, "-n", 4, "--out", "rows.csv")
    assert code == 0, err
    cell = (tmp_path / "rows.csv").read_text(encoding="utf-8").splitlines()[1].split(",")
    assert "\x1b" not in "".join(cell) and RLO not in "".join(cell)
    code, out, err = run(capsys, "summarize", "rows.csv")
    assert code == 0, err
    assert "4 games, from rows of 1 file" in out and "\x1b" not in out + err and RLO not in out + err


@pytest.mark.parametrize("value", ["a;b=c", "50%3B", "x\x1b[2Jy", "%;%", "a\nb", "a\r\nb", "a\u2028b", "a\x85b"])
def test_csv_rows_of_an_option_value_with_a_semicolon_a_percent_or_controls_merge_with_its_jsonl_rows(
        tmp_path, capsys, value):
    # the CSV cell `cost=...` holds NAME=VALUE pairs split at `;`: a value's own `;` (and `%`, its
    # escape) and control characters read back as the value the run was given, so the CSV and the
    # JSON lines of one run are one arm, each game counted once; a line break in a value (a newline
    # in a quoted CSV cell; U+2028 and NEL, which JSON writes as escapes) ends no row of either file
    toy = write_toy(tmp_path)
    for name in ("rows.csv", "rows.jsonl"):
        code, _, err = run(capsys, "sim", toy, "-n", 4, "--option", f"cost={value}", "--out", tmp_path / name)
        assert code == 0, err
    code, out, err = run(capsys, "summarize", tmp_path / "rows.csv", tmp_path / "rows.jsonl", "--json")
    assert code == 0, err
    assert "4 games appear more than once" in err
    summary = json.loads(out)
    assert summary["games"] == 4 and summary["options"] == {"cost": value}


def test_a_csv_cell_reads_back_as_the_text_it_was_written_from():
    from vbr.analysis.output import inert, inert_undone
    for text in ["-x", "=1+1", "a\x1bb", "\\x41 stays", "\tx", "x\x7f\x9f\udc9b" + RLO, "plain", "'quoted"]:
        assert inert_undone(inert(text)) == text


# ------------------------------------------------------------------------------ 3: special files
def test_rows_written_to_a_named_pipe_reach_its_reader_and_the_pipe_stays(tmp_path):
    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    proc = subprocess.run([sys.executable, "-m", "vbr", "sim", "siatka", "-n", "3", "--out", str(fifo)],
                          capture_output=True, text=True, timeout=300)
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert len(got[0].splitlines()) == 3 and got[0].startswith('{"index": 0')
    assert fifo.is_fifo()


def test_a_log_to_a_named_pipe_reaches_its_reader_whole(tmp_path):
    # the log is written once the game is played: the reader must still be there, not handed an
    # end of file by a check before the game (which left vbr waiting for ever for a new reader)
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    proc = subprocess.run([sys.executable, "-m", "vbr", "run", str(BUMP), "--seed", "4", "--quiet", "--log",
                           str(fifo)], capture_output=True, text=True, timeout=300)
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert got[0].startswith('{"agents":') and got[0].splitlines()[-1].startswith('{"points":')  # header to end
    assert fifo.is_fifo()


def test_a_run_stopped_while_logging_to_a_named_pipe_ends_its_log_where_it_stopped_and_it_replays(tmp_path):
    # the pipe's lines are sent as they come and cannot be cut back to the last choice: the log
    # ends with the `stopped` line, inside the long run of the rules after the first choice
    import signal
    rules, fifo, got = tmp_path / "slow.vbr", tmp_path / "game.jsonl", tmp_path / "got.jsonl"
    rules.write_text('game "Slow"\nlimit steps 100000000\nseats 2\nvar total: int = 0\nstart p\nphase p {\n'
                     '  choose x from 1..2 by 0\n  repeat 30000000 {\n    total += 1\n'
                     '    if total % 100000 == 0 { say "tick {total}" }\n  }\n  end winner x - 1\n}\n', encoding="utf-8")
    os.mkfifo(fifo)
    reader = threading.Thread(target=lambda: got.write_bytes(fifo.read_bytes()))
    reader.start()
    run = subprocess.Popen([sys.executable, "-m", "vbr", "run", str(rules), "--engine", "python", "--log", str(fifo)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONUNBUFFERED": "1"})
    while "tick" not in run.stdout.readline():  # printed as it happens: the loop after the choice runs
        pass
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=300)
    reader.join(timeout=60)
    assert run.returncode == 128 + signal.SIGTERM
    assert err == f"vbr: log written to {fifo} (up to where it stopped)\nvbr: interrupted\n"
    assert got.read_text(encoding="utf-8").splitlines()[-1] == '{"t":"stopped"}'
    done = subprocess.run([sys.executable, "-m", "vbr", "replay", str(got), "--engine", "c"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and "reproduces exactly up to where the run was stopped" in done.stdout


def test_a_log_to_dev_stdout_that_is_a_pipe_is_written_into_it(tmp_path):
    # /dev/stdout is a link to /proc/self/fd/1, a pipe here, which has no name a path leads to:
    # it was refused as 'a link outside its folder'
    done = subprocess.run([sys.executable, "-m", "vbr", "run", str(BUMP), "--seed", "4", "--quiet", "--log",
                           "/dev/stdout"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith('{"agents":') and lines[-3].startswith('{"points":')  # the log, then:
    assert lines[-2:] == ["result: seat 1 wins (0, 3) after 5 choices", "log written to /dev/stdout"]


def test_a_log_to_a_named_pipe_nobody_reads_is_an_error_after_a_bounded_wait(tmp_path, capsys, monkeypatch):
    from vbr import atomic_file
    monkeypatch.setattr(atomic_file, "READER_WAIT", 0.2)
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "run", BUMP, "--quiet", "--log", fifo)
    assert code == 1
    assert err == f"vbr: error: cannot open {fifo}: it is a named pipe no process read within 0.2 s\n"
    assert fifo.is_fifo()


def test_a_log_through_a_link_to_a_missing_file_beside_it_is_written_there_and_the_link_kept(tmp_path, capsys):
    link, target = tmp_path / "game.jsonl", tmp_path / "real.jsonl"
    link.symlink_to(target)
    code, _, err = run(capsys, "run", BUMP, "--quiet", "--log", link)
    assert code == 0, err
    assert link.is_symlink() and target.read_text(encoding="utf-8").startswith('{"agents":')


def test_a_log_to_a_full_device_says_no_space_and_leaves_the_device_alone(tmp_path, capsys):
    # a private copy of /dev/full (character device 1, 7), so that a vbr that replaced special
    # files would replace this one, never the system's
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    code, _, err = run(capsys, "run", "siatka", "--quiet", "--log", full)
    assert code == 1 and "no space left" in err
    assert full.is_char_device()


def test_a_link_out_of_its_folder_is_refused_before_the_game_and_its_target_kept(tmp_path, capsys):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = outside / "precious.txt"
    target.write_text("keep me", encoding="utf-8")
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "game.jsonl").symlink_to(target)
    code, _, err = run(capsys, "run", "siatka", "--quiet", "--log", folder / "game.jsonl")
    assert code == 2 and "is a link to" in err and "outside its folder" in err
    assert target.read_text(encoding="utf-8") == "keep me" and (folder / "game.jsonl").is_symlink()


def test_a_link_to_a_file_beside_it_has_that_file_rewritten_and_stays_a_link(tmp_path, capsys):
    target = tmp_path / "real.jsonl"
    target.write_text("old", encoding="utf-8")
    (tmp_path / "game.jsonl").symlink_to(target.name)
    code, _, err = run(capsys, "run", "siatka", "--quiet", "--log", tmp_path / "game.jsonl")
    assert code == 0, err
    assert (tmp_path / "game.jsonl").is_symlink() and target.read_text(encoding="utf-8").startswith('{"agents"')
