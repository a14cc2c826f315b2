"""The typed engines' search agent at fixed budgets (a script, not a test): Pig against "hold at 20",
and every bundled rule file against greedy, in the C engine, seats rotated.

    python benchmarks/search_ladder.py pig [-n GAMES] [--specs mcts:iterations=200,...;mcts]
    python benchmarks/search_ladder.py bundled [-n GAMES] [--spec mcts] [--games NAME,NAME]

Pig is examples/pig.vbr at its default target (100), as OpenSpiel's `pig` plays. "Hold at 20"
rolls until its turn total reaches 20, or until holding would bank the target, then holds: the
strategy that maximizes the expected points of a turn. Against it the best response (found by
value iteration over (own score, other score, turn total)) wins 55.5 % of games with seats
rotated, and hold at 20 itself 50 %. The opponent plays through the game API: it reads the seat's
score (the file's points) and the `turn_total` var from the state's words.

Each deal (game i's seed, vbr.sim.game_seed(1, i // 2)) is played with the search in seat 0 and
then in seat 1; in a game of teams, the search plays every seat of its team. CPU time is this
thread's, over the search's own decisions (choices of more than one option), so other work on a
shared machine counts less.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vbr.analysis.stats import wilson  # noqa: E402
from vbr.engines.game import load  # noqa: E402
from vbr.ir import random_streams as R  # noqa: E402
from vbr.loader import bundled_names, resolve  # noqa: E402
from vbr.play import greedy_choice, search_settings, typed_agent  # noqa: E402
from vbr.sim import game_seed  # noqa: E402

PIG = ROOT / "examples" / "pig.vbr"
PIG_TURN_TOTAL = 3  # pig.vbr's vars in declaration order: score[0], score[1], player, turn_total
clock = time.thread_time


def hold_at_20(state, target: int = 100) -> int:
    """Pig's option under "hold at 20" (0 again, 1 hold): hold once the turn total is 20 or more,
    or once holding banks `target`, where hold is the only option (0), as in OpenSpiel's pig."""
    at = state.game.program.layout.vars
    seat = state.current_player()
    score, total = state.words[at + seat], state.words[at + PIG_TURN_TOTAL]
    if score + total >= target:
        return 0
    return 1 if total >= 20 else 0


class Searcher:
    """The search agent of `spec` on one side, its CPU time and decisions counted."""

    def __init__(self, spec: str):
        kind, params = typed_agent(spec)
        if kind != "mcts":
            raise SystemExit(f"{spec}: not an mcts spec")
        self.settings = search_settings(params)
        self.seconds, self.decisions = 0.0, 0

    def choose(self, state, stream: int) -> tuple[int, int]:
        if len(state.legal_actions()) == 1:
            return 0, stream
        stream, seed = R.below(stream, 1 << 62)
        start = clock()
        choice = state.mcts(seed=seed, **self.settings)
        self.seconds += clock() - start
        self.decisions += 1
        return choice, stream


def play(game, seed: int, side: int, searcher: Searcher, rival) -> float:
    """One game, the search on team `side`: 1 for a win, 0.5 for a draw, 0 for a loss. `rival(state,
    stream)` answers for the other seats and returns (option, stream)."""
    state = game.new_state(seed)
    teams = game.program.teams
    team_of = {s: t for t, seats in enumerate(teams) for s in seats}
    streams = [R.first_state(seed * 31 + s, R.key("ladder")) for s in range(game.program.seats)]
    while not state.is_terminal():
        seat = state.current_player()
        ask = searcher.choose if team_of[seat] == side else rival
        choice, streams[seat] = ask(state, streams[seat])
        state.apply_index(choice)
    out = state.outcome()
    won = out.team if out.team is not None else (None if out.winner is None else team_of[out.winner])
    return 0.5 if won is None else float(won == side)


def match(game, spec: str, rival, n: int) -> tuple[float, int, Searcher]:
    searcher = Searcher(spec)
    score = sum(play(game, game_seed(1, i // 2), i % 2, searcher, rival) for i in range(n))
    return score, n, searcher


def greedy_rival(state, stream: int) -> tuple[int, int]:
    return greedy_choice(state, 2, stream)


def row(label: str, score: float, n: int, s: Searcher) -> str:
    lo, hi = wilson(int(score), n)
    per = 1000 * s.seconds / s.decisions if s.decisions else 0.0
    return f"| {label} | {score:g}/{n} = {score / n:.1%} ({lo:.1%}-{hi:.1%}) | {per:.2f} ms |"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["pig", "bundled"])
    ap.add_argument("-n", type=int, default=400, help="games per row (even: each deal in both seatings)")
    ap.add_argument("--specs", default="mcts:depth=10,inner_c=0,tree=open,spread_playouts=0,budget=0,cut=even,spread_scale=1;"
                    "mcts:spread_playouts=0,budget=0,cut=even,spread_scale=1;mcts:cut=even,spread_scale=1,extend=1;mcts",
                    help="Pig: the agents, `;`-separated")
    ap.add_argument("--spec", default="mcts", help="bundled: the agent against greedy")
    ap.add_argument("--games", help="bundled: rule files, comma-separated (default: every bundled one)")
    args = ap.parse_args(argv)
    if args.what == "pig":
        game = load(PIG, {}, engine="c")
        print("| agent | wins against hold at 20 (95% CI) | CPU per decision |\n|---|---|---|")
        for spec in args.specs.split(";"):
            print(row(spec, *match(game, spec, lambda s, st: (hold_at_20(s), st), args.n)), flush=True)
        return 0
    print(f"| game | {args.spec} against greedy (95% CI) | CPU per decision |\n|---|---|---|")
    for name in args.games.split(",") if args.games else bundled_names():
        game = load(resolve(name), {}, engine="c")
        print(row(name, *match(game, args.spec, greedy_rival, args.n)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
