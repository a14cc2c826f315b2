"""What a rule file does, under both typed engines (vbr/engines: python and c): the values it
says, the options it offers and in which order, how it ends, and where and why it stops when it
faults. Each expected value is worked out by hand from the rule text beside it (docs/language.md
for the meaning of each construct), so a bug both engines share still fails here."""
from __future__ import annotations

import random

import pytest

from conftest import FIXTURES, ROOT
from vbr.actions import Action
from vbr.engines.game import load
from vbr.errors import IllegalActionError, VbrError, VbrRuntimeError
from vbr.ir.build_expr import Unsupported

ENGINES = ["python", "c"]
SIATKA = ROOT / "rules" / "siatka.vbr"


def game(tmp_path, text: str, engine: str, options: dict | None = None):
    f = tmp_path / "g.vbr"
    f.write_text(text)
    return load(f, options or {}, engine=engine)


def said(log: list) -> list[str]:
    return [e["text"] for e in log if e["t"] == "say"]


def played(tmp_path, text: str, engine: str, answers=()):
    """A game of `text` from seed 0, each of `answers` (an option's index) given in turn: the
    state and its log."""
    log: list = []
    s = game(tmp_path, text, engine).new_state(0, log)
    for i in answers:
        s.apply_index(i)
    return s, log


def fault(tmp_path, text: str, engine: str, answers=(), error=VbrRuntimeError):
    """The error a game of `text` from seed 0 stops with, answering `answers` (then the first
    option at every choice): the error and the log up to it."""
    log: list = []
    g = game(tmp_path, text, engine)
    with pytest.raises(error) as info:
        s = g.new_state(0, log)
        for i in answers:
            s.apply_index(i)
        while not s.is_terminal():
            s.apply_index(0)
    return info.value, log


def where(err: VbrError) -> tuple[int, int]:
    return err.span.line, err.span.col


