"""Small rule files, each the minimised form of a disagreement between the Python and the C
engine that differential fuzzing found (mutants of the books, and rule files generated from
scratch): both engines now play them alike, word for word, and end as the rule text says."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
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
