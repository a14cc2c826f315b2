"""Scenario tests (vbr/scenario.py says what each step means) run by a typed engine
(`--engine python` or `c`): the same steps, the same verdicts and the same failure messages
as the closure engine's runner, on the typed program of vbr.ir.scenario_program.

A file's scenarios with the same options share one program and one engine (a C engine is built
once for them). A step's value (a forced face, a choice, an expectation) is the return of the
step's probe unit, run by the engine where play stands; a `given` block is a unit run before
play starts; `start` drops every frame and starts the phase. Setup must not stop at a choice:
such a scenario fails, saying so.
"""
from __future__ import annotations

from vbr.engines.events import EventLog
from vbr.engines.game import Game, State, make_engine
from vbr.engines.python_runtime import EngineFault
from vbr.errors import IllegalActionError, VbrError, VbrRuntimeError
from vbr.grammar import ast as A
from vbr.grammar import printer
from vbr.grammar.expectations import how_it_stands
from vbr.ir.build import start_phase
from vbr.ir.build_expr import Unsupported
from vbr.ir.layout import CHOICE, Header as H
from vbr.ir.scenario_program import PlannedStep, ScenarioProgram, build_scenario_program
from vbr.ir.values import NONE

BEFORE_SETUP = ("option", "seed", "force")  # the steps that come before setup runs (vbr/scenario.py)


class Failed(Exception):
    """A scenario's step did not hold: `message`, at `span`."""

    def __init__(self, span, message: str):
        self.span, self.message = span, message


def scenario_program(model, scenarios: list[A.Scenario], engine: str, step_limit: int | None = None):
    """(the ScenarioProgram of `scenarios` under `model`, its Game run by `engine`)."""
    sp = build_scenario_program(model, scenarios)
    p = sp.program
    if step_limit is not None and step_limit < p.limits["steps"]:
        p.limits["steps"] = step_limit
        p.messages[0] = (f"the game ran more than {step_limit} steps (`limit steps`)", None)
    return sp, Game(p, make_engine(p, engine), model)