# ---------------------------------------------------------------------- moving and zones
MOVES = """game "x"
kind K { v: int }
zone a public
zone b public
start p
setup {
  create K(v: 1) in a
  create K(v: 2) in a
  create K(v: 3) in a
  create K(v: 9) in b
}
phase p {
  move a to b bottom
  move [top(b), bottom(b)] to a bottom
  say "{every(k.v for k in a)} {every(k.v for k in b)}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_zone_and_a_list_moved_to_the_bottom_keep_their_order(tmp_path, engine):
    # docs/language.md, `move`: a zone or a list moved keeps its things' order; a zone lists its
    # things from the bottom (first) to the top (last). `a` (1 2 3) under b's 9 makes b 1 2 3 9;
    # [top(b), bottom(b)] = [9, 1] under the then empty `a` makes a 9 1, leaving b 2 3
    _, log = played(tmp_path, MOVES, engine)
    assert said(log) == ["[9, 1] [2, 3]"]


IN = """game "x"
seats 2
kind Card { v: int }
zone z public
zone h per seat public
var none_card: Card = none
start p
setup {
  create Card(v: 1) in z
  create Card(v: 2) in h[0]
}
phase p {
  let c = top(z)
  let d = top(h[0])
  say "{c in z} {c not in h[0]} {d in z} {none_card in z} {c.v in [1, 3]} {2 not in [d.v, 5]}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_in_asks_where_a_thing_is_and_whether_a_list_holds_a_value(tmp_path, engine):
    # c (v 1) is in z, so not in h[0]; d (v 2) is in h[0], not z; none is in no zone; 1 is in
    # [1, 3]; 2 is in [d.v, 5] = [2, 5]
    _, log = played(tmp_path, IN, engine)
    assert said(log) == ["true true false false true false"]


ZONE_AS_LIST = """game "x"
kind Card { v: int }
zone hand per seat public
var xs: list of Card = []
var n: int = 0
start p
proc keep(z) {
  xs = z
}
setup {
  create Card(v: 3) in hand[0] times 2
}
phase p {
  keep(hand[0])
  if top(hand[0]) in xs {
    n += 1
  }
  if top(hand[0]) not in xs {
    n += 10
  }
  say "{n}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_zone_carried_into_a_list_var_by_an_untyped_parameter_gives_the_var_its_things(tmp_path, engine):
    # `keep` reads its untyped `z` as a list, so it is built for the zone it is given; xs then
    # holds hand[0]'s two cards, top(hand[0]) among them: n = 1, never 10
    _, log = played(tmp_path, ZONE_AS_LIST, engine)
    assert said(log) == ["1"]


KINDS = """game "x"
kind Card { v: int, w: int }
kind Coin { w: int, v: int }
zone z public
start p
setup {
  create Card(v: 1, w: 2) in z
  create Coin(w: 3, v: 4) in z
  create Card(v: 5, w: 6) in z
}
phase p {
  say "{every(x.v * 10 + x.w for x in z)}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_field_of_several_kinds_is_read_by_its_name_in_each_kind(tmp_path, engine):
    # Card (v 1, w 2): 12; Coin (w 3, v 4), its fields the other way round: 43; Card (5, 6): 56
    _, log = played(tmp_path, KINDS, engine)
    assert said(log) == ["[12, 43, 56]"]


# ---------------------------------------------------------------------- faults, located
# Each rule text (after its `game` line), the line and column it stops at, and what the message says.
FAULTS = {
    "loop max in a pure loop": (
        "var n: int = 0\nstart p\nphase p {\n  n = 1\n  loop max 3 {\n    n += 1\n  }\n  end draw\n}\n",
        (6, 3), "loop ran more than its `max 3` rounds"),
    "loop max an option's value": (
        "option rounds = 2\nconst more = rounds + 1\nvar n: int = 0\nstart p\nphase p {\n  n = 1\n"
        "  loop max more {\n    n += 1\n  }\n  end draw\n}\n",
        (8, 3), "loop ran more than its `max more` (3) rounds"),
    "index out of range, second statement of a run": (
        "seats 2\nvar s: int per seat = 0\nvar i: int = 0\nstart p\nphase p {\n  i = 5\n  s[i] = 1\n  end draw\n}\n",
        (8, 3), "`s[5]`: out of 0..1"),
    "field of none in a pure proc": (
        "kind K { v: int }\nvar k: K = none\nvar n: int = 0\nstart p\nproc f() {\n  n = 1\n  n = k.v\n}\n"
        "phase p {\n  f()\n  end draw\n}\n",
        (8, None), "none"),
    "other of 5 in a branch test": (
        "var n: int = 5\nstart p\nphase p {\n  n += 0\n  if other(n) == 1 {\n    n = 0\n  }\n  end draw\n}\n",
        (6, None), "`other(5)`: only 0 and 1 have an other side"),
    "nothing to choose": (
        "var n: int = 0\nstart p\nphase p {\n  n = 1\n  choose x from 1..0 by 0\n  end draw\n}\n",
        (6, 3), "`choose x` has nothing to choose from"),
    "by gives no seat": (
        "var n: int = 7\nstart p\nphase p {\n  n += 1\n  choose x from 1..3 by n\n  end draw\n}\n",
        (6, 3), "8"),
    "move of none": (
        "kind K { v: int }\nzone z public\nvar k: K = none\nstart p\nphase p {\n  move k to z\n  end draw\n}\n",
        (7, 3), "none"),
    "a card without the field, inside a comprehension": (
        "kind K { v: int }\nkind J { w: int }\nzone z public\nvar n: int = 0\nstart p\nsetup {\n  create J(w: 1) in z\n}\n"
        "phase p {\n  n = 1\n  if any(k.v > 0 for k in z) {\n    n = 2\n  }\n  end draw\n}\n",
        (12, 10), "`.v` of 0, which is no K"),  # the read, in the comprehension
    "a field of none assigned": (
        "kind K { v: int }\nvar k: K = none\nvar n: int = 0\nstart p\nphase p {\n  n = 1\n  k.v = 2\n  end draw\n}\n",
        (8, 3), "none"),
    "a field assigned on a thing of another kind": (
        "kind K { v: int }\nkind J { w: int }\nzone z public\nvar n: int = 0\nstart p\nsetup {\n  create J(w: 1) in z\n}\n"
        "phase p {\n  n = 1\n  for k in z {\n    k.v = 3\n  }\n  end draw\n}\n",
        (13, 5), "`.v` of 0, which is no K"),
    "a field of one of several kinds assigned on a third": (
        "kind K { v: int }\nkind J { v: int }\nkind M { w: int }\nzone z public\nvar n: int = 0\nstart p\nsetup {\n"
        "  create K(v: 1) in z\n  create M(w: 1) in z\n}\nphase p {\n  for k in z {\n    k.v += 1\n  }\n  end draw\n}\n",
        (14, 5), "`.v` of 1, which has no such field"),  # #1, the M
    "the value assigned is worked out before its place": (
        "seats 2\nvar s: int per seat = 0\nvar i: int = 0\nstart p\nphase p {\n  i = -1\n  s[i] = other(3)\n  end draw\n}\n",
        (8, None), "`other(3)`"),
    "a repeat count out of range in a pure proc": (
        "var n: int = 0\nstart p\nproc f() {\n  n = 1\n  repeat n - 5 {\n    n += 1\n  }\n}\n"
        "phase p {\n  f()\n  end draw\n}\n",
        (6, None), "-4"),
    "a fault in the third round of a repeat, in a pure proc": (
        "var n: int = 0\nvar m: int = 0\nstart p\nproc f() {\n  repeat 4 {\n    n += 1\n    if n == 2 {\n      continue\n    }\n"
        "    m = 6 / (3 - n)\n  }\n}\nphase p {\n  f()\n  end draw\n}\n",
        (11, 9), "division by zero"),  # the division
    "a pure loop's test fails on its third round": (
        "var n: int = 0\nstart p\nphase p {\n  while other(n) >= 0 max 5 {\n    n += 1\n  }\n  end draw\n}\n",
        (5, None), "`other(2)`"),
    "none in a zone whose index is out of range (the zone is still worked out)": (
        "seats 2\nkind Card { v: int }\nzone h per seat public\nvar k: Card = none\nvar i: int = 7\nvar n: int = 0\n"
        "start p\nphase p {\n  n = 1\n  if k in h[i] {\n    n = 2\n  }\n  end draw\n}\n",
        (11, 11), "`h[7]`"),  # `h[i]`
    "a thing not in a zone whose index is out of range": (
        "seats 2\nkind Card { v: int }\nzone h per seat public\nvar k: Card = none\nvar i: int = 7\nvar n: int = 0\n"
        "start p\nsetup {\n  create Card(v: 1) in h[0]\n  k = first(x for x in h[0])\n}\n"
        "phase p {\n  n = 1\n  if k not in h[i] {\n    n = 2\n  }\n  end draw\n}\n",
        (15, 15), "`h[7]`"),  # `h[i]`
    "a field of several kinds read on a thing of a third": (
        "kind K { v: int }\nkind J { v: int }\nkind M { w: int }\nzone z public\nvar n: int = 0\nstart p\nsetup {\n"
        "  create K(v: 1) in z\n  create M(w: 1) in z\n}\nphase p {\n  for k in z {\n    n += k.v\n  }\n  end draw\n}\n",
        (14, 10), "`.v` of 1, which has no such field"),  # `k.v` of #1, the M
    "a field of several kinds read on none": (
        "kind K { v: int }\nkind J { v: int }\nzone z public\nvar n: int = 0\nstart p\n"
        "phase p {\n  n = 1\n  n = first(x for x in z).v\n  end draw\n}\n",
        (9, 7), "`.v` of none"),  # nothing is in z: `first(...).v`
    "a list holding none moved": (
        "kind K { v: int }\nzone z public\nvar k: K = none\nvar n: int = 0\nstart p\nphase p {\n  n = 1\n  move [k] to z\n  end draw\n}\n",
        (9, 3), "none"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", FAULTS)
def test_a_fault_stops_the_game_at_its_statement_with_what_went_wrong(tmp_path, name, engine):
    # where each stops, worked out from its text: the statement (or, where the column is left
    # open, the expression in it) that does the impossible thing
    text, (line, col), words = FAULTS[name]
    err, _ = fault(tmp_path, 'game "x"\n' + text, engine)
    assert err.span.line == line and (col is None or err.span.col == col), (where(err), err.message)
    assert words in err.message


# ---------------------------------------------------------------------- choices
OPTIONAL_ELSE = """game "x"
seats 2
var n: int = 0
start p
phase p {
  choose c from [1, 2] where c > 5 by 0 optional else {
    n = 7
  }
  if n == 7 {
    end winner 0
  }
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_optional_choice_with_nothing_to_offer_takes_its_else(tmp_path, engine):
    # docs/language.md: with no option, a choice with an `else` runs it, `optional` or not
    s, _ = played(tmp_path, OPTIONAL_ELSE, engine)
    assert s.is_terminal() and s.outcome().winner == 0


WHERE_FAULT = """game "x"
seats 2
kind Card { v: int }
zone z public
var n: int = 0
start p
setup {
  create Card(v: 1) in z times 2
  create Card(v: 0) in z
  create Card(v: 3) in z
}
phase p {
  n = 1
  choose c from z where 6 / c.v > 1 by 0
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fault_inside_where_stops_at_the_choice(tmp_path, engine):
    # 6 / 1 twice, then the third card's v is 0
    err, _ = fault(tmp_path, WHERE_FAULT, engine)
    assert err.span.line == 14 and "division by zero" in err.message


CHOICE_FAULTS = {
    "nothing to choose from": (
        "seats 2\nkind Card { v: int }\nzone z public\nvar n: int = 0\nstart p\n"
        "setup {\n  create Card(v: 1) in z times 2\n}\n"
        "phase p {\n  n = 1\n  choose c from z where c.v > 1 by 0\n  end draw\n}\n",
        12, "`choose c` has nothing to choose from"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", CHOICE_FAULTS)
def test_a_choice_that_cannot_be_offered_is_a_located_fault(tmp_path, name, engine):
    text, line, words = CHOICE_FAULTS[name]
    err, _ = fault(tmp_path, 'game "x"\n' + text, engine)
    assert err.span.line == line and words in err.message


MEET = """game "x"
seats 2
var n: int = 0
start p
phase p {
  choose y from [0, 1] by 0
  if y == 1 {
    n += 7
  } else {
    choose w from 0..2 by 1
    n -= w
  }
  n += 1000
  say "{n}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("answers, n", [((1,), 1007), ((0, 2), 998), ((0, 0), 1000)])
def test_both_ways_of_a_branch_go_on_after_it(tmp_path, engine, answers, n):
    # y = 1: 7 + 1000; y = 0 then w = 2: -2 + 1000; y = 0, w = 0: 1000
    s, log = played(tmp_path, MEET, engine, answers)
    assert s.is_terminal() and said(log) == [str(n)]


LOOP_FAULT = """game "x"
seats 2
zone z public
var n: int = 0
start p
phase p {
  for s in seats {
    choose x from [1, 2] by s
    n += x
    if n > 1 {
      n = n / (n - n)
    }
  }
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fault_after_a_choice_inside_a_loop_is_located(tmp_path, engine):
    # seat 0 answers 2: n = 2 > 1, and n / 0 fails at once
    err, _ = fault(tmp_path, LOOP_FAULT, engine, answers=(1,))
    assert where(err) == (11, 11) and "division by zero" in err.message  # the division


@pytest.mark.parametrize("engine", ENGINES)
def test_a_phase_of_300_choices_in_a_row_asks_each(tmp_path, engine):
    text = 'game "x"\nseats 2\nvar v: int = 0\nstart p\nphase p {\n' + \
        "".join(f"  choose x{i} from [1, 2] by 0 optional\n" for i in range(300)) + "  end draw\n}\n"
    s, _ = played(tmp_path, text, engine)
    while not s.is_terminal():
        assert [a.text for a in s.legal_actions()][:2] == ["1", "2"]
        s.apply_index(0)
    assert s.choices == 300


# ---------------------------------------------------------------------- choices over every thing of a kind
CARDS = """game "x"
seats 2
kind Card { v: int }
kind Pawn { v: int }
kind Token { v: int }
zone pile per seat public ordered
zone spare public
zone other public
start p
fn first_pile(c: Card) = c in pile[0]
setup {
  create Card(v: 1) in pile[1]
  create Pawn(v: 7) in pile[0]
  create Card(v: 2) in spare
  create Card(v: 3) in pile[0]
  create Card(v: 4) in other
  create Card(v: 5) in pile[1]
  create Card(v: 6) in spare
  create Pawn(v: 8) in pile[1]
  create Card(v: 0) in pile[0]
}
phase p {
  LOCAL
  choose k from KIND where TEST by 0 optional
  end draw
}
"""
# the things made, by number: #0 Card 1 pile[1], #1 Pawn pile[0], #2 Card 2 spare, #3 Card 3
# pile[0], #4 Card 4 other, #5 Card 5 pile[1], #6 Card 6 spare, #7 Pawn pile[1], #8 Card 0 pile[0]


def cards(test: str, kind: str = "Card", local: str = "") -> str:
    return CARDS.replace("TEST", test).replace("KIND", kind).replace("  LOCAL\n", local)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text, offered", [
    (cards("k in spare or k in pile[0]"), ["#2", "#3", "#6", "#8", "pass"]),  # made first, offered first
    (cards("k in pile[0] or k in spare"), ["#2", "#3", "#6", "#8", "pass"]),
    (cards("k in pile[1] and k.v > 1"), ["#5", "pass"]),
    # the fn reads the zone `pile`, not the local of that name where the choice is
    (cards("first_pile(k)", local="  let pile = 3\n"), ["#3", "#8", "pass"]),
], ids=["spare-or-pile", "pile-or-spare", "zone-and-field", "fn-beside-a-local"])
def test_a_choice_over_a_kind_offers_its_things_in_the_order_they_were_made(tmp_path, engine, text, offered):
    s, _ = played(tmp_path, text, engine)
    assert [a.text for a in s.legal_actions()] == offered


@pytest.mark.parametrize("engine", ENGINES)
def test_a_choice_over_a_kind_of_which_nothing_was_made_is_passed_without_asking(tmp_path, engine):
    # docs/language.md, `choose`: when nothing but `pass` would be on offer, no choice is made
    s, _ = played(tmp_path, cards("k in pile[0]", kind="Token"), engine)
    assert s.is_terminal() and s.choices == 0 and str(s.outcome()) == "draw"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fault_in_a_where_over_a_kind_stops_at_the_first_thing_it_fails_for(tmp_path, engine):
    # in creation order, #3 (v 3) is the first Card in pile[0]: 10 / 0
    err, _ = fault(tmp_path, cards("k in pile[0] and 10 / (k.v - 3) > 0"), engine)
    assert where(err) == (23, 45) and "division by zero" in err.message  # the division


LAZY = """game "x"
seats 2
kind Card { v: int }
die d6 = 1..6
zone pool public
zone hand per seat public
var turn: int = 0
var rounds: int = 0
var bad: int = 0
var n: int = 0
start p
fn side_of(t: int) = if t % 4 == 0 then 0 else if t % 4 == 1 then 1 else if t % 4 == 2 then 1 else 0
setup {
  create Card(v: 1) in pool times 3
  create Card(v: 2) in pool times 3
  create Card(v: 3) in hand[0]
  create Card(v: 4) in hand[1] times 2
}
phase p {
  choose c from Card where roll d6 >= 1 and (c in hand[side_of(turn)] or c.v == 9 and c in hand[bad]) by turn % 2 else {
    n += 100
  }
  if c != none {
    move c to hand[(rounds + 1) % 2]
  }
  turn += 1
  rounds += 1
  say "r{rounds}"
  if rounds == 2 {
    bad = 5
  }
  if rounds == 4 {
    create Card(v: 9) in pool
  }
  if rounds > 8 {
    end draw
  }
  goto p
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_zone_index_out_of_range_faults_only_once_a_where_reaches_it(tmp_path, engine):
    # `hand[bad]` is out of range from round 2 on, but `and` reaches it only for a card of 9,
    # made at the end of round 4: the fifth pass of the choice stops
    err, log = fault(tmp_path, LAZY, engine)
    assert where(err) == (20, 92) and "`hand[5]`" in err.message  # `hand[bad]`
    assert said(log) == ["r1", "r2", "r3", "r4"]


# ---------------------------------------------------------------------- comprehensions
HEAD = """game "x"
seats 2
kind Card { v: int, side: int }
die d6 = 1..6
zone pool public
zone hand per seat public
var turn: int = 0
var n: int = 0
var m: int = 0
start p
setup {
  create Card(v: 1, side: 0) in pool times 3
  create Card(v: 2, side: 1) in pool times 3
  create Card(v: 3, side: 0) in hand[0]
  create Card(v: 4, side: 1) in hand[1] times 2
}
"""
COMPREHENSION_FAULT = HEAD + """phase p {
  turn += 1
  n += sum(12 / (c.v - turn) for c in pool if c.side >= 0)
  if turn > 5 {
    end draw
  }
  goto p
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fault_in_a_comprehensions_body_is_located_at_its_statement(tmp_path, engine):
    # turn is 1 in the first round, and the first card's v is 1
    err, _ = fault(tmp_path, COMPREHENSION_FAULT, engine)
    assert err.span.line == 19 and "division by zero" in err.message


STEPS = """game "x"
seats 2
kind Card { v: int }
zone pool public
var n: int = 0
limit steps 3000
start p
setup {
  create Card(v: 1) in pool times 40
}
phase p {
  loop max 1000000 {
    n += sum(c.v * 2 for c in pool if any(d.v == c.v for d in pool))
  }
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_the_items_allowance_stops_a_loop_of_comprehensions_inside_it(tmp_path, engine):
    # each round goes through the 40 cards, and for each the pool's 40 again (each `any` counts
    # its 40 as it starts): 1,640 items a round, so the allowance of 64 * 3000 = 192,000 is passed
    # in round 118, long before the 3000 steps (a few a round), in the phase `p`
    err, _ = fault(tmp_path, STEPS, engine)
    assert where(err) == (11, 1) and "went through more than 192000 items" in err.message


SLOT = """game "x"
seats 2
kind Card { v: int }
zone z public
var n: int = 0
var k: int = 0
start p
setup {
  create Card(v: 1) in z times 2
  create Card(v: 5) in z
}
phase p {
  n = sum(c.v for c in z)
  if any(c.v > 3 for c in z) {
    k = 1
  }
  say "{n} {k}"
  choose x from [1, 2] by 0
  n += x
  say "{n}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_sum_and_any_over_a_zone(tmp_path, engine):
    # 1 + 1 + 5 = 7; the card of 5 is over 3; then 2 chosen: 9
    s, log = played(tmp_path, SLOT, engine, answers=(1,))
    assert s.is_terminal() and said(log) == ["7 1", "9"]


OVER_NONE = """game "x"
seats 2
zone pool public
var n: int = 0
var l: list of int = [1, 2]
start p
phase p {
  n += sum(i for i in l) + count(every(z for z in pool))
  l = none
  n += sum(i for i in l)
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_var_set_to_none_is_refused_where_it_is_set(tmp_path, engine):
    # a var holding a list holds a list: `[]` stands for none (docs/language.md, 10)
    with pytest.raises(Unsupported) as caught:
        game(tmp_path, OVER_NONE, engine)
    assert caught.value.located().startswith(f"{tmp_path / 'g.vbr'}:9:7: error:")
    assert "`none` where a list is kept" in caught.value.located()


FIRST_FAULT = """game "x"
seats 2
kind Card { v: int, side: int }
kind Coin { worth: int }
zone pool public
zone spare public
start p
setup {
  create Card(v: 1, side: 0) in pool
  create Coin(worth: 5) in spare
}
phase p {
  let odd = first(x for x in spare if x.side == 9)
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_first_meeting_a_thing_of_another_kind_is_a_located_fault(tmp_path, engine):
    # the only thing in spare is a Coin: it has no `side`
    err, _ = fault(tmp_path, FIRST_FAULT, engine)
    assert where(err) == (13, 39) and "`.side` of 1, which is no Card" in err.message  # `x.side`


MIXED = """game "x"
seats 2
kind Card { a: int, b: int }
kind Token { t: int }
zone pool public
var n: int = 0
var flip: bool = false
start p
setup {
  create Card(a: 1, b: 2) in pool
  create Card(a: 2, b: 2) in pool
  create Token(t: 5) in pool
  create Card(a: 3, b: 1) in pool
}
phase p {
  for x in pool {
    if (flip and x.a == 1) or x.a + x.b > 2 and x.b == x.a + x.a - 1 {
      n += x.a * x.b + x.a
    }
    flip = not flip
  }
  end winner n % 2
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_field_read_past_a_short_circuit_faults_on_the_thing_without_it(tmp_path, engine):
    # flip is false at the first card and true at the second (neither meets the test), false
    # again at the Token: `flip and ...` stops early, and `x.a` of the Token fails
    err, _ = fault(tmp_path, MIXED, engine)
    assert where(err) == (17, 31) and "`.a` of 2, which is no Card" in err.message  # `x.a` after `or`


# ---------------------------------------------------------------------- names that are Python's
HOSTILE_NAMES = """game "x'); import os; ('"
seats 2
enum E { __import__, exec, os }
var __class__: int = 0
var eval: E = exec
start p
fn __globals__(x: int) = x + 1
phase p {
  __class__ = __globals__(__class__)
  choose system from [__import__, os] by 0 as "'); import os; os.system('x"
  eval = system
  say "'); __import__('os') {eval}"
  if __class__ >= 2 {
    end winner 1
  }
  goto p
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_names_and_texts_that_are_code_in_python_are_only_values(tmp_path, engine):
    # the second option is `os`, said in the text; __class__ is 1 after the first round and 2
    # after the second, which seat 1 wins
    s, log = played(tmp_path, HOSTILE_NAMES, engine, answers=(1, 0))
    assert [e["prompt"] for e in log if e["t"] == "choice"] == ["'); import os; os.system('x"] * 2
    assert said(log) == ["'); __import__('os') os", "'); __import__('os') __import__"]
    assert s.outcome().winner == 1


def nested_fors(depth: int, body: str, indent: int = 1) -> str:
    """`depth` nested `for` loops of one round each around `body`."""
    heads = "".join("  " * (indent + i) + f"for i{i} in [1] {{\n" for i in range(depth))
    tails = "".join("  " * (indent + i) + "}\n" for i in reversed(range(depth)))
    return heads + "  " * (indent + depth) + body + "\n" + tails


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text, n", [
    ("var n: int = 0\nstart p\nphase p {\n" + nested_fors(20, "n += 1") + '  say "{n}"\n  end draw\n}\n', 1),
    ("var n: int = 0\nstart p\nproc deep() {\n" + nested_fors(20, "n += 1")
     + "".join(f"  n += {i}\n" for i in range(60)) + '}\nphase p {\n  deep()\n  deep()\n  say "{n}"\n  end draw\n}\n',
     2 * (1 + sum(range(60)))),
], ids=["in-a-phase", "in-a-proc"])
def test_twenty_nested_loops_run(tmp_path, engine, text, n):
    # one round each: the innermost body runs once a call
    _, log = played(tmp_path, 'game "x"\n' + text, engine)
    assert said(log) == [str(n)]


# ---------------------------------------------------------------------- vars, events, procedures
@pytest.mark.parametrize("engine", ENGINES)
def test_a_var_range_wraps_or_clamps(tmp_path, engine):
    text = ('game "x"\nvar s: int = 0 range 0..4 wrap 1\nvar c: int = 0 range 0..3 clamp\n'
            'var hist: int = 0\nstart p\nphase p {\n  repeat 6 {\n    s += 1\n    c += 1\n    hist = hist * 10 + s\n  }\n'
            '  say "{hist} {c}"\n  end draw\n}\n')
    # s: 1, 2, 3, 4, then 4 + 1 wraps to 1, then 2; c stops at 3
    _, log = played(tmp_path, text, engine)
    assert said(log) == ["123412 3"]


RANGE_JUMPS = """game "x"
var s: int per seat = 0 range 0..4 wrap 1
var c: int = 0 range 0..3 clamp
start p
phase p {
  s[0] = 3
  s[0] += 7
  s[1] -= 2
  c -= 5
  say "{s} {c}"
  s[0] = none
  c = none
  say "{s[0]} {c}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_var_range_sends_a_jump_above_to_its_wrap_value_and_below_to_its_low_end(tmp_path, engine):
    # docs/language.md, `var`: "`wrap TO` sends a value above HI to TO and a value below LO to LO";
    # `clamp` keeps the nearer end; "Any var may hold none", ranged or not.
    # s[0]: 3 + 7 = 10 > 4, so 1 (not 10 counted round 1..4); s[1]: 0 - 2 < 0, so 0; c: -5, so 0
    _, log = played(tmp_path, RANGE_JUMPS, engine)
    assert said(log) == ["[1, 0] 0", "none none"]



@pytest.mark.parametrize("engine", ENGINES)
def test_a_var_starts_within_its_range(tmp_path, engine):
    # docs/language.md, `var`: the initial value is held to the range: 7 clamped to 0..3 is 3;
    # per seat, 9 wraps to 1 and -2 goes to the low end 0; a const of 5 in a plain 0..3 is an error
    # at its var, line 5 (a number written there is refused by the checker: test_var_declarations.py)
    text = ('game "x"\nvar m: int = 7 range 0..3 clamp\nvar w: int per seat = [9, -2] range 0..4 wrap 1\n'
            'var q: int = 2 range 0..3\nstart p\nphase p {\n  say "{m} {w} {q}"\n  end draw\n}\n')
    _, log = played(tmp_path, text, engine)
    assert said(log) == ["3 [1, 0] 2"]
    err, _ = fault(tmp_path, text.replace("var q: int = 2", "const Q = 5\nvar q: int = Q"), engine)
    assert where(err) == (5, 1) and "`q` = 5 is out of its range 0..3" in err.message

@pytest.mark.parametrize("engine", ENGINES)
def test_an_event_runs_its_handlers_in_order_and_a_guard_holds_one_back(tmp_path, engine):
    text = ('game "x"\nvar log: int = 0\nevent scored(n: int)\n'
            'on scored(n: int) {\n  log = log * 10 + n\n}\n'
            'on scored(n: int) when n > 1 {\n  log = log * 10 + 9\n}\n'
            'start p\nphase p {\n  emit scored(1)\n  emit scored(2)\n  say "{log}"\n  end draw\n}\n')
    # scored(1): the first handler only (1); scored(2): both, in order (2, then 9)
    _, log = played(tmp_path, text, engine)
    assert said(log) == ["129"]


RESULTS = """game "results"
seats 2
var got: int = 0
var far: int = 0
start p
proc maybe(n: int): int {
  if n > 5 {
    return n
  }
}
proc ask(s: int): int {
  choose k from [1, 2, 3] by s as "how many"
  return k * 10
}
proc nested(s: int): int {
  let a = ask(s)
  return a + 1
}
phase p {
  let a = maybe(7)
  let b = maybe(1)
  got = ask(1)
  far = nested(0)
  end winner (if a == 7 and b == none and got == 20 and far == 31 then 1 else 0)
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_procedure_returns_a_value_across_its_choices(tmp_path, engine):
    # 7 is returned, 1 falls off the end (none), 2 chosen gives 20, 3 chosen in a nested call 31
    s, log = played(tmp_path, RESULTS, engine)
    assert s.current_player() == 1
    s.apply_index(1)
    assert s.current_player() == 0
    s.apply_index(2)
    assert [e["prompt"] for e in log if e["t"] == "choice"] == ["how many", "how many"]
    assert s.outcome().winner == 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text, message", [
    ("proc f() {\n  return 1\n}\n", "`return` with a value needs a declared result type: `proc f(...): TYPE`"),
    ("event e()\non e() {\n  return 1\n}\n", "`return` with a value needs a declared result type"),
    ("proc f(): int {\n  return true\n}\n", "the returned value must be int"),
    ("proc f() {\n  say \"x\"\n}\nphase q {\n  let x = f()\n  end draw\n}\n", "`f` gives no value: declare its result type"),
    ("proc f(): int {\n  return 1\n}\nphase q {\n  let x = f() + 1\n  end draw\n}\n",
     "`f` is a procedure: take its result whole (`let x = f(...)` or `x = f(...)`)"),
    ("var n: int = 0\nphase q {\n  n = max(true, 1)\n  end draw\n}\n", "`max`'s argument must be int, not bool"),
    ("var n: int = 0\nphase q {\n  n = max(1, true)\n  end draw\n}\n", "`max`'s argument must be int, not bool"),
])
def test_a_procedures_result_and_maxs_arguments_are_checked(tmp_path, engine, text, message):
    with pytest.raises(VbrError) as exc:
        game(tmp_path, 'game "g"\nseats 2\nstart p\nphase p {\n  end draw\n}\n' + text, engine)
    assert message in exc.value.render()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_procedure_calling_itself_stops_at_the_depth_limit(tmp_path, engine):
    text = ('game "x"\nlimit depth 30\nvar n: int = 0\nstart p\nproc deeper() {\n  n += 1\n  say "{n}"\n  deeper()\n}\n'
            'phase p {\n  deeper()\n  end draw\n}\n')
    # the phase's frame and 29 calls make 30 frames: the 29th call's own call is refused, at the
    # procedure it could not enter
    err, log = fault(tmp_path, text, engine)
    assert where(err) == (5, 1) and "calls nest deeper than 30" in err.message
    assert said(log) == [str(i) for i in range(1, 30)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_procedure_calling_itself_across_choices_stops_at_its_call(tmp_path, engine):
    text = ('game "x"\nvar n: int = 0\nstart p\nproc deeper() {\n  choose x from [1, 2] by 0 else {\n'
            '    return\n  }\n  n += 1\n  deeper()\n}\nphase p {\n  deeper()\n  end draw\n}\n')
    err, _ = fault(tmp_path, text, engine)
    assert where(err) == (4, 1) and "calls nest deeper than 200" in err.message  # the default depth


# ---------------------------------------------------------------------- seats and teams
BY_TEAM = """game "pairs"
seats 3 teams { red: 0 2 blue: 1 ghost: }
var who: int = 0
start p
phase p {
  choose s from [0, 2] by team 0 as "which of you serves"
  choose k from [1, 2] by team 1 as "blue decides"
  who = s
  GHOST
  end winner who
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_choose_by_team_asks_the_teams_first_seat(tmp_path, engine):
    s, log = played(tmp_path, BY_TEAM.replace("  GHOST\n", ""), engine)
    assert s.current_player() == 0  # red's first seat
    s.apply_index(1)
    assert s.current_player() == 1  # blue's
    s.apply_index(0)
    assert [e["prompt"] for e in log if e["t"] == "choice"] == ["which of you serves", "blue decides"]
    assert s.outcome().winner == 2  # red chose seat 2


@pytest.mark.parametrize("engine", ENGINES)
def test_choose_by_a_team_without_seats_is_a_located_fault(tmp_path, engine):
    s, _ = played(tmp_path, BY_TEAM.replace("GHOST", 'choose x from [7] by team 2 as "nobody can"'), engine)
    s.apply_index(1)
    with pytest.raises(VbrRuntimeError) as exc:
        s.apply_index(0)
    assert exc.value.span.line == 9 and "`by team 2`: that team has no seat to answer" in exc.value.message


@pytest.mark.parametrize("engine", ENGINES)
def test_choose_by_team_wants_a_team_number(tmp_path, engine):
    with pytest.raises(VbrError) as exc:
        game(tmp_path, BY_TEAM.replace("  GHOST\n", "").replace("by team 1 as", 'by team "blue" as'), engine)
    assert ":7:" in exc.value.render() and "`by team`" in exc.value.render()


PARTNERS = """game "x"
seats 4 teams { a: 0 2 b: 1 3 }
kind C { v: int }
zone hand per seat owner
zone shared per team team
setup {
  for s in seats {
    create C(v: s) in hand[s]
  }
  create C(v: 9) in shared[0]
}
start p
phase p {
  choose c from hand[partner(0)] by 0
  end winner partner(1)
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_partner_and_a_zone_a_team_sees(tmp_path, engine):
    # seat 0's partner is 2, whose card is #2; the team zone of a (0, 2) shows its things to 2
    # and only its size to 1; seat 1's partner, 3, wins
    s, _ = played(tmp_path, PARTNERS, engine)
    assert [a.text for a in s.legal_actions()] == ["#2"]
    assert isinstance(s.observation(2)["zones"]["shared[0]"], list)
    assert s.observation(1)["zones"]["shared[0]"] == 1
    s.apply_index(0)
    assert s.outcome().winner == 3


SOLO = """game "Solo"
seats 1 teams { you: 0 ai: }
var score: int per team = 0
points score
die d = [0, 1]
start p
phase p {
  let t = roll d
  score[t] += 1
  if score[t] >= 2 {
    end winner team t
  }
  goto p
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_team_with_no_seat_is_played_by_the_rules_and_its_win_is_every_seats_loss(tmp_path, engine):
    g = game(tmp_path, SOLO, engine)
    outcomes = [g.new_state(seed).outcome() for seed in range(16)]
    assert {o.team for o in outcomes} == {0, 1}  # each side scores 2 first in some game
    for o in outcomes:
        assert o.by_team and o.winner == (0 if o.team == 0 else None)
        assert max(o.points) == 2 and o.points[o.team] == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_sim_counts_wins_per_team_when_a_team_has_no_seat(tmp_path, capsys, engine):
    import json
    from vbr.cli import main
    p = tmp_path / "solo.vbr"
    p.write_text(SOLO.replace("  let t = roll d\n", "  choose x from [0, 1] by 0\n  let t = roll d\n"))
    assert main(["sim", str(p), "-n", "60", "--json", "--agents", "greedy", "--engine", engine]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["sides"] == "team" and set(stats["wins"]) == {"0", "1"}
    assert sum(stats["wins"].values()) == 60 and stats["wins"]["1"] > 0 and stats["draws"] == 0


FACE_DOWN = """game "face down"
seats 2
kind Card { v: int }
zone hand per seat owner
zone pile public
var laid: Card = none
start p
setup {
  create Card(v: 1) in hand[0]
  create Card(v: 2) in hand[0]
}
phase p {
  choose c from hand[0] by 0 as "lay one"
  laid = c
  choose g from hand[0] by 1 as "guess blind"
  move g to pile
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_observation_never_names_a_card_the_seat_cannot_see(tmp_path, engine):
    # seat 0 lays #1 (a public var naming a card in its hand) and seat 1 guesses blind among
    # that hand's cards: seat 1 reads `hidden` for both, until #0 reaches the public pile
    s, _ = played(tmp_path, FACE_DOWN, engine, answers=(1,))
    assert s.observation(0)["vars"]["laid"] == "#1"
    assert s.observation(1)["vars"]["laid"] == "hidden"
    assert s.observation(1)["legal"] == ["hidden", "hidden"]
    s.apply_index(0)
    assert s.observation(1)["zones"]["pile"] == ["#0 Card(v=1)"]
    assert s.observation(1)["vars"]["laid"] == "hidden"  # #1 is still in seat 0's hand


# ---------------------------------------------------------------------- the court, and say's text
SPACES = """game "x"
court {
  rows 2
  cols 3
  space serve at row 0 col 3
  space bench at row 1 col 0
}
var serve: int = 4
start p
phase p {
  let bench = 2
  say "{space(serve, 0)} {space(bench, 1)} {row(space(serve, 1))} {col(space(bench, 0))} {serve} {bench}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_space_takes_the_courts_bare_space_name_even_where_a_var_or_local_has_it(tmp_path, engine):
    # docs/language.md, section 6: space(NAME, side) takes the space's bare name; no enum is needed,
    # and the var `serve` and the local `bench` stay what they are. Spaces print `@SIDE:NAME`; the
    # serve space is at row 0, the bench space at column 0 of each side's own frame.
    _, log = played(tmp_path, SPACES, engine)
    assert said(log) == ["@0:serve @1:bench 0 0 4 2"]


SAID_TEXT = """game "x"
kind Card { value: int, toss: bool }
zone z public
var gone: int = none
start p
phase p {
  create Card(value: 5) in z
  say "{gone} {top(z)} {[top(z), bottom(z)]} {[gone, 1]}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_say_hole_shows_none_as_none_and_an_entity_with_its_fields(tmp_path, engine):
    # docs/language.md, section 3 and `say`: none on its own reads `none`, an entity `#N Kind(fields)`
    # with a none field reading `pass`; inside a list, the canonical text (`#0`, `pass`)
    _, log = played(tmp_path, SAID_TEXT, engine)
    assert said(log) == ["none #0 Card(value=5, toss=pass) [#0, #0] [pass, 1]"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fn_named_as_a_built_in_is_refused_where_it_is_declared(tmp_path, engine):
    # docs/language.md, section 6: a rule file's fn cannot take a built-in's name
    text = 'game "x"\nfn max(a: int, b: int) = a\nstart p\nphase p {\n  say "{max(1, 5)}"\n  end draw\n}\n'
    with pytest.raises(VbrError) as info:
        game(tmp_path, text, engine)
    assert where(info.value) == (2, 1) and "`max` is a built-in function" in info.value.message


UNCOUNTED = """game "x"
limit steps 2
kind C { v: int }
zone z public
var n: int = 0
start p
phase p {
  create C(v: 1) in z times 50
  let xs = 1..50
  choose x from xs by 0
  say "{count(z)} {x}"
  if n == 0 {
    n += 1
  }
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_steps_count_units_started_not_a_creates_things_a_ranges_numbers_or_a_choices_options(tmp_path, engine):
    # docs/language.md, Run-time limits: the set-up and the start of phase p are the game's 2
    # steps; the 50 things, the 50 numbers, the 50 options, the choice, the `if` and `end` cost
    # none, so `limit steps 2` plays to the end and `limit steps 1` stops where p starts
    _, log = played(tmp_path, UNCOUNTED, engine, answers=[49])
    assert said(log) == ["50 50"]
    err, log = fault(tmp_path, UNCOUNTED.replace("limit steps 2", "limit steps 1"), engine)
    assert "more than 1 steps" in err.message and where(err) == (7, 1) and said(log) == []


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("times, shown", [("k - 4", "-1"), ("k + 9998", "10001"), ("none", "none")],
                         ids=["negative", "past-10000", "none"])
def test_a_create_times_out_of_0_to_10000_is_a_located_fault(tmp_path, engine, times, shown):
    # docs/language.md, Run-time limits: `create ... times n` makes 0 to 10,000 things; k is 3 here
    text = ('game "x"\nkind C { v: int }\nzone z public\nstart p\nphase p {\n  let k = 3\n'
            f'  create C(v: 1) in z times {times}\n  say "{{count(z)}}"\n  end draw\n}}\n')
    err, log = fault(tmp_path, text, engine)
    assert where(err) == (7, 3) and f"`create ... times {shown}`: out of 0..10000" in err.message
    assert said(log) == []


TEAM_VOICE = """game "x"
seats 4 teams { a: 0 2  b: 1 3 }
kind C { v: int }
zone hand per seat owner
zone pile per team team
setup {
  for s in seats {
    create C(v: s) in hand[s]
  }
  create C(v: 9) in pile[0]
}
start p
phase p {
  choose y from hand[2] by team 0
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_team_choice_is_seen_by_its_first_seat_as_that_seat_sees(tmp_path, engine):
    # docs/language.md, `choose ... by team`: seat 0 answers for team a and sees what seat 0 sees:
    # its own hand and team a's pile (#0 and #4), not its partner seat 2's hand, whose card (#2)
    # it is offered as `hidden`
    s, _ = played(tmp_path, TEAM_VOICE, engine)
    seen = s.observation(0)
    assert s.current_player() == 0 and seen["legal"] == ["hidden"]
    assert seen["zones"]["hand[0]"] == ["#0 C(v=0)"] and seen["zones"]["pile[0]"] == ["#4 C(v=9)"]
    assert seen["zones"]["hand[2]"] == 1


NONE_ORDERED = """game "x"
kind C { v: int }
zone z public
var n: int = 3
start p
phase p {
  say "{n < 5} {n >= 3} {top(z) == none}"
  n = none
  if n > 1 {
    say "above"
  }
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_ordering_none_is_a_located_fault(tmp_path, engine):
    # docs/language.md, 5.1: `<`, `<=`, `>`, `>=` work on numbers (== and != on any values), and
    # section 3: none used where a value is needed is a run-time error, at the comparison (9:6)
    err, log = fault(tmp_path, NONE_ORDERED, engine)
    assert said(log) == ["true true true"]
    assert where(err) == (9, 6) and "`>` compares numbers, not none" in err.message


NONE_BY_WAY_OF = """game "x"
var count: int = 0
var got: int = 0
var copy: int = 0
start p
proc nothing(): int {
  if count > 5 {
    return 1
  }
}
phase p {
  count += 1
  got = count + 1
  copy = got
  got = nothing()
  copy = got
  say "{count > 0} {count + 1}"
  if copy > 1 {
    say "above"
  }
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_var_given_none_by_way_of_a_field_and_another_var_is_tested_where_it_is_compared(tmp_path, engine):
    # `count` only ever holds numbers; `got` takes what `nothing` gives (it runs off its end:
    # none, docs/language.md `proc`) and `copy` takes it from `got`: comparing `copy` is the
    # fault at 18:6
    err, log = fault(tmp_path, NONE_BY_WAY_OF, engine)
    assert said(log) == ["true 2"]
    assert where(err) == (18, 6) and "`>` compares numbers, not none" in err.message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("call", ["max(n, 2)", "min(n, 2)", "max(2, n)"])
def test_max_or_min_of_two_with_none_is_a_located_fault(tmp_path, engine, call):
    # docs/language.md, section 6: max(a, b) and min(a, b) of two numbers; none is no number
    text = ('game "x"\nvar n: int = 4\nstart p\nphase p {\n  say "{max(n, 2)} {min(n, 2)}"\n  n = none\n'
            f'  say "{{{call}}}"\n  end draw\n}}\n')
    err, log = fault(tmp_path, text, engine)
    assert said(log) == ["4 2"] and where(err) == (7, 9) and f"`{call[:3]}` of none" in err.message


NONE_CONDITION = """game "x"
kind Member { down: bool }
zone members public
var n: int = 0
start p
setup {
  create Member(down: false) in members
  create Member() in members
}
phase p {
  say "{every(m.down == none for m in members)}"
  choose m from members where WHERE by 0
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where_, at", [("not m.down", (12, 35)), ("m.down or n == 0", (12, 31))], ids=["not", "or"])
def test_a_condition_that_is_none_is_a_located_fault(tmp_path, engine, where_, at):
    # docs/language.md: a field not given at `create` is none; conditions must be bool, and none
    # used where a value is needed is a run-time error: the second member's `down`, where it is read
    err, log = fault(tmp_path, NONE_CONDITION.replace("WHERE", where_), engine)
    assert said(log) == ["[false, true]"]
    assert where(err) == at and "this condition is none, neither true nor false" in err.message


@pytest.mark.parametrize("engine", ENGINES)
def test_a_condition_that_holds_a_bool_is_read_as_it_is(tmp_path, engine):
    # the same file with both members given `down`: `not m.down` offers the one that is up
    text = NONE_CONDITION.replace("create Member() in members", "create Member(down: true) in members")
    s, log = played(tmp_path, text.replace("WHERE", "not m.down"), engine)
    assert said(log) == ["[false, false]"] and [str(a) for a in s.legal_actions()] == ["0 #0"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("loop, at", [("for x in 1..n {", (7, 15)), ("for x in n..3 {", (7, 12)),
                                      ("repeat sum(x for x in 1..n) {", (7, 28))], ids=["hi", "lo", "in-a-sum"])
def test_a_range_with_an_end_that_is_none_is_a_located_fault(tmp_path, engine, loop, at):
    # docs/language.md, 5.3: `A..B` is the whole numbers from A to B; none is no number (section 3),
    # so a range ending in none stops at that end rather than being empty (k was 3, n none)
    text = ('game "x"\nvar n: int = none\nvar k: int = 3\nstart p\nphase p {\n  say "{every(x for x in 1..k)}"\n'
            f'  {loop}\n  }}\n  end draw\n}}\n')
    err, log = fault(tmp_path, text, engine)
    assert said(log) == ["[1, 2, 3]"] and where(err) == at and "this end of a range is none" in err.message


COURT_SIDE = """game "x"
court { rows 2 cols 3 field 1 at row 1 col 1 space serve at row 0 col 1 }
direction forward = (0, 1)
var s: int = 1
start p
phase p {
  say "{step(field(0, 1), forward, s, 1)}"
  s = 2
  say "{CALL}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("call, at, what", [("step(field(0, 1), forward, s, 1)", (9, 36), "step"),
                                            ("step(field(0, 1), forward, s, 1, 0)", (9, 36), "step"),
                                            ("reach(field(0, 1), 1, s, [forward])", (9, 31), "reach"),
                                            ("space(serve, s)", (9, 9), "space")], ids=["step", "step-paying", "reach", "space"])
def test_a_court_side_other_than_0_or_1_is_a_located_fault(tmp_path, engine, call, at, what):
    # docs/language.md, `court` and section 6: a court has sides 0 and 1; side 1 reads side 0's
    # frame turned round (from field 1, one step forward for side 1 is the serve space behind it);
    # side 2 is an error at the side given (at the call, for `space`)
    err, log = fault(tmp_path, COURT_SIDE.replace("CALL", call), engine)
    assert said(log) == ["@0:serve"] and where(err) == at and f"`{what}`: there is no side 2 (0 or 1)" in err.message


# ---------------------------------------------------------------------- a book: Siatka
def random_game(g, seed: int):
    """A game of `g` from `seed`, each option drawn by random.Random(seed): the points after
    every choice and the state at the end."""
    s, rng, points = g.new_state(seed), random.Random(seed), []
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal and all(a.seat == s.current_player() for a in legal)
        s.apply_index(rng.randrange(len(legal)))
        points.append(s.points())
    return points, s


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", [{}, {"abilities": True, "block_marker": True, "rotation": True}])
def test_siatka_scores_never_fall_and_the_winner_has_nine(engine, options):
    g = load(SIATKA, options, engine=engine)
    for seed in range(3):
        points, s = random_game(g, seed)
        assert all(b >= a for a, b in zip(points, points[1:]) for a, b in zip(a, b))
        out = s.outcome()
        assert out.winner in (0, 1) and max(out.points) == 9 and out.points[out.winner] == 9


@pytest.mark.parametrize("engine", ENGINES)
def test_siatka_holds_its_36_things_and_deals_three_to_each_hand(engine):
    # [Setup]: 6 tiles and 12 tactic cards a seat; a hand of three, nine left face down
    s = load(SIATKA, {}, engine=engine).new_state(5)
    o0, o1 = s.observation(0), s.observation(1)
    assert sum(len(z) if isinstance(z, list) else z for z in o0["zones"].values()) == 36
    assert isinstance(o0["zones"]["hand[0]"], list) and len(o0["zones"]["hand[0]"]) == 3
    assert o0["zones"]["hand[1]"] == 3  # only the size of the other hand
    assert o1["zones"]["deck[1]"] == 9  # a face-down deck: only its size, even to its owner
    assert isinstance(o1["zones"]["discard[0]"], list)  # public
    mover = s.current_player()
    assert "legal" in s.observation(mover) and "legal" not in s.observation(1 - mover)


@pytest.mark.parametrize("engine", ENGINES)
def test_siatka_placement_offers_six_tiles_then_one_fewer_each_time(engine):
    # each seat places its 6 tiles one by one: 6, 5, ..., 1 left to choose from
    s = load(SIATKA, {"abilities": True, "block_marker": True}, engine=engine).new_state(7)
    counts = []
    for _ in range(12):
        counts.append(len(s.legal_actions()))
        s.apply_index(0)
    assert counts == [6, 5, 4, 3, 2, 1] * 2


@pytest.mark.parametrize("engine", ENGINES)
def test_siatka_the_same_seed_plays_the_same_game(engine):
    g = load(SIATKA, {"abilities": True}, engine=engine)

    def log_of(seed):
        log: list = []
        s, rng = g.new_state(seed, log), random.Random(seed)
        while not s.is_terminal():
            s.apply_index(rng.randrange(len(s.legal_actions())))
        return log
    assert log_of(42) == log_of(42) and log_of(42) != log_of(43)


@pytest.mark.parametrize("engine", ENGINES)
def test_actions_round_trip_through_text_and_an_illegal_one_is_refused(engine):
    s = load(SIATKA, {}, engine=engine).new_state(1)
    for a in s.legal_actions():
        assert Action.parse(str(a)) == a
    with pytest.raises(IllegalActionError):
        s.apply(Action(1 - s.current_player(), s.legal_actions()[0].text))
    with pytest.raises(IllegalActionError, match="not legal here"):
        s.apply(Action(s.current_player(), "#999"))


@pytest.mark.parametrize("engine", ENGINES)
def test_cattack_imagined_worlds_deal_other_hands_anew_keeping_what_the_seat_sees(engine):
    # team decks (`per team hidden`) and seat hands (`per seat owner`): an imagined world keeps
    # the seat's own view, and deals every other hand anew in some world
    s = load(ROOT / "rules" / "cattack.vbr", {"players": 4}, engine=engine).new_state(3)
    for _ in range(6):
        s.apply_index(0)
    seat = s.current_player()
    seen = s.observation(seat)
    worlds = [s.determinize(seat, k) for k in range(8)]
    hands = [f"hand[{t}]" for t in range(4) if t != seat]
    for w in worlds:
        assert w.observation(seat) == seen
    for h in hands:
        assert any(w.observation(int(h[5:-1]))["zones"][h] != s.observation(int(h[5:-1]))["zones"][h]
                   for w in worlds), h


# ---------------------------------------------------------------------- the corpus of every construct
CORPUS = sorted((FIXTURES / "valid").glob("every_construct_*.vbr"))


def test_the_corpus_of_every_construct_is_there_and_canonical():
    from vbr.grammar.parser import parse
    from vbr.grammar.printer import program
    assert len(CORPUS) >= 2
    for path in CORPUS:
        text = path.read_text()
        assert program(parse(text, str(path))) == text, f"run `vbr fmt {path}`"
        assert text.splitlines()[1].startswith("# "), "a header comment says what the file is for"


# The node classes of vbr.grammar.ast that never stand in a body or an expression.
NOT_IN_BODIES = {
    "Node", "Expr", "Stmt", "Decl", "GameFile", "Comment", "TestFile", "Scenario", "ScenarioStep", "TypeRef", "Param",
    "Team", "Field", "CourtItem", "VarRange", "Extends", "Seats", "Option", "Enum", "Kind", "Zone", "Court",
    "Direction", "Die", "Var", "Const", "Fn", "Proc", "Event", "Handler", "Phase", "Stage", "Setup", "StartAt",
    "Points", "Limit", "Require", "Measure"}


def test_the_corpus_of_every_construct_holds_every_node_class_and_builtin():
    from vbr.builtin_signatures import SIGNATURES
    from vbr.grammar import ast as A
    from vbr.loader import load_rules

    def below(cls):
        return [cls] + [c for sub in cls.__subclasses__() for c in below(sub)]
    classes = {c.__name__ for c in below(A.Node) if c.__module__ == A.__name__}
    assert NOT_IN_BODIES <= classes | {"Node", "Expr", "Stmt", "Decl"}
    nodes = [n for path in CORPUS for d in load_rules(path).decls for n in A.walk(d)]
    assert classes - NOT_IN_BODIES - {type(n).__name__ for n in nodes} == set()
    assert set(SIGNATURES) - {n.func for n in nodes if isinstance(n, A.Call)} == set()
