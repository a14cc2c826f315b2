"""Run-time limits (issue 17): every loop round and every item iterated or built is a step of
the game, so `limit steps` bounds the work of any rule file; integers are 64-bit; a range and a
choice have a largest size. Each limit stops the game with a located error, the same in both
forms (closures and lowered code)."""
import pytest

from vbr.errors import OptionError, StepLimitExceeded, VbrRuntimeError
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.game import Game
from vbr.loader import load_rules
from vbr.scenario import run_file


def both_forms(tmp_path, text, options=None):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + text)
    rules = load_rules(path)
    return [Game(rules, compile_rules(rules, options or {}, lower=lower), options or {}) for lower in (False, True)]


def fails_alike(tmp_path, text, error=VbrRuntimeError):
    """The error both forms stop with (they must agree, location and all)."""
    messages = []
    for game in both_forms(tmp_path, text):
        with pytest.raises(error) as info:
            game.new_state(0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    return messages[0]


def phase(body: str, head: str = "var n: int = 0\n") -> str:
    return head + "start p\nphase p {\n" + body + "  end draw\n}\n"


# ---------------------------------------------------------------------- steps: loops and items
def test_nested_repeats_stop_at_the_step_limit(tmp_path):
    text = phase("  repeat 1000000 {\n    repeat 1000000 {\n      n += 1\n    }\n  }\n")
    message = fails_alike(tmp_path, text, StepLimitExceeded)
    assert "g.vbr:6:5: error: step limit of 1000000 reached in `p`" in message  # the inner repeat


def test_nested_bounded_loops_stop_at_the_step_limit(tmp_path):
    text = phase("  loop max 1000000000 {\n    loop max 1000000000 {\n      n += 1\n    }\n  }\n",
                 "limit steps 20000\nvar n: int = 0\n")
    message = fails_alike(tmp_path, text, StepLimitExceeded)
    assert "g.vbr:7:5: error: step limit of 20000 reached in `p`" in message


def test_a_loop_that_stops_for_choices_counts_its_rounds(tmp_path):
    # an optional choice with nothing to offer is skipped: the loop never suspends
    text = phase("  loop max 1000000 {\n    choose x from [] by 0 optional\n  }\n",
                 "limit steps 5000\nseats 2\n")
    assert "step limit of 5000" in fails_alike(tmp_path, text, StepLimitExceeded)


def test_nested_comprehensions_count_their_items(tmp_path):
    # 1000 ranges' worth of items, 1000 each: a million steps of work, over a limit of 50000
    text = phase("  let xs = 1..1000\n  n = sum(sum(1 for y in xs) for x in xs)\n", "limit steps 50000\nvar n: int = 0\n")
    assert "g.vbr:7:3: error: step limit of 50000" in fails_alike(tmp_path, text, StepLimitExceeded)


def test_steps_are_rounds_items_and_transfers(tmp_path):
    # repeat: 10 rounds; for: 3 items; a range of 3 numbers; a comprehension over it: 3; a
    # comprehension over a range with fixed ends (built before play, so not counted): 4; `end`: 1
    text = phase("  repeat 10 {\n    n += 1\n  }\n  for i in [1, 2, 3] {\n    n += i\n  }\n"
                 "  let k = 3\n  n = sum(i for i in 1..k)\n  n = sum(i for i in 1..4)\n")
    for game in both_forms(tmp_path, text):
        st = game.new_state(0)
        assert st.is_terminal()
        assert st.steps == 10 + 3 + 3 + 3 + 4 + 1


def test_a_scenario_given_block_is_bounded(tmp_path):
    (tmp_path / "g.vbr").write_text('game "x"\nvar n: int = 0\nstart p\nphase p {\n  end draw\n}\n')
    (tmp_path / "t.vbr").write_text('tests for "g.vbr"\n\nscenario "endless" {\n  given {\n'
                                    '    loop max 1000000000 {\n      n += 1\n    }\n  }\n  start p\n}\n')
    (result,) = run_file(tmp_path / "t.vbr")
    assert not result.ok
    assert "step limit of 1000000" in result.message


# ---------------------------------------------------------------------- ranges and choices
def test_a_range_holds_at_most_a_million_numbers(tmp_path):
    text = phase("  let xs = 1..n\n", "var n: int = 2000000\n")
    assert "g.vbr:5:3: error: the range 1..2000000 holds 2000000 numbers; a range holds at most 1000000" in \
        fails_alike(tmp_path, text)


def test_a_range_past_the_integers_is_refused_before_it_is_built(tmp_path):
    text = phase("  let xs = 0 - n..n\n", "var n: int = 9223372036854775807\n")
    assert "a range holds at most 1000000" in fails_alike(tmp_path, text)


def test_a_choice_offers_at_most_ten_thousand_options(tmp_path):
    text = phase("  choose x from 1..10001 by 0\n", "seats 2\n")
    assert "g.vbr:5:3: error: `choose x` offers 10001 options; a choice offers at most 10000" in fails_alike(tmp_path, text)


def test_a_choice_of_ten_thousand_options_is_offered(tmp_path):
    for game in both_forms(tmp_path, phase("  choose x from 1..10000 by 0\n", "seats 2\n")):
        assert len(game.new_state(0).legal_actions()) == 10000


# ---------------------------------------------------------------------- integers
MAX = 2 ** 63 - 1


@pytest.mark.parametrize("start,body", [
    (3, "  loop max 100 {\n    n = n + n\n  }\n"),
    (3, "  loop max 100 {\n    n = n * 1000\n  }\n"),
    (MAX, "  n = 3 - n - n\n"),
    (MAX, "  n += 1\n"),
    (MAX, "  n -= 0 - 1\n"),
    (3, f"  n = sum(x for x in [{MAX}, n])\n"),
], ids=["sum", "product", "difference", "+=", "-=", "sum()"])
def test_integers_past_64_bits_are_a_located_error(tmp_path, start, body):
    message = fails_alike(tmp_path, phase(body, f"var n: int = {start}\n"))
    assert "is out of the range of integers (-9223372036854775807..9223372036854775807)" in message
    line = 6 if "loop" in body else 5
    assert f"g.vbr:{line}:" in message


def test_the_largest_integer_is_reached_exactly(tmp_path):
    text = phase(f"  n = {MAX - 1}\n  n += 1\n  n = 0 - n\n")
    for game in both_forms(tmp_path, text):
        assert game.new_state(0).vals[0] == -MAX


# ---------------------------------------------------------------------- fns that double
def doubling_fns(levels: int) -> str:
    """`f_i(a) = f_{i-1}(a) + f_{i-1}(a)`: a call of the last evaluates 2**levels copies of f0."""
    return "fn f0(a: int) = a\n" + "".join(f"fn f{i}(a: int) = f{i - 1}(a) - f{i - 1}(a)\n"
                                            for i in range(1, levels + 1))


def test_the_lowering_writes_a_doubling_fn_once_per_level(tmp_path):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + doubling_fns(12) + phase("  n = f12(n)\n"))
    rules = load_rules(path)
    program = compile_rules(rules, {}, lower=True, keep_code=True)
    nodes = sum(1 for module in program.lowering.modules for _ in __import__("ast").walk(module))
    assert nodes < 3000  # written in place, f12 alone would be 4096 copies of f0
    st = Game(rules, program, {}).new_state(0)
    assert st.vals[0] == 0


