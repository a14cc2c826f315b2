"""A typed state reserves only the room its program can use (vbr/ir/frames.py): for frames, the
heaviest chain of calls when no procedure can call itself, else `limit depth` frames of the
largest unit; and the temporaries of one statement's expressions are free for the next."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrError
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


def diamond(events: int, head: str = "") -> str:
    """`events` events of two handlers each, every handler emitting the next event."""
    decls = "".join(f"event e{i}()\n" for i in range(events))
    handlers = "".join(f"on e{i}() {{\n  emit e{i + 1}()\n}}\n" * 2 for i in range(events - 1))
    last = f"on e{events - 1}() {{\n  x += 1\n}}\n" * 2
    return (f'game "Diamond"\nseats 2\nstart play\n{head}var x: int = 0\n{decls}{handlers}{last}'
            'phase play "Play" {\n  emit e0()\n  end winner 0\n}\n')


def test_an_emits_waiting_handlers_count_their_own_frames_only(tmp_path):
    # an emit pushes both handlers' frames; the one running pushes the
    # next two above it, and its sibling waits with its frame alone: 2 frames a level, not the sum
    # of both handlers' whole chains (which doubles at each level: 2^40 frames' words for 40)
    p = _program(tmp_path, diamond(40))
    play = next(u for u in p.units if u.kind == "phase")
    handlers = [u for u in p.units if u.kind == "handler"]
    assert len(handlers) == 80
    # at the deepest, the phase's frame and every handler's: the 2 of each level, once each
    assert p.layout.frames == sum(FRAME_HEAD + u.nlocals for u in [play, *handlers]) < 5 * 81


def test_a_game_of_forty_levels_of_two_handlers_stops_at_its_step_limit_in_c(tmp_path):
    # the handlers run 2 + 4 + ... + 2^40 times: the step limit stops the game (once the state
    # was sized by the sum of the chains, 10^13 words, and the C engine's allocation failed)
    path = tmp_path / "rules.vbr"
    path.write_text(diamond(40, head="limit steps 500\n"))
    with pytest.raises(VbrError, match=r"the game ran more than 500 steps"):
        load(path, {}, engine="c").new_state(0)


def three_handlers(deep: int) -> str:
    """An event of three handlers of 20 `let`s each; handler `deep` calls a chain of five procedures
    of 30 `let`s each, the last summing a list it builds (1 + ... + 50 = 1,275) into `x`."""
    handlers = "".join(f"on go() {{\n" + "".join(f"  let h{h}_{i} = {i}\n" for i in range(20))
                       + ("  deep1()\n" if h == deep else "") + f"  x += h{h}_0\n}}\n" for h in range(3))
    procs = "".join(f"proc deep{k}() {{\n" + "".join(f"  let d{k}_{i} = {i}\n" for i in range(30))
                    + (f"  deep{k + 1}()\n" if k < 5 else "  x += sum(v for v in every(n for n in 1..50))\n")
                    + f"  x += d{k}_0\n}}\n" for k in range(1, 6))
    return ('game "Three"\nseats 2\nstart play\nvar x: int = 0\nevent go()\n' + handlers + procs
            + 'phase play "Play" {\n  emit go()\n  end winner x % 2\n}\n')


@pytest.mark.parametrize("deep", [0, 1, 2])
def test_the_room_an_emit_keeps_holds_whichever_handler_calls_deepest_in_both_engines(tmp_path, deep):
    # a state too small for the frames would stop the game (the lists ... fill the state); x ends
    # at 1,275 (every `let` read into x is 0), odd: seat 1 wins
    path = tmp_path / "rules.vbr"
    path.write_text(three_handlers(deep))
    for engine in ("python", "c"):
        state = load(path, {}, engine=engine).new_state(0)
        assert state.is_terminal() and state.outcome().winner == 1
