"""A `given` block that stops before its end (docs/language.md, section 7: statements run before
play starts, no choices): the failure says what stopped it, an `end` apart from a choice or a
`goto`, also when a procedure it calls does it."""
import pytest

from vbr.scenario import run_file

RULES = """game "G"
seats 2
start a
option target = 1
var score: int per seat = 0
proc point(s: seat) {
  score[s] += 1
  if score[s] >= target {
    end winner s
  }
}
proc ask() {
  choose x from 1..2 by 0 as "which"
}
phase a {
  choose y from 1..2 by 1 as "go"
  end draw
}
"""

TESTS = """tests for "g.vbr"

scenario "ends in a procedure" {
  given {
    point(1)
  }
  expect winner 1
}

scenario "ends" {
  given {
    end draw
  }
  expect draw
}

scenario "goes to a phase" {
  given {
    goto a
  }
  expect phase a
}

scenario "chooses in a procedure" {
  given {
    ask()
  }
  expect true
}
"""

END = ("a `given` block may not end the game (an `end`, here or in a procedure it calls): it sets up a position "
       "before play starts")
CHOICE_OR_GOTO = ("a `given` block may not make choices or start play (a `choose` or a `goto`, here or in a "
                  "procedure it calls): it sets up a position, and the scenario's `start PHASE` and `choose` steps "
                  "after it play")


@pytest.mark.parametrize("engine", ["python", pytest.param("c", marks=pytest.mark.slow)])
def test_a_given_block_that_ends_the_game_is_not_said_to_have_made_a_choice(tmp_path, engine):
    (tmp_path / "g.vbr").write_text(RULES, encoding="utf-8")
    (tmp_path / "g_test.vbr").write_text(TESTS, encoding="utf-8")
    results = run_file(tmp_path / "g_test.vbr", engine=engine)
    assert [(r.title, r.ok, r.span.line, r.message) for r in results] == [
        ("ends in a procedure", False, 4, END),
        ("ends", False, 11, END),
        ("goes to a phase", False, 18, CHOICE_OR_GOTO),
        ("chooses in a procedure", False, 25, CHOICE_OR_GOTO),
    ]


# `a` says a line and rolls before its choice: a `given` that goes to it stops at the `goto`
# under both engines, before `a` runs, so neither engine's trace holds `a`'s line or roll
PLAYS_ON = """game "G"
seats 2
start a
die d6 = 1..6
var n: int = 0
phase a {
  say "a begins"
  n = roll d6
  choose y from 1..2 by 1 as "go"
  end draw
}
"""

GOES = """tests for "g.vbr"

scenario "goes to a phase" {
  given {
    goto a
  }
  expect phase a
}
"""


@pytest.mark.slow
def test_a_given_block_that_goes_to_a_phase_stops_at_the_goto_in_both_engines(tmp_path):
    (tmp_path / "g.vbr").write_text(PLAYS_ON, encoding="utf-8")
    (tmp_path / "g_test.vbr").write_text(GOES, encoding="utf-8")
    runs = [run_file(tmp_path / "g_test.vbr", engine=e, trace=True) for e in ("python", "c")]
    assert [(r.ok, r.message, r.trace) for r in runs[0]] == [(r.ok, r.message, r.trace) for r in runs[1]]
    assert not any("a begins" in line for _, lines in runs[1][0].trace for line in lines)
