"""The C engine's search as a library of its own (vbr/engines/c_search.c): a program's library
compiles no search; the search library is built at a process's first search in C, once for all the
programs whose things take as many words (the programs' layouts and rules read from each one's
`vbr_game()`), and it decides as the Python engine's search does for each of them. Real builds
with the system compiler, each test in its own cache folder."""
from pathlib import Path

import pytest

from vbr.engines.c_engine import search_library
from vbr.engines.game import load
from vbr.engines.python_search import SearchParams

ROOT = Path(__file__).resolve().parent.parent
PIG = ROOT / "examples" / "pig.vbr"
# things of three words; seat 0 wins by taking a chip whose `a` is over 1 (two of the five)
WIDE = """game "Wide"
seats 2
start p
kind Chip { a: int, b: int, c: int }
zone pile public
setup {
  create Chip(a: 1, b: 2, c: 3) in pile times 3
  create Chip(a: 4, b: 5, c: 6) in pile times 2
}
phase p {
  choose x from pile by 0 as "which chip"
  if x.a > 1 {
    end winner 0
  }
  end winner 1
}
"""
PARAMS = SearchParams(iterations=300, budget=0)


@pytest.fixture
def notes(tmp_path, monkeypatch) -> list[str]:
    """What the C engine's builds say, in a cache folder of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return []


def search_builds(notes: list[str]) -> int:
    return sum(note.startswith("building the C engine's search") for note in notes)


def test_a_programs_library_has_no_search_and_plays_without_building_one(notes):
    game = load(PIG, {}, engine="c", note=notes.append)
    state = game.new_state(3)
    state.play_random(3)
    assert state.is_terminal()
    assert hasattr(game.engine.lib, "vbr_game") and not hasattr(game.engine.lib, "vbr_mcts")
    assert search_builds(notes) == 0


def test_one_search_library_serves_two_programs_of_a_width_each_deciding_as_the_python_engine(notes):
    for target in (100, 20):  # two programs: the target is a literal of each one's C
        in_c = load(PIG, {"target": target}, engine="c", note=notes.append)
        in_python = load(PIG, {"target": target}, engine="python")
        assert in_c.new_state(5).mcts_visits(PARAMS, 7) == in_python.new_state(5).mcts_visits(PARAMS, 7)
    assert search_builds(notes) == 1


def test_a_program_whose_things_take_more_words_has_a_search_library_of_its_own(notes, tmp_path):
    wide = tmp_path / "wide.vbr"
    wide.write_text(WIDE, encoding="utf-8")
    pig = load(PIG, {}, engine="c", note=notes.append)
    in_c = load(wide, {}, engine="c", note=notes.append)
    assert in_c.program.layout.width == 3 and pig.program.layout.width == 0
    pig.new_state(5).mcts_visits(PARAMS, 7)
    option, visits = in_c.new_state(1).mcts_visits(PARAMS, 7)
    assert (option, visits) == load(wide, {}, engine="python").new_state(1).mcts_visits(PARAMS, 7)
    assert option in (3, 4)  # a chip with a = 4: the two that win
    assert search_builds(notes) == 2


def test_the_search_library_of_one_width_refuses_a_program_of_another(notes, tmp_path):
    wide = tmp_path / "wide.vbr"
    wide.write_text(WIDE, encoding="utf-8")
    game = load(wide, {}, engine="c")
    state = game.new_state(1)
    engine = game.engine
    assert engine.search.vbr_mcts(engine.game, state.words, 0, engine._numbers(PARAMS), 7, None) in (3, 4)  # a winning chip
    narrower = search_library(0)
    assert narrower.vbr_mcts(engine.game, state.words, 0, engine._numbers(PARAMS), 7, None) == -2
