"""Plots: the data behind each figure against hand-computed values, and the files each writer makes."""
from __future__ import annotations

import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vbr.analysis.plots import (final_margin, length_edges, length_histogram, margin_distribution, metric_pairs,
                                sweep_axes, sweep_metrics, sweep_series, win_rates, write_compare_plots,
                                write_sim_plots, write_sweep_plots, y_floor)
from vbr.analysis.trial import Trial


def trial(i: int, winner, points, choices: int) -> Trial:
    return Trial(i, 100 + i, ["random", "random"], 2, winner, points, choices, 0, choices * 2, 0, [])


def entry(value, lo=None, hi=None, label="", unit="share") -> dict:
    return {"value": value, "ci95": None if lo is None else [lo, hi], "label": label, "unit": unit}


def summary(w0: float, w1: float, draw: float = 0.0, length: float = 10.0) -> dict:
    return {"games": 10, "sides": "seat",
            "win_rate": {"0": {"wins": round(w0 * 10), "value": w0, "ci95": [w0 - 0.1, w0 + 0.1]},
                         "1": {"wins": round(w1 * 10), "value": w1, "ci95": [w1 - 0.1, w1 + 0.1]}},
            "metrics": {"draw_rate": entry(draw, 0.0, draw + 0.1, "draw rate"),
                        "length_mean": entry(length, length - 1, length + 1, "mean game length", "choices"),
                        "lead_changes_mean": entry(1.5, None, None, "lead changes per game", "count"),
                        "final_margin_mean": entry(None, None, None, "final margin", "points")}}


# lengths 3, 4, 4, 10; scores give margins 25-20=5, 25-23=2, 24-24=0, and none
TRIALS = [trial(0, 0, (25, 20), 3), trial(1, 1, (23, 25), 4), trial(2, None, (24, 24), 4), trial(3, 0, None, 10)]


# ------------------------------------------------------------------------------ data
def test_length_histogram_uses_bins_of_one_choice_when_lengths_fit_in_max_bins():
    # lengths 3..10 span 8 values <= 30 bins: width 1, edges 3..11, bins [3,4) [4,5) ... [10,11)
    h = length_histogram(TRIALS)
    assert h["edges"] == list(range(3, 12))
    assert h["counts"] == [1, 2, 0, 0, 0, 0, 0, 1]
    assert h["median"] == 4  # median of 3, 4, 4, 10 is (4 + 4) / 2


def test_length_histogram_widens_bins_to_stay_within_max_bins():
    # span 8 values in at most 4 bins: width ceil(8/4) = 2, edges 3, 5, 7, 9, 11
    # [3,5) holds 3, 4, 4; [9,11) holds 10
    h = length_histogram(TRIALS, max_bins=4)
    assert h["edges"] == [3, 5, 7, 9, 11]
    assert h["counts"] == [3, 0, 0, 1]


def test_length_edges_cover_the_longest_game_with_a_partial_last_span():
    # 1..10 is 10 values, 3 bins: width ceil(10/3) = 4, bins [1,5) [5,9) [9,13); 10 falls in the last
    assert length_edges([1, 10], max_bins=3) == [1, 5, 9, 13]
    assert length_edges([]) == []


def test_length_histogram_on_given_edges_counts_each_game_once():
    # shared edges [2, 4, 6]: 3 -> [2,4), 4 and 4 -> [4,6), 10 is outside them all
    h = length_histogram(TRIALS, edges=[2, 4, 6])
    assert h["counts"] == [1, 2]


def test_final_margin_is_leader_minus_runner_up_from_the_score():
    assert final_margin(trial(0, 1, (20, 25), 5)) == 5
    # three sides: 9 leads, 7 is runner-up, whoever was declared winner
    assert final_margin(Trial(0, 0, ["a"] * 3, 3, 2, (7, 2, 9), 5, 0, 5, 0, [])) == 2
    assert final_margin(trial(0, 0, None, 5)) is None


def test_margin_distribution_counts_games_by_margin_and_skips_games_without_a_score():
    # margins 5, 2, 0 (the tie), and the last game has no score
    assert margin_distribution(TRIALS) == {0: 1, 2: 1, 5: 1}
    assert list(margin_distribution(TRIALS)) == [0, 2, 5]
    assert margin_distribution([trial(0, 0, None, 3)]) == {}


def test_win_rates_name_sides_and_add_a_draw_bar_only_when_there_were_draws():
    w = win_rates(summary(0.6, 0.3, draw=0.1), ["you", "ai"])
    assert w["labels"] == ["you", "ai", "draw"]
    assert w["value"] == [0.6, 0.3, 0.1]
    assert w["lo"] == pytest.approx([0.5, 0.2, 0.0])
    assert w["hi"] == pytest.approx([0.7, 0.4, 0.2])
    assert win_rates(summary(0.6, 0.4))["labels"] == ["seat 0", "seat 1"]
    # forced, as a comparison does when only the other variant had draws: no draws, its own CI
    w = win_rates(summary(0.6, 0.4), draws=True)
    assert w["labels"][-1] == "draw" and (w["value"][-1], w["lo"][-1], w["hi"][-1]) == (0.0, 0.0, 0.1)


