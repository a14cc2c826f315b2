"""Scenario tests written in text: set up a position, force dice and choices, state what follows.

    tests for "siatka"
    scenario "Example 1" {
      given { ... statements ... }     # runs after setup, before play starts
      force movement = straight        # the next roll of that die
      start bounce                     # begin play at a phase (default: the rules' start)
      choose forward                   # apply the legal option equal to this value
      expect holder == 1               # must hold now
    }

A scenario file is checked by vbr.checking (`StepChecker`: the names its steps use, the type of
each value) and run by a typed engine, python or c, on the program vbr.ir.scenario_program
builds for the file's scenarios with the same options (a C engine is built once for them). A
step's value (a forced face, a choice, an expectation) is the return of the step's probe unit,
run by the engine where play stands; a `given` block is a unit run before play starts; `start`
drops every frame and starts the phase. Setup must not stop at a choice: such a scenario fails,
saying so. A construct the typed program cannot express yet raises `Unsupported` (an
EngineUnavailable, located) for the rule file, or fails the one scenario whose step uses it.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from vbr.checker import Model, Written
from vbr.checking import checked_model, located_errors
from vbr.checking import types as T
from vbr.checking.constants import Constants, Failure
from vbr.checking.expressions import ExprChecker
from vbr.checking.scope import Scope as CheckScope
from vbr.checking.statements import StmtChecker
from vbr.engines.events import EventLog
from vbr.engines.game import Game, State, make_engine
from vbr.engines.python_runtime import EngineFault
from vbr.errors import (Diagnostic, Diagnostics, IllegalActionError, OptionError, Span, VbrCheckError, VbrError,
                        VbrRuntimeError)
from vbr.grammar import ast as A
from vbr.grammar import printer
from vbr.grammar.expectations import how_it_stands
from vbr.ir.build import start_phase
from vbr.ir.build_expr import Unsupported
from vbr.ir.layout import CHOICE, OVER, Header as H
from vbr.ir.scenario_program import PlannedStep, ScenarioProgram, build_scenario_program
from vbr.ir.values import NONE
from vbr.loader import SCENARIO_FILE, load_rules, parse_file
from vbr.report import render_events

ENGINES = ("python", "c")  # what runs scenarios; `vbr test --engine auto` takes python


@dataclass
class ScenarioResult:
    title: str
    span: Span
    ok: bool
    message: str = ""
    steps: int = 0  # the steps the engine counted (units started, loop heads reached: its step limit's count)
    trace: list = field(default_factory=list)  # with trace=True: (step, event lines) after each step


def format_trace(result: ScenarioResult) -> list[str]:
    """The events a scenario's steps caused, one block per step that caused any: for `vbr test --trace`."""
    out = []
    for where, lines in result.trace:
        out.append(f"  after {where}:")
        out += [f"    {line}" for line in lines]
    return out


def load_scenarios(path: Path):
    """(the scenario file's tree, the RuleSet it tests, its text); a VbrCheckError for a rule file."""
    tree, source = scenario_file(path)
    rules = load_rules(tree.rules, tests=Path(path), span=tree.span)
    return tree, rules, source


def scenario_file(path: Path):
    """(the scenario file's tree, its text), read once; a VbrCheckError for another kind of file."""
    tree, source = parse_file(Path(path), kind=SCENARIO_FILE)
    if not isinstance(tree, A.TestFile):
        beside = Path(path).parent / "tests" / Path(path).name  # where a rule file's scenarios are kept
        kept = isinstance(tree, A.GameFile) and beside.is_file()
        hint = f" (this is a rule file; its scenarios are in {beside})" if kept else ""
        raise VbrCheckError([Diagnostic(tree.span, f"not a scenario file: it should start with `tests for \"RULES\"`{hint}")],
                            {str(path): source})
    return tree, source


def options_of(sc: A.Scenario) -> dict:
    """The options a scenario's `option` steps set."""
    return {s.name: _literal(s.exprs[0]) for s in sc.steps if s.kind == "option"}


def options_key(options: dict) -> tuple:
    """A key equal for equal options only: each value with its type, since Python counts `true`
    equal to `1` (and `false` to `0`), which are two options' values, one of them refused; and
    a string `"fast"` apart from the name `fast` (`Written`), which an error writes each as given."""
    return tuple(sorted((name, type(value).__name__, getattr(value, "quoted", False), value)
                        for name, value in options.items()))


