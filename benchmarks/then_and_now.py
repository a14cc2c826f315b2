"""The bundled files' random games/s now against at an earlier commit, both measured now.

Issue 11 set the files without a hand-written twin a goal relative to their speed at a commit
(daad334), when the closure engine was vbr's only engine. That commit's figures, measured in
another session, say little about this one: the machine's speed moves between sessions (Cattack
at daad334 played 1,102 games/s in session 2 and about 2,000 on session 9's host, the same code
through the same loop). So the old code and rule files are taken out of git (`git archive`,
nothing in the checkout changes) and both trees play the same games, on the same machine in the
same moments: the old tree through its closure engine (`vbr.play.play_game`), this checkout
through a typed engine (`vbr.play.play_typed_game`, `--engine python` by default, as `vbr sim
--engine python` plays; `c`, as `vbr sim` plays with a C compiler):

    python benchmarks/then_and_now.py [--commit daad334] [--engine python|c] [--games N] [--rounds R] [--json]

For each file, two player processes, one per tree (benchmarks/closure_baseline.py), each load
the file (not timed) and play a few games to warm; then they take turns in blocks of 20 games
on the same seeds (old 0-19, new 0-19, old 20-39, ...), each timing its own blocks in thread CPU
time. Turns of a few milliseconds put both through the same stretches of a shared machine. A
round is N games of each; the ratio shown is the median of the rounds' ratios, the games/s each
tree's over all rounds. The two engines draw from different generators, so they play other
games of the same rules: the choices a game are shown beside each.
"""
from __future__ import annotations

import argparse
import json
import sys

from closure_baseline import BLOCK, ratio, repo_root, take_turns, tree_at

BASE_COMMIT = "daad334"  # issue 11: "at least 3x their speed at daad334"
GOAL = 3.0
NAMES = ("cattack", "tanto-cuore-beach-volleyball", "volleyball-high")


def compare(root: str, commit: str = BASE_COMMIT, names=NAMES, games: int = 300, rounds: int = 5,
            engine: str = "python") -> dict:
    """Per file: games/s at `commit` (its closure engine) and now (the tree at `root`, as it is on
    disk, through `engine`), and now/then."""
    try:
        with tree_at(commit, root) as old:
            rows = {name: _row(old, root, name, games, rounds, engine) for name in names}
    except RuntimeError as e:
        return {"commit": commit, "error": str(e)}
    return {"commit": commit, "engine": engine, "games": games, "rounds": rounds, "block": BLOCK, "rows": rows}


def _row(old: str, root: str, name: str, games: int, rounds: int, engine: str) -> dict:
    rows = take_turns({"then": (old, name, "closure"), "now": (root, name, engine)}, games, rounds)
    if "error" in rows:
        return {"error": rows["error"]}
    speedups = [t / n for t, n in zip(rows["then"]["rounds_s"], rows["now"]["rounds_s"])]
    speedup = ratio(rows, "now", "then")
    return {"games": rows["now"]["games"], "then_games_per_s": rows["then"]["games_per_s"],
            "now_games_per_s": rows["now"]["games_per_s"],
            "then_choices_per_game": rows["then"]["choices_per_game"],
            "now_choices_per_game": rows["now"]["choices_per_game"],
            "speedup": round(speedup, 3), "speedups": [round(x, 3) for x in speedups],
            "goal": GOAL, "meets_goal": speedup >= GOAL}


def print_comparison(res: dict) -> None:
    if "error" in res:
        print(f"against {res['commit']}: cannot measure ({res['error']})")
        return
    print(f"now ({res['engine']} engine) against {res['commit']} (closure engine), both measured now "
          f"({res['rounds']} rounds of {res['games']} games a tree, "
          f"in turns of {res['block']} games, thread CPU time)")
    print(f"{'rules':30} {'then games/s':>13} {'now games/s':>12} {'now/then':>9}  goal  (each round's now/then)")
    for name, r in res["rows"].items():
        if "error" in r:
            print(f"{name:30} cannot measure: {r['error']}")
            continue
        print(f"{name:30} {r['then_games_per_s']:13.1f} {r['now_games_per_s']:12.1f} {r['speedup']:9.3f}  "
              f">= {r['goal']:.1f}: {'met' if r['meets_goal'] else 'not met'}  ({', '.join(f'{x:.3f}' for x in r['speedups'])})")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commit", default=BASE_COMMIT, help=f"the earlier commit (default {BASE_COMMIT})")
    ap.add_argument("--games", type=int, default=300, help="games a process times (default 300)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of games per file (default 5)")
    ap.add_argument("--engine", choices=("python", "c"), default="python", help="this checkout's engine (default python)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    res = compare(repo_root(), args.commit, NAMES, args.games, args.rounds, args.engine)
    print(json.dumps(res, sort_keys=True)) if args.json else print_comparison(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
