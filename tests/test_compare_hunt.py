"""`vbr compare` of two arms with different numbers of sides (a race of 2 seats against the same
race of 3): each figure's interval is centred on its own difference."""
import json
from pathlib import Path

from vbr.cli import main

RACE = Path(__file__).parent / "fixtures" / "valid" / "dice_race.vbr"  # 2 or 3 seats, by `players`


def test_paired_side_advantage_interval_is_centred_on_its_difference_when_the_fair_shares_differ(capsys):
    # docs/analysis.md, Paired runs: the interval is centred on b − a. The side advantage is a
    # share of decided games less 1/S: 1/2 in the base, 1/3 in the variant, so b − a is not the
    # difference of the side's win shares, on which its interval was centred
    code = main(["compare", str(RACE), "--base-option", "players=2", "--variant-option", "players=3",
                 "-n", "40", "--engine", "python", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = {r["metric"]: r for r in json.loads(out)["metrics"]}
    side = rows["side_advantage"]
    assert side["method"].startswith("paired")
    lo, hi = side["ci95"]
    assert abs((lo + hi) / 2 - side["diff"]) < 2e-4  # the three are rounded to 4 decimals
    assert abs(side["diff"] - (side["b"] - side["a"])) < 2e-4
    win = rows[f"win_rate_{side['label'].rsplit(' ', 1)[-1]}"]  # the same side's win rate: its own centre
    assert abs((win["ci95"][0] + win["ci95"][1]) / 2 - win["diff"]) < 2e-4


BUMP = Path(__file__).resolve().parents[1] / "docs" / "tutorial" / "bump.vbr"  # option target = 3


def test_compare_of_a_variant_that_sets_an_option_to_its_default_is_a_usage_error(capsys):
    # docs/cli.md, vbr compare: comparing a thing with itself is a usage error. `target=3` is
    # Bump's default and `03` is 3: both arms were one game, played twice and compared
    for flags in (["--variant-option", "target=3"], ["--base-option", "target=3", "--variant-option", "target=03"],
                  ["--option", "target=5", "--variant-option", "target=05"]):
        code = main(["compare", str(BUMP), *flags, "-n", "2", "--engine", "python"])
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert err.startswith("vbr: error: compare needs two different things: the base and the variant are both ")


def test_compare_of_a_rule_file_with_itself_by_another_path_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.chdir(BUMP.parent)
    code = main(["compare", "bump.vbr", "./bump.vbr", "-n", "2", "--engine", "python"])
    _, err = capsys.readouterr()
    assert code == 2 and "the base and the variant are both" in err


def test_compare_names_a_side_by_each_arms_name_when_the_arms_differ(capsys):
    # Cattack's players=2 plays seats, players=4 teams: side 0's win rate is seat 0's in the base
    # and team red's in the variant, and was labelled `seat 0 win rate`
    code = main(["compare", "cattack", "--base-option", "players=2", "--variant-option", "players=4",
                 "--agents", "first", "-n", "4", "--engine", "python", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    labels = {r["metric"]: r["label"] for r in json.loads(out)["metrics"]}
    assert labels["win_rate_0"] == "seat 0 / team red win rate"
    assert labels["win_rate_1"] == "seat 1 / team blue win rate"
