"""What a failed expectation shows (docs/language.md, section 7: "a failed comparison shows both
sides"): each side's value as the language writes it."""
from vbr.scenario import run_file

RULES = """game "N"
seats 2
start a
var n: int = 0
phase a {
  choose x from 1..2 by 0 as "go"
  end draw
}
"""

TESTS = """tests for "n.vbr"

scenario "nothing is found" {
  expect first(x for x in [1, 2] if x > 5) == 1
}

scenario "and nothing again" {
  expect n == 0 and first(x for x in [1, 2] if x > 5) == 2
}
"""


def test_a_side_that_is_none_reads_none_not_pass(tmp_path):
    # `pass` is how an option that is none reads (`choose none` picks it); a value in an
    # expectation is no option: `first` of nothing is none
    (tmp_path / "n.vbr").write_text(RULES, encoding="utf-8")
    (tmp_path / "n_test.vbr").write_text(TESTS, encoding="utf-8")
    first, both = run_file(tmp_path / "n_test.vbr", engine="python")
    assert (first.ok, first.message) == (False, "expectation failed (left side is none, right side is 1)")
    assert (both.ok, both.message) == (False, "expectation failed:\n"
                                              "    `n == 0` is true: left side 0, right side 0\n"
                                              "    `first(x for x in [1, 2] if x > 5) == 2` is false: left side none, "
                                              "right side 2")
