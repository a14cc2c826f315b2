"""`choose ... by team T` (docs/language.md, `choose`): the team's first seat answers; a team with
no seat, one the rules play, cannot be asked, and asking it is a located run-time error in both
typed engines, only when it is asked."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

SOLO = """game "Solo"
seats 1 teams { you: 0 ai: }
var n: int = 0
start p
phase p {
  choose x from [0, 1] by team n
  say "{x}"
  n += 1
  if n == ASKED {
    end winner 0
  }
  goto p
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_seated_team_is_asked_through_its_first_seat_beside_a_team_with_no_seat(tmp_path, engine):
    f = tmp_path / "solo.vbr"
    f.write_text(SOLO.replace("ASKED", "1"))
    state = load(f, {}, engine=engine).new_state(0)
    assert [str(a) for a in state.legal_actions()] == ["0 0", "0 1"]
    state.apply("0 1")
    assert state.is_terminal() and state.outcome().winner == 0


@pytest.mark.parametrize("engine", ["python", "c"])
def test_asking_a_team_with_no_seat_is_a_located_error_when_it_is_asked(tmp_path, engine):
    f = tmp_path / "solo.vbr"
    f.write_text(SOLO.replace("ASKED", "2"))
    state = load(f, {}, engine=engine).new_state(0)
    with pytest.raises(VbrRuntimeError) as caught:
        state.apply("0 0")  # n becomes 1: the next choice asks team 1, the rules' own
    assert str(caught.value).startswith(f"{f}:6:3: error: `by team 1`: that team has no seat to answer "
                                        "(the rules play it)")
