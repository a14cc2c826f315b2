"""Straight Python closures for the parts of a body that can never stop for a choice.

A statement is *pure* when nothing in it can suspend or transfer control: no `choose`, `goto`,
`end`, `emit`, `return`, and calls only to pure procedures. Such a statement (an `if` with its
branches, a whole loop, a call of a pure procedure) compiles into one nested closure that the
VM runs as a single action, instead of a run of ops and jumps. Blocks return a signal: None to
go on, BREAK or CONTINUE for the innermost loop.
"""
from __future__ import annotations

from vbr.interpreter import pyast as ast

from vbr.grammar import ast as A
from vbr.interpreter import template_nodes as P
from vbr.checking import types as T
from vbr.interpreter.expressions import items_of
from vbr.interpreter.scope import Fault, Locals, Scope, repeat_count, spend, too_many

BREAK, CONTINUE = 1, 2
_SUSPENDING = (A.Choose, A.Goto, A.EndWinner, A.EndDraw, A.Emit, A.Return)


class _Collect:
    """A stand-in Builder that keeps the one action a simple statement compiles to."""

    def __init__(self):
        self.fn = None

    def action(self, fn, span):
        self.fn = fn


class Purity:
    def __init__(self, model):
        self.m = model
        self._procs: dict[str, bool] = {}

    def proc(self, name: str) -> bool:
        if name not in self._procs:
            self._procs[name] = False  # while deciding: a recursive proc counts as impure
            self._procs[name] = self.block(self.m.procs[name].body, False)
        return self._procs[name]

    def block(self, blk: A.Block, in_loop: bool) -> bool:
        return all(self.stmt(s, in_loop) for s in blk.body)

    def stmt(self, s: A.Stmt, in_loop: bool) -> bool:
        if isinstance(s, _SUSPENDING):
            return False
        if isinstance(s, (A.Break, A.Continue)):
            return in_loop
        if isinstance(s, A.CallStmt) and isinstance(s.call, A.Call) and s.call.func in self.m.procs:
            return self.proc(s.call.func)
        if isinstance(s, (A.Let, A.Assign)) and isinstance(s.value, A.Call) and s.value.func in self.m.procs:
            return False  # a procedure's result is taken after its frame returns (StmtCompiler.take_result)
        if isinstance(s, A.If):
            return all(self.block(b.body, in_loop) for b in s.branches) and \
                (s.orelse is None or self.block(s.orelse, in_loop))
        if isinstance(s, (A.For, A.Repeat, A.Loop, A.While)):
            return self.block(s.body, True)
        return True


