"""vbr's cache folder, and what in it may be trusted.

Caches hold what is costly to make again: the built parser, parsed rule files, compiled C
engines. Loading one runs code (a pickle, a shared library), so a cache is used only when nobody
else can have written it. The folder (`$XDG_CACHE_HOME/vbr` if that is absolute, else
`~/.cache/vbr`, and each folder inside it) is made with mode 0700 and used only while it is owned by the current user and not
writable by group or others; otherwise a one-line warning says so and nothing is cached. A file
in it is read only if it is a regular file with the same owner and no group or other write bit.
Every file vbr opens there is opened without following a link at its end and without waiting
(`open_regular`), and refused unless it is a regular file: a named pipe at a file's name would
otherwise hold vbr forever.
And what a cache holds is sealed with an HMAC-SHA256 under a secret of this user's, made at
random on first use and kept in the folder (mode 0600): nothing is unpickled or loaded before
its seal is checked, so a file planted with a key anyone could compute (the hash of public
inputs) is never trusted.
"""
from __future__ import annotations

import errno
import hashlib
import hmac
import os
import stat
import sys
import threading
from pathlib import Path

_SEAL = hashlib.sha256().digest_size
_warned: set[str] = set()


def base() -> Path:
    """`$XDG_CACHE_HOME/vbr`, else `~/.cache/vbr`. A relative XDG_CACHE_HOME is ignored, as the XDG
    Base Directory specification says: it would put the cache in whatever folder vbr is run from."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return Path(xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")) / "vbr"


def folder(*sub: str) -> Path | None:
    """vbr's cache folder (or one inside it), made 0700 if missing; None when it cannot be made,
    written, or trusted (a warning, once, says which and why)."""
    path = base()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        for part in sub:
            path = path / part
            path.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    for made in [base(), *(base().joinpath(*sub[:i + 1]) for i in range(len(sub)))]:
        why = untrusted(made, folder=True)
        if why:
            _warn(why)
            return None
    return path if os.access(path, os.W_OK | os.X_OK) else None


def untrusted(path: Path, folder: bool = False) -> str | None:
    """Why `path` may not be trusted (another owner, writable by others, not a regular file or a
    folder as asked, a link), None when it may."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return f"{path} cannot be read"
    return untrusted_stat(path, st, folder)


def untrusted_stat(path: Path, st: os.stat_result, folder: bool = False) -> str | None:
    """`untrusted`, of what `st` says of `path`."""
    if st.st_uid != os.geteuid():
        return f"{path} belongs to another user"
    if st.st_mode & 0o022:
        return f"{path} may be written by others (mode {stat.S_IMODE(st.st_mode):o})"
    if folder and not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a folder"
    if not folder and not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file"
    return None


_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"))


def open_regular(path: Path, flags: int, mode: int = 0o600, dir_fd: int | None = None) -> int:
    """A file descriptor of `path` opened with `flags` (os.O_*), and only if it is a regular file:
    the last part of the path is not followed if it is a link, and the open does not wait
    (O_NONBLOCK: a named pipe would wait for a writer or a reader forever). Anything else at
    `path` is an OSError whose words say what is there and to delete it, one line. With
    `dir_fd`, `path` is a name in the folder open at that descriptor."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise
        raise _not_regular(path, os.stat(path, dir_fd=dir_fd, follow_symlinks=False).st_mode) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        os.set_blocking(fd, True)  # a regular file's reads and writes, as usual from here
    except BaseException:
        os.close(fd)
        raise
    return fd


def refuse_folder(path: Path) -> None:
    """The OSError open_regular gives (saying to delete it) when a folder stands at `path`, where
    a file is to be moved into place: nothing can be moved over a folder."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if stat.S_ISDIR(mode):
        raise _not_regular(path, mode)


def _not_regular(path: Path, mode: int) -> OSError:
    kind = next((name for test, name in _KINDS if test(mode)), "no regular file")
    return OSError(errno.EINVAL, f"{path} is {kind}, not a regular file: vbr uses only regular files in its "
                                 "cache; delete it", str(path))


def read_trusted(path: Path) -> bytes | None:
    """The bytes of `path` when it is a trusted file (`untrusted`, of the file opened), else None;
    never waits on what is not a regular file."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if untrusted_stat(path, os.fstat(f.fileno())):
            return None
        return f.read()


def _warn(why: str) -> None:
    if why not in _warned:
        _warned.add(why)
        print(f"vbr: warning: not caching: {why}", file=sys.stderr)


def _secret() -> bytes | None:
    """This user's sealing key, made on first use; None where it cannot be had safely. Processes
    starting at once agree on one key: it is written whole under a name of this process's and
    linked into place, so nobody reads a key half written, and the first link made stays."""
    path = base() / "secret"
    if not path.exists() and not _make_secret(path):
        return None
    if untrusted(path) or stat.S_IMODE(os.stat(path).st_mode) & 0o077:
        _warn(untrusted(path) or f"{path} may be read by others")
        return None
    key = read_trusted(path)
    if key is None:
        return None
    if len(key) != 32:
        _warn(f"{path} is not a sealing key of vbr's (32 bytes, this one {len(key)}); delete it and vbr makes "
              "a new one")
        return None
    return key


def _make_secret(path: Path) -> bool:
    """Put a new random key at `path` unless another process put one there first; False when
    neither is there."""
    tmp = Path(f"{path}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        fd = open_regular(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(32))
        os.link(tmp, path)
    except FileExistsError:
        pass
    except OSError:
        return path.exists()
    finally:
        tmp.unlink(missing_ok=True)
    return True


def seal(key: bytes, payload: bytes) -> bytes | None:
    """`payload` with its seal in front (`key` names what it is, so a sealed file cannot stand in
    for another); None when there is no secret to seal with."""
    secret = _secret()
    if secret is None:
        return None
    return hmac.new(secret, key + b"\0" + payload, hashlib.sha256).digest() + payload


def unseal(key: bytes, blob: bytes) -> bytes | None:
    """The payload of a sealed blob, or None when its seal is not this user's for `key`."""
    secret = _secret()
    if secret is None or len(blob) < _SEAL:
        return None
    mac, payload = blob[:_SEAL], blob[_SEAL:]
    good = hmac.new(secret, key + b"\0" + payload, hashlib.sha256).digest()
    return payload if hmac.compare_digest(mac, good) else None


def read_sealed(path: Path, key: bytes) -> bytes | None:
    """A sealed file's payload, when the file is trusted and its seal holds; else None."""
    blob = read_trusted(Path(path))
    return None if blob is None else unseal(key, blob)


def write_sealed(path: Path, key: bytes, payload: bytes) -> bool:
    """Seal and write `payload` whole (a temporary file moved into place); False if not written."""
    blob = seal(key, payload)
    if blob is None:
        return False
    tmp = Path(f"{path}.{os.getpid()}.tmp")
    try:
        fd = open_regular(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        return True
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
