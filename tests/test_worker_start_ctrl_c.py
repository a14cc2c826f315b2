"""Ctrl-C reaches vbr's whole process group, worker processes included. A worker still starting
(importing vbr, before it sets itself to leave Ctrl-C to vbr) must not die of it with a Python
traceback on the terminal: it starts with Ctrl-C held back, and plays on."""
from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

from vbr.sim import RunSpec
from vbr.worker_pool import DONE, GAMES, _Worker

BUMP = Path(__file__).parent.parent / "docs" / "tutorial" / "bump.vbr"


def test_ctrl_c_reaching_a_worker_while_it_starts_prints_no_traceback_and_it_plays_its_games(capfd):
    spec = RunSpec.of(BUMP, {}, 0, ["random", "random"], 3, engine="python")
    context = multiprocessing.get_context("spawn")
    worker = _Worker(context, spec, context.RawValue("q", -1))  # no chunk cancelled
    try:
        # sent right after the start: a spawned worker takes far longer than this to import vbr
        os.kill(worker.process.pid, signal.SIGINT)
        worker.send((spec, 0, 3), 0)
        games = []
        while True:
            kind, value = worker.conn.recv()  # an EOFError here: the worker died of the Ctrl-C
            if kind == GAMES:
                games += value
            else:
                assert kind == DONE and value is None
                break
    finally:
        worker.stop(at_once=False)
    assert [t.index for t in games] == [0, 1, 2]
    assert worker.process.exitcode == 0
    err = capfd.readouterr().err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
