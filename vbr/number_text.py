"""Numbers as a person types them for vbr: ASCII decimal forms only.

Python's `int()` and `float()` take more than a command line should: other scripts' digits (`٣`,
`３`), underscores (`1_000`), spaces around the number, and for `float()` also `nan`, `inf` and
`infinity`. A number vbr is given (a count, a seed, a bound, an option's or an agent's value) is
read here instead: an optional sign, then the digits 0 to 9 (for a decimal also a point and an
exponent: `0.5`, `.5`, `1e-3`). Anything else is a ValueError, as `int()` and `float()` raise,
so these stand in for them where a caller already catches that.
"""
from __future__ import annotations

import math
import re

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
MAX_DIGITS = 4000  # Python refuses to read longer integers (sys.get_int_max_str_digits, 4300)


def whole_number(text: str) -> int:
    """`text` as an integer, if it is one written in ASCII decimal digits with an optional sign
    and nothing else; else a ValueError."""
    if not isinstance(text, str) or len(text) > MAX_DIGITS or not _WHOLE.fullmatch(text):
        raise ValueError(f"not a whole number in the digits 0-9: {text!r}")
    return int(text)


def decimal_number(text: str) -> float:
    """`text` as a float, if it is a decimal number written in ASCII (`2`, `-0.5`, `.5`, `1e-3`)
    and nothing else; else a ValueError. It may still be too large to be finite (`1e999`), as
    `float()` reads it."""
    if not isinstance(text, str) or len(text) > MAX_DIGITS or not _DECIMAL.fullmatch(text):
        raise ValueError(f"not a decimal number in the digits 0-9: {text!r}")
    return float(text)


def whole_meant(value) -> int | None:
    """The whole number a decimal stands for, given as text or as a float (`1e1`, `9.0`, 9.0: 10,
    9, 9), for an error to say which whole number to write; None for what is no decimal number in
    ASCII, one with a fraction, or one beyond 2**53 (where a float no longer holds every whole
    number)."""
    try:
        x = value if isinstance(value, float) else decimal_number(value.strip()) if isinstance(value, str) else None
    except ValueError:
        return None
    return int(x) if x is not None and math.isfinite(x) and x.is_integer() and abs(x) <= 2 ** 53 else None
