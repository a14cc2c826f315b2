"""The Pygments lexer: its keywords are the grammar's, and it reads every bundled file cleanly."""
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lark import Lark
from lark.lexer import PatternStr
from pygments import lex
from pygments.lexers import find_lexer_class_for_filename, get_lexer_by_name
from pygments.token import Error, Keyword, Name, Operator, String

from conftest import ROOT, rule_files, scenario_files
from vbr.highlight import DECLARATION_WORDS, GRAMMAR, VbrLexer, grammar_keywords

_NOT_WORDS = {"NAME", "INT", "STRING", "COMMENT", "WS"}


def lark_keywords() -> set[str]:
    """The words of the grammar as Lark itself sees them: its terminals, less names and numbers."""
    lark = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", start=["start", "expr"])
    out: set[str] = set()
    for t in lark.terminals:
        if t.name in _NOT_WORDS:
            continue
        if isinstance(t.pattern, PatternStr):
            if t.pattern.value.isidentifier():
                out.add(t.pattern.value)
        else:
            out.update(w for w in re.findall(r"[A-Za-z_]+", t.pattern.value) if w != "b")  # \b
    return out


def test_the_lexer_keywords_are_the_grammar_keywords():
    assert set(grammar_keywords()) == lark_keywords()
    assert DECLARATION_WORDS <= set(grammar_keywords())


@pytest.mark.parametrize("word", grammar_keywords())
def test_every_grammar_keyword_is_highlighted_as_one(word):
    tokens = [(t, v) for t, v in lex(f"{word} x\n", VbrLexer()) if v.strip()]
    assert tokens[0][1] == word
    assert tokens[0][0] in Keyword or tokens[0][0] in Operator.Word


@pytest.mark.parametrize("path", rule_files() + scenario_files(), ids=lambda p: p.parent.name + "/" + p.name)
def test_every_bundled_file_lexes_without_errors_and_round_trips(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(lex(text, VbrLexer()))
    assert not [v for t, v in tokens if t in Error]
    assert "".join(v for _, v in tokens) == text


def test_names_strings_and_holes():
    tokens = [(t, v) for t, v in lex('phase serve "Serve" {\n  say "to {other(s)}"\n  x.field = 1\n}\n', VbrLexer())
              if v.strip()]
    assert (Keyword.Declaration, "phase") in tokens
    assert (Name.Function, "serve") in tokens
    assert (String.Interpol, "{") in tokens
    assert (Name.Function, "other") in tokens
    assert (Name.Attribute, "field") in tokens


def test_found_by_name_and_by_file_name():
    assert isinstance(get_lexer_by_name("vbr"), VbrLexer)
    assert find_lexer_class_for_filename("rules/siatka.vbr") is VbrLexer


PYGMENTIZE = Path(sys.executable).parent / "pygmentize"  # the script pip installed beside this Python


def test_pygmentize_finds_the_entry_point():
    """Needs `pip install -e .` (the entry point lives in the installed metadata)."""
    assert PYGMENTIZE.exists(), "pygmentize is not installed beside this Python: pip install -e '.[test]'"
    out = subprocess.run([str(PYGMENTIZE), "-l", "vbr", "-f", "html", str(ROOT / "rules" / "siatka.vbr")],
                         capture_output=True, text=True, check=True).stdout
    assert '<span class="kd">phase</span>' in out
