"""The reserved words, and where a rule file declares one as a name.

A reserved word starts a statement or an expression, so the parser reads it as that word wherever
a name could stand in an expression. After `let`, `enum X {`, `var` and the like only a name can
follow, so `enum Move { roll, stop }` parses, and the file fails later where `roll` is used.
`declared_reserved` finds such declarations in the text, so that a syntax error can be reported
where the real mistake is.
"""
from __future__ import annotations

import re

from vbr.errors import Diagnostic, Span

# Words that start a statement or an expression: a name spelled like one could not be read.
# (Other grammar words, such as `points` or `to`, are fine as names; docs/language.md lists both.)
RESERVED_WORDS = frozenset({
    "let", "if", "elif", "else", "for", "repeat", "loop", "while", "break", "continue", "choose", "move",
    "shuffle", "create", "goto", "end", "emit", "say", "return", "reveal", "not", "and", "or", "in", "true",
    "false", "none", "roll", "pick", "sum", "any", "all", "first", "every", "then", "seats", "teams", "measure"})

_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
# a declaration keyword, the name it declares, and what must follow the name there
_NAMED = re.compile("|".join([
    rf"\bvar\s+({_WORD})\s*:",
    rf"\b(?:const|option|die|direction|let)\s+({_WORD})\s*=",
    rf"\b(?:fn|proc|event)\s+({_WORD})\s*\(",
    rf"\b(?:kind|enum|phase|stage)\s+({_WORD})\s*\{{",  # a title is blanked out before this is matched
    rf"\bzone\s+({_WORD})\s+(?:per|hidden|owner|team|public)\b",
    rf"\bfor\s+({_WORD})\s+in\b",
    rf"\bchoose\s+({_WORD})\s+from\b",
]))
# a list of names in braces or parentheses after a declared name: enum members, kind fields, parameters
_LISTED = re.compile(rf"\b(enum|kind|fn|proc|event|on)\s+{_WORD}\s*([{{(])([^{{}}()]*)")
_LIST_ITEM = re.compile(rf"(?:^|,)\s*({_WORD})")
_BLANKED = re.compile(r'"[^"\n]*"|#[^\n]*')


def reserved_message(word: str, what: str = "a name") -> str:
    return f"`{word}` is a reserved word of the language and cannot be {what}; choose another name"


def declared_reserved(text: str, file: str) -> list[Diagnostic]:
    """Each place the text declares a reserved word as a name (a var, a parameter, an enum member,
    a kind's field, a local, ...), in the order written. Strings and comments are not looked in."""
    plain = _BLANKED.sub(lambda m: " " * len(m.group()), text)
    found: list[tuple[int, str, str]] = []
    for m in _NAMED.finditer(plain):
        group = next(i for i in range(1, len(m.groups()) + 1) if m.group(i) is not None)
        found.append((m.start(group), m.group(group), "a name"))
    for m in _LISTED.finditer(plain):
        what = "an enum member" if m.group(1) == "enum" else ("a field" if m.group(1) == "kind" else "a parameter")
        for item in _LIST_ITEM.finditer(m.group(3)):
            found.append((m.start(3) + item.start(1), item.group(1), what))
    out = []
    for offset, word, what in sorted(found):
        if word in RESERVED_WORDS:
            out.append(Diagnostic(Span.at_offset(file, text, offset, len(word)), reserved_message(word, what)))
    return out
