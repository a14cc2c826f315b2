"""HOIST_INVARIANTS (vbr/interpreter/lowering.py, `_hoisted`): what a choice's `where` computes
alike for every item (a remembered fn of a var, a per-seat zone's index and its range check) is
computed once per loop, lazily, where it was computed before. The same games and steps as the
closures; a fault inside the hoisted part fires when the filter first reaches it (not before the
loop), at the same span; the remembered fn is looked up once per loop, not once per item."""
import ast

import pytest

from vbr.errors import VbrRuntimeError
from vbr.interpreter import lowering as LW
from vbr.play import play_game

from test_lowering import NODES, assert_only_data
from lowering_forms import assert_same_games_with_and_without, code, forms, write

HEAD = """seats 2
kind Card { v: int }
die d6 = 1..6
zone pool public
zone hand per seat public
var turn: int = 0
var rounds: int = 0
var bad: int = 0
var n: int = 0
start p
fn side_of(t: int) = if t % 4 == 0 then 0 else if t % 4 == 1 then 1 else if t % 4 == 2 then 1 else if t % 4 == 3 then 0 else t % 2
setup {
  create Card(v: 1) in pool times 3
  create Card(v: 2) in pool times 3
  create Card(v: 3) in hand[0]
  create Card(v: 4) in hand[1] times 2
}
"""
# `roll d6 >= 1` holds always: the number of rolls tells how many items the filter looked at
GAME = HEAD + """phase p {
  choose c from Card where roll d6 >= 1 and (c in hand[side_of(turn)] or c.v == 2 and c in hand[bad % 2]) by turn % 2 else {
    n += 100
  }
  if c != none {
    move c to hand[(rounds + 1) % 2]
    n += c.v
  }
  turn += 1
  bad += 3
  rounds += 1
  if rounds > 8 {
    end draw
  }
  goto p
}
"""
# `hand[bad]` out of range from round 2 on, but the filter reaches it only once a card of 9 exists
FAULT = HEAD + """phase p {
  choose c from Card where roll d6 >= 1 and (c in hand[side_of(turn)] or c.v == 9 and c in hand[bad]) by turn % 2 else {
    n += 100
  }
  if c != none {
    move c to hand[(rounds + 1) % 2]
  }
  turn += 1
  rounds += 1
  if rounds == 2 {
    bad = 5
  }
  if rounds == 4 {
    create Card(v: 9) in pool
  }
  if rounds > 8 {
    end draw
  }
  goto p
}
"""


def lazy_parts(game):
    """The hoisted parts in the generated code: `(_t if _t is not UNSET else (_t := part))`."""
    ns = game.program.lowering.namespace
    unset = [k for k, v in ns.items() if v is LW._UNSET]
    for module in game.program.lowering.modules:
        for node in ast.walk(module):
            if (isinstance(node, ast.IfExp) and isinstance(node.test, ast.Compare)
                    and isinstance(node.test.comparators[0], ast.Name) and node.test.comparators[0].id in unset):
                yield node.orelse.value


def test_hoisted_where_plays_the_same_games(tmp_path):
    assert_same_games_with_and_without(write(tmp_path, GAME), "HOIST_INVARIANTS", range(12))


def test_the_remembered_fn_and_the_zone_index_are_hoisted(tmp_path):
    _, lowered = forms(write(tmp_path, GAME))
    parts = [ast.unparse(p) for p in lazy_parts(lowered)]
    memo = lowered.program.lowering._memos
    assert len(memo) == 1  # side_of is remembered
    memo_name = lowered.program.lowering._names[id(next(iter(memo.values())))]
    assert any(f"{memo_name}.get(" in p for p in parts)  # side_of(turn)
    assert any("C" in p and "0 <= " in p for p in parts)  # hand[bad % 2], range-checked
    for p in lazy_parts(lowered):  # nothing reading the item, the state object, or spending
        names = {n.id for n in ast.walk(p) if isinstance(n, ast.Name)}
        assert "st" not in names
        assert all(isinstance(n, NODES) for n in ast.walk(p))
    assert_only_data(lowered.program)
    _, plain = forms(write(tmp_path, GAME), HOIST_INVARIANTS=False)
    assert not list(lazy_parts(plain))


class CountingDict(dict):
    gets = 0

    def get(self, *args):
        CountingDict.gets += 1
        return dict.get(self, *args)


def memo_lookups(game, seed):
    """How often the remembered fn's answers are looked up in one game."""
    low = game.program.lowering
    (memo,) = low._memos.values()
    name = low._names[id(memo)]
    counting = CountingDict(memo)
    saved = low.namespace[name]
    low.namespace[name] = counting
    CountingDict.gets = 0
    try:
        r = play_game(game, seed, ["random"] * game.seats)
    finally:
        low.namespace[name] = saved
    return CountingDict.gets, r.state


