"""A rule file checked whole, bodies included, by no engine: `checked_model(rules, options)`.

The declarations become a `vbr.checker.Model` (names, types, options applied); then every body
is type-checked — each proc, phase, handler, fn, the setup, each var's initial value, each
die's faces, `returns` — and the consts and dice faces are worked out as play would before it
starts. Every problem is reported together, as a VbrCheckError sorted by place.
"""
from __future__ import annotations

from vbr import limits as LIM
from vbr.checker import Model, build_model, type_of
from vbr.checking import types as T
from vbr.checking.constants import Constants, Failure, read_in_play
from vbr.checking.expressions import ExprChecker
from vbr.checking.override_notes import with_override_notes
from vbr.checking.scope import Scope
from vbr.checking.statements import StmtChecker
from vbr.errors import Diagnostic, OptionError, VbrCheckError
from vbr.grammar import ast as A
from vbr.loader import RuleSet, load_rules


def checked_model(rules: RuleSet, options: dict | None = None) -> Model:
    """The model of `rules` under `options`, every body checked. `rules` as vbr.loader.load_rules
    reads them, or a path or bundled name it reads. Raises VbrCheckError for a file with problems,
    OptionError for an option out of the range of integers, TypeError for options that are no
    mapping of names (vbr.checker.option_map)."""
    if not isinstance(rules, RuleSet):
        rules = load_rules(rules)
    model = build_model(rules, options)
    options_in_range(model)
    check_bodies(model)
    errors = located_errors(model)
    if errors:
        raise VbrCheckError(with_override_notes(errors, rules), rules.sources)
    return model


def located_errors(model: Model) -> list[Diagnostic]:
    """The model's errors, each once, in the order of their places (file, line, column)."""
    once = dict.fromkeys(model.diags.errors)
    return sorted(once, key=lambda d: (d.span.file, d.span.line, d.span.col))


def options_in_range(m: Model) -> None:
    """An option given from outside (`--option target=N`) is an integer of the language too."""
    for name, value in m.options.items():
        if type(value) is int and not -LIM.MAX_INT <= value <= LIM.MAX_INT:
            raise OptionError(f"option `{name}` = {value} is out of the range of integers "
                              f"(-{LIM.MAX_INT}..{LIM.MAX_INT})")


def check_bodies(m: Model) -> None:
    """Every body of `m` checked, its problems added to `m.diags`."""
    values = Constants(m)
    x = ExprChecker(m, values)
    s = StmtChecker(m, x)
    _dice(m, x, values)
    _vars(m, x)
    alive = procs_called(m, s)
    for name, d in m.procs.items():
        if name in alive:
            s.body(name, "proc", d.body, d.params)
        else:  # only code the options leave dead calls it: its names and types checked, not its values
            x.unjudged(s.body, name, "proc", d.body, d.params)
    for name, d in m.phases.items():
        s.body(name, "phase", d.body)
    for ev, hs in m.handlers.items():
        for h in hs:
            s.body(f"on {ev}", "handler", h.body, _handler_params(m, h), guard=h.when)
    for d in m.fns.values():
        x.fn(d)
    for name, d in m.consts.items():  # one no body uses is fixed before play too
        x.const(name, d)
    if m.returns is not None:
        _returns(m, x)
    if m.setup is not None:
        s.body("setup", "setup", m.setup.body)


def procs_called(m: Model, s: StmtChecker) -> set[str]:
    """The procedures code the options leave alive may call: from every phase, handler and the
    setup, through the `if` branches the options do not rule out (StmtChecker.live), and on
    through the procedures so reached. A branch whose condition reads a local counts as alive."""
    roots = [d.body for d in m.phases.values()] + [h.body for hs in m.handlers.values() for h in hs]
    todo: list = roots + ([m.setup.body] if m.setup is not None else [])
    found: set[str] = set()
    while todo:
        node = todo.pop()
        if isinstance(node, A.If):
            branches, orelse, _ = s.live(node, Scope())
            todo += [b.test for b in node.branches] + [b.body for b in branches] + ([orelse] if orelse is not None else [])
            continue
        if isinstance(node, A.Call) and node.func in m.procs and node.func not in found:
            found.add(node.func)
            todo.append(m.procs[node.func].body)
        todo += node.children()
    return found


