"""A whole random game of the C engine called without libffi (vbr/engines/whole_game_call.c,
CEngine.whole_games): the compiled Player plays the very games the call through ctypes plays,
byte for byte, on every bundled book, and refuses a call it cannot serve with a TypeError rather
than a crash. Its cached build is loaded only when its seal holds (tests/test_cache_trust.py)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import threading

import pytest

import vbr
from vbr.engines.c_engine import whole_game_caller
from vbr.play import _one_call

BOOKS = ["siatka", "cattack", "tanto-cuore-beach-volleyball", "volleyball-high"]


def test_the_caller_builds_against_this_pythons_headers():
    module = whole_game_caller()
    assert module is not None and module.__name__ == "vbr_whole_game_call"


def _plan(book: str):
    game = vbr.load(book, engine="c")
    return game, _one_call(game, ["random"] * game.seats)


@pytest.mark.parametrize("book", BOOKS)
def test_the_compiled_player_and_the_ctypes_call_play_the_same_games(book):
    """A Player hands a call from a thread other than its own to the call through ctypes, so one
    Player gives both: each seed's status, points, choices and score track, as bytes, alike."""
    _, plan = _plan(book)
    play = plan.engine_play
    assert type(play).__name__ == "Player"  # this thread plays through the compiled call
    seeds = [0, 1, 2, 7, 99, 2**32 + 5, 2**63 - 1, 12345678901234567]
    here = {seed: play(seed) for seed in seeds}
    there: dict = {}
    worker = threading.Thread(target=lambda: there.update({seed: play(seed) for seed in seeds}))
    worker.start()
    worker.join()
    assert {seed: (s, w, bytes(b)) for seed, (s, w, b) in there.items()} == here
    assert all(words is None for _, words, _ in here.values())
    assert len({packed for _, _, packed in here.values()}) > 1  # the seeds play different games


@pytest.mark.parametrize("call", [lambda p: p(), lambda p: p(1, 2), lambda p: p(seed=1), lambda p: p("7"),
                                  lambda p: p(1.5)],
                         ids=["no seed", "two seeds", "a named seed", "a text", "a float"])
def test_a_player_refuses_a_call_without_one_whole_number_with_a_type_error(call):
    _, plan = _plan("siatka")
    with pytest.raises(TypeError):
        call(plan.engine_play)


def test_without_pythons_headers_a_run_in_c_plays_the_same_games_through_ctypes(tmp_path):
    """A machine without Python's headers (no python3-dev) cannot build the caller: the run still
    plays in C, through ctypes, and prints what the compiled call prints. The compiler here is the
    real one behind a wrapper that refuses any compile naming Python's headers."""
    real = shutil.which("cc") or shutil.which("gcc")
    wrapper = tmp_path / "cc"
    wrapper.write_text(f"""#!/bin/sh
case " $* " in *" -I{sysconfig.get_paths()['include']} "*) echo "fatal error: Python.h: No such file" >&2; exit 1;; esac
exec {real} "$@"
""")
    wrapper.chmod(0o755)

    def sim(cache: str, cc: str) -> str:
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / cache), "CC": cc}
        run = subprocess.run([sys.executable, "-m", "vbr", "sim", "siatka", "-n", "300", "--engine", "c", "--json",
                              "--workers", "1"], env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        return run.stdout

    without, with_headers = sim("refused", str(wrapper)), sim("built", real)
    keep = ("wins", "draws", "win_rate", "mean_steps", "metrics")
    assert {k: json.loads(without)[k] for k in keep} == {k: json.loads(with_headers)[k] for k in keep}
    built = {p.name for p in (tmp_path / "built" / "vbr" / "c").glob("vbr-*.so")}
    refused = {p.name for p in (tmp_path / "refused" / "vbr" / "c").glob("vbr-*.so")}
    assert refused < built and len(built - refused) == 1  # the caller, built only where the headers are
