"""`vbr sweep` over an option that changes the game's sides (Cattack's `players`: two seats, or
teams red and blue; a file whose player count changes how many seats win): every combination's
win rates are in `--out` (a column per side index, the side's name in each row) and in the
table, each under its own sides' names."""
import csv
import re
from pathlib import Path

from vbr.cli import main

RACE = Path(__file__).parent / "fixtures" / "valid" / "dice_race.vbr"  # 2 or 3 seats, by `players`
BUMP = Path(__file__).resolve().parents[1] / "docs" / "tutorial" / "bump.vbr"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_sweep_out_csv_keys_win_rates_by_side_index_with_each_rows_side_name_as_data(tmp_path, capsys):
    # players=2 plays seat 0 against seat 1, players=4 team red against team blue: the columns
    # were keyed by the side's name (`win_rate seat 0`, `win_rate team red`), so each row filled a
    # different pair of columns, team red's trailing after the metrics; a spreadsheet needs one
    # column per side whatever its name in a row
    out = tmp_path / "sweep.csv"
    code, _, err = run(capsys, "sweep", "cattack", "--grid", "players=2,4", "-n", 4, "--agents", "first",
                       "--engine", "python", "--out", out)
    assert code == 0, err
    header = next(csv.reader(out.open()))
    assert header[:11] == ["players", "games", "engine",
                           "side_0", "win_rate_0", "win_rate_0 lo", "win_rate_0 hi",
                           "side_1", "win_rate_1", "win_rate_1 lo", "win_rate_1 hi"]
    assert not [c for c in header if c.startswith("win_rate ")]  # no name-keyed side columns
    rows = list(csv.DictReader(out.open()))
    assert [r["players"] for r in rows] == ["2", "4"]
    assert [(r["side_0"], r["side_1"]) for r in rows] == [("seat 0", "seat 1"), ("team red", "team blue")]
    for r in rows:  # every game is won by one side or drawn: the side's win rates and the draws make 1
        rates = [float(r[f"win_rate_{k}"]) for k in (0, 1)]
        assert abs(sum(rates) + float(r["draw_rate"]) - 1) < 1e-3
        for k in (0, 1):
            assert float(r[f"win_rate_{k} lo"]) <= float(r[f"win_rate_{k}"]) <= float(r[f"win_rate_{k} hi"])


def test_sweep_out_csv_has_every_sides_columns_before_the_metrics_when_a_later_combination_has_more(tmp_path, capsys):
    # players=2 then players=3: seat 2 exists in the second row only; its columns came after
    # every metric, and the first row has none of its cells
    out = tmp_path / "sweep.csv"
    code, _, err = run(capsys, "sweep", RACE, "--grid", "players=2,3", "-n", 4, "--engine", "python", "--out", out)
    assert code == 0, err
    header = next(csv.reader(out.open()))
    assert header.index("win_rate_2 hi") < header.index("first_mover_advantage")
    two, three = csv.DictReader(out.open())
    assert (two["side_2"], two["win_rate_2"], two["win_rate_2 lo"]) == ("", "", "")
    assert three["side_2"] == "seat 2"
    for row, sides in ((two, 2), (three, 3)):  # nobody draws a race to 3: the side's rates make 1
        assert abs(sum(float(row[f"win_rate_{k}"]) for k in range(sides)) - 1) < 1e-3


def _wins_lines(text: str) -> dict[str, list[str]]:
    """The table's `... wins` lines: the side's name, its cell in each column (the sides' lines,
    above the metrics: a declared measure's line, `first server wins`, comes after them)."""
    out = {}
    for line in text.split("first-mover advantage")[0].splitlines():
        name, sep, cells = line.partition(" wins ")
        if sep and not line.startswith(" "):
            out[name.strip()] = [c for c in re.split(r" {2,}", cells.strip()) if not c.startswith("(")]
    return out


def test_sweep_table_shows_every_side_of_a_combination_with_more_sides_than_the_first(capsys):
    # players=3 has three seats: the table was cut to the first combination's sides, so its seat
    # 2's wins were nowhere and its column's shares did not add up; with the 3 seats first, the
    # 2-seat column had no seat 2 and the sweep ended in an internal error (KeyError)
    rules = RACE
    for grid in ("players=2,3", "players=3,2"):
        code, text, err = run(capsys, "sweep", rules, "--grid", grid, "-n", 20, "--engine", "python")
        assert code == 0, err
        wins = _wins_lines(text)
        assert list(wins) == ["seat 0", "seat 1", "seat 2"]
        two, three = (0, 1) if grid == "players=2,3" else (1, 0)
        assert wins["seat 2"][two] == "n/a"
        for column in (two, three):  # nobody draws a race to 3: each column's shares make 100 %
            shares = [float(cells[column].rstrip("%")) for cells in wins.values() if cells[column] != "n/a"]
            assert len(shares) == (2 if column == two else 3) and abs(sum(shares) - 100) < 0.01


def test_sweep_table_names_a_side_by_each_of_its_names_when_the_combinations_differ(capsys):
    # Cattack's players=2 plays seats, players=4 teams: side 0 is seat 0 in one column and team
    # red in the other, not `seat 0` in both
    code, text, err = run(capsys, "sweep", "cattack", "--grid", "players=2,4", "-n", 2, "--agents", "first",
                          "--engine", "python")
    assert code == 0, err
    assert list(_wins_lines(text)) == ["seat 0 / team red", "seat 1 / team blue"]


def test_sweep_plot_of_a_side_names_it_by_each_of_its_names_when_the_combinations_differ(tmp_path, capsys):
    # the plot of side 0's win rate against `players` was labelled `seat 0`, though at players=4
    # side 0 is team red
    code, _, err = run(capsys, "sweep", "cattack", "--grid", "players=2,4", "-n", 2, "--agents", "first",
                       "--engine", "python", "--plot", tmp_path)
    assert code == 0, err
    svg = (tmp_path / "sweep_win_rate_0.svg").read_text()
    assert "seat 0 / team red" in svg


def test_sweep_table_of_a_sweep_stopped_early_says_so_and_claims_no_games_each(capsys):
    # Ctrl-C in the second of two combinations printed `sweep of 2 combinations, 300000 games
    # each` above a second column of 159,997 games, and nothing on stdout said it was stopped
    import json

    from vbr.report import render_sweep
    code, out, err = run(capsys, "sweep", BUMP, "--grid", "target=3,4", "-n", 4, "--engine", "python", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert render_sweep("Bump", rows).splitlines()[0] == "Bump: sweep of 2 combinations, 4 games each, seed 0, agents random | random, engine python"
    rows[1]["summary"]["games"] = 3
    first = render_sweep("Bump", rows, stopped="interrupted: 7 of 8 games played, 2 combinations planned").splitlines()[0]
    assert first == ("Bump: sweep of 2 combinations, the games each column's `games` line gives, seed 0, agents "
                     "random | random, engine python (interrupted: 7 of 8 games played, 2 combinations planned)")
