"""`vbr graph --sim` and `vbr report` count what play did along the diagram's edges, procedures
drawn as nodes included (vbr/flow_steps.py): the engines tell a listening log each call of a
procedure and its return (vbr/engines/events.py), the same in both engines, and a game's log,
`vbr run` and replays never show them."""
from __future__ import annotations

import json

import pytest

import vbr
from vbr.cli import main
from vbr.engines.events import CallEvents
from vbr.flow_steps import flow_steps
from vbr.play import play_typed_game
from vbr.sim import game_seed
from vbr.turn_flow import END, START
from vbr.visualizer.command import load_graph, simulate
from vbr.visualizer.render import to_dot

# ask() suspends (a choice: a pushed frame) and calls offers() (it gives a list: written out at
# its call) and tally() (never suspends: a direct call), leave() calls note() and goes to b,
# finish() may end the game; each is called from a phase
CALLS = """game "Calls"
seats 2
die d6 = 1..6
var hits: int = 0
var t: seat = 0
start a

proc tally(n: int): int {
  hits += n
  return hits
}

proc offers(): list of int {
  return [1, 2]
}

proc ask() {
  let xs = offers()
  choose x from xs by t
  let h = tally(x)
  say "hits {h}"
}

proc finish() {
  if hits >= 12 {
    end winner t
  }
}

proc leave() {
  note()
  goto b
}

proc note() {
  say "leaving"
}

phase a {
  ask()
  finish()
  if roll d6 <= 3 {
    leave()
  }
  goto b
}

phase b {
  t = other(t)
  ask()
  finish()
  down(2)
  goto a
}

proc down(n: int) {
  if n > 0 {
    down(n - 1)
  }
}
"""

# a calls p() on a roll of 1 to 3, which goes to b; else it goes to b itself; b ends the game
SPLIT = """game "Split"
seats 2
die d6 = 1..6
start a

proc p() {
  goto b
}

phase a {
  if roll d6 <= 3 {
    p()
  }
  goto b
}

phase b {
  choose x from [1, 2] by 0
  end winner 0
}
"""

# each entry into a calls outer(), which calls inner(); the third ends the game there
NEST = """game "Nest"
seats 2
var k: int = 0
start a

proc outer() {
  k += 1
  inner()
}

proc inner() {
  if k >= 3 {
    end winner 0
  }
}

phase a {
  choose x from [1, 2] by 0
  outer()
  goto a
}
"""


# as NEST, but the procedure gives a list (so it is written out where it is called) and ends the
# game itself
LISTY = """game "Listy"
seats 2
var k: int = 0
start a

proc picks(): list of int {
  k += 1
  if k >= 3 {
    end winner 0
  }
  return [1, 2]
}

phase a {
  let xs = picks()
  choose x from xs by 0
  goto a
}
"""


