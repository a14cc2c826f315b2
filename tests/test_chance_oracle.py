"""The chance oracle of a state (State.decide, Chance, ChanceNeeded in vbr/interpreter/state.py):
draws decided outside the state, as OpenSpiel's chance nodes decide them, in compiled rules."""
from __future__ import annotations

import pytest

import vbr
from vbr.errors import VbrRuntimeError
from vbr.interpreter import rng as R
from vbr.interpreter.state import FORCED_PICK, Chance, ChanceNeeded, State

DRAWS = """game "Draws"
seats 2
start play
die d = 1..3
die lopsided = [1, 2, 1]
kind Chip { n: int }
zone bag public ordered
var opening: int = roll d
var rolled: int = 0
var picked: int = 0
setup {
  create Chip(n: 1) in bag
  create Chip(n: 2) in bag
  create Chip(n: 3) in bag
  create Chip(n: 4) in bag
}
phase play {
  choose go from [true, false] by 0
  rolled = roll d
  picked = pick [10, 20, 30]
  shuffle bag
  end winner 0
}
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    path = tmp_path_factory.mktemp("draws") / "draws.vbr"
    path.write_text(DRAWS)
    return vbr.load(path, engine="closure").program  # lowered: the compiled `roll` draws in place unless routed


def var(st, name):
    return st.vals[st.prog.var_names.index(name)]


def bag(st):
    return [st.ent[e][0] for e in st.zones[st.prog.zone_names.index("bag")]]


def play(prog, decided):
    """A game whose draws `decided` decides: the var's roll, then the choice `true`, the roll, the
    pick and the bag's three swaps."""
    st = State.new(prog, 0, chance=Chance(decided[:1]))
    st.decide(Chance(decided[1:]))
    st.apply_index(0)
    return st


def test_an_undecided_draw_raises_chance_needed_out_of_run_not_a_runtime_error(prog):
    st = State.new(prog, 0, chance=Chance([0]))
    st.decide(Chance([]))
    with pytest.raises(ChanceNeeded) as caught:
        st.apply_index(0)
    assert not isinstance(caught.value, VbrRuntimeError)
    assert caught.value.what == "roll d" and tuple(caught.value.values) == (1, 2, 3)
    assert caught.value.outcomes() == ((0, 1 / 3), (1, 1 / 3), (2, 1 / 3))


def test_a_vars_initial_roll_is_decided_before_setup(prog):
    with pytest.raises(ChanceNeeded, match="roll d"):
        State.new(prog, 0, chance=Chance([]))
    assert var(State.new(prog, 0, chance=Chance([2])), "opening") == 3


def test_the_compiled_roll_and_pick_return_the_decided_outcomes(prog):
    st = play(prog, [0, 1, 2, 2, 1, 0])
    assert var(st, "rolled") == 2 and var(st, "picked") == 30


def test_a_shuffle_is_one_draw_per_position_from_the_last_down(prog):
    st = State.new(prog, 0, chance=Chance([0]))
    sizes, decided = [], [0, 0]
    while True:
        try:
            st2 = st.clone()
            st2.decide(Chance(decided))
            st2.apply_index(0)
            break
        except ChanceNeeded as need:
            sizes.append((need.what, len(need.values)))
            decided.append(0)
    assert sizes == [("shuffle bag, position 3", 4), ("shuffle bag, position 2", 3), ("shuffle bag, position 1", 2)]
    # each position swaps with position 0: [1 2 3 4] -> [4 2 3 1] -> [3 2 4 1] -> [2 3 4 1]
    assert bag(st2) == [2, 3, 4, 1]


def test_equal_faces_are_one_outcome_at_their_first_index():
    assert ChanceNeeded("roll lopsided", (1, 2, 1)).outcomes() == ((0, 2 / 3), (1, 1 / 3))


def test_values_of_different_types_are_different_outcomes():
    assert ChanceNeeded("pick", (True, 1)).outcomes() == ((0, 0.5), (1, 0.5))


def test_a_copy_has_no_oracle_and_deciding_none_gives_the_untouched_generator_back(prog):
    st = State.new(prog, 7, chance=Chance([1]))
    assert st.clone().chance is None and not st.clone().forced
    st.decide(None)
    st.apply_index(0)
    plain = State.new(prog, 7)
    plain.rng = R.stream(7)  # the numbers a generator gives from its start, as st's (the oracle took none)
    plain.apply_index(0)
    assert (var(st, "rolled"), var(st, "picked"), bag(st)) == (var(plain, "rolled"), var(plain, "picked"), bag(plain))


def test_a_scenarios_forced_values_come_before_the_oracle(prog):
    st = State.new(prog, 0, chance=Chance([0]))
    st.forced[0] = [3]  # die d is die 0
    st.forced[FORCED_PICK] = [10]
    st.decide(Chance([0, 0, 0]))
    st.apply_index(0)
    assert var(st, "rolled") == 3 and var(st, "picked") == 10 and bag(st) == [2, 3, 4, 1]
