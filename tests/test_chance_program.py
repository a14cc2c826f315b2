"""A typed program whose draws are decided outside (vbr/ir/chance_program.py, OpenSpiel's explicit
chance), in both engines: each roll, pick and shuffle takes its outcome (an index among the
draw's values) from one queue, in the order play meets them, and a draw that finds the queue
empty faults naming how many outcomes it has. The same outcomes give the same positions as the
closure engine's chance oracle (State.decide in vbr/interpreter/state.py), which decides draws
the same way."""
import pytest

import vbr
from vbr.engines.game import Game, State, checked_model, make_engine
from vbr.engines.python_runtime import EngineFault
from vbr.ir.chance_program import build_chance_program
from vbr.interpreter.state import Chance, ChanceNeeded, State as ClosureState
from vbr.ir.layout import FAULT, Header as H

PIG = "examples/pig.vbr"
BOOKS = ["rules/siatka.vbr", "rules/cattack.vbr", "rules/tanto-cuore-beach-volleyball.vbr", "rules/volleyball-high.vbr"]


class Decided:
    """A chance program's game under one engine, started or stepped with outcomes decided."""

    def __init__(self, path, engine: str):
        m = checked_model(path, {})
        self.chance = build_chance_program(m)
        self.program = self.chance.program
        self.engine = make_engine(self.program, engine)
        self.game = Game(self.program, self.engine, m)
        self.queue = self.program.forced_at[0]

    def fill(self, words, outcomes) -> None:
        words[self.queue], words[self.queue + 1] = 0, len(outcomes)
        for i, o in enumerate(outcomes):
            words[self.queue + 2 + i] = o

    def start(self, outcomes):
        """(the state after setup, None), or (the words as the draw found them, (kind, how many outcomes))."""
        words = self.engine.held(0)
        self.fill(words, outcomes)
        try:
            self.engine.goto(words, self.program.init)
        except EngineFault as f:
            return words, (self.chance.sites[f.fault].kind, f.a)
        if int(words[H.STATUS]) == FAULT:
            return words, (self.chance.sites[int(words[H.FAULT])].kind, int(words[H.FAULT_A]))
        return State(self.game, words), None

    def step(self, state, option: int, outcomes):
        """Option `option` of `state`'s choice taken on a copy, its draws decided by `outcomes`."""
        s = state.clone()
        self.fill(s.words, outcomes)
        try:
            s.apply_index(option)
        except vbr.VbrError:
            pass
        return self._read(s)

    def _read(self, s):
        if int(s.words[H.STATUS]) == FAULT:
            return s, (self.chance.sites[int(s.words[H.FAULT])].kind, int(s.words[H.FAULT_A]))
        return s, None


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_roll_takes_the_face_its_decided_index_names_and_an_undecided_one_says_how_many_faces(engine):
    pig = Decided(PIG, engine)
    start, need = pig.start([])
    assert need is None and [a.text for a in start.legal_actions()] == ["again", "hold"]
    assert pig.step(start, 0, [])[1] == ("roll", 6)
    four, need = pig.step(start, 0, [3])  # the face at index 3 of 1..6: 4, added to the turn
    assert need is None and four.observation(0)["vars"]["turn_total"] == "4" and four.current_player() == 0
    one, need = pig.step(start, 0, [0])  # a 1: the turn's total is lost, the other seat plays
    assert need is None and one.observation(0)["vars"]["turn_total"] == "0" and one.current_player() == 1


DRAWS = """game "Draws"
seats 2
start one
kind Card { value: int }
zone deck public ordered
var got: int = 0
setup {
  create Card(value: 1) in deck
  create Card(value: 2) in deck
  create Card(value: 3) in deck
  shuffle deck
}
phase one {
  choose k from [1, 2] by 0
  got = pick [10, 20, 30]
  end winner 0
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_shuffle_swaps_each_position_with_the_one_decided_and_a_pick_takes_the_item_decided(tmp_path, engine):
    path = tmp_path / "draws.vbr"
    path.write_text(DRAWS)
    draws = Decided(path, engine)
    assert draws.start([])[1] == ("shuffle", 3)  # the top position (2) swaps with one of 0..2
    assert draws.start([0])[1] == ("shuffle", 2)  # then position 1 with one of 0..1
    # position 2 swaps with 0 (#2 3 #1 #0 becomes #2 #1 #0 from the bottom), position 1 with itself
    dealt, need = draws.start([0, 1])
    assert need is None and dealt.observation(0)["zones"]["deck"] == ["#2 Card(value=3)", "#1 Card(value=2)",
                                                                      "#0 Card(value=1)"]
    assert draws.step(dealt, 0, [])[1] == ("pick", 3)
    over, need = draws.step(dealt, 0, [2])
    assert need is None and over.is_terminal() and over.observation(0)["vars"]["got"] == "30"


@pytest.mark.parametrize("engine", ["python", "c"])
def test_an_undecided_pick_leaves_its_items_past_the_queue_and_an_undecided_shuffle_names_its_zone(tmp_path, engine):
    path = tmp_path / "draws.vbr"
    path.write_text(DRAWS)
    draws = Decided(path, engine)
    words, need = draws.start([])
    names, q = draws.program.names, draws.queue
    assert need == ("shuffle", 3) and int(words[H.FAULT_B]) == draws.program.layout.zone(names.zones.index("deck"))
    dealt, _ = draws.start([0, 1])
    stopped, need = draws.step(dealt, 0, [])
    # `pick [10, 20, 30]` with nothing queued: its 3 items written from the queue's first value on
    assert need == ("pick", 3) and int(stopped.words[H.FAULT_B]) == 3
    assert [int(v) for v in stopped.words[q + 2:q + 5]] == [10, 20, 30]


def closure_setup(path) -> tuple:
    """The closure engine's draws through a book's setup, each decided by its oracle as its last
    outcome: the outcomes, and the state reached."""
    prog, decided = vbr.load(path, engine="closure").program, []
    while True:
        try:
            return decided, ClosureState.new(prog, 0, chance=Chance(decided))
        except ChanceNeeded as need:
            decided.append(need.outcomes()[-1][0])


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.split("/")[-1][:-4])
def test_a_books_setup_with_the_closure_engines_outcomes_deals_what_the_closure_engine_deals(path, engine):
    decided, theirs = closure_setup(path)
    mine, need = Decided(path, engine).start(decided)
    assert need is None and decided
    for seat in range(theirs.prog.seats):
        assert mine.observation(seat) == theirs.observation(seat)
