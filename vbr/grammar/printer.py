"""AST → canonical .vbr text (`vbr fmt`). Printing then parsing gives the same AST, spans aside."""
from __future__ import annotations

from vbr.grammar import ast as A

_LEVEL = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "not in": 4,
          "+": 6, "-": 6, "*": 7, "/": 7, "%": 7}
IND = "  "


class _Comments:
    """Puts a file's comments back: each before the first node that follows it, at that node's
    indentation; one that trailed a one-line statement trails it again. One blank line in the
    source between statements is kept."""

    def __init__(self, comments):
        self.items = sorted(comments, key=lambda c: (c.span.line, c.span.col))
        self.i = 0
        self.last = 0  # last source line already printed

    def lead(self, line: int, depth: int) -> str:
        out = []
        while self.i < len(self.items) and self.items[self.i].span.line < line:
            c = self.items[self.i]
            if self.last and c.span.line > self.last + 1:
                out.append("")
            out.append(IND * depth + "#" + c.text)
            self.last = c.span.line
            self.i += 1
        if self.last and line > self.last + 1 and line < 10**9:
            out.append("")
        return "".join(x + "\n" for x in out)

    def trail(self, line: int) -> str:
        if self.i < len(self.items) and self.items[self.i].span.line == line and not self.items[self.i].own_line:
            c = self.items[self.i]
            self.i += 1
            return "  #" + c.text
        return ""

    def done(self, line: int) -> None:
        self.last = max(self.last, line)


_CTX: _Comments | None = None


def _lead(node, depth: int) -> str:
    return _CTX.lead(node.span.line, depth) if _CTX else ""


def _trail(node) -> str:
    if not _CTX:
        return ""
    t = _CTX.trail(node.span.end_line) if node.span.line == node.span.end_line else ""
    _CTX.done(node.span.end_line)
    return t


def expr(e: A.Expr, need: int = 0) -> str:
    text, level = _expr(e)
    return f"({text})" if level < need else text


def _expr(e: A.Expr) -> tuple[str, int]:
    match e:
        case A.IntLit(value=v):
            return (str(v), 9) if v >= 0 else (str(v), 8)
        case A.BoolLit(value=v):
            return ("true" if v else "false"), 9
        case A.NoneLit():
            return "none", 9
        case A.StrLit(value=v):
            return f'"{v}"', 9
        case A.Name(id=i):
            return i, 9
        case A.Attr(obj=o, name=n):
            return f"{expr(o, 9)}.{n}", 9
        case A.Index(obj=o, index=i):
            return f"{expr(o, 9)}[{expr(i)}]", 9
        case A.Call(func=f, args=args):
            return f"{f}({', '.join(expr(a) for a in args)})", 9
        case A.ListLit(items=items):
            return f"[{', '.join(expr(a) for a in items)}]", 9
        case A.RangeExpr(lo=lo, hi=hi):
            return f"{expr(lo, 6)}..{expr(hi, 6)}", 5
        case A.Unary(op="not", operand=o):
            return f"not {expr(o, 3)}", 3
        case A.Unary(op="-", operand=o):
            return f"-{expr(o, 8)}", 8
        case A.Binary(op=op, left=l, right=r):
            lv = _LEVEL[op]
            if op == "or":  # `a and b or c` reads better as `(a and b) or c`
                return f"{expr(l, 3 if _is_and(l) else lv)} or {expr(r, 3 if _is_and(r) else lv + 1)}", lv
            if lv == 4:
                return f"{expr(l, 5)} {op} {expr(r, 5)}", 4
            return f"{expr(l, lv)} {op} {expr(r, lv + 1)}", lv
        case A.Cond(test=t, then=a, orelse=b):
            return f"if {expr(t, 1)} then {expr(a, 1)} else {expr(b)}", 0
        case A.Comprehension(agg=g, body=b, var=v, source=s, filter=f):
            tail = f" if {expr(f)}" if f is not None else ""
            return f"{g}({expr(b)} for {v} in {expr(s)}{tail})", 9
        case A.Roll(die=d):
            return f"roll {d}", 9
        case A.Pick(source=s):
            return f"pick {expr(s, 9)}", 9
    raise TypeError(f"cannot print {type(e).__name__}")


