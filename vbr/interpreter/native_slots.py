"""Fields of the engine's own objects read and written in compiled code by their slot's address.

Why. Generated code reads and writes the fields of the state, of frames and of choice points
all the time (`st.steps += 1`, `fr.pc = 4`, `st.pending = _p`). CPython's interpreter does
that through a specialised instruction that goes straight to the slot; compiled code asks
`PyObject_GetAttr`, which looks the name up in the type and calls the slot's descriptor: a
tenth of a bundled file's native time (docs/performance.md, session 13). So in the text given to Cython,
`st.steps` becomes `vbr_get(st, I)` and `st.steps = v` becomes `vbr_set(st, I, v)`, where I
numbers the field in FIELDS; the two C functions of PXD go to the slot when the object's type
is exactly the field's class (as bound when a part is made), and otherwise do what Python does,
the generic lookup. The same object, the same slot, the same reference counting: the games
cannot differ (tests/test_native.py plays both forms).

The binding is taken when a part is made: a field replaced on its class later (a property
assigned to `State.steps`, say) would not be seen by code made before; nothing in vbr does that.

Which object a name holds does not matter for correctness, only for speed: a field is found by
its attribute name alone (the classes share none), and any object that is not exactly of the
field's class takes the generic path.
"""
from __future__ import annotations

import ast as std  # the node classes to test against (generated nodes are pyast's subclasses of them)

from vbr.interpreter import pyast as ast  # the node classes to make (located)
from vbr.interpreter.tree_swaps import TreeSwaps

from vbr.interpreter.program import Frame, Pending
from vbr.interpreter.state import Autoplay, State

SLOTTED = (State, Frame, Pending, Autoplay)  # what generated code holds: the state, frames, a choice point, random seats
FIELDS: list[tuple[type, str]] = [(cls, name) for cls in SLOTTED for name in cls.__slots__ if not name.startswith("__")]
INDEX = {name: i for i, (_, name) in enumerate(FIELDS)}
assert len(INDEX) == len(FIELDS), "two slotted classes share a field name"

GET, SET, BIND = "vbr_get", "vbr_set", "vbr_bind"
MODULE = "vbr_slots"  # the .pxd beside each part's source: `from cython.cimports.vbr_slots import ...`
IMPORT = f"from cython.cimports.{MODULE} import {GET}, {SET}, {BIND}"
TEMP = "_slot"  # the local an augmented assignment of a field works in

# The C side. A field is bound to its class when the class reads and writes attributes the
# generic way and the name is a writable object slot of it (a member descriptor of type
# T_OBJECT_EX, which is what `__slots__` makes); otherwise it stays unbound and every access
# takes the generic path. An empty slot reads as Python reads it: AttributeError.
PXD = '''\
# fields: %(names)s
cdef extern from *:
    """
    #include <structmember.h>
    #define VBR_FIELDS %(count)d
    static PyTypeObject *vbr_type[VBR_FIELDS];
    static Py_ssize_t vbr_offset[VBR_FIELDS];
    static PyObject *vbr_name[VBR_FIELDS];

    static inline PyObject *vbr_get(PyObject *o, int i) {
        if (Py_TYPE(o) == vbr_type[i]) {
            PyObject *v = *(PyObject **)((char *)o + vbr_offset[i]);
            if (v != NULL) {
                Py_INCREF(v);
                return v;
            }
        }
        return PyObject_GetAttr(o, vbr_name[i]);
    }

    static inline int vbr_set(PyObject *o, int i, PyObject *v) {
        if (Py_TYPE(o) == vbr_type[i]) {
            PyObject **slot = (PyObject **)((char *)o + vbr_offset[i]);
            PyObject *old = *slot;
            Py_INCREF(v);
            *slot = v;
            Py_XDECREF(old);
            return 0;
        }
        return PyObject_SetAttr(o, vbr_name[i], v);
    }

    static int vbr_bind_one(int i, PyObject *cls, PyObject *name) {
        PyTypeObject *type;
        PyObject *d;
        PyMemberDef *m;
        if (i < 0 || i >= VBR_FIELDS || !PyType_Check(cls) || !PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_ValueError, "vbr_bind: not a field of this build");
            return -1;
        }
        type = (PyTypeObject *)cls;
        Py_INCREF(name);
        Py_XDECREF(vbr_name[i]);
        vbr_name[i] = name;
        Py_CLEAR(vbr_type[i]);
        if (type->tp_getattro != PyObject_GenericGetAttr || type->tp_setattro != PyObject_GenericSetAttr)
            return 0;
        d = PyObject_GetAttr(cls, name);
        if (d == NULL)
            return -1;
        if (Py_TYPE(d) == &PyMemberDescr_Type && PyType_IsSubtype(type, PyDescr_TYPE(d))) {
            m = ((PyMemberDescrObject *)d)->d_member;
            if (m->type == T_OBJECT_EX && !(m->flags & READONLY)) {
                vbr_offset[i] = m->offset;
                Py_INCREF(cls);
                vbr_type[i] = type;
            }
        }
        Py_DECREF(d);
        return 0;
    }
    """
    enum: VBR_FIELDS
    object vbr_get(object o, int i)
    int vbr_set(object o, int i, object v) except -1
    int vbr_bind_one(int i, object cls, object name) except -1


cdef inline int vbr_bind(fields) except -1:
    cdef int i
    if len(fields) != VBR_FIELDS:
        raise ValueError("vbr_bind: the fields are not this build's")
    for i in range(VBR_FIELDS):
        vbr_bind_one(i, fields[i][0], fields[i][1])
    return 0
'''


