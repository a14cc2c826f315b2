"""What a syntax error most likely means when the author misspelt a keyword or wrote another
language's symbol: the keyword meant (`chose` → `choose`, `variable` → `var`), the fix for a
character the language has no use for (`&&`, `!`, `;`, a typographic quote), and a line that
ends with `=` before its value (`die d =`, the next declaration's word then read as the value).

Used by the parser (vbr/grammar/parser.py) to word its errors and by the checker for a misspelt
statement word that still parses (`shufle deck[s]` reads as two expressions standing alone).
"""
from __future__ import annotations

import difflib
import re

# the words that start a statement (vbr.lark's `_stmt`)
STATEMENT_KEYWORDS = ("let", "if", "for", "repeat", "loop", "while", "break", "continue", "choose", "move",
                      "shuffle", "create", "goto", "end", "emit", "say", "return", "reveal", "measure")
# the words that start an expression and take one after them (`roll d`, `pick seats`): misspelt,
# what follows parses as a statement of its own
EXPRESSION_KEYWORDS = ("roll", "pick")

# words other languages use for a keyword of this one; a close spelling is found by difflib
_ALIASES = {
    "variable": "var", "function": "fn", "func": "fn", "def": "fn", "procedure": "proc", "constant": "const",
    "elseif": "elif", "elsif": "elif", "foreach": "for", "print": "say", "null": "none", "nil": "none",
    "None": "none", "True": "true", "False": "false",
}

# characters the language has no use for, and what to write instead
_CHARACTERS = {
    "\u201c": 'a string is written between straight double quotes: "..."',
    "\u201d": 'a string is written between straight double quotes: "..."',
    "\u201e": 'a string is written between straight double quotes: "..."',
    "\u2018": 'a string is written between straight double quotes: "..."',
    "\u2019": 'a string is written between straight double quotes: "..."',
    "'": 'a string is written between double quotes: "..."',
    "&": "write `and`",
    "|": "write `or`",
    "!": "write `not` (`!=` is written without a space)",
    "\u00a0": "a no-break space: write a plain space",
    "\u202f": "a no-break space: write a plain space",
    "\u200b": "a zero-width space: delete it",
    "\u2026": "write `..` for a range",
    "\u2212": "write `-`",
    "\u2013": "write `-`",
    "\u2014": "write `-`",
    "\u00d7": "write `*`",
    "\u2264": "write `<=`",
    "\u2265": "write `>=`",
    "\u2260": "write `!=`",
}


def character_hint(char: str, before: str = "", after: str = "") -> str | None:
    """What to write instead of a character the lexer cannot read, or None. `before`: the text
    up to it (a `;` between the items of a list, a call or a kind's fields is a `,`); `after`: the
    rest of its line (a `"` the line does not close)."""
    if char == '"':
        curly = next((c for c in after if c in "\u201c\u201d\u201e"), None)
        return ("this string is not closed on its line" + (f": it ends with `{curly}`, which is not a `\"`" if curly else
                "; a string cannot hold a line break or a `\"`"))
    if char == ";":
        return "separate the items with `,`" if _in_a_list(before) else "statements end without `;`: remove it"
    if char.isalpha() and not char.isascii():
        return "a name is written in the letters A to Z, digits and `_`"
    return _CHARACTERS.get(char)


def keyword_for(word: str, keywords) -> str | None:
    """The keyword of `keywords` that `word` most likely misspells, or None. A word that is one
    of them already means nothing else."""
    keywords = list(keywords)
    if word in keywords:
        return None
    if word.lower() in keywords:  # `If`, `GOTO`
        return word.lower()
    alias = _ALIASES.get(word)
    if alias is not None:
        return alias if alias in keywords else None
    close = difflib.get_close_matches(word, keywords, n=1, cutoff=0.75)
    return close[0] if close else None


_ITEM_LISTS = re.compile(r"\b(kind|enum)\s+\w+\s*$|\bin\s*$")  # before a `{` whose items `,` separates


def _in_a_list(before: str) -> bool:
    """Whether the innermost bracket open at the end of `before` holds items separated by `,`: a
    `(` or `[`, or the `{` of a kind, an enum or an option's `in { ... }`."""
    plain = re.sub(r'"[^"\n]*"|#[^\n]*', "", before)
    depth: list[int] = []
    for i, ch in enumerate(plain):
        if ch in "([{":
            depth.append(i)
        elif ch in ")]}" and depth:
            depth.pop()
    if not depth:
        return False
    at = depth[-1]
    return plain[at] != "{" or _ITEM_LISTS.search(plain[:at]) is not None


_LEADING_WORD = re.compile(r"([ \t]*\}?[ \t]*)([A-Za-z_][A-Za-z0-9_]*)[ \t]+(?=[A-Za-z_0-9\"(\[{-])")


