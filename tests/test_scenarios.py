"""Every scenario written in text under rules/tests/ is a pytest test too."""
import pytest

from conftest import scenario_files
from vbr.loader import parse_file
from vbr.scenario import run_file

RULES_FILE = scenario_files()[0].parent.parent / "siatka.vbr"  # what `tests for "siatka"` names


@pytest.fixture(params=["python", pytest.param("c", marks=pytest.mark.slow)])
def engine(request):
    """The typed engine a scenario runs through: each must give the verdicts and messages the
    test reasons out (c builds a library for each file's program: the slow tier)."""
    return request.param


def _collect():
    for path in scenario_files():
        tree, _ = parse_file(path)
        for sc in tree.scenarios:
            yield pytest.param(path, sc.title, id=f"{path.stem}: {sc.title[:60]}")


_RESULTS: dict = {}


@pytest.mark.parametrize("path,title", list(_collect()))
def test_scenario(path, title):
    """Run as `vbr test` runs a file (its scenarios with the same options on one program,
    through the Python engine); the file is run once and each scenario is a test of its own."""
    if path not in _RESULTS:
        _RESULTS[path] = {r.title: r for r in run_file(path, engine="python")}
    result = _RESULTS[path][title]
    assert result.ok, f"{result.span}: {result.message}"


# Siatka and Cattack: every scenario machinery (forced draws, givens, options, expectations) runs
# in C on two books, without a C build for each option set of every book (Volleyball High's and
# Tanto Cuore's sets took 190 s of the suite's CPU); test_scenario runs every book in Python.
C_BOOKS = [p for p in scenario_files() if p.stem in ("siatka", "cattack")]


@pytest.mark.parametrize("path", C_BOOKS, ids=lambda p: p.stem)
def test_every_scenario_of_a_book_passes_under_the_c_engine(path):
    """The books' worked examples hold in the C engine as in the Python engine (test_scenario)."""
    results = run_file(path, engine="c")
    assert results and {r.title: r.message for r in results if not r.ok} == {}


SIATKA_LAYOUT = """  given {
    for s in seats {
      for t in bench[s] {
        t.field = 1 + index_of(t, bench[s])
      }
      move bench[s] to team[s]
      move hand[s] to deck[s]
    }
    server = SERVER
    take_over(0)
    ball = field(0, 5)
  }
"""

# Scenarios of Siatka that fail, each in its own way: a wrong expectation, a failed conjunction,
# a face the die lacks, an illegal choice, a legal value said illegal, a winner, a given after
# the start, no winner while play goes on, a draw, a forced pick not on offer.
FAILING = ("tests for \"siatka\"\n"
           "scenario \"holder\" {\n" + SIATKA_LAYOUT.replace("SERVER", "0") +
           "  force green = 3\n  start serve\n  expect holder == 0\n}\n"
           "scenario \"two parts\" {\n  force pick = 1\n  force green = 3\n  start serve\n"
           "  expect side(ball) == 0 and number(ball) == 4\n}\n"
           "scenario \"no face\" {\n  force green = 9\n  start serve\n}\n"
           "scenario \"illegal choice\" {\n" + SIATKA_LAYOUT.replace("SERVER", "1") +
           "  force movement = straight\n  start bounce\n  choose left\n}\n"
           "scenario \"legal said illegal\" {\n" + SIATKA_LAYOUT.replace("SERVER", "1") +
           "  force movement = straight\n  start bounce\n  expect illegal forward\n}\n"
           "scenario \"winner\" {\n  force green = 3\n  start serve\n  expect winner 1\n}\n"
           "scenario \"given after start\" {\n  start serve\n  given {\n    server = 0\n  }\n}\n"
           "scenario \"no winner yet\" {\n  expect winner none\n  choose forward\n}\n"
           "scenario \"draw\" {\n  start serve\n  expect draw\n}\n"
           "scenario \"forced pick\" {\n  force pick = 7\n  start serve\n}\n")


