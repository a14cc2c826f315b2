"""Many games at once: seeds derived from one seed, so a run's games are the same whatever runs them.

Game i of a run with seed S is the game `vbr run FILE --seed game_seed(S, i)` plays (`play_game`
with that seed and the run's agents), wherever it runs; in a run with its seats rotated, game i is
deal i // k played in seating i % k of the k seatings of that deal (`vbr.seating.seating_cycle`:
the rotations of the agents, the same for every deal where the sides are of one size), with the
deal's seed `game_seed(S, i // k)`. Wherever it runs: one process, a pool of them, or a Ray
cluster (`vbr.backends`). Every command that plays many games plays these: `vbr sim`, `sweep`,
`compare`, `graph --sim` and `report` (docs/cli.md, "Seeds"). Work is cut into chunks of consecutive games; chunks are
made lazily (a run of a billion games holds no list of a billion indices) and their results come
back in submission order, so the trials of a run are identical for every backend and every number
of workers.
"""
from __future__ import annotations

import gc
import hashlib
import os
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Protocol

from vbr import stop_signals
from vbr.analysis.trial import Trial
from vbr.errors import UsageError
from vbr.kept_games import GAMES_KEPT, KeptGames
from vbr.seating import seating_cycle, seatings  # noqa: F401 (seatings: the rotations, named here too)
from vbr.seeds import derive
from vbr.shared_values import SHARED

MAX_WORKERS = 256
# new objects between two of the cyclic garbage collector's youngest collections while games are
# played (Python's default: 700). A game makes a few dozen objects, in no cycle, and a run keeps
# most of them (its trials): at 700, collections cost a random Siatka game in C two thirds of
# its time in `vbr sim` (benchmarks/sim_overhead.py)
COLLECT_EVERY = 20_000


# per process: the rules_digest of each game game_for loaded, by its keys, as first loaded (kept
# when the game is let go: a few dozen bytes a game), which stamped hands on and a later load of
# the same game must match
_DIGESTS: dict = {}
_GAMES = KeptGames(GAMES_KEPT)  # per process: game_for's games by _game_key, with each load's time


def game_seed(seed: int, i: int) -> int:
    """The seed of game i of a run with seed `seed`: the game's own seed, which `vbr run --seed`
    takes to play it again."""
    return derive(seed, i) & 0x7FFFFFFF


@dataclass(frozen=True)
class RunSpec:
    """What to play: everything a worker needs, and nothing that cannot be pickled."""

    path: str
    options: tuple  # (name, value) pairs, sorted: hashable, so a worker caches one game per spec
    seed: int
    agents: tuple
    n: int
    trace: bool = False  # also count each game's steps along its turn-flow diagram (TracedTrial)
    engine: str = "python"  # the typed engine that plays it: python or c (vbr/engines)
    rotate: bool = False  # play every deal (seed) in each of its seatings (`cycle`)
    restrict: tuple = ()  # `--restrict` specs (SEAT=RULE, vbr.restrict): the seat, whoever sits in it
    # the games to play, given: (seed, agents in seat order) for game i (a run played again on
    # another run's deals, `vbr compare --base-rows`); empty: derived from `seed`
    deals: tuple = ()
    # rules_digest of the game the command loaded for this run, when it is played in processes that
    # load the file again (stamped); empty: not checked
    rules: str = ""
    # the side of each seat (its team in a game of teams), which a rotation over sides of unequal
    # size balances (vbr.seating.seating_cycle); empty: the seats' cyclic rotations
    sides: tuple = ()

    @classmethod
    def of(cls, path, options: dict, seed: int, agents: list[str], n: int,
           trace: bool = False, engine: str = "python", rotate: bool = False, restrict=(), sides=()) -> "RunSpec":
        return cls(str(path), tuple(sorted(options.items())), seed, tuple(agents), n, trace, engine, rotate,
                   tuple(restrict), sides=tuple(sides))

    def cycle(self) -> list[list[tuple]]:
        """The seatings of each deal: deal d is played in those of `cycle()[d % len(cycle())]`, in
        order. The `seating_cycle` of the agents over `sides` when the run rotates seats, else the
        agents as given; for given `deals`, their seatings in order, as one deal's."""
        if self.deals:
            return [list(dict.fromkeys(tuple(a) for _, a in self.deals))]
        return seating_cycle(self.agents, self.sides) if self.rotate else [[tuple(self.agents)]]

    def plan(self) -> list[tuple]:
        """Every seating the run plays, in the order first played (`cycle`)."""
        return list(dict.fromkeys(s for deal in self.cycle() for s in deal))

    @property
    def per_deal(self) -> int:
        """The games of each deal: its seatings."""
        return len(self.cycle()[0])

    def deal(self, i: int) -> tuple[int, list[str]]:
        """Game i's seed, and its agents in seat order."""
        if self.deals:
            seed, agents = self.deals[i]
            return seed, list(agents)
        cycle = self.cycle()
        deal, k = divmod(i, len(cycle[0]))
        return game_seed(self.seed, deal), list(cycle[deal % len(cycle)][k])


