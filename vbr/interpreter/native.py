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
own constants, however many programs of the same rules one process loads. The module's name and
file are keyed by a hash of that text and of everything the build depends on (this module's
FORMAT, vbr's, Cython's and Python's versions, the compiler's flags); beside it lies the hash of
the built file, and a file whose hash does not match is built again, never loaded.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import textwrap

from vbr.errors import UsageError

FORMAT = 1  # the shape of the source below: a change of it must change every key
MAX_SOURCE = 1_500_000  # characters of generated source (the largest bundled file: 522,000): beyond, no build is tried
BUILD_SECONDS = 900  # each of the two steps (Cython, the C compiler)
CFLAGS = ("-O2", "-fPIC", "-shared")

_LOADED: dict[str, object] = {}  # key -> module: an extension module loads once per process


class NativeUnavailable(UsageError):
    """Native code cannot be had here: the reason, in words a user can act on (the CLI prints it
    as a usage error: the command asked for what this machine cannot give)."""


def unavailable() -> str | None:
    """Why no native build can be made on this machine, or None when one can be tried."""
    try:
        import Cython  # noqa: F401
    except ImportError:
        return "native code needs Cython: install vbr with the `native` extra (pip install 'vbr[native]')"
    if _compiler() is None:
        return "native code needs a C compiler (`cc`, or the one in $CC) and none was found"
    if not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        return "native code needs Python's C headers (Python.h), and this Python has none (python3-dev)"
    return None


def make_native(program, modules: list, refused: list, codes: list, note=None) -> int:
    """Put the compiled functions in place of the generated Python ones in `program` (its ops,
    pure procedures and namespace); returns how many places were swapped. `note(text)` hears of
    a build before it starts (it can take minutes)."""
    reason = unavailable()
    if reason is not None:
        raise NativeUnavailable(reason)
    namespace = program.lowering.namespace
    text, names = factory_source(modules, namespace, set(refused))
    if not names:
        return 0
    if len(text) > MAX_SOURCE:
        raise NativeUnavailable(f"the generated code is too large to compile ({len(text):,} characters, "
                                f"at most {MAX_SOURCE:,})")
    module = _module(text, note)
    made = module.make(namespace)
    return _install(program, namespace, made, codes)


def factory_source(modules: list, namespace: dict, refused: set) -> tuple[str, list[str]]:
    """`def make(ns):` holding every generated function, its free names read from `ns` first,
    returning the functions by name. Python's own form runs the same text at module level."""
    defs = [d for m in modules for d in m.body if isinstance(d, ast.FunctionDef) and d.name not in refused]
    names = [d.name for d in defs]
    own = set(names)
    free = sorted(k for k in namespace if not k.startswith("__") and k not in own)
    body = [f"{k} = ns[{k!r}]" for k in free]
    body += [ast.unparse(d) for d in defs]
    body.append("return {" + ", ".join(f"{n!r}: {n}" for n in names) + "}")
    return "def make(ns):\n" + textwrap.indent("\n".join(body), "    ") + "\n", names


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
             " ".join(_compiler() or []), " ".join(CFLAGS), text]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _module(text: str, note):
    key = key_of(text)
    module = _LOADED.get(key)
    if module is not None:
        return module
    folder = _cache_folder()
    name = f"vbr_native_{key[:40]}"
    path = os.path.join(folder, name + _suffix())
    if not _intact(path):
        if note is not None:
            note(f"building native code (once for these rules and options; kept in {folder})")
        _build(text, name, folder, path)
    module = _LOADED[key] = _load(name, path)
    return module


def _intact(path: str) -> bool:
    """The built file is there and its bytes are those its build recorded."""
    try:
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        with open(path + ".sha256", encoding="ascii") as f:
            return f.read().strip() == digest
    except OSError:
        return False


def _build(text: str, name: str, folder: str, path: str) -> None:
    """Cython, then the C compiler, in a private folder; the result moved into place whole (a
    process starting meanwhile never reads half a file), its hash written beside it last."""
    with tempfile.TemporaryDirectory(dir=folder) as work:
        source, c_file, built = (os.path.join(work, name + ext) for ext in (".py", ".c", _suffix()))
        with open(source, "w", encoding="utf-8") as f:
            f.write(text)
        # -I and the private folder as the working directory: no `cython.py` lying where the user
        # stands (beside a rule file, say) is ever imported in Cython's place
        _run([sys.executable, "-I", "-m", "cython", "-3", "--fast-fail", source, "-o", c_file], "Cython", work)
        include = sysconfig.get_paths()["include"]
        _run([*_compiler(), *CFLAGS, *_platform_flags(), "-I", include, c_file, "-o", built], "the C compiler", work)
        with open(built, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        os.replace(built, path)
    tmp = f"{path}.sha256.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(digest + "\n")
    os.replace(tmp, path + ".sha256")


def _run(argv: list[str], what: str, cwd: str) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_SECONDS, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise NativeUnavailable(f"{what} took more than {BUILD_SECONDS} s on the generated code") from None
    except OSError as exc:
        raise NativeUnavailable(f"{what} could not be run: {exc.strerror}") from None
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise NativeUnavailable(f"{what} failed on the generated code (exit {done.returncode})"
                                + (": " + " / ".join(last) if last else ""))


def _load(name: str, path: str):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _cache_folder() -> str:
    from vbr.grammar.parser import cache_dir
    folder = cache_dir("native")
    if folder is None:
        raise NativeUnavailable("native code is kept in the user's cache directory ($XDG_CACHE_HOME/vbr or "
                                "~/.cache/vbr), which cannot be written")
    return folder


def _compiler() -> list[str] | None:
    import shutil
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    try:
        argv = shlex.split(cc)
    except ValueError:  # an unclosed quote in $CC
        return None
    return argv if argv and shutil.which(argv[0]) else None


def _platform_flags() -> list[str]:
    return ["-undefined", "dynamic_lookup"] if sys.platform == "darwin" else []


def _suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]
