"""Run-time limits (issue 17) under the typed engines: `limit steps` bounds the units a game starts
and the rounds its loops go, integers are 64-bit, a range built in play and a choice have a
largest size (4,096: docs/language.md). Each limit stops the game with a located error, the same
in the Python and the C engine."""
import pytest

from vbr.engines.game import load
from vbr.errors import OptionError, VbrRuntimeError
from vbr.ir.layout import Header as H
from vbr.scenario import run_file

ENGINES = ("python", "c")


def games(tmp_path, text, options=None):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + text)
    return [load(path, options or {}, engine=engine) for engine in ENGINES]


def fails_alike(tmp_path, text):
    """The error both engines stop with (they must agree, location and all)."""
    messages = []
    for game in games(tmp_path, text):
        with pytest.raises(VbrRuntimeError) as info:
            game.new_state(0)
        messages.append(info.value.render())
    assert messages[0] == messages[1]
    return messages[0]


def phase(body: str, head: str = "var n: int = 0\n") -> str:
    """`head`, then `phase p` on the line after `start p`, running `body`, then `end draw`."""
    return head + "start p\nphase p {\n" + body + "  end draw\n}\n"


# ---------------------------------------------------------------------- steps
# A step limit is met in the middle of the phase's run: it is located at the phase being run
# (`phase p`, line 4 when the head is one line, 5 when two).
def test_nested_repeats_stop_at_the_default_step_limit(tmp_path):
    # a million rounds of a million: far past the default 1,000,000 steps
    text = phase("  repeat 1000000 {\n    repeat 1000000 {\n      n += 1\n    }\n  }\n")
    assert "g.vbr:4:1: error: the game ran more than 1000000 steps (`limit steps`)" in fails_alike(tmp_path, text)


def test_nested_bounded_loops_stop_at_the_step_limit_the_file_sets(tmp_path):
    text = phase("  loop max 1000000000 {\n    loop max 1000000000 {\n      n += 1\n    }\n  }\n",
                 "limit steps 20000\nvar n: int = 0\n")
    assert "g.vbr:5:1: error: the game ran more than 20000 steps (`limit steps`)" in fails_alike(tmp_path, text)


def test_a_loop_of_skipped_choices_counts_its_rounds(tmp_path):
    # an optional choice with nothing to offer is skipped: the loop never stops for a choice
    text = phase("  loop max 1000000 {\n    choose x from [] by 0 optional\n  }\n", "limit steps 5000\nseats 2\n")
    assert "g.vbr:5:1: error: the game ran more than 5000 steps (`limit steps`)" in fails_alike(tmp_path, text)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_scenario_given_block_is_bounded(tmp_path, engine):
    (tmp_path / "g.vbr").write_text('game "x"\nvar n: int = 0\nstart p\nphase p {\n  end draw\n}\n')
    (tmp_path / "t.vbr").write_text('tests for "g.vbr"\n\nscenario "endless" {\n  given {\n'
                                    '    loop max 1000000000 {\n      n += 1\n    }\n  }\n  start p\n}\n')
    (result,) = run_file(tmp_path / "t.vbr", engine=engine)
    assert not result.ok
    assert "t.vbr:4:3: error: the game ran more than 1000000 steps" in result.message  # at `given`


# ---------------------------------------------------------------------- ranges and choices
def test_a_range_built_in_play_holds_at_most_4096_numbers(tmp_path):
    # `1..n` starts at column 12 of `  let xs = 1..n`
    text = phase("  let xs = 1..n\n", "var n: int = 2000000\n")
    assert ("g.vbr:5:12: error: the range 1..2000000 holds more than 4096 numbers, the most a range built in play "
            "holds here") in fails_alike(tmp_path, text)


def test_a_range_past_the_integers_is_refused_before_it_is_built(tmp_path):
    text = phase("  let xs = 0 - n..n\n", "var n: int = 9223372036854775807\n")
    assert ("g.vbr:5:12: error: the range -9223372036854775807..9223372036854775807 holds more than 4096 numbers"
            in fails_alike(tmp_path, text))


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_choice_offers_at_most_4096_options(tmp_path, engine):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + phase("  choose x from 1..4097 by 0\n", "seats 2\n"))
    with pytest.raises(VbrRuntimeError) as info:
        load(path, {}, engine=engine).new_state(0)
    assert "g.vbr:5:3: error: `choose x` offers 4097 options; a choice offers at most 4096" in info.value.render()


