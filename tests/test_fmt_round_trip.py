"""`vbr fmt`'s output is canonical: formatting it again gives it back unchanged, and it keeps every
comment (docs/cli.md, `vbr fmt`: "a file already canonical is left untouched")."""
import pytest

from vbr.cli import main
from vbr.grammar.parser import parse
from vbr.grammar.printer import program

HEAD = 'game "E"\nseats 2\nstart a\n'

# A block with nothing in it but a comment, in every place a block or body can be.
ONLY_A_COMMENT = {
    "a for's body, the comment after `{`": HEAD + "phase a {\n  for s in seats { # c\n  }\n  end draw\n}\n",
    "a for's body, the comment on its own line": HEAD + "phase a {\n  for s in seats {\n    # c\n  }\n  end draw\n}\n",
    "a phase's body": HEAD + "phase a {\n  # c\n}\n",
    "setup's body": HEAD + "setup { # c\n}\nphase a {\n  end draw\n}\n",
    "an else": HEAD + "phase a {\n  if true {\n    end draw\n  } else { # c\n  }\n}\n",
    "a choose's else": HEAD + "phase a {\n  choose x from 1..2 by 0 else { # c\n  }\n  end draw\n}\n",
    "a scenario": 'tests for "x.vbr"\nscenario "s" {\n  # c\n}\n',
    "a given": 'tests for "x.vbr"\nscenario "s" {\n  given { # c\n  }\n}\n',
}


@pytest.mark.parametrize("text", ONLY_A_COMMENT.values(), ids=ONLY_A_COMMENT.keys())
def test_a_block_holding_only_a_comment_is_formatted_to_a_text_that_formats_to_itself(text):
    once = program(parse(text, "e.vbr"))
    assert program(parse(once, "e.vbr")) == once
    assert "{\n\n" not in once  # no blank line the source did not have, after the `{`
    assert [c.text for c in parse(once, "e.vbr").comments] == [" c"]


def test_fmt_check_finds_a_file_just_rewritten_by_fmt_w_canonical(tmp_path, capsys):
    f = tmp_path / "e.vbr"
    f.write_text(HEAD + "phase a {\n  for s in seats { # every seat\n  }\n  end draw\n}\n", encoding="utf-8")
    assert main(["fmt", "-w", str(f)]) == 0
    assert f.read_text(encoding="utf-8") == HEAD + "phase a {\n  for s in seats {\n    # every seat\n  }\n  end draw\n}\n"
    capsys.readouterr()
    assert main(["fmt", "--check", str(f)]) == 0
    assert capsys.readouterr().out == f"{f}: canonical\n"


def test_a_blank_line_before_the_only_comment_of_a_block_is_kept_once():
    text = HEAD + "phase a {\n\n  # c\n}\n"
    once = program(parse(text, "e.vbr"))
    assert once == text


def test_a_trailing_comment_below_a_form_feed_in_a_comment_stays_on_its_line():
    # whether a comment stood on its own line was judged from lines cut by str.splitlines, which
    # also ends one at a form feed: below one, each comment was judged by the line above its own,
    # and a trailing comment under a blank line was moved onto a line of its own
    text = ('game "F"\n# a page break \x0c here\nseats 2\nstart a\nvar n: int = 0\n\nphase a {\n\n'
            '  n += 1  # trailing\n  # own\n  end draw\n}\n')
    assert program(parse(text, "f.vbr")) == text  # already canonical: left as it is
