"""vbr.checking finds in every rule file exactly the errors the closure compilers find by
themselves (vbr/interpreter/compiler.py `closure_diagnostics`): the same messages at the same
places, in the same order. This test goes when the closure engine does.

The rule files: every .vbr under tests/ and rules/, and every rule text a test file spells out
(the invalid and hostile ones among them), each written to a file of its own.
"""
import ast
import textwrap

import pytest

from conftest import ROOT

from vbr.checking import checked_model
from vbr.errors import VbrError
from vbr.interpreter.compiler import closure_diagnostics
from vbr.loader import load_rules


def _rule_texts():
    """(name, text) of each rule file a test file spells out as one string."""
    for test_file in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(test_file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 'game "' in node.value \
                    and "{" in node.value:
                yield f"{test_file.name}:{node.lineno}", textwrap.dedent(node.value)


FILES = sorted(str(p.relative_to(ROOT)) for folder in ("tests", "rules") for p in (ROOT / folder).rglob("*.vbr"))
TEXTS = list(_rule_texts())


def _departure(d, rules) -> bool:
    """The one place vbr.checking departs from the closure compilers on purpose: a `for` whose
    name is a reserved word (docs/language.md: no local may be one) is refused in every loop; the
    closure compilers let it pass in a loop that never stops for a choice."""
    line = rules.sources[d.span.file].split("\n")[d.span.line - 1][d.span.col - 1:]
    return line.startswith("for ") and d.message.endswith("is a reserved word of the language and cannot be a name; "
                                                          "choose another name")


def _found(rules) -> list[tuple[str, str]]:
    try:
        checked_model(rules, {})
    except VbrError as exc:
        return [(str(d.span), d.message) for d in exc.diagnostics if not _departure(d, rules)]
    return []


def _same(path):
    try:
        rules = load_rules(path)
    except VbrError:
        return  # it does not parse: no body to check
    try:
        expected = [(str(d.span), d.message) for d in closure_diagnostics(rules, {})]
    except VbrError as exc:  # past a limit of the model: the checker stops at the same place
        expected = [(str(d.span), d.message) for d in exc.diagnostics]
    assert _found(rules) == expected


def test_there_are_files_and_texts_to_compare():
    assert len(FILES) > 30 and len(TEXTS) > 100


@pytest.mark.parametrize("name", FILES)
def test_a_rule_file_gets_the_closure_compilers_errors(name):
    _same(ROOT / name)


def test_each_rule_text_of_the_tests_gets_the_closure_compilers_errors(tmp_path):
    for i, (where, text) in enumerate(TEXTS):
        path = tmp_path / f"t{i}.vbr"
        path.write_text(text, encoding="utf-8")
        try:
            _same(path)
        except AssertionError as exc:
            raise AssertionError(f"the rule text at {where}: {exc}") from None
