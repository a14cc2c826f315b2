"""Flaws in a turn flow that show before anyone plays: phases play can never reach, phases play
can never leave or can leave only on some paths, loops that go round without anyone choosing,
events nothing emits (their handlers never run), measures nothing sets, and options nothing reads.

boardgame.io notices an endless loop of automatic phase ends only while a game runs; here the
same loop is a cycle of automatic transitions, found ahead of time. These are warnings, not
errors: a loop's guards may well get play out of it (a counter, say), which the flow cannot judge.

They are read from the walked flow (flow.py), the same walk graph.py draws, without building the
NetworkX graph: `vbr check` and the language server run them on every check, and importing
NetworkX would cost more than the whole walk. A turn flow has tens of phases, so plain searches do.
"""
from __future__ import annotations

from dataclasses import dataclass

from vbr.checker import Model
from vbr.errors import Diagnostic, Span
from vbr.grammar import ast as A
from vbr.turn_flow import END, Exit, Flow, FlowContext


@dataclass
class _Phase:
    span: Span
    flow: Flow
    next: list[str]  # the phases (and END) its exits lead to, in the order they are written


def findings(model: Model) -> list[Diagnostic]:
    """Every flaw of the model's turn flow, as warnings at the phases concerned, and the warnings
    the checker found, in file order."""
    phases, first = _walk(model)
    found = (_unreachable(phases, first, model) + _dead_ends(phases) + _open_ends(phases) + _automatic_cycles(phases)
             + _never_emitted(model) + _never_set(model) + _never_read(model) + model.diags.warnings)  # the checker's own (a choice from a zone nothing fills)
    return sorted(found, key=lambda d: (d.span.file, d.span.line, d.span.col))


def _walk(model: Model) -> tuple[dict[str, _Phase], list[str]]:
    """Each phase's flow and where it leads, and where play goes from the start (through setup)."""
    ctx = FlowContext(model, set(), False)
    known = set(model.phases) | {END}

    def targets(exits: list[Exit]) -> list[str]:
        return list(dict.fromkeys(ex.target for ex in exits if ex.target in known))  # else the compiler reports it
    phases = {}
    for name, phase in model.phases.items():
        flow = ctx.flow(phase.body)
        phases[name] = _Phase(phase.span, flow, targets(flow.exits))
    setup = ctx.flow(model.setup.body) if model.setup else Flow(falls_through=())
    first = targets(setup.exits)
    if model.start is not None and setup.falls_through is not None and model.start.phase in known:
        first.append(model.start.phase)
    return phases, first


def _warn(phase: _Phase, message: str) -> Diagnostic:
    return Diagnostic(phase.span, message, "warning")


def _unreachable(phases: dict[str, _Phase], first: list[str], model: Model) -> list[Diagnostic]:
    reached, todo = set(first), list(first)
    while todo:
        p = todo.pop()
        for q in phases[p].next if p in phases else ():
            if q not in reached:
                reached.add(q)
                todo.append(q)
    where = f"`start {model.start.phase}`" if model.start else "the start"
    return [_warn(ph, f"phase `{p}` can never be reached: no chain of `goto`s leads to it from {where}")
            for p, ph in phases.items() if p not in reached]


def _never_emitted(model: Model) -> list[Diagnostic]:
    """Events no `emit` in the file names: their handlers can never run."""
    bodies = [d.body for group in (model.phases, model.procs) for d in group.values()]
    bodies += [h.body for hs in model.handlers.values() for h in hs]
    bodies += [model.setup.body] if model.setup else []
    emitted = {n.event for b in bodies for n in A.walk(b) if isinstance(n, A.Emit)}
    found = []
    for name, ev in model.events.items():
        if name in emitted:
            continue
        ran = "its handlers never run" if model.handlers.get(name) else "no handler listens to it either"
        found.append(Diagnostic(ev.span, f"event `{name}` is never emitted: {ran} (`emit {name}(...)` makes it "
                                         "happen)", "warning"))
    return found


_STARTS = {"seat": "unset", "side": "unset", "int": "0", "bool": "false"}


