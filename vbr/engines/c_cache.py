"""The C engine's cache folder (`c/` in vbr's cache, vbr.private_cache): what an entry is, the
lock it is used under, and the bound on what the folder holds.

An entry is one library built from one source: `vbr-D.so` (D: the first 32 hex digits of the
digest of the source, the compiler's version and flags), its sealed sums `vbr-D.sha256`, its lock
`vbr-D.lock`, and the load references `vbr-load-K.ref` that name it (K: the first 32 hex digits of
a load key; each sealed, the library's whole digest after the seal).

Locks. An entry's lock file is held with flock: exclusively while its library is checked, built,
and its reference written and the library loaded; shared while a cached library is checked and
loaded; the pruner takes it exclusively without waiting, and leaves alone an entry whose lock is
held (a build or a load under way). The pruner deletes the lock file of an entry it deletes,
while it holds it: so whoever takes a lock checks afterwards that the file it holds is still the
one at its name, and else opens it anew (`locked`), and two processes never each hold a lock file
of one entry. A library once loaded is mapped by its process: deleting its file takes nothing
from it.

The bound. The folder holds at most `$VBR_C_CACHE_MB` megabytes (LIMIT_MB, 1 GiB, when unset),
counted on disk as `du` counts them. Past it, the entries used least recently (a library's
modification time, set anew each time it is loaded from the cache or found by a build) are
deleted whole, down to PRUNE_TO of the bound. A scan costs a stat of each file of the folder and
a read of each reference (about a second for 50,000 files, 34,000 of them references), so loads,
which add nothing, never scan: each build that writes into the folder (a library, a reference) appends one
byte to the count file `vbr-written.count` (no lock, no scan), and the folder is scanned when that count
reaches PRUNE_EVERY, or when the count file is missing (a cache an earlier vbr filled, or one just
cleared); the count then starts again. So a scan costs about a second per PRUNE_EVERY builds, of
seconds each (under 1%), and between two scans the folder grows by at most PRUNE_EVERY libraries
with their references: about 5 MB as libraries go (40 kB), 100 MB if each were the largest seen
(0.75 MB), which the tenth of the bound a scan frees leaves room for.

A scan also deletes what no entry needs: a reference whose library is gone or that names none;
sums or a lock without their library; a library without its sums (it is never loaded); a build's
temporary files and folders older than LEFTOVER_AGE (four times the longest a build may take,
c_engine.BUILD_TIMEOUT). It deletes nothing else: no file whose name is not one of these, no link,
no entry whose lock it cannot take at once, nothing outside the folder (vbr.cache_folder).
"""
from __future__ import annotations

import fcntl
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from vbr import private_cache
from vbr.cache_folder import CacheFolder, Kept

LIMIT_MB = 1024  # the folder's bound when $VBR_C_CACHE_MB is not set
PRUNE_EVERY = 128  # files written (libraries, references) between two scans
PRUNE_TO = 0.9  # share of the bound a scan past it prunes down to
LEFTOVER_AGE = 3600  # seconds after which a build's temporary file or folder is a leftover
COUNT = "vbr-written.count"  # one byte per file written since the last scan

_LIB = re.compile(r"vbr-([0-9a-f]{32})\.so")
_SUMS = re.compile(r"vbr-([0-9a-f]{32})\.sha256")
_LOCK = re.compile(r"vbr-([0-9a-f]{32})\.lock")
_REF = re.compile(r"vbr-load-[0-9a-f]{32}\.ref")
_TEMP = re.compile(r"vbr-(?:load-)?[0-9a-f]{32}\.(?:sha256|ref)\.[0-9]+\.tmp")  # private_cache.write_sealed's
_TEMP_FOLDER = re.compile(r"tmp[a-z0-9_]{8}")  # tempfile.TemporaryDirectory's, where a build compiles
_OURS = re.compile("|".join(p.pattern for p in (_LIB, _SUMS, _LOCK, _REF, _TEMP)) + "|" + re.escape(COUNT))
_SEAL = 32  # bytes of a sealed file's seal (vbr.private_cache)


def library_files(folder: Path, digest: str) -> tuple[Path, Path]:
    """The library built from the source with this digest, and its sealed sums file."""
    return folder / f"vbr-{digest[:32]}.so", folder / f"vbr-{digest[:32]}.sha256"


def reference_file(folder: Path, key: str) -> Path:
    """The reference a load with this key (vbr.engines.load_key) leaves to its library."""
    return folder / f"vbr-load-{key[:32]}.ref"


