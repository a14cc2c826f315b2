"""Random games per CPU-second of Siatka through the typed program's engines, beside the same
game written by hand in plain Python and in C, in one process, the implementations taking turns in
blocks so that a busy minute slows all of them alike. (The closure engine, retired from vbr/, is
measured against the Python engine by python_engine.py, from a commit that still has it.)

    python benchmarks/typed_engines.py [--blocks 5] [--games 200] [--json]
    python benchmarks/typed_engines.py --book rules/cattack.vbr [--blocks 5] [--games 20]

With `--book`, one rule file's random games through the API (`new_state`, `play_random`) and
through `vbr.play.play_game` in the typed Python engine and in the C engine, and in C 1,000 games
a call.

The hand-written game (handwritten_siatka.py) plays the same rules with the same uniformly
random choices; it draws from another generator, so its games are other games of the same length
on average (mean choices printed beside each figure).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import handwritten_c  # noqa: E402
import handwritten_siatka  # noqa: E402

from vbr.engines.game import load as load_typed  # noqa: E402
from vbr.seeds import derive  # noqa: E402
from vbr.play import play_game  # noqa: E402

SIATKA = ROOT / "rules" / "siatka.vbr"
PIG = ROOT / "examples" / "pig.vbr"


def players(games: int):
    py = load_typed(SIATKA, {}, engine="python")
    c = load_typed(SIATKA, {}, engine="c")
    pig = load_typed(PIG, {}, engine="c")

    def hand(seed):
        return handwritten_siatka.play_game(seed)

    def typed(game):
        def one(seed):
            s = game.new_state(seed)
            s.play_random(derive(seed, 1))
            return s
        return one

    def api_game(seed):  # the measure: vbr.play.play_game, what `vbr sim --engine c` plays per game
        play_game(c, seed, ["random", "random"])

    def batch(game, per_call):
        def many(seed):
            seeds = [derive(seed, i) for i in range(per_call)]
            game.engine.play_many(seeds, [derive(x, 1) for x in seeds])
        return many, per_call
    folder = tempfile.TemporaryDirectory()  # the hand-written C library's, for the life of the closure
    hand_c_lib = handwritten_c.build(Path(folder.name))

    def hand_c(seed):  # benchmarks/handwritten_siatka.c, built by the system compiler: 10,000 games a call
        _ = folder
        handwritten_c.c_block(hand_c_lib, seed * 10_000, 10_000, 0)
    return {
        "hand-written plain Python": (hand, 1, games),
        "hand-written C, 10,000 games a call": (hand_c, 10_000, 20),
        "typed, Python engine": (typed(py), 1, max(games // 10, 5)),
        "typed, C engine, a game per API call": (typed(c), 1, games * 20),
        "typed, C engine, vbr.play.play_game": (api_game, 1, games * 20),
        "typed, C engine, 10,000 games a call": (*batch(c, 10_000), 5),
        "Pig, C engine, 10,000 games a call": (*batch(pig, 10_000), 5),
    }


def book_players(path: Path, games: int):
    """A rule file's random games through each typed engine, one game per API call, and C's batch."""
    py, c = load_typed(path, {}, engine="python"), load_typed(path, {}, engine="c")

    def typed(game):
        def one(seed):
            s = game.new_state(seed)
            s.play_random(derive(seed, 1))
        return one

    def batch(seed):
        seeds = [derive(seed, i) for i in range(1_000)]
        c.engine.play_many(seeds, [derive(x, 1) for x in seeds])
    seats = ["random"] * c.program.seats

    def api(game):  # vbr.play.play_game: what `vbr sim --engine ...` plays per game
        return lambda seed: play_game(game, seed, seats)
    return {
        "typed, Python engine": (typed(py), 1, games),
        "typed, Python engine, vbr.play.play_game": (api(py), 1, games),
        "typed, C engine, a game per API call": (typed(c), 1, games * 50),
        "typed, C engine, vbr.play.play_game": (api(c), 1, games * 50),
        "typed, C engine, 1,000 games a call": (batch, 1_000, max(games // 10, 2)),
    }


def measure(blocks: int, games: int, book: Path | None = None) -> dict:
    plays = players(games) if book is None else book_players(book, games)
    spent = {name: [0.0, 0] for name in plays}
    for b in range(blocks):
        for name, (play, per_call, calls) in plays.items():
            t = time.process_time()
            for i in range(calls):
                play(b * 1_000_000 + i)
            spent[name][0] += time.process_time() - t
            spent[name][1] += per_call * calls
    return {name: n / t for name, (t, n) in spent.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--games", type=int, default=200, help="games a block for the slower players")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--book", type=Path, help="a rule file: its typed engines against each other")
    args = ap.parse_args(argv)
    rates = measure(args.blocks, args.games, args.book)
    if args.json:
        print(json.dumps(rates, indent=2))
        return 0
    base_name = "typed, Python engine" if args.book else "hand-written plain Python"
    base = rates[base_name]
    for name, r in rates.items():
        print(f"{name:40s} {r:12,.0f} games/s  {r / base:8.2f}x {'the Python engine' if args.book else 'plain Python'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
