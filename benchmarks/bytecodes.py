"""Python bytecodes a game executes (every Python frame, `sys.settrace` opcode events) in each
engine's own random-play loop: the closure engine's `State.play_random` (retired from vbr/, so
counted in a process of its own importing `vbr/` of a commit that still has it, taken out of git:
benchmarks/closure_baseline.py) and the typed Python engine's, the same seeds for both. A busy
machine does not move this count, as it moves a time.

    python benchmarks/bytecodes.py BOOK [--games 20] [--top 12] [--commit dd4e08f]

Prints the mean a game for each engine and the functions that execute the most.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_CLOSURE = "--closure-tree"  # the argument that makes this script the closure engine's counter


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


def closure_game(tree: str, book: str):
    """play(seed) of `book` in the closure engine's own loop, imported from `tree`."""
    sys.path.insert(0, tree)
    import vbr
    from vbr.interpreter.rng import derive, generator
    closure = vbr.load(str(Path(tree) / "rules" / f"{book}.vbr"), engine="closure")

    def play(seed):
        state = closure.new_state(seed)
        state.play_random([generator(derive(derive(seed, 7919, s), s + 1)).getrandbits for s in range(closure.seats)])
    return play


def typed_game(book: str):
    """play(seed) of `book` in the typed Python engine's own loop, from this checkout."""
    sys.path.insert(0, str(ROOT))
    from vbr.engines.game import load
    from vbr.seeds import derive
    typed = load(ROOT / "rules" / f"{book}.vbr", {}, engine="python")
    return lambda seed: typed.new_state(seed).play_random(derive(seed, 1))


def show(book: str, name: str, play, games: int, top: int) -> None:
    total, functions = count(play, games)
    print(f"{book} {name}: {total:,.0f} bytecodes a game", flush=True)
    for function, n in functions[:top]:
        print(f"    {n:10,.0f}  {function}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("book", help="a bundled book's name, as rules/BOOK.vbr")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--commit", default=None, help="a commit with the closure engine (default closure_baseline's)")
    ap.add_argument(_CLOSURE, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.closure_tree:
        show(args.book, "closure engine", closure_game(args.closure_tree, args.book), args.games, args.top)
        return 0
    import subprocess
    from closure_baseline import CLOSURE_COMMIT, tree_at
    with tree_at(args.commit or CLOSURE_COMMIT) as old:
        subprocess.run([sys.executable, "-I", __file__, args.book, "--games", str(args.games), "--top", str(args.top),
                        _CLOSURE, old], check=True)
    show(args.book, "typed Python engine", typed_game(args.book), args.games, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
