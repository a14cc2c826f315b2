"""Where the CPU time of `vbr sim` goes, per game, beside the game itself: a random game through
`vbr.play.play_game` alone, the same games as a run's trials (`vbr.sim.play_games`, what a worker
sends back), and the summary of the run (`vbr.analysis.metrics.summarize`), with the garbage
collector's thresholds as Python sets them and as a run sets them (`vbr.sim.collecting_less`).
One process, microseconds of CPU a game, the best of `--repeat` rounds.

    python benchmarks/sim_overhead.py [--book rules/siatka.vbr] [--games 30000] [--engine c] [--repeat 3]
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from best_cpu import best_cpu_seconds  # noqa: E402  (benchmarks/, this script's own folder)

from vbr.analysis.metrics import summarize  # noqa: E402
from vbr.play import play_game  # noqa: E402
from vbr.sim import RunSpec, collecting_less, game_for, play_games  # noqa: E402


def per_game(fn, games: int, repeat: int) -> float:
    """The best of `repeat` rounds of fn(), in microseconds of CPU a game."""
    return best_cpu_seconds(fn, repeat) / games * 1e6


def play_each(game, n: int, seats: list[str]) -> None:
    """n games, each result dropped as the next is played."""
    for i in range(n):
        play_game(game, i, seats)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", type=Path, default=ROOT / "rules" / "siatka.vbr")
    ap.add_argument("--games", type=int, default=30_000)
    ap.add_argument("--engine", default="c")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    n = args.games
    spec = RunSpec.of(str(args.book), {}, 0, ["random"] * 2, n, engine=args.engine)
    game = game_for(spec.path, spec.options, spec.engine)
    seats = ["random"] * game.program.seats
    spec = RunSpec.of(str(args.book), {}, 0, seats, n, engine=args.engine)
    for label, context in (("Python's thresholds", contextlib.nullcontext), ("collecting_less", collecting_less)):
        with context():
            alone = per_game(lambda: play_each(game, n, seats), n, args.repeat)
            trials: list = []
            played = per_game(lambda: trials.__setitem__(slice(None), play_games(spec, 0, n)), n, args.repeat)
            summary = per_game(lambda: summarize(trials, "seat"), n, args.repeat)
        print(f"{label:20s} play_game {alone:6.2f}   as trials {played:6.2f}   summary {summary:6.2f}  µs of CPU a game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
