"""A run's games as columns (vbr.analysis.columns): one walk of a game's score track gives the
figures the per-game functions of vbr.analysis.metrics define, and the summaries that read the
columns give what the games say, worked out here by hand."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vbr.analysis import comparison as C
from vbr.analysis import metrics as M
from vbr.analysis.columns import FIGURES, Columns, figures

from hand_games import DRAW, FOUR, POINTLESS, SEESAW, WIRE, trial


def exact(values) -> list:
    """Each value with its type: 0 and 0.0, 1 and True, are different figures in a row."""
    return [(v, type(v)) for v in values]


# ------------------------------------------------------------------------------ one game, one walk
_value = st.sampled_from([0, 1, 2, 3, -1, 1.5, 2.0])  # few values: many ties; a float or two, as rows may hold


@st.composite
def games(draw):
    """A game of 1 to 4 sides: any scores (ties, a side falling back, floats), any winner or a
    draw, and a final score that is the track's last, none, or another."""
    sides = draw(st.integers(1, 4))
    scores = draw(st.lists(st.tuples(*[_value] * sides), max_size=12))
    track = [(2 * i, s) for i, s in enumerate(scores, 1)]
    points = draw(st.sampled_from(["final", None, "other"]))
    if points == "other":
        points = draw(st.tuples(*[_value] * sides))
    return trial(track, draw(st.sampled_from([None, *range(sides)])), 2 * len(track) + 1, sides=sides,
                 points=points)


PER_GAME = [getattr(M, name) for name in FIGURES]


@settings(max_examples=1500, deadline=None)
@given(games())
def test_one_walk_of_a_track_gives_what_each_per_game_function_gives(t):
    assert exact(figures(t)) == exact(f(t) for f in PER_GAME)


def test_the_figures_of_hand_made_games_in_order():
    # SEESAW: 5 points; leaders 0, -, 1, -, 0: two changes; gaps 1, 0, 1, 0, 1; 3 − 2; side 0 was
    # last not ahead after the 4th point: (5 − 4) / 5; it trailed 1-2
    assert figures(SEESAW) == (5, 2, 1, 1, 0.2, True)
    assert figures(WIRE) == (4, 0, 2, 2, 1.0, False)  # led from the first point to 3-1
    assert figures(DRAW) == (2, 0, 1, 0, 0.0, False)  # nobody won: no margin, no comeback
    assert exact(figures(POINTLESS)) == exact((0, 0, 0, 0, 0.0, False))
    # three sides: leaders 1, -, -, 0, 0; gaps 1, 0, 0, 1, 2; 3 − max(1, 1); last not ahead after
    # the 3rd of 5 points; side 1 led the winner after the first point
    three = trial([(1, (0, 1, 0)), (2, (0, 1, 1)), (3, (1, 1, 1)), (4, (2, 1, 1)), (5, (3, 1, 1))], 0, 6, sides=3)
    assert figures(three) == (5, 1, 2, 2, 0.4, True)


# ------------------------------------------------------------------------------ many games
def test_columns_hold_each_games_figures_in_the_order_of_the_trials():
    c = Columns(FOUR)
    assert c.games == 4 and c.sides == 2
    assert c.winner == [0, 0, None, 1] and c.first_side == [1, 0, 0, 1]
    assert c.choices == [14, 10, 5, 7] and c.forced == [4, 2, 1, 7] and c.options == [30, 25, 12, 7]
    assert c.points_scored == [5, 4, 2, 0] and c.lead_changes == [2, 0, 0, 0]
    assert c.decisiveness == [0.2, 1.0, 0.0, 0.0] and c.comeback == [True, False, False, False]
    assert c.scored == [True, True, True, False]  # POINTLESS declares no points
    assert c.decided == [True, True, False, True]
    assert c.decided_scored == [True, True, False, False]
    assert c.wins == [2, 1] and c.draws == 1 and c.top_side() == 0


def test_columns_of_no_games_are_empty():
    c = Columns([])
    assert (c.games, c.sides, c.wins, c.draws, c.winner, c.top_side()) == (0, 0, [], 0, [], None)


def test_the_sides_are_the_most_of_any_game_and_every_side_counts_its_wins():
    # a game of three sides among games of two: side 2 won once, side 0 once, nobody else
    ts = [trial([(1, (1, 0))], 0, 2), trial([(1, (0, 0, 1))], 2, 2, sides=3)]
    c = Columns(ts)
    assert c.sides == 3 and c.wins == [1, 0, 1] and c.top_side() == 0  # a tie goes to the lower side


def test_a_measure_column_has_none_where_a_game_does_not_carry_it_or_left_it_unset():
    ts = [trial([], 0, 1, measures={"first": ("side", 1), "streak": ("int", 3)}),
          trial([], 1, 1, measures={"first": ("side", None)}),
          trial([], None, 1)]
    c = Columns(ts)
    assert c.measure_kinds() == {"first": "side", "streak": "int"}
    assert c.measure("first") == [1, None, None] and c.measure("streak") == [3, None, None]
    assert c.unset("first") == 1 and c.unset("streak") == 0  # the third game carries neither


