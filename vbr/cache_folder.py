"""A folder of vbr's cache opened to list and delete vbr's own files in it, never anything else.

The folder is opened once, by a descriptor (without following a link at its name), and used
only while it is trusted as vbr.private_cache trusts a folder (the user's own, written by nobody
else). Every look and every deletion is made relative to that descriptor and never follows a
link, so a link in the folder, or the folder's path changed meanwhile, leads nothing outside it:
a link is neither listed nor deleted, a folder is deleted only by `remove_tree` (which does not
follow links inside it either). What is listed is a regular file of the user's whose name matches
the pattern asked for; its size is what it takes on disk (its blocks, as `du` counts them).
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from vbr import private_cache


@dataclass(frozen=True)
class Kept:
    """A file of vbr's in a cache folder: its name, bytes on disk and last modification (ns)."""
    name: str
    size: int
    mtime_ns: int


class CacheFolder:
    """A trusted cache folder, opened: `with CacheFolder(path) as folder: ...`. Opening raises
    OSError when `path` is no folder, a link, or not the user's alone (the reason in its words)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        why = private_cache.untrusted_stat(self.path, os.fstat(self.fd), folder=True)
        if why:
            os.close(self.fd)
            raise PermissionError(why)

    def __enter__(self) -> "CacheFolder":
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)

    def files(self, pattern: re.Pattern) -> list[Kept]:
        """The regular files of the user's in the folder whose whole name matches `pattern`."""
        found = []
        for name in os.listdir(self.fd):
            if pattern.fullmatch(name):
                st = self.lstat(name)
                if st is not None and stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
                    found.append(Kept(name, st.st_blocks * 512, st.st_mtime_ns))
        return found

    def folders(self, pattern: re.Pattern) -> list[Kept]:
        """The folders of the user's in the folder (not links to one) whose name matches `pattern`,
        each with the bytes its files take (those of the user's, links not followed)."""
        found = []
        for name in os.listdir(self.fd):
            if pattern.fullmatch(name):
                st = self.lstat(name)
                if st is not None and stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
                    found.append(Kept(name, self._tree_size(name), st.st_mtime_ns))
        return found

    def _tree_size(self, name: str) -> int:
        total = 0
        try:
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
        except OSError:
            return 0
        try:
            for root, _, names, root_fd in os.fwalk(dir_fd=inner, follow_symlinks=False):
                for n in names:
                    try:
                        total += os.stat(n, dir_fd=root_fd, follow_symlinks=False).st_blocks * 512
                    except OSError:
                        pass
        finally:
            os.close(inner)
        return total

    def lstat(self, name: str) -> os.stat_result | None:
        """What is at `name` in the folder (a link itself, not what it leads to); None: nothing."""
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except OSError:
            return None

    def remove(self, name: str) -> bool:
        """Delete the file `name` in the folder if a regular file of the user's is there (a link,
        a folder or anything else stays); whether it was deleted."""
        st = self.lstat(name)
        if st is None or not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return False
        try:
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            return False
        return True

    def remove_tree(self, name: str) -> bool:
        """Delete the folder `name` in the folder and all in it, following no link; whether it went."""
        st = self.lstat(name)
        if st is None or not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            return False
        import shutil
        try:
            shutil.rmtree(name, dir_fd=self.fd)
        except OSError:
            return False
        return True


def touch(path: Path) -> None:
    """Mark the cached file `path` as used now (its modification time; a link is not followed),
    for the bounds that drop the least recently used first. Quietly nothing where it cannot."""
    try:
        os.utime(path, follow_symlinks=False)
    except OSError:
        pass


def keep_newest(path: Path, pattern: re.Pattern, count: int) -> int:
    """Delete all but the `count` most recently used (modified or touched) files matching
    `pattern` in the cache folder `path`; how many went. Nothing when the folder is not trusted."""
    try:
        with CacheFolder(path) as folder:
            kept = sorted(folder.files(pattern), key=lambda f: f.mtime_ns, reverse=True)
            return sum(folder.remove(f.name) for f in kept[count:])
    except OSError:
        return 0
