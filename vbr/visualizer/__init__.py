"""Turn-flow diagrams: the rules' phases as a NetworkX graph, its flaws, and Graphviz drawings.

Modules: `graph` (build_graph), `findings`, `render` (to_dot, render), `command` (`vbr graph`),
`regenerate` (docs/diagrams/). Only the graph is re-exported here: exporting the functions
`findings` and `render` would hide the submodules of the same names.
"""
from vbr.visualizer.graph import END, START, build_graph

__all__ = ["build_graph", "START", "END"]
