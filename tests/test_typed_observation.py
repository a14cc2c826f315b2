"""`State.observation(seat)` of a typed game (python and c): what a seat may know, as the closure
engine's observation gives it: every var, the contents of the zones the seat may look into and
the sizes of the rest, the prompt and options when it is to choose; a thing in a zone the seat
may not look into reads `hidden` wherever it is named (the closure engine's rule, which RL
agents rely on: ids follow creation order, so an id would name the card)."""
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