def test_a_call_of_a_heavy_fn_is_paid_for_up_front(tmp_path):
    # f12 evaluates 6 * 2**12 - 5 = 24571 nodes (f0: 1; each level: a `-`, two calls and their
    # arguments, 5, and two of the level below); a call from a phase pays a step per 64: 383
    text = doubling_fns(12) + phase("  n = f12(n)\n")
    for game in both_forms(tmp_path, text):
        st = game.new_state(0)
        assert st.steps == 383 + 1  # and `end`


def test_a_loop_of_heavy_fn_calls_stops_at_the_step_limit(tmp_path):
    text = doubling_fns(12) + phase("  loop max 1000000 {\n    n = f12(n)\n  }\n", "limit steps 5000\nvar n: int = 0\n")
    assert "g.vbr:20:5: error: step limit of 5000 reached in `p`" in fails_alike(tmp_path, text, StepLimitExceeded)


def test_an_option_past_64_bits_is_refused(tmp_path):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\noption target = 7\nstart p\nphase p {\n  end draw\n}\n')
    with pytest.raises(OptionError, match=r"option `target` = 99999999999999999999 is out of the range of integers"):
        compile_rules(load_rules(path), {"target": "99999999999999999999"})
    assert compile_rules(load_rules(path), {"target": str(MAX)}).options["target"] == MAX


# ---------------------------------------------------------------------- what Python itself may raise
@pytest.mark.parametrize("exc,words", [(MemoryError(), "out of memory"),
                                       (OverflowError("int too large"), "OverflowError: int too large")])
def test_python_running_out_is_a_located_error(tmp_path, exc, words):
    (game,) = both_forms(tmp_path, phase("  n = 1\n"))[1:]
    st = game.new_state(0)
    st.result = None
    st.goto("p", game.program.phases["p"])

    def failing(st, fr):
        raise exc
    st.stack[-1].code.ops[0] = failing
    with pytest.raises(VbrRuntimeError) as info:
        st.run()
    assert words in info.value.message and info.value.span.line == 5
