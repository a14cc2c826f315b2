"""FIELDS_ONCE (vbr/interpreter/field_reads.py): within one expression, a thing's field is read
once and its kind checked once on each path Python takes through it. A read in one way of an
`and`, `or`, `if ... else`, a chained comparison or a comprehension's round is not reused past
it, a call that may change things makes the pass forget, and faults stay where they were.

The pass is tested on Python functions written here (run before and after it, on data where
each way is taken), then on rule files against the closures."""
import ast

import pytest

from vbr.errors import VbrRuntimeError
from vbr.interpreter.field_reads import read_fields_once
from vbr.play import play_game

from lowering_forms import assert_same_games_with_and_without, code, forms, write


class NoField(Exception):
    pass


def no_field(x, name):
    raise NoField(f"{x} has no field `{name}`")


def read(x: str, pos: int, kind: int = 1) -> str:
    """The checked read the expression compiler writes for `x.f` (x a name)."""
    return f"(E[{x}][{pos}] if {x} is not None and KD[{x}] == {kind} else no_field({x}, 'f{pos}'))"


def bound_read(x: str, pos: int, tmp: str, kind: int = 1) -> str:
    """The same, the thing first bound to a name of the check's own."""
    return f"(E[{tmp}][{pos}] if ({tmp} := {x}) is not None and KD[{tmp}] == {kind} else no_field({tmp}, 'f{pos}'))"


def rewritten(body: str, params: str = "E, KD, x, c", harmless=lambda f: True):
    """`def f(params): return body`, before and after the pass: (text after, f before, f after)."""
    source = f"def f({params}):\n    return {body}\n"
    tree = ast.parse(source)
    fn = tree.body[0]
    counter = iter(range(1000))
    read_fields_once(fn, lambda: f"_c{next(counter)}", harmless)
    ast.fix_missing_locations(tree)
    before, after = {"no_field": no_field}, {"no_field": no_field}
    exec(compile(source, "before", "exec"), before)
    exec(compile(tree, "after", "exec"), after)
    return ast.unparse(fn), before["f"], after["f"]


def outcome(f, *args):
    try:
        return f(*args)
    except NoField as e:
        return f"fault: {e}"


E = [(10, 20), (30,), (1, 2)]  # thing 0 and 2 of kind 1 (two fields), thing 1 of kind 0
KD = [1, 0, 1]


def same_everywhere(before, after, cs=(True, False)):
    for x in (0, 1, 2, None):
        for c in cs:
            assert outcome(after, E, KD, x, c) == outcome(before, E, KD, x, c)


def test_a_second_read_of_a_field_reuses_the_first():
    text, before, after = rewritten(f"{read('x', 0)} + {read('x', 0)} * 3")
    assert text.count("KD[") == 1 and text.count("E[") == 1
    same_everywhere(before, after)


def test_another_field_of_a_checked_thing_is_read_unchecked():
    text, before, after = rewritten(f"{read('x', 0)} + {read('x', 1)}")
    assert text.count("KD[") == 1 and "E[x][1]" in text
    same_everywhere(before, after)


def test_a_read_through_a_name_of_its_own_is_known_by_what_it_names():
    text, before, after = rewritten(f"{bound_read('x', 0, 't1')} + {bound_read('x', 0, 't2')} + {bound_read('x', 1, 't3')}")
    assert text.count("KD[") == 1 and "t2" not in text and "t3" not in text
    same_everywhere(before, after)


@pytest.mark.parametrize("body", [
    f"(c and {read('x', 0)} == 10) or {read('x', 0)} == 1",  # the right of `and`
    f"(not c or {read('x', 0)} == 10) and {read('x', 0)} == 1",  # the right of `or`
    f"({read('x', 0)} if c else 0) + {read('x', 0)}",  # one way of `if ... else`
    f"(0 if c else {read('x', 0)}) + {read('x', 0)}",
    f"(0 < (1 if c else 50) < {read('x', 0)}) or {read('x', 0)} == 1",  # the rest of a chain
    f"any(c and {read('y', 0)} > 0 for y in [x]) or {read('x', 0)} == 1",  # a comprehension's round
])
def test_a_read_on_one_way_is_not_reused_past_it(body):
    """Run with c false and x of the other kind: the first read never happens, so the second
    must still check (and fault)."""
    text, before, after = rewritten(body)
    assert text.count("KD[") == 2
    same_everywhere(before, after)
    assert outcome(after, E, KD, 1, False) == "fault: 1 has no field `f0`"


