"""Ordering comparisons in compiled code without Python's rich comparison, when both sides are
small integers.

Why. Generated code orders integers all the time: a seat against the number of seats
(`0 <= _t < 2`), a counter against a limit, and every `+`, `-` and `*` of the language is
checked against the range of its integers (`-MAX <= (_t := a + b) <= MAX`, lowering.arith).
Cython compiles `a < b` on objects as `PyObject_RichCompare`, which dispatches on the type,
hands back a bool object and is then asked for its truth: with the integer's own comparison,
about 5 % of a bundled file's native time (docs/performance.md, session 14). So in the text given to
Cython, `a < b` becomes `vbr_compare(a, b, OP)`, a chain of them (`0 <= i < n`, the middle a name
or a constant) one call per link joined by `and`, and the range check `vbr_fits(x)`. The C
functions compare the machine values when both sides are exactly `int` and small enough to sit
in one machine word of the integer (CPython's "compact" integers); anything else takes Python's
own path (`PyObject_RichCompareBool`), so errors and the order of non-integers are Python's.

The value of a comparison is a bool either way: Python's built-in types answer an ordering
with a bool, and a rule file's values are built-in types. A side that Cython may hold as a C
number (a call of `len`, another comparison, `not`) is left to Cython, which compares C numbers
itself; wrapping it would box it first.
"""
from __future__ import annotations

import ast as std  # the node classes to test against (generated nodes are pyast's subclasses of them)

from vbr.interpreter import pyast as ast  # the node classes to make (located)

from vbr.interpreter.scope import INT_MAX

COMPARE, FITS = "vbr_compare", "vbr_fits"
MODULE = "vbr_compare"  # the .pxd beside each part's source
IMPORT = f"from cython.cimports.{MODULE} import {COMPARE}, {FITS}"

# Python's comparison codes (object.h), which PyObject_RichCompareBool takes as they are
OPS = {std.Lt: 0, std.LtE: 1, std.Gt: 4, std.GtE: 5}
C_NUMBERS = frozenset({"len", COMPARE, FITS})  # calls whose result Cython holds as a C number

PXD = '''\
cdef extern from *:
    """
    #include <limits.h>
    #if PY_VERSION_HEX >= 0x030C0000
    #define VBR_COMPACT(o) PyUnstable_Long_IsCompact((PyLongObject *)(o))
    #define VBR_COMPACT_VALUE(o) ((long long)PyUnstable_Long_CompactValue((PyLongObject *)(o)))
    #else
    #define VBR_COMPACT(o) (Py_SIZE(o) >= -1 && Py_SIZE(o) <= 1)
    #define VBR_COMPACT_VALUE(o) ((long long)Py_SIZE(o) * (long long)((PyLongObject *)(o))->ob_digit[0])
    #endif

    static inline int vbr_compare(PyObject *a, PyObject *b, int op) {
        if (PyLong_CheckExact(a) && PyLong_CheckExact(b) && VBR_COMPACT(a) && VBR_COMPACT(b)) {
            long long x = VBR_COMPACT_VALUE(a), y = VBR_COMPACT_VALUE(b);
            switch (op) {
            case Py_LT: return x < y;
            case Py_LE: return x <= y;
            case Py_GT: return x > y;
            case Py_GE: return x >= y;
            }
        }
        return PyObject_RichCompareBool(a, b, op);
    }

    static int vbr_fits_slow(PyObject *x) {
        PyObject *bound = PyLong_FromLongLong(-LLONG_MAX);
        int r;
        if (bound == NULL)
            return -1;
        r = PyObject_RichCompareBool(bound, x, Py_LE);
        Py_DECREF(bound);
        if (r <= 0)
            return r;
        bound = PyLong_FromLongLong(LLONG_MAX);
        if (bound == NULL)
            return -1;
        r = PyObject_RichCompareBool(x, bound, Py_LE);
        Py_DECREF(bound);
        return r;
    }

    /* -LLONG_MAX <= x <= LLONG_MAX */
    static inline int vbr_fits(PyObject *x) {
        if (PyLong_CheckExact(x) && VBR_COMPACT(x))
            return 1;
        return vbr_fits_slow(x);
    }
    """
    bint vbr_compare(object a, object b, int op) except -1
    bint vbr_fits(object x) except -1
'''


def pxd_text() -> str:
    """The declarations every part cimports; its text is part of the build's key."""
    return PXD


class IntCompares:
    """Rewrites a generated function's ordering comparisons into vbr_compare/vbr_fits calls in
    place, for the time of an unparse: `undo()` puts back every node it replaced."""

    def __init__(self):
        self.swaps: list[tuple[object, str, object]] = []

    def rewrite(self, node: ast.AST) -> None:
        for field, value in std.iter_fields(node):
            if isinstance(value, list):
                new = [self._node(item) for item in value]
                if any(a is not b for a, b in zip(new, value)):
                    self._swap(node, field, new)
            elif isinstance(value, std.AST):
                new = self._node(value)
                if new is not value:
                    self._swap(node, field, new)

    def undo(self) -> None:
        for owner, field, old in reversed(self.swaps):
            setattr(owner, field, old)
        self.swaps.clear()

    def _swap(self, owner, field: str, new) -> None:
        self.swaps.append((owner, field, getattr(owner, field)))
        setattr(owner, field, new)

    def _node(self, node):
        if not isinstance(node, std.AST):
            return node
        self.rewrite(node)  # the sides first: a comparison may hold another
        return compiled(node) if isinstance(node, std.Compare) else node


def compiled(node: std.Compare) -> ast.expr:
    """The calls that compute `node` in C, or `node` itself where Cython is better left to it."""
    if _is_range_check(node):
        return _call(FITS, [node.comparators[0]])
    sides = [node.left, *node.comparators]
    if not all(type(op) in OPS for op in node.ops) or not all(_boxed(s) for s in sides):
        return node
    if any(not isinstance(s, (std.Name, std.Constant)) for s in sides[1:-1]):
        return node  # a middle side is evaluated once: only a name or constant may be read twice
    links = [_call(COMPARE, [a, b, ast.Constant(OPS[type(op)])]) for a, op, b in zip(sides, node.ops, sides[1:])]
    return links[0] if len(links) == 1 else ast.BoolOp(ast.And(), links)


def _is_range_check(node: std.Compare) -> bool:
    """`-MAX <= x <= MAX` (lowering.arith's check), MAX the largest long long."""
    return (len(node.ops) == 2 and all(type(op) is std.LtE for op in node.ops)
            and _constant(node.left, -INT_MAX) and _constant(node.comparators[1], INT_MAX)
            and INT_MAX == 2 ** 63 - 1)


def _constant(node, value: int) -> bool:
    return _integer(node) == value


def _integer(node) -> int | None:
    """The value of an integer constant, `-5` (a negated constant) included."""
    if isinstance(node, std.UnaryOp) and isinstance(node.op, std.USub):
        inner = _integer(node.operand)
        return None if inner is None else -inner
    if isinstance(node, std.Constant) and type(node.value) is int:
        return node.value
    return None


def _boxed(node) -> bool:
    """Whether Cython holds `node`'s value as an object (so that the call boxes nothing)."""
    if isinstance(node, (std.Constant, std.UnaryOp)):
        return _integer(node) is not None
    if isinstance(node, std.Call):
        return not (isinstance(node.func, std.Name) and node.func.id in C_NUMBERS)
    return isinstance(node, (std.Name, std.Subscript, std.Attribute, std.NamedExpr))


def _call(name: str, args: list) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), args, [])
