"""A log only watches: the same seed plays the same game with a log and without, in both forms of
the closure engine (the closures and the lowered Python), even where a `say` hole or a `reveal`
rolls or picks (tests/fixtures/valid/said_draws.vbr)."""
import pytest

from conftest import FIXTURES
from vbr.interpreter.game import load
from vbr.play import play_game

SAID_DRAWS = FIXTURES / "valid" / "said_draws.vbr"


def ending(game, seed: int, record: bool):
    r = play_game(game, seed, ["random"] * game.seats, record=record)
    return r.winner, r.state.steps, r.state.rng.getstate()


@pytest.mark.parametrize("lower", [False, True], ids=["closures", "lowered"])
def test_a_seed_plays_the_same_game_with_a_log_and_without(lower):
    game = load(SAID_DRAWS, lower=lower)
    for seed in range(40):
        assert ending(game, seed, record=False) == ending(game, seed, record=True), seed


@pytest.mark.parametrize("lower", [False, True], ids=["closures", "lowered"])
def test_the_log_shows_the_say_throw_the_revealed_pick_and_the_deciding_throw(lower):
    game = load(SAID_DRAWS, lower=lower)
    for seed in range(12):
        log = play_game(game, seed, ["random"] * game.seats, record=True).state.log
        events = [e for e in log if e["t"] != "phase"]
        assert [e["t"] for e in events] == ["roll", "say", "pick", "reveal", "roll", "end"]
        warm_up, said, picked, revealed, last, end = events
        assert said["text"] == f"a warm-up throw: {warm_up['value']}"
        assert picked["value"] in ("1", "2", "3") and revealed["items"] == [picked["value"]]
        assert end["winner"] == (0 if int(last["value"]) <= 3 else 1)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_seed_plays_the_same_game_with_a_log_and_without_in_the_typed_engines(engine):
    """The typed engines work out a say's holes and a reveal's value with a log and without, so
    the die's stream is left alike and the state's words end equal; the log shows the draws as
    the closure engine's does."""
    from vbr.engines.game import load as load_typed
    game = load_typed(SAID_DRAWS, {}, engine=engine)
    for seed in range(40):
        quiet, logged = game.new_state(seed), game.new_state(seed, log=[])
        assert quiet.is_terminal() and logged.is_terminal()
        assert quiet.words_in_use() == logged.words_in_use(), seed
        events = [e for e in logged.log if e["t"] != "phase"]
        assert [e["t"] for e in events] == ["roll", "say", "pick", "reveal", "roll", "end"]
        warm_up, said, picked, revealed, last, end = events
        assert said["text"] == f"a warm-up throw: {warm_up['value']}"
        assert picked["value"] in ("1", "2", "3") and revealed["items"] == [picked["value"]]
        assert end["winner"] == (0 if int(last["value"]) <= 3 else 1)
