"""Expressions → Python closures `f(state, locals)`, type-checked on the way.

Each AST expression is compiled once; running a game never walks the AST again.
"""
from __future__ import annotations

from vbr.interpreter import pyast as ast
import operator

from vbr.grammar import ast as A
from vbr.interpreter import fast_paths
from vbr.interpreter import template_nodes as P
from vbr.checking import types as T
from vbr.interpreter.builtins import BUILTINS
from vbr.interpreter.scope import INT_MAX, MAX_RANGE, Fault, OverBudget, Scope, checked, int_overflow, spend
from vbr.values import ZoneRef

def add(a, b):
    v = a + b
    if -INT_MAX <= v <= INT_MAX:
        return v
    int_overflow(v)


def sub(a, b):
    v = a - b
    if -INT_MAX <= v <= INT_MAX:
        return v
    int_overflow(v)


def mul(a, b):
    v = a * b
    if -INT_MAX <= v <= INT_MAX:
        return v
    int_overflow(v)


_FAST = {
    "==": lambda a, b: lambda st, L: a(st, L) == b(st, L),
    "!=": lambda a, b: lambda st, L: a(st, L) != b(st, L),
    "<": lambda a, b: lambda st, L: a(st, L) < b(st, L),
    "<=": lambda a, b: lambda st, L: a(st, L) <= b(st, L),
    ">": lambda a, b: lambda st, L: a(st, L) > b(st, L),
    ">=": lambda a, b: lambda st, L: a(st, L) >= b(st, L),
    "+": lambda a, b: lambda st, L: add(a(st, L), b(st, L)),
    "-": lambda a, b: lambda st, L: sub(a(st, L), b(st, L)),
    "*": lambda a, b: lambda st, L: mul(a(st, L), b(st, L)),
}
_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge, "+": add, "-": sub, "*": mul}
_LOCAL_CONST = {op: (lambda fn: lambda s, k: lambda st, L: fn(L[s], k))(fn) for op, fn in _OPS.items()}
_GLOBAL_CONST = {op: (lambda fn: lambda g, k: lambda st, L: fn(st.vals[g], k))(fn) for op, fn in _OPS.items()}
_LOCAL_LOCAL = {op: (lambda fn: lambda s, t: lambda st, L: fn(L[s], L[t]))(fn) for op, fn in _OPS.items()}
_FAST_CONST = {
    "==": lambda a, k: lambda st, L: a(st, L) == k,
    "!=": lambda a, k: lambda st, L: a(st, L) != k,
    "<": lambda a, k: lambda st, L: a(st, L) < k,
    "<=": lambda a, k: lambda st, L: a(st, L) <= k,
    ">": lambda a, k: lambda st, L: a(st, L) > k,
    ">=": lambda a, k: lambda st, L: a(st, L) >= k,
    "+": lambda a, k: lambda st, L: add(a(st, L), k),
    "-": lambda a, k: lambda st, L: sub(a(st, L), k),
    "*": lambda a, k: lambda st, L: mul(a(st, L), k),
}


_FOLDED_RANGE = 10_000  # a range with fixed ends and at most this many numbers is built at compile time
FN_CHARGED = 1024  # a fn of at least this weight (`fn_weight`) is paid for at its call...
FN_STEP = 64  # ...a step per this many nodes