def pxd_text() -> str:
    """The declarations every part cimports; its text is part of the build's key."""
    return PXD % {"count": len(FIELDS), "names": " ".join(f"{cls.__name__}.{name}" for cls, name in FIELDS)}


class SlotAccess(TreeSwaps):
    """Rewrites a generated function's field accesses into vbr_get/vbr_set calls in place, for
    the time of an unparse: `undo()` puts back every node and list it replaced (the program
    keeps its code, and copying the tree would cost more than this)."""

    def rewrite(self, node: ast.AST) -> None:
        self._children(node)

    def _children(self, node: ast.AST) -> None:
        for field, value in std.iter_fields(node):
            if isinstance(value, list):
                new = self._list(value)
                if new is not value:
                    self._swap(node, field, new)
            elif isinstance(value, std.AST):
                new = self._expr(value)
                if new is not value:
                    self._swap(node, field, new)

    def _list(self, items: list) -> list:
        out, changed = [], False
        for item in items:
            if isinstance(item, std.AST):
                new = self._stmt(item) if isinstance(item, std.stmt) else [self._expr(item)]
                changed |= len(new) != 1 or new[0] is not item
                out += new
            else:
                out.append(item)
        return out if changed else items

    def _expr(self, node: ast.AST) -> ast.AST:
        self._children(node)
        i = _field(node)
        if i is not None and isinstance(node.ctx, std.Load):
            return ast.Call(ast.Name(GET, ast.Load()), [node.value, ast.Constant(i)], [])
        return node

    def _stmt(self, node: ast.stmt) -> list[ast.stmt]:
        if (isinstance(node, std.Assign) and len(node.targets) == 1 and (i := _field(node.targets[0])) is not None
                and not _rebinds(node.targets[0], node.value)):
            self._children(node)
            return [_set(node.targets[0].value, i, node.value)]
        if (isinstance(node, std.Assign) and len(node.targets) > 1 and any(_field(t) is not None for t in node.targets)
                and not any(_rebinds(t, node.value) for t in node.targets if _field(t) is not None)):
            # `s = st.steps = v` evaluates v once, then assigns each target from the left
            self._children(node)
            temp = ast.Name(TEMP, ast.Load())
            return [ast.Assign([ast.Name(TEMP, ast.Store())], node.value),
                    *(_set(t.value, i, temp) if (i := _field(t)) is not None else ast.Assign([t], temp)
                      for t in node.targets)]
        if isinstance(node, std.AugAssign) and (i := _field(node.target)) is not None and not _rebinds(node.target, node.value):
            # `st.steps += v` reads, evaluates v, adds in place, writes: the same steps in turn
            self._children(node)
            owner = node.target.value
            return [ast.Assign([ast.Name(TEMP, ast.Store())], ast.Call(ast.Name(GET, ast.Load()), [owner, ast.Constant(i)], [])),
                    ast.AugAssign(ast.Name(TEMP, ast.Store()), node.op, node.value),
                    _set(owner, i, ast.Name(TEMP, ast.Load()))]
        self._children(node)
        return [node]


def _field(node) -> int | None:
    """The field number of `name.field` for a field of FIELDS read from a local name."""
    if isinstance(node, std.Attribute) and isinstance(node.value, std.Name):
        return INDEX.get(node.attr)
    return None


def _rebinds(target, value) -> bool:
    """`st.x += (st := o).y`, `st.x = (st := o)`: the value rebinds the name of the target's
    owner, and when the owner is taken differs between Python and the rewritten call (such an
    assignment keeps the generic path)."""
    owner = target.value.id
    return any(isinstance(n, std.NamedExpr) and n.target.id == owner for n in std.walk(value))


def _set(owner: ast.expr, i: int, value: ast.expr) -> ast.stmt:
    return ast.Expr(ast.Call(ast.Name(SET, ast.Load()), [owner, ast.Constant(i), value], []))
