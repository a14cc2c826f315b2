"""Which list vars a run of statements may give new items, directly or through what it calls.

A list of lists read from a var kept per seat or team (`picks` of `var picks: list of int per
seat`) names its slots (`vbr.ir.values.ROW`) rather than holding their items. Where such an item
is kept past the statement that reads it (a `for`'s or a `choose`'s name, a `let`), it keeps its
items only when nothing may give the slot new ones while it is kept: `ListWrites.may_write`
says whether statements may, so the typed program copies the items there and nowhere else.
"""
from __future__ import annotations

from vbr.grammar import ast as A


def _assigned(target: A.Expr) -> str | None:
    """The var an assignment's target names (`picks`, `picks[i]`), or None (a field, a local)."""
    if isinstance(target, A.Index):
        target = target.obj
    return target.id if isinstance(target, A.Name) else None


class ListWrites:
    """The names assigned by statements of the checked model `m`, with those assigned by every
    procedure they call and every handler of every event they emit, however deep."""

    def __init__(self, m):
        self.m = m
        self._procs: dict[str, frozenset[str]] = {}
        self._events: dict[str, frozenset[str]] = {}

    def may_write(self, stmts, name: str) -> bool:
        """Whether running `stmts` (statements or blocks) may assign `name` (a var)."""
        return name in self.written(stmts)

    def written(self, stmts, seen: frozenset = frozenset()) -> frozenset[str]:
        """The names `stmts` may assign: a local's name among them too, which names no var."""
        names: set[str] = set()
        for s in stmts:
            for node in A.walk(s):
                if isinstance(node, A.Assign):
                    assigned = _assigned(node.target)
                    if assigned is not None:
                        names.add(assigned)
                elif isinstance(node, A.Call) and node.func in self.m.procs:
                    names |= self._proc(node.func, seen)
                elif isinstance(node, A.Emit):
                    names |= self._event(node.event, seen)
        return frozenset(names)

    def _proc(self, name: str, seen: frozenset) -> frozenset[str]:
        key = ("proc", name)
        if name in self._procs:
            return self._procs[name]
        if key in seen:  # a procedure calling itself: what it writes is being gathered further up
            return frozenset()
        names = self.written([self.m.procs[name].body], seen | {key})
        if not seen:  # gathered whole only from the top: a deeper answer may miss a circle's part
            self._procs[name] = names
        return names

    def _event(self, event: str, seen: frozenset) -> frozenset[str]:
        key = ("event", event)
        if event in self._events:
            return self._events[event]
        if key in seen:
            return frozenset()
        names = self.written([h.body for h in self.m.handlers.get(event, [])], seen | {key})
        if not seen:
            self._events[event] = names
        return names
