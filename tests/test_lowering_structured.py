"""Structured generated code (vbr/interpreter/lowering.py, STRUCTURED, `_Flow`): the ways of a
branch or a choice meet again inside one generated function (written once, after the Python
`if`), and a loop with a choice in it is a Python `while` (its head `continue`, its end `break`),
instead of each returning to the VM. The closures, the lowered program and the lowered program
without STRUCTURED play the same games, suspend with the same frames, and fail at the same
places."""
import ast

import pytest

from vbr.errors import VbrRuntimeError
from vbr.interpreter import fast_paths, lowering as LW
from lowering_forms import assert_same_games_with_and_without, code, forms, frames, write

# Every kind of loop around a choice; branches and choices whose ways meet again; `break` and
# `continue` out of a choice's way; a procedure that makes a choice, called inside a loop (its
# frame returns into the middle of the loop's body); an `else` of a choice; a goto from a loop.
LOOPS = """seats 2
kind Card { v: int }
zone z public
zone h per seat public
var n: int = 0
var rounds: int = 0
start p
setup {
  create Card(v: 1) in z times 4
  create Card(v: 2) in z times 3
}
proc pick_one(s: seat) {
  choose c from z where c.v == 1 + s by s optional
  if c != none {
    move c to h[s]
    n += c.v
  }
}
phase p {
  for s in seats {
    for k in 1..3 {
      choose x from [1, 2, 3] where x >= k by s
      if x == 3 {
        continue
      }
      n += x
    }
  }
  let left = 3
  while left > 0 max 3 {
    left -= 1
    choose c from z where c.v == 2 by rounds % 2 optional
    if c == none {
      break
    }
    move c to h[rounds % 2]
  }
  repeat 2 {
    pick_one(rounds % 2)
    choose y from [0, 1] by 1
    if y == 1 {
      n += 10
    } else {
      choose w from 0..2 by 0
      n -= w
    }
    n += 1
  }
  let tries = 0
  loop max 4 {
    tries += 1
    choose go from [true, false] by 0
    if go or tries == 4 {
      break
    }
    choose m from h[0] where m.v > 5 by 0 else {
      n += 100
    }
  }
  rounds += 1
  for s in seats {
    if rounds > 5 {
      goto done
    }
    move h[s] to z
  }
  goto p
}
phase done {
  end draw
}
"""


def test_structured_code_plays_the_same_games(tmp_path):
    """The closures, the lowered program, and the lowered program without STRUCTURED end every
    game alike (state, steps, counts, the generator)."""
    assert_same_games_with_and_without(write(tmp_path, LOOPS), "STRUCTURED", range(16))


def test_a_choice_inside_a_python_loop_suspends_and_resumes_as_the_closures_do(tmp_path):
    closures, lowered = forms(write(tmp_path, LOOPS), STRUCTURED=True)
    for seed in range(6):
        assert frames(lowered, seed) == frames(closures, seed)


def loops_with_choices(game):
    """The Python `while` loops of the generated code that ask a seat (hold a choice)."""
    for module in game.program.lowering.modules:
        for node in ast.walk(module):
            if isinstance(node, ast.While) and "(_a, st, _s, _opts, True)" in ast.unparse(node):  # state.take
                yield node


def test_a_loop_with_a_choice_is_a_python_while(tmp_path):
    _, structured = forms(write(tmp_path, LOOPS), STRUCTURED=True)
    _, flat = forms(write(tmp_path, LOOPS), STRUCTURED=False)
    loops = list(loops_with_choices(structured))
    assert len(loops) >= 5  # the two `for`s, the `while`, the `repeat`, the `loop` of phase p
    assert any(isinstance(n, ast.Continue) for w in loops for n in ast.walk(w))
    assert any(isinstance(n, ast.Break) for w in loops for n in ast.walk(w))
    assert not list(loops_with_choices(flat))  # before: every round went back through the VM


MEET = """seats 2
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
  end draw
}
"""


def entry_function(game, phase: str) -> ast.FunctionDef:
    """The generated function the VM enters a phase by."""
    name = game.program.phases[phase].ops[0].__name__
    return next(d for m in game.program.lowering.modules for d in m.body if d.name == name)


