"""Playing whole games through the API: agents in seats, a seed, an optional log."""
from __future__ import annotations

from dataclasses import dataclass, field

from vbr.agents import AGENTS, SeatView, make_agent, parse_agent, parse_agent_list
from vbr.agents.simple import RandomAgent


@dataclass
class GameResult:
    winner: int | None  # the winning seat; the winning team in a game of teams
    points: tuple | None
    choices: int
    state: object = None
    forced: int = 0  # choices that offered one legal option
    options: int = 0  # legal options offered, summed over all choices
    first_side: int | None = None  # the side (seat, or team) that made the first choice
    score_track: list = field(default_factory=list)  # (choices so far, score) after each change


# the spec `random` makes a RandomAgent with no settings (what play_game's shortcut assumes)
_RANDOM_IS_PLAIN = AGENTS.get("random") is RandomAgent and parse_agent("random") == ("random", {})


def parse_agents(spec: str | None, seats: int) -> list[str]:
    """One canonical agent spec per seat (the grammar is in vbr/agents/spec.py)."""
    return parse_agent_list(spec, seats)


def play_game(game, seed: int, agent_names: list[str], record: bool = False, trace: bool = False,
              log_sink: list | None = None) -> GameResult:
    """Play one game to its end. `log_sink` receives the state as soon as it exists, so that a
    caller can still show the play so far when a rule file fails at run time.

    Besides the outcome, the loop keeps what balance metrics need and only the loop can see: how
    many options each choice offered, and the score after every choice that changed it."""
    state = game.new_state(seed, record=record, trace=trace, sink=log_sink)
    # A random agent's pick is written into the loop below (RandomAgent.act: the same draw from the
    # same generator), so a seat played by `random` needs only that generator, seeded as
    # Agent.__init__ seeds it; any other agent is made from its spec and asked.
    acts, views, draws = [], [], []
    derive, generator = game.program.derive, game.program.generator  # R.derive and R.generator, or their compiled forms
    for seat, name in enumerate(agent_names):
        agent_seed = derive(seed, 7919, seat)
        if name == "random" and _RANDOM_IS_PLAIN:
            acts.append(None)
            views.append(None)
            draws.append(generator(derive(agent_seed, seat + 1)).getrandbits)  # random.Random(...), seeded alike
            continue
        agent = make_agent(name, seat, agent_seed)
        acts.append(agent.act)
        views.append(SeatView(state, seat))  # one window per seat, reused
        draws.append(agent.rng.getrandbits if type(agent) is RandomAgent else None)
    side_of = _side_of(game)
    first_side = side_of[state.pending.seat] if state.pending is not None else None
    track: list = []
    score = state.points()
    # the score read in place (State.points without a call): vals[lo:hi], compared as a list
    lo, hi = (game.program.points[0], sum(game.program.points)) if score is not None else (0, 0)
    forced = options = 0
    if state.log is None and None not in draws:  # every seat random: the loop is State.play_random's
        options, forced = state.play_random(draws, lo, hi, track if score is not None else None)
    apply = state.apply_index
    last = state.vals[lo:hi] if score is not None else None
    while state.result is None:
        pending = state.pending
        seat = pending.seat
        k = len(pending.options)
        options += k
        forced += k == 1
        draw = draws[seat]
        apply((draw(64) * k) >> 64 if draw is not None else acts[seat](views[seat]))
        if last is not None:
            now = state.vals[lo:hi]
            if now != last:
                last = now
                track.append((state.choices, tuple(now)))
    out = state.result
    winner = out.team if _teamed(game) else out.winner
    return GameResult(winner, out.points, state.choices, state, forced, options, first_side, track)


def sides(game) -> int:
    """How many sides can win: teams in a game of teams, seats otherwise."""
    return len(game.program.teams) if _teamed(game) else game.seats


def side_names(game) -> list[str]:
    """The sides as the rule file names them (its team names), else `seat N`."""
    if _teamed(game):
        names = _team_names(game)
        return [f"team {n}" for n in names] if names else [f"team {i}" for i in range(sides(game))]
    return [f"seat {i}" for i in range(game.seats)]


def _team_names(game) -> list[str] | None:
    """The names of the `seats ... teams { ... }` declaration in force (the one whose teams the
    program has: a file may declare several, one per option)."""
    from vbr.grammar import ast as A
    for d in game.rules.decls:
        if isinstance(d, A.Seats) and [list(t.seats) for t in d.teams] == game.program.teams:
            return [t.name for t in d.teams]
    return None


def _side_of(game) -> list[int]:
    prog = game.program
    return list(prog.team_of) if _teamed(game) else list(range(prog.seats))


def _teamed(game) -> bool:
    """Games where a team has several seats, or none (a side the rules play), are won, and
    counted, by team."""
    return game.program.by_team
