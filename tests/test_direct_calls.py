"""A procedure that never suspends (vbr.ir.direct_calls) runs as a plain function call of the
engine's language, with no frame pushed: in Python `d<unit>` (python_source._Direct), in C
`d<unit>` (c_source.direct_unit). What can be seen of play is a pushed frame's all the same: the
words at every choice and at the end (the frames of a game that ends inside such calls among
them), and a limit passed inside one is located at that procedure."""
from __future__ import annotations

import pytest

from vbr.engines import c_split
from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

# `finish` ends the game inside `round`, after calling `tally` and with a list copied onto the
# stack, so the end leaves three frames of procedures above the phase's, each as C writes it
ENDS_INSIDE = """game "Calls"
seats 2
var n: int = 0
start turn
proc tally(k: int) {
  n += k
}
proc finish(k: int) {
  let xs = [k, k + 1, k + 2]
  tally(sum(x for x in xs))
  if n > 20 {
    end winner 1
  }
}
proc round(k: int) {
  for x in [k, 1] {
    finish(x)
  }
}
phase turn {
  choose x from 1..3 by 0
  round(x)
  goto turn
}
"""

# nearly every step of a round is one of `inner`'s 38 rounds a call, so the limit of 200 is
# passed inside `inner` (its third call): the fault is located at `proc inner`
STEPS_INSIDE = """game "Calls"
seats 2
limit steps 200
var n: int = 0
start turn
proc inner(k: int) {
  repeat 38 {
    n += k
  }
}
proc outer(k: int) {
  inner(k)
  inner(k + 1)
}
phase turn {
  choose x from 1..2 by 0
  outer(x)
  goto turn
}
"""


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    def both(text: str):
        path = tmp_path_factory.mktemp("calls") / "calls.vbr"
        path.write_text(text)
        return [load(path, {}, engine=e) for e in ("python", "c")]
    return both


def test_a_game_ending_inside_nested_calls_leaves_the_c_engines_words(engines):
    for seed in range(3):
        a, b = (g.new_state(seed) for g in engines(ENDS_INSIDE))
        k = 0
        while not a.is_terminal():
            a.apply_index(k % 3)
            b.apply_index(k % 3)
            assert a.words_in_use() == b.words_in_use(), (seed, k)
            k += 1
        assert b.is_terminal() and a.outcome() == b.outcome() and a.outcome().winner == 1
        # the phase's frame, round's and finish's (tally has returned)
        assert a.words[14] == b.words[14] == 3  # Header.DEPTH


def test_the_step_limit_passed_inside_a_called_procedure_is_located_there_in_both_engines(engines):
    messages = []
    for game in engines(STEPS_INSIDE):
        s = game.new_state(0)
        with pytest.raises(VbrRuntimeError) as err:
            for _ in range(10):
                s.apply_index(0)
        messages.append((err.value.span.line, err.value.message))
    assert messages[0] == messages[1]
    assert messages[0][0] == 6 and "step" in messages[0][1]  # `proc inner`


# `leave` goes to `other` from inside `step` once n passes 5, dropping both procedures' frames;
# `other` then plays a choice of seat 1 and play goes back to `turn`
GOTO_INSIDE = """game "Calls"
seats 2
var n: int = 0
start turn
proc leave(k: int) {
  n += k
  if n > 5 {
    goto other
  }
}
proc step(k: int) {
  leave(k)
  n += 1
}
phase turn {
  choose x from 1..3 by 0
  step(x)
  goto turn
}
phase other {
  choose y from 1..2 by 1
  n = 0
  goto turn
}
"""

# each of `heavy`'s rounds goes through k + 1000 items and takes a few steps: past the 64 items
# a step allows (ITEMS_PER_STEP) for `limit steps 200`, 12,800, in its 13th round, long before 200 steps
ITEMS_INSIDE = """game "Calls"
seats 2
limit steps 200
var n: int = 0
start turn
proc heavy(k: int) {
  let m = k + 1000
  repeat 30 {
    n += sum(x for x in 1..m)
  }
}
phase turn {
  choose x from 1..2 by 0
  heavy(x)
  goto turn
}
"""


def test_a_goto_from_inside_nested_calls_drops_their_frames_alike_in_both_engines(engines):
    a, b = (g.new_state(0) for g in engines(GOTO_INSIDE))
    phases = []
    for k in range(12):
        a.apply_index(k % 3 if a.phase == "turn" else 0)
        b.apply_index(k % 3 if b.phase == "turn" else 0)
        assert a.words_in_use() == b.words_in_use(), k
        phases.append(a.phase)
    # x = 1, 2, 3 (k = 0, 1, 2): n = 2, 5, then 5 + 3 = 8 > 5 inside `leave`: `other` is next
    assert phases[:3] == ["turn", "turn", "other"]


def test_the_items_limit_passed_inside_a_called_procedure_is_located_there_in_both_engines(engines):
    messages = []
    for game in engines(ITEMS_INSIDE):
        with pytest.raises(VbrRuntimeError) as err:
            game.new_state(0).apply_index(0)
        messages.append((err.value.span.line, err.value.message))
    assert messages[0] == messages[1]
    assert messages[0][0] == 6 and "items" in messages[0][1]  # `proc heavy`


def test_a_procedure_too_long_for_one_c_function_is_pushed_with_its_callers_and_plays_alike(engines, monkeypatch):
    """With units cut into parts past 40 lines of C (c_split.UNIT_LINES), `finish` (its list, its
    call, its test and its end) no longer fits one function: it does not run as a C call, nor
    does `round`, which calls it; `tally` (one sum) still does."""
    monkeypatch.setattr(c_split, "UNIT_LINES", 40)
    python, c = engines(ENDS_INSIDE)
    units = c.engine.program.units
    assert {units[u].name for u in range(len(units)) if f"static int d{u}(" in c.engine.source} == {"tally"}
    a, b = python.new_state(1), c.new_state(1)
    k = 0
    while not a.is_terminal():
        a.apply_index(k % 3)
        b.apply_index(k % 3)
        assert a.words_in_use() == b.words_in_use(), k
        k += 1
    assert b.is_terminal() and a.outcome() == b.outcome()