@dataclass(slots=True)
class TracedTrial(Trial):
    """A game of a traced run: its Trial, and the steps it took along the nodes of its turn-flow
    diagram (vbr.flow_steps): its phases, "start", "game over" and the procedures drawn as nodes."""

    steps: dict = field(default_factory=dict)  # {(from node, to node): count}
    entered: dict = field(default_factory=dict)  # {node: how often play entered it}


def game_for(path: str, options: tuple, engine: str = "python"):
    """The game a run plays through a typed engine (python or c), loaded once per process while
    it is among the GAMES_KEPT most recently asked for; one let go is loaded again from its file
    when asked for. Kept under the path it was asked by and the file's own (a bundled name's
    file), both let go at once, so a run's spec, which names the game's own path, finds the game
    a command loaded by name. A game loaded again whose rule texts differ from its first load's
    (the file was edited meanwhile) is a RulesChanged: a process plays one set of rules."""
    key = _game_key(path, options, engine)
    loaded = _GAMES.get(key)
    if loaded is not None:
        return loaded.game
    from vbr.engines.game import load
    start = time.perf_counter()
    game = load(path, dict(options), engine=engine)
    keys = [key, _game_key(str(game.path), options, engine)]
    digest = rules_digest(game) if game.model is not None else None
    first = _DIGESTS.setdefault(keys[0], _DIGESTS.setdefault(keys[1], digest))
    if first != digest:  # loaded again once let go, and the file changed since it was first loaded
        raise RulesChanged(f"{path} (or a file it extends) was changed after this process first loaded it: "
                           "its runs would play other rules than before; run the command again")
    _GAMES.keep(keys, game, time.perf_counter() - start)
    return game


class RulesChanged(ValueError):
    """A worker process read other rules than the command loaded for its run: the rule file (or
    one it extends) was changed on disk after the run began."""


def rules_digest(game) -> str:
    """A digest of the rule texts `game` was loaded from: the file and those it extends, in the
    chain's order (their texts only: a Ray worker finds a bundled file in a folder of its own)."""
    h = hashlib.sha256()
    for name in game.rules.chain:
        data = game.rules.sources[name].encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def stamped(spec: RunSpec) -> RunSpec:
    """`spec`, for processes that load its rule file again, carrying the rules_digest of the game
    this process loaded for it (game_for's, as first loaded: also once let go), so that each of
    them checks it plays those rules (play_games); `spec` as it is when this process never
    loaded that game (or loaded one without a checked model)."""
    digest = _DIGESTS.get(_game_key(spec.path, spec.options, spec.engine))
    return spec if digest is None else replace(spec, rules=digest)


def build_ahead(games: list[tuple[str, dict]]) -> None:
    """The C engine's games of several (rule file, options) loaded now, as many at once as the
    process may use cores (each load's thread waits on its compiler process), so that game_for
    then finds each loaded (of more than GAMES_KEPT, the last loaded; the others are built, and
    load again from the build cache on disk): a sweep's or a comparison's C builds take the time
    of the longest rather than of all of them. A load that fails is left for game_for's own load
    to report.
    Ctrl-C or another stop signal stops the builds that run and those about to start
    (vbr.engines.c_engine.stopped_builds), and the threads are waited for before it goes on."""
    wanted = list(dict.fromkeys((str(path), tuple(sorted(options.items()))) for path, options in games))
    wanted = [w for w in wanted if _game_key(*w, "c") not in _GAMES]
    workers = min(len(wanted), usable_cores())
    if workers < 2:
        return
    from concurrent.futures import ThreadPoolExecutor
    from vbr.engines.c_engine import stopped_builds
    pool = ThreadPoolExecutor(workers, thread_name_prefix="vbr-build")
    try:
        with stop_signals.as_ctrl_c():
            for done in [pool.submit(_load_quietly, path, options) for path, options in wanted]:
                done.result()
    except BaseException:
        with stopped_builds():
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _load_quietly(path: str, options: tuple) -> None:
    """game_for through C, any error left for a later load to raise again."""
    try:
        game_for(path, options, "c")
    except Exception:
        pass


