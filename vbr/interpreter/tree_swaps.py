"""Nodes of a generated tree swapped in place for the time of an unparse, and put back after.

Why. The text given to Cython differs from the program's own code (native_slots.py,
native_ints.py), but the program keeps its code: copying a whole generated tree to change a few
nodes would cost more than changing them where they are and putting them back."""
from __future__ import annotations


class TreeSwaps:
    """What a rewrite replaced, field by field, so that `undo()` can put it back."""

    def __init__(self):
        self.swaps: list[tuple[object, str, object]] = []

    def undo(self) -> None:
        for owner, field, old in reversed(self.swaps):
            setattr(owner, field, old)
        self.swaps.clear()

    def _swap(self, owner, field: str, new) -> None:
        self.swaps.append((owner, field, getattr(owner, field)))
        setattr(owner, field, new)
