"""A typed state reserves only the room its program can use (vbr/ir/frames.py): for frames, the
heaviest chain of calls when no procedure can call itself, else `limit depth` frames of the
largest unit; and the temporaries of one statement's expressions are free for the next."""
from __future__ import annotations

from vbr.engines.game import load
from vbr.ir.layout import FRAME_HEAD

CHAIN = """game "Chain"
seats 2
start play
var x: int = 0

proc b() {
  let b1 = 1
  let b2 = 2
  x = b1 + b2
}

proc a() {
  let a1 = 1
  b()
}

phase play "Play" {
  let p1 = 1
  a()
  end winner 0
}
"""

RECURSIVE = """game "Recursive"
seats 2
start play
var x: int = 0

proc down(n: int) {
  if n > 0 {
    x += 1
    down(n - 1)
  }
}

phase play "Play" {
  down(3)
  end winner 0
}
"""

TWO_SUMS = """game "Two sums"
seats 2
start play
var x: int = 0

phase play "Play" {
  x = sum(v for v in [1, 2, 4])
  x = x + sum(w * 2 for w in [4, 5])
  end winner x % 2
}
"""


def _program(tmp_path, text):
    path = tmp_path / "rules.vbr"
    path.write_text(text)
    return load(path, {}, engine="python").program


def test_without_recursion_the_frames_get_the_heaviest_chain_of_calls(tmp_path):
    p = _program(tmp_path, CHAIN)
    lay = p.layout
    chain = (FRAME_HEAD + 1) + (FRAME_HEAD + 1) + (FRAME_HEAD + 2)  # play (p1), a (a1), b (b1, b2)
    assert lay.frames == chain
    assert lay.words == lay.stack + chain  # and no list is ever copied onto the stack


def test_a_procedure_that_calls_itself_keeps_room_for_limit_depth_frames(tmp_path):
    lay = _program(tmp_path, RECURSIVE).layout
    assert lay.frames == -1
    assert lay.words == lay.stack + lay.depth * lay.max_frame + lay.copies


def test_two_statements_share_the_local_their_aggregates_walk_with(tmp_path):
    p = _program(tmp_path, TWO_SUMS)
    play = next(u for u in p.units if u.kind == "phase")
    assert play.nlocals == 1


def test_the_games_of_two_shared_temporaries_end_as_their_sums_say_in_both_engines(tmp_path):
    path = tmp_path / "rules.vbr"
    path.write_text(TWO_SUMS)
    for engine in ("python", "c"):
        state = load(path, {}, engine=engine).new_state(1)
        assert state.is_terminal() and state.outcome().winner == (7 + 18) % 2
