"""Runtime values and their canonical text, so that choices, logs and replays round-trip.

ints, bools and None are Python's own; enum members and directions are interned strs; a card or
piece is an `Ent` (an int id that prints as `#id`); a court position is a `Cell`; lists are tuples.
"""
from __future__ import annotations


class Ent(int):
    """An entity (card, piece, token) by id. Ids follow creation order, so a seed fixes them."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"#{int(self)}"

    __str__ = __repr__


ENT_IDS = tuple(Ent(i) for i in range(1024))  # the commonest ids, made once: a value, shared by every state


class Cell(tuple):
    """A court position in global coordinates (x across, y from side 0's baseline)."""

    __slots__ = ()

    def __new__(cls, x: int, y: int):
        return tuple.__new__(cls, (x, y))

    def __getnewargs__(self) -> tuple:
        """What copy and pickle make a Cell again from: x and y (a tuple's would be the pair)."""
        return self[0], self[1]

    @property
    def x(self) -> int:
        return self[0]

    @property
    def y(self) -> int:
        return self[1]

    def __repr__(self) -> str:
        return f"@{self[0]},{self[1]}"

    __str__ = __repr__


class ZoneRef(int):
    """A zone by slot; prints with the zone's name via the program's table."""

    __slots__ = ()


def kind(value) -> str:
    """What sort of value this is, logged beside a choice's text: two options may read alike
    (`pass`: none, or an enum member named `pass`; `"1"` and `1`) but never are of one kind and
    at one index both."""
    if value is None:
        return "none"
    for cls, name in ((bool, "bool"), (Ent, "thing"), (ZoneRef, "zone"), (Cell, "cell"), (int, "int"),
                      (str, "text"), (tuple, "list")):
        if isinstance(value, cls):
            return name
    return type(value).__name__


def text(value, names=None) -> str:
    """The canonical text of a value: what choices and logs are written in."""
    if value is None:
        return "pass"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Cell) and names is not None:
        return names.cell_text(value)
    if isinstance(value, ZoneRef) and names is not None:
        return names.zone_names[value]
    if isinstance(value, tuple) and not isinstance(value, Cell):
        return "[" + ", ".join(text(v, names) for v in value) + "]"
    return str(value)
