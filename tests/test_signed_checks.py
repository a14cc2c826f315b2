"""Checked sums, differences and products whose operands are known never to be negative
(their ranges, vbr/ir/ranges.py), which the Python engine tests at one end of the range only: each still faults
exactly where a result leaves -9223372036854775807..9223372036854775807 (docs/language.md: a
result out of the range of integers is a run-time error), at the same line in both engines, and
gives the value in range otherwise."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

BIG = 9223372036854775807  # the largest integer; its negation the least (none is the word below it)

RULES = """game "Signed sums"
seats 2
option start_at = 0
option step = 1
var x: int = 0
var y: int = 0
start a
phase a {{
  x = start_at
  choose c from [true, false] by 0 as "add?"
  y = {expression}
  end winner 0
}}
"""


def _y(tmp_path, engine: str, expression: str, options: dict, take_step: bool):
    """y as the game leaves it when seat 0 chooses `take_step`, or the run-time error's first line."""
    path = tmp_path / "signed.vbr"
    path.write_text(RULES.format(expression=expression), encoding="utf-8")
    game = load(path, options, engine=engine)
    state = game.new_state(1)
    try:
        state.apply_index(0 if take_step else 1)
    except VbrRuntimeError as stopped:
        return stopped.render().splitlines()[0].replace(f"{path.parent}/", "")
    at = game.program.layout.vars + game.var_names.index("y")
    return int(state.words[at])


OUT_OF_RANGE = "signed.vbr:11:7: error: a result out of the range of integers (-9223372036854775807..9223372036854775807)"

CASES = [
    # (y's expression, options, y when the step is taken, y when it is not)
    ("x + (if c then step else 0)", {"start_at": BIG}, OUT_OF_RANGE, BIG),
    ("x - (if c then step else 0)", {"start_at": -BIG}, OUT_OF_RANGE, -BIG),
    ("(if c then step else 0) - x", {"start_at": -BIG}, OUT_OF_RANGE, BIG),
    ("(if c then step else 0) + x", {"start_at": BIG - 1}, BIG, BIG - 1),
    ("(if c then step else 1) * (if c then 2 else 1)", {"step": BIG}, OUT_OF_RANGE, 1),
    # a negative term: the sum may fall below the range, and is tested there too
    ("x + (if c then step else 0)", {"start_at": -BIG, "step": -1}, OUT_OF_RANGE, -BIG),
    ("x - (if c then step else 0)", {"start_at": BIG, "step": -1}, OUT_OF_RANGE, BIG),
]


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("expression,options,taken,not_taken", CASES)
def test_a_sum_with_a_term_never_negative_faults_only_out_of_the_range(tmp_path, engine, expression, options,
                                                                        taken, not_taken):
    assert _y(tmp_path, engine, expression, options, True) == taken
    assert _y(tmp_path, engine, expression, options, False) == not_taken
