"""The compiled program lowered once more, into plain Python functions: the fast form that runs.

The expression and statement compilers turn a checked rule file into closures. Calling a tree of
small closures costs a Python call per node, and that dispatch, not the work, was most of the
interpreter's time (docs/performance.md). So each closure that has a direct Python equivalent
also records a *template*: how to build that equivalent as Python `ast` nodes. After compiling, the
VM's straight-line ops, its branch tests, pure procedures and functions are rebuilt from their
templates as one Python function each, with the sub-expressions inlined (`V[3] + 1` instead of
three calls). A closure without a template is still called, from inside the generated function,
so every construct works whether or not it has a fast form, with the same results and the same
located errors.

Safety: the generated code is built from `ast` nodes by this module, never from text. Every name
in it is one this module made up (`st`, `L`, `V`, `C12`, `_t3`, ...); every value that comes
from a rule file enters as a constant (an int, a string, a bool, None) or as a reference to an
object the compiler made, so nothing a rule file says can become Python code. The functions run
with no builtins. `tests/test_lowering.py` walks every generated module to hold this, and checks
that the lowered program plays exactly the games the closures play.
"""
from __future__ import annotations

import ast
from typing import Callable

# Names the generated functions bind from the state on entry, when their body uses them.
_STATE_FIELDS = {"V": "vals", "E": "ent", "KD": "kind", "Z": "zones", "W": "where"}
BREAK, CONTINUE = 1, 2  # the signals pure blocks return (structured.py)


