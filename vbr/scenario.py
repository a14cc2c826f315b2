"""Scenario tests written in text: set up a position, force dice and choices, state what follows.

    tests for "siatka"
    scenario "Example 1" {
      given { ... statements ... }     # runs after setup, before play starts
      force movement = straight        # the next roll of that die
      start bounce                     # begin play at a phase (default: the rules' start)
      choose forward                   # apply the legal option equal to this value
      expect holder == 1               # must hold now
    }
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vbr.errors import Diagnostic, IllegalActionError, Span, VbrCheckError, VbrError
from vbr.grammar import ast as A
from vbr.checking import types as T
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.program import Frame
from vbr.interpreter.scope import Fault, Locals, Scope
from vbr.interpreter.state import FORCED_PICK, State
from vbr.values import text
from vbr.loader import load_rules, parse_file
from vbr.grammar import printer
from vbr.grammar.expectations import comparisons, how_it_stands
from vbr.report import render_events


@dataclass
class ScenarioResult:
    title: str
    span: Span
    ok: bool
    message: str = ""
    steps: int = 0  # transfers of control the interpreter counted (what its step limit bounds)
    trace: list = field(default_factory=list)  # with trace=True: (step, event lines) after each step


def format_trace(result: ScenarioResult) -> list[str]:
    """The events a scenario's steps caused, one block per step that caused any: for `vbr test --trace`."""
    out = []
    for where, lines in result.trace:
        out.append(f"  after {where}:")
        out += [f"    {line}" for line in lines]
    return out


def load_scenarios(path: Path):
    tree, source = parse_file(Path(path))
    if not isinstance(tree, A.TestFile):
        raise VbrCheckError([Diagnostic(tree.span, "not a scenario file: it should start with `tests for \"RULES\"`")],
                            {str(path): source})
    rules = load_rules(tree.rules, tests=Path(path), span=tree.span)
    return tree, rules, source


def run_file(path: Path, rules=None, *, trace: bool = False, step_limit: int | None = None,
             lower: bool = True, engine: str = "closure") -> list[ScenarioResult]:
    """Run every scenario of a file. `rules`: a RuleSet to run them against instead of the file the
    scenarios name (`vbr mutate` runs them against each mutant); `trace`: keep the events between
    steps in each result (`format_trace`); `step_limit`: a lower step limit than the rule file's,
    for each scenario; `lower=False`: run the closures without building the fast form (cheaper
    for a file run once, as `vbr mutate` runs each mutant); `engine`: "closure", or a typed
    engine ("python", "c": vbr.typed_scenario), which raises Unsupported (located) for a rule
    file the typed program cannot express yet."""
    if rules is None:
        tree, rules, source = load_scenarios(path)
    else:
        tree, source = parse_file(Path(path))
        if not isinstance(tree, A.TestFile):
            raise VbrCheckError([Diagnostic(tree.span, "not a scenario file: it should start with `tests for \"RULES\"`")],
                                {str(path): source})
    sources = {**rules.sources, str(path): source}
    cache: dict = {"lower": lower and engine == "closure"}
    if engine != "closure":
        return _run_typed(tree.scenarios, rules, sources, engine, trace=trace, step_limit=step_limit, cache=cache)
    return [run_scenario(sc, rules, sources, trace=trace, step_limit=step_limit, cache=cache) for sc in tree.scenarios]