def limit() -> int:
    """The folder's bound in bytes: $VBR_C_CACHE_MB megabytes, a whole number from 0 (0: keep
    no entry but those in use), else LIMIT_MB; a ValueError saying so for any other value."""
    value = os.environ.get("VBR_C_CACHE_MB", "")
    if not value:
        return LIMIT_MB << 20
    if not re.fullmatch(r"[0-9]+", value.strip()):
        raise ValueError(f"VBR_C_CACHE_MB={value!r} is not a whole number of megabytes")
    return int(value) << 20


@contextmanager
def locked(folder: Path, digest: str, shared: bool = False, wait: bool = True, dir_fd: int | None = None):
    """Hold the lock of the entry `digest` in `folder` (shared, or exclusive) while inside; it is
    made when missing. Without `wait`, BlockingIOError when another holds it. With `dir_fd`, the
    lock is found in the folder open at that descriptor. An OSError (open_regular's) when what
    is at the lock's name is no regular file."""
    name = f"vbr-{digest[:32]}.lock"
    path = name if dir_fd is not None else folder / name
    how = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if wait else fcntl.LOCK_NB)
    while True:
        fd = private_cache.open_regular(path, os.O_RDWR | os.O_CREAT, dir_fd=dir_fd)
        try:
            fcntl.flock(fd, how)
            if _still_there(path, fd, dir_fd):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # deleted by a pruner meanwhile: take the one at its name now
    try:
        yield fd
    finally:
        os.close(fd)


def _still_there(path, fd: int, dir_fd: int | None) -> bool:
    """Whether the file open at `fd` is still the one at `path`."""
    try:
        here = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (here.st_ino, here.st_dev) == (held.st_ino, held.st_dev)


def wrote(folder: Path, bound: int) -> None:
    """Count one file written into `folder` (a library or a reference), and prune it to `bound`
    bytes when a scan is due (the module's docstring says when). Called by a build holding its
    entry's lock: the entry it has just written is in use, and stays."""
    try:
        fd = private_cache.open_regular(folder / COUNT, os.O_WRONLY | os.O_APPEND)
        due = False
    except FileNotFoundError:
        try:
            fd = private_cache.open_regular(folder / COUNT, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except OSError:
            return
        due = True
    except OSError:
        return
    try:
        os.write(fd, b".")
        if not due and os.fstat(fd).st_size < PRUNE_EVERY:
            return
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # one scan at a time; a busy one is enough
        prune(folder, bound)
        os.ftruncate(fd, 0)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass
class Trimmed:
    """What a prune or a clear did: files deleted, their bytes, entries it deleted, entries it
    left as they were in use, and the bytes the folder's files take after it."""
    files: int = 0
    freed: int = 0
    entries: int = 0
    in_use: int = 0
    left: int = 0


@dataclass
class _Survey:
    """The folder's files of vbr's, sorted by what they are."""
    libs: dict[str, Kept] = field(default_factory=dict)
    sums: dict[str, Kept] = field(default_factory=dict)
    locks: dict[str, Kept] = field(default_factory=dict)
    refs: dict[str | None, list[Kept]] = field(default_factory=dict)  # by the library they name (None: none)
    temps: list[Kept] = field(default_factory=list)
    temp_folders: list[Kept] = field(default_factory=list)
    count: Kept | None = None
    size: int = 0


def survey(folder: CacheFolder) -> _Survey:
    """Every file of vbr's in the open C folder, with the bytes they take."""
    found = _Survey()
    by_end = {".so": found.libs, ".sha256": found.sums, ".lock": found.locks}
    for kept in folder.files(_OURS):  # its name is one of _OURS: its end says which
        found.size += kept.size
        end = kept.name[kept.name.rindex("."):]
        if end in by_end:
            by_end[end][kept.name[4:36]] = kept  # vbr-DIGEST.end
        elif end == ".ref":
            found.refs.setdefault(_named(folder, kept.name), []).append(kept)
        elif end == ".tmp":
            found.temps.append(kept)
        else:
            found.count = kept
    found.temp_folders = folder.folders(_TEMP_FOLDER)
    found.size += sum(t.size for t in found.temp_folders)
    return found


def _named(folder: CacheFolder, name: str) -> str | None:
    """The library (first 32 hex digits of its digest) a reference names, read without checking
    its seal: it only decides what is deleted, never what is loaded. None: it names none."""
    try:  # not waiting (a pipe put here since it was listed gives nothing), no link followed
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder.fd)
    except OSError:
        return None
    try:
        named = os.read(fd, _SEAL + 65)[_SEAL:]
    except OSError:
        return None
    finally:
        os.close(fd)
    return named[:32].decode() if re.fullmatch(rb"[0-9a-f]{64}", named) else None