class TypedRunner:
    """Runs scenario `index` of a ScenarioProgram; `events` gets (where, event lines) with `trace`."""

    def __init__(self, sp: ScenarioProgram, game: Game, index: int, trace: bool = False):
        self.sp, self.game, self.p = sp, game, game.program
        self.plan = sp.plans[index]
        self.engine = game.engine
        self.trace = trace
        self.events: list = []
        self.log: list | None = [] if trace else None
        self.state: State | None = None

    def steps_used(self) -> int:
        return int(self.state.words[H.STEPS]) if self.state is not None else 0

    def run(self, seed: int) -> None:
        if isinstance(self.plan, Unsupported):
            raise Failed(self.plan.span, self.plan.located().split("error: ", 1)[-1])
        log = EventLog(self.p, self.log) if self.log is not None else None
        state = State.__new__(State)
        state.game, state.words, state._events = self.game, self.engine.held(seed), log
        self.state, self.hook = state, log
        self.set_up = self.started = False
        seen = 0
        for planned in self.plan:
            step = planned.step
            try:
                if not self.set_up and step.kind not in BEFORE_SETUP:
                    seen = self._set_up(step)
                self._step(planned)
            except IllegalActionError as exc:
                raise Failed(step.span, str(exc)) from None
            finally:
                if self.log is not None and len(self.log) > seen:
                    from vbr.report import render_events
                    where = f"line {step.span.line} ({printer.step_line(step)})"
                    self.events.append((where, render_events(self.log[seen:])))
                    seen = len(self.log)

    # ------------------------------------------------------------------ the engine
    def _call(self, unit: int, step) -> int | None:
        """A probe run where play stands; a run-time error in it fails the step."""
        try:
            return self.engine.call(self.state.words, unit, self.hook)
        except EngineFault as f:
            raise Failed(step.span, f"cannot evaluate this step: {self._fault_text(f)}") from None

    def _run_rules(self, unit: int) -> int | None:
        """Setup or a `given` block run where play stands; a run-time error in it is the rules'
        (VbrRuntimeError, located where it happened), as in play."""
        try:
            return self.engine.call(self.state.words, unit, self.hook)
        except EngineFault as f:
            message, span = self.p.messages[f.fault]
            raise VbrRuntimeError.at(span or self.p.units[unit].span, self._fault_text(f)) from None

    def _value(self, planned: PlannedStep, k: int = 0) -> tuple[int, str]:
        unit = planned.probes[k]
        v = self._call(unit, planned.step)
        if v is None:
            raise Failed(planned.step.span, "cannot evaluate this step: it stopped play (a choice, `goto` or `end`)")
        return int(v), self.sp.probe_types[unit]

    def _fault_text(self, f: EngineFault) -> str:
        message, _ = self.p.messages[f.fault]
        return message.format(*("none" if x == NONE else str(int(x)) for x in (f.a, f.b)))

    def _text(self, ty: str, v: int) -> str:
        return self.p.names.text(ty, v, self.state.words if self.state is not None else None)

    def _set_up(self, step) -> int:
        """The rules' setup, with whatever the `force` lines above this step queued."""
        self.set_up = True
        if self._run_rules(self.p.init) is None:
            self.state.check()
            raise Failed(step.span, "setup stopped at a choice: the typed engines run a scenario only after a "
                                    "setup that makes none")
        if self.log:
            from vbr.report import render_events
            self.events.append(("setup", render_events(self.log)))
        return len(self.log) if self.log is not None else 0

    def _goto(self, phase: str) -> None:
        unit = self.p.units.index(next(u for u in self.p.units if u.kind == "phase" and u.name == phase))
        if self.hook is not None:
            self.hook.phase(unit)
        self.engine.goto(self.state.words, unit, self.hook)
        self.state._end_event()
        self.state.check()

    def _ensure_started(self) -> None:
        if not self.started:
            self.started = True
            self._goto(start_phase(self.game.model))

    # ------------------------------------------------------------------ the steps
    def _step(self, planned: PlannedStep) -> None:
        step, k = planned.step, planned.step.kind
        if k in ("option", "seed"):
            return
        if k == "force":
            self._force(planned)
            return
        if k == "given":
            if self.started:
                raise Failed(step.span, "`given` comes before play starts")
            if self._run_rules(planned.given) is None:
                self.state.check()
                raise Failed(step.span, "a `given` block may not make choices")
            return
        if k == "start":
            if self.started:
                raise Failed(step.span, "play has started already")
            self.started = True
            self._goto(step.name)
            return
        self._ensure_started()
        getattr(self, "_" + k)(planned)

    def _force(self, planned: PlannedStep) -> None:
        step, S = planned.step, self.state.words
        at = self.p.forced_at[planned.queue]
        faces = self.p.dice[self.p.die_names.index(step.name)] if step.name != "pick" else None
        for k, e in enumerate(step.exprs):
            v, ty = self._value(planned, k)
            if faces is not None and v not in faces:
                raise Failed(e.span, f"die `{step.name}` has no face {self._text(ty, v)}")
            count = int(S[at + 1])
            S[at + 2 + count] = v
            S[at + 1] = count + 1

    def _choose(self, planned: PlannedStep) -> None:
        S = self.state.words
        if S[H.STATUS] != CHOICE:
            over = self.state.outcome()
            raise Failed(planned.step.span, "no choice is pending" + (f" (the game is over: {over})" if over else ""))
        v, ty = self._value(planned)
        for i, o, item in self._options():
            if _same(ty, v, item, o):
                self.state.apply_index(i)
                return
        shown = ", ".join(self._text(item, o) for _, o, item in self._options())
        raise IllegalActionError(f"{self._text(ty, v)} is not legal here; legal: {shown}")

    def _options(self) -> list[tuple[int, int, str]]:
        S = self.state.words
        if S[H.STATUS] != CHOICE:
            return []
        item = self.p.choices[S[H.SITE]].item
        return [(i, o, item) for i, o in enumerate(self.state.options())]

    def _expect(self, planned: PlannedStep) -> None:
        v, _ = self._value(planned)
        if not v:
            raise Failed(planned.step.span, "expectation failed" + self._sides(planned))

    def _sides(self, planned: PlannedStep) -> str:
        """The value of each side of every comparison in a failed expectation, as vbr/scenario.py shows them."""
        def shown(unit):
            try:
                got = self.engine.call(self.state.words, unit, None)
            except EngineFault as f:
                return f"not evaluable ({self._fault_text(f)})"
            return self._text(self.sp.probe_types[unit], int(got)) if got is not None else "not evaluable"
        parts = planned.parts
        if not parts:
            return ""
        if len(parts) == 1 and parts[0].text == printer.expr(planned.step.exprs[0]) and parts[0].left is not None:
            return f" (left side is {shown(parts[0].left)}, right side is {shown(parts[0].right)})"
        lines = []
        for c in parts:
            sides = f": left side {shown(c.left)}, right side {shown(c.right)}" if c.left is not None else ""
            lines.append(f"`{c.text}` is {shown(c.whole)}{sides}")
        return ":\n    " + "\n    ".join(lines)

    def _legal(self, planned: PlannedStep, want: bool = True) -> None:
        v, ty = self._value(planned)
        options = self._options()
        if any(_same(ty, v, item, o) for _, o, item in options) != want:
            shown = ", ".join(self._text(item, o) for _, o, item in options) or "nothing"
            raise Failed(planned.step.span, f"{self._text(ty, v)} should {'' if want else 'not '}be legal; "
                                            f"legal now: {shown}")

    def _illegal(self, planned: PlannedStep) -> None:
        self._legal(planned, want=False)

    def _phase(self, planned: PlannedStep) -> None:
        S, lay = self.state.words, self.p.layout
        now = self.p.units[int(S[lay.stack + 1])].name if S[H.TOP] > lay.stack else None
        if now != planned.step.name:
            raise Failed(planned.step.span, f"expected phase `{planned.step.name}`, the game is in `{now}`")

    def _winner(self, planned: PlannedStep) -> None:
        v, ty = self._value(planned)
        if ty not in ("seat", "int", "none"):
            raise Failed(planned.step.span, f"`expect winner` names a seat or `none`, not {self._text(ty, v)}")
        r = self.state.outcome()
        want = None if v == NONE else v
        if r is None or r.winner != want:
            who = "no seat" if want is None else f"seat {want}"
            raise Failed(planned.step.span, f"expected {who} to win, but {how_it_stands(r)}")

    def _draw(self, planned: PlannedStep) -> None:
        r = self.state.outcome()
        if r is None or r.winner is not None or r.by_team:
            raise Failed(planned.step.span, f"expected a draw, but {how_it_stands(r)}")


def _sort(ty: str) -> str:
    """What a value's type says of its sort, for telling a value from an equal number of
    another sort (card #1 is not the number 1), as the closure engine compares them."""
    if ty.startswith("ent"):
        return "ent"
    if ty in ("seat", "team"):
        return "int"
    return ty


def _same(ty: str, v: int, item: str, o: int) -> bool:
    if v == NONE or o == NONE:
        return v == o
    return v == o and _sort(ty) == _sort(item)


__all__ = ["Failed", "TypedRunner", "scenario_program", "VbrError"]
