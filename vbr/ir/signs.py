"""Which expressions can never give a negative number: what lets an engine test a checked sum or
difference at one end of the range only (a sum of a value and one never negative never falls
below the value, so it can pass only the top of the range).

An expression never negative is never none either (none is the most negative word).
"""
from __future__ import annotations

from vbr.ir import nodes as N

_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")  # not `and`/`or`: an engine may give an operand


def never_negative(e: N.Expr) -> bool:
    """Whether `e`, whenever it gives a value, gives one of 0 or more: a constant of 0 or more, a
    comparison, `not` or a test of a list (0 or 1), a count, a choice between such values, a sum or product of
    them, a remainder by a positive constant (its sign is the divisor's)."""
    if isinstance(e, N.Const):
        return e.value >= 0
    if isinstance(e, N.IfElse):
        return never_negative(e.then) and never_negative(e.orelse)
    if isinstance(e, N.Aggregate):
        return e.agg in ("count", "any", "all")
    if isinstance(e, N.Contains):
        return True
    if isinstance(e, N.Unary):
        return e.op == "not"
    if isinstance(e, N.Bind):
        return never_negative(e.body)
    if isinstance(e, N.Binary):
        if e.op in _COMPARISONS:
            return True
        if e.op in ("+", "*"):
            return never_negative(e.left) and never_negative(e.right)
        if e.op == "%":
            return isinstance(e.right, N.Const) and e.right.value > 0
    return False
