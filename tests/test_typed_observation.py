"""`State.observation(seat)` of a typed game (python and c): what a seat may know: every var, the
contents of the zones the seat may look into and the sizes of the rest, the prompt and options
when it is to choose; a thing in a zone the seat may not look into reads `hidden` wherever it is
named (which RL agents rely on: ids follow creation order, so an id would name the card). And
the RL tensors of vbr.rl.observation (the observation and the options' features): the same from
either engine, and block by block what the seat may see."""
import numpy as np
import pytest

import vbr

RULES = """game "Observed"
seats 2
start one
enum Face { up, down }
kind Card { value: int, face: Face, marks: list of int }
zone deck public ordered
zone hand per seat owner
zone vault hidden
var turn: int = 0
var held: Card = none
var taken: list of Card = []
var score: int per seat = 0
setup {
  create Card(value: 3, face: up, marks: [1]) in deck
  create Card(value: 5, face: down, marks: []) in deck
  create Card(value: 7, face: up, marks: [2, 3]) in vault
  create Card(value: 9, face: down, marks: []) in deck
}
phase one {
  choose c from deck by turn % 2
  move c to hand[turn % 2]
  held = c
  taken = every(k for k in Card if k in hand[0] or k in vault)
  score[turn % 2] += c.value
  turn += 1
  if empty(deck) {
    end winner 0
  }
  goto one
}
"""


@pytest.fixture
def rules(tmp_path):
    path = tmp_path / "observed.vbr"
    path.write_text(RULES)
    return path


def observations(path, engine: str) -> list:
    """Both seats' observations at each choice of a game whose choices take the last option,
    and at its end."""
    state, seen = vbr.load(path, engine=engine).new_state(0), []
    while True:
        seen.append([state.observation(seat) for seat in (0, 1)])
        if state.is_terminal():
            return seen
        state.apply_index(len(state.legal_actions()) - 1)


def test_the_python_and_c_engines_give_every_seat_the_same_observations(rules):
    python, c = observations(rules, "python"), observations(rules, "c")
    assert len(python) == 4 and python == c  # three choices (the deck's three cards) and the end


@pytest.mark.parametrize("engine", ["python", "c"])
def test_at_the_end_each_seat_sees_its_own_hand_and_only_the_sizes_of_the_others(rules, engine):
    # the last option each time: seat 0 takes #3 (value 9), seat 1 #1 (5), seat 0 #0 (3); then the
    # deck is empty and seat 0 wins; `taken` is the cards in hand[0] or the vault, by id
    mine, theirs = observations(rules, engine)[-1]
    assert mine == {"phase": None,  # the game is over: no phase is played
                    "vars": {"turn": "3", "held": "#0", "taken": "[#0, hidden, #3]", "score[0]": "12",
                             "score[1]": "5"},
                    "zones": {"deck": [], "hand[0]": ["#3 Card(value=9, face=down, marks=[])",
                                                      "#0 Card(value=3, face=up, marks=[1])"],
                              "hand[1]": 1, "vault": 1}}
    assert theirs == {"phase": None,
                      "vars": {"turn": "3", "held": "hidden", "taken": "[hidden, hidden, hidden]", "score[0]": "12",
                               "score[1]": "5"},
                      "zones": {"deck": [], "hand[0]": 2, "hand[1]": ["#1 Card(value=5, face=down, marks=[])"],
                                "vault": 1}}


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_thing_a_seat_may_not_look_at_reads_hidden_wherever_it_is_named(rules, engine):
    state = vbr.load(rules, engine=engine).new_state(0)
    first = state.observation(0)
    assert first["legal"] == ["#0", "#1", "#3"] and first["prompt"] == "choose c"
    assert first["zones"]["vault"] == 1 and first["zones"]["hand[0]"] == [] and first["zones"]["hand[1]"] == 0
    state.apply("0 #3")  # into seat 0's hand, which only seat 0 may look into
    mine, theirs = state.observation(0), state.observation(1)
    assert mine["vars"]["held"] == "#3" and theirs["vars"]["held"] == "hidden"
    # the vault's card (#2) is hidden from both; #3 only from seat 1
    assert mine["vars"]["taken"] == "[hidden, #3]" and theirs["vars"]["taken"] == "[hidden, hidden]"
    assert mine["zones"]["hand[0]"] == ["#3 Card(value=9, face=down, marks=[])"] and theirs["zones"]["hand[0]"] == 1
    assert "legal" not in mine and theirs["legal"] == ["#0", "#1"]
    assert mine["vars"]["score[0]"] == "9" and mine["vars"]["turn"] == "1"