class StructuredCompiler:
    def __init__(self, stmts, purity: Purity):
        self.s = stmts  # the StmtCompiler: simple statements compile the same way in both modes
        self.x = stmts.x
        self.m = stmts.m
        self.p = stmts.p
        self.purity = purity
        self.low = stmts.low

    def block(self, blk: A.Block, scope: Scope):
        inner = scope.child()
        parts = [self.stmt(s, inner) for s in blk.body]
        parts = [p for p in parts if p is not None]
        return self.low.stmt_template(self._block(parts), lambda low, in_loop: low.block(parts, in_loop))

    def _block(self, parts):
        fns = tuple(f for f, _ in parts)
        spans = tuple(sp for _, sp in parts)
        if len(fns) == 1:
            f, span = fns[0], spans[0]

            def one(st, L):
                try:
                    return f(st, L)
                except Exception:
                    if st.fault_span is None:
                        st.fault_span = span
                    raise
            return one

        def run(st, L):
            k = 0
            try:
                for f in fns:
                    r = f(st, L)
                    if r:
                        return r
                    k += 1
            except Exception:
                if st.fault_span is None:
                    st.fault_span = spans[k]
                raise
        return run

    def stmt(self, s: A.Stmt, scope: Scope):
        method = getattr(self, "p_" + type(s).__name__, None)
        if method is not None:
            return method(s, scope), s.span
        c = _Collect()
        getattr(self.s, "s_" + type(s).__name__)(c, s, scope, None)
        return (c.fn, s.span) if c.fn is not None else None

    # ------------------------------------------------------------------ calls of pure procs
    def p_CallStmt(self, s: A.CallStmt, scope: Scope):
        c = s.call
        if not (isinstance(c, A.Call) and c.func in self.m.procs):
            col = _Collect()
            self.s.s_CallStmt(col, s, scope, None)
            return col.fn or _nothing
        return self.call(c, scope)

    def call(self, c: A.Call, scope: Scope):
        d = self.m.procs[c.func]
        args = self.s.arguments(c, f"`{d.name}`", d.params, c.args, scope)
        if args is None:
            return _nothing
        table = self.p.pure_procs
        name = d.name
        if name not in table:
            table[name] = None  # compiled below, once, after every caller is known
            self._compile_proc(d)

        def call(st, L):
            body, n = table[name]
            L2 = [None] * n
            for i, f in enumerate(args):
                L2[i] = f(st, L)
            body(st, L2)

        def template(low, in_loop):
            body, n = table[name]
            values = [low.expr(f) for f in args]
            inline = low.proc_in_place(name, body, values, n)
            if inline is not None:
                return inline
            frame = ast.List(values + [ast.Constant(None)] * (n - len(args)), ast.Load())
            return [ast.Expr(P.call(low.function_ref("proc", name, body), P.load("st"), frame))]
        return self.low.stmt_template(call, template)

    def _compile_proc(self, d: A.Proc) -> None:
        from vbr.checker import type_of
        locals_ = Locals()
        scope = Scope(locals_)
        for p in d.params:
            scope.define(p.name, type_of(self.m, p.type) if p.type else "any")
        body = self.block(d.body, scope)
        self.p.pure_procs[d.name] = (body, max(locals_.count, 1))

    # ------------------------------------------------------------------ control flow
    def p_If(self, s: A.If, scope: Scope):
        branches, orelse, dead = self.s.live(s, scope)
        for blk in dead:
            self.block(blk, scope)  # checked, not kept
        if not branches:
            return self.block(orelse, scope) if orelse is not None else _nothing
        s = s.model_copy(update={"branches": branches, "orelse": orelse})
        tests = tuple(self.x.expect(b.test, scope, "bool", "an `if` condition") for b in s.branches)
        bodies = tuple(self.block(b.body, scope) for b in s.branches)
        orelse = self.block(s.orelse, scope) if s.orelse is not None else None
        def template(low, in_loop):
            tail = low.stmts(orelse, s.orelse.span, in_loop) if orelse is not None else []
            for t, body, br in reversed(list(zip(tests, bodies, s.branches))):
                tail = [ast.If(low.expr(t), low.stmts(body, br.body.span, in_loop), tail)]
            return tail
        return self.low.stmt_template(self._if(tests, bodies, orelse), template)

    @staticmethod
    def _if(tests, bodies, orelse):
        if len(tests) == 1:
            (t,), (body,) = tests, bodies
            if orelse is None:
                return lambda st, L: body(st, L) if t(st, L) else None
            return lambda st, L: body(st, L) if t(st, L) else orelse(st, L)
        pairs = tuple(zip(tests, bodies))

        def if_(st, L):
            for t, body in pairs:
                if t(st, L):
                    return body(st, L)
            if orelse is not None:
                return orelse(st, L)
        return if_

    def p_Break(self, s, scope):
        return self.low.stmt_template(lambda st, L: BREAK, lambda low, in_loop: [ast.Break()])

    def p_Continue(self, s, scope):
        return self.low.stmt_template(lambda st, L: CONTINUE, lambda low, in_loop: [ast.Continue()])

    def p_For(self, s: A.For, scope: Scope):
        src, ts = self.x.compile(s.source, scope)
        item = T.item_type(ts)
        if item is None:
            self.m.diags.error(s.source.span, f"cannot loop over {T.show(ts)}")
            item = "any"
        inner = scope.child(loop=True)
        var = inner.define(s.var, item)
        body = self.block(s.body, inner)

        def for_(st, L):
            for x in items_of(st, src(st, L)):
                L[var] = x
                if body(st, L) == BREAK:
                    break

        def template(low, in_loop):
            x = low.tmp()
            items = P.call(low.ref(items_of), P.load("st"), low.expr(src))
            return [ast.For(P.store(x), items, [P.set_item(P.load("L"), ast.Constant(var), P.load(x))]
                            + low.stmts(body, s.body.span, True), [])]
        return self.low.stmt_template(for_, template)

    def p_Repeat(self, s: A.Repeat, scope: Scope):
        count = self.x.expect(s.count, scope, "int", "a repeat count")
        body = self.block(s.body, scope.child(loop=True))
        cap = self.p.limits["steps"]

        def repeat(st, L):
            n = repeat_count(st, count(st, L), cap)
            for _ in range(n):
                if body(st, L) == BREAK:
                    break

        def template(low, in_loop):  # `for _ in range(repeat_count(...)): body`
            n = P.call(low.ref(repeat_count), P.load("st"), low.expr(count), ast.Constant(cap))
            return [ast.For(P.store(low.tmp()), P.call(low.ref(range), n), low.stmts(body, s.body.span, True), [])]
        return self.low.stmt_template(repeat, template)

    def p_Loop(self, s: A.Loop, scope: Scope):
        return self._bounded(s, scope, None)

    def p_While(self, s: A.While, scope: Scope):
        return self._bounded(s, scope, self.x.expect(s.test, scope, "bool", "a `while` condition"))

    def _bounded(self, s, scope, test):
        body = self.block(s.body, scope.child(loop=True))
        limit = s.max
        if limit < 1:
            self.m.diags.error(s.span, "`max` must be at least 1")

        def loop(st, L):
            rounds = 0
            while test is None or test(st, L):
                rounds += 1
                if rounds > limit:
                    too_many(limit)
                spend(st, 1)
                if body(st, L) == BREAK:
                    break

        def template(low, in_loop):
            rounds = low.tmp()
            head = [low.mark(s.span)]  # a failing test or too many rounds is the loop's own fault
            if test is not None:
                head.append(ast.If(ast.UnaryOp(ast.Not(), low.expr(test)), [ast.Break()], []))
            head += [ast.AugAssign(P.store(rounds), ast.Add(), ast.Constant(1)),
                     ast.If(ast.Compare(P.load(rounds), [ast.Gt()], [ast.Constant(limit)]),
                            [ast.Expr(P.call(low.ref(too_many), ast.Constant(limit)))], [])]
            head += P.spend_inline(low)
            return [ast.Assign([P.store(rounds)], ast.Constant(0)),
                    ast.While(ast.Constant(True), head + low.stmts(body, s.body.span, True), [])]
        return self.low.stmt_template(loop, template)


def _nothing(st, L):
    return None
