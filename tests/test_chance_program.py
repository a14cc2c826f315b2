"""A typed program whose draws are decided outside (vbr/ir/chance_program.py, OpenSpiel's explicit
chance), in both engines: each roll, pick and shuffle takes its outcome (an index among the
draw's values) from one queue, in the order play meets them, and a draw that finds the queue
empty faults naming how many outcomes it has. And the chance nodes built on it
(vbr/rl/chance_nodes.py): a die's distinct faces, a pick's distinct items, a shuffle's swaps one
position at a time, probabilities that add up to 1, and labels naming each outcome."""
import pytest

import vbr
from vbr.engines.game import Game, State, checked_model, make_engine
from vbr.engines.python_runtime import EngineFault
from vbr.errors import IllegalActionError
from vbr.ir.chance_program import build_chance_program
from vbr.ir.layout import FAULT, Header as H
from vbr.rl.chance_nodes import Draws, Position

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


def last_outcomes_through_setup(path, engine: str) -> tuple:
    """The outcomes of a book's setup, each draw decided as the last of its values, and the
    state reached (the first choice)."""
    draws, decided = Decided(path, engine), []
    while True:
        state, need = draws.start(decided)
        if need is None:
            return decided, state
        decided.append(need[1] - 1)


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.split("/")[-1][:-4])
def test_a_books_setup_with_the_same_outcomes_deals_the_same_in_python_and_c(path):
    decided, python = last_outcomes_through_setup(path, "python")
    c_decided, c = last_outcomes_through_setup(path, "c")
    assert decided == c_decided and decided  # every book shuffles or picks in setup
    assert not python.is_terminal() and python.current_player() == c.current_player()
    for seat in range(python.game.seats):
        assert python.observation(seat) == c.observation(seat)


NODES = """game "Nodes"
seats 2
start play
die d = 1..3
die lopsided = [1, 2, 1]
kind Chip { n: int }
zone bag public ordered
var opening: int = roll d
var rolled: int = 0
var leaned: int = 0
var picked: int = 0
var twice: int = 0
setup {
  create Chip(n: 1) in bag
  create Chip(n: 2) in bag
  create Chip(n: 3) in bag
  create Chip(n: 4) in bag
}
phase play {
  choose go from [true, false] by 0
  rolled = roll d
  leaned = roll lopsided
  picked = pick [10, 20, 30]
  twice = pick [5, 7, 5]
  shuffle bag
  end winner 0
}
"""


@pytest.fixture
def nodes(tmp_path):
    path = tmp_path / "nodes.vbr"
    path.write_text(NODES)
    return path


def shown(pos: Position, name: str) -> str:
    return pos.state.observation(0)["vars"][name]


def bag(pos: Position) -> list[str]:
    return pos.state.observation(0)["zones"]["bag"]


def third(i: int) -> tuple:
    return (i, pytest.approx(1 / 3))


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_vars_initial_roll_is_a_chance_node_before_setup_runs(nodes, engine):
    pos = Position.start(Draws.load(nodes, None, engine), None)  # a node, not an error
    assert pos.need.what == "roll d" and pos.need.texts == ["1", "2", "3"]
    assert pos.outcomes == (third(0), third(1), third(2))
    assert bag(pos) == [] and pos.state.phase is None and pos.state.current_player() is None  # setup has not run
    pos.settle(2)
    assert pos.need is None and shown(pos, "opening") == "3" and len(bag(pos)) == 4


@pytest.mark.parametrize("engine", ["python", "c"])
def test_each_draw_of_a_step_is_a_node_whose_outcome_the_state_then_holds(nodes, engine):
    pos = Position.start(Draws.load(nodes, None, engine), None)
    pos.settle(0)
    pos.choose(0)
    assert pos.need.what == "roll d" and pos.label(1) == "roll d: 2"
    pos.settle(1)
    # equal faces are one outcome, named by the first index holding it, with their share
    assert pos.need.what == "roll lopsided" and pos.outcomes == ((0, pytest.approx(2 / 3)), (1, pytest.approx(1 / 3)))
    with pytest.raises(IllegalActionError, match="chance outcome 2 is not one of `roll lopsided`'s: 0, 1"):
        pos.settle(2)
    pos.settle(0)
    assert pos.need.what == "pick" and pos.need.texts == ["10", "20", "30"] and pos.label(2) == "pick: 30"
    assert pos.outcomes == (third(0), third(1), third(2))
    pos.settle(2)
    assert pos.need.what == "pick" and pos.outcomes == ((0, pytest.approx(2 / 3)), (1, pytest.approx(1 / 3)))
    pos.settle(1)
    assert pos.need.what.startswith("shuffle bag")
    assert [shown(pos, v) for v in ("opening", "rolled", "leaned", "picked", "twice")] == ["1", "2", "1", "30", "7"]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_shuffle_is_one_node_per_position_from_the_last_down_each_a_swap(nodes, engine):
    pos = Position.start(Draws.load(nodes, None, engine), None)
    pos.settle(0)
    pos.choose(0)
    for outcome in (0, 0, 0, 1):  # the two rolls and the two picks
        pos.settle(outcome)
    seen = []
    while pos.need is not None:
        seen.append((pos.need.what, len(pos.outcomes), sum(p for _, p in pos.outcomes), pos.label(0)))
        pos.settle(0)
    assert seen == [("shuffle bag, position 3", 4, 1.0, "shuffle bag, position 3: 0"),
                    ("shuffle bag, position 2", 3, 1.0, "shuffle bag, position 2: 0"),
                    ("shuffle bag, position 1", 2, 1.0, "shuffle bag, position 1: 0")]
    # each position swaps with position 0: [1 2 3 4] -> [4 2 3 1] -> [3 2 4 1] -> [2 3 4 1]
    assert pos.state.is_terminal()
    assert bag(pos) == ["#1 Chip(n=2)", "#2 Chip(n=3)", "#3 Chip(n=4)", "#0 Chip(n=1)"]