COURT = """game "Court"
seats 2
start aim
court {
  rows 3
  cols 3
  net 1
  field 1 at row 1 col 1
}
kind Piece { at: cell, side: seat }
zone board public
zone bag hidden
var ball: cell = none
var rounds: int = 0
var seen: list of int = []
setup {
  create Piece(at: none, side: 0) in board
  create Piece(at: none, side: 1) in bag
}
phase aim {
  rounds += 1
  if rounds > 4 {
    end draw
  }
  choose start from cells(rounds % 2) by rounds % 2
  ball = start
  seen = every(r for r in 1..rounds)
  for p in Piece {
    p.at = start
  }
  goto aim
}
"""


def tensors(path, engine: str) -> list:
    """Each seat's observation tensor and option features at each choice of a game whose
    choices take the last option, and at its end; and the tensor's layout."""
    from vbr.rl.observation import encoding, observation_tensor, option_features
    game = vbr.load(path, engine=engine)
    state, seen = game.new_state(0), []
    while True:
        seen.append([(observation_tensor(state, seat), option_features(state, seat, 16)) for seat in (0, 1)])
        if state.is_terminal():
            return seen, encoding(game).layout
        state.apply_index(len(state.legal_actions()) - 1)


# a list of cards has no tensor encoding: the cards' values instead
CARDS = RULES.replace("var taken: list of Card", "var taken: list of int").replace("every(k for k", "every(k.value for k")


@pytest.mark.parametrize("text", [CARDS, COURT], ids=["cards", "court"])
def test_the_python_and_c_engines_give_the_same_rl_tensors(tmp_path, text):
    path = tmp_path / "game.vbr"
    path.write_text(text)
    (python, layout), (c, c_layout) = tensors(path, "python"), tensors(path, "c")
    assert layout == c_layout and len(python) == len(c) > 2
    for at, (mine, theirs) in enumerate(zip(python, c)):
        for (x, options), (y, their_options) in zip(mine, theirs):
            assert np.array_equal(x, y) and np.array_equal(options, their_options)
    (phase,) = [(off, size) for name, off, size in layout if name == "phase (one-hot)"]
    over = python[-1][0][0]  # over: no phase is played (State.phase is None)
    assert not over[phase[0]:phase[0] + phase[1]].any()


# after seat 0 took #3 (value 9, face down) into its hand: held = #3, taken = [7, 9] (the vault's
# card and #3), score[0] = 9, turn = 1, seat 1 to choose from the deck's #0 (3, up, marks [1]) and
# #1 (5, down); a value block is (sum, count), a face block (up, down) counts, marks (sum, count)
SEEN_AFTER_THE_FIRST_CHOICE = {
    "seat (the observer, one-hot)": ([1, 0], [0, 1]),
    "to choose (one-hot seat)": ([0, 1], [0, 1]),
    "phase (one-hot)": ([1], [1]),
    "choice point asked of the observer (one-hot `choose`)": ([0], [1]),
    "var turn": ([1], [1]),
    # present, visible, then its value, face and marks: seat 1 cannot look into hand[0]
    "var held (present, visible, fields)": ([1, 1, 9, 1, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0]),
    "var taken": ([16, 2], [16, 2]),
    "var score[0]": ([9], [9]),
    "var score[1]": ([0], [0]),
    "zone deck size": ([2], [2]),
    "zone deck: Card count": ([2], [2]),
    "zone deck: Card.value": ([8, 2], [8, 2]),
    "zone deck: Card.face": ([1, 1], [1, 1]),
    "zone deck: Card.marks": ([1, 1], [1, 1]),
    "zone hand[0] size": ([1], [1]),
    "zone hand[0]: Card count": ([1], [0]),
    "zone hand[0]: Card.value": ([9, 1], [0, 0]),
    "zone hand[0]: Card.face": ([0, 1], [0, 0]),
    "zone hand[0]: Card.marks": ([0, 0], [0, 0]),
    "zone hand[1] size": ([0], [0]),
    "zone hand[1]: Card count": ([0], [0]),
    "zone hand[1]: Card.value": ([0, 0], [0, 0]),
    "zone hand[1]: Card.face": ([0, 0], [0, 0]),
    "zone hand[1]: Card.marks": ([0, 0], [0, 0]),
    "zone vault size": ([1], [1]),  # the vault is hidden from both: its size only
}


@pytest.mark.parametrize("engine", ["python", "c"])
def test_each_seats_tensor_holds_block_by_block_what_it_may_see(tmp_path, engine):
    path = tmp_path / "game.vbr"
    path.write_text(CARDS)
    seen, layout = tensors(path, engine)
    assert [name for name, _, _ in layout] == list(SEEN_AFTER_THE_FIRST_CHOICE)
    for seat in (0, 1):
        x = seen[1][seat][0]
        for name, off, size in layout:
            assert x[off:off + size].tolist() == SEEN_AFTER_THE_FIRST_CHOICE[name][seat], (seat, name)
