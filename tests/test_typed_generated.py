"""Rule files that hypothesis writes (any nesting of aggregates in a choice's `where` and in a
number; any `where` of zones, guards and fns over every thing of a kind) under the typed engines:
the Python and the C engine offer the same options, hold the same words after every choice and
end alike, or stop with the same located error; and each game keeps what its text promises
whatever the generated expressions: it ends within its rounds, offers only what its `choose`
may offer, and (where the winner follows from the choices) names the winner the choices make."""
from __future__ import annotations

import re

from hypothesis import given, settings, strategies as hs

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

EXAMPLES = max(12, settings.default.max_examples // 4)  # a C build each: fewer than elsewhere; more under soak

# ------------------------------------------------------------------- aggregates nested in any way
AGGREGATES = """seats 2
kind Card { v: int, side: int }
zone pool public
zone hand per seat public
var n: int = 0
var k: int = 2
start p
setup {
  create Card(v: 1, side: 0) in pool
  create Card(v: 2, side: 1) in pool
  create Card(v: 3, side: 1) in pool
  create Card(v: 0, side: 0) in pool
  create Card(v: 3, side: 0) in hand[0]
  create Card(v: 0, side: 1) in hand[1]
}
phase p {
  choose c from pool where TEST by n % 2 else {
    n += 1
  }
  if c != none {
    move c to hand[n % 2]
  }
  n += NUMBER
  k += 1
  if k > 4 {
    end winner n % 2
  }
  goto p
}
"""
POOL_ZONES = ("pool", "hand[0]", "hand[1]", "hand[n % 2]")


@hs.composite
def vbr_number(draw, depth: int, cards: tuple, ints: tuple):
    """An int expression of the rule language: fields of the cards in scope, ints in scope, and
    comprehensions of every kind nested in one another, reading what is around them."""
    leaves = [hs.integers(0, 3).map(str), hs.just("n"), hs.just("count(pool)")]
    leaves += [hs.sampled_from(cards).flatmap(lambda c: hs.sampled_from((f"{c}.v", f"{c}.side")))] if cards else []
    leaves += [hs.sampled_from(ints)] if ints else []
    if depth <= 0:
        return draw(hs.one_of(*leaves))
    name = f"y{depth}"
    sub = vbr_number(depth - 1, cards, ints)
    test = vbr_truth(depth - 1, cards, ints)
    over_cards = vbr_number(depth - 1, (*cards, name), ints)
    card_test = vbr_truth(depth - 1, (*cards, name), ints)
    over_ints = vbr_number(depth - 1, cards, (*ints, name))
    int_test = vbr_truth(depth - 1, cards, (*ints, name))
    zone = hs.sampled_from(POOL_ZONES)
    return draw(hs.one_of(
        *leaves,
        hs.tuples(sub, sub).map(lambda p: f"({p[0]} + {p[1]})"),
        hs.tuples(test, sub, sub).map(lambda p: f"(if {p[0]} then {p[1]} else {p[2]})"),
        hs.tuples(over_cards, zone, card_test).map(lambda p: f"sum({p[0]} for {name} in {p[1]} if {p[2]})"),
        hs.tuples(over_ints, sub, int_test).map(lambda p: f"sum({p[0]} for {name} in 0..{p[1]} if {p[2]})"),
        hs.tuples(over_cards, zone, card_test).map(lambda p: f"count(every({p[0]} for {name} in {p[1]} if {p[2]}))"),
        hs.tuples(zone, card_test).map(lambda p: f"count(every({name} for {name} in {p[0]} if {p[1]}))"),
        hs.tuples(over_cards, zone).map(lambda p: f"max(every({p[0]} for {name} in {p[1]}))"),
        hs.tuples(zone, card_test).map(lambda p: f"first({name} for {name} in {p[0]} if {p[1]}).v"),
    ))


@hs.composite
def vbr_truth(draw, depth: int, cards: tuple, ints: tuple):
    sub = vbr_number(max(depth - 1, 0), cards, ints)
    name = f"z{depth}"
    shapes = [hs.tuples(sub, sub).map(lambda p: f"{p[0]} == {p[1]}"),
              hs.tuples(sub, sub).map(lambda p: f"{p[0]} < {p[1]}")]
    if cards:
        shapes.append(hs.tuples(hs.sampled_from(cards), hs.sampled_from(POOL_ZONES)).map(lambda p: f"{p[0]} in {p[1]}"))
    if depth > 0:
        inner = vbr_truth(depth - 1, cards, ints)
        card_test = vbr_truth(depth - 1, (*cards, name), ints)
        zone = hs.sampled_from(POOL_ZONES)
        shapes += [
            hs.tuples(inner, inner).map(lambda p: f"({p[0]} and {p[1]})"),
            hs.tuples(inner, inner).map(lambda p: f"({p[0]} or {p[1]})"),
            inner.map(lambda a: f"not ({a})"),
            hs.tuples(card_test, zone).map(lambda p: f"any({p[0]} for {name} in {p[1]})"),
            hs.tuples(card_test, zone, card_test).map(lambda p: f"all({p[0]} for {name} in {p[1]} if {p[2]})"),
        ]
    return draw(hs.one_of(*shapes))


# ------------------------------------------------------------------- any `where` over every Card
EVERY_CARD = """seats 2
kind Card { v: int }
kind Pawn { v: int }
zone pile per seat public ordered
zone spare public
zone other public
var n: int = 0
var flag: bool = true
var rounds: int = 0
start p
fn mine(c: Card, s: seat) = c in pile[s] or (flag and c in spare)
fn ahead(c: Card) = c.v > 1 and c in other
fn held(s: seat) = pile[s]
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
  choose k from Card where TEST by rounds % 2 optional
  if k != none {
    move k to DEST
    n += k.v
  }
  flag = not flag
  rounds += 1
  if rounds > 6 {
    end winner n % 2
  }
  goto p
}
"""
CARD_VALUES = {0: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 8: 0}  # the Cards by number (#1 and #7 are Pawns)
CARD_ZONES = ("pile[0]", "pile[1]", "pile[n % 3]", "spare", "other", "held(rounds % 2)")
GUARDS = ("flag", "not flag", "n > 4", "10 / (rounds - 3) > 1", "count(spare) > 1")
TESTS_OF_K = ("k.v > 2", "k.v != 4", "10 / (k.v - 2) > 2", "any(c.v > k.v for c in spare)")


@hs.composite
def condition(draw, depth: int):
    """A `where` over k: zones, guards, tests of k, fns, and/or in any nesting."""
    leaves = [hs.sampled_from(CARD_ZONES).map(lambda z: f"k in {z}"), hs.sampled_from(TESTS_OF_K),
              hs.sampled_from(("mine(k, 0)", "mine(k, rounds % 2)", "ahead(k)"))]
    if depth <= 0:
        return draw(hs.one_of(*leaves))
    inner = condition(depth - 1)
    shapes = leaves + [
        hs.tuples(inner, inner).map(lambda p: f"({p[0]} and {p[1]})"),
        hs.tuples(inner, inner).map(lambda p: f"({p[0]} or {p[1]})"),
        hs.tuples(hs.sampled_from(GUARDS), inner).map(lambda p: f"({p[0]} and {p[1]})"),
    ]
    return draw(hs.one_of(*shapes))


# ------------------------------------------------------------------- playing them
def _play(new_state, seed: int) -> tuple[list, str]:
    """What each choice offered, the option taken and the words after it, and how the game of
    `seed` ended (its outcome, or its located error), answered by a rule of the seed and the
    choice's number."""
    trail = []
    try:
        s, k = new_state(seed), 0
        while not s.is_terminal():
            offered = [str(x) for x in s.legal_actions()]
            i = (seed * 7 + k * 3) % len(offered)
            s.apply_index(i)
            trail.append((offered, offered[i], [int(x) for x in s.words_in_use()]))
            k += 1
        return trail, str(s.outcome())
    except VbrRuntimeError as e:
        return trail, "error: " + e.render()


def _games_alike(tmp_path_factory, text: str) -> tuple[str, list]:
    """The generated game's text, and its three seeds' games, each the same in Python and in C."""
    path = tmp_path_factory.mktemp("g") / "g.vbr"
    text = 'game "generated"\n' + text
    path.write_text(text)
    py, c = load(path, {}, engine="python"), load(path, {}, engine="c")
    games = []
    for seed in range(3):
        game = _play(py.new_state, seed)
        assert _play(c.new_state, seed) == game, seed
        games.append(game)
    return text, games


def _line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if line.strip().startswith(start))


