"""The bundled files' random games/s now against at an earlier commit, both measured now.

Issue 11 sets the files without a hand-written twin a goal relative to their speed at a commit
(daad334). That commit's figures, measured in another session, say little about this one: the
machine's speed moves between sessions (Cattack at daad334 played 1,102 games/s in session 2 and
about 2,000 on session 9's host, the same code through the same loop). So the old code and rule
files are taken out of git (`git archive`, nothing in the checkout changes) and both trees play
the same games through the same loop, in turns of fresh processes, on the same machine in the
same minutes:

    python benchmarks/then_and_now.py [--commit daad334] [--games N] [--rounds R] [--json]

Each process loads one file from one tree (not timed), plays a few games to warm, then times
games 0..N-1 (`play_game` with random agents; thread CPU time). Each round runs one process of
each tree, old first in even rounds and new first in odd ones; a round's ratio is its two
times' (the same seeds). The ratio shown is the median of the rounds' ratios (a round the
machine slowed in counts for one); the games/s are each tree's over all rounds. Measured against
itself (`--commit HEAD` on a clean checkout), the summed times gave 0.96-1.00: a process's speed
moves by a few per cent, far less than the 3x it is there to measure.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

BASE_COMMIT = "daad334"  # issue 11: "at least 3x their speed at daad334"
GOAL = 3.0
NAMES = ("cattack", "tanto-cuore-beach-volleyball", "volleyball-high")
WARM = 10  # games played before the timing starts (seeds past the timed ones)
_RUNNER = "--run-one"  # the argument that makes this script the child that plays


def run_one(tree: str, name: str, games: int) -> dict:
    """In the child: load `name` from the vbr in `tree`, play, and return the timing."""
    sys.path.insert(0, tree)
    import vbr
    from vbr.play import play_game
    here = os.path.realpath(os.path.dirname(vbr.__file__))
    if here != os.path.realpath(os.path.join(tree, "vbr")):
        return {"error": f"imported vbr from {here}, not from {tree}"}
    game = vbr.load(name)
    agents = ["random"] * game.seats
    for seed in range(games, games + WARM):
        play_game(game, seed, agents)
    choices = 0
    start = time.thread_time()
    for seed in range(games):
        choices += play_game(game, seed, agents).choices
    return {"seconds": time.thread_time() - start, "choices": choices}


def extract(root: str, commit: str, into: str) -> str | None:
    """`vbr/` and `rules/` of `commit` written under `into`; None, or why not."""
    try:
        out = subprocess.run(["git", "archive", "--format=tar", commit, "vbr", "rules"], cwd=root,
                             capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return f"git archive failed: {e}"
    if out.returncode != 0:
        return f"git archive {commit}: {out.stderr.decode(errors='replace').strip()}"
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(into, filter="data")
    return None


def child(tree: str, name: str, games: int) -> dict:
    """One fresh process of this script playing `name` from `tree`."""
    cmd = [sys.executable, "-I", os.path.abspath(__file__), _RUNNER, tree, name, str(games)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {out.returncode}: {tail}"}
    return json.loads(out.stdout)


def compare(root: str, commit: str = BASE_COMMIT, names=NAMES, games: int = 300, rounds: int = 5) -> dict:
    """Per file: games/s at `commit` and now (the tree at `root`, as it is on disk), and now/then."""
    with tempfile.TemporaryDirectory(prefix="vbr-then-") as old:
        why = extract(root, commit, old)
        if why is not None:
            return {"commit": commit, "error": why}
        rows = {}
        for name in names:
            totals = {"then": [0.0, 0], "now": [0.0, 0]}
            ratios = []
            error = None
            for i in range(rounds):
                pair = (("then", old), ("now", root))
                took = {}
                for which, tree in (pair if i % 2 == 0 else pair[::-1]):  # neither always first
                    r = child(tree, name, games)
                    if "error" in r:
                        error = f"{which}: {r['error']}"
                        break
                    took[which] = r["seconds"]
                    totals[which][0] += r["seconds"]
                    totals[which][1] += r["choices"]
                if error:
                    break
                ratios.append(took["then"] / took["now"])
            if error:
                rows[name] = {"error": error}
                continue
            n = games * rounds
            then, now = (n / totals[w][0] for w in ("then", "now"))
            speedup = statistics.median(ratios)  # a round the machine slowed in counts for one
            rows[name] = {"games": n, "then_games_per_s": round(then, 1), "now_games_per_s": round(now, 1),
                          "then_choices_per_game": round(totals["then"][1] / n, 2),
                          "now_choices_per_game": round(totals["now"][1] / n, 2),
                          "speedup": round(speedup, 3), "speedups": [round(x, 3) for x in ratios],
                          "goal": GOAL, "meets_goal": speedup >= GOAL}
        return {"commit": commit, "games": games, "rounds": rounds, "rows": rows}


def print_comparison(res: dict) -> None:
    if "error" in res:
        print(f"against {res['commit']}: cannot measure ({res['error']})")
        return
    print(f"now against {res['commit']}, both measured now ({res['rounds']} rounds of {res['games']} games a tree, "
          f"fresh processes, thread CPU time)")
    print(f"{'rules':30} {'then games/s':>13} {'now games/s':>12} {'now/then':>9}  goal  (each round's now/then)")
    for name, r in res["rows"].items():
        if "error" in r:
            print(f"{name:30} cannot measure: {r['error']}")
            continue
        print(f"{name:30} {r['then_games_per_s']:13.1f} {r['now_games_per_s']:12.1f} {r['speedup']:9.3f}  "
              f">= {r['goal']:.1f}: {'met' if r['meets_goal'] else 'not met'}  ({', '.join(f'{x:.3f}' for x in r['speedups'])})")


def repo_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [_RUNNER]:
        tree, name, games = argv[1], argv[2], int(argv[3])
        print(json.dumps(run_one(tree, name, games)))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commit", default=BASE_COMMIT, help=f"the earlier commit (default {BASE_COMMIT})")
    ap.add_argument("--games", type=int, default=300, help="games a process times (default 300)")
    ap.add_argument("--rounds", type=int, default=5, help="processes per tree and file (default 5)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    res = compare(repo_root(), args.commit, NAMES, args.games, args.rounds)
    print(json.dumps(res, sort_keys=True)) if args.json else print_comparison(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
