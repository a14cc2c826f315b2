"""Playing whole games through the API: agents in seats, a seed, an optional log."""
from __future__ import annotations

from dataclasses import dataclass

from vbr.agents import SeatView, make_agent, parse_agent_list
from vbr.interpreter import rng as R


@dataclass
class GameResult:
    winner: int | None  # the winning seat; the winning team in a game of teams
    points: tuple | None
    choices: int
    state: object = None


def parse_agents(spec: str | None, seats: int) -> list[str]:
    """One canonical agent spec per seat (the grammar is in vbr/agents/spec.py)."""
    return parse_agent_list(spec, seats)


def play_game(game, seed: int, agent_names: list[str], record: bool = False, trace: bool = False,
              log_sink: list | None = None) -> GameResult:
    """Play one game to its end. `log_sink` receives the state as soon as it exists, so that a
    caller can still show the play so far when a rule file fails at run time."""
    state = game.new_state(seed, record=record, trace=trace, sink=log_sink)
    agents = [make_agent(name, seat, R.derive(seed, 7919, seat)) for seat, name in enumerate(agent_names)]
    views = [SeatView(state, seat) for seat in range(len(agents))]  # one window per seat, reused
    acts = [agent.act for agent in agents]
    apply = state.apply_index
    while state.result is None:
        seat = state.pending.seat
        apply(acts[seat](views[seat]))
    out = state.result
    winner = out.team if _teamed(game) else out.winner
    return GameResult(winner, out.points, state.choices, state)


def _teamed(game) -> bool:
    """Games where a team has several seats, or none (a side the rules play), are won, and
    counted, by team."""
    return any(len(t) != 1 for t in game.program.teams)
