"""Rule files that hypothesis writes (the strategies of tests/rule_strategies.py: any nesting of
aggregates, any `where` of zones, guards and fns) under the typed engines: the Python and the C
engine hold the same words after every choice and end alike, or stop with the same located
error; and since nothing in them is drawn, both offer what the closure engine offers for the
same answers and end as it does (stopping where it stops with an error, which it words and
locates at the statement), unless they stop at a bound of their own (a range built in play or a
choice past 4,096, the steps they count as blocks)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as hs

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError
from rule_strategies import RANDOM_HEAD, condition, rule_text, vbr_number, vbr_truth

OWN_BOUNDS = ("the most a range built in play holds here", "a choice offers at most 4096", "steps (`limit steps`)", "fill the state")
EXAMPLES = max(12, settings.default.max_examples // 4)  # a C build each: fewer than elsewhere; more under soak


def _play(new_state, seed: int, words: bool) -> tuple[list, str]:
    """What each choice offered (and the words after it, for a typed engine), and how the game
    of `seed` ended (its outcome, or its located error), answered by a rule of the seed and the
    choice's number."""
    trail = []
    try:
        s, k = new_state(seed), 0
        while not s.is_terminal():
            offered = [str(x) for x in s.legal_actions()]
            s.apply_index((seed * 7 + k * 3) % len(offered))
            trail.append((offered, [int(x) for x in s.words_in_use()] if words else None))
            k += 1
        return trail, str(s.outcome())
    except VbrRuntimeError as e:
        return trail, "error: " + e.render()


def _assert_alike(tmp_path_factory, text: str) -> None:
    import vbr
    path = tmp_path_factory.mktemp("g") / "g.vbr"
    path.write_text('game "generated"\n' + text)
    closure = vbr.load(str(path), engine="closure")
    py, c = load(path, {}, engine="python"), load(path, {}, engine="c")
    for seed in range(3):
        py_trail, py_end = _play(py.new_state, seed, True)
        assert _play(c.new_state, seed, True) == (py_trail, py_end), seed
        old_trail, old_end = _play(closure.new_state, seed, False)
        if any(bound in py_end for bound in OWN_BOUNDS):
            continue
        assert [o for o, _ in old_trail] == [o for o, _ in py_trail], seed
        if py_end.startswith("error: "):  # the closures locate a fault at its statement, in words of their own
            assert old_end.startswith("error: "), (seed, py_end, old_end)
        else:
            assert old_end == py_end, seed


@settings(max_examples=EXAMPLES, deadline=None)
@given(vbr_truth(2, ("c",), ()), vbr_number(3, (), ()))
def test_any_nesting_of_aggregates_plays_alike_in_python_in_c_and_in_the_closures(tmp_path_factory, test, number):
    _assert_alike(tmp_path_factory, RANDOM_HEAD.replace("TEST", test).replace("NUMBER", number))


@settings(max_examples=EXAMPLES, deadline=None)
@given(condition(3), hs.sampled_from(("spare", "other", "pile[rounds % 2]", "pile[(rounds + 1) % 2]")))
def test_any_condition_plays_alike_in_python_in_c_and_in_the_closures(tmp_path_factory, test, dest):
    _assert_alike(tmp_path_factory, rule_text(test, dest=dest))
