"""`vbr cache` (where vbr's cache is, and what it holds) and `vbr cache clear` (empty it).

vbr/cli.py wires it in with `add_parser(subparsers)`; the parser's default `func` is `run`. A
thin layer over vbr.cache_contents.
"""
from __future__ import annotations

import argparse
import sys

from vbr.terminal import clean

MB = 1 << 20


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "cache", help="show vbr's cache folder and what it holds, or empty it (clear)",
        description="Show where vbr keeps its cache (built C engines, built parsers, parsed rule files) "
                    "and what each part holds, or with `clear` delete vbr's files there. The C builds "
                    "take at most $VBR_C_CACHE_MB megabytes (default 1024), the least recently used "
                    "deleted first.")
    p.add_argument("action", nargs="?", choices=["clear"],
                   help="clear: delete every file vbr keeps there (not the secret it seals them with, "
                        "not a build another vbr is using, nothing of anyone else's)")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    """Print the cache's folder and parts, or clear it and say what went; 1 when the folder may
    not be trusted (its reason said)."""
    from vbr import cache_contents
    from vbr.engines import c_cache
    base = cache_contents.folder()
    try:
        if args.action == "clear":
            done = cache_contents.clear()
            print(clean(f"removed {_counted(done.files, 'file', 'files')} ({_mb(done.freed)}) from {base}"))
            if done.in_use:
                print(f"kept {_counted(done.in_use, 'C build', 'C builds')} another vbr is building or loading")
            return 0
        bound = c_cache.limit()
        parts = cache_contents.usage()
    except PermissionError as exc:
        print(clean(f"vbr: error: {exc}: vbr neither reads nor changes it"), file=sys.stderr)
        return 1
    print(clean(str(base)))
    for part in parts:
        detail = "" if part.libraries is None else \
            f"{_counted(part.libraries, 'library', 'libraries')}, " \
            f"{_counted(part.references, 'load reference', 'load references')}; "
        print(clean(f"  {part.what} ({part.where}): {detail}{_counted(part.files, 'file', 'files')}, {_mb(part.size)}"))
    print(f"  total: {_mb(sum(p.size for p in parts))}; the C builds are kept under {bound // MB:,} MB "
          "(VBR_C_CACHE_MB)")
    return 0


def _counted(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _mb(size: int) -> str:
    return f"{size / MB:,.1f} MB"
