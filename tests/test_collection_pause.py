"""vbr.collection_pause: the cyclic collector is off while a rule file's game is built, and as
it was before once the build returns or fails."""
import gc

import pytest

from vbr.collection_pause import collection_paused
from vbr.engines.game import load
from vbr.errors import VbrError

from conftest import RULES


@pytest.fixture
def collector_restored():
    was_on = gc.isenabled()
    yield
    gc.enable() if was_on else gc.disable()


def test_the_collector_is_off_inside_a_paused_build_and_on_again_after(collector_restored):
    gc.enable()
    seen = collection_paused(gc.isenabled)()
    assert seen is False and gc.isenabled()


def test_a_build_that_raises_turns_the_collector_on_again(collector_restored):
    gc.enable()

    @collection_paused
    def failing():
        raise ValueError("bad")
    with pytest.raises(ValueError):
        failing()
    assert gc.isenabled()


def test_loading_a_game_leaves_a_collector_turned_off_by_the_caller_off(collector_restored):
    gc.disable()
    load(RULES / "siatka.vbr", {}, engine="python")
    assert not gc.isenabled()


def test_a_rule_file_with_errors_leaves_the_collector_on(tmp_path, collector_restored):
    gc.enable()
    bad = tmp_path / "bad.vbr"
    bad.write_text('game "Bad"\nseats 2\nstart p\nphase p { x = 1 }\n')
    with pytest.raises(VbrError):
        load(bad, {}, engine="python")
    assert gc.isenabled()
