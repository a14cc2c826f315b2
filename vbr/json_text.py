"""JSON as vbr writes it to files and to stdout: UTF-8 text whose readable non-ASCII characters
are themselves, and whose every character that does not show as itself is JSON's escape for it.

A log, rows and `--json` output hold text from a rule file, an option value or a file name, all
untrusted. JSON's escape (`\\u202e`) reads back as the same string, so it is both faithful and
safe; `dumps` writes it for every character of Unicode's general categories Cc (the C0 controls,
DEL and the C1 controls), Cf (format characters: the bidi embeddings, overrides, isolates and
marks U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C, the zero-width space and joiners,
the byte-order mark, the tag characters...), Cs (a lone surrogate, U+DC80..U+DCFF: how Python
reads a byte of an argument or a file name that is not UTF-8, which no UTF-8 text can hold), Cn
(unassigned in this Python's Unicode: a format character of a later Unicode among them), Zl and
Zp (U+2028, U+2029, which break a line where no newline shows). A character past U+FFFF is
escaped as its UTF-16 surrogate pair (`\\udb40\\udc01`), as JSON writes it. The rest (letters,
marks, symbols, private-use characters) is written as itself, so it stays readable.
"""
from __future__ import annotations

import json
import unicodedata

_ESCAPED = {"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"}


def _escape(code: int) -> str:
    """JSON's escape for the character `code`: `\\u00ad`, or a surrogate pair past U+FFFF."""
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class _Shown(dict):
    """A `str.translate` table, filled as characters are met: each character `dumps` escapes to
    its escape, each other to itself; emptied when it holds `KEPT` (text of many distinct
    characters keeps it bounded)."""

    KEPT = 4096

    def __missing__(self, code: int) -> str:
        char = chr(code)
        shown = _escape(code) if code > 0x1F and unicodedata.category(char) in _ESCAPED else char
        if len(self) >= self.KEPT:
            self.clear()
        self[code] = shown
        return shown


_SHOWN = _Shown()


def _escaped(text: str) -> str:
    """`text`, JSON that `json.dumps(..., ensure_ascii=False)` wrote, with every character of the
    module's categories written as its escape. Such characters stand only inside strings there,
    where an escape reads back as the character; a C0 control stands only outside them (json
    escapes every one in a string), as the newline and the indentation that `indent` puts between
    values, and is left as it is."""
    if text.isascii() and "\x7f" not in text:
        return text
    return text.translate(_SHOWN)


def dumps(value, **how) -> str:
    """`json.dumps(value, ensure_ascii=False, **how)`, each character that does not show as itself
    written as JSON's escape for it (see the module's docstring)."""
    return _escaped(json.dumps(value, ensure_ascii=False, **how))


def dumper(**how):
    """`dumps` with `how` fixed, its encoder made once: for text written a value at a time."""
    encode = json.JSONEncoder(ensure_ascii=False, **how).encode
    return lambda value: _escaped(encode(value))
