"""A run's games kept as compact columns (vbr.analysis.column_store), filled part by part: every
figure reads as `Columns` of the same trials gives it, game for game, and what the summaries read
of it is what they read of the trials; a game costs tens of bytes, not the hundreds of a Trial."""
import gc
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_columns import games, trial

from vbr.analysis import metrics as M
from vbr.analysis.column_store import Column, ColumnStore
from vbr.analysis.columns import FIGURES, Columns
from vbr.backends import LocalBackend
from vbr.sim import RunSpec, game_for, run

COLUMNS = ("winner", "first_side", "choices", "forced", "options", *FIGURES, "scored", "decided", "decided_scored")


def typed(values) -> list:
    """Each value with its type, a bool as the int it is (a store reads bools back as 0 and 1)."""
    return [(v, int if type(v) is bool else type(v)) for v in values]


def assert_same(store: ColumnStore, trials: list) -> None:
    """The store reads as `Columns(trials)` does: every column, count and measure."""
    c = Columns(trials)
    for name in COLUMNS:
        assert typed(getattr(store, name)) == typed(getattr(c, name)), name
    assert list(store.points) == c.points
    assert (store.games, store.sides, store.wins, store.draws, store.top_side()) == \
        (c.games, c.sides, c.wins, c.draws, c.top_side())
    assert store.measure_kinds() == c.measure_kinds()
    for name in c.measure_kinds():
        assert list(store.measure(name)) == c.measure(name) and store.unset(name) == c.unset(name)
    assert store.seatings_won() == M._seatings_won(trials)


def filled(trials: list, part: int) -> ColumnStore:
    """A store given the trials `part` at a time, as a run's parts arrive."""
    store = ColumnStore()
    for i in range(0, len(trials), part):
        store.add(trials[i:i + part])
    return store


_measure = st.sampled_from([None, ("side", 0), ("side", 1), ("int", 3), ("int", -200), ("int", 10 ** 12),
                            ("bool", True), ("bool", False), ("int", None)])


@st.composite
def measured_games(draw):
    """Games of `test_columns.games`, each carrying some of two measures (or none), set or not,
    with values that fit a byte, need a wider type, or none at all."""
    out = []
    for i, g in enumerate(draw(st.lists(games(), min_size=1, max_size=12))):
        ms = {}
        for name in ("first", "count"):
            m = draw(_measure)
            if m is not None:
                ms[name] = m
        g.index, g.measures = i, ms
        g.agents = draw(st.sampled_from([["a", "b"], ["b", "a"]]))
        out.append(g)
    return out


@settings(max_examples=400, deadline=None)
@given(measured_games(), st.integers(1, 5))
def test_a_store_reads_as_the_columns_of_the_same_games_whatever_their_values_and_parts(trials, part):
    assert_same(filled(trials, part), trials)


@pytest.mark.parametrize("book,options", [("siatka", {}), ("cattack", {"players": 3}),
                                          ("volleyball-high", {"mode": "solo"}),
                                          ("tanto-cuore-beach-volleyball", {})])
def test_a_store_of_each_books_games_reads_as_their_columns_and_summarises_alike(book, options):
    agents = ["random"] * game_for(f"rules/{book}.vbr", tuple(sorted(options.items())), "python").seats
    spec = RunSpec.of(f"rules/{book}.vbr", options, 5, agents, 60, engine="python")
    trials = run(spec, LocalBackend(1)).trials
    store = filled(trials, 7)
    assert_same(store, trials)
    assert M.summarize_columns(store) == M.summarize(trials)


@pytest.mark.parametrize("values,kind", [
    ([1, -5, 127], "b"), ([1, 128], "h"), ([-40000, 1], "i"), ([2 ** 40], "q"), ([2 ** 70, 1], list),
    ([0.5, 0.25], "d"), ([0.5, None], list), ([1, 0.5], list), ([3, None, -2], "b"),
    ([-128, None], "h"),  # -128 is a byte's None: a real -128 takes the next type
    ([None, 5], "b"), ([True, 2], "b")])
def test_a_column_takes_the_narrowest_type_its_values_fit_and_reads_them_back(values, kind):
    column = Column()
    for v in values:  # one game at a time, as a run of one worker hands them over
        column.extend([v])
    assert list(column) == values and len(column) == len(values)
    assert [column[i] for i in range(len(values))] == values
    assert column.count(None) == values.count(None)
    assert (type(column.values) if kind is list else column.values.typecode) == kind


def test_a_column_widened_keeps_its_nones():
    column = Column(3)  # three games before this figure existed
    column.extend([1, 300, None, 2 ** 33])
    assert list(column) == [None, None, None, 1, 300, None, 2 ** 33] and column.values.typecode == "q"


def test_a_run_into_a_store_keeps_a_siatka_game_in_under_a_hundred_bytes():
    """A Trial costs about 500 bytes kept (tests/test_trial_sharing.py); the store's figures of a
    Siatka game fit bytes and shorts but for one float (25 bytes), its arrays growing by an
    eighth at a time: 100 bytes a game is a generous bound. The games are played once before, so
    that the values games share (vbr.shared_values) are there already: they are not per game.
    Memory is read after a full collection, which empties CPython's free lists: else the
    thousands of short-lived tuples a run frees and the free lists keep (freed, not kept by the
    run) count as traced, some 550 KB once there are thousands, 135 bytes a game at 4,000.
    So read, 4,000 games keep about 33 bytes a game (20,000: 31); a store keeping the Trials too,
    over 400."""
    games = 4_000
    spec = RunSpec.of("rules/siatka.vbr", {}, 2, ["random", "random"], games, engine="c")
    run(spec, LocalBackend(1), sink=ColumnStore().add, keep=False)
    store = ColumnStore()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = run(spec, LocalBackend(1), sink=store.add, keep=False)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert result.games == store.games == games and result.trials == []
    assert kept / games < 100, kept / games


def test_a_store_made_of_one_game_at_a_time_equals_one_made_at_once():
    trials = [trial([(2, (1, 0)), (4, (1, 1))], None, 5, index=i) for i in range(3)] + \
             [trial([], 1, 7, points=None, index=3)]
    assert_same(filled(trials, 1), trials)
    assert_same(ColumnStore.of(trials), trials)
