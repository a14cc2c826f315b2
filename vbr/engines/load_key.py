"""A name for the typed program a rule file makes, known before the program's C is generated.

`load_key(sources, options)` digests what `vbr.engines.game.load` makes a program from: the rule
texts (the file and those it extends, by name), the options given, and vbr's own code, which is
identified as Python identifies a module's source for its bytecode cache: each file's path, size
and modification time. Two loads with the same key make the same program, so the C engine may
take the library built for the first without generating its C again (c_engine.cached_library).

A program made any other way (a mutant's model, a scenario's program) has no key: its rule texts
are the file's, its program is not. The chance program of a rule file (vbr/ir/chance_program.py)
is made from it the same way every time, and has its own key (`variant`).
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

_CODE_SUFFIXES = (".py", ".h", ".lark")


def load_key(sources: dict[str, str], options: dict, variant: str = "") -> str:
    """The hex digest naming the program of these rule texts under these options; `variant`
    names another program made from them the same way every time (the chance program)."""
    h = hashlib.sha256(b"vbr load key 1\0" + code_identity().encode())
    if variant:
        h.update(b"variant\0" + variant.encode() + b"\0")
    h.update(repr(sorted((str(k), repr(v)) for k, v in options.items())).encode() + b"\0")
    for name in sorted(sources):
        for part in (name, sources[name]):
            data = part.encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_identity() -> str:
    """The paths, sizes and modification times of vbr's code files, as one digest."""
    h = hashlib.sha256()
    _identify(str(Path(__file__).resolve().parent.parent), "", h)
    return h.hexdigest()


def _identify(folder: str, rel: str, h) -> None:
    with os.scandir(folder) as found:
        entries = sorted(found, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                _identify(entry.path, f"{rel}{entry.name}/", h)
        elif entry.name.endswith(_CODE_SUFFIXES):
            st = entry.stat()
            h.update(f"{rel}{entry.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
