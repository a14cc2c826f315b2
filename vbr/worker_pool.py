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
    def __init__(self, ctx, spec: RunSpec, cancelled):
        self.conn, theirs = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(theirs, spec, cancelled), daemon=True, name="vbr-worker")
        with stop_signals.starting_a_worker():
            self.process.start()
        theirs.close()  # the worker's end is the worker's alone: its end of file is the worker's end
        self.sent: deque[int] = deque()  # the indices of the chunks it holds, in the order sent

    def send(self, chunk: tuple, number: int) -> None:
        """Hand the worker a chunk, numbered in its pool; a worker that has ended is a WorkerEnded,
        never the BrokenPipeError its pipe raises (which the CLI would take for a closed stdout)."""
        try:
            self.conn.send((number, chunk))
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


class Pool:
    """At most `most` worker processes, started as runs need them and kept for the next run until
    `close`: a command that plays several runs (a sweep, a comparison, vbr importance) starts its
    workers once. A run that fails or is stopped (Ctrl-C, a worker that ended) stops the workers
    at once, and a later run starts new ones; a run whose reader had enough (a precision reached)
    has the chunks still in the workers cut short and keeps the workers (`kept`; else it stops them
    at once too)."""

    def __init__(self, ctx, most: int, kept: bool = True):
        self.ctx, self.most, self.kept = ctx, most, kept
        self.workers: list[_Worker] = []
        self.started = 0  # worker processes this pool has started, over all its runs
        self._cancelled = ctx.RawValue("q", -1)  # the workers drop the chunks numbered below it
        self._numbers = itertools.count()

    def map(self, chunks: Iterable[tuple]) -> Iterator[list]:
        """The games of each chunk (spec, start, stop), in the order of `chunks`, handed on as they
        arrive: each worker sends its games at most FLUSH_SECONDS after they end, so a run shows
        progress as it goes and keeps, when it is stopped, every game it has received up to the
        first one it has not."""
        stamp = _stamper()
        chunks = ((stamp(spec), start, stop) for spec, start, stop in chunks)
        first = list(itertools.islice(chunks, self.most))  # a run of 3 chunks needs 3 workers, not `most`
        if not first:
            return
        self._drop_ended()
        while len(self.workers) < len(first):
            self.workers.append(_Worker(self.ctx, first[0][0], self._cancelled))
            self.started += 1
        try:
            yield from _results(self.workers, itertools.chain(first, chunks), self._numbers)
        except GeneratorExit:  # the reader had enough: the chunks still out are dropped
            if self.kept:
                self._drop_sent()
            else:
                self.close(at_once=True)
            raise
        except BaseException:
            self.close(at_once=True)
            raise

    def _drop_ended(self) -> None:
        """The kept workers that ended between runs (killed while idle: they held no chunk) are
        let go, so that the run starts others in their place instead of failing on their pipes."""
        alive = []
        for w in self.workers:
            if w.process.is_alive():
                alive.append(w)
            else:
                w.stop(at_once=True)
        self.workers = alive

    def _drop_sent(self) -> None:
        self._cancelled.value = next(self._numbers)
        try:
            while any(w.sent for w in self.workers):
                _receive(self.workers, {}, {})
        except WorkerEnded:
            self.close(at_once=True)
        for w in self.workers:
            w.sent.clear()

    def close(self, at_once: bool = False) -> None:
        workers, self.workers = self.workers, []
        for w in workers:
            w.stop(at_once)


def _stamper():
    """`stamped`, once for each spec it is given (a run's chunks share theirs): the workers load
    the file again, and check it holds the rules loaded here."""
    stamps: dict[int, tuple[RunSpec, RunSpec]] = {}

    def stamp(spec: RunSpec) -> RunSpec:
        if id(spec) not in stamps:
            stamps[id(spec)] = (spec, stamped(spec))  # the spec kept, so that its id is not reused
        return stamps[id(spec)][1]
    return stamp


def _results(pool: list[_Worker], chunks: Iterator[tuple], numbers: Iterator[int]) -> Iterator[list]:
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
            w.send(chunk, next(numbers))
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


def _serve(conn, spec: RunSpec, cancelled) -> None:
    """A worker: numbered chunks (spec, start, stop) in; the games of a chunk out in batches
    (FLUSH_SECONDS), then the chunk's end (or the exception it raised, after the games before it),
    until told to stop. A chunk numbered below `cancelled` (its run's reader had enough) ends
    before its next game. Each game is loaded once per worker, `spec`'s first."""
    stop_signals.in_a_worker()
    gc.set_threshold(max(gc.get_threshold()[0], COLLECT_EVERY))  # this process plays games until it ends
    game_for(spec.path, spec.options, spec.engine)
    while True:
        try:
            message = conn.recv()
        except EOFError:  # vbr has ended
            return
        if message is None:
            return
        number, chunk = message
        batch: list = []
        sent = time.monotonic()
        try:
            for trial in play_games(*chunk) if cancelled.value <= number else ():
                batch.append(trial)
                if cancelled.value > number:
                    break
                if time.monotonic() - sent >= FLUSH_SECONDS:
                    conn.send((GAMES, batch))
                    batch, sent = [], time.monotonic()
            reply = (DONE, None)
        except Exception as exc:  # a rule file that fails: the parent raises it, as played here
            reply = (FAILED, exc)
        if batch:
            conn.send((GAMES, batch))
        conn.send(reply)
