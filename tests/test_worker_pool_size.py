"""A pool of worker processes is no larger than the run's work: each worker is a whole Python
process that loads the game, so `--workers 256` on a run of 3 games starts 3 of them, not 256."""
from __future__ import annotations

import multiprocessing
from pathlib import Path

from vbr.backends import LocalBackend
from vbr.sim import RunSpec, chunk_ranges

BUMP = Path(__file__).parent.parent / "docs" / "tutorial" / "bump.vbr"


def test_a_run_of_three_games_with_twenty_workers_starts_three_worker_processes():
    spec = RunSpec.of(BUMP, {}, 0, ["random", "random"], 3, engine="python")
    backend = LocalBackend(20)
    chunks = list(chunk_ranges(3, backend.workers))
    assert chunks == [(0, 1), (1, 2), (2, 3)]  # one game a chunk: at most 3 workers have work
    games, most = [], 0
    for part in backend.map(spec, chunks):
        most = max(most, len([p for p in multiprocessing.active_children() if p.name == "vbr-worker"]))
        games += part
    assert [t.index for t in games] == [0, 1, 2]
    assert 1 <= most <= 3
