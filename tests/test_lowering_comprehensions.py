"""COMP_BY_NAME (vbr/interpreter/lowering.py, `comprehension`): a comprehension's body and filter
read its item as the generator's own Python name, the `(_t := x)` aliases its field reads made
dropped (a walrus inside a generator expression binds in the enclosing function, PEP 572: a cell
written once per item). The same games and steps as the closures, the step limit firing at the
same place in a comprehension over a zone, a fault in its body located alike."""
import ast

import pytest

from vbr.errors import StepLimitExceeded, VbrRuntimeError

from test_lowering import assert_only_data
from lowering_forms import assert_same_games_with_and_without, final_state, forms, write

HEAD = """seats 2
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
# every aggregate over a zone, nested in a choice's `where` and in plain conditions, reading the
# item's fields in the body and the filter (`roll` in a filter: the number of rolls tells how
# many items it looked at)
GAME = HEAD + """phase p {
  choose c from pool where c.side == turn % 2 or any(d.v == c.v + 1 and d.side != c.side for d in pool) by turn % 2 else {
    n += 100
  }
  if c != none {
    move c to hand[turn % 2]
  }
  if all(d.v >= 1 and d.side <= 1 for d in hand[0] if roll d6 >= 2) {
    n += sum(d.v * 2 + d.side for d in pool if d.v != 3)
  }
  let f = first(d for d in hand[1] if d.v > 1 and d.side == 1)
  if f != none {
    m += f.v
  }
  m += count(every(d.v + d.side for d in hand[0] if any(e.v == d.v for e in pool)))
  turn += 1
  if turn > 7 {
    end draw
  }
  goto p
}
"""


def item_aliases(game):
    """Walruses inside a comprehension (a generator expression, or the loop of a comprehension's
    function, COMP_LOOPS) that only rename its item."""
    found = []
    for module in game.program.lowering.modules:
        for node in ast.walk(module):
            if isinstance(node, ast.GeneratorExp):
                item, inside = node.generators[0].target.id, node
            elif isinstance(node, ast.For) and any(isinstance(d, ast.FunctionDef) and d.name.startswith("Q")
                                                   and node in d.body for d in module.body):
                item, inside = node.target.id, node
            else:
                continue
            found += [n for n in ast.walk(inside) if isinstance(n, ast.NamedExpr)
                      and isinstance(n.value, ast.Name) and n.value.id == item]
    return found


def test_comprehensions_by_name_play_the_same_games(tmp_path):
    assert_same_games_with_and_without(write(tmp_path, GAME), "COMP_BY_NAME", range(16))


def test_the_item_is_read_by_name(tmp_path):
    _, lowered = forms(write(tmp_path, GAME))
    _, plain = forms(write(tmp_path, GAME), COMP_BY_NAME=False)
    assert item_aliases(plain)  # the path is exercised: the fields read through aliases before
    assert not item_aliases(lowered)
    assert_only_data(lowered.program)


STEPS = """seats 2
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
FAULT = HEAD + """phase p {
  turn += 1
  n += sum(12 / (c.v - turn) for c in pool if c.side >= 0)
  if turn > 5 {
    end draw
  }
  goto p
}
"""


def stops(game, error):
    with pytest.raises(error) as info:
        game.new_state(0)
    return str(info.value)


@pytest.mark.parametrize("by_name", [True, False])
def test_the_step_limit_fires_at_the_same_place(tmp_path, by_name):
    closures, lowered = forms(write(tmp_path, STEPS), COMP_BY_NAME=by_name)
    got, want = stops(lowered, StepLimitExceeded), stops(closures, StepLimitExceeded)
    assert got == want
    assert "g.vbr:13:5: error: step limit of 3000" in got  # the comprehension, in the loop


@pytest.mark.parametrize("by_name", [True, False])
def test_a_fault_in_the_body_is_located_alike(tmp_path, by_name):
    closures, lowered = forms(write(tmp_path, FAULT), COMP_BY_NAME=by_name)
    got, want = stops(lowered, VbrRuntimeError), stops(closures, VbrRuntimeError)
    assert got == want
    assert "division by zero" in got and "g.vbr:19:3: error" in got


SLOT = """seats 2
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
  choose x from [1, 2] by 0
  n += x
  end draw
}
"""


@pytest.mark.parametrize("by_name", [True, False])
def test_a_comprehension_leaves_its_slot_as_it_found_it(tmp_path, by_name):
    """The name of a comprehension is gone after it: at the choice that follows, the frame's
    locals are the same in both forms, and the comprehension's slot holds what it held before
    (none), not its last item (the lowered form reads the item as a Python name and never
    writes the slot)."""
    seen = []
    for game in forms(write(tmp_path, SLOT), COMP_BY_NAME=by_name):
        st = game.new_state(0)
        assert st.pending is not None and st.vals[:2] == [7, 1]
        seen.append(list(st.stack[-1].L))
    assert seen[0] == seen[1]
    assert all(v is None for v in seen[0][:-1])  # all but the choice's own slot


