"""A whole typed state is at most 4,194,304 words (vbr.limits.MAX_STATE_WORDS, docs/language.md,
Run-time limits): a file whose state would take more is refused when it is loaded, in both typed
engines, at the rule that makes it large. Before the bound, `limit depth 10000` over a procedure
that calls itself with 2,000 `let`s made a state of 20,044,125 words (160 MB) that the C engine
allocated whole, and again at every copy of the state."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vbr.engines.game import load
from vbr.errors import VbrCheckError
from vbr.limits import MAX_STATE_WORDS

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 120  # seconds: generous on a busy machine


def deep_lets(lets: int, depth_line: str = "limit depth 10000\n") -> str:
    """A procedure calling itself, with `lets` locals besides its parameter; `limit depth` on line 4."""
    body = "".join(f"  let a{i} = n + {i}\n" for i in range(lets))
    return (f'game "Deep"\nseats 2\nstart play\n{depth_line}var x: int = 0\nproc down(n: int) {{\n{body}'
            "  if n > 0 {\n    down(n - 1)\n  }\n  x += a0\n}\n"
            'phase play "Play" {\n  down(3)\n  end winner x % 2\n}\n')


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.vbr"
    path.write_text(text)
    return path


def test_the_bound_is_32_mib_of_words():
    assert MAX_STATE_WORDS == 4 * 1024 * 1024  # words of 8 bytes: 32 MiB


@pytest.mark.parametrize("engine", ["python", "c"])
def test_limit_depth_10000_over_a_procedure_of_2000_lets_is_refused_at_its_limit_line(tmp_path, engine):
    path = write(tmp_path, deep_lets(2000))
    with pytest.raises(VbrCheckError) as info:
        load(path, engine=engine)
    (d,) = info.value.diagnostics
    assert (d.span.file, d.span.line, d.span.col) == (str(path), 4, 1)
    # `down`'s frame: its parameter and 2,000 lets, and the frame's head of 3 words; 10,000 of them
    assert "more than the 4,194,304 words a state may take (the limit on a state's size)" in d.message
    assert "20,040,000 of them are the room for 10,000 frames (`limit depth`" in d.message
    assert "of up to 2,004 words each, procedure `down`'s: 2,001 locals" in d.message


@pytest.mark.parametrize("engine", ["python", "c"])
def test_the_command_line_gives_the_state_bound_as_one_located_error(tmp_path, engine):
    path = write(tmp_path, deep_lets(2000))
    run = subprocess.run([sys.executable, "-m", "vbr", "run", "--engine", engine, str(path)], capture_output=True,
                         text=True, timeout=HANG_GUARD, cwd=ROOT)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith(f"{path}:4:1: error: a state of this game would take "), run.stderr
    assert run.stderr.count("error:") == 1


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_state_just_within_the_bound_loads_and_plays(tmp_path, engine):
    # 10,000 frames of 3 + 1 + 400 words: 4,040,000, and the few words of the rest
    game = load(write(tmp_path, deep_lets(400)), engine=engine)
    assert game.program.layout.words <= MAX_STATE_WORDS
    state = game.new_state(0)
    # down(3) runs four times; each x += a0 adds its n: 0 + 1 + 2 + 3 = 6, so seat 0 wins
    assert state.is_terminal() and state.outcome().winner == 0


def test_the_default_depth_over_the_same_procedure_loads(tmp_path):
    # 200 frames (`limit depth`'s default) of 2,004 words: 400,800
    assert load(write(tmp_path, deep_lets(2000, depth_line="")), engine="python").program.layout.words < MAX_STATE_WORDS


def test_list_vars_past_the_bound_are_refused_at_the_var_taking_the_most(tmp_path):
    # a var given a range holds up to 256 items a slot: 16 slots of a word, a count and 256 items
    # each, 4,128 words a var; 1,100 of them are 4,540,800 words
    decls = "".join(f"var a{i}: list of int per seat = 1..3\n" for i in range(1100))
    path = write(tmp_path, f'game "V"\nseats 16\nstart play\n{decls}phase play "Play" {{\n  end winner 0\n}}\n')
    with pytest.raises(VbrCheckError) as info:
        load(path, engine="python")
    (d,) = info.value.diagnostics
    assert (d.span.line, d.span.col) == (4, 1)
    assert "4,540,800 of them are the vars' (`a0` the most: 4,128 words, 16 slots of a list of up to 256 items)" \
        in d.message


def test_zones_and_records_each_within_their_bound_are_refused_together_at_the_larger(tmp_path):
    # 62 zones per seat of 16 seats and one more: 993 slots of 4,097 words, 4,068,321 words, within
    # the zones' bound; 4,096 records of 1,001 words (a list of 1,000 numbers and its count),
    # 4,100,096 words, within the records'; together past the state's, the records the larger
    zones = "".join(f"zone z{i} per seat hidden\n" for i in range(62))
    items = ", ".join(["7"] * 1000)
    path = write(tmp_path, f'game "x"\nseats 16\nkind Chip {{ xs: list of int }}\nzone pile public\n{zones}'
                           f'start p\nphase p {{\n  create Chip(xs: [{items}]) in pile\n  end draw\n}}\n')
    with pytest.raises(VbrCheckError) as info:
        load(path, engine="python")
    (d,) = info.value.diagnostics
    assert (d.span.line, d.span.col) == (3, 1)
    assert "kind `Chip`'s" in d.message and "a record 1,001 words wide" in d.message


def test_check_reports_the_state_bound_at_the_limit_line(tmp_path):
    path = write(tmp_path, deep_lets(2000))
    run = subprocess.run([sys.executable, "-m", "vbr", "check", str(path)], capture_output=True, text=True,
                         timeout=HANG_GUARD, cwd=ROOT)
    assert run.returncode == 1 and run.stderr.startswith(f"{path}:4:1: error: a state of this game would take ")
