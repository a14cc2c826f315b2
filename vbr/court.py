"""Court geometry: two halves of rows × cols, an optional band of net rows, extra spaces, frames.

Global coordinates: x runs across (0..cols-1, seen from side 0), y from side 0's baseline. Side 0
holds y = 0..rows-1 (row 1 is the back row), the net rows follow, then side 1 mirrored. Each side
sees the court in its own frame: `forward` is towards the net, `right` is its own right hand.
"""
from __future__ import annotations

from vbr.values import Cell


class Court:
    def __init__(self, rows: int, cols: int, net: int, fields: dict[int, tuple[int, int]],
                 spaces: dict[str, tuple[int, int]]):
        self.rows, self.cols, self.net = rows, cols, net
        self.fields = fields  # number -> (row, col) in the side's own frame
        self.spaces = spaces  # name -> (row, col) in the side's own frame, outside the grid
        self.height = 2 * rows + net
        self._field_cell = {(s, n): self.cell(s, r, c) for s in (0, 1) for n, (r, c) in fields.items()}
        self._cell_field = {v: k for k, v in self._field_cell.items()}
        self._space_cell = {(s, n): self.cell(s, r, c) for s in (0, 1) for n, (r, c) in spaces.items()}
        self._cell_space = {v: k for k, v in self._space_cell.items()}
        self._tables: dict[str, tuple] = {}
        self._reached: dict[tuple, tuple] = {}  # reach's answers (see reach)
        self._cells: dict[int, tuple] = {}  # cells' answers, per side

    def geometry(self) -> tuple:
        """What every answer of the court depends on: courts of equal geometry answer alike."""
        return self.rows, self.cols, self.net, tuple(sorted(self.fields.items())), tuple(sorted(self.spaces.items()))

    def table(self, method: str) -> tuple[dict, object]:
        """`method`'s answer for every cell where it can differ from its answer off the court,
        and that answer: so `number`, `side`, `row`, `col`, `in_court` and `on_net` of a cell are
        one dict lookup in lowered code (tests/test_court.py checks them against the methods)."""
        if method not in self._tables:
            cells = [Cell(x, y) for x in range(self.cols) for y in range(self.height)] + list(self._cell_space)
            fn = getattr(self, method)
            default = fn(Cell(-99, -99))
            self._tables[method] = ({c: fn(c) for c in cells if fn(c) != default}, default)
        return self._tables[method]

    # ------------------------------------------------------------------ frames
    def cell(self, side: int, row: int, col: int) -> Cell:
        if side == 0:
            return Cell(col - 1, row - 1)
        return Cell(self.cols - col, self.height - row)

    def frame(self, side: int, right: int, forward: int) -> tuple[int, int]:
        return (right, forward) if side == 0 else (-right, -forward)

    # ------------------------------------------------------------------ queries
    def field(self, side: int, number: int) -> Cell | None:
        return self._field_cell.get((side, number))

    def space(self, name: str, side: int) -> Cell | None:
        return self._space_cell.get((side, name))

    def in_grid(self, c: Cell) -> bool:
        return 0 <= c[0] < self.cols and 0 <= c[1] < self.height

    def in_court(self, c: Cell) -> bool:
        """On the court proper: either half or the net. A declared space (a serve space) lies
        outside it: a ball that moves onto one is out, and `reach` neither ends on one nor
        passes through it (a movement may start there, as a serve does)."""
        return self.in_grid(c)

    def on_board(self, c: Cell) -> bool:
        """Drawn on a picture of the court: the court proper and the declared spaces."""
        return self.in_grid(c) or c in self._cell_space

    def on_net(self, c: Cell) -> bool:
        return 0 <= c[0] < self.cols and self.rows <= c[1] < self.rows + self.net

    def side(self, c: Cell) -> int:
        """The side a position belongs to, or -1 on the net or out of the court."""
        if c in self._cell_space:
            return self._cell_space[c][0]
        if not self.in_grid(c) or self.on_net(c):
            return -1
        return 0 if c[1] < self.rows else 1

    def row(self, c: Cell) -> int:
        s = self.side(c)
        if s == 0:
            return c[1] + 1
        if s == 1:
            return self.height - c[1]
        return 0

    def col(self, c: Cell) -> int:
        s = self.side(c)
        if s == 0:
            return c[0] + 1
        if s == 1:
            return self.cols - c[0]
        return 0

    def number(self, c: Cell) -> int:
        f = self._cell_field.get(c)
        return f[1] if f else 0

    def cells(self, side: int) -> tuple[Cell, ...]:
        """A side's fields' cells in number order: the same tuple at every call (a rule file
        asks it at every serve or move), so it is worked out once per side. A side with no
        fields raises (KeyError) as before and is not remembered."""
        got = self._cells.get(side)
        if got is None:
            got = self._cells[side] = tuple(self._field_cell[(side, n)] for n in sorted(self.fields))
        return got

    def step(self, c: Cell, vec: tuple[int, int], side: int, n: int, net_cost: int = 1) -> Cell:
        # self.frame and Cell() written out: every bounce of a ball comes through here
        if net_cost != 1 and self.net:
            return self._step_paying(c, vec, side, n, net_cost)
        return shifted(c, vec, side, n)

    def _step_paying(self, c: Cell, vec: tuple[int, int], side: int, n: int, net_cost: int) -> Cell:
        """Unit steps until `n` is paid, a step onto a net row costing `net_cost` (0: crossing
        the net is free, so the ball goes on until it has paid for `n` cells off the net)."""
        if net_cost < 0:
            raise ValueError(f"a net cost of {net_cost}: it must be 0 or more")
        dx, dy = self.frame(side, *vec)
        if dx == dy == 0:
            return c
        x, y = c
        paid = 0
        while paid < n:
            x, y = x + dx, y + dy
            paid += net_cost if self.on_net((x, y)) else 1
        return Cell(x, y)

    def reach(self, start: Cell, distance: int, side: int, vecs: list[tuple[int, int]], net_cost: int = 1) -> tuple[Cell, ...]:
        """Every end of a movement of exactly `distance` unit steps from `start`.

        Steps come from `vecs` (in `side`'s frame); a movement never reverses on either axis,
        never leaves the court, and never ends on the net. Entering a net row costs `net_cost`
        (0: the net is crossed for free, as by a serve that ignores it); on the net the ball only
        goes on across, never along it.

        The answer depends on the arguments and the court alone, so it is remembered (a search
        per question costs far more than a lookup; the questions a game asks are few).
        """
        key = (start, distance, side, tuple(vecs), net_cost)
        found = self._reached.get(key)
        if found is None:
            found = self.reach_all(start, distance, side, vecs, net_cost)[distance]
            if len(self._reached) < 1 << 16:
                self._reached[key] = found
        return found

    def reach_all(self, start: Cell, longest: int, side: int, vecs: list[tuple[int, int]],
                  net_cost: int = 1) -> list[tuple[Cell, ...]]:
        """`reach(start, d, side, vecs, net_cost)` for every d in 0..longest, from one search.

        A movement of exactly d steps ends where a step that costs something first brings the
        count to d (a step onto the net may cost nothing: a movement that has used its d steps
        takes no more of those), so each end is recorded when such a step arrives."""
        moves = [self.frame(side, *v) for v in vecs]
        ends: list[set] = [set() for _ in range(longest + 1)]
        if not self.on_net(start):
            ends[0].add(start)
        seen: set = set()
        todo = [(start, 0, 0, 0)]
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            c, used, sx, sy = item
            on_net = self.on_net(c)
            for dx, dy in moves:
                if (dx and sx and dx * sx < 0) or (dy and sy and dy * sy < 0) or (on_net and not dy):
                    continue
                nc = Cell(c[0] + dx, c[1] + dy)
                if not self.in_court(nc):
                    continue
                nc_on_net = self.on_net(nc)
                cost = net_cost if nc_on_net else 1
                if used + cost > longest:
                    continue
                if cost and not nc_on_net:
                    ends[used + cost].add(nc)
                todo.append((nc, used + cost, sx or _sign(dx), sy or _sign(dy)))
        return [tuple(sorted(e, key=lambda c: (c[1], c[0]))) for e in ends]

    def cell_text(self, c: Cell) -> str:
        if c in self._cell_field:
            s, n = self._cell_field[c]
            return f"@{s}:{n}"
        if c in self._cell_space:
            s, n = self._cell_space[c]
            return f"@{s}:{n}"
        return f"@{c[0]},{c[1]}"


def court_of(decl) -> Court | None:
    """The court a rule file's `court { ... }` declaration describes (None without one)."""
    if decl is None:
        return None
    vals = {"net": 0}
    fields, spaces = {}, {}
    for it in decl.items:
        if it.what in ("rows", "cols", "net"):
            vals[it.what] = it.values[0]
        elif it.what == "field":
            fields[it.values[0]] = (it.values[1], it.values[2])
        elif it.what == "space":
            spaces[it.values[0]] = (it.values[1], it.values[2])
    return Court(vals.get("rows", 1), vals.get("cols", 1), vals["net"], fields, spaces)


_new_cell = tuple.__new__


def shifted(c: Cell, vec: tuple[int, int], side: int, n: int) -> Cell:
    """`n` times `vec` from `c`, in `side`'s frame: Court.step where the net costs what any
    cell costs."""
    if side == 0:
        return _new_cell(Cell, (c[0] + vec[0] * n, c[1] + vec[1] * n))
    return _new_cell(Cell, (c[0] - vec[0] * n, c[1] - vec[1] * n))


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)
