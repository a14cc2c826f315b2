"""Flaws in a turn flow that the graph shows before anyone plays: phases play can never reach,
phases play can never leave or can leave only on some paths, and loops that go round without
anyone choosing.

boardgame.io notices an endless loop of automatic phase ends only while a game runs; here the
same loop is a cycle of automatic edges, found ahead of time. These are warnings, not errors:
a loop's guards may well get play out of it (a counter, say), which the graph cannot judge.
"""
from __future__ import annotations

import networkx as nx

from vbr.checker import Model
from vbr.errors import Diagnostic
from vbr.visualizer.graph import START, build_graph


def findings(model: Model, graph: nx.DiGraph | None = None) -> list[Diagnostic]:
    """Every flaw of the model's turn flow, as warnings at the phases concerned, in file order."""
    g = graph if graph is not None else build_graph(model)
    found = _unreachable(g, model) + _dead_ends(g) + _open_ends(g) + _automatic_cycles(g)
    return sorted(found, key=lambda d: (d.span.file, d.span.line, d.span.col))


def _phases(g: nx.DiGraph) -> list[str]:
    return [n for n, kind in g.nodes(data="kind") if kind == "phase"]


def _warn(g: nx.DiGraph, phase: str, message: str) -> Diagnostic:
    return Diagnostic(g.nodes[phase]["span"], message, "warning")


def _unreachable(g: nx.DiGraph, model: Model) -> list[Diagnostic]:
    reached = nx.descendants(g, START)
    where = f"`start {model.start.phase}`" if model.start else "the start"
    return [_warn(g, p, f"phase `{p}` can never be reached: no chain of `goto`s leads to it from {where}")
            for p in _phases(g) if p not in reached]


def _dead_ends(g: nx.DiGraph) -> list[Diagnostic]:
    return [_warn(g, p, f"phase `{p}` has no way out: no `goto` or `end` can run in it, "
                        "so a game that gets here stops with an error")
            for p in _phases(g) if g.out_degree(p) == 0]


def _open_ends(g: nx.DiGraph) -> list[Diagnostic]:
    """Phases where some paths hand play on and others fall off the end (a phase with no way
    out at all is `_dead_ends`'s): the game stops with an error on the paths that fall off."""
    found = []
    for p in _phases(g):
        after = g.nodes[p].get("falls_through")
        if after is None or g.out_degree(p) == 0:
            continue
        when = f" (when {' and '.join(after)})" if after else ""
        found.append(_warn(g, p, f"phase `{p}` can reach its end without a `goto` or `end`{when}: "
                                 "a game that takes that path stops with an error"))
    return found


def _automatic_cycles(g: nx.DiGraph) -> list[Diagnostic]:
    """One warning per knot of automatic edges (a strongly connected part of them)."""
    auto = nx.DiGraph((u, v) for u, v, a in g.edges(data="auto") if a and g.nodes[v]["kind"] == "phase")
    found = []
    for part in nx.strongly_connected_components(auto):
        knot = auto.subgraph(part)
        if len(part) == 1 and not knot.number_of_edges():
            continue
        first = min(part, key=lambda p: (g.nodes[p]["span"].line, g.nodes[p]["span"].col))
        path = " → ".join(f"`{p}`" for p in _cycle_through(knot, first))
        found.append(_warn(g, first, f"the loop {path} has no choice point on the way: "
                                     "unless its conditions change, play could never stop"))
    return found


def _cycle_through(knot: nx.DiGraph, first: str) -> list[str]:
    """The shortest cycle through `first` in a strongly connected knot, `first` at both ends."""
    back = min((nx.shortest_path(knot, nxt, first) for nxt in knot.successors(first)), key=len)
    return [first] + back
