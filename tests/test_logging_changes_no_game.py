"""A log only watches: the same seed plays the same game with a log and without, in both typed
engines, even where a `say` hole or a `reveal` rolls or picks (tests/fixtures/valid/said_draws.vbr)."""
import pytest

from conftest import FIXTURES
from vbr.engines.game import load

SAID_DRAWS = FIXTURES / "valid" / "said_draws.vbr"


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_seed_plays_the_same_game_with_a_log_and_without(engine):
    """The typed engines work out a say's holes and a reveal's value with a log and without, so
    the die's stream is left alike and the state's words end equal; the log shows the warm-up
    throw said, the pick revealed, and the deciding throw (3 or less: seat 0 wins)."""
    game = load(SAID_DRAWS, {}, engine=engine)
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


def test_a_seed_logs_the_same_draws_in_python_and_in_c():
    python, c = load(SAID_DRAWS, {}, engine="python"), load(SAID_DRAWS, {}, engine="c")
    for seed in range(40):
        a, b = python.new_state(seed, log=[]), c.new_state(seed, log=[])
        assert a.log == b.log and a.words_in_use() == b.words_in_use(), seed
