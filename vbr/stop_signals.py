"""SIGTERM and SIGHUP (a `kill`, a closed terminal, a batch scheduler's time limit) reach vbr as
Python exceptions while it does work that must be left tidy: a run of games stops as Ctrl-C
stops it, keeping and writing the games finished (sim.py). Their default action would end vbr at
once, leaving worker processes behind.

A worker process of vbr's pools (runs of games, `vbr mutate`, `vbr graph --sim`) leaves Ctrl-C
and SIGHUP to vbr, which shuts the pool down, and ends when vbr ends, however vbr ends: see
`in_a_worker`.

A handler is set only where the signal still has its default action, and only by the main thread
(the only one Python lets set handlers): a program that embeds vbr and handles these signals
itself keeps its own handling.
"""
from __future__ import annotations

import os
import signal
import threading
from contextlib import AbstractContextManager, contextmanager
from typing import Callable, Iterator

STOP_SIGNALS = tuple(getattr(signal, s) for s in ("SIGTERM", "SIGHUP") if hasattr(signal, s))


class Stopped(KeyboardInterrupt):
    """Ctrl-C's exception for another stop signal, so that whatever keeps the finished games on
    Ctrl-C keeps them on a SIGTERM too; `signum` tells them apart (the exit code is 128 + it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def raising(handler: Callable[[int, object], None]) -> Iterator[None]:
    """While the block runs, the stop signals call `handler` (which raises) instead of ending
    the process: where a signal has its default action, or vbr's own handling from an outer
    block (as_ctrl_c, which the CLI's guard sets around every command), never in place of a
    handler of another's."""
    old = {}
    if threading.current_thread() is threading.main_thread():
        for s in STOP_SIGNALS:
            if signal.getsignal(s) in (signal.SIG_DFL, _raise_stopped):
                old[s] = signal.signal(s, handler)
    try:
        yield
    finally:
        for s, handler_before in old.items():
            signal.signal(s, handler_before)


def as_ctrl_c() -> AbstractContextManager[None]:
    """While the block runs, a stop signal raises Stopped, a KeyboardInterrupt."""
    return raising(_raise_stopped)


def _raise_stopped(signum: int, frame) -> None:
    raise Stopped(signum)


_DEFERRED = (signal.SIGINT, *STOP_SIGNALS)


def deferred() -> AbstractContextManager[None]:
    """While the block runs (C that calls back into Python), Ctrl-C and the stop signals are held
    back, and once it ends they are handled as usual (Ctrl-C's KeyboardInterrupt raised then).
    Python runs a signal's handler at the next function it enters, a callback from C too, where
    the exception cannot pass through C's frames: ctypes prints it with a traceback and drops it,
    and the callback's work with it. Only the main thread runs handlers, so elsewhere nothing
    changes. The signals are blocked (two system calls) when the main thread is the process's
    only thread; with others, Python's or a library's own (OpenBLAS starts some when NumPy is
    imported), which the system could hand a signal to, their handlers only note it meanwhile.
    Inside `held`, the block costs next to nothing."""
    if _hold is not None and threading.current_thread() is threading.main_thread():
        return _hold  # its handlers note the signals while the block runs
    return _deferring()


@contextmanager
def _deferring() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _alone() and hasattr(signal, "pthread_sigmask"):
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)  # a signal held back is handled now
        return
    heard: list[int] = []
    old = {}
    for s in _DEFERRED:
        handler = signal.getsignal(s)
        if callable(handler):
            old[s] = signal.signal(s, lambda signum, frame: heard.append(signum))
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    if heard:
        old[heard[0]](heard[0], None)


