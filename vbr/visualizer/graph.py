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
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from vbr.checker import Model
from vbr.errors import Span
from vbr.grammar import ast as A
from vbr.grammar.printer import expr

START = "start"
END = "game over"

# Ways a block can finish without handing play on: it falls off its end, or a statement sends
# control elsewhere in the same body (`return` out of a procedure, `break`/`continue` in a loop).
NEXT, RETURN, LOOP = "next", "return", "loop"

Guards = tuple[str, ...]


@dataclass
class Exit:
    """One `goto`/`end` found in a body, with the conditions under which it runs."""

    target: str  # a phase name, or END
    guards: Guards
    span: Span


@dataclass
class Flow:
    """What running one body can do: where play goes next, and who chooses on the way."""

    exits: list[Exit] = field(default_factory=list)
    actors: set[str] = field(default_factory=set)
    choices: int = 0
    falls_through: Guards | None = None  # when the body can end without a goto (None: never)


def build_graph(model: Model) -> nx.DiGraph:
    """The turn-flow graph of a checked model (see the module docstring for its shape)."""
    g = nx.DiGraph(title=model.title, stages={s.name: s.title or s.name for s in model.stages})
    _add_start(g, model)
    g.add_node(END, kind="end", label=END, actors=[], span=None)
    for name, phase in model.phases.items():
        flow = flow_of(model, phase.body)
        g.add_node(name, kind="phase", label=name, title=phase.title or "",
                   stages=[s.name for s in model.phase_stages.get(name, [])],
                   actors=sorted(flow.actors), auto=flow.choices == 0, span=phase.span)
        _add_exits(g, model, name, flow.exits, auto=flow.choices == 0)
    return g


def _add_start(g: nx.DiGraph, model: Model) -> None:
    """The start node leads through `setup` (which may choose, or jump) to the `start` phase."""
    flow = flow_of(model, model.setup.body) if model.setup else Flow(falls_through=())
    span = model.start.span if model.start else None
    g.add_node(START, kind="start", label=START, actors=sorted(flow.actors), auto=flow.choices == 0, span=span)
    exits = list(flow.exits)
    if model.start is not None and flow.falls_through is not None:
        exits.append(Exit(model.start.phase, flow.falls_through, model.start.span))
    _add_exits(g, model, START, exits, auto=flow.choices == 0)


