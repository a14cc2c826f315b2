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
BUILD_SECONDS = 900  # each of the two steps (Cython, the C compiler), wall clock and CPU
# Cython's time doubles with each assignment expression nested in another (`(_t := ... (_u := ...))`,
# the overflow checks of nested arithmetic): 18 deep takes seconds, 30 would take hours. A function
# nested deeper than this stays Python (the bundled files reach 6).
MAX_NESTED_ASSIGNMENTS = 12
STALE_SECONDS = 2 * BUILD_SECONDS + 60  # a build folder this old belongs to a build that was killed
MAX_CACHE_BYTES = 1 << 30  # beyond, a new build removes the modules used longest ago (a module is 1-11 MB)
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
    too_deep = {d.name for d in _defs(modules) if nested_assignments(d) > MAX_NESTED_ASSIGNMENTS}
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


def factory_source(modules: list, namespace: dict, refused: set) -> tuple[str, list[str]]:
    """`def make(ns):` holding every generated function, its free names read from `ns` first,
    returning the functions by name. Python's own form runs the same text at module level."""
    defs = [d for d in _defs(modules) if d.name not in refused]
    names = [d.name for d in defs]
    own = set(names)
    free = sorted(k for k in namespace if not k.startswith("__") and k not in own)
    body = [f"{k} = ns[{k!r}]" for k in free]
    body += [ast.unparse(d) for d in defs]
    body.append("return {" + ", ".join(f"{n!r}: {n}" for n in names) + "}")
    return "def make(ns):\n" + textwrap.indent("\n".join(body), "    ") + "\n", names


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
    with _BuildLock(path + ".lock"):  # a second process waits for the first's build, then loads it
        data = _intact(path)
        if data is not None:
            try:
                module = _load(name, data, folder)
                _used(path)
            except _LOAD_ERRORS:  # its hash matches, yet it does not load (a file damaged with its hash)
                module = None
        if module is None:
            if note is not None:
                note(f"building native code (once for these rules and options; kept in {folder})")
            _sweep(folder)
            data = _build(text, name, folder, path)
            try:
                module = _load(name, data, folder)
            except _LOAD_ERRORS as exc:
                raise NativeUnavailable(f"the native code built here does not load: {exc}") from None
            _evict(folder, keep=path)
    _LOADED[key] = module
    return module


