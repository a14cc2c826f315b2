"""Small integers in compiled code: comparisons, sums, indexing and removals from a list done in
C when the values are small integers, and by Python's own means otherwise.

Why. Generated code orders integers all the time: a seat against the number of seats
(`0 <= _t < 2`), a counter against a limit, and every `+`, `-` and `*` of the language is
checked against the range of its integers (`-MAX <= (_t := a + b) <= MAX`, lowering.arith).
Cython compiles `a < b` on objects as `PyObject_RichCompare`, which dispatches on the type,
hands back a bool object and is then asked for its truth. And it indexes tables by computed
integers (`E[_t]`, a card's fields by its id) through `PyObject_GetItem`, which converts the index
through three more calls. Together about a fifth of a bundled file's instructions
(docs/performance.md, session 14). So in the text given to Cython:

- `a < b` becomes `vbr_compare(a, b, OP)`, a chain of them (`0 <= i < n`, the middle a name or
  a constant) one call per link joined by `and`, and the range check `vbr_fits(x)`; both sides
  exactly `int` and small enough to sit in one machine word of the integer (CPython's
  "compact" integers) are compared as machine numbers;
- `x[i]` (read, `i` neither a constant nor a slice) becomes `vbr_item(x, i)`: `x` exactly a list
  or tuple and `i` a compact `int` (a card's id, `Ent`, is an int subclass: CPython indexes by
  an int subclass's value too) within its length reads the item at once;
- `(x * n) >> 64`, a 64-bit draw scaled to 0..n-1 (rng.below: every die, shuffle and random
  seat's pick), becomes `vbr_scaled(x, n)`: `x` an exact `int` below 2**64 and `n` a compact
  non-negative one are multiplied and shifted in machine words (two 32-bit halves, so no 128-bit
  type is needed), where Python makes a three-digit product and shifts it, two integers more;
- `a + b` and `a - b`, neither side an integer constant (Cython adds a constant in C itself),
  become `vbr_add(a, b)` and `vbr_sub(a, b)`: two compact `int`s are added in machine words
  (no overflow: a compact int is below 2**30 in size), where Python dispatches on the types
  through three calls;
- the statement `o.remove(x)` (a thing taken out of its zone) becomes `vbr_remove(o, x)`:
  list.remove compares every item before `x` by Python's `==`, about 80 instructions for two
  ints, and a deck is long; for an exact list, an item that is `x`, or two compact ints compared
  by int's own comparison (a card's id, `Ent`, included), are compared in C, in list.remove's
  order and with its result;
- `a == b` and `a != b`, neither side a constant, become `vbr_equal(a, b, OP)`: two compact ints
  (by int's own comparison, Ents included) are compared in C, anything else by the operands'
  own comparison, its answer taken for its truth as an `if` takes it. Against a constant, Cython's
  own test (an int's, a string's) is as quick and stays;
- a checked index into a table (a seat's zone, a list variable's item: `T[x] if (x := i) is not
  None and 0 <= x < n else fail('name', x, n)`) becomes `vbr_slot(T, i, off, n, fail, 'name')`:
  one call where Cython wrote out a test for none, two comparisons, an index and a call, which
  spread through the biggest functions (the instruction cache, docs/performance.md);
- a remembered fn's lookup past its first argument (`memo.get(a, NO).get(b, MISS)`, a dict per
  argument) becomes `vbr_get_in(memo.get(a, NO), b, MISS)`: the second lookup a dict's in C,
  where Cython looks up and calls the `get` method of an object it knows nothing of.

The engine's helpers compiled beside the generated code get every one of these too
(`rewrite_helper`).

Anything else takes Python's own path (`PyObject_RichCompareBool`, `PyObject_GetItem`), so
errors, negative indexes and the order of non-integers are Python's. The value of a comparison
is a bool either way: Python's built-in types answer an ordering with a bool, and a rule file's
values are built-in types. A side that Cython may hold as a C number (a call of `len`, another
comparison, `not`) is left to Cython, which compares C numbers itself; wrapping it would box it
first. Constant indexes are left to Cython too, which has its own fast path for them.
"""
from __future__ import annotations

import collections

import ast as std  # the node classes to test against (generated nodes are pyast's subclasses of them)

from vbr.interpreter import native_mt
from vbr.interpreter import pyast as ast  # the node classes to make (located)
from vbr.interpreter.tree_swaps import TreeSwaps

from vbr.interpreter.scope import INT_MAX

assert INT_MAX == 2 ** 63 - 1, "vbr_fits's bounds are LLONG_MAX's"

