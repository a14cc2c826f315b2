"""Random games per CPU-second of each bundled book through the typed program's Python engine
beside the closure engine (the older engine, taken from a commit that still has it), and for
Siatka beside the same game written by hand in plain Python: each in a player process of its
own, the players taking turns in blocks of games so that a busy minute slows all of them alike
(benchmarks/closure_baseline.py).

    python benchmarks/python_engine.py [--books siatka,cattack] [--rounds 4] [--games 40]
                                       [--commit dd4e08f]

Each plays whole games with a random agent in every seat, twice: the way `vbr sim` plays them
(the closure engine through `vbr.play.play_game` at the commit, the typed Python engine through
`vbr.play.play_typed_game`, `--engine python`, both keeping what balance metrics read), and
through each engine's own random-play loop alone (`State.play_random`). The two engines draw
from different generators, so they play other games of the same rules; the mean choices a game
are printed beside each figure, and each ratio a choice too (a game's time over its choices: the
fixed seeds' games of one generator may run longer than the other's, which a game's ratio counts
against it). Issue 35 asks the Python engine to come within 10 % of the
closure engine (a ratio of 0.90 or more), with the typed engines' generator: the closure engine
drawing from that generator in Python (`closure-splitmix`, every `random.Random` of the game and
its agents a SplitMix64 stream) shows what the generator alone costs it.
"""
from __future__ import annotations

import argparse

from closure_baseline import CLOSURE_COMMIT, ratio, repo_root, take_turns, tree_at

BOOKS = ("siatka", "cattack", "tanto-cuore-beach-volleyball", "volleyball-high")
# name -> (which tree, how it plays, the name its ratio is taken against)
PLAYERS = {
    "closure engine": ("then", "closure", None),
    "closure, SplitMix64 draws": ("then", "closure-splitmix", "closure engine"),
    "typed, Python engine": ("now", "python", "closure engine"),
    "closure, play_random": ("then", "closure-loop", None),
    "typed Python, play_random": ("now", "python-loop", "closure, play_random"),
    "hand-written plain Python": ("now", "handwritten", "closure engine"),
}


def measure(book: str, old: str, games: int, rounds: int) -> dict:
    trees = {"then": old, "now": repo_root()}
    specs = {name: (trees[tree], book, how) for name, (tree, how, _) in PLAYERS.items()
             if how != "handwritten" or book == "siatka"}
    return take_turns(specs, games, rounds)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--books", default=",".join(BOOKS))
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--games", type=int, default=40, help="games a round for each player")
    ap.add_argument("--commit", default=CLOSURE_COMMIT, help=f"a commit with the closure engine (default {CLOSURE_COMMIT})")
    args = ap.parse_args(argv)
    with tree_at(args.commit) as old:
        for book in args.books.split(","):
            rows = measure(book, old, args.games, args.rounds)
            if "error" in rows:
                print(f"{book:30s} cannot measure: {rows['error']}")
                continue
            for name, r in rows.items():
                base = PLAYERS[name][2]
                against = ""
                if base:  # a choice's time too: the engines' random games differ in length
                    x = ratio(rows, name, base)
                    per_choice = x * r["choices_per_game"] / rows[base]["choices_per_game"]
                    against = f"{x:5.2f}x {base} ({per_choice:.2f}x a choice)"
                print(f"{book:30s} {name:28s} {r['games_per_s']:9,.0f} games/s  ({r['choices_per_game']:.0f} choices a game)"
                      f"  {against}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
