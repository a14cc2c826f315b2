"""A keyword glued to the word after it (`varx: int = 0`, `phase_two { ... }`, `seats2`).

The parser's contextual lexer offers, at each point, only the tokens that may stand there. Where
no name may stand (the start of a declaration), it reads `varx` as the keyword `var` and then the
name `x`, and `varx: int = 0` would declare a var `x`. A token that starts inside a word, right
after the last letter, digit or `_` of the token before it, is such a split: the lexer calls
`check` on every word-like token while a text is parsed (vbr/grammar/parser.py), and the split is
refused as a syntax error at the whole word.
"""
from __future__ import annotations

import re

_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_LITERAL = re.compile(r'"([a-z_]+)"')
_EXPONENT = re.compile(r"[0-9]+[eE][+-]?[0-9]+(?![A-Za-z0-9_.])")  # `1e1`, `2E-3`: a number in scientific notation
# the grammar's named terminals that read a word or a number (vbr.lark)
_NAMED = ("NAME", "INT", "OWNER_KIND", "VISIBILITY", "ORDERED", "WRAP", "CLAMP", "FIRST_MOVER", "BY_TEAM", "OPTIONAL",
          "END_POS", "AGG")

SOURCE: list[str] = [""]  # the text being lexed; set by the parser while it holds its lexing lock


class GluedWord(Exception):
    """A token that starts inside a word: `at` is its offset in the text."""

    def __init__(self, at: int):
        super().__init__(at)
        self.at = at


def word_terminals(grammar: str) -> list[str]:
    """The names of the grammar's terminals that read a word: its named ones, and Lark's names of
    its keywords (`"phase"` is `PHASE`)."""
    return sorted(set(_NAMED) | {m.group(1).upper() for m in _LITERAL.finditer(grammar)})


def check(tok):
    """The lexer's callback: `tok` itself, unless it starts right after a letter, digit or `_`,
    or is a number a letter or `_` follows (`3max`: a keyword that is also a name's spelling
    reaches no callback of its own)."""
    text, at = SOURCE[0], tok.start_pos
    if at and text[at - 1] in _WORD_CHARS:
        raise GluedWord(at)
    if tok.type == "INT":
        end = at + len(tok)
        if end < len(text) and text[end] in _WORD_CHARS:
            raise GluedWord(end)
    return tok


def glued_message(text: str, at: int) -> tuple[int, str]:
    """(offset of the whole word, message) for a word split at offset `at`."""
    start = at
    if text[at - 1].isdigit():  # a number, then a word: `3max`
        while start and text[start - 1].isdigit():
            start -= 1
        exponent = _EXPONENT.match(text, start)
        if exponent:
            return start, _exponent_message(exponent.group())
        word = _WORD.match(text, start).group()
        return start, f"unexpected '{word}': a number and the word after it are written with a space between them"
    while start and text[start - 1] in _WORD_CHARS:
        start -= 1
    word = _WORD.match(text, start).group()
    head, rest = text[start:at], text[at:start + len(word)]
    return start, (f"unexpected '{word}': it would read as the keyword `{head}` and then `{rest}`; a keyword and "
                   f"the word after it are written with a space between them (`{head} {rest}`)")


def _exponent_message(number: str) -> str:
    """Why `1e1` is refused: the language's numbers are whole and written in the digits alone;
    the digits to write where the number is a whole one a 64-bit integer holds (`1e1`: 10)."""
    mantissa, power = map(int, re.split("[eE]", number))
    said = f"unexpected '{number}': numbers are written in the digits alone, without an exponent"
    if power < 0:
        return f"{said}, and are whole: count in smaller units, or use `/`, which rounds down"
    if power > 19 or mantissa * 10 ** power > 2 ** 63 - 1:
        return f"{said}, and are at most 9223372036854775807"
    return f"{said}: write {mantissa * 10 ** power}"
