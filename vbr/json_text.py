"""JSON as vbr writes it to files: UTF-8 text, its non-ASCII characters as themselves, but a lone
surrogate as its escape `\\udcff`.

Python reads a command-line argument or a file name whose bytes are not UTF-8 with each such byte
as a lone surrogate (U+DC80..U+DCFF). No UTF-8 text can hold one: written as itself it stops the
write ("surrogates not allowed"). JSON's escape for it is valid, and reads back as the same
string, so a log names such a rule file and replay finds it again.
"""
from __future__ import annotations

import json
import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value, **how) -> str:
    """`json.dumps(value, ensure_ascii=False, **how)`, each lone surrogate escaped."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False, **how))