def test_the_summary_of_hand_made_games_is_what_they_say():
    s = M.summarize(FOUR)["metrics"]
    # decided games with a first side: SEESAW (side 1 chose first, 0 won), WIRE (0, 0), POINTLESS (1, 1)
    assert s["first_mover_advantage"]["value"] == round(2 / 3, 4) and s["first_mover_advantage"]["n"] == 3
    assert s["side_advantage"]["value"] == round(2 / 3 - 1 / 2, 4)  # side 0 won 2 of 3 decided games
    assert s["draw_rate"]["value"] == 0.25
    assert s["length_mean"]["value"] == 9.0 and s["length_median"]["value"] == 8.5  # 5 7 | 10 14
    # over the three games with points: 5, 4, 2 points; 2, 0, 0 changes; gaps 1, 2, 1; margins 1, 2, 0
    assert s["points_mean"]["value"] == round(11 / 3, 4) and s["points_mean"]["n"] == 3
    assert s["lead_changes_mean"]["value"] == round(2 / 3, 4)
    assert s["largest_lead_mean"]["value"] == round(4 / 3, 4) and s["final_margin_mean"]["value"] == 1.0
    # over SEESAW and WIRE, the decided games with points
    assert s["decisiveness_mean"]["value"] == 0.6 and s["comeback_rate"]["value"] == 0.5
    assert s["branching_factor"]["value"] == round(74 / 36, 4)  # options 30 + 25 + 12 + 7 over 36 choices
    assert s["forced_share"]["value"] == round(14 / 36, 4)


def test_a_summary_of_a_list_that_grew_counts_its_new_games():
    # vbr tune summarises an arm again after each round: nothing of the first summary is kept
    ts = [WIRE]
    assert M.summarize(ts)["win_rate"]["0"]["wins"] == 1
    ts.append(trial([(1, (0, 1))], 1, 2, index=1))
    s = M.summarize(ts)
    assert [s["win_rate"][k]["wins"] for k in "01"] == [1, 1] and s["metrics"]["points_mean"]["value"] == 2.5


def test_a_paired_comparison_reads_each_games_partner_by_deal():
    # the same two deals in the other order in b: game i of a pairs with the game of its seed in b
    a = [trial(WIRE.score_track, 0, 10, index=0), trial(DRAW.score_track, None, 5, index=1)]
    b = [trial(DRAW.score_track, None, 9, index=1), trial(WIRE.score_track, 0, 12, index=0)]
    row = {r["metric"]: r for r in C.compare(a, b, paired=True)}["length_mean"]
    # per deal: 12 − 10 and 9 − 5, a mean difference of 3 with a spread of √2 over two pairs
    assert row["diff"] == 3.0 and row["pairs"] == 2
    assert row["ci95"] == pytest.approx([3 - 1.96 * 1.0, 3 + 1.96 * 1.0], abs=1e-3)


# ------------------------------------------------------------------------------ one figure twice
_per_game_value = st.sampled_from([None, 0.0, 1.0, 0.5, 2.0, -1.0])


def _figure(name: str, a_values: list, b_values: list, kind: str = "mean") -> M.Metric:
    """A metric whose games in runs a and b have these values (None: a game it is not taken over);
    run b has one game more than a."""
    return M.Metric(name, name, "count", kind, "games", sample=lambda c: [],
                    each=lambda c: list(a_values if c.games == len(a_values) else b_values))


def _values(n: int):
    return st.lists(_per_game_value, min_size=n, max_size=n)


@settings(max_examples=600, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(_values(n), _values(n + 1), _values(n), _values(n + 1))))
def test_two_figures_are_one_when_the_same_games_count_and_their_values_differ_by_a_constant_or_mirror(runs):
    xa, xb, ya, yb = runs
    x, y = xa + xb, ya + yb  # each figure's games over both runs
    counted = [(u is None) == (v is None) for u, v in zip(x, y)]
    pairs = [(u, v) for u, v in zip(x, y) if u is not None and v is not None]
    shifted = len({u - v for u, v in pairs}) <= 1  # y = x − c
    mirrored = len({u + v for u, v in pairs}) <= 1  # y = c − x
    twins = all(counted) and (shifted or mirrored)
    a, b = [WIRE] * len(xa), [DRAW] * len(xb)
    assert C.same_figures([_figure("x", xa, xb), _figure("y", ya, yb)], a, b) == ({"y": "x"} if twins else {})
    # a proportion and a mean are never one figure
    assert C.same_figures([_figure("x", xa, xb), _figure("y", ya, yb, "proportion")], a, b) == {}


# ------------------------------------------------------------------------------ one figure alone
def test_columns_that_walk_the_tracks_when_first_read_hold_the_figures_of_the_games_given():
    games = list(FOUR)
    later = Columns(games, walk=False)
    games.append(WIRE)  # a list that grows afterwards (vbr tune's arms) leaves these columns as they were
    now = Columns(FOUR)
    assert later.games == 4 and [getattr(later, f) for f in FIGURES] == [getattr(now, f) for f in FIGURES]


def test_tune_reads_each_figure_as_the_summary_gives_it():
    from vbr.analysis.tune import figure
    first = {"first": ("side", 1)}
    games = [trial(t.score_track, t.winner, t.choices, t.forced, t.options, t.first_side, index=i,
                   points=t.points, measures=first if i % 2 else {"first": ("side", None)})
             for i, t in enumerate(FOUR * 3)]
    s = M.summarize(games)
    entries = {**s["metrics"], **s["measures"], **{f"win_rate:{k}": v for k, v in s["win_rate"].items()}}
    assert "measure:first" in entries and "win_rate:1" in entries
    for name, e in entries.items():
        value, ci, reason = figure(games, name)
        assert (value, list(ci) if ci else None, reason) == (e["value"], e["ci95"], e.get("reason")), name
