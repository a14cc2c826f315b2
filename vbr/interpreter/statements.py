"""Statements → a flat list of ops with jumps, so a game state is plain data (frames + pcs).

A `choose` suspends the machine at its op; applying an action stores the answer in the frame's
locals and resumes at the next op. Loops are bounded: `loop max N` / `while ... max N` fail with a
located error past N rounds.
"""
from __future__ import annotations

from vbr.interpreter import pyast as ast
from dataclasses import dataclass

from vbr.grammar import ast as A
from vbr.grammar.reserved import reserved_message
from vbr.interpreter import template_nodes as P
from vbr.interpreter import narrowing as N
from vbr.checking import types as T
from vbr.interpreter.expressions import ExprCompiler, add, choice_items, field_pos, items_of, out_of_range
from vbr.interpreter.program import Code, Frame, Pending
from vbr.interpreter.scope import MAX_OPTIONS, Fault, Locals, Scope, repeat_count, spend, too_many
from vbr.interpreter.state import move_items
from vbr.interpreter.state import shuffle as shuffle_zone
from vbr.interpreter.structured import Purity, StructuredCompiler
from vbr.values import ENT_IDS, Ent, ZoneRef, text


class Label:
    __slots__ = ("pc",)

    def __init__(self) -> None:
        self.pc = -1


@dataclass(frozen=True)
class ChoiceRecipe:
    """What the lowering needs to write a `choose` out in Python (lowering.py)."""

    src: object
    src_type: str
    where: object
    slot: int
    by: object
    optional: bool
    else_label: "Label | None"
    after: "Label"
    prompt: str
    span: object
    seats: frozenset
    nothing: object  # raises: no option and no way out
    no_seat: object  # raises: `by` gave no seat
    too_many: object  # raises: more than MAX_OPTIONS options
    prog: object = None  # the program (its limits, read by the lowered code)
    narrow: object = None  # (plan, kind): the zones to look in instead of every thing of the kind


class Builder:
    """Appends ops to one Code object.

    Straight-line statements (let, assignment, move, say, ...) are `actions` `f(state, locals)`;
    consecutive actions are fused into one op, so the VM dispatches once per run of them."""

    def __init__(self, code: Code):
        self.code = code
        self._actions: list = []
        self._spans: list = []

    @property
    def here(self) -> int:
        self.flush()
        return len(self.code.ops)

    def action(self, fn, span) -> None:
        self._actions.append(fn)
        self._spans.append(span)

    def flush(self) -> None:
        if not self._actions:
            return
        fns, spans = tuple(self._actions), tuple(self._spans)
        self._actions, self._spans = [], []
        nxt = len(self.code.ops) + 1
        self.code.ops.append(_fused(fns, spans, nxt))
        self.code.spans.append(spans[0])

    def emit(self, op, span) -> None:
        self.flush()
        self.code.ops.append(op)
        self.code.spans.append(span)

    def mark(self, label: Label) -> None:
        label.pc = self.here

    def jump(self, label: Label, span) -> None:
        def jump(st, fr):
            fr.pc = label.pc
        jump.recipe = ("jump", label)
        self.emit(jump, span)


def _fused(fns: tuple, spans: tuple, nxt: int):
    """One op running a straight run of actions; a failure is located at its own statement."""
    if len(fns) == 1:
        (f,) = fns

        def one(st, fr):
            f(st, fr.L)
            fr.pc = nxt
        one.recipe = ("fused", fns, spans, nxt)
        return one

    def run(st, fr):
        L = fr.L
        k = 0
        try:
            for f in fns:
                f(st, L)
                k += 1
        except Exception:
            if st.fault_span is None:  # the innermost statement wins, as in lowered code
                st.fault_span = spans[k]
            raise
        fr.pc = nxt
    run.recipe = ("fused", fns, spans, nxt)
    return run


