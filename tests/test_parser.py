"""Text → AST: syntax errors are located and explained; the canonical printer round-trips."""
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import FIXTURES, RULES as RULES_DIR, rule_files, scenario_files
from vbr.errors import VbrError, VbrSyntaxError
from vbr.grammar import ast as A
from vbr.grammar.parser import SYNTAX_HINTS, parse, parse_expr
from vbr.grammar.printer import program
from vbr.engines.game import load


def test_parse_builds_ast_with_positions():
    tree = parse('game "T"\nvar x: int = 0\nstart p\nphase p {\n  x += 2\n  goto p\n}\n', "t.vbr")
    assert isinstance(tree, A.GameFile) and tree.title == "T"
    phase = tree.decls[-1]
    assert isinstance(phase, A.Phase)
    assign = phase.body.body[0]
    assert isinstance(assign, A.Assign) and assign.op == "+="
    assert (assign.span.file, assign.span.line, assign.span.col) == ("t.vbr", 5, 3)


def test_operator_precedence():
    e = parse_expr("1 + 2 * 3 == 7 and not false or x in [1, 2]")
    assert isinstance(e, A.Binary) and e.op == "or"
    left = e.left
    assert left.op == "and" and left.left.op == "==" and left.left.left.op == "+"
    assert left.left.left.right.op == "*"


def test_say_holes_are_parsed_in_place():
    tree = parse('game "T"\nstart p\nphase p {\n  say "a {1 + x} b"\n  goto p\n}\n', "t.vbr")
    say = tree.decls[-1].body.body[0]
    assert say.parts[0] == "a " and say.parts[2] == " b"
    hole = say.parts[1]
    assert isinstance(hole, A.Binary) and (hole.span.line, hole.span.col) == (4, 11)  # the `1` inside the quotes


@pytest.mark.parametrize("message,_test,examples", SYNTAX_HINTS, ids=[m[:30] for m, _, _ in SYNTAX_HINTS])
def test_every_syntax_hint_fires_on_its_examples(message, _test, examples):
    for text in examples:
        with pytest.raises(VbrSyntaxError) as info:
            parse(text)
        assert info.value.message.startswith(message), (text, info.value.message)


INVALID = sorted((FIXTURES / "invalid").glob("*.vbr"))


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_fixture_reports_its_exact_location(path):
    first = path.read_text().splitlines()[0]
    m = re.match(r"# expect: (\d+):(\d+): (.*)", first)
    assert m, f"{path} must start with '# expect: LINE:COL: message'"
    line, col, message = int(m[1]), int(m[2]), m[3]
    errors = []
    for engine in ("python", "c"):
        with pytest.raises(VbrError) as info:
            load(path, engine=engine)
        errors.append(info.value.render())
    assert errors[0] == errors[1]
    d = info.value.diagnostics[0]
    assert (d.span.line, d.span.col) == (line, col), d.render()
    assert d.message.startswith(message), d.message
    rendered = info.value.render()
    assert rendered.startswith(f"{path}:{line}:{col}: error: ")
    assert rendered.splitlines()[2].strip() == "^"


def test_there_are_enough_invalid_fixtures():
    assert len(INVALID) >= 15


ALL = rule_files() + scenario_files() + sorted((FIXTURES / "valid").glob("*.vbr"))


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_canonical_printer_round_trips(path):
    tree = parse(path.read_text(), str(path))
    printed = program(tree)
    again = parse(printed, str(path))
    assert A.shape(again) == A.shape(tree)
    assert program(again) == printed  # printing is idempotent


VALID_TEXT = (FIXTURES.parent.parent / "rules" / "siatka.vbr").read_text()


@given(st.data())
def test_mutated_rule_files_give_located_errors_only(data):
    """Deleting, duplicating or replacing a slice of a valid file never crashes the toolchain:
    the result either loads or raises a VbrError with a real position."""
    text = VALID_TEXT
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i, min(len(text), i + 40)))
    how = data.draw(st.sampled_from(["delete", "duplicate", "replace"]))
    if how == "delete":
        mutated = text[:i] + text[j:]
    elif how == "duplicate":
        mutated = text[:j] + text[i:j] + text[j:]
    else:
        junk = data.draw(st.text(alphabet='{}()[]=<>.,:;"#+-*/ \nabcxyz019_', max_size=12))
        mutated = text[:i] + junk + text[j:]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.vbr"
        path.write_text(mutated)
        try:
            load(path)
        except VbrError as exc:
            for diag in exc.diagnostics:
                assert diag.span.line >= 1 and diag.span.col >= 1
                assert diag.message
            assert exc.render().startswith(str(path)) or exc.render().startswith("<")


