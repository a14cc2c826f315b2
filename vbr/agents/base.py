"""What an agent may see and do."""
from __future__ import annotations

import random

from vbr.agents.spec import Param
from vbr.seeds import derive


class SeatView:
    """One seat's window on a state: legal actions, observation, and imagined continuations."""

    __slots__ = ("_state", "seat", "allowed")

    def __init__(self, state, seat: int):
        self._state = state
        self.seat = seat
        self.allowed = None  # the indices a restricted seat may take now (vbr.restrict), None: all

    def candidates(self) -> list[int]:
        """The indices of the legal actions this seat may take: all of them, unless its play is
        restricted (`--restrict`), when the play loop has narrowed them."""
        return list(self.allowed) if self.allowed is not None else list(range(self.option_count()))

    def legal_actions(self):
        return self._state.legal_actions()

    def option_count(self) -> int:
        return len(self._state.pending.options)

    def observation(self) -> dict:
        return self._state.observation(self.seat)

    def imagine(self, seed: int):
        """A state consistent with what this seat knows, hidden cards re-dealt, dice reseeded."""
        return self._state.determinize(self.seat, seed)


class Agent:
    """An agent's settings are declared in `params` so that specs (`greedy:samples=4`) can be
    checked, listed in `--help` and written back canonically; each becomes an attribute."""

    name = "agent"
    summary = ""
    params: tuple[Param, ...] = ()

    def __init__(self, seat: int, seed: int, **settings):
        unknown = set(settings) - {p.name for p in self.params}
        if unknown:
            raise TypeError(f"{self.name} has no parameter {', '.join(sorted(unknown))}")
        for p in self.params:
            setattr(self, p.name, settings.get(p.name, p.default))
        self.seat = seat
        self.rng = random.Random(derive(seed, seat + 1))

    def below(self, n: int) -> int:
        return (self.rng.getrandbits(64) * n) >> 64  # rng.below, written out: once per choice

    def seed(self) -> int:
        """A fresh seed from this agent's stream (for imagined worlds)."""
        return self.rng.getrandbits(64)

    def act(self, view: SeatView) -> int:
        """The index of the chosen legal action."""
        raise NotImplementedError
