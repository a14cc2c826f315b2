"""`vbr compare` keeps each arm as a `ColumnStore`: comparing, pairing and the compare plots of
two stores must say what they say of the two runs' trials, and the `--rows` written as the games
arrive must be the rows written of all the games at once."""
import pytest

from vbr.analysis import comparison as C
from vbr.analysis import pairing as P
from vbr.analysis import metrics as M
from vbr.analysis.column_store import ColumnStore
from vbr.analysis.commands import arms_rows_as_played, write_game_rows
from vbr.backends import LocalBackend
from vbr.sim import RunSpec, game_for, run

BOOKS = [("siatka", {}, {"target": 15}), ("cattack", {"players": 3}, {"players": 3, "target": 5}),
         ("volleyball-high", {"mode": "solo"}, {"mode": "solo"})]


def games(book: str, options: dict, seed: int, n: int = 20, rotate: bool = False) -> list:
    """n games of a book played by random agents in the python engine."""
    seats = game_for(f"rules/{book}.vbr", tuple(sorted(options.items())), "python").seats
    agents = ["random", "greedy"] + ["random"] * (seats - 2) if rotate else ["random"] * seats
    return run(RunSpec.of(f"rules/{book}.vbr", options, seed, agents, n, engine="python", rotate=rotate),
               LocalBackend(1)).trials


def stored(trials: list) -> ColumnStore:
    """The trials' store, filled in parts of 7 games, as a run's sink fills it."""
    store = ColumnStore()
    for i in range(0, len(trials), 7):
        store.add(trials[i:i + 7])
    return store


@pytest.mark.parametrize("book,base,variant", BOOKS)
def test_comparing_two_stores_of_the_same_deals_gives_what_comparing_their_trials_gives(book, base, variant):
    a, b = games(book, base, 3), games(book, variant, 3)
    sa, sb = stored(a), stored(b)
    pairs = P.pair_up_stores(sa, sb)
    assert pairs == P.pair_up(a, b) == [(i, i) for i in range(len(a))]
    assert C.compare_columns(sa, sb, "seat", None, {}, pairs) == C.compare(a, b, "seat", None, {}, paired=True)
    assert P.pairing_columns(sa, sb, pairs) == P.pairing(a, b)


def test_two_stores_of_the_same_deals_in_the_same_order_pair_game_k_with_game_k_held_as_two_ranges():
    """As `vbr compare` plays both arms: the same seeds, in the same order, in one seating."""
    a, b = games("siatka", {}, 3), games("siatka", {"target": 15}, 3)
    pairs = P.pair_up_stores(stored(a), stored(b))
    assert pairs.same_order and pairs.a == pairs.b == range(len(a))
    reordered = P.pair_up_stores(stored(a), stored(list(reversed(b))))
    assert not reordered.same_order and list(reordered) == [(i, len(a) - 1 - i) for i in range(len(a))]


@pytest.mark.parametrize("book,base,variant", BOOKS[:2])
def test_comparing_stores_of_other_deals_is_unpaired_as_comparing_their_trials_is(book, base, variant):
    a, b = games(book, base, 3), games(book, variant, 4)
    sa, sb = stored(a), stored(b)
    pairs = P.pair_up_stores(sa, sb)
    assert pairs == P.pair_up(a, b) == []
    assert C.compare_columns(sa, sb, "seat", None, {}, pairs) == C.compare(a, b, "seat", None, {}, paired=True)
    assert C.compare_columns(sa, sb, "seat", None, {}, None) == C.compare(a, b, "seat", None, {})


def test_stores_pair_games_by_seed_and_seating_whatever_their_order_and_seatings():
    """b's games in reverse order, and its seatings first met in another order than a's: each game
    still pairs with the game of its own deal (seed and agents in their seats)."""
    a = games("siatka", {}, 5, n=12, rotate=True)
    b = list(reversed(games("siatka", {"target": 15}, 5, n=12, rotate=True)))
    sa, sb = stored(a), stored(b)
    assert sa.seatings == list(reversed(sb.seatings))
    pairs = P.pair_up_stores(sa, sb)
    assert pairs == P.pair_up(a, b) == [(i, 11 - i) for i in range(12)]
    assert C.compare_columns(sa, sb, "seat", None, {}, pairs) == C.compare(a, b, "seat", None, {}, paired=True)
    assert C.same_figures_columns(M.METRICS, sa, sb) == C.same_figures(M.METRICS, a, b)


def test_a_store_pairs_a_deal_played_twice_with_its_last_game_as_trials_do():
    a = games("siatka", {}, 6, n=4)
    b = [*a, *a[:2]]
    assert P.pair_up_stores(stored(a), stored(b)) == P.pair_up(a, b) == [(0, 4), (1, 5), (2, 2), (3, 3)]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_the_rows_of_two_arms_written_as_their_games_arrive_are_the_rows_written_at_once(tmp_path, suffix):
    a, b = games("cattack", {"players": 3}, 3, n=9), games("cattack", {"players": 3, "target": 5}, 3, n=9)
    fields = {"rules": "rules/cattack.vbr", "rule_options": {"players": "3"}, "engine": "python", "restrict": []}
    runs = [(a, {**fields, "arm": "base"}), (b, {**fields, "arm": "variant"})]
    write_game_rows(tmp_path / f"once{suffix}", runs)
    with arms_rows_as_played(tmp_path / f"arriving{suffix}") as arm:
        for trials, fields in runs:
            sink = arm(fields)
            for i in range(0, len(trials), 4):
                sink(trials[i:i + 4])
    assert (tmp_path / f"arriving{suffix}").read_bytes() == (tmp_path / f"once{suffix}").read_bytes()


def test_a_sweeps_analysis_of_stores_is_its_analysis_of_the_same_trials():
    """Pooled values, entrants (one pick per side, as Volleyball High's schools) and every
    combination against the first, read from the combinations' stores, are what the pooling and
    ranking of their trials and `compare` of their trials (Holm over all of them) give."""
    from vbr.analysis import levels
    from vbr.analysis.commands import sweep_analysis
    from vbr.analysis.sweep import Axis
    axes = [Axis("school0", ("a", "b")), Axis("school1", ("a", "b"))]
    picks = [("a", "a"), ("a", "b"), ("b", "a")]
    played = [games("siatka", {}, 3, n=8), games("siatka", {"target": 15}, 3, n=8), games("siatka", {}, 4, n=8)]
    cells = [(f"{x},{y}", {"school0": x, "school1": y}, ts) for (x, y), ts in zip(picks, played)]
    got = sweep_analysis(axes, [(label, options, stored(ts)) for label, options, ts in cells], "seat")
    grid = [levels.Cell(options, ts) for _, options, ts in cells]
    assert got["pooled"] == levels.pooled(axes, grid)
    assert got["entrants"] == levels.entrants(axes, grid) and got["entrants"] is not None
    rows = [{"combination": label, **r} for label, _, ts in cells[1:]
            for r in C.compare(played[0], ts, "seat", paired=True)]
    assert got["against_first"]["rows"] == C.mark_significant(rows)
