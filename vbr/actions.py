"""What every engine hands out: a choice as text (`Action`) and how a game ended (`Outcome`)."""
from __future__ import annotations

from dataclasses import dataclass

from vbr.errors import InvalidActionError


@dataclass(frozen=True)
class Action:
    """A choice as text: `seat value`, e.g. `0 forward`, `1 #17`, `0 pass`. Parses back to itself."""

    seat: int
    text: str

    def __str__(self) -> str:
        return f"{self.seat} {self.text}"

    @classmethod
    def parse(cls, s: str) -> "Action":
        """The action the text `s` names; anything else (no `SEAT VALUE`, or no string) is an
        InvalidActionError."""
        if not isinstance(s, str):
            raise InvalidActionError(f"{s!r} is not an action (expected the text `SEAT VALUE`, e.g. `0 pass`)")
        head, _, rest = s.strip().partition(" ")
        if not (head.isascii() and head.isdigit()) or not rest:  # `²` is a digit to isdigit, not to int()
            raise InvalidActionError(f"{s!r} is not an action (expected `SEAT VALUE`, e.g. `0 pass`)")
        return cls(int(head), rest.strip())


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winning side (None for a draw) and the final points.

    `winner` is a seat; in a game of teams `team` is the winning team, and `winner` its first
    seat when the team as a whole won (`end winner team T`). Its text names the winner and the
    points in seat (or team) order: `seat 0 wins (3, -1)`."""

    winner: int | None
    points: tuple | None
    team: int | None = None
    by_team: bool = False

    def __str__(self) -> str:
        if self.by_team:
            who = f"team {self.team} wins"
        elif self.winner is None:
            who = "draw"
        else:
            who = f"seat {self.winner} wins"
        return who + (f" ({', '.join(map(str, self.points))})" if self.points else "")