def _handler_params(m: Model, h: A.Handler) -> list[A.Param]:
    """A handler's parameters as its body reads them: one it leaves untyped has the type the event
    declares for it (`event hit(k: int)`, `on hit(k)`: `k` is an int there), one it types must
    agree with the event's."""
    ev = m.events.get(h.event)
    if ev is None or len(ev.params) != len(h.params):
        return h.params
    out = []
    for hp, ep in zip(h.params, ev.params):
        if hp.type is None:
            hp = hp.model_copy(update={"type": ep.type})
        elif ep.type is not None and not T.compatible(type_of(m, hp.type), type_of(m, ep.type)):
            m.diags.error(hp.span, f"`{hp.name}` is {T.show(type_of(m, hp.type))} here, but event `{ev.name}` gives "
                                   f"{T.show(type_of(m, ep.type))} in its place")
        out.append(hp)
    return out


def _dice(m: Model, x: ExprChecker, values: Constants) -> None:
    for name, d in m.dice.items():
        before = len(m.diags.errors)
        t = x.check(d.faces, Scope())
        if len(m.diags.errors) != before:  # faces that do not check (an unknown name) are not worked out
            continue
        item = T.item_type(t)
        if item is None or t == "zone":
            m.diags.error(d.faces.span, f"a die's faces are a list or a range, not {T.show(t)}")
            continue
        found = read_in_play(m, d.faces)
        if found is not None and isinstance(found[0], A.Name):
            # a var, zone or kind has no value yet: say what was read (a var read before play is
            # none to the evaluator, so `[home, 2]` of `var home` would be worked out as [none, 2])
            node, via = found
            m.diags.error(node.span, f"die `{name}`'s faces are fixed before play: they may use literals, options, "
                                     "enum members, consts and fns of them, not vars, zones or cards"
                                     + (f" (`{via}` reads `{node.id}`)" if via else f" (it reads `{node.id}`)"))
            continue
        try:
            faces = values.faces(name)
        except Failure as exc:  # (a roll or pick says so itself)
            m.diags.error(d.span, f"die `{name}`'s faces cannot be computed before play: {exc}")
            continue
        if faces == ():
            m.diags.error(d.span, f"die `{name}` has no faces")
            continue
        values.keep_die(name, faces, item)


def _vars(m: Model, x: ExprChecker) -> None:
    for name, v in m.vars.items():
        t = x.check(v.decl.init, Scope())
        if not T.compatible(t, v.type) and not (v.per and T.compatible(t, "list:" + v.type)):
            m.diags.error(v.decl.init.span, f"`{name}` is {T.show(v.type)}, its initial value is {T.show(t)}")
        elif v.type == "seat" and t == "int":  # `var server: seat = 5` with two seats
            x.owner_known(v.decl.init, "seat", f"the initial value of `{name}`")
        if v.decl.range is not None and not T.is_numeric(v.type):
            m.diags.error(v.decl.range.span, "only a number var takes a range")
        elif v.decl.range is not None:
            _var_range(m, name, v.decl)
        if v.per and isinstance(v.decl.init, A.ListLit) and T.compatible(t, "list:" + v.type) \
                and not T.compatible(t, v.type) and len(v.decl.init.items) != v.count:
            m.diags.error(v.decl.init.span, f"`{name}` is kept per {v.per}: its initial list has "
                                            f"{len(v.decl.init.items)} values for {v.count} {v.per}s (one each, "
                                            f"or one value for all)")


def _var_range(m: Model, name: str, d: A.Var) -> None:
    """A range's `wrap TO` lies in the range, and a number written as the initial value of a
    var whose range neither clamps nor wraps lies in it: both are known before play."""
    r = d.range
    if r.overflow == "wrap" and r.wrap_to is not None and not r.lo <= r.wrap_to <= r.hi:
        m.diags.error(r.span, f"`wrap {r.wrap_to}` sends `{name}` out of its range {r.lo}..{r.hi}: "
                              f"wrap to a number in the range")
    if r.overflow is None:
        for e in (d.init.items if d.per and isinstance(d.init, A.ListLit) else [d.init]):
            n = _written_int(e)
            if n is not None and not r.lo <= n <= r.hi:
                m.diags.error(e.span, f"`{name}` starts at {n}, out of its range {r.lo}..{r.hi} "
                                      f"(add `clamp` to hold it to the range)")


def _written_int(e: A.Expr) -> int | None:
    """The number an expression writes out (`7`, `-1`), or None."""
    if isinstance(e, A.IntLit) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    return None


def _returns(m: Model, x: ExprChecker) -> None:
    """`returns(s) = EXPR range LO..HI`: checked as a fn of one seat, which must give a number."""
    d = m.returns
    _, rt = x.fn(A.Fn(span=d.span, name="@returns", params=[d.param], body=d.value))
    if not T.is_numeric(rt):
        m.diags.error(d.value.span, f"`returns` gives each seat a number, not {T.show(rt)}")