# What each scenario of FAILING gives, worked out from siatka.vbr (its options off): a serve puts
# the ball on field `green` of the receiver's side and the receiver takes over (holder); a bounce
# with `movement` forced straight waits for the holder's choice of forward or backward; a game
# waiting at a choice is not over. (title, line, message):
EXPECTED_FAILURES = [
    ("holder", 17, "expectation failed (left side is 1, right side is 0)"),  # seat 0 served to seat 1
    ("two parts", 23, "expectation failed:\n    `side(ball) == 0` is true: left side 0, right side 0\n"
                      "    `number(ball) == 4` is false: left side 3, right side 4"),  # seat 1 (the pick) served to 0's field 3
    ("no face", 26, "FILE:26:17: error: die `green` has no face 9\n      force green = 9\n                    ^"),  # green
    # is 1..6: refused by the checker before play, shown as `vbr check` shows it
    ("illegal choice", 44, "left is not legal here (seat 0: which of the two bounces); legal: forward, backward"),
    ("legal said illegal", 61, "forward should not be legal; legal now: forward, backward "
                               "(seat 0: which of the two bounces)"),
    ("winner", 66, "expected seat 1 to win, but the game is not over"),
    ("given after start", 70, "`given` comes before play starts"),
    ("no winner yet", 75, "expected no seat to win, but the game is not over"),  # placement waits for a tile
    ("draw", 80, "expected a draw, but the game is not over"),
]


def test_failing_scenarios_fail_alike_in_the_python_and_c_engines(tmp_path):
    """Each fails at its line with the message the test expects, the same in both engines; a
    forced pick not on offer fails at the step that ran into it, its message the rule file's
    error at the pick, naming the value."""
    (tmp_path / "t.vbr").write_text(FAILING)
    python, c = run_file(tmp_path / "t.vbr", engine="python"), run_file(tmp_path / "t.vbr", engine="c")
    assert [(r.title, r.span.line, r.message) for r in python] == [
        (r.title, r.span.line, r.message) for r in c]
    assert not any(r.ok for r in python)
    got = [(r.title, r.span.line, r.message) for r in python[:-1]]
    assert got == [(t, line, m.replace("FILE", str(tmp_path / "t.vbr"))) for t, line, m in EXPECTED_FAILURES]
    assert python[-1].span.line == 84  # `start serve`, which runs siatka.vbr's setup
    said = python[-1].message.splitlines()[0]
    # the pick is siatka.vbr's setup's `server = pick seats`
    pick = 1 + [line.strip() for line in RULES_FILE.read_text().splitlines()].index("server = pick seats")
    assert said.startswith(f"`start serve` met a run-time error of the rules: {RULES_FILE}:{pick}:")
    assert "the forced pick 7 is not among the items on offer" in said


def test_a_failing_expectation_is_reported_at_its_line(tmp_path, engine):
    (tmp_path / "t.vbr").write_text(
        'tests for "siatka"\nscenario "wrong on purpose" {\n  given {\n    server = 0\n  }\n'
        '  start placement\n  expect server == 1\n}\n')
    (r,) = run_file(tmp_path / "t.vbr", engine=engine)
    assert not r.ok and r.span.line == 7
    assert r.message == "expectation failed (left side is 0, right side is 1)"


def test_a_run_time_error_of_the_rules_fails_at_the_step_that_ran_into_it(tmp_path, engine):
    """The scenario's own step is where the failure is reported (what the author wrote and can
    change), the rules' located error its message: with no ball on court, siatka.vbr's bounce
    phase reads `number(ball)` of none at its first statement that asks for the ball's field."""
    (tmp_path / "t.vbr").write_text(
        'tests for "siatka"\nscenario "no ball" {\n  given {\n    server = 0\n    holder = 0\n  }\n'
        '  force movement = straight\n  start bounce\n  expect holder == 1\n}\n')
    (r,) = run_file(tmp_path / "t.vbr", engine=engine)
    assert not r.ok and (r.span.file, r.span.line) == (str(tmp_path / "t.vbr"), 8)  # `start bounce`
    said = r.message.splitlines()
    assert said[0].startswith(f"`start bounce` met a run-time error of the rules: {RULES_FILE}:")
    assert said[0].endswith("error: `number` of none") and "number(ball)" in said[1]  # the rule's line shown