def test_the_hoisted_value_is_computed_once_per_loop(tmp_path):
    _, lowered = forms(write(tmp_path, GAME))
    _, plain = forms(write(tmp_path, GAME), HOIST_INVARIANTS=False)
    for seed in range(4):
        once, st = memo_lookups(lowered, seed)
        each, st2 = memo_lookups(plain, seed)
        assert st.steps == st2.steps
        assert once == 9  # one choice a round, the fn looked up once in each
        assert each == 9 * 9  # without: once per item (nine cards)


def fault(game):
    """Play answering each choice with its first option until the fault: what it says, and the
    state then (steps, dice rolled: how many items the filter looked at, vars)."""
    sink = []
    with pytest.raises(VbrRuntimeError) as info:
        st = game.new_state(0, sink=sink)
        while not st.is_terminal():
            st.apply_index(0)
    st = sink[0]
    return str(info.value), st.steps, st.rng.getstate(), list(st.vals)


@pytest.mark.parametrize("hoist", [True, False])
def test_a_fault_in_the_hoisted_part_fires_where_it_did(tmp_path, hoist):
    closures, lowered = forms(write(tmp_path, FAULT), HOIST_INVARIANTS=hoist)
    got, want = fault(lowered), fault(closures)
    assert got == want
    message, _, _, vals = got
    assert "`hand[5]`: index out of range" in message
    assert ":20:3: error" in message  # the choice
    assert 5 in vals and 4 in vals  # at round 4, when a card of 9 is there: not at round 2, when it became bad


def remembered(game, fn: str):
    """A remembered fn's dict of answers and its generated function F(a0, a1, ...)."""
    low = game.program.lowering
    fname = low._functions[(fn, "memo")]
    return low._memos[fname], low.namespace[fname]


def memo_after_a_game(path, fn: str, bare: bool) -> dict:
    """The answers `fn` remembered in one game (seed 0), MEMO_BARE_KEY set to `bare`."""
    _, lowered = forms(path, MEMO_BARE_KEY=bare)
    play_game(lowered, 0, ["random"] * 2)
    return remembered(lowered, fn)[0]


def test_a_remembered_fn_of_one_argument_keys_its_answers_by_the_argument(tmp_path):
    """MEMO_BARE_KEY: `side_of(t)` remembers its answers under `t` itself, not a 1-tuple built at
    every call; the games are the same with and without."""
    path = write(tmp_path, GAME)
    assert_same_games_with_and_without(path, "MEMO_BARE_KEY", range(6))
    keys = [sorted(memo_after_a_game(path, "side_of", bare)) for bare in (True, False)]
    assert keys[0] and all(type(k) is int for k in keys[0])
    assert keys[1] == [(k,) for k in keys[0]]


# `mix(a, b)`: which of the two hands, by the two counters (a remembered fn of two arguments)
MIX = "fn mix(a: int, b: int) = if (a + b) % 3 == 0 then 0 else if (a * b) % 2 == 1 then 1 else if a > b then 0 else 1\n"
GAME2 = HEAD.replace("start p\n", "start p\n" + MIX) + GAME[len(HEAD):].replace(
    "c in hand[side_of(turn)]", "c in hand[mix(turn, rounds % 5)]")


def mix(a, b):
    return 0 if (a + b) % 3 == 0 else 1 if (a * b) % 2 == 1 else 0 if a > b else 1


def test_a_remembered_fn_of_two_arguments_keys_its_answers_by_each_argument_in_turn(tmp_path):
    """MEMO_BARE_KEY: `mix(a, b)` remembers its answers as `memo[a][b]`, a dict per first
    argument, not under a tuple built at every call; the games and the answers are the same."""
    path = write(tmp_path, GAME2)
    assert_same_games_with_and_without(path, "MEMO_BARE_KEY", range(6))
    answers = []
    for bare in (True, False):
        memo = memo_after_a_game(path, "mix", bare)
        if bare:
            assert memo and all(type(a) is int and type(inner) is dict for a, inner in memo.items())
            memo = {(a, b): v for a, inner in memo.items() for b, v in inner.items()}
        else:
            assert memo and all(type(k) is tuple and len(k) == 2 for k in memo)
        assert all(v == mix(a, b) for (a, b), v in memo.items())
        answers.append(memo)
    assert answers[0] == answers[1]
    assert LW._NO_ANSWERS == {}  # where a lookup of a new first argument goes on: never written


