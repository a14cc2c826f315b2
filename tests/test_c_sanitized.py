"""The C engine's generated code under AddressSanitizer and UndefinedBehaviorSanitizer: every
bundled book, the file of every construct, the constructs the typed program added last and the
hostile files that push the engine's buffers to their bounds are built by the system's C
compiler with `-fsanitize=address,undefined` (a compiler wrapper named by `CC`, into a cache of
the test's own) and played in a process of their own: random seats to the end and a search's
decision. A write past a buffer, a read of memory not the program's, an overflow the C standard
leaves undefined, each stops that process with the sanitizer's report, so the test fails naming
it; a file that plays ends, or stops at a located error, as under the normal build.

The wrapper adds `-O0` after vbr's own flags: the sanitizers check the same source, and the
build takes a fraction of an optimising one's time."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from test_hostile_engines import IN_PLAY
from test_typed_constructs import ROWS, SELF_CALLING_LISTS
from vbr.engines.c_engine import CEngineUnavailable, compiler

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 600  # seconds for one file: a sanitized build and play on a busy machine
BOOKS = ["siatka", "cattack", "tanto-cuore-beach-volleyball", "volleyball-high"]
# the hostile recipes whose play writes the engine's buffers up to (or past) their bounds
AT_BOUNDS = ["a range of two million", "a choice of 10000", "things past any bound", "a list var past its bound",
             "a list var read past its end", "reach in play on the largest court", "a procedure calling itself without end"]
LONG_ARGUMENT = ('game "Big"\nseats 2\nstart one\nkind Chip { n: int }\nzone pile public\n'
                 'proc f(xs: list of Chip) {\n  say "{sum(c.n for c in xs)}"\n}\n'
                 'setup {\n  create Chip(n: 1) in pile times 5000\n}\nphase one {\n  f(every(c for c in pile))\n  end draw\n}\n')

# Under the sanitized build: load the file, play seeds 1 and 2 with random seats to the end, then
# from seed 3 a search's decision at the first choice; print what came of it as one JSON line.
CHILD = r"""
import json, sys
from vbr.engines.game import load
from vbr.errors import VbrError

def outcome():
    try:
        game = load(sys.argv[1], {}, engine="c")
    except VbrError as e:
        return {"refused at load": e.render()}
    ends = []
    try:
        for seed in (1, 2):
            s = game.new_state(seed)
            s.play_random(seed)
            ends.append(str(s.outcome()))
        s = game.new_state(3)
        if not s.is_terminal():
            ends.append(s.mcts(iterations=64, seed=3))
    except VbrError as e:
        return {"stopped in play": e.render(), "ends": ends}
    return {"ends": ends}

print(json.dumps(outcome()))
"""


@pytest.fixture(scope="module")
def sanitizing_cc(tmp_path_factory) -> Path:
    """A compiler wrapper adding the sanitizers (and -O0) to every build vbr asks of it."""
    try:
        cc = compiler()
    except CEngineUnavailable as exc:
        pytest.fail(f"the C engine's tests need a C compiler (scripts/setup.sh --test installs gcc): {exc}")
    folder = tmp_path_factory.mktemp("sanitizing-cc")
    wrapper = folder / "cc"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(cc)} -fsanitize=address,undefined -fno-sanitize-recover=all '
                       '-fno-omit-frame-pointer "$@" -O0\n')
    wrapper.chmod(0o755)
    return wrapper


def sanitized_outcome(path: Path, cc: Path, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CC": str(cc), "XDG_CACHE_HOME": str(cache),
           "ASAN_OPTIONS": "detect_leaks=0:verify_asan_link_order=0:halt_on_error=1",
           "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
    env.pop("LD_PRELOAD", None)
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=HANG_GUARD)
    reports = [line for line in done.stderr.splitlines() if "Sanitizer" in line or "runtime error:" in line]
    assert done.returncode == 0 and not reports, f"exit {done.returncode}:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("book", BOOKS)
def test_a_bundled_book_plays_and_searches_cleanly_under_the_sanitizers(book, sanitizing_cc, tmp_path):
    got = sanitized_outcome(ROOT / "rules" / f"{book}.vbr", sanitizing_cc, tmp_path)
    assert list(got) == ["ends"] and len(got["ends"]) == 3  # two games to their end, one decision


def test_every_construct_runs_cleanly_under_the_sanitizers(sanitizing_cc, tmp_path):
    got = sanitized_outcome(ROOT / "tests" / "fixtures" / "typed" / "constructs.vbr", sanitizing_cc, tmp_path)
    assert "refused at load" not in got


@pytest.mark.parametrize("name", ["lists given by calls", "rows"])
def test_the_latest_list_constructs_run_cleanly_under_the_sanitizers(name, sanitizing_cc, tmp_path):
    path = tmp_path / "rules.vbr"
    path.write_text({"lists given by calls": SELF_CALLING_LISTS, "rows": ROWS}[name])
    got = sanitized_outcome(path, sanitizing_cc, tmp_path)
    assert "refused at load" not in got and "stopped in play" not in got


def test_a_list_argument_past_what_a_procedure_reads_stops_before_any_buffer_is_passed(sanitizing_cc, tmp_path):
    path = tmp_path / "rules.vbr"
    path.write_text(LONG_ARGUMENT)
    got = sanitized_outcome(path, sanitizing_cc, tmp_path)
    assert "holds at most 4096 items; this list has 5000" in got["stopped in play"]


@pytest.mark.parametrize("name", AT_BOUNDS)
def test_a_hostile_file_at_the_engines_bounds_runs_cleanly_under_the_sanitizers(name, sanitizing_cc, tmp_path):
    path = tmp_path / "hostile.vbr"
    path.write_text(IN_PLAY[name])
    got = sanitized_outcome(path, sanitizing_cc, tmp_path)
    assert "refused at load" not in got
