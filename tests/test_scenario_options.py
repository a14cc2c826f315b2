"""A scenario's `option` steps: each scenario plays under its own options' values, and a value of
the wrong type is refused at its step, whatever options the file's other scenarios set
(docs/language.md, section 7: `option NAME = VALUE`; docs/cli.md, `vbr check` and `vbr test`)."""
from vbr.cli import main

RULES = """game "Target"
seats 2
start a
option target = 3
option fast = false
var n: int = 0
phase a {
  n = target
  choose x from 1..2 by 0 as "go on?"
  end draw
}
"""

# The first scenario sets a number the option takes; the second sets `true`, which Python counts
# equal to 1, to the same number option: only the second is wrong.
TESTS = """tests for "target.vbr"

scenario "target one" {
  option target = 1
  expect n == 1  # play has started: `n = target` ran
  choose 1
  expect draw
}

scenario "target true" {
  option target = true
  expect true
}

scenario "fast off" {
  option fast = false
  expect not fast
}

scenario "fast zero" {
  option fast = 0
  expect true
}
"""


def _files(tmp_path):
    (tmp_path / "target.vbr").write_text(RULES, encoding="utf-8")
    tests = tmp_path / "target_test.vbr"
    tests.write_text(TESTS, encoding="utf-8")
    return tests


def test_check_refuses_true_for_a_number_option_though_another_scenario_sets_it_to_1(tmp_path, capsys):
    tests = _files(tmp_path)
    assert main(["check", str(tests)]) == 1
    err = capsys.readouterr().err
    assert f"{tests}:11:3: error: option `target` is a whole number, not true" in err
    assert f"{tests}:21:3: error: option `fast` is true or false, not 0" in err
    assert ":4:3:" not in err and ":16:3:" not in err  # the good scenarios' steps


def test_test_fails_only_the_scenarios_setting_a_value_of_the_wrong_type(tmp_path, capsys):
    tests = _files(tmp_path)
    assert main(["test", str(tests)]) == 1
    out = capsys.readouterr().out
    assert f"PASS {tests}: target one" in out
    assert f"FAIL {tests}:11:3: target true" in out
    assert "option `target` is a whole number, not true" in out
    assert f"PASS {tests}: fast off" in out
    assert f"FAIL {tests}:21:3: fast zero" in out
    assert out.rstrip().endswith("2 passed, 2 failed")


def test_the_language_server_refuses_true_for_a_number_option_after_a_scenario_setting_1(tmp_path):
    from vbr.lsp.analysis import PieceCache, analyse
    tests = _files(tmp_path)
    a = analyse(TESTS, str(tests), PieceCache())
    assert [(d.span.line, d.span.col, d.message) for d in a.diagnostics] == [
        (11, 3, "option `target` is a whole number, not true: write one in the digits 0-9, such as 3 (its default)"),
        (21, 3, "option `fast` is true or false, not 0"),
    ]


TWICE = """tests for "target.vbr"

scenario "seed twice" {
  seed 1
  expect true
  seed 2
}

scenario "target twice" {
  option target = 1
  option target = 2
  expect n == 2
}

scenario "two options, once each" {
  option target = 1
  option fast = true
  seed 4
  expect fast
}
"""


