"""What an action number means to an RL library: a fixed id per value, or a position.

RL libraries assume that an action id means the same thing in every state. Where every `choose` of
a rule file picks from a domain the program fixes before play (the members of an enum, the seats,
`true`/`false`, numbers known before play, and `pass` of an optional choice), each value has one
id in every state: its place in the game's vocabulary of such values (enum members in declaration
order, then `false`, `true`, the numbers in increasing order, and `pass` last). Otherwise (a
choice among cards, court places or numbers computed in play) an action is the position of an
option in the pending choice's list. docs/rl.md, "Action ids", says which is which.
"""
from __future__ import annotations

import numpy as np

from vbr.checker import constant_int
from vbr.errors import UsageError
from vbr.grammar import ast as A

MAX_FIXED_NUMBERS = 1000  # a choice among more numbers than this keeps position ids


class ActionIds:
    """The ids of a game. `values` is the fixed vocabulary (each a `_key`), or None for ids that
    are positions; `size` is the number of distinct ids (the action space)."""

    def __init__(self, values: list | None, size: int):
        self.values = values
        self.size = size
        self._id = {v: i for i, v in enumerate(values)} if values is not None else None

    @property
    def fixed(self) -> bool:
        return self._id is not None

    def of(self, options) -> list[int]:
        """The id of each option, in the options' order (a value outside the vocabulary: -1)."""
        if self._id is None:
            return list(range(len(options)))
        return [self._id.get(_key(v), -1) for v in options]

    def legal(self, options) -> list[int]:
        return sorted(self.of(options))

    def position(self, options, action) -> int | None:
        """Where the option with id `action` is among `options`, or None if none has it."""
        ids = self.of(options)
        return ids.index(action) if action in ids else None

    def check(self, state) -> None:
        """A choice with more options than the action space holds, or (fixed ids) an option
        outside the vocabulary, is a clear error naming the choice, not a crash. `state`: a typed
        game's (vbr.rl.state_reader)."""
        from vbr.rl.state_reader import reader
        r = reader(state)
        if r.chooser is None:
            return
        options = r.options()
        if self._id is None:
            if len(options) > self.size:
                raise UsageError(f"{r.span()}: the choice `{r.prompt()}` offers {len(options)} options, more than the "
                                 f"{self.size} actions of this environment's action space; pass "
                                 f"max_actions={len(options)} or more")
            return
        ids = self.of(options)
        if -1 in ids:
            raise UsageError(f"{r.span()}: the choice `{r.prompt()}` offers {r.option_text(ids.index(-1))}, which has "
                             "no fixed action id (docs/rl.md, \"Action ids\")")

    def rows(self, by_position: np.ndarray, options) -> np.ndarray:
        """Rows given per option position, moved to the options' ids."""
        if self._id is None:
            return by_position
        out = np.zeros((self.size,) + by_position.shape[1:], dtype=by_position.dtype)
        for i, a in enumerate(self.of(options)):
            out[a] = by_position[i]
        return out


def _key(value) -> tuple:
    """A value as the vocabulary holds it: `True` and `1` are different actions."""
    if value is None:
        return ("pass", None)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, str):
        return ("enum", value)
    return ("other", id(value))


def action_ids(m, position_ids: int) -> ActionIds:
    """Fixed ids when every choice's domain is fixed before play (in the checked model `m`),
    else `position_ids` positions."""
    values = fixed_vocabulary(m)
    return ActionIds(values, len(values)) if values else ActionIds(None, position_ids)


def fixed_vocabulary(m) -> list | None:
    """Every value some choice may offer, in vocabulary order, or None when some choice's domain
    is not fixed before play (or no choice exists); `m`, the checked model."""
    found: set = set()
    chooses = [n for d in _bodies(m) for n in A.walk(d) if isinstance(n, A.Choose)]
    for c in chooses:
        domain = _domain(m, c.source)
        if domain is None:
            return None
        found |= domain
        if c.optional:
            found.add(("pass", None))
    if not found:
        return None
    order = [("enum", mem) for members in m.enums.values() for mem in members]
    order += [("bool", False), ("bool", True)]
    order += sorted(k for k in found if k[0] == "int")
    order.append(("pass", None))
    return [k for k in order if k in found]


def _bodies(m) -> list:
    out = [*m.phases.values(), *m.procs.values(), *(h for hs in m.handlers.values() for h in hs)]
    return out + ([m.setup] if m.setup is not None else [])


def _domain(m, e: A.Expr) -> set | None:
    """The values a choice from `e` may offer, when the program fixes them before play."""
    match e:
        case A.Name(id=i) if i in m.enums:
            return {("enum", mem) for mem in m.enums[i]}
        case A.Name(id="seats"):
            return {("int", s) for s in range(m.seats)}
        case A.RangeExpr(lo=lo, hi=hi):
            a, b = constant_int(m, lo), constant_int(m, hi)
            if a is None or b is None or b - a + 1 > MAX_FIXED_NUMBERS:
                return None
            return {("int", n) for n in range(a, b + 1)}
        case A.ListLit(items=items):
            out: set = set()
            for item in items:
                one = _item(m, item)
                if one is None:
                    return None
                out |= one
            return out
    return None


def _item(m, e: A.Expr) -> set | None:
    match e:
        case A.BoolLit(value=v):
            return {("bool", v)}
        case A.Name(id=i) if i in m.member_enum:
            return {("enum", mem) for mem in m.enums[m.member_enum[i]]}
    n = constant_int(m, e)
    return {("int", n)} if n is not None else None