def _run_typed(scenarios, rules, sources, engine: str, *, trace: bool, step_limit, cache: dict) -> list[ScenarioResult]:
    """Every scenario through a typed engine, those with the same options on one program: each
    checked as the closure runner checks it, then run by vbr.typed_scenario."""
    from vbr.typed_scenario import Failed, TypedRunner, scenario_program
    groups: dict[tuple, list[int]] = {}
    for i, sc in enumerate(scenarios):
        options = {s.name: _literal(s.exprs[0]) for s in sc.steps if s.kind == "option"}
        groups.setdefault(tuple(sorted(options.items())), []).append(i)
    results: list = [None] * len(scenarios)
    for key, members in groups.items():
        checked = []
        for i in members:
            try:
                _Runner(scenarios[i], rules, sources, cache=cache).compile()
                checked.append(i)
            except VbrError as exc:
                results[i] = ScenarioResult(scenarios[i].title, exc.span, False, exc.render())
        if not checked:
            continue
        model = _compiled(rules, dict(key), cache).model
        sp, game = scenario_program(model, [scenarios[i] for i in checked], engine, step_limit)
        for k, i in enumerate(checked):
            sc = scenarios[i]
            runner = TypedRunner(sp, game, k, trace=trace)
            seed = next((s.value for s in sc.steps if s.kind == "seed"), 0)
            try:
                runner.run(seed)
            except Failed as f:
                results[i] = ScenarioResult(sc.title, f.span, False, f.message, runner.steps_used(), runner.events)
            except VbrError as exc:
                results[i] = ScenarioResult(sc.title, exc.span, False, exc.render(), runner.steps_used(), runner.events)
            else:
                results[i] = ScenarioResult(sc.title, sc.span, True, "", runner.steps_used(), runner.events)
    return results


def check_file(path: Path) -> None:
    """Compile every scenario without running it (for `vbr check`)."""
    tree, rules, source = load_scenarios(path)
    sources = {**rules.sources, str(path): source}
    cache: dict = {}
    for sc in tree.scenarios:
        _Runner(sc, rules, sources, cache=cache).compile()


def run_scenario(sc: A.Scenario, rules, sources, *, trace: bool = False, step_limit: int | None = None,
                 cache: dict | None = None) -> ScenarioResult:
    """One scenario's result. A failure of the rule file or of the scenario while running (a
    fault, a step limit, an expectation that cannot be evaluated) fails this scenario only."""
    runner = _Runner(sc, rules, sources, trace=trace, step_limit=step_limit, cache=cache)
    try:
        runner.compile()
        runner.run()
    except _Failed as f:
        return ScenarioResult(sc.title, f.span, False, f.message, runner.steps_used(), runner.events)
    except VbrError as exc:
        return ScenarioResult(sc.title, exc.span, False, exc.render(), runner.steps_used(), runner.events)
    return ScenarioResult(sc.title, sc.span, True, "", runner.steps_used(), runner.events)


# the steps that come before the rules' setup runs: setup starts at the first other step, so a
# `force` above it reaches setup's rolls and picks
_BEFORE_SETUP = ("option", "seed", "force")


class _Failed(Exception):
    def __init__(self, span: Span, message: str):
        self.span, self.message = span, message


# what evaluating a scenario's expression can raise when the value is not what it expects (a field
# of nothing, the top of an empty zone): the scenario fails there, with its position
_EVAL_ERRORS = (Fault, TypeError, ValueError, IndexError, KeyError, AttributeError, ZeroDivisionError)


