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
