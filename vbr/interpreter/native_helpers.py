"""The engine's own helpers that generated code calls, compiled beside it from their own source.

Why. Generated code calls small helpers of the engine (`other_side`, `items_of`, `spend`,
`counted_range`, ...) for what its templates do not write out: a bundled rule file calls them
about a thousand times a game. Compiled code calling a Python function pays for a Python frame
each time; the same function compiled costs less. Measured against the helpers left in Python,
in one process: 1.02-1.07x on the bundled files (docs/performance.md, session 13).

Which. A function of vbr.interpreter that a program's namespace holds, written at module level
(no closure: a closure's values come from compiling the rules, not from its text), without
decorators, whose global names are functions, classes, modules or immutable constants (bound once,
when the compiled module is imported: a global rebound later would not be seen). They become one
module of the library: their text, parsed and unparsed (vbr's own code, never rule text), with
their globals imported from the module they come from (so an exception class is the very class
the engine catches), their fields read through their slots (native_slots.py) and their
annotations not taken as types. The functions of vbr.interpreter that a helper calls (`spend`),
and those they call in turn, are compiled with it where the same test allows: a compiled
helper calling a Python function would pay for its frame again (up to 1.10x on a bundled file,
docs/performance.md, session 14).
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types

from vbr.interpreter import native_ints, native_mt, native_slots

PACKAGE = "vbr.interpreter."
_CONSTANTS = (int, str, bool, float, tuple, frozenset, type(None))
_BOUND_ONCE = (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)


def helpers(namespace: dict) -> dict[str, types.FunctionType]:
    """The namespace's names of the helpers to compile, and the helpers."""
    return {name: value for name, value in namespace.items() if _compilable(value)}


def _compilable(f) -> bool:
    if not (isinstance(f, types.FunctionType) and f.__closure__ is None and f.__qualname__ == f.__name__
            and f.__name__.isidentifier()  # not a lambda
            and (f.__module__ or "").startswith(PACKAGE) and not f.__code__.co_filename.startswith("<")):
        return False
    return all(isinstance(value, _BOUND_ONCE + _CONSTANTS) for value in _globals(f).values())


def _globals(f: types.FunctionType) -> dict[str, object]:
    """The globals a function reads, by name."""
    return {n: f.__globals__[n] for n in _names(f.__code__) if n in f.__globals__}


def _names(code: types.CodeType) -> set[str]:
    """The names a function's code reads as globals or attributes, its comprehensions' and
    lambdas' included (each a code object of its own)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def source(functions) -> tuple[str, list[types.FunctionType]] | None:
    """The text of one module holding the helpers and the functions they call (as far as
    these can be compiled), and the functions it holds; None if none.
    One module, not one per source module: each more module would cost a build a Cython and a
    C compiler run of its own. A helper whose name or globals would mean another object than
    what the module already binds to that name (two modules' functions of one name) is left
    out, as is one whose source cannot be had, that is decorated or whose defaults are not
    constants (names in a default are evaluated when the module is imported, and no code
    object says which): it stays Python. The order is fixed (the text is part of the build's
    key)."""
    bound: dict[str, object] = {}
    imports: dict[str, str] = {}  # global name -> the module it is imported from
    defs, held = [], []
    for f in sorted(_with_callees(functions), key=lambda f: (f.__module__, f.__name__)):
        wanted = {**_globals(f), f.__name__: f}
        if any(n in bound and bound[n] is not v for n, v in wanted.items()):
            continue
        d = _definition(f)
        if d is None:
            continue
        defs.append(d)
        held.append(f)
        bound.update(wanted)
        imports.update({n: f.__module__ for n in wanted if n != f.__name__ and n not in imports})
    if not defs:
        return None
    names = {f.__name__ for f in held}
    imported = sorted((module, n) for n, module in imports.items() if n not in names)
    return _text(imported, defs), held


def _with_callees(functions) -> set[types.FunctionType]:
    """The helpers and the engine's functions they call, in turn, that can be compiled too
    (`spend`, `_range_length`): a compiled helper calling a Python one pays for its frame."""
    todo, found = list(functions), set()
    while todo:
        f = todo.pop()
        if f not in found:
            found.add(f)
            todo += [v for v in _globals(f).values() if isinstance(v, types.FunctionType) and _compilable(v)]
    return found


def _definition(f) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    except (OSError, TypeError, SyntaxError):
        return None
    if len(tree.body) != 1:
        return None
    (d,) = tree.body
    if not isinstance(d, ast.FunctionDef) or d.decorator_list or d.name != f.__name__:
        return None
    if not all(isinstance(v, ast.Constant) for v in [*d.args.defaults, *d.args.kw_defaults] if v is not None):
        return None
    native_slots.SlotAccess().rewrite(d)  # a tree of our own: nothing to undo
    native_ints.rewrite_helper(d)
    return d


def _text(imported: list[tuple[str, str]], defs: list[ast.FunctionDef]) -> str:
    head = ["# cython: annotation_typing=False", "from __future__ import annotations", native_slots.IMPORT, native_ints.IMPORT,
            native_mt.IMPORT,
            "from vbr.interpreter.native_slots import FIELDS as _FIELDS",
            *(f"from {module} import {name}" for module, name in imported),
            f"{native_slots.BIND}(_FIELDS)"]
    return "\n".join(head) + "\n\n\n" + "\n\n\n".join(ast.unparse(d) for d in defs) + "\n"


def swap(namespace: dict, chosen: dict[str, types.FunctionType], held: list, module: types.ModuleType) -> int:
    """Point the namespace's names of the helpers the module holds (`held`, as `source` gave
    them: not a namesake it left out) at their compiled form, before the generated code's parts
    read the namespace; returns how many."""
    ids = {id(h) for h in held}
    swapped = 0
    for name, f in chosen.items():
        if id(f) in ids:
            namespace[name] = getattr(module, f.__name__)
            swapped += 1
    return swapped
