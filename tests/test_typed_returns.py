"""A rule file's `returns(S) = EXPR range LO..HI [total N]` under the typed engines (python and c):
worked out for each seat where play ended (one unit per seat in the typed program, run by the
engines' `call`), as the RL adapters read it (vbr.rl.common.seat_returns), with the same located
errors in both engines."""
import pytest

import vbr
from vbr.errors import VbrRuntimeError
from vbr.rl.common import seat_returns

RULES = """game "Returned"
seats 2
start one
var score: int per seat = 0
returns(s) = RETURN range -3..3 total 0
phase one {
  choose k from 1..3 by 0
  score[0] += k
  score[1] += 1
  end winner if score[0] > 1 then 0 else 1
}
"""


def ended(tmp_path, engine: str, value: str, k: int):
    """The game over after seat 0 chose `k`, its `returns` being `value`."""
    path = tmp_path / "returned.vbr"
    path.write_text(RULES.replace("RETURN", value))
    state = vbr.load(path, engine=engine).new_state(0)
    assert seat_returns(state) == [0.0, 0.0]  # not over yet
    state.apply(f"0 {k}")
    return state, path


@pytest.mark.parametrize("engine", ["python", "c"])
def test_each_seat_gets_what_returns_gives_it_where_play_ended(tmp_path, engine):
    # seat 0 chose 3: scores 3 and 1, so seat 0 gets 3 - 1 = 2 and seat 1 gets -2
    state, _ = ended(tmp_path, engine, "score[s] - score[other(s)]", 3)
    assert seat_returns(state) == [2.0, -2.0]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_return_outside_its_range_is_located_at_the_expression(tmp_path, engine):
    # 10 * (3 - 1) = 20 for seat 0: outside -3..3
    state, path = ended(tmp_path, engine, "10 * (score[s] - score[other(s)])", 3)
    with pytest.raises(VbrRuntimeError, match=r"`returns` gives seat 0 20, outside its range -3..3") as err:
        seat_returns(state)
    assert str(err.value).startswith(f"{path}:5:14: error:")


@pytest.mark.parametrize("engine", ["python", "c"])
def test_returns_not_adding_up_to_the_total_are_an_error(tmp_path, engine):
    # score[s] gives 3 and 1: 4, not the declared 0
    state, path = ended(tmp_path, engine, "score[s]", 3)
    with pytest.raises(VbrRuntimeError, match=r"`returns` gives the seats \[3, 1\], which add up to 4, not 0"):
        seat_returns(state)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_run_time_error_in_returns_names_the_seat_and_is_located_at_the_expression(tmp_path, engine):
    # seat 0 chose 1: scores 1 and 1, a division by zero for each seat; seat 0's is met first
    state, path = ended(tmp_path, engine, "3 / (score[s] - score[other(s)])", 1)
    with pytest.raises(VbrRuntimeError, match=r"`returns` for seat 0: division by zero") as err:
        seat_returns(state)
    assert str(err.value).startswith(f"{path}:5:14: error:")