def _deep_or_large(data, text: str) -> str:
    """A valid file with something deep or large put in: a long sum, nested blocks, nested calls,
    a chain of fns, consts or procs, a huge number, a slice copied thousands of times."""
    i = data.draw(st.integers(0, len(text) - 1))
    n = data.draw(st.integers(1, 1200))
    how = data.draw(st.sampled_from(["sum", "blocks", "calls", "fns", "consts", "procs", "number", "copies"]))
    if how == "sum":
        return text[:i] + " + ".join(["1"] * n) + text[i:]
    if how == "blocks":
        return text[:i] + "if true {\n" * n + "}\n" * n + text[i:]
    if how == "calls":
        return text[:i] + "abs(" * n + "1" + ")" * n + text[i:]
    if how == "fns":
        twice = data.draw(st.booleans())
        call = "h{0}(a) + h{0}(a)" if twice else "h{0}(a) + 1"
        return text + "fn h0(a: int) = a\n" + "".join(f"fn h{k}(a: int) = {call.format(k - 1)}\n" for k in range(1, n))
    if how == "consts":
        return text + "const k0 = 1\n" + "".join(f"const k{k} = k{k - 1} + 1\n" for k in range(1, n)) + f"const kk = k{n - 1}\n"
    if how == "procs":
        return text + "proc q0() {\n}\n" + "".join(f"proc q{k}() {{\n  q{k - 1}()\n}}\n" for k in range(1, n))
    if how == "number":
        return text[:i] + "9" * (n * 4) + text[i:]
    j = data.draw(st.integers(i, min(len(text), i + 40)))
    return text[:j] + text[i:j] * (n * 5) + text[j:]


@given(st.data())
@settings(max_examples=int(os.environ.get("VBR_DEEP_EXAMPLES", "8")))
def test_deep_and_large_mutations_give_located_errors_only(data):
    """Putting something deep or large into a valid file ends in a load or
    in a VbrError with real positions: no RecursionError, no internal error, no hang. (A longer
    run: VBR_DEEP_EXAMPLES=500.)"""
    mutated = _deep_or_large(data, VALID_TEXT)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.vbr"
        path.write_text(mutated)
        try:
            load(path)
        except VbrError as exc:
            for diag in exc.diagnostics:
                assert diag.span.line >= 1 and diag.span.col >= 1
                assert diag.message
            assert exc.render().startswith(str(path))


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_fmt_keeps_every_comment_in_order(path):
    text = path.read_text()
    tree = parse(text, str(path))
    printed = program(tree)
    original = [c.text.strip() for c in tree.comments]
    again = [c.text.strip() for c in parse(printed, str(path)).comments]
    assert again == original
    assert len(original) == sum(1 for line in text.splitlines() if _comment_start(line) is not None)


def _comment_start(line: str):
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_string = not in_string
        elif ch == "#" and not in_string:
            return i
    return None


def test_the_siatka_files_are_in_canonical_form():
    for path in (RULES_DIR / "siatka.vbr", RULES_DIR / "tests" / "siatka.vbr"):
        assert program(parse(path.read_text(), str(path))) == path.read_text(), f"run `vbr fmt {path}`"