def run_file(path: Path, rules=None, *, trace: bool = False, step_limit: int | None = None,
             engine: str = "python", read=None) -> list[ScenarioResult]:
    """Run every scenario of a file through `engine` ("python" or "c"). `rules`: a RuleSet to run
    them against instead of the file the scenarios name (`vbr mutate` runs them against each
    mutant); `trace`: keep the events between steps in each result (`format_trace`);
    `step_limit`: a lower step limit than the rule file's, for each scenario; `read`: the file as
    `scenario_file` read it before (`vbr mutate` runs the scenarios it read at its start against
    every mutant, whatever the file holds by then), else it is read now. A scenario that
    does not check, or fails, fails alone; a rule file the typed program cannot express raises
    Unsupported (located), one the C engine cannot be built for CEngineUnavailable."""
    if engine not in ENGINES:
        raise ValueError(f"no engine `{engine}` for scenarios (engines: {', '.join(ENGINES)})")
    if rules is None:
        tree, rules, source = load_scenarios(path)
    else:
        tree, source = read or scenario_file(path)
    sources = {**rules.sources, str(path): source}
    scenarios = tree.scenarios
    results: list = [None] * len(scenarios)
    for options, members in _by_options(scenarios):
        for i, result in zip(members, _run_group([scenarios[i] for i in members], rules, options, sources,
                                                 engine, trace, step_limit)):
            results[i] = result
    return results


def _run_group(scenarios: list[A.Scenario], rules, options: dict, sources: dict, engine: str, trace: bool,
               step_limit: int | None) -> list[ScenarioResult]:
    """The results of scenarios that set the same `options`, checked and then run on one program."""
    try:
        model = checked_model(rules, options)
    except VbrError as exc:  # the rule file under these options: each of their scenarios fails with it
        return [ScenarioResult(sc.title, exc.span, False, exc.render()) for sc in scenarios]
    except OptionError as exc:
        return [ScenarioResult(sc.title, problems[0].span, False, VbrError(problems, sources).render())
                for sc in scenarios for problems in [_option_problems(sc, exc)]]
    checker = StepChecker(model)
    results: list = [None] * len(scenarios)
    checked = []
    for i, sc in enumerate(scenarios):
        problems = checker.problems(sc)
        if problems:
            exc = VbrCheckError(problems, sources)
            results[i] = ScenarioResult(sc.title, exc.span, False, exc.render())
        else:
            checked.append(i)
    if checked:
        sp, game = scenario_program(model, [scenarios[i] for i in checked], engine, step_limit)
        for k, i in enumerate(checked):
            results[i] = _result(scenarios[i], TypedRunner(sp, game, k, trace=trace))
    return results


def _by_options(scenarios: list[A.Scenario]) -> list[tuple[dict, list[int]]]:
    """The scenarios' indices grouped by the options they set (by options_key): (the options, the
    indices) per group."""
    groups: dict[tuple, tuple[dict, list[int]]] = {}
    for i, sc in enumerate(scenarios):
        options = options_of(sc)
        groups.setdefault(options_key(options), (options, []))[1].append(i)
    return list(groups.values())


def _result(sc: A.Scenario, runner: "TypedRunner") -> ScenarioResult:
    seed = next((s.value for s in sc.steps if s.kind == "seed"), 0)
    try:
        runner.run(seed)
    except Failed as f:
        return ScenarioResult(sc.title, f.span, False, f.message, runner.steps_used(), runner.events)
    except VbrError as exc:
        return ScenarioResult(sc.title, exc.span, False, exc.render(), runner.steps_used(), runner.events)
    return ScenarioResult(sc.title, sc.span, True, "", runner.steps_used(), runner.events)


def check_file(path: Path) -> None:
    """Check every scenario of a file without running it (for `vbr check`): a VbrCheckError with
    every problem of every scenario."""
    tree, rules, source = load_scenarios(path)
    sources = {**rules.sources, str(path): source}
    problems: list[Diagnostic] = []
    for options, members in _by_options(tree.scenarios):
        try:
            checker = StepChecker(checked_model(rules, options))
        except OptionError as exc:
            problems += [p for i in members for p in _option_problems(tree.scenarios[i], exc)]
            continue
        for i in members:
            problems += checker.problems(tree.scenarios[i])
    if problems:  # in the order of the file, whichever options their scenarios set
        raise VbrCheckError(sorted(problems, key=lambda d: (d.span.file != str(path), d.span.line, d.span.col)), sources)


