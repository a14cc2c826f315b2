"""`vbr replay` is bounded (issue 38, item 6): the log is read a line at a time and replay stops
at the first divergence, so memory follows one line, not the file; a line, the file and JSON
nesting have limits, each a located error; a divergence quotes a bounded excerpt."""
import json
import subprocess
import sys

import pytest

from vbr import gamelog
from vbr.cli import main


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "game.jsonl"
    assert main(["run", "siatka", "--quiet", "--log", str(path)]) == 0
    return path


def lines_of(path):
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def replay(capsys, path):
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, out + err


def test_json_nested_past_the_limit_is_a_located_error(log, capsys):
    lines = lines_of(log)
    lines.insert(2, '{"t":"say","x":' + "[" * 10_000 + "]" * 10_000 + "}")
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, text = replay(capsys, log)
    assert code == 1 and f"{log}:3: error: not a vbr log line: JSON nested deeper than 32 levels" in text


def test_a_line_of_escaped_quotes_is_read_once_and_reported_where_it_is(log):
    # an unterminated string of 400,000 escaped quotes: reading it as a string again from each of
    # its quotes takes hours; read once, it is the located error of a JSON string never closed
    lines = lines_of(log)
    lines.insert(2, '"' + '\\"' * 400_000)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "vbr", "replay", str(log)], capture_output=True, text=True,
                          timeout=120)  # a hang guard: it takes well under a second
    assert done.returncode == 1
    assert done.stderr.startswith(f"{log}:3: error: not a vbr log line: not JSON (unterminated string"), done.stderr


def test_a_json_error_names_its_column_once(log, capsys):
    lines = lines_of(log)
    lines.insert(2, '{"t":"say","text":"cut')
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, text = replay(capsys, log)
    # Python's message ends "starting at" itself: the column is said once, not "at at column"
    assert code == 1 and f"{log}:3: error: not a vbr log line: not JSON (unterminated string starting at column 19)" \
        in text, text


def test_a_line_past_the_limit_is_a_located_error(log, capsys):
    lines = lines_of(log)
    lines.insert(2, json.dumps({"t": "say", "text": "a" * (gamelog.MAX_LOG_LINE + 10)}))
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, text = replay(capsys, log)
    assert code == 1 and f"{log}:3: error: the line is longer than 1,048,576 bytes" in text


def test_a_divergence_quotes_a_bounded_excerpt_of_a_long_line(log, capsys):
    lines = lines_of(log)
    event = json.loads(lines[2])
    event["padding"] = "Z" * 200_000
    lines[2] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, text = replay(capsys, log)
    assert code == 1 and f"{log}:3: error: differs on replay" in text
    assert len(text) < 2_000 and "more characters)" in text


@pytest.mark.parametrize("field,value", [("options", {"a" * 900_000: 1}), ("rules", "/nowhere/" + "a" * 900_000),
                                         ("bundled", "b" * 900_000)], ids=["option name", "rules", "bundled"])
def test_a_header_naming_rules_of_a_huge_name_gets_a_bounded_message(log, capsys, field, value):
    # the rules cannot be loaded; the message saying so quotes the name, cut (it was 1.8 MB of a
    # path said twice)
    lines = lines_of(log)
    head = {**json.loads(lines[0]), field: value}
    if field == "rules":
        head["bundled"] = None  # no bundled name (siatka) to fall back on
    if field == "bundled":
        head["rules"] = "/nowhere/siatka.vbr"  # no file there: the bundled name is tried
    lines[0] = json.dumps(head)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, text = replay(capsys, log)
    assert code == 1 and text.startswith(f"{log}:1: error: cannot load the rules this log names: "), text[:500]
    assert len(text) < 3_000 and "more characters)" in text


def test_a_log_past_the_file_limit_is_a_located_error(log, capsys, monkeypatch):
    monkeypatch.setattr(gamelog, "MAX_LOG_BYTES", 2_000)  # the bound's logic, on a log of a few KB
    code, text = replay(capsys, log)
    assert code == 1 and "error: the log is longer than" in text


def test_replay_of_a_big_log_stops_at_its_divergence_in_little_memory(log, tmp_path):
    lines = lines_of(log)
    event = json.loads(lines[2])
    event["t"] = "something else"
    lines[2] = json.dumps(event)
    filler = (json.dumps({"t": "say", "text": "x"}) + "\n") * 10_000
    big = tmp_path / "big.jsonl"
    with big.open("w", encoding="utf-8") as f:  # 2,500,000 small events, about 70 MB, after the divergence
        f.write("\n".join(lines) + "\n")
        for _ in range(250):
            f.write(filler)
    # a process of its own runs the replay and reports its child's peak: this test process's other
    # children (earlier tests) must not count
    probe = ("import resource, subprocess, sys; p = subprocess.run([sys.executable, '-m', 'vbr', 'replay', sys.argv[1]], "
             "capture_output=True, text=True); print(p.returncode); print(resource.getrusage(resource.RUSAGE_CHILDREN)"
             ".ru_maxrss); sys.stdout.write(p.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe, str(big)], capture_output=True, text=True, timeout=300)
    code, peak_kb, stderr = proc.stdout.split("\n", 2)
    peak_mb = int(peak_kb) / 1024
    assert code == "1" and f"{big}:3: error: differs on replay" in stderr
    assert peak_mb < 400, f"replay took {peak_mb:.0f} MB for a 70 MB log"