class ExprCompiler:
    def __init__(self, model, program):
        self.m = model
        self.p = program
        self.diags = model.diags
        self._fn_stack: list[str] = []
        # closures that only read a local slot or a global slot: operators built on them read
        # the slot themselves instead of calling the closure (the commonest shapes, made cheap)
        self.leaf: dict[int, tuple] = {}
        self.low = program.lowering  # Python templates of the closures (lowering.py)

    def _py(self, fn, build):
        """Record how `fn` reads as inline Python (`build(lowering) -> ast.expr`)."""
        return self.low.expr_template(fn, build)

    def _fixed(self, fn, value):
        """`fn` always gives `value`."""
        return self.low.fixed_template(fn, value)

    def _mark(self, fn, kind: str, where):
        self.leaf[id(fn)] = (kind, where, fn)  # keep fn alive so its id stays unique
        return fn

    def _leaf(self, fn):
        return self.leaf.get(id(fn))

    def error(self, node: A.Node, msg: str):
        self.diags.error(node.span, msg)
        return (lambda st, L: None), "any"

    # ------------------------------------------------------------------ entry
    def compile(self, e: A.Expr, scope: Scope):
        method = getattr(self, "c_" + type(e).__name__)
        return method(e, scope)

    def expect(self, e: A.Expr, scope: Scope, want: str, what: str):
        f, t = self.compile(e, scope)
        if not T.compatible(t, want):
            self.diags.error(e.span, f"{what} must be {T.show(want)}, not {T.show(t)}")
        return f

    # ------------------------------------------------------------------ leaves
    def c_IntLit(self, e, scope):
        v = e.value
        return self._fixed(lambda st, L: v, v), "int"

    def c_BoolLit(self, e, scope):
        v = e.value
        return self._fixed(lambda st, L: v, v), "bool"

    def c_StrLit(self, e, scope):
        v = e.value
        return self._fixed(lambda st, L: v, v), "str"

    def c_NoneLit(self, e, scope):
        return self._fixed(lambda st, L: None, None), "none"

    def c_Name(self, e: A.Name, scope: Scope):
        name = e.id
        local = scope.lookup(name)
        if local is not None:
            slot, t = local
            return self._py(self._mark(lambda st, L: L[slot], "local", slot), lambda low: P.local(slot)), t
        m = self.m
        if name in m.vars:
            v = m.vars[name]
            base, n = v.base, v.count
            if v.per:
                return (lambda st, L: tuple(st.vals[base:base + n])), "list:" + v.type
            return self._py(self._mark(lambda st, L: st.vals[base], "global", base),
                            lambda low: P.subscript(P.load("V"), ast.Constant(base))), v.type
        if name in m.consts:
            return self.const(name, e)
        if name in m.options:
            val = m.options[name]
            return self._fixed(lambda st, L: val, val), _lit_type(m, val)
        if name in m.member_enum:
            return self._fixed(lambda st, L: name, name), "enum:" + m.member_enum[name]
        if name in m.directions:
            return self._fixed(lambda st, L: name, name), "dir"
        if name in m.zones:
            z = m.zones[name]
            if z.per:
                refs = tuple(ZoneRef(z.base + i) for i in range(z.count))
                return self._fixed(lambda st, L: refs, refs), "list:zone"
            ref = ZoneRef(z.base)
            return self._fixed(lambda st, L: ref, ref), "zone"
        if name in m.enums:
            members = tuple(m.enums[name])
            return self._fixed(lambda st, L: members, members), "list:enum:" + name
        if name in m.kinds:
            k = m.kinds[name].index
            return self._py(lambda st, L: st.of_kind(k), lambda low: P.call(P.state_attr("of_kind"), ast.Constant(k))), \
                "list:ent:" + name
        if name == "seats":
            seats = tuple(range(m.seats))
            return self._fixed(lambda st, L: seats, seats), "list:seat"
        if name == "teams":
            teams = tuple(range(len(m.teams)))
            return self._fixed(lambda st, L: teams, teams), "list:int"
        if name in m.phases or name in m.procs or name in m.fns:
            return self.error(e, f"`{name}` is a {'phase' if name in m.phases else 'procedure or function'}, not a value")
        pool = scope.visible() | m.global_names()
        return self.error(e, f"unknown name `{name}`" + m.suggest(name, pool))

    def const(self, name: str, at: A.Node):
        if name in self._fn_stack:
            return self.error(at, f"const `{name}` is defined in terms of itself")
        cached = self.p.const_values.get(name)
        if cached is None:
            self._fn_stack.append(name)
            d = self.m.consts[name]
            from vbr.grammar.ast import walk
            for node in walk(d.value):
                fixed = not isinstance(node, (A.Roll, A.Pick)) and not (
                    isinstance(node, A.Name) and (node.id in self.m.vars or node.id in self.m.zones or node.id in self.m.kinds))
                if not fixed:
                    self._fn_stack.pop()
                    return self.error(node, "a const is fixed before play: it may use literals, options, enum members "
                                            "and other consts, not vars, zones, cards or dice")
            f, t = self.compile(d.value, Scope(self.p.scratch_locals))
            self._fn_stack.pop()
            try:
                value = f(self.p.scratch_state(), [None] * 64)
            except Exception as exc:  # a const must be computable before play starts
                self.diags.error(d.span, f"const `{name}` cannot be computed before play: {exc}")
                value = None
            cached = self.p.const_values[name] = (value, t)
        value, t = cached
        return self._fixed(lambda st, L: value, value), t

    # ------------------------------------------------------------------ structure
    def c_Attr(self, e: A.Attr, scope: Scope):
        obj, t = self.compile(e.obj, scope)
        name = e.name
        if t.startswith("ent:"):
            kind = self.m.kinds[t[4:]]
            if name not in kind.fields:
                return self.error(e, f"kind `{kind.decl.name}` has no field `{name}`" + self.m.suggest(name, kind.fields))
            pos, ft = kind.fields[name]
            return self._attr_of_kind(obj, kind.index, pos, name), ft
        if t in ("ent", "any"):
            owners = [(k.index, k.fields[name]) for k in self.m.kinds.values() if name in k.fields]
            if not owners:
                every = {f for k in self.m.kinds.values() for f in k.fields}
                return self.error(e, f"no kind has a field `{name}`" + self.m.suggest(name, every))
            table = {k: pos for k, (pos, _) in owners}
            types = {ft for _, (_, ft) in owners}
            ft = types.pop() if len(types) == 1 else "any"
            if len(owners) == 1:
                (only, (pos, _)), = owners
                return self._attr_of_kind(obj, only, pos, name), ft

            def attr_any(st, L):
                x = obj(st, L)
                return st.ent[x][field_pos(st, x, table, name)]

            by_kind = tuple(table.get(k.index) for k in sorted(self.m.kinds.values(), key=lambda k: k.index))

            def template(low):
                if not fast_paths.FIELD_BY_KIND:
                    return P.call(low.ref(field_of_any), P.load("st"), low.expr(obj), low.ref(table), ast.Constant(name))
                # `E[_x][_p] if (_x := x) is not None and (_p := POS[KD[_x]]) is not None else
                # field_of_any(...)`: POS gives the field's place by kind (none: no such field),
                # field_of_any reports what is wrong
                x, pos = low.tmp(), low.tmp()
                ok = P.binary("and", ast.Compare(ast.NamedExpr(P.store(x), low.expr(obj)), [ast.IsNot()], [ast.Constant(None)]),
                              ast.Compare(ast.NamedExpr(P.store(pos), P.subscript(low.ref(by_kind), P.subscript(P.load("KD"), P.load(x)))),
                                          [ast.IsNot()], [ast.Constant(None)]))
                return ast.IfExp(ok, P.subscript(P.subscript(P.load("E"), P.load(x)), P.load(pos)),
                                 P.call(low.ref(field_of_any), P.load("st"), P.load(x), low.ref(table), ast.Constant(name)))
            return self._py(attr_any, template), ft
        return self.error(e, f"only cards and pieces have fields; this is {T.show(t)}")

    def _attr_of_kind(self, obj, kind: int, pos: int, name: str):
        """`x.field` where the field sits at `pos` of kind `kind`; checked, since a var typed
        loosely may hold a thing of another kind."""
        leaf = self._leaf(obj)

        def template(low):
            x = low.tmp()
            thing = low.expr(obj)
            low.checked_read(thing)
            ok = P.binary("and", ast.Compare(ast.NamedExpr(P.store(x), thing), [ast.IsNot()], [ast.Constant(None)]),
                          P.binary("==", P.subscript(P.load("KD"), P.load(x)), ast.Constant(kind)))
            return ast.IfExp(ok, P.subscript(P.subscript(P.load("E"), P.load(x)), ast.Constant(pos)),
                             P.call(low.ref(no_field), P.load(x), ast.Constant(name)))
        if leaf and leaf[0] == "local":
            slot = leaf[1]

            def attr_local(st, L):
                x = L[slot]
                if x is None or st.kind[x] != kind:
                    no_field(x, name)
                return st.ent[x][pos]
            return self._py(attr_local, template)

        def attr(st, L):
            x = obj(st, L)
            if x is None or st.kind[x] != kind:
                no_field(x, name)
            return st.ent[x][pos]
        return self._py(attr, template)

    def c_Index(self, e: A.Index, scope: Scope):
        # per-seat vars and zones index straight into their slots
        if isinstance(e.obj, A.Name) and scope.lookup(e.obj.id) is None:
            name = e.obj.id
            slotted = self.m.vars.get(name) or self.m.zones.get(name)
            if slotted is not None and (slotted.per or T.item_type(slotted.type) is None or name in self.m.zones):
                if not slotted.per:
                    return self.error(e, f"`{name}` is not kept per seat or team; it takes no index")
                idx = self.expect(e.index, scope, "int", "an index")
                base, n = slotted.base, slotted.count
                if name in self.m.zones:
                    refs = tuple(ZoneRef(base + i) for i in range(n))

                    def zone_at(st, L):
                        i = idx(st, L)
                        if i is None or not 0 <= i < n:
                            out_of_range(name, i, n)
                        return refs[i]
                    return self._py(zone_at, lambda low: _slot_template(low, idx, name, n, low.ref(refs), None)), "zone"

                def var_at(st, L):
                    i = idx(st, L)
                    if i is None or not 0 <= i < n:
                        out_of_range(name, i, n)
                    return st.vals[base + i]
                return self._py(var_at, lambda low: _slot_template(low, idx, name, n, P.load("V"), base)), slotted.type
        obj, t = self.compile(e.obj, scope)
        item = T.item_type(t)
        if item is None or t == "zone":
            return self.error(e, f"cannot index {T.show(t)}")
        idx = self.expect(e.index, scope, "int", "an index")

        return self._py(lambda st, L: item_at(obj(st, L), idx(st, L)),
                        lambda low: P.call(low.ref(item_at), low.expr(obj), low.expr(idx))), item

    def c_ListLit(self, e: A.ListLit, scope: Scope):
        parts = [self.compile(x, scope) for x in e.items]
        fs = tuple(f for f, _ in parts)
        types = {t for _, t in parts if t != "none"}
        item = types.pop() if len(types) == 1 else "any"
        known = [self.constant(x, scope) for x in e.items]
        if all(k for k, _ in known):  # a list of literals, members, options: built once
            fixed = tuple(v for _, v in known)
            return self._fixed(lambda st, L: fixed, fixed), "list:" + item
        return self._py(lambda st, L: tuple(f(st, L) for f in fs),
                        lambda low: ast.Tuple([low.expr(f) for f in fs], ast.Load())), "list:" + item

    def c_RangeExpr(self, e: A.RangeExpr, scope: Scope):
        lo = self.expect(e.lo, scope, "int", "a range's low end")
        hi = self.expect(e.hi, scope, "int", "a range's high end")
        (klo, vlo), (khi, vhi) = self.constant(e.lo, scope), self.constant(e.hi, scope)
        if klo and khi and type(vlo) is int and type(vhi) is int and vhi - vlo < _FOLDED_RANGE:
            fixed = tuple(range(vlo, vhi + 1))  # `1..6`: built once, here, like a list of literals
            return self._fixed(lambda st, L: fixed, fixed), "list:int"
        return self._py(lambda st, L: int_range(st, lo(st, L), hi(st, L)),
                        lambda low: P.call(low.ref(int_range), P.load("st"), low.expr(lo), low.expr(hi))), "list:int"

    def c_Unary(self, e: A.Unary, scope: Scope):
        if e.op == "not":
            f = self.expect(e.operand, scope, "bool", "the operand of `not`")
            return self._py(lambda st, L: not f(st, L), lambda low: ast.UnaryOp(ast.Not(), low.expr(f))), "bool"
        f = self.expect(e.operand, scope, "int", "the operand of `-`")
        return self._py(lambda st, L: -f(st, L), lambda low: ast.UnaryOp(ast.USub(), low.expr(f))), "int"

    def c_Binary(self, e: A.Binary, scope: Scope):
        op = e.op
        if op in ("and", "or"):
            a = self.expect(e.left, scope, "bool", f"the left side of `{op}`")
            b = self.expect(e.right, scope, "bool", f"the right side of `{op}`")
            both = (lambda low: P.binary(op, low.expr(a), low.expr(b)))
            if op == "and":
                return self._py(lambda st, L: a(st, L) and b(st, L), both), "bool"
            return self._py(lambda st, L: a(st, L) or b(st, L), both), "bool"
        a, ta = self.compile(e.left, scope)
        b, tb = self.compile(e.right, scope)
        if op in ("in", "not in"):
            item = T.item_type(tb)
            if item is None:
                self.diags.error(e.right.span, f"`{op}` needs a list, a range or a zone on its right, not {T.show(tb)}")
            elif not T.compatible(ta, item):
                self.diags.error(e.span, f"{T.show(ta)} can never be in {T.show(tb)}")
            contains = _contains

            def inside(low):
                if fast_paths.INLINE_IN and tb == "zone":
                    return _in_zone_template(low, a, b)
                if fast_paths.INLINE_IN and tb.startswith("list:"):
                    return _in_list_template(low, a, b)
                return P.call(low.ref(contains), P.load("st"), low.expr(a), low.expr(b))
            if op == "in":
                return self._py(lambda st, L: contains(st, a(st, L), b(st, L)), inside), "bool"
            return self._py(lambda st, L: not contains(st, a(st, L), b(st, L)),
                            lambda low: ast.UnaryOp(ast.Not(), inside(low))), "bool"
        if op in ("==", "!="):
            if not T.compatible(ta, tb):
                self.diags.error(e.span, f"comparing {T.show(ta)} with {T.show(tb)} is always {'false' if op == '==' else 'true'}")
            return self._py(self._fast(op, a, b, e.right, scope), lambda low: P.binary(op, low.expr(a), low.expr(b))), "bool"
        for side, t in ((e.left, ta), (e.right, tb)):
            if not T.is_numeric(t):
                self.diags.error(side.span, f"`{op}` works on numbers, not {T.show(t)}")
        if op in _FAST:
            return (self._py(self._fast(op, a, b, e.right, scope), lambda low: P.arith(low, op, low.expr(a), low.expr(b))),
                    "bool" if op in ("<", "<=", ">", ">=") else "int")
        if op in ("/", "%"):
            how = divide if op == "/" else remainder
            return self._py(lambda st, L: how(a(st, L), b(st, L)),
                            lambda low: P.call(low.ref(how), low.expr(a), low.expr(b))), "int"
        return self.error(e, f"unknown operator {op}")

    def _fast(self, op, a, b, right: A.Expr, scope: Scope):
        """A closure for `a op b` with the operator inlined, and a constant right side folded in
        (`t.field == 4`, `bounces < 3`): the commonest shapes in rule files."""
        known, k = self.constant(right, scope)
        la, lb = self._leaf(a), self._leaf(b)
        if known and la:
            table = _LOCAL_CONST if la[0] == "local" else _GLOBAL_CONST
            return table[op](la[1], k)
        if known:
            return _FAST_CONST[op](a, k)
        if la and lb and la[0] == lb[0] == "local":
            return _LOCAL_LOCAL[op](la[1], lb[1])
        return _FAST[op](a, b)

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
        """(True, value) when e's value is fixed before play: a literal, an enum member, an option."""
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
        return False, None

    def c_Cond(self, e: A.Cond, scope: Scope):
        t = self.expect(e.test, scope, "bool", "the condition")
        a, ta = self.compile(e.then, scope)
        b, tb = self.compile(e.orelse, scope)
        if not T.compatible(ta, tb):
            self.diags.error(e.span, f"the two branches give {T.show(ta)} and {T.show(tb)}")
        rt = ta if tb == "none" else tb if ta == "none" else ta
        return self._py(lambda st, L: a(st, L) if t(st, L) else b(st, L),
                        lambda low: ast.IfExp(low.expr(t), low.expr(a), low.expr(b))), rt

    def c_Comprehension(self, e: A.Comprehension, scope: Scope):
        src, ts = self.compile(e.source, scope)
        item = T.item_type(ts)
        if item is None:
            self.diags.error(e.source.span, f"cannot iterate over {T.show(ts)}")
            item = "any"
        inner = scope.child()
        slot = inner.define(e.var, item)
        body, tb = self.compile(e.body, inner)
        filt = self.expect(e.filter, inner, "bool", "the filter") if e.filter is not None else None
        agg = e.agg
        fast = self._find_first(e, src, ts, item, scope) if agg == "first" else None
        if fast is not None:
            return fast, tb

        def items(st, L):
            """The items through the comprehension's slot, which is left as it was found (the
            name is gone after the comprehension): the lowered form reads the item as a Python
            name and never writes the slot, and a suspended frame must look the same in both."""
            old = L[slot]
            try:
                for x in counted(st, src(st, L)):
                    L[slot] = x
                    if filt is None or filt(st, L):
                        yield body(st, L)
            finally:
                L[slot] = old
        def template(low):
            return low.comprehension(agg, low.expr(src), low.expr(body), low.expr(filt) if filt else None, slot,
                                     (lambda st, L: fn(st, L)))
        if agg == "sum":
            if not T.is_numeric(tb):
                self.diags.error(e.body.span, f"`sum` adds numbers, not {T.show(tb)}")
            fn, t = (lambda st, L: checked(sum(items(st, L)))), "int"
        elif agg in ("any", "all"):
            if tb != "bool" and tb != "any":
                self.diags.error(e.body.span, f"`{agg}` needs a condition, not {T.show(tb)}")
            test = any if agg == "any" else all
            fn, t = (lambda st, L: test(items(st, L))), "bool"
        elif agg == "first":
            fn, t = (lambda st, L: next(items(st, L), None)), tb
        else:
            fn, t = (lambda st, L: tuple(items(st, L))), "list:" + tb
        return self._py(fn, template), t

    def _find_first(self, e: A.Comprehension, src, src_type: str, item: str, scope: Scope):
        """`first(x for x in C if x.field OP v)` with v not depending on x, the commonest lookup
        in rule files ("the tile on field f"): one tight loop, v computed once."""
        f = e.filter
        if not (isinstance(e.body, A.Name) and e.body.id == e.var and isinstance(f, A.Binary)
                and f.op in _OPS and f.op not in ("+", "-", "*") and isinstance(f.left, A.Attr)
                and isinstance(f.left.obj, A.Name) and f.left.obj.id == e.var):
            return None
        if any(isinstance(n, A.Name) and n.id == e.var for n in A.walk(f.right)) or \
                any(isinstance(n, (A.Roll, A.Pick)) for n in A.walk(f.right)):
            return None
        kinds = [k for k in self.m.kinds.values() if f.left.name in k.fields]
        if item.startswith("ent:"):
            kinds = [k for k in kinds if k.decl.name == item[4:]]
        if len(kinds) != 1:
            return None
        kind, (pos, _) = kinds[0].index, kinds[0].fields[f.left.name]
        name = f.left.name
        value, _ = self.compile(f.right, scope)
        test = _OPS[f.op]

        def first_in(st, items, v):
            st.steps += len(items)  # checked at the next loop round or transfer: this loop nests none
            kinds_, ents = st.kind, st.ent
            for x in items:
                if kinds_[x] != kind:
                    raise Fault(f"{x} has no field `{name}`")
                if test(ents[x][pos], v):
                    return x
            return None

        def find_first(st, L):
            v = value(st, L)
            return first_in(st, _iterate(st, src(st, L)), v)

        def template(low):
            items = low.expr(src)
            if src_type == "zone":  # read in place: a condition cannot move cards
                items = P.subscript(P.load("Z"), items)
            else:
                items = P.call(low.ref(_iterate), P.load("st"), items)
            # neither side can roll, pick or change anything, so the order they run in is free
            if not fast_paths.FIRST_LOOPS:
                return P.call(low.ref(first_in), P.load("st"), items, low.expr(value))
            return P.call(P.load(low.first_in_loop(kind, pos, f.op, name)), P.load("st"), items, low.expr(value))
        return self._py(find_first, template)

    def c_Roll(self, e: A.Roll, scope: Scope):
        if e.die not in self.m.dice:
            return self.error(e, f"no die `{e.die}`" + self.m.suggest(e.die, self.m.dice))
        if e.die not in self.p.die_index:  # its faces could not be computed: reported at the die
            return (lambda st, L: None), "any"
        idx = self.p.die_index[e.die]
        faces = self.p.dice[idx]

        def template(low):
            """`st.roll(idx)`; with nothing forced and no log, the draw written out."""
            quiet = P.binary("and", ast.UnaryOp(ast.Not(), P.state_attr("forced")),
                             ast.Compare(P.state_attr("log"), [ast.Is()], [ast.Constant(None)]))
            bits = P.call(ast.Attribute(P.state_attr("rng"), "getrandbits", ast.Load()), ast.Constant(64))
            draw = ast.BinOp(ast.BinOp(bits, ast.Mult(), ast.Constant(len(faces))), ast.RShift(), ast.Constant(64))
            return ast.IfExp(quiet, P.subscript(low.ref(faces), draw), P.call(P.state_attr("roll"), ast.Constant(idx)))
        return self._py(lambda st, L: st.roll(idx), template), self.p.die_types[e.die]

    def c_Pick(self, e: A.Pick, scope: Scope):
        src, t = self.compile(e.source, scope)
        item = T.item_type(t)
        if item is None:
            return self.error(e, f"`pick` chooses at random from a list or zone, not {T.show(t)}")
        return self._py(lambda st, L: st.pick(_as_tuple(st, src(st, L))),
                        lambda low: P.call(P.state_attr("pick"), P.call(low.ref(_as_tuple), P.load("st"), low.expr(src)))), item

    def c_Call(self, e: A.Call, scope: Scope):
        name = e.func
        if name in self.m.fns:
            return self.call_fn(e, scope)
        if name in self.m.procs:
            if self.m.procs[name].result is not None:
                return self.error(e, f"`{name}` is a procedure: take its result whole (`let x = {name}(...)` or "
                                     f"`x = {name}(...)`), not inside an expression")
            return self.error(e, f"`{name}` is a procedure: call it as a statement, not inside an expression")
        b = BUILTINS.get(name)
        if b is None:
            pool = set(self.m.fns) | set(BUILTINS)
            return self.error(e, f"unknown function `{name}`" + self.m.suggest(name, pool))
        sig = b.sig
        if not sig.min_args <= len(e.args) <= sig.max_args:
            n = sig.min_args if sig.min_args == sig.max_args else f"{sig.min_args} to {sig.max_args}"
            return self.error(e, f"`{name}` takes {n} argument(s), not {len(e.args)}")
        raw = sig.raw_args
        parts = [((lambda st, L: None), "any") if i < raw else self.compile(a, scope) for i, a in enumerate(e.args)]
        return b.build(self, e, [f for f, _ in parts], [t for _, t in parts])

    def call_fn(self, e: A.Call, scope: Scope):
        d = self.m.fns[e.func]
        if len(e.args) != len(d.params):
            return self.error(e, f"`{d.name}` takes {len(d.params)} argument(s), not {len(e.args)}")
        if d.name in self._fn_stack:
            return self.error(e, f"function `{d.name}` calls itself; functions may not recurse (use a bounded loop)")
        code = self.p.fn_code.get(d.name)
        if code is None:
            code = self.compile_fn(d)
        body, nlocals, ptypes, rtype = code
        args = []
        for a, pt in zip(e.args, ptypes):
            args.append(self.expect(a, scope, pt, f"argument of `{d.name}`"))
        args = tuple(args)
        weight = self.fn_weight(d.name)
        # a call from outside any fn pays for the whole tree of calls below it, up front: a fn
        # cannot loop or recurse, so its weight bounds its work (what it iterates counts itself)
        charge = weight // FN_STEP if weight >= FN_CHARGED and not self._fn_stack else 0

        def call(st, L):
            if charge:
                spend(st, charge)
            L2 = [None] * nlocals
            for i, f in enumerate(args):
                L2[i] = f(st, L)
            return body(st, L2)
        name = d.name

        def template(low):
            value = low.fn_call(name, body, [low.expr(f) for f in args], nlocals, ptypes, weight)
            if not charge:
                return value
            paid = P.call(low.ref(spend), P.load("st"), ast.Constant(charge))
            return P.subscript(ast.Tuple([paid, value], ast.Load()), ast.Constant(1))
        return self._py(call, template), rtype

    def fn_weight(self, name: str) -> int:
        """How many nodes a call of fn `name` evaluates at most, calls of other fns written out
        (they nest, so this can be exponential in the file's size: `f2(a) = f1(a) + f1(a)`)."""
        weights = self.p.fn_weight
        if name not in weights:
            weights[name] = 1  # while counting: a fn calling itself is reported elsewhere
            total = 0
            for node in A.walk(self.m.fns[name].body):
                total += 1
                if isinstance(node, A.Call) and node.func in self.m.fns:
                    total += self.fn_weight(node.func)
            weights[name] = min(total, 1 << 62)
        return weights[name]

    def compile_fn(self, d: A.Fn):
        from vbr.checker import type_of
        from vbr.interpreter.scope import Locals
        self._fn_stack.append(d.name)
        locals_ = Locals()
        scope = Scope(locals_)
        ptypes = []
        for p in d.params:
            pt = type_of(self.m, p.type) if p.type else "any"
            scope.define(p.name, pt)
            ptypes.append(pt)
        body, rt = self.compile(d.body, scope)
        self._fn_stack.pop()
        code = self.p.fn_code[d.name] = (body, max(locals_.count, 1), ptypes, rt)
        return code


