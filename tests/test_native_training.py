"""Profile-guided native builds (vbr/interpreter/native_training.py): the instrumented build is
trained in a forked child whose profile the final compile reads; a training that fails, hangs or
is interrupted leaves a build without a profile (or the interruption), never a stray process or
output on the terminal. The builds are real (Cython and GCC), in a cache directory of the test's
own; that a trained build plays the games of the Python form is test_native.py's Siatka test,
whose build is trained as users' builds are."""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from conftest import FIXTURES, ended
from test_lowering import final_state, random_game_log
from vbr.interpreter import native as N
from vbr.interpreter import native_build as NB
from vbr.interpreter import native_training as T
from vbr.interpreter.game import load

SMALL = FIXTURES / "valid" / "flow_jumps.vbr"


def test_this_machine_can_train_builds():
    # CI and scripts/setup.sh install GCC: what the rest of this file tests must happen here
    assert T.possible(NB.compiler())


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


def compiles(monkeypatch) -> list[list[str]]:
    """The C compiler's commands of the builds that follow (each compile of a part's C)."""
    seen: list[list[str]] = []
    run_all = NB.run_all

    def spy(steps, what, cwd):
        for argv in steps:
            if "-c" in argv:
                obj = argv[argv.index("-o") + 1]
                seen.append([*argv, "PROFILE-PRESENT" if os.path.exists(obj[:-2] + ".gcda") else "NO-PROFILE"])
        return run_all(steps, what, cwd)
    monkeypatch.setattr(NB, "run_all", spy)
    return seen


@pytest.fixture
def small_builds(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(NB, "CFLAGS", ("-O0", "-fPIC"))  # the training, not the optimiser, is tested
    monkeypatch.setattr(N, "_LOADED", {})  # built here, not taken from this process's earlier loads
    return compiles(monkeypatch)


def test_a_build_is_compiled_instrumented_then_again_reading_the_profile_its_training_wrote(small_builds):
    compiled = load(SMALL, native=True)
    instrumented = [c for c in small_builds if "-fprofile-generate" in c]
    final = [c for c in small_builds if "-fprofile-generate" not in c]
    assert instrumented and len(final) == len(instrumented)
    assert all("-fprofile-use" in c and c[-1] == "PROFILE-PRESENT" for c in final)
    python = load(SMALL)
    for seed in range(5):
        assert random_game_log(compiled, seed) == random_game_log(python, seed), seed
        assert final_state(compiled, seed) == final_state(python, seed), seed


def test_a_training_that_fails_gives_a_build_without_a_profile_that_plays_the_same_games(small_builds, monkeypatch):
    def fails(program):
        raise RuntimeError("the training's games failed")
    monkeypatch.setattr(T, "play", fails)
    compiled = load(SMALL, native=True)
    final = [c for c in small_builds if "-fprofile-generate" not in c]
    assert final and all("-fprofile-use" not in c for c in final)
    python = load(SMALL)
    for seed in range(5):
        assert random_game_log(compiled, seed) == random_game_log(python, seed), seed


def test_an_untrained_setting_builds_once_without_instrumenting(small_builds, monkeypatch):
    monkeypatch.setattr(T, "GAMES", 0)
    load(SMALL, native=True)
    assert small_builds and all("-fprofile-generate" not in c and "-fprofile-use" not in c for c in small_builds)



def wrapped_compiler(tmp_path, on_probe: str) -> str:
    """The real C compiler, but for its answer to the probe `-dM -E` (what it says it is)."""
    real = " ".join(NB.compiler())
    cc = tmp_path / "wrapped-cc"
    cc.write_text(f'#!/bin/sh\ncase "$*" in *-dM*) {on_probe};; esac\nexec {real} "$@"\n')
    cc.chmod(0o755)
    return str(cc)


def test_a_compiler_that_says_it_is_clang_gives_an_untrained_build(small_builds, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", wrapped_compiler(tmp_path, 'printf "#define __GNUC__ 4\\n#define __clang__ 1\\n"; exit 0'))
    load(SMALL, native=True)
    assert small_builds and all("-fprofile-generate" not in c and "-fprofile-use" not in c for c in small_builds)


def test_a_compiler_that_does_not_answer_the_probe_is_stopped_and_the_build_goes_on_untrained(small_builds, tmp_path,
                                                                                               monkeypatch):
    monkeypatch.setattr(T, "PROBE_SECONDS", 1)
    pid_file = tmp_path / "probe.pid"
    monkeypatch.setenv("CC", wrapped_compiler(tmp_path, f'sleep 600 & echo $! > {pid_file}; wait'))
    compiled = load(SMALL, native=True)
    assert ended([int(pid_file.read_text())], seconds=5)
    assert small_builds and all("-fprofile-generate" not in c and "-fprofile-use" not in c for c in small_builds)
    python = load(SMALL)
    assert random_game_log(compiled, 3) == random_game_log(python, 3)


def test_a_build_in_a_process_running_other_threads_goes_untrained(small_builds):
    release = threading.Event()
    other = threading.Thread(target=release.wait)  # as a Ray worker's or gRPC's threads would be
    other.start()
    try:
        compiled = load(SMALL, native=True)
    finally:
        release.set()
        other.join()
    assert small_builds and all("-fprofile-generate" not in c and "-fprofile-use" not in c for c in small_builds)
    assert random_game_log(compiled, 2) == random_game_log(load(SMALL), 2)
