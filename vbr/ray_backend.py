"""Chunks of a run as Ray tasks: the cores of this machine, or of every machine of a Ray cluster.

`RayBackend` has the interface of `vbr.backends.LocalBackend`. It ships the same chunks to
`play_games` as Ray generator tasks, keeps `workers` of them in flight and takes their games back
in submission order, each game as soon as it ends (the oldest chunk's games first), so a run
gives the same trials, field for field, as on the local backend with any number of workers, shows
progress game by game, and keeps, when stopped, every game up to the first unfinished one.

- `address=None`: a private Ray on this machine, started for the run (`address="local"`: a
  `RAY_ADDRESS` or a cluster started with `ray start` is not picked up by accident) and stopped by
  `close()`. `address="auto"`: the running cluster Ray finds (`RAY_ADDRESS`, else the latest
  `ray start` on this machine); `"HOST:PORT"`: that cluster's head. A cluster is only
  disconnected from at the end, never stopped. A Ray this process already uses (a notebook, a test)
  is used as it is and left running.
- `workers`: how many chunks are in flight at once, which also sets the size of the chunks
  (`vbr.sim.chunk_ranges`). `None` (no `--workers` given): the cluster's CPUs. When vbr starts the
  Ray itself, an explicit `workers` is also its number of CPUs.
- The rule file is read on each node from its own disk, at the path the run names: the same path
  on every node (a shared file system, or the same checkout in the same place). A relative path is
  taken from the directory vbr runs in, on every node that has that directory. A bundled rule file
  is found in each node's own installation of vbr, wherever that is.
- Nothing from Ray reaches the terminal: no banner, no dashboard, no worker output.

Use it in a `with` block, or call `close()` when the run is over.
"""
from __future__ import annotations

import logging
import os
import socket
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import replace
from typing import Iterable, Iterator

from vbr.errors import UsageError
from vbr.sim import GameFailed, RunSpec, check_workers, game_for, in_order, play_games, stamped

NEEDS_RAY = "the ray backend needs Ray: pip install 'vbr[ray]'"
CONNECT_TIMEOUT = 5.0  # seconds a cluster's address has to answer before the run gives up
RULE_FILE_HINT = ("with --backend ray the rule file must be at the same path on every node, "
                  "or be a bundled one (docs/analysis.md, \"Beyond one machine: Ray\")")