def no_field(x, name: str):
    raise Fault(f"{x} has no field `{name}`" if x is not None else f"`.{name}` of none")


def out_of_range(name: str, i, n: int):
    raise Fault(f"`{name}[{i}]`: index out of range 0..{n - 1}")


def _slot_template(low, idx, name: str, n: int, table: ast.expr, base: int | None) -> ast.expr:
    """`table[base + i]` for `name[i]`, range-checked; a constant index is checked now."""
    i = low.expr(idx)
    offset = 0 if base is None else base
    if isinstance(i, ast.Constant) and type(i.value) is int and 0 <= i.value < n:
        return P.subscript(table, ast.Constant(offset + i.value))
    x = low.tmp()
    ok = P.binary("and", ast.Compare(ast.NamedExpr(P.store(x), i), [ast.IsNot()], [ast.Constant(None)]),
                  ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()], [P.load(x), ast.Constant(n)]))
    at = P.load(x) if not offset else ast.BinOp(ast.Constant(offset), ast.Add(), P.load(x))
    return ast.IfExp(ok, P.subscript(table, at), P.call(low.ref(out_of_range), ast.Constant(name), P.load(x), ast.Constant(n)))


def field_pos(st, x, table: dict, name: str) -> int:
    """Where field `name` sits in thing x, whose kind is known only at run time."""
    if x is None:
        raise Fault(f"`.{name}` of none")
    pos = table.get(st.kind[x])
    if pos is None:
        raise Fault(f"{x} has no field `{name}`")
    return pos


