"""What a search agent pays per step: clone, determinize and apply on mid-game states.

    python benchmarks/search.py [--quick] [--json] [--rules NAME ...] [--engine python|c]

A search copies the state it is asked about thousands of times per move, re-deals what its seat cannot see (`determinize`), and plays choices on the copies
(`apply_index`). For every bundled rule file this takes mid-game states (random agents from seeds
0, 1, ..., stopped at half of the game's typical length, at a pending choice) in a typed engine
(`--engine`, python by default) and measures, per
second of this thread's CPU time (`time.thread_time`, so that other work on a shared machine
counts less):

- **clone**: `state.clone()`;
- **determinize**: `state.determinize(seat, seed)`, the seat to choose imagining;
- **step**: `state.clone()` and one `apply_index` on the copy (a tree's expansion);
- **apply**: `apply_index` in random playouts from a copy to the end (a rollout), per choice.

Each figure is the median of `--runs` rounds; within a round the four are measured in turn, so
all meet the same machine.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

import vbr
from vbr.loader import bundled_names

clock = time.thread_time


def mid_game_states(game, count: int) -> list:
    """`count` states half way through games between random agents, each at a pending choice."""
    lengths = []
    for seed in range(8):  # the typical length of a game
        st = game.new_state(seed)
        r = random.Random(seed)
        while not st.is_terminal():
            st.apply_index((r.getrandbits(64) * len(st.options())) >> 64)
        lengths.append(st.choices)
    half = max(1, int(statistics.median(lengths)) // 2)
    states = []
    seed = 0
    while len(states) < count:
        st = game.new_state(1000 + seed)
        r = random.Random(1000 + seed)
        seed += 1
        while not st.is_terminal() and st.choices < half:
            st.apply_index((r.getrandbits(64) * len(st.options())) >> 64)
        if not st.is_terminal():
            states.append(st)
    return states


def rate(work, budget: float) -> float:
    """Calls of `work()` per CPU second (each call does one unit), over at least `budget` s."""
    done = 0
    start = clock()
    while True:
        done += work()
        spent = clock() - start
        if spent >= budget:
            return done / spent


def measure(states: list, budget: float) -> dict:
    r = random.Random(12345)
    bits = r.getrandbits

    def clones():
        for s in states:
            s.clone()
        return len(states)

    def determinizes():
        for s in states:
            s.determinize(s.current_player(), bits(64))
        return len(states)

    def steps():
        for s in states:
            c = s.clone()
            c.apply_index((bits(64) * len(c.options())) >> 64)
        return len(states)

    def playouts():
        applied = 0
        for s in states:
            c = s.clone()
            start = c.choices
            while not c.is_terminal():
                c.apply_index((bits(64) * len(c.options())) >> 64)
            applied += c.choices - start
        return applied

    return {"clone_per_s": rate(clones, budget), "determinize_per_s": rate(determinizes, budget),
            "step_per_s": rate(steps, budget), "apply_per_s": rate(playouts, budget)}


def run(names: list[str], count: int, budget: float, runs: int, engine: str = "python") -> dict:
    games = {name: vbr.load(name, engine=engine) for name in names}
    states = {name: mid_game_states(games[name], count) for name in names}
    rounds: dict[str, list[dict]] = {name: [] for name in names}
    for _ in range(runs):
        for name in names:  # every file each round: a slow patch of the machine hits them all
            rounds[name].append(measure(states[name], budget))
    out = {}
    for name in names:
        keys = rounds[name][0].keys()
        out[name] = {k: round(statistics.median(r[k] for r in rounds[name])) for k in keys}
        out[name]["mid_game_choice"] = states[name][0].choices
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short rounds (about 5 s in all)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--rules", nargs="*", help="rule files (default: every bundled one)")
    ap.add_argument("--runs", type=int, default=None, help="rounds (the median is shown; default 5, --quick 1)")
    ap.add_argument("--engine", choices=("python", "c"), default="python", help="the typed engine (default python)")
    args = ap.parse_args(argv)
    names = args.rules or bundled_names()
    budget, runs = (0.15, 1) if args.quick else (0.4, 5)
    res = run(names, 20, budget, args.runs or runs, args.engine)
    if args.json:
        print(json.dumps(res, sort_keys=True))
        return 0
    w = max(len(n) for n in names)
    print(f"{'rules':{w}} {'clone/s':>9} {'determinize/s':>14} {'step/s':>9} {'apply/s':>9}  (thread CPU time, median of rounds)")
    for name, r in res.items():
        print(f"{name:{w}} {r['clone_per_s']:9} {r['determinize_per_s']:14} {r['step_per_s']:9} {r['apply_per_s']:9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
