"""A file flag given an empty name (`--log "$LOG"` with LOG unset) is a usage error (exit 2), not
the flag left out: docs/cli.md, wrong usage of the command line exits 2."""
import pytest

from vbr.cli import main


def test_run_with_an_empty_log_name_is_a_usage_error_and_plays_no_game(capsys):
    assert main(["run", "siatka", "--log", ""]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no game was printed
    assert err.endswith("vbr run: error: argument --log: an empty file name\n")


@pytest.mark.parametrize("flag", ["--tests", "--update"])
def test_trace_with_an_empty_file_name_is_a_usage_error(capsys, flag):
    assert main(["trace", "siatka", flag, ""]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.endswith(f"vbr trace: error: argument {flag}: an empty file name\n")


def test_play_with_an_empty_log_name_is_a_usage_error(capsys):
    assert main(["play", "siatka", "--log", ""]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("vbr play: error: argument --log: an empty file name\n")


@pytest.mark.parametrize("args", [
    ["sim", "docs/tutorial/bump.vbr", "-n", "2", "--out"],
    ["sim", "docs/tutorial/bump.vbr", "-n", "2", "--plot"],
    ["sweep", "docs/tutorial/bump.vbr", "--grid", "target=3", "-n", "2", "--out"],
    ["sweep", "docs/tutorial/bump.vbr", "--grid", "target=3", "-n", "2", "--rows"],
    ["compare", "docs/tutorial/bump.vbr", "--variant-option", "target=4", "-n", "2", "--rows"],
    ["compare", "docs/tutorial/bump.vbr", "--variant-option", "target=4", "--base-rows"],
    ["importance", "docs/tutorial/bump.vbr", "-n", "2", "--out"],
    ["mutate", "docs/tutorial/bump.vbr", "-n", "1", "--tests"],
])
def test_a_run_with_an_empty_output_or_input_file_name_is_a_usage_error_before_any_game(capsys, args):
    # each of these played its games and wrote nothing (or read nothing) without a word
    assert main([*args, ""]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.endswith(f"vbr {args[0]}: error: argument {args[-1]}: an empty file name\n")
