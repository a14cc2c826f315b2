"""The lowered form (vbr/interpreter/lowering.py): the same games as the closures, the same
located errors, and generated code that holds nothing of a rule file's text but data."""
import ast
import json
import random
import re

import pytest

from conftest import rule_files
from test_every_rule_file import option_sets
from vbr.errors import VbrRuntimeError
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.game import Game
from vbr.loader import load_rules
from vbr.play import play_game

CASES = [pytest.param(p, o, id=f"{p.stem}-{'+'.join(f'{k}={v}' for k, v in o.items()) or 'defaults'}")
         for p in rule_files() for o in option_sets(p)]


def both_forms(path, options=None):
    rules = load_rules(path)
    return [Game(rules, compile_rules(rules, options or {}, lower=lower, keep_code=True), options or {})
            for lower in (False, True)]


def random_game_log(game, seed):
    st = game.new_state(seed, record=True)
    rng = random.Random(seed)
    while not st.is_terminal():
        st.apply_index(rng.randrange(len(st.legal_actions())))
    return json.dumps(st.log), str(st.outcome()), st.steps, st.choices


@pytest.mark.parametrize("path,options", CASES)
def test_lowered_program_plays_the_same_games(path, options):
    closures, lowered = both_forms(path, options)
    assert lowered.program.lowering.functions > 0
    for seed in range(4):
        assert random_game_log(lowered, seed) == random_game_log(closures, seed)


def final_state(game, seed):
    r = play_game(game, seed, ["random"] * game.seats)
    st = r.state
    return (st.vals, st.zones, st.where, st.ent, st.kind, st.steps, st.choices, str(st.outcome()), st.phase,
            r.options, r.forced, r.score_track)


@pytest.mark.parametrize("path,options", CASES)
def test_random_seats_answered_in_place_play_the_same_games(path, options):
    """Without a log, play_game's random seats are answered where the lowered code offers the
    choice (State.play_random, `_Chain.answered`), while the closures suspend at every choice:
    the same games, steps and counts."""
    closures, lowered = both_forms(path, options)
    for seed in range(4):
        assert final_state(lowered, seed) == final_state(closures, seed)


def test_greedy_agents_imagine_the_same_worlds():
    """Greedy agents clone and re-deal states: lowered states copy as the closures' do."""
    closures, lowered = both_forms("siatka", {"abilities": True, "block_marker": True})
    for seed in range(2):
        a = play_game(closures, seed, ["greedy", "random"], record=True)
        b = play_game(lowered, seed, ["greedy", "random"], record=True)
        assert json.dumps(a.state.log) == json.dumps(b.state.log)


def test_phases_run_as_generated_functions():
    _, lowered = both_forms("siatka")
    for name in ("serve", "bounce", "attack"):
        assert lowered.program.phases[name].ops[0].__code__.co_filename == "<vbr: siatka.vbr>", name


