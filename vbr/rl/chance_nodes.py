"""A game as a tree of decision nodes, chance nodes and ends (OpenSpiel's explicit chance).

The interpreter draws dice, random picks and shuffles in the middle of running the rules, between
two choices, and cannot stop there: a draw sits inside a compiled step. So a `Position` keeps the
last decision state, the option chosen in it and the chance outcomes decided since, and moves on
by replaying that step on a copy of the decision state whose draws a chance oracle decides
(`State.decide`). The run reaches the next choice or the end, or stops at the first draw not yet
decided (`ChanceNeeded`): that draw is the next chance node, and the copy, stopped in the middle
of its step, shows the game as it stands there (read it, never run it on).

A step with k draws runs k + 1 times, each time only as far as its next draw: cheap for a few
dice, and for setup's shuffles (one chance node per swap) a few milliseconds (docs/rl.md).

The states a position holds are never changed after it took them (every run starts from a copy),
so copies of a position share them.
"""
from __future__ import annotations

from vbr.errors import IllegalActionError, UsageError
from vbr.interpreter.state import Chance, ChanceNeeded, State
from vbr.interpreter.values import text


class Position:
    """Where a game stands: at a choice or the end (`need` is None), or at a chance node (`need`
    says what is drawn, `outcomes` lists (outcome, probability)). `past` holds the finished steps
    as (option, outcomes) pairs, setup's first with option None: with the step in progress, all
    that `replay` needs."""

    __slots__ = ("prog", "bound", "base", "action", "decided", "state", "need", "outcomes", "past")

    def __init__(self, prog, bound: int):
        self.prog, self.bound = prog, bound
        self.base = self.action = self.need = self.outcomes = None
        self.decided: list[int] = []
        self.past: list[tuple] = []

    @classmethod
    def start(cls, prog, bound: int) -> "Position":
        """A new game: var values and setup, up to the first chance node or choice."""
        pos = cls(prog, bound)
        pos._advance()
        return pos

    def copy(self) -> "Position":
        c = Position.__new__(Position)
        c.prog, c.bound, c.base, c.action = self.prog, self.bound, self.base, self.action
        c.decided, c.past = self.decided[:], self.past[:]
        c.state, c.need, c.outcomes = self.state, self.need, self.outcomes
        return c

    def choose(self, i: int) -> None:
        """Take option `i` of the pending choice (its index is checked by the caller)."""
        self.past.append((self.action, tuple(self.decided)))
        self.base, self.action, self.decided = self.state, i, []
        self._advance()

    def settle(self, outcome: int) -> None:
        """Decide the chance node's draw: `outcome` is one of `outcomes`."""
        if not any(o == outcome for o, _ in self.outcomes):
            raise IllegalActionError(f"chance outcome {outcome} is not one of `{self.need.what}`'s: "
                                     f"{', '.join(str(o) for o, _ in self.outcomes)}")
        self.decided.append(int(outcome))
        self._advance()

    def label(self, outcome: int) -> str | None:
        """`roll d: 4`, `pick: #3`, `shuffle deck[0], position 11: 7` (position 11 takes the
        thing at position 7); None when `outcome` is not an outcome here."""
        need = self.need
        if need is None or not 0 <= outcome < len(need.values):
            return None
        return f"{need.what}: {text(need.values[outcome], self.prog)}"

    def moves(self) -> list[tuple]:
        """Every step so far as (option, outcomes): what `replay` takes."""
        return [*self.past, (self.action, tuple(self.decided))]

    @classmethod
    def replay(cls, prog, bound: int, moves) -> "Position":
        """The position `moves` (from `moves()`) lead to: each step runs once."""
        pos = cls(prog, bound)
        for n, (action, decided) in enumerate(moves):
            if n:
                if pos.need is not None:
                    raise ValueError("a replayed step stops at a chance node before its end")
                pos.past.append((pos.action, tuple(pos.decided)))
                pos.base, pos.action = pos.state, action
            pos.decided = list(decided)
            pos._advance()
        return pos

    def _advance(self) -> None:
        oracle = Chance(self.decided)
        if self.base is None:
            made: list[State] = []
            try:
                st = State.new(self.prog, 0, chance=oracle, sink=made)
            except ChanceNeeded as need:
                return self._stop(made[0], need)
        else:
            st = self.base.clone()
            st.decide(oracle)
            try:
                st.apply_index(self.action)
            except ChanceNeeded as need:
                return self._stop(st, need)
        if oracle.used != len(self.decided):
            raise ValueError(f"{len(self.decided) - oracle.used} decided chance outcomes were never drawn")
        st.decide(None)
        self.state, self.need, self.outcomes = st, None, None

    def _stop(self, st: State, need: ChanceNeeded) -> None:
        if len(need.values) > self.bound:  # the outcomes are indices into the values
            raise UsageError(f"{_where(st)}: `{need.what}` draws among {len(need.values)} outcomes, more than the "
                             f"{self.bound} chance outcomes this game declares; pass "
                             f"max_chance_outcomes={len(need.values)} or more")
        self.state, self.need, self.outcomes = st, need, need.outcomes()


def _where(st: State):
    """The statement a run stopped in: the innermost one the compiled code reported, else the
    current step's."""
    if st.fault_span is not None:
        return st.fault_span
    if st.stack:
        fr = st.stack[-1]
        return fr.code.spans[min(fr.pc, len(fr.code.spans) - 1)]
    return st.prog.model.rules.path
