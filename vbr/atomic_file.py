"""Files vbr writes (logs, rows, plots' folders, diagrams, reports) appear whole or not at all.

The text goes to a temporary file beside the target and is renamed over it once complete, so a
Ctrl-C, a crash or a full disk leaves the old file, or none, never half of one. The new file gets
the permissions a plain `open()` would give it (0666 less the umask), not the temporary file's
0600. Whether a folder can take a file is found out by creating one there: permission bits do not
tell root, read-only mounts or /proc apart.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, mode: int | None = None) -> None:
    """`data` as the whole of `path`, or `path` as it was. The new file's permissions are `mode`
    (a file rewritten in place keeps its own), else what a plain `open()` gives."""
    path = Path(path)
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
