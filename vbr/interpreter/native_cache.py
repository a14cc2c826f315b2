"""The folder of built native modules (`$XDG_CACHE_HOME/vbr/native`): finding a module, loading
it, building it once however many processes ask, and keeping the folder bounded.

Why a module of its own: the folder is shared by every vbr process of the user, and anything in
it may have been damaged, half-written by a killed build or removed meanwhile. So: a module is
loaded only from a private copy of the very bytes whose recorded hash was checked; a loader holds
a shared lock on the module's lock file and a builder an exclusive one, so a second process
waits for the first's build and then loads it; a module that matches its hash but does not load
is built again; a build removes the folders of killed builds and, past MAX_CACHE_BYTES, the
modules used longest ago that no process holds. The lock files themselves stay (a few bytes each):
removing one another process may be about to open would let two builds run at once.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import tempfile
import time

from vbr.interpreter import native_build as B
from vbr.interpreter.native_build import NativeUnavailable

MAX_CACHE_BYTES = 1 << 30  # beyond, a new build removes the modules used longest ago (a module is 1-11 MB)
STALE_SECONDS = 3 * B.BUILD_SECONDS + 60  # a build folder this old belongs to a build that was killed (3 stages)
_LOAD_ERRORS = (ImportError, OSError, SystemError)  # what loading a damaged extension module raises


def folder() -> str:
    from vbr.grammar.parser import cache_dir
    where = cache_dir("native")
    if where is None:
        raise NativeUnavailable("native code is kept in the user's cache directory ($XDG_CACHE_HOME/vbr or "
                                "~/.cache/vbr), which cannot be written")
    return where


def modules_for(texts: list[str], key: str, note=None, headers: dict[str, str] | None = None, train=None) -> list:
    """The extension modules built from `texts` (one module a text, all in one file), from the
    cache or built now; `headers` are the files (name: text) the sources cimport; `train(modules)`,
    given a build's modules instrumented to profile, plays games on them (native_training.py)."""
    where = folder()
    name = f"vbr_native_{key[:40]}"
    parts = B.part_names(name, len(texts))
    path = os.path.join(where, name + B.suffix())
    with Lock(path + ".lock", shared=True, note=note):
        modules = _load_cached(parts, path, where)
    if modules is not None:
        return modules
    with Lock(path + ".lock", note=note):
        modules = _load_cached(parts, path, where)  # another process may have built it meanwhile
        if modules is None:
            if note is not None:
                note(f"building native code (once for these rules and options; kept in {where})")
            sweep(where)
            trial = None if train is None else (lambda data: train(load(parts, data, where)))
            data = B.build(texts, name, where, path, headers, trial)
            try:
                modules = load(parts, data, where)
            except _LOAD_ERRORS as exc:
                raise NativeUnavailable(f"the native code built here does not load: {exc}") from None
    evict(where, keep=path)
    return modules


def _load_cached(parts: list[str], path: str, where: str):
    data = intact(path)
    if data is None:
        return None
    try:
        modules = load(parts, data, where)
    except _LOAD_ERRORS:  # its hash matches, yet it does not load (a file damaged with its hash)
        return None
    used(path)
    return modules


def intact(path: str) -> bytes | None:
    """The built file's bytes, if they are those its build recorded."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        with open(path + ".sha256", encoding="ascii") as f:
            recorded = f.read().strip()
    except OSError:
        return None
    return data if recorded == hashlib.sha256(data).hexdigest() else None


def load(parts: list[str], data: bytes, where: str) -> list:
    """Load the modules `parts` from a private copy of `data`: what is loaded is what was
    checked, whatever happens to the cached file meanwhile. Failing to write the copy is the
    cache's trouble, not the modules': a usage error, not a reason to build again."""
    work = tempfile.mkdtemp(dir=where)
    try:
        copy = os.path.join(work, parts[0] + B.suffix())
        try:
            with open(copy, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise NativeUnavailable(f"cannot write a copy of the native module into {where}: {exc.strerror}") from None
        modules = []
        for name in parts:
            loader = importlib.machinery.ExtensionFileLoader(name, copy)
            spec = importlib.util.spec_from_file_location(name, copy, loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            modules.append(module)
        return modules
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Lock:
    """An advisory lock on a file beside the module: shared to load, exclusive to build or remove.
    Where the platform or the file system has no `flock`, there is no lock: two processes may then
    both build, and the last one's file stands, which is still whole. `wait=False` takes it only
    if no one holds it (`held` says which); waiting is announced through `note`."""

    def __init__(self, path: str, shared: bool = False, wait: bool = True, note=None):
        self.path, self.shared, self.wait, self.note = path, shared, wait, note
        self.file, self.held = None, False

    def __enter__(self):
        try:
            import fcntl
        except ImportError:
            self.held = True
            return self
        mode = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        try:
            self.file = open(self.path, "a+b")
            try:
                fcntl.flock(self.file, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                if not self.wait:
                    self.close()
                    return self
                if self.note is not None:
                    self.note("waiting for another vbr process to finish building this native code")
                fcntl.flock(self.file, mode)
        except BaseException as exc:  # no flock here (some network file systems), or Ctrl-C while waiting
            self.close()
            if not isinstance(exc, OSError):
                raise
        self.held = True
        return self

    def close(self) -> None:
        if self.file is not None:
            self.file.close()  # closing releases the lock
            self.file = None

    def __exit__(self, *exc):
        self.close()


def used(path: str) -> None:
    """Mark the module as used now: eviction goes by the time its hash file was last touched."""
    try:
        os.utime(path + ".sha256")
    except OSError:
        pass


def _last_used(path: str) -> float:
    try:
        return os.stat(path + ".sha256").st_mtime
    except OSError:
        return 0.0


def evict(where: str, keep: str) -> None:
    """Keep the folder under MAX_CACHE_BYTES: remove the modules used longest ago, never `keep`
    (just built or loaded) nor one another process holds the lock of. Best effort: other
    processes may remove files meanwhile."""
    modules, total = [], 0
    try:
        for entry in os.scandir(where):
            if entry.name.startswith("vbr_native_") and entry.name.endswith(B.suffix()):
                try:
                    size = entry.stat().st_size
                except OSError:
                    continue
                total += size
                if entry.path != keep:
                    modules.append((_last_used(entry.path), entry.path, size))
    except OSError:
        return
    for seen_used, path, size in sorted(modules):
        if total <= MAX_CACHE_BYTES:
            return
        with Lock(path + ".lock", wait=False) as lock:
            if not lock.held or _last_used(path) > seen_used:  # in use, or used since the scan
                continue
            for gone in (path + ".sha256", path):  # the hash first: a module without one is never loaded
                try:
                    os.remove(gone)
                except OSError:
                    pass
            total -= size


def sweep(where: str) -> None:
    """Remove the build folders of builds that were killed (a finished or failed build removes
    its own); a folder is taken for a killed build's once it is older than any build can last."""
    now = time.time()
    try:
        entries = list(os.scandir(where))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.name.startswith("tmp") and entry.is_dir() and now - entry.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            pass
