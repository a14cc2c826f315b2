"""Rule files that hypothesis writes, for tests that play them (tests/test_typed_generated.py):
any nesting of every aggregate in a choice's `where` and a statement (`RANDOM_HEAD` with
`vbr_truth` and `vbr_number`), and any `where` over every thing of a kind mixing zones, guards,
tests of the thing and fns (`rule_text` with `condition`)."""
from __future__ import annotations

from hypothesis import strategies as hs

# ---------------------------------------------------------------------- aggregates in any nesting
RANDOM_HEAD = """seats 2
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
ZONES = ("pool", "hand[0]", "hand[1]", "hand[n % 2]")


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
    zone = hs.sampled_from(ZONES)
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
        shapes.append(hs.tuples(hs.sampled_from(cards), hs.sampled_from(ZONES)).map(lambda p: f"{p[0]} in {p[1]}"))
    if depth > 0:
        inner = vbr_truth(depth - 1, cards, ints)
        card_test = vbr_truth(depth - 1, (*cards, name), ints)
        zone = hs.sampled_from(ZONES)
        shapes += [
            hs.tuples(inner, inner).map(lambda p: f"({p[0]} and {p[1]})"),
            hs.tuples(inner, inner).map(lambda p: f"({p[0]} or {p[1]})"),
            inner.map(lambda a: f"not ({a})"),
            hs.tuples(card_test, zone).map(lambda p: f"any({p[0]} for {name} in {p[1]})"),
            hs.tuples(card_test, zone, card_test).map(lambda p: f"all({p[0]} for {name} in {p[1]} if {p[2]})"),
        ]
    return draw(hs.one_of(*shapes))


# ---------------------------------------------------------------------- a `where` over a kind
WHERE_HEAD = """seats 2
kind Card { v: int }
kind Pawn { v: int }
zone pile per seat public ordered
zone spare public
zone other public
var n: int = 0
var flag: bool = true
var rounds: int = 0
start p
FNS
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
FNS = """fn mine(c: Card, s: seat) = c in pile[s] or (flag and c in spare)
fn ahead(c: Card) = c.v > 1 and c in other
fn held(s: seat) = pile[s]
fn first_pile(c: Card) = c in pile[0]
"""


def rule_text(test: str, dest: str = "spare", fns: str = FNS) -> str:
    return WHERE_HEAD.replace("FNS", fns).replace("TEST", test).replace("DEST", dest)


WHERE_ZONES = ("pile[0]", "pile[1]", "pile[n % 3]", "spare", "other", "held(rounds % 2)")
GUARDS = ("flag", "not flag", "n > 4", "10 / (rounds - 3) > 1", "count(spare) > 1")
TESTS_OF_K = ("k.v > 2", "k.v != 4", "10 / (k.v - 2) > 2", "any(c.v > k.v for c in spare)")


@hs.composite
def condition(draw, depth: int):
    """A `where` over k: zones, guards, tests of k, fns, and/or in any nesting; some narrowable."""
    leaves = [hs.sampled_from(WHERE_ZONES).map(lambda z: f"k in {z}"), hs.sampled_from(TESTS_OF_K),
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
