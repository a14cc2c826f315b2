"""What a new user meets following the README and docs/tutorial.md: the mistakes typed on the way
(an option's value a number spelt as a decimal, left empty, or the wrong type; a variant file's
slips) each get one message that says what to write, at the right place, and no traceback
(docs/cli.md, "Errors" and the `--option` flag)."""
import pytest

from vbr.cli import main

BUMP = "docs/tutorial/bump.vbr"  # `option target = 3`


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("value,whole", [("1e1", "10"), ("9.0", "9"), ("10.", "10"), ("2E0", "2"), ("+5.00", "5")])
def test_a_number_option_given_as_a_decimal_says_which_whole_number_to_write(capsys, value, whole):
    # options are whole numbers, as every number of the language is: 1e1 is 10 written otherwise
    code, out, err = run(capsys, "run", BUMP, "--option", f"target={value}")
    assert code == 2 and out == ""
    assert err == f"vbr: error: option `target` is a whole number, not {value!r}: write {whole}\n"


@pytest.mark.parametrize("value", ["1.5", "abc", "1e400"])
def test_a_number_option_given_no_whole_number_gives_the_default_as_an_example(capsys, value):
    code, out, err = run(capsys, "run", BUMP, "--option", f"target={value}")
    assert code == 2 and out == ""
    assert err == (f"vbr: error: option `target` is a whole number, not {value!r}: "
                   "write one in the digits 0-9, such as 3 (its default)\n")


@pytest.mark.parametrize("command", [["run", BUMP], ["sim", BUMP, "-n", "1"]])
def test_an_option_given_an_empty_value_says_it_was_given_none(capsys, command):
    code, out, err = run(capsys, *command, "--option", "target=")
    assert code == 2 and out == ""
    assert err == "vbr: error: option `target` is given no value: give a whole number, such as 3 (its default)\n"


def test_a_true_or_false_option_given_an_empty_value_says_it_was_given_none(capsys):
    code, _, err = run(capsys, "run", "siatka", "--option", "abilities=")
    assert code == 2
    assert err == "vbr: error: option `abilities` is given no value: give true or false (yes/no and on/off also do)\n"


def test_a_true_or_false_option_given_a_number_names_the_spellings_it_takes(capsys):
    code, _, err = run(capsys, "run", "siatka", "--option", "abilities=1")
    assert code == 2
    assert err == "vbr: error: option `abilities` is true or false (yes/no and on/off also do), not '1'\n"


@pytest.mark.parametrize("spelt", ["yes", "on", "TRUE"])
def test_yes_and_on_play_the_game_true_plays_as_the_error_says(capsys, spelt):
    game = ("run", "siatka", "--seed", "1", "--engine", "python")
    assert run(capsys, *game, "--option", f"abilities={spelt}") == run(capsys, *game, "--option", "abilities=true")
    assert run(capsys, *game, "--option", f"abilities={spelt}") != run(capsys, *game, "--option", "abilities=false")


def test_the_library_refuses_a_decimal_option_with_the_same_advice():
    import vbr
    from vbr.errors import OptionError
    with pytest.raises(OptionError, match=r"option `target` is a whole number, not 9\.0: write 9$"):
        vbr.load("siatka", {"target": 9.0})


# ------------------------------------------------------------------------------ figures rounded once
def test_a_share_shown_in_percent_is_rounded_once_from_its_full_value():
    # 4 of 21 is 19.048 %: JSON keeps 0.1905 (four decimals), but the text rounds 19.048, not 19.05
    import json

    from vbr.analysis.rounding import rounded
    from vbr.report import number
    four_of_21, fourteen_of_17 = rounded(4 / 21), rounded(14 / 17)
    assert json.dumps([four_of_21, fourteen_of_17]) == "[0.1905, 0.8235]" and four_of_21 == 0.1905
    assert number(four_of_21, {"unit": "share"}) == "19.0%"
    assert number(fourteen_of_17, {"unit": "share"}) == "82.4%"  # 82.353 %, not 0.8235's 82.3


def test_a_mean_shown_to_two_places_is_rounded_once_from_its_full_value():
    # 50 / 101 is 0.49505: to two places 0.50; its four decimals, 0.4950, would print as 0.49
    from vbr.analysis.rounding import rounded
    from vbr.report import number
    assert number(rounded(50 / 101), {"unit": "count", "method": "mean"}) == "0.50"


def test_a_rounded_figure_keeps_its_full_value_when_sent_to_another_process():
    import pickle

    from vbr.analysis.rounding import exact, rounded
    [lo, hi] = pickle.loads(pickle.dumps(rounded((4 / 21, 14 / 17))))
    assert (lo, hi) == (0.1905, 0.8235) and (exact(lo), exact(hi)) == (4 / 21, 14 / 17)


