"""`vbr sweep` over an option that changes the game's sides (Cattack's `players`: two seats, or
teams red and blue; a file whose player count changes how many seats win): every combination's
win rates are in `--out` and in the table, each under its own sides' names."""
import csv

from vbr.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_sweep_out_csv_keeps_the_win_rates_of_a_combination_whose_sides_are_teams(tmp_path, capsys):
    # players=2 plays seat 0 against seat 1, players=4 team red against team blue: a CSV whose
    # columns were the first row's only had no cell for team red's or team blue's win rate
    out = tmp_path / "sweep.csv"
    code, _, err = run(capsys, "sweep", "cattack", "--grid", "players=2,4", "-n", 4, "--agents", "first",
                       "--engine", "python", "--out", out)
    assert code == 0, err
    rows = list(csv.DictReader(out.open()))
    assert [r["players"] for r in rows] == ["2", "4"]
    for r in rows:  # every game is won by one side or drawn: the side's win rates and the draws make 1
        rates = [float(v) for k, v in r.items() if k.startswith("win_rate ") and not k.endswith((" lo", " hi")) and v]
        assert len(rates) == 2
        assert abs(sum(rates) + float(r["draw_rate"]) - 1) < 1e-3
    assert rows[1]["win_rate team red"] and rows[1]["win_rate team blue"]
    assert rows[0]["win_rate team red"] == "" and rows[1]["win_rate seat 0"] == ""
