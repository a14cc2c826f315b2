"""`State.observation(seat)` of a typed game (python and c): what a seat may know, as the closure
engine's observation gives it: every var, the contents of the zones the seat may look into and
the sizes of the rest, the prompt and options when it is to choose; a thing in a zone the seat
may not look into reads `hidden` wherever it is named (the closure engine's rule, which RL
agents rely on: ids follow creation order, so an id would name the card). And the RL tensors of
vbr.rl.observation (the observation and the options' features) read from a typed state equal
the closure engine's, block for block, but the phase once the game is over."""
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


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_typed_games_observations_are_the_closure_engines(rules, engine):
    typed, closure = observations(rules, engine), observations(rules, "closure")
    assert len(typed) == len(closure) == 4
    for at, (mine, theirs) in enumerate(zip(typed, closure)):
        for seat in (0, 1):
            if at == 3:  # the end: the typed State.phase is None once the game is over
                assert mine[seat]["phase"] is None
                mine[seat]["phase"] = theirs[seat]["phase"]
            assert mine[seat] == theirs[seat]


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


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("text", [CARDS, COURT], ids=["cards", "court"])
def test_a_typed_states_rl_tensors_are_the_closure_engines(tmp_path, engine, text):
    path = tmp_path / "game.vbr"
    path.write_text(text)
    (typed, layout), (closure, closure_layout) = tensors(path, engine), tensors(path, "closure")
    assert layout == closure_layout and len(typed) == len(closure)
    (phase,) = [(off, size) for name, off, size in layout if name == "phase (one-hot)"]
    for at, (mine, theirs) in enumerate(zip(typed, closure)):
        for (x, options), (y, their_options) in zip(mine, theirs):
            if at == len(typed) - 1:  # over: no phase is played (State.phase is None)
                assert not x[phase[0]:phase[0] + phase[1]].any()
                x[phase[0]:phase[0] + phase[1]] = y[phase[0]:phase[0] + phase[1]]
            assert np.array_equal(x, y) and np.array_equal(options, their_options)