def _fault_line(end: str) -> int:
    return int(re.match(r"error: [^\n]*?\.vbr:(\d+):\d+: error: ", end)[1])


@settings(max_examples=EXAMPLES, deadline=None)
@given(vbr_truth(2, ("c",), ()), vbr_number(3, (), ()))
def test_any_nesting_of_aggregates_plays_alike_in_python_and_in_c_and_as_its_text_says(tmp_path_factory, test, number):
    """k counts 2, 3, 4: three rounds, each at most one choice, of the cards still in the pool
    (#0..#3, each taken to a hand for good), all offered to one seat; n only grows (every
    generated number is a sum, count, max or field of non-negative values), so the end names
    seat 0 or 1; a fault is in the choice's `where` or in the number added."""
    text, games = _games_alike(tmp_path_factory, AGGREGATES.replace("TEST", test).replace("NUMBER", number))
    for trail, end in games:
        assert len(trail) <= 3
        taken = set()
        for offered, chosen, _ in trail:
            cards = [o.split(" ")[1] for o in offered]
            assert len({o.split(" ")[0] for o in offered}) == 1 and set(cards) <= {"#0", "#1", "#2", "#3"} - taken
            taken.add(chosen.split(" ")[1])
        if end.startswith("error: "):
            assert _fault_line(end) in (_line_of(text, "choose c from pool"), _line_of(text, f"n += {number}")), end
        else:
            assert end in ("seat 0 wins", "seat 1 wins"), end


@settings(max_examples=EXAMPLES, deadline=None)
@given(condition(3), hs.sampled_from(("spare", "other", "pile[rounds % 2]", "pile[(rounds + 1) % 2]")))
def test_any_condition_plays_alike_in_python_and_in_c_and_as_its_text_says(tmp_path_factory, test, dest):
    """Seven rounds, each at most one choice: Cards only (never the Pawns #1 and #7), in the
    order they were created, then `pass`, all offered to one seat; n is the sum of the values of
    the cards taken, so the winner is seat n % 2; a fault is in the choice's `where`."""
    text, games = _games_alike(tmp_path_factory, EVERY_CARD.replace("TEST", test).replace("DEST", dest))
    for trail, end in games:
        assert len(trail) <= 7
        n = 0
        for offered, chosen, _ in trail:
            assert len({o.split(" ")[0] for o in offered}) == 1 and offered[-1].endswith(" pass")
            numbers = [int(o.split(" #")[1]) for o in offered[:-1]]
            assert numbers == sorted(numbers) and set(numbers) <= set(CARD_VALUES), offered
            n += 0 if chosen.endswith(" pass") else CARD_VALUES[int(chosen.split(" #")[1])]
        if end.startswith("error: "):
            assert _fault_line(end) == _line_of(text, "choose k from Card"), end
        else:
            assert end == f"seat {n % 2} wins", (end, trail)
