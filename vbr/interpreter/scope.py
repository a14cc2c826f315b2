"""Local names of one code object (a phase, proc, handler, fn): slots in its frame's locals list."""
from __future__ import annotations


class Fault(Exception):
    """A rule file did something impossible at run time; the VM adds the position."""


class Locals:
    def __init__(self) -> None:
        self.count = 0

    def alloc(self) -> int:
        self.count += 1
        return self.count - 1


class Scope:
    def __init__(self, locals_: Locals, parent: "Scope | None" = None, loop: bool = False):
        self.locals = locals_
        self.parent = parent
        self.names: dict[str, tuple[int, str]] = {}
        self.loop = loop  # break/continue allowed

    def child(self, loop: bool = False) -> "Scope":
        return Scope(self.locals, self, loop or False)

    def define(self, name: str, type_: str) -> int:
        slot = self.locals.alloc()
        self.names[name] = (slot, type_)
        return slot

    def lookup(self, name: str):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def in_loop(self) -> bool:
        s = self
        while s is not None:
            if s.loop:
                return True
            s = s.parent
        return False

    def visible(self) -> set[str]:
        out: set[str] = set()
        s = self
        while s is not None:
            out |= set(s.names)
            s = s.parent
        return out
