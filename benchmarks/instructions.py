"""Machine instructions a random game costs in the closure engine (`vbr.play.play_game`, from a
commit that still has it: closure_baseline.py) and in the typed Python engine
(`vbr.play.play_typed_game`), counted by valgrind's callgrind: a figure a busy machine does not
move, unlike a CPU time.

    python benchmarks/instructions.py [--books siatka,cattack] [--games 30] [--commit dd4e08f]

Each engine plays seeds 0..N-1 in a process under callgrind, and again with none played (the
same loading and warming, after a first player outside callgrind has filled the caches loading
may write); the difference over N is the cost of a game. The engines draw from
different generators, so they play other games of the same rules: the instructions a choice
(a game's over its mean choices) compare them; the last column is the closure engine's
instructions a choice over the typed engine's, as `python_engine.py`'s ratios read (1.0: as
fast). Needs valgrind.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from closure_baseline import CLOSURE_COMMIT, HERE, WARM, _play, repo_root, tree_at

BOOKS = ("siatka", "cattack", "tanto-cuore-beach-volleyball", "volleyball-high")
_RUN = "--run"  # the argument that makes this script a player: --run TREE BOOK HOW N
# a player's environment: no PYTHONPATH, one hash seed, so that sets and dicts of strings go
# through their items in one order (two runs count alike), and a cache folder of the run's own
# (XDG_CACHE_HOME, set by main): a test run beside it, writing the user's cache, once made the
# players that played nothing count more than those that played
_ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONHASHSEED": "0"}


def run(tree: str, book: str, how: str, n: int) -> None:
    """The player: load and warm, play seeds 0..n-1, print the choices made."""
    play = _play(tree, book, how)
    for seed in range(10**6, 10**6 + WARM):
        play(seed)
    print(sum(play(seed) for seed in range(n)))


def counted(tree: str, book: str, how: str, n: int) -> tuple[int, int]:
    """(instructions, choices) of a player playing n games under callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                               os.path.abspath(__file__), _RUN, tree, book, how, str(n)],
                              capture_output=True, text=True, cwd=HERE, env=_ENV)
        if done.returncode != 0:
            raise RuntimeError((done.stderr.strip().splitlines() or ["no output"])[-1])
        with open(out, encoding="utf-8") as f:
            total = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
    return int(total.group(1)), int(done.stdout.split()[-1])


def per_game(tree: str, book: str, how: str, n: int) -> tuple[float, float]:
    """(instructions a game, choices a game) over n games, once a player has run outside
    callgrind (what loading caches, the counted players find made)."""
    subprocess.run([sys.executable, os.path.abspath(__file__), _RUN, tree, book, how, "0"], capture_output=True,
                   cwd=HERE, env=_ENV, check=True)
    games, choices = counted(tree, book, how, n)
    none, _ = counted(tree, book, how, 0)
    return (games - none) / n, choices / n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--books", default=",".join(BOOKS))
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--commit", default=CLOSURE_COMMIT, help=f"a commit with the closure engine (default {CLOSURE_COMMIT})")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count with")
        return 1
    with tree_at(args.commit) as old, tempfile.TemporaryDirectory() as cache:
        _ENV["XDG_CACHE_HOME"] = cache
        for book in args.books.split(","):
            closure = per_game(old, book, "closure", args.games)
            typed = per_game(repo_root(), book, "python", args.games)
            print(f"{book:30s} closure {closure[0]:12,.0f} a game ({closure[1]:.1f} choices)   "
                  f"typed Python {typed[0]:12,.0f} a game ({typed[1]:.1f} choices)   "
                  f"a choice: {closure[0] / closure[1] / (typed[0] / typed[1]):.2f}x")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == _RUN:
        run(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        raise SystemExit(main())
