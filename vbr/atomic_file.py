"""Files vbr writes (logs, rows, plots' folders, diagrams, reports) appear whole or not at all.

The text goes to a temporary file beside the target and is renamed over it once complete, so a
Ctrl-C, a crash or a full disk leaves the old file, or none, never half of one. The new file gets
the permissions a plain `open()` would give it (0666 less the umask), not the temporary file's
0600. Whether a folder can take a file is found out by creating one there: permission bits do not
tell root, read-only mounts or /proc apart.

Only a regular file, or nothing, is ever replaced. A character device, a named pipe or a socket
(`/dev/full`, a FIFO a reader waits on, a link to `/proc/self/fd/1`) is written in place, as a
plain `open()` would, but a named pipe no process reads within READER_WAIT seconds is an OSError
saying so (a plain `open()` would wait for ever); a link to a regular file in the same folder has that file replaced and stays
a link; a link that leads out of its folder is refused, so no file is replaced through a link
someone else may have planted.
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

READER_WAIT = 30.0  # seconds a named pipe is waited on for a process to read it


def write_atomic(path: Path, data: str | bytes, mode: int | None = None) -> None:
    """`data` as the whole of `path`, or `path` as it was. The new file's permissions are `mode`
    (a file rewritten in place keeps its own), else what a plain `open()` gives. A special file is
    written in place; a link out of its folder raises PermissionError (see the module's text)."""
    path, special = _destination(Path(path))
    if special:
        _write_in_place(path, data)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        if isinstance(data, bytes):
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                f.write(data)
        os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def streamed(path: Path, mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary file to write `path`'s new content into as it comes, which becomes the whole of
    `path` once the block ends without an exception (`path` as it was otherwise); permissions as
    write_atomic gives them. A special file is written in place as the lines come; a link out of
    its folder raises PermissionError (see the module's text)."""
    path, special = _destination(Path(path))
    if special:
        with _open_in_place(path) as f:
            yield f
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _destination(path: Path) -> tuple[Path, bool]:
    """Where `path`'s data goes, and whether that is a special file to be written in place."""
    if path.is_symlink():
        if special_file(path):  # followed by the system: /dev/stdout's pipe has no name resolve() finds
            return path, True
        real = path.resolve()
        if link_out_of_folder(path):
            raise PermissionError(errno.EPERM, "a link out of its folder: vbr replaces no file through one", str(path))
        return real, False
    return path, path.exists() and _is_special(path)


def link_out_of_folder(path: Path) -> Path | None:
    """Where `path` leads when it is a link to a file (or nothing) outside its own folder, which
    whole-file writes refuse to replace; None for anything else."""
    path = Path(path)
    if not path.is_symlink() or special_file(path):
        return None
    real = path.resolve()
    return real if real.parent != path.parent.resolve() else None


def _is_special(path: Path) -> bool:
    mode = os.stat(path).st_mode
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def special_file(path: Path) -> bool:
    """Whether `path` (followed through links) is a character device, a named pipe or a socket,
    which write_atomic writes in place."""
    try:
        return _is_special(Path(path))
    except OSError:
        return False


def _write_in_place(path: Path, data: str | bytes) -> None:
    with _open_in_place(path) as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def _open_in_place(path: Path):
    """A special file opened to write: a named pipe once a process reads it, waiting READER_WAIT
    seconds at most (else an OSError saying no process read it); anything else as open() does."""
    if not stat.S_ISFIFO(os.stat(path).st_mode):
        return open(path, "wb")
    deadline = time.monotonic() + READER_WAIT
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: nobody has it open to read
                raise
            if time.monotonic() >= deadline:
                raise OSError(errno.ENXIO, f"it is a named pipe no process read within {READER_WAIT:g} s",
                              str(path)) from None
            time.sleep(0.05)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb")


def no_folder(folder: Path) -> str:
    """Why an output cannot go into `folder`, which is not a directory: it does not exist, or it is
    a file (`-o rules.vbr/out.svg`)."""
    if os.path.lexists(folder):
        return f"{folder} is not a folder"
    return f"the folder {folder} does not exist"


def can_create_in(folder: Path) -> str | None:
    """None if a file can be created in `folder`, else why not (in words)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".vbr-probe.", dir=folder)
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()
    os.close(fd)
    os.unlink(probe)
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