# `mix3(a, b, c)`: the same by three counters, a dict per argument of the first two
MIX3 = ("fn mix3(a: int, b: int, c: int) = if (a + b + c) % 3 == 0 then 0 else if (a * b + c) % 2 == 1 then 1 "
        "else if a > b + c then 0 else 1\n")
GAME3 = HEAD.replace("start p\n", "start p\n" + MIX3) + GAME[len(HEAD):].replace(
    "c in hand[side_of(turn)]", "c in hand[mix3(turn, rounds % 5, n % 3)]")


def mix3(a, b, c):
    return 0 if (a + b + c) % 3 == 0 else 1 if (a * b + c) % 2 == 1 else 0 if a > b + c else 1


def test_a_remembered_fn_of_three_arguments_keys_its_answers_by_each_argument_in_turn(tmp_path):
    """`mix3(a, b, c)` remembers its answers as `memo[a][b][c]`; the games are those of the
    closures with and without MEMO_BARE_KEY, and each answer is the fn's."""
    path = write(tmp_path, GAME3)
    assert_same_games_with_and_without(path, "MEMO_BARE_KEY", range(6))
    memo = memo_after_a_game(path, "mix3", True)
    held = [(a, b, c, v) for a, bs in memo.items() for b, cs in bs.items() for c, v in cs.items()]
    assert held and all(v == mix3(a, b, c) for a, b, c, v in held)
    _, lowered = forms(path)
    _, F = remembered(lowered, "mix3")
    asked = [(a, b, c) for a in range(20) for b in range(15) for c in range(15)]  # 4500: more than it holds
    assert all(F(*abc) == mix3(*abc) for abc in asked)
    memo, _ = remembered(lowered, "mix3")
    assert sum(len(cs) for bs in memo.values() for cs in bs.values()) == LW._MEMO_SIZE


def test_a_remembered_fn_of_two_arguments_holds_at_most_the_bound_of_answers(tmp_path):
    """The answers are counted, not the first arguments: asked for 100 × 100 pairs in turn, the
    memo keeps the first _MEMO_SIZE (4096) it was asked for (40 full rows of 100 and 96 of the
    41st), and an answer it has no room for is still the fn's."""
    _, lowered = forms(write(tmp_path, GAME2))
    memo, F = remembered(lowered, "mix")
    asked = [(a, b) for a in range(100) for b in range(100)]
    for a, b in asked:
        assert F(a, b) == mix(a, b)
    held = [(a, b) for a, inner in memo.items() for b in inner]
    assert sorted(held) == asked[:LW._MEMO_SIZE] and len(memo) == 41
    assert all(F(a, b) == mix(a, b) for a, b in asked)  # asked again: the same answers, remembered or not


def runs_of(game, fn: str, seed: int) -> tuple[int, int]:
    """How often `fn`'s answers were looked up in one game (memo_lookups), and how often its
    function ran (its answer missing)."""
    low = game.program.lowering
    fname = low._functions[(fn, "memo")]
    body, runs = low.namespace[fname], []
    low.namespace[fname] = lambda *args: runs.append(args) or body(*args)
    try:
        gets, _ = memo_lookups(game, seed)
    finally:
        low.namespace[fname] = body
    return gets, len(runs)


@pytest.mark.parametrize("hoist,gets", [(True, 9 + 9), (False, 9 * 9 + 9)])
def test_a_remembered_fn_of_two_arguments_is_hoisted_whole(tmp_path, hoist, gets):
    """`mix(turn, rounds % 5)` in the `where`: its lookup, and its function on a miss, once per
    loop. Every round asks a pair not asked before (turn grows), so each loop misses once and
    the function runs 9 times a game either way; the memo is looked up once a round hoisted, once
    per item (nine) without, and once more by the function when it stores its answer."""
    _, lowered = forms(write(tmp_path, GAME2), HOIST_INVARIANTS=hoist)
    for seed in range(3):
        assert runs_of(lowered, "mix", seed) == (gets, 9)


@pytest.mark.parametrize("between", ["mix(turn, rounds % 5)", "side_of(turn)"])
def test_a_remembered_fns_lookup_between_two_reads_of_a_field_reads_it_once(tmp_path, between):
    """FIELDS_ONCE: looking up a remembered fn's answers (`C.get(a0, NO).get(a1, MISS)` for two
    arguments) changes nothing, so `c.v + fn(...) + c.v` reads c's field as `c.v + c.v` does."""
    reads = []
    for expr in (f"c.v + {between} + c.v", "c.v + c.v"):
        _, lowered = forms(write(tmp_path, GAME2.replace("n += c.v\n", f"n += {expr}\n")))
        reads.append(code(lowered).count("KD["))
    assert reads[0] == reads[1]