def field_of_any(st, x, table: dict, name: str):
    """`x.name` where x may be of several kinds, each keeping the field in its own place."""
    return st.ent[x][field_pos(st, x, table, name)]


def _range_length(lo: int, hi: int) -> int:
    """How many numbers `lo..hi` holds; more than MAX_RANGE is a fault."""
    n = hi - lo + 1
    if n > MAX_RANGE:
        raise Fault(f"the range {lo}..{hi} holds {n} numbers; a range holds at most {MAX_RANGE}")
    return n


def int_range(st, lo: int, hi: int) -> tuple:
    """`lo..hi`, both ends included: a step per number (`spend`), at most MAX_RANGE of them."""
    n = _range_length(lo, hi)
    if n > 0:
        spend(st, n)
    return tuple(range(lo, hi + 1))


def item_at(xs, i):
    """`xs[i]` of a list, 0-based, checked."""
    if not 0 <= i < len(xs):
        raise Fault(f"list index {i} out of range 0..{len(xs) - 1}")
    return xs[i]


def divide(x, y) -> int:
    x, y = _num(x), _num(y)
    if y == 0:
        raise Fault("division by zero")
    return x // y


def remainder(x, y) -> int:
    x, y = _num(x), _num(y)
    if y == 0:
        raise Fault("division by zero")
    return x % y


