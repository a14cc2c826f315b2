"""Many games at once: seeds derived from one seed, results identical for any number of workers."""
from __future__ import annotations

import math
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from vbr.interpreter import rng as R
from vbr.play import play_game

_GAME = None  # per worker process: the compiled game, loaded once


def game_seed(seed: int, i: int) -> int:
    return R.derive(seed, i) & 0x7FFFFFFF


def _init(path, options):
    global _GAME
    from vbr.interpreter.game import load
    _GAME = load(path, options)


def _play_chunk(args):
    seed, indices, agents, trace = args
    out = []
    for i in indices:
        r = play_game(_GAME, game_seed(seed, i), agents, trace=trace)
        out.append((i, r.winner, r.points, r.choices, r.state.trace if trace else None))
    return out


def simulate(path, options: dict, n: int, seed: int, agents: list[str], workers: int = 1, progress=None,
             trace: bool = False, sides: int | None = None, unit: str = "seat") -> dict:
    """Play n games; `sides`/`unit` say what a win is counted for (seats, or teams)."""
    start = time.perf_counter()
    chunks = _chunks(n, workers)
    results = []
    if workers <= 1:
        _init(path, options)
        for ch in chunks:
            results += _play_chunk((seed, ch, agents, trace))
            if progress:
                progress(len(results), n)
    else:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init, initargs=(str(path), options)) as ex:
            for part in ex.map(_play_chunk, [(seed, ch, agents, trace) for ch in chunks]):
                results += part
                if progress:
                    progress(len(results), n)
    elapsed = time.perf_counter() - start
    results.sort()
    return summarize(results, n, seed, agents, elapsed, sides or len(agents), unit)


def _chunks(n: int, workers: int) -> list[list[int]]:
    size = max(1, min(200, n // max(1, workers * 8)))
    return [list(range(i, min(n, i + size))) for i in range(0, n, size)]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval of a proportion (Wilson score interval)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (round(max(0.0, c - h), 4), round(min(1.0, c + h), 4))


def summarize(results, n, seed, agents, elapsed, sides: int, unit: str = "seat") -> dict:
    wins = {str(s): 0 for s in range(sides)}
    draws = 0
    points_sum = None
    steps = 0
    trace: dict = {}
    for _, winner, points, choices, tr in results:
        if winner is None:
            draws += 1
        else:
            wins[str(winner)] += 1
        steps += choices
        if points:
            points_sum = [a + b for a, b in zip(points_sum, points)] if points_sum else list(points)
        for k, v in (tr or {}).items():
            trace[k] = trace.get(k, 0) + v
    out = {
        "games": n,
        "seed": seed,
        "sides": unit,
        "agents": agents,
        "wins": wins,
        "draws": draws,
        "win_rate": {s: round(k / n, 4) if n else 0.0 for s, k in wins.items()},
        "ci95": {s: list(wilson(k, n)) for s, k in wins.items()},
        "mean_steps": round(steps / n, 2) if n else 0.0,
        "points_per_game": [round(p / n, 3) for p in points_sum] if points_sum else None,
        "seconds": round(elapsed, 3),
        "games_per_s": round(n / elapsed, 1) if elapsed > 0 else None,
    }
    if trace:
        out["trace"] = trace
    return out


def progress_bar(done: int, total: int) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()