def test_a_choice_of_4096_options_is_offered(tmp_path):
    for game in games(tmp_path, phase("  choose x from 1..4096 by 0\n", "seats 2\n")):
        offered = game.new_state(0).legal_actions()
        assert len(offered) == 4096 and (offered[0].text, offered[-1].text) == ("1", "4096")


# ---------------------------------------------------------------------- integers
MAX = 2 ** 63 - 1


@pytest.mark.parametrize("start,body,at", [
    (3, "  loop max 100 {\n    n = n + n\n  }\n", "6:9"),  # 3 * 2**62 is past MAX: at `n + n`
    (3, "  loop max 100 {\n    n = n * 1000\n  }\n", "6:9"),
    (MAX, "  n = 3 - n - n\n", "5:7"),  # 3 - MAX is fine; minus MAX again is past -MAX
    (MAX, "  n += 1\n", "5:3"),  # a compound assignment is located at its statement
    (MAX, "  n -= 0 - 1\n", "5:3"),
    (3, f"  n = sum(x for x in [{MAX}, n])\n", "5:7"),  # at the `sum`
    # -MAX less 1 and -1 plus -MAX are -2**63: past -MAX without passing 64 bits
    (MAX, "  n = 0 - n - 1\n", "5:7"),
    (MAX, "  n = 0 - 1 + (0 - n)\n", "5:7"),
], ids=["sum", "product", "difference", "+=", "-=", "sum()", "difference to -2**63", "sum to -2**63"])
def test_integers_past_64_bits_are_a_located_error(tmp_path, start, body, at):
    message = fails_alike(tmp_path, phase(body, f"var n: int = {start}\n"))
    assert f"g.vbr:{at}: error: a result out of the range of integers (-9223372036854775807..9223372036854775807)" \
        in message


def test_the_largest_integer_is_reached_exactly(tmp_path):
    text = phase(f"  n = {MAX - 1}\n  n += 1\n  n = 0 - n\n  say \"{{n}}\"\n")
    for game in games(tmp_path, text):
        log: list = []
        assert game.new_state(0, log).is_terminal()
        assert [e["text"] for e in log if e["t"] == "say"] == [str(-MAX)]


# ---------------------------------------------------------------------- fns that double
def doubling_fns(levels: int) -> str:
    """`f_i(a) = f_{i-1}(a) - f_{i-1}(a)`: a call of the last evaluates 2**levels copies of f0."""
    return "fn f0(a: int) = a\n" + "".join(f"fn f{i}(a: int) = f{i - 1}(a) - f{i - 1}(a)\n"
                                            for i in range(1, levels + 1))


def test_a_call_of_a_heavy_fn_is_paid_for_up_front(tmp_path):
    # f12 evaluates 6 * 2**12 - 5 = 24571 nodes (f0: 1; each level: a `-`, two calls and their
    # arguments, 5, and two of the level below); a call from a phase pays a step per 64 of
    # them: 383 steps more than the phase without the call
    plain = [g.new_state(0).words_in_use()[H.STEPS] for g in games(tmp_path, phase("  n = 0\n"))]
    heavy = [g.new_state(0).words_in_use()[H.STEPS]
             for g in games(tmp_path, doubling_fns(12) + phase("  n = f12(n)\n"))]
    assert [h - p for h, p in zip(heavy, plain)] == [383, 383]


def test_a_loop_of_heavy_fn_calls_stops_at_the_step_limit(tmp_path):
    # over 383 steps a round (the call's 383 and the loop's own): the 14th round at the latest
    # passes 5000; `phase p` is on line 18, after the game line, 13 fns, the limit, the var and `start`
    text = doubling_fns(12) + phase("  loop max 1000000 {\n    n = f12(n)\n  }\n", "limit steps 5000\nvar n: int = 0\n")
    assert "g.vbr:18:1: error: the game ran more than 5000 steps (`limit steps`)" in fails_alike(tmp_path, text)


def test_an_option_past_64_bits_is_refused(tmp_path):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\noption target = 7\nstart p\nphase p {\n  end draw\n}\n')
    with pytest.raises(OptionError, match=r"option `target` = 99999999999999999999 is out of the range of integers"):
        load(path, {"target": "99999999999999999999"})
    assert load(path, {"target": str(MAX)}).option_values["target"] == MAX