def _file(tmp_path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.vbr"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _events(game, seed: int, log) -> list:
    play_typed_game(game, seed, ["random", "random"], log=log)
    return list(log)


@pytest.mark.parametrize("recursive", [False, True])
def test_a_logged_games_events_calls_and_returns_included_are_the_same_in_python_and_c(tmp_path, recursive):
    # with down() calling itself the C engine runs every pushed call from its loop over frames
    # rather than as a C call: both ways of calling are compared
    text = CALLS if recursive else CALLS.replace("  down(2)\n", "").split("proc down")[0]
    path = _file(tmp_path, "calls", text)
    games = {e: vbr.load(path, engine=e) for e in ("python", "c")}
    kinds = set()
    for seed in range(12):
        python, c = (_events(games[e], seed, CallEvents()) for e in ("python", "c"))
        assert python == c, seed
        kinds |= {(e["t"], e.get("proc")) for e in c if e["t"] in ("call", "return")}
    called = {"offers", "tally", "ask", "finish", "leave", "note"} | ({"down"} if recursive else set())
    assert {p for t, p in kinds if t == "call"} == called
    # leave() goes to b and never returns; finish() returns until the game ends in it
    assert {p for t, p in kinds if t == "return"} == called - {"leave"}


def test_calls_and_returns_are_in_no_log_and_change_no_game(tmp_path):
    path = _file(tmp_path, "calls", CALLS)
    for engine in ("python", "c"):
        game = vbr.load(path, engine=engine)
        for seed in range(5):
            heard = _events(game, seed, CallEvents())
            logged = _events(game, seed, [])
            assert logged == [e for e in heard if e["t"] not in ("call", "return")], seed
            assert not any(e["t"] in ("call", "return") for e in logged)
    log = tmp_path / "g.jsonl"
    assert main(["run", path, "--seed", "3", "--quiet", "--log", str(log)]) == 0
    assert {json.loads(line)["t"] for line in log.read_text().splitlines()} <= {"header", "phase", "choice", "say",
                                                                              "roll", "end"}


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_procedure_that_goes_to_a_phase_is_counted_on_its_edges_as_the_rolls_fell(tmp_path, engine):
    """Each game rolls once in a: a 1 to 3 calls p(), which goes to b; else a goes to b. So the
    N steps out of a split between a -> p() and a -> b as the rolls did, and p() -> b as often as
    a -> p(). The rolls are read again from each game's own log."""
    path = _file(tmp_path, "split", SPLIT)
    game = vbr.load(path, engine=engine)
    n, seed = 40, 5
    rolls = []
    for i in range(n):
        events = _events(game, game_seed(seed, i), [])
        rolls += [int(e["value"]) for e in events if e["t"] == "roll"]
    assert len(rolls) == n
    low = sum(r <= 3 for r in rolls)
    assert 0 < low < n
    counts = simulate(game, n, seed=seed, engine=engine)
    assert counts.steps == {(START, "a"): n, ("a", "p()"): low, ("p()", "b"): low, ("a", "b"): n - low,
                            ("b", END): n}
    assert counts.entered == {START: n, "a": n, "p()": low, "b": n, END: n}
    _, _, graph = load_graph(path, {}, fold=True)
    dot = to_dot(graph, counts, games=n)
    shown = f"{low / n:.2f}".rstrip("0").rstrip(".")
    assert f'"p()" [label="p()\\n{shown} visits/game"' in dot  # entered by its calls
    assert f"(taken {low} times: {100 * low / n:.1f}% of the exits from a)" in dot


@pytest.mark.parametrize("engine", ["python", "c"])
def test_nested_calls_and_their_returns_are_counted_on_the_returns_edges(tmp_path, engine):
    """k counts the entries into a; each calls outer(), which calls inner(); the third entry's
    inner() ends the game. Per game: a entered 3 times (from the start, then twice from itself),
    3 calls each of outer() and inner(), 2 returns of each (inner() to outer(), outer() to a),
    and the end from inner(), whatever was chosen."""
    path = _file(tmp_path, "nest", NEST)
    game = vbr.load(path, engine=engine)
    n = 7
    counts = simulate(game, n, seed=1, engine=engine)
    per_game = {(START, "a"): 1, ("a", "outer()"): 3, ("outer()", "inner()"): 3, ("inner()", "outer()"): 2,
                ("outer()", "a"): 2, ("a", "a"): 2, ("inner()", END): 1}
    assert counts.steps == {k: v * n for k, v in per_game.items()}
    assert counts.entered == {START: n, "a": 3 * n, "outer()": 3 * n, "inner()": 3 * n, END: n}
    _, _, graph = load_graph(path, {}, fold=True)
    assert graph.edges["inner()", "outer()"]["returns"] and graph.edges["outer()", "a"]["returns"]
    dot = to_dot(graph, counts, games=n)
    assert f"(taken {2 * n} times: 66.7% of the exits from inner())" in dot  # 2 returns, 1 end
    assert f"(taken {2 * n} times: 40.0% of the exits from outer())" in dot  # 2 returns, 3 calls of inner()
    assert '"a" [label="a\\nby seat 0\\n3 visits/game"' in dot  # returns into a enter nothing


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_procedure_that_gives_a_list_is_counted_from_its_calls_too(tmp_path, engine):
    """k counts the entries into a, each calling picks(); the third call ends the game in it. Per
    game: a entered 3 times, picks() called 3 times, returning twice to a, then the end."""
    path = _file(tmp_path, "listy", LISTY)
    counts = simulate(vbr.load(path, engine=engine), 5, seed=2, engine=engine)
    per_game = {(START, "a"): 1, ("a", "picks()"): 3, ("picks()", "a"): 2, ("a", "a"): 2, ("picks()", END): 1}
    assert counts.steps == {k: v * 5 for k, v in per_game.items()}
    assert counts.entered == {START: 5, "a": 15, "picks()": 15, END: 5}


def test_a_recursive_call_of_a_drawn_procedure_is_no_step():
    """The diagram draws no edge from a procedure into itself (its walk does not enter it again):
    a call of a procedure play is already inside counts nothing, and its return steps nowhere."""
    events = [{"t": "phase", "phase": "a"}, {"t": "call", "proc": "p"}, {"t": "call", "proc": "p"},
              {"t": "return", "proc": "p"}, {"t": "return", "proc": "p"}, {"t": "end"}]
    counted = flow_steps(events, {"p"})
    assert counted.steps == {(START, "a"): 1, ("a", "p()"): 1, ("p()", "a"): 1, ("a", END): 1}
    assert counted.entered == {START: 1, "a": 1, "p()": 1, END: 1}


@pytest.mark.parametrize("mode", ["1v1", "solo"])
def test_volleyball_highs_defences_are_counted_from_their_calls(mode):
    """[Turn Breakdown] `defend` (rules/volleyball-high.vbr) calls ai_defend() for the AI's side
    (side 1 in solo mode: is_ai), else heavy_defence(t) when the incoming ball is a Heavy, else
    normal_defence(t): so the three procedures are entered, together, as often as `defend` is;
    each returns to `defend` or scores the point. In solo mode the AI serves through ai_serve()
    and the players' hits go through hit(). Every step the games took is an arrow of the diagram."""
    path = "volleyball-high"
    game = vbr.load(path, {"mode": mode}, engine="c")
    counts = simulate(game, 30, seed=0, engine="c")
    entered = counts.entered
    defences = ("heavy_defence()", "normal_defence()", "ai_defend()")
    assert sum(entered.get(p, 0) for p in defences) == entered["defend"] > 0
    assert entered["normal_defence()"] > 0 and entered["hit()"] > 0
    if mode == "solo":
        assert entered["ai_defend()"] > 0 and entered["ai_serve()"] > 0
    else:
        assert entered["heavy_defence()"] > 0
    for proc in defences:
        if entered.get(proc):
            assert counts.steps[(proc, "defend")] + counts.steps.get((proc, "point()"), 0) == entered[proc]
    _, _, graph = load_graph(path, {"mode": mode}, fold=True, game=game)
    assert set(counts.steps) <= set(graph.edges)


# p() goes to b only when `fast`: under fast=false it always returns, yet it is still drawn as a
# box of its own (a procedure that can go to a phase as the rules are written), called once a game
FOLDED = """game "Fold"
seats 2
option fast = false
start a
proc p() {
  if fast {
    goto b
  }
}
phase a {
  choose x from 1..2 by 0
  p()
  goto b
}
phase b {
  end winner 0
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_drawn_procedure_whose_goto_the_options_rule_out_is_counted_from_its_calls(tmp_path, engine):
    path = _file(tmp_path, "folded", FOLDED)
    n = 6
    counts = simulate(vbr.load(path, engine=engine), n, seed=0, engine=engine)
    # every game: start -> a, a -> p(), p() returns to a, a -> b, b -> game over
    assert counts.steps == {(START, "a"): n, ("a", "p()"): n, ("p()", "a"): n, ("a", "b"): n, ("b", END): n}
    assert counts.entered == {START: n, "a": n, "p()": n, "b": n, END: n}
