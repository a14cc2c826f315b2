"""What vbr keeps in its cache folder (vbr.private_cache.base), seen and cleared: the API under
`vbr cache` and `vbr cache clear`.

The folder holds, each bounded:
- the C engine's builds, `c/` (vbr.engines.c_cache: at most $VBR_C_CACHE_MB megabytes, 1 GiB
  unless set, the entries used least recently deleted first);
- built parsers, `parser-*.lark` (vbr.grammar.parser: the PARSERS_KEPT used last);
- parsed rule files, `ast/` (vbr.loader: the 32 used last);
- and `secret`, the key everything there is sealed under, which is no cache and stays.
`native/`, the Cython builds of an earlier vbr, is shown and cleared when it is there.

Only vbr's own files are counted and deleted (by their names: a file of another's put there, a
link, or anything else stays), each through vbr.cache_folder: nothing outside the folder, no link
followed, a folder not the user's alone neither read nor changed (PermissionError, its reason).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from vbr import private_cache
from vbr.cache_folder import CacheFolder

_PARSERS = re.compile(r"parser-[0-9a-f]{32}\.lark(?:\.[0-9]+\.tmp)?")  # and write_sealed's temporary files
_ASTS = re.compile(r"ast-[0-9a-f]{32}\.pickle(?:\.[0-9]+\.tmp)?")
_RETIRED = re.compile(r"native")


@dataclass(frozen=True)
class Part:
    """One kind of file in the cache: what it is, where (from the folder), how many files and
    the bytes they take on disk; for the C builds, how many libraries and load references."""
    what: str
    where: str
    files: int
    size: int
    libraries: int | None = None
    references: int | None = None


@dataclass(frozen=True)
class Cleared:
    """What `clear` deleted (files, and the bytes they took), and the C builds it left because
    another process was building or loading them."""
    files: int
    freed: int
    in_use: int


def folder() -> Path:
    """vbr's cache folder (`$XDG_CACHE_HOME/vbr`, else `~/.cache/vbr`), made or not."""
    return private_cache.base()


def usage() -> list[Part]:
    """The cache's parts, each with its files and bytes (none when the folder is not there)."""
    base = folder()
    parsers = _files(base, _PARSERS)
    asts = _files(base / "ast", _ASTS)
    parts = [_c_part(base / "c"),
             Part("built parsers", "parser-*.lark", len(parsers), sum(f.size for f in parsers)),
             Part("parsed rule files", "ast/", len(asts), sum(f.size for f in asts))]
    retired = _folders(base, _RETIRED)
    if retired:
        parts.append(Part("the retired Cython builds of an earlier vbr", "native/", 1, retired[0].size))
    return parts


def _c_part(path: Path) -> Part:
    from vbr.engines import c_cache
    try:
        with CacheFolder(path) as c:
            found = c_cache.survey(c)
    except FileNotFoundError:
        return Part("C engine builds", "c/", 0, 0, 0, 0)
    refs = sum(len(named) for named in found.refs.values())
    files = (len(found.libs) + len(found.sums) + len(found.locks) + refs + len(found.temps)
             + len(found.temp_folders) + (found.count is not None))
    return Part("C engine builds", "c/", files, found.size, len(found.libs), refs)


def clear() -> Cleared:
    """Every file of vbr's in the cache deleted but the secret and the C builds in use (vbr's
    other files, and anyone else's, stay)."""
    from vbr.engines import c_cache
    base = folder()
    for where in (base, base / "ast", base / "c"):  # each the user's alone, or nothing is done
        _files(where, _PARSERS)
    files = freed = 0
    for where, pattern in ((base, _PARSERS), (base / "ast", _ASTS)):
        gone = _removed(where, pattern)
        files, freed = files + len(gone), freed + sum(f.size for f in gone)
    for retired in _folders(base, _RETIRED):
        with CacheFolder(base) as top:
            if top.remove_tree(retired.name):
                files, freed = files + 1, freed + retired.size
    c = c_cache.clear(base / "c")
    return Cleared(files + c.files, freed + c.freed, c.in_use)


def _files(path: Path, pattern: re.Pattern) -> list:
    try:
        with CacheFolder(path) as opened:
            return opened.files(pattern)
    except FileNotFoundError:
        return []


def _folders(path: Path, pattern: re.Pattern) -> list:
    try:
        with CacheFolder(path) as opened:
            return opened.folders(pattern)
    except FileNotFoundError:
        return []


def _removed(path: Path, pattern: re.Pattern) -> list:
    """The files matching `pattern` in `path` that were deleted."""
    try:
        with CacheFolder(path) as opened:
            return [f for f in opened.files(pattern) if opened.remove(f.name)]
    except FileNotFoundError:
        return []