# ---------------------------------------------------------------------- located errors
FAULTS = {
    "loop max in a pure loop": "var n: int = 0\nstart p\nphase p {\n  n = 1\n  loop max 3 {\n    n += 1\n  }\n  end draw\n}\n",
    "index out of range, second statement of a run":
        "seats 2\nvar s: int per seat = 0\nvar i: int = 0\nstart p\nphase p {\n  i = 5\n  s[i] = 1\n  end draw\n}\n",
    "field of none in a pure proc":
        "kind K { v: int }\nvar k: K = none\nvar n: int = 0\nstart p\nproc f() {\n  n = 1\n  n = k.v\n}\n"
        "phase p {\n  f()\n  end draw\n}\n",
    "other of 5 in a branch test":
        "var n: int = 5\nstart p\nphase p {\n  n += 0\n  if other(n) == 1 {\n    n = 0\n  }\n  end draw\n}\n",
    "nothing to choose":
        "var n: int = 0\nstart p\nphase p {\n  n = 1\n  choose x from 1..0 by 0\n  end draw\n}\n",
    "by gives no seat":
        "var n: int = 7\nstart p\nphase p {\n  n += 1\n  choose x from 1..3 by n\n  end draw\n}\n",
    "move of none":
        "kind K { v: int }\nzone z public\nvar k: K = none\nstart p\nphase p {\n  move k to z\n  end draw\n}\n",
    "a card without the field, inside a comprehension":
        "kind K { v: int }\nkind J { w: int }\nzone z public\nvar n: int = 0\nstart p\nsetup {\n  create J(w: 1) in z\n}\n"
        "phase p {\n  n = 1\n  if any(k.v > 0 for k in z) {\n    n = 2\n  }\n  end draw\n}\n",
    "a field of none assigned":
        "kind K { v: int }\nvar k: K = none\nvar n: int = 0\nstart p\nphase p {\n  n = 1\n  k.v = 2\n  end draw\n}\n",
    "a field assigned on a thing of another kind":
        "kind K { v: int }\nkind J { w: int }\nzone z public\nvar n: int = 0\nstart p\nsetup {\n  create J(w: 1) in z\n}\n"
        "phase p {\n  n = 1\n  for k in z {\n    k.v = 3\n  }\n  end draw\n}\n",
    "a field of one of several kinds assigned on a third":
        "kind K { v: int }\nkind J { v: int }\nkind M { w: int }\nzone z public\nvar n: int = 0\nstart p\nsetup {\n"
        "  create K(v: 1) in z\n  create M(w: 1) in z\n}\nphase p {\n  for k in z {\n    k.v += 1\n  }\n  end draw\n}\n",
    "index out of range, assigned after its value":
        "seats 2\nvar s: int per seat = 0\nvar i: int = 0\nstart p\nphase p {\n  i = -1\n  s[i] = other(3)\n  end draw\n}\n",
    "a repeat count out of range in a pure proc":
        "var n: int = 0\nstart p\nproc f() {\n  n = 1\n  repeat n - 5 {\n    n += 1\n  }\n}\n"
        "phase p {\n  f()\n  end draw\n}\n",
    "a fault in the third round of a repeat, in a pure proc":
        "var n: int = 0\nvar m: int = 0\nstart p\nproc f() {\n  repeat 4 {\n    n += 1\n    if n == 2 {\n      continue\n    }\n"
        "    m = 6 / (3 - n)\n  }\n}\nphase p {\n  f()\n  end draw\n}\n",
    "a pure loop's test fails on its second round":
        "var n: int = 0\nstart p\nphase p {\n  while other(n) >= 0 max 5 {\n    n += 1\n  }\n  end draw\n}\n",
    "a list holding none moved":
        "kind K { v: int }\nzone z public\nvar k: K = none\nvar n: int = 0\nstart p\nphase p {\n  n = 1\n  move [k] to z\n  end draw\n}\n",
}


@pytest.mark.parametrize("text", FAULTS.values(), ids=FAULTS.keys())
def test_faults_are_located_as_the_closures_locate_them(tmp_path, text):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + text)
    messages = []
    for game in both_forms(path):
        with pytest.raises(VbrRuntimeError) as info:
            game.new_state(0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


MOVES = """game "x"
kind K { v: int }
zone a public
zone b public
start p
setup {
  create K(v: 1) in a
  create K(v: 2) in a
  create K(v: 3) in a
  create K(v: 9) in b
}
phase p {
  move a to b bottom
  move [top(b), bottom(b)] to a bottom
  end draw
}
"""


def test_a_zone_and_a_list_moved_to_the_bottom_keep_their_order(tmp_path):
    # docs/language.md, `move`: "Moving a whole zone or a list keeps the entities' order"; a zone
    # lists its things from the bottom (first) to the top (last). So `a` (1 2 3) under b's 9 makes
    # b 1 2 3 9, and [top(b), bottom(b)] = [9, 1] under the then empty `a` makes a 9 1.
    path = tmp_path / "g.vbr"
    path.write_text(MOVES)
    for game in both_forms(path):
        st = game.new_state(0)
        names = game.program.zone_names
        order = {z: [st.ent[e][0] for e in st.zones[names.index(z)]] for z in ("a", "b")}
        assert order == {"a": [9, 1], "b": [2, 3]}


def test_a_pure_loop_fault_points_at_the_loop(tmp_path):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + FAULTS["loop max in a pure loop"])
    with pytest.raises(VbrRuntimeError, match=r"g.vbr:6:3: error: loop ran more than its `max 3` rounds"):
        both_forms(path)[1].new_state(0)


# ---------------------------------------------------------------------- nothing but data
NAMES = re.compile(r"(st|fr|L|V|E|KD|Z|W|_k|_s|_p|_f|_a|_opts|_items|_r|_t\d+|_a\d+|_L\d+|_v|C\d+|F\d+|P\d+|Q\d+)\Z")
FUNCTIONS = re.compile(r"(fused|branch|loop|jump|choose|tail|F|P|Q)\d+\Z")
ATTRIBUTES = {"vals", "ent", "kind", "zones", "where", "L", "pc", "fault_span", "pending", "log", "trace", "phase",
              "stack", "append", "get", "remove", "insert", "forced", "rng", "getrandbits", "code", "seat", "options", "prompt", "slot", "next_pc", "span",
              "roll", "pick", "shuffle", "move", "create", "goto", "push", "pop", "finish", "finish_team", "steps", "prog", "step_limit",
              "auto", "scored", "choices", "choice_limit", "of_kind"}
