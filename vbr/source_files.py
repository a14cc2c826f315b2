"""A rule or scenario file's text read from disk: a regular file, of bounded size, in UTF-8.

Below both `vbr.errors` (which quotes a line of a file it was not handed the text of) and
`vbr.loader` (which reports, located, why a file cannot be read): this module imports neither,
and says why it cannot read a file with `Unreadable`, which the loader puts in words.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from vbr.limits import MAX_FILE_BYTES

BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(r"\r\n?")
_LOOKS_LIKE_VBR = re.compile(r"(\s|#[^\n]*)*(game|tests)\b")


class Unreadable(Exception):
    """Why a path cannot be read as a rule file. `kind` is one of "missing", "directory",
    "special" (a device, a pipe or a socket), "too big" or "os"; for "os", `detail` holds the
    operating system's words."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(kind, detail)
        self.kind, self.detail = kind, detail


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file of at most `limits.MAX_FILE_BYTES`, a leading UTF-8 byte-order
    mark dropped; `Unreadable` for anything else. A file that grows past the limit while it is
    read is refused too, and nothing but the file itself is ever opened (no pipe is waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise Unreadable("missing") from None
    except IsADirectoryError:
        raise Unreadable("directory") from None
    except OSError as exc:
        raise Unreadable("os", exc.strerror or str(exc)) from None
    try:
        return _read_open(fd).removeprefix(BOM)
    except OSError as exc:
        raise Unreadable("os", exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def regular_file(path: Path):
    """A regular file opened for reading in binary, to be read a piece at a time (a log);
    `Unreadable` for anything else. No pipe is waited on and no device read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise Unreadable("missing", "no such file") from None
    except IsADirectoryError:
        raise Unreadable("directory", "a directory") from None
    except OSError as exc:
        raise Unreadable("os", exc.strerror or str(exc)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Unreadable("directory" if stat.S_ISDIR(mode) else "special",
                         "a directory" if stat.S_ISDIR(mode) else "not a regular file (a device, a pipe or a socket)")
    return os.fdopen(fd, "rb")


def _read_open(fd: int) -> bytes:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        raise Unreadable("directory")
    if not stat.S_ISREG(info.st_mode):
        raise Unreadable("special")
    if info.st_size > MAX_FILE_BYTES:
        raise Unreadable("too big")
    chunks, size = [], 0
    while size <= MAX_FILE_BYTES:
        chunk = os.read(fd, MAX_FILE_BYTES + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > MAX_FILE_BYTES:  # it grew while being read
        raise Unreadable("too big")
    return b"".join(chunks)


def normalize_newlines(text: str) -> str:
    """`\\r\\n` and a lone `\\r` (old Mac files) end a line as `\\n` does, so that positions count
    lines as editors do."""
    return _LINE_END.sub("\n", text) if "\r" in text else text


def decode(data: bytes) -> str:
    """`data` (from `read_bytes`) as text with `\\n` line ends; UnicodeDecodeError if it is not UTF-8."""
    return normalize_newlines(data.decode("utf-8"))


def is_rule_text(path: Path, text: str) -> bool:
    """Named as a rule file (the file itself, not only a link to it), or starting like one: only
    such a file's lines are ever shown."""
    return (path.suffix == ".vbr" and Path(path).resolve().suffix == ".vbr") or bool(_LOOKS_LIKE_VBR.match(text))


def quotable_text(path: Path) -> str | None:
    """The text of a rule or scenario file, to quote a line of in a message; None for a file
    that cannot be read as one (or does not look like one), so no other file's line is shown."""
    try:
        text = decode(read_bytes(path))
    except (Unreadable, UnicodeDecodeError):
        return None
    return text if text.strip() and is_rule_text(path, text) else None
