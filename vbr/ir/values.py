"""How each type's values are encoded as 64-bit integers, and read back as text.

- `none` is NONE (-2**63): no integer of the language reaches it (they stay in -INT_MAX..INT_MAX).
- int and seat: themselves; a team: its index; bool: 0 or 1.
- an enum member: its index among its enum's members; a direction: its index in declaration order.
- a thing (card, piece): its id, in creation order; a zone: its index among the zones' slots.
- a court position (x, y): (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS); a position further than
  CELL_BIAS from the court's corner faults ("off the court by more than ...").

The text of a value is what choices and logs are written in (docs/language.md, 3: Types and values).
"""
from __future__ import annotations

from dataclasses import dataclass, field

NONE = -(1 << 63)
INT_MAX = (1 << 63) - 1
CELL_BIAS = 1 << 15
CELL_SPAN = 1 << 16


def cell(x: int, y: int) -> int:
    return (x + CELL_BIAS) * CELL_SPAN + (y + CELL_BIAS)


ROW = "row:"  # the type of an item of a list of lists (a var holding a list per seat or team, read
# whole): a value of type `row:NAME` is the index of one slot of var NAME, read as that slot's list
# as it is now; a name that keeps one while NAME may change holds a copy (vbr.ir.list_writes)

LIT = "lit:"  # the type of a list fixed before play held as an item of a list (a const table's row, a literal
# list of lists): a value of type `lit:T` is the index of its row among Names.lits[T], lists of T kept once each


def cell_xy(c: int) -> tuple[int, int]:
    return c // CELL_SPAN - CELL_BIAS, c % CELL_SPAN - CELL_BIAS


@dataclass
class Names:
    """What a value of each type reads as: enum members, directions, zones, the court's cells,
    strings (the program's texts: a string is its index there)."""
    enums: dict[str, list[str]]
    directions: list[str]
    zones: list[str]
    cell_text: object  # (x, y) -> text, or None for a file without a court
    texts: list[str]
    rows: dict = field(default_factory=dict)  # a var holding a list -> (its first word, capacity, items' type)
    lits: dict = field(default_factory=dict)  # an item type T -> the lists of T fixed before play (LIT values' rows)

    def text(self, ty: str, v: int, words=None, none: str = "pass") -> str:
        """Value `v` of type `ty` as text; a ROW (a list of lists' item) is its slot's list, read
        from the state's `words`, which it needs. None, in the value or in a list of it, reads
        `none` (the canonical text: `pass`; a reveal: `none`)."""
        if v == NONE:
            return none
        if ty.startswith(ROW):
            return "[" + ", ".join(self.text(item, int(w), words, none) for item, w in self.row(ty, v, words)) + "]"
        if ty.startswith(LIT):
            item = ty[len(LIT):]
            return "[" + ", ".join(self.text(item, w, words, none) for w in self.lits[item][v]) + "]"
        if ty == "bool":
            return "true" if v else "false"
        if ty.startswith("enum:"):
            return self.enums[ty[5:]][v]
        if ty == "dir":
            return self.directions[v]
        if ty.startswith("ent"):
            return f"#{v}"
        if ty == "zone":
            return self.zones[v]
        if ty == "cell":
            x, y = cell_xy(v)
            return self.cell_text(x, y) if self.cell_text else f"@{x},{y}"
        if ty == "str":
            return self.texts[v]
        return str(v)

    def row(self, ty: str, slot: int, words) -> list[tuple[str, int]]:
        """The items of slot `slot` of the list var ROW type `ty` names, each with its type."""
        at, cap, item = self.rows[ty[len(ROW):]]
        word = at + slot * (1 + cap)
        return [(item, int(w)) for w in words[word + 1:word + 1 + int(words[word])]]

    def kind_of(self, ty: str, v: int) -> str:
        """The sort of value, logged beside a choice's text (so that two options that read alike are told apart)."""
        if v == NONE:
            return "none"
        if ty == "bool":
            return "bool"
        if ty.startswith("ent"):
            return "thing"
        if ty == "zone":
            return "zone"
        if ty == "cell":
            return "cell"
        if ty.startswith("enum:") or ty == "dir" or ty == "str":
            return "text"
        if ty.startswith((ROW, LIT)):
            return "list"
        return "int"