def _intact(path: str) -> bytes | None:
    """The built file's bytes, if they are those its build recorded."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        with open(path + ".sha256", encoding="ascii") as f:
            recorded = f.read().strip()
    except OSError:
        return None
    return data if recorded == hashlib.sha256(data).hexdigest() else None


class _BuildLock:
    """An advisory lock on a file beside the module (none where `fcntl` is missing: then two
    processes may both build, and the last one's file stands, which is still whole). With
    `wait=False`, `held` says whether it was had at once."""

    def __init__(self, path: str, wait: bool = True):
        self.path, self.wait, self.file, self.held = path, wait, None, False

    def __enter__(self):
        try:
            import fcntl
        except ImportError:
            self.held = True
            return self
        try:
            self.file = open(self.path, "a+b")
            fcntl.flock(self.file, fcntl.LOCK_EX if self.wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.held = True
        except OSError:
            if self.file is not None:
                self.file.close()
            self.file = None
            self.held = self.wait  # a lock file that cannot be opened: go on unlocked, as without fcntl
        return self

    def __exit__(self, *exc):
        if self.file is not None:
            self.file.close()  # closing releases the lock


def _used(path: str) -> None:
    """Mark the module as used now: eviction goes by the time its hash file was last touched."""
    try:
        os.utime(path + ".sha256")
    except OSError:
        pass


def _evict(folder: str, keep: str) -> None:
    """Keep the folder under MAX_CACHE_BYTES: remove the modules used longest ago (never `keep`,
    just built, nor one another process holds the lock of: it is building or loading it)."""
    suffix = _suffix()
    modules = []
    for entry in os.scandir(folder):
        if entry.name.startswith("vbr_native_") and entry.name.endswith(suffix) and entry.path != keep:
            try:
                used = os.stat(entry.path + ".sha256").st_mtime
            except OSError:
                used = 0.0
            modules.append((used, entry.path, entry.stat().st_size))
    total = sum(size for _, _, size in modules) + _size(keep)
    for _, path, size in sorted(modules):
        if total <= MAX_CACHE_BYTES:
            return
        with _BuildLock(path + ".lock", wait=False) as lock:
            if not lock.held:
                continue
            for gone in (path + ".sha256", path):  # the hash first: a module without one is never loaded
                try:
                    os.remove(gone)
                except OSError:
                    pass
            total -= size


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _sweep(folder: str) -> None:
    """Remove the build folders of builds that were killed (a finished or failed build removes
    its own)."""
    import shutil
    import time
    now = time.time()
    for entry in os.scandir(folder):
        try:
            if entry.name.startswith("tmp") and entry.is_dir() and now - entry.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            pass


def _build(text: str, name: str, folder: str, path: str) -> bytes:
    """Cython, then the C compiler, in a private folder; the result moved into place whole (a
    process starting meanwhile never reads half a file), its hash written beside it last.
    Returns the built file's bytes."""
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
            data = f.read()
        os.replace(built, path)
        tmp = os.path.join(work, "sha256")  # removed with the folder if the write fails
        with open(tmp, "w", encoding="ascii") as f:
            f.write(hashlib.sha256(data).hexdigest() + "\n")
        os.replace(tmp, path + ".sha256")
    return data


# Each step runs under a CPU-time limit of its own (set by this trampoline, which then becomes the
# step): a step orphaned by a killed vbr still stops.
_LIMITED = ("import os, sys\n"
            "try:\n"
            "    import resource\n"
            "    resource.setrlimit(resource.RLIMIT_CPU, (int(sys.argv[1]), int(sys.argv[1]) + 5))\n"
            "except (ImportError, ValueError, OSError):\n"
            "    pass\n"
            "os.execvp(sys.argv[2], sys.argv[2:])\n")


def _run(argv: list[str], what: str, cwd: str) -> None:
    """One step, in a process group of its own, so that a timeout or Ctrl-C stops the step and
    whatever it started (the C compiler's own passes)."""
    limited = [sys.executable, "-I", "-c", _LIMITED, str(BUILD_SECONDS), *argv]
    try:
        step = subprocess.Popen(limited, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                errors="replace", cwd=cwd, start_new_session=True)
    except OSError as exc:
        raise NativeUnavailable(f"{what} could not be run: {exc.strerror}") from None
    try:
        out, err = step.communicate(timeout=BUILD_SECONDS)
    except subprocess.TimeoutExpired:
        _stop(step)
        raise NativeUnavailable(f"{what} took more than {BUILD_SECONDS} s on the generated code") from None
    except BaseException:
        _stop(step)
        raise
    if step.returncode != 0:
        last = (err or out).strip().splitlines()[-3:]
        raise NativeUnavailable(f"{what} failed on the generated code (exit {step.returncode})"
                                + (": " + " / ".join(last) if last else ""))


def _stop(step: subprocess.Popen) -> None:
    import signal
    try:
        os.killpg(step.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups here, or the group is gone
        step.kill()
    step.wait()


_LOAD_ERRORS = (ImportError, OSError, SystemError)


def _load(name: str, data: bytes, folder: str):
    """Load the module from a private copy of the bytes whose hash was checked: what is loaded is
    what was checked, whatever happens to the cached file meanwhile."""
    with tempfile.TemporaryDirectory(dir=folder, ignore_cleanup_errors=True) as work:
        path = os.path.join(work, name + _suffix())
        with open(path, "wb") as f:
            f.write(data)
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
