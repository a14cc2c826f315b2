"""Checked model → Program: every body compiled once, up front, into closures."""
from __future__ import annotations

import gc

from vbr.checker import Model, literal_type, measure_slots
from vbr.checking import checked_model
from vbr.checking import types as T
from vbr.grammar import ast as A
from vbr.court import court_of
from vbr.interpreter.expressions import ExprCompiler
from vbr.interpreter.lowering import Lowering, lower_ops
from vbr.interpreter.program import Program
from vbr.interpreter.scope import Fault, Locals, Scope
from vbr.interpreter.statements import StmtCompiler
from vbr.interpreter.statements import return_op as _pop  # a body's end works as `return`
from vbr.loader import RuleSet


def compile_rules(rules: RuleSet, options: dict | None = None, lower: bool = True, keep_code: bool = False) -> Program:
    """`lower=False` keeps the closures as they are (tests compare both forms); `keep_code`
    keeps the generated Python (as `ast` modules in program.lowering.modules) to inspect."""
    collecting = gc.isenabled()
    gc.disable()  # many small objects, few cycles: collecting while they are made costs up to half the time
    try:
        model = checked_model(rules, options)  # every problem of the file is reported there
        program = _compile(model, Lowering(enabled=lower, keep_code=keep_code))
        if lower:
            _lower(program, f"<vbr: {rules.path.name}>")
        return program
    finally:
        if collecting:
            gc.enable()


def closure_diagnostics(rules: RuleSet, options: dict | None = None) -> list:
    """The errors the closure compilers find in `rules` by themselves, each once, sorted by
    place: what tests compare vbr.checking's against while both exist."""
    from vbr.checker import build_model
    from vbr.checking import located_errors
    model = build_model(rules, options)
    _compile(model, Lowering(enabled=False, keep_code=False))
    return located_errors(model)


def _compile(m: Model, lowering: Lowering) -> Program:
    p = Program(model=m, title=m.title, seats=m.seats, teams=m.teams, team_of=m.team_of, options=dict(m.options),
                zone_names=m.zone_names, zone_owner=m.zone_owner, lowering=lowering)
    p.limits = dict(m.limits)
    p.step_limit, p.depth_limit, p.choice_limit = p.limits["steps"], p.limits["depth"], p.limits["choices"]
    p.scratch_locals = Locals()
    p.scratch_state = lambda: _Scratch(m.nvals, p)
    for z in m.zones.values():
        p.zone_visibility += [(z.decl.visibility, z.per)] * z.count
    p.dir_vec = dict(m.directions)
    p.court = court_of(m.court)
    p.kind_names = [k.decl.name for k in m.kinds.values()]
    p.kind_fields = [list(k.fields) for k in m.kinds.values()]
    x = ExprCompiler(m, p)
    _dice(m, p, x)
    _vars(m, p, x)
    s = StmtCompiler(m, p, x)
    p.compilers = (x, s)
    for name, d in m.procs.items():
        p.procs[name] = s.code(name, "proc", d.span, d.body, d.params, tail=_pop)
    for name, d in m.phases.items():
        p.phases[name] = s.code(name, "phase", d.span, d.body, tail=_fell_off(name))
    for ev, hs in m.handlers.items():
        p.handlers[ev] = [s.code(f"on {ev}", "handler", h.span, h.body, h.params, tail=_pop, guard=h.when) for h in hs]
    for name, d in m.fns.items():
        if name not in p.fn_code:
            x.compile_fn(d)
    if m.returns is not None:
        _returns(m, x)
    if m.setup is not None:
        p.setup = s.code("setup", "setup", m.setup.span, m.setup.body, tail=_setup_done)
    p.start = m.start.phase if m.start else ""
    if m.points is not None and m.points.var in m.vars:
        v = m.vars[m.points.var]
        p.points = (v.base, v.count)
    p.measures = measure_slots(m)
    p.var_names = []
    for name, v in m.vars.items():
        p.var_names += [f"{name}[{i}]" if v.per else name for i in range(v.count)]
    return p


