"""The mistakes of an author new to vbr writing a variant of a bundled book: each is reported at the
mistake itself, saying what to write instead (docs/language.md, "Names", "Layout", section 7)."""
import pytest

from conftest import check_problems

from vbr.errors import VbrCheckError, VbrSyntaxError
from vbr.grammar.parser import parse

GAME = 'game "g"\nseats 2\nstart p\nzone deck per seat hidden\nzone hand per seat owner\nvar n: int = 0\n'


def _syntax(text: str) -> tuple[int, int, str]:
    with pytest.raises(VbrSyntaxError) as info:
        parse(text, "t.vbr")
    d = info.value.diagnostics[-1]
    return d.span.line, d.span.col, d.message


def _phase(body: str) -> str:
    return GAME + "phase p {\n" + body + "\n  goto p\n}\n"


@pytest.mark.parametrize("line, word, keyword", [
    ("  chose c from hand[0] by 0", "chose", "choose"),  # was: unexpected 'by', further on
    ("  mvoe top(deck[0]) to hand[0]", "mvoe", "move"),  # was: unexpected 'top'
    ("  whlie n < 3 max 3 {\n    n += 1\n  }", "whlie", "while"),  # was: unexpected '<'
    ("  If n != 1 {\n    n = 1\n  }", "If", "if"),  # was: unexpected '!='
    ("  esle {\n    n = 1\n  }", "esle", "else"),  # was: unexpected '{'
])
def test_a_misspelt_statement_word_is_shown_at_the_word_with_the_keyword_meant(line, word, keyword):
    # `chose c from hand[0]` parses as the expressions `chose`, `c`, `from`, `hand[0]` standing
    # alone, so the parser stops only further on; the mistake is the first word of the line
    assert _syntax(_phase(line)) == (8, 3, f"`{word}` starts no statement; did you mean `{keyword}`?")


def test_a_misspelt_statement_word_that_still_parses_is_one_error_at_the_word(tmp_path):
    # `shufle deck[0]` is `shufle` and `deck[0]`, each an expression doing nothing: that was two
    # errors, neither naming `shuffle`
    assert check_problems(tmp_path / "g.vbr", _phase("  shufle deck[0]")) == [
        (8, 3, "`shufle` starts no statement; did you mean `shuffle`?")]


def test_a_name_the_file_declares_is_not_taken_for_a_misspelt_keyword(tmp_path):
    text = _phase("  mov deck[0]").replace("var n: int = 0", "var n: int = 0\nvar mov: int = 0")
    assert [m for _, _, m in check_problems(tmp_path / "g.vbr", text)] == [
        "this expression does nothing on its own; did you mean an assignment (`x = ...`)?"] * 2


@pytest.mark.parametrize("text, expected", [
    (GAME + 'phsae q {\n  goto q\n}\n', (7, 1, "unknown word `phsae`; did you mean `phase`?")),
    (GAME + 'variable m: int = 0\n', (7, 1, "unknown word `variable`; did you mean `var`?")),
    (GAME + 'phase p {\n  end winer 0\n}\n', (8, 7, "unknown word `winer`; did you mean `winner`?")),
])
def test_a_misspelt_keyword_where_the_parser_stops_names_the_keyword_meant(text, expected):
    line, col, message = _syntax(text)
    assert (line, col) == expected[:2] and message.startswith(expected[2] + " (expected "), message


@pytest.mark.parametrize("written, fix", [
    ('say \u201cserve\u201d', 'a string is written between straight double quotes: "..."'),
    ("say 'serve'", 'a string is written between double quotes: "..."'),
    ("if n > 1 && n < 3 { n = 0 }", "write `and`"),
    ("if !(n > 1) { n = 0 }", "write `not` (`!=` is written without a space)"),
    ("n = 1;", "statements end without `;`: remove it"),
    ("n\u00a0= 1", "a no-break space: write a plain space"),
    ("let si\u0142a = 1", "a name is written in the letters A to Z, digits and `_`"),
    ("for i in 1\u20263 { n = i }", "write `..` for a range"),
    ("n = 2 \u2212 1", "write `-`"),
    ("n = max(1; 2)", "separate the items with `,`"),
    ('say "serve\u201d', 'this string is not closed on its line: it ends with `\u201d`, which is not a `"`'),
    ('say "serve', 'this string is not closed on its line; a string cannot hold a line break or a `"`'),
])
def test_a_character_from_another_language_says_what_to_write_instead(written, fix):
    _, _, message = _syntax(_phase("  " + written))
    assert message.endswith("; " + fix), message


