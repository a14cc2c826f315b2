"""What the generated Python of a typed program calls: checked arithmetic, things and zones,
draws. Each function is the Python engine's rule for one operation; the C engine's runtime
(c_runtime.h) has the same rule under the same name, and the differential tests hold them equal.
A state is a list of ints laid out as `vbr.ir.layout` says; `z` below is a zone's first word.
"""
from __future__ import annotations

from array import array

from vbr.ir import random_streams as R
from vbr.ir.values import CELL_BIAS, CELL_SPAN, INT_MAX, NONE

_GAMMA, _MASK, _TWO64 = R.GAMMA, R.MASK, 1 << 64


# play_seats' kinds of seat besides random (0) and by hand (1): played on by the C engine
# (c_runtime.h's VBR_PICKED and VBR_FIRST), by hand by the Python engine
GREEDY_SEAT, FIRST_SEAT = 2, 3


class EngineFault(Exception):
    """A located run-time error: message `fault` of the program, naming `a` and `b`. `placed`
    once the generated function it was raised in has written the state back as it stood there
    (its steps, and the frame whose rule a limit of the whole game is located at); the functions
    it passes through on its way out leave the state alone."""

    placed = False

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


def absolute(a: int, f: int) -> int:
    """|a|; of none, a fault."""
    if a == NONE:
        raise EngineFault(f)
    return abs(a)


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
    return row