def _option_problems(sc: A.Scenario, exc: OptionError) -> list[Diagnostic]:
    """The options the rule file refuses (it has no such option, or not that value), each at the
    `option` step that sets it (a problem of no one option's at the scenario's first `option`
    step): only a scenario's options are given from outside the rule file."""
    steps = [s for s in sc.steps if s.kind == "option"]
    own = [Diagnostic(s.span, exc.by_name[s.name]) for s in steps if s.name in exc.by_name]
    return own or [Diagnostic(steps[0].span, str(exc))]


class StepChecker:
    """The steps of scenarios checked against a rule file's checked model (its options the
    scenarios'): each phase and die a step names exists, a forced face has the die's type (and,
    when it is known before play, is one of the die's faces), an expectation is a bool, a `given`
    block checks as a body of its own (no `return`)."""

    def __init__(self, model: Model):
        self.m = copy.copy(model)
        self.m.diags = Diagnostics()  # the scenarios' problems, apart from the model's
        values = Constants(self.m)
        self.x = ExprChecker(self.m, values)
        self.s = StmtChecker(self.m, self.x)
        for name, d in self.m.dice.items():
            item = T.item_type(self.x.check(d.faces, CheckScope()))
            try:
                faces = values.faces(name)
            except Failure:
                faces = None
            values.keep_die(name, faces, item or "any")

    def problems(self, sc: A.Scenario) -> list[Diagnostic]:
        """The errors of `sc`'s steps, sorted by place."""
        self.m.diags.items.clear()
        for step in sc.steps:
            self._step(step)
        self._set_once(sc)
        return located_errors(self.m)

    def _set_once(self, sc: A.Scenario) -> None:
        """A `seed`, and each option, is set at most once: it applies to the whole scenario, so a
        second value would silently lose to the other (the first seed is played, the last option)."""
        first: dict[tuple, int] = {}
        for step in sc.steps:
            if step.kind not in ("seed", "option"):
                continue
            key = (step.kind, step.name if step.kind == "option" else None)
            if key in first:
                what = "the seed" if step.kind == "seed" else f"option `{step.name}`"
                self.m.diags.error(step.span, f"{what} is set twice in this scenario (first on line {first[key]}); "
                                              "it applies to the whole scenario: set it once")
            else:
                first[key] = step.span.line

    def _step(self, step: A.ScenarioStep) -> None:
        m, x, k = self.m, self.x, step.kind
        if k == "given":
            self.s.body("given", "given", step.block)
        elif k in ("start", "phase") and step.name not in m.phases:
            m.diags.error(step.span, f"no phase `{step.name}`" + m.no_phase(step.name))
        elif k == "force" and step.name == "pick":
            for e in step.exprs:
                x.check(e, CheckScope())
        elif k == "force" and step.name not in m.dice:
            m.diags.error(step.span, f"no die `{step.name}`" + m.suggest_or_list(step.name, m.dice, "dice"))
        elif k == "force":
            faces = x.values.dice.get(step.name)
            for e in step.exprs:
                face = x.values.die_types[step.name]
                if not T.compatible(x.expect(e, CheckScope(), face, "a forced face"), face) or faces is None:
                    continue
                known, v = x.constant(e, CheckScope())
                if known and v not in faces:  # as play would find it (TypedRunner._force)
                    text = printer.expr(e)
                    shown = text if text == str(v) else f"{v} (`{text}`)"
                    m.diags.error(e.span, f"die `{step.name}` has no face {shown}")
        elif k == "expect":
            x.expect(m.measures_read(step.exprs[0]), CheckScope(), "bool", "an expectation")
        elif k == "winner":
            t = x.check(step.exprs[0], CheckScope())
            seat = step.exprs[0]
            if isinstance(seat, A.IntLit) and not 0 <= seat.value < m.seats:
                m.diags.error(seat.span, f"there is no seat {seat.value}: the seats are 0..{m.seats - 1}")
            elif t not in ("none", "any") and not T.compatible(t, "seat"):
                m.diags.error(seat.span, f"`expect winner` names a seat (or none), not {T.show(t)}")
        elif k in ("choose", "legal", "illegal") and isinstance(step.exprs[0], A.StrLit) and step.exprs[0].value == "pass":
            m.diags.error(step.exprs[0].span, "the option `pass` is the value `none`: write `none`, not the string \"pass\"")
        elif k in ("choose", "legal", "illegal"):
            x.check(step.exprs[0], CheckScope())


