"""The lowered program as machine code: its generated Python compiled by Cython and a C compiler
into one shared library, kept in the user's cache directory.

Why. The generated functions are most of a game's time, and CPython spends much of it between
their bytecodes. Compiled as they are (no types added), the same functions play the same games
1.2-1.6x as fast (docs/performance.md, sessions 10-14). A build takes from seconds to minutes, so it is
asked for (`load(..., native=True)`, `vbr sim --native`) and kept: a rule file with the same
options loads its module from the cache the next time.

What is compiled is the text of the lowered program (`ast.unparse` of our own `ast` nodes, never
rule text) with changes that do not change what it does: the builtins it calls are named
(BUILTINS_BY_NAME), the fields of the state, its frames and its choice points are read and
written through their slots (native_slots.py), its comparisons, sums, computed indexes and
field reads take small integers in C (native_ints.py), its draws are made in C from the
generator's own table (native_mt.py), and the types it guarantees are declared
(native_types.py); the C of these is in .pxd files every part cimports. It is wrapped in a
function `make(ns, fields)` that takes the program's constants from its namespace and returns
the functions: so each program gets functions of its own over its own constants, however many
programs of the same rules one process loads. A large source is cut into parts compiled side by
side (PART_CHARS), each part a module with a `make` of its own and a `link` that then points its
calls of other parts' functions at their compiled form. One more module (SEEDS) gives the
program a compiled `rng.derive`, for the seeds every new game derives, and one more holds the
engine's helpers the generated code calls, compiled from their own source (native_helpers.py).
The library is keyed by a hash of the parts and of everything the build depends on (the .pxds,
this module's FORMAT, vbr's, Cython's and Python's versions, the compiler and its flags).
Building is native_build.py's work, the cache folder native_cache.py's; where it can be, a build
is profile-guided, its profile from games played on an instrumented build (native_training.py).
"""
from __future__ import annotations

import ast
import hashlib
import sys
import sysconfig
import textwrap

from vbr.interpreter import (native_build, native_cache, native_helpers, native_ints, native_slots, native_training,
                             native_mt, native_types, state)
from vbr.interpreter.native_build import NativeUnavailable, unavailable  # noqa: F401  (the API's names)

FORMAT = 5  # the shape of the source below: a change of it must change every key
MAX_SOURCE = 1_500_000  # characters of generated source (the largest bundled file: 522,000): beyond, no build is tried
# Cython's time doubles with each assignment expression nested in another (`(_t := ... (_u := ...))`,
# the overflow checks of nested arithmetic): 18 deep takes seconds, 30 would take hours. A function
# nested deeper than this stays Python (the bundled files reach 6).
MAX_NESTED_ASSIGNMENTS = 12
# A source of more than this many characters is cut into parts, one for each PART_CHARS begun (at
# most MAX_PARTS), each compiled by its own C compiler, as many at once as there are CPUs (the C
# compiler is nearly all of a build's time: 110 s at -O2 for the 520,000 characters of the largest
# bundled file). A call from one part into another costs a little more: 0-4 % slower play where
# it was measured (docs/performance.md).
PART_CHARS = 60_000
MAX_PARTS = 8

_LOADED: dict[str, list] = {}  # key -> its modules: an extension module loads once per process


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
    parts = factory_sources(modules, namespace, set(refused) | too_deep)
    if not parts:
        return 0
    size = sum(len(text) for text, _ in parts)
    if size > MAX_SOURCE:
        raise NativeUnavailable(f"the generated code is too large to compile ({size:,} characters, "
                                f"at most {MAX_SOURCE:,})")
    chosen = native_helpers.helpers(namespace)
    helper_source = native_helpers.source([*chosen.values(), *LOOPS])

    def put_in_place(modules: list) -> int:
        compiled, seeds = modules[:len(parts)], modules[len(parts)]
        if helper_source:
            native_helpers.swap(namespace, chosen, helper_source[1], modules[-1])
            for loop in LOOPS:
                if loop in helper_source[1]:
                    setattr(program, loop.__name__, getattr(modules[-1], loop.__name__))
        made, links = {}, []
        for module in compiled:
            functions, link = module.make(namespace, native_slots.FIELDS)
            made.update(functions)
            links.append(link)
        swapped = _install(program, namespace, made, codes)
        for link in links:  # each part's calls of another part's functions, to their compiled form
            link()
        program.derive = seeds.derive
        if seeds.usable():  # this CPython's generators are laid out as native_mt.py's C says
            program.generator = seeds.generator
        return swapped

    def train(modules: list) -> None:  # in a child process of its own (native_training.trained)
        put_in_place(modules)
        native_training.play(program)

    texts = [text for text, _ in parts] + [SEEDS] + ([helper_source[0]] if helper_source else [])
    return put_in_place(_modules(texts, note, train))


# rng.derive in machine integers, a module of every build: a game's and its seats' seeds are
# derived at every new game, 9 calls for four seats, 10x as fast compiled (tests/test_native.py
# checks that it gives rng.derive's numbers).
SEEDS = """\
import cython


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _mix(x: cython.ulonglong) -> cython.ulonglong:
    x = (x ^ (x >> 30)) * cython.cast(cython.ulonglong, 0xBF58476D1CE4E5B9)
    x = (x ^ (x >> 27)) * cython.cast(cython.ulonglong, 0x94D049BB133111EB)
    return x ^ (x >> 31)


def derive(seed, *salt):
    x: cython.ulonglong = seed & 0xFFFFFFFFFFFFFFFF
    s: cython.ulonglong
    for v in salt:
        s = v & 0xFFFFFFFFFFFFFFFF
        x = _mix(x ^ (s * cython.cast(cython.ulonglong, 0x9E3779B97F4A7C15)))
    return _mix(x)
""" + native_mt.SOURCE


