"""What a run's summary costs beside its games: `vbr.analysis.metrics.summarize` of one run and
`compare(a, b, paired=True)` of two runs played on the same seeds (the book's rules and a variant,
`--variant`, random agents), in microseconds of CPU a game (of one run), the best of `--repeat`
rounds. The games are played once, in C, and not timed.

    python benchmarks/summary_speed.py [--book rules/siatka.vbr] [--games 100000] [--variant target=15]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vbr.analysis.comparison import compare  # noqa: E402
from vbr.analysis.metrics import summarize  # noqa: E402
from vbr.sim import RunSpec, play_range  # noqa: E402

from sim_overhead import per_game  # noqa: E402  (benchmarks/ is the script's folder)


def option(text: str) -> dict:
    """NAME=VALUE as an option of the book: an int where it reads as one, else the text."""
    name, _, value = text.partition("=")
    return {name: int(value) if value.lstrip("-").isdigit() else value}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", default=str(ROOT / "rules" / "siatka.vbr"))
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--variant", default="target=15")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    n = args.games
    runs = [play_range(RunSpec.of(args.book, opts, 1, ["random", "random"], n, engine="c"), 0, n)
            for opts in ({}, option(args.variant))]
    a, b = runs
    print(f"{args.book}, {n} games a run, variant {args.variant}")
    print(f"summarize:            {per_game(lambda: summarize(a), n, args.repeat):7.2f} µs a game")
    print(f"compare (paired):     {per_game(lambda: compare(a, b, paired=True), n, args.repeat):7.2f} µs a game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
