"""A procedure's parameter written without a type holds what each call gives it, lists and zones
included (docs/language.md, `proc`): the procedure is built once for each set of types its calls
give, and shows what it holds as a parameter declared with its type does; an event's untyped
parameter the same for each `emit` (`event` and `on`). Each expected value is worked out from the
rule text; both typed engines must give it."""
from __future__ import annotations

import pytest

from test_list_values import refused, said
from vbr.engines.game import load

ENGINES = ("python", "c")

HEAD = """game "Untyped"
seats 2
start one
kind Card { v: int }
zone deck public ordered
zone hand per seat public
var got: int per seat = 0
setup {
  create Card(v: 1) in deck times 3
}
"""

SHAPES = HEAD + """proc total(xs) {
  let t = 0
  for x in xs {
    t += x
  }
  say "total {t}"
}
proc show(xs) {
  say "{xs}"
}
proc down(xs, n) {
  say "{n}: {count(xs)}"
  if n > 0 {
    down(xs, n - 1)
  }
}
proc put(z) {
  move top(deck) to z
}
proc sizes(zs) {
  for z in zs {
    say "size {count(z)}"
  }
}
phase one {
  total([1, 2, 3])
  total([10, 20])
  total(4..6)
  show([1, 2])
  show([true, false])
  show(5)
  down([7, 8], 2)
  put(hand[0])
  put(hand[1])
  put(hand[1])
  sizes(hand)
  total(every(c.v for c in hand[1]))
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_holds_the_list_or_zone_each_call_gives(tmp_path, engine):
    # total: 1+2+3 = 6, 10+20 = 30, 4+5+6 = 15 (the same procedure, called with other lists);
    # show says a list of numbers, a list of bools and a number each as itself; down passes its
    # list on to itself, 2, 1, 0, each time of 2 items; put moves one card into the zone it is
    # given (hand[0] once, hand[1] twice); sizes goes through the per-seat zones, seat 0's
    # first; hand[1]'s two cards are worth 1 each
    assert said(tmp_path, SHAPES, engine) == [
        "total 6", "total 30", "total 15", "[1, 2]", "[true, false]", "5", "2: 2", "1: 2", "0: 2",
        "size 1", "size 2", "total 2"]


CHOICE = HEAD + """proc take(xs, s) {
  choose x from xs by s as "a number"
  got[s] += x
}
phase one {
  take([4, 5, 6], 0)
  take(1..3, 1)
  say "{got[0]} {got[1]}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_choice_from_an_untyped_parameter_offers_the_items_of_the_list_given(tmp_path, engine):
    # seat 0 picks the third of [4, 5, 6], seat 1 the second of 1..3: 6 and 2
    assert said(tmp_path, CHOICE, engine, picks=(2, 1)) == ["6 2"]


@pytest.mark.parametrize("engine", ENGINES)
def test_none_given_to_an_untyped_parameter_read_as_a_list_is_an_error_where_it_is_read(tmp_path, engine):
    rules = HEAD + "proc total(xs) {\n  say \"{count(xs)}\"\n}\nphase one {\n  total([1])\n  total(none)\n  end draw\n}\n"
    f, error = refused(tmp_path, rules, engine)  # line 12 is the `say`, column 15 its `xs`
    assert error.startswith(f"{f}:12:15: error: not supported yet: a value of no declared type read as a list")


SHOWN = """game "Shown"
seats 2
start one
enum Dir { up, down }
option mode = "fast"
kind Card { v: int, d: Dir }
zone deck public ordered
zone hand per seat public
court {
  rows 2
  cols 2
  field 1 at row 1 col 1
}
direction forward = (0, 1)
setup {
  create Card(v: 3, d: down) in deck
}
proc show(x) {
  say "{x}"
}
proc show_dir(x: Dir) {
  say "{x}"
}
proc show_bool(x: bool) {
  say "{x}"
}
proc show_way(x: dir) {
  say "{x}"
}
proc show_cell(x: cell) {
  say "{x}"
}
proc show_card(x: Card) {
  say "{x}"
}
proc show_zone(x: zone) {
  say "{x}"
}
proc show_seat(x: seat) {
  say "{x}"
}
proc show_int(x: int) {
  say "{x}"
}
proc show_dirs(x: list of Dir) {
  say "{x}"
}
proc show_cards(x: list of Card) {
  say "{x}"
}
proc show_zones(x: list of zone) {
  say "{x}"
}
phase one {
  show(down)
  show_dir(down)
  show(true)
  show_bool(true)
  show(forward)
  show_way(forward)
  show(cell_at(0, 1, 1))
  show_cell(cell_at(0, 1, 1))
  show(top(deck))
  show_card(top(deck))
  show(hand[1])
  show_zone(hand[1])
  show(next_seat(0))
  show_seat(next_seat(0))
  show(team_of(1))
  show_int(team_of(1))
  show(none)
  show_dir(none)
  show(mode)
  say "{mode}"
  show([down, up])
  show_dirs([down, up])
  show(every(c for c in deck))
  show_cards(every(c for c in deck))
  show([deck, hand[0]])
  show_zones([deck, hand[0]])
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_says_each_kind_of_value_as_a_parameter_of_its_type_does(tmp_path, engine):
    # each line twice: what `show(x)` says, then what the twin declared with the value's type
    # says (the string option has no type to declare; `say "{mode}"` is its twin): an enum member,
    # a bool and a direction by name, the cell by its side and field, the one card (#0) with its
    # kind and fields, a zone by name, seat 1 and team 1 (each seat its own team) as numbers,
    # none as `none`, the option's string, and lists of members, things (by number) and zones
    assert said(tmp_path, SHOWN, engine) == [
        "down", "down", "true", "true", "forward", "forward", "@0:1", "@0:1",
        "#0 Card(v=3, d=down)", "#0 Card(v=3, d=down)", "hand[1]", "hand[1]", "1", "1", "1", "1",
        "none", "none", "fast", "fast", "[down, up]", "[down, up]", "[#0]", "[#0]",
        "[deck, hand[0]]", "[deck, hand[0]]"]


PASSED_ON = """game "Passed on"
seats 2
start one
enum Dir { up, down }
kind Card { v: int }
zone deck public ordered
setup {
  create Card(v: 7) in deck
}
proc show(x) {
  say "show {x}"
}
proc relay(x) {
  let y = x
  show(y)
  emit moved(y)
}
proc count_down(x, n) {
  say "{n} {x}"
  if n > 0 {
    count_down(x, n - 1)
  }
}
event moved(x)
on moved(x) {
  say "moved {x}"
}
on moved(w) when w == down {
  say "down moved"
  show(w)
}
phase one {
  relay(down)
  relay(up)
  count_down(down, 1)
  count_down(top(deck), 0)
  relay(false)
  relay(top(deck))
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_value_passed_on_through_untyped_parameters_keeps_its_type(tmp_path, engine):
    # relay's x goes to a let, to show, and to the event: both handlers hear `down` (the `when`
    # compares it with down), only the first hears `up`; count_down passes its x to itself;
    # false reads as false, the card (#0) with its kind and field, in the procedure and the handler
    assert said(tmp_path, PASSED_ON, engine) == [
        "show down", "moved down", "down moved", "show down",
        "show up", "moved up",
        "1 down", "0 down",
        "0 #0 Card(v=7)",
        "show false", "moved false",
        "show #0 Card(v=7)", "moved #0 Card(v=7)"]


def played_log(tmp_path, rules: str, engine: str) -> tuple[list, dict]:
    """The log of a game of `rules` under `engine` (seed 0, the first option at each choice) and
    seat 0's observation at the first choice."""
    f = tmp_path / "rules.vbr"
    f.write_text(rules)
    log: list = []
    state = load(f, {}, engine=engine).new_state(0, log)
    seen = state.observation(0)
    while not state.is_terminal():
        state.apply_index(0)
    return log, seen


OFFERED = """game "Offered"
seats 2
start one
enum Dir { up, down }
kind Card { v: int }
zone deck public ordered
setup {
  create Card(v: 4) in deck
}
proc offer(x, y) {
  choose z from [x, y] by 0 as "a way"
  say "took {z}"
}
proc show(t) {
  reveal t
}
phase one {
  offer(down, up)
  show(top(deck))
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_choice_and_a_reveal_over_untyped_parameters_show_their_values(tmp_path, engine):
    # the options of a choice from [x, y] are the members given, down first: the observation
    # offers them by name and the log's choice takes down; the reveal of the card (#0) shows it
    log, seen = played_log(tmp_path, OFFERED, engine)
    assert seen["legal"] == ["down", "up"]
    assert [e["action"] for e in log if e["t"] == "choice"] == ["down"]
    assert [e["text"] for e in log if e["t"] == "say"] == ["took down"]
    assert [(e["what"], e["items"]) for e in log if e["t"] == "reveal"] == [("#0", ["#0 Card(v=4)"])]


LISTED = HEAD + """enum Dir { up, down }
var picks: list of int per seat = [[1, 2], [3]]
event heard(xs)
on heard(xs) {
  say "{count(xs)}: {xs}"
}
on heard(ys) when count(ys) > 1 {
  for y in ys {
    say "item {y}"
  }
}
phase one {
  emit heard([down, up])
  emit heard(every(c for c in deck if c.v > 0))
  emit heard(picks[1])
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_event_parameter_holds_the_list_each_emit_gives(tmp_path, engine):
    # the deck holds the three cards #0 #1 #2 (v 1 each); picks[1] is [3]: the second handler
    # runs for the two lists of more than one item, going through their items
    assert said(tmp_path, LISTED, engine) == [
        "2: [down, up]", "item down", "item up",
        "3: [#0, #1, #2]", "item #0 Card(v=1)", "item #1 Card(v=1)", "item #2 Card(v=1)",
        "1: [3]"]


@pytest.mark.parametrize("engine", ENGINES)
def test_none_emitted_to_an_untyped_parameter_a_handler_reads_as_a_list_is_an_error_where_it_is_read(tmp_path, engine):
    rules = HEAD + "event heard(xs)\non heard(xs) {\n  say \"{count(xs)}\"\n}\nphase one {\n  emit heard(none)\n  end draw\n}\n"
    f, error = refused(tmp_path, rules, engine)  # line 13 is the `say`, column 15 its `xs`
    assert error.startswith(f"{f}:13:15: error: not supported yet: a value of no declared type read as a list")


@pytest.mark.parametrize("engine", ENGINES)
def test_none_given_to_a_procedure_declared_later_that_reads_it_as_a_list_is_an_error_where_it_is_read(tmp_path, engine):
    # `opener` calls `total` before `total` is built; the error is still total's (line 15, column 15)
    rules = HEAD + "proc opener() {\n  total(none)\n}\nproc total(xs) {\n  say \"{count(xs)}\"\n}\n" \
        "phase one {\n  opener()\n  end draw\n}\n"
    f, error = refused(tmp_path, rules, engine)
    assert error.startswith(f"{f}:15:15: error: not supported yet: a value of no declared type read as a list")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_field_read_from_an_untyped_parameter_given_a_number_is_an_error_where_it_is_read(tmp_path, engine):
    # show(1) builds `show` for a number, whose `.v` is no field: line 12, column 9; the call is
    # never reached in play (the deck is not empty), but the procedure is built for it
    rules = HEAD + "proc show(x) {\n  say \"{x.v}\"\n}\nphase one {\n  if empty(deck) {\n    show(1)\n  }\n" \
        "  end draw\n}\n"
    f, error = refused(tmp_path, rules, engine)
    assert error == f"{f}:12:9: error: only cards and pieces have fields; this is int"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_field_its_kind_has_not_read_from_an_untyped_parameter_is_an_error_where_it_is_read(tmp_path, engine):
    rules = HEAD + "kind Coin { w: int }\nvar c0: Card = none\nproc show(x) {\n  say \"{x.w}\"\n}\n" \
        "phase one {\n  show(c0)\n  end draw\n}\n"
    f, error = refused(tmp_path, rules, engine)  # line 14 is the `say`, column 9 the `x.w`
    assert error == f"{f}:14:9: error: kind `Card` has no field `w`"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_field_its_kind_has_not_read_in_a_fn_from_a_parameter_is_an_error_where_it_is_read(tmp_path, engine):
    rules = HEAD + "kind Coin { w: int }\nvar c0: Card = none\nfn worth(x) = x.w\n" \
        "phase one {\n  if empty(deck) {\n    say \"{worth(c0)}\"\n  }\n  end draw\n}\n"
    f, error = refused(tmp_path, rules, engine)  # line 13 is the fn, column 15 its `x.w`
    assert error == f"{f}:13:15: error: kind `Card` has no field `w`"


UNEQUAL = '''game "x"
seats 2
start p
enum Colour { red, blue }
enum Size { small, large }
event tick(k)
on tick(k) when k == "x" {
  say "tick {k} is x"
}
proc same(a, b) {
  if a == b {
    say "{a} == {b}"
  }
  if a != b {
    say "{a} != {b}"
  }
}
phase p {
  for i in 0..4 {
    emit tick(i)
  }
  same(red, small)
  same(blue, large)
  same(blue, blue)
  end draw
}
'''


@pytest.mark.parametrize("engine", ENGINES)
def test_untyped_values_of_types_that_never_meet_are_never_equal(tmp_path, engine):
    # an int is never the string "x", and two enums' members never equal each other, whatever
    # numbers stand for them (0..4 held the string's number; red and small are both member 0)
    assert said(tmp_path, UNEQUAL, engine) == ["red != small", "blue != large", "blue == blue"]


@pytest.mark.parametrize("engine", ENGINES)
def test_arithmetic_or_ordering_on_an_untyped_parameter_given_no_number_is_an_error_where_it_is_read(tmp_path, engine):
    # docs/language.md, `proc`: a call giving a value its body cannot read as it is read there is
    # an error where the body reads it, when the file is loaded; `blue + 1` gave 2, `red < 2` held
    head = 'game "x"\nseats 2\nstart p\nenum Colour { red, blue }\n'
    add = head + 'proc f(a) {\n  say "{a + 1}"\n}\nphase p {\n  f(blue)\n  end draw\n}\n'
    f, error = refused(tmp_path, add, engine)
    assert error == f"{f}:6:9: error: `+` works on numbers, not Colour"
    less = head + 'proc g(a) {\n  if a < 2 {\n    end draw\n  }\n}\nphase p {\n  g(red)\n  end draw\n}\n'
    f, error = refused(tmp_path, less, engine)
    assert error == f"{f}:6:6: error: `<` works on numbers, not Colour"
    negated = head + 'proc h(a) {\n  say "{-a}"\n}\nphase p {\n  h(true)\n  end draw\n}\n'
    f, error = refused(tmp_path, negated, engine)
    assert error == f"{f}:6:10: error: `-` works on numbers, not bool"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_value_is_never_in_a_list_of_another_type(tmp_path, engine):
    rules = ('game "x"\nseats 2\nstart p\nenum Colour { red, blue }\nproc h(a) {\n  if a in [1, 2] {\n'
             '    say "{a} in"\n  } else {\n    say "{a} not in"\n  }\n}\nphase p {\n  h(blue)\n  h(1)\n  end draw\n}\n')
    assert said(tmp_path, rules, engine) == ["blue not in", "1 in"]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_read_as_a_condition_or_a_seat_must_be_one(tmp_path, engine):
    # `if a` held for 3, `not blue` was false, `end winner blue` made seat 1 win: a number read
    # as a truth, a member as a seat; each is an error where it is read, when the file is loaded
    head = 'game "x"\nseats 2\nstart p\nenum Colour { red, blue }\n'
    cases = [('proc f(a) {\n  if a {\n    end draw\n  }\n}\n', "f(3)", "6:6: error: a condition must be bool, not int"),
             ('proc f(a) {\n  if not a {\n    end draw\n  }\n}\n', "f(blue)",
              "6:10: error: a condition must be bool, not Colour"),
             ('proc f(a) {\n  end winner a\n}\n', "f(blue)", "6:14: error: the winner must be a seat, not Colour"),
             ('proc f(a) {\n  repeat a {\n    end draw\n  }\n}\n', "f(true)",
              "6:10: error: a repeat count must be a number, not bool")]
    for proc, call, expected in cases:
        f, error = refused(tmp_path, head + proc + f"phase p {{\n  {call}\n  end draw\n}}\n", engine)
        assert error == f"{f}:{expected}"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_read_as_an_index_or_a_built_ins_number_must_be_one(tmp_path, engine):
    # given blue, `sc[a]` was seat 1's slot and `abs(a)` was 1: a member's place read as a number
    head = 'game "x"\nseats 2\nstart p\nenum Colour { red, blue }\nvar sc: int per seat = 0\n'
    cases = [('proc f(a) {\n  sc[a] += 1\n}\n', "7:6: error: an index must be a number, not Colour"),
             ('proc f(a) {\n  say "{[5, 6][a]}"\n}\n', "7:16: error: an index must be a number, not Colour"),
             ('proc f(a) {\n  say "{abs(a)}"\n}\n', "7:13: error: `abs`'s argument must be int, not Colour"),
             ('proc f(a) {\n  say "{team_of(a)}"\n}\n', "7:17: error: `team_of`'s argument must be a seat, not Colour")]
    for proc, expected in cases:
        f, error = refused(tmp_path, head + proc + "phase p {\n  f(blue)\n  end draw\n}\n", engine)
        assert error == f"{f}:{expected}"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_stored_into_a_typed_var_field_or_parameter_must_be_of_its_type(tmp_path, engine):
    # given blue, `n = a` stored 1 in an int var, `Card(v: a)` a card of value 1, `typed(a)` said 1
    head = ('game "x"\nseats 2\nstart p\nenum Colour { red, blue }\nkind Card { v: int }\nzone pile public\n'
            'var n: int = 0\nproc typed(k: int) {\n  n = k\n}\n')
    cases = [('proc f(a) {\n  n = a\n}\n', "12:3: error: cannot assign Colour to int"),
             ('proc f(a) {\n  create Card(v: a) in pile\n}\n', "12:18: error: field `v` must be int, not Colour"),
             ('proc f(a) {\n  typed(a)\n}\n', "12:9: error: argument `k` must be int, not Colour"),
             ('proc f(a) {\n  n += a\n}\n', "12:8: error: `+=` works on numbers, not Colour")]
    for proc, expected in cases:
        f, error = refused(tmp_path, head + proc + "phase p {\n  f(blue)\n  end draw\n}\n", engine)
        assert error == f"{f}:{expected}"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_emitted_to_or_returned_as_a_typed_value_must_be_of_its_type(tmp_path, engine):
    # given blue, `emit e(a)` gave the handler's int 1, and `return a` from a proc of int result 1
    head = ('game "x"\nseats 2\nstart p\nenum Colour { red, blue }\nvar n: int = 0\nevent e(k: int)\n'
            'on e(k) {\n  n = k\n}\n')
    emitted = head + 'proc f(a) {\n  emit e(a)\n}\nphase p {\n  f(blue)\n  end draw\n}\n'
    f, error = refused(tmp_path, emitted, engine)
    assert error == f"{f}:11:10: error: argument `k` of event `e` must be int, not Colour"
    returned = head + 'proc r(a): int {\n  return a\n}\nphase p {\n  let z = r(blue)\n  end draw\n}\n'
    f, error = refused(tmp_path, returned, engine)
    assert error == f"{f}:11:10: error: the returned value must be int, not Colour"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_untyped_parameter_read_as_a_zone_must_be_one(tmp_path, engine):
    # given 2, `move top(pile) to a` moved the card into the zone numbered 2, which is none: it was gone
    head = 'game "x"\nseats 2\nstart p\nkind Card { v: int }\nzone pile public\nsetup {\n  create Card(v: 7) in pile\n}\n'
    cases = [('proc g(a) {\n  move top(pile) to a\n}\n', "10:21: error: `to` must be zone, not int"),
             ('proc g(a) {\n  create Card(v: 1) in a\n}\n', "10:24: error: `in` must be zone, not int"),
             ('proc g(a) {\n  shuffle a\n}\n', "10:11: error: `shuffle`'s argument must be zone, not int")]
    for proc, expected in cases:
        f, error = refused(tmp_path, head + proc + "phase p {\n  g(2)\n  end draw\n}\n", engine)
        assert error == f"{f}:{expected}"
