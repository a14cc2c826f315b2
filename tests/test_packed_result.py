"""A C game whose seats are all random is played in one engine call and its result read from the
words the engine packed (vbr.play's one-call path): it is a GameResult like any other, equal to
and shown as the GameResult made of its fields, its fields kept once read."""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from vbr.engines.game import load
from vbr.play import GameResult, play_game

SIATKA = Path(__file__).resolve().parent.parent / "rules" / "siatka.vbr"


def test_a_game_played_in_one_c_call_equals_and_shows_as_the_game_result_of_its_fields():
    c = load(SIATKA, {}, engine="c")
    r = play_game(c, 3, ["random", "random"])
    made = GameResult(**{f.name: getattr(r, f.name) for f in fields(GameResult)})
    assert isinstance(r, GameResult)
    assert r == made and made == r
    assert repr(r) == repr(made) and repr(r).startswith("GameResult(winner=")
    assert r.score_track is r.score_track and r.measures is r.measures  # read once, then kept
    # the book: "The player who first scores 9 points wins"; the track ends at the final score
    assert r.points[r.winner] == 9 and r.score_track[-1] == (r.choices, r.points)


def test_a_result_read_from_packed_words_differs_from_one_with_another_winner():
    c = load(SIATKA, {}, engine="c")
    r = play_game(c, 3, ["random", "random"])
    other = GameResult(**{f.name: getattr(r, f.name) for f in fields(GameResult)} | {"winner": 1 - r.winner})
    assert r != other and other != r