def test_a_seed_or_an_option_set_twice_in_one_scenario_is_an_error_at_the_second(tmp_path, capsys):
    # each applies to the whole scenario (docs/language.md, section 7): of two, one would be
    # dropped without a word (the first seed was played, the last option)
    (tmp_path / "target.vbr").write_text(RULES, encoding="utf-8")
    tests = tmp_path / "twice_test.vbr"
    tests.write_text(TWICE, encoding="utf-8")
    assert main(["check", str(tests)]) == 1
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if ": error: " in line] == [
        f"{tests}:6:3: error: the seed is set twice in this scenario (first on line 4); it applies to the whole "
        "scenario: set it once",
        f"{tests}:11:3: error: option `target` is set twice in this scenario (first on line 10); it applies to the "
        "whole scenario: set it once",
    ]
    assert main(["test", str(tests)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {tests}:6:3: seed twice" in out and f"FAIL {tests}:11:3: target twice" in out
    assert f"PASS {tests}: two options, once each" in out


def _checked(tmp_path, capsys, steps: str, rules: str = RULES, expect: str = "true") -> tuple[int, str]:
    """`vbr check`'s exit code and stderr of a scenario of `steps`, then `expect EXPECT`, for `rules`."""
    (tmp_path / "rules.vbr").write_text(rules, encoding="utf-8")
    tests = tmp_path / "t.vbr"
    tests.write_text(f'tests for "rules.vbr"\n\nscenario "s" {{\n{steps}\n  expect {expect}\n}}\n', encoding="utf-8")
    code = main(["check", str(tests)])
    return code, capsys.readouterr().err


def test_a_string_of_digits_is_no_number_in_a_scenario(tmp_path, capsys):
    # `"5"` is a string in the language; it was read as the command line reads text, and set 5
    code, err = _checked(tmp_path, capsys, '  option target = "5"')
    assert code == 1 and ':4:3: error: option `target` is a whole number, not "5": write 5' in err


def test_yes_is_no_true_in_a_scenario(tmp_path, capsys):
    # on the command line `--option fast=yes` is true; in the language `yes` is a name, not `true`
    code, err = _checked(tmp_path, capsys, "  option fast = yes")
    assert code == 1 and ":4:3: error: option `fast` is true or false, not yes\n" in err


def test_a_scenario_s_number_and_true_set_their_options(tmp_path, capsys):
    assert _checked(tmp_path, capsys, "  option target = 5\n  option fast = true") == (0, "")


def test_a_string_and_a_name_of_one_spelling_are_each_refused_as_written(tmp_path, capsys):
    (tmp_path / "target.vbr").write_text(RULES, encoding="utf-8")
    tests = tmp_path / "t.vbr"
    tests.write_text('tests for "target.vbr"\n\nscenario "a" {\n  option fast = "yes"\n  expect true\n}\n\n'
                     'scenario "b" {\n  option fast = yes\n  expect true\n}\n', encoding="utf-8")
    assert main(["check", str(tests)]) == 1
    err = capsys.readouterr().err
    assert ':4:3: error: option `fast` is true or false, not "yes"\n' in err
    assert ":9:3: error: option `fast` is true or false, not yes\n" in err


def test_a_scenario_s_misspelt_enum_member_is_refused_with_the_member_meant(tmp_path, capsys):
    # volleyball-high.vbr: `option school0 = hawk`, a member of its enum of schools (no `in { ... }`)
    tests = tmp_path / "t.vbr"
    tests.write_text('tests for "volleyball-high"\n\nscenario "s" {\n  option school0 = miracel\n  expect true\n}\n',
                     encoding="utf-8")
    assert main(["check", str(tests)]) == 1
    assert (":4:3: error: option `school0` is one of hawk, panther, spartan, volcano, miracle, not miracel; "
            "did you mean miracle?\n" in capsys.readouterr().err)


# An enum option and a string option: in the language a member is a name (`slow`) and a string is
# quoted (`"plain"`), and neither is the other (docs/language.md, `option`: a scenario's value is
# read as the language writes it). A quoted member was taken for the member, and a name for text.
KINDS = """game "Kinds"
seats 2
start a
enum Pace { slow, normal }
option pace = normal
option label = "plain"
phase a {
  end winner 0
}
"""


def _kinds_checked(tmp_path, capsys, steps: str) -> tuple[int, str]:
    return _checked(tmp_path, capsys, steps, KINDS, "winner 0")


def test_a_quoted_member_for_an_enum_option_is_refused_at_its_step(tmp_path, capsys):
    code, err = _kinds_checked(tmp_path, capsys, '  option pace = "slow"')
    assert code == 1 and (':4:3: error: option `pace` is a Pace, one of slow, normal, written without quotes: '
                          'write slow, not the string "slow"\n') in err


def test_a_quoted_misspelt_member_is_refused_with_the_member_meant(tmp_path, capsys):
    code, err = _kinds_checked(tmp_path, capsys, '  option pace = "slwo"')
    assert code == 1 and ':4:3: error: option `pace` is a Pace, one of slow, normal, written without quotes: ' \
                         'not the string "slwo"; did you mean slow?\n' in err


def test_a_name_for_a_string_option_is_refused_at_its_step(tmp_path, capsys):
    code, err = _kinds_checked(tmp_path, capsys, "  option label = fancy")
    assert code == 1 and ':4:3: error: option `label` is a string, written in quotes: write "fancy", not the name ' \
                         'fancy\n' in err


def test_a_member_unquoted_and_a_string_quoted_set_their_options(tmp_path, capsys):
    assert _kinds_checked(tmp_path, capsys, '  option pace = slow\n  option label = "fancy"') == (0, "")


def test_vbr_test_fails_the_scenario_with_the_quoted_member_at_its_step(tmp_path, capsys):
    (tmp_path / "kinds.vbr").write_text(KINDS, encoding="utf-8")
    tests = tmp_path / "t.vbr"
    tests.write_text('tests for "kinds.vbr"\n\nscenario "quoted" {\n  option pace = "slow"\n  expect winner 0\n}\n\n'
                     'scenario "named" {\n  option pace = slow\n  expect winner 0\n}\n', encoding="utf-8")
    assert main(["test", "--engine", "python", str(tests)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {tests}:4:3: quoted" in out and f"PASS {tests}: named" in out