class _Hold:
    """The stop signals' handlers while `held` runs: a signal met inside a `deferred` block (the
    hold entered as a context manager, `depth` deep) is noted, and handled by its own handler once
    the outermost such block ends; met anywhere else, it is handled at once, as it would be."""

    def __init__(self, handlers: dict):
        self.handlers = handlers  # each signal's own handler, by signal
        self.depth = 0
        self.heard: list[int] = []

    def hear(self, signum: int, frame) -> None:
        if self.depth:
            self.heard.append(signum)
        else:
            self.handlers[signum](signum, frame)

    def __enter__(self) -> None:
        self.depth += 1

    def __exit__(self, *exc) -> None:
        self.depth -= 1
        if not self.depth and self.heard:  # also when the block raised: a stop is never dropped
            signum = self.heard[0]
            self.heard.clear()
            self.handlers[signum](signum, None)  # Ctrl-C's raises KeyboardInterrupt


_hold: _Hold | None = None  # the main thread's `held` block, while one runs


@contextmanager
def held() -> Iterator[None]:
    """Around a loop that runs many `deferred` blocks (a replay's choices, each a call into C that
    calls back): the signals' handlers are changed once, for the whole loop, and each `deferred`
    inside it then costs a count, not a look at the process's threads and two system calls. The
    promise is `deferred`'s: a signal met inside a `deferred` block is handled once that block
    ends (Ctrl-C's KeyboardInterrupt raised then); met elsewhere in the loop, in Python, it is
    handled at once, as without `held`. A signal whose handler is not Python's (SIG_DFL, SIG_IGN)
    keeps its action. Only the main thread handles signals: elsewhere, and inside an outer
    `held`, nothing changes. Handlers set by others inside the block are replaced by the ones
    before it when it ends, so it is for loops that set none."""
    global _hold
    if _hold is not None or threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {s: h for s in _DEFERRED if callable(h := signal.getsignal(s))}
    hold = _Hold(handlers)
    for s in handlers:
        signal.signal(s, hold.hear)
    _hold = hold
    try:
        yield
    finally:
        with hold:  # a signal met while the handlers are given back is handled once they all are
            _hold = None
            for s, handler in handlers.items():
                signal.signal(s, handler)


def _alone() -> bool:
    """Whether the main thread is the process's only thread, native threads included (where the
    system lists them, /proc/self/task; elsewhere no: the handlers' way, which needs no answer)."""
    if threading.active_count() != 1:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def exit_code(exc: KeyboardInterrupt) -> int:
    """128 + the signal's number, as a shell reports a process ended by it (130 for Ctrl-C)."""
    return 128 + getattr(exc, "signum", signal.SIGINT)


_LEFT_TO_VBR = tuple(getattr(signal, s) for s in ("SIGINT", "SIGHUP") if hasattr(signal, s))


@contextmanager
def starting_a_worker() -> Iterator[None]:
    """Around the start of a worker process: Ctrl-C and SIGHUP blocked in this thread (held back,
    not lost: handled as usual once the block ends), so the worker inherits them blocked. One that
    reaches the process group while the worker still imports vbr, before `in_a_worker` ignores
    it, then stays pending there instead of printing the worker's KeyboardInterrupt traceback.
    SIGTERM is left alone: it is how a pool stops its workers."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker
    # started first, as a spawned process's start would start it: starting it unblocks Ctrl-C
    resource_tracker.ensure_running()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _LEFT_TO_VBR)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def in_a_worker() -> None:
    """Called first in a worker process (a pool's initializer). Ctrl-C, and SIGHUP when a
    terminal closes, reach the whole process group, workers included; vbr alone handles them.
    SIGTERM keeps its default action: it is how a pool stops its workers. And a worker whose vbr
    was killed outright (SIGKILL) would otherwise wait for work that will never come, for ever: a
    thread waits for the parent to end and ends the worker with it."""
    import multiprocessing
    for s in _LEFT_TO_VBR:
        signal.signal(s, signal.SIG_IGN)  # one pending since the start (starting_a_worker) is dropped
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _LEFT_TO_VBR)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), name="vbr-end-with-parent", daemon=True).start()


def _end_with(sentinel: int) -> None:
    from multiprocessing.connection import wait
    wait([sentinel])  # ready once the parent has ended
    os._exit(1)
