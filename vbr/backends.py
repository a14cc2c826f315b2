"""Where the chunks of a run are played: this process, a pool of local processes, or Ray.

Every backend takes chunks lazily, keeps only a few of them in flight, and yields their results in
submission order, each game as soon as it ends (from a pool of processes, within
vbr.worker_pool.FLUSH_SECONDS): that, and each game's seed depending only on its
index, is why a run gives the same trials on every backend and for any number of workers, and why
a stopped run keeps every game up to the first one it has not received.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from vbr.errors import UsageError
from vbr.sim import RunSpec, check_workers, game_for, play_games, usable_cores


class LocalBackend:
    """This process (`workers == 1`), or a pool of processes (vbr/worker_pool.py). Used in a `with`
    block, the backend keeps its pool from run to run until the block ends, so a command that plays
    several runs starts at most `workers` processes in all; used without, each call starts a pool
    of its own and stops it when its games are done."""

    name = "local"

    def __init__(self, workers: int | None = 1):
        self.workers = check_workers(1 if workers is None else workers)
        self._pool = None  # the pool kept inside a `with` block, once a run has needed one
        self._keeping = False

    @property
    def processes_started(self) -> int:
        """The worker processes the kept pool has started so far (0 outside a `with` block)."""
        return self._pool.started if self._pool is not None else 0

    def prepare(self, spec: RunSpec) -> None:
        """Load the game here before the clock starts, so games/s counts play alone."""
        game_for(spec.path, spec.options, spec.engine)

    def map(self, spec: RunSpec, chunks: Iterable[tuple[int, int]]) -> Iterator[list]:
        """The chunks' games in their order: here, each game in a list of its own as soon as it
        ends; from a pool, in the batches its workers send (vbr.worker_pool), of no more processes
        than the run has games (`--workers 12 -n 2` starts two: each costs a start and a load)."""
        if min(self.workers, spec.n) <= 1:
            for start, stop in chunks:
                for trial in play_games(spec, start, stop):
                    yield [trial]
            return
        yield from self.map_runs((spec, start, stop) for start, stop in chunks)

    def map_runs(self, chunks: Iterable[tuple[RunSpec, int, int]]) -> Iterator[list]:
        """As `map`, for chunks of several runs, each naming its run: the games in the chunks' order,
        played in one pool, so a search over an option's values (vbr tune) starts no pool per value."""
        if self.workers == 1:
            for spec, start, stop in chunks:
                for trial in play_games(spec, start, stop):
                    yield [trial]
            return
        import multiprocessing

        from vbr.worker_pool import Pool
        context = multiprocessing.get_context("spawn")
        if not self._keeping:
            pool = Pool(context, self.workers, kept=False)
            clean = False
            try:
                yield from pool.map(chunks)
                clean = True
            finally:
                pool.close(at_once=not clean)
            return
        if self._pool is None:
            self._pool = Pool(context, self.workers)
        yield from self._pool.map(chunks)

    def close(self) -> None:
        """Stop the kept pool's workers (they have no chunk left: each run took all its games)."""
        self._keeping = False
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __enter__(self) -> "LocalBackend":
        self._keeping = True
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def default_workers(agents: str | None) -> int:
    """The local workers of a run whose --workers is not given: one per core the process may use
    when an agent of the --agents spec searches (a game of tens of milliseconds or more, where a
    worker's start is soon paid back; the results are the same for any number), else 1."""
    from vbr.agents.spec import searches
    if not searches(agents):
        return 1
    return usable_cores()


def make_backend(name: str, workers: int | None, address: str | None = None):
    """`workers=None`: one process here, every CPU of the cluster on Ray."""
    if name == "local":
        if address:
            raise UsageError("--ray-address is for --backend ray")
        return LocalBackend(workers)
    if name == "ray":
        from vbr.ray_backend import RayBackend
        return RayBackend(workers, address)
    raise UsageError(f"unknown backend {name!r} (backends: local, ray)")