def test_forcing_a_face_the_die_lacks_is_an_error(tmp_path, engine):
    (tmp_path / "t.vbr").write_text('tests for "siatka"\nscenario "x" {\n  force green = 7\n  start serve\n}\n')
    (r,) = run_file(tmp_path / "t.vbr", engine=engine)
    assert not r.ok and "die `green` has no face 7" in r.message


def test_siatka_scenarios_cover_every_worked_example():
    tree, _ = parse_file(scenario_files()[0].parent / "siatka.vbr")
    titles = " ".join(s.title for s in tree.scenarios)
    for example in ["Example 1", "Example 2", "Example 3", "[Attack]", "[Example of card use]",
                    "Block example", "Rotation"]:
        assert example in titles, example


TINY = '''game "tiny"
seats 2
kind Card { value: int }
zone pile public ordered
zone gone public
var n: int = 0
var m: int = 0
start play
setup {
  create Card(value: 5) in pile
}
phase play {
  n += 1
  say "n is {n}"
  choose k from [1, 2] by 0 as "how many"
  m = k
  end winner 0
}
'''


def _tiny(tmp_path, body: str, engine: str = "python"):
    (tmp_path / "tiny.vbr").write_text(TINY)
    (tmp_path / "t.vbr").write_text('tests for "tiny.vbr"\n' + body)
    return run_file(tmp_path / "t.vbr", engine=engine)


def test_a_failed_conjunction_shows_both_sides_of_every_comparison(tmp_path, engine):
    (r,) = _tiny(tmp_path, 'scenario "x" {\n  choose 2\n  expect n == 1 and m < 2\n}\n', engine=engine)
    assert not r.ok and r.span.line == 4
    assert r.message == ("expectation failed:\n"
                         "    `n == 1` is true: left side 1, right side 1\n"
                         "    `m < 2` is false: left side 2, right side 2")


def test_an_expectation_that_cannot_be_evaluated_fails_its_scenario_only(tmp_path, engine):
    """`top(zone).field` on an empty zone: that scenario fails at its line; the file goes on."""
    results = _tiny(tmp_path, 'scenario "top of an empty zone" {\n  given {\n    move pile to gone\n  }\n'
                              '  expect top(pile).value == 5\n}\n'
                              'scenario "the next one still runs" {\n  expect n == 1\n}\n', engine=engine)
    assert [r.ok for r in results] == [False, True]
    assert results[0].span.line == 6, results[0].message
    assert "cannot evaluate" in results[0].message and "internal error" not in results[0].message


def test_a_field_of_nothing_in_an_expectation_is_a_located_failure(tmp_path, engine):
    results = _tiny(tmp_path, 'scenario "field of nothing" {\n'
                              '  expect first(c for c in pile if c.value == 9).value == 5\n}\n'
                              'scenario "the next one still runs" {\n  expect n == 1\n}\n', engine=engine)
    assert [r.ok for r in results] == [False, True]
    assert results[0].span.line == 3, results[0].message
    assert "cannot evaluate" in results[0].message


def test_trace_collects_the_events_between_steps(tmp_path, engine):
    from vbr.scenario import format_trace
    (tmp_path / "tiny.vbr").write_text(TINY)
    (tmp_path / "t.vbr").write_text('tests for "tiny.vbr"\nscenario "x" {\n  choose 2\n  expect m == 2\n}\n')
    (r,) = run_file(tmp_path / "t.vbr", trace=True, engine=engine)
    assert r.ok
    text = "\n".join(format_trace(r))
    assert "after line 3 (choose 2):" in text
    assert "n is 1" in text and "how many -> 2" in text and "game over: seat 0 wins" in text
    (quiet,) = run_file(tmp_path / "t.vbr", engine=engine)
    assert quiet.trace == []


