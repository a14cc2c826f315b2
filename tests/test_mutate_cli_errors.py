"""`vbr mutate`'s command line: a number of worker processes the machine could not hold is a
usage error, found before any mutant is made."""
from __future__ import annotations

from pathlib import Path

from vbr.cli import main

BUMP = str(Path(__file__).parent.parent / "docs" / "tutorial" / "bump.vbr")
BUMP_TESTS = str(Path(__file__).parent.parent / "docs" / "tutorial" / "bump_test.vbr")


def test_mutate_workers_above_sim_s_bound_of_256_is_a_usage_error(capsys):
    code = main(["mutate", BUMP, "--tests", BUMP_TESTS, "--workers", "100000"])
    err = capsys.readouterr().err
    assert code == 2
    assert "argument --workers: 100000 is more than 256" in err


def test_mutate_with_more_workers_than_mutants_reports_as_one_worker_does(capsys):
    # line 32 of Bump (`server = pick seats`) has one mutant: its deletion, which no scenario
    # notices (each sets `server` itself); 256 workers judge it as one does
    reports = []
    for workers in ("1", "256"):
        assert main(["mutate", BUMP, "--tests", BUMP_TESTS, "--lines", "32", "--workers", workers, "--json"]) == 1
        reports.append(capsys.readouterr().out)
    assert reports[0] == reports[1] and '"survived": 1' in reports[0]
