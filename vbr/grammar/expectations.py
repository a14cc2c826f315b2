"""What a scenario's failed step shows: the comparisons and operands of an expectation, how the
game stands for `expect winner` and `expect draw`."""
from __future__ import annotations

from vbr.grammar import ast as A


def comparisons(e: A.Expr) -> list[A.Expr]:
    """What a failed expectation shows, left to right: every comparison in it, and every other
    operand of its `and`, `or` and `not` (`empty(hand[1])`), outside comprehensions (whose
    variables have no value outside them)."""
    out = []

    def visit(n, in_logic):
        if isinstance(n, A.Comprehension):
            return
        if isinstance(n, A.Binary) and n.op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in"):
            out.append(n)
        elif isinstance(n, A.Binary) and n.op in ("and", "or"):
            visit(n.left, True)
            visit(n.right, True)
            return
        elif isinstance(n, A.Unary) and n.op == "not":
            visit(n.operand, True)
            return
        elif in_logic:
            out.append(n)
            return
        for c in n.children():
            visit(c, False)
    visit(e, False)
    return out


def how_it_stands(result) -> str:
    """The game's end (an outcome with `winner`, `team` and `by_team`, None while it goes on) as
    the end of a sentence: `the game is not over`, `the game was a draw`, `seat 1 won`, `team 0 won`."""
    if result is None:
        return "the game is not over"
    if result.by_team:
        return f"team {result.team} won"
    return "the game was a draw" if result.winner is None else f"seat {result.winner} won"