def _is_and(e) -> bool:
    return isinstance(e, A.Binary) and e.op == "and"


def _type(t: A.TypeRef) -> str:
    return f"list of {_type(t.item)}" if t.name == "list" else t.name


def _params(ps: list[A.Param]) -> str:
    return ", ".join(p.name + (f": {_type(p.type)}" if p.type else "") for p in ps)


def _q(s: str) -> str:
    return f'"{s}"'


def block(b: A.Block, depth: int) -> str:
    if _CTX:
        _CTX.done(b.span.line)
    tail = _CTX.lead(b.span.end_line, depth + 1) if _CTX and not b.body else ""
    if not b.body and not tail.strip():
        return "{ }"
    inner = "\n".join(stmt(s, depth + 1) for s in b.body)
    if _CTX and b.body:
        tail = _CTX.lead(b.span.end_line, depth + 1)
    return "{\n" + _lines(inner, tail) + "\n" + IND * depth + "}"


def _lines(inner: str, tail: str) -> str:
    """A body's lines (`inner`), then the comments after its last line (`tail`), with no blank
    line between them the source did not have (an empty body's comments come right after `{`)."""
    tail = tail.rstrip("\n") if tail.strip() else ""
    return inner + "\n" + tail if inner and tail else inner or tail


def stmt(s: A.Stmt, depth: int) -> str:
    lead = _lead(s, depth)
    return lead + IND * depth + _stmt(s, depth) + _trail(s)


def _stmt(s: A.Stmt, d: int) -> str:
    match s:
        case A.Let(name=n, value=v):
            return f"let {n} = {expr(v)}"
        case A.Assign(target=t, op=op, value=v):
            return f"{expr(t, 9)} {op} {expr(v)}"
        case A.CallStmt(call=c):
            return expr(c, 9)
        case A.If(branches=bs, orelse=o):
            out = f"if {expr(bs[0].test)} {block(bs[0].body, d)}"
            for b in bs[1:]:
                out += f" elif {expr(b.test)} {block(b.body, d)}"
            if o is not None:
                out += f" else {block(o, d)}"
            return out
        case A.For(var=v, source=src, body=b):
            return f"for {v} in {expr(src)} {block(b, d)}"
        case A.Repeat(count=c, body=b):
            return f"repeat {expr(c)} {block(b, d)}"
        case A.Loop(max=m, body=b):
            return f"loop max {expr(m)} {block(b, d)}"
        case A.While(test=t, max=m, body=b):
            return f"while {expr(t)} max {expr(m)} {block(b, d)}"
        case A.Break():
            return "break"
        case A.Continue():
            return "continue"
        case A.Choose():
            out = f"choose {s.var} from {expr(s.source)}"
            if s.where is not None:
                out += f" where {expr(s.where)}"
            out += f" by {'team ' if s.by_team else ''}{expr(s.by)}"
            if s.optional:
                out += " optional"
            if s.prompt is not None:
                out += f" as {_q(s.prompt)}"
            if s.orelse is not None:
                out += f" else {block(s.orelse, d)}"
            return out
        case A.Move(what=w, dest=t, position=p):
            return f"move {expr(w)} to {expr(t)}" + (" bottom" if p == "bottom" else "")
        case A.Shuffle(zone=z):
            return f"shuffle {expr(z)}"
        case A.Create(kind=k, fields=fs, times=n, dest=t):
            kw = ", ".join(f"{f.name}: {expr(f.value)}" for f in fs)
            return f"create {k}({kw}) in {expr(t)}" + (f" times {expr(n)}" if n is not None else "")
        case A.Goto(phase=p, label=label):
            return f"goto {p}" + (f" as {_q(label)}" if label is not None else "")
        case A.EndWinner(winner=w, team=t):
            return f"end winner {'team ' if t else ''}{expr(w)}"
        case A.EndDraw():
            return "end draw"
        case A.Emit(event=e, args=args):
            return f"emit {e}({', '.join(expr(a) for a in args)})"
        case A.Say(text=t):
            return f"say {_q(t)}"
        case A.Return(value=v):
            return "return" if v is None else f"return {expr(v)}"
        case A.Reveal(what=w):
            return f"reveal {expr(w)}"
    raise TypeError(f"cannot print {type(s).__name__}")