def test_a_comprehension_round_reuses_its_own_reads_and_those_before_it():
    text, before, after = rewritten(f"{read('x', 0)} + sum({read('y', 0)} + {read('y', 1)} + {read('x', 1)} for y in [0, 2] if {read('y', 0)} > 0)")
    assert text.count("KD[") == 2  # x once outside, y once per round
    same_everywhere(before, after)


def test_a_call_that_may_change_things_makes_the_pass_forget():
    body = f"{read('x', 0)} + g() + {read('x', 0)}"
    harmless = lambda func: not (isinstance(func, ast.Name) and func.id == "g")  # noqa: E731
    text, _, _ = rewritten(body, "E, KD, x, c, g", harmless)
    assert text.count("KD[") == 2
    text, _, _ = rewritten(body, "E, KD, x, c, g")
    assert text.count("KD[") == 1


def test_rebinding_the_name_forgets_the_thing():
    text, before, after = rewritten(f"({read('x', 0)}, (x := c), {read('x', 0)})", "E, KD, x, c")
    assert text.count("KD[") == 2
    for x, c in ((0, 2), (0, 1), (2, 0)):
        assert outcome(after, E, KD, x, c) == outcome(before, E, KD, x, c)


def test_nothing_is_bound_inside_a_comprehension_iterable():
    """Python refuses `:=` in a comprehension's iterable: a read there is not named, but may
    use what was named before."""
    text, before, after = rewritten(f"{read('x', 0)} + sum(y for y in [{read('x', 0)}, {read('x', 1)}])")
    assert text.count("KD[") == 1
    same_everywhere(before, after)


def test_a_check_whose_name_is_read_elsewhere_stays():
    body = f"({bound_read('x', 0, 't1')}, {bound_read('x', 0, 't2')}, t2)"
    text, before, after = rewritten(body)
    assert "t2 :=" in text
    same_everywhere(before, after)