def test_a_semicolon_between_a_kind_s_fields_says_to_write_a_comma():
    assert _syntax(GAME + "kind Shot { power: int; speed: int }\n") == (
        7, 23, "unexpected character ';'; separate the items with `,`")


def test_else_if_says_to_write_elif():
    line, col, message = _syntax(_phase("  if n == 1 {\n    n = 2\n  } else if n == 2 {\n    n = 3\n  }"))
    assert (line, col) == (10, 10) and message.startswith("`else if` is written `elif`"), message


def test_a_stray_word_after_the_last_declaration_says_the_end_of_the_file_could_come_in_words():
    # where the file may end, the parser's name for its end, `$END`, headed the list of what was
    # expected: "expected $END, 'const', 'court', ..."
    line, col, message = _syntax(_phase("") + "foo\n")
    assert (line, col) == (11, 1)
    assert message.startswith("unexpected 'foo'; expected the end of the file, 'const', 'court', "), message
    assert "$" not in message, message


@pytest.mark.parametrize("declaration, col", [("die d =", 7), ("option target =", 15), ("var m: int =  # later", 12)])
def test_a_value_left_out_at_the_end_of_a_line_is_shown_at_its_equals_sign(declaration, col):
    # the next declaration's word was read as the value, and the error fell on the word after it
    text = GAME + declaration + "\n\nvar score: int per seat = 0\nphase p {\n  goto p\n}\n"
    assert _syntax(text) == (7, col, "nothing follows this `=`: write the value (`var` on line 9 starts the next "
                                     "declaration)")


@pytest.mark.parametrize("word, meant", [("null", "none"), ("nil", "none")])
def test_another_language_s_word_for_none_is_met_with_none(tmp_path, word, meant):
    assert check_problems(tmp_path / "g.vbr", _phase(f"  if top(deck[0]) == {word} {{\n    n = 1\n  }}")) == [
        (8, 22, f"unknown name `{word}`; did you mean `{meant}`?")]


def test_a_phase_called_like_a_function_says_to_goto_it(tmp_path):
    # it said: unknown function `p`; did you mean `...`? (a built-in function close in spelling)
    text = GAME + "phase p {\n  answer()\n}\nphase answer {\n  goto p\n}\n"
    assert check_problems(tmp_path / "g.vbr", text) == [
        (8, 3, "`answer` is a phase, not a function: play goes to it with `goto answer`")]


def test_a_goto_of_a_procedure_says_to_call_it(tmp_path):
    text = GAME + "proc point(s: seat) {\n  n += 1\n}\nphase p {\n  goto point\n}\n"
    assert check_problems(tmp_path / "g.vbr", text) == [
        (11, 3, "no phase `point`: `point` is a procedure, and a procedure is called, not gone to: write "
                "`point(...)`")]


