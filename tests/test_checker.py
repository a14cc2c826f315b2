"""Names and types: every problem reported at once, with positions; options and variants."""
import pytest

from conftest import check_problems, rule_files

from vbr.errors import OptionError, VbrCheckError
from vbr.engines.game import checked_model, load


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_all_problems_are_reported_together(tmp_path):
    p = write(tmp_path, "many.vbr", 'game "x"\nvar a: int = 0\nstart p\nphase p {\n  a = nope\n  b = 1\n  goto q\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    lines = sorted((d.span.line, d.message.split(";")[0]) for d in info.value.diagnostics)
    assert lines == [(5, "unknown name `nope`"), (6, "unknown variable `b`"), (7, "no phase `q` (phases: p)")]


def test_type_errors(tmp_path):
    p = write(tmp_path, "t.vbr", 'game "x"\nenum E { a, b }\nvar e: E = a\nvar n: int = 0\nstart p\nphase p {\n'
                                  '  n = e\n  if n == a {\n    goto p\n  }\n  goto p\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    msgs = [d.message for d in info.value.diagnostics]
    assert "cannot assign E to int" in msgs
    assert "comparing int with E is always false" in msgs


def test_options_are_typed_and_listed(tmp_path):
    p = write(tmp_path, "o.vbr", 'game "x"\noption n = 3 in { 1, 3 }\noption b = false\nstart p\nphase p {\n  end draw\n}\n')
    assert checked_model(p, {"n": "1", "b": True}).options == {"n": 1, "b": True}
    with pytest.raises(OptionError, match="option `n` is one of 1, 3, not '2'"):
        checked_model(p, {"n": "2"})
    with pytest.raises(OptionError, match=r"unknown option `x` \(o.vbr has options: b, n\)"):
        checked_model(p, {"x": True})
    with pytest.raises(OptionError, match="option `b` is true or false"):
        checked_model(p, {"b": "7"})


def test_seats_chosen_by_option(tmp_path):
    p = write(tmp_path, "s.vbr", 'game "x"\noption players = 4 in { 2, 3, 4 }\n'
                                  'seats 4 teams { a: 0 2 b: 1 3 } when players == 4\n'
                                  'seats 3 teams { a: 0 2 b: 1 } when players == 3\nseats 2\nstart p\nphase p {\n  end draw\n}\n')
    assert checked_model(p).teams == [[0, 2], [1, 3]]
    assert checked_model(p, {"players": "3"}).teams == [[0, 2], [1]]
    assert checked_model(p, {"players": "2"}).seats == 2


def test_variant_overrides_and_rejects_silent_redefinition(tmp_path):
    write(tmp_path, "base.vbr", 'game "base"\noption target = 9\nvar x: int = 0\nstart p\nphase p {\n  end winner 0\n}\n')
    v = write(tmp_path, "v.vbr", 'game "variant"\nextends "base.vbr"\noverride option target = 5\nvar y: int = 1\n')
    g = checked_model(v)
    assert g.options["target"] == 5 and g.title == "variant"
    bad = write(tmp_path, "bad.vbr", 'game "bad"\nextends "base.vbr"\nvar x: int = 2\n')
    with pytest.raises(VbrCheckError, match="`x` is already defined at .*base.vbr:3:1; write `override`"):
        checked_model(bad)
    none = write(tmp_path, "none.vbr", 'game "n"\nextends "base.vbr"\noverride var z: int = 2\n')
    with pytest.raises(VbrCheckError, match="overrides nothing"):
        checked_model(none)


def test_extends_cycle_is_an_error(tmp_path):
    write(tmp_path, "a.vbr", 'game "a"\nextends "b.vbr"\n')
    write(tmp_path, "b.vbr", 'game "b"\nextends "a.vbr"\n')
    with pytest.raises(VbrCheckError, match="goes round in a circle"):
        checked_model(tmp_path / "a.vbr")


def test_functions_may_not_recurse(tmp_path):
    p = write(tmp_path, "f.vbr", 'game "x"\nfn f(n: int) = f(n)\nvar a: int = 0\nstart p\nphase p {\n  a = f(1)\n  goto p\n}\n')
    with pytest.raises(VbrCheckError, match="calls itself"):
        checked_model(p)


def _combinations(path):
    """Every combination of a rule file's options that have a set of values: each bool option
    false and true, each option with an `in { ... }` list every listed value. Options without a
    list (a number such as `target`, a free name such as Tanto Cuore's `chars0`) keep their
    default."""
    import itertools
    from vbr.checker import literal_value
    model = checked_model(path)
    axes = []
    for name, decl in model.option_decls.items():
        if isinstance(model.options[name], bool):
            axes.append([(name, False), (name, True)])
        elif decl.choices:
            axes.append([(name, literal_value(model, c)) for c in decl.choices])
    return [dict(combo) for combo in itertools.product(*axes)]


@pytest.mark.parametrize("path", rule_files(), ids=lambda p: p.stem)
def test_bundled_rules_check_with_every_option_combination(path):
    combos = _combinations(path)
    assert len(combos) >= 6  # each bundled file has at least 3 bools or a 3-way and a 2-way choice
    for opts in combos:
        game = checked_model(path, opts)
        assert game.seats >= 1 and game.options == {**game.options, **opts}


def test_code_behind_an_option_that_is_off_is_still_checked(tmp_path):
    p = write(tmp_path, "dead.vbr", 'game "x"\noption flag = false\nvar n: int = 0\nstart p\nphase p {\n'
                                     '  if flag and n == 0 {\n    n = true + 1\n  }\n  end draw\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [(d.span.line, d.message) for d in info.value.diagnostics] == [(7, "`+` works on numbers, not bool")]
    # and with the option on the same code runs (and still fails to check)
    with pytest.raises(VbrCheckError):
        checked_model(p, {"flag": True})


# ------------------------------------------------------------------ reserved words


def test_a_reserved_enum_member_is_reported_where_declared_although_its_use_fails_to_parse(tmp_path):
    from vbr.errors import VbrSyntaxError
    p = write(tmp_path, "pig.vbr", 'game "pig"\nenum Move { roll, stop }\nstart p\nphase p {\n'
                                    '  choose m from [roll, stop] by 0\n  if m == roll { end draw }\n  end winner 0\n}\n')
    with pytest.raises(VbrSyntaxError) as info:
        checked_model(p)
    first = info.value.diagnostics[0]
    assert (first.span.line, first.span.col) == (2, 13)
    assert "`roll` is a reserved word" in first.message and "enum member" in first.message


@pytest.mark.parametrize("decl, at", [
    ("enum Move { go, roll }", (2, 17)),
    ("kind Card { value: int, first: int }", (2, 25)),
    ("var pick: int = 0", (2, 1)),
    ("const every = 3", (2, 1)),
    ("zone end public", (2, 1)),
    ("event say(n: int)", (2, 1)),
    ("die roll = 1..6", (2, 1)),
])
def test_a_reserved_word_declared_as_a_name_is_refused_where_declared(tmp_path, decl, at):
    p = write(tmp_path, "r.vbr", f'game "r"\n{decl}\nstart p\nphase p {{\n  end draw\n}}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    reserved = [d for d in info.value.diagnostics if "is a reserved word" in d.message]
    assert [(d.span.line, d.span.col) for d in reserved] == [at]


def test_a_phase_named_with_a_reserved_word_is_refused(tmp_path):
    p = write(tmp_path, "r.vbr", 'game "r"\nstart end\nphase end {\n  end draw\n}\n')
    with pytest.raises(VbrCheckError, match="`end` is a reserved word"):
        checked_model(p)


def test_a_reserved_parameter_is_refused(tmp_path):
    p = write(tmp_path, "r.vbr", 'game "r"\nfn twice(any: int) = 2\nstart p\nphase p {\n  end draw\n}\n')
    with pytest.raises(VbrCheckError, match="`any` is a reserved word"):
        checked_model(p)


def _grammar_words_not_reserved():
    from vbr.checker import RESERVED_WORDS
    from vbr.highlight import grammar_keywords
    return sorted(set(grammar_keywords()) - RESERVED_WORDS)


@pytest.mark.parametrize("word", _grammar_words_not_reserved())
def test_a_grammar_word_that_is_not_reserved_works_as_a_member_and_a_value(tmp_path, word):
    p = write(tmp_path, "w.vbr", f'game "w"\nenum E {{ {word}, other }}\nvar e: E = {word}\nstart p\nphase p {{\n'
                                  f'  let x = [other, {word}]\n  if e == {word} and {word} in x {{ end winner 0 }}\n'
                                  '  end draw\n}\n')
    assert checked_model(p).title == "w"


# ------------------------------------------------------------------ limits


def _with_limit(tmp_path, lines: str):
    return write(tmp_path, "l.vbr", f'game "l"\noption rounds = 50\nconst per_round = 4\nvar n: int = 3\n{lines}\n'
                                     'start p\nphase p {\n  end draw\n}\n')


def test_a_limit_may_be_an_option_or_arithmetic_on_options_and_consts(tmp_path):
    p = _with_limit(tmp_path, "limit choices rounds * per_round + 1\nlimit steps 1000")
    assert (checked_model(p).limits["choices"], checked_model(p).limits["steps"]) == (201, 1000)
    assert checked_model(p, {"rounds": "10"}).limits["choices"] == 41


@pytest.mark.parametrize("value, message", [
    ("n", "takes a whole number known before play"),
    ("rounds / 0", "takes a whole number known before play"),
    ("per_round - 4", "a limit must be at least 1; this is 0"),
    ("rounds * 1000000000", "may be at most 10,000,000"),
])
def test_a_limit_that_is_not_a_positive_constant_is_an_error_at_its_value(tmp_path, value, message):
    p = _with_limit(tmp_path, f"limit choices {value}")
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    (d,) = info.value.diagnostics
    assert message in d.message and (d.span.line, d.span.col) == (5, 15)


# ------------------------------------------------------------------ ints stored into seats

SEAT_BASE = ('game "base"\nseats 2\nvar server: seat = 0\nvar score: int per seat = 0\nstart p\n'
             'setup {\n  server = 1\n}\nphase p {\n  score[server] += 1\n  end winner server\n}\n')


def test_an_int_option_that_is_no_seat_is_refused_at_the_variants_assignment(tmp_path):
    write(tmp_path, "base.vbr", SEAT_BASE)
    v = write(tmp_path, "v.vbr", 'game "v"\nextends "base.vbr"\noption first_server = 2\n'
                                  'override setup {\n  server = first_server\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(v)
    (d,) = info.value.diagnostics
    assert d.span.file.endswith("v.vbr") and (d.span.line, d.span.col) == (5, 3)
    assert d.message == "cannot assign int to seat: `first_server` is 2, and the seats are 0..1"
    assert load(v, {"first_server": "1"}).new_state(0).outcome().winner == 1


@pytest.mark.parametrize("value", ["-1", "2", "1 + 1"])
def test_a_number_known_before_play_that_is_no_seat_is_refused(tmp_path, value):
    p = write(tmp_path, "s.vbr", SEAT_BASE.replace("server = 1", f"server = {value}"))
    with pytest.raises(VbrCheckError, match="cannot assign int to seat"):
        checked_model(p)


def test_an_int_computed_in_play_may_be_stored_into_a_seat(tmp_path):
    p = write(tmp_path, "s.vbr", SEAT_BASE.replace("server = 1", "let n = count(seats) - 1\n  server = n"))
    assert load(p).new_state(0).outcome().winner == 1


# Seat 3 exists only with four players: the branch that names it is dead with two. With four,
# seat 3 scores 1 and seat 0 gets seat 3's points (1); with two, seat 0 gets 1.
SEAT_BY_PLAYERS = ('game "by players"\noption players = 2 in { 2, 4 }\nseats 4 when players == 4\n'
                   'seats 2 when players == 2\nvar server: seat = 0\nvar score: int per seat = 0\npoints score\n'
                   'start p\nphase p {\n  if players == 4 {\n    server = 3\n    score[3] += 1\n  }\n'
                   '  score[0] += if players == 4 then score[3] else 1\n  end winner server\n}\n')


@pytest.mark.parametrize("test", ["players == 4", "count(seats) == 4", "count(seats) > 2"])
@pytest.mark.parametrize("players, winner, points", [("2", 0, (1, 0)), ("4", 3, (1, 0, 0, 1))])
def test_a_seat_named_in_code_the_options_leave_dead_is_neither_refused_nor_warned_of(tmp_path, players, winner,
                                                                                     points, test):
    p = write(tmp_path, "p.vbr", SEAT_BY_PLAYERS.replace("if players == 4", f"if {test}"))
    assert checked_model(p, {"players": players}).diags.warnings == []
    out = load(p, {"players": players}).new_state(0).outcome()
    assert (out.winner, out.points) == (winner, points)


# Seat 3's procedure is called only where four players play.
PROC_BY_PLAYERS = ('game "proc by players"\noption players = 2 in { 2, 4 }\nseats 4 when players == 4\n'
                   'seats 2 when players == 2\nvar server: seat = 0\nvar score: int per seat = 0\npoints score\n'
                   'start p\nproc fourth() {\n  server = 3\n  score[3] += 1\n}\nphase p {\n  if players == 4 {\n'
                   '    fourth()\n  }\n  end winner server\n}\n')


@pytest.mark.parametrize("players, winner, points", [("2", 0, (0, 0)), ("4", 3, (0, 0, 0, 1))])
def test_a_procedure_only_code_the_options_leave_dead_calls_is_not_judged(tmp_path, players, winner, points):
    p = write(tmp_path, "p.vbr", PROC_BY_PLAYERS)
    assert checked_model(p, {"players": players}).diags.warnings == []
    out = load(p, {"players": players}).new_state(0).outcome()
    assert (out.winner, out.points) == (winner, points)


def test_a_procedure_live_code_calls_is_judged_under_the_options_chosen(tmp_path):
    problems = check_problems(tmp_path / "p.vbr", PROC_BY_PLAYERS.replace("if players == 4", "if players > 0"))
    assert problems == [(10, 3, "cannot assign int to seat: 3, and the seats are 0..1")]


# Two seats, and without `teams` two teams: 2 is neither, nor -1; `last` is the const 5.
WARN_BASE = ('game "w"\nseats 2\nconst last = 5\nvar score: int per seat = 0\npoints score\nstart p\nphase p {\n'
             '  choose x from 1..2 by 0\n  score[0] += x\n  end winner 0\n}\n')


@pytest.mark.parametrize("old, new, line, col, message", [
    ("by 0", "by 2", 8, 25, "`by` is 2, which is no seat (the seats are 0..1"),
    ("score[0]", "score[last]", 9, 9, "the index of `score` is `last` is 5, which is no seat (the seats are 0..1"),
    ("winner 0", "winner 0 - 1", 10, 14, "the winner is `0 - 1` is -1, which is no seat (the seats are 0..1"),
    ("winner 0", "winner team 2", 10, 19, "the winning team is 2, which is no team (the teams are 0..1"),
])
def test_a_number_known_before_play_that_is_no_seat_is_warned_of_where_a_seat_or_team_is_used(
        tmp_path, old, new, line, col, message):
    p = write(tmp_path, "w.vbr", WARN_BASE.replace(old, new))
    (w,) = checked_model(p).diags.warnings
    assert (w.span.line, w.span.col) == (line, col) and w.message.startswith(message)


# ------------------------------------------------------------------ choices from zones nothing fills

CARDS_BASE = ('game "cards"\nseats 2\nkind Card { v: int }\nzone hand per seat public\nzone pile public\n'
              'start play\nsetup {\n  for s in seats {\n    create Card(v: 1) in hand[s] times 2\n  }\n}\n'
              'phase play {\n  choose c from hand[0] by 0\n  move c to pile\n  end winner 0\n}\n')


def _findings(path):
    from vbr.visualizer.findings import findings
    return [d for d in findings(checked_model(path)) if "nothing to choose from" in d.message]


def test_a_choice_from_a_zone_nothing_fills_warns_at_the_choice(tmp_path):
    p = write(tmp_path, "p.vbr", CARDS_BASE.replace("create Card(v: 1) in hand[s] times 2", 'say "none"'))
    (w,) = _findings(p)
    assert w.severity == "warning" and (w.span.file, w.span.line, w.span.col) == (str(p), 13, 3)
    assert w.message == ("`choose c` chooses from `hand`, which nothing ever creates things in or moves things to: "
                         "it will have nothing to choose from")


def test_an_override_of_setup_that_creates_nothing_warns_at_the_override_naming_the_choice_it_empties(tmp_path):
    # the variant's author can change the override, not the base's `choose` (and an editor shows
    # the variant's own file): the warning is at the override that dropped the base's `create`s
    base = write(tmp_path, "base.vbr", CARDS_BASE)
    assert _findings(base) == []
    v = write(tmp_path, "v.vbr", 'game "v"\nextends "base.vbr"\noverride setup {\n  say "no cards"\n}\n')
    (w,) = _findings(v)
    assert w.severity == "warning" and (w.span.file, w.span.line) == (str(v), 3)
    assert w.message == (f"`choose c` (at {base}:13:3) chooses from `hand`, which nothing creates things in or moves "
                         f"things to any more: this `override` replaces the base's declaration at {base}:7:1, which "
                         "did; it will have nothing to choose from")


def test_a_zone_filled_through_a_zone_parameter_counts_as_filled(tmp_path):
    p = write(tmp_path, "p.vbr", CARDS_BASE.replace('create Card(v: 1) in hand[s] times 2', 'deal(hand[s])')
              + 'proc deal(into: zone) {\n  create Card(v: 1) in into times 2\n}\n')
    assert _findings(p) == []


def test_an_optional_choice_from_an_empty_zone_is_not_warned_of(tmp_path):
    p = write(tmp_path, "p.vbr", CARDS_BASE.replace("create Card(v: 1) in hand[s] times 2", "say \"none\"")
              .replace("by 0\n", "by 0 optional\n  if c == none {\n    end draw\n  }\n"))
    assert _findings(p) == []


# ------------------------------------------------------------------ returns


def _returns(tmp_path, line: str):
    return write(tmp_path, "r.vbr", f'game "r"\nvar chips: int per seat = 0\n{line}\nstart p\nphase p {{\n  end draw\n}}\n')


def test_returns_is_compiled_as_a_number_of_each_seat(tmp_path):
    assert checked_model(_returns(tmp_path, "returns(s) = chips[s] * 2 range -4..4")).returns.hi == 4


@pytest.mark.parametrize("line, message", [
    ("returns(s) = chips[s] > 0 range -1..1", "`returns` gives each seat a number, not bool"),
    ("returns(s) = score[s] range -1..1", "unknown name `score`"),
    ("returns(s) = chips[s] range 1..-1", "a range's low end must not exceed its high end"),
    ("returns(s) = 1 range 0..1\nreturns(t) = 0 range 0..1", "`returns` is declared twice"),
    ("returns(all) = 1 range 0..1", "`all` is a reserved word"),
])
def test_a_bad_returns_is_a_located_error(tmp_path, line, message):
    with pytest.raises(VbrCheckError, match=message):
        checked_model(_returns(tmp_path, line))


def test_returns_that_do_not_add_up_to_the_declared_total_are_a_located_error(tmp_path):
    from vbr.errors import VbrRuntimeError
    from vbr.rl.common import seat_returns
    state = load(_returns(tmp_path, "returns(s) = s range 0..1 total 0")).new_state(0)
    with pytest.raises(VbrRuntimeError, match=r"gives the seats \[0, 1\], which add up to 1, not 0") as info:
        seat_returns(state)
    assert info.value.span.line == 3


def test_a_problem_in_a_procedure_is_reported_once_however_it_is_called(tmp_path):
    assert check_problems(tmp_path / "d.vbr", 'game "x"\nvar n: int = 0\nstart p\nproc bump() {\n  n = nope\n}\n'
                                               'phase p {\n  bump()\n  end draw\n}\n') == \
        [(5, 7, "unknown name `nope`; did you mean `none`?")]


def test_a_loop_name_spelled_as_a_reserved_word_is_refused_in_any_loop(tmp_path):
    assert check_problems(tmp_path / "r.vbr", 'game "x"\nvar n: int = 0\nstart p\nphase p {\n  for seats in 1..3 {\n'
                                               '    n += 1\n  }\n  end draw\n}\n') == \
        [(5, 3, "`seats` is a reserved word of the language and cannot be a name; choose another name")]


def test_consts_and_dice_faces_that_cannot_be_worked_out_before_play(tmp_path):
    from vbr.engines.game import checked_model
    p = write(tmp_path, "c.vbr", 'game "x"\nconst BIG = 1 / 0\nconst HUGE = 9223372036854775807 + 1\noption k = 0\n'
                                  'die e = 1..6\ndie d = [roll e]\ndie z = 1..0\nconst L = [1, 2]\nconst M = L[5]\n'
                                  'die w = 1..(k + 2000000)\nvar n: int = BIG + HUGE + M\nstart p\nphase p {\n  end draw\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [(d.span.line, d.message) for d in info.value.diagnostics] == [
        (2, "const `BIG` cannot be computed before play: division by zero"),
        (3, "const `HUGE` cannot be computed before play: the number 9223372036854775808 is out of the range of "
            "integers (-9223372036854775807..9223372036854775807)"),
        (6, "die `d`'s faces cannot be computed before play: a constant cannot roll dice"),
        (7, "die `z` has no faces"),
        (9, "const `M` cannot be computed before play: list index 5 out of range 0..1"),
        (10, "die `w`'s faces cannot be computed before play: the range 1..2000000 holds 2000000 numbers; "
             "a range holds at most 1000000")]


def test_a_const_no_body_uses_is_checked_too(tmp_path):
    # docs/language.md, `const`: a value computed once, before play; `vbr check` reports every
    # problem of a file, a const's whether or not a body names it
    p = write(tmp_path, "c.vbr", 'game "x"\nvar n: int = 3\nconst K = n + 1\nstart p\nphase p {\n  end draw\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [(d.span.line, d.span.col) for d in info.value.diagnostics] == [(3, 11)]
    assert "a const is fixed before play" in info.value.diagnostics[0].message


CONSTS = """game "x"
var n: int = 3
zone z public
die d = [1, 2]
fn reads() = n
fn counts() = count(z)
fn through() = reads()
fn rolls() = roll d
fn plus_one(n: int) = n + 1
const A = reads()
const B = 1 + counts()
const C = through()
const D = rolls()
const E = plus_one(2) + sum(n for n in 1..3)
start p
phase p {
  end winner E - 9
}
"""


def test_a_const_reading_play_through_a_fn_is_refused_at_the_call(tmp_path):
    # docs/language.md, `const`: a value computed once, before play, so nothing it uses, through a
    # fn either, may read a var, a zone or a die; a fn's parameter or a comprehension's name
    # that is spelt as a var is not the var (E is 3 + 6 = 9)
    p = write(tmp_path, "c.vbr", CONSTS)
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    found = sorted((d.span.line, d.span.col, d.message.split("dice ")[-1]) for d in info.value.diagnostics)
    assert found == [(10, 11, "(`reads` reads `n`)"), (11, 15, "(`counts` reads `z`)"), (12, 11, "(`through` reads `n`)"),
                     (13, 11, "(`rolls` rolls a die)")]
    fixed = write(tmp_path, "fixed.vbr", "\n".join(x for x in CONSTS.split("\n") if not x.startswith(("const A", "const B",
                                                                                                   "const C", "const D"))))
    state = load(fixed, engine="python").new_state(0)
    assert state.is_terminal() and state.outcome().winner == 0


@pytest.mark.parametrize("value, reason", [
    ("max([]) + 1", "arithmetic on none"),
    ("-first(x for x in [1] if x > 3)", "arithmetic on none"),
    ("abs(min([]))", "`abs` of none"),
    ("max([]) < 3", "`<` compares numbers, not none"),
])
def test_a_const_that_meets_none_says_so_in_plays_words(tmp_path, value, reason):
    # max and min of an empty list and a first that finds nothing are none (docs/language.md,
    # sections 5.4 and 6); a number is needed of each here: no Python message reaches the reader
    p = write(tmp_path, "c.vbr", f'game "x"\nconst K = {value}\nstart p\nphase p {{\n  end draw\n}}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [d.message for d in info.value.diagnostics] == [f"const `K` cannot be computed before play: {reason}"]


def test_a_measure_a_die_or_an_event_read_as_a_value_is_named_for_what_it_is(tmp_path):
    # each was `unknown name`, though the file declares it: the fix is another form, not a spelling
    p = write(tmp_path, "n.vbr", 'game "x"\nseats 2\nstart p\nvar n: int = 0\nmeasure cnt: int\ndie d6 = 1..6\n'
                                  'event e()\non e() {\n  n = 1\n}\nphase p {\n  n = cnt\n  n = d6 + 1\n  say "{e}"\n'
                                  '  emit e()\n  end draw\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    found = [(d.span.line, d.span.col, d.message.split(":")[0]) for d in info.value.diagnostics]
    assert found == [(12, 7, "`cnt` is a measure"), (13, 7, "`d6` is a die, not a value"),
                     (14, 9, "`e` is an event, not a value")]
    assert "`roll d6` throws it" in info.value.diagnostics[1].message


def test_a_die_or_phase_too_short_to_be_close_is_answered_with_the_ones_declared(tmp_path):
    # `d7` is no close match for `d6` (difflib's ratio 0.5), yet the fix is among the file's dice
    p = write(tmp_path, "d.vbr", 'game "x"\nseats 2\nstart p\ndie d6 = 1..6\ndie coin = [0, 1]\nvar n: int = 0\n'
                                  'phase p {\n  n = roll d7\n  goto zz\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [d.message for d in info.value.diagnostics] == ["no die `d7` (dice: d6, coin)", "no phase `zz` (phases: p)"]
    q = write(tmp_path, "n.vbr", 'game "x"\nseats 2\nstart p\nvar n: int = 0\nphase p {\n  n = roll d6\n  end draw\n}\n')
    with pytest.raises(VbrCheckError, match=r"no die `d6` \(no dice are declared\)"):
        checked_model(q)


def test_a_choice_from_a_list_written_empty_warns_at_the_choice(tmp_path):
    # docs/language.md, `choose`: without `optional` or `else`, an empty choice is a run-time error
    from vbr.visualizer.findings import findings
    p = write(tmp_path, "e.vbr", 'game "x"\nseats 2\nstart p\nphase p {\n  choose a from [] by 0\n'
                                  '  choose b from 3..1 by 0\n  choose c from [] by 0 optional\n'
                                  '  choose d from 1..1 by 0\n  end draw\n}\n')
    found = [(d.span.line, d.span.col, d.severity, d.message.split(":")[0]) for d in findings(checked_model(p))]
    assert found == [(5, 3, "warning", "`choose a` chooses from a list that is always empty"),
                     (6, 3, "warning", "`choose b` chooses from a list that is always empty")]


def test_the_seat_team_and_court_built_ins_check_their_arguments_types(tmp_path):
    # docs/language.md 6: "`vbr check` reports a wrong number or type of arguments"
    assert check_problems(tmp_path / "b.vbr", 'game "T"\nseats 4 teams { a: 0 2  b: 1 3 }\nstart p\ncourt {\n  rows 2\n  cols 2\n'
                                               '  field 1 at row 1 col 1\n}\ndirection up = (0, 1)\nvar c: cell = none\nvar n: int = 0\n'
                                               'phase p {\n  n = partner(true)\n  n = team_of(c)\n  c = field(true, 1)\n'
                                               '  c = step(1, up, 0, 1)\n  n = count(reach(c, true, 0, [up]))\n  n = count(cells(c))\n'
                                               '  n = count(team_seats(up))\n  end draw\n}\n') == [
        (13, 15, "`partner`'s argument must be seat, not bool"),
        (14, 15, "`team_of`'s argument must be seat, not cell"),
        (15, 13, "`field`'s side must be int, not bool"),
        (16, 12, "`step`'s cell must be cell, not int"),
        (17, 22, "`reach`'s distance must be int, not bool"),
        (18, 19, "`cells`'s side must be int, not cell"),
        (19, 24, "`team_seats`'s argument must be int, not dir")]


def test_a_parameter_named_twice_is_an_error_at_the_second_and_an_enum_member_twice_at_the_member(tmp_path):
    # `proc h(a: int, a: int)` passed vbr check: the body could only ever read one of them
    assert check_problems(tmp_path / "d.vbr", 'game "T"\nseats 2\nstart p\nenum A { x, y }\nenum B { z, y }\n'
                                               'event e(a: int, a: int)\non e(b, b) {\n  say "x"\n}\nfn f(q, q) = 1\n'
                                               'proc h(a: int, a: int) {\n  say "x"\n}\nphase p {\n  emit e(1, 2)\n  end draw\n}\n') == [
        (5, 13, "enum member `y` is already a member of `A`"),
        (6, 17, "parameter `a` appears twice in `e`"),
        (7, 9, "parameter `b` appears twice in `on e`"),
        (10, 9, "parameter `q` appears twice in `f`"),
        (11, 16, "parameter `a` appears twice in `h`")]


def test_a_team_name_used_as_a_value_says_teams_are_numbers_in_the_rules(tmp_path):
    # docs/language.md, `seats`: teams are numbered in the order written; their names are labels
    p = write(tmp_path, "t.vbr", 'game "T"\nseats 4 teams { sun: 0 2  sea: 1 3 }\nstart p\nvar ts: int per team = 0\n'
                                  'phase p {\n  ts[sun] += 1\n  end winner team sea\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [(d.span.line, d.span.col, d.message.split(":")[0]) for d in info.value.diagnostics] == [
        (6, 6, "`sun` names team 0 in `seats ... teams`, but in the rules a team is its number"),
        (7, 19, "`sea` names team 1 in `seats ... teams`, but in the rules a team is its number")]


def test_an_override_in_a_file_that_extends_nothing_is_an_error(tmp_path):
    # docs/language.md: "`override` of a name the base does not have is an error too"; with no
    # base at all it was accepted silently, as a plain declaration
    assert check_problems(tmp_path / "o.vbr", 'game "T"\nseats 2\nstart p\noverride var n: int = 0\n'
                                               'override phase p {\n  end draw\n}\n') == [
        (4, 10, '`override n` overrides nothing: this file `extends` no other file (drop `override`, or add '
                '`extends "BASE"`)'),
        (5, 10, '`override p` overrides nothing: this file `extends` no other file (drop `override`, or add '
                '`extends "BASE"`)')]


def test_a_const_defined_in_terms_of_itself_is_that_one_error(tmp_path):
    # it came with a second, `cannot be computed before play: arithmetic on none`, at the same const
    assert check_problems(tmp_path / "c.vbr", 'game "T"\nseats 2\nstart p\nconst C = C + 1\nconst D = 1 / 0\n'
                                               'phase p {\n  end draw\n}\n') == [
        (4, 11, "const `C` is defined in terms of itself"),
        (5, 1, "const `D` cannot be computed before play: division by zero")]


def test_a_return_in_setup_says_how_setup_ends(tmp_path):
    # docs/language.md, `setup`: play begins at `start` when it ends; a `goto` begins it elsewhere
    p = write(tmp_path, "r.vbr", 'game "T"\nseats 2\nstart p\nsetup {\n  return\n}\nphase p {\n  end draw\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [(d.span.line, d.message) for d in info.value.diagnostics] == [
        (5, "`return` ends a procedure or a handler; `setup` ends by running off its end (play then begins at "
            "`start`) or with `goto`")]


def test_an_override_of_a_handler_says_handlers_are_added_not_replaced(tmp_path):
    # docs/language.md: "Handlers are never replaced: an `on` in a variant adds a handler"; the
    # error said the base had no `on e`, though it has one
    write(tmp_path, "hb.vbr", 'game "B"\nseats 2\nstart p\nvar n: int = 0\nevent e()\non e() {\n  n += 1\n}\n'
                              'phase p {\n  emit e()\n  end draw\n}\n')
    v = write(tmp_path, "hv.vbr", 'game "V"\nextends "hb.vbr"\noverride on e() {\n  n += 2\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(v)
    [d] = info.value.diagnostics
    assert (d.span.line, d.span.col) == (3, 10)
    assert d.message.startswith("`override on e`: a handler is never replaced; an `on` in a variant adds a handler")


def test_growing_joining_or_changing_a_list_in_place_says_lists_are_values(tmp_path):
    # docs/language.md 10: lists cannot grow; `+` works on numbers only
    p = write(tmp_path, "l.vbr", 'game "T"\nseats 2\nstart p\nvar picks: list of int = []\nphase p {\n'
                                  '  picks += [1]\n  picks = picks + [2]\n  picks[0] = 3\n  end draw\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [(d.span.line, d.span.col, d.message.split(":")[0]) for d in info.value.diagnostics] == [
        (6, 3, "`+=` works on numbers"), (7, 11, "`+` works on numbers"),
        (8, 3, "`picks` holds a list, which cannot be changed in place")]
    assert "a list cannot grow" in info.value.diagnostics[0].message
    assert "a list cannot grow or be joined" in info.value.diagnostics[1].message


def test_a_handlers_untyped_parameter_has_the_type_its_event_declares(tmp_path):
    # `event e(k: int)`, `on e(k) when k == "y"`: k is an int there, so the check is the one a
    # typed parameter gets; a handler that types it otherwise is told the event's type
    assert check_problems(tmp_path / "h.vbr", 'game "T"\nseats 2\nstart p\nevent e(k: int)\non e(k) when k == "y" {\n'
                                               '  say "y"\n}\non e(k: bool) {\n  say "b"\n}\nphase p {\n  emit e(1)\n  end draw\n}\n') == [
        (5, 14, "comparing int with str is always false"),
        (8, 6, "`k` is bool here, but event `e` gives int in its place")]


def test_a_goto_or_start_naming_a_stage_says_it_is_a_stage_and_its_first_phase(tmp_path):
    p = write(tmp_path, "s.vbr", 'game "T"\nseats 2\nstart rally\nstage rally {\n  phase serve {\n    goto rally\n  }\n}\n')
    with pytest.raises(VbrCheckError) as info:
        checked_model(p)
    assert [(d.span.line, d.message) for d in info.value.diagnostics] == [
        (3, "`start` names no phase `rally`: `rally` is a stage, and play goes to a phase (its first is `serve`)"),
        (6, "no phase `rally`: `rally` is a stage, and play goes to a phase (its first is `serve`)")]


# ------------------------------------------------------------------ a loop's most rounds
LOOP_BASE = ('game "loop"\nseats 2\noption rounds = 3\nvar n: int = 0\nstart p\nphase p {\n'
             '  loop max MAX {\n    n += 1\n    if n >= 2 {\n      break\n    }\n  }\n  end winner 0\n}\n')


@pytest.mark.parametrize("bound", ["3", "rounds", "rounds * 2 - 1"])
def test_a_loops_max_is_any_whole_number_known_before_play(tmp_path, bound):
    p = write(tmp_path, "l.vbr", LOOP_BASE.replace("MAX", bound))
    assert load(p).new_state(0).outcome().winner == 0  # the loop breaks at its second round, below every bound


def test_a_loops_max_below_1_in_code_the_options_leave_dead_is_not_judged(tmp_path):
    text = LOOP_BASE.replace("  loop max MAX {", "  if rounds > 3 {\n    loop max rounds - 3 {\n      n += 1\n    }\n  }\n"
                                                 "  loop max rounds {")
    p = write(tmp_path, "l.vbr", text)  # rounds is 3: the first loop never runs, its max would be 0
    assert load(p).new_state(0).outcome().winner == 0
    assert check_problems(tmp_path / "m.vbr", text.replace("if rounds > 3", "if rounds > 2")) == [
        (8, 14, "`max` must be at least 1: `rounds - 3` is 0")]


@pytest.mark.parametrize("bound, message", [
    ("n", "`max` takes a whole number known before play: a number, an int option, a const, or arithmetic on them"),
    ("0", "`max` must be at least 1, not 0"),
    ("rounds - 3", "`max` must be at least 1: `rounds - 3` is 0"),
    ("true", "`max` must be int, not bool"),
])
def test_a_loops_max_that_is_no_whole_number_of_at_least_1_known_before_play_is_refused_there(tmp_path, bound,
                                                                                             message):
    assert check_problems(tmp_path / "l.vbr", LOOP_BASE.replace("MAX", bound)) == [(7, 12, message)]



def test_an_override_of_seats_replaces_every_seats_declaration_of_the_base(tmp_path):
    # docs/language.md, `extends`: `override` "replaces the base's declaration of that name". A
    # base may declare `seats` several times, each with its `when`; `override seats 2` replaced
    # only the last of them (`seats 2 when players == 2`), so under the default players=4 the
    # variant still had 4 seats, silently
    write(tmp_path, "sb.vbr", 'game "B"\noption players = 4 in { 2, 4 }\nseats 4 when players == 4\n'
                              'seats 2 when players == 2\nstart p\nphase p {\n  end draw\n}\n')
    v = write(tmp_path, "sv.vbr", 'game "V"\nextends "sb.vbr"\noverride seats 3\n')
    assert load(v).seats == 3
    assert load(v, {"players": 2}).seats == 3
    # several `override seats ... when` replace the base's together, in the variant's order
    w = write(tmp_path, "sw.vbr", 'game "W"\nextends "sb.vbr"\noverride option players = 4 in { 3, 4 }\n'
                                  'override seats 3 when players == 3\noverride seats 5 when players == 4\n')
    assert load(w).seats == 5
    assert load(w, {"players": 3}).seats == 3


def test_a_name_overridden_twice_in_one_file_is_an_error(tmp_path):
    # the second `override option target` silently replaced the first: a variant that meant the
    # first (written above, and read first) played with the second's value
    write(tmp_path, "tb.vbr", 'game "B"\nseats 2\noption target = 9\nstart p\nphase p {\n  end draw\n}\n')
    assert check_problems(tmp_path / "tv.vbr", 'game "V"\nextends "tb.vbr"\noverride option target = 5\n'
                                                'override option target = 3\n') == [
        (4, 10, "`target` is overridden twice in this file; the first `override` is at "
                f"{tmp_path / 'tv.vbr'}:3:10, and this one would silently replace it: keep one")]
    # an override, then a plain declaration of the same name: the second is a duplicate of the
    # variant's own, not of the base's
    assert check_problems(tmp_path / "tw.vbr", 'game "V"\nextends "tb.vbr"\noverride option target = 5\n'
                                                'option target = 3\n') == [
        (4, 1, f"`target` is defined twice; the first is at {tmp_path / 'tw.vbr'}:3:10")]


@pytest.mark.parametrize("decl, what", [("var home: int = 0", "var"), ("const home = 1", "const"),
                                        ("option home = 2", "option"), ("zone home public", "zone"),
                                        ("direction home = (0, 1)", "direction")])
def test_an_enum_member_named_as_a_var_or_other_value_is_an_error_at_the_member(tmp_path, decl, what):
    # docs/language.md: "A name is declared once per file"; a name is read as a var (const,
    # option) before an enum member (5.2), so `var x: Side = home` read the var, and the author
    # got a type error far from the cause (or none at all: `die d = [home, away]`)
    text = f'game "T"\nseats 2\nstart p\nenum Side {{ home, away }}\n{decl}\nphase p {{\n  end draw\n}}\n'
    problems = check_problems(tmp_path / "e.vbr", text)
    assert problems[0] == (4, 13, f"enum member `home` has the name of {what} `home` (at {tmp_path / 'e.vbr'}:5:1), "
                                  "which hides it wherever the name is read; rename one")


def test_a_measure_nothing_sets_is_a_warning_at_its_declaration(tmp_path):
    # docs/language.md, `measure`: the rules set a measure where they decide it; one declared and
    # never set passed `vbr check` silently, and `vbr sim` reported it as 0 in every game
    from vbr.visualizer.findings import findings
    p = write(tmp_path, "m.vbr", 'game "T"\nseats 2\nstart p\nmeasure turns: int\nmeasure who: seat\n'
                                 'measure done: bool\nphase p {\n  measure turns += 1\n  end draw\n}\n')
    assert [(d.span.line, d.severity, d.message) for d in findings(checked_model(p))] == [
        (5, "warning", "measure `who` is never set: every game reports it unset, as it starts (`measure who = ...` "
                       "sets it)"),
        (6, "warning", "measure `done` is never set: every game reports it false, as it starts (`measure done = ...` "
                       "sets it)")]


def test_a_measure_a_variants_override_stops_setting_is_a_warning_at_that_override(tmp_path):
    # a variant's `override phase p` without the base's `measure turns += 1`: the warning sat at
    # the base file's declaration, which the variant's author cannot change, and named no override
    from vbr.visualizer.findings import findings
    base = write(tmp_path, "base.vbr", 'game "B"\nseats 2\nstart p\nmeasure turns: int\nmeasure who: seat\n'
                                       'phase p {\n  measure turns += 1\n  end draw\n}\n')
    variant = write(tmp_path, "v.vbr", 'game "V"\nextends "base.vbr"\noverride phase p {\n  end draw\n}\n')
    assert [(d.span.file, d.span.line, d.message) for d in findings(checked_model(variant))] == [
        (str(base), 5, "measure `who` is never set: every game reports it unset, as it starts (`measure who = ...` "
                       "sets it)"),  # set nowhere, in the base either: at its declaration, as in any file
        (str(variant), 3, f"measure `turns` is never set: this `override` replaces the base's declaration at {base}:6:1, "
                          "which set it, and nothing sets it now: every game reports it 0, as it starts "
                          "(`measure turns = ...` sets it)")]


def test_an_option_value_under_which_no_seats_declaration_holds_is_a_warning_at_the_value(tmp_path):
    # docs/language.md, `seats`: "if none holds, the options are rejected". A variant widening
    # Cattack's `players` to `in { 2, 5 }` passed `vbr check`, and `--option players=5` was then
    # refused at load; the check can try each value its `in { ... }` allows
    p = write(tmp_path, "s.vbr", 'game "T"\noption players = 2 in { 2, 3, 5 }\nseats 3 when players == 3\n'
                                 'seats 2 when players < 3\nstart p\nphase p {\n  end draw\n}\n')
    model = checked_model(p)
    assert [(d.span.line, d.span.col, d.severity, d.message) for d in model.diags.items] == [
        (2, 31, "warning", "with `players = 5`, which its `in { ... }` allows, no `seats ... when` holds (the other "
                           "options as chosen): a game under it is refused")]
    assert model.seats == 2


def test_an_option_nothing_reads_is_a_warning_at_its_declaration(tmp_path):
    # an option whose value is ignored: `--option fast=false` was accepted and changed nothing.
    # An option read anywhere (a body, a const, a `seats ... when`, a `say` hole) is no finding
    from vbr.visualizer.findings import findings
    p = write(tmp_path, "o.vbr", 'game "T"\noption fast = true\noption target = 3\noption shown = 1\n'
                                 'option players = 2 in { 2, 3 }\nconst T = target\nseats 3 when players == 3\n'
                                 'seats 2 when players == 2\nstart p\nphase p {\n  say "{shown}"\n  end winner T - 3\n}\n')
    assert [(d.span.line, d.message) for d in findings(checked_model(p))] == [
        (2, "option `fast` is never read: every value of it plays the same game (the rules name it nowhere)")]
