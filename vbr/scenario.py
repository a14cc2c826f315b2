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

from dataclasses import dataclass
from pathlib import Path

from vbr.errors import Diagnostic, IllegalActionError, Span, VbrCheckError, VbrError
from vbr.grammar import ast as A
from vbr.interpreter import types as T
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.program import Frame
from vbr.interpreter.scope import Fault, Locals, Scope
from vbr.interpreter.state import State
from vbr.interpreter.values import text
from vbr.loader import load_rules, parse_file, resolve


@dataclass
class ScenarioResult:
    title: str
    span: Span
    ok: bool
    message: str = ""


def load_scenarios(path: Path):
    tree, source = parse_file(Path(path))
    if not isinstance(tree, A.TestFile):
        raise VbrCheckError([Diagnostic(tree.span, "not a scenario file: it should start with `tests for \"RULES\"`")],
                            {str(path): source})
    rules = load_rules(resolve(tree.rules, Path(path)))
    return tree, rules, source


def run_file(path: Path) -> list[ScenarioResult]:
    tree, rules, source = load_scenarios(path)
    sources = {**rules.sources, str(path): source}
    return [run_scenario(sc, rules, sources) for sc in tree.scenarios]


def check_file(path: Path) -> None:
    """Compile every scenario without running it (for `vbr check`)."""
    tree, rules, source = load_scenarios(path)
    sources = {**rules.sources, str(path): source}
    for sc in tree.scenarios:
        _Runner(sc, rules, sources).compile()


def run_scenario(sc: A.Scenario, rules, sources) -> ScenarioResult:
    try:
        runner = _Runner(sc, rules, sources)
        runner.compile()
        runner.run()
    except _Failed as f:
        return ScenarioResult(sc.title, f.span, False, f.message)
    except VbrError as exc:
        return ScenarioResult(sc.title, exc.span, False, exc.render())
    return ScenarioResult(sc.title, sc.span, True)


class _Failed(Exception):
    def __init__(self, span: Span, message: str):
        self.span, self.message = span, message


class _Runner:
    def __init__(self, sc: A.Scenario, rules, sources):
        self.sc, self.rules, self.sources = sc, rules, sources

    def compile(self) -> None:
        options = {s.name: _literal(s.exprs[0]) for s in self.sc.steps if s.kind == "option"}
        self.seed = next((s.value for s in self.sc.steps if s.kind == "seed"), 0)
        prog = _compiled(self.rules, options)
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
                parts = None
                if isinstance(e, A.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">="):
                    parts = (x.compile(e.left, scope)[0], x.compile(e.right, scope)[0])
                return (f, parts)
            return x.compile(e, scope)[0]
        return None

    # ------------------------------------------------------------------ running
    def run(self) -> None:
        prog = self.prog
        st = State.new(prog, self.seed, record=True, hold_start=True)
        self.st = st
        self.L = [None] * self.nlocals
        self.started = False
        for step, compiled in self.steps:
            try:
                self._run_step(step, compiled)
            except IllegalActionError as exc:
                raise _Failed(step.span, str(exc)) from None
            except Fault as exc:
                raise _Failed(step.span, str(exc)) from None

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
                detail = ""
                if parts:
                    detail = f" (left side is {text(parts[0](st, self.L), self.prog)}, right side is {text(parts[1](st, self.L), self.prog)})"
                raise _Failed(step.span, f"expectation failed{detail}")
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
            got = st.result.winner if st.result else "nobody yet (the game goes on)"
            if st.result is None or st.result.winner != want:
                raise _Failed(step.span, f"expected seat {want} to win, got {got}")


_PROGRAMS: dict = {}


def _compiled(rules, options: dict):
    """Scenarios with the same options share one compiled program (compiling a large rule file
    for each of its scenarios would dominate a test run). Scenario steps compile into it too;
    they only add code, never change what is there."""
    key = (id(rules), tuple(sorted(options.items())))
    if key not in _PROGRAMS:
        _PROGRAMS[key] = (rules, compile_rules(rules, options))  # rules kept alive: its id stays unique
    return _PROGRAMS[key][1]


def _literal(e: A.Expr):
    match e:
        case A.IntLit(value=v) | A.BoolLit(value=v) | A.StrLit(value=v):
            return v
        case A.Name(id=i):
            return i
    return None


__all__ = ["run_file", "check_file", "ScenarioResult", "T"]
