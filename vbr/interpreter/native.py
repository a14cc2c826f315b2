"""The lowered program as machine code: its generated Python compiled by Cython and a C compiler
into one extension module, kept in the user's cache directory.

Why. The generated functions are most of a game's time, and CPython spends much of it between
their bytecodes. Compiled as they are (no types added), the same functions play the same games
1.1-1.4x as fast (docs/performance.md, session 10). A build takes from 20 s to minutes, so it is
asked for (`load(..., native=True)`, `vbr sim --native`) and kept: a rule file with the same
options loads its module from the cache the next time.

What is compiled is exactly the text of the lowered program (`ast.unparse` of our own `ast`
nodes, never rule text), wrapped in one function `make(ns)` that takes the program's constants
from its namespace and returns the functions: so each program gets functions of its own over its
own constants, however many programs of the same rules one process loads. The module is keyed
by a hash of that text and of everything the build depends on (this module's FORMAT, vbr's,
Cython's and Python's versions, the compiler and its flags). Building is native_build.py's work,
the cache folder native_cache.py's.
"""
from __future__ import annotations

import ast
import hashlib
import sys
import sysconfig
import textwrap

from vbr.interpreter import native_build, native_cache
from vbr.interpreter.native_build import NativeUnavailable, unavailable  # noqa: F401  (the API's names)

FORMAT = 1  # the shape of the source below: a change of it must change every key
MAX_SOURCE = 1_500_000  # characters of generated source (the largest bundled file: 522,000): beyond, no build is tried
# Cython's time doubles with each assignment expression nested in another (`(_t := ... (_u := ...))`,
# the overflow checks of nested arithmetic): 18 deep takes seconds, 30 would take hours. A function
# nested deeper than this stays Python (the bundled files reach 6).
MAX_NESTED_ASSIGNMENTS = 12

_LOADED: dict[str, object] = {}  # key -> module: an extension module loads once per process


def make_native(program, modules: list, refused: list, codes: list, note=None) -> int:
    """Put the compiled functions in place of the generated Python ones in `program` (its ops,
    pure procedures and namespace); returns how many places were swapped. `note(text)` hears of
    a build before it starts (it can take minutes)."""
    reason = unavailable()
    if reason is not None:
        raise NativeUnavailable(reason)
    namespace = program.lowering.namespace
    too_deep = {d.name for d in _defs(modules)
                if d.name not in refused and nested_assignments(d) > MAX_NESTED_ASSIGNMENTS}
    if too_deep and note is not None:
        note(f"{len(too_deep)} generated function(s) stay Python: their expressions nest deeper than "
             f"the compiler handles in reasonable time")
    text, names = factory_source(modules, namespace, set(refused) | too_deep)
    if not names:
        return 0
    if len(text) > MAX_SOURCE:
        raise NativeUnavailable(f"the generated code is too large to compile ({len(text):,} characters, "
                                f"at most {MAX_SOURCE:,})")
    module = _module(text, note)
    made = module.make(namespace)
    return _install(program, namespace, made, codes)


# Builtins the generated code calls through the namespace (`C5(x)` where C5 is `len`), which Cython
# compiles to the C call itself when named (`len(x)`: PyObject_Length, no call of a Python object):
# the same functions, so the same results; 1.03x on native Siatka and Cattack.
BUILTINS_BY_NAME = (len, tuple, list, type, range, min, max, abs, Exception)


def factory_source(modules: list, namespace: dict, refused: set) -> tuple[str, list[str]]:
    """`def make(ns):` holding every generated function, its free names read from `ns` first,
    returning the functions by name. Python's own form runs the same text at module level, but
    for the namespace's builtins (BUILTINS_BY_NAME), which the text given to Cython names."""
    defs = [d for d in _defs(modules) if d.name not in refused]
    names = [d.name for d in defs]
    own = set(names)
    free = sorted(k for k in namespace if not k.startswith("__") and k not in own)
    builtin = {k: namespace[k].__name__ for k in free if any(namespace[k] is b for b in BUILTINS_BY_NAME)}
    body = [f"{k} = ns[{k!r}]" for k in free if k not in builtin]
    body += [_unparse_naming(d, builtin) for d in defs]
    body.append("return {" + ", ".join(f"{n!r}: {n}" for n in names) + "}")
    return "def make(ns):\n" + textwrap.indent("\n".join(body), "    ") + "\n", names


def _unparse_naming(d: ast.FunctionDef, builtin: dict) -> str:
    """`ast.unparse(d)` with each name of `builtin` read as the builtin's own name; `d` itself is
    left as it was (the program keeps its code)."""
    renamed = [(n, n.id) for n in ast.walk(d) if isinstance(n, ast.Name) and n.id in builtin]
    for n, name in renamed:
        n.id = builtin[name]
    try:
        return ast.unparse(d)
    finally:
        for n, name in renamed:
            n.id = name


def _defs(modules: list) -> list[ast.FunctionDef]:
    return [d for m in modules for d in m.body if isinstance(d, ast.FunctionDef)]


def nested_assignments(node: ast.AST) -> int:
    """How deep assignment expressions nest in `node` (iteratively: the tree may be deep)."""
    deepest = 0
    stack = [(node, 0)]
    while stack:
        n, depth = stack.pop()
        if isinstance(n, ast.NamedExpr):
            depth += 1
            deepest = max(deepest, depth)
        stack.extend((child, depth) for child in ast.iter_child_nodes(n))
    return deepest


def _install(program, namespace: dict, made: dict, codes: list) -> int:
    old = {name: namespace.get(name) for name in made}
    swapped = 0
    for code in codes:
        for i, op in enumerate(code.ops):
            name = getattr(op, "__name__", None)
            if name in made and op is old[name]:
                code.ops[i] = made[name]
                swapped += 1
    for proc, (body, n) in list(program.pure_procs.items()):
        name = getattr(body, "__name__", None)
        if name in made and body is old[name]:
            program.pure_procs[proc] = (made[name], n)
            swapped += 1
    namespace.update(made)
    return swapped


def key_of(text: str) -> str:
    import Cython

    from vbr import __version__
    parts = [str(FORMAT), __version__, Cython.__version__, sys.version, sysconfig.get_platform(),
             " ".join(native_build.compiler() or []), " ".join(native_build.CFLAGS), text]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _module(text: str, note):
    key = key_of(text)
    module = _LOADED.get(key)
    if module is None:
        module = _LOADED[key] = native_cache.module_for(text, key, note)
    return module