def _num(x):
    if x is None or isinstance(x, (str, tuple)):
        raise Fault(f"expected a number, got {x!r}")
    return x


def _iterate(st, coll):
    # `type(...) is`: ZoneRef has no subclass, and isinstance of a tuple, which is not one, asks
    # for its __class__ as well (about 150 instructions compiled, each loop over a list)
    if type(coll) is ZoneRef:
        return tuple(st.zones[coll])
    if coll is None:
        raise Fault("cannot iterate over none")
    return coll


def items_of(st, coll) -> tuple:
    """A loop's items, taken before it starts: the body may move cards out of the zone. Each
    is a step of the game (`spend`), counted here, before the first round."""
    items = tuple(_iterate(st, coll))
    s = st.steps = st.steps + len(items)  # spend(st, len(items)), written out
    if s > st.prog.step_limit:
        raise OverBudget("step limit")
    return items


def choice_items(st, coll):
    """A choice's items, each a step of the game, counted but checked only at the next loop round
    or transfer: going through them nests no other loop (what `where` runs counts itself)."""
    items = _iterate(st, coll)
    st.steps += len(items)
    return items


def no_items():
    raise Fault("cannot iterate over none")


def counted(st, coll):
    """A comprehension's items, each a step of the game (`spend`)."""
    if type(coll) is ZoneRef:
        items = tuple(st.zones[coll])
    elif coll is None:
        raise Fault("cannot iterate over none")
    else:
        items = coll
    s = st.steps = st.steps + len(items)  # spend(st, len(items)), written out
    if s > st.prog.step_limit:
        raise OverBudget("step limit")
    return items


