"""A command that plays several runs starts its worker processes once (docs/analysis.md, workers):
`vbr importance`, `sweep` and `compare` keep one pool for all their runs, so --workers W starts
at most W processes for the whole command, each paying its start and its game's load once, and
the results are those of one process, byte for byte (the games are fixed by their seeds)."""
from __future__ import annotations

import json
import multiprocessing.process
from pathlib import Path

import pytest

from vbr.backends import LocalBackend
from vbr.cli import main
from vbr.sim import RunSpec, chunk_ranges, run

FIXTURES = Path(__file__).parent / "fixtures" / "valid"
SAFE_OR_RISKY = FIXTURES / "safe_or_risky.vbr"
BUMP = Path(__file__).parent.parent / "docs" / "tutorial" / "bump.vbr"

# Each command plays several runs of 6 games: importance a base run and one per seat and word,
# sweep one per value, compare the base and the variant.
COMMANDS = {
    "importance": ["importance", SAFE_OR_RISKY, "-n", 6, "--seed", 1, "--json"],
    "sweep": ["sweep", "siatka", "--grid", "target=5,7,9", "-n", 6, "--seed", 2, "--json"],
    "compare": ["compare", "siatka", "--variant-option", "target=7", "-n", 6, "--seed", 3, "--json"],
}


@pytest.fixture
def workers_started(monkeypatch):
    """The names of the processes started while the test runs (they start for real)."""
    names: list[str] = []
    start = multiprocessing.process.BaseProcess.start

    def counted(process):
        names.append(process.name)
        return start(process)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", counted)
    return lambda: [n for n in names if n == "vbr-worker"]


# how a run was carried out (its time, its workers), which may differ; what it found may not
HOW = {"games_per_s", "seconds", "workers", "load_seconds"}


def _found(value):
    if isinstance(value, dict):
        return {k: _found(v) for k, v in value.items() if k not in HOW}
    if isinstance(value, list):
        return [_found(v) for v in value]
    return value


def _out(capsys, argv) -> dict:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_of_several_runs_starts_at_most_its_workers_and_finds_what_one_process_finds(
        capsys, workers_started, command):
    argv = COMMANDS[command]
    alone = _out(capsys, [*argv, "--workers", 1])
    assert workers_started() == []
    pooled = _out(capsys, [*argv, "--workers", 2])
    assert len(workers_started()) == 2  # each run has 6 games: two workers have work, for every run
    assert _found(pooled) == _found(alone)


def test_a_run_stopped_early_leaves_the_kept_pool_ready_for_the_next_run():
    # a reader that has enough (a precision reached) stops taking games: the chunks still in the
    # workers are dropped, and the next run on the same backend gets its own games, all of them
    first = RunSpec.of(BUMP, {}, 4, ["random", "random"], 400, engine="python")
    second = RunSpec.of(BUMP, {}, 5, ["random", "random"], 60, engine="python")
    expected = [t.seed for t in run(second, LocalBackend(1)).trials]
    with LocalBackend(2) as backend:
        parts = backend.map(first, chunk_ranges(first.n, backend.workers))
        taken = next(parts)
        parts.close()
        assert taken and taken[0].index == 0
        again = run(second, backend)
        assert backend.processes_started == 2
    assert [t.seed for t in again.trials] == expected
    assert [t.index for t in again.trials] == list(range(60))


def test_a_backend_used_without_a_with_block_keeps_no_worker_after_its_run():
    spec = RunSpec.of(BUMP, {}, 6, ["random", "random"], 20, engine="python")
    backend = LocalBackend(2)
    assert len(run(spec, backend).trials) == 20
    assert [p for p in multiprocessing.active_children() if p.name == "vbr-worker"] == []


def test_the_kept_pool_s_workers_end_with_the_with_block():
    spec = RunSpec.of(BUMP, {}, 7, ["random", "random"], 20, engine="python")
    with LocalBackend(2) as backend:
        run(spec, backend)
        kept = [p for p in multiprocessing.active_children() if p.name == "vbr-worker"]
        assert len(kept) == 2
    assert not any(p.is_alive() for p in kept)


def test_a_kept_worker_killed_between_runs_is_replaced_and_the_next_run_plays_all_its_games():
    # a worker that ends while idle (killed by hand, or by the system for memory) held no chunk:
    # the next run starts another in its place and gets every game, as a new pool would
    import os
    import signal
    first = RunSpec.of(BUMP, {}, 8, ["random", "random"], 20, engine="python")
    second = RunSpec.of(BUMP, {}, 9, ["random", "random"], 20, engine="python")
    expected = [t.seed for t in run(second, LocalBackend(1)).trials]
    with LocalBackend(2) as backend:
        run(first, backend)
        victim = next(p for p in multiprocessing.active_children() if p.name == "vbr-worker")
        os.kill(victim.pid, signal.SIGKILL)
        victim.join(10)
        again = run(second, backend)
        assert backend.processes_started == 3
    assert [t.seed for t in again.trials] == expected