COMPARE, FITS, ITEM, SCALED, ADD, SUB = "vbr_compare", "vbr_fits", "vbr_item", "vbr_scaled", "vbr_add", "vbr_sub"
REMOVE, EQUAL, FIELD, WITH, SLOT, GET_IN = "vbr_remove", "vbr_equal", "vbr_field", "vbr_with", "vbr_slot", "vbr_get_in"
MODULE = "vbr_ints"  # the .pxd beside each part's source
IMPORT = (f"from cython.cimports.{MODULE} import {COMPARE}, {FITS}, {ITEM}, {SCALED}, {ADD}, {SUB}, {REMOVE}, "
          f"{EQUAL}, {FIELD}, {WITH}, {SLOT}, {GET_IN}")

# Python's comparison codes (object.h), which PyObject_RichCompareBool takes as they are
OPS = {std.Lt: 0, std.LtE: 1, std.Gt: 4, std.GtE: 5}
SUMS = {std.Add: ADD, std.Sub: SUB}
EQUALITY = {std.Eq: 2, std.NotEq: 3}
IDENTITY = {std.Eq: std.Is, std.NotEq: std.IsNot}  # `x == None` as `x is None`
C_NUMBERS = frozenset({"len", COMPARE, FITS, EQUAL})  # calls whose result Cython holds as a C number

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

    static inline PyObject *vbr_item(PyObject *o, PyObject *i) {
        if (PyLong_Check(i) && VBR_COMPACT(i)) {
            long long k = VBR_COMPACT_VALUE(i);
            if (PyList_CheckExact(o)) {
                if (k >= 0 && k < PyList_GET_SIZE(o)) {
                    PyObject *v = PyList_GET_ITEM(o, k);
                    Py_INCREF(v);
                    return v;
                }
            } else if (PyTuple_CheckExact(o)) {
                if (k >= 0 && k < PyTuple_GET_SIZE(o)) {
                    PyObject *v = PyTuple_GET_ITEM(o, k);
                    Py_INCREF(v);
                    return v;
                }
            }
        }
        return PyObject_GetItem(o, i);
    }

    /* *v = x for an exact int x in 0..2**64-1 (1), else 0. On CPython 3.11 from its 30-bit digits
       (at most three, the third below 16): PyLong_AsUnsignedLongLong takes any int of more than
       one digit, every 64-bit draw, through _PyLong_AsByteArray, about 190 instructions */
    #if PY_VERSION_HEX < 0x030C0000 && PyLong_SHIFT == 30
    static inline int vbr_u64(PyObject *x, unsigned long long *v) {
        const digit *d = ((PyLongObject *)x)->ob_digit;
        switch (Py_SIZE(x)) {
        case 0: *v = 0; return 1;
        case 1: *v = d[0]; return 1;
        case 2: *v = (unsigned long long)d[0] | ((unsigned long long)d[1] << 30); return 1;
        case 3:
            if (d[2] < 16) {
                *v = (unsigned long long)d[0] | ((unsigned long long)d[1] << 30) | ((unsigned long long)d[2] << 60);
                return 1;
            }
            return 0;
        default: return 0;  /* negative, or 2**90 and above */
        }
    }
    #else
    static inline int vbr_u64(PyObject *x, unsigned long long *v) {
        *v = PyLong_AsUnsignedLongLong(x);
        if (*v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        return 1;
    }
    #endif

''' + native_mt.SCALED_SLOW + '''
    /* (x * n) >> 64, a 64-bit draw scaled to 0..n-1: in machine words when x is an exact int in
       0..2**64-1 and n an exact compact int in 0..2**30; x = h * 2**32 + l gives
       (x * n) >> 64 == (h * n + ((l * n) >> 32)) >> 32, no sum above 2**64 - 2**32 */
    static inline PyObject *vbr_scaled(PyObject *x, PyObject *n) {
        if (PyLong_CheckExact(x) && PyLong_CheckExact(n) && VBR_COMPACT(n)) {
            long long k = VBR_COMPACT_VALUE(n);
            unsigned long long v;
            if (k >= 0 && vbr_u64(x, &v)) {
                unsigned long long high = (v >> 32) * (unsigned long long)k;
                unsigned long long low = (v & 0xFFFFFFFFULL) * (unsigned long long)k;
                return PyLong_FromUnsignedLongLong((high + (low >> 32)) >> 32);
            }
        }
        return vbr_scaled_slow(x, n);  /* negative, or 2**64 and above: Python's own way */
    }

    /* a + b and a - b: two compact ints (one digit, below 2**30 in size) never overflow a
       long long */
    static inline PyObject *vbr_add(PyObject *a, PyObject *b) {
        if (PyLong_CheckExact(a) && PyLong_CheckExact(b) && VBR_COMPACT(a) && VBR_COMPACT(b))
            return PyLong_FromLongLong(VBR_COMPACT_VALUE(a) + VBR_COMPACT_VALUE(b));
        return PyNumber_Add(a, b);
    }

    static inline PyObject *vbr_sub(PyObject *a, PyObject *b) {
        if (PyLong_CheckExact(a) && PyLong_CheckExact(b) && VBR_COMPACT(a) && VBR_COMPACT(b))
            return PyLong_FromLongLong(VBR_COMPACT_VALUE(a) - VBR_COMPACT_VALUE(b));
        return PyNumber_Subtract(a, b);
    }

    /* an int compared by int's own comparison (an Ent too), small enough to compare in C */
    static inline int vbr_plain_compact(PyObject *x) {
        return PyLong_Check(x) && Py_TYPE(x)->tp_richcompare == PyLong_Type.tp_richcompare && VBR_COMPACT(x);
    }

    /* a == b (op Py_EQ) or a != b (Py_NE), true or false as Python answers it: two compact ints
       of int's own comparison in C, anything else by the operands' own comparison and its truth */
    static inline int vbr_equal(PyObject *a, PyObject *b, int op) {
        PyObject *r;
        int truth;
        if (vbr_plain_compact(a) && vbr_plain_compact(b))
            return (VBR_COMPACT_VALUE(a) == VBR_COMPACT_VALUE(b)) == (op == Py_EQ);
        r = PyObject_RichCompare(a, b, op);
        if (r == NULL)
            return -1;
        truth = PyObject_IsTrue(r);
        Py_DECREF(r);
        return truth;
    }

    /* o.remove(x) as list.remove does it (the first item equal to x, compared item == x, each
       item held while it is compared), for an exact list with two compact ints compared in C;
       anything else by Python's comparison, or o's own method for anything but a list */
    static int vbr_remove(PyObject *o, PyObject *x) {
        PyObject *r;
        if (PyList_CheckExact(o)) {
            int x_int = vbr_plain_compact(x);
            long long xv = x_int ? VBR_COMPACT_VALUE(x) : 0;
            Py_ssize_t i;
            for (i = 0; i < PyList_GET_SIZE(o); i++) {
                PyObject *item = PyList_GET_ITEM(o, i);
                int eq;
                if (item == x)
                    eq = 1;
                else if (x_int && vbr_plain_compact(item))
                    eq = VBR_COMPACT_VALUE(item) == xv;
                else {
                    Py_INCREF(item);
                    eq = PyObject_RichCompareBool(item, x, Py_EQ);
                    Py_DECREF(item);
                    if (eq < 0)
                        return -1;
                }
                if (eq)
                    return PyList_SetSlice(o, i, i + 1, NULL);
            }
            PyErr_SetString(PyExc_ValueError, "list.remove(x): x not in list");
            return -1;
        }
        r = PyObject_CallMethod(o, "remove", "O", x);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
        return 0;
    }

    /* a thing's field, checked (expressions.py, `_attr_of_kind`): `E[x][pos] if x is not None
       and KD[x] == kind else fail(x, name)`, as Python evaluates it, x evaluated once; in C when
       x, KD[x], kind and pos are compact ints, x indexes both lists and E[x] is a tuple */
    static PyObject *vbr_field_slow(PyObject *E, PyObject *KD, PyObject *x, PyObject *kind, PyObject *pos,
                                    PyObject *fail, PyObject *name) {
        if (x != Py_None) {
            PyObject *k = PyObject_GetItem(KD, x), *same, *t, *v;
            int eq;
            if (k == NULL)
                return NULL;
            same = PyObject_RichCompare(k, kind, Py_EQ);
            Py_DECREF(k);
            if (same == NULL)
                return NULL;
            eq = PyObject_IsTrue(same);
            Py_DECREF(same);
            if (eq < 0)
                return NULL;
            if (eq) {
                t = PyObject_GetItem(E, x);
                if (t == NULL)
                    return NULL;
                v = PyObject_GetItem(t, pos);
                Py_DECREF(t);
                return v;
            }
        }
        return PyObject_CallFunctionObjArgs(fail, x, name, NULL);
    }

    static inline PyObject *vbr_field(PyObject *E, PyObject *KD, PyObject *x, PyObject *kind, PyObject *pos,
                                      PyObject *fail, PyObject *name) {
        if (PyLong_Check(x) && VBR_COMPACT(x) && PyList_CheckExact(E) && PyList_CheckExact(KD)
                && PyLong_CheckExact(kind) && VBR_COMPACT(kind) && PyLong_CheckExact(pos) && VBR_COMPACT(pos)) {
            long long i = VBR_COMPACT_VALUE(x);
            if (i >= 0 && i < PyList_GET_SIZE(KD) && i < PyList_GET_SIZE(E)) {
                PyObject *k = PyList_GET_ITEM(KD, i), *t = PyList_GET_ITEM(E, i);
                if (PyLong_CheckExact(k) && VBR_COMPACT(k) && VBR_COMPACT_VALUE(k) == VBR_COMPACT_VALUE(kind)
                        && PyTuple_CheckExact(t) && VBR_COMPACT_VALUE(pos) >= 0
                        && VBR_COMPACT_VALUE(pos) < PyTuple_GET_SIZE(t)) {
                    PyObject *v = PyTuple_GET_ITEM(t, VBR_COMPACT_VALUE(pos));
                    Py_INCREF(v);
                    return v;
                }
            }
        }
        return vbr_field_slow(E, KD, x, kind, pos, fail, name);
    }

    /* a thing's fields with one changed (statements.py, a field's store): `t[:at] + (v,) +
       t[at + 1:]`, by Python's operators, and in C a copy of the tuple with item `at` replaced
       when t is exactly a tuple and at a compact int in range (the same items, the same size) */
    static PyObject *vbr_with_slow(PyObject *t, PyObject *at, PyObject *v) {
        PyObject *one = NULL, *after = NULL, *slice = NULL, *head = NULL, *single = NULL, *tail = NULL;
        PyObject *front = NULL, *r = NULL;
        slice = PySlice_New(Py_None, at, Py_None);
        if (slice == NULL) goto done;
        head = PyObject_GetItem(t, slice);
        if (head == NULL) goto done;
        single = PyTuple_Pack(1, v);
        if (single == NULL) goto done;
        front = PyNumber_Add(head, single);
        if (front == NULL) goto done;
        one = PyLong_FromLong(1);
        after = one == NULL ? NULL : PyNumber_Add(at, one);
        if (after == NULL) goto done;
        Py_DECREF(slice);
        slice = PySlice_New(after, Py_None, Py_None);
        if (slice == NULL) goto done;
        tail = PyObject_GetItem(t, slice);
        if (tail == NULL) goto done;
        r = PyNumber_Add(front, tail);
    done:
        Py_XDECREF(one);
        Py_XDECREF(after);
        Py_XDECREF(slice);
        Py_XDECREF(head);
        Py_XDECREF(single);
        Py_XDECREF(tail);
        Py_XDECREF(front);
        return r;
    }

    static inline PyObject *vbr_with(PyObject *t, PyObject *at, PyObject *v) {
        if (PyTuple_CheckExact(t) && PyLong_CheckExact(at) && VBR_COMPACT(at)) {
            long long k = VBR_COMPACT_VALUE(at);
            Py_ssize_t n = PyTuple_GET_SIZE(t), i;
            if (k >= 0 && k < n) {
                PyObject *r = PyTuple_New(n);
                if (r == NULL)
                    return NULL;
                for (i = 0; i < n; i++) {
                    PyObject *item = i == k ? v : PyTuple_GET_ITEM(t, i);
                    Py_INCREF(item);
                    PyTuple_SET_ITEM(r, i, item);
                }
                return r;
            }
        }
        return vbr_with_slow(t, at, v);
    }

    /* a checked index into a table (expressions.py, `_slot_template`: a seat's zone, a list
       variable's item): `T[off + x] if x is not None and 0 <= x < n else fail(name, x, n)`, as
       Python evaluates it; in C when x is a compact int and T exactly a list or tuple */
    static PyObject *vbr_slot_slow(PyObject *T, PyObject *x, long off, long n, PyObject *fail, PyObject *name) {
        PyObject *zero = NULL, *bound = NULL, *base = NULL, *at = NULL, *r = NULL;
        int ok = 0;
        bound = PyLong_FromLong(n);
        if (bound == NULL) goto done;
        if (x != Py_None) {
            zero = PyLong_FromLong(0);
            if (zero == NULL) goto done;
            ok = PyObject_RichCompareBool(zero, x, Py_LE);
            if (ok > 0)
                ok = PyObject_RichCompareBool(x, bound, Py_LT);
            if (ok < 0) goto done;
        }
        if (!ok) {
            r = PyObject_CallFunctionObjArgs(fail, name, x, bound, NULL);
            goto done;
        }
        if (off == 0) {
            r = PyObject_GetItem(T, x);
            goto done;
        }
        base = PyLong_FromLong(off);
        if (base == NULL) goto done;
        at = PyNumber_Add(base, x);
        if (at == NULL) goto done;
        r = PyObject_GetItem(T, at);
    done:
        Py_XDECREF(zero);
        Py_XDECREF(bound);
        Py_XDECREF(base);
        Py_XDECREF(at);
        return r;
    }

    static inline PyObject *vbr_slot(PyObject *T, PyObject *x, long off, long n, PyObject *fail, PyObject *name) {
        if (PyLong_CheckExact(x) && VBR_COMPACT(x)) {
            long long v = VBR_COMPACT_VALUE(x), at = v + off;
            if (v >= 0 && v < n && at >= 0) {
                PyObject *item = NULL;
                if (PyTuple_CheckExact(T) && at < PyTuple_GET_SIZE(T))
                    item = PyTuple_GET_ITEM(T, at);
                else if (PyList_CheckExact(T) && at < PyList_GET_SIZE(T))
                    item = PyList_GET_ITEM(T, at);
                if (item != NULL) {
                    Py_INCREF(item);
                    return item;
                }
            }
        }
        return vbr_slot_slow(T, x, off, n, fail, name);
    }

    /* `d.get(k, dflt)` where d is the answer of a remembered fn's first lookup (lowering.py,
       `_memo_call`: `memo.get(a0, NO).get(a1, MISS)`), always a dict: looked up in C when d is
       exactly a dict, else by calling its `get` */
    static inline PyObject *vbr_get_in(PyObject *d, PyObject *k, PyObject *dflt) {
        if (PyDict_CheckExact(d)) {
            PyObject *v = PyDict_GetItemWithError(d, k);
            if (v == NULL) {
                if (PyErr_Occurred())
                    return NULL;
                v = dflt;
            }
            Py_INCREF(v);
            return v;
        }
        return PyObject_CallMethod(d, "get", "OO", k, dflt);
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
    object vbr_item(object o, object i)
    object vbr_scaled(object x, object n)
    object vbr_add(object a, object b)
    object vbr_sub(object a, object b)
    int vbr_remove(object o, object x) except -1
    bint vbr_equal(object a, object b, int op) except -1
    object vbr_field(object E, object KD, object x, object kind, object pos, object fail, object name)
    object vbr_with(object t, object at, object v)
    object vbr_slot(object T, object x, long off, long n, object fail, object name)
    object vbr_get_in(object d, object k, object dflt)
'''


def pxd_text() -> str:
    """The declarations every part cimports; its text is part of the build's key."""
    return PXD


class IntOps(TreeSwaps):
    """Rewrites a generated function's ordering comparisons and computed indexes into calls of
    vbr_compare, vbr_fits and vbr_item in place, for the time of an unparse: `undo()` puts back
    every node it replaced."""

    def rewrite(self, node: ast.AST) -> None:
        """Rewrite `node` (a generated function, or a helper's tree) and everything in it. Every
        use of each name in it is counted first (read, bound, augmented or deleted, in nested
        scopes too): `slot_read` drops a binding only where the template's own four are all."""
        self._uses = collections.Counter(n.id for n in std.walk(node) if isinstance(n, std.Name))
        self._parts(node)

    def _parts(self, node: ast.AST) -> None:
        for field, value in std.iter_fields(node):
            if isinstance(value, list):
                new = [self._node(item) for item in value]
                if any(a is not b for a, b in zip(new, value)):
                    self._swap(node, field, new)
            elif isinstance(value, std.AST):
                new = self._node(value)
                if new is not value:
                    self._swap(node, field, new)

    def _node(self, node):
        if not isinstance(node, std.AST):
            return node
        self._parts(node)  # the parts first: a comparison may hold another
        if isinstance(node, std.Compare):
            return compiled(node)
        if isinstance(node, std.IfExp):
            slot = slot_read(node, self._uses)
            return field_read(node) if slot is node else slot
        if isinstance(node, std.Subscript) and isinstance(node.ctx, std.Load) and _computed(node.slice):
            return _call(ITEM, [node.value, node.slice])
        if isinstance(node, std.Call) and (looked := looked_up_in(node)) is not None:
            return looked
        if isinstance(node, std.BinOp) and (changed := one_changed(node)) is not None:
            return changed
        if isinstance(node, std.BinOp) and type(node.op) in SUMS and _object(node.left) and _object(node.right):
            return _call(SUMS[type(node.op)], [node.left, node.right])
        return removed(scaled(node))


def looked_up_in(node: std.Call):
    """A remembered fn's lookup past its first argument (lowering.py, `_memo_call`):
    `M.get(a, NO).get(b, MISS)`, M, NO and MISS names, as `vbr_get_in(M.get(a, NO), b, MISS)`,
    also where the first lookup alone was hoisted out of a loop (lowering.py, `_hoisted`: `(_t if
    _t is not UNSET else (_t := M.get(a, NO))).get(b, MISS)`) and past a third argument; else
    None. The inner lookup answers a dict (the memo holds nothing else), so `get` is looked up on
    a dict, which cannot fail, and evaluating b before that reads the same."""
    outer = node.func
    if not (isinstance(outer, std.Attribute) and outer.attr == "get" and len(node.args) == 2 and not node.keywords
            and isinstance(node.args[1], std.Name)):
        return None
    inner = outer.value
    first = inner.orelse if isinstance(inner, std.IfExp) and isinstance(inner.body, std.Name) else inner
    first = first.value if isinstance(first, std.NamedExpr) else first  # hoisted: `(_t if ... else (_t := M.get(a, NO)))`
    if isinstance(first, std.Call) and _named(first.func, GET_IN):  # a third argument's: the second's, rewritten
        return _call(GET_IN, [inner, *node.args])
    if not (isinstance(first, std.Call) and isinstance(first.func, std.Attribute) and first.func.attr == "get"
            and isinstance(first.func.value, std.Name) and len(first.args) == 2 and not first.keywords
            and isinstance(first.args[1], std.Name)):
        return None
    return _call(GET_IN, [inner, *node.args])


def one_changed(node: std.BinOp):
    """A thing's fields with one changed, as a field's store writes them (statements.py) once
    the inner sum is rewritten: `vbr_add(X[:at], (v,)) + t[at + 1:]`, X being `(t := ...)`, at a
    constant or a name and v a name or a constant (evaluated before the slices are taken, it
    reads the same), as `vbr_with(X, at, v)`; else None."""
    left, right = node.left, node.right
    if not (isinstance(node.op, std.Add) and isinstance(left, std.Call) and _named(left.func, ADD)
            and len(left.args) == 2 and isinstance(right, std.Subscript) and isinstance(right.slice, std.Slice)):
        return None
    head, single = left.args
    if not (isinstance(head, std.Subscript) and isinstance(head.slice, std.Slice) and isinstance(head.value, std.NamedExpr)
            and head.slice.lower is None and head.slice.step is None and head.slice.upper is not None
            and isinstance(single, std.Tuple) and len(single.elts) == 1
            and isinstance(single.elts[0], (std.Name, std.Constant))):
        return None
    t, at, after = head.value.target.id, head.slice.upper, right.slice.lower
    if not (isinstance(at, (std.Name, std.Constant)) and _named(right.value, t) and right.slice.upper is None
            and right.slice.step is None and isinstance(after, std.BinOp) and isinstance(after.op, std.Add)
            and _integer(after.right) == 1 and std.dump(after.left) == std.dump(at)):
        return None
    return _call(WITH, [head.value, at, single.elts[0]])


def slot_read(node: std.IfExp, uses: collections.Counter) -> std.expr:
    """A checked index into a table as the expression compiler writes it (expressions.py,
    `_slot_template`), once rewritten here: `vbr_item(T, x) if X is not None and
    (vbr_compare(0, x, 1) and vbr_compare(x, n, 0)) else fail('name', x, n)`, X being `(x :=
    index)`, the index possibly `off + x`, T and fail names and n, off integer constants, as
    `vbr_slot(T, X, off, n, fail, 'name')`, else `node`. T and fail are names, so reading them
    before the index instead of after reads the same. `(x := index)` becomes `index` where the
    function uses x nowhere else (`uses` counts each name's uses in the function as the lowering
    wrote it: four are the template's own)."""
    test, body, fail = node.test, node.body, node.orelse
    if not (isinstance(test, std.BoolOp) and isinstance(test.op, std.And) and len(test.values) == 2):
        return node
    present, in_range = test.values
    if not (isinstance(present, std.Compare) and len(present.ops) == 1 and isinstance(present.ops[0], std.IsNot)
            and _none(present.comparators[0]) and isinstance(present.left, std.NamedExpr)):
        return node
    x = present.left.target.id
    if not (isinstance(in_range, std.BoolOp) and isinstance(in_range.op, std.And) and len(in_range.values) == 2):
        return node
    low, high = in_range.values
    n = _integer(high.args[1]) if _compare_call(high, 0) and _named(high.args[0], x) else None
    if not (_compare_call(low, 1) and _integer(low.args[0]) == 0 and _named(low.args[1], x) and n is not None):
        return node
    if not (isinstance(body, std.Call) and _named(body.func, ITEM) and len(body.args) == 2
            and isinstance(body.args[0], std.Name)):
        return node
    at, off = body.args[1], 0
    if isinstance(at, std.BinOp) and isinstance(at.op, std.Add) and _integer(at.left) is not None:
        at, off = at.right, _integer(at.left)
    if not (_named(at, x) and isinstance(fail, std.Call) and isinstance(fail.func, std.Name) and not fail.keywords
            and len(fail.args) == 3 and isinstance(fail.args[0], std.Constant) and _named(fail.args[1], x)
            and _integer(fail.args[2]) == n and abs(n) < 2 ** 31 and abs(off) < 2 ** 31):
        return node
    index = present.left if uses[x] != 4 else present.left.value  # `x :=`, the test, T[x], fail's argument
    return _call(SLOT, [body.args[0], index, ast.Constant(off), ast.Constant(n), fail.func, fail.args[0]])


def _compare_call(node, op: int) -> bool:
    """Whether `node` is `vbr_compare(a, b, op)`."""
    return (isinstance(node, std.Call) and _named(node.func, COMPARE) and len(node.args) == 3 and not node.keywords
            and _integer(node.args[2]) == op)


def field_read(node: std.IfExp):
    """A thing's checked field read as the expression compiler writes it (expressions.py,
    `_attr_of_kind`), once rewritten here: `vbr_item(E, x)[pos] if X is not None and
    vbr_item(KD, x) == kind else fail(x, 'name')`, X being the name x or `(x := thing)`, as
    `vbr_field(E, KD, X, kind, pos, fail, 'name')`, else `node`."""
    test, body, fail = node.test, node.body, node.orelse
    if not (isinstance(test, std.BoolOp) and isinstance(test.op, std.And) and len(test.values) == 2):
        return node
    present, of_kind = test.values
    if not (isinstance(present, std.Compare) and len(present.ops) == 1 and isinstance(present.ops[0], std.IsNot)
            and _none(present.comparators[0])):
        return node
    thing = present.left
    x = thing.target if isinstance(thing, std.NamedExpr) else thing
    if not isinstance(x, std.Name):
        return node
    if not (isinstance(of_kind, std.Compare) and len(of_kind.ops) == 1 and isinstance(of_kind.ops[0], std.Eq)
            and _integer(kind := of_kind.comparators[0]) is not None and _item_of(of_kind.left, "KD", x.id)):
        return node
    if not (isinstance(body, std.Subscript) and _integer(body.slice) is not None and _item_of(body.value, "E", x.id)):
        return node
    if not (isinstance(fail, std.Call) and not fail.keywords and len(fail.args) == 2 and _named(fail.args[0], x.id)
            and isinstance(fail.args[1], std.Constant) and isinstance(fail.func, std.Name)):
        return node
    return _call(FIELD, [body.value.args[0], of_kind.left.args[0], thing, kind, body.slice, fail.func, fail.args[1]])


def _item_of(node, table: str, x: str) -> bool:
    """Whether `node` is `vbr_item(table, x)`."""
    return (isinstance(node, std.Call) and _named(node.func, ITEM) and len(node.args) == 2 and not node.keywords
            and _named(node.args[0], table) and _named(node.args[1], x))


def _named(node, name: str) -> bool:
    return isinstance(node, std.Name) and node.id == name


def scaled(node):
    """`(x * n) >> 64` (a 64-bit draw scaled to 0..n-1, rng.below) as `vbr_scaled(x, n)`, else `node`;
    where x is the draw itself, `f(64)` or `g.getrandbits(64)`, and n reads nothing that could
    draw, as native_mt.py's `vbr_below(f, n)` or `vbr_below_of(g, n)`: the draw made in C."""
    if (isinstance(node, std.BinOp) and isinstance(node.op, std.RShift) and _integer(node.right) == 64
            and isinstance(node.left, std.BinOp) and isinstance(node.left.op, std.Mult)):
        x, n = node.left.left, node.left.right
        if (isinstance(x, std.Call) and len(x.args) == 1 and not x.keywords and _integer(x.args[0]) == 64
                and _drawless(n)):
            if isinstance(x.func, std.Attribute) and x.func.attr == "getrandbits":
                return _call(native_mt.BELOW_OF, [x.func.value, n])
            return _call(native_mt.BELOW, [x.func, n])
        return _call(SCALED, [x, n])
    return node


def _drawless(node) -> bool:
    """A name, a constant, `len` of a name, or arithmetic of those: evaluated after the draw
    instead of before, it reads the same."""
    if isinstance(node, std.BinOp):
        return _drawless(node.left) and _drawless(node.right)
    if isinstance(node, std.Call):
        return (_named(node.func, "len") and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], std.Name))
    return isinstance(node, (std.Name, std.Constant))


def removed(node):
    """The statement `o.remove(x)` (a thing out of its zone) as `vbr_remove(o, x)`, else `node`."""
    if (isinstance(node, std.Expr) and isinstance(node.value, std.Call) and isinstance(node.value.func, std.Attribute)
            and node.value.func.attr == "remove" and len(node.value.args) == 1 and not node.value.keywords
            and not isinstance(node.value.args[0], std.Starred)):
        return ast.Expr(_call(REMOVE, [node.value.func.value, node.value.args[0]]))
    return node


def rewrite_helper(tree: std.AST) -> None:
    """Rewrite, in place, a tree of the caller's own (an engine helper's) as IntOps rewrites a
    generated function: nothing is undone."""
    IntOps().rewrite(tree)


def compiled(node: std.Compare) -> ast.expr:
    """The calls that compute `node` in C, or `node` itself where Cython is better left to it."""
    if _is_range_check(node):
        return _call(FITS, [node.comparators[0]])
    sides = [node.left, *node.comparators]
    if len(node.ops) == 1 and type(node.ops[0]) in EQUALITY and any(_none(s) for s in sides):
        # no value of a rule file equals none but none (values.py: Python's own types and
        # subclasses of int, str and tuple that keep their comparison), so `==` is `is`: a
        # pointer compared, where Cython would ask Python's comparison and the truth of its answer
        return ast.Compare(node.left, [IDENTITY[type(node.ops[0])]()], node.comparators)
    if len(node.ops) == 1 and type(node.ops[0]) in EQUALITY:
        if not any(isinstance(s, std.Constant) or _integer(s) is not None for s in sides) and all(_boxed(s) for s in sides):
            return _call(EQUAL, [*sides, ast.Constant(EQUALITY[type(node.ops[0])])])
        return node  # against a constant, Cython's own test (an int's, a string's) is as quick
    if not all(type(op) in OPS for op in node.ops) or not all(_boxed(s) for s in sides):
        return node
    if any(not isinstance(s, (std.Name, std.Constant)) for s in sides[1:-1]):
        return node  # a middle side is evaluated once: only a name or constant may be read twice
    links = [_call(COMPARE, [a, b, ast.Constant(OPS[type(op)])]) for a, op, b in zip(sides, node.ops, sides[1:])]
    return links[0] if len(links) == 1 else ast.BoolOp(ast.And(), links)


def _none(node) -> bool:
    return isinstance(node, std.Constant) and node.value is None


def _computed(index) -> bool:
    """An index worked out at run time: not a constant, a slice or a tuple (Cython indexes by a
    constant itself)."""
    return not isinstance(index, (std.Constant, std.Slice, std.Tuple)) and _integer(index) is None


def _is_range_check(node: std.Compare) -> bool:
    """`-MAX <= x <= MAX` (lowering.arith's check), MAX the largest long long."""
    return (len(node.ops) == 2 and all(type(op) is std.LtE for op in node.ops)
            and _integer(node.left) == -INT_MAX and _integer(node.comparators[1]) == INT_MAX)


def _integer(node) -> int | None:
    """The value of an integer constant, `-5` (a negated constant) included."""
    if isinstance(node, std.UnaryOp) and isinstance(node.op, std.USub):
        inner = _integer(node.operand)
        return None if inner is None else -inner
    if isinstance(node, std.Constant) and type(node.value) is int:
        return node.value
    return None


def _object(node) -> bool:
    """Whether `node` is an operand that `vbr_add` takes as it is: not an integer constant (Cython
    adds a constant in C itself) and not what Cython may hold as a C number (a comparison, `not`,
    `and`/`or` of those, a call of `len`), which the call would box first."""
    if _constant(node) or isinstance(node, (std.Compare, std.BoolOp, std.UnaryOp)):
        return False
    if isinstance(node, std.Call):
        return not (isinstance(node.func, std.Name) and node.func.id in C_NUMBERS)
    return True


def _constant(node) -> bool:
    """An integer constant, or arithmetic of them (`1 * 3`), which Cython works out itself."""
    if isinstance(node, std.BinOp):
        return _constant(node.left) and _constant(node.right)
    return _integer(node) is not None


def _boxed(node) -> bool:
    """Whether Cython holds `node`'s value as an object (so that the call boxes nothing)."""
    if isinstance(node, (std.Constant, std.UnaryOp)):
        return _integer(node) is not None
    if isinstance(node, std.Call):
        return not (isinstance(node.func, std.Name) and node.func.id in C_NUMBERS)
    return isinstance(node, (std.Name, std.Subscript, std.Attribute, std.NamedExpr))


def _call(name: str, args: list) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), args, [])
