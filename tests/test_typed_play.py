"""`vbr play --engine python|c` (vbr/tty_play/typed.py): a seat sees under a typed engine what it
sees under the closure engine, and a game played through the session is logged, and replays."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from conftest import first_outcomes

import vbr
from vbr.engines.game import load
from vbr.gamelog import replay
from vbr.tty_play.session import Session
from vbr.tty_play.typed import TypedPlay

ROOT = Path(__file__).resolve().parent.parent
BOOKS = [("siatka.vbr", {}), ("cattack.vbr", {}), ("tanto-cuore-beach-volleyball.vbr", {}), ("volleyball-high.vbr", {}),
         ("volleyball-high.vbr", {"mode": "2v2"})]


@pytest.mark.parametrize("book, options", BOOKS, ids=[f"{b}-{o}" for b, o in BOOKS])
def test_every_seat_observes_under_a_typed_engine_what_it_observes_under_the_closure_engine(book, options, monkeypatch):
    """Every draw decided alike (its first outcome) and the same answers: at every choice each seat
    is shown the same phase, vars, zones (a hidden zone as its size), prompt and options."""
    from vbr.interpreter.state import Chance, State as ClosureState
    old, new = vbr.load(str(ROOT / "rules" / book), options, engine="closure"), load(ROOT / "rules" / book, options, engine="python")
    first_outcomes(monkeypatch, new)
    for seed in range(2):
        a = ClosureState.new(old.program, seed, chance=Chance([0] * 100_000))
        b = TypedPlay(new, seed)
        k = 0
        while not a.is_terminal():
            for seat in range(old.seats):
                assert b.observation(seat) == a.observation(seat), (seed, k, seat)
            i = (seed * 7 + k) % len(a.legal_actions())
            a.apply_index(i)
            b.apply_index(i)
            k += 1
        assert b.result is not None and str(b.result) == str(a.outcome())


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_session_through_a_typed_engine_plays_to_the_end_and_its_log_replays(engine, tmp_path):
    typed = load(ROOT / "rules" / "siatka.vbr", {}, engine=engine)
    log = tmp_path / "game.jsonl"
    out = io.StringIO()
    s = Session(typed, 5, (0,), [None, "greedy"], out, io.StringIO("1\n" * 2000), log_path=log)
    result = s.play()
    assert result.finished and result.choices == s.state.choices
    text = out.getvalue()
    assert "result: seat " in text and ("you won" in text or "you lost" in text)
    r = replay(log)
    assert r.ok, r.message
    assert f'"engine":"{engine}"' in log.read_text().split("\n")[0]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_first_seat_takes_the_first_legal_option_at_each_of_its_choices(engine):
    """The `first` agent: the first legal option, as the closure engine's FirstAgent takes it,
    drawing nothing; a restricted first seat takes the first of the options left to it."""
    from vbr.play import play_typed_game, typed_decision
    game = load(vbr.loader.resolve("siatka"), {}, engine=engine)
    events: list = []
    result = play_typed_game(game, 5, ["first", "random"], log=events)
    mine = [e for e in events if e["t"] == "choice" and e["seat"] == 0]
    assert result.state.is_terminal() and mine and all(e["index"] == 0 for e in mine)
    assert any(e["index"] != 0 for e in events if e["t"] == "choice" and e["seat"] == 1)  # random, beside it
    state = game.new_state(5)
    assert typed_decision(state, "first", {}, 1234) == (0, 1234)
    assert typed_decision(state, "first", {}, 1234, allowed=[2, 4]) == (2, 1234)
