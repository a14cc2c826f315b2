"""vbr.analysis.collector: summaries run without the garbage collector, and leave it as it was."""
import gc

import pytest

from vbr.analysis.collector import uncollected


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