class StmtCompiler:
    def __init__(self, model, program, exprs: ExprCompiler):
        self.m = model
        self.p = program
        self.x = exprs
        self.diags = model.diags
        self.purity = Purity(model)
        self.low = program.lowering
        self.structured = StructuredCompiler(self, self.purity)

    # ------------------------------------------------------------------ code objects
    def code(self, name: str, kind: str, span, body: A.Block, params: list[A.Param] = (), tail=None,
             guard: A.Expr | None = None) -> Code:
        from vbr.checker import type_of
        code = Code(name, kind, span)
        self.kind = kind
        self.proc = self.m.procs.get(name) if kind == "proc" else None
        locals_ = Locals()
        scope = Scope(locals_)
        for p in params:  # a parameter spelled as a reserved word is refused by the checker
            scope.define(p.name, type_of(self.m, p.type) if p.type else "any")
        code.nparams = len(params)
        if guard is not None:
            code.guard = self.x.expect(guard, scope, "bool", "a handler's `when`")
        b = Builder(code)
        self.block(b, body, scope, loop=None)
        if tail is not None:
            b.emit(tail, body.span)
        b.flush()
        code.nlocals = max(locals_.count, 1)
        return code

    def local_name(self, name: str, span) -> None:
        from vbr.checker import keywords
        if name in keywords():
            self.diags.error(span, reserved_message(name))

    def block(self, b: Builder, blk: A.Block, scope: Scope, loop) -> None:
        inner = scope.child()
        for s in blk.body:
            if self.purity.stmt(s, False):
                compiled = self.structured.stmt(s, inner)
                if compiled is not None:
                    fn, span = compiled
                    b.action(fn, span)
                continue
            getattr(self, "s_" + type(s).__name__)(b, s, inner, loop)

    # ------------------------------------------------------------------ simple statements
    def s_Let(self, b, s: A.Let, scope, loop):
        if self._proc_call(s.value):
            f, t = self.take_result(b, s.value, scope)
            if f is None:
                return
        else:
            f, t = self.x.compile(s.value, scope)
        if s.name in scope.names:
            self.diags.error(s.span, f"`{s.name}` is already defined in this block; assign with `{s.name} = ...`")
        self.local_name(s.name, s.span)
        slot = scope.define(s.name, t if t != "none" else "any")
        def let(st, L):
            L[slot] = f(st, L)
        self.low.stmt_template(let, lambda low, in_loop: [P.set_item(P.load("L"), ast.Constant(slot), low.expr(f))])
        b.action(let, s.span)

    def s_Assign(self, b, s: A.Assign, scope, loop):
        if self._proc_call(s.value) and s.op == "=":
            value, vt = self.take_result(b, s.value, scope)
            if value is None:
                return
        else:
            value, vt = self.x.compile(s.value, scope)
        store, tt = self.target(s.target, scope)
        if store is None:
            return
        if s.op != "=":
            if not T.is_numeric(tt) or not T.is_numeric(vt):
                self.diags.error(s.span, f"`{s.op}` works on numbers")
            read, _ = self.x.compile(s.target, scope)
            sign = 1 if s.op == "+=" else -1
            inner = value
            value = lambda st, L: add(read(st, L), sign * inner(st, L))  # noqa: E731
            self.low.expr_template(value, lambda low: P.arith(low, "+", low.expr(read), P.binary("*", ast.Constant(sign), low.expr(inner))))
        elif not T.compatible(vt, tt):
            self.diags.error(s.span, f"cannot assign {T.show(vt)} to {T.show(tt)}")
        elif tt == "seat" and vt == "int":
            self._int_as_seat(s)
        def assign(st, L):
            store(st, L, value(st, L))
        self.low.stmt_template(assign, lambda low, in_loop: _store_template(low, store, value))
        b.action(assign, s.span)

    def _int_as_seat(self, s: A.Assign) -> None:
        """An int stored into a seat: one known before play (a number, an option, a const, or
        arithmetic on them, under the options chosen: checker.constant_int) must be among the
        seats, and is refused here, at the assignment, when it is not. An int computed in play
        (a var, a parameter) cannot be judged before play and is taken as it is."""
        from vbr.checker import constant_int
        from vbr.grammar import printer
        value = constant_int(self.m, s.value)
        seats = self.m.seats
        if value is not None and not 0 <= value < seats:
            shown = printer.expr(s.value)
            what = f"`{shown}` is {value}" if shown != str(value) else str(value)
            self.diags.error(s.span, f"cannot assign int to seat: {what}, and the seats are 0..{seats - 1}")

    def target(self, t: A.Expr, scope: Scope):
        """A store function `(st, L, value)` for an assignable expression, and its type."""
        if isinstance(t, A.Name):
            local = scope.lookup(t.id)
            if local is not None:
                slot, typ = local
                store = (lambda st, L, v: L.__setitem__(slot, v))
                self.low.store_template(store, "L", slot)
                return store, typ
            var = self.m.vars.get(t.id)
            if var is None:
                what = "an option" if t.id in self.m.options else "a const" if t.id in self.m.consts else None
                msg = f"`{t.id}` is {what} and cannot be assigned" if what else _unknown_target(self.m, t.id, scope)
                self.diags.error(t.span, msg)
                return None, "any"
            if var.per:
                self.diags.error(t.span, f"`{t.id}` is kept per {var.per}: assign `{t.id}[i] = ...`")
                return None, "any"
            return self._slot_store(var.base, 1, None, t.id), var.type
        if isinstance(t, A.Index) and isinstance(t.obj, A.Name) and t.obj.id in self.m.vars:
            var = self.m.vars[t.obj.id]
            if not var.per:
                self.diags.error(t.span, f"`{t.obj.id}` is not kept per seat or team; it takes no index")
                return None, "any"
            idx = self.x.expect(t.index, scope, "int", "an index")
            return self._slot_store(var.base, var.count, idx, t.obj.id), var.type
        if isinstance(t, A.Index) and isinstance(t.obj, A.Name) and scope.lookup(t.obj.id) is None:
            name = t.obj.id
            what = "a zone" if name in self.m.zones else None
            msg = (f"`{name}` is {what}: move cards into it with `move`" if what else
                   f"unknown variable `{name}`" + self.m.suggest(name, set(self.m.vars) | scope.visible()))
            self.diags.error(t.obj.span, msg)
            return None, "any"
        if isinstance(t, A.Attr):
            obj, ot = self.x.compile(t.obj, scope)
            kinds = [self.m.kinds[ot[4:]]] if ot.startswith("ent:") else [k for k in self.m.kinds.values() if t.name in k.fields]
            kinds = [k for k in kinds if t.name in k.fields]
            if not kinds:
                self.diags.error(t.span, f"no field `{t.name}` to assign on {T.show(ot)}")
                return None, "any"
            table = {k.index: k.fields[t.name][0] for k in kinds}
            ftype = kinds[0].fields[t.name][1]
            name = t.name

            def store_attr(st, L, v):
                e = obj(st, L)
                st.set_attr(e, field_pos(st, e, table, name), v)

            def written(low, v):  # the thing, its field's place (checked), State.set_attr written out
                e, a = low.tmp(), low.tmp()
                out = [ast.Assign([P.store(e)], low.expr(obj))]
                where = P.call(low.ref(field_pos), P.load("st"), P.load(e), low.ref(table), ast.Constant(name))
                if len(table) == 1:  # one kind: `if e is None or KD[e] != kind: field_pos(...)` (it fails)
                    (kind, pos), = table.items()
                    bad = P.binary("or", ast.Compare(P.load(e), [ast.Is()], [ast.Constant(None)]),
                                   ast.Compare(P.subscript(P.load("KD"), P.load(e)), [ast.NotEq()], [ast.Constant(kind)]))
                    out.append(ast.If(bad, [ast.Expr(where)], []))
                    at = ast.Constant(pos)
                else:
                    at = P.load(low.tmp())
                    out.append(ast.Assign([P.store(at.id)], where))
                    at = P.load(at.id)
                old = ast.NamedExpr(P.store(a), P.subscript(P.load("E"), P.load(e)))
                head = ast.Subscript(old, ast.Slice(None, at, None), ast.Load())
                tail = ast.Subscript(P.load(a), ast.Slice(ast.BinOp(_copy_at(at), ast.Add(), ast.Constant(1)), None, None),
                                     ast.Load())
                value = ast.BinOp(ast.BinOp(head, ast.Add(), ast.Tuple([v], ast.Load())), ast.Add(), tail)
                return out + [P.set_item(P.load("E"), P.load(e), value)]
            self.low.store_written(store_attr, written)
            return store_attr, ftype
        self.diags.error(t.span, "only a variable, `var[i]` or `thing.field` can be assigned")
        return None, "any"

    def _slot_store(self, base, count, idx, name):
        ranges = self.p.var_ranges
        bounded = any(base + i in ranges for i in range(count))
        scored = self.m.points is not None and name == self.m.points.var  # the score: random play tracks it
        if idx is None and not bounded and not scored:  # the common case: a plain var, nothing to check
            def store_plain(st, L, v):
                st.vals[base] = v
            self.low.store_template(store_plain, "V", base)
            return store_plain

        def store(st, L, v):
            i = 0
            if idx is not None:
                i = idx(st, L)
                if i is None or not 0 <= i < count:
                    raise Fault(f"`{name}[{i}]`: index out of range 0..{count - 1}")
            slot = base + i
            r = ranges.get(slot)
            if r is not None and v is not None:
                v = _bounded(v, r, name)
            st.vals[slot] = v
            if scored and st.auto is not None:
                st.auto.scored = True

        def written(low, v):  # `name[i] = v`, i checked: `V[base + i] = v`
            if idx is None:
                return [P.set_item(P.load("V"), ast.Constant(base), v)] + _score_written(low)
            i = low.tmp()
            bad = P.binary("or", ast.Compare(P.load(i), [ast.Is()], [ast.Constant(None)]),
                           ast.UnaryOp(ast.Not(), ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()],
                                                             [P.load(i), ast.Constant(count)])))
            return [ast.Assign([P.store(i)], low.expr(idx)),
                    ast.If(bad, [ast.Expr(P.call(low.ref(out_of_range), ast.Constant(name), P.load(i), ast.Constant(count)))], []),
                    P.set_item(P.load("V"), ast.BinOp(ast.Constant(base), ast.Add(), P.load(i)), v)] + \
                (_score_written(low) if scored else [])
        if not bounded:
            self.low.store_written(store, written)
        return store

    def _proc_call(self, e: A.Expr) -> bool:
        return isinstance(e, A.Call) and e.func in self.m.procs

    def take_result(self, b, c: A.Call, scope):
        """`x = p(...)`: call the procedure, then read what its `return VALUE` left in this code's
        result slot (a procedure may stop for choices, so its value cannot be an expression's).
        The closure that reads the slot, and the procedure's result type; (None, None) when it
        declares none (reported)."""
        from vbr.checker import type_of
        d = self.m.procs[c.func]
        if d.result is None:
            self.diags.error(c.span, f"`{d.name}` gives no value: declare its result type, `proc {d.name}(...): TYPE`, "
                                     "and `return` a value")
            return None, None
        rs = b.code.result_slot
        if rs is None:
            rs = b.code.result_slot = scope.locals.alloc()
        def clear(st, L):  # a procedure that ends without `return VALUE` gives none
            L[rs] = None
        self.low.stmt_template(clear, lambda low, in_loop: [P.set_item(P.load("L"), ast.Constant(rs), ast.Constant(None))])
        b.action(clear, c.span)
        self.call_proc(b, c, scope)
        read = self.x._py(lambda st, L: L[rs], lambda low: P.local(rs))
        return read, type_of(self.m, d.result)

    def s_CallStmt(self, b, s: A.CallStmt, scope, loop):
        c = s.call
        if not isinstance(c, A.Call):
            self.diags.error(s.span, "this expression does nothing on its own; did you mean an assignment (`x = ...`)?")
            return
        if c.func in self.m.procs:
            self.call_proc(b, c, scope)
            return
        f, _ = self.x.compile(c, scope)
        def call(st, L):
            f(st, L)
        self.low.stmt_template(call, lambda low, in_loop: [ast.Expr(low.expr(f))])
        b.action(call, s.span)

    def arguments(self, at: A.Node, what: str, params: list[A.Param], args: list[A.Expr], scope):
        """Type-checked argument closures for a proc call or an emit, or None (reported) on a
        wrong count."""
        from vbr.checker import type_of
        if len(args) != len(params):
            self.diags.error(at.span, f"{what} takes {len(params)} argument(s), not {len(args)}")
            return None
        return tuple(self.x.expect(a, scope, type_of(self.m, p.type) if p.type else "any", f"argument `{p.name}` of {what}")
                     for a, p in zip(args, params))

    def call_proc(self, b, c: A.Call, scope):
        d = self.m.procs[c.func]
        args = self.arguments(c, f"`{d.name}`", d.params, c.args, scope)
        if args is None:
            return
        procs = self.p.procs
        name = d.name
        nxt = b.here + 1

        def call(st, fr):
            values = [f(st, fr.L) for f in args]
            st.push(Frame.called(procs[name], values))  # a failing push is located at this call
            fr.pc = nxt
            return True

        def tail(low):
            code = procs[name]
            frame = ast.List([low.expr(f) for f in args] + [ast.Constant(None)] * (code.nlocals - len(args)), ast.Load())
            return _new_frame(low, code, frame) + [
                ast.Assign([ast.Attribute(P.load("fr"), "pc", ast.Store())], ast.Constant(nxt)),
                *_push_written_out(low, self.p.depth_limit)]
        call.recipe = ("tail", tail)
        b.emit(call, c.span)

    # ------------------------------------------------------------------ control flow
    def live(self, s: A.If, scope):
        """The branches an option setting leaves alive, the `else` that applies, and the dead
        blocks (still checked, never run)."""
        live, dead = [], []
        orelse = s.orelse
        for i, br in enumerate(s.branches):
            known, value = self.x.fold(br.test, scope)
            if known and not value:
                dead.append(br.body)
            elif known:
                dead += [b.body for b in s.branches[i + 1:]] + ([s.orelse] if s.orelse is not None else [])
                orelse = br.body
                break
            else:
                live.append(br)
        return live, orelse, dead

    def s_If(self, b, s: A.If, scope, loop):
        branches, orelse, dead = self.live(s, scope)
        for blk in dead:
            self.block(Builder(Code("dead", "dead", blk.span)), blk, scope, loop)
        if not branches:
            if orelse is not None:
                self.block(b, orelse, scope, loop)
            return
        s = s.model_copy(update={"branches": branches, "orelse": orelse})
        end = Label()
        for br in s.branches:
            test = self.x.expect(br.test, scope, "bool", "an `if` condition")
            skip = Label()

            def branch(st, fr, test=test, skip=skip, nxt=b.here + 1):
                fr.pc = nxt if test(st, fr.L) else skip.pc
            branch.recipe = ("branch", test, b.here + 1, skip)
            b.emit(branch, br.test.span)
            self.block(b, br.body, scope, loop)
            if br is not s.branches[-1] or s.orelse is not None:
                b.jump(end, br.span)
            b.mark(skip)
        if s.orelse is not None:
            self.block(b, s.orelse, scope, loop)
        b.mark(end)

    def _loop(self, b, span, inner: Scope, body: A.Block, test, rounds=None) -> None:
        """Shared shape: a head that tests `test(st, L)` (which may also advance the loop's
        counters) and either enters the body or jumps past it; the body jumps back to it.
        `rounds` = (condition or None, slot, max) marks a bounded loop's head for lowering."""
        end, head = Label(), Label()
        b.mark(head)

        def head_op(st, fr, nxt=b.here + 1):
            fr.pc = nxt if test(st, fr.L) else end.pc
        if rounds is not None:
            head_op.recipe = ("loop", *rounds, b.here + 1, end, too_many)
        else:
            head_op.recipe = ("branch", test, b.here + 1, end)
        b.emit(head_op, span)
        self.block(b, body, inner, (head, end))
        b.jump(head, span)
        b.mark(end)

    def _loop_action(self, fn, build, span, b) -> None:
        """A loop's set-up, run as part of the straight-line code before it."""
        self.low.stmt_template(fn, build)
        b.action(fn, span)

    def s_For(self, b, s: A.For, scope, loop):
        src, ts = self.x.compile(s.source, scope)
        item = T.item_type(ts)
        if item is None:
            self.diags.error(s.source.span, f"cannot loop over {T.show(ts)}")
            item = "any"
        self.local_name(s.var, s.span)
        hidden = scope.locals.alloc()
        counter = scope.locals.alloc()
        inner = scope.child(loop=True)
        var = inner.define(s.var, item)

        def start(st, L):
            L[hidden] = items_of(st, src(st, L))
            L[counter] = 0

        def build(low, in_loop):
            items = P.call(low.ref(items_of), P.load("st"), low.expr(src))
            return [P.set_item(P.load("L"), ast.Constant(hidden), items),
                    P.set_item(P.load("L"), ast.Constant(counter), ast.Constant(0))]
        self._loop_action(start, build, s.span, b)

        def advance(st, L):
            """The next item into the loop's name; False once there is none."""
            i = L[counter]
            xs = L[hidden]
            if i < len(xs):
                L[var] = xs[i]
                L[counter] = i + 1
                return True
            return False
        advance.for_slots = (counter, hidden, var)  # for lowering.py's `_Chain.next_item`
        self.low.expr_template(advance, lambda low: P.call(low.ref(advance), P.load("st"), P.load("L")))
        self._loop(b, s.span, inner, s.body, advance)

    def s_Repeat(self, b, s: A.Repeat, scope, loop):
        count = self.x.expect(s.count, scope, "int", "a repeat count")
        left = scope.locals.alloc()
        cap = self.p.limits["steps"]

        def start(st, L):
            L[left] = repeat_count(st, count(st, L), cap)

        def build(low, in_loop):
            value = P.call(low.ref(repeat_count), P.load("st"), low.expr(count), ast.Constant(cap))
            return [P.set_item(P.load("L"), ast.Constant(left), value)]
        self._loop_action(start, build, s.span, b)

        def again(st, L):
            return count_down(L, left)
        self.low.expr_template(again, lambda low: P.call(low.ref(count_down), P.load("L"), ast.Constant(left)))
        self._loop(b, s.span, scope.child(loop=True), s.body, again)

    def s_Loop(self, b, s: A.Loop, scope, loop):
        self._bounded(b, s, scope, None)

    def s_While(self, b, s: A.While, scope, loop):
        test = self.x.expect(s.test, scope, "bool", "a `while` condition")
        self._bounded(b, s, scope, test)

    def _bounded(self, b, s, scope, test):
        rounds = scope.locals.alloc()
        limit = s.max
        if limit < 1:
            self.diags.error(s.span, "`max` must be at least 1")

        def start(st, L):
            L[rounds] = 0
        self._loop_action(start, lambda low, in_loop: [P.set_item(P.load("L"), ast.Constant(rounds), ast.Constant(0))],
                          s.span, b)

        def go_on(st, L):
            if test is not None and not test(st, L):
                return False
            n = L[rounds] = L[rounds] + 1  # one more round; past `max` the rules are at fault
            if n > limit:
                too_many(limit)
            spend(st, 1)
            return True
        self._loop(b, s.span, scope.child(loop=True), s.body, go_on, rounds=(test, rounds, limit))

    def s_Break(self, b, s, scope, loop):
        if loop is None:
            self.diags.error(s.span, "`break` outside a loop")
            return
        b.jump(loop[1], s.span)

    def s_Continue(self, b, s, scope, loop):
        if loop is None:
            self.diags.error(s.span, "`continue` outside a loop")
            return
        b.jump(loop[0], s.span)

    # ------------------------------------------------------------------ choices
    def s_Choose(self, b, s: A.Choose, scope, loop):
        src, ts = self.x.compile(s.source, scope)
        item = T.item_type(ts)
        if item is None:
            self.diags.error(s.source.span, f"`choose` picks from a list, a range, an enum or a zone, not {T.show(ts)}")
            item = "any"
        by = self._team_seat(s.by, scope) if s.by_team else self.x.expect(s.by, scope, "seat", "`by`")
        self.local_name(s.var, s.span)
        inner = scope.child()
        slot = inner.define(s.var, item)
        where = self.x.expect(s.where, inner, "bool", "`where`") if s.where is not None else None
        optional, prompt, span = s.optional, s.prompt or f"choose {s.var}", s.span
        seats = self.p.seats
        else_label = Label() if s.orelse is not None else None
        after = Label()
        narrow = self._narrowing(s, scope) if where is not None else None

        def choose(st, fr):
            L = fr.L
            opts = []
            items = choice_items(st, src(st, L))
            if narrow is not None:  # only the things in the zones `where` requires (narrowing.py)
                plan, kind = narrow
                for x in N.narrowed(st, N.plan_zones(plan, st, L), kind, items):
                    L[slot] = x
                    if where(st, L):
                        opts.append(x)
                if items:
                    L[slot] = items[-1]  # the slot as going through every item leaves it
                return settle(st, fr, opts)
            for x in items:
                if where is not None:
                    L[slot] = x
                    if not where(st, L):
                        continue
                opts.append(x)
            return settle(st, fr, opts)

        def settle(st, fr, opts):
            """The options are known: skip, take the `else`, or suspend for a seat's answer."""
            L = fr.L
            if not opts:
                if optional:  # nothing to take but `pass`: no choice to make
                    L[slot] = None
                    fr.pc = else_label.pc if else_label is not None else after.pc
                    return
                if else_label is not None:
                    L[slot] = None
                    fr.pc = else_label.pc
                    return
                nothing()
            if len(opts) > MAX_OPTIONS:
                too_many(len(opts))
            if optional:
                opts.append(None)
            seat = by(st, L)
            if not isinstance(seat, int) or not 0 <= seat < seats:
                no_seat(seat)
            st.pending = Pending(seat, tuple(opts), prompt, slot, after.pc, span)
            return True

        def nothing():
            raise Fault(f"`choose {s.var}` has nothing to choose from (add `optional` or an `else` block)")

        def no_seat(seat):
            raise Fault(f"`by` gave {seat!r}, which is no seat (0..{seats - 1})")

        def too_many(n):
            raise Fault(f"`choose {s.var}` offers {n} options; a choice offers at most {MAX_OPTIONS}")
        choose.recipe = ("choose", ChoiceRecipe(src, ts, where, slot, by, optional, else_label, after, prompt, span,
                                                frozenset(range(seats)), nothing, no_seat, too_many, self.p, narrow))
        b.emit(choose, s.span)
        # the rest of the block sees the chosen name
        scope.names[s.var] = (slot, item)
        if else_label is not None:
            skip = Label()
            b.jump(skip, s.span)
            b.mark(else_label)
            self.block(b, s.orelse, scope, loop)
            b.mark(skip)
            # resuming lands after the else block
            after.pc = -1
            b.mark(after)
        else:
            b.mark(after)

    def _narrowing(self, s: A.Choose, scope) -> tuple | None:
        """(plan, kind) when `s` chooses among every thing of a kind and its `where` requires
        the thing to lie in some zones (narrowing.py); else None."""
        src = s.source
        if not (N.ENABLED and isinstance(src, A.Name) and src.id in self.m.kinds and scope.lookup(src.id) is None):
            return None
        if self.diags.errors:  # the file will not run: nothing to plan for
            return None
        plan = N.Planner(self.x, s.var, scope).plan_of(s.where)
        return (plan, self.m.kinds[src.id].index) if plan is not None else None

    def _team_seat(self, team_expr: A.Expr, scope):
        """`by team T`: the seat that answers for team T is its first seat, the team's voice
        (a team decides together; the engine asks one seat, and that seat's view is the team's
        own). A team with no seat (one the rules play) cannot be asked."""
        team = self.x.expect(team_expr, scope, "int", "`by team`")
        teams = tuple(tuple(t) for t in self.p.teams)

        def voice(t):
            if not isinstance(t, int) or not 0 <= t < len(teams):
                raise Fault(f"`by team` gave {t!r}, which is no team (0..{len(teams) - 1})")
            if not teams[t]:
                raise Fault(f"`by team {t}`: that team has no seat to answer (the rules play it)")
            return teams[t][0]
        return self.x._py(lambda st, L: voice(team(st, L)), lambda low: P.call(low.ref(voice), low.expr(team)))

    # ------------------------------------------------------------------ cards and pieces
    def s_Move(self, b, s: A.Move, scope, loop):
        what, tw = self.x.compile(s.what, scope)
        dest = self.x.expect(s.dest, scope, "zone", "`to`")
        if not (tw.startswith("ent") or tw == "zone" or T.item_type(tw) in ("ent", "any") or
                (T.item_type(tw) or "").startswith("ent") or tw == "any"):
            self.diags.error(s.what.span, f"`move` moves a card or piece, a list of them or a whole zone, not {T.show(tw)}")
        bottom = s.position == "bottom"
        if tw.startswith("ent"):
            def move_one(st, L):
                move_items(st, what(st, L), dest(st, L), bottom)
            self.low.stmt_template(move_one, lambda low, in_loop: _move_template(low, what, dest, bottom))
            b.action(move_one, s.span)
            return

        def move(st, L):
            move_items(st, what(st, L), dest(st, L), bottom)
        self.low.stmt_template(move, lambda low, in_loop: [ast.Expr(P.call(
            low.ref(move_items), P.load("st"), low.expr(what), low.expr(dest), ast.Constant(bottom)))])
        b.action(move, s.span)

    def s_Shuffle(self, b, s: A.Shuffle, scope, loop):
        z = self.x.expect(s.zone, scope, "zone", "`shuffle`'s argument")
        def shuffle(st, L):
            shuffle_zone(st, z(st, L))
        self.low.stmt_template(shuffle, lambda low, in_loop: [ast.Expr(P.call(low.ref(shuffle_zone), P.load("st"), low.expr(z)))])
        b.action(shuffle, s.span)

    def s_Create(self, b, s: A.Create, scope, loop):
        kind = self.m.kinds.get(s.kind)
        dest = self.x.expect(s.dest, scope, "zone", "`in`")
        if kind is None:
            self.diags.error(s.span, f"unknown kind `{s.kind}`" + self.m.suggest(s.kind, self.m.kinds))
            return
        given = {}
        for kw in s.fields:
            if kw.name not in kind.fields:
                self.diags.error(kw.span, f"kind `{s.kind}` has no field `{kw.name}`" + self.m.suggest(kw.name, kind.fields))
                continue
            pos, ft = kind.fields[kw.name]
            given[pos] = self.x.expect(kw.value, scope, ft, f"field `{kw.name}`")
        nfields = len(kind.fields)
        times = self.x.expect(s.times, scope, "int", "`times`") if s.times is not None else None
        kidx = kind.index
        def create(st, L):
            n = create_count(st, times(st, L)) if times is not None else 1
            z = dest(st, L)
            for _ in range(n):
                attrs = [None] * nfields
                for pos, f in given.items():
                    attrs[pos] = f(st, L)
                st.create(kidx, tuple(attrs), z)

        def build(low, in_loop):
            """`st.create(kind, (fields...), zone)`, in a loop when `times` is given."""
            attrs = ast.Tuple([low.expr(given[i]) if i in given else ast.Constant(None) for i in range(nfields)],
                              ast.Load())
            z = low.tmp()
            one = _create_written_out(low, kidx, attrs, P.load(z))
            if times is None:
                return [ast.Assign([P.store(z)], low.expr(dest))] + one
            n = low.tmp()
            return [ast.Assign([P.store(n)], P.call(low.ref(create_count), P.load("st"), low.expr(times))),
                    ast.Assign([P.store(z)], low.expr(dest)),
                    ast.For(P.store(low.tmp()), P.call(low.ref(range), P.load(n)), one, [])]
        self.low.stmt_template(create, build)
        b.action(create, s.span)

    # ------------------------------------------------------------------ flow
    def s_Goto(self, b, s: A.Goto, scope, loop):
        if s.phase not in self.m.phases:
            self.diags.error(s.span, f"no phase `{s.phase}`" + self.m.suggest(s.phase, self.m.phases))
            return
        name = s.phase
        phases = self.p.phases

        def goto(st, fr):
            return st.goto(name, phases[name])
        goto.recipe = ("tail", lambda low: _goto_tail(low, name, phases[name]))
        b.emit(goto, s.span)

    def s_EndWinner(self, b, s: A.EndWinner, scope, loop):
        w = self.x.expect(s.winner, scope, "int" if s.team else "seat", "the winner")
        how = "finish_team" if s.team else "finish"
        end = (lambda st, fr: st.finish_team(w(st, fr.L))) if s.team else (lambda st, fr: st.finish(w(st, fr.L)))
        end.recipe = ("tail", lambda low: [ast.Return(P.call(P.state_attr(how), low.expr(w)))])
        b.emit(end, s.span)

    def s_EndDraw(self, b, s, scope, loop):
        def draw(st, fr):
            return st.finish(None)
        draw.recipe = ("tail", lambda low: [ast.Return(P.call(P.state_attr("finish"), ast.Constant(None)))])
        b.emit(draw, s.span)

    def s_Emit(self, b, s: A.Emit, scope, loop):
        ev = self.m.events.get(s.event)
        if ev is None:
            self.diags.error(s.span, f"no event `{s.event}` is declared" + self.m.suggest(s.event, self.m.events))
            return
        args = self.arguments(s, f"event `{s.event}`", ev.params, s.args, scope)
        if args is None:
            return
        handlers = self.p.handlers
        name = s.event
        nxt = b.here + 1

        def emit(st, fr):
            values = [f(st, fr.L) for f in args]
            frames = []
            for code in handlers.get(name, ()):
                frame = Frame.called(code, values)
                if code.guard is None or code.guard(st, frame.L):
                    frames.append(frame)
            for f in reversed(frames):
                st.push(f)
            fr.pc = nxt  # only now: a failing guard or push is located at this emit
            return True
        b.emit(emit, s.span)

    def s_Say(self, b, s: A.Say, scope, loop):
        texts, holes = [""], []
        for p in s.parts:
            if isinstance(p, str):
                texts[-1] += p
            else:
                holes.append(self.x.compile(p, scope)[0])
                texts.append("")
        texts, holes = tuple(texts), tuple(holes)

        def say(st, L):
            values = [h(st, L) for h in holes]  # with a log or without: a hole may roll, pick, spend or fail
            if st.log is not None:
                record_say(st, texts, values)
        self.low.stmt_template(say, _evaluated_then_logged(holes, lambda low, values: [
            low.ref(record_say), P.load("st"), low.ref(texts), ast.Tuple(values, ast.Load())]))
        b.action(say, s.span)

    def s_Return(self, b, s, scope, loop):
        if self.kind not in ("proc", "handler"):
            self.diags.error(s.span, "`return` ends a procedure or a handler; a phase ends with `goto` or `end`")
            return
        if s.value is None:
            b.emit(return_op, s.span)
            return
        if self.proc is None or self.proc.result is None:
            where = f"`proc {self.proc.name}(...): TYPE`" if self.proc is not None else "a procedure's"
            self.diags.error(s.value.span, f"`return` with a value needs a declared result type: {where}")
            return
        from vbr.checker import type_of
        value = self.x.expect(s.value, scope, type_of(self.m, self.proc.result), "the returned value")

        def return_value(st, fr):
            v = value(st, fr.L)
            st.pop()
            caller = st.stack[-1]  # a procedure always has a caller's frame below its own
            if caller.code.result_slot is not None:
                caller.L[caller.code.result_slot] = v
            return True
        b.emit(return_value, s.span)

    def s_Reveal(self, b, s: A.Reveal, scope, loop):
        what, tw = self.x.compile(s.what, scope)
        def reveal(st, L):
            x = what(st, L)  # with a log or without: it may roll, pick, spend or fail
            if st.log is not None:
                record_reveal(st, x)
        self.low.stmt_template(reveal, _evaluated_then_logged((what,), lambda low, values: [
            low.ref(record_reveal), P.load("st"), values[0]]))
        b.action(reveal, s.span)


