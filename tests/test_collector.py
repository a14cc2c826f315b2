"""vbr.collector: summaries and the building of a game run without the garbage collector, and
leave it as it was."""
import gc

import pytest

from vbr.collector import uncollected
from vbr.engines.game import load
from vbr.errors import VbrError

from conftest import RULES


@pytest.fixture
def collector_restored():
    was = gc.isenabled()
    yield
    gc.enable() if was else gc.disable()


def test_inside_nothing_is_collected_and_after_the_collector_runs_again(collector_restored):
    gc.enable()
    with uncollected():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off(collector_restored):
    gc.disable()
    with uncollected():
        with uncollected():  # a summary inside a comparison
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_error_inside_leaves_the_collector_as_it_was(collector_restored):
    gc.enable()

    @uncollected()
    def fails():
        assert not gc.isenabled()
        raise ValueError("no games")

    with pytest.raises(ValueError):
        fails()
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


def test_the_collector_is_off_while_a_game_is_built_and_on_after(collector_restored, monkeypatch):
    """ProgramBuilder, which build_program runs, sees the collector off; it is on again after."""
    from vbr.ir import build
    seen = []
    real = build.ProgramBuilder.build

    def watched(builder):
        seen.append(gc.isenabled())
        return real(builder)
    monkeypatch.setattr(build.ProgramBuilder, "build", watched)
    gc.enable()
    load(RULES / "siatka.vbr", {}, engine="python")
    assert seen == [False] and gc.isenabled()
