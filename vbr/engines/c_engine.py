"""The C engine: a typed program's generated C (c_source.py), compiled by the system's C
compiler into a shared library, cached, and called through ctypes; a whole random game, the
call a run of many games makes, through a small compiled module of its own (whole_game_call.c,
built once per Python and cached alike), which costs a fifth of the Python-side work of a call
through ctypes (docs/performance.md). A state is an array of 64-bit words (`vbr.ir.layout`), the same words the Python engine keeps in a list.

A build is bounded: a generated source of more than `MAX_SOURCE` characters is not compiled, the
compiler runs with at most `compiler_memory()` bytes of address space, `BUILD_CPU` seconds of
CPU and `BUILD_TIMEOUT` of wall clock, nor `BUILD_IDLE` seconds without using CPU (its whole
process group stopped past them), and
c_split.py keeps each generated function to a size the compiler handles in linear time and
memory. Past a bound, or on a full disk, the build raises CEngineUnavailable saying which.

The cache lives in the user's cache directory (`$XDG_CACHE_HOME/vbr/c`, mode 0700), one library
per hash of the generated source and the compiler's version, bounded in size (`$VBR_C_CACHE_MB`,
the entries used least recently deleted first: vbr.engines.c_cache, which says what an entry is and
the locks it is used under). A rule file loaded by name
(vbr.engines.load_key) also leaves a sealed reference from its load key and the compiler's file
to its library, so loading it again finds the library without generating the C. A library is used only when the
folder and the file belong to this user and no one else may write them, and when its name's
hash matches its recorded digest; two processes building the same program build it once (a lock
file), and a library is written under a temporary name and renamed into place. A library is
checked and loaded under its entry's lock, so the bound's pruning never deletes it meanwhile.
"""
from __future__ import annotations

import ctypes
import errno
import hashlib
import hmac
import importlib.machinery
import importlib.util
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from contextlib import contextmanager
from functools import cached_property
from importlib import resources
from pathlib import Path

from vbr import cache_folder, private_cache, stop_signals
from vbr.engines import c_cache
from vbr.errors import Diagnostic, EngineUnavailable, Span
from vbr.engines.python_runtime import GREEDY_SEAT, EngineFault
from vbr.engines.unit_call import call_unit
from vbr.ir import nodes as N
from vbr.ir import random_streams as R
from vbr.ir.layout import CHOICE, Header as H
from vbr.ir.rule_names import SCENARIO_UNITS, first_line, rule_of

# -ffp-contract=off: no fused multiply-adds, so the search's doubles are Python's, bit for bit;
# -fno-semantic-interposition: the library's own entry points may be inlined into each other
COMPILER_FLAGS = ["-O2", "-shared", "-fPIC", "-fno-strict-aliasing", "-ffp-contract=off", "-w",
                  "-fno-semantic-interposition"]
LINK_FLAGS = ["-lm"]  # after the source: the search's log, sqrt and tanh
# a scenario file's program (`vbr test`, `vbr mutate`) plays a few steps a scenario: built without
# optimizing, in about a third of the time (Cattack's scenarios under `--engine c`, cold: 12 s
# against 34 s at -O2)
SCENARIO_FLAGS = ("-O0",)
TRACK_ROWS = 4096  # score changes a game's track keeps (play_seats)
# the imagined worlds a play_seats call's greedy seats may try (vbr_greedy_pick) before it hands play
# back, so that Ctrl-C, heard between calls, stops a run of many samples within a fraction of a second
PICKED_WORLDS = 1 << 14
BUILD_CPU = 300  # seconds of CPU each compiler process may take
BUILD_TIMEOUT = 900  # seconds of wall clock a compile may take (a busy machine stretches the CPU's 300)
BUILD_IDLE = 60  # seconds a compile may go on without using any CPU (a compiler that hangs), where /proc tells
IDLE_CHECK = 2  # seconds between two looks at the compile's CPU time
MAX_SOURCE = 2_000_000  # characters of generated C compiled at most (about 10,000 statements)
COMPILER_MEMORY_MB = 2048  # address space of each compiler process; $VBR_CC_MEMORY_MB sets another
_OUT_OF_MEMORY = re.compile(r"out of memory|memory exhausted|cannot allocate memory|killed signal|"
                            r"failed to map segment", re.I)
_NO_SPACE = re.compile(r"no space left on device", re.I)


class CEngineUnavailable(EngineUnavailable):
    """The C engine cannot run here: no C compiler, a build that failed, an untrusted cache."""

    def located(self) -> str:
        return f"vbr: error: the C engine cannot run here: {self}"