def test_a_failed_expectation_shows_each_operand_of_and_or_not(tmp_path, engine):
    (r,) = _tiny(tmp_path, 'scenario "x" {\n  choose 1\n  expect not empty(pile) and empty(gone) and n > 1\n}\n',
                 engine=engine)
    assert not r.ok
    assert r.message == ("expectation failed:\n"
                         "    `empty(pile)` is false\n"
                         "    `empty(gone)` is true\n"
                         "    `n > 1` is false: left side 1, right side 1")


CHANCE_IN_SETUP = '''game "chance in setup"
seats 2
die d = 1..6
var opener: int = 0
var rolled: int = 0
var later: int = 0
start play
setup {
  opener = pick [0, 1]
  rolled = roll d
}
phase play {
  later = pick [10, 20, 30]
  end winner opener
}
'''


def _chance(tmp_path, body: str, engine: str = "python"):
    (tmp_path / "chance.vbr").write_text(CHANCE_IN_SETUP)
    (tmp_path / "t.vbr").write_text('tests for "chance.vbr"\n' + body)
    return run_file(tmp_path / "t.vbr", engine=engine)


@pytest.mark.parametrize("drawn", [0, 1])
def test_force_pick_above_the_first_step_decides_setups_pick(tmp_path, drawn, engine):
    (r,) = _chance(tmp_path, f'scenario "x" {{\n  force pick = {drawn}\n  expect opener == {drawn}\n}}\n',
                   engine=engine)
    assert r.ok, r.message


@pytest.mark.parametrize("face", [1, 6])
def test_force_above_the_first_step_decides_a_roll_in_setup(tmp_path, face, engine):
    (r,) = _chance(tmp_path, f'scenario "x" {{\n  force d = {face}\n  expect rolled == {face}\n}}\n', engine=engine)
    assert r.ok, r.message


def test_forced_picks_are_used_in_order_through_setup_and_play(tmp_path, engine):
    (r,) = _chance(tmp_path, 'scenario "x" {\n  force pick = 1, 30\n  start play\n'
                             '  expect later == 30\n  expect winner 1\n}\n', engine=engine)
    assert r.ok, r.message


def test_a_force_after_setup_reaches_only_play(tmp_path, engine):
    """`given` ran setup, so the pick forced below it is the one in `play`."""
    (r,) = _chance(tmp_path, 'scenario "x" {\n  given {\n    opener = 1\n  }\n  force pick = 20\n'
                             '  start play\n  expect later == 20 and opener == 1\n}\n', engine=engine)
    assert r.ok, r.message


def test_a_forced_pick_not_on_offer_fails_that_scenario_at_the_step_naming_the_pick(tmp_path, engine):
    results = _chance(tmp_path, 'scenario "x" {\n  force pick = 7\n  expect opener == 7\n}\n'
                                'scenario "the next one still runs" {\n  expect rolled >= 1\n}\n', engine=engine)
    assert [r.ok for r in results] == [False, True]
    assert "the forced pick 7 is not among the items on offer" in results[0].message
    assert results[0].span.line == 4  # `expect opener == 7`, the first step, which runs the setup
    assert f"{tmp_path / 'chance.vbr'}:9:" in results[0].message  # `first = pick [0, 1]` in chance.vbr


# A game seat 0 ends by its one choice: 0 wins for seat 0, 1 wins for seat 1, 2 is a draw.
ONE_CHOICE = '''game "one choice"
seats 2
start play
phase play {
  choose c from [0, 1, 2] by 0
  if c == 2 {
    end draw
  }
  end winner c
}
'''


def _one_choice(tmp_path, *bodies: str, engine: str = "python"):
    (tmp_path / "one.vbr").write_text(ONE_CHOICE)
    (tmp_path / "t.vbr").write_text('tests for "one.vbr"\n' + "".join(
        f'scenario "s{i}" {{\n{body}}}\n' for i, body in enumerate(bodies)))
    return run_file(tmp_path / "t.vbr", engine=engine)


def test_expect_draw_passes_after_a_draw_and_fails_otherwise(tmp_path, engine):
    drawn, won, going_on = _one_choice(tmp_path, "  choose 2\n  expect draw\n", "  choose 1\n  expect draw\n",
                                       "  expect draw\n", engine=engine)
    assert drawn.ok, drawn.message
    assert (won.ok, won.message) == (False, "expected a draw, but seat 1 won")
    assert (going_on.ok, going_on.message) == (False, "expected a draw, but the game is not over")


