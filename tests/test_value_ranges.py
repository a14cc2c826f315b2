"""The ranges of values vars and locals can hold (vbr/ir/ranges.py), which let the engines leave
out an index's test where every value that reaches it is in range: each range holds every
value the rules can put there (none too where they can), and an index that a value out of range
can still reach faults where it did, in both engines."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError
from vbr.ir.ranges import ValueRanges
from vbr.ir.values import INT_MAX, NONE

HEAD = 'game "Ranges"\nseats 2\n'


def _var_range(tmp_path, body: str, declarations: str = "var x: int = 0\n") -> tuple[int, int]:
    """The range of var x of a file whose one phase runs `body` then ends."""
    path = tmp_path / "ranges.vbr"
    path.write_text(f"{HEAD}{declarations}start a\nphase a {{\n{body}\n  end winner 0\n}}\n", encoding="utf-8")
    game = load(path, engine="python")
    return ValueRanges(game.program).vars[game.var_names.index("x")]


@pytest.mark.parametrize("body, expected", [
    # other() gives a seat of two; x starts at 0
    ("  x = other(1)", (0, 1)),
    # a loop's name over a range takes its ends, not the counter's value past the last round
    ("  for i in 2..4 {\n    x = i\n  }", (0, 4)),
    # a list's items
    ("  for v in [3, 9] {\n    x = v\n  }", (0, 9)),
    # a remainder by 6 (the divisor's sign), and a sum of two such
    ("  x = (x % 6) + (x % 6)", (0, 10)),
    # a value counted up each round has no top but the largest integer
    ("  repeat 3 {\n    x = x + 1\n  }", (0, INT_MAX)),
])
def test_a_var_ranges_over_what_the_rules_put_there(tmp_path, body, expected):
    assert _var_range(tmp_path, body) == expected


def test_a_var_a_choice_sets_may_hold_none(tmp_path):
    body = '  choose c from [1, 2] by 0 optional as "which?"\n  x = c'
    assert _var_range(tmp_path, body) == (NONE, 2)


def test_a_bounded_var_ranges_over_its_declared_range(tmp_path):
    assert _var_range(tmp_path, "  x = x + 7", "var x: int = 0 range 0..3 clamp\n") == (0, 3)


def test_a_parameter_ranges_over_every_argument_of_its_calls(tmp_path):
    path = tmp_path / "params.vbr"
    path.write_text(f"{HEAD}var x: int = 0\nstart a\nproc f(n: int) {{\n  x = n\n}}\n"
                    "phase a {\n  f(3)\n  f(7)\n  end winner 0\n}\n", encoding="utf-8")
    game = load(path, engine="python")
    assert ValueRanges(game.program).vars[game.var_names.index("x")] == (0, 7)


SEAT_INDEX = HEAD + """var score: int per seat = 0
start a
proc add(s: seat) {{
  score[s] = score[s] + 1
}}
phase a {{
  for s in seats {{
    add(s)
  }}
  choose c from {options} by 0 as "whose?"
  add(c)
  end winner 0
}}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_an_index_a_value_out_of_range_can_reach_still_faults(tmp_path, engine):
    """`add`'s seat comes from the seats (in range) and from a choice of 0, 1 or 2: choosing 2
    faults at `score[s]` (docs/language.md: an index out of range is a run-time error); choosing
    1 counts it."""
    path = tmp_path / "seat.vbr"
    path.write_text(SEAT_INDEX.format(options="[0, 1, 2]"), encoding="utf-8")
    game = load(path, engine=engine)
    state = game.new_state(1)
    state.apply_index(1)
    at = game.program.layout.vars + game.var_names.index("score[0]")
    assert [int(w) for w in state.words[at:at + 2]] == [1, 2]
    state = game.new_state(1)
    with pytest.raises(VbrRuntimeError) as stopped:
        state.apply_index(2)
    first = stopped.value.render().splitlines()[0]
    assert first == f"{path}:6:14: error: `score[2]`: out of 0..1"  # the read, worked out first


def test_an_index_only_values_in_range_reach_is_not_tested(tmp_path):
    """With a choice of 0 or 1 only, every seat `add` is given is in range: the Python engine's
    code tests no index."""
    path = tmp_path / "seat.vbr"
    path.write_text(SEAT_INDEX.format(options="[0, 1]"), encoding="utf-8")
    assert "index(" not in load(path, engine="python").engine.source
    path.write_text(SEAT_INDEX.format(options="[0, 1, 2]"), encoding="utf-8")
    assert "index(" in load(path, engine="python").engine.source


NONE_TEST = """game "None tests"
seats 2
var x: int = 0
start a
phase a {{
  choose v from [3, 5] by 0{optional}
  x = v
  if x >= 4 {{
    end winner 1
  }}
  end winner 0
}}
"""


@pytest.mark.parametrize("optional, tested", [("", False), (" optional", True)])
def test_a_value_whose_range_excludes_none_is_compared_without_a_none_test(tmp_path, optional, tested):
    """x holds what a choice of 3 or 5 gave: its range excludes none, so `x >= 4` is written
    without testing x for none (none there is a run-time error, docs/language.md) in the
    Python engine's source; an optional choice may give none (a pass), and then the test stays."""
    path = tmp_path / "none.vbr"
    path.write_text(NONE_TEST.format(optional=optional), encoding="utf-8")
    source = load(path, engine="python").engine.source
    compare = next(line for line in source.splitlines() if ">= 4" in line)
    assert (str(NONE) in compare) is tested
