"""The C builds of a command's several option sets (a comparison's two arms, a sweep's
combinations, a tune's values) run at once, a thread per core each waiting on its compiler
(vbr.sim.build_ahead), and Ctrl-C stops them. Each test runs vbr in a process of its own with a
cache of its own (XDG_CACHE_HOME) and a compiler wrapper that notes when each compile starts and
ends, then runs the real compiler."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUMP = ROOT / "docs" / "tutorial" / "bump.vbr"
CORES = len(os.sched_getaffinity(0))


def wrapper(tmp_path: Path, pause: float = 0.5) -> Path:
    """A C compiler that writes `start T` and `end T` (seconds, monotonic) to compiles.log around
    each compile of an engine, pausing `pause` seconds first so that two compiles at once overlap
    for sure. The compile of the module that calls a whole game (vbr/engines/whole_game_call.c,
    once per cache, against Python's headers) runs unnoted."""
    real = shutil.which("cc") or shutil.which("gcc")
    script = tmp_path / "cc"
    log = tmp_path / "compiles.log"
    script.write_text(f"""#!/bin/sh
case "$1" in --version) exec {real} "$@";; esac
case " $* " in *" -I{sysconfig.get_paths()['include']} "*) exec {real} "$@";; esac
echo "start $(date +%s.%N)" >> {log}
sleep {pause}
{real} "$@"
status=$?
echo "end $(date +%s.%N)" >> {log}
exit $status
""")
    script.chmod(0o755)
    return script


def compiles(tmp_path: Path) -> list[tuple[float, float]]:
    """(start, end) of each compile the wrapper saw, by start."""
    starts, ends = [], []
    for line in (tmp_path / "compiles.log").read_text().splitlines():
        kind, at = line.split()
        (starts if kind == "start" else ends).append(float(at))
    return list(zip(sorted(starts), sorted(ends)))


def vbr(tmp_path: Path, *args: str, cc: Path) -> subprocess.Popen:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "CC": str(cc)}
    return subprocess.Popen([sys.executable, "-m", "vbr", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)


def test_a_comparisons_two_c_builds_run_at_once_on_two_cores(tmp_path):
    run = vbr(tmp_path, "compare", str(BUMP), "--variant-option", "target=2", "-n", "10", "--engine", "c",
              cc=wrapper(tmp_path))
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    assert "engine c" in out
    (first_start, first_end), (second_start, _) = compiles(tmp_path)
    # with two cores the second compile starts before the first ends; with one they take turns
    assert (second_start < first_end) == (CORES >= 2)


def test_a_sweep_in_c_builds_each_combination_once(tmp_path):
    run = vbr(tmp_path, "sweep", str(BUMP), "--grid", "target=1,2,3", "-n", "5", "--engine", "c", "--no-progress",
              cc=wrapper(tmp_path, pause=0))
    _, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    # the file under the command's own options (none), then targets 1, 2 and 3; target=3 is
    # Bump's default, the same program as no option: built once
    assert len(compiles(tmp_path)) == 3


def test_ctrl_c_stops_the_builds_running_at_once(tmp_path):
    # compiles that would take a minute each: Ctrl-C ends vbr (130) within seconds, not minutes
    run = vbr(tmp_path, "compare", str(BUMP), "--variant-option", "target=2", "--engine", "c",
              cc=wrapper(tmp_path, pause=60))
    deadline = time.monotonic() + 60
    while not (tmp_path / "compiles.log").exists() or len((tmp_path / "compiles.log").read_text().split()) < 2:
        assert time.monotonic() < deadline, "no compile started"
        time.sleep(0.1)
    stopped_at = time.monotonic()
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert time.monotonic() - stopped_at < 30
    assert "Traceback" not in err


def test_no_c_build_starts_while_builds_are_stopped_and_one_starts_after(tmp_path, monkeypatch):
    # a build thread that reaches its compile after Ctrl-C stopped the others would otherwise
    # start it, and the interpreter would wait for that compile before vbr could end
    from vbr.engines.c_engine import CEngineUnavailable, build_library, stopped_builds
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = "int vbr_answer(void) { return 42; }\n"
    with stopped_builds():
        with pytest.raises(CEngineUnavailable, match="the C build was stopped"):
            build_library(source)
    import ctypes
    assert ctypes.CDLL(str(build_library(source))).vbr_answer() == 42  # built once the stop is over
