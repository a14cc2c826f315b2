"""A choice's filter in the Python engine: the parts that give the same value for every item are
worked out once, the first time an item reaches them, and a choice over every thing of a kind
goes, once its zones are known, only through the things in them (python_narrowing.py). Neither
changes the game: the same options in the same order, the same fault where an item first
reaches a part that faults, the same words as the C engine after every choice."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

FILTERS = """game "Filters"
seats 2
start one
kind Card { value: int }
zone hand per seat public
zone table public
zone box public
var divisor: int = 0
fn usable(k: Card, s: seat) = k in hand[s] or (100 / divisor > 1 and k in table)
phase one {
  choose case from 1..3 by 0
  if case == 1 {
    create Card(value: 1) in hand[0] times 2
    create Card(value: 2) in table
  }
  if case == 2 {
    create Card(value: 1) in hand[0] times 2
  }
  if case == 3 {
    divisor = 10
    create Card(value: 3) in table
    create Card(value: 4) in box
    create Card(value: 5) in hand[0]
    create Card(value: 6) in table
    create Card(value: 7) in hand[1]
    create Card(value: 8) in hand[0]
  }
  choose k from Card where usable(k, 0) and k.value != 6 by 0
  end winner k.value % 2
}
"""


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    path = tmp_path_factory.mktemp("filters") / "filters.vbr"
    path.write_text(FILTERS)
    return load(path, {}, engine="python"), load(path, {}, engine="c")


def _play_case(game, case: int):
    """The state at the choice of k after answering `case`, or the fault's message."""
    state = game.new_state(0)
    try:
        state.apply_index(case - 1)
    except VbrRuntimeError as e:
        return str(e)
    return state


def test_a_guard_first_reached_by_a_card_outside_the_hand_faults_there_in_both_engines(games):
    # the two cards in hand pass on `k in hand[0]`; the table's card reaches `100 / divisor`, 0
    py, c = (_play_case(g, 1) for g in games)
    assert isinstance(py, str) and "division by zero" in py and "filters.vbr:9:" in py
    assert py == c


def test_a_guard_no_card_reaches_does_not_fault(games):
    py, c = (_play_case(g, 2) for g in games)
    assert py.options() == c.options() == [0, 1]
    assert py.words_in_use() == c.words_in_use()


def test_a_choice_over_a_kind_offers_its_things_in_the_zones_in_creation_order(games):
    # cards 0..5 are made with values 3..8: in hand[0] or on the table, value not 6, are
    # card 0 (table, 3), card 2 (hand, 5) and card 5 (hand, 8); card 1 is boxed, card 4 in hand[1]
    py, c = (_play_case(g, 3) for g in games)
    assert py.options() == c.options() == [0, 2, 5]
    assert py.words_in_use() == c.words_in_use()
    for i in range(3):
        a, b = (_play_case(g, 3) for g in games)
        a.apply_index(i)
        b.apply_index(i)
        assert a.words_in_use() == b.words_in_use()
        assert str(a.outcome()) == str(b.outcome())
