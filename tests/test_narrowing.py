"""A choice over every thing of a kind, narrowed to the zones its `where` requires
(vbr/interpreter/narrowing.py): which conditions are narrowed, and that a narrowed choice plays
the game going through every thing plays, in both forms: the same options in the same order,
steps, faults, and the same frames while a choice waits."""
import pytest
from hypothesis import given, settings, strategies as hs

from vbr.errors import VbrRuntimeError
from vbr.interpreter import narrowing as N
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.game import Game
from vbr.loader import load_rules

from lowering_forms import final_state, frames, write

HEAD = """seats 2
kind Card { v: int }
kind Pawn { v: int }
zone pile per seat public ordered
zone spare public
zone other public
var n: int = 0
var flag: bool = true
var rounds: int = 0
start p
FNS
setup {
  create Card(v: 1) in pile[1]
  create Pawn(v: 7) in pile[0]
  create Card(v: 2) in spare
  create Card(v: 3) in pile[0]
  create Card(v: 4) in other
  create Card(v: 5) in pile[1]
  create Card(v: 6) in spare
  create Pawn(v: 8) in pile[1]
  create Card(v: 0) in pile[0]
}
phase p {
  choose k from Card where TEST by rounds % 2 optional
  if k != none {
    move k to DEST
    n += k.v
  }
  flag = not flag
  rounds += 1
  if rounds > 6 {
    end winner n % 2
  }
  goto p
}
"""
FNS = """fn mine(c: Card, s: seat) = c in pile[s] or (flag and c in spare)
fn ahead(c: Card) = c.v > 1 and c in other
fn held(s: seat) = pile[s]
fn first_pile(c: Card) = c in pile[0]
"""


def rule_text(test: str, dest: str = "spare", fns: str = FNS) -> str:
    return HEAD.replace("FNS", fns).replace("TEST", test).replace("DEST", dest)


def games(tmp_path, text: str):
    """The closures and the lowered program, each compiled with narrowing off and on."""
    path = write(tmp_path, text)
    rules = load_rules(path)
    out = {}
    saved = N.ENABLED
    try:
        for narrow in (False, True):
            N.ENABLED = narrow
            for lower in (False, True):
                out[(narrow, lower)] = Game(rules, compile_rules(rules, {}, lower=lower), {})
    finally:
        N.ENABLED = saved
    return out


def narrowed_choices(game) -> list:
    """The `narrow` of every choice of the closures' program (None: not narrowed)."""
    p = game.program
    codes = list(p.phases.values()) + list(p.procs.values()) + ([p.setup] if p.setup else [])
    return [op.recipe[1].narrow for code in codes for op in code.ops
            if getattr(op, "recipe", None) and op.recipe[0] == "choose"]


def ending(game, seed):
    try:
        return final_state(game, seed)
    except VbrRuntimeError as e:
        return str(e)


def assert_alike(forms, seeds=range(6)):
    want = {seed: ending(forms[(False, False)], seed) for seed in seeds}
    for key, game in forms.items():
        for seed in seeds:
            assert ending(game, seed) == want[seed], (key, seed)


@pytest.mark.parametrize("test", [
    "k in pile[0]",
    "k in pile[rounds % 2] and k.v > 1",
    "flag and k in spare",
    "k in pile[0] or k in spare",
    "mine(k, rounds % 2)",
    "mine(k, 1) and k.v != 3",
    "k in held(0)",
    "first_pile(k) and k.v > 0",
    "not flag and (k in other or k in pile[1])",
])
def test_conditions_that_require_zones_are_narrowed(tmp_path, test):
    forms = games(tmp_path, rule_text(test))
    assert narrowed_choices(forms[(True, False)]) != [None]
    assert narrowed_choices(forms[(False, False)]) == [None]


@pytest.mark.parametrize("test", [
    "k.v > 1",  # no zone at all
    "k.v > 1 and k in pile[0]",  # a test of the thing before the zone: it runs for every thing
    "k in pile[0] or k.v > 5",  # one way needs no zone
    "k in pile[if any(c.v > 1 for c in spare) then 1 else 0]",  # the zone counts steps
    "(roll d6 > 3) and k in pile[0]",  # the guard draws
    "ahead(k)",  # the fn tests the thing before the zone
])
def test_conditions_that_do_not_require_zones_are_left_alone(tmp_path, test):
    text = rule_text(test).replace("kind Pawn", "die d6 = 1..6\nkind Pawn")
    forms = games(tmp_path, text)
    assert narrowed_choices(forms[(True, False)]) == [None]


def test_a_local_named_as_what_the_fn_reads_is_left_alone(tmp_path):
    """`first_pile(c)` reads the zone `pile`; at a choice where a local is called `pile`,
    writing the fn's body out there would read the local instead. (A fn called for a zone,
    `k in held(0)`, is compiled as a call and is narrowed there too.)"""
    for test, narrowed in (("first_pile(k)", False), ("k in held(0)", True)):
        text = rule_text(test).replace("phase p {\n", "phase p {\n  let pile = 3\n")
        forms = games(tmp_path, text)
        assert (narrowed_choices(forms[(True, False)]) != [None]) == narrowed, test
        assert_alike(forms)