NODES = (ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.AugAssign, ast.Expr, ast.If,
         ast.For, ast.While, ast.Break, ast.Continue, ast.Pass, ast.Return, ast.Try, ast.ExceptHandler, ast.Raise,
         ast.Name, ast.Load, ast.Store, ast.Constant, ast.Attribute, ast.Subscript, ast.Call, ast.Tuple, ast.List,
         ast.Compare, ast.BinOp, ast.BoolOp, ast.UnaryOp, ast.IfExp, ast.NamedExpr, ast.GeneratorExp, ast.Slice,
         ast.Dict,  # `{}`: a remembered fn's answers for its first arguments (lowering._remembered)
         ast.comprehension, ast.cmpop, ast.operator,
         ast.boolop, ast.unaryop)


def assert_only_data(program):
    modules = program.lowering.modules
    assert modules
    for module in modules:
        for node in ast.walk(module):
            assert isinstance(node, NODES), ast.dump(node)
            if isinstance(node, ast.Name):
                assert NAMES.match(node.id), node.id
            elif isinstance(node, ast.FunctionDef):
                assert FUNCTIONS.match(node.name), node.name
            elif isinstance(node, ast.Attribute):
                assert node.attr in ATTRIBUTES, node.attr
            elif isinstance(node, ast.Constant):
                assert node.value is None or type(node.value) in (int, str, bool), repr(node.value)
    assert "__builtins__" in program.lowering.namespace and not program.lowering.namespace["__builtins__"]


@pytest.mark.parametrize("path", rule_files(), ids=lambda p: p.stem)
def test_generated_code_holds_only_its_own_names(path):
    assert_only_data(both_forms(path)[1].program)


def test_hostile_names_and_strings_stay_data(tmp_path):
    """Names and texts that would be code in Python are only ever values in the generated code."""
    path = tmp_path / "g.vbr"
    path.write_text(
        'game "x\'); import os; (\'"\n'
        "seats 2\n"
        "enum E { __import__, exec, os }\n"
        "var __class__: int = 0\n"
        "var eval: E = exec\n"
        "start p\n"
        "fn __globals__(x: int) = x + 1\n"
        "phase p {\n"
        "  __class__ = __globals__(__class__)\n"
        "  choose system from [__import__, os] by 0 as \"'); import os; os.system('x\"\n"
        "  eval = system\n"
        "  say \"'); __import__('os') {eval}\"\n"
        "  if __class__ >= 2 {\n"
        "    end winner 1\n"
        "  }\n"
        "  goto p\n"
        "}\n")
    closures, lowered = both_forms(path)
    assert_only_data(lowered.program)
    assert random_game_log(lowered, 3) == random_game_log(closures, 3)
    st = lowered.new_state(0, record=True)
    assert st.pending.prompt == "'); import os; os.system('x"
    st.apply_index(1)
    assert {"t": "say", "text": "'); __import__('os') os"} in st.log


# ---------------------------------------------------------------------- code Python refuses
def nested_fors(depth: int, body: str, indent: int = 1) -> str:
    """`depth` nested `for` loops of one round each around `body`."""
    heads = "".join("  " * (indent + i) + f"for i{i} in [1] {{\n" for i in range(depth))
    tails = "".join("  " * (indent + i) + "}\n" for i in reversed(range(depth)))
    return heads + "  " * (indent + depth) + body + "\n" + tails


DEEP = {
    "in a phase": "var n: int = 0\nstart p\nphase p {\n" + nested_fors(20, "n += 1") + "  end draw\n}\n",
    "in a pure proc": "var n: int = 0\nstart p\nproc deep() {\n" + nested_fors(20, "n += 1")
                      + "".join(f"  n += {i}\n" for i in range(60)) + "}\nphase p {\n  deep()\n  deep()\n  end draw\n}\n",
}


@pytest.mark.parametrize("text", DEEP.values(), ids=DEEP.keys())
def test_code_nested_past_what_python_compiles_stays_closures(tmp_path, text):
    """Twenty nested loops are more blocks than Python compiles in one function: the lowered
    form keeps that code as closures and plays the same game."""
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + text)
    closures, lowered = both_forms(path)
    assert lowered.program.lowering.refused  # Python did refuse something, and it still plays
    assert random_game_log(lowered, 0) == random_game_log(closures, 0)
    assert lowered.new_state(0).vals[0] == closures.new_state(0).vals[0] > 0