class RayBackend:
    name = "ray"

    def __init__(self, workers: int | None = None, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise UsageError(NEEDS_RAY) from None
        if workers is not None and workers < 1:
            raise UsageError(f"--workers must be at least 1, not {workers}")
        self._ray = ray
        self.address = address
        self._started = False  # True when this backend called ray.init, and so must shut it down
        self._connect(workers, address)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        self.workers = workers if workers is not None else max(1, cpus)
        self._task = ray.remote(_play_chunk)

    def _connect(self, workers: int | None, address: str | None) -> None:
        ray = self._ray
        if address is not None:
            _check_reachable(address)
        if ray.is_initialized():
            return
        quiet = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        if address is None:
            ray.init(address="local", num_cpus=None if workers is None else check_workers(workers), **quiet)
            self._started = True
            return
        refused = (ConnectionError, RuntimeError, getattr(ray.exceptions, "AuthenticationError", ConnectionError))
        try:
            with _stderr_kept() as said:  # Ray's core prints each failed attempt to reach a cluster
                ray.init(address=address, **quiet)
        except refused as exc:  # RuntimeError: e.g. the cluster runs another version of Ray or Python
            raise UsageError(_refusal(address, exc, said[0])) from None
        self._started = True

    def prepare(self, spec: RunSpec) -> None:
        """Load the game here first: a broken rule file is reported once, before any task starts."""
        game_for(spec.path, spec.options, spec.engine)

    def map(self, spec: RunSpec, chunks: Iterable[tuple[int, int]]) -> Iterator[list]:
        ray = self._ray
        spec = stamped(spec)  # the workers load the file again: they check it holds the rules loaded here
        bundled = _bundled_name(spec.path)
        cwd = os.getcwd()
        waiting: set = set()

        def submit(chunk):
            games = self._task.remote(spec, chunk[0], chunk[1], cwd, bundled)  # a generator of refs
            waiting.add(games)
            return games

        def drain(games):
            for ref in games:
                try:
                    yield [ray.get(ref)]
                except ray.exceptions.RayTaskError as exc:
                    raise _unwrap(exc) from None
            waiting.discard(games)

        try:
            for chunk_games in in_order(submit, chunks, self.workers, drain):
                yield from chunk_games
        finally:  # stopped early (a failed game, Ctrl-C, a reader that had enough): drop the rest
            for games in waiting:
                ray.cancel(games)

    def close(self) -> None:
        """Shut down the Ray this backend started (a cluster is only disconnected from)."""
        if self._started:
            self._started = False
            self._ray.shutdown()

    def __enter__(self) -> "RayBackend":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _play_chunk(spec: RunSpec, start: int, stop: int, cwd: str, bundled: str | None) -> Iterator:
    """One chunk, on a Ray worker, each game handed back as it ends (a Ray generator task). At
    module level so that Ray ships it by name, not by value."""
    if os.path.isdir(cwd) and os.getcwd() != cwd:
        os.chdir(cwd)  # relative rule file paths, and the source lines in error messages, as on the driver
    if bundled and not os.path.isfile(spec.path):
        from vbr.loader import bundled_dirs
        for d in bundled_dirs():
            if (d / bundled).is_file():
                spec = replace(spec, path=str(d / bundled))
                break
    try:
        game_for(spec.path, spec.options, spec.engine)
    except Exception as exc:
        render = getattr(exc, "render", None)
        text = render() if callable(render) else f"{type(exc).__name__}: {exc}"
        raise UsageError(f"a Ray worker on {socket.gethostname()} cannot load the rule file {spec.path}:\n"
                         f"{text}\n({RULE_FILE_HINT})") from None
    yield from play_games(spec, start, stop)


def _unwrap(exc) -> BaseException:
    """The exception a task raised, as the task raised it: a `GameFailed` arrives as a `GameFailed`.
    Anything unexpected keeps the worker's traceback as a note."""
    from ray.exceptions import RayError
    cause = exc.cause
    if not isinstance(cause, BaseException) or isinstance(cause, RayError):  # e.g. a cause that could not be pickled
        return exc
    if not isinstance(cause, (GameFailed, UsageError)):
        cause.add_note(f"raised on a Ray worker:\n{exc.traceback_str}")
    return cause


def _bundled_name(path: str) -> str | None:
    """The path of a bundled rule file inside the bundled directory, so that each node finds the
    file in its own installation of vbr; None for any other file."""
    from vbr.loader import bundled_dirs, resolve
    p = resolve(path).resolve()
    for d in bundled_dirs():
        if p.is_relative_to(d):
            return p.relative_to(d).as_posix()
    return None


def _check_reachable(address: str) -> None:
    """A quick look at the cluster's address before Ray tries it: Ray itself waits minutes for an
    address where nothing answers, and prints its retries on the terminal."""
    if address == "auto":
        try:
            from ray._private.services import canonicalize_bootstrap_address
        except ImportError:  # a private helper: if a Ray release moves it, ray.init decides alone
            return
        try:
            target = canonicalize_bootstrap_address("auto")
        except ConnectionError:
            raise UsageError("--ray-address auto: no running Ray cluster was found "
                             "(start one with `ray start --head`, or give its HOST:PORT)") from None
        if target is None:
            return
    else:
        target = address.split("://", 1)[-1]  # ray://HOST:PORT is a Ray client address
    host, _, port = target.rpartition(":")
    host = host.strip("[]")
    if not host or not (port.isascii() and port.isdigit()):
        raise UsageError(f"--ray-address must be auto or HOST:PORT (e.g. 10.0.0.5:6379), not {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        shown = address if target == address else f"{address} ({target})"
        raise UsageError(f"cannot reach a Ray cluster at {shown}: {reason}") from None


@contextmanager
def _stderr_kept():
    """What the process writes on stderr, C++ included, kept from the terminal: the text arrives in
    the list the block gets, once the block is over."""
    said: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield said
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            said.append(tmp.read().decode("utf-8", "replace"))


def _refusal(address: str, exc: BaseException, said: str) -> str:
    """Why the cluster could not be joined, in a few lines: Ray's own last word, and what to do
    when the cluster wants a token this machine does not have."""
    msg = f"cannot connect to the Ray cluster at --ray-address {address}: {exc}"
    lines = [ln.split("GCS server: ", 1)[1] for ln in said.splitlines() if "GCS server: " in ln]
    if lines:
        msg += f"\n(the cluster answered: {lines[-1]})"
    if "uthenticat" in said or "uthenticat" in str(exc):
        msg += ("\n(the cluster uses token authentication, the default from Ray 2.59: run vbr on the head "
                "node with --ray-address auto, or set RAY_AUTH_MODE=token and give this machine the "
                "cluster's token, see docs/analysis.md)")
    return msg