def record_say(st, texts: tuple, values) -> None:
    """Log a `say`: its texts with the values of its holes between them."""
    parts = [texts[0]]
    for v, t in zip(values, texts[1:]):
        parts += [st.describe(v), t]
    st.record({"t": "say", "text": "".join(parts)})


def record_reveal(st, x) -> None:
    """Log a `reveal` of `x` (a zone, a list or one item) and what it shows."""
    items = st.zones[x] if isinstance(x, ZoneRef) else (x if isinstance(x, tuple) else (x,))
    st.record({"t": "reveal", "what": text(x, st.prog), "items": [st.describe(i) for i in items]})


def create_count(st, n) -> int:
    """A checked `times`; each thing created is a step of the game."""
    if not 0 <= n <= 10000:
        raise Fault(f"`create ... times {n}`: out of 0..10000")
    spend(st, n)
    return n


def count_down(L: list, slot: int) -> bool:
    """Whether a `repeat` has a round left (its count in `L[slot]`), the round counted off."""
    if L[slot] > 0:
        L[slot] -= 1
        return True
    return False


def _create_written_out(low, kind: int, attrs: ast.expr, z: ast.expr) -> list:
    """State.create written out: a new id, its fields, its kind, its zone (where it also lies)."""
    e = low.tmp()
    def append(table: str, value: ast.expr) -> ast.stmt:
        return ast.Expr(P.call(ast.Attribute(P.load(table), "append", ast.Load()), value))
    n = low.tmp()
    # `IDS[n] if (n := len(E)) < len(IDS) else Ent(n)`: the first ids made once, shared by every game
    fresh = ast.IfExp(ast.Compare(ast.NamedExpr(P.store(n), P.call(low.ref(len), P.load("E"))), [ast.Lt()],
                                  [ast.Constant(len(ENT_IDS))]),
                      P.subscript(low.ref(ENT_IDS), P.load(n)), P.call(low.ref(Ent), P.load(n)))
    return [ast.Assign([P.store(e)], fresh),
            append("E", attrs), append("KD", ast.Constant(kind)), append("W", z),
            ast.Expr(P.call(ast.Attribute(P.subscript(P.load("Z"), z), "append", ast.Load()), P.load(e)))]