def decl(x: A.Decl, depth: int = 0) -> str:
    lead = _lead(x, depth) if _CTX else ""
    pre = IND * depth + ("override " if x.override else "")
    return lead + pre + _decl(x, depth) + _trail(x)


def _decl(x: A.Decl, d: int) -> str:
    match x:
        case A.Extends(path=p):
            return f"extends {_q(p)}"
        case A.Seats(count=c, teams=ts, when=w):
            out = f"seats {c}"
            if ts:
                inner = " ".join(f"{t.name}:" + "".join(f" {s}" for s in t.seats) for t in ts)
                out += f" teams {{ {inner} }}"
            return out + (f" when {expr(w)}" if w is not None else "")
        case A.Option(name=n, default=v, choices=cs):
            tail = f" in {{ {', '.join(expr(c) for c in cs)} }}" if cs else ""
            return f"option {n} = {expr(v)}{tail}"
        case A.Enum(name=n, members=ms):
            return f"enum {n} {{ {', '.join(ms)} }}"
        case A.Kind(name=n, fields=fs):
            return f"kind {n} {{ {', '.join(f'{f.name}: {_type(f.type)}' for f in fs)} }}"
        case A.Zone(name=n, per=p, visibility=v, ordered=o):
            return f"zone {n}" + (f" per {p}" if p else "") + f" {v}" + (" ordered" if o else "")
        case A.Court(items=items):
            if _CTX:
                _CTX.done(x.span.line)
            lines = [_lead(i, d + 1) + IND * (d + 1) + _court_item(i) + _trail(i) for i in items]
            return "court {\n" + "\n".join(lines) + "\n" + IND * d + "}"
        case A.Direction(name=n, right=r, forward=f):
            return f"direction {n} = ({r}, {f})"
        case A.Die(name=n, faces=f):
            return f"die {n} = {expr(f)}"
        case A.Var(name=n, type=t, per=p, init=i, range=r):
            out = f"var {n}: {_type(t)}" + (f" per {p}" if p else "") + f" = {expr(i)}"
            if r is not None:
                out += f" range {r.lo}..{r.hi}"
                if r.overflow == "wrap":
                    out += f" wrap {r.wrap_to}"
                elif r.overflow == "clamp":
                    out += " clamp"
            return out
        case A.Const(name=n, value=v):
            return f"const {n} = {expr(v)}"
        case A.Fn(name=n, params=ps, body=b):
            return f"fn {n}({_params(ps)}) = {expr(b)}"
        case A.Proc(name=n, params=ps, body=b, result=r):
            return f"proc {n}({_params(ps)}){f': {_type(r)}' if r else ''} {block(b, d)}"
        case A.Event(name=n, params=ps):
            return f"event {n}({_params(ps)})"
        case A.Handler(event=e, params=ps, when=w, body=b):
            guard = f" when {expr(w)}" if w is not None else ""
            return f"on {e}({_params(ps)}){guard} {block(b, d)}"
        case A.Phase(name=n, title=t, body=b):
            return f"phase {n}" + (f" {_q(t)}" if t is not None else "") + f" {block(b, d)}"
        case A.Stage(name=n, title=t, members=ms):
            head = f"stage {n}" + (f" {_q(t)}" if t is not None else "")
            if _CTX:
                _CTX.done(x.span.line)
            inner = ("\n" if _CTX else "\n\n").join(decl(m, d + 1) for m in ms)
            return head + " {\n" + inner + "\n" + IND * d + "}"
        case A.Setup(body=b):
            return f"setup {block(b, d)}"
        case A.StartAt(phase=p):
            return f"start {p}"
        case A.Points(var=v):
            return f"points {v}"
        case A.Returns(param=p, value=v, lo=lo, hi=hi, total=t):
            return f"returns({p.name}) = {expr(v)} range {lo}..{hi}" + (f" total {t}" if t is not None else "")
        case A.Require(cond=c, message=m):
            return f"require {expr(c)} as {_q(m)}"
        case A.Limit(name=n, value=v):
            return f"limit {n.split(' ', 1)[1]} {expr(v)}"
        case A.Measure(type=ty, first_mover=first, label=label):
            return (f"measure {x.short}: {ty}" + (" first mover" if first else "")
                    + (f" as {_q(label)}" if label is not None else ""))
    raise TypeError(f"cannot print {type(x).__name__}")