def counted_range(st, lo: int, hi: int):
    """`counted(st, int_range(st, lo, hi))`, the items of a comprehension over `lo..hi`, in one
    call: the same check, the same steps in the same order, and a range to go through instead
    of a tuple built (a comprehension keeps nothing of its items)."""
    n = _range_length(lo, hi)
    if n > 0:
        spend(st, n)
        s = st.steps = st.steps + n
        if s > st.prog.step_limit:
            raise OverBudget("step limit")
    return range(lo, hi + 1)


def _as_tuple(st, coll):
    return tuple(st.zones[coll]) if isinstance(coll, ZoneRef) else tuple(coll)


def _in_zone_template(low, a, b) -> ast.expr:
    """`a in b`, b a zone: `W[x] == z`, as _contains does, written out. A zone fixed by the rules:
    `(_x := a) is not None and W[_x] == Z`. Else `a`, then `b`, as a call evaluates them:
    `W[_x] == _z if (_x := a) is not None and type(_z := b) is ZoneRef else ...`, and
    _contains for the rest (a none: `b` evaluated there, once; a zone that is none)."""
    x = low.tmp()
    fixed = low.fixed_value(b)
    if isinstance(fixed, ZoneRef):
        return P.binary("and", ast.Compare(ast.NamedExpr(P.store(x), low.expr(a)), [ast.IsNot()], [ast.Constant(None)]),
                        P.binary("==", P.subscript(P.load("W"), P.load(x)), low.ref(fixed)))
    z = low.tmp()
    test = P.binary("and", ast.Compare(ast.NamedExpr(P.store(x), low.expr(a)), [ast.IsNot()], [ast.Constant(None)]),
                    ast.Compare(P.call(low.ref(type), ast.NamedExpr(P.store(z), low.expr(b))),
                                [ast.Is()], [low.ref(ZoneRef)]))
    rest = ast.IfExp(ast.Compare(P.load(x), [ast.Is()], [ast.Constant(None)]),
                     P.call(low.ref(_contains), P.load("st"), P.load(x), low.expr(b)),
                     P.call(low.ref(_contains), P.load("st"), P.load(x), P.load(z)))
    return ast.IfExp(test, P.binary("==", P.subscript(P.load("W"), P.load(x)), P.load(z)), rest)


