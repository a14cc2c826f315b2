"""A procedure's parameter written without a type holds what each call gives it, lists and zones
included (docs/language.md, `proc`): the procedure is built once for each set of types its calls
give. Each expected value is worked out from the rule text; both typed engines must give it."""
from __future__ import annotations

import pytest

from test_list_values import refused, said

ENGINES = ("python", "c")

HEAD = """game "Untyped"
seats 2
start one
kind Card { v: int }
zone deck public ordered
zone hand per seat public
var got: int per seat = 0
setup {
  create Card(v: 1) in deck times 3
}
"""

SHAPES = HEAD + """proc total(xs) {
  let t = 0
  for x in xs {
    t += x
  }
  say "total {t}"
}
proc show(xs) {
  say "{xs}"
}
proc down(xs, n) {
  say "{n}: {count(xs)}"
  if n > 0 {
    down(xs, n - 1)
  }
}
proc put(z) {
  move top(deck) to z
}
proc sizes(zs) {
  for z in zs {
    say "size {count(z)}"
  }
}
phase one {
  total([1, 2, 3])
  total([10, 20])
  total(4..6)
  show([1, 2])
  show([true, false])
  show(5)
  down([7, 8], 2)
  put(hand[0])
  put(hand[1])
  put(hand[1])
  sizes(hand)
  total(every(c.v for c in hand[1]))
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_holds_the_list_or_zone_each_call_gives(tmp_path, engine):
    # total: 1+2+3 = 6, 10+20 = 30, 4+5+6 = 15 (the same procedure, called with other lists);
    # show says a list of numbers, a list of bools and a number each as itself; down passes its
    # list on to itself, 2, 1, 0, each time of 2 items; put moves one card into the zone it is
    # given (hand[0] once, hand[1] twice); sizes goes through the per-seat zones, seat 0's
    # first; hand[1]'s two cards are worth 1 each
    assert said(tmp_path, SHAPES, engine) == [
        "total 6", "total 30", "total 15", "[1, 2]", "[true, false]", "5", "2: 2", "1: 2", "0: 2",
        "size 1", "size 2", "total 2"]


CHOICE = HEAD + """proc take(xs, s) {
  choose x from xs by s as "a number"
  got[s] += x
}
phase one {
  take([4, 5, 6], 0)
  take(1..3, 1)
  say "{got[0]} {got[1]}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_choice_from_an_untyped_parameter_offers_the_items_of_the_list_given(tmp_path, engine):
    # seat 0 picks the third of [4, 5, 6], seat 1 the second of 1..3: 6 and 2
    assert said(tmp_path, CHOICE, engine, picks=(2, 1)) == ["6 2"]


@pytest.mark.parametrize("engine", ENGINES)
def test_none_given_to_an_untyped_parameter_read_as_a_list_is_an_error_where_it_is_read(tmp_path, engine):
    rules = HEAD + "proc total(xs) {\n  say \"{count(xs)}\"\n}\nphase one {\n  total([1])\n  total(none)\n  end draw\n}\n"
    f, error = refused(tmp_path, rules, engine)  # line 12 is the `say`, column 15 its `xs`
    assert error.startswith(f"{f}:12:15: error: not supported yet: a value of no declared type read as a list")