def _variant_problems(tmp_path, line: str) -> list[tuple[int, int, str]]:
    from vbr.engines.game import checked_model
    (tmp_path / "v.vbr").write_text(f'game "v"\nextends "siatka"\n{line}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(tmp_path / "v.vbr")
    return [(d.span.line, d.span.col, d.message) for d in info.value.diagnostics]


def test_an_override_of_a_misspelt_name_suggests_the_base_s_name(tmp_path):
    assert _variant_problems(tmp_path, 'override phase atack "Attack" {\n  goto bounce\n}') == [
        (3, 10, "`override atack` overrides nothing: the base file has no `atack`; did you mean `attack`?")]


def test_an_override_of_an_option_the_base_lacks_lists_the_base_s_options(tmp_path):
    # siatka.vbr declares the options target, abilities, block_marker, rotation and r_ability, in that order
    assert _variant_problems(tmp_path, "override option goal = 5") == [
        (3, 10, "`override goal` overrides nothing: the base file has no `goal`; its options: target, abilities, "
                "block_marker, rotation, r_ability; without `override` it is a declaration of this file's own")]


@pytest.mark.parametrize("default, was, now", [('"7"', "a number", "a string"), ("yes", "a number", "a member of an enum")])
def test_an_override_of_an_option_with_another_type_is_refused_at_its_value(tmp_path, default, was, now):
    # siatka.vbr:16 declares `option target = 9` and compares `score[s] >= target`: a string
    # default failed there, in the base file (`>=` works on numbers, not str), not at the change
    [(line, col, message)] = _variant_problems(tmp_path, f"override option target = {default}")
    assert (line, col) == (3, 26)
    assert message.startswith(f"an `override option` keeps the option's type: the base's `target` is {was} (declared at ")
    assert message.endswith(f"siatka.vbr:16:1), and its rules use it so; give {was} here, not {now}")


def test_an_override_of_an_option_with_its_own_type_is_taken(tmp_path):
    from vbr.engines.game import checked_model
    (tmp_path / "v.vbr").write_text('game "v"\nextends "siatka"\noverride option abilities = true\n')
    assert checked_model(tmp_path / "v.vbr").options["abilities"] is True


def test_a_value_left_out_before_an_override_is_shown_at_its_equals_sign(tmp_path):
    # `override` is also a name: it was read as the option's value, and the enum after it as a
    # second `Face` ("already defined"), with `free` then unknown wherever the variant used it
    text = ("override option target =\noverride enum Face { diagonal, straight, sideways, free }\n"
            "override die movement = [diagonal, free, straight, straight, sideways, sideways]")
    assert _syntax(f'game "v"\nextends "siatka"\n{text}\n') == (
        3, 24, "nothing follows this `=`: write the value (`override` on line 4 starts the next declaration)")


@pytest.mark.parametrize("declaration, col", [("die d =", 7), ("const k =", 9), ("var m: int =", 12)])
def test_any_value_left_out_before_an_override_is_shown_at_its_equals_sign(declaration, col):
    assert _syntax(f'game "v"\nextends "siatka"\n{declaration}\noverride option target = 5\n') == (
        3, col, "nothing follows this `=`: write the value (`override` on line 4 starts the next declaration)")


def test_an_enum_member_alone_on_the_line_after_an_equals_sign_is_the_value():
    parsed = parse('game "g"\nenum M { on, off }\noption mode =\n  on\n', "t.vbr")
    assert parsed.decls[-1].default.id == "on"


@pytest.mark.parametrize("number, fix", [
    ("1e1", ": write 10"), ("2E3", ": write 2000"), ("1e+2", ": write 100"),
    ("1e-3", ", and are whole: count in smaller units, or use `/`, which rounds down"),
    ("5e30", ", and are at most 9223372036854775807"),
])
def test_a_number_with_an_exponent_says_how_to_write_it(number, fix):
    # it said: a number and the word after it are written with a space between them (`1 e1`)
    assert _syntax(GAME + f"option target = {number}\n") == (
        7, 17, f"unexpected '{number}': numbers are written in the digits alone, without an exponent{fix}")


@pytest.mark.parametrize("body, col", [("  n = 1..6.5", 12), ("  n = n + 0.5", 13), ("  n = 3.5", 9)])
def test_a_number_with_a_fraction_says_numbers_are_whole(body, col):
    # `1..6.5` and `n + 0.5` said only: unexpected '5'; expected a name (`6.` read as a field's dot)
    line, at, message = _syntax(_phase(body))
    assert (line, at) == (8, col)
    assert message.startswith("numbers are whole: there are no fractions (`3.5`); count in smaller units"), message


def test_a_misspelt_pick_is_named_at_the_word(tmp_path):
    # it said: unexpected 'seats'; expected '(', '[', 'break', ... (31 in all)
    assert _syntax(_phase("  n = pik seats")) == (8, 7, "unknown word `pik`; did you mean `pick`?")


@pytest.mark.parametrize("line", ["  n = rol d", "  let v = rol d\n  n = v"])
def test_a_misspelt_roll_before_a_die_s_name_is_one_error_suggesting_roll(tmp_path, line):
    # `n = rol d` parses as `n = rol`, then `d` standing alone: it was also "this expression does
    # nothing on its own" at the `d`, which is no mistake of the author's
    text = _phase(line).replace("var n: int = 0", "var n: int = 0\ndie d = 1..6")
    col = line.index("rol") + 1
    assert check_problems(tmp_path / "g.vbr", text) == [(9, col, "unknown name `rol`; did you mean `roll`?")]


def test_a_misspelt_roll_starting_a_line_is_one_error_suggesting_roll(tmp_path):
    # `rol d` is the names `rol` and `d`, each standing alone: that was two errors of "does nothing",
    # neither naming `roll`; a roll alone does nothing either, so the error says to keep its value
    text = _phase("  rol d").replace("var n: int = 0", "var n: int = 0\ndie d = 1..6")
    assert check_problems(tmp_path / "g.vbr", text) == [
        (9, 3, "unknown name `rol`; did you mean `roll`? (`roll ...` gives a value: keep it, `x = roll ...`)")]


def test_a_name_standing_alone_on_the_next_line_after_a_misspelt_roll_is_still_reported(tmp_path):
    text = _phase("  n = rol d\n  n").replace("var n: int = 0", "var n: int = 0\ndie d = 1..6")
    assert check_problems(tmp_path / "g.vbr", text) == [
        (9, 7, "unknown name `rol`; did you mean `roll`?"),
        (10, 3, "this expression does nothing on its own; did you mean an assignment (`x = ...`)?")]


def _scenario_problems(tmp_path, text: str) -> list[tuple[int, int, str]]:
    """The problems `vbr check` finds in the scenario file `text`: (line, column, message) each."""
    from vbr.scenario import check_file
    (tmp_path / "t.vbr").write_text(text)
    with pytest.raises(VbrCheckError) as info:
        check_file(tmp_path / "t.vbr")
    return [(d.span.line, d.span.col, d.message) for d in info.value.diagnostics]


def test_a_choose_in_a_given_block_is_refused_by_check_at_the_choose(tmp_path):
    # section 7: `given` runs statements before play, "no choices"; it failed only when run, and
    # then as "`choose c` has nothing to choose from" when the zone was empty
    problems = _scenario_problems(tmp_path, 'tests for "siatka"\nscenario "x" {\n  given {\n'
                                            '    choose c from hand[0] by 0\n  }\n}\n')
    assert [(line, col, message.split(":")[0]) for line, col, message in problems] == [
        (4, 5, "a `given` block makes no choices")]


def test_a_scenario_file_s_problems_come_in_the_order_of_the_file(tmp_path):
    # scenarios are checked in groups of the same options: the problem of "b", which sets one,
    # came after that of "c", which sets none, as "a" does
    problems = _scenario_problems(tmp_path, 'tests for "siatka"\nscenario "a" {\n  expect nope == 1\n}\n'
                                            'scenario "b" {\n  option target = 5\n  expect phase nowhere\n}\n'
                                            'scenario "c" {\n  expect phase nowhere\n}\n')
    assert [line for line, _, _ in problems] == [3, 7, 10]


@pytest.mark.parametrize("faces, col, read", [("1..n", 12, "it reads `n`"), ("1..count(hand[0])", 18, "it reads `hand`"),
                                               # a var read where its none does no harm before play: the
                                               # checker passed it and the typed program refused it as "not
                                               # supported yet: die `d`'s faces are not fixed before play"
                                               ("[n, 2]", 10, "it reads `n`")])
def test_a_die_whose_faces_read_the_state_says_so_at_what_it_reads(tmp_path, faces, col, read):
    # it said, at the die: "faces cannot be computed before play: unsupported operand type(s) for
    # -: 'NoneType' and 'int'" (or "list index out of range"), Python's words
    text = GAME + f"die d = {faces}\nphase p {{\n  goto p\n}}\n"
    assert check_problems(tmp_path / "g.vbr", text) == [
        (7, col, "die `d`'s faces are fixed before play: they may use literals, options, enum members, consts and fns "
                 f"of them, not vars, zones or cards ({read})")]


def test_a_range_ending_in_none_before_play_says_so_in_play_s_words(tmp_path):
    text = GAME + "die d = 1..none\nphase p {\n  goto p\n}\n"
    assert check_problems(tmp_path / "g.vbr", text) == [
        (7, 1, "die `d`'s faces cannot be computed before play: this end of a range is none, not a number")]


def test_a_die_with_an_unknown_name_in_its_faces_is_one_error_at_the_name(tmp_path):
    text = GAME + "die d = 1..six\nphase p {\n  goto p\n}\n"
    assert check_problems(tmp_path / "g.vbr", text) == [(7, 12, "unknown name `six`")]


def test_a_const_that_cannot_be_worked_out_is_reported_once_not_at_each_const_reading_it(tmp_path):
    text = GAME + "const K = 9223372036854775807 * 2\nconst J = -K\nphase p {\n  goto p\n}\n"
    assert [(line, msg.split(":")[0]) for line, _, msg in check_problems(tmp_path / "g.vbr", text)] == [
        (7, "const `K` cannot be computed before play")]


def _warnings(path, text: str) -> list[tuple[int, int, str]]:
    from vbr.engines.game import checked_model
    path.write_text(text)
    return [(d.span.line, d.span.col, d.message) for d in checked_model(path).diags.warnings]


def test_a_seat_var_starting_at_no_seat_is_a_warning_at_its_initial_value(tmp_path):
    # docs/language.md, assignment: a seat known before play that is none of the seats is refused
    # in an assignment and a warning elsewhere; the initial value passed in silence
    text = 'game "g"\nseats 2\nstart p\nvar server: seat = 5\nphase p {\n  end winner server\n}\n'
    assert _warnings(tmp_path / "g.vbr", text) == [
        (4, 20, "the initial value of `server` is 5, which is no seat (the seats are 0..1 with the options chosen)")]


@pytest.mark.parametrize("written, hint", [
    ("number", "; did you mean `int`?"),
    ("string", "; there is no string type: strings are for options, titles and `say`"),
    ("widget", " (types: bool, cell, dir, int, seat, zone, `list of T`, Shot)"),
])
def test_an_unknown_type_says_which_type_is_meant_or_lists_the_types(tmp_path, written, hint):
    text = GAME + f"kind Shot {{ power: {written} }}\nphase p {{\n  goto p\n}}\n"
    assert check_problems(tmp_path / "g.vbr", text) == [(7, 20, f"unknown type `{written}`{hint}")]


def test_an_emit_of_a_procedure_says_to_call_it(tmp_path):
    text = GAME + "proc point(s: seat) {\n  n += 1\n}\nphase p {\n  emit point(0)\n  goto p\n}\n"
    assert check_problems(tmp_path / "g.vbr", text) == [
        (11, 3, "`point` is a procedure, not an event: call it with `point(...)`")]


@pytest.mark.parametrize("text, at, word, spaced", [
    ('game "g"\nvarx: int = 0\n', (2, 1), "varx", "`var x`"),  # it declared a var `x`
    ('game "g"\nphase_two {\n  goto x\n}\n', (2, 1), "phase_two", "`phase _two`"),  # a phase `_two`
    ('game "g"\nseats2\n', (2, 1), "seats2", "`seats 2`"),  # two seats
])
def test_a_keyword_glued_to_the_word_after_it_is_refused_at_the_whole_word(text, at, word, spaced):
    # where no name may stand, the lexer read a keyword out of the start of a longer word
    line, col, message = _syntax(text)
    assert (line, col) == at and message.startswith(f"unexpected '{word}': it would read as the keyword "), message
    assert message.endswith(f"written with a space between them ({spaced})"), message


def test_a_number_glued_to_the_word_after_it_is_refused_at_the_whole_word():
    # `3max` read as `3 max`
    assert _syntax(_phase("  while n < 3max 3 {\n    n += 1\n  }")) == (
        8, 13, "unexpected '3max': a number and the word after it are written with a space between them")


def test_choosing_the_string_pass_in_a_scenario_says_to_write_none(tmp_path):
    # section 7: `none` picks `pass`; "pass" failed in play as `pass is not legal here ...;
    # legal: ..., pass`, which reads as a contradiction
    from vbr.scenario import check_file
    (tmp_path / "t.vbr").write_text('tests for "siatka"\nscenario "x" {\n  choose "pass"\n}\n')
    with pytest.raises(VbrCheckError) as info:
        check_file(tmp_path / "t.vbr")
    assert [(d.span.line, d.span.col, d.message) for d in info.value.diagnostics] == [
        (3, 10, 'the option `pass` is the value `none`: write `none`, not the string "pass"')]


def test_a_variant_s_second_start_names_start_not_its_inner_key(tmp_path):
    # it said "`@start` is already defined at ...", a name no file can write
    assert [m.split(" at ")[0] for _, _, m in _variant_problems(tmp_path, "start serve")] == [
        "`start` is already defined"]


def test_an_override_of_a_limit_the_base_lacks_says_it_is_added_without_override(tmp_path):
    assert _variant_problems(tmp_path, "override returns(s) = 0 range 0..1") == [
        (3, 10, "`override returns` overrides nothing: the base file has no `returns`; without `override` it is a "
                "declaration of this file's own")]


def test_a_base_file_s_error_caused_by_an_override_names_the_override(tmp_path):
    # siatka.vbr calls take_over(s) with one argument; the variant gives it two parameters
    found = _variant_problems(tmp_path, "override proc take_over(s: seat, fresh: bool) {\n  holder = s\n}")
    assert found and all(m == f"`take_over` takes 2 argument(s), not 1 (`take_over` is overridden at {tmp_path / 'v.vbr'}:3:10)"
                         for _, _, m in found), found


def test_a_base_file_s_use_of_an_enum_member_an_override_dropped_names_the_override(tmp_path):
    found = _variant_problems(tmp_path, "override enum Tactic { rozegranie, mocne_odbicie, superatak }")
    assert found and all(m == f"unknown name `zaskoczenie` (`zaskoczenie` was declared in the base's `Tactic`, which "
                              f"{tmp_path / 'v.vbr'}:3:10 overrides without it)" for _, _, m in found), found


def test_a_base_file_s_goto_to_a_phase_of_a_stage_an_override_replaced_names_the_override(tmp_path):
    # siatka.vbr's phases serve, bounce and attack live in `stage rally`; `override phase rally`
    # replaces the whole stage, and the base's `goto serve` said only "no phase `serve`"
    found = _variant_problems(tmp_path, "override phase rally {\n  goto placement\n}")
    assert found and all(m == "no phase `serve` (phases: placement, rally) (`serve` was declared in the base's "
                              f"`rally`, which {tmp_path / 'v.vbr'}:3:10 overrides without it)" for _, _, m in found), found


def test_a_base_file_s_error_at_a_built_in_a_variant_s_procedure_replaced_names_the_procedure(tmp_path):
    # docs/language.md, section 6: a `proc` named as a built-in "takes the built-in's place
    # everywhere in the file", the base included: siatka.vbr's `count(hand[s]) < 3` then said only
    # "`count` is a procedure", with nothing to tie it to the variant
    found = _variant_problems(tmp_path, "proc count(z: zone) {\n  say \"counted\"\n}")
    note = f"(`count` is the procedure declared at {tmp_path / 'v.vbr'}:3:1, which takes the place of the built-in " \
           "`count` in the whole file)"
    assert found and all(m.endswith(note) for _, _, m in found), found


def test_a_base_file_s_error_at_a_use_of_an_overridden_fn_names_the_override(tmp_path):
    # siatka.vbr:211 `choose d from bounces_of(face) ...` wants a list; the variant's fn gives the
    # Face itself. The error was at the base's line alone, with nothing to tie it to the variant.
    [(line, col, message)] = _variant_problems(tmp_path, "override fn bounces_of(f: Face) = f")
    assert message == ("`choose` picks from a list, a range, an enum or a zone, not Face (`bounces_of`, used here, "
                       f"is overridden at {tmp_path / 'v.vbr'}:3:10)")


def test_an_override_of_start_in_a_file_that_extends_nothing_names_start(tmp_path):
    assert check_problems(tmp_path / "g.vbr", GAME + "override start p\nphase p {\n  goto p\n}\n")[0][2].startswith(
        "`override start` overrides nothing: this file `extends` no other file")


def test_a_fraction_says_numbers_are_whole():
    line, col, message = _syntax(GAME + "option target = 3.5\n")
    assert (line, col) == (7, 18) and message.startswith("numbers are whole: there are no fractions"), message


def test_a_choice_made_by_its_own_item_says_by_names_a_seat(tmp_path):
    # it said: unknown name `c`, as `by` is read before the choice is made
    assert check_problems(tmp_path / "g.vbr", _phase("  choose c from hand[0] by c")) == [
        (8, 28, "`by` names who makes the choice (a seat), not `c`, the item chosen")]


def test_an_else_misspelt_after_a_closing_brace_is_shown_at_the_word():
    assert _syntax(_phase("  if n == 1 {\n    n = 2\n  } esle {\n    n = 3\n  }")) == (
        10, 5, "`esle` starts no statement; did you mean `else`?")


def test_a_misspelt_let_is_one_error_not_one_at_each_use_of_its_name(tmp_path):
    # `lett m = 1` is `lett`, then `m = 1`: `m` was also an unknown variable there and at each use
    assert check_problems(tmp_path / "g.vbr", _phase("  lett m = 1\n  n = m + 1")) == [
        (8, 3, "`lett` starts no statement; did you mean `let`?")]


def test_arithmetic_in_an_option_s_value_says_an_option_is_written_out():
    line, col, message = _syntax(GAME + "option target = 1 + 2\n")
    assert (line, col) == (7, 19) and message.startswith(
        "an option's value is one number, `true`, `false`, a string or an enum member, written out"), message


def test_a_bracket_left_open_at_the_end_of_a_line_is_shown_at_the_bracket():
    # it was: unexpected 'goto' on the next line, expected ')' or ','
    assert _syntax(_phase("  n = max(1, 2")) == (8, 10, "this `(` is never closed: its `)` is missing (`goto` on line 9 "
                                                      "comes first)")


def test_roll_written_as_a_call_says_to_write_the_die_after_it():
    # `roll` takes a die's name after it (docs/language.md, `roll`); `roll(d)` read as a call
    # stopped at the `(` with "expected a name"
    assert _syntax(_phase("  n = roll(d6)")) == (8, 7, "`roll` takes the die's name after it, without parentheses: "
                                                        "`roll d6`")


@pytest.mark.parametrize("sort", ["seat", "side"])
def test_adding_to_a_seat_or_side_measure_is_refused_at_check(tmp_path, sort):
    # docs/language.md, `measure`: a seat or side measure starts unset and names who; `+=` on
    # one passed `vbr check` and stopped play with "arithmetic on none" at the statement
    text = GAME + f"measure who: {sort}\nmeasure turns: int\nphase p {{\n  measure turns += 1\n" \
                  "  measure who += 1\n  end draw\n}\n"
    assert check_problems(tmp_path / "m.vbr", text) == [
        (11, 3, f"`measure who += ...`: a {sort} measure names a {sort}, and starts unset (none), so there is "
                "nothing to add to; set it with `measure who = ...` (an int measure counts)")]


def test_a_measure_named_as_a_var_is_refused_at_check(tmp_path):
    # docs/language.md, section 7: a scenario's `expect` "sees its measures, by name"; a measure
    # named as a var passed the check, and `expect n == 1` read the var, never the measure
    text = GAME + "measure n: int\nphase p {\n  measure n += 1\n  end draw\n}\n"
    assert check_problems(tmp_path / "m.vbr", text) == [
        (7, 1, "measure `n` has the name of var `n`: a scenario's `expect n` would read that, never the measure; "
               "give the measure a name of its own")]