def _goto_tail(low, name: str, code: Code) -> list:
    """`st.goto(name, code)`; with no log or trace to keep, its two assignments written out."""
    quiet = P.binary("and", ast.Compare(P.state_attr("trace"), [ast.Is()], [ast.Constant(None)]),
                     ast.Compare(P.state_attr("log"), [ast.Is()], [ast.Constant(None)]))
    blank = ast.BinOp(ast.List([ast.Constant(None)], ast.Load()), ast.Mult(), ast.Constant(code.nlocals))
    fast = _new_frame(low, code, blank) + [
        ast.Assign([ast.Attribute(P.load("st"), "phase", ast.Store())], ast.Constant(name)),
        ast.Assign([ast.Attribute(P.load("st"), "stack", ast.Store())], ast.List([P.load("_f")], ast.Load())),
        ast.Return(ast.Constant(True))]
    return [ast.If(quiet, fast, []), ast.Return(P.call(P.state_attr("goto"), ast.Constant(name), low.ref(code)))]


def _new_frame(low, code: Code, locals_: ast.expr) -> list:
    """`_f = Frame(code, locals_)` with Frame.__init__ written out."""
    return [ast.Assign([P.store("_f")], P.call(low.ref(object.__new__), low.ref(Frame))),
            ast.Assign([ast.Attribute(P.load("_f"), "code", ast.Store())], low.ref(code)),
            ast.Assign([ast.Attribute(P.load("_f"), "pc", ast.Store())], ast.Constant(0)),
            ast.Assign([ast.Attribute(P.load("_f"), "L", ast.Store())], locals_)]