def test_metric_pairs_keep_metrics_both_variants_have_a_value_for():
    # final_margin_mean has no value: left out; lead changes have no interval: a zero-width one
    pairs = metric_pairs(summary(0.5, 0.5, length=10.0), summary(0.5, 0.5, length=12.0))
    assert [p["name"] for p in pairs] == ["draw_rate", "length_mean", "lead_changes_mean"]
    assert pairs[1]["a"] == (10.0, 9.0, 11.0) and pairs[1]["b"] == (12.0, 11.0, 13.0)
    assert pairs[1]["label"] == "mean game length" and pairs[1]["unit"] == "choices"
    assert pairs[2]["a"] == (1.5, 1.5, 1.5)


def grid(options: dict[str, list]) -> list[dict]:
    """A full grid of rows; each row's mean length encodes its options, so a point says which row
    it came from: 100 * target + 10 * (abilities) + (serve == "b")."""
    import itertools
    rows = []
    for values in itertools.product(*options.values()):
        opts = dict(zip(options, values))
        code = 100 * opts.get("target", 0) + 10 * bool(opts.get("abilities")) + (opts.get("serve") == "b")
        rows.append({"options": opts, "summary": summary(0.5, 0.5, length=float(code))})
    return rows


def test_sweep_axes_take_the_first_varying_option_and_drop_constant_ones():
    rows = grid({"fixed": [1], "target": [5, 3], "abilities": [False, True]})
    assert sweep_axes(rows) == ("target", ["abilities"])
    assert sweep_axes(grid({"target": [5]})) == ("target", [])


def test_sweep_series_with_two_options_draws_one_line_per_value_of_the_second():
    # x sorted 3, 5; abilities=false: 300, 500; abilities=true: 310, 510 (each +-1 from the CI)
    rows = grid({"target": [5, 3], "abilities": [False, True]})
    s = sweep_series(rows, "length_mean")
    assert s["option"] == "target" and s["x"] == [3, 5] and s["numeric"]
    assert s["label"] == "mean game length" and s["unit"] == "choices"
    assert [line["label"] for line in s["series"]] == ["abilities=false", "abilities=true"]
    assert [line["y"] for line in s["series"]] == [[300.0, 500.0], [310.0, 510.0]]
    assert s["series"][1]["lo"] == [309.0, 509.0] and s["series"][1]["hi"] == [311.0, 511.0]


def test_sweep_series_with_more_options_draws_one_line_per_combination_of_the_others():
    rows = grid({"target": [3, 5], "abilities": [False, True], "serve": ["a", "b"]})
    s = sweep_series(rows, "length_mean")
    assert [line["label"] for line in s["series"]] == ["abilities=false, serve=a", "abilities=false, serve=b",
                                                        "abilities=true, serve=a", "abilities=true, serve=b"]
    # abilities=true, serve=b: 10 + 1 on top of 100 * target
    assert s["series"][3]["y"] == [311.0, 511.0]


def test_sweep_series_leaves_a_gap_where_the_grid_has_no_row_or_no_value():
    rows = [r for r in grid({"target": [3, 5], "abilities": [False, True]})
            if r["options"] != {"target": 5, "abilities": True}]
    s = sweep_series(rows, "length_mean")
    assert s["series"][1]["y"] == [310.0, None] and s["series"][1]["lo"] == [309.0, None]
    assert sweep_series(rows, "final_margin_mean")["series"][0]["y"] == [None, None]


def test_sweep_series_over_a_true_false_option_is_categorical_in_rule_file_words():
    s = sweep_series(grid({"abilities": [True, False]}), "win_rate_1", ["you", "ai"])
    assert s["x"] == [False, True] and not s["numeric"]
    assert s["label"] == "win rate of ai" and s["unit"] == "share"
    assert s["series"] == [{"label": None, "y": [0.5, 0.5], "lo": [0.4, 0.4], "hi": [0.6, 0.6]}]


def test_sweep_metrics_are_side_win_rates_then_metrics_some_row_has_a_value_for():
    assert sweep_metrics(grid({"target": [3, 5]})) == ["win_rate_0", "win_rate_1", "draw_rate", "length_mean",
                                                       "lead_changes_mean"]


# ------------------------------------------------------------------------------ files
def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which a valid PNG has first, right after its
    8-byte signature: length (4 bytes), type (4), width (4), height (4)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_text(path: Path) -> str:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return "\n".join("".join(el.itertext()) for el in root.iter("{http://www.w3.org/2000/svg}text"))


