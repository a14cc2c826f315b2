"""What a rotated run's summary costs: `summarize_columns` of a synthetic run of `--games` games
held as a `ColumnStore`, once with every game a deal of its own (each seed once) and once with the
seats rotated (each seed twice, the second game of a deal following the first), in seconds of CPU,
the best of `--repeat` rounds. The games are made up (random winners, lengths, score tracks and
a measure of each kind, two games of a deal alike in part), not played, and not timed.

    python benchmarks/clustered_summary.py [--games 1000000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from best_cpu import best_cpu_seconds  # noqa: E402  (benchmarks/, this script's own folder)

from vbr.analysis.column_store import ColumnStore  # noqa: E402
from vbr.analysis.metrics import summarize_columns  # noqa: E402
from vbr.analysis.trial import Trial  # noqa: E402

BATCH = 10_000


def made_up(i: int, seed: int, rng: random.Random) -> Trial:
    """Game i, on deal `seed`: a short score track of two sides, played to 5 points."""
    score, track, choices = [0, 0], [], 0
    while max(score) < 5:
        choices += rng.randint(2, 12)
        score[rng.random() < 0.5] += 1
        track.append((choices, tuple(score)))
    winner = 0 if score[0] > score[1] else 1
    forced = rng.randint(0, choices // 4)
    measures = {"first_server": ("side", rng.randint(0, 1)), "rallies": ("int", len(track)),
                "long": ("bool", choices > 40 if rng.random() < 0.9 else None)}
    return Trial(index=i, seed=seed, agents=["a", "b"] if i % 2 == 0 else ["b", "a"], sides=2, winner=winner,
                 points=tuple(score), choices=choices, forced=forced, options=choices * 3 - forced * 2,
                 first_side=rng.randint(0, 1), score_track=track, measures=measures)


def store_of(games: int, per_deal: int) -> ColumnStore:
    """A store of `games` made-up games, `per_deal` games to a deal (the deal's games in a row);
    a deal's games start from the same draws, so they come out alike in part."""
    store = ColumnStore()
    for start in range(0, games, BATCH):
        batch = []
        for i in range(start, min(start + BATCH, games)):
            deal = i // per_deal
            rng = random.Random(deal * 7919 + (i % per_deal if random.Random(i).random() < 0.5 else 0))
            batch.append(made_up(i, deal, rng))
        store.add(batch)
    return store


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"{args.games} made-up games, summarize_columns, best of {args.repeat}")
    for per_deal, what in ((1, "every seed once"), (2, "each seed twice")):
        store = store_of(args.games, per_deal)
        print(f"{what:16}: {best_cpu_seconds(lambda: summarize_columns(store), args.repeat):6.2f} s")
        del store
    return 0


if __name__ == "__main__":
    sys.exit(main())