def _game_key(path: str, options: tuple, engine: str) -> tuple:
    """game_for's key: a file by its absolute path (the same relative path names another file once
    the process changes folder) and by the path as given (the game names its file so: a run's
    header says it as its command did); each option's value with its type, since `true` and 1
    are equal in Python (and hash alike) but not as the option values a file accepts."""
    where = os.path.abspath(path) if os.path.isfile(path) else ""
    return path, where, tuple((name, type(value).__name__, value) for name, value in options), engine


def load_seconds(path: str, options: tuple, engine: str) -> float:
    """How long the load of the game game_for holds for that file, options and engine took in this
    process: of a game let go and loaded again, that last load's time, what this process spent
    to have the game it plays now (a C build loaded again from its cache on disk takes less than
    the build did). 0.0 when this process holds no such game (never loaded it, or let it go)."""
    loaded = _GAMES.get(_game_key(path, options, engine))
    return loaded.seconds if loaded is not None else 0.0


def played_game(path, options: dict, engine: str, note) -> tuple[str, object]:
    """The engine a command plays rule file `path` under `options` through, and its game, loaded
    through that engine alone, once for the whole command and its runs (game_for): the engine
    `--engine` names, or for `auto` (the default) c when a C compiler builds the file, else python
    (`note` hears why not c). A construct the typed program does not express raises
    EngineUnavailable, located, under every engine."""
    options = tuple(sorted(options.items()))
    if engine == "auto":
        return auto_game(lambda e: game_for(str(path), options, e), lambda text: note(f"--engine auto: {text}"))
    return engine, game_for(str(path), options, engine)


def auto_game(load, note) -> tuple[str, object]:
    """`auto`'s engine and its game, `load(engine)` making the game: c, else python with a note
    saying why not c. Only a missing C engine (CEngineUnavailable) steps down to python: a
    construct the typed program does not express is the same located error in both, raised."""
    from vbr.engines.c_engine import CEngineUnavailable
    try:
        return "c", load("c")
    except CEngineUnavailable as exc:
        why_not_c = str(exc)
    game = load("python")
    note(f"the C engine cannot run here ({why_not_c}); playing through the python engine")
    return "python", game


def play_range(spec: RunSpec, start: int, stop: int) -> list[Trial]:
    """Games start..stop-1 of a run: the unit of work every backend ships."""
    return list(play_games(spec, start, stop))


def play_games(spec: RunSpec, start: int, stop: int) -> Iterator[Trial]:
    """Games start..stop-1 of a run, each handed on as soon as it ends: what shows progress game
    by game and keeps every finished game when a run is stopped inside a chunk. A spec `stamped`
    with other rules than this process reads for its file is a RulesChanged. The games of one
    seating share one agents list, and their tuples are interned (vbr.shared_values.SHARED)."""
    from vbr.flow_steps import FlowSteps, drawn_procs
    from vbr.play import game_model, typed_trial_fields
    from vbr.restrict import parse_restrictions
    game = game_for(spec.path, spec.options, spec.engine)
    if spec.rules and rules_digest(game) != spec.rules:
        raise RulesChanged(f"{spec.path} (or a file it extends) was changed after this run began: a worker process "
                           "read other rules than the run's; run the command again")
    n_sides = game_sides(game)
    restrict = (parse_restrictions(list(spec.restrict), game.program.seats, game_model(game),
                                   {c.item for c in game.program.choices}) if spec.restrict else None)
    drawn = drawn_procs(game) if spec.trace else frozenset()
    for i, s, agents in deals(spec, start, stop):
        events = FlowSteps(drawn) if spec.trace else None  # a game's steps are read from its log, as it comes
        try:
            fields = typed_trial_fields(game, s, agents, restrict, log=events)
        except Exception as exc:
            raise GameFailed(i, s, exc, run_command(spec, s, agents)) from None
        if spec.trace:
            yield TracedTrial(i, s, agents, n_sides, *fields, events.steps, events.entered)
        else:
            yield Trial(i, s, agents, n_sides, *fields)


