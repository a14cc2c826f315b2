"""Profile-guided native builds: the C compiler is shown where a game's time goes before it lays
out the machine code for good.

Why. Compiled rule files are large straight-line functions (the biggest of a bundled file is
170 KB of machine code) that a game walks through once per rally: against plain hand-written
Python, whose interpreter loop stays in the CPU's instruction cache, they executed about as many
instructions (12 % more, on a bundled rule file and its hand-written twin) but missed that cache
six times as often (callgrind's model, docs/performance.md, session 16). Given a profile, GCC moves the code no game
ran out of the way of the code every game runs, and inlines and arranges by what it saw: the
same games, 1.1-1.3x as fast.

How. Every part is compiled once with `-fprofile-generate` and linked; a child process (`fork`:
a copy of this process, the program already compiled in it) loads that instrumented library in
place of the Python functions and plays GAMES games with random seats, most of them answered
inside the lowered code (`State.play_random`, as `vbr sim` plays), the rest choice by choice
through `apply_index` (as agents that search, and a log's replay, drive a game), each bounded by
the rule file's own step and choice limits, all of it by SECONDS. The child exits through C's
`exit`, which runs the instrumented library's destructor that writes the profile beside the
objects. The parts are then compiled again with `-fprofile-use`. A training that cannot be
had or does not finish (no `fork` or no GCC here, a process running other threads, a child that
fails, is killed or runs out of time) gives a build without a profile: slower, never wrong,
since a profile changes how the C is laid out and never what it computes. The games are the
same on every machine (seeds 0 to GAMES - 1), so the same rules give the same profile.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

GAMES = 240
STEPWISE_EVERY = 4  # one training game in four is played choice by choice
SECONDS = 120  # wall clock for the whole training, and CPU seconds of the child
PROBE_SECONDS = 10  # for the compiler to say what it is
GENERATE = ("-fprofile-generate", "-fprofile-update=single")  # compiling and linking the trained build
# A part that no game reached is optimised as without a profile (-fprofile-partial-training), not
# as if it never ran; coverage-mismatch cannot happen (the same C is compiled twice) but must not
# fail a build if it did.
USE = ("-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile", "-Wno-error=coverage-mismatch")

_GCC: dict[tuple, bool] = {}


def settings() -> str:
    """What a trained build depends on besides its source, for its cache key."""
    return f"trained {GAMES} {STEPWISE_EVERY} {' '.join(GENERATE)} {' '.join(USE)}" if GAMES > 0 else "untrained"


def possible(compiler: list[str]) -> bool:
    """Whether a build here can be trained: a POSIX `fork`, a process of one thread, and GCC
    (Clang's profiles need a merging tool of their own)."""
    if not hasattr(os, "fork") or os.name != "posix" or not _one_thread():
        return False
    key = tuple(compiler)
    if key not in _GCC:
        _GCC[key] = _is_gcc(compiler)
    return _GCC[key]


def _one_thread() -> bool:
    """Whether this process runs a single thread. A forked child holds only the thread that
    forked: a library whose other threads it cuts off (a Ray worker's, gRPC's) may wait for them
    for ever, or act on their sockets, when C's `exit` runs its handlers in the child. vbr
    itself builds from its one thread; elsewhere the build goes untrained."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc here: the threads Python knows of
        import threading
        return threading.active_count() == 1


def _is_gcc(compiler: list[str]) -> bool:
    """Asked of the compiler's preprocessor, in a process group of its own that is killed with
    all it started if it does not answer in PROBE_SECONDS."""
    try:
        probe = subprocess.Popen([*compiler, "-dM", "-E", "-x", "c", os.devnull], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace",
                                 start_new_session=True)
    except OSError:
        return False
    try:
        out, _ = probe.communicate(timeout=PROBE_SECONDS)
    except BaseException as exc:
        _kill_group(probe)
        if isinstance(exc, subprocess.TimeoutExpired):
            return False
        raise
    return probe.returncode == 0 and "__GNUC__" in out and "__clang__" not in out


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()
    process.wait()


def trained(train) -> bool:
    """Run `train()` in a forked child that exits writing the profile; whether it finished in
    time. Ctrl-C or a stop signal here kills the child before it is passed on."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(train)  # never returns
    deadline = time.monotonic() + SECONDS
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status) == 0
            if time.monotonic() > deadline:
                _end(pid)
                return False
            time.sleep(0.01)
    except BaseException:
        _end(pid)
        raise


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def _child(train) -> None:
    """The forked child: quiet, bounded, and gone when done, whatever happens; only a training
    that finished is written (C's `exit` runs the library destructor that writes the profile;
    `os._exit` does not)."""
    finished = False
    try:
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(quiet, fd)
        sys.stdout = sys.stderr = open(os.devnull, "w")  # whatever the streams were (a test's capture)
        _limit_cpu(SECONDS)
        _end_with_parent()
        train()
        finished = True
    except BaseException:  # noqa: BLE001  the child's failure is the parent's "no profile"
        pass
    try:
        if finished:
            import ctypes
            ctypes.CDLL(None).exit(0)
    finally:
        os._exit(1)


def _limit_cpu(seconds: int) -> None:
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    except (ImportError, ValueError, OSError):
        pass


def _end_with_parent() -> None:
    """On Linux, the child is killed when vbr is (its parent stopped by SIGKILL, say)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def play(program) -> None:
    """The training games: random seats, seeds 0 to GAMES - 1, a game that fails at run time
    (a rule file's own error) left where it failed."""
    from vbr.interpreter import rng as R
    from vbr.interpreter.state import State
    for seed in range(GAMES):
        draws = [R.generator(R.derive(seed, 7919, seat)).getrandbits for seat in range(program.seats)]
        try:
            state = State.new(program, seed)
            if seed % STEPWISE_EVERY:
                state.play_random(draws)
                continue
            while state.result is None and state.pending is not None:
                state.apply_index((draws[state.pending.seat](64) * len(state.pending.options)) >> 64)
        except Exception:  # noqa: BLE001
            continue