def _in_list_template(low, a, b) -> ast.expr:
    """`a in b`, b typed a list: Python's `in`, as _contains does for a list. A list the rules
    spell out is used as it is; any other is checked not to be a zone first, for a zone can
    stand where a list is typed (an untyped parameter stored in a list var, `if c then [] else
    z`): `_x in _z if ((_x := a), type(_z := b) is not ZoneRef)[-1] else _contains(st, _x, _z)`,
    `a` then `b`, each once, as a call evaluates them."""
    if isinstance(low.fixed_value(b), tuple):
        return ast.Compare(low.expr(a), [ast.In()], [low.expr(b)])
    x, z = low.tmp(), low.tmp()
    test = ast.Subscript(ast.Tuple([ast.NamedExpr(P.store(x), low.expr(a)),
                                    ast.Compare(P.call(low.ref(type), ast.NamedExpr(P.store(z), low.expr(b))),
                                                [ast.IsNot()], [low.ref(ZoneRef)])], ast.Load()),
                         ast.UnaryOp(ast.USub(), ast.Constant(1)), ast.Load())
    return ast.IfExp(test, ast.Compare(P.load(x), [ast.In()], [P.load(z)]),
                     P.call(low.ref(_contains), P.load("st"), P.load(x), P.load(z)))


def _contains(st, x, coll):
    if isinstance(coll, ZoneRef):
        return x is not None and st.where[x] == coll
    return x in coll


def _lit_type(m, v) -> str:
    from vbr.checker import literal_type
    return literal_type(m, v)
