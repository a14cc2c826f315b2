"""A procedure that never suspends runs in the Python engine as a plain function call, with no
frame pushed (python_source._Direct). What can be seen of play is the C engine's all the same:
the words at every choice and at the end (the frames of a game that ends inside such calls
among them), and a limit passed inside one is located at that procedure."""
from __future__ import annotations

import pytest

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
