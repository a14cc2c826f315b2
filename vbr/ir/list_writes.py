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
    procedure they call and every handler of every event they emit, however deep. Each procedure's
    and event's names are gathered once for all, over the graph of calls and emits (a worklist to
    a fixed point, so circles hold): a body is walked once, however often it is called."""

    def __init__(self, m):
        self.m = m
        self._closed: dict | None = None  # ("proc" | "event", name) -> the names it may assign

    def may_write(self, stmts, name: str) -> bool:
        """Whether running `stmts` (statements or blocks) may assign `name` (a var)."""
        return name in self.written(stmts)

    def written(self, stmts) -> frozenset[str]:
        """The names `stmts` may assign: a local's name among them too, which names no var."""
        names, reached = _direct(self.m, stmts)
        closed = self._closure()
        for node in reached:
            names |= closed.get(node, frozenset())
        return frozenset(names)

    def _closure(self) -> dict:
        if self._closed is None:
            bodies = {("proc", name): [p.body] for name, p in self.m.procs.items()}
            bodies.update({("event", event): [h.body for h in hs] for event, hs in self.m.handlers.items()})
            direct = {node: _direct(self.m, body) for node, body in bodies.items()}
            callers: dict = {node: set() for node in direct}
            for node, (_, reached) in direct.items():
                for other in reached:
                    callers.setdefault(other, set()).add(node)
            closed = {node: set(names) for node, (names, _) in direct.items()}
            work = list(direct)
            while work:
                node = work.pop()
                before = len(closed[node])
                for other in direct[node][1]:
                    closed[node] |= closed.get(other, set())
                if len(closed[node]) != before:
                    work.extend(callers[node])
            self._closed = {node: frozenset(names) for node, names in closed.items()}
        return self._closed


def _direct(m, stmts) -> tuple[set[str], set[tuple[str, str]]]:
    """The names `stmts` assign themselves, and the procedures they call and events they emit."""
    names: set[str] = set()
    reached: set[tuple[str, str]] = set()
    for s in stmts:
        for node in A.walk(s):
            if isinstance(node, A.Assign):
                assigned = _assigned(node.target)
                if assigned is not None:
                    names.add(assigned)
            elif isinstance(node, A.Call) and node.func in m.procs:
                reached.add(("proc", node.func))
            elif isinstance(node, A.Emit):
                reached.add(("event", node.event))
    return names, reached
