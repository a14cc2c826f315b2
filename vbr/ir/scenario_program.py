"""A scenario of a scenario file → the rule file's typed program with the scenario's own units.

A scenario (vbr/scenario.py describes its steps and runs it) runs against a program built for it: the rule
file's units as they are, except that the start of play returns after `setup` instead of going
to the start phase (the runner starts play when a step needs it), and beside them

- a `given` unit per `given` block: its statements, then a return;
- a `probe` unit per value a step names (a forced face or pick, a choice, a legal or illegal
  value, an expectation and each side of the comparisons a failed one shows): one return of
  that value, so that an engine works it out where play stands, as the rules would;
- a forced queue per die the scenario forces, and one for `pick`: words `[taken, count,
  values...]` past the vars, that the program's rolls and picks take from first
  (`Roll.forced`, `Pick.forced`). A rule file's own program has none of these.

A value the typed program cannot express yet (a list as a value) raises `Unsupported` located at
it, except on a side of a failed expectation's comparison, which is then shown without its sides.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vbr.checker import Model
from vbr.grammar import ast as A
from vbr.grammar import printer
from vbr.grammar.expectations import comparisons
from vbr.ir import nodes as N
from vbr.ir.build import ProgramBuilder, UnitBuilder
from vbr.checking.scope import Scope
from vbr.ir.build_expr import Unsupported


@dataclass
class Comparison:
    """A part of an expectation shown when it fails: its text, and the probes of its left side,
    right side (None when it is no comparison, or a side is no value) and whole."""
    text: str
    left: int | None
    right: int | None
    whole: int | None


@dataclass
class PlannedStep:
    """A scenario step and what the program holds for it: `probes` (units) of its values in
    order, `given` (a unit), `queue` (the forced queue of a `force`), `parts` of an `expect`."""
    step: A.ScenarioStep
    probes: list[int] = field(default_factory=list)
    given: int | None = None
    queue: int = -1
    parts: list[Comparison] = field(default_factory=list)


@dataclass
class ScenarioProgram:
    program: N.Program
    plans: list  # per scenario, its steps (list[PlannedStep]), or the Unsupported that stops it
    probe_types: dict[int, str]  # probe unit -> the type of its value


def build_scenario_program(m: Model, scenarios: list[A.Scenario]) -> ScenarioProgram:
    """One program for `scenarios` (a file's scenarios with the same options: one engine runs
    them all); raises Unsupported as build_program does for the rule file, and keeps it in
    `plans` for a scenario it stops."""
    return ScenarioBuilder(m, scenarios).build_scenarios()


class ScenarioBuilder(ProgramBuilder):
    hold_start = True

    def __init__(self, m: Model, scenarios: list[A.Scenario]):
        super().__init__(m)
        self.scenarios = scenarios
        self._queues: dict[tuple, int] = {}
        self._capacities: list[int] = []
        for sc in scenarios:
            wanted: dict[tuple, int] = {}
            for step in sc.steps:
                if step.kind == "force":
                    key = _queue_key(self, step)
                    wanted[key] = wanted.get(key, 0) + len(step.exprs)
            for key, n in wanted.items():
                if key not in self._queues:
                    self._queues[key] = len(self._capacities)
                    self._capacities.append(0)
                q = self._queues[key]
                self._capacities[q] = max(self._capacities[q], n)
        self.probe_types: dict[int, str] = {}

    def forced_queue(self, key: tuple) -> int:
        return self._queues.get(key, -1)

    def forced_capacities(self) -> list[int]:
        return list(self._capacities)

    def _stack_room(self) -> tuple[int, int]:
        """Room for the frames play may hold at a step, and above them a probe's or given's."""
        copies, frames = super()._stack_room()
        return 2 * copies, 2 * frames if frames >= 0 else -1

    def build_scenarios(self) -> ScenarioProgram:
        self.build_units()
        plans: list = []
        for k, sc in enumerate(self.scenarios):
            try:
                plans.append([self._plan(f"{k}.{i}", step) for i, step in enumerate(sc.steps)])
            except Unsupported as exc:  # this scenario cannot run; the others still can
                plans.append(exc)
        return ScenarioProgram(self.finish(), plans, self.probe_types)

    def _plan(self, i: str, step: A.ScenarioStep) -> PlannedStep:
        planned = PlannedStep(step)
        if step.kind == "given":
            planned.given = self._given(i, step)
        elif step.kind == "force":
            planned.queue = self._queues[_queue_key(self, step)]
            planned.probes = [self._probe(f"{i}.{k}", e) for k, e in enumerate(step.exprs)]
        elif step.kind in ("choose", "legal", "illegal", "winner"):
            planned.probes = [self._probe(i, step.exprs[0])]
        elif step.kind == "expect":
            e = self.m.measures_read(step.exprs[0])
            planned.probes = [self._probe(i, e)]
            written = comparisons(step.exprs[0])  # as the scenario writes them (a measure by its name)
            planned.parts = [self._part(f"{i}.{k}", c, printer.expr(w))
                             for k, (c, w) in enumerate(zip(comparisons(e), written))]
        return planned

    def _given(self, i: str, step: A.ScenarioStep) -> int:
        unit = self._declare(f"scenario {i}: given", "given", step.span)
        ub = UnitBuilder(self, self.units[unit])
        try:
            ub.block(step.block, Scope(), None)
        finally:  # the unit stays whole, also when a statement cannot be built
            ub.end(N.Return(step.block.span, None))
            ub._close()
        return unit

    def _probe(self, name: str, e: A.Expr) -> int:
        unit = self._declare(f"scenario {name}: {printer.expr(e)}", "probe", e.span)
        ub = UnitBuilder(self, self.units[unit])
        try:
            with ub.statement():
                value = ub.x.expr(e, Scope())
        except Unsupported:  # the unit stays whole (returning none) for the caller that goes on
            ub.end(N.Return(e.span, None))
            ub._close()
            raise
        ub.end(N.Return(e.span, value))
        ub._close()
        self.probe_types[unit] = value.ty
        return unit

    def _part(self, name: str, c: A.Expr, text: str) -> Comparison:
        whole = self._probe(name, c)
        if not (isinstance(c, A.Binary) and c.op not in ("and", "or")):
            return Comparison(text, None, None, whole)
        try:
            left, right = self._probe(name + "l", c.left), self._probe(name + "r", c.right)
        except Unsupported:  # a side that is a list: the comparison is shown without its sides
            return Comparison(text, None, None, whole)
        return Comparison(text, left, right, whole)


def _queue_key(pb: ProgramBuilder, step: A.ScenarioStep) -> tuple:
    """The forced queue a `force` step fills: the one of `pick`, or of its die."""
    return ("pick",) if step.name == "pick" else ("roll", pb.die_index.get(step.name, -1))
