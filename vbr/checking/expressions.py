"""The type of every expression of a body, and the problems it has, found without running it.

`ExprChecker.check(e, scope)` gives e's type (vbr.checking.types) and reports each problem into
the model's diagnostics; a problem's expression counts as `any`, so one mistake is one message.
"""
from __future__ import annotations

from vbr.builtin_signatures import SIGNATURES
from vbr.checker import Model, constant_int, known_number, literal_type, type_of
from vbr.checking import types as T
from vbr.checking.builtins import CHECKS
from vbr.checking.constants import Constants, Evaluator, read_in_play
from vbr.checking.scope import Scope
from vbr.grammar import ast as A
from vbr.grammar.misspelt import EXPRESSION_KEYWORDS, keyword_for


class ExprChecker:
    def __init__(self, model: Model, constants: Constants):
        self.m = model
        self.diags = model.diags
        self.values = constants  # consts and dice faces, worked out before play
        self.stack: list[str] = []  # the fns and consts being checked, innermost last
        self.fn_types: dict[str, tuple[list[str], str]] = {}  # fn -> (parameter types, result type)
        self.const_types: dict[str, str] = {}
        self.not_judged = 0  # how deep in `unjudged` checking is: values known before play are not judged there
        self.misspelt_line: tuple[str, int] | None = None  # where a misspelt `roll` or `pick` was reported

    def error(self, node: A.Node, msg: str) -> str:
        self.diags.error(node.span, msg)
        return "any"

    def check(self, e: A.Expr, scope: Scope) -> str:
        return getattr(self, "c_" + type(e).__name__)(e, scope)

    def expect(self, e: A.Expr, scope: Scope, want: str, what: str) -> str:
        t = self.check(e, scope)
        if not T.compatible(t, want):
            self.diags.error(e.span, f"{what} must be {T.show(want)}, not {T.show(t)}")
        elif want == "seat":
            self.owner_known(e, "seat", what)
        return t

    def owner_known(self, e: A.Expr, per: str, what: str) -> None:
        """A warning when `e`, a seat (`per` "seat") or a team, is a number known before play
        (checker.constant_int, under the options chosen) that is none of them: play would stop
        there, or store it as it is. Nothing is judged in code the options leave dead."""
        value = None if self.not_judged else constant_int(self.m, e)
        n = self.m.owner_count(per)
        if value is not None and not 0 <= value < n:
            self.diags.warning(e.span, f"{what} is {known_number(e, value)}, which is no {per} (the {per}s are "
                                       f"0..{n - 1} with the options chosen)")

    def unjudged(self, check, *args):
        """check(*args) with its names and types checked, not its values known before play: for
        code the options leave dead (never run), or a part checked a second time."""
        self.not_judged += 1
        try:
            return check(*args)
        finally:
            self.not_judged -= 1

    # ------------------------------------------------------------------ leaves
    def c_IntLit(self, e, scope):
        return "int"

    def c_BoolLit(self, e, scope):
        return "bool"

    def c_StrLit(self, e, scope):
        return "str"

    def c_NoneLit(self, e, scope):
        return "none"

    def c_Name(self, e: A.Name, scope: Scope) -> str:
        name, m = e.id, self.m
        local = scope.lookup(name)
        if local is not None:
            return local
        if name in m.vars:
            v = m.vars[name]
            return "list:" + v.type if v.per else v.type
        if name in m.consts:
            return self.const(name, e)
        if name in m.options:
            return literal_type(m, m.options[name])
        if name in m.member_enum:
            return "enum:" + m.member_enum[name]
        if name in m.directions:
            return "dir"
        if name in m.zones:
            return "list:zone" if m.zones[name].per else "zone"
        if name in m.enums:
            return "list:enum:" + name
        if name in m.kinds:
            return "list:ent:" + name
        if name == "seats":
            return "list:seat"
        if name == "teams":
            return "list:int"
        if name in m.phases or name in m.procs or name in m.fns:
            return self.error(e, f"`{name}` is a {'phase' if name in m.phases else 'procedure or function'}, not a value")
        if name in m.measures:
            return self.error(e, f"`{name}` is a measure: the rules set it (`measure {name} = ...`) and never read it, "
                                 "so that measuring cannot change play; keep what play reads in a var (a "
                                 "scenario's `expect` may read it)")
        if name in m.dice:
            return self.error(e, f"`{name}` is a die, not a value: `roll {name}` throws it")
        if name in m.events:
            return self.error(e, f"`{name}` is an event, not a value: `emit {name}(...)` makes it happen")
        if name in m.team_names:
            i = m.team_names.index(name)
            return self.error(e, f"`{name}` names team {i} in `seats ... teams`, but in the rules a team is its "
                                 f"number: write `{i}` (a const `{name.upper()} = {i}` can name it)")
        pool = scope.visible() | m.global_names()
        close = m.suggest(name, pool)
        # `null`, `nil`, `None`; `rol serve_die`, `pik seats`: the words that start an expression
        word = None if close else keyword_for(name, ("none", "true", "false", *EXPRESSION_KEYWORDS))
        if word in EXPRESSION_KEYWORDS:  # what follows it on its line (`d` of `rol d`) stands alone: the statements say nothing of it
            self.misspelt_line = (e.span.file, e.span.line)
        return self.error(e, f"unknown name `{name}`" + (f"; did you mean `{word}`?" if word else close))

    def const(self, name: str, at: A.Node) -> str:
        """A const's type; its value is worked out (and its failure reported) the first time."""
        if name in self.stack:
            return self.error(at, f"const `{name}` is defined in terms of itself")
        if name not in self.const_types:
            d = self.m.consts[name]
            found = read_in_play(self.m, d.value)
            if found is not None:
                node, via = found
                what = {A.Roll: "rolls a die", A.Pick: "picks at random"}.get(type(node)) or f"reads `{node.id}`"
                through = f" (`{via}` {what})" if via else ""
                return self.error(node if via is None else self._call_of(d.value, via),
                                  "a const is fixed before play: it may use literals, options, enum members, "
                                  f"other consts and fns of them, not vars, zones, cards or dice{through}")
            self.stack.append(name)
            before = len(self.diags.errors)
            t = self.check(d.value, Scope())
            self.stack.pop()
            failure = self.values.const(name) if len(self.diags.errors) == before else None  # else said already
            if failure is not None:
                self.diags.error(d.span, f"const `{name}` cannot be computed before play: {failure}")
            self.const_types[name] = t
        return self.const_types[name]

    @staticmethod
    def _call_of(e: A.Expr, fn: str) -> A.Node:
        """The first call of `fn` in `e`."""
        return next(n for n in A.walk(e) if isinstance(n, A.Call) and n.func == fn)

    # ------------------------------------------------------------------ structure
    def c_Attr(self, e: A.Attr, scope: Scope) -> str:
        t = self.check(e.obj, scope)
        name = e.name
        if t.startswith("ent:"):
            kind = self.m.kinds[t[4:]]
            if name not in kind.fields:
                return self.error(e, f"kind `{kind.decl.name}` has no field `{name}`" + self.m.suggest(name, kind.fields))
            return kind.fields[name][1]
        if t in ("ent", "any"):
            types = [k.fields[name][1] for k in self.m.kinds.values() if name in k.fields]
            if not types:
                every = {f for k in self.m.kinds.values() for f in k.fields}
                return self.error(e, f"no kind has a field `{name}`" + self.m.suggest(name, every))
            return types[0] if len(set(types)) == 1 else "any"
        return self.error(e, f"only cards and pieces have fields; this is {T.show(t)}")

    def c_Index(self, e: A.Index, scope: Scope) -> str:
        if isinstance(e.obj, A.Name) and scope.lookup(e.obj.id) is None:  # a per-seat var or zone: its slots
            name = e.obj.id
            slotted = self.m.vars.get(name) or self.m.zones.get(name)
            if slotted is not None and (slotted.per or T.item_type(slotted.type) is None or name in self.m.zones):
                if not slotted.per:
                    return self.error(e, f"`{name}` is not kept per seat or team; it takes no index")
                self.expect(e.index, scope, "int", "an index")
                self.owner_known(e.index, slotted.per, f"the index of `{name}`")
                return "zone" if name in self.m.zones else slotted.type
        t = self.check(e.obj, scope)
        item = T.item_type(t)
        if item is None or t == "zone":
            return self.error(e, f"cannot index {T.show(t)}")
        self.expect(e.index, scope, "int", "an index")
        return item

    def c_ListLit(self, e: A.ListLit, scope: Scope) -> str:
        types = {t for t in (self.check(x, scope) for x in e.items) if t != "none"}
        return "list:" + (types.pop() if len(types) == 1 else "any")

    def c_RangeExpr(self, e: A.RangeExpr, scope: Scope) -> str:
        self.expect(e.lo, scope, "int", "a range's low end")
        self.expect(e.hi, scope, "int", "a range's high end")
        return "list:int"

    def c_Unary(self, e: A.Unary, scope: Scope) -> str:
        if e.op == "not":
            self.expect(e.operand, scope, "bool", "the operand of `not`")
            return "bool"
        self.expect(e.operand, scope, "int", "the operand of `-`")
        return "int"

    def c_Binary(self, e: A.Binary, scope: Scope) -> str:
        op = e.op
        if op in ("and", "or"):
            self.expect(e.left, scope, "bool", f"the left side of `{op}`")
            self.expect(e.right, scope, "bool", f"the right side of `{op}`")
            return "bool"
        ta, tb = self.check(e.left, scope), self.check(e.right, scope)
        if op in ("in", "not in"):
            item = T.item_type(tb)
            if item is None:
                self.diags.error(e.right.span, f"`{op}` needs a list, a range or a zone on its right, not {T.show(tb)}")
            elif not T.compatible(ta, item):
                self.diags.error(e.span, f"{T.show(ta)} can never be in {T.show(tb)}")
            return "bool"
        if op in ("==", "!="):
            if not T.compatible(ta, tb):
                self.diags.error(e.span, f"comparing {T.show(ta)} with {T.show(tb)} is always {'false' if op == '==' else 'true'}")
            return "bool"
        if op in ("+", "-") and (ta.startswith("list:") or tb.startswith("list:")):
            return self.error(e, f"`{op}` works on numbers: a list cannot grow or be joined to another (keep a "
                                 "collection that grows as things in a zone)")
        for side, t in ((e.left, ta), (e.right, tb)):
            if not T.is_numeric(t):
                self.diags.error(side.span, f"`{op}` works on numbers, not {T.show(t)}")
        if op in ("<", "<=", ">", ">="):
            return "bool"
        if op in ("+", "-", "*", "/", "%"):
            return "int"
        return self.error(e, f"unknown operator {op}")

    def c_Cond(self, e: A.Cond, scope: Scope) -> str:
        self.expect(e.test, scope, "bool", "the condition")
        known, value = self.fold(e.test, scope)
        ta = self.unjudged(self.check, e.then, scope) if known and not value else self.check(e.then, scope)
        tb = self.unjudged(self.check, e.orelse, scope) if known and value else self.check(e.orelse, scope)
        if not T.compatible(ta, tb):
            self.diags.error(e.span, f"the two branches give {T.show(ta)} and {T.show(tb)}")
        return ta if tb == "none" else tb if ta == "none" else ta

    def c_Comprehension(self, e: A.Comprehension, scope: Scope) -> str:
        ts = self.check(e.source, scope)
        item = T.item_type(ts)
        if item is None:
            self.diags.error(e.source.span, f"cannot iterate over {T.show(ts)}")
            item = "any"
        inner = scope.child()
        inner.define(e.var, item)
        tb = self.check(e.body, inner)
        if e.filter is not None:
            self.expect(e.filter, inner, "bool", "the filter")
        if e.agg == "sum":
            if not T.is_numeric(tb):
                self.diags.error(e.body.span, f"`sum` adds numbers, not {T.show(tb)}")
            return "int"
        if e.agg in ("any", "all"):
            if tb != "bool" and tb != "any":
                self.diags.error(e.body.span, f"`{e.agg}` needs a condition, not {T.show(tb)}")
            return "bool"
        return tb if e.agg == "first" else "list:" + tb

    def c_Roll(self, e: A.Roll, scope: Scope) -> str:
        if e.die not in self.m.dice:
            return self.error(e, f"no die `{e.die}`" + self.m.suggest_or_list(e.die, self.m.dice, "dice"))
        return self.values.die_types.get(e.die, "any")  # faces that could not be worked out: reported at the die

    def c_Pick(self, e: A.Pick, scope: Scope) -> str:
        t = self.check(e.source, scope)
        item = T.item_type(t)
        if item is None:
            return self.error(e, f"`pick` chooses at random from a list or zone, not {T.show(t)}")
        return item

    def c_Call(self, e: A.Call, scope: Scope) -> str:
        name = e.func
        if name in self.m.fns:
            return self.call_fn(e, scope)
        if name in self.m.procs:
            if self.m.procs[name].result is not None:
                return self.error(e, f"`{name}` is a procedure: take its result whole (`let x = {name}(...)` or "
                                     f"`x = {name}(...)`), not inside an expression")
            return self.error(e, f"`{name}` is a procedure: call it as a statement, not inside an expression")
        sig = SIGNATURES.get(name)
        if sig is None:
            if name in self.m.phases:
                return self.error(e, f"`{name}` is a phase, not a function: play goes to it with `goto {name}`")
            return self.error(e, f"unknown function `{name}`" + self.m.suggest(name, set(self.m.fns) | set(SIGNATURES)))
        if not sig.min_args <= len(e.args) <= sig.max_args:
            n = sig.min_args if sig.min_args == sig.max_args else f"{sig.min_args} to {sig.max_args}"
            return self.error(e, f"`{name}` takes {n} argument(s), not {len(e.args)}")
        ts = ["any" if i < sig.raw_args else self.check(a, scope) for i, a in enumerate(e.args)]
        return CHECKS[name](self, e, ts)

    def call_fn(self, e: A.Call, scope: Scope) -> str:
        d = self.m.fns[e.func]
        if len(e.args) != len(d.params):
            return self.error(e, f"`{d.name}` takes {len(d.params)} argument(s), not {len(e.args)}")
        if d.name in self.stack:
            return self.error(e, f"function `{d.name}` calls itself; functions may not recurse (use a bounded loop)")
        ptypes, rtype = self.fn(d)
        for a, pt in zip(e.args, ptypes):
            self.expect(a, scope, pt, f"argument of `{d.name}`")
        return rtype

    def fn(self, d: A.Fn) -> tuple[list[str], str]:
        """A fn's parameter types and result type; its body is checked the first time."""
        if d.name not in self.fn_types:
            self.stack.append(d.name)
            scope = Scope()
            ptypes = []
            for p in d.params:
                pt = type_of(self.m, p.type) if p.type else "any"
                scope.define(p.name, pt)
                ptypes.append(pt)
            rtype = self.check(d.body, scope)
            self.stack.pop()
            self.fn_types[d.name] = (ptypes, rtype)
        return self.fn_types[d.name]

    # ------------------------------------------------------------------ known before play
    def fold(self, e: A.Expr, scope: Scope):
        """(True, value) when a condition's value is fixed by the options alone, so that code
        behind an option that is off is never run (`if abilities and ...`)."""
        match e:
            case A.Unary(op="not", operand=o):
                known, v = self.fold(o, scope)
                return (True, not v) if known else (False, None)
            case A.Binary(op="and" | "or", left=l, right=r):
                kl, vl = self.fold(l, scope)
                if kl and (not vl if e.op == "and" else vl):
                    return True, vl
                kr, vr = self.fold(r, scope)
                if kl and kr:
                    return True, (vl and vr) if e.op == "and" else (vl or vr)
                if kr and (not vr if e.op == "and" else vr):
                    return True, vr
                return False, None
            case A.Binary(op="==" | "!=", left=l, right=r):
                kl, vl = self.constant(l, scope)
                kr, vr = self.constant(r, scope)
                if kl and kr:
                    return True, (vl == vr) if e.op == "==" else (vl != vr)
                return False, None
        known, v = self.constant(e, scope)
        return (known, v) if known and isinstance(v, bool) else (False, None)

    def constant(self, e: A.Expr, scope: Scope):
        """(True, value) when e's value is fixed before play: a literal, an enum member, an option,
        or what reads nothing play changes, worked out as consts are (`count(seats) == 4`)."""
        match e:
            case A.IntLit(value=v) | A.BoolLit(value=v) | A.StrLit(value=v):
                return True, v
            case A.NoneLit():
                return True, None
            case A.Name(id=i) if scope.lookup(i) is None:
                if i in self.m.member_enum or i in self.m.directions:
                    return True, i
                if i in self.m.options and i not in self.m.vars:
                    return True, self.m.options[i]
        return self._worked_out(e, scope)

    def _worked_out(self, e: A.Expr, scope: Scope):
        """(True, value) of an expression that reads no local and nothing play changes, worked out
        by the evaluator of consts; (False, None) when it cannot be (or fails, as play would)."""
        if any(isinstance(n, A.Name) and scope.lookup(n.id) is not None for n in A.walk(e)) or \
                read_in_play(self.m, e) is not None:
            return False, None
        try:
            return True, Evaluator(self.values).value(e, {})
        except Exception:  # noqa: BLE001 — Unknown to the evaluator, or a failure play would meet too
            return False, None
