"""What the Python and the C engine's sources write alike: a state is `S`, the running frame
starts at `fp`, and a word is `S[...]` in both languages. Each engine's source (python_source.py,
c_source.py) derives from WordSource and gives its own `index_call` and `field_word`, and its own
rule for every other node."""
from __future__ import annotations

from vbr.ir import nodes as N
from vbr.ir.layout import FRAME_HEAD, Header as H
from vbr.ir.never_none import never_none
from vbr.ir.ranges import ValueRanges
from vbr.ir.values import INT_MAX


class WordSource:
    def __init__(self, p: N.Program, ranges: ValueRanges):
        self.p, self.lay = p, p.layout
        self.ranges = ranges  # the numbers vars and locals can hold (vbr.ir.ranges)
        self.range_unit: int | None = None  # the unit whose locals the code being written reads (None: a fn's)
        self.defs: list[str] = []
        self.n = 0
        self.fn_bodies: dict[int, str] = {}  # a heavy fn's body (Program.fns) -> its generated function

    def fresh(self, stem: str) -> str:
        """A name no other generated function or table has."""
        self.n += 1
        return f"{stem}{self.n}"

    def expr(self, e: N.Expr) -> str:
        return getattr(self, "x_" + type(e).__name__)(e)

    def local(self, slot: int) -> str:
        return f"S[fp + {FRAME_HEAD + slot}]"

    def index_call(self, i: str, n: int, fault: int) -> str:
        """An expression giving i when 0 <= i < n, else faulting with message `fault`."""
        raise NotImplementedError

    def checked_index(self, e: N.Expr, n: int, fault: int, code: str | None = None) -> str:
        """e's code (`code` when it is written already) as an index below n: as it is where e
        always lies in 0..n-1 (`in_range`), else tested by `index_call`."""
        code = self.expr(e) if code is None else code
        return code if self.in_range(e, n) else self.index_call(code, n, fault)

    def in_range(self, e: N.Expr, n: int) -> bool:
        """Whether e, where its code is being written, always gives a number in 0..n-1 (vbr.ir.ranges)."""
        return self.ranges.within(e, self.range_unit, 0, n - 1)

    def nn(self, e: N.Expr) -> bool:
        """Whether e never gives none where its code is being written: by vbr.ir.never_none (the
        vars of `vars_nn`, the locals of `slots_nn`, a local bound to a thing of a kind known
        there, `known_kind`: each engine's source keeps these) or by its range (vbr.ir.ranges)."""
        return never_none(e, self.p, self.vars_nn, self._local_nn) or \
            self.ranges.within(e, self.range_unit, -INT_MAX, INT_MAX)

    def _local_nn(self, e: N.Local) -> bool:
        return e.slot in self.slots_nn or e.slot in self.known_kind

    def field_word(self, f) -> str:
        """An expression giving where a thing's field lies (checked), for a Field or FieldOfAny."""
        raise NotImplementedError

    def x_Local(self, e):
        return self.local(e.slot)

    def x_StackAt(self, e):
        return f"S[{self.local(e.base)} + {self.expr(e.index)}]"

    def x_Returned(self, e):
        return f"S[{H.RETURNED}]"

    def x_Global(self, e):
        return f"S[{self.global_word(e)}]"

    def global_word(self, g: N.Global) -> str:
        at = self.lay.vars + g.base
        if g.index is None:
            return str(at)
        return f"{at} + {self.checked_index(g.index, g.count, g.fault)}"

    def list_word(self, v: N.VarItems) -> str:
        """Where a list var's record (its count, then its items) starts."""
        at = self.lay.vars + v.at
        if v.index is None:
            return str(at)
        return f"{at} + {self.checked_index(v.index, v.count, v.fault)} * {1 + v.bound}"

    def x_ZoneAt(self, e):
        """Slot `index` of a per-seat zone: its first zone's number plus the index (the first zone
        of all: the index alone)."""
        index = self.checked_index(e.index, e.count, e.fault)
        return f"({index})" if e.base == 0 else f"({e.base} + {index})"

    def x_Field(self, e):
        return f"S[{self.field_word(e)}]"

    def x_FieldOfAny(self, e):
        return f"S[{self.field_word(e)}]"
