"""The typed engines' draws in their logs (vbr/engines/events.py): every `roll`, `pick` and
`shuffle` is an event where it happens, in the words `roll DIE: FACE`, `drawn at
random: VALUE`, `shuffle ZONE`, whether the draw was random, forced by a scenario or decided
outside (vbr/ir/chance_program.py); the Python and the C engine log the same draws."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from vbr.engines.events import EventLog
from vbr.engines.game import load
from vbr.gamelog import dumps
from vbr.play import play_typed_game
from vbr.scenario import run_file

ROOT = Path(__file__).resolve().parent.parent
DRAWS = ROOT / "tests" / "fixtures" / "typed" / "draws.vbr"  # a die of known faces, a pick, a shuffle
BOOKS = ["siatka.vbr", "cattack.vbr", "tanto-cuore-beach-volleyball.vbr", "volleyball-high.vbr"]


def events_of(path: Path, engine: str, seed: int) -> list[dict]:
    game = load(path, {}, engine=engine)
    events: list = []
    play_typed_game(game, seed, ["random"] * game.program.seats, log=events)
    return events


@pytest.mark.parametrize("book", BOOKS, ids=lambda b: b[:-4])
def test_the_python_and_the_c_engine_log_the_same_draws_of_a_book(book):
    drawn = set()
    for seed in range(3):
        python, c = (events_of(ROOT / "rules" / book, engine, seed) for engine in ("python", "c"))
        assert [dumps(e) for e in python] == [dumps(e) for e in c]
        drawn.update(e["t"] for e in c if e["t"] in ("roll", "pick", "shuffle"))
    assert drawn, "three games of the book drew nothing: the test would not see a draw"


@pytest.mark.parametrize("engine", ["python", "c"])
def test_each_draw_of_a_small_game_is_logged_once_where_it_is_drawn(engine):
    """draws.vbr: setup shuffles the deck of three cards (#0..#2, values 1..3); the one phase
    asks a choice, rolls the coin (faces low, high, high), rolls d3 twice, picks a card from the
    deck and picks from the empty discard pile, which draws nothing and logs nothing (language.md,
    5.5: `none` if it is empty), then says what it drew."""
    for seed in range(6):
        events = events_of(DRAWS, engine, seed)
        assert [e["t"] for e in events] == ["shuffle", "phase", "choice", "roll", "roll", "roll", "pick", "say", "end"]
        shuffle, _, _, coin, first, second, pick, say, _ = events
        assert shuffle == {"t": "shuffle", "zone": "deck"}
        assert coin["die"] == "coin" and coin["value"] in ("low", "high")
        assert [first["die"], second["die"]] == ["d3", "d3"] and {first["value"], second["value"]} <= {"1", "2", "3"}
        card = re.fullmatch(r"#([012])", pick["value"])
        assert card and set(pick) == {"t", "value"}
        got = int(first["value"]) + int(second["value"])
        assert say["text"] == f"{coin['value']} {got} {int(card[1]) + 1} true"


ROWS = """game "Rows"
seats 2
start one
var hands: list of int per seat = [[1, 2], [3]]
phase one {
  choose k from [1, 2] by 0 as "how many"
  let h = pick hands
  say "{h}"
  end winner 0
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_pick_among_a_vars_lists_is_logged_as_the_list_drawn(engine, tmp_path):
    """`hands` read whole is the list of its two seats' lists; a pick draws one of them."""
    path = tmp_path / "rows.vbr"
    path.write_text(ROWS)
    seen = set()
    for seed in range(8):
        events = events_of(path, engine, seed)
        [pick] = [e for e in events if e["t"] == "pick"]
        [say] = [e for e in events if e["t"] == "say"]
        assert pick["value"] in ("[1, 2]", "[3]") and say["text"] == pick["value"]
        seen.add(pick["value"])
    assert len(seen) == 2, "eight games drew the same list: the test would not tell the two apart"


def test_forced_draws_are_logged_in_order_after_the_shuffle_of_setup_alike_in_both_engines():
    """draws_test.vbr forces the coin to `high`, d3 to 2 then 3 and the pick to the card of value
    2 (#1, the second created): each engine's trace of the scenario shows those draws, in order,
    after the shuffle of setup."""
    traces = {}
    for engine in ("python", "c"):
        [result] = run_file(DRAWS.with_name("draws_test.vbr"), trace=True, engine=engine)
        assert result.ok, result.message
        traces[engine] = result.trace
    assert traces["python"] == traces["c"]
    lines = [line for _, block in traces["c"] for line in block]
    assert lines == ["  shuffle deck", "[one]", "  seat 0: how many -> 1", "  roll coin: high", "  roll d3: 2",
                     "  roll d3: 3", "  drawn at random: #1", "  high 5 2 true", "game over: seat 0 wins"]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_draws_decided_outside_are_logged_with_their_outcomes(engine, tmp_path):
    """A chance program (vbr/ir/chance_program.py) of draws.vbr: the shuffle's partners decided as
    0 then 1, the coin's face index 1 (high), d3's indexes 0 and 2 (1 and 3), the pick's index 2
    (the deck's third item from the bottom)."""
    from vbr.engines.game import checked_model, make_engine
    from vbr.ir.chance_program import build_chance_program
    program = build_chance_program(checked_model(DRAWS, {})).program
    eng = make_engine(program, engine)
    events: list = []
    log = EventLog(program, events)
    words = eng.held(0)
    queue = program.forced_at[0]

    def decide(outcomes):
        words[queue], words[queue + 1] = 0, len(outcomes)
        for i, o in enumerate(outcomes):
            words[queue + 2 + i] = o

    decide([0, 1])
    eng.goto(words, program.init, log)
    # Fisher-Yates from the top: position 2 swaps with 0, position 1 with itself: #2 #1 #0 from the bottom
    assert events == [{"t": "shuffle", "zone": "deck"}, {"t": "phase", "phase": "one"}]
    decide([1, 0, 2, 2])
    eng.apply(words, 0, log)
    assert events[2:] == [{"t": "roll", "die": "coin", "value": "high"}, {"t": "roll", "die": "d3", "value": "1"},
                          {"t": "roll", "die": "d3", "value": "3"}, {"t": "pick", "value": "#0"},
                          {"t": "say", "text": "high 4 1 true"}]