def _wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson's score interval (Wilson 1927), written out here from its formula."""
    import math
    z = 1.959963984540054
    centre, half = (k + z * z / 2) / (n + z * z), z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    return centre - half, centre + half


def test_vbr_sim_prints_the_interval_of_its_counts_rounded_once(capsys):
    # In these 29 games the first mover wins 23: Wilson's upper end is 0.901539, 90.2 %; the
    # summary's four decimals, 0.9015, printed again to one place, showed 90.1 %.
    import json
    command = ("sim", BUMP, "-n", "29", "--seed", "1", "--no-progress")
    code, out, _ = run(capsys, *command, "--json")
    entry = json.loads(out)["metrics"]["first_mover_advantage"]
    k, n = round(entry["value"] * entry["n"]), entry["n"]
    lo, hi = _wilson(k, n)
    assert entry["ci95"] == [round(lo, 4), round(hi, 4)]  # the JSON keeps its four decimals
    code, out, _ = run(capsys, *command)
    line = next(x for x in out.splitlines() if "first-mover advantage" in x)
    assert line.split()[-2:] == [f"{100 * k / n:.1f}%", f"({100 * lo:.1f}%..{100 * hi:.1f}%)"]


# ------------------------------------------------------------------------------ an option given twice
def test_an_option_given_two_values_is_a_usage_error_naming_both(capsys):
    # the later value won, silently: `--option target=3 --option target=5` played to 5
    code, out, err = run(capsys, "run", BUMP, "--option", "target=3", "--option", "target=5")
    assert code == 2 and out == ""
    assert err == "vbr: error: --option target is given twice, as 3 and as 5: give it once\n"


def test_an_option_given_its_one_value_twice_is_taken(capsys):
    once = run(capsys, "run", BUMP, "--seed", "4", "--option", "target=2")
    assert run(capsys, "run", BUMP, "--seed", "4", "--option", "target=2", "--option", " target = 2 ") == once


def test_a_variant_option_given_two_values_names_its_own_flag(capsys):
    code, _, err = run(capsys, "compare", BUMP, "-n", "1", "--variant-option", "target=5", "--variant-option", "target")
    assert code == 2
    assert err == "vbr: error: --variant-option target is given twice, as 5 and as true: give it once\n"


def test_a_precision_out_of_range_is_said_as_it_was_typed(capsys):
    # `--precision 2` (2 percentage points meant) said: ..., not 2.0
    code, _, err = run(capsys, "sim", BUMP, "-n", "10", "--precision", "2")
    assert code == 2
    assert err.endswith("(a half width of a rate: 0.02 is \u00b12 percentage points), not 2\n")


# ------------------------------------------------------------------------------ files of the wrong sort
def test_a_folder_given_as_a_rule_file_names_the_rule_files_in_it(capsys, tmp_path):
    for name in ("b.vbr", "a.vbr", "c.vbr", "d.vbr", "notes.txt"):
        (tmp_path / name).write_text('game "x"\n')
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1 and out == ""
    assert err == f"{tmp_path}: error: {tmp_path} is a directory, not a rule file: name a .vbr file in it (a.vbr, b.vbr, c.vbr, ...)\n"


def test_a_rule_file_given_to_replay_is_said_to_be_no_log(capsys):
    # it said: not a vbr log line: Expecting value (Python's words for a line that is no JSON)
    code, out, err = run(capsys, "replay", BUMP)
    assert code == 1
    assert err == (f"{BUMP}:1: error: not a vbr log line: not JSON (expecting value at column 1); "
                   "a log holds the JSON lines `vbr run --log FILE` writes\n")


def test_a_misspelt_command_suggests_the_command_meant(capsys):
    # argparse said: argument COMMAND: invalid choice: 'chek' (choose from 'check', 'run', ...)
    code, out, err = run(capsys, "chek", BUMP)
    assert code == 2 and out == ""
    usage, message = err.splitlines()
    assert usage.startswith("usage: vbr ")
    assert message.startswith("vbr: error: unknown command 'chek'; did you mean check? (commands: check, run, sim, ")


@pytest.mark.parametrize("given, meant", [("composition=printd", "printed"), ("round_refill=both_team", "both_teams")])
def test_a_misspelt_value_of_an_option_of_listed_values_suggests_the_value_meant(capsys, given, meant):
    # cattack.vbr: composition is printed or fifteen; round_refill both_teams or conceding_team
    code, _, err = run(capsys, "run", "cattack", "--option", given)
    assert code == 2 and err.startswith("vbr: error: option `") and err.endswith(f"; did you mean {meant}?\n")


def test_a_value_far_from_every_listed_one_suggests_none(capsys):
    code, _, err = run(capsys, "run", "cattack", "--option", "players=5")
    assert code == 2 and err == "vbr: error: option `players` is one of 2, 3, 4, not '5'\n"
