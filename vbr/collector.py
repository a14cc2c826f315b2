"""Bulk work without the garbage collector looking on.

A summary of 100,000 games makes a row, a pair or a key a game, none in a reference cycle, and
their number sets off collections; once the collector's oldest generation is due, one collection
looks through every object there is, the run's games too: 1.4 s after a 200,000-game `vbr sim`,
whose games the run kept out of the collector's sight until then (vbr.sim.keep_out_of_sight),
more than the summary itself. Building a game (its checked model, typed program and engines:
vbr.engines.game.checked_model, vbr.ir.build.build_program, the engines' making) is the same:
many objects that live on, almost no cycles; a phase of 3,000 `if`s spent two fifths of making
its Python engine in the collector. Inside `uncollected` nothing is collected; after, the
collector is as it was, and the young objects still alive are looked through once, at its next
turn.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def uncollected():
    """No garbage collection inside (a `with` block, or, as `@uncollected()`, a function); the
    collector enabled again after only if it was before. For work that makes no reference cycles."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
