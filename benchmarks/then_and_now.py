"""The bundled files' random games/s now against at an earlier commit, both measured now.

Issue 11 sets the files without a hand-written twin a goal relative to their speed at a commit
(daad334). That commit's figures, measured in another session, say little about this one: the
machine's speed moves between sessions (Cattack at daad334 played 1,102 games/s in session 2 and
about 2,000 on session 9's host, the same code through the same loop). So the old code and rule
files are taken out of git (`git archive`, nothing in the checkout changes) and both trees play
the same games through the same loop, on the same machine in the same moments:

    python benchmarks/then_and_now.py [--commit daad334] [--games N] [--rounds R] [--json]

For each file, two player processes, one per tree, each load the file (not timed) and play a few
games to warm; then they take turns in blocks of 20 games on the same seeds (old 0-19, new 0-19,
old 20-39, ...), as bench.py's Siatkas do in one process, each timing its own blocks in thread
CPU time. Turns of a few milliseconds put both through the same stretches of a shared machine;
separate runs of each tree did not (one process against another of the same code gave ratios
from 0.95 to 2.1 in a busy hour). A round is N games of each; the ratio shown is the median of
the rounds' ratios, the games/s each tree's over all rounds.
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
WARM = 10  # games each player plays before the timing starts (seeds far from the timed ones)
BLOCK = 20  # games a player plays before the other takes its turn
_RUNNER = "--player"  # the argument that makes this script a player process


def player(tree: str, name: str) -> None:
    """The child: load `name` from the vbr in `tree`, then answer `play A B` (seeds A..B-1) with
    the thread CPU seconds and choices, one JSON line each, until its input ends."""
    sys.path.insert(0, tree)
    import vbr
    from vbr.play import play_game
    here = os.path.realpath(os.path.dirname(vbr.__file__))
    if here != os.path.realpath(os.path.join(tree, "vbr")):
        print(json.dumps({"error": f"imported vbr from {here}, not from {tree}"}), flush=True)
        return
    game = vbr.load(name, engine="closure")
    agents = ["random"] * game.seats
    for seed in range(10**6, 10**6 + WARM):
        play_game(game, seed, agents)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        _, a, b = line.split()
        choices = 0
        start = time.thread_time()
        for seed in range(int(a), int(b)):
            choices += play_game(game, seed, agents).choices
        print(json.dumps({"seconds": time.thread_time() - start, "choices": choices}), flush=True)


class Player:
    """A player process of one tree, and its answers."""

    def __init__(self, tree: str, name: str):
        cmd = [sys.executable, "-I", os.path.abspath(__file__), _RUNNER, tree, name]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        if hasattr(os, "sched_setaffinity"):  # both players on one CPU: the same caches and clock
            try:
                os.sched_setaffinity(self.proc.pid, {min(os.sched_getaffinity(0))})
            except OSError:
                pass
        self.error = self.answer().get("error")

    def answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=60)
            tail = (self.proc.stderr.read().strip().splitlines() or ["no output"])[-1]
            return {"error": f"exit {self.proc.returncode}: {tail}"}
        return json.loads(line)

    def play(self, a: int, b: int) -> dict:
        self.proc.stdin.write(f"play {a} {b}\n")
        self.proc.stdin.flush()
        return self.answer()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


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


def compare(root: str, commit: str = BASE_COMMIT, names=NAMES, games: int = 300, rounds: int = 5) -> dict:
    """Per file: games/s at `commit` and now (the tree at `root`, as it is on disk), and now/then."""
    with tempfile.TemporaryDirectory(prefix="vbr-then-") as old:
        why = extract(root, commit, old)
        if why is not None:
            return {"commit": commit, "error": why}
        rows = {name: _row(old, root, name, games, rounds) for name in names}
        return {"commit": commit, "games": games, "rounds": rounds, "block": BLOCK, "rows": rows}


def _row(old: str, root: str, name: str, games: int, rounds: int) -> dict:
    players = {"then": Player(old, name), "now": Player(root, name)}
    try:
        for which, p in players.items():
            if p.error:
                return {"error": f"{which}: {p.error}"}
        totals = {"then": [0.0, 0], "now": [0.0, 0]}
        ratios = []
        for _ in range(rounds):
            took = {"then": 0.0, "now": 0.0}
            for a in range(0, games, BLOCK):
                for which, p in players.items():
                    r = p.play(a, min(a + BLOCK, games))
                    if "error" in r:
                        return {"error": f"{which}: {r['error']}"}
                    took[which] += r["seconds"]
                    totals[which][0] += r["seconds"]
                    totals[which][1] += r["choices"]
            ratios.append(took["then"] / took["now"])
    finally:
        for p in players.values():
            p.close()
    n = games * rounds
    then, now = (n / totals[w][0] for w in ("then", "now"))
    speedup = statistics.median(ratios)
    return {"games": n, "then_games_per_s": round(then, 1), "now_games_per_s": round(now, 1),
            "then_choices_per_game": round(totals["then"][1] / n, 2),
            "now_choices_per_game": round(totals["now"][1] / n, 2),
            "speedup": round(speedup, 3), "speedups": [round(x, 3) for x in ratios],
            "goal": GOAL, "meets_goal": speedup >= GOAL}


def print_comparison(res: dict) -> None:
    if "error" in res:
        print(f"against {res['commit']}: cannot measure ({res['error']})")
        return
    print(f"now against {res['commit']}, both measured now ({res['rounds']} rounds of {res['games']} games a tree, "
          f"in turns of {res['block']} games, thread CPU time)")
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
        player(argv[1], argv[2])
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