# ---------------------------------------------------------------------- rule files
MIXED = """seats 2
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


def test_a_thing_of_another_kind_faults_where_it_did(tmp_path):
    """The Token has no field `a`: both forms stop at the same read with the same message."""
    messages = []
    for game in forms(write(tmp_path, MIXED)):
        with pytest.raises(VbrRuntimeError) as info:
            play_game(game, 0, ["random", "random"])
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "has no field `a`" in messages[0]


SAME_FIELDS = """seats 2
kind Card { a: int, b: int }
zone deck public
zone hand per seat public
var n: int = 0
start p
fn worth(c: Card) = if c.a > 3 then c.a * 2 + c.b else c.a + c.b + (if c.b > c.a then c.b else c.a)
setup {
  create Card(a: 1, b: 5) in deck times 3
  create Card(a: 4, b: 2) in deck times 3
  create Card(a: 6, b: 6) in deck times 2
  shuffle deck
}
phase p {
  while n < 40 max 30 {
    for s in seats {
      if count(deck) == 0 {
        end winner s
      }
      move top(deck) to hand[s]
      choose c from hand[s] where worth(c) > 3 and c.a != c.b or c.b + c.a == 12 by s else {
        n += 1
      }
      if c != none {
        n += worth(c) + c.b
        move c to deck
        shuffle deck
      }
    }
  }
  end draw
}
"""


def test_rule_files_play_alike_with_and_without_the_pass(tmp_path):
    path = write(tmp_path, SAME_FIELDS)
    assert_same_games_with_and_without(path, "FIELDS_ONCE", range(30))
    _, lowered = forms(path)
    _, without = forms(path, FIELDS_ONCE=False)
    assert code(lowered).count("KD[") < code(without).count("KD[")


# ---------------------------------------------------------------------- any expression
from hypothesis import given, settings, strategies as hs  # noqa: E402

THINGS = ("x", "y")


@hs.composite
def number(draw, depth: int, names=THINGS, bind: bool = True):
    """An int-valued expression: checked reads of the things (of either kind, at either place,
    some through a name of their own), and every construct the pass follows. With `bind` false
    (a comprehension's iterable, where Python allows no `:=`), no name is bound."""
    leaf = hs.sampled_from(names).flatmap(lambda x: reading(x, bind))
    if depth <= 0:
        return draw(hs.one_of(leaf, leaf, leaf, hs.integers(0, 3).map(str)))
    sub = number(depth - 1, names, bind)
    test = truth(depth - 1, names, bind)
    shapes = [
        leaf,
        hs.tuples(sub, sub).map(lambda p: f"({p[0]} + {p[1]})"),
        hs.tuples(sub, sub, sub).map(lambda p: f"({p[0]} + {p[1]} + {p[2]})"),
        hs.tuples(sub, test, sub).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        sub.map(lambda a: f"h({a})"),  # harmless
        hs.tuples(sub, sub).map(lambda p: f"({p[0]} + g({p[1]}))"),  # changes thing 0's fields: nothing read before it may be reused
        hs.tuples(number(depth - 1, (*names, "z"), bind), truth(depth - 1, (*names, "z"), bind)).map(
            lambda p: f"sum({p[0]} for z in (x, y, 2) if {p[1]})"),
        hs.tuples(number(depth - 1, names, False), number(depth - 1, names, bind)).map(
            lambda p: f"sum(z + {p[1]} for z in (0, {p[0]}))"),  # reads in an iterable
    ]
    if bind:
        shapes.append(hs.tuples(hs.sampled_from(THINGS), hs.sampled_from(names), sub).map(
            lambda p: f"({p[2]} + (({p[0]} := {p[1]}), {p[2]})[-1])"))  # a thing's name bound anew
    return draw(hs.one_of(*shapes))


@hs.composite
def truth(draw, depth: int, names=THINGS, bind: bool = True):
    sub = number(max(depth - 1, 0), names, bind)
    if depth <= 0:
        return draw(hs.one_of(hs.just("c"), hs.tuples(sub, sub).map(lambda p: f"({p[0]} == {p[1]})")))
    inner = truth(depth - 1, names, bind)
    return draw(hs.one_of(
        hs.just("c"),
        hs.tuples(sub, sub).map(lambda p: f"({p[0]} == {p[1]})"),
        hs.tuples(sub, sub, sub).map(lambda p: f"({p[0]} < {p[1]} <= {p[2]})"),
        hs.tuples(inner, inner).map(lambda p: f"({p[0]} and {p[1]})"),
        hs.tuples(inner, inner).map(lambda p: f"({p[0]} or {p[1]})"),
        inner.map(lambda a: f"(not {a})"),
    ))


_bound = iter(range(10**9))


def reading(x: str, bind: bool):
    """A checked read of `x`, mostly of kind 1 (things 0 and 1), at place 0 or 1."""
    return hs.tuples(hs.integers(0, 1), hs.sampled_from((1, 1, 1, 0)), hs.booleans()).map(
        lambda p: bound_read(x, p[0], f"t{next(_bound)}", p[1]) if p[2] and bind else read(x, p[0], p[1]))


def run(f, x, y, c):
    things = [(5, 7), (1, 2), (3,)]  # thing 0 of kind 1, thing 1 of kind 1, thing 2 of kind 0
    kinds = [1, 1, 0]

    def g(v):
        things[0] = (things[0][0] + 10, things[0][1] * 2)
        return v
    try:
        return f(things, kinds, x, y, c, g, lambda v: v), things
    except NoField as e:
        return f"fault: {e}", things
    except (TypeError, IndexError) as e:  # none in a sum, a place past a kind's fields: the same in both
        return f"error: {e}", things


@settings(max_examples=max(300, settings.default.max_examples))  # more under VBR_HYPOTHESIS=soak
@given(number(3), hs.sampled_from((0, 1, 2, None)), hs.sampled_from((0, 1, 2, None)), hs.booleans())
def test_any_expression_gives_what_it_gave_before_the_pass(body, x, y, c):
    harmless = lambda func: not (isinstance(func, ast.Name) and func.id == "g")  # noqa: E731
    _, before, after = rewritten(body, "E, KD, x, y, c, g, h", harmless)
    assert run(after, x, y, c) == run(before, x, y, c)