def _push_written_out(low, limit: int) -> list:
    """`return st.push(_f)` with State.push written out; at the depth limit, State.push itself
    is called, for its error."""
    t = low.tmp()
    stack = P.load(t)
    return [ast.Assign([P.store(t)], P.state_attr("stack")),
            ast.If(ast.Compare(P.call(low.ref(len), stack), [ast.GtE()], [ast.Constant(limit)]),
                   [ast.Return(P.call(P.state_attr("push"), P.load("_f")))], []),
            ast.Expr(P.call(ast.Attribute(stack, "append", ast.Load()), P.load("_f"))),
            ast.Return(ast.Constant(True))]


def return_op(st, fr):
    return st.pop()


# State.pop written out
return_op.recipe = ("tail", lambda low: [ast.Expr(P.call(ast.Attribute(P.state_attr("stack"), "pop", ast.Load()))),
                                         ast.Return(ast.Constant(True))])


def _unknown_target(m, name: str, scope) -> str:
    """Why `name = ...` assigns nothing: no such variable, or (`measure NAME = ...`) no such measure."""
    if name.startswith("measure "):
        return f"no measure `{name.split(' ', 1)[1]}` is declared" + m.suggest(name.split(" ", 1)[1], m.measures)
    return f"unknown variable `{name}`" + m.suggest(name, set(m.vars) | scope.visible())


