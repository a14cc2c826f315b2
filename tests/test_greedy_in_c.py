"""The greedy and first agents inside the C engine: `vbr_greedy` (c_search.c) makes the choice
play.greedy_choice defines, with the same draws from the seat's stream, and the C engine's
play_seats plays greedy and first seats on without handing their choices back to Python, so a
game with such seats is the game the Python engine plays choice by choice."""
from __future__ import annotations

from pathlib import Path

import pytest

from vbr import play
from vbr.engines.game import load
from vbr.ir import random_streams as R
from vbr.play import greedy_choice, play_typed_game

ROOT = Path(__file__).resolve().parent.parent
BOOKS = ["siatka", "cattack", "tanto-cuore-beach-volleyball", "volleyball-high"]


def _positions(game, games: int = 3) -> list:
    """Copies of the states met in random games at each choice of two options or more."""
    positions = []
    for seed in range(games):
        state, agent = game.new_state(seed), R.first_state(seed, R.AGENT_KEY)
        while not state.is_terminal():
            if len(state.legal_actions()) > 1:
                positions.append(state.clone())
            agent, i = R.below(agent, len(state.legal_actions()))
            state.apply_index(i)
    return positions


@pytest.fixture(scope="module", params=BOOKS)
def book(request):
    return load(ROOT / "rules" / f"{request.param}.vbr", {}, engine="c")


def test_the_c_greedy_choice_and_stream_are_greedy_choices_at_every_position(book):
    positions = _positions(book)
    assert len(positions) > 30
    for k, state in enumerate(positions):
        samples, stream = 1 + k % 3, R.first_state(k, R.AGENT_KEY)
        n = len(state.legal_actions())
        allowed = None if k % 2 else sorted({0, n - 1, n // 2})  # a restricted seat's options, some of the time
        expected = greedy_choice(state.clone(), samples, stream, allowed)
        assert book.engine.greedy_choice(state.words, samples, stream, allowed) == expected, k


def test_the_c_greedy_choice_draws_nothing_for_a_single_candidate(book):
    state = _positions(book, games=1)[0]
    stream = R.first_state(5, R.AGENT_KEY)
    assert book.engine.greedy_choice(state.words, 2, stream, [1]) == (1, stream)


@pytest.mark.parametrize("agents", [["greedy", "first"], ["first", "random"], ["greedy:samples=3", "greedy"]])
def test_greedy_and_first_seats_played_inside_the_c_engine_play_the_python_engines_games(agents):
    games = {e: load(ROOT / "rules" / "siatka.vbr", {}, engine=e) for e in ("python", "c")}
    for seed in range(3):
        results = {e: play_typed_game(g, seed, agents) for e, g in games.items()}
        a, b = results["python"], results["c"]
        assert (a.winner, a.points, a.choices, a.forced, a.options, a.first_side, a.score_track, a.measures) == \
               (b.winner, b.points, b.choices, b.forced, b.options, b.first_side, b.score_track, b.measures), seed


def test_no_choice_of_a_greedy_or_first_seat_comes_back_to_python_in_the_c_engine(monkeypatch):
    decided = []
    real = play.typed_decision
    monkeypatch.setattr(play, "typed_decision", lambda state, kind, *rest: decided.append(kind) or real(state, kind, *rest))
    c = load(ROOT / "rules" / "siatka.vbr", {}, engine="c")
    result = play_typed_game(c, 1, ["greedy", "first"])
    assert result.choices > 20 and decided == []
    py = load(ROOT / "rules" / "siatka.vbr", {}, engine="python")
    assert play_typed_game(py, 1, ["greedy", "first"]).choices == result.choices
    assert set(decided) == {"greedy", "first"}  # the Python engine makes them one by one


def test_a_greedy_seat_of_many_samples_hands_play_back_to_python_at_times_and_plays_the_same_game(monkeypatch):
    # 1,000 worlds an option: the C engine's loop hands a greedy choice back once its call has
    # tried c_engine.PICKED_WORLDS worlds (so Ctrl-C is heard between calls), and the game is the
    # one played choice by choice (a logged game takes every choice by hand)
    from vbr.engines.c_engine import PICKED_WORLDS
    decided = []
    real = play.typed_decision
    monkeypatch.setattr(play, "typed_decision", lambda state, kind, *rest: decided.append(kind) or real(state, kind, *rest))
    c = load(ROOT / "rules" / "siatka.vbr", {}, engine="c")
    agents = ["greedy:samples=1000", "random"]
    result = play_typed_game(c, 2, agents)
    handed_back = len(decided)
    by_hand = play_typed_game(c, 2, agents, log=[])  # every choice of the greedy seat by hand
    every = decided[handed_back:].count("greedy")
    # a choice of k > 1 options tries 1,000 k >= 2,000 worlds, so a call makes at most
    # PICKED_WORLDS // 2,000 + 1 of them before it hands the next back
    assert set(decided[:handed_back]) == {"greedy"} and every > 2 * (PICKED_WORLDS // 2000 + 1)
    assert 2 <= handed_back < every
    assert (result.winner, result.points, result.choices, result.score_track) == \
           (by_hand.winner, by_hand.points, by_hand.choices, by_hand.score_track)
