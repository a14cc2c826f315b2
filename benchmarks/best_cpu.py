"""The timing the benchmarks that time one call share: the best of several rounds, in seconds of
this process's CPU, each round after a full collection (so no round pays for the garbage of the
one before)."""
from __future__ import annotations

import gc
import time


def best_cpu_seconds(fn, repeat: int) -> float:
    """The least CPU time, in seconds, of `repeat` calls of fn()."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best
