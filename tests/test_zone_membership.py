"""`thing in zone` after things have moved: a thing is in the zone it was last moved to and in no
other, read directly or through a choice between two zones (`if ... then hand[0] else deck`), in
a loop over a kind's things (where the C engine knows each item is a thing and reads its zone
word) and over a plain list of them, alike in both engines."""
from __future__ import annotations

import pytest

from vbr.engines.game import load

MOVES = """game "Membership"
seats 2
start one
kind Card { value: int }
zone deck public ordered
zone hand per seat public ordered
fn mine(s: seat) = if s == 0 then hand[0] else deck
setup {
  create Card(value: 1) in deck
  create Card(value: 2) in deck
  create Card(value: 3) in deck
  create Card(value: 4) in deck
}
phase one {
  move top(deck) to hand[0]
  move top(deck) to hand[1]
  move first(c for c in deck if c.value == 1) to hand[1]
  say "{every(c.value for c in Card if c in hand[0])} {every(c.value for c in Card if c in hand[1])} {every(c.value for c in Card if c in deck)}"
  say "{every(c.value for c in Card if c in mine(0))} {every(c.value for c in Card if c in mine(1))}"
  say "{count(every(c for c in Card if c in hand[0] or c in hand[1] or c in deck))}"
  let cards = every(c for c in Card)
  say "{every(c.value for c in cards if c in hand[1])}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_thing_is_in_the_zone_it_was_moved_to_and_in_no_other(tmp_path, engine):
    # cards 1..4 from the bottom of the deck up: 4 goes to hand 0, 3 to hand 1, then 1 to hand 1
    # (under 3? no: on top of it), leaving 2 in the deck; mine(0) is hand 0, mine(1) the deck;
    # every card is in one of the three zones; the kind's things are read in the order they were
    # made, as the list of them is
    f = tmp_path / "moves.vbr"
    f.write_text(MOVES)
    log: list = []
    state = load(f, {}, engine=engine).new_state(0, log)
    assert state.is_terminal()
    assert [e["text"] for e in log if e["t"] == "say"] == ["[4] [1, 3] [2]", "[4] [2]", "4", "[1, 3]"]
