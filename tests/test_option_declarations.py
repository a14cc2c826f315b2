"""An option's declaration is checked where it is written: its default among the values its
`in { ... }` allows, those values of the default's type, an enum member that exists; a
`require` reads options alone, and says which word of it is no option."""

from conftest import check_problems
from vbr.engines.game import checked_model


def problems(tmp_path, decl: str) -> list[tuple[int, int, str]]:
    return check_problems(tmp_path / "o.vbr", 'game "x"\nseats 2\nstart p\nenum Pace { slow, normal }\n' + decl + '\nphase p {\n  end draw\n}\n')


def test_a_default_outside_the_values_the_option_allows_is_an_error_at_the_default(tmp_path):
    [(line, col, msg)] = problems(tmp_path, "option target = 9 in { 5, 7 }")
    assert (line, col) == (5, 17)
    assert msg.startswith("the default of option `target`, 9, is not one of the values its `in { ... }` allows (5, 7)")


def test_an_enum_default_outside_its_values_is_an_error_too(tmp_path):
    [(line, col, msg)] = problems(tmp_path, "option pace = slow in { normal }")
    assert (line, col) == (5, 15) and "`pace`, slow, is not one of" in msg


def test_a_value_of_another_type_than_the_default_is_an_error_at_that_value(tmp_path):
    found = problems(tmp_path, "option n = 3 in { 3, true, slow }")
    assert [(line, col) for line, col, _ in found] == [(5, 22), (5, 28)]
    assert found[0][2] == "option `n` is a number (its default is 3), so `in { ... }` cannot hold true"
    assert found[1][2].endswith("cannot hold slow")


def test_a_default_that_is_no_enum_member_says_so_and_suggests_the_member(tmp_path):
    [(line, col, msg)] = problems(tmp_path, "option pace = slo in { slow, normal }")
    assert (line, col) == (5, 15)
    assert msg.startswith("`slo` is no enum member") and msg.endswith("did you mean `slow`?")


def test_a_default_among_its_values_is_fine(tmp_path):
    p = tmp_path / "ok.vbr"
    p.write_text('game "x"\nseats 2\nstart p\nenum Pace { slow, normal }\noption pace = slow in { slow, normal }\n'
                 'option n = 3 in { 1, 3 }\noption s = "a" in { "a", "b" }\nphase p {\n  end draw\n}\n')
    assert checked_model(p).options == {"pace": "slow", "n": 3, "s": "a"}


def test_a_require_over_a_var_names_the_require_and_the_var_and_not_its_own_message(tmp_path):
    # docs/language.md, `require`: COND may use options, literals, comparisons, and, or, not, in
    [(line, col, msg)] = problems(tmp_path, 'var n: int = 0\nrequire n > 0 as "n must be positive"')
    assert (line, col) == (6, 9)
    assert msg == ("`require` may use only options, literals, comparisons, `and`, `or`, `not` and `in` "
                   "(`n` is no option)")


def test_a_require_that_fails_in_a_file_without_options_says_its_message_alone(tmp_path):
    [(line, col, msg)] = problems(tmp_path, 'require 1 > 2 as "never"')
    assert (line, col, msg) == (5, 1, "never")


def test_a_failed_require_shows_the_options_in_force_as_the_language_writes_them(tmp_path):
    # `spin=True` was Python's spelling; the file and --option write `true`, strings in quotes
    [(_, _, message)] = check_problems(tmp_path / "r.vbr", 'game "x"\nseats 2\nstart p\noption spin = true\n'
                                       'option mode = "1v1"\noption n = 9\nrequire n < 7 as "n is below 7"\n'
                                       'phase p {\n  end draw\n}\n')
    assert message == 'n is below 7 (options: spin=true, mode="1v1", n=9)'


def test_options_no_seats_declaration_holds_for_are_named(tmp_path):
    [(line, _, message)] = check_problems(tmp_path / "s.vbr", 'game "x"\nstart p\noption players = 3 in { 2, 3 }\n'
                                          'seats 2 when players == 2\nseats 4 when players == 4\n'
                                          'phase p {\n  end draw\n}\n')
    assert (line, message) == (4, "no `seats ... when` holds for these options (players=3)")
