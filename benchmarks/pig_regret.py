"""How much win probability the search agent gives away at Pig against "hold at 20" (a script,
not a test): every decision of the search is scored against the best response's action values.

    python benchmarks/pig_regret.py [-n GAMES] [--specs mcts;mcts:iterations=400]

Against a fixed opponent Pig is a one-player game of chance, so value iteration over (own score,
other score, turn total) gives the best response's win probability W and, for every decision,
the value of rolling and of holding. A decision's regret is the best value minus the value of the
option taken; summed over a game's decisions and averaged over games it is exactly what the
agent's win rate falls short of the best response's (the performance difference lemma), with far
less noise than counting wins: 200 games measure a win rate to about ±0.3 points, where counting
wins needs 20,000. The games are search_ladder.py's (the same deals, seats rotated, the C engine).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.search_ladder import PIG, PIG_TURN_TOTAL, Searcher, hold_at_20  # noqa: E402
from vbr.engines.game import load  # noqa: E402
from vbr.ir import random_streams as R  # noqa: E402
from vbr.sim import game_seed  # noqa: E402

TARGET, HOLD_AT = 100, 20


def opponent_gains() -> np.ndarray:
    """G[j, g]: the chance that hold at 20, starting a turn on j points, banks g (0: a 1 rolled;
    g reaching the target counts as a win at j + g)."""
    G = np.zeros((TARGET, TARGET + 6))
    for j in range(TARGET):
        at = {0: 1.0}
        while at:
            nxt: dict[int, float] = {}
            for t, p in at.items():
                if t >= HOLD_AT or j + t >= TARGET:
                    G[j, t] += p
                    continue
                G[j, 0] += p / 6
                for r in range(2, 7):
                    nxt[t + r] = nxt.get(t + r, 0.0) + p / 6
            at = nxt
    return G


def best_response(tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """(W, B): W[i, j, k] the best response's win probability on its turn with i points, the
    opponent j, turn total k; B[i, j] at the start of the opponent's turn."""
    G = opponent_gains()
    W = np.zeros((TARGET, TARGET, TARGET + 6))
    B = np.zeros((TARGET, TARGET))
    i_, k_ = np.meshgrid(np.arange(TARGET), np.arange(TARGET + 6), indexing="ij")
    banked = i_ + k_ >= TARGET  # holding wins
    while True:
        Wpad = np.concatenate([W[:, :, 0], np.zeros((TARGET, TARGET + 6))], axis=1)  # W[i, j', 0], j' >= target: lost
        B_new = np.einsum("jg,ijg->ij", G[:, :TARGET + 6], np.stack([Wpad[:, j:j + TARGET + 6] for j in range(TARGET)], 1))
        W_new = np.maximum(hold_values(B_new, banked), roll_values(W, B_new))
        delta = max(np.abs(W_new - W).max(), np.abs(B_new - B).max())
        W, B = W_new, B_new
        if delta < tol:
            return W, B


def cached_best_response() -> tuple[np.ndarray, np.ndarray]:
    """best_response(), kept in the system's temporary folder between runs."""
    import tempfile
    path = Path(tempfile.gettempdir()) / f"vbr_pig_best_response_{TARGET}_{HOLD_AT}.npz"
    if path.exists():
        with np.load(path) as f:
            return f["W"], f["B"]
    W, B = best_response()
    np.savez(path, W=W, B=B)
    return W, B


def hold_values(B: np.ndarray, banked: np.ndarray) -> np.ndarray:
    out = np.ones((TARGET, TARGET, TARGET + 6))
    for i in range(TARGET):
        ks = np.arange(TARGET + 6)
        ok = i + ks < TARGET
        out[i][:, ok] = B[i + ks[ok], :].T
    return out


def roll_values(W: np.ndarray, B: np.ndarray) -> np.ndarray:
    Wext = np.concatenate([W, np.ones((TARGET, TARGET, 6))], axis=2)
    out = B[:, :, None] / 6 + sum(Wext[:, :, r:r + TARGET + 6] for r in range(2, 7)) / 6
    return out


def action_values(W, B, i: int, j: int, k: int) -> tuple[float, float]:
    """(roll, hold) for the best response at (i, j, k)."""
    hold = 1.0 if i + k >= TARGET else B[i + k, j]
    roll = B[i, j] / 6 + sum(1.0 if i + k + r >= TARGET else W[i, j, k + r] for r in range(2, 7)) / 6
    return roll, hold


def regret(game, spec: str, n: int, W, B) -> tuple[float, float, float]:
    """(mean regret per game, its standard error, CPU ms per decision) over n games, seats rotated."""
    searcher, at, per_game = Searcher(spec), game.program.layout.vars, []
    for g in range(n):
        seed, side = game_seed(1, g // 2), g % 2
        state, lost = game.new_state(seed), 0.0
        stream = R.first_state(seed * 31 + side, R.key("ladder"))
        while not state.is_terminal():
            seat = state.current_player()
            if seat != side:
                state.apply_index(hold_at_20(state))
                continue
            if len(state.legal_actions()) == 1:  # holding banks the target: hold is the only option
                state.apply_index(0)
                continue
            i, j, k = (int(state.words[at + x]) for x in (seat, 1 - seat, PIG_TURN_TOTAL))
            choice, stream = searcher.choose(state, stream)
            roll, hold = action_values(W, B, i, j, k)
            lost += max(roll, hold) - (roll if choice == 0 else hold)
            state.apply_index(choice)
        per_game.append(lost)
    a = np.array(per_game)
    return float(a.mean()), float(a.std(ddof=1) / np.sqrt(n)), 1000 * searcher.seconds / max(1, searcher.decisions)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--specs", default="mcts")
    args = ap.parse_args(argv)
    W, B = cached_best_response()
    best = (W[0, 0, 0] + B[0, 0]) / 2  # the search first, or the opponent first
    print(f"best response against hold at 20, seats rotated: {best:.4f}")
    game = load(PIG, {}, engine="c")
    print("| agent | regret per game (± s.e.) | expected win rate | CPU per decision |\n|---|---|---|---|")
    for spec in args.specs.split(";"):
        mean, se, ms = regret(game, spec, args.n, W, B)
        print(f"| {spec} | {mean:.4f} ± {se:.4f} | {best - mean:.1%} | {ms:.2f} ms |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
