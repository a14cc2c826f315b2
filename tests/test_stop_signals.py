"""vbr.stop_signals.deferred: a Ctrl-C (or SIGTERM, SIGHUP) met while C runs code that calls back
into Python is held until the block ends, then handled as usual; whether the main thread is the
only one (the signals blocked) or not (their handlers only noting them meanwhile)."""
import os
import signal
import threading

import pytest

from vbr.stop_signals import as_ctrl_c, deferred


def ctrl_c_inside_the_block() -> list[str]:
    """What happened, in order, around a SIGINT sent to this process inside `deferred`."""
    seen = []
    with pytest.raises(KeyboardInterrupt):
        with deferred():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # calls into Python, where a handler would run
                seen.append("ran") if not seen else None
            seen.append("block ended")
    seen.append("raised after")
    return seen


def test_with_the_main_thread_alone_a_ctrl_c_is_raised_once_the_block_ends():
    assert threading.active_count() == 1
    assert ctrl_c_inside_the_block() == ["ran", "block ended", "raised after"]


def test_with_another_thread_a_ctrl_c_is_raised_once_the_block_ends():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert ctrl_c_inside_the_block() == ["ran", "block ended", "raised after"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler given back
    finally:
        stop.set()
        other.join()


@pytest.fixture
def default_stop_signals():
    """SIGTERM and SIGHUP at their default action for the test, as in a vbr process (a library
    loaded by an earlier test in this process, Ray, installs handlers of its own, which vbr then
    leaves alone: stop_signals.raising), and as they were afterwards."""
    before = {s: signal.signal(s, signal.SIG_DFL) for s in (signal.SIGTERM, signal.SIGHUP)}
    yield
    for s, handler in before.items():
        signal.signal(s, handler)


@pytest.mark.usefixtures("default_stop_signals")
def test_a_sigterm_under_as_ctrl_c_is_held_too_and_then_raised_with_its_number():
    with as_ctrl_c():
        with pytest.raises(KeyboardInterrupt) as stopped:
            with deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                sum(range(1000))
        assert stopped.value.signum == signal.SIGTERM


@pytest.mark.usefixtures("default_stop_signals")
def test_a_sigterm_anywhere_in_a_command_ends_it_with_128_plus_its_number_and_a_line(capsys):
    # what the command is doing does not matter (between two runs of a sweep, say): vbr is not
    # killed outright, it says it was interrupted and exits as a shell would report the signal
    from vbr.cli import _guard

    def command():
        os.kill(os.getpid(), signal.SIGTERM)
        return sum(range(10 ** 6))  # the work the signal stops

    assert _guard(command) == 128 + signal.SIGTERM
    assert capsys.readouterr().err == "vbr: interrupted\n"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the default given back after the command


NATIVE = r"""
import ctypes, ctypes.util, os, signal, threading
from vbr.stop_signals import deferred
libc = ctypes.CDLL(ctypes.util.find_library("c"))
tid = ctypes.c_ulong()
# a thread of C's own, as a library starts (OpenBLAS when NumPy is imported): sleep(100) as its start
assert libc.pthread_create(ctypes.byref(tid), None, ctypes.cast(libc.sleep, ctypes.c_void_p), ctypes.c_void_p(100)) == 0
assert threading.active_count() == 1 and len(os.listdir("/proc/self/task")) == 2
seen = []
try:
    with deferred():
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):
            seen.append("ran") if not seen else None
        seen.append("block ended")
except KeyboardInterrupt:
    seen.append("raised after")
print(seen)
"""


def test_with_a_native_thread_of_a_library_a_ctrl_c_is_still_raised_once_the_block_ends():
    # the system may hand the signal to a thread Python does not know of, which the main thread's
    # blocking does not hold back: the block must still run to its end before Ctrl-C is raised
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", NATIVE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['ran', 'block ended', 'raised after']"


@pytest.mark.usefixtures("default_stop_signals")
def test_an_inner_block_takes_over_from_vbrs_own_outer_handling_but_never_from_anothers():
    # the CLI's guard sets as_ctrl_c around every command; `vbr play` then sets a handler of its
    # own that ignores a closed terminal's second SIGHUP (it was left out, and the second SIGHUP
    # cut the writing of the log short); a handler the embedding program set stays
    from vbr.stop_signals import raising

    def mine(signum, frame):
        raise KeyboardInterrupt

    with as_ctrl_c():
        with raising(mine):
            assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGTERM) is not mine

    def theirs(signum, frame):
        pass

    signal.signal(signal.SIGTERM, theirs)
    with raising(mine):
        assert signal.getsignal(signal.SIGTERM) is theirs


# ---------------------------------------------------------------- held: deferred, set once for a loop
def ctrl_c_in_a_held_loop(where: int) -> list[str]:
    """What happened, in order, in a `held` loop of three `deferred` blocks, a SIGINT sent to this
    process inside the `where`-th block (or, for -1, between the first and the second)."""
    from vbr.stop_signals import held
    seen = []
    with pytest.raises(KeyboardInterrupt):
        with held():
            for k in range(3):
                if k == 1 and where == -1:
                    os.kill(os.getpid(), signal.SIGINT)
                    sum(range(1000))  # a call into Python, where the handler runs
                    seen.append("ran between")
                with deferred():
                    if k == where:
                        os.kill(os.getpid(), signal.SIGINT)
                    for _ in range(1000):  # calls into Python, where a handler would run
                        seen.append(f"ran in {k}") if f"ran in {k}" not in seen else None
                    seen.append(f"block {k} ended")
    seen.append("raised after")
    return seen


@pytest.mark.parametrize("threads", [1, 2])
def test_inside_held_a_ctrl_c_in_a_deferred_block_is_raised_once_that_block_ends(threads):
    # not at the end of the loop: a replay stopped by Ctrl-C stops at the choice it was at
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    if threads == 2:
        other.start()
    try:
        assert ctrl_c_in_a_held_loop(1) == ["ran in 0", "block 0 ended", "ran in 1", "block 1 ended", "raised after"]
    finally:
        stop.set()
        if threads == 2:
            other.join()


def test_inside_held_a_ctrl_c_outside_the_deferred_blocks_is_raised_at_once():
    assert ctrl_c_in_a_held_loop(-1) == ["ran in 0", "block 0 ended", "raised after"]


def test_held_gives_the_handlers_back_and_a_ctrl_c_after_it_is_raised_at_once():
    from vbr.stop_signals import held
    with held():
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        with deferred():
            pass
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))


def test_inside_held_a_ctrl_c_in_a_block_that_raises_is_still_raised():
    # the block's own error gives way to the stop: the run is stopped, not dropped
    from vbr.stop_signals import held
    with pytest.raises(KeyboardInterrupt):
        with held(), deferred():
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(1000))
            raise ValueError("the block's own error")


@pytest.mark.usefixtures("default_stop_signals")
def test_inside_held_a_sigterm_under_as_ctrl_c_is_held_and_raised_with_its_number():
    from vbr.stop_signals import held
    with as_ctrl_c():
        with pytest.raises(KeyboardInterrupt) as stopped:
            with held():
                with deferred():
                    os.kill(os.getpid(), signal.SIGTERM)
                    sum(range(1000))
                    reached = True
        assert reached and stopped.value.signum == signal.SIGTERM