class SourceTooLarge(CEngineUnavailable):
    """A rule file whose C would pass MAX_SOURCE, located at the rule that makes most of it
    (too_large): an error of the rule file, which `--engine auto` plays through Python."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span

    def located(self) -> str:
        return f"{self.span}: error: the C engine cannot run here: {self}"

    def render(self) -> str:
        return Diagnostic(self.span, f"the C engine cannot run here: {self}").render()


def too_large(program: N.Program, module) -> SourceTooLarge:
    """The error for a program whose C (module, a c_source.CModule) passes MAX_SOURCE, at the
    smallest rule that makes more than half of it: a statement (a `fn` given a list is written
    out at each call, so a list of such calls may be it), else a phase, procedure or handler (a procedure
    built for several kinds of arguments counting each), or a scenario file's steps (the units
    of its `given` blocks and of the values its steps name), at that file's first line; else at
    the rule file's first line, naming the rule that makes the most."""
    total = len(module.text)
    scenarios = any(u.kind in SCENARIO_UNITS for u in program.units)
    maker = "the rule file with these scenarios makes" if scenarios else "the rule file makes"
    head = f"{maker} {total:,} characters of C, more than the {MAX_SOURCE:,} the C engine compiles (its limit on generated C)"
    chars, span = module.largest
    if span is not None and 2 * chars > total:
        return SourceTooLarge(f"{head}; about {chars:,} of them come from this statement", span)
    by_rule: dict[tuple, int] = {}
    for unit, n in zip(program.units, module.unit_chars):
        key = rule_of(unit)
        by_rule[key] = by_rule.get(key, 0) + n
    (what, span), chars = max(by_rule.items(), key=lambda kv: kv[1])
    if 2 * chars > total:
        return SourceTooLarge(f"{head}; about {chars:,} of them come from {what}", span)
    at = first_line(program.units[0].span.file if program.units else span.file)
    return SourceTooLarge(f"{head}; the most from one rule, about {chars:,}, come from {what}", at)


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        raise CEngineUnavailable("no C compiler found (install gcc, or set CC)")
    return cc


