"""What the text given to Cython declares about its names' types, where the generated code
already guarantees them.

Why. Compiled untyped, every name is a Python object of any type: `C35.get(k, 0)` on a table
looks the method up and calls it through Python (about 150 instructions), `L[3]` asks whether L
is a list before it indexes, and `_k = 6`, which marks where a failure is, stores an int object.
Told that C35 is a dict, L a list and `_k` a C int, Cython calls PyDict_GetItem, indexes the list
at once and stores a machine int: fewer instructions in code that runs once a call, where the
instruction cache is the bottleneck (docs/performance.md, session 18).

Each declaration states what is already true, and Cython checks it where it cannot see it: a
typed name given a value of another type raises TypeError (never reads it as the wrong type).
- A constant of the program (a `ns[...]` name of `make`) is declared with its own type, read from
  the namespace, when that is exactly dict, tuple or frozenset: the text is written from the
  namespace it is made with, and a program of the same text has the same constants.
- A local bound once, at the top of a function, to a field that always holds a list (LIST_FIELDS:
  the state's tables, a frame's locals) is a list.
- `_k` (lowering.py, `mark`) is only ever given small int constants: a C int.
"""
from __future__ import annotations

import ast as std  # the node classes to test against (generated nodes are pyast's subclasses of them)

from vbr.interpreter import native_slots
from vbr.interpreter import pyast as ast  # the node classes to make (located)
from vbr.interpreter.tree_swaps import TreeSwaps

IMPORT = "import cython"  # for `cython.int`
CONSTANT_TYPES = (dict, tuple, frozenset)  # Cython's own fast paths: PyDict_GetItem, PyTuple_GET_ITEM, PySet_Contains
# State.vals, zones, where, ent, kind, stack and Frame.L: lists from State.new, State.clone and
# Frame on (every assignment of them in vbr assigns a list; tests/test_native.py plays both forms)
LIST_FIELDS = frozenset(native_slots.INDEX[name] for name in ("vals", "zones", "where", "ent", "kind", "stack", "L"))
MARK = "_k"  # lowering.py's marker of where a failure is


def constant_line(name: str, value) -> str:
    """`make`'s line reading constant `name` from its namespace, typed when its type is one of
    CONSTANT_TYPES exactly (a subclass may change what Cython's fast path skips)."""
    kind = type(value)
    if kind in CONSTANT_TYPES:
        return f"{name}: {kind.__name__} = ns[{name!r}]"
    return f"{name} = ns[{name!r}]"


class Declared(TreeSwaps):
    """Turns a generated function's first assignments of list fields and of `_k` into annotated
    assignments, in place for the time of an unparse (after native_slots' rewrite, which made
    the field reads `vbr_get(owner, i)` calls): `undo()` puts them back."""

    def rewrite(self, fn: std.FunctionDef) -> None:
        stores: dict[str, list] = {}
        for node in std.walk(fn):
            if isinstance(node, std.Name) and not isinstance(node.ctx, std.Load):
                stores.setdefault(node.id, []).append(node)
        int_marks = {id(a.targets[0]) for a in std.walk(fn)
                     if isinstance(a, std.Assign) and _names(a) == [MARK] and _int_constant(a.value)}
        marks_are_ints = all(id(m) in int_marks for m in stores.get(MARK, ()))
        body = list(fn.body)
        for i, stmt in enumerate(body):
            name = _names(stmt)[0] if isinstance(stmt, std.Assign) and len(_names(stmt)) == 1 else None
            if name is None:
                continue
            if _list_field(stmt.value) and len(stores.get(name, ())) == 1:
                body[i] = _declared(stmt, ast.Name("list", ast.Load()))
            elif name == MARK and marks_are_ints:
                body[i] = _declared(stmt, ast.Attribute(ast.Name("cython", ast.Load()), "int", ast.Load()))
                marks_are_ints = False  # declared once: the first
        if body != fn.body:
            self._swap(fn, "body", body)


def _names(stmt: std.Assign) -> list:
    return [t.id for t in stmt.targets if isinstance(t, std.Name)] if len(stmt.targets) == 1 else []


def _int_constant(node) -> bool:
    return isinstance(node, std.Constant) and type(node.value) is int


def _list_field(node) -> bool:
    return (isinstance(node, std.Call) and isinstance(node.func, std.Name) and node.func.id == native_slots.GET
            and len(node.args) == 2 and isinstance(node.args[1], std.Constant) and node.args[1].value in LIST_FIELDS)


def _declared(stmt: std.Assign, annotation) -> ast.AnnAssign:
    return ast.AnnAssign(stmt.targets[0], annotation, stmt.value, 1)
