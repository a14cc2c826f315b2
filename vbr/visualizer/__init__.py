"""Turn-flow diagrams: the rules' phases as a NetworkX graph, its flaws, and Graphviz drawings.

Modules: `graph` (build_graph, NetworkX), `findings` (read from the walk alone, so `vbr check`
does not import NetworkX), `render` (to_dot, render), `command` (`vbr graph`), `regenerate`
(docs/diagrams/). The walk of the rules' statements they read is vbr.turn_flow, below them (a
traced run's step counter, vbr.flow_steps, reads it too). `build_graph`, `START` and `END` are
reachable from here, loaded on first use: importing the package must stay as cheap as `findings`.
"""
from __future__ import annotations

__all__ = ["build_graph", "START", "END"]


def __getattr__(name: str):
    if name == "build_graph":
        from vbr.visualizer.graph import build_graph
        return build_graph
    if name in ("START", "END"):
        from vbr import turn_flow as flow
        return getattr(flow, name)
    raise AttributeError(f"module 'vbr.visualizer' has no attribute {name!r}")