def test_meeting_ways_are_written_once_after_the_if(tmp_path):
    """Both ways of `if y == 1` go on at `n += 1000`: written once, after the Python `if`, and the
    whole phase is one function (no hand-over to the VM)."""
    _, structured = forms(write(tmp_path, MEET), STRUCTURED=True)
    fn = entry_function(structured, "p")
    assert [n.value for n in ast.walk(fn) if isinstance(n, ast.Constant)].count(1000) == 1
    handed_over = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and isinstance(n.value, ast.Constant)
                   and n.value.value is None]  # `fr.pc = N; return None`: the VM goes on at N
    assert not handed_over
    assert_same_games_with_and_without(write(tmp_path, MEET), "STRUCTURED", range(8))


def entries(game, seed):
    """How many times the VM entered one of the lowered program's ops in one random game."""
    count = [0]
    for code_ in [*game.program.phases.values(), *game.program.procs.values()]:
        for i, op in enumerate(code_.ops):
            def counted(st, fr, op=op):
                count[0] += 1
                return op(st, fr)
            code_.ops[i] = counted
    from vbr.play import play_game
    play_game(game, seed, ["random"] * game.seats)
    return count[0]


def test_random_play_enters_the_vm_less_often(tmp_path):
    """A round of the `for` loops goes on inside one function: fewer returns to the VM."""
    _, structured = forms(write(tmp_path, LOOPS), STRUCTURED=True)
    _, flat = forms(write(tmp_path, LOOPS), STRUCTURED=False, JOIN_COPIES=2)
    assert entries(structured, 3) < entries(flat, 3)


@pytest.mark.parametrize("ops, meet", [
    # 0: branch to 1 or 2; both go to 3; 3 ends
    ([[1, 2], [3], [3], [-1]], {0: 3, 1: 3, 2: 3}),
    # 0: branch to 1 (which ends the code: a transfer) or 2, which goes to 3: the way through 1
    # passes neither, so 0 has no meeting place
    ([[1, 2], [-1], [3], [-1]], {2: 3}),
    # a loop: 0 is the head (to 1 or out to 3), 1 to 2, 2 back to 0
    ([[1, 3], [2], [0], [-1]], {0: 3, 1: 2, 2: 0}),
])
def test_nearest_post_dominators(ops, meet):
    """The first op every way from an op passes before the code ends (-1: the end)."""
    assert LW._nearest_post_dominators(ops) == meet


FAULT = """seats 2
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


def test_a_fault_inside_a_python_loop_is_located_alike(tmp_path):
    seen = []
    for game in forms(write(tmp_path, FAULT), STRUCTURED=True):
        from vbr.play import play_game
        with pytest.raises(VbrRuntimeError) as info:
            for seed in range(20):
                play_game(game, seed, ["random"] * 2)
        seen.append(str(info.value))
    assert seen[0] == seen[1] and "g.vbr:11:7: error: division by zero" in seen[0]  # `n = n / (n - n)`


def test_generated_code_stays_within_a_few_copies_of_each_op(tmp_path):
    """A phase of 300 choices in a row: every choice is an entry (where a suspended game goes
    on), and each entry's function could write every choice after it (300 × 300 / 2). No op is
    written into more than COPIES other entries' functions (JOIN_COPIES for a place several ops
    lead to), besides starting its own, so the generated code grows with the rules, not with
    their square: a rule file is untrusted."""
    text = "seats 2\nvar v: int = 0\nstart p\nphase p {\n" + \
        "".join(f"  choose x{i} from [1, 2] by 0 optional\n" for i in range(300)) + "  end draw\n}\n"
    closures, lowered = forms(write(tmp_path, text))
    picks = code(lowered).count("(_a, st, _s, _opts, True)")  # state.take, where a seat answers in place
    assert 300 <= picks <= (fast_paths.COPIES + 1) * 300
    from vbr.play import play_game
    assert play_game(lowered, 1, ["random"] * 2).choices == play_game(closures, 1, ["random"] * 2).choices == 300