def compiler_version(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, errors="replace", timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CEngineUnavailable(f"the C compiler `{cc}` does not answer: {exc}") from None
    return out.stdout.splitlines()[0] if out.stdout else cc


def cache_dir() -> Path:
    """vbr's cache folder for built engines (vbr.private_cache: 0700, the user's alone)."""
    for made in (private_cache.base(), private_cache.base() / "c"):
        if made.exists():
            why = private_cache.untrusted(made, folder=True)
            if why:
                raise CEngineUnavailable(f"{why}; the C engine will not build or load there")
    d = private_cache.folder("c")
    if d is None:
        raise CEngineUnavailable(f"the C engine has no cache folder it may use ({private_cache.base() / 'c'})")
    return d


def compiler_flags(version: str) -> list[str]:
    """COMPILER_FLAGS, and for GCC on x86-64 TLS descriptors: the fault's jump buffer is
    thread-local, and a library loaded at run time otherwise reaches it through a call of
    __tls_get_addr each time a state runs."""
    if platform.machine() in ("x86_64", "AMD64") and "clang" not in version.lower():
        return COMPILER_FLAGS + ["-mtls-dialect=gnu2"]
    return COMPILER_FLAGS


def compiler_memory() -> int:
    """Bytes of address space each compiler process may take ($VBR_CC_MEMORY_MB, in MB)."""
    value = os.environ.get("VBR_CC_MEMORY_MB", "")
    try:
        mb = int(value) if value else COMPILER_MEMORY_MB
    except ValueError:
        raise CEngineUnavailable(f"VBR_CC_MEMORY_MB={value!r} is not a number of megabytes") from None
    if mb <= 0:
        raise CEngineUnavailable(f"VBR_CC_MEMORY_MB={value!r} is not a number of megabytes")
    return mb << 20


def cache_limit() -> int:
    """Bytes the C engine's cache folder may hold ($VBR_C_CACHE_MB, in MB: vbr.engines.c_cache)."""
    try:
        return c_cache.limit()
    except ValueError as exc:
        raise CEngineUnavailable(str(exc)) from None


def cached_library(key: str) -> Path | None:
    """The library a load with this key (vbr.engines.load_key) was given before by this compiler,
    when its reference and the library are intact; else None."""
    found = _referenced(key)
    if found is None:
        return None
    folder, digest = found
    lib, sums = c_cache.library_files(folder, digest)
    return lib if _intact(lib, sums, digest) else None


def _referenced(key: str) -> tuple[Path, str] | None:
    """The cache folder and the digest of the library that a load with this key's sealed
    reference names; None when there is none, or it is not sealed by this user for this key, or
    the cache cannot be used as it is set (a $VBR_C_CACHE_MB that is no whole number: the build
    that follows says so, whether or not the library is cached)."""
    try:
        cache_limit()
        folder, cc = cache_dir(), compiler()
        named = private_cache.read_sealed(c_cache.reference_file(folder, key), _reference_key(key, cc))
    except (CEngineUnavailable, OSError):
        return None
    if named is None or not re.fullmatch(rb"[0-9a-f]{64}", named):
        return None
    return folder, named.decode()


def _cached_loaded(key: str, load=None):
    """The library cached_library finds, checked and loaded under its entry's shared lock (no
    prune deletes it meanwhile: vbr.engines.c_cache) and marked as used now; None when none is.
    `load(path)` loads it (default `_loaded`, an engine's library through ctypes)."""
    found = _referenced(key)
    if found is None:
        return None
    folder, digest = found
    lib, sums = c_cache.library_files(folder, digest)
    if not lib.exists():  # gone: no lock is made for it
        return None
    try:
        with c_cache.locked(folder, digest, shared=True):
            if not _intact(lib, sums, digest):
                return None
            cache_folder.touch(lib)
            return (load or _loaded)(lib)
    except OSError:
        return None


def _reference_key(key: str, cc: str) -> bytes:
    """What a load's reference is sealed under: its key and the compiler's file as it is now
    (path, size, time, inode), so another compiler at the same name gives another reference.
    A `cc` without a folder (CC=gcc) is the program of that name on PATH, as the build runs it."""
    st = os.stat(os.path.realpath(shutil.which(cc) or cc))
    return f"c-engine-load:{key}:{cc}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}".encode("utf-8", "surrogatepass")


def build_library(source: str, note=None, key: str | None = None) -> Path:
    """The compiled library of `source`, from the cache or built now (`note` hears of a build);
    with a load key, a reference to it is left for cached_library."""
    return _with_library(source, note, key, lambda lib: lib)


def _with_library(source: str, note, key: str | None, use, more_flags: tuple = (), what: str = "the C engine"):
    """`use(library)` of `source`'s compiled library, from the cache or built now, called under
    its entry's lock (build_library says the rest); `more_flags` go to the compiler after its
    usual ones; `note` hears "building <what>". A library found is marked as used now; one built,
    or a reference written, counts toward the cache's next prune (vbr.engines.c_cache)."""
    if len(source) > MAX_SOURCE:
        raise CEngineUnavailable(f"the rule file makes {len(source):,} characters of C, more than the "
                                 f"{MAX_SOURCE:,} the C engine compiles")
    cc = compiler()
    version = compiler_version(cc)
    flags = compiler_flags(version) + list(more_flags)
    digest = hashlib.sha256((version + "\0" + " ".join(flags + LINK_FLAGS) + "\0" + source).encode()).hexdigest()
    bound = cache_limit()
    folder = cache_dir()
    lib, sums = c_cache.library_files(folder, digest)
    try:
        # a regular file only: a named pipe at its name would hold the open forever
        with c_cache.locked(folder, digest):
            built = not _intact(lib, sums, digest)
            if built:
                _build(cc, flags, source, lib, sums, digest, folder, note, what)
            else:
                cache_folder.touch(lib)
            if key is not None:
                private_cache.write_sealed(c_cache.reference_file(folder, key), _reference_key(key, cc),
                                           digest.encode())
            if built or key is not None:
                c_cache.wrote(folder, bound)
            return use(lib)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise CEngineUnavailable(f"no space left on device: the C engine cannot build in {folder}") from None
        why = exc.strerror or str(exc)
        where = "" if exc.filename is not None and str(exc.filename) in why else f" in {folder}"  # named once
        raise CEngineUnavailable(f"the C engine cannot build{where}: {why}") from None


def _build(cc: str, flags: list[str], source: str, lib: Path, sums: Path, digest: str, folder: Path, note,
           what: str) -> None:
    """Compile `source` into `lib`, its sealed hash into `sums` (the caller holds the lock)."""
    for target in (lib, sums):  # a folder at either name would stop the build only once it is done
        private_cache.refuse_folder(target)
    if note is not None:
        note(f"building {what} ({len(source.splitlines())} lines of C)")
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        src = Path(tmp) / "engine.c"
        src.write_text(source)
        out = Path(tmp) / "engine.so"
        _compile([cc, *flags], src, out, folder)
        built = _built_library(cc, out)
        os.chmod(out, 0o700)
        if not private_cache.write_sealed(sums, _seal_key(digest), hashlib.sha256(built).digest()):
            raise CEngineUnavailable(f"the C engine cannot seal its build in {folder}")
        os.replace(out, lib)


def _compile(cc: list[str], src: Path, out: Path, folder: Path) -> None:
    """Compile src into out (`cc`: the compiler and its flags) within the memory and time bounds,
    or raise CEngineUnavailable saying which bound, or that the disk is full, or what the
    compiler said."""
    memory = compiler_memory()

    def bounded():  # in the child, before the compiler starts; its own processes inherit the bounds
        for limit, soft, hard in ((resource.RLIMIT_AS, memory, memory),
                                  (resource.RLIMIT_CPU, BUILD_CPU, BUILD_CPU + 5)):
            ceiling = resource.getrlimit(limit)[1]  # a bound already lower stays
            if ceiling != resource.RLIM_INFINITY:
                soft, hard = min(soft, ceiling), min(hard, ceiling)
            resource.setrlimit(limit, (soft, hard))

    with _COMPILING_LOCK:  # started and counted at once, or not at all: stopped_builds sees every one
        if _REFUSING:
            raise CEngineUnavailable("the C build was stopped")
        proc = subprocess.Popen([*cc, "-o", str(out), str(src), *LINK_FLAGS], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace", preexec_fn=bounded,
                                start_new_session=True)
        _COMPILING.add(proc)
    try:
        with stop_signals.as_ctrl_c():  # a kill of vbr stops the compiler too, not only a Ctrl-C
            err = _awaited(proc, cc[0])
    except BaseException:
        _stop(proc)
        raise
    finally:
        with _COMPILING_LOCK:
            _COMPILING.discard(proc)
            stopped = proc in _STOPPED
            _STOPPED.discard(proc)
    if stopped:
        raise CEngineUnavailable("the C build was stopped")
    if proc.returncode == 0:
        return
    if _NO_SPACE.search(err):
        raise CEngineUnavailable(f"no space left on device: the C engine cannot build in {folder}")
    if proc.returncode == -signal.SIGXCPU or "CPU time limit" in err:
        raise CEngineUnavailable(f"the C compiler took more than {BUILD_CPU} s of CPU")
    if _OUT_OF_MEMORY.search(err) or proc.returncode in (-signal.SIGKILL, -signal.SIGSEGV):
        raise CEngineUnavailable(f"the C compiler needed more than its {memory >> 20:,} MB of memory "
                                 f"(VBR_CC_MEMORY_MB sets another bound)")
    if not err.strip():  # a compiler that fails without a word is named, with its exit status
        raise CEngineUnavailable(f"the C compiler `{cc[0]}` failed (exit status {proc.returncode}) and said nothing")
    raise CEngineUnavailable("the C compiler failed: " + err.strip()[-2000:])


def _awaited(proc: subprocess.Popen, cc: str) -> str:
    """What the compile said on stderr once it has ended; CEngineUnavailable past BUILD_TIMEOUT
    seconds of wall clock, or after BUILD_IDLE seconds in which none of its processes used any
    CPU (vbr.engines.session_cpu; a compiler that sleeps, or waits on what never comes)."""
    from vbr.engines.session_cpu import session_cpu
    start = last_busy = time.monotonic()
    used = session_cpu(proc.pid)
    while True:
        try:
            return proc.communicate(timeout=IDLE_CHECK)[1]
        except subprocess.TimeoutExpired:
            pass
        now, before, used = time.monotonic(), used, session_cpu(proc.pid)
        if used is None or before is None or used > before:
            last_busy = now
        if now - last_busy > BUILD_IDLE:
            raise CEngineUnavailable(f"the C compiler `{cc}` used no CPU for {BUILD_IDLE} s: it seems to hang") \
                from None
        if now - start > BUILD_TIMEOUT:
            raise CEngineUnavailable(f"the C compiler took more than {BUILD_TIMEOUT} s of wall clock") from None


def _built_library(cc: str, out: Path) -> bytes:
    """The bytes of the library a compiler that exited 0 left at `out`: a regular file (never a
    named pipe, which would hold the read forever), else CEngineUnavailable naming the compiler."""
    try:
        fd = private_cache.open_regular(out, os.O_RDONLY)
    except FileNotFoundError:
        raise CEngineUnavailable(f"the C compiler `{cc}` exited 0 but wrote no library") from None
    except OSError:
        raise CEngineUnavailable(f"the C compiler `{cc}` exited 0 but left no regular file as its library") from None
    with os.fdopen(fd, "rb") as f:
        return f.read()


_COMPILING: set = set()  # the compiler processes running, in every thread (stopped_builds)
_STOPPED: set = set()  # those stopped_builds stopped
_REFUSING = 0  # stopped_builds blocks open: while above 0, no compiler starts
_COMPILING_LOCK = threading.Lock()


@contextmanager
def stopped_builds():
    """While inside: every C compiler this process runs is stopped, whichever thread waits for
    it, and none starts; each such build ends in CEngineUnavailable. For a command stopped while
    builds run on threads of its own (vbr.sim.build_ahead), which Ctrl-C does not reach: inside,
    it waits for those threads, which a compile started after the stop would keep for minutes."""
    global _REFUSING
    with _COMPILING_LOCK:
        _REFUSING += 1
        running = list(_COMPILING)
        _STOPPED.update(running)
    for proc in running:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        yield
    finally:
        with _COMPILING_LOCK:
            _REFUSING -= 1


def _stop(proc: subprocess.Popen) -> None:
    """Stop the compiler and every process it started (its own session), and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.communicate()


def _intact(lib: Path, sums: Path, digest: str) -> bool:
    """Whether the library may be loaded: the user's own file, whose hash its sealed sums file
    (vbr.private_cache, under the user's secret) gives: a planted pair is never loaded."""
    if not (lib.exists() and sums.exists()):
        return False
    built = private_cache.read_trusted(lib)
    sealed = private_cache.read_sealed(sums, _seal_key(digest)) if built is not None else None
    return sealed is not None and hmac.compare_digest(sealed, hashlib.sha256(built).digest())


def _seal_key(digest: str) -> bytes:
    return b"c-engine:" + digest.encode()


ENGINE_FUNCTIONS = ("vbr_new", "vbr_apply", "vbr_play_game", "vbr_play_many", "vbr_game", "vbr_apply_logged")
SEARCH_FUNCTIONS = ("vbr_mcts", "vbr_mcts_visits", "vbr_determinize", "vbr_search_fault", "vbr_greedy", "vbr_greedy_pick")


def _loaded(lib: Path, functions: tuple = ENGINE_FUNCTIONS) -> ctypes.CDLL:
    """The built library `lib` loaded, with the `functions` every build of its source has (a
    program's, else the search library's); else CEngineUnavailable (a compiler that wrote
    something else: CC names what made it)."""
    try:
        loaded = ctypes.CDLL(str(lib))
        for name in functions:
            getattr(loaded, name)
    except (OSError, AttributeError) as exc:
        raise CEngineUnavailable(f"the library the C compiler `{compiler()}` built cannot be loaded ({exc})") from None
    return loaded


_SEARCH: dict = {}  # (cache folder, compiler, width) -> the search library loaded from there
_SEARCH_LOCK = threading.Lock()


def search_library(width: int, note=None) -> ctypes.CDLL:
    """The search library (c_search.c, c_source.search_source) of the programs whose things have
    `width` words: one source for all of them, built once per compiler and cached and trusted as
    a program's library is (the first search of a process builds it when the cache has none;
    `note` hears of that), loaded once per process; its functions typed. Each takes the
    program's VbrGame (CEngine.game) first."""
    from vbr.engines.c_source import search_source
    where = (str(cache_dir()), compiler(), width)
    with _SEARCH_LOCK:
        if where not in _SEARCH:
            source = search_source(width)
            key = hashlib.sha256(("search-library\0" + source).encode()).hexdigest()
            found = _cached_loaded(key, _search_loaded)
            _SEARCH[where] = found if found is not None else \
                _with_library(source, note, key, _search_loaded, what="the C engine's search")
        return _SEARCH[where]


def _search_loaded(lib: Path) -> ctypes.CDLL:
    loaded = _loaded(lib, SEARCH_FUNCTIONS)
    W, U, V = ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p
    P, D = ctypes.POINTER(W), ctypes.POINTER(ctypes.c_double)
    loaded.vbr_determinize.argtypes, loaded.vbr_determinize.restype = [V, P, P, W, U], ctypes.c_int
    loaded.vbr_mcts.argtypes, loaded.vbr_mcts.restype = [V, P, W, D, U, P], W
    loaded.vbr_mcts_visits.argtypes, loaded.vbr_mcts_visits.restype = [V, P, W, D, U, P, P], W
    loaded.vbr_search_fault.argtypes, loaded.vbr_search_fault.restype = [P], None
    loaded.vbr_greedy.argtypes, loaded.vbr_greedy.restype = [V, P, W, ctypes.POINTER(U), P, W], W
    return loaded


CALLER_MODULE = "vbr_whole_game_call"  # whole_game_call.c's PyInit_ names it
_CALLER: list = []  # the module whole_game_caller found, or None: looked for once per process
_CALLER_LOCK = threading.Lock()


def whole_game_caller():
    """The compiled module (whole_game_call.c) whose Player calls vbr_play_game without
    libffi, built against this Python's headers once per Python and compiler and cached as the
    engines are; None when it cannot be (no Python.h, or no build or load): CEngine.whole_games
    then calls through ctypes, which plays the same games more slowly."""
    if not _CALLER:
        with _CALLER_LOCK:
            if not _CALLER:
                _CALLER.append(_built_caller())
    return _CALLER[0]


def _built_caller():
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.isfile(os.path.join(include, "Python.h")):
        return None
    made_for = f"/* {sys.implementation.cache_tag} {sys.version.split()[0]} {sysconfig.get_config_var('EXT_SUFFIX')} */\n"
    source = made_for + resources.files("vbr.engines").joinpath("whole_game_call.c").read_text()
    key = hashlib.sha256(("whole-game-call\0" + source).encode()).hexdigest()
    try:
        found = _cached_loaded(key, _extension)
        return found if found is not None else _with_library(source, None, key, _extension, ("-I" + include,))
    except CEngineUnavailable:
        return None


def _extension(lib: Path):
    """The Python extension module built at `lib`, imported; else CEngineUnavailable."""
    try:
        loader = importlib.machinery.ExtensionFileLoader(CALLER_MODULE, str(lib))
        module = importlib.util.module_from_spec(importlib.util.spec_from_loader(CALLER_MODULE, loader))
        loader.exec_module(module)
    except (ImportError, OSError) as exc:
        raise CEngineUnavailable(f"the C engine's caller cannot be loaded ({exc})") from None
    if not hasattr(module, "Player"):
        raise CEngineUnavailable(f"the C engine's caller at {lib} has no Player")
    return module


class CEngine:
    """Runs one typed program's states in C. The same interface as PythonEngine, on ctypes arrays."""

    name = "c"

    def __init__(self, program: N.Program, note=None, key: str | None = None):
        """`key`: the program's load key (vbr.engines.load_key), when it has one."""
        self.program = program
        self.layout = program.layout
        self._note = note  # hears of the search library's build, when a search first needs it
        self._search = None  # the search library, found at the first search (`search`)
        self._per_thread = threading.local()  # play_seats's arrays, one set per thread
        loaded = _cached_loaded(key) if key is not None else None
        flags = SCENARIO_FLAGS if any(u.kind in SCENARIO_UNITS for u in program.units) else ()
        self.lib = loaded if loaded is not None else _with_library(self.source, note, key, _loaded, flags)
        self._bind()
        self.words = self.layout.words
        self.array = ctypes.c_int64 * self.words

    def _bind(self) -> None:
        """Give the library's functions their argument and result types."""
        W, U = ctypes.c_int64, ctypes.c_uint64
        P = ctypes.POINTER(W)
        for name, args in (("vbr_new", [P, U]), ("vbr_apply", [P, W]), ("vbr_play_random", [P, U])):
            fn = getattr(self.lib, name)
            fn.argtypes, fn.restype = args, ctypes.c_int
        self.lib.vbr_play_seats.argtypes = [P, ctypes.POINTER(U), P, P, P, W, ctypes.c_void_p, P]
        self.lib.vbr_play_seats.restype = ctypes.c_int
        self.lib.vbr_play_game.argtypes = [P, P]
        self.lib.vbr_play_game.restype = ctypes.c_int
        self._play_game = self.lib["vbr_play_game"]  # a second handle, called without argtypes (play_game)
        self._play_game.restype = ctypes.c_int
        self.lib.vbr_play_many.argtypes = [ctypes.POINTER(U), ctypes.POINTER(U), W, P, P, P, P]
        self.lib.vbr_play_many.restype = None
        self.lib.vbr_game.argtypes, self.lib.vbr_game.restype = [], ctypes.c_void_p
        self.game = ctypes.c_void_p(self.lib.vbr_game())  # the program as the search library reads it
        self.lib.vbr_new_logged.argtypes, self.lib.vbr_new_logged.restype = [P, U, W], ctypes.c_int
        self.lib.vbr_apply_logged.argtypes, self.lib.vbr_apply_logged.restype = [P, W, W], ctypes.c_int
        if hasattr(self.lib, "vbr_call"):  # a scenario's program, a chance program, a file with `returns`
            self.lib.vbr_held.argtypes, self.lib.vbr_held.restype = [P, U], ctypes.c_int
            for name in ("vbr_call", "vbr_goto"):
                getattr(self.lib, name).argtypes, getattr(self.lib, name).restype = [P, W], ctypes.c_int

    @cached_property
    def source(self) -> str:
        """The program's C (generated when first read: a cached load has no need of it); past
        MAX_SOURCE characters a SourceTooLarge, located."""
        from vbr.engines.c_source import c_module
        module = c_module(self.program)
        if len(module.text) > MAX_SOURCE:
            raise too_large(self.program, module)
        return module.text

    def new(self, seed: int, log=None):
        """A state seeded with `seed`, run to its first choice; `log` (an events.EventLog) hears its events."""
        S = self.array()
        if log is None:
            self.lib.vbr_new(S, seed & R.MASK)
        else:
            with self._hook(log) as hook:
                self.lib.vbr_new_logged(S, seed & R.MASK, hook.address)
        return S

    def held(self, seed: int):
        """A state seeded with `seed` before anything has run (a scenario's program only)."""
        S = self.array()
        self.lib.vbr_held(S, seed & R.MASK)
        return S

    def call(self, S, unit: int, log=None) -> int | None:
        """`unit` run at once where play stands (vbr.engines.unit_call says what it gives back)."""
        return call_unit(S, lambda: self._logged(S, log, self.lib.vbr_call, unit))

    def goto(self, S, unit: int, log=None) -> None:
        """Every frame dropped and play started in phase `unit`, run to a choice or the end."""
        self._logged(S, log, self.lib.vbr_goto, unit)

    def _logged(self, S, log, fn, *args) -> int:
        if log is None:
            return fn(S, *args)
        with self._hook(log) as hook:
            S[H.LOG] = hook.address
            try:
                return fn(S, *args)
            finally:
                S[H.LOG] = 0

    def options(self, S) -> list[int]:
        at = self.layout.options
        return S[at:at + S[H.NOPTS]] if S[H.STATUS] == CHOICE else []

    def apply(self, S, i: int, log=None) -> None:
        if log is None:
            self.lib.vbr_apply(S, i)
        else:
            with self._hook(log) as hook:
                self.lib.vbr_apply_logged(S, i, hook.address)

    def _hook(self, log) -> "_Hook":
        """This thread's hook (made once: C runs without the GIL, so two threads never share one),
        handing C's events to `log` (an events.EventLog) while it is entered; a new one where this
        thread's is in use already."""
        mine = self._per_thread
        hook = getattr(mine, "hook", None)
        if hook is None:
            hook = mine.hook = _Hook()
        elif hook.log is not None:
            hook = _Hook()
        hook.log = log
        return hook

    def play_random(self, S, agent_seed: int) -> None:
        self.lib.vbr_play_random(S, agent_seed & R.MASK)

    def play_seats(self, S, streams: list[int], kinds: list[int], stats: list[int], track: list,
                   samples: list[int] | None = None) -> list[int]:
        """PythonEngine.play_seats, in C: the same answers, streams, stats and rows; and seats of
        two more kinds play here too: FIRST_SEAT the first option, GREEDY_SEAT vbr_greedy's
        (play.greedy_choice's) with samples[seat] worlds, but for a choice where an imagined world
        faults, left to be made by hand, as is the next greedy choice once the call's greedy seats
        have tried PICKED_WORLDS worlds."""
        n = len(streams)
        st, kd, sa, buf = self._seat_buffers(n, len(stats))
        st[:n] = [x & R.MASK for x in streams]
        kd[:n] = kinds
        sa[:len(stats)] = stats
        width = 1 + (self.program.points[1] if self.program.points else 0)
        before = stats[3]
        pick = ctx = None
        if GREEDY_SEAT in kinds:
            pick = ctypes.cast(self.search.vbr_greedy_pick, ctypes.c_void_p)
            ctx = (ctypes.c_int64 * (2 + n))(self.game.value, PICKED_WORLDS, *(samples or [0] * n))
        self.lib.vbr_play_seats(S, st, kd, sa, buf, TRACK_ROWS, pick, ctx)  # rows land at their place in the game's track
        stats[:] = sa[:len(stats)]
        rows = buf[before * width:stats[3] * width]
        track += [(rows[r], tuple(rows[r + 1:r + width])) for r in range(0, len(rows), width)]
        return st[:n]

    def whole_games(self, repeating: tuple | None, reads: tuple):
        """A function playing a whole game with every seat random in one call, made once per
        `repeating` (per unit whether it is a repeating phase; None: the first move is the game's
        first choice) and `reads` (words whose values at the end are wanted): `play(seed)` runs
        vbr_play_game (c_source.py: each seat's stream seeded from `seed` as vbr.play seeds it)
        and returns (the state's status, None: the state's words are not kept, and as bytes (a
        bytearray) of 64-bit words in the machine's order: vbr_play_game's result (9 words, the
        points, the words read), then the score track's rows, each the choices made and the
        points, one after the other). The game is played in words of the thread's own, used again
        by its next game; `play.words(seed)` plays it again into a new array and returns that: the
        game's final state, the same words as the play left (the same seed, the same game).
        `play` is whole_game_caller's Player when that module is at hand, else a call through
        ctypes: the same games, the same results."""
        width = 1 + (self.program.points[1] if self.program.points else 0)
        flags = list(repeating or ())
        at_flags = 7
        at_reads = at_flags + len(flags)
        at_out = at_reads + len(reads)
        at_track = at_out + 9 + (width - 1) + len(reads)  # the result: 9 words, the points, the words read
        head = [0, at_flags if repeating is not None else 0, at_reads, len(reads), at_out, at_track, TRACK_ROWS]
        rows_at, out_from, track_from, row_octets = at_out + 8, at_out * 8, at_track * 8, width * 8
        new_state, call, mask = self.array, self._play_game, R.MASK
        mine = threading.local()  # each thread its own words in and out: C runs without the GIL

        def own_io() -> tuple:
            octets = bytearray(8 * (at_track + TRACK_ROWS * width))  # sliced as it is: a copy in one step
            io = (ctypes.c_int64 * (at_track + TRACK_ROWS * width)).from_buffer(octets)
            io[:len(head) + len(flags) + len(reads)] = [*head, *flags, *reads]
            mine.io = (io, octets, (ctypes.c_uint64 * 1).from_buffer(io), new_state())
            return mine.io

        def play(seed: int) -> tuple:
            try:
                io, octets, seed_word, S = mine.io
            except AttributeError:
                io, octets, seed_word, S = own_io()
            seed_word[0] = seed & mask
            status = call(S, io)  # both ctypes arrays of words: passed as pointers without argtypes' checks
            return status, None, octets[out_from:track_from + io[rows_at] * row_octets]

        def final_words(seed: int):
            io, _, seed_word, _ = getattr(mine, "io", None) or own_io()
            seed_word[0] = seed & mask
            S = new_state()
            call(S, io)
            return S
        play.words = final_words
        caller = whole_game_caller()
        if caller is None:
            return play
        io, octets, _, S = own_io()  # this thread's words; play gives every other thread its own
        return caller.Player(ctypes.cast(call, ctypes.c_void_p).value, ctypes.addressof(S), ctypes.addressof(io),
                             len(octets), rows_at, out_from, track_from, row_octets, (S, io, octets), play,
                             final_words)

    def _seat_buffers(self, seats: int, nstats: int):
        """The arrays play_seats hands to C, made once per engine and thread (C runs without the
        GIL, so two threads never share them)."""
        mine = self._per_thread
        if getattr(mine, "buffers", None) is None or len(mine.buffers[0]) < seats:
            W, U = ctypes.c_int64, ctypes.c_uint64
            width = 1 + (self.program.points[1] if self.program.points else 0)
            mine.buffers = ((U * seats)(), (W * seats)(), (W * max(nstats, 8))(), (W * (TRACK_ROWS * width))())
        return mine.buffers

    def copy(self, S):
        c = self.array()
        ctypes.memmove(c, S, 8 * S[H.TOP])
        return c

    def play_many(self, seeds: list[int], agent_seeds: list[int]) -> tuple[list[int], list[int], list[int]]:
        """Random games, one per (seed, agent seed), in one call: (winners, statuses, choices)."""
        n = len(seeds)
        U, W = ctypes.c_uint64, ctypes.c_int64
        s = (U * n)(*[x & R.MASK for x in seeds])
        a = (U * n)(*[x & R.MASK for x in agent_seeds])
        winners, statuses, choices = (W * n)(), (W * n)(), (W * n)()
        self.lib.vbr_play_many(s, a, n, self.array(), winners, statuses, choices)
        return list(winners), list(statuses), list(choices)

    def determinize(self, S, seat: int, seed: int):
        """A copy of S with what `seat` cannot see dealt anew (python_search.determinize, in C)."""
        out = self.array()
        if not 0 <= seat < self.program.seats:
            raise ValueError(f"no seat {seat}: the game has {self.program.seats}")
        if self.search.vbr_determinize(self.game, S, out, seat, seed & R.MASK):
            raise MemoryError("the C engine could not allocate the determinization's scratch")
        return out

    def greedy_choice(self, S, samples: int, stream: int, allowed: list[int] | None = None) -> tuple[int, int] | None:
        """play.greedy_choice for the seat to move at S's pending choice, in C (vbr_greedy): the
        same (option, stream left); None when an imagined world met a run-time error of the rules,
        which play.greedy_choice, playing the choice again, raises located, or when there is no
        choice to make or no option allowed, which play.greedy_choice refuses."""
        n = len(allowed) if allowed is not None else int(S[H.NOPTS])
        if n < 1 or S[H.STATUS] != CHOICE:
            return None
        state = (ctypes.c_uint64 * 1)(stream & R.MASK)
        listed = None if allowed is None else (ctypes.c_int64 * max(1, n))(*allowed)
        answer = self.search.vbr_greedy(self.game, S, samples, state, listed, n)
        if answer == -1:
            return None
        if answer < 0:
            raise MemoryError("the C engine could not allocate the greedy agent's worlds")
        return int(answer), int(state[0])

    def mcts(self, S, seat: int, params, seed: int, among: list[int] | None = None) -> int:
        """The option SO-ISMCTS picks for `seat` at S's pending choice under `params` (a
        python_search.SearchParams; python_search.mcts_choice, in C), the root limited to `among`
        when given. A fault in an imagined world raises EngineFault with its message and arguments."""
        self._search_arguments(S, seat)
        mask = self._root_mask(S, among)
        search = self.search
        return self._searched(search, search.vbr_mcts(self.game, S, seat, self._numbers(params), seed & R.MASK, mask))

    def mcts_visits(self, S, seat: int, params, seed: int, among: list[int] | None = None) -> tuple[int, list[int]]:
        """python_search.mcts_visits in C: (the option, the root's visits per option)."""
        self._search_arguments(S, seat)
        mask = self._root_mask(S, among)
        visits = (ctypes.c_int64 * max(1, S[H.NOPTS]))()
        search = self.search
        answer = self._searched(search, search.vbr_mcts_visits(self.game, S, seat, self._numbers(params), seed & R.MASK,
                                                               visits, mask))
        return answer, list(visits)[:S[H.NOPTS]]

    @property
    def search(self) -> ctypes.CDLL:
        """The search library of this program's thing width (search_library), found at the
        first search and kept: finding it looks at the cache folder and the compiler."""
        found = self._search
        if found is None:
            found = self._search = search_library(self.layout.width, self._note)
        return found

    @staticmethod
    def _root_mask(S, among: list[int] | None):
        """None for every option, else a word per option: 1 for those `among` (python_search.root_options)."""
        if among is None:
            return None
        from vbr.engines.python_search import root_options
        n = int(S[H.NOPTS])
        allowed = set(root_options(n, among))
        return (ctypes.c_int64 * max(1, n))(*(int(i in allowed) for i in range(n)))

    @staticmethod
    def _numbers(params):
        numbers = params.numbers()
        return (ctypes.c_double * len(numbers))(*numbers)

    def _search_arguments(self, S, seat: int) -> None:
        if S[H.STATUS] != CHOICE:
            raise ValueError("mcts needs a state waiting for a choice")
        if not 0 <= seat < self.program.seats:
            raise ValueError(f"no seat {seat}: the game has {self.program.seats}")

    @staticmethod
    def _searched(search, answer: int) -> int:
        if answer == -1:
            fault = (ctypes.c_int64 * 3)()
            search.vbr_search_fault(fault)
            raise EngineFault(*(int(x) for x in fault))
        if answer < 0:
            raise MemoryError("the C engine could not allocate the search's tree")
        return answer


_LOG_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                           ctypes.POINTER(ctypes.c_int64))


class _Hook:
    """A function C calls with each event of a logged call (the `hook` of vbr_new_logged and
    vbr_apply_logged), handing it to `log` (an events.EventLog, set before the hook is entered,
    let go when it is left: one hook serves call after call). An error in `log` is raised once
    C has returned: it cannot pass through C's frames; so is a Ctrl-C (or SIGTERM, SIGHUP) met
    meanwhile (stop_signals.deferred), which would otherwise be dropped with the event heard."""

    def __init__(self):
        self.log, self.failed = None, []
        self.fn = _LOG_FN(self.hear)  # kept here: C may call it only while it is alive
        self.address = ctypes.cast(self.fn, ctypes.c_void_p).value
        self._signals = None

    def hear(self, S, what, code, n, args) -> None:
        if not self.failed:
            try:
                self.log.from_c(S, what, code, n, args)
            except BaseException as exc:  # noqa: BLE001 - kept, and raised in __exit__
                self.failed.append(exc)

    def __enter__(self) -> "_Hook":
        self._signals = stop_signals.deferred()
        self._signals.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        failed, signals = self.failed, self._signals
        self.log, self.failed, self._signals = None, [], None  # free for the next call
        signals.__exit__(*exc)  # a signal met in C: its handler now (Ctrl-C's raises)
        if failed and exc[0] is None:
            raise failed[0]
