"""How fast and how strong the search agent is, on every bundled rule file (a script, not a test).

    python benchmarks/agents.py [-n GAMES] [--iterations N] [--games NAME,NAME] [--spec SPEC] [--engine c|python]

For each rule file: the search's iterations per second (counted over its own decisions in the games
below, per second of this thread's CPU time, so that other work on a shared machine counts less),
and its win rate against `random` and against `greedy`, with 95% Wilson intervals. The sides
trade places game by game (in a game of teams, the agent takes every seat of one team), so the
agent is not always the first to move. Single process, a typed engine (`--engine`, C by default,
as `vbr sim` plays with a C compiler); each seat's agent draws from its own stream as
`vbr.play.play_typed_game` seeds it; seeds 0..n-1 through vbr.sim.game_seed.
"""
from __future__ import annotations

import argparse
import sys
import time

from vbr.agents import parse_agent
from vbr.analysis.stats import wilson
from vbr.engines.game import load
from vbr.loader import bundled_names, resolve
from vbr.play import typed_agents, typed_decision
from vbr.sim import game_seed

clock = time.thread_time


class Match:
    """Plays `spec` against `rival` game by game, timing the searching agent's decisions."""

    def __init__(self, game, spec: str, rival: str):
        self.game, self.spec, self.rival = game, spec, rival
        self.iterations = parse_agent(spec)[1].get("iterations", 1)
        self.searched = 0  # decisions with more than one option, each `iterations` iterations
        self.seconds = 0.0

    def play(self, seed: int, side: int) -> float:
        """One game with the agent on `side`: 1 for a win, 0.5 for a draw, 0 for a loss."""
        game = self.game
        team_of = game.team_of
        state = game.new_state(seed)
        specs = [self.spec if team_of[s] == side else self.rival for s in range(game.seats)]
        agents = typed_agents(seed, specs)
        streams = [a[2] for a in agents]
        while not state.is_terminal():
            seat = state.current_player()
            kind, params, _ = agents[seat]
            timed = specs[seat] == self.spec and len(state.options()) > 1
            start = clock()
            choice, streams[seat] = typed_decision(state, kind, params, streams[seat])
            if timed:
                self.seconds += clock() - start
                self.searched += 1
            state.apply_index(choice)
        team = state.outcome().team
        return 0.5 if team is None else float(team == side)


def run(name: str, spec: str, n: int, engine: str) -> dict:
    game = load(resolve(name), {}, engine=engine)
    row = {"game": name, "seats": game.seats}
    matches = []
    for rival in ("random", "greedy"):
        match = Match(game, spec, rival)
        start = time.perf_counter()
        score = sum(match.play(game_seed(1, i), i % 2) for i in range(n))
        wins = int(score)  # a draw counts half in the score; the interval takes whole wins only
        row[rival] = (score, wilson(wins, n), time.perf_counter() - start)
        matches.append(match)
    searched = sum(m.searched for m in matches)
    seconds = sum(m.seconds for m in matches)
    row["rate"] = searched * matches[0].iterations / seconds if seconds else 0.0
    row["decisions"] = searched
    return row


def render(row: dict, n: int) -> str:
    parts = [f"{row['game']:<30} {row['rate']:>7.0f} it/s ({row['decisions']} decisions)"]
    for rival in ("random", "greedy"):
        score, (lo, hi), secs = row[rival]
        parts.append(f"vs {rival}: {score:g}/{n} = {score / n:.0%} (95% CI {lo:.0%}-{hi:.0%}, {secs:.0f} s)")
    return "  ".join(parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20, help="games against each rival per rule file (default 20)")
    ap.add_argument("--iterations", type=int, help="the search's budget (default: the agent's own)")
    ap.add_argument("--games", help="rule files, comma-separated (default: every bundled one)")
    ap.add_argument("--spec", default="mcts", help="the agent to measure (default mcts)")
    ap.add_argument("--engine", choices=("c", "python"), default="c", help="the typed engine (default c)")
    args = ap.parse_args(argv)
    spec = args.spec
    if args.iterations:
        spec += f"{',' if ':' in spec else ':'}iterations={args.iterations}"
    names = args.games.split(",") if args.games else bundled_names()
    print(f"{spec} against random and greedy, {args.n} games each, sides alternating")
    start = time.perf_counter()
    for name in names:
        print(render(run(name, spec, args.n, args.engine), args.n), flush=True)
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
