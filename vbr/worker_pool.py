"""Chunks of a run played in worker processes, their games handed back in the order sent, each as it ends.

Why not `concurrent.futures.ProcessPoolExecutor`: a worker killed while it writes a result (a
SIGTERM to vbr's whole process group, as `kill -- -PGID` or a service manager sends) leaves half
a message in the pool's one result pipe, and the executor, which holds that pipe's writing end
itself, waits for the rest for ever: vbr hung on shutdown. Here each worker has a pipe of its
own, and vbr closes the worker's end once the worker has started, so a worker that ends, at any
moment, is an end of file: an error with its exit code, never a wait.

A worker sends the games of a chunk in batches, each once FLUSH_SECONDS have passed since the
last (and the rest when the chunk ends): a game slower than that is sent as it ends, and fast ones
cost vbr one message per batch, not per game (a random game in C takes a few microseconds, its
message alone several times more in vbr's process, which receives every worker's).

Workers are started with `spawn` (every platform has it, and it is safe where `fork` is not:
macOS, threads), load the game once, leave Ctrl-C and SIGHUP to vbr and end with it
(stop_signals.in_a_worker).
"""
from __future__ import annotations

import gc
import itertools
import time
from collections import deque
from multiprocessing.connection import wait
from typing import Iterable, Iterator

from vbr import stop_signals
from vbr.sim import COLLECT_EVERY, RunSpec, game_for, play_games, stamped

PER_WORKER = 2  # chunks sent to a worker ahead of its results: it never waits for the next
FLUSH_SECONDS = 0.05  # a worker's finished games wait at most this long to be sent


class WorkerEnded(ChildProcessError):
    """A worker process ended before it sent the result of a chunk it was given (killed, out of
    memory): the CLI says so in one line, as it does for other failures of the system."""


class _Worker:
    def __init__(self, ctx, spec: RunSpec):
        self.conn, theirs = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(theirs, spec), daemon=True, name="vbr-worker")
        with stop_signals.starting_a_worker():
            self.process.start()
        theirs.close()  # the worker's end is the worker's alone: its end of file is the worker's end
        self.sent: deque[int] = deque()  # the indices of the chunks it holds, in the order sent

    def send(self, chunk: tuple) -> None:
        """Hand the worker a chunk; a worker that has ended is a WorkerEnded, never the
        BrokenPipeError its pipe raises (which the CLI would take for a closed stdout)."""
        try:
            self.conn.send(chunk)
        except OSError:
            raise self.ended() from None

    def ended(self) -> WorkerEnded:
        self.process.join(5)
        return WorkerEnded(f"a worker process ended (exit code {self.process.exitcode}) while it played a chunk of games")

    def stop(self, at_once: bool) -> None:
        """`at_once` (vbr stops, or a chunk failed): the chunks it holds are not waited for."""
        try:
            if at_once:
                self.process.terminate()
            else:
                self.conn.send(None)
        except OSError:  # it has ended already
            pass
        self.process.join()
        self.conn.close()


def map_in_order(ctx, workers: int, spec: RunSpec, chunks: Iterable[tuple[int, int]]) -> Iterator[list]:
    """The games of `play_range(spec, start, stop)` for each chunk, in the order of `chunks`, handed
    on as they arrive: each worker sends its games at most FLUSH_SECONDS after they end, so a run
    shows progress as it goes and keeps, when it is stopped, every game it has received up to the
    first one it has not."""
    spec = stamped(spec)  # the workers load the file again: they check it holds the rules loaded here
    chunks = ((stamped(c[0]), *c[1:]) if len(c) == 3 else c for c in chunks)
    first = list(itertools.islice(chunks, workers))  # a run of 3 chunks starts 3 workers, not --workers
    if not first:
        return
    pool = [_Worker(ctx, spec) for _ in first]
    clean = False
    try:
        yield from _results(pool, itertools.chain(first, chunks))
        clean = True
    finally:
        for w in pool:
            w.stop(at_once=not clean)


def _results(pool: list[_Worker], chunks: Iterator[tuple[int, int]]) -> Iterator[list]:
    got: dict[int, list] = {}  # games received, by the index of their chunk, not yet handed on
    ended: dict[int, BaseException | None] = {}  # chunks a worker is done with: None, or what they raised
    sent = handed = 0
    more = True
    while True:
        while more:  # keep every worker PER_WORKER chunks ahead
            w = min(pool, key=lambda w: len(w.sent))
            if len(w.sent) >= PER_WORKER:
                break
            chunk = next(chunks, None)
            if chunk is None:
                more = False
                break
            w.send(chunk)
            w.sent.append(sent)
            sent += 1
        while True:  # in the order sent: a failure is raised where its chunk comes
            games = got.pop(handed, None)
            if games:
                yield games
            if handed not in ended:
                break
            failure = ended.pop(handed)
            if failure is not None:
                raise failure
            handed += 1
        if handed == sent and not more:
            return
        _receive(pool, got, ended)


def _receive(pool: list[_Worker], got: dict[int, list], ended: dict[int, BaseException | None]) -> None:
    busy = [w for w in pool if w.sent]
    ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
    for w in busy:
        if w.conn in ready:
            try:
                kind, value = w.conn.recv()
            except (EOFError, OSError):
                raise w.ended() from None
            if kind == GAMES:
                got.setdefault(w.sent[0], []).extend(value)
            else:  # DONE, or FAILED with what the chunk raised
                ended[w.sent.popleft()] = value
        elif w.process.sentinel in ready:
            raise w.ended()


GAMES, DONE, FAILED = "games", "done", "failed"  # what a worker sends: games of its chunk, its end, its failure


def _serve(conn, spec: RunSpec) -> None:
    """A worker: chunks in; the games of a chunk out in batches (FLUSH_SECONDS), then the chunk's
    end (or the exception it raised, after the games before it), until told to stop. A chunk is
    (start, stop) of the run the pool was started for, or (spec, start, stop) of any run
    (`vbr.backends.LocalBackend.map_runs`); each game is loaded once per worker."""
    stop_signals.in_a_worker()
    gc.set_threshold(max(gc.get_threshold()[0], COLLECT_EVERY))  # this process plays games until it ends
    game_for(spec.path, spec.options, spec.engine)
    while True:
        try:
            chunk = conn.recv()
        except EOFError:  # vbr has ended
            return
        if chunk is None:
            return
        batch: list = []
        sent = time.monotonic()
        try:
            for trial in play_games(*chunk) if len(chunk) == 3 else play_games(spec, *chunk):
                batch.append(trial)
                if time.monotonic() - sent >= FLUSH_SECONDS:
                    conn.send((GAMES, batch))
                    batch, sent = [], time.monotonic()
            reply = (DONE, None)
        except Exception as exc:  # a rule file that fails: the parent raises it, as played here
            reply = (FAILED, exc)
        if batch:
            conn.send((GAMES, batch))
        conn.send(reply)