def _store_template(low, store, value) -> list:
    where = low.store_target(store)
    if where is not None:
        return [P.set_item(P.load(where[0]), ast.Constant(where[1]), low.expr(value))]
    written = low.store_writer(store)
    if written is not None:  # the value first, as the store's caller computes it first
        v = low.tmp()
        return [ast.Assign([P.store(v)], low.expr(value))] + written(low, P.load(v))
    return [ast.Expr(P.call(low.ref(store), P.load("st"), P.load("L"), low.expr(value)))]


def _score_written(low) -> list:
    """`if (_a := st.auto) is not None: _a.scored = True`: random play (state.take) looks at
    the score only after a choice that wrote it, instead of comparing it after every choice."""
    a = low.tmp()
    auto = ast.NamedExpr(P.store(a), P.state_attr("auto"))
    return [ast.If(ast.Compare(auto, [ast.IsNot()], [ast.Constant(None)]),
                   [ast.Assign([ast.Attribute(P.load(a), "scored", ast.Store())], ast.Constant(True))], [])]


def _copy_at(at: ast.expr) -> ast.expr:
    return ast.Constant(at.value) if type(at) is ast.Constant else P.load(at.id)


def _move_template(low, what, dest, bottom: bool) -> list:
    """State.move written out: out of the zone it is in, onto the top (or bottom) of the other."""
    x, z = low.tmp(), low.tmp()
    where = P.subscript(P.load("W"), P.load(x))
    take = ast.Expr(P.call(ast.Attribute(P.subscript(P.load("Z"), where), "remove", ast.Load()), P.load(x)))
    to = P.subscript(P.load("Z"), P.load(z))
    put = (P.call(ast.Attribute(to, "insert", ast.Load()), ast.Constant(0), P.load(x)) if bottom
           else P.call(ast.Attribute(to, "append", ast.Load()), P.load(x)))
    return [ast.Assign([P.store(x)], low.expr(what)), ast.Assign([P.store(z)], low.expr(dest)),
            ast.If(ast.Compare(P.load(x), [ast.Is()], [ast.Constant(None)]),
                   [ast.Expr(P.call(low.ref(_move_of_none)))], []),
            take, ast.Expr(put), P.set_item(P.load("W"), P.load(x), P.load(z))]


def _move_of_none():
    raise Fault("`move` of none")


def _evaluated_then_logged(exprs, logging_call):
    """The template of a statement that only logs: its expressions evaluated into temps whether a
    log is kept or not (they may roll, pick, spend steps or fail, and a game plays the same with a
    log and without), then `if st.log is not None: f(args)`, `logging_call(low, temps)` giving f
    and its arguments."""
    def build(low, in_loop):
        temps = [low.tmp() for _ in exprs]
        evaluated = [ast.Assign([P.store(t)], low.expr(e)) for t, e in zip(temps, exprs)]
        f, *args = logging_call(low, [P.load(t) for t in temps])
        logging = ast.Compare(P.state_attr("log"), [ast.IsNot()], [ast.Constant(None)])
        return evaluated + [ast.If(logging, [ast.Expr(P.call(f, *args))], [])]
    return build


def _bounded(v, r, name):
    lo, hi, overflow, wrap_to = r
    if lo <= v <= hi:
        return v
    if overflow == "clamp":
        return lo if v < lo else hi
    if overflow == "wrap":
        return wrap_to if v > hi else lo
    raise Fault(f"`{name}` = {v} leaves its range {lo}..{hi}")


__all__ = ["StmtCompiler", "Ent"]