class _Runner:
    def __init__(self, sc: A.Scenario, rules, sources, trace: bool = False, step_limit: int | None = None,
                 cache: dict | None = None):
        self.sc, self.rules, self.sources = sc, rules, sources
        self.trace, self.step_limit = trace, step_limit
        self.cache = {} if cache is None else cache
        self.events: list = []
        self.st = None

    def steps_used(self) -> int:
        return self.st.steps if self.st is not None else 0

    def compile(self) -> None:
        options = {s.name: _literal(s.exprs[0]) for s in self.sc.steps if s.kind == "option"}
        self.seed = next((s.value for s in self.sc.steps if s.kind == "seed"), 0)
        prog = _compiled(self.rules, options, self.cache)
        self.prog = prog
        model = prog.model
        x, stmts = prog.compilers
        before = len(model.diags.errors)
        self.steps = []
        locals_ = Locals()
        scope = Scope(locals_)
        for step in self.sc.steps:
            self.steps.append((step, self._compile_step(step, x, stmts, scope)))
        self.nlocals = max(locals_.count, 1)
        errors = model.diags.errors[before:]
        if errors:
            raise VbrCheckError(errors, self.sources)

    def _compile_step(self, step: A.ScenarioStep, x, stmts, scope):
        m = self.prog.model
        if step.kind == "given":
            return stmts.code("given", "given", step.span, step.block, tail=lambda st, fr: st.pop())
        if step.kind in ("start", "phase"):
            if step.name not in m.phases:
                m.diags.error(step.span, f"no phase `{step.name}`" + m.suggest(step.name, m.phases))
            return None
        if step.kind == "force" and step.name == "pick":
            return [x.compile(e, scope)[0] for e in step.exprs]
        if step.kind == "force":
            if step.name not in m.dice:
                m.diags.error(step.span, f"no die `{step.name}`" + m.suggest(step.name, m.dice))
                return None
            want = self.prog.die_types[step.name]
            return [x.expect(e, scope, want, "a forced face") for e in step.exprs]
        if step.kind in ("choose", "expect", "legal", "illegal", "winner"):
            e = step.exprs[0]
            if step.kind == "expect":
                f = x.expect(e, scope, "bool", "an expectation")
                parts = [(printer.expr(c), x.compile(c.left, scope)[0], x.compile(c.right, scope)[0], x.compile(c, scope)[0])
                         if isinstance(c, A.Binary) and c.op not in ("and", "or") else
                         (printer.expr(c), None, None, x.compile(c, scope)[0])
                         for c in comparisons(e)]
                return (f, parts)
            return x.compile(e, scope)[0]
        return None

    # ------------------------------------------------------------------ running
    def run(self) -> None:
        prog = self.prog
        limit = prog.step_limit
        if self.step_limit is not None and self.step_limit < limit:
            prog.step_limit = self.step_limit  # the program is shared by this run's scenarios only
        try:
            self._run_all()
        finally:
            prog.step_limit = limit

    def _run_all(self) -> None:
        st = State.new(self.prog, self.seed, record=True, hold_start=True, run_setup=False)
        self.st = st
        self.L = [None] * self.nlocals
        self.started = self.set_up = False
        seen = 0
        for step, compiled in self.steps:
            try:
                if not self.set_up and step.kind not in _BEFORE_SETUP:
                    seen = self._set_up(step)
                self._run_step(step, compiled)
            except IllegalActionError as exc:
                raise _Failed(step.span, str(exc)) from None
            except _EVAL_ERRORS as exc:
                raise _Failed(step.span, f"cannot evaluate this step: {_why(exc)}") from None
            finally:
                if self.trace and st.log is not None and len(st.log) > seen:
                    self.events.append((f"line {step.span.line} ({printer.step_line(step)})", render_events(st.log[seen:])))
                    seen = len(st.log)

    def _set_up(self, step: A.ScenarioStep) -> int:
        """Run the rules' setup, with whatever the `force` lines above this step queued (a
        first server drawn by `pick`, a die rolled in setup). Returns how much of the log is seen."""
        self.set_up = True
        try:
            self.st.run()
        except _EVAL_ERRORS as exc:
            raise _Failed(step.span, f"setup failed: {_why(exc)}") from None
        log = self.st.log
        if self.trace and log:
            self.events.append(("setup", render_events(log)))
        return len(log)

    def _ensure_started(self, step) -> None:
        if not self.started:
            self.started = True
            self._goto(self.prog.start)

    def _goto(self, phase: str) -> None:
        self.st.goto(phase, self.prog.phases[phase])
        self.st.run()

    def _run_step(self, step: A.ScenarioStep, c) -> None:
        st = self.st
        k = step.kind
        if k in ("option", "seed"):
            return
        if k == "given":
            if self.started:
                raise _Failed(step.span, "`given` comes before play starts")
            st.stack.append(Frame(c))
            st.run()
            if st.pending is not None:
                raise _Failed(step.span, "a `given` block may not make choices")
            return
        if k == "start":
            if self.started:
                raise _Failed(step.span, "play has started already")
            self.started = True
            self._goto(step.name)
            return
        if k == "force" and step.name == "pick":
            st.forced.setdefault(FORCED_PICK, []).extend(f(st, self.L) for f in c)
            return
        if k == "force":
            idx = self.prog.die_index[step.name]
            faces = self.prog.dice[idx]
            for f, e in zip(c, step.exprs):
                v = f(st, self.L)
                if v not in faces:
                    raise _Failed(e.span, f"die `{step.name}` has no face {text(v, self.prog)}")
                st.forced.setdefault(idx, []).append(v)
            return
        self._ensure_started(step)
        if k == "choose":
            if st.pending is None:
                raise _Failed(step.span, "no choice is pending" + (f" (the game is over: {st.outcome()})" if st.result else ""))
            st.apply_value(c(st, self.L))
        elif k == "expect":
            f, parts = c
            if not f(st, self.L):
                raise _Failed(step.span, "expectation failed" + self._sides(step.exprs[0], parts))
        elif k in ("legal", "illegal"):
            v = c(st, self.L)
            opts = st.pending.options if st.pending else ()
            present = any(o == v and type(o) is type(v) for o in opts)
            if present != (k == "legal"):
                shown = ", ".join(text(o, self.prog) for o in opts) or "nothing"
                raise _Failed(step.span, f"{text(v, self.prog)} should {'' if k == 'legal' else 'not '}be legal; legal now: {shown}")
        elif k == "phase":
            if st.phase != step.name:
                raise _Failed(step.span, f"expected phase `{step.name}`, the game is in `{st.phase}`")
        elif k == "winner":
            want = c(st, self.L)
            if want is not None and type(want) is not int:
                raise _Failed(step.span, f"`expect winner` names a seat or `none`, not {text(want, self.prog)}")
            if st.result is None or st.result.winner != want:
                who = "no seat" if want is None else f"seat {want}"
                raise _Failed(step.span, f"expected {who} to win, but {how_it_stands(self.st.result)}")
        elif k == "draw":
            if st.result is None or st.result.winner is not None or st.result.by_team:
                raise _Failed(step.span, f"expected a draw, but {how_it_stands(self.st.result)}")


    def _sides(self, e: A.Expr, parts) -> str:
        """The value of each side of every comparison in a failed expectation: for one comparison
        `(left side is X, right side is Y)`; for several (`a and b`), each with its text and truth."""
        def value(f):
            try:
                return text(f(self.st, self.L), self.prog)
            except _EVAL_ERRORS as exc:
                return f"not evaluable ({_why(exc)})"
        if not parts:
            return ""
        if len(parts) == 1 and parts[0][0] == printer.expr(e):
            _, left, right, _ = parts[0]
            return f" (left side is {value(left)}, right side is {value(right)})"
        shown = []
        for src, left, right, whole in parts:
            sides = f": left side {value(left)}, right side {value(right)}" if left is not None else ""
            shown.append(f"`{src}` is {value(whole)}{sides}")
        return ":\n    " + "\n    ".join(shown)


def _why(exc: Exception) -> str:
    return str(exc) if isinstance(exc, Fault) else f"{type(exc).__name__}: {exc}"


def _compiled(rules, options: dict, cache: dict):
    """Scenarios with the same options share one compiled program (compiling a large rule file
    for each of its scenarios would dominate a test run); `cache` lives for one run of a file.
    Scenario steps compile into it too; they only add code, never change what is there."""
    key = tuple(sorted(options.items()))
    if key not in cache:
        cache[key] = compile_rules(rules, options, lower=cache.get("lower", True))
    return cache[key]


def _literal(e: A.Expr):
    match e:
        case A.IntLit(value=v) | A.BoolLit(value=v) | A.StrLit(value=v):
            return v
        case A.Name(id=i):
            return i
    return None


__all__ = ["run_file", "run_scenario", "check_file", "format_trace", "ScenarioResult", "T"]
