"""What the generated Python of a typed program calls: checked arithmetic, things and zones,
draws. Each function is the Python engine's rule for one operation; the C engine's runtime
(c_runtime.h) has the same rule under the same name, and the differential tests hold them equal.
A state is a list of ints laid out as `vbr.ir.layout` says; `z` below is a zone's first word.
"""
from __future__ import annotations

from vbr.ir import random_streams as R
from vbr.ir.values import CELL_BIAS, CELL_SPAN, INT_MAX, NONE

_GAMMA, _MASK, _TWO64 = R.GAMMA, R.MASK, 1 << 64


class EngineFault(Exception):
    """A located run-time error: message `fault` of the program, naming `a` and `b`."""

    def __init__(self, fault: int, a: int = NONE, b: int = NONE):
        super().__init__(fault)
        self.fault, self.a, self.b = fault, a, b


def fault(f: int, a: int = NONE, b: int = NONE):
    """Raises message f naming a and b (the generated code's slow path)."""
    raise EngineFault(f, a, b)


def fits(r: int, f: int) -> int:
    if -INT_MAX <= r <= INT_MAX:
        return r
    raise EngineFault(f)


def operands(a: int, b: int, f: int) -> None:
    """Arithmetic on none faults with message f + 2 (an arithmetic node's third)."""
    if a == NONE or b == NONE:
        raise EngineFault(f + 2)


def add(a: int, b: int, f: int) -> int:
    operands(a, b, f)
    return fits(a + b, f)


def sub(a: int, b: int, f: int) -> int:
    operands(a, b, f)
    return fits(a - b, f)


def mul(a: int, b: int, f: int) -> int:
    operands(a, b, f)
    return fits(a * b, f)


def div(a: int, b: int, f: int) -> int:
    """Rounds towards minus infinity; a zero divisor faults with message f + 1."""
    operands(a, b, f)
    if b == 0:
        raise EngineFault(f + 1)
    return fits(a // b, f)


def mod(a: int, b: int, f: int) -> int:
    """Takes the divisor's sign; a zero divisor faults with message f + 1."""
    operands(a, b, f)
    if b == 0:
        raise EngineFault(f + 1)
    return a % b


def neg(a: int, f: int) -> int:
    operands(a, 0, f)
    return -a


def index(i: int, n: int, f: int) -> int:
    """i, when it is in 0..n-1."""
    if 0 <= i < n:
        return i
    raise EngineFault(f, i)


def thing_word(S: list, e: int, kind: int, kinds: int, fields: int, width: int, pos: int, f: int) -> int:
    """Where field `pos` of thing e lies, when e is a thing of `kind`."""
    if e == NONE or S[kinds + e] != kind:
        raise EngineFault(f, e)
    return fields + e * width + pos


def distance(a: int, b: int, f: int) -> int:
    """Steps across plus steps along between two cells."""
    if a == NONE or b == NONE:
        raise EngineFault(f)
    return abs(a // CELL_SPAN - b // CELL_SPAN) + abs(a % CELL_SPAN - b % CELL_SPAN)


def cell_at(side: int, row: int, col: int, cols: int, height: int, f: int, too_far: int) -> int:
    """The cell at a row and column of a side, in that side's own frame (Court.cell)."""
    if side == 0:
        x, y = col - 1, row - 1
    elif side == 1:
        x, y = cols - col, height - row
    else:
        raise EngineFault(f, side)
    if not (-CELL_BIAS <= x < CELL_BIAS and -CELL_BIAS <= y < CELL_BIAS):
        raise EngineFault(too_far)
    return (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS)


def reach(table: dict, start: int, dist: int, side: int, f: int) -> list:
    """A row of a `reach` table (build.py's ProgramBuilder.reach_table)."""
    if not 0 <= dist <= 64:
        raise EngineFault(f + 1, dist)
    row = table.get((start, dist, 0 if side == 0 else 1))
    if row is None:
        raise EngineFault(f, start)
    return list(row)


def other(x: int, f: int) -> int:
    if x == 0 or x == 1:
        return 1 - x
    raise EngineFault(f, x)


def on_court(c: int, table: tuple, default: int, spaces: tuple, answers: tuple, cols: int, height: int,
             f: int) -> int:
    """A position function's answer for cell c: the grid's table, a declared space's, or `default`."""
    if c == NONE:
        raise EngineFault(f)
    x, y = c // CELL_SPAN - CELL_BIAS, c % CELL_SPAN - CELL_BIAS
    if 0 <= x < cols and 0 <= y < height:
        return table[x * height + y]
    for s, a in zip(spaces, answers):
        if s == c:
            return a
    return default


def take_out(S: list, z: int, e: int) -> None:
    """Thing e out of the zone at z; the items above it move down one word, the freed word is 0."""
    n = S[z]
    k = S.index(e, z + 1, z + 1 + n)
    S[k:z + n] = S[k + 1:z + 1 + n]
    S[z + n] = 0
    S[z] = n - 1


def put(S: list, z: int, e: int, bottom: bool) -> None:
    n = S[z]
    if bottom:
        S[z + 2:z + 2 + n] = S[z + 1:z + 1 + n]
        S[z + 1] = e
    else:
        S[z + 1 + n] = e
    S[z] = n + 1


def draw_below(S: list, at: int, n: int) -> int:
    """A number in 0..n-1 from the stream whose state is word `at` (random_streams.below,
    written out for its common case: one word drawn, no redraw)."""
    s = (S[at] + _GAMMA) & _MASK
    z = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
    m = (z ^ (z >> 31)) * n
    if m & _MASK < n:
        state, v = R.below(S[at] & _MASK, n)
        S[at] = R.signed(state)
        return v
    S[at] = s - _TWO64 if s >> 63 else s
    return m >> 64


def shuffle(S: list, z: int, at: int) -> None:
    """Fisher-Yates from the top down: position i swaps with one of 0..i."""
    n = S[z]
    for i in range(n - 1, 0, -1):
        j = draw_below(S, at, i + 1)
        a, b = z + 1 + i, z + 1 + j
        S[a], S[b] = S[b], S[a]