def test_a_failed_expect_winner_says_how_the_game_stands(tmp_path, engine):
    won, drawn, going_on = _one_choice(tmp_path, "  choose 0\n  expect winner 0\n", "  choose 2\n  expect winner 1\n",
                                       "  expect winner 1\n", engine=engine)
    assert won.ok, won.message
    assert (drawn.ok, drawn.message) == (False, "expected seat 1 to win, but the game was a draw")
    assert (going_on.ok, going_on.message) == (False, "expected seat 1 to win, but the game is not over")


def test_a_failed_expect_winner_none_says_who_won(tmp_path, engine):
    drawn, won = _one_choice(tmp_path, "  choose 2\n  expect winner none\n", "  choose 0\n  expect winner none\n",
                             engine=engine)
    assert drawn.ok, drawn.message  # a draw: no seat won
    assert (won.ok, won.message) == (False, "expected no seat to win, but seat 0 won")


def test_a_choice_after_the_end_says_no_choice_is_pending_and_how_the_game_ended(tmp_path, engine):
    (r,) = _one_choice(tmp_path, "  choose 0\n  choose 1\n", engine=engine)
    assert (r.ok, r.span.line, r.message) == (False, 4, "no choice is pending (the game is over: seat 0 wins)")


def test_expect_phase_fails_once_the_game_is_over(tmp_path, engine):
    # The game ended in phase `play`: play is then in no phase, so `expect phase play` fails and
    # says how the game ended; before the choice it passes.
    before, after = _one_choice(tmp_path, "  expect phase play\n", "  choose 0\n  expect phase play\n",
                                engine=engine)
    assert before.ok, before.message
    assert (after.ok, after.span.line, after.message) == (
        False, 7, "expected phase `play`, but the game is over: seat 0 won")


def test_expect_draw_prints_back_as_written():
    from vbr.grammar.parser import parse
    from vbr.grammar.printer import program
    text = 'tests for "one.vbr"\n\nscenario "s" {\n  choose 2\n  expect draw\n}\n'
    assert program(parse(text)) == text


BAD_STEPS = '''tests for "siatka"
scenario "bad steps" {
  force green = forward
  force nodie = 3
  start nophase
  expect holder + 1
  given {
    return
  }
  choose nosuchname
}
scenario "bad option" {
  option nosuch = 3
  expect holder == 0
}
'''


def test_checking_a_scenario_file_reports_every_problem_of_its_steps_located(tmp_path):
    """`vbr check` of a scenario file: each step's problem at its place, all of them at once."""
    from vbr.errors import VbrCheckError
    from vbr.scenario import check_file
    (tmp_path / "t.vbr").write_text(BAD_STEPS)
    with pytest.raises(VbrCheckError) as caught:
        check_file(tmp_path / "t.vbr")
    found = [(d.span.line, d.span.col, d.message) for d in caught.value.diagnostics]
    assert found == [
        (3, 17, "a forced face must be int, not dir"),  # green is 1..6
        (4, 3, "no die `nodie` (dice: movement, green)"),
        (5, 3, "no phase `nophase` (phases: placement, serve, bounce, attack)"),
        (6, 10, "an expectation must be bool, not int"),
        (8, 5, "`return` ends a procedure or a handler; a `given` block ends by running off its end"),
        (10, 10, "unknown name `nosuchname`"),
        (13, 3, "unknown option `nosuch` (siatka.vbr has options: abilities, block_marker, r_ability, rotation, target)"),
    ]


@pytest.mark.parametrize("face, shown", [("7", "7"), ("2 * 4", "8 (`2 * 4`)"), ("0", "0")])
def test_checking_a_scenario_file_refuses_a_forced_face_its_die_lacks(tmp_path, face, shown):
    """siatka.vbr's green die is 1..6: a face known before play outside them is refused by `vbr
    check`, at the face, before any scenario runs."""
    from vbr.errors import VbrCheckError
    from vbr.scenario import check_file
    (tmp_path / "t.vbr").write_text(f'tests for "siatka"\nscenario "x" {{\n  force green = 3, {face}\n  start serve\n}}\n')
    with pytest.raises(VbrCheckError) as caught:
        check_file(tmp_path / "t.vbr")
    assert [(d.span.line, d.span.col, d.message) for d in caught.value.diagnostics] == [
        (3, 20, f"die `green` has no face {shown}")]


