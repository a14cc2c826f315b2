"""The step limit in the Python engine: the steps are counted in every block but tested only
where a loop goes round and before play can be seen (python_source._Unit.block), a fault raised
past the limit being the limit's. So a game stops as in the C engine, which tests every block:
at the same rule, with the same message, whichever of the limit and another fault comes first."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

# blocks without a loop or anything seen between them, then a division by zero: a limit of a
# few steps is passed before the division or at it, in a block the Python engine does not test
STRETCH = """game "Stretch"
seats 2
limit steps {limit}
var n: int = 0
var z: int = 0
start p
phase p {{
  n = 1
  if n > 0 {{
    n = 2
  }}
  if n > 1 {{
    n = 3
  }}
  if n > 2 {{
    n = 4
  }}
  n = 7 / z
  end draw
}}
"""


def _stop(path, engine: str) -> tuple[int, str]:
    with pytest.raises(VbrRuntimeError) as err:
        load(path, {}, engine=engine).new_state(0)
    return err.value.span.line, err.value.message


def test_whichever_of_the_step_limit_and_a_fault_comes_first_stops_the_game_as_in_c(tmp_path):
    stops = []
    for limit in range(1, 10):
        path = tmp_path / f"stretch{limit}.vbr"
        path.write_text(STRETCH.format(limit=limit))
        python, c = _stop(path, "python"), _stop(path, "c")
        assert python == c, limit
        stops.append(python[1])
    # a limit of one step is passed at once; nine steps are more than the phase takes to the division
    assert "ran more than 1 steps" in stops[0]
    assert "division by zero" in stops[-1]
