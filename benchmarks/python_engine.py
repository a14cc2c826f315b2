"""Random games per CPU-second of each bundled book through the typed program's Python engine
beside the closure engine (the older engine), and for Siatka beside the same game written by hand in
plain Python, in one process, the implementations taking turns in blocks so that a busy minute
slows all of them alike.

    python benchmarks/python_engine.py [--books siatka,cattack] [--blocks 4] [--games 40]

Each plays whole games with a random agent in every seat, twice: the way `vbr sim` plays them
(the closure engine through `vbr.play.play_game`, the typed Python engine through
`vbr.play.play_typed_game`, `--engine python`, both keeping what balance metrics read), and
through each engine's own random-play loop alone (`State.play_random`). The two engines draw
from different generators, so they play other games of the same rules; the mean choices a game
are printed beside each figure.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import handwritten_siatka  # noqa: E402

import vbr  # noqa: E402
from vbr.engines.game import load as load_typed  # noqa: E402
from vbr.interpreter.rng import derive, generator  # noqa: E402
from vbr.play import play_game, play_typed_game  # noqa: E402

BOOKS = ("siatka", "cattack", "tanto-cuore-beach-volleyball", "volleyball-high")


def players(book: str) -> dict:
    path = ROOT / "rules" / f"{book}.vbr"
    closure = vbr.load(str(path), engine="closure")
    typed = load_typed(path, {}, engine="python")
    agents = ["random"] * closure.seats
    def closure_loop(seed):
        state = closure.new_state(seed)
        state.play_random([generator(derive(derive(seed, 7919, s), s + 1)).getrandbits for s in range(len(agents))])
        return state.choices

    def typed_loop(seed):
        state = typed.new_state(seed)
        state.play_random(derive(seed, 1))
        return int(state.words[3])  # Header.CHOICES

    plays = {
        "closure engine": lambda seed: play_game(closure, seed, agents).choices,
        "typed, Python engine": lambda seed: play_typed_game(typed, seed, agents).choices,
        "closure, play_random": closure_loop,
        "typed Python, play_random": typed_loop,
    }
    if book == "siatka":
        plays["hand-written plain Python"] = lambda seed: handwritten_siatka.play_game(seed)[2]
    return plays


def measure(book: str, blocks: int, games: int) -> dict:
    """name -> (games per CPU-second, mean choices a game)."""
    plays = players(book)
    spent = {name: [0.0, 0, 0] for name in plays}
    for b in range(blocks):
        for name, play in plays.items():
            t = time.process_time()
            choices = sum(play(b * 1_000_000 + i) for i in range(games))
            spent[name][0] += time.process_time() - t
            spent[name][1] += games
            spent[name][2] += choices
    return {name: (n / t, c / n) for name, (t, n, c) in spent.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--books", default=",".join(BOOKS))
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--games", type=int, default=40, help="games a block for each player")
    args = ap.parse_args(argv)
    for book in args.books.split(","):
        rates = measure(book, args.blocks, args.games)
        for name, (r, choices) in rates.items():
            base = rates["closure, play_random" if "play_random" in name else "closure engine"][0]
            print(f"{book:30s} {name:28s} {r:9,.0f} games/s  {r / base:5.2f}x closure  ({choices:.0f} choices a game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