def reach_search(start: int, dist: int, side: int, dirs: list, net_cost: int, vecs: tuple, cols: int, rows: int,
                 net: int, f: int) -> list:
    """Every end of a movement of exactly `dist` unit steps from `start`, the steps the vectors
    of `dirs` in `side`'s frame (Court.reach, searched in play): a movement never reverses on an
    axis, never leaves the grid, never ends on the net, goes only across the net once on it, and
    pays `net_cost` for entering a net row. The ends in row, then column order."""
    if not 0 <= dist <= 64:
        raise EngineFault(f, dist)
    if net_cost < 0:
        raise EngineFault(f + 1, net_cost)
    if start == NONE or NONE in dirs:
        raise EngineFault(f + 2)
    flip = 1 if side == 0 else -1
    moves = {(vecs[d][0] * flip, vecs[d][1] * flip) for d in dirs}
    height = 2 * rows + net

    def on_net(x: int, y: int) -> bool:
        return 0 <= x < cols and rows <= y < rows + net

    ends, seen = set(), set()
    todo = [(start // CELL_SPAN - CELL_BIAS, start % CELL_SPAN - CELL_BIAS, 0, 0, 0)]
    while todo:
        item = todo.pop()
        if item in seen:
            continue
        seen.add(item)
        x, y, used, sx, sy = item
        if used == dist:
            if not on_net(x, y):
                ends.add((x, y))
            continue
        netted = on_net(x, y)
        for dx, dy in moves:
            if (dx and sx and dx * sx < 0) or (dy and sy and dy * sy < 0) or (netted and not dy):
                continue
            nx, ny = x + dx, y + dy
            if not (0 <= nx < cols and 0 <= ny < height):
                continue
            cost = net_cost if on_net(nx, ny) else 1
            if used + cost <= dist:
                todo.append((nx, ny, used + cost, sx or (dx > 0) - (dx < 0), sy or (dy > 0) - (dy < 0)))
    return [(x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS) for x, y in sorted(ends, key=lambda c: (c[1], c[0]))]


def other(x: int, f: int) -> int:
    if x == 0 or x == 1:
        return 1 - x
    raise EngineFault(f, x)


def dir_vec(dirs: tuple, d: int, f: int) -> tuple:
    """Direction d's (right, forward); of none, a fault."""
    if d == NONE:
        raise EngineFault(f)
    return dirs[d]


def _step(c: int, right: int, forward: int, side: int, n: int, f: int) -> int:
    """`n` times (right, forward) from cell c, in `side`'s frame."""
    if c == NONE:
        raise EngineFault(f)
    x, y = c // CELL_SPAN - CELL_BIAS, c % CELL_SPAN - CELL_BIAS
    if side == 0:
        x, y = x + right * n, y + forward * n
    else:
        x, y = x - right * n, y - forward * n
    if not (-CELL_BIAS <= x < CELL_BIAS and -CELL_BIAS <= y < CELL_BIAS):
        raise EngineFault(f)
    return (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS)


def step_paying(c: int, right: int, forward: int, side: int, n: int, cost: int, cols: int, rows: int, net: int,
                f: int) -> int:
    """`step` with a net cost (Court.step): unit steps of (right, forward) in `side`'s frame until
    n is paid, a step onto a net row paying `cost`, any other 1. A net cost below 0 faults with
    f + 1, n out of 0..1024 with f + 2, a position off the court by more than CELL_BIAS with f (a
    movement only goes on away once it is that far)."""
    if cost < 0:
        raise EngineFault(f + 1, cost)
    if not 0 <= n <= 1024:
        raise EngineFault(f + 2, n)
    if cost == 1 or not net:
        return _step(c, right, forward, side, n, f)
    if c == NONE:
        raise EngineFault(f)
    dx, dy = (right, forward) if side == 0 else (-right, -forward)
    if dx == dy == 0:
        return c
    x, y = c // CELL_SPAN - CELL_BIAS, c % CELL_SPAN - CELL_BIAS
    paid = 0
    while paid < n:
        x, y = x + dx, y + dy
        if not (-CELL_BIAS <= x < CELL_BIAS and -CELL_BIAS <= y < CELL_BIAS):
            raise EngineFault(f)
        paid += cost if 0 <= x < cols and rows <= y < rows + net else 1
    return (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS)


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
    s = (S[at] + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
    m = (z ^ (z >> 31)) * n
    if m & 0xFFFFFFFFFFFFFFFF < n:
        state, v = R.below(S[at] & _MASK, n)
        S[at] = R.signed(state)
        return v
    S[at] = s - 0x10000000000000000 if s > 0x7FFFFFFFFFFFFFFF else s
    return m >> 64


def forced_next(S: list, q: int):
    """The next value a scenario queued at word `q` (`[taken, count, values...]`), taken off
    the queue; None when none is left."""
    taken = S[q]
    if taken >= S[q + 1]:
        return None
    S[q] = taken + 1
    return S[q + 2 + taken]


def forced_roll(S: list, q: int, faces: tuple, at: int) -> int:
    """A forced face when the scenario queued one, else a face drawn from stream word `at`."""
    v = forced_next(S, q)
    return faces[draw_below(S, at, len(faces))] if v is None else v


def forced_pick(S: list, q: int, xs: list, at: int, f: int) -> int:
    """The value a scenario forced for a `pick`, which must be among `xs` (else fault f naming
    it), else an item drawn from stream word `at` (none from no items)."""
    want = forced_next(S, q)
    if want is None:
        return xs[draw_below(S, at, len(xs))] if xs else NONE
    if want not in xs:
        raise EngineFault(f, want)
    return want


def decided(S: list, q: int, n: int, f: int) -> int:
    """The next outcome decided outside for a draw among `n` (an index below n, vbr.ir.chance_program),
    taken off queue `q`; fault f naming n when none is left."""
    v = forced_next(S, q)
    if v is None:
        raise EngineFault(f, n)
    return v


def drew(log, S: list, what: str, site: int, v: int) -> int:
    """v, a draw's value, once `log` has heard it (events.EventLog: `what` is `roll` or `pick`,
    `site` the die or the pick's stream)."""
    log(S, what, site, v)
    return v


def decided_pick(S: list, q: int, xs, room: int, f: int) -> int:
    """The item of `xs` whose index was decided outside, taken off queue `q` (none from no
    items); with none left, the items are written past the queue's values, as many as its `room`
    holds, and fault f names how many items there are and how many were written."""
    if not xs:
        return NONE
    v = forced_next(S, q)
    if v is None:
        at = q + 2 + S[q + 1]
        shown = xs[:max(0, room - S[q + 1])]
        S[at:at + len(shown)] = shown
        raise EngineFault(f, len(xs), len(shown))
    return xs[v]


def decided_shuffle(S: list, z: int, q: int, f: int) -> None:
    """shuffle with each position's partner decided outside (fault f naming i + 1 and the zone's
    word `z` when none is left)."""
    for i in range(S[z] - 1, 0, -1):
        j = forced_next(S, q)
        if j is None:
            raise EngineFault(f, i + 1, z)
        a, b = z + 1 + i, z + 1 + j
        S[a], S[b] = S[b], S[a]


_LANES: dict[int, tuple[int, int, int]] = {}


def _lanes(k: int) -> tuple[int, int, int]:
    """For k lanes of 128 bits in one int: (1 in each lane, the 64-bit mask in each lane, lane i
    holding (i + 1) * GAMMA mod 2**64)."""
    if k not in _LANES:
        one = sum(1 << (128 * i) for i in range(k))
        _LANES[k] = one, one * _MASK, sum(((i + 1) * _GAMMA & _MASK) << (128 * i) for i in range(k))
    return _LANES[k]


def next_words(state: int, k: int) -> tuple[array, array]:
    """The next k states of a stream from `state` (either sign), as signed words, and their
    outputs (random_streams.next_word k times): worked out side by side, each 64-bit number in a
    128-bit lane of one int, so that a few operations on a long int do the work of 15k on short
    ones (a lane's product with a 64-bit constant stays inside the lane; each shift's spill from
    the lane above is masked off before the next product)."""
    one, lanes, steps = _lanes(k)
    x = ((state & _MASK) * one + steps) & lanes
    states = array("q", x.to_bytes(16 * k, "little"))[::2]
    x = ((x ^ (x >> 30)) & lanes) * 0xBF58476D1CE4E5B9 & lanes
    x = ((x ^ (x >> 27)) & lanes) * 0x94D049BB133111EB & lanes
    x = (x ^ (x >> 31)) & lanes
    return states, array("Q", x.to_bytes(16 * k, "little"))[::2]


def draws_below(S: list, at: int, bounds: range) -> list[int]:
    """draw_below(S, at, n) for each n of `bounds` in turn, their words drawn together
    (next_words); from a draw that would redraw (below's rare case) on, one by one."""
    k = len(bounds)
    states, outs = next_words(S[at], k)
    got = []
    for d, n in enumerate(bounds):
        m = outs[d] * n
        if m & 0xFFFFFFFFFFFFFFFF < n:
            if d:
                S[at] = states[d - 1]
            return got + [draw_below(S, at, n) for n in bounds[d:]]
        got.append(m >> 64)
    S[at] = states[-1]
    return got


def shuffle(S: list, z: int, at: int) -> None:
    """Fisher-Yates from the top down: position i swaps with one of 0..i."""
    n = S[z]
    if n < 2:
        return
    for i, j in zip(range(n - 1, 0, -1), draws_below(S, at, range(n, 1, -1))):
        a, b = z + 1 + i, z + 1 + j
        S[a], S[b] = S[b], S[a]
