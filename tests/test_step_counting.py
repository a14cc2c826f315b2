"""What `limit steps` counts (docs/language.md, Run-time limits; vbr.ir.steps): a step each time a
phase, procedure or handler starts and each time a loop's head is reached (before each round, and
once more where a `for`, `while` or `repeat` finds it is done); statements and `if`s cost none.
The limit is tested where a step is counted, so a game stops at the same rule with the same
message in both engines, whichever of the limit and another fault comes first."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError
from vbr.ir.layout import Header as H

ENGINES = ("python", "c")

# the set-up (1), phase p (1), the repeat's head reached 4 times (3 rounds, then done), bump's 3
# calls (3), phase q (1): 10 steps; the `if` and the assignments cost none
COUNTED = """game "Steps"
seats 2
var n: int = 0
proc bump() {
  n = n + 1
}
start p
phase p {
  if n == 0 {
    n = 0
  }
  repeat 3 {
    bump()
  }
  goto q
}
phase q {
  end draw
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_game_counts_a_step_per_unit_started_and_per_loop_head_reached(tmp_path, engine):
    path = tmp_path / "steps.vbr"
    path.write_text(COUNTED)
    state = load(path, {}, engine=engine).new_state(0)
    assert state.is_terminal()
    assert state.words[H.STEPS] == 10


# the set-up (1), phase p (1), the for's head 6 times (5 rounds, then done): 8 steps before the
# division by zero; the `if`s between cost none
STRETCH = """game "Stretch"
seats 2
limit steps {limit}
var n: int = 0
var z: int = 0
start p
phase p {{
  if n == 0 {{
    n = 1
  }}
  if n > 0 {{
    n = 2
  }}
  for i in 1..5 {{
    n = n + i
  }}
  n = 7 / z
  end draw
}}
"""


def _stop(path, engine: str) -> tuple[int, str]:
    with pytest.raises(VbrRuntimeError) as err:
        load(path, {}, engine=engine).new_state(0)
    return err.value.span.line, err.value.message


def test_whichever_of_the_step_limit_and_a_fault_comes_first_stops_the_game_in_both_engines(tmp_path):
    for limit in range(1, 11):
        path = tmp_path / f"stretch{limit}.vbr"
        path.write_text(STRETCH.format(limit=limit))
        python, c = _stop(path, "python"), _stop(path, "c")
        assert python == c, limit
        if limit < 8:
            assert f"ran more than {limit} steps" in python[1], limit
        else:
            assert "division by zero" in python[1], limit
