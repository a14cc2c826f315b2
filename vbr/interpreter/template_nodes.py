"""The small Python `ast` builders the compilers' templates are written with (lowering.py turns
the templates into generated functions).

`load` also records the name it reads, so that the lowering binds on entry to a generated
function only the state's arrays its body reads (`seen_names`). `arith` and `spend_inline` take
the `Lowering` building the function (`low`), for a temp name (`low.tmp()`) and a reference to
an object the compiler made (`low.ref(obj)`).
"""
from __future__ import annotations

from vbr.interpreter import pyast as ast
from vbr.interpreter.scope import INT_MAX, OverBudget, int_overflow

_SEEN: set[str] = set()  # the names generated code has read since the last function was queued


def seen_names() -> set[str]:
    """The names read since the last call (the function being queued, whose body was built
    just before), and forget them."""
    seen = set(_SEEN)
    _SEEN.clear()
    return seen


def note_read(name: str) -> None:
    """Record that generated code reads `name`, as `load` does, where the node is made elsewhere."""
    _SEEN.add(name)


def load(name: str) -> ast.Name:
    _SEEN.add(name)
    return ast.Name(name, ast.Load())


def store(name: str) -> ast.Name:
    return ast.Name(name, ast.Store())


def call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func, list(args), [])


def subscript(obj: ast.expr, index: ast.expr) -> ast.Subscript:
    return ast.Subscript(obj, index, ast.Load())


def set_item(obj: ast.expr, index: ast.expr, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Subscript(obj, index, ast.Store())], value)


def local(slot: int) -> ast.Subscript:
    return subscript(load("L"), ast.Constant(slot))


def state_attr(name: str) -> ast.Attribute:
    return ast.Attribute(load("st"), name, ast.Load())


CMP = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE}
ARITH = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult}


def binary(op: str, a: ast.expr, b: ast.expr) -> ast.expr:
    if op in CMP:
        return ast.Compare(a, [CMP[op]()], [b])
    if op in ARITH:
        return ast.BinOp(a, ARITH[op](), b)
    if op == "and":
        return ast.BoolOp(ast.And(), [a, b])
    if op == "or":
        return ast.BoolOp(ast.Or(), [a, b])
    raise ValueError(op)


def arith(low, op: str, a: ast.expr, b: ast.expr) -> ast.expr:
    """`a op b`; for `+`, `-` and `*`, checked to be an integer of the language:
    `_t if -MAX <= (_t := a + b) <= MAX else int_overflow(_t)`."""
    if op not in ARITH:
        return binary(op, a, b)
    t = low.tmp()
    ok = ast.Compare(ast.Constant(-INT_MAX), [ast.LtE(), ast.LtE()],
                     [ast.NamedExpr(store(t), ast.BinOp(a, ARITH[op](), b)), ast.Constant(INT_MAX)])
    return ast.IfExp(ok, load(t), call(low.ref(int_overflow), load(t)))


def spend_inline(low, n: int = 1) -> list[ast.stmt]:
    """`st.steps += n`, and past the step limit the error (`scope.spend`, written out)."""
    steps = ast.Attribute(load("st"), "steps", ast.Load())
    return [ast.AugAssign(ast.Attribute(load("st"), "steps", ast.Store()), ast.Add(), ast.Constant(n)),
            ast.If(ast.Compare(steps, [ast.Gt()], [ast.Attribute(ast.Attribute(load("st"), "prog", ast.Load()),
                                                                 "step_limit", ast.Load())]),
                   [ast.Raise(call(low.ref(OverBudget), ast.Constant("step limit")), None)], [])]