def prune(path: Path, bound: int) -> Trimmed:
    """Delete what no entry needs in the C folder `path`, and when its files take more than
    `bound` bytes the entries least recently used, whole, until they take PRUNE_TO of it."""
    return _trim(path, lambda size: size if size <= bound else int(bound * PRUNE_TO))


def clear(path: Path) -> Trimmed:
    """Delete every entry of the C folder `path` not in use, what no entry needs, and the count
    file (the next build scans the folder, then near empty)."""
    return _trim(path, lambda size: 0, count_too=True)


def _trim(path: Path, target, count_too: bool = False) -> Trimmed:
    """The leftovers and orphans deleted (and the count file, `count_too`), then entries least
    recently used first while the folder takes more than `target(its size)` bytes. Nothing when
    the folder is not trusted."""
    done = Trimmed()
    try:
        with CacheFolder(path) as folder:
            found = survey(folder)
            goal = target(found.size)
            _leftovers(folder, found, done)
            if count_too:
                _gone(folder, found.count, done)
            _orphans(folder, found, done)
            size = found.size - done.freed
            for digest in sorted(found.libs, key=lambda d: found.libs[d].mtime_ns):
                if size <= goal:
                    break
                freed = _entry(folder, found, digest, done)
                size -= freed
            done.left = size
    except OSError:
        pass
    return done


def _leftovers(folder: CacheFolder, found: _Survey, done: Trimmed) -> None:
    """A build's temporary files and folders older than LEFTOVER_AGE deleted."""
    old = time.time_ns() - LEFTOVER_AGE * 10**9
    for kept in found.temps:
        if kept.mtime_ns < old and folder.remove(kept.name):
            done.files, done.freed = done.files + 1, done.freed + kept.size
    for kept in found.temp_folders:
        if kept.mtime_ns < old and folder.remove_tree(kept.name):
            done.files, done.freed = done.files + 1, done.freed + kept.size


def _orphans(folder: CacheFolder, found: _Survey, done: Trimmed) -> None:
    """Sums and locks without their library, libraries without their sums (each under its lock,
    left when another holds it), then references naming no library there, deleted."""
    for digest in sorted(set(found.sums) | set(found.locks) | set(found.libs)):
        if digest in found.libs and digest in found.sums:
            continue
        try:
            with locked(Path(folder.path), digest, wait=False, dir_fd=folder.fd):
                if folder.lstat(f"vbr-{digest}.so") and folder.lstat(f"vbr-{digest}.sha256"):
                    continue  # a build finished meanwhile: an entry now
                for kind in (found.libs, found.sums, found.locks):
                    _gone(folder, kind.pop(digest, None), done)
                _unlink_lock(folder, digest)
        except OSError:  # held: a build under way, whose files these are
            continue
    for named in list(found.refs):
        if named is not None and (named in found.libs or folder.lstat(f"vbr-{named}.so")):
            continue  # its library is there (or was built since the survey)
        for kept in found.refs.pop(named):
            _gone(folder, kept, done)


def _entry(folder: CacheFolder, found: _Survey, digest: str, done: Trimmed) -> int:
    """The entry `digest` deleted whole (library, sums, references, lock), under its lock taken
    without waiting; the bytes freed: 0 when it is in use (its lock held, or its library used
    since the survey)."""
    before = done.freed
    try:
        with locked(Path(folder.path), digest, wait=False, dir_fd=folder.fd):
            lib = folder.lstat(f"vbr-{digest}.so")
            if lib is None:  # deleted meanwhile (another prune)
                return 0
            if lib.st_mtime_ns != found.libs[digest].mtime_ns:  # used since the survey
                done.in_use += 1
                return 0
            for kind in (found.libs, found.sums, found.locks):
                _gone(folder, kind.pop(digest, None), done)
            for kept in found.refs.pop(digest, []):
                _gone(folder, kept, done)
            _unlink_lock(folder, digest)
    except OSError:
        done.in_use += 1
        return 0
    done.entries += 1
    return done.freed - before


def _gone(folder: CacheFolder, kept: Kept | None, done: Trimmed) -> None:
    if kept is not None and folder.remove(kept.name):
        done.files, done.freed = done.files + 1, done.freed + kept.size


def _unlink_lock(folder: CacheFolder, digest: str) -> None:
    """The lock file deleted by its holder (a lock made by `locked` while pruning, not surveyed,
    is deleted too: nothing is left behind)."""
    folder.remove(f"vbr-{digest}.lock")
