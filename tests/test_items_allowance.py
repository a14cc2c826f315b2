"""The items aggregates and comprehensions go through count against an allowance of 64 per step
of `limit steps` (docs/language.md, Run-time limits), so that nested aggregates end in bounded
time: past it, a located error, the same in both typed engines, whichever of them works an
unchanging inner aggregate out once."""
from __future__ import annotations

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError

NESTED = """game "Nested"
seats 2
limit steps STEPS
start p
phase p {
  say "{sum(sum(1 for a in 1..100) for b in 1..100)}"
  end winner 0
}
"""


def said(tmp_path, steps: int, engine: str) -> list[str]:
    f = tmp_path / "nested.vbr"
    f.write_text(NESTED.replace("STEPS", str(steps)))
    log: list = []
    state = load(f, {}, engine=engine).new_state(0, log)
    assert state.is_terminal()
    return [e["text"] for e in log if e["t"] == "say"]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_nested_aggregates_within_the_allowance_give_their_value(tmp_path, engine):
    # 100 outer items, and the inner sum's 100 items for each of them: 10,100 items, within
    # 64 * 160 = 10,240.
    assert said(tmp_path, 160, engine) == ["10000"]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_nested_aggregates_past_the_allowance_are_a_located_error(tmp_path, engine):
    # The same 10,100 items pass 64 * 150 = 9,600: counted each time the inner sum is worked
    # out, though it gives the same value every time.
    with pytest.raises(VbrRuntimeError) as caught:
        said(tmp_path, 150, engine)
    assert str(caught.value).startswith(
        f"{tmp_path / 'nested.vbr'}:5:1: error: the game's aggregates and comprehensions went through more than "
        "9600 items (64 for each of `limit steps`)")


HOSTILE = NESTED.replace("limit steps STEPS\n", "").replace(
    "sum(sum(1 for a in 1..100) for b in 1..100)", "sum(sum(sum(1 for a in 1..4000) for b in 1..4000) for c in 1..4000)")


@pytest.mark.parametrize("engine", ["python", "c"])
def test_aggregates_nested_three_deep_over_4000_numbers_stop_at_the_default_allowance(tmp_path, engine):
    # 4000 ** 3 items would take hours; the default allowance is 64 * 1,000,000.
    f = tmp_path / "hostile.vbr"
    f.write_text(HOSTILE)
    with pytest.raises(VbrRuntimeError) as caught:
        load(f, {}, engine=engine).new_state(0)
    assert "went through more than 64000000 items" in str(caught.value)