class Lowering:
    """Collects templates while the compilers run, then builds the Python functions."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.namespace: dict = {"__builtins__": {}}
        self._names: dict[int, str] = {}
        self._exprs: dict[int, tuple] = {}  # id(closure) -> (closure, build(self) -> ast.expr)
        self._stmts: dict[int, tuple] = {}  # id(action) -> (action, build(self, in_loop) -> [ast.stmt])
        self._storing: dict[int, tuple] = {}
        self._tmp = 0
        self._spans: list = []  # the spans of the function being built
        self._defs: list[ast.FunctionDef] = []
        self._jobs: list[tuple] = []  # functions referenced before they are built
        self._functions: dict[tuple, str] = {}
        self.functions = 0

    # ------------------------------------------------------------------ registering templates
    def expr_template(self, fn, build: Callable) -> Callable:
        if self.enabled:
            self._exprs[id(fn)] = (fn, build)
        return fn

    def stmt_template(self, fn, build: Callable) -> Callable:
        if self.enabled:
            self._stmts[id(fn)] = (fn, build)
        return fn

    def store_template(self, store, array: str, index: int) -> None:
        """`store(st, L, v)` is `array[index] = v`, array being "L" (locals) or "V" (vars)."""
        if self.enabled:
            self._storing[id(store)] = (store, array, index)

    def store_target(self, store):
        entry = self._storing.get(id(store))
        return entry[1:] if entry is not None else None

    def has_template(self, fn) -> bool:
        return id(fn) in self._exprs

    # ------------------------------------------------------------------ building blocks
    def ref(self, obj) -> ast.expr:
        """A reference to an object the compiler made (a closure, a table, a helper)."""
        if obj is None or type(obj) in (int, str, bool):
            return ast.Constant(obj)
        name = self._names.get(id(obj))
        if name is None:
            name = self._names[id(obj)] = f"C{len(self._names)}"
            self.namespace[name] = obj
            self.namespace.setdefault("_keep", []).append(obj)  # keeps the id unique
        return _load(name)

    def value(self, v) -> ast.expr:
        """A value fixed at compile time: literals inline, anything else by reference."""
        return self.ref(v)

    def function_ref(self, kind: str, name: str, closure) -> ast.expr:
        """A call target for a rule file's `fn` (kind "fn", the closure of its body) or pure
        `proc` (kind "proc", the closure of its block): the lowered function, built later by
        `drain`; or the closure itself when it has no template."""
        if kind == "fn" and id(closure) not in self._exprs or kind == "proc" and id(closure) not in self._stmts:
            return self.ref(closure)
        key = (kind, name)
        if key not in self._functions:
            self._functions[key] = f"{'F' if kind == 'fn' else 'P'}{len(self._functions)}"
            self._jobs.append((kind, self._functions[key], closure))
        return _load(self._functions[key])

    def lowered(self, kind: str, name: str):
        """The built function for a fn or pure proc, if it was lowered."""
        fname = self._functions.get((kind, name))
        return self.namespace.get(fname) if fname else None

    def drain(self) -> None:
        """Build every function that `function_ref` promised."""
        while self._jobs:
            kind, fname, closure = self._jobs.pop()
            if kind == "fn":
                self.function(fname, ("st", "L"), [ast.Return(self.expr(closure))], locate=False)
            else:
                self.function(fname, ("st", "L"), self._stmts[id(closure)][1](self, False))

    def tmp(self) -> str:
        self._tmp += 1
        return f"_t{self._tmp}"

    def expr(self, fn) -> ast.expr:
        entry = self._exprs.get(id(fn))
        if entry is not None:
            return entry[1](self)
        return _call(self.ref(fn), _load("st"), _load("L"))

    def mark(self, span) -> ast.stmt:
        """`_k = i`: from here on, a failure is located at `span`."""
        return ast.Assign([_store("_k")], ast.Constant(self._span_index(span)))

    def stmts(self, fn, span, in_loop: bool) -> list[ast.stmt]:
        """One statement: a marker saying where a failure is, then its code."""
        mark = self.mark(span)
        entry = self._stmts.get(id(fn))
        if entry is not None:
            return [mark] + entry[1](self, in_loop)
        call = _call(self.ref(fn), _load("st"), _load("L"))
        if not in_loop:
            return [mark, ast.Expr(call)]
        # an opaque pure statement may signal break or continue to the loop around it
        sig = self.tmp()
        return [mark, ast.Assign([_store(sig)], call),
                ast.If(_load(sig), [ast.If(ast.Compare(_load(sig), [ast.Eq()], [ast.Constant(BREAK)]),
                                           [ast.Break()], [ast.Continue()])], [])]

    def block(self, parts, in_loop: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for fn, span in parts:
            out += self.stmts(fn, span, in_loop)
        return out or [ast.Pass()]

    def _span_index(self, span) -> int:
        self._spans.append(span)
        return len(self._spans) - 1

    # ------------------------------------------------------------------ functions
    def function(self, name: str, params: tuple[str, ...], body: list[ast.stmt], tail: list[ast.stmt] = (),
                 locate: bool = True) -> str:
        """Queue `def name(params): <bind state fields>; try: body except: locate; raise; tail`.
        Returns the name; `build()` makes them all at once."""
        spans = tuple(self._spans)
        self._spans = []
        if locate and spans:
            handler = ast.ExceptHandler(self.ref(Exception), None, [
                ast.If(ast.Compare(ast.Attribute(_load("st"), "fault_span", ast.Load()), [ast.Is()], [ast.Constant(None)]),
                       [ast.Assign([ast.Attribute(_load("st"), "fault_span", ast.Store())],
                                   ast.Subscript(self.ref(spans), _load("_k"), ast.Load()))], []),
                ast.Raise()])
            body = [ast.Assign([_store("_k")], ast.Constant(0)), ast.Try(body, [handler], [], [])]
        body = body + list(tail)
        used = {n.id for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
        prologue = [ast.Assign([_store(k)], ast.Attribute(_load("st"), attr, ast.Load()))
                    for k, attr in _STATE_FIELDS.items() if k in used]
        if "L" in used and "fr" in params and "L" not in params:
            prologue.append(ast.Assign([_store("L")], ast.Attribute(_load("fr"), "L", ast.Load())))
        args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[],
                             kw_defaults=[], kwarg=None, defaults=[])
        self._defs.append(ast.FunctionDef(name, args, prologue + body, [], None))
        return name

    def build(self, filename: str) -> dict:
        """Compile every queued function in one module; returns the namespace holding them."""
        if not self._defs:
            return self.namespace
        module = ast.fix_missing_locations(ast.Module(self._defs, []))
        self.last_module = module
        exec(compile(module, filename, "exec"), self.namespace)  # our own ast, never rule text
        self.functions += len(self._defs)
        self._defs = []
        return self.namespace


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _store(name: str) -> ast.Name:
    return ast.Name(name, ast.Store())


def _call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func, list(args), [])


def load(name: str) -> ast.Name:
    return _load(name)


def store(name: str) -> ast.Name:
    return _store(name)


def call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return _call(func, *args)


def subscript(obj: ast.expr, index: ast.expr) -> ast.Subscript:
    return ast.Subscript(obj, index, ast.Load())


def set_item(obj: ast.expr, index: ast.expr, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Subscript(obj, index, ast.Store())], value)


def local(slot: int) -> ast.Subscript:
    return subscript(_load("L"), ast.Constant(slot))


def state_attr(name: str) -> ast.Attribute:
    return ast.Attribute(_load("st"), name, ast.Load())


_CMP = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE}
_ARITH = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult}


def binary(op: str, a: ast.expr, b: ast.expr) -> ast.expr:
    if op in _CMP:
        return ast.Compare(a, [_CMP[op]()], [b])
    if op in _ARITH:
        return ast.BinOp(a, _ARITH[op](), b)
    if op == "and":
        return ast.BoolOp(ast.And(), [a, b])
    if op == "or":
        return ast.BoolOp(ast.Or(), [a, b])
    raise ValueError(op)


def lower_ops(low: Lowering, codes: list, filename: str) -> None:
    """Rebuild every op that carries a recipe (a fused run of actions, a branch test) as one
    generated function, and put it in the op's place."""
    patches = []
    for code in codes:
        for i, op in enumerate(code.ops):
            recipe = getattr(op, "recipe", None)
            if recipe is None:
                continue
            name = f"{recipe[0]}{len(patches)}"
            if recipe[0] == "fused":
                _, fns, spans, nxt = recipe
                low.function(name, ("st", "fr"), low.block(zip(fns, spans), False), tail=[_set_pc(ast.Constant(nxt))])
            elif recipe[0] == "branch":  # go on when the test holds, else jump past the branch
                _, test, nxt, skip = recipe
                target = ast.IfExp(low.expr(test), ast.Constant(nxt), ast.Constant(skip.pc))
                low.function(name, ("st", "fr"), [_set_pc(target)], locate=False)
            else:  # "choose": the options in one loop, then the choice's shared settling
                low.function(name, ("st", "fr"), _choose_body(low, *recipe[1:]), locate=False)
            patches.append((code, i, name))
    low.drain()
    namespace = low.build(filename)
    for code, i, name in patches:
        code.ops[i] = namespace[name]


def _set_pc(value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Attribute(_load("fr"), "pc", ast.Store())], value)


def _choose_body(low: Lowering, src, src_type: str, where, slot: int, settle) -> list[ast.stmt]:
    """`opts = [x for x in src if where(x)]` as a loop that puts each x in its local slot (the
    `where` reads it there), then `return settle(st, fr, opts)`."""
    x, opts = low.tmp(), low.tmp()
    source = low.expr(src)
    if src_type == "zone":  # a zone's list, read in place: a condition cannot move cards
        items = subscript(_load("Z"), source)
    else:
        from vbr.interpreter.expressions import _iterate
        items = _call(low.ref(_iterate), _load("st"), source)
    take = ast.Expr(_call(ast.Attribute(_load(opts), "append", ast.Load()), _load(x)))
    body = [set_item(_load("L"), ast.Constant(slot), _load(x))]
    body += [ast.If(low.expr(where), [take], [])] if where is not None else [take]
    return [ast.Assign([_store(opts)], ast.List([], ast.Load())),
            ast.For(_store(x), items, body, []),
            ast.Return(_call(low.ref(settle), _load("st"), _load("fr"), _load(opts)))]
