"""A game's score track (what `vbr sim`'s balance metrics read) is the same from either typed
engine when random seats play between a searching seat's turns: each stretch of random play
adds its rows after the ones before it."""
from __future__ import annotations

from pathlib import Path

from vbr.engines.game import load
from vbr.play import play_typed_game

PIG = Path(__file__).resolve().parent.parent / "examples" / "pig.vbr"


def test_the_score_track_of_a_game_with_a_greedy_seat_is_the_same_in_python_and_in_c():
    py, c = load(PIG, {}, engine="python"), load(PIG, {}, engine="c")
    for seed in range(2):
        a, b = play_typed_game(py, seed, ["greedy", "random"]), play_typed_game(c, seed, ["greedy", "random"])
        assert len(a.score_track) > 10  # Pig's banked points change many times a game
        assert a.score_track == b.score_track
        choices = [row[0] for row in b.score_track]
        assert choices == sorted(set(choices))  # one row per change, in the order of play