def _court_item(i: A.CourtItem) -> str:
    v = i.values
    if i.what in ("rows", "cols", "net"):
        return f"{i.what} {v[0]}"
    if i.what == "field":
        return f"field {v[0]} at row {v[1]} col {v[2]}"
    return f"space {v[0]} at row {v[1]} col {v[2]}"


def step_line(step: A.ScenarioStep) -> str:
    """A scenario step's first line as written, or its kind when it cannot be shown."""
    try:
        return _step(step).split("\n")[0]
    except Exception:  # a step the printer cannot show is still named, by its kind
        return step.kind


def _step(s: A.ScenarioStep) -> str:
    e = [expr(x) for x in s.exprs]
    match s.kind:
        case "option":
            return f"option {s.name} = {e[0]}"
        case "seed":
            return f"seed {s.value}"
        case "given":
            return f"given {block(s.block, 1)}"
        case "start":
            return f"start {s.name}"
        case "force":
            return f"force {s.name} = {', '.join(e)}"
        case "choose":
            return f"choose {e[0]}"
        case "expect":
            return f"expect {e[0]}"
        case "legal" | "illegal" | "winner":
            return f"expect {s.kind} {e[0]}"
        case "phase":
            return f"expect phase {s.name}"
        case "draw":
            return "expect draw"
    raise TypeError(s.kind)


def program(f: A.GameFile | A.TestFile) -> str:
    global _CTX
    _CTX = _Comments(f.comments)
    try:
        if isinstance(f, A.TestFile):
            _CTX.done(f.span.line)
            parts = [f"tests for {_q(f.rules)}" + _CTX.trail(f.span.line)]
            for sc in f.scenarios:
                lead = _lead(sc, 0)
                _CTX.done(sc.span.line)
                body = "\n".join(_lead(s, 1) + IND + _step(s) + _trail(s) for s in sc.steps)
                body = _lines(body, _CTX.lead(sc.span.end_line, 1))
                parts.append(f"{lead}scenario {_q(sc.title)} {{\n{body}\n}}")
                _CTX.done(sc.span.end_line)
            rest = _CTX.lead(10**9, 0).rstrip("\n")
            return "\n".join(parts) + ("\n" + rest if rest else "") + "\n"
        else:
            head = f"game {_q(f.title)}"
            _CTX.done(f.span.line)
            parts = [head + _CTX.trail(f.span.line)] + [decl(x) for x in f.decls]
            rest = _CTX.lead(10**9, 0).rstrip("\n")
            return "\n".join(parts) + ("\n" + rest if rest else "") + "\n"
        rest = _CTX.lead(10**9, 0).strip("\n")
        return "\n\n".join(parts) + ("\n\n" + rest if rest else "") + "\n"
    finally:
        _CTX = None
