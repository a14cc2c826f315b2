"""AST → canonical .vbr text (`vbr fmt`). Printing then parsing gives the same AST, spans aside."""
from __future__ import annotations

from vbr.grammar import ast as A

_LEVEL = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "not in": 4,
          "+": 6, "-": 6, "*": 7, "/": 7, "%": 7}
IND = "  "


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
            if lv == 4:
                return f"{expr(l, 5)} {op} {expr(r, 5)}", 4
            return f"{expr(l, lv)} {op} {expr(r, lv + 1)}", lv
        case A.Cond(test=t, then=a, orelse=b):
            return f"if {expr(t, 1)} then {expr(a)} else {expr(b)}", 0
        case A.Comprehension(agg=g, body=b, var=v, source=s, filter=f):
            tail = f" if {expr(f)}" if f is not None else ""
            return f"{g}({expr(b)} for {v} in {expr(s)}{tail})", 9
        case A.Roll(die=d):
            return f"roll {d}", 9
        case A.Pick(source=s):
            return f"pick {expr(s, 9)}", 9
    raise TypeError(f"cannot print {type(e).__name__}")


def _type(t: A.TypeRef) -> str:
    return f"list of {_type(t.item)}" if t.name == "list" else t.name


def _params(ps: list[A.Param]) -> str:
    return ", ".join(p.name + (f": {_type(p.type)}" if p.type else "") for p in ps)


def _q(s: str) -> str:
    return f'"{s}"'


def block(b: A.Block, depth: int) -> str:
    if not b.body:
        return "{ }"
    inner = "\n".join(stmt(s, depth + 1) for s in b.body)
    return "{\n" + inner + "\n" + IND * depth + "}"


def stmt(s: A.Stmt, depth: int) -> str:
    return IND * depth + _stmt(s, depth)


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
            return f"loop max {m} {block(b, d)}"
        case A.While(test=t, max=m, body=b):
            return f"while {expr(t)} max {m} {block(b, d)}"
        case A.Break():
            return "break"
        case A.Continue():
            return "continue"
        case A.Choose():
            out = f"choose {s.var} from {expr(s.source)}"
            if s.where is not None:
                out += f" where {expr(s.where)}"
            out += f" by {expr(s.by)}"
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
        case A.Goto(phase=p):
            return f"goto {p}"
        case A.EndWinner(winner=w):
            return f"end winner {expr(w)}"
        case A.EndDraw():
            return "end draw"
        case A.Emit(event=e, args=args):
            return f"emit {e}({', '.join(expr(a) for a in args)})"
        case A.Say(text=t):
            return f"say {_q(t)}"
        case A.Return():
            return "return"
        case A.Reveal(what=w):
            return f"reveal {expr(w)}"
    raise TypeError(f"cannot print {type(s).__name__}")


def decl(x: A.Decl, depth: int = 0) -> str:
    pre = IND * depth + ("override " if x.override else "")
    return pre + _decl(x, depth)


def _decl(x: A.Decl, d: int) -> str:
    match x:
        case A.Extends(path=p):
            return f"extends {_q(p)}"
        case A.Seats(count=c, teams=ts, when=w):
            out = f"seats {c}"
            if ts:
                inner = " ".join(f"{t.name}: {' '.join(map(str, t.seats))}" for t in ts)
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
            lines = [IND * (d + 1) + _court_item(i) for i in items]
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
        case A.Proc(name=n, params=ps, body=b):
            return f"proc {n}({_params(ps)}) {block(b, d)}"
        case A.Event(name=n, params=ps):
            return f"event {n}({_params(ps)})"
        case A.Handler(event=e, params=ps, when=w, body=b):
            guard = f" when {expr(w)}" if w is not None else ""
            return f"on {e}({_params(ps)}){guard} {block(b, d)}"
        case A.Phase(name=n, title=t, body=b):
            return f"phase {n}" + (f" {_q(t)}" if t is not None else "") + f" {block(b, d)}"
        case A.Stage(name=n, title=t, members=ms):
            head = f"stage {n}" + (f" {_q(t)}" if t is not None else "")
            inner = "\n\n".join(decl(m, d + 1) for m in ms)
            return head + " {\n" + inner + "\n" + IND * d + "}"
        case A.Setup(body=b):
            return f"setup {block(b, d)}"
        case A.StartAt(phase=p):
            return f"start {p}"
        case A.Points(var=v):
            return f"points {v}"
        case A.Limit(name=n, value=v):
            return f"limit {n.split(' ', 1)[1]} {v}"
    raise TypeError(f"cannot print {type(x).__name__}")


def _court_item(i: A.CourtItem) -> str:
    v = i.values
    if i.what in ("rows", "cols", "net"):
        return f"{i.what} {v[0]}"
    if i.what == "field":
        return f"field {v[0]} at row {v[1]} col {v[2]}"
    return f"space {v[0]} at row {v[1]} col {v[2]}"


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
    raise TypeError(s.kind)


def program(f: A.GameFile | A.TestFile) -> str:
    if isinstance(f, A.TestFile):
        parts = [f"tests for {_q(f.rules)}"]
        for sc in f.scenarios:
            body = "\n".join(IND + _step(s) for s in sc.steps)
            parts.append(f"scenario {_q(sc.title)} {{\n{body}\n}}")
        return "\n\n".join(parts) + "\n"
    return "\n\n".join([f"game {_q(f.title)}"] + [decl(x) for x in f.decls]) + "\n"
