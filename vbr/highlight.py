"""Highlighting .vbr text (rule files and scenario files) with Pygments.

`VbrLexer` is registered as the `pygments.lexers` entry point `vbr` (pyproject.toml), so after
`pip install -e .` both `pygmentize -l vbr rules/siatka.vbr` and Pygments' lookup by file name
(`*.vbr`) find it. Its keywords are read from the grammar file itself (`grammar_keywords`), so the
highlighting cannot drift from what the parser accepts; tests/test_highlight.py compares them
with the terminals Lark builds from the same file.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

GRAMMAR = Path(__file__).resolve().parent / "grammar" / "vbr.lark"

# keywords that open a declaration (of a rule file) or a scenario item: highlighted apart, and
# the words after which a name is being declared
DECLARATION_WORDS = frozenset({
    "game", "extends", "override", "seats", "teams", "option", "enum", "kind", "zone", "court", "direction",
    "die", "var", "const", "fn", "proc", "event", "on", "phase", "stage", "setup", "start", "points", "limit",
    "require", "returns", "tests", "scenario",
})
CONSTANT_WORDS = frozenset({"true", "false", "none"})
OPERATOR_WORDS = frozenset({"and", "or", "not", "in"})
# names the checker knows without a declaration: the base types (docs/language.md, section 3)
BASE_TYPES = ("int", "bool", "cell", "dir")  # seat, zone, list and of are grammar words

_LITERAL = re.compile(r'"([A-Za-z_]+)"')  # a keyword written as a literal in a rule: "phase"
_WORD_REGEX = re.compile(r"/\(?([A-Za-z_| +]+)\)?\\b/")  # a keyword terminal as a regex: /(top|bottom)\b/, /first +mover\b/


@lru_cache(maxsize=1)
def grammar_keywords() -> tuple[str, ...]:
    """Every word the grammar spells out (a literal such as `"phase"`, or a terminal such as
    `/(top|bottom)\\b/`), sorted: the words the highlighters show as keywords."""
    text = GRAMMAR.read_text(encoding="utf-8")
    found: set[str] = set()
    for line in text.splitlines():
        code = line.split("//", 1)[0]
        found.update(_LITERAL.findall(code))
        for group in _WORD_REGEX.findall(code):
            found.update(w for w in re.split(r"[| +]+", group) if w)
    return tuple(sorted(found))


# grammar words after which an expression may open with `(`; any other grammar word followed by
# `(` is a call of a built-in function that shares its name (`field(s, 3)`, `top(deck[s])`)
EXPRESSION_OPENERS = frozenset({
    "if", "elif", "while", "then", "else", "when", "where", "from", "to", "by", "times", "expect", "legal",
    "illegal", "winner", "repeat", "reveal", "shuffle", "move", "pick", "sum", "any", "all", "first", "every",
    "for", "return", "choose", "force",
})


def _plain_keywords() -> tuple[str, ...]:
    return tuple(w for w in grammar_keywords() if w not in DECLARATION_WORDS | CONSTANT_WORDS | OPERATOR_WORDS)


def _callable_keywords() -> tuple[str, ...]:
    return tuple(w for w in _plain_keywords() if w not in EXPRESSION_OPENERS)


class VbrLexer(RegexLexer):
    """Rule files (`game "..."`) and scenario files (`tests for "..."`) of the vbr language."""

    name = "vbr"
    aliases = ["vbr"]
    filenames = ["*.vbr"]
    mimetypes = ["text/x-vbr"]
    url = "https://github.com/"  # no public home yet: the README of the vbr package is its page

    tokens = {
        "root": [
            (r"[ \t\r\n\f]+", Whitespace),
            (r"#.*?$", Comment.Single),
            # a declaration keyword and the name it declares
            (r"(override)(\s+)", bygroups(Keyword.Declaration, Whitespace)),
            (r"\b(phase|stage|proc|fn|event)(\s+)([A-Za-z_]\w*)",
             bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"\b(kind|enum)(\s+)([A-Za-z_]\w*)", bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"\b(var|const|option|zone|die|direction)(\s+)([A-Za-z_]\w*)",
             bygroups(Keyword.Declaration, Whitespace, Name.Variable)),
            (r"\b(on)(\s+)([A-Za-z_]\w*)", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"\b(goto|start)(\s+)([A-Za-z_]\w*)", bygroups(Keyword, Whitespace, Name.Label)),
            (r'"', String.Double, "string"),
            (words(_callable_keywords(), prefix=r"\b", suffix=r"(?=\s*\()"), Name.Builtin),
            (words(tuple(sorted(DECLARATION_WORDS)), prefix=r"\b", suffix=r"\b"), Keyword.Declaration),
            (words(tuple(sorted(CONSTANT_WORDS)), prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(tuple(sorted(OPERATOR_WORDS)), prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(_plain_keywords(), prefix=r"\b", suffix=r"\b"), Keyword),
            (words(BASE_TYPES, prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (r"(\.)([A-Za-z_]\w*)", bygroups(Punctuation, Name.Attribute)),
            (r"[A-Za-z_]\w*(?=\s*\()", Name.Function),
            (r"[A-Za-z_]\w*", Name),
            (r"[0-9]+", Number.Integer),
            (r"\.\.|==|!=|<=|>=|\+=|-=|[-+*/%<>=]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
            (r".", Text),
        ],
        "string": [
            (r'"', String.Double, "#pop"),
            (r"\{", String.Interpol, "hole"),
            (r'[^"{\n]+', String.Double),
            (r"\n", String.Double, "#pop"),  # a string cannot hold a line break: end it here
        ],
        "hole": [  # `say "point to {other(holder)}"`: an expression inside a string
            (r"\}", String.Interpol, "#pop"),
            (r'"', String.Double, "#pop:2"),
            include("expression"),
        ],
        "expression": [
            (r"[ \t]+", Whitespace),
            (words(_callable_keywords(), prefix=r"\b", suffix=r"(?=\s*\()"), Name.Builtin),
            (words(tuple(sorted(CONSTANT_WORDS)), prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(tuple(sorted(OPERATOR_WORDS)), prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(_plain_keywords(), prefix=r"\b", suffix=r"\b"), Keyword),
            (r"(\.)([A-Za-z_]\w*)", bygroups(Punctuation, Name.Attribute)),
            (r"[A-Za-z_]\w*(?=\s*\()", Name.Function),
            (r"[A-Za-z_]\w*", Name),
            (r"[0-9]+", Number.Integer),
            (r"\.\.|==|!=|<=|>=|[-+*/%<>]", Operator),
            (r"[()\[\],:.]", Punctuation),
            (r"[^}\"]", Text),
        ],
    }

    def analyse_text(text: str) -> float:  # noqa: N805 (Pygments calls it as a static method)
        head = text.lstrip()[:200]
        return 0.6 if re.match(r'(game|tests\s+for)\s+"', head) else 0.0