def _literal(e: A.Expr):
    """An `option` step's value as the checker takes it: a number or true/false as itself, a
    string or a name as written (`Written`: never read as a number or as true, as command-line
    text is)."""
    match e:
        case A.IntLit(value=v) | A.BoolLit(value=v):
            return v
        case A.StrLit(value=v):
            return Written.text(v)
        case A.Name(id=i):
            return Written.name(i)
    return None


# ------------------------------------------------------------------------------ running
BEFORE_SETUP = ("option", "seed", "force")  # the steps that come before setup runs: it starts at the first other step


class Failed(Exception):
    """A scenario's step did not hold: `message`, at `span`."""

    def __init__(self, span, message: str):
        self.span, self.message = span, message


def _met_while(step: A.ScenarioStep, exc: VbrError) -> Exception:
    """A run-time error met while `step` ran, as its scenario fails with it: an error the rule
    file's code raised is a failure located at the step, the error (with its place in the rule
    file) its message; an error of the scenario's own code (a `given` block) stays as it is."""
    if exc.span.file == step.span.file:
        return exc
    return Failed(step.span, f"`{printer.step_line(step)}` met a run-time error of the rules: {exc.render()}")


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
            except VbrError as exc:
                raise _met_while(step, exc) from None
            finally:
                if self.log is not None and len(self.log) > seen:
                    where = f"line {step.span.line} ({printer.step_line(step)})"
                    self.events.append((where, render_events(self.log[seen:])))
                    seen = len(self.log)
        self._all_forced_taken()

    def _all_forced_taken(self) -> None:
        """Every value a `force` queued was rolled or picked by the end: one left over is a draw
        the scenario counted on that play never made, so the steps after it tested another game."""
        last = {}
        for planned in self.plan:
            if planned.step.kind == "force":
                last[planned.queue] = planned
        S = self.state.words
        for queue, planned in last.items():
            at = self.p.forced_at[queue]
            left = int(S[at + 1]) - int(S[at])
            if left > 0:
                pick, name = planned.step.name == "pick", planned.step.name
                many = "value was" if left == 1 else "values were"
                raise Failed(planned.step.span, f"{left} {many} forced for `{name}` and never "
                                                f"{'picked' if pick else 'rolled'}: play made no more "
                                                f"{'picks' if pick else 'rolls of it'} before the scenario ended")

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

    def _text(self, ty: str, v: int, none: str = "pass") -> str:
        """Value `v` of type `ty` as text; none reads `none` (an option: `pass`, as `choose none` picks it)."""
        return self.p.names.text(ty, v, self.state.words if self.state is not None else None, none)

    def _set_up(self, step) -> int:
        """The rules' setup, with whatever the `force` lines above this step queued."""
        self.set_up = True
        if self._run_rules(self.p.init) is None:
            self.state.check()
            raise Failed(step.span, "setup stopped at a choice: the typed engines run a scenario only after a "
                                    "setup that makes none")
        if self.log:
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
                raise Failed(step.span, self._given_stopped())
            return
        if k == "start":
            if self.started:
                raise Failed(step.span, "play has started already")
            self.started = True
            self._goto(step.name)
            return
        self._ensure_started()
        getattr(self, "_" + k)(planned)

    def _given_stopped(self) -> str:
        """Why a `given` block stopped before its end, from where play stands: the game over (an
        `end`), else a choice or play handed to a phase (a `goto`, which an engine may have played
        on to the next choice), in the block or a procedure it calls."""
        if self.state.words[H.STATUS] == OVER:
            return ("a `given` block may not end the game (an `end`, here or in a procedure it calls): it sets up a "
                    "position before play starts")
        return ("a `given` block may not make choices or start play (a `choose` or a `goto`, here or in a procedure "
                "it calls): it sets up a position, and the scenario's `start PHASE` and `choose` steps after it play")

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
        v, ty = self._option_value(planned)
        for i, o, item in self._options():
            if _same(ty, v, item, o):
                self.state.apply_index(i)
                return
        shown = ", ".join(self._text(item, o) for _, o, item in self._options())
        raise IllegalActionError(f"{self._text(ty, v)} is not legal here{self._asking()}; legal: {shown}")

    def _asking(self) -> str:
        """Whose choice is pending and its question, as `vbr run` shows it: ` (seat 0: play a touch)`."""
        S = self.state.words
        site = self.p.choices[S[H.SITE]]
        return f" (seat {int(S[H.SEAT])}: {site.prompt or 'choose ' + site.var})"

    def _nothing_pending(self) -> str:
        """Why no option is on offer: the game is over (and how), or play stands at no choice."""
        over = self.state.outcome()
        return f"nothing (the game is over: {over})" if over else "nothing (no choice is pending)"

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
        """The value of each side of every comparison in a failed expectation, as a failed `expect` shows them."""
        def shown(unit):
            try:
                got = self.engine.call(self.state.words, unit, None)
            except EngineFault as f:
                return f"not evaluable ({self._fault_text(f)})"
            return self._text(self.sp.probe_types[unit], int(got), none="none") if got is not None else "not evaluable"
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

    def _option_value(self, planned: PlannedStep) -> tuple[int, str]:
        """The value a `choose`, `expect legal` or `expect illegal` step names. One written as
        something else than `none` that comes out none (`first(c for c in hand[1] if ...)` that
        found nothing) fails the step: it would name `pass`, so `choose` would pass and `expect
        illegal` hold whatever is on offer."""
        v, ty = self._value(planned)
        e = planned.step.exprs[0]
        if v == NONE and not isinstance(e, A.NoneLit):
            raise Failed(e.span, f"`{printer.expr(e)}` is none here, so it names no option (write `none` to name "
                                 "`pass`)")
        return v, ty

    def _legal(self, planned: PlannedStep, want: bool = True) -> None:
        v, ty = self._option_value(planned)
        options = self._options()
        if not options and not want:
            raise Failed(planned.step.span, f"{self._text(ty, v)} should not be legal; legal now: "
                                            f"{self._nothing_pending()}, so this tests nothing")
        if any(_same(ty, v, item, o) for _, o, item in options) != want:
            shown = ", ".join(self._text(item, o) for _, o, item in options) + self._asking() if options \
                else self._nothing_pending()
            raise Failed(planned.step.span, f"{self._text(ty, v)} should {'' if want else 'not '}be legal; "
                                            f"legal now: {shown}")

    def _illegal(self, planned: PlannedStep) -> None:
        self._legal(planned, want=False)

    def _phase(self, planned: PlannedStep) -> None:
        """`expect phase P`: play stands in phase P. A game that is over stands in no phase (the
        frames of the phase it ended in are left on the stack, and are not read)."""
        over = self.state.outcome()
        if over is not None:
            raise Failed(planned.step.span, f"expected phase `{planned.step.name}`, but the game is over: "
                                            f"{how_it_stands(over)}")
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
        if r is None or not self._won(r, want):
            who = "no seat" if want is None else f"seat {want}"
            raise Failed(planned.step.span, f"expected {who} to win, but {how_it_stands(r)}")

    def _won(self, r, seat: int | None) -> bool:
        """Whether `seat` won the game that ended as `r` (None: no seat won); a team that won as a
        whole (`end winner team T`) won for each of its seats."""
        if r.by_team and seat is not None:
            team_of = self.game.team_of
            return 0 <= seat < len(team_of) and team_of[seat] == r.team
        return r.winner == seat

    def _draw(self, planned: PlannedStep) -> None:
        r = self.state.outcome()
        if r is None or r.winner is not None or r.by_team:
            raise Failed(planned.step.span, f"expected a draw, but {how_it_stands(r)}")


def _sort(ty: str) -> str:
    """What a value's type says of its sort, for telling a value from an equal number of
    another sort (card #1 is not the number 1), as a scenario's steps compare them."""
    if ty.startswith("ent"):
        return "ent"
    if ty in ("seat", "team"):
        return "int"
    return ty


def _same(ty: str, v: int, item: str, o: int) -> bool:
    if v == NONE or o == NONE:
        return v == o
    return v == o and _sort(ty) == _sort(item)
