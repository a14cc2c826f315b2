"""Parse tree → AST. One method per grammar rule; a forgotten rule raises instead of leaking a Tree."""
from __future__ import annotations

import re

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import VisitError

from vbr.grammar import ast as A
from vbr.errors import Diagnostic, Span, VbrSyntaxError
from vbr.limits import MAX_INT


class _Tagged(tuple):
    """An optional clause's value, tagged so that rules with several optional parts can tell them apart."""


def _tag(tag, value):
    return _Tagged((tag, value))


@v_args(meta=True)
class ToAst(Transformer):
    def __init__(self, file: str, parse_expr=None):
        super().__init__(visit_tokens=False)
        self.file = file
        self.parse_expr = parse_expr  # for {holes} in say strings

    # -------------------------------------------------------------- helpers
    def _span(self, meta, children=()) -> Span:
        if not getattr(meta, "empty", True):
            return Span(file=self.file, line=meta.line, col=meta.column,
                        end_line=meta.end_line, end_col=meta.end_column)
        for c in children:
            if isinstance(c, Token) and c.line is not None:
                return Span(file=self.file, line=c.line, col=c.column,
                            end_line=c.end_line or c.line, end_col=c.end_column or c.column)
            if isinstance(c, A.Node):
                return c.span
        return Span(file=self.file)

    def tok_span(self, tok: Token) -> Span:
        return Span(file=self.file, line=tok.line, col=tok.column,
                    end_line=tok.end_line or tok.line, end_col=tok.end_column or tok.column)

    def _int(self, tok: Token) -> int:
        """An integer literal, of at most `MAX_INT` (a 5,000-digit number is not converted at all)."""
        digits = str(tok).lstrip("0")
        if len(digits) > len(str(MAX_INT)) or int(digits or "0") > MAX_INT:
            shown = digits if len(digits) <= 30 else f"{digits[:12]}...{digits[-6:]} ({len(digits)} digits)"
            raise VbrSyntaxError(Diagnostic(self.tok_span(tok), f"the number {shown} is too large: integers in a "
                                                                f"rule file are at most {MAX_INT} (2^63 - 1)"))
        return int(digits or "0")

    # Lark's own walk calls each rule through its `v_args` wrapper, which builds a new wrapper
    # object (functools.update_wrapper) on every call: about half of the transform's time. The
    # walk below calls the same methods, with the same (meta, children), errors wrapped in
    # VisitError as Lark wraps them.
    def _transform_tree(self, tree):
        children = [self._transform_tree(c) if isinstance(c, Tree) else c for c in tree.children]
        f = _RULES.get(tree.data)
        if f is None:
            return self._call_userfunc(tree, children)
        try:
            return f(self, tree.meta, children)
        except Exception as e:
            raise VisitError(tree.data, tree, e)

    def __default__(self, data, children, meta):
        raise NotImplementedError(f"grammar rule {data!r} has no AST mapping")

    @staticmethod
    def _tags(children):
        return {c[0]: c[1] for c in children if isinstance(c, _Tagged)}

    @staticmethod
    def _plain(children):
        return [c for c in children if not isinstance(c, _Tagged)]

    # -------------------------------------------------------------- files
    def start(self, meta, ch):
        return ch[0]

    def game_file(self, meta, ch):
        return A.GameFile(span=self._span(meta, ch), title=_str(ch[0]), decls=ch[1:])

    def override(self, meta, ch):
        return ch[0].model_copy(update={"override": True})

    def extends(self, meta, ch):
        return A.Extends(span=self._span(meta, ch), name="@extends", path=_str(ch[0]))

    def team(self, meta, ch):
        return A.Team(span=self._span(meta, ch), name=str(ch[0]), seats=[self._int(t) for t in ch[1:]])

    def seats(self, meta, ch):
        teams = [c for c in ch[1:] if isinstance(c, A.Team)]
        when = next((c for c in ch[1:] if isinstance(c, A.Expr)), None)
        return A.Seats(span=self._span(meta, ch), name="@seats", count=self._int(ch[0]), teams=teams, when=when)

    def option(self, meta, ch):
        return A.Option(span=self._span(meta, ch), name=str(ch[0]), default=ch[1], choices=list(ch[2:]))

    def enum(self, meta, ch):
        return A.Enum(span=self._span(meta, ch), name=str(ch[0]), members=[str(t) for t in ch[1:]],
                      member_spans=[self.tok_span(t) for t in ch[1:]])

    def field(self, meta, ch):
        return A.Field(span=self._span(meta, ch), name=str(ch[0]), type=ch[1])

    def kind(self, meta, ch):
        return A.Kind(span=self._span(meta, ch), name=str(ch[0]), fields=list(ch[1:]))

    def type(self, meta, ch):
        return A.TypeRef(span=self._span(meta, ch), name=str(ch[0]))

    def list_type(self, meta, ch):
        return A.TypeRef(span=self._span(meta, ch), name="list", item=ch[0])

    def zone_owner(self, meta, ch):
        return _tag("per", str(ch[0]))

    def zone(self, meta, ch):
        tags = self._tags(ch)
        toks = [c for c in self._plain(ch) if isinstance(c, Token)]
        vis = next(str(t) for t in toks if t.type == "VISIBILITY")
        ordered = any(t.type == "ORDERED" for t in toks)
        return A.Zone(span=self._span(meta, ch), name=str(toks[0]), per=tags.get("per"),
                      visibility=vis, ordered=ordered)

    def court(self, meta, ch):
        return A.Court(span=self._span(meta, ch), name="@court", items=list(ch))

    def _court_item(self, what, meta, ch):
        return A.CourtItem(span=self._span(meta, ch), what=what,
                           values=[c if isinstance(c, int) else (str(c) if c.type == "NAME" else self._int(c)) for c in ch])

    def court_rows(self, meta, ch):
        return self._court_item("rows", meta, ch)

    def court_cols(self, meta, ch):
        return self._court_item("cols", meta, ch)

    def court_net(self, meta, ch):
        return self._court_item("net", meta, ch)

    def court_field(self, meta, ch):
        return self._court_item("field", meta, ch)

    def court_space(self, meta, ch):
        return self._court_item("space", meta, ch)

    def signed(self, meta, ch):
        return self._int(ch[0])

    def neg_int(self, meta, ch):
        return -self._int(ch[0])

    def direction(self, meta, ch):
        return A.Direction(span=self._span(meta, ch), name=str(ch[0]), right=ch[1], forward=ch[2])

    def die(self, meta, ch):
        return A.Die(span=self._span(meta, ch), name=str(ch[0]), faces=ch[1])

    def var_range(self, meta, ch):
        lo, hi = ch[0], ch[1]
        rest = ch[2:]
        overflow = wrap_to = None
        if rest:
            overflow = str(rest[0])
            if overflow == "wrap":
                wrap_to = rest[1]
        return A.VarRange(span=self._span(meta, ch), lo=lo, hi=hi, overflow=overflow, wrap_to=wrap_to)

    def var(self, meta, ch):
        tags = self._tags(ch)
        plain = self._plain(ch)
        rng = next((c for c in plain if isinstance(c, A.VarRange)), None)
        return A.Var(span=self._span(meta, ch), name=str(plain[0]), type=plain[1], per=tags.get("per"),
                     init=plain[2], range=rng)

    def const(self, meta, ch):
        return A.Const(span=self._span(meta, ch), name=str(ch[0]), value=ch[1])

    def params(self, meta, ch):
        return _tag("params", list(ch))

    def param(self, meta, ch):
        return A.Param(span=self._span(meta, ch), name=str(ch[0]), type=ch[1] if len(ch) > 1 else None)

    def fn(self, meta, ch):
        tags = self._tags(ch)
        plain = self._plain(ch)
        return A.Fn(span=self._span(meta, ch), name=str(plain[0]), params=tags.get("params", []), body=plain[1])

    def proc(self, meta, ch):
        tags = self._tags(ch)
        plain = self._plain(ch)
        return A.Proc(span=self._span(meta, ch), name=str(plain[0]), params=tags.get("params", []), body=plain[1],
                      result=tags.get("result"))

    def proc_result(self, meta, ch):
        return _tag("result", ch[0])

    def event(self, meta, ch):
        tags = self._tags(ch)
        return A.Event(span=self._span(meta, ch), name=str(ch[0]), params=tags.get("params", []))

    def handler(self, meta, ch):
        tags = self._tags(ch)
        plain = self._plain(ch)
        when = plain[1] if len(plain) == 3 else None
        return A.Handler(span=self._span(meta, ch), name="on " + str(plain[0]), event=str(plain[0]),
                         params=tags.get("params", []), when=when, body=plain[-1])

    def phase(self, meta, ch):
        title = _str(ch[1]) if len(ch) == 3 else None
        return A.Phase(span=self._span(meta, ch), name=str(ch[0]), title=title, body=ch[-1])

    def stage(self, meta, ch):
        rest = ch[1:]
        title = None
        if rest and isinstance(rest[0], Token):
            title = _str(rest[0])
            rest = rest[1:]
        return A.Stage(span=self._span(meta, ch), name=str(ch[0]), title=title, members=list(rest))

    def setup(self, meta, ch):
        return A.Setup(span=self._span(meta, ch), name="@setup", body=ch[0])

    def start_at(self, meta, ch):
        return A.StartAt(span=self._span(meta, ch), name="@start", phase=str(ch[0]))

    def points(self, meta, ch):
        return A.Points(span=self._span(meta, ch), name="@points", var=str(ch[0]))

    def require(self, meta, ch):
        return A.Require(span=self._span(meta, ch), name="", cond=ch[0], message=_str(ch[1]))

    def returns(self, meta, ch):
        seat = A.TypeRef(span=self.tok_span(ch[0]), name="seat")
        return A.Returns(span=self._span(meta, ch), name="@returns",
                         param=A.Param(span=self.tok_span(ch[0]), name=str(ch[0]), type=seat),
                         value=ch[1], lo=ch[2], hi=ch[3], total=ch[4] if len(ch) > 4 else None)

    def limits(self, meta, ch):
        return A.Limit(span=self._span(meta, ch), name="limit " + str(ch[0]), value=ch[1])

    def measure(self, meta, ch):
        label = next((_str(c) for c in ch[2:] if c.type == "STRING"), None)
        return A.Measure(span=self._span(meta, ch), name="measure " + str(ch[0]), type=str(ch[1]),
                         first_mover=any(c.type == "FIRST_MOVER" for c in ch[2:]), label=label)

    # -------------------------------------------------------------- statements
    def block(self, meta, ch):
        return A.Block(span=self._span(meta, ch), body=list(ch))

    def let(self, meta, ch):
        return A.Let(span=self._span(meta, ch), name=str(ch[0]), value=ch[1])

    def assign(self, meta, ch):
        return A.Assign(span=self._span(meta, ch), target=ch[0], op=str(ch[1]), value=ch[2])

    def call_stmt(self, meta, ch):
        return A.CallStmt(span=self._span(meta, ch), call=ch[0])

    def elif_(self, meta, ch):
        return A.IfBranch(span=self._span(meta, ch), test=ch[0], body=ch[1])

    def else_(self, meta, ch):
        return _tag("else", ch[0])

    def if_(self, meta, ch):
        tags = self._tags(ch)
        plain = self._plain(ch)
        first = A.IfBranch(span=self._span(meta, ch), test=plain[0], body=plain[1])
        return A.If(span=self._span(meta, ch), branches=[first] + plain[2:], orelse=tags.get("else"))

    def for_(self, meta, ch):
        return A.For(span=self._span(meta, ch), var=str(ch[0]), source=ch[1], body=ch[2])

    def repeat(self, meta, ch):
        return A.Repeat(span=self._span(meta, ch), count=ch[0], body=ch[1])

    def loop(self, meta, ch):
        return A.Loop(span=self._span(meta, ch), max=ch[0], body=ch[1])

    def while_(self, meta, ch):
        return A.While(span=self._span(meta, ch), test=ch[0], max=ch[1], body=ch[2])

    def brk(self, meta, ch):
        return A.Break(span=self._span(meta, ch))

    def cont(self, meta, ch):
        return A.Continue(span=self._span(meta, ch))

    def where(self, meta, ch):
        return _tag("where", ch[0])

    def prompt(self, meta, ch):
        return _tag("prompt", _str(ch[0]))

    def choose(self, meta, ch):
        tags = self._tags(ch)
        plain = self._plain(ch)
        optional = any(isinstance(c, Token) and c.type == "OPTIONAL" for c in plain)
        by_team = any(isinstance(c, Token) and c.type == "BY_TEAM" for c in plain)
        exprs = [c for c in plain if not isinstance(c, Token) or c.type == "NAME"]
        return A.Choose(span=self._span(meta, ch), var=str(exprs[0]), source=exprs[1], where=tags.get("where"),
                        by=exprs[2], by_team=by_team, optional=optional, prompt=tags.get("prompt"), orelse=tags.get("else"))

    def move(self, meta, ch):
        pos = str(ch[2]) if len(ch) > 2 else "top"
        return A.Move(span=self._span(meta, ch), what=ch[0], dest=ch[1], position=pos)

    def shuffle(self, meta, ch):
        return A.Shuffle(span=self._span(meta, ch), zone=ch[0])

    def kwarg(self, meta, ch):
        return A.Kwarg(span=self._span(meta, ch), name=str(ch[0]), value=ch[1])

    def kwargs(self, meta, ch):
        return _tag("kwargs", list(ch))

    def times(self, meta, ch):
        return _tag("times", ch[0])

    def create(self, meta, ch):
        tags = self._tags(ch)
        plain = self._plain(ch)
        return A.Create(span=self._span(meta, ch), kind=str(plain[0]), fields=tags.get("kwargs", []),
                        times=tags.get("times"), dest=plain[1])

    def goto(self, meta, ch):
        return A.Goto(span=self._span(meta, ch), phase=str(ch[0]), label=self._tags(ch).get("prompt"))

    def end_winner(self, meta, ch):
        return A.EndWinner(span=self._span(meta, ch), winner=ch[0])

    def end_team(self, meta, ch):
        return A.EndWinner(span=self._span(meta, ch), winner=ch[0], team=True)

    def end_draw(self, meta, ch):
        return A.EndDraw(span=self._span(meta, ch))

    def emit(self, meta, ch):
        args = ch[1][1] if len(ch) > 1 else []
        return A.Emit(span=self._span(meta, ch), event=str(ch[0]), args=args)

    def say(self, meta, ch):
        tok = ch[0]
        return A.Say(span=self._span(meta, ch), text=_str(tok), parts=self._holes(tok))

    def ret(self, meta, ch):
        return A.Return(span=self._span(meta, ch), value=ch[0] if ch else None)

    def reveal(self, meta, ch):
        return A.Reveal(span=self._span(meta, ch), what=ch[0])

    def measure_set(self, meta, ch):
        """`measure NAME op EXPR`: an assignment to the measure's var (see ast.Measure)."""
        target = A.Name(span=self.tok_span(ch[0]), id="measure " + str(ch[0]))
        return A.Assign(span=self._span(meta, ch), target=target, op=str(ch[1]), value=ch[2])

    def _holes(self, tok: Token) -> list:
        """Split "text {expr} text" into pieces; each hole is parsed as an expression in place."""
        text = _str(tok)
        parts: list = []
        pos = 0
        for m in re.finditer(r"\{([^{}]*)\}", text):
            if m.start() > pos:
                parts.append(text[pos:m.start()])
            col = tok.column + 1 + m.start(1)  # +1 for the opening quote
            parts.append(self.parse_expr(m.group(1), tok.line, col, tok))
            pos = m.end()
        if pos < len(text):
            parts.append(text[pos:])
        return parts

    # -------------------------------------------------------------- expressions
    def cond(self, meta, ch):
        return A.Cond(span=self._span(meta, ch), test=ch[0], then=ch[1], orelse=ch[2])

    def _bin(self, op, meta, ch):
        return A.Binary(span=self._span(meta, ch), op=op, left=ch[0], right=ch[-1])

    def or_op(self, meta, ch):
        return self._bin("or", meta, ch)

    def and_op(self, meta, ch):
        return self._bin("and", meta, ch)

    def not_op(self, meta, ch):
        return A.Unary(span=self._span(meta, ch), op="not", operand=ch[0])

    def compare(self, meta, ch):
        return self._bin(str(ch[1]), meta, ch)

    def in_op(self, meta, ch):
        return self._bin("in", meta, ch)

    def not_in_op(self, meta, ch):
        return self._bin("not in", meta, ch)

    def range_op(self, meta, ch):
        return A.RangeExpr(span=self._span(meta, ch), lo=ch[0], hi=ch[1])

    def arith(self, meta, ch):
        return self._bin(str(ch[1]), meta, ch)

    def neg(self, meta, ch):
        return A.Unary(span=self._span(meta, ch), op="-", operand=ch[0])

    def attr(self, meta, ch):
        return A.Attr(span=self._span(meta, ch), obj=ch[0], name=str(ch[1]))

    def index(self, meta, ch):
        return A.Index(span=self._span(meta, ch), obj=ch[0], index=ch[1])

    def call(self, meta, ch):
        args = ch[1][1] if len(ch) > 1 else []
        return A.Call(span=self._span(meta, ch), func=str(ch[0]), args=args)

    def args(self, meta, ch):
        return _tag("args", list(ch))

    def int_lit(self, meta, ch):
        return A.IntLit(span=self._span(meta, ch), value=self._int(ch[0]))

    def neg_int_lit(self, meta, ch):
        return A.IntLit(span=self._span(meta, ch), value=-self._int(ch[0]))

    def true_lit(self, meta, ch):
        return A.BoolLit(span=self._span(meta, ch), value=True)

    def false_lit(self, meta, ch):
        return A.BoolLit(span=self._span(meta, ch), value=False)

    def none_lit(self, meta, ch):
        return A.NoneLit(span=self._span(meta, ch))

    def str_lit(self, meta, ch):
        return A.StrLit(span=self._span(meta, ch), value=_str(ch[0]))

    def name(self, meta, ch):
        return A.Name(span=self._span(meta, ch), id=str(ch[0]))

    def list_lit(self, meta, ch):
        items = ch[0][1] if ch else []
        return A.ListLit(span=self._span(meta, ch), items=items)

    def comprehension(self, meta, ch):
        filt = ch[4] if len(ch) > 4 else None
        return A.Comprehension(span=self._span(meta, ch), agg=str(ch[0]), body=ch[1], var=str(ch[2]),
                               source=ch[3], filter=filt)

    def roll(self, meta, ch):
        return A.Roll(span=self._span(meta, ch), die=str(ch[0]))

    def pick(self, meta, ch):
        return A.Pick(span=self._span(meta, ch), source=ch[0])

    # -------------------------------------------------------------- scenarios
    def test_file(self, meta, ch):
        return A.TestFile(span=self._span(meta, ch), rules=_str(ch[0]), scenarios=list(ch[1:]))

    def scenario(self, meta, ch):
        return A.Scenario(span=self._span(meta, ch), title=_str(ch[0]), steps=list(ch[1:]))

    def _step(self, kind, meta, ch, **kw):
        return A.ScenarioStep(span=self._span(meta, ch), kind=kind, **kw)

    def sc_option(self, meta, ch):
        return self._step("option", meta, ch, name=str(ch[0]), exprs=[ch[1]])

    def sc_seed(self, meta, ch):
        return self._step("seed", meta, ch, value=self._int(ch[0]))

    def sc_given(self, meta, ch):
        return self._step("given", meta, ch, block=ch[0])

    def sc_start(self, meta, ch):
        return self._step("start", meta, ch, name=str(ch[0]))

    def sc_force(self, meta, ch):
        return self._step("force", meta, ch, name=str(ch[0]), exprs=list(ch[1:]))

    def sc_force_pick(self, meta, ch):
        return self._step("force", meta, ch, name="pick", exprs=list(ch))

    def sc_choose(self, meta, ch):
        return self._step("choose", meta, ch, exprs=[ch[0]])

    def sc_expect(self, meta, ch):
        return self._step("expect", meta, ch, exprs=[ch[0]])

    def sc_expect_legal(self, meta, ch):
        return self._step("legal", meta, ch, exprs=[ch[0]])

    def sc_expect_illegal(self, meta, ch):
        return self._step("illegal", meta, ch, exprs=[ch[0]])

    def sc_expect_phase(self, meta, ch):
        return self._step("phase", meta, ch, name=str(ch[0]))

    def sc_expect_winner(self, meta, ch):
        return self._step("winner", meta, ch, exprs=[ch[0]])

    def sc_expect_draw(self, meta, ch):
        return self._step("draw", meta, ch)


def _str(tok) -> str:
    return str(tok)[1:-1]


# rule name -> the plain function under Lark's `v_args(meta=True)` wrapper (see `_transform_tree`);
# a method Lark does not wrap so, or a Lark without `base_func`, goes through Lark's own call
_RULES = {name: value.base_func for name, value in vars(ToAst).items()
          if getattr(value, "visit_wrapper", None) is not None and callable(getattr(value, "base_func", None))
          and getattr(value.visit_wrapper, "__name__", "") == "_vargs_meta"}