RANGES = """seats 2
var lo: int = 1
var hi: int = 4
var n: int = 0
start p
phase p {
  n += sum(i * i for i in lo..hi if i != 2) + count(every(i for i in hi..lo))
  if any(i > n for i in 0..hi) {
    n += 1
  }
  hi += GROW
  lo -= 1
  if lo < STOP {
    end winner n % 2
  }
  goto p
}
"""


def range_game(tmp_path, grow: int, stop: int = -1000000):
    return write(tmp_path, RANGES.replace("GROW", str(grow)).replace("STOP", str(stop)))


def test_a_comprehension_over_a_range_counts_the_same_steps(tmp_path):
    """`lo..hi` in a comprehension is gone through as a range (`counted_range`), not built as a
    tuple and then counted: the same steps, round after round, and the same sums; with the step
    limit reached inside the range's comprehension, the same error at the same place."""
    closures, lowered = forms(range_game(tmp_path, 3, stop=-6))
    assert any(getattr(v, "__name__", "") == "counted_range" for v in lowered.program.lowering.namespace.values())
    assert final_state(lowered, 0) == final_state(closures, 0)
    closures, lowered = forms(range_game(tmp_path, 1))
    got, want = stops(lowered, StepLimitExceeded), stops(closures, StepLimitExceeded)
    assert got == want and "step limit" in got


def test_a_range_too_long_faults_alike(tmp_path):
    """A range holds at most MAX_RANGE (1,000,000) numbers: with `hi` grown by 2,000,000 after
    the first round, both forms stop in the second with the same message, before any of its
    steps (the step limit is 1,000,000 too: counted first, it would fire instead)."""
    closures, lowered = forms(range_game(tmp_path, 2000000))
    got, want = stops(lowered, VbrRuntimeError), stops(closures, VbrRuntimeError)
    assert got == want and "a range holds at most" in got


NESTED = HEAD + """fn deep(t: int) = sum(c.v + count(every(d for d in pool if d.v == c.v and d.side != t)) for c in pool if all(e.v >= 1 for e in hand[t % 2] if e.side == c.side))
fn best(s: seat) = first(c for c in hand[s] if c.v == max(every(d.v for d in hand[s])) and any(d.side == c.side for d in pool))
proc shift(s: seat) {
  let top = first(c for c in pool if c.v + s > 2 and not any(d.v > c.v for d in hand[s]))
  if top != none {
    move top to hand[s]
  }
}
phase p {
  choose c from pool where any(d.v == c.v + turn % 3 for d in pool if d.side != c.side) or sum(e.v for e in hand[turn % 2] if e.v >= c.v) > 4 by turn % 2 else {
    n += deep(turn)
  }
  if c != none {
    move c to hand[turn % 2]
  }
  shift(turn % 2)
  let b = best(turn % 2)
  if b != none {
    m += b.v + deep(turn + 1)
    move b to pool
  }
  turn += 1
  if turn > 9 {
    end winner n % 2
  }
  goto p
}
"""


def generators_and_loops(game) -> tuple[int, int]:
    modules = game.program.lowering.modules
    return (sum(isinstance(n, ast.GeneratorExp) for m in modules for n in ast.walk(m)),
            sum(isinstance(d, ast.FunctionDef) and d.name.startswith("Q") for m in modules for d in m.body))


def test_comprehension_functions_play_the_same_games(tmp_path):
    """COMP_LOOPS: every aggregate (any, all, sum, first, every, count), nested in one another
    and reading the outer item, in a choice's `where`, a fn, a procedure and a plain statement,
    as a generated function with a `for` loop: the same games and steps as the closures and as
    generator expressions."""
    path = write(tmp_path, NESTED)
    assert_same_games_with_and_without(path, "COMP_LOOPS", range(24))
    assert_same_games_with_and_without(write(tmp_path, GAME), "COMP_LOOPS", range(8))


def test_every_comprehension_is_a_loop_and_none_falls_back(tmp_path):
    """With COMP_LOOPS no generator expression is left and no comprehension runs as its closure:
    a nested comprehension takes what it reads of the frame's locals (`L[i]`) by value, so the
    comprehension around it can still read its own item as a name."""
    _, lowered = forms(write(tmp_path, NESTED))
    _, generators = forms(write(tmp_path, NESTED), COMP_LOOPS=False)
    assert generators_and_loops(lowered)[0] == 0 and generators_and_loops(lowered)[1] >= 10
    assert generators_and_loops(generators)[0] >= 10 and generators_and_loops(generators)[1] == 0
    namespace = lowered.program.lowering.namespace
    text = "\n".join(ast.unparse(m) for m in lowered.program.lowering.modules)
    fallbacks = [k for k, v in namespace.items() if "c_Comprehension" in getattr(v, "__qualname__", "")]
    assert not [k for k in fallbacks if f"{k}(" in text]
    assert_only_data(lowered.program)


