"""The local names a body sees: each block a scope, each name its entry (the checker's: its type;
the typed program's builder, vbr.ir: its type and slot)."""
from __future__ import annotations


class Scope:
    """One block's names (`names`: name -> entry), inside `parent`'s; `loop`: a loop's body."""

    def __init__(self, parent: "Scope | None" = None, loop: bool = False):
        self.parent = parent
        self.names: dict = {}
        self.loop = loop

    def child(self, loop: bool = False) -> "Scope":
        return Scope(self, loop)

    def define(self, name: str, type_: str) -> None:
        self.names[name] = type_

    def lookup(self, name: str):
        """The entry of local `name`, or None when no block around defines it."""
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def visible(self) -> set[str]:
        out: set[str] = set()
        s = self
        while s is not None:
            out |= set(s.names)
            s = s.parent
        return out