def deals(spec: RunSpec, start: int, stop: int) -> Iterator[tuple[int, int, list[str]]]:
    """(i, seed, agents) of games start..stop-1: `spec.deal(i)`, each seating's agents one list
    (SHARED's), the seatings worked out once and each deal's seed once."""
    if spec.deals:
        for i in range(start, stop):
            seed, agents = spec.deals[i]
            yield i, seed, SHARED.agents(list(agents))
        return
    cycle = [[SHARED.agents(list(seating)) for seating in one_deal] for one_deal in spec.cycle()]
    k, last, seed = len(cycle[0]), None, 0
    for i in range(start, stop):
        deal, j = divmod(i, k)
        if deal != last:
            last, seed = deal, game_seed(spec.seed, deal)
        yield i, seed, cycle[deal % len(cycle)][j]


def game_sides(game) -> int:
    """How many sides can win a typed engine's game: its teams when games are counted by team
    (Game.by_team), else its seats."""
    return len(game.program.teams) if game.by_team else game.program.seats


class GameFailed(Exception):
    """A game of a run failed: which one, with its seed and the `vbr run` command that plays it
    again (`again`: its options and agents too; `vbr run FILE --seed S` when not given).
    Carries the error as text so it survives the trip back from a worker process."""

    def __init__(self, index: int, seed: int, error: BaseException, again: str = ""):
        self.index, self.seed = index, seed
        render = getattr(error, "render", None)
        self.text = render() if callable(render) else f"{type(error).__name__}: {error}"
        self.located = render is not None
        self.again = again or f"vbr run FILE --seed {seed}"
        super().__init__(index, seed, self.text)

    def __reduce__(self):
        return (_rebuild_failure, (self.index, self.seed, self.text, self.located, self.again))

    def describe(self) -> str:
        return f"{self.text}\n(game {self.index} of the run, seed {self.seed}: `{self.again}` plays it again)"


def _rebuild_failure(index, seed, text, located, again=""):
    f = GameFailed.__new__(GameFailed)
    f.index, f.seed, f.text, f.located = index, seed, text, located
    f.again = again or f"vbr run FILE --seed {seed}"
    Exception.__init__(f, index, seed, text)
    return f


def run_command(spec: RunSpec, seed: int, agents: list[str]) -> str:
    """The `vbr run` command that plays one game of `spec` again: its rule file, its seed, the
    run's options and its agents in seat order (left out when all are `random`, the default),
    each word quoted for a POSIX shell. A run's `--restrict` rules are not among them: `vbr run`
    plays unrestricted."""
    import shlex
    words = ["vbr", "run", str(spec.path), "--seed", str(seed)]
    for name, value in spec.options:
        if value is True:
            words += ["--option", str(name)]
        else:
            words += ["--option", f"{name}={str(value).lower() if isinstance(value, bool) else value}"]
    if any(a != "random" for a in agents):
        words += ["--agents", ",".join(agents)]
    return " ".join(shlex.quote(w) for w in words)


def check_workers(workers: int) -> int:
    """`workers` if it is a number of processes a run may use (1 to MAX_WORKERS), else a UsageError."""
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    if workers > MAX_WORKERS:
        raise UsageError(f"--workers must be at most {MAX_WORKERS} (this machine has {os.cpu_count()} cores), not {workers}")
    return workers


def in_order(submit, chunks: Iterable, window: int, wait) -> Iterator:
    """Keep `window` chunks in flight and hand back their results in the order they were sent:
    what every backend does with the chunks of a run."""
    pending: deque = deque()
    for chunk in chunks:
        pending.append(submit(chunk))
        if len(pending) >= window:
            yield wait(pending.popleft())
    while pending:
        yield wait(pending.popleft())