OVER_NONE = """seats 2
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


@pytest.mark.parametrize("loops", [True, False])
def test_a_comprehension_over_none_faults_alike(tmp_path, loops):
    """The items counted inside a comprehension's function (COMP_LOOPS) as `counted` counts
    them: over a list var set to none, the same fault at the same statement as the closures."""
    closures, lowered = forms(write(tmp_path, OVER_NONE), COMP_LOOPS=loops)
    got, want = stops(lowered, VbrRuntimeError), stops(closures, VbrRuntimeError)
    assert got == want and "g.vbr:10:3: error: cannot iterate over none" in got


# ---------------------------------------------------------------------- any nesting (hypothesis)
from hypothesis import given, settings, strategies as hs  # noqa: E402

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


def ending(game, seed):
    try:
        return final_state(game, seed)
    except VbrRuntimeError as e:
        return str(e)


@settings(max_examples=max(40, settings.default.max_examples))  # more under VBR_HYPOTHESIS=soak
@given(vbr_truth(2, ("c",), ()), vbr_number(3, (), ()))
def test_any_nesting_of_comprehensions_plays_as_the_closures(tmp_path_factory, test, number):
    """Random rule files: a choice's `where` and a statement, each any nesting of every
    aggregate (over zones, ranges and lists of the cards in hand), reading the items around
    them: the lowered program (comprehensions as loops) ends every game as the closures do,
    with the same error where one stops."""
    path = write(tmp_path_factory.mktemp("g"), RANDOM_HEAD.replace("TEST", test).replace("NUMBER", number))
    closures, lowered = forms(path)
    for seed in range(3):
        assert ending(lowered, seed) == ending(closures, seed)


# ---------------------------------------------------------------------- first(x for x in C if x.f OP v) (FIRST_LOOPS)
FIRST = """seats 2
kind Card { v: int, side: int }
kind Coin { worth: int }
die d4 = 1..4
zone pool public
zone spare public
var turn: int = 0
var n: int = 0
start p
setup {
  create Card(v: 1, side: 0) in pool times 2
  create Card(v: 2, side: 1) in pool times 2
  create Card(v: 3, side: 0) in pool
  create Coin(worth: 5) in spare
}
phase p {
  let want = roll d4
  let f = first(c for c in pool if c.v == want)
  if f != none {
    n += f.side + 1
    move f to pool bottom
  }
  let g = first(c for c in pool if c.v >= want)
  if g != none {
    n += g.v
  }
  let h = first(c for c in every(d for d in pool if d.v != want) if c.side != turn % 2)
  if h != none {
    n += h.v * 3
  }
  choose k from pool where k.v < 3 by turn % 2
  move k to pool
  turn += 1
  if turn > 9 {
    end draw
  }
  goto p
}
"""


def test_first_lookups_as_generated_loops_play_the_same_games(tmp_path):
    """The zone read in place, a list through `_iterate`, each comparison: the same games, steps
    and draws as the closures (`first_in`) and as the lowered form calling `first_in`."""
    path = write(tmp_path, FIRST)
    assert_same_games_with_and_without(path, "FIRST_LOOPS", range(12))
    _, lowered = forms(path)
    loops = [d for m in lowered.program.lowering.modules for d in m.body
             if d.name.startswith("Q") and any(isinstance(n, ast.For) for n in ast.walk(d))]
    assert len(loops) >= 3  # `==`, `>=` and `!=` on the fields they compare: one loop each
    called = {getattr(lowered.program.lowering.namespace.get(n.id), "__name__", None)
              for m in lowered.program.lowering.modules for n in ast.walk(m) if isinstance(n, ast.Name)}
    assert "first_in" not in called


FIRST_FAULT = FIRST.replace("  let want = roll d4\n",
                            "  let want = roll d4\n  let odd = first(x for x in spare if x.side == 9)\n")


@pytest.mark.parametrize("loops", [True, False])
def test_a_first_lookup_meeting_a_thing_of_another_kind_faults_alike(tmp_path, loops):
    """`x.side` of a Coin: the loop stops with the closures' fault, at the same statement."""
    closures, lowered = forms(write(tmp_path, FIRST_FAULT), FIRST_LOOPS=loops)
    got, want = stops(lowered, VbrRuntimeError), stops(closures, VbrRuntimeError)
    assert got == want and "has no field `side`" in got
