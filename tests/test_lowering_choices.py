"""A choice written out by the lowering (vbr/interpreter/lowering.py, `_Chain.choose`,
`_choose_options`), against the closures (statements.py, `choose`/`settle`):

- WHERE_BY_NAME: a `where` reads each item as a Python name, not through its local slot; the
  slot is left as the closures leave it (the last item) wherever it can be seen: a suspended
  choice, a copy of the state, a fault;
- CHOICE_LEAN: the options counted once, no check that a static bound makes moot (the number of
  options of a list the rules spell out, a seat the rules name), the choice limit a constant.

The same games (state, steps, counts, logs), the same frames at every suspended choice, the same
located faults."""
import ast

import pytest

from vbr.errors import VbrRuntimeError
from vbr.values import Ent
from lowering_forms import code, final_state, forms, frames, write

FLAGS = {"WHERE_BY_NAME": True, "CHOICE_LEAN": True}

CHOICES = """seats 2
kind Card { v: int }
zone z public
zone h per seat public
var n: int = 0
var rounds: int = 0
start p
setup {
  create Card(v: 1) in z times 3
  create Card(v: 2) in z times 2
  create Card(v: 3) in h[0]
}
phase p {
  choose c from z where c.v == 1 + rounds % 2 by rounds % 2 optional
  if c != none {
    move c to h[rounds % 2]
  }
  choose k from [1, 2, 3, 4] where k != rounds % 4 by 0
  n += k
  choose m from h[0] where m.v > 2 by 1 else {
    n += 100
  }
  choose d from [5, 6] by 1
  choose e from 0..3 where e >= rounds % 3 by rounds % 2
  choose w from z by 0 optional
  n += d + e
  rounds += 1
  if rounds > 6 {
    end draw
  }
  goto p
}
"""


def test_choices_play_the_same_games(tmp_path):
    closures, lowered = forms(write(tmp_path, CHOICES), **FLAGS)
    for seed in range(12):
        assert final_state(lowered, seed) == final_state(closures, seed)


def test_a_suspended_choice_leaves_the_same_frame(tmp_path):
    """The slot of a choice with `where` holds the last item looked at, in both forms, when the
    choice suspends, and in a copy of the state."""
    closures, lowered = forms(write(tmp_path, CHOICES), **FLAGS)
    for seed in range(8):
        got, want = frames(lowered, seed), frames(closures, seed)
        assert got == want
        assert any(L[-1][slot] is not None for L, _, _, _, slot, _, _ in got[0])  # a slot the loop left set


def loops_over_options(game):
    """The `for` loops that collect a choice's options, in the generated code."""
    for module in game.program.lowering.modules:
        for node in ast.walk(module):
            if isinstance(node, ast.For) and "_opts.append" in ast.unparse(node):
                yield node


def test_where_reads_the_item_by_name(tmp_path):
    _, lowered = forms(write(tmp_path, CHOICES), **FLAGS)
    loops = list(loops_over_options(lowered))
    assert loops
    for loop in loops:  # nothing stored in a local slot per item
        assert not [n for n in ast.walk(loop) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)]
    _, before = forms(write(tmp_path, CHOICES), WHERE_BY_NAME=False)
    assert all(isinstance(loop.body[0], ast.Assign) for loop in loops_over_options(before))


def test_lean_choice_drops_checks_a_static_bound_makes_moot(tmp_path):
    _, lean = forms(write(tmp_path, CHOICES), **FLAGS)
    _, plain = forms(write(tmp_path, CHOICES), CHOICE_LEAN=False)
    text, before = code(lean), code(plain)
    assert text.count("> 10000") < before.count("> 10000")  # the lists `[1, 2, 3, 4]` and `[5, 6]`
    assert text.count("_s not in") < before.count("_s not in")  # `by 0`, `by 1`