def _returns(m: Model, x: ExprCompiler) -> None:
    """`returns(s) = EXPR range LO..HI`: compiled as a fn of one seat, `fn_code["@returns"]`
    (a name no rule file can call), which must give a number."""
    d = m.returns
    _, _, _, rt = x.compile_fn(A.Fn(span=d.span, name="@returns", params=[d.param], body=d.value))
    if not T.is_numeric(rt):
        m.diags.error(d.value.span, f"`returns` gives each seat a number, not {T.show(rt)}")


def _codes(p: Program) -> list:
    codes = [*p.phases.values(), *p.procs.values(), *(h for hs in p.handlers.values() for h in hs)]
    if p.setup is not None:
        codes.append(p.setup)
    return codes


def _lower(p: Program, filename: str) -> None:
    """Swap the VM's straight-line ops and branch tests, and the pure procedures, for their
    lowered Python functions (lowering.py)."""
    lower_ops(p.lowering, _codes(p), filename)
    for name, (body, n) in list(p.pure_procs.items()):
        lowered = p.lowering.lowered("proc", name)
        if lowered is not None:
            p.pure_procs[name] = (lowered, n)


class _Scratch:
    """A stand-in state for computing consts and dice faces before any game exists."""

    def __init__(self, nvals, prog):
        self.prog = prog  # its step limit bounds the work of a const or a die's faces
        self.steps = 0
        self.vals = [None] * nvals
        self.zones, self.where, self.ent, self.kind = [], [], [], []

    def of_kind(self, k):
        return ()

    def roll(self, i):
        raise Fault("a constant cannot roll dice")

    def pick(self, xs):
        raise Fault("a constant cannot pick at random")




def _dice(m: Model, p: Program, x: ExprCompiler) -> None:
    for name, d in m.dice.items():
        f, t = x.compile(d.faces, Scope(p.scratch_locals))
        item = T.item_type(t)
        if item is None or t == "zone":
            m.diags.error(d.faces.span, f"a die's faces are a list or a range, not {T.show(t)}")
            continue
        try:
            faces = tuple(f(p.scratch_state(), [None] * 64))
        except Exception as exc:
            m.diags.error(d.span, f"die `{name}`'s faces cannot be computed before play: {exc}")
            continue
        if not faces:
            m.diags.error(d.span, f"die `{name}` has no faces")
            continue
        p.die_index[name] = len(p.dice)
        p.die_names.append(name)
        p.dice.append(faces)
        p.die_types[name] = item


def _vars(m: Model, p: Program, x: ExprCompiler) -> None:
    p.nvals = m.nvals
    p.fixed_vals = [None] * m.nvals
    for name, v in m.vars.items():
        init, t = x.compile(v.decl.init, Scope(p.scratch_locals))
        if not T.compatible(t, v.type) and not (v.per and T.compatible(t, "list:" + v.type)):
            m.diags.error(v.decl.init.span, f"`{name}` is {T.show(v.type)}, its initial value is {T.show(t)}")
        known, value = x.constant(v.decl.init, Scope(p.scratch_locals))
        if known and not isinstance(value, tuple):  # a literal or an option: written once, here
            p.fixed_vals[v.base:v.base + v.count] = [value] * v.count
        else:
            p.var_init.append((v.base, v.count, init))
        r = v.decl.range
        if r is not None:
            if not T.is_numeric(v.type):
                m.diags.error(r.span, "only a number var takes a range")
            for i in range(v.count):
                p.var_ranges[v.base + i] = (r.lo, r.hi, r.overflow, r.wrap_to)



def _fell_off(name):
    def fell_off(st, fr):
        raise Fault(f"phase `{name}` ended without `goto` or `end`")
    return fell_off


def _setup_done(st, fr):
    return st.setup_done()


__all__ = ["compile_rules", "literal_type"]
