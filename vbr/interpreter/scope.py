"""Local names of one code object (a phase, proc, handler, fn), and the run-time limits every
code object runs under: steps (`spend`), integers (`checked`), ranges and choices."""
from __future__ import annotations


class Fault(Exception):
    """A rule file did something impossible at run time; the VM adds the position."""


class OverBudget(Fault):
    """The game used up its steps (`limit steps`): the VM reports it as StepLimitExceeded."""


# Integers of the language are 64-bit: every sum, difference and product (and `sum`) outside
# -INT_MAX..INT_MAX is a located error, so no value grows without bound (docs/language.md).
INT_MAX = 2 ** 63 - 1
MAX_RANGE = 1_000_000  # numbers in one range `lo..hi`
MAX_OPTIONS = 10_000  # options of one choice


def spend(st, n: int) -> None:
    """Count `n` steps of work (loop rounds, items iterated or built) against the game's step
    limit: the one budget that bounds the time a rule file may take."""
    s = st.steps = st.steps + n
    if s > st.prog.step_limit:
        raise OverBudget("step limit")


def int_overflow(v):
    # one operation on integers in range: at most 127 bits, so the digits are few enough to show
    raise Fault(f"the number {v} is out of the range of integers (-{INT_MAX}..{INT_MAX})")


def checked(v):
    """`v` when it is an integer of the language (or not an int at all)."""
    if type(v) is int and not -INT_MAX <= v <= INT_MAX:
        int_overflow(v)
    return v


def too_many(limit: int):
    """A loop's `max LIMIT` rounds gone past: the located error."""
    raise Fault(f"loop ran more than its `max {limit}` rounds")


def repeat_count(st, n, cap: int) -> int:
    """A checked `repeat` count; its rounds are steps of the game, counted before the first."""
    if n is None or n < 0 or n > cap:
        raise Fault(f"repeat count {n} is out of 0..{cap}")
    spend(st, n)
    return n


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
