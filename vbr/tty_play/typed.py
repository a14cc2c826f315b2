"""A typed engine's game (vbr.engines.game) as the terminal session plays it: what the session
and the screen read (`pending`, `result`, `choices`, `log`, `apply_index`, `legal_actions`,
`outcome`, `observation`), and agents that answer as `vbr run` answers (vbr.play.typed_decision)."""
from __future__ import annotations

from dataclasses import dataclass

from vbr.ir.layout import Header as H


@dataclass
class Pending:
    seat: int
    options: list[int]


class TypedPlay:
    """One game through a typed engine, logged."""

    def __init__(self, game, seed: int):
        self.game = game
        self.log: list = []
        self.state = game.new_state(seed, log=self.log)

    @property
    def pending(self) -> Pending | None:
        st = self.state
        return None if st.is_terminal() else Pending(st.current_player(), st.options())

    @property
    def result(self):
        return self.state.outcome()

    @property
    def choices(self) -> int:
        return int(self.state.words[H.CHOICES])

    def apply_index(self, i: int) -> None:
        self.state.apply_index(i)

    def legal_actions(self):
        return self.state.legal_actions()

    def outcome(self):
        return self.state.outcome()

    def phase(self) -> str:
        """The phase being played: the unit of the stack's first frame, when it is a phase."""
        p = self.game.program
        unit = p.units[int(self.state.words[p.layout.stack + 1])]
        return unit.name if unit.kind == "phase" else ""

    def observation(self, seat: int) -> dict:
        """What `seat` may know (State.observation), its phase the one the screen shows: the
        phase of the stack's first frame, also once the game is over."""
        obs = self.state.observation(seat)
        obs["phase"] = self.phase()
        return obs


class TypedAgent:
    """A seat's agent over a TypedPlay: random, first, greedy or mcts, drawing from its own stream."""

    def __init__(self, play: TypedPlay, kind: str, params: dict, stream: int):
        self.play, self.kind, self.params, self.stream = play, kind, params, stream

    def act(self) -> int:
        from vbr.play import typed_decision
        choice, self.stream = typed_decision(self.play.state, self.kind, self.params, self.stream)
        return choice
