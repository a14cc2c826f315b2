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


OPTIONAL = """game "O"
seats 2
start a
kind Card { v: int }
zone hand public
setup {
  create Card(v: 1) in hand
  create Card(v: 2) in hand
}
phase a {
  choose c from hand by 0 optional as "play"
  end draw
}
"""

VACUOUS = """tests for "o.vbr"

scenario "a card that is not there is not illegal" {
  expect illegal first(c for c in hand if c.v == 3)
}

scenario "nor legal, though pass is" {
  expect legal first(c for c in hand if c.v == 3)
}

scenario "nor chosen" {
  choose first(c for c in hand if c.v == 3)
}

scenario "none written as none names pass" {
  expect legal none
  choose none
  expect draw
}

scenario "nothing is illegal once the game is over" {
  choose none
  expect illegal first(c for c in hand if c.v == 1)
}
"""


def test_an_option_step_whose_value_comes_out_none_fails_instead_of_naming_pass(tmp_path):
    # docs/language.md, section 7: `choose EXPR` picks "the option equal to this value (`none`
    # picks `pass`)"; a `first(...)` that found nothing came out none too, so `expect illegal` of
    # a card not in the hand held, `expect legal` of it held at an optional choice, and `choose`
    # of it passed: each tested nothing, and passed
    (tmp_path / "o.vbr").write_text(OPTIONAL, encoding="utf-8")
    (tmp_path / "o_test.vbr").write_text(VACUOUS, encoding="utf-8")
    illegal, legal, chosen, written, over = run_file(tmp_path / "o_test.vbr", engine="python")
    said = "`first(c for c in hand if c.v == 3)` is none here, so it names no option (write `none` to name `pass`)"
    assert (illegal.ok, illegal.message) == (False, said)
    assert (legal.ok, legal.message) == (False, said)
    assert (chosen.ok, chosen.message) == (False, said)
    assert written.ok
    # `expect illegal` with no choice on offer held whatever it named
    assert (over.ok, over.message) == (False, "#0 should not be legal; legal now: nothing (the game is over: "
                                              "draw), so this tests nothing")


DICE = """game "D"
seats 2
start a
die d = 1..6
var got: int = 0
phase a {
  got = roll d
  choose x from 1..2 by 0 as "go"
  end draw
}
"""

LEFT_OVER = """tests for "d.vbr"

scenario "two faces forced, one rolled" {
  force d = 4, 5
  expect got == 4
}

scenario "one face forced, one rolled" {
  force d = 4
  expect got == 4
}
"""


def test_a_forced_value_play_never_takes_fails_the_scenario(tmp_path):
    # docs/language.md, section 7: `force` gives "the next rolls of the die"; a face queued for
    # a roll that never came left the scenario passing, though its author counted on that roll
    (tmp_path / "d.vbr").write_text(DICE, encoding="utf-8")
    (tmp_path / "d_test.vbr").write_text(LEFT_OVER, encoding="utf-8")
    left, taken = run_file(tmp_path / "d_test.vbr", engine="python")
    assert (left.ok, left.message) == (False, "1 value was forced for `d` and never rolled: play made no more rolls "
                                              "of it before the scenario ended")
    assert taken.ok