def _never_set(model: Model) -> list[Diagnostic]:
    """Measures no `measure NAME = ...` (or `+=`, `-=`) in the file sets: every game reports
    them as they start. When a variant's `override` replaced the base's declarations that set
    one, the warning is at that `override`, naming what it replaced."""
    bodies = [d.body for group in (model.phases, model.procs) for d in group.values()]
    bodies += [h.body for hs in model.handlers.values() for h in hs]
    bodies += [model.setup.body] if model.setup else []
    set_ = set().union(*(_assigned(b) for b in bodies))
    found = []
    for short, d in model.measures.items():
        if d.name in set_:
            continue
        starts = _STARTS.get(d.type, "unset")
        dropped = [(old, new) for old, new in model.rules.replaced if d.name in _assigned(old)]
        found += [Diagnostic(new.span, f"measure `{short}` is never set: this `override` replaces the base's "
                                       f"declaration at {old.span}, which set it, and nothing sets it now: every "
                                       f"game reports it {starts}, as it starts (`measure {short} = ...` sets it)",
                             "warning") for old, new in dropped]
        if not dropped:
            found.append(Diagnostic(d.span, f"measure `{short}` is never set: every game reports it {starts}, "
                                            f"as it starts (`measure {short} = ...` sets it)", "warning"))
    return found


def _assigned(node) -> set[str]:
    """The names `node`'s assignments set (a measure's is `measure NAME`)."""
    return {n.target.id for n in A.walk(node) if isinstance(n, A.Assign) and isinstance(n.target, A.Name)}


def _never_read(model: Model) -> list[Diagnostic]:
    """Options that nothing in the file names: whatever value is chosen, play is the same."""
    named = {n.id for d in model.rules.decls if not isinstance(d, A.Option) for n in A.walk(d)
             if isinstance(n, A.Name)}
    return [Diagnostic(d.span, f"option `{name}` is never read: every value of it plays the same game (the rules "
                               "name it nowhere)", "warning")
            for name, d in model.option_decls.items() if name not in named]


def _dead_ends(phases: dict[str, _Phase]) -> list[Diagnostic]:
    return [_warn(ph, f"phase `{p}` has no way out: no `goto` or `end` can run in it, "
                      "so a game that gets here stops with an error")
            for p, ph in phases.items() if not ph.next]


def _open_ends(phases: dict[str, _Phase]) -> list[Diagnostic]:
    """Phases where some paths hand play on and others fall off the end (a phase with no way
    out at all is `_dead_ends`'s): the game stops with an error on the paths that fall off."""
    found = []
    for p, ph in phases.items():
        after = ph.flow.falls_through
        if after is None or not ph.next:
            continue
        when = f" (when {' and '.join(after)})" if after else ""
        found.append(_warn(ph, f"phase `{p}` can reach its end without a `goto` or `end`{when}: "
                               "a game that takes that path stops with an error"))
    return found


def _automatic_cycles(phases: dict[str, _Phase]) -> list[Diagnostic]:
    """One warning per knot of automatic transitions (phases without a choice leading to phases)."""
    auto = {p: [q for q in ph.next if q in phases] for p, ph in phases.items() if ph.flow.choices == 0}
    auto = {p: [q for q in nxt if q in auto] for p, nxt in auto.items()}
    found = []
    for knot in _strongly_connected(auto):
        if len(knot) == 1 and knot[0] not in auto[knot[0]]:
            continue
        first = min(knot, key=lambda p: (phases[p].span.line, phases[p].span.col))
        path = " → ".join(f"`{p}`" for p in _cycle_through(auto, set(knot), first))
        found.append(_warn(phases[first], f"the loop {path} has no choice point on the way: "
                                          "unless its conditions change, play could never stop"))
    return found


def _strongly_connected(succ: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iterative (a rule file may chain many phases)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts = []
    for root in succ:
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ[w])))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                part = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    part.append(w)
                    if w == v:
                        break
                parts.append(part)
    return parts


def _cycle_through(succ: dict[str, list[str]], knot: set[str], first: str) -> list[str]:
    """The shortest cycle through `first` inside a strongly connected knot, `first` at both ends
    (breadth first, successors in the order the rules write them)."""
    came_from: dict[str, str] = {}
    frontier = [first]
    while frontier:
        nxt = []
        for v in frontier:
            for w in succ[v]:
                if w not in knot:
                    continue
                if w == first:  # back at the start: the way here, read backwards, and round
                    back = [v]
                    while back[-1] != first:
                        back.append(came_from[back[-1]])
                    return back[::-1] + [first]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    return [first]