# The VM's loops (State.run's and State.play_random's), compiled with the engine's helpers and put in
# the program in place of the Python ones: the step from one generated op to the next is then C
# (docs/performance.md, session 17).
LOOPS = (state.run_ops, state.play_ops)


# Builtins the generated code calls through the namespace (`C5(x)` where C5 is `len`), which Cython
# compiles to the C call itself when named (`len(x)`: PyObject_Length, no call of a Python object):
# the same functions, so the same results; 1.03x on two bundled files (docs/performance.md).
BUILTINS_BY_NAME = (len, tuple, list, type, range, min, max, abs, Exception)


def factory_sources(modules: list, namespace: dict, refused: set) -> list[tuple[str, list[str]]]:
    """The source of each part, and the names of the functions it holds: a `def make(ns,
    fields):` holding the part's generated functions, which binds the slot accessors to `fields`
    and reads the part's free names from `ns` first, and returns the functions by name and
    `link`, which reads again from `ns` the functions of other parts it calls (once every part's
    compiled functions are there). Python's own form runs the same functions, but for the
    builtins' names and the slot accessors, which only the text given to Cython has."""
    defs = [d for d in _defs(modules) if d.name not in refused]
    if not defs:
        return []
    every = {d.name for d in defs}
    free = sorted(k for k in namespace if not k.startswith("__"))
    builtin = {k: namespace[k].__name__ for k in free if any(namespace[k] is b for b in BUILTINS_BY_NAME)}
    texts = [_native_text(d, builtin) for d in defs]
    return [_factory([defs[i] for i in part], [texts[i] for i in part], free, builtin, every, namespace)
            for part in _parts([len(t) for t in texts])]


def _parts(sizes: list[int]) -> list[list[int]]:
    """The functions (by index) of each part: runs of the source in its order, of about equal
    size, one part for each PART_CHARS of functions begun, at most MAX_PARTS. The size alone
    decides, so that the same rules give the same parts, and the same key, on every machine;
    how many compile at once is the build's business (native_build.run_all)."""
    count = max(1, min(len(sizes), -(-sum(sizes) // PART_CHARS), MAX_PARTS))
    share = sum(sizes) / count
    parts: list[list[int]] = [[]]
    done = 0
    for i, size in enumerate(sizes):
        if parts[-1] and done + size / 2 > share * len(parts) and len(parts) < count:
            parts.append([])
        parts[-1].append(i)
        done += size
    return parts


def _factory(defs: list, texts: list[str], free: list[str], builtin: dict, every: set,
             namespace: dict) -> tuple[str, list[str]]:
    names = [d.name for d in defs]
    own = set(names)
    read = {n.id for d in defs for n in ast.walk(d) if isinstance(n, ast.Name)}
    called = sorted(read & (every - own))
    body = [f"{native_slots.BIND}(fields)"]
    body += [native_types.constant_line(k, namespace[k]) for k in free if k in read and k not in own and k not in builtin]
    body += texts
    link = ["def link():"]
    if called:
        link += ["    nonlocal " + ", ".join(called)] + [f"    {k} = ns[{k!r}]" for k in called]
    else:
        link.append("    pass")
    body += link
    body.append("return ({" + ", ".join(f"{n!r}: {n}" for n in names) + "}, link)")
    return ("\n".join((native_types.IMPORT, native_slots.IMPORT, native_ints.IMPORT, native_mt.IMPORT)) + "\n\n\ndef make(ns, fields):\n" + textwrap.indent("\n".join(body), "    ") + "\n",
            names)


def _native_text(d: ast.FunctionDef, builtin: dict) -> str:
    """`ast.unparse(d)` with each name of `builtin` read as the builtin's own name, and the
    fields of the engine's objects read and written through their slots (native_slots.py), and
    its ordering comparisons and computed indexes done in C for small integers (native_ints.py); `d`
    itself is left as it was (the program keeps its code). The nodes are swapped in place for
    the time of the unparse (copying the tree would cost more): one thread compiles a program."""
    renamed = [(n, n.id) for n in ast.walk(d) if isinstance(n, ast.Name) and n.id in builtin]
    for n, name in renamed:
        n.id = builtin[name]
    slots, ints, types = native_slots.SlotAccess(), native_ints.IntOps(), native_types.Declared()
    try:
        slots.rewrite(d)
        ints.rewrite(d)
        types.rewrite(d)
        return ast.unparse(d)
    finally:
        types.undo()
        ints.undo()
        slots.undo()
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


def headers() -> dict[str, str]:
    """Files every part's source reads besides itself (its cimports)."""
    return {native_slots.MODULE + ".pxd": native_slots.pxd_text(), native_ints.MODULE + ".pxd": native_ints.pxd_text(),
            native_mt.MODULE + ".pxd": native_mt.PXD}


def key_of(texts: list[str]) -> str:
    import Cython

    from vbr import __version__
    parts = [str(FORMAT), __version__, Cython.__version__, sys.version, sysconfig.get_platform(),
             " ".join(native_build.compiler() or []), " ".join(native_build.CFLAGS), " ".join(native_build.LDFLAGS),
             native_training.settings(),
             *(f"{name}\0{text}" for name, text in sorted(headers().items())), *texts]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _modules(texts: list[str], note, train=None) -> list:
    key = key_of(texts)
    modules = _LOADED.get(key)
    if modules is None:
        modules = _LOADED[key] = native_cache.modules_for(texts, key, note, headers(), train)
    return modules