def misspelt_statement(line_text: str, error_col: int) -> tuple[int, str, str] | None:
    """(column, word, keyword) when the line starts (after a `}`, if any) with a misspelt
    statement keyword, `else` or `elif`, followed by what it takes (`chose c from hand[0] by 0`,
    `} esle {`), before the column where the parser
    gave up; else None. A name followed by another word cannot start a statement of its own, so
    such a word is a misspelling, not a name the file declares."""
    m = _LEADING_WORD.match(line_text)
    if m is None or m.end(2) >= error_col:
        return None
    keyword = keyword_for(m.group(2), STATEMENT_KEYWORDS + ("else", "elif"))
    return None if keyword is None else (m.start(2) + 1, m.group(2), keyword)


EXPRESSION_KEYWORDS = ("roll", "pick")  # the words that start an expression and take one after them
_WORD_BEFORE = re.compile(r"([A-Za-z_]\w*)[ \t]+$")


def misspelt_expression_word(line_text: str, error_col: int) -> tuple[int, str, str] | None:
    """(column, word, keyword) when the word just before the column where the parser gave up is a
    misspelt `roll` or `pick` (`pik seats`, `rol d`): a name cannot be followed by another
    expression, so the parser stopped at what the keyword would have taken; else None."""
    m = _WORD_BEFORE.search(line_text[:error_col - 1])
    if m is None:
        return None
    keyword = keyword_for(m.group(1), EXPRESSION_KEYWORDS)
    return None if keyword is None else (m.start(1) + 1, m.group(1), keyword)


_ROLL_CALLED = re.compile(r"\broll[ \t]*$")
_DIE_NAME = re.compile(r"\([ \t]*([A-Za-z_]\w*)[ \t]*\)")


def roll_called(line_text: str, error_col: int) -> tuple[int, str] | None:
    """(the column of `roll`, what to write) when the parser gave up at a `(` just after it
    (`roll(d)`, written as a call): `roll` takes the die's name after it, without parentheses;
    else None."""
    if line_text[error_col - 1:error_col] != "(":
        return None
    m = _ROLL_CALLED.search(line_text[:error_col - 1])
    if m is None:
        return None
    die = _DIE_NAME.match(line_text, error_col - 1)
    return m.start() + 1, f"roll {die.group(1)}" if die else "roll DIE"


# the words that start a declaration, which a value left out before them is read as
_DECLARATION_KEYWORDS = frozenset({"var", "const", "option", "die", "zone", "kind", "enum", "fn", "proc", "event",
                                   "phase", "stage", "setup", "court", "direction", "start", "points", "seats",
                                   "limit", "measure", "require", "returns", "override", "on", "extends"})
_BLANKED = re.compile(r'"[^"\n]*"|#[^\n]*')


def value_left_out(text: str, line: int, col: int) -> tuple[int, int] | None:
    """(line, column) of an `=` that ends its line with no value after it, when the parser gave up
    at (`line`, `col`) on the line after, just past a declaration's first word (`die d =` then
    `var score: ...`: `var` was read as the die's faces, and `score` is where it stopped); else None."""
    lines = _BLANKED.sub(lambda m: " " * len(m.group()), text).split("\n")
    if not 1 < line <= len(lines):
        return None
    m = re.match(r"[ \t]*([A-Za-z_]+)[ \t]+", lines[line - 1])
    if m is None or m.group(1) not in _DECLARATION_KEYWORDS or m.end() + 1 != col:
        return None
    before = line - 1
    while before >= 1 and not lines[before - 1].strip():
        before -= 1
    if before < 1 or not lines[before - 1].rstrip().endswith("="):
        return None
    return before, len(lines[before - 1].rstrip())


_VALUE_FIELDS = ("default", "value", "init", "faces")  # what follows a declaration's `=`: option, const, var, die


def keyword_read_as_value(decls: list, text: str) -> tuple[int, int, int, str] | None:
    """(line, column of the `=`, line of the word, the word) of the first declaration whose `=`
    ends its line and whose value is a declaration's first word on a later line (`option target =`
    then `override enum Face ...`: `override` is also a name, so it parsed as the option's value
    and the rest of its line as another declaration); else None. A word alone on its line is
    taken for the value it reads as (an enum member named `start`). `value_left_out` finds the same mistake
    where the parse stops."""
    lines = _BLANKED.sub(lambda m: " " * len(m.group()), text).split("\n")
    for d in decls:
        value = next((v for v in (getattr(d, f, None) for f in _VALUE_FIELDS) if v is not None), None)
        name, span = getattr(value, "id", None), getattr(value, "span", None)
        if name not in _DECLARATION_KEYWORDS or span is None or span.line <= d.span.line:
            continue
        if not lines[span.line - 1][span.col - 1 + len(name):].strip():  # the word alone: a value on a line of its own
            continue
        before = span.line - 1
        while before >= 1 and not lines[before - 1].strip():
            before -= 1
        if before >= 1 and lines[before - 1].rstrip().endswith("="):
            return before, len(lines[before - 1].rstrip()), span.line, name
    return None