@pytest.mark.parametrize("test", [
    "k in pile[0] or k in spare",  # options from two zones, in the order the cards were made
    "k in spare or k in pile[0]",
    "mine(k, rounds % 2)",
    "flag and k in pile[1] and k.v < 6",
    "k in pile[n] and k.v > 0",  # n grows past the last seat: the zone faults, as it did
    "k in pile[rounds % 2] and 10 / (k.v - 3) > 0",  # a fault at one card, the same card
    "k in other and n / (rounds - 3) >= 0",
    "(10 / (rounds - 2) > 0) and k in pile[0]",  # the guard faults: every card goes through it
])
def test_narrowed_choices_play_the_same_games(tmp_path, test):
    assert_alike(games(tmp_path, rule_text(test, dest="pile[(rounds + 1) % 2]")))


def test_a_waiting_choice_leaves_the_same_frames(tmp_path):
    """Asked one by one, the narrowed choice waits with the same locals as going through every
    card (the slot holds the last Card made, as a loop over all of them leaves it)."""
    forms = games(tmp_path, rule_text("k in pile[rounds % 2] or k in spare", dest="other"))
    for seed in range(4):
        want = frames(forms[(False, False)], seed)
        for key in ((True, False), (True, True), (False, True)):
            assert frames(forms[key], seed) == want, key


def test_no_thing_of_the_kind_yet_is_no_option(tmp_path):
    text = rule_text("k in pile[0]").replace("kind Pawn", "kind Token { v: int }\nkind Pawn")
    text = text.replace("choose k from Card", "choose k from Token")
    forms = games(tmp_path, text)
    assert narrowed_choices(forms[(True, False)]) != [None]
    assert_alike(forms)


# ---------------------------------------------------------------------- any condition
ZONES = ("pile[0]", "pile[1]", "pile[n % 3]", "spare", "other", "held(rounds % 2)")
GUARDS = ("flag", "not flag", "n > 4", "10 / (rounds - 3) > 1", "count(spare) > 1")
TESTS_OF_K = ("k.v > 2", "k.v != 4", "10 / (k.v - 2) > 2", "any(c.v > k.v for c in spare)")


@hs.composite
def condition(draw, depth: int):
    """A `where` over k: zones, guards, tests of k, fns, and/or in any nesting; some narrowable."""
    leaves = [hs.sampled_from(ZONES).map(lambda z: f"k in {z}"), hs.sampled_from(TESTS_OF_K),
              hs.sampled_from(("mine(k, 0)", "mine(k, rounds % 2)", "ahead(k)"))]
    if depth <= 0:
        return draw(hs.one_of(*leaves))
    inner = condition(depth - 1)
    shapes = leaves + [
        hs.tuples(inner, inner).map(lambda p: f"({p[0]} and {p[1]})"),
        hs.tuples(inner, inner).map(lambda p: f"({p[0]} or {p[1]})"),
        hs.tuples(hs.sampled_from(GUARDS), inner).map(lambda p: f"({p[0]} and {p[1]})"),
    ]
    return draw(hs.one_of(*shapes))


@settings(max_examples=max(40, settings.default.max_examples), deadline=None)  # more under VBR_HYPOTHESIS=soak
@given(condition(3), hs.sampled_from(("spare", "other", "pile[rounds % 2]", "pile[(rounds + 1) % 2]")))
def test_any_condition_plays_the_same_games_narrowed_or_not(tmp_path_factory, test, dest):
    """Random conditions, narrowable or not: with narrowing on, both forms end every game as
    the closures without it do, with the same error where one stops."""
    assert_alike(games(tmp_path_factory.mktemp("g"), rule_text(test, dest=dest)), seeds=range(4))


def test_a_broken_narrowing_is_caught(tmp_path, monkeypatch):
    """The comparison above can fail: narrowing that forgets the creation order (the zones'
    own order instead) plays other games."""
    forms = games(tmp_path, rule_text("k in spare or k in pile[0]", dest="pile[(rounds + 1) % 2]"))
    want = [ending(forms[(False, False)], seed) for seed in range(6)]
    original = N.narrowed

    def unordered(st, zones, kind, items):
        found = original(st, zones, kind, items)
        return found[::-1] if found is not items else items
    monkeypatch.setattr(N, "narrowed", unordered)
    assert [ending(forms[(True, False)], seed) for seed in range(6)] != want


def test_working_out_a_plan_is_bounded(tmp_path):
    """Each fn call at the condition's top is written out to be looked into: a condition calling
    a long fn many times is not narrowed (the planner stops past its budget) and plays as before;
    the same fn called a few times is narrowed."""
    ones = " + ".join(["1"] * 40)
    wide = f"fn wide(c: Card) = c in pile[0] and ({ones}) + ({ones}) + ({ones}) + ({ones}) > 0\n"
    for calls, narrowed in ((70, False), (10, True)):
        test = " or ".join(["wide(k)"] * calls)
        (tmp_path / str(calls)).mkdir()
        forms = games(tmp_path / str(calls), rule_text(test, fns=FNS + wide))
        assert (narrowed_choices(forms[(True, False)]) != [None]) == narrowed, calls
        assert_alike(forms, seeds=range(2))