def chunk_ranges(n: int, workers: int) -> Iterator[tuple[int, int]]:
    """Chunks small enough to balance the workers and to show progress, big enough to keep the
    cost of shipping them small."""
    size = max(1, min(200, n // max(1, workers * 8)))
    for start in range(0, n, size):
        yield start, min(n, start + size)


@dataclass
class RunResult:
    spec: RunSpec
    trials: list[Trial] = field(default_factory=list)  # the games kept (none when run without `keep`)
    games: int = 0  # the games finished and handed on (kept or not)
    seconds: float = 0.0  # play alone: loading the game in this process is not counted
    # loading the run's game in this process, before the clock starts: by the backend, or by the
    # command before the run (game_for keeps the game it loads, whoever asks first; load_seconds)
    load_seconds: float = 0.0
    # not 0: the run was stopped (Ctrl-C, SIGTERM, SIGHUP), and vbr exits with this once it has
    # written what the run played
    exit_code: int = 0
    precise: bool = False  # the run's `watch` said stop: its precision was reached before -n

    def __post_init__(self):
        """A result made of games already kept counts them."""
        self.games = self.games or len(self.trials)

    @property
    def interrupted(self) -> bool:
        return self.exit_code != 0

    @property
    def games_per_s(self) -> float | None:
        """Three significant digits, so that a slow run reads 0.0312, not 0.0."""
        return float(f"{self.games / self.seconds:.3g}") if self.seconds > 0 else None


class Watch(Protocol):
    """What a run tells about each game it keeps, in the order of the games: `add` says whether the
    run has seen enough (`vbr.analysis.sequential.Running` stops a run at a precision)."""

    def add(self, trial: Trial) -> bool: ...


def run(spec: RunSpec, backend, progress: Callable[[int, int], None] | None = None,
        sink: Callable[[list[Trial]], None] | None = None, watch: Watch | None = None,
        keep: bool = True) -> RunResult:
    """Play a whole run on `backend` (vbr.backends: `LocalBackend(1)` plays it in this process),
    or, with a `watch`, up to the first game after which it says stop (whatever the backend: the
    games are seen in their order). Ctrl-C (or SIGTERM, SIGHUP) stops it at once: the games
    finished before the first unfinished one are kept and the result says it was interrupted, so
    callers can still write them out. `progress(done, planned)` is called at the start and after
    every part the backend hands back (a backend hands back each game as it ends, or, from a pool
    of processes, within vbr.worker_pool.FLUSH_SECONDS of it).

    `sink(games)` hears each part's games the run keeps, in order, once each, right after the
    run counts them (`result.games`): a Ctrl-C between the two keeps the part from `sink`, so a
    caller that counts what `sink` heard counts what it has. `keep`: also keep the games in
    `result.trials`; without it the run lets each game go once `sink` has had it."""
    with collecting_less():
        return _run(spec, backend, progress, sink, watch, keep)


@contextmanager
def collecting_less():
    """While games are played here: the garbage collector's youngest generation collected once
    per COLLECT_EVERY new objects, its older ones as before, and what `keep_out_of_sight` hid
    from it, hidden; after, the thresholds it had, and everything it hid back in its oldest
    generation (`gc.unfreeze`)."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], COLLECT_EVERY), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def keep_out_of_sight() -> None:
    """Inside `collecting_less`, once a run has kept more games: every object there is now is
    left out of the collector's later collections (`gc.freeze`). A run's kept games are many,
    long-lived and in no cycle; looking through them again at each collection cost more than
    receiving them (10.5 µs a game from a worker, 5 µs without)."""
    gc.freeze()


def _run(spec: RunSpec, backend, progress, sink, watch, keep: bool) -> RunResult:
    result = RunResult(spec)
    loading = time.perf_counter()
    backend.prepare(spec)
    result.load_seconds = max(time.perf_counter() - loading, load_seconds(spec.path, spec.options, spec.engine))
    start = time.perf_counter()
    try:
        with stop_signals.as_ctrl_c():
            if progress:
                progress(0, spec.n)
            for part in backend.map(spec, chunk_ranges(spec.n, backend.workers)):
                kept = _keep(result, part, watch, keep)
                if keep:
                    keep_out_of_sight()
                if sink and kept:
                    sink(kept)
                if progress:
                    progress(result.games, spec.n)
                if result.precise:
                    break
    except KeyboardInterrupt as exc:
        result.exit_code = stop_signals.exit_code(exc)
    result.seconds = time.perf_counter() - start
    return result


def _keep(result: RunResult, part: list[Trial], watch: Watch | None, keep: bool = True) -> list[Trial]:
    """The games of `part` the run keeps, counted in `result.games` (and added to `result.trials`
    if `keep`): all of them, or those up to the one after which `watch` says stop (and then
    `result.precise` is set)."""
    if watch is not None:
        for k, trial in enumerate(part):
            if watch.add(trial):
                result.precise = True
                part = part[:k + 1]
                break
    result.games += len(part)
    if keep:
        result.trials += part
    return part