FAULTS = {
    "nothing to choose from":
        "seats 2\nkind Card { v: int }\nzone z public\nvar n: int = 0\nstart p\n"
        "setup {\n  create Card(v: 1) in z times 2\n}\n"
        "phase p {\n  n = 1\n  choose c from z where c.v > 1 by 0\n  end draw\n}\n",
    "no seat":
        "seats 2\nkind Card { v: int }\nzone z public\nvar n: int = 0\nvar s: seat = 0\nstart p\n"
        "setup {\n  create Card(v: 1) in z times 2\n}\n"
        "phase p {\n  n = 1\n  s = s + 5\n  choose c from z where c.v == 1 by s\n  end draw\n}\n",
}


def faults(path) -> list:
    """For the closures and the lowered program: the error a new game stops with, and the state
    it leaves (which a caller's log sink shows)."""
    seen = []
    for game in forms(path, **FLAGS):
        sink = []
        with pytest.raises(VbrRuntimeError) as info:
            game.new_state(0, sink=sink)
        seen.append((str(info.value), sink[0]))
    return seen


@pytest.mark.parametrize("text", FAULTS.values(), ids=FAULTS.keys())
def test_a_faulting_choice_is_located_and_leaves_the_slot_as_before(tmp_path, text):
    seen = [(message, list(st.stack[-1].L)) for message, st in faults(write(tmp_path, text))]
    assert seen[0] == seen[1]
    assert any(v is not None for v in seen[0][1])


def with_step_limit(tmp_path, source: str, limit: int):
    """`source` (a rule file) with `limit steps N` after its `game` line, written beside the test."""
    lines = [line for line in open(source).read().split("\n") if not line.startswith("limit steps")]
    at = next(i for i, line in enumerate(lines) if line.startswith("game "))
    path = tmp_path / f"limited_{limit}.vbr"
    path.write_text("\n".join(lines[:at + 1] + [f"limit steps {limit}"] + lines[at + 1:]))
    return path


def ending(game, seed) -> str:
    from vbr.play import play_game
    try:
        return f"ended after {play_game(game, seed, ['random'] * game.seats).state.steps} steps"
    except VbrRuntimeError as e:
        return str(e)


@pytest.mark.parametrize("source, limits", [
    ("rules/volleyball-high.vbr", (333, 611)),
    ("tests/fixtures/valid/every_construct_court.vbr", (50, 97)),
    ("tests/fixtures/valid/every_construct_cards.vbr", (50, 180)),
])
def test_the_step_limit_stops_both_forms_at_the_same_statement(tmp_path, source, limits):
    """The VM names the choosing frame's statement when the step after a suspended choice passes
    the limit; the lowered code leaves the frame at its choice, as the closures do, so the error
    names the same line (these limits are reached right after a choice)."""
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    endings = []
    for limit in limits:
        closures, lowered = forms(with_step_limit(tmp_path, root / source, limit), **FLAGS)
        for seed in range(4):
            want = ending(closures, seed)
            assert ending(lowered, seed) == want
            endings.append(want)
    assert any("step limit" in e for e in endings)


WHERE_FAULT = """seats 2
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


def test_a_fault_inside_where_leaves_the_item_it_failed_at_in_the_slot(tmp_path):
    """`6 / c.v` fails at the third card (v = 0): both forms report it there and leave that card
    in the choice's slot (the state a caller's log sink shows)."""
    seen = [(message, list(st.stack[-1].L), [st.ent[x] for x in st.stack[-1].L if isinstance(x, Ent)])
            for message, st in faults(write(tmp_path, WHERE_FAULT))]
    assert seen[0] == seen[1]
    assert "division by zero" in seen[0][0] and seen[0][2] == [(0,)]


OPTIONAL_ELSE = """seats 2
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


def test_an_optional_choice_with_nothing_to_offer_takes_its_else(tmp_path):
    """docs/language.md: with no option, a choice with an `else` runs it, `optional` or not."""
    for game in forms(write(tmp_path, OPTIONAL_ELSE), **FLAGS):
        st = game.new_state(0)
        assert st.vals[0] == 7 and str(st.outcome()) == "seat 0 wins"