def assert_figures(paths: list[Path], directory: Path, stems: list[str]):
    assert paths == [directory / f"{s}.{fmt}" for s in stems for fmt in ("png", "svg")]
    for p in paths[::2]:
        w, h = png_size(p)
        assert 600 <= w <= 2400 and 400 <= h <= 1600


def test_write_sim_plots_writes_png_and_svg_with_side_names_and_axis_labels(tmp_path):
    out = tmp_path / "new" / "dir"
    paths = write_sim_plots(out, TRIALS, summary(0.5, 0.25, draw=0.25), ["you", "ai"], "rules.vbr")
    assert_figures(paths, out, ["win_rate", "length", "margin"])
    win = svg_text(out / "win_rate.svg")
    assert all(w in win for w in ("you", "ai", "draw", "share of games (95% CI)", "rules.vbr: win rate per side"))
    assert "game length (choices made, forced ones included)" in svg_text(out / "length.svg")
    assert "final margin (points: leader minus runner-up)" in svg_text(out / "margin.svg")


def test_write_sim_plots_writes_no_margin_when_no_game_has_a_score(tmp_path):
    paths = write_sim_plots(tmp_path, [trial(0, 0, None, 3)], summary(1.0, 0.0), None, "")
    assert [p.name for p in paths] == ["win_rate.png", "win_rate.svg", "length.png", "length.svg"]
    assert "seat 0" in svg_text(tmp_path / "win_rate.svg")


def test_write_compare_plots_writes_both_variants_and_the_metrics(tmp_path):
    other = [trial(0, 1, (20, 25), 6), trial(1, 1, (21, 25), 8)]
    paths = write_compare_plots(tmp_path, TRIALS, summary(0.5, 0.25, draw=0.25), other, summary(0.0, 1.0),
                                "target=25", "target=15", ["you", "ai"], "rules.vbr")
    assert_figures(paths, tmp_path, ["win_rate", "length", "margin", "metrics"])
    for stem in ("win_rate", "length", "margin", "metrics"):
        text = svg_text(tmp_path / f"{stem}.svg")
        assert "target=25" in text and "target=15" in text
    assert "you" in svg_text(tmp_path / "win_rate.svg") and "draw" in svg_text(tmp_path / "win_rate.svg")
    metrics = svg_text(tmp_path / "metrics.svg")
    assert "mean game length" in metrics and "final margin" not in metrics


def test_write_sweep_plots_writes_one_figure_per_metric_labelled_with_options(tmp_path):
    rows = grid({"target": [3, 5], "abilities": [False, True]})
    paths = write_sweep_plots(tmp_path, rows, "rules.vbr", ["you", "ai"])
    assert_figures(paths, tmp_path, ["sweep_win_rate_0", "sweep_win_rate_1", "sweep_draw_rate",
                                     "sweep_length_mean", "sweep_lead_changes_mean"])
    text = svg_text(tmp_path / "sweep_length_mean.svg")
    assert all(w in text for w in ("target", "abilities=true", "abilities=false", "mean game length (choices, 95% CI)"))
    assert "win rate of you" in svg_text(tmp_path / "sweep_win_rate_0.svg")
    assert "lead changes per game (count)" in svg_text(tmp_path / "sweep_lead_changes_mean.svg")


def test_unwritable_directory_raises_oserror_naming_it_before_drawing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError, match="plot directory .*file"):
        write_sim_plots(blocker / "plots", TRIALS, summary(0.5, 0.5), None, "")
    assert list(tmp_path.iterdir()) == [blocker]


def test_importing_plots_does_not_import_matplotlib():
    code = "import vbr.analysis.plots, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_shares_and_counts_start_at_zero_or_below_an_interval_that_reaches_under_it():
    assert y_floor("share", [0.0160, 0.0168]) == 0.0  # 1.60 % against 1.68 %: seen from zero
    assert y_floor("count", [2.3, 2.7]) == 0.0
    assert y_floor("share", [-0.02, 0.01]) == -0.02  # side advantage's interval below zero
    assert y_floor("choices", [61.0, 63.5]) is None  # lengths zoom in, and say so


def test_compare_metrics_figure_names_the_agents_shows_percent_and_marks_a_zoomed_axis(tmp_path):
    other = [trial(0, 1, (20, 25), 6), trial(1, 1, (21, 25), 8)]
    write_compare_plots(tmp_path, TRIALS, summary(0.5, 0.25, draw=0.25), other, summary(0.0, 1.0),
                        "target=25", "target=15", ["you", "ai"], "rules.vbr", ["random", "greedy"])
    text = svg_text(tmp_path / "metrics.svg")
    assert "rules.vbr, random | greedy: metrics, target=25 vs target=15 (95% CI)" in text
    assert "%" in text  # the draw rate's ticks
    assert "axis from" in text  # mean game length: its panel does not start at zero
    assert "random | greedy" in svg_text(tmp_path / "win_rate.svg")
