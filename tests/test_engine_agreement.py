"""Small rule files, each the minimised form of a disagreement between the Python and the C
engine that differential fuzzing found (mutants of the books, and rule files generated from
scratch): both engines now play them alike, word for word, and end as the rule text says."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError
from vbr.play import play_game


def loaded(tmp_path, text: str, engine: str):
    path = tmp_path / "rules.vbr"
    path.write_text(text)
    return load(path, {}, engine=engine)


def var_values(state) -> dict:
    """Each one-word var's value where play stands, by name."""
    game = state.game
    at = game.program.layout.vars
    return {name: int(state.words[at + i]) for i, name in enumerate(game.var_names)}


CALL_THEN_END = """game "A call, then the end"
seats 2
var n: int = 0
var rounds: int = 0
start b
proc twice(k: int): int {
  return k * 2
}
phase b {
  let d = twice(rounds)
  n += d
  rounds += 1
  if rounds > 3 {
    end winner 1
  }
  goto b
}
"""


def test_a_game_ending_in_the_phase_that_called_a_procedure_holds_the_same_words_in_both_engines(tmp_path):
    """`twice` never stops for a choice, so both engines run it as a plain call; the phase's
    frame then ends the game. Four rounds (0..3) add twice each: n = 0 + 2 + 4 + 6 = 12, and
    the fourth ends it, seat 1 winning, with no choice made. The frame's words at the end
    (its pc word included) are the same in both engines."""
    ends = {}
    for engine in ("python", "c"):
        result = play_game(loaded(tmp_path, CALL_THEN_END, engine), 0, "random")
        assert (result.winner, result.choices) == (1, 0)
        assert var_values(result.state) == {"n": 12, "rounds": 4}
        ends[engine] = [int(w) for w in result.state.words_in_use()]
    assert ends["python"] == ends["c"]


DRAWS_AT_THE_LIMIT = """game "Draws at the step limit"
seats 2
limit steps LIMIT
zone z public ordered
die d = 1..6
var n: int = 0
start a
phase a {
  choose x from [1, 2] by 0
  for i in 1..2 {
    shuffle z
    n += roll d
    n += pick [1, 2, 3]
  }
  goto a
}
"""


def _cut_game(tmp_path, limit: int, engine: str) -> tuple[list[str], str]:
    """The kinds of the events logged, and the error, of the game answering x = 1 under `limit`."""
    game = loaded(tmp_path, DRAWS_AT_THE_LIMIT.replace("LIMIT", str(limit)), engine)
    log: list = []
    state = game.new_state(0, log)
    with pytest.raises(VbrRuntimeError) as stopped:
        state.apply_index(0)
    return [e["t"] for e in log], stopped.value.render().splitlines()[0]


ROUND = ["shuffle", "roll", "pick"]


@pytest.mark.parametrize("limit, logged", [
    (2, ["phase", "choice"]),                          # stopped at step 3, before the first round
    (3, ["phase", "choice", *ROUND]),                  # step 3 starts the first round
    (4, ["phase", "choice", *ROUND, *ROUND]),          # step 4 the second
    (5, ["phase", "choice", *ROUND, *ROUND, "phase"]),  # step 5 ends the loop; the goto is step 6
])
def test_a_draw_past_the_step_limit_is_not_logged_and_both_engines_log_the_same(tmp_path, limit, logged):
    """Steps (units started, loop heads reached: vbr.ir.steps): 1 the set-up, 2 phase a, which
    waits on its choice; then 3, 4 and 5 the loop's head (two rounds, then done) and 6 phase a
    again. A game stopped by `limit steps N` stops where step N + 1 is counted, before anything
    after it is drawn: the log holds the draws within the limit only, the same in both engines."""
    for engine in ("python", "c"):
        kinds, error = _cut_game(tmp_path, limit, engine)
        assert kinds == logged, engine
        assert error.endswith(f"error: the game ran more than {limit} steps (`limit steps`)"), error


SLOT_SET_BY_A_ROLL = """game "A slot chosen by a roll"
seats 2
die d = 1..6
die big = [9223372036854775807]
var n: int per seat = 0
start a
phase a {
  n[roll d % 2] = roll big + roll d
  end winner 0
}
"""


def test_a_slot_whose_index_and_value_both_draw_logs_the_same_draws_in_both_engines(tmp_path):
    """`n[roll d % 2] = roll big + roll d`: the value is worked out first, then the slot's index
    (the C engine's order; the Python engine rolled the index's die first when its index was
    more than a name). The value's sum passes the largest integer, 2^63 - 1, whatever d shows,
    so the game stops there, after the value's two rolls and before the index's: both engines
    log `roll big`, `roll d`, and the same located error."""
    for engine in ("python", "c"):
        log: list = []
        with pytest.raises(VbrRuntimeError) as stopped:
            play_game(loaded(tmp_path, SLOT_SET_BY_A_ROLL, engine), 0, "random", log_sink=log)
        assert [(e["t"], e.get("die")) for e in log if e["t"] == "roll"] == [("roll", "big"), ("roll", "d")], engine
        assert stopped.value.render().splitlines()[0].endswith(
            ":8:19: error: a result out of the range of integers (-9223372036854775807..9223372036854775807)"), engine
