"""Profile-guided native builds (vbr/interpreter/native_training.py): the instrumented build is
trained in a forked child whose profile the final compile reads; a training that fails, hangs or
is interrupted leaves a build without a profile (or the interruption), never a stray process or
output on the terminal. The builds are real (Cython and GCC), in a cache directory of the test's
own. Each build runs in a fresh Python, as a user's `vbr sim --native` does: a process that has
run other threads (this one, once the Ray tests have run) builds untrained, by design."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES, ROOT, ended
from vbr.interpreter import native_build as NB
from vbr.interpreter import native_training as T

SMALL = FIXTURES / "valid" / "flow_jumps.vbr"


def test_this_machine_can_train_builds():
    # CI and scripts/setup.sh install GCC: what the rest of this file tests must happen here
    done = subprocess.run([sys.executable, "-c", "from vbr.interpreter import native_build as NB, native_training as T;"
                           "print(T.possible(NB.compiler()))"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.stdout.strip() == "True", done.stderr


def test_a_training_that_finishes_is_reported_finished():
    assert T.trained(lambda: sum(range(1000))) is True


def test_a_training_that_raises_is_reported_unfinished():
    def fails():
        raise RuntimeError("a rule file's error")
    assert T.trained(fails) is False


def test_a_training_past_its_time_is_killed_and_reported_unfinished(monkeypatch, tmp_path):
    monkeypatch.setattr(T, "SECONDS", 1)
    pid_file = tmp_path / "pid"

    def hangs():
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
    assert T.trained(hangs) is False
    assert ended([int(pid_file.read_text())], seconds=5)


def test_the_training_child_writes_nothing_to_the_terminal(capfd):
    def talks():
        print("from the child")
        os.write(2, b"raw bytes on stderr\n")
        raise ValueError("and a traceback, if anything printed it")
    assert T.trained(talks) is False
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_ctrl_c_while_training_ends_the_child_and_is_passed_on(tmp_path):
    pid_file = tmp_path / "pid"

    def hangs():
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)

    def interrupt(signum, frame):
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            T.trained(hangs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert ended([int(pid_file.read_text())], seconds=5)


# A build in a fresh process at -O0 (the training, not the optimiser, is tested): SETUP runs first
# (a changed setting, a failing training); prints the compile commands, each marked by whether the
# profile was beside its object, and whether the build plays the Python form's games.
BUILD = """
import json, os, sys
sys.path.insert(0, "tests")
from vbr.interpreter import native_build as NB, native_training as T
NB.CFLAGS = ("-O0", "-fPIC")
seen = []
run_all = NB.run_all
def spy(steps, what, cwd):
    for argv in steps:
        if "-c" in argv:
            obj = argv[argv.index("-o") + 1]
            seen.append([*argv, "PROFILE-PRESENT" if os.path.exists(obj[:-2] + ".gcda") else "NO-PROFILE"])
    return run_all(steps, what, cwd)
NB.run_all = spy
exec(sys.argv[2])
from test_lowering import final_state, random_game_log
from vbr.interpreter.game import load
compiled, python = load(sys.argv[1], native=True), load(sys.argv[1])
same = all(random_game_log(compiled, s) == random_game_log(python, s) and final_state(compiled, s) == final_state(python, s)
           for s in range(5))
print(json.dumps({"compiles": seen, "same": same}))
"""


def build_in_a_fresh_process(tmp_path, setup: str = "", env: dict | None = None) -> tuple[list[list[str]], bool]:
    """(the compile commands of the build, whether it plays the Python form's games)."""
    done = subprocess.run([sys.executable, "-c", BUILD, str(SMALL), setup], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), **(env or {})})
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])
    return answer["compiles"], answer["same"]


def untrained(compiles: list[list[str]]) -> bool:
    return bool(compiles) and all("-fprofile-generate" not in c and "-fprofile-use" not in c for c in compiles)


def test_a_build_is_compiled_instrumented_then_again_reading_the_profile_its_training_wrote(tmp_path):
    compiles, same = build_in_a_fresh_process(tmp_path)
    instrumented = [c for c in compiles if "-fprofile-generate" in c]
    final = [c for c in compiles if "-fprofile-generate" not in c]
    assert instrumented and len(final) == len(instrumented)
    assert all("-fprofile-use" in c and c[-1] == "PROFILE-PRESENT" for c in final)
    assert same


def test_a_training_that_fails_gives_a_build_without_a_profile_that_plays_the_same_games(tmp_path):
    compiles, same = build_in_a_fresh_process(
        tmp_path, "def fails(program):\n    raise RuntimeError('the training games failed')\nT.play = fails")
    final = [c for c in compiles if "-fprofile-generate" not in c]
    assert final and all("-fprofile-use" not in c for c in final)
    assert same


def test_an_untrained_setting_builds_once_without_instrumenting(tmp_path):
    compiles, same = build_in_a_fresh_process(tmp_path, "T.GAMES = 0")
    assert untrained(compiles) and same


def wrapped_compiler(tmp_path, on_probe: str) -> str:
    """The real C compiler, but for its answer to the probe `-dM -E` (what it says it is)."""
    real = " ".join(NB.compiler())
    cc = tmp_path / "wrapped-cc"
    cc.write_text(f'#!/bin/sh\ncase "$*" in *-dM*) {on_probe};; esac\nexec {real} "$@"\n')
    cc.chmod(0o755)
    return str(cc)


def test_a_compiler_that_says_it_is_clang_gives_an_untrained_build(tmp_path):
    cc = wrapped_compiler(tmp_path, 'printf "#define __GNUC__ 4\\n#define __clang__ 1\\n"; exit 0')
    compiles, same = build_in_a_fresh_process(tmp_path, env={"CC": cc})
    assert untrained(compiles) and same


def test_a_compiler_that_does_not_answer_the_probe_is_stopped_and_the_build_goes_on_untrained(tmp_path):
    pid_file = tmp_path / "probe.pid"
    cc = wrapped_compiler(tmp_path, f'sleep 600 & echo $! > {pid_file}; wait')
    compiles, same = build_in_a_fresh_process(tmp_path, "T.PROBE_SECONDS = 1", env={"CC": cc})
    assert ended([int(pid_file.read_text())], seconds=5)
    assert untrained(compiles) and same


def test_a_build_in_a_process_running_other_threads_goes_untrained(tmp_path):
    # as a Ray worker's or gRPC's threads would be
    compiles, same = build_in_a_fresh_process(
        tmp_path, "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()")
    assert untrained(compiles) and same
