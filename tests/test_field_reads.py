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
