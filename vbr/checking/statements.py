"""The statements of every body — procs, phases, handlers, setup — checked: names, types,
arguments, and where each statement may stand (`break` in a loop, `return` in a procedure)."""
from __future__ import annotations

from vbr.checker import Model, constant_int, keywords, known_number, type_of
from vbr.checking import types as T
from vbr.checking.expressions import ExprChecker
from vbr.checking.scope import Scope
from vbr.grammar import ast as A
from vbr.grammar.misspelt import EXPRESSION_KEYWORDS, STATEMENT_KEYWORDS, keyword_for
from vbr.grammar.reserved import reserved_message


class StmtChecker:
    def __init__(self, model: Model, exprs: ExprChecker):
        self.m = model
        self.x = exprs
        self.diags = model.diags
        self.kind = ""  # of the body being checked: proc, phase, handler, setup
        self.proc: A.Proc | None = None
        self._misspelt_line: tuple[str, int] | None = None  # where a misspelt statement word was reported

    def body(self, name: str, kind: str, body: A.Block, params: list[A.Param] = (), guard: A.Expr | None = None):
        self.kind = kind
        self.proc = self.m.procs.get(name) if kind == "proc" else None
        scope = Scope()
        for p in params:  # a parameter spelled as a reserved word is refused by the model
            scope.define(p.name, type_of(self.m, p.type) if p.type else "any")
        if guard is not None:
            self.x.expect(guard, scope, "bool", "a handler's `when`")
        self.block(body, scope, False)

    def block(self, blk: A.Block, scope: Scope, loop: bool) -> None:
        inner = scope.child()
        for s in blk.body:
            getattr(self, "s_" + type(s).__name__)(s, inner, loop)

    def local_name(self, name: str, span) -> None:
        if name in keywords():
            self.diags.error(span, reserved_message(name))

    # ------------------------------------------------------------------ simple statements
    def s_Let(self, s: A.Let, scope: Scope, loop: bool) -> None:
        t = self.take_result(s.value, scope) if self._proc_call(s.value) else self.x.check(s.value, scope)
        if t is None:
            return
        if s.name in scope.names:
            self.diags.error(s.span, f"`{s.name}` is already defined in this block; assign with `{s.name} = ...`")
        self.local_name(s.name, s.span)
        scope.define(s.name, t if t != "none" else "any")

    def s_Assign(self, s: A.Assign, scope: Scope, loop: bool) -> None:
        if (s.span.file, s.span.line) == self._misspelt_line and isinstance(s.target, A.Name) and s.op == "=" \
                and scope.lookup(s.target.id) is None and s.target.id not in self.m.global_names():
            # `lett me = 1`: the misspelt `let` is reported; `me` is declared, as the author meant
            scope.define(s.target.id, self.x.check(s.value, scope))
            return
        if self._proc_call(s.value) and s.op == "=":
            vt = self.take_result(s.value, scope)
            if vt is None:
                return
        else:
            vt = self.x.check(s.value, scope)
        tt = self.target(s.target, scope)
        if tt is None:
            return
        if s.op != "=" and self._seat_measure(s.target):
            short = s.target.id.split(" ", 1)[1]
            sort = self.m.measures[short].type
            self.diags.error(s.span, f"`measure {short} {s.op} ...`: a {sort} measure names a {sort}, and starts "
                                     f"unset (none), so there is nothing to add to; set it with `measure {short} = "
                                     f"...` (an int measure counts)")
        elif s.op != "=":
            if tt.startswith("list:"):
                self.diags.error(s.span, f"`{s.op}` works on numbers: a list cannot grow or shrink (give it a whole "
                                         "new list, or keep a collection that grows as things in a zone)")
            elif not T.is_numeric(tt) or not T.is_numeric(vt):
                self.diags.error(s.span, f"`{s.op}` works on numbers")
            self.x.unjudged(self.x.check, s.target, scope)  # read as well as written (its values judged as the target)
        elif not T.compatible(vt, tt):
            self.diags.error(s.span, f"cannot assign {T.show(vt)} to {T.show(tt)}")
        elif tt == "seat" and vt == "int":
            self._int_as_seat(s)

    def _seat_measure(self, target: A.Expr) -> bool:
        """Whether `target` is a seat or side measure (`measure first_server`)."""
        if not (isinstance(target, A.Name) and target.id.startswith("measure ")):
            return False
        d = self.m.measures.get(target.id.split(" ", 1)[1])
        return d is not None and d.type in ("seat", "side")

    def _int_as_seat(self, s: A.Assign) -> None:
        """An int stored into a seat: one known before play (a number, an option, a const, or
        arithmetic on them, under the options chosen: checker.constant_int) must be among the
        seats, except in code the options leave dead. An int computed in play (a var, a
        parameter) cannot be judged before play."""
        value = None if self.x.not_judged else constant_int(self.m, s.value)
        seats = self.m.seats
        if value is not None and not 0 <= value < seats:
            self.diags.error(s.span, f"cannot assign int to seat: {known_number(s.value, value)}, and the seats are "
                                     f"0..{seats - 1}")

    def target(self, t: A.Expr, scope: Scope) -> str | None:
        """The type of an assignable expression; None when it cannot be assigned (reported)."""
        m = self.m
        if isinstance(t, A.Name):
            local = scope.lookup(t.id)
            if local is not None:
                return local
            var = m.vars.get(t.id)
            if var is None:
                what = "an option" if t.id in m.options else "a const" if t.id in m.consts else None
                return self._refuse(t, f"`{t.id}` is {what} and cannot be assigned" if what else _unknown_target(m, t.id, scope))
            if var.per:
                return self._refuse(t, f"`{t.id}` is kept per {var.per}: assign `{t.id}[i] = ...`")
            return var.type
        if isinstance(t, A.Index) and isinstance(t.obj, A.Name) and t.obj.id in m.vars:
            var = m.vars[t.obj.id]
            if not var.per and var.type.startswith("list:"):
                return self._refuse(t, f"`{t.obj.id}` holds a list, which cannot be changed in place: give it a "
                                       f"whole new list (`{t.obj.id} = [...]`)")
            if not var.per:
                return self._refuse(t, f"`{t.obj.id}` is not kept per seat or team; it takes no index")
            self.x.expect(t.index, scope, "int", "an index")
            self.x.owner_known(t.index, var.per, f"the index of `{t.obj.id}`")
            return var.type
        if isinstance(t, A.Index) and isinstance(t.obj, A.Name) and scope.lookup(t.obj.id) is None:
            name = t.obj.id
            return self._refuse(t.obj, f"`{name}` is a zone: move cards into it with `move`" if name in m.zones else
                                f"unknown variable `{name}`" + m.suggest(name, set(m.vars) | scope.visible()))
        if isinstance(t, A.Attr):
            ot = self.x.check(t.obj, scope)
            kinds = [m.kinds[ot[4:]]] if ot.startswith("ent:") else list(m.kinds.values())
            kinds = [k for k in kinds if t.name in k.fields]
            if not kinds:
                return self._refuse(t, f"no field `{t.name}` to assign on {T.show(ot)}")
            return kinds[0].fields[t.name][1]
        return self._refuse(t, "only a variable, `var[i]` or `thing.field` can be assigned")

    def _refuse(self, at: A.Node, message: str) -> None:
        self.diags.error(at.span, message)
        return None

    def _proc_call(self, e: A.Expr) -> bool:
        return isinstance(e, A.Call) and e.func in self.m.procs

    def take_result(self, c: A.Call, scope: Scope) -> str | None:
        """`x = p(...)`: the procedure's result type; None when it declares none (reported)."""
        d = self.m.procs[c.func]
        if d.result is None:
            return self._refuse(c, f"`{d.name}` gives no value: declare its result type, `proc {d.name}(...): TYPE`, "
                                   "and `return` a value")
        self.arguments(c, f"`{d.name}`", d.params, c.args, scope)
        return type_of(self.m, d.result)

    def s_CallStmt(self, s: A.CallStmt, scope: Scope, loop: bool) -> None:
        c = s.call
        if not isinstance(c, A.Call):
            if self._misspelt_keyword(c, scope) or (s.span.file, s.span.line) == self.x.misspelt_line:
                return  # the misspelt word is the error (`x = rol d`: `d` stands alone after `rol`)
            self.diags.error(s.span, "this expression does nothing on its own; did you mean an assignment (`x = ...`)?")
        elif c.func in self.m.procs:
            d = self.m.procs[c.func]
            self.arguments(c, f"`{d.name}`", d.params, c.args, scope)
        else:
            self.x.check(c, scope)

    def _misspelt_keyword(self, e: A.Expr, scope: Scope) -> bool:
        """True when `e` stands alone after a misspelt statement word on its line, which is then
        reported once (`shufle deck[s]` parses as `shufle`, then `deck[s]`: two expressions that
        do nothing, where the mistake is the word)."""
        at = (e.span.file, e.span.line)
        if at == self._misspelt_line:
            return True
        m = self.m
        if not isinstance(e, A.Name) or scope.lookup(e.id) is not None or e.id in m.global_names() \
                or any(e.id in names for names in (m.procs, m.fns, m.phases, m.events, m.dice)):
            return False
        keyword = keyword_for(e.id, STATEMENT_KEYWORDS)
        word = keyword_for(e.id, EXPRESSION_KEYWORDS) if keyword is None else None
        if keyword is None and word is None:
            return False
        self._misspelt_line = at
        if word is not None:  # `rol d`: a roll alone does nothing either
            self.diags.error(e.span, f"unknown name `{e.id}`; did you mean `{word}`? (`{word} ...` gives a value: "
                                     f"keep it, `x = {word} ...`)")
        else:
            self.diags.error(e.span, f"`{e.id}` starts no statement; did you mean `{keyword}`?")
        return True

    def arguments(self, at: A.Node, what: str, params: list[A.Param], args: list[A.Expr], scope: Scope) -> None:
        """The arguments of a proc call or an emit: their number, then each one's type."""
        if len(args) != len(params):
            self.diags.error(at.span, f"{what} takes {len(params)} argument(s), not {len(args)}")
            return
        for a, p in zip(args, params):
            self.x.expect(a, scope, type_of(self.m, p.type) if p.type else "any", f"argument `{p.name}` of {what}")

    # ------------------------------------------------------------------ control flow
    def live(self, s: A.If, scope: Scope):
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

    def s_If(self, s: A.If, scope: Scope, loop: bool) -> None:
        for br in s.branches:
            self.x.expect(br.test, scope, "bool", "an `if` condition")
        branches, orelse, dead = self.live(s, scope)
        for blk in dead:
            self.x.unjudged(self.block, blk, scope, loop)
        for br in branches:
            self.block(br.body, scope, loop)
        if orelse is not None:
            self.block(orelse, scope, loop)

    def s_For(self, s: A.For, scope: Scope, loop: bool) -> None:
        ts = self.x.check(s.source, scope)
        item = T.item_type(ts)
        if item is None:
            self.diags.error(s.source.span, f"cannot loop over {T.show(ts)}")
            item = "any"
        self.local_name(s.var, s.span)
        inner = scope.child(loop=True)
        inner.define(s.var, item)
        self.block(s.body, inner, True)

    def s_Repeat(self, s: A.Repeat, scope: Scope, loop: bool) -> None:
        self.x.expect(s.count, scope, "int", "a repeat count")
        self.block(s.body, scope.child(loop=True), True)

    def s_Loop(self, s: A.Loop, scope: Scope, loop: bool) -> None:
        self._bounded(s, scope)

    def s_While(self, s: A.While, scope: Scope, loop: bool) -> None:
        self.x.expect(s.test, scope, "bool", "a `while` condition")
        self._bounded(s, scope)

    def _bounded(self, s: A.Loop | A.While, scope: Scope) -> None:
        """A loop's `max`: a whole number known before play (checker.constant_int, under the options
        chosen), at least 1."""
        if T.compatible(self.x.expect(s.max, scope, "int", "`max`"), "int"):
            self._most_rounds(s.max)
        self.block(s.body, scope.child(loop=True), True)

    def _most_rounds(self, bound: A.Expr) -> None:
        """Refused: a bound play works out (whatever the options), or one below 1 under the options
        chosen (not judged in code they leave dead)."""
        value = constant_int(self.m, bound)
        if value is None:
            self.diags.error(bound.span, "`max` takes a whole number known before play: a number, an int option, a "
                                         "const, or arithmetic on them")
        elif value < 1 and not self.x.not_judged:
            said = known_number(bound, value)
            self.diags.error(bound.span, f"`max` must be at least 1, not {said}" if said == str(value) else
                             f"`max` must be at least 1: {said}")

    def s_Break(self, s: A.Break, scope: Scope, loop: bool) -> None:
        if not loop:
            self.diags.error(s.span, "`break` outside a loop")

    def s_Continue(self, s: A.Continue, scope: Scope, loop: bool) -> None:
        if not loop:
            self.diags.error(s.span, "`continue` outside a loop")

    def s_Choose(self, s: A.Choose, scope: Scope, loop: bool) -> None:
        if self.kind == "given":
            self.diags.error(s.span, "a `given` block makes no choices: set up the position directly (`move`, "
                                     "assignments), and make choices with the scenario's `choose` steps after it")
        ts = self.x.check(s.source, scope)
        item = T.item_type(ts)
        if item is None:
            self.diags.error(s.source.span, f"`choose` picks from a list, a range, an enum or a zone, not {T.show(ts)}")
            item = "any"
        if isinstance(s.by, A.Name) and s.by.id == s.var and scope.lookup(s.var) is None:
            self.diags.error(s.by.span, f"`by` names who makes the choice (a seat), not `{s.var}`, the item chosen")
        elif s.by_team:
            self.x.expect(s.by, scope, "int", "`by team`")
            self.x.owner_known(s.by, "team", "`by team`")
        else:
            self.x.expect(s.by, scope, "seat", "`by`")
        self.local_name(s.var, s.span)
        inner = scope.child()
        inner.define(s.var, item)
        if s.where is not None:
            self.x.expect(s.where, inner, "bool", "`where`")
        scope.define(s.var, item)  # the answer, after the choice
        if s.orelse is not None:
            self.block(s.orelse, scope, loop)

    def s_Move(self, s: A.Move, scope: Scope, loop: bool) -> None:
        tw = self.x.check(s.what, scope)
        self.x.expect(s.dest, scope, "zone", "`to`")
        item = T.item_type(tw) or ""
        if not (tw.startswith("ent") or tw == "zone" or item == "any" or item.startswith("ent") or tw == "any"):
            self.diags.error(s.what.span, f"`move` moves a card or piece, a list of them or a whole zone, not {T.show(tw)}")

    def s_Shuffle(self, s: A.Shuffle, scope: Scope, loop: bool) -> None:
        self.x.expect(s.zone, scope, "zone", "`shuffle`'s argument")

    def s_Create(self, s: A.Create, scope: Scope, loop: bool) -> None:
        kind = self.m.kinds.get(s.kind)
        self.x.expect(s.dest, scope, "zone", "`in`")
        if kind is None:
            self.diags.error(s.span, f"unknown kind `{s.kind}`" + self.m.suggest(s.kind, self.m.kinds))
            return
        for kw in s.fields:
            if kw.name not in kind.fields:
                self.diags.error(kw.span, f"kind `{s.kind}` has no field `{kw.name}`" + self.m.suggest(kw.name, kind.fields))
            else:
                self.x.expect(kw.value, scope, kind.fields[kw.name][1], f"field `{kw.name}`")
        if s.times is not None:
            self.x.expect(s.times, scope, "int", "`times`")

    def s_Goto(self, s: A.Goto, scope: Scope, loop: bool) -> None:
        if s.phase not in self.m.phases:
            self.diags.error(s.span, f"no phase `{s.phase}`" + self.m.no_phase(s.phase))

    def s_EndWinner(self, s: A.EndWinner, scope: Scope, loop: bool) -> None:
        self.x.expect(s.winner, scope, "int" if s.team else "seat", "the winner")
        if s.team:
            self.x.owner_known(s.winner, "team", "the winning team")

    def s_EndDraw(self, s: A.EndDraw, scope: Scope, loop: bool) -> None:
        pass

    def s_Emit(self, s: A.Emit, scope: Scope, loop: bool) -> None:
        ev = self.m.events.get(s.event)
        if ev is None and s.event in self.m.procs:
            self.diags.error(s.span, f"`{s.event}` is a procedure, not an event: call it with `{s.event}(...)`")
            return
        if ev is None:
            self.diags.error(s.span, f"no event `{s.event}` is declared" + self.m.suggest(s.event, self.m.events))
            return
        self.arguments(s, f"event `{s.event}`", ev.params, s.args, scope)

    def s_Say(self, s: A.Say, scope: Scope, loop: bool) -> None:
        for p in s.parts:
            if not isinstance(p, str):
                self.x.check(p, scope)

    def s_Return(self, s: A.Return, scope: Scope, loop: bool) -> None:
        if self.kind not in ("proc", "handler"):
            ends = {"setup": "`setup` ends by running off its end (play then begins at `start`) or with `goto`",
                    "given": "a `given` block ends by running off its end"}.get(self.kind, "a phase ends with `goto` or `end`")
            self.diags.error(s.span, f"`return` ends a procedure or a handler; {ends}")
            return
        if s.value is None:
            return
        if self.proc is None or self.proc.result is None:
            where = f"`proc {self.proc.name}(...): TYPE`" if self.proc is not None else "a procedure's"
            self.diags.error(s.value.span, f"`return` with a value needs a declared result type: {where}")
            return
        self.x.expect(s.value, scope, type_of(self.m, self.proc.result), "the returned value")

    def s_Reveal(self, s: A.Reveal, scope: Scope, loop: bool) -> None:
        self.x.check(s.what, scope)


def _unknown_target(m: Model, name: str, scope: Scope) -> str:
    """Why `name = ...` assigns nothing: no such variable, or (`measure NAME = ...`) no such measure."""
    if name.startswith("measure "):
        return f"no measure `{name.split(' ', 1)[1]}` is declared" + m.suggest(name.split(" ", 1)[1], m.measures)
    return f"unknown variable `{name}`" + m.suggest(name, set(m.vars) | scope.visible())
