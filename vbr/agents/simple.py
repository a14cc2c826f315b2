"""The stock agents: random, first legal, and a greedy one-step lookahead that prefers scoring."""
from __future__ import annotations

from vbr.agents.base import Agent, SeatView
from vbr.agents.spec import AGENTS, parse_agent


class RandomAgent(Agent):
    name = "random"

    def act(self, view: SeatView) -> int:
        if view.allowed is not None:
            return view.allowed[self.below(len(view.allowed))]
        return (self.rng.getrandbits(64) * view.option_count()) >> 64  # self.below, written out


class FirstAgent(Agent):
    name = "first"

    def act(self, view: SeatView) -> int:
        return view.candidates()[0]


class GreedyAgent(Agent):
    """Tries each legal action on a few imagined copies of the state (hidden cards re-dealt, dice
    reseeded), and keeps the one whose immediate result is best for its side: a win first, then
    its points lead. Ties are broken at random so it does not always pick the first option."""

    name = "greedy"
    params = AGENTS["greedy"].params

    def act(self, view: SeatView) -> int:
        candidates = view.candidates()
        if len(candidates) == 1:
            return candidates[0]
        best, best_score = [], None
        for i in candidates:
            total = 0.0
            for _ in range(self.samples):
                world = view.imagine(self.seed())  # each imagined world from its own seed
                world.apply_index(i)
                total += self.value(world)
            if best_score is None or total > best_score:
                best, best_score = [i], total
            elif total == best_score:
                best.append(i)
        return best[self.below(len(best))]

    def value(self, state) -> float:
        prog = state.prog
        out = state.outcome()
        if out is not None:
            if out.team is None:
                return 0.0
            return 1000.0 if out.team == prog.team_of[self.seat] else -1000.0
        pts = state.points()
        if not pts:
            return 0.0
        side = self.seat if len(pts) == prog.seats else prog.team_of[self.seat]
        others = [p for j, p in enumerate(pts) if j != side]
        return float(pts[side] - (max(others) if others else 0))


def make_agent(spec: str, seat: int, seed: int) -> Agent:
    """A closure-engine agent from its spec (`greedy`, `mcts:iterations=400`), its parameters checked."""
    from vbr.agents.mcts import MctsAgent
    name, params = parse_agent(spec)
    kinds = {"random": RandomAgent, "first": FirstAgent, "greedy": GreedyAgent, "mcts": MctsAgent}
    return kinds[name](seat, seed, **params)
