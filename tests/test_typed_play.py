"""`vbr play --engine python|c` (vbr/tty_play/typed.py): a seat sees the same under both engines,
and only what the rules let it see, and a game played through the session is logged, and replays."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import vbr
from vbr.engines.game import load
from vbr.gamelog import replay
from vbr.tty_play.session import Session
from vbr.tty_play.typed import TypedPlay

ROOT = Path(__file__).resolve().parent.parent
BOOKS = [("siatka.vbr", {}), ("cattack.vbr", {}), ("tanto-cuore-beach-volleyball.vbr", {}), ("volleyball-high.vbr", {}),
         ("volleyball-high.vbr", {"mode": "2v2"})]


def _seen_alike(views: list[dict]) -> None:
    """What every seat is shown of one state: the same phase and vars; a public zone's items alike,
    a hidden one as its size to all, an owner's zone as items to one seat and as their count to the
    others; the options and prompt to the seat to choose alone."""
    assert len({repr((v["phase"], v["vars"])) for v in views}) == 1
    for zone in views[0]["zones"]:
        shown = [v["zones"][zone] for v in views]
        lists = [x for x in shown if isinstance(x, list)]
        public, hidden = lists == shown and all(x == shown[0] for x in shown), not lists and len(set(shown)) == 1
        owned = len(lists) == 1 and all(x == len(lists[0]) for x in shown if not isinstance(x, list))
        assert public or hidden or owned, (zone, shown)
    assert sum("legal" in v for v in views) <= 1 and all(("legal" in v) == ("prompt" in v) for v in views)


@pytest.mark.parametrize("book, options", BOOKS, ids=[f"{b}-{o}" for b, o in BOOKS])
def test_every_seat_observes_the_same_in_python_and_in_c_and_only_what_it_may_see(book, options):
    """The same seed and answers: at every choice each seat is shown the same phase, vars, zones,
    prompt and options under both engines, and only what the rules let it see (_seen_alike)."""
    games = [load(ROOT / "rules" / book, options, engine=e) for e in ("python", "c")]
    for seed in range(2):
        a, b = (TypedPlay(g, seed) for g in games)
        k = 0
        while a.result is None:
            views = [a.observation(seat) for seat in range(games[0].seats)]
            assert views == [b.observation(seat) for seat in range(games[0].seats)], (seed, k)
            _seen_alike(views)
            i = (seed * 7 + k) % len(a.legal_actions())
            a.apply_index(i)
            b.apply_index(i)
            k += 1
        assert b.result is not None and str(b.result) == str(a.result)


def test_a_siatka_seat_sees_its_hand_and_counts_of_the_decks_and_the_other_hand():
    """[Components] 12 tactic cards and 6 tiles a player; [Setup 4] each shuffles their deck and
    draws 3 into a hand kept hidden from the opponent: at the first choice a seat sees its own 3
    cards, the other's hand as 3, both decks as 9 and both benches' 6 tiles; after that a seat's
    cards are always 12 among deck, hand and discard, its tiles 6 among bench and team."""
    game = load(ROOT / "rules" / "siatka.vbr", {}, engine="python")
    play = TypedPlay(game, 4)
    first = play.observation(0)["zones"]
    assert (len(first["hand[0]"]), first["hand[1]"], first["deck[0]"], first["deck[1]"]) == (3, 3, 9, 9)
    assert all(re.fullmatch(r"#\d+ Card\(tactic=\w+\)", x) for x in first["hand[0]"])
    assert [len(first[f"bench[{s}]"]) for s in (0, 1)] == [6, 6]
    k = 0
    while play.result is None:
        for seat in (0, 1):
            z = play.observation(seat)["zones"]
            assert len(z[f"hand[{seat}]"]) + z[f"deck[{seat}]"] + len(z[f"discard[{seat}]"]) == 12, k
            assert len(z[f"bench[{seat}]"]) + len(z[f"team[{seat}]"]) == 6, k
        play.apply_index(k * 5 % len(play.legal_actions()))
        k += 1


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
    """The `first` agent: the first legal option, drawing nothing; a restricted first seat takes
    the first of the options left to it."""
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
