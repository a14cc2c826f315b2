"""A rule file's turn flow as a NetworkX graph: which phase can hand play to which, and when.

Built from the checked model alone, never by playing, so every transition the rules allow shows
up, including ones no game has taken yet. `findings`, `render` and `vbr graph` all read this one
graph, so a diagram and a warning can never disagree about the flow.

Nodes: one per phase (kind "phase"), plus "start" (kind "start") and "game over" (kind "end").
Edges: one per (from, to) pair. `guard` is the condition under which the transition happens,
printed in .vbr syntax; "" means always. `guards` lists the alternative ways (one per `goto`
that leads there, each a conjunction), `alternatives` the same split into their conjuncts. Guards are flow-sensitive: after
`if a { goto x }`, a later `goto y` carries `not (a)`, because only then does play get there.
They are necessary conditions, never stronger than the truth: where the walk cannot tell (a
`return` part-way through a procedure, a handler's own branches) it leaves a condition out.
`names` lists the names the rules give the transition (`goto serve as "point scored"`).

For drawing, `build_graph(model, procs=True, fold=True)` goes further than the flow itself needs:
- `procs`: a procedure that can end the game or jump (like `point`) becomes a node of its own
  (kind "proc"), so every way of scoring is one edge into it rather than a copy of its exits on
  every path; if it can also return, an edge "returns" leads back to each caller.
- `fold`: a test the chosen options decide (`if abilities and ...` with abilities false) is
  decided here, so transitions the options rule out are not in the graph at all.
`findings` and `vbr check` use the plain graph, which does neither: the flow of every option.
"""
from __future__ import annotations

import networkx as nx

from vbr.checker import Model
from vbr.turn_flow import END, START, Exit, Flow, FlowContext, Guards, jumping_procs, proc_node


def build_graph(model: Model, procs: bool = False, fold: bool = False) -> nx.DiGraph:
    """The turn-flow graph of a checked model (see the module docstring for its shape)."""
    g = nx.DiGraph(title=model.title, stages={s.name: s.title or s.name for s in model.stages})
    nodes = jumping_procs(model) if procs else set()
    ctx = FlowContext(model, nodes, fold)
    _add_start(g, ctx)
    g.add_node(END, kind="end", label=END, actors=[], span=None)
    for name, phase in model.phases.items():
        flow = ctx.flow(phase.body)
        g.add_node(name, kind="phase", label=name, title=phase.title or "",
                   stages=[s.name for s in model.phase_stages.get(name, [])],
                   actors=sorted(flow.actors), auto=flow.choices == 0, span=phase.span,
                   choice_points=flow.choice_points, falls_through=flow.falls_through)
        _add_exits(g, ctx, name, flow.exits, auto=flow.choices == 0)
    for name in sorted(nodes, key=lambda n: (model.procs[n].span.line, n)):
        proc = model.procs[name]
        flow = ctx.flow(proc.body, following=[name], params=[p.name for p in proc.params])
        node = proc_node(name)
        g.add_node(node, kind="proc", label=node, title="(" + ", ".join(p.name for p in proc.params) + ")",
                   stages=[], actors=sorted(flow.actors), auto=flow.choices == 0, span=proc.span,
                   choice_points=flow.choice_points,
                   returns=flow.falls_through is not None or flow.returns)
        _add_exits(g, ctx, node, flow.exits, auto=flow.choices == 0)
    for node in [n for n, k in g.nodes(data="kind") if k == "proc"]:
        if g.in_degree(node) == 0:
            g.remove_node(node)  # a procedure only the folded-away branches call
        elif g.nodes[node]["returns"]:
            for caller in list(g.predecessors(node)):
                if caller != node and not g.has_edge(node, caller):
                    g.add_edge(node, caller, guard="", guards=[""], alternatives=[[]], names=["returns"], named=["returns"],
                               auto=True, returns=True, span=None, spans=[])
    return g


def _add_start(g: nx.DiGraph, ctx: "FlowContext") -> None:
    """The start node leads through `setup` (which may choose, or jump) to the `start` phase."""
    model = ctx.model
    flow = ctx.flow(model.setup.body) if model.setup else Flow(falls_through=())
    span = model.start.span if model.start else None
    g.add_node(START, kind="start", label=START, actors=sorted(flow.actors), auto=flow.choices == 0, span=span)
    exits = list(flow.exits)
    if model.start is not None and flow.falls_through is not None:
        exits.append(Exit(model.start.phase, flow.falls_through, model.start.span))
    _add_exits(g, ctx, START, exits, auto=flow.choices == 0)


def _add_exits(g: nx.DiGraph, ctx: "FlowContext", source: str, exits: list[Exit], auto: bool) -> None:
    """One edge per target; several ways to the same target become alternatives joined by `or`."""
    model = ctx.model
    by_target: dict[str, list[Exit]] = {}
    for ex in exits:
        known = ex.target == END or ex.target in model.phases or ex.target in {proc_node(n) for n in ctx.nodes}
        if known:  # else the compiler reports it
            by_target.setdefault(ex.target, []).append(ex)
    for target, found in by_target.items():
        alternatives = list(dict.fromkeys(ex.guards for ex in found))
        g.add_edge(source, target, guard=_either(alternatives), guards=[" and ".join(a) for a in alternatives],
                   alternatives=[list(a) for a in alternatives],
                   names=list(dict.fromkeys(ex.name for ex in found if ex.name)),
                   named=[ex.name for ex in found],
                   auto=auto, span=found[0].span, spans=[ex.span for ex in found])


def _complementary(alternatives: list[Guards]) -> bool:
    """`X or not (X)`, with the same conditions before: an edge taken either way is unconditional."""
    if len(alternatives) != 2:
        return False
    a, b = alternatives
    if len(a) != len(b) or a[:-1] != b[:-1]:
        return False
    return b[-1] == f"not ({a[-1]})" or a[-1] == f"not ({b[-1]})"


def _either(alternatives: list[Guards]) -> str:
    """Alternatives joined by `or`; parentheses only for readability, `and` binds tighter."""
    if () in alternatives or _complementary(alternatives):
        return ""
    if len(alternatives) == 1:
        return " and ".join(alternatives[0])
    return " or ".join(a[0] if len(a) == 1 else f"({' and '.join(a)})" for a in alternatives)