def test_a_scenario_with_problems_fails_alone_at_its_first_problem(tmp_path):
    (tmp_path / "t.vbr").write_text(BAD_STEPS + 'scenario "fine" {\n  expect holder == 0\n}\n')
    bad, option, fine = run_file(tmp_path / "t.vbr")
    assert (bad.ok, bad.span.line) == (False, 3) and "no phase `nophase`" in bad.message
    assert (option.ok, option.span.line) == (False, 13) and "unknown option `nosuch`" in option.message
    assert fine.ok, fine.message


def test_each_option_a_scenario_sets_wrongly_is_reported_at_its_own_step(tmp_path):
    """Two refused options are two problems, each at the `option` step that sets it (they were
    one message, joined by `;`, at the first)."""
    from vbr.errors import VbrCheckError
    from vbr.scenario import check_file
    (tmp_path / "t.vbr").write_text('tests for "siatka"\nscenario "two bad options" {\n  option trget = 3\n'
                                    '  option abilities = 7\n  expect holder == 0\n}\n')
    with pytest.raises(VbrCheckError) as caught:
        check_file(tmp_path / "t.vbr")
    found = [(d.span.line, d.message) for d in caught.value.diagnostics]
    assert found == [(3, "unknown option `trget` (siatka.vbr has options: abilities, block_marker, r_ability, rotation, target); "
                         "did you mean `target`?"),
                     (4, "option `abilities` is true or false, not 7")]
    [result] = run_file(tmp_path / "t.vbr")
    assert not result.ok and result.span.line == 3 and "t.vbr:4:3: error: option `abilities`" in result.message


def test_expect_legal_once_the_game_is_over_says_so(tmp_path):
    # Bump to 1 point: seat 1 serves a 6 that seat 0's 1, 1 and 2 cannot answer, and wins
    import shutil
    from conftest import ROOT
    shutil.copy(ROOT / "docs" / "tutorial" / "bump.vbr", tmp_path / "bump.vbr")
    (tmp_path / "t.vbr").write_text('tests for "bump.vbr"\n'
                                    'scenario "over" {\n  option target = 1\n  given {\n    server = 1\n'
                                    '    move first(c for c in deck[0] if c.power == 1) to hand[0]\n'
                                    '    move first(c for c in deck[0] if c.power == 1) to hand[0]\n'
                                    '    move first(c for c in deck[0] if c.power == 2) to hand[0]\n  }\n'
                                    '  force serve_die = 6\n  choose none\n  expect legal 1\n}\n')
    [r] = run_file(tmp_path / "t.vbr")
    assert (r.ok, r.span.line) == (False, 12)
    assert r.message == "1 should be legal; legal now: nothing (the game is over: seat 1 wins (0, 1))"


def test_expect_winner_of_a_seat_the_game_has_not_or_of_no_seat_is_a_check_error(tmp_path):
    # Siatka has seats 0 and 1: `expect winner 5` could only ever fail, and so could `true`
    from vbr.errors import VbrCheckError
    from vbr.scenario import check_file
    (tmp_path / "t.vbr").write_text('tests for "siatka"\nscenario "a" {\n  expect winner 5\n}\n'
                                    'scenario "b" {\n  expect winner true\n}\nscenario "c" {\n  expect winner none\n'
                                    '  expect winner server\n}\n')
    with pytest.raises(VbrCheckError) as caught:
        check_file(tmp_path / "t.vbr")
    assert [(d.span.line, d.span.col, d.message) for d in caught.value.diagnostics] == [
        (3, 17, "there is no seat 5: the seats are 0..1"),
        (6, 17, "`expect winner` names a seat (or none), not bool")]
