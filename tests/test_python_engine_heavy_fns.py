"""A heavy fn's body in the Python engine (python_source._FnBody): a parameter's kind is read
once when its fields are read several times, and a part the body repeats with the same meaning
(the same fn of the same parameter, written out twice) is worked out once. The values, the
faults and the words are the C engine's."""
from __future__ import annotations

import re
from collections import Counter

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

PARTS = " + ".join(["v(c)"] * 10)
HEAD = f"""game "Heavy"
seats 2
start one
kind Card {{ value: int }}
zone hand per seat public
fn v(c: Card) = if c.value > 3 then c.value * 2 else c.value + 1
fn w(c: Card) = {PARTS}
"""  # a card kind, a hand, and v and w, light fns of a card
HEAVY = HEAD + f"""fn big(c: Card) = {PARTS.replace("v(", "w(")}
phase one {{
  create Card(value: 5) in hand[0]
  create Card(value: 2) in hand[0]
  choose k from hand[0] by 0 optional
  end winner if big(k) == 1000 then 0 else 1
}}
"""
OWN_LOCALS = HEAD + f"""fn others(c: Card) = sum(y.value for y in hand[0] if y != c)
fn big(c: Card, d: Card) = others(c) * 1000 + others(c) + others(d){" + w(d)" * 8}
phase one {{
  create Card(value: 5) in hand[0]
  choose k from hand[0] by 0
  end winner if big(k, k) == 1000 then 0 else 1
}}
"""

CALLS_A_ROLL = HEAD + f"""die d = 1..1000
fn rolled(c: Card) = roll d + {PARTS.replace("v(", "w(")}
fn middle(c: Card) = rolled(c) + w(c)
fn big(c: Card) = ROLLS + {PARTS.replace("v(", "w(")}
phase one {{
  create Card(value: 5) in hand[0]
  create Card(value: 2) in hand[0]
  choose k from hand[0] by 0
  end winner if big(k) % 2 == 0 then 0 else 1
}}
"""

@pytest.fixture(scope="module")
def games(tmp_path_factory):
    path = tmp_path_factory.mktemp("heavy") / "heavy.vbr"
    path.write_text(HEAVY)
    return load(path, {}, engine="python"), load(path, {}, engine="c")


def test_big_is_a_heavy_fn_whose_repeated_parts_are_worked_out_once(games):
    py, _ = games
    assert py.program.fns, "big is called, not written out"
    source = py.engine.source
    assert "k0 = S[" in source and "c1 = None" in source


@pytest.mark.parametrize("card, winner", [(0, 0), (1, 1)])
def test_a_heavy_fn_of_a_card_gives_the_same_value_in_both_engines(games, card, winner):
    # big(c) = 100 * v(c): card 0 (value 5) gives 100 * 10 = 1000, card 1 (value 2) 100 * 3 = 300
    states = [g.new_state(0) for g in games]
    for s in states:
        s.apply_index(card)
    assert states[0].words_in_use() == states[1].words_in_use()
    assert str(states[0].outcome()) == str(states[1].outcome())
    assert f"{winner}" in str(states[0].outcome())


def test_a_heavy_fn_of_none_faults_at_its_first_field_in_both_engines(games):
    messages = []
    for g in games:
        s = g.new_state(0)
        with pytest.raises(VbrRuntimeError) as e:
            s.apply_index(2)  # no card: k is none
        messages.append(str(e.value))
    assert messages[0] == messages[1] and ".value" in messages[0] and "heavy.vbr:6:" in messages[0]


def test_a_part_binding_its_own_local_written_twice_is_worked_out_once(tmp_path):
    # big(c, d) = others(c) * 1000 + others(c) + others(d) + w(d) + ... (8 times): the two
    # others(c), each a sum binding its own y, are one value, remembered at 2 places; others(d)
    # sums over another parameter, so it is not theirs; the 8 w(d) are one value, remembered at 8
    path = tmp_path / "own_locals.vbr"
    path.write_text(OWN_LOCALS)
    game = load(path, {}, engine="python")
    assert [fn.name for fn in game.program.fns] == ["big"]
    places = Counter(re.findall(r"if (c\d+) is None:", game.engine.source))
    assert sorted(places.values()) == [2, 8]


@pytest.mark.parametrize("rolls", ["middle(c) - middle(c)", "sum(middle(c) for y in hand[0])"], ids=["twice", "loop"])
def test_a_call_of_a_fn_calling_a_fn_that_rolls_rolls_at_each_call_in_both_engines(tmp_path, rolls):
    # middle(c) calls rolled(c), which rolls a die of 1,000 faces: each call of middle(c) in big,
    # twice or once per round of a loop, is a roll of its own, not one value remembered (which
    # would make big(k) even whatever was rolled); the C engine rolls at each call, and the Python
    # engine gives its outcome and words for each seed
    path = tmp_path / "calls_a_roll.vbr"
    path.write_text(CALLS_A_ROLL.replace("ROLLS", rolls))
    games = [load(path, {}, engine=engine) for engine in ("python", "c")]
    assert [fn.name for fn in games[0].program.fns] == ["rolled", "middle", "big"]
    for seed in range(4):
        states = [g.new_state(seed) for g in games]
        for s in states:
            s.apply_index(0)
        assert states[0].words_in_use() == states[1].words_in_use()
        assert str(states[0].outcome()) == str(states[1].outcome())