def test_a_file_parsed_in_four_threads_at_once_keeps_each_of_its_comments_once_in_each():
    # vbr.sim.build_ahead loads a sweep's files in threads; a tree with another's comments in it
    # would be kept (the AST cache) and `vbr fmt -w` would then write them twice into the file
    import threading
    text = (RULES_DIR / "cattack.vbr").read_text(encoding="utf-8")
    want = [c.span.line for c in parse(text, "cattack.vbr").comments]
    assert want == [n for n, line in enumerate(text.splitlines(), 1) if _comment_start(line) is not None]
    got = []
    threads = [threading.Thread(target=lambda: got.append([c.span.line for c in parse(text, "cattack.vbr").comments]))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 4


def test_declared_reserved_words_are_found_outside_strings_and_comments():
    from vbr.grammar.reserved import declared_reserved
    text = ('game "g"\nenum first { a, b }\n# let if = 1\nphase p {\n  say "let any = 2"\n  let x = 1\n}\n'
            'fn f(a: int, pick: int) = a\n')
    found = [(d.span.line, d.span.col, d.message.split(" is ")[0]) for d in declared_reserved(text, "f.vbr")]
    assert found == [(2, 6, "`first`"), (8, 14, "`pick`")]


def _syntax_problem(text: str) -> tuple[int, int, str]:
    with pytest.raises(VbrSyntaxError) as info:
        parse(text, "t.vbr")
    d = info.value.diagnostics[-1]
    return d.span.line, d.span.col, d.message


def test_a_missing_brace_is_shown_at_the_block_its_closing_brace_was_taken_from_by_indentation():
    # the `}` on line 8 closes the `if` for the parser, but lines up with `phase p {`: the `if`
    # (line 5) is the block left open, not the end of the file where the parser stopped
    text = 'game "T"\nseats 2\nstart p\nphase p {\n  if true {\n    end draw\n\n}\n'
    line, col, msg = _syntax_problem(text)
    assert (line, col) == (5, 11)
    assert msg == ("a block is missing its closing `}`: this `{` is never closed; the `}` on line 8 is indented as "
                   "if it closed an outer block (the end of the file comes first)")


def test_a_missing_brace_before_the_next_declaration_is_shown_at_the_block_left_open():
    # it was `unexpected 'phase'; expected '(', '[', 'break', ...` at the next phase
    text = 'game "T"\nseats 2\nstart p\nphase p {\n  if true {\n    goto q\n  \n}\nphase q {\n  end draw\n}\n'
    line, col, msg = _syntax_problem(text)
    assert (line, col) == (5, 11)
    assert msg.startswith("a block is missing its closing `}`: this `{` is never closed") and \
        msg.endswith("(`phase` on line 9 comes first)")


def test_braces_in_strings_and_comments_do_not_count_and_without_a_clue_the_innermost_open_block_is_shown():
    text = 'game "T"\nseats 2\nstart p\nphase p {\n  say "{1} }"  # } {\n  for s in seats {\n    say "x"\n'
    assert _syntax_problem(text)[:2] == (6, 18)


def test_a_say_hole_that_stops_short_says_the_expression_ends_not_the_file():
    # docs/language.md 5.7: `{1 +}` is an error located in the string; the file goes on after it
    line, col, msg = _syntax_problem('game "T"\nstart p\nphase p {\n  say "a {n +} b"\n  end draw\n}\n')
    assert (line, col) == (4, 13) and msg.startswith("unexpected end of the expression; expected ")


def test_a_syntax_error_names_the_words_a_terminal_stands_for_not_its_grammar_name():
    # `zone hand per player owner` said "expected OWNER_KIND"
    assert _syntax_problem('game "T"\nzone hand per player owner\n')[2] == "unexpected 'player'; expected 'seat' or 'team'"
    assert _syntax_problem('game "T"\nzone hand per seat secret\n')[2] == \
        "unexpected 'secret'; expected 'hidden', 'owner', 'team' or 'public'"


def test_a_nul_byte_is_shown_where_it_stands_not_at_the_first_line():
    # it was shown at 1:1, the caret under `game "T"`; lines count as elsewhere: after a
    # byte-order mark, `\r\n` one line end
    assert _syntax_problem('\ufeffgame "T"\r\nseats 2  \x00\r\n') == (2, 10, "the file contains NUL bytes; is it text?")
    assert _syntax_problem('game "T"\n\x00') == (2, 1, "the file contains NUL bytes; is it text?")


def test_every_named_terminal_of_the_grammar_has_words_for_errors():
    from vbr.grammar.parser import _TERMINAL_WORDS, _lark
    named = {t.name for t in _lark().terminals if re.fullmatch(r"[A-Z_]+", t.name) and not t.name.startswith("__")}
    plain = {t.name for t in _lark().terminals if t.pattern.type == "str"}
    assert named - plain - {"COMMENT", "WS"} <= set(_TERMINAL_WORDS)  # those two are never expected


def test_a_declaration_indented_inside_a_block_that_could_hold_it_is_not_called_a_missing_brace():
    # `override` inside a stage: the stage's `{` is closed later; the word is what is misplaced
    line, col, msg = _syntax_problem('game "T"\nstage s {\n  override phase p {\n    end draw\n  }\n}\n')
    assert (line, col) == (3, 3) and msg.startswith("`override` cannot stand inside a stage")
