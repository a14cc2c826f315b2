"""Python bytecodes a game executes (every Python frame, `sys.settrace` opcode events) in each
engine's own random-play loop: the closure engine's `State.play_random` and the typed Python
engine's, the same seeds for both. A busy machine does not move this count, as it moves a time.

    python benchmarks/bytecodes.py BOOK [--games 20] [--top 12]

Prints the mean a game for each engine and the functions that execute the most.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import vbr  # noqa: E402
from vbr.engines.game import load as load_typed  # noqa: E402
from vbr.interpreter.rng import derive, generator  # noqa: E402


def count(play, games: int) -> tuple[float, list]:
    """(bytecodes a game, the functions executing the most) of play(seed) for seeds 0..games-1."""
    by_function: collections.Counter = collections.Counter()

    def on_call(frame, event, arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        name = frame.f_code.co_filename.split("/")[-1] + ":" + frame.f_code.co_name

        def on_opcode(frame, event, arg):
            if event == "opcode":
                by_function[name] += 1
            return on_opcode
        return on_opcode

    for seed in range(games):
        sys.settrace(on_call)
        try:
            play(seed)
        finally:
            sys.settrace(None)
    return sum(by_function.values()) / games, [(f, n / games) for f, n in by_function.most_common()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("book", help="a bundled book's name, as rules/BOOK.vbr")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    path = ROOT / "rules" / f"{args.book}.vbr"
    closure = vbr.load(str(path), engine="closure")
    typed = load_typed(path, {}, engine="python")

    def closure_game(seed):
        state = closure.new_state(seed)
        state.play_random([generator(derive(derive(seed, 7919, s), s + 1)).getrandbits for s in range(closure.seats)])

    def typed_game(seed):
        typed.new_state(seed).play_random(derive(seed, 1))

    for name, play in (("closure engine", closure_game), ("typed Python engine", typed_game)):
        total, top = count(play, args.games)
        print(f"{args.book} {name}: {total:,.0f} bytecodes a game")
        for function, n in top[:args.top]:
            print(f"    {n:10,.0f}  {function}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