def _add_exits(g: nx.DiGraph, model: Model, source: str, exits: list[Exit], auto: bool) -> None:
    """One edge per target; several ways to the same target become alternatives joined by `or`."""
    by_target: dict[str, list[Exit]] = {}
    for ex in exits:
        if ex.target == END or ex.target in model.phases:  # else the compiler reports it
            by_target.setdefault(ex.target, []).append(ex)
    for target, found in by_target.items():
        alternatives = list(dict.fromkeys(ex.guards for ex in found))
        g.add_edge(source, target, guard=_either(alternatives), guards=[" and ".join(a) for a in alternatives],
                   alternatives=[list(a) for a in alternatives],
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


def flow_of(model: Model, body: A.Block) -> Flow:
    """Walk one body (a phase's or setup's), following procedure calls and emitted events."""
    walker = _Walker(model)
    ways, after = walker.block(body.body, ())
    walker.flow.falls_through = after if NEXT in ways else None
    return walker.flow


class _Walker:
    """Follows the statements a body can run, into procedures and handlers, collecting exits and choices."""

    def __init__(self, model: Model):
        self.model = model
        self.flow = Flow()
        self.following: list[str] = []  # procedures and events being followed: stops recursion

    def block(self, body: list[A.Stmt], guards: Guards) -> tuple[set[str], Guards]:
        """How the block can finish, and what holds when it falls off its end."""
        ways: set[str] = set()
        for s in body:
            outs, guards = self.stmt(s, guards)
            ways |= outs - {NEXT}
            if NEXT not in outs:
                return ways, guards  # the rest of the block cannot run
        return ways | {NEXT}, guards

    def stmt(self, s: A.Stmt, guards: Guards) -> tuple[set[str], Guards]:
        match s:
            case A.Goto() | A.EndWinner() | A.EndDraw():
                self.leave(s, guards)
                return set(), guards
            case A.If():
                return self.if_(s, guards)
            case A.Choose():
                return self.choose(s, guards)
            case A.For() | A.Repeat() | A.Loop() | A.While():
                outs, _ = self.block(s.body.body, guards)
                return {NEXT} | (outs & {RETURN}), guards
            case A.CallStmt(call=A.Call(func=name)) if name in self.model.procs:
                return self.call(name, guards)
            case A.Emit():
                return self.emit(s, guards)
            case A.Break() | A.Continue():
                return {LOOP}, guards
            case A.Return():
                return {RETURN}, guards
        return {NEXT}, guards

    def leave(self, s: A.Stmt, guards: Guards) -> None:
        target = s.phase if isinstance(s, A.Goto) else END
        self.flow.exits.append(Exit(target, guards, s.span))

    def if_(self, s: A.If, guards: Guards) -> tuple[set[str], Guards]:
        """Each branch runs under its test and the earlier tests' negations. What follows the
        `if` runs under whatever every branch that falls through has in common."""
        ways: set[str] = set()
        earlier: list[str] = []
        through: list[Guards] = []
        for br in s.branches:
            outs, after = self.block(br.body.body, _and(guards, earlier + [_test(br.test)]))
            ways |= outs
            if NEXT in outs:
                through.append(after)
            earlier.append(_negate(br.test))
        if s.orelse is not None:
            outs, after = self.block(s.orelse.body, _and(guards, earlier))
        else:
            outs, after = {NEXT}, _and(guards, earlier)
        ways |= outs
        if NEXT in outs:
            through.append(after)
        return ways, _common_prefix(through) if through else guards

    def choose(self, s: A.Choose, guards: Guards) -> tuple[set[str], Guards]:
        """A choice point. Its `else` block runs when nothing is left to choose from."""
        self.flow.choices += 1
        self.flow.actors.add(expr(s.by))
        if s.orelse is None or s.optional:  # `optional` always offers "none": no else
            return {NEXT}, guards
        outs, _ = self.block(s.orelse.body, _and(guards, [_nothing_to_choose(s)]))
        return outs | {NEXT}, guards

    def call(self, name: str, guards: Guards) -> tuple[set[str], Guards]:
        if name in self.following:
            return {NEXT}, guards
        self.following.append(name)
        outs, after = self.block(self.model.procs[name].body.body, guards)
        self.following.pop()
        if RETURN in outs:
            after = guards  # a `return` leaves under conditions this walk does not keep
        return ({NEXT} if outs & {NEXT, RETURN} else set()), after

    def emit(self, s: A.Emit, guards: Guards) -> tuple[set[str], Guards]:
        """Every handler of the event runs (those whose `when` holds), then the emitter goes on,
        unless a handler that always runs always hands play on."""
        key = "on " + s.event
        if key in self.following:
            return {NEXT}, guards
        self.following.append(key)
        leaves = False
        for h in self.model.handlers.get(s.event, []):
            when = [_test(h.when)] if h.when is not None else []
            outs, _ = self.block(h.body.body, _and(guards, when))
            leaves |= h.when is None and not outs & {NEXT, RETURN}
        self.following.pop()
        return (set() if leaves else {NEXT}), guards


def _test(e: A.Expr) -> str:
    """A condition as one conjunct: `a or b` gets parentheses so that joining with `and` is safe."""
    return expr(e, 2)


def _negate(e: A.Expr) -> str:
    if isinstance(e, A.Unary) and e.op == "not":
        return _test(e.operand)  # not (not x) is x
    return f"not ({expr(e)})"


def _nothing_to_choose(s: A.Choose) -> str:
    """The condition for a `choose ... else` block, written as a .vbr expression."""
    wanted = s.where if s.where is not None else A.BoolLit(span=s.span, value=True)
    return "not " + expr(A.Comprehension(span=s.span, agg="any", body=wanted, var=s.var, source=s.source))


def _and(guards: Guards, more: list[str]) -> Guards:
    return guards + tuple(g for g in more if g not in guards)


def _common_prefix(paths: list[Guards]) -> Guards:
    first = paths[0]
    n = 0
    while n < len(first) and all(len(p) > n and p[n] == first[n] for p in paths):
        n += 1
    return first[:n]
