"""MCTS iterations per CPU-second on Siatka and Pig: the typed program's search in its Python
engine (vbr/engines/python_search.py) and in C (c_search.c); then `vbr sim`-like runs of mcts
against random in C, seats alternated, and the CPU time they take.

    python benchmarks/typed_search.py [--blocks 3] [--positions 8] [--games 200] [--json]
    python benchmarks/typed_search.py --book rules/cattack.vbr [--games 0]

`--book FILE` (repeatable) searches those rule files instead of Siatka and Pig; `--games 0`
leaves out the games of mcts against random.

Each search starts at decision points of random games (choices of one option left out). The
implementations take turns in blocks, so a busy minute slows all of them alike.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vbr.engines.game import load as load_typed  # noqa: E402
from vbr.ir import random_streams as R  # noqa: E402

GAMES = {"Siatka": ROOT / "rules" / "siatka.vbr", "Pig": ROOT / "examples" / "pig.vbr"}
ITERATIONS = {"typed, Python engine": 100, "typed, C engine": 2000}


def walk_positions(game, count: int, over, options) -> list:
    """Every third choice, when it offers two or more options, along random games: `over(state)`
    and `options(state)` read the engine's state."""
    out, seed, rng = [], 0, R.first_state(1, R.key("benchmark answers"))
    while len(out) < count:
        s, k = game.new_state(seed), 0
        while not over(s) and len(out) < count:
            n = options(s)
            k += 1
            if n > 1 and k % 3 == 0:
                out.append(s.clone())
            rng, i = R.below(rng, n)
            s.apply_index(i)
        seed += 1
    return out


def typed_positions(game, count: int) -> list:
    return walk_positions(game, count, lambda s: s.is_terminal(), lambda s: len(s.legal_actions()))


def searchers(path: Path, positions: int) -> dict:
    """Per implementation: (search one position with seed k, the positions)."""
    py, c = load_typed(path, {}, engine="python"), load_typed(path, {}, engine="c")

    def typed_search(iterations):
        return lambda state, k: state.mcts(iterations=iterations, budget=0, seed=k)  # exactly that many

    return {
        "typed, Python engine": (typed_search(ITERATIONS["typed, Python engine"]), typed_positions(py, positions)),
        "typed, C engine": (typed_search(ITERATIONS["typed, C engine"]), typed_positions(c, positions)),
    }


def iteration_rates(blocks: int, positions: int, games: dict) -> dict:
    rates = {}
    for title, path in games.items():
        runs = searchers(path, positions)
        spent = {name: [0.0, 0] for name in runs}
        for b in range(blocks):
            for name, (search, states) in runs.items():
                t = time.process_time()
                for k, state in enumerate(states):
                    search(state, b * 1000 + k)
                spent[name][0] += time.process_time() - t
                spent[name][1] += ITERATIONS[name] * len(states)
        rates[title] = {name: n / t for name, (t, n) in spent.items()}
    return rates


def sim(path: Path, games: int, iterations: int) -> dict:
    """mcts against random in C, seats alternated: the searcher's wins and the CPU time."""
    g = load_typed(path, {}, engine="c")
    rng, wins, decisions = R.first_state(2, R.key("benchmark opponent")), 0, 0
    t = time.process_time()
    for game in range(games):
        s, searcher, k = g.new_state(game), game % 2, 0
        while not s.is_terminal():
            if s.current_player() == searcher:
                s.apply_index(s.mcts(iterations=iterations, budget=0, seed=game * 100_000 + k))
                decisions += 1
            else:
                rng, i = R.below(rng, len(s.legal_actions()))
                s.apply_index(i)
            k += 1
        wins += s.outcome().winner == searcher
    return {"games": games, "iterations": iterations, "mcts wins": wins, "decisions": decisions,
            "cpu seconds": time.process_time() - t}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument("--positions", type=int, default=8, help="decision points searched per block and game")
    ap.add_argument("--games", type=int, default=200, help="games of mcts against random in C, per rule file")
    ap.add_argument("--iterations", type=int, default=200, help="mcts iterations per decision in those games")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--book", type=Path, action="append", help="a rule file to search instead of Siatka and Pig")
    args = ap.parse_args(argv)
    games = {p.stem: p for p in args.book} if args.book else GAMES
    rates = iteration_rates(args.blocks, args.positions, games)
    sims = {title: sim(path, args.games, args.iterations) for title, path in games.items()} if args.games else {}
    if args.json:
        print(json.dumps({"iterations per cpu second": rates, "mcts against random in C": sims}, indent=2))
        return 0
    print(f"{'mcts iterations per CPU-second':32s}" + "".join(f"{t:>14s}" for t in games))
    for name in ITERATIONS:
        print(f"{name:32s}" + "".join(f"{rates[t][name]:14,.0f}" for t in games))
    print(f"{'  C / typed Python':32s}" + "".join(
        f"{rates[t]['typed, C engine'] / rates[t]['typed, Python engine']:13.1f}x" for t in games))
    if not sims:
        return 0
    print()
    print(f"{'mcts against random in C':32s}" + "".join(f"{t:>14s}" for t in games))
    for key in ("games", "iterations", "mcts wins", "decisions"):
        print(f"{key:32s}" + "".join(f"{sims[t][key]:14,d}" for t in games))
    print(f"{'CPU seconds':32s}" + "".join(f"{sims[t]['cpu seconds']:14.2f}" for t in games))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
