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
