"""The build of an untrusted rule file (rule file -> typed program -> engine source -> C library)
is bounded, and what it refuses is a located error (docs/language.md, "Limits"): a long list
literal builds in time linear in its items under both typed engines and plays the same game; a
rule file whose C passes the C engine's source bound is refused at the construct that makes most
of it; a scenario of 1,200 steps runs, its Python engine built in memory that grows with a part
of its source, not with the whole. Each `vbr` runs as a process of its own with a cache folder of its own (so the C build
happens); the times are only hang guards (speed is measured in benchmarks/hostile_build.py)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 300  # seconds for one `vbr` on a busy machine, a C build included


def _vbr(args, tmp_path, timeout=HANG_GUARD) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT)


def _results(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("result:")]


# ------------------------------------------------------------------------ long list literals
def _long_lists(n: int) -> str:
    """Two list literals of n items each: the numbers i % 7 (i = 0..n-1), and n reads of the var
    `n` (3); seat 1 wins when their sums are worked out right, else seat 0."""
    full, rest = divmod(n, 7)
    expected = full * sum(range(7)) + sum(range(rest)) + 3 * n
    numbers = ", ".join(str(i % 7) for i in range(n))
    reads = ", ".join(["n"] * n)
    return (f'game "Long lists"\nseats 2\nvar v: int = 0\nvar n: int = 3\nstart p\nphase p {{\n'
            f"  v = sum(x for x in [{numbers}]) + sum(y for y in [{reads}])\n"
            f"  if v == {expected} {{\n    end winner 1\n  }}\n  end winner 0\n}}\n")


@pytest.mark.parametrize("engine", ["python", "c"])
def test_two_list_literals_of_12000_items_build_and_sum_right(tmp_path, engine):
    """24,000 items in all (48,000 tokens, within the token limit): the Python engine's source
    once held each operand against every later one (quadratic: a literal of 24,000 took 7 s),
    the C engine wrote a literal's items into one function (GCC's time grows faster than that)."""
    rules = tmp_path / "long_lists.vbr"
    rules.write_text(_long_lists(12_000))
    got = _vbr(["run", rules, "--engine", engine], tmp_path)
    assert got.returncode == 0, got.stderr
    assert _results(got.stdout) == ["result: seat 1 wins after 0 choices"]


# ------------------------------------------------------------------------ the C source's bound
# A choice is about 1,000 characters of C (its options, its pick, its answer), so 2,500 pass the
# 2,000,000 the C engine compiles; a fn is no longer a way to pass it, since light fns past
# 20,000 nodes a unit are called, not written out.
_TOO_MUCH_C = "more than the 2,000,000 the C engine compiles (its limit on generated C)"
_LIST_FN = ("fn h0(a: int) = (a * 3 + 1) % 1000\n" + "".join(
    f"fn h{i}(a: int) = (h{i - 1}(a) + h{i - 1}(a + 1)) % 1000\n" for i in range(1, 7))
    + "fn k(xs: list of int) = h6(count(xs))\n")  # lines 4-11: `k` is written out at each call


def _choices(n: int, first: int = 0) -> list[str]:
    return [f"  choose c{i} from [1, 2, 3] by {i % 2}" for i in range(first, first + n)]


def _too_much_c(tmp_path, lines: list[str], engine: str = "c") -> subprocess.CompletedProcess:
    rules = tmp_path / "heavy.vbr"
    rules.write_text("\n".join(lines) + "\n")
    return _vbr(["run", rules, "--engine", engine], tmp_path)


def _no_library_built(tmp_path) -> bool:
    return not list((tmp_path / "cache").glob("vbr/c/*.so"))


def test_a_phase_whose_c_passes_the_source_bound_is_the_located_error_at_the_phase(tmp_path):
    """2,500 choices in one phase: it makes nearly all the C, no one statement much of it."""
    got = _too_much_c(tmp_path, ['game "Heavy"', "seats 2", "start play", 'phase play "Play" {', *_choices(2500),
                                 "  end draw", "}"])
    assert got.returncode == 1
    first = got.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'heavy.vbr'}:4:1: error: the C engine cannot run here: the rule file makes ")
    assert _TOO_MUCH_C in first and first.endswith(" of them come from phase `play`")
    assert got.stderr.splitlines()[1:] == ['    phase play "Play" {', "    ^"]
    assert "Traceback" not in got.stderr and _no_library_built(tmp_path)


def _one_heavy_statement() -> list[str]:
    """Line 14 calls `k` 48 times in one list (48,864 nodes written out, within the limit on
    written-out calls: about 1,100,000 characters of C); phase q's 1,000 choices bring the C
    past the bound."""
    return ['game "Heavy"', "seats 2", "var x: int = 0", *_LIST_FN.splitlines(), "start p", "phase p {",
            "  x = count([" + ", ".join(["k([x])"] * 48) + "])", "  goto q", "}", "phase q {", *_choices(1000),
            "  end winner x % 2", "}"]


def test_a_statement_whose_c_passes_the_source_bound_is_the_located_error_at_the_statement(tmp_path):
    got = _too_much_c(tmp_path, _one_heavy_statement())
    assert got.returncode == 1
    first = got.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'heavy.vbr'}:14:3: error: the C engine cannot run here: ")
    assert _TOO_MUCH_C in first and first.endswith(" of them come from this statement")
    assert "Traceback" not in got.stderr and _no_library_built(tmp_path)


def test_c_passing_the_source_bound_spread_over_many_phases_is_the_error_at_the_first_line(tmp_path):
    """40 phases of 70 choices (about 2.3 million characters of C): none makes half the C, so the
    file is blamed, at its first line, and the message names the limit and the rule making the most."""
    lines = ['game "Heavy"', "seats 2", "start p0"]
    for k in range(40):
        lines += [f"phase p{k} {{", *_choices(70, 70 * k), f"  goto p{k + 1}" if k < 39 else "  end draw", "}"]
    got = _too_much_c(tmp_path, lines)
    assert got.returncode == 1
    first = got.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'heavy.vbr'}:1:1: error: the C engine cannot run here: the rule file makes ")
    assert _TOO_MUCH_C in first and "; the most from one rule, about " in first
    assert re.search(r"come from phase `p\d+`$", first)
    assert got.stderr.splitlines()[1:] == ['    game "Heavy"', "    ^"]


def test_engine_auto_plays_a_file_past_the_source_bound_through_python_with_a_note(tmp_path):
    """The file of one statement past the bound (above): an error of the C engine's, not of the rules."""
    got = _too_much_c(tmp_path, _one_heavy_statement(), engine="auto")
    assert got.returncode == 0, got.stderr
    notes = [line for line in got.stderr.splitlines() if _TOO_MUCH_C in line]
    assert len(notes) == 1 and notes[0].endswith("; playing through the python engine")
    assert ", engine python" in got.stdout and len(_results(got.stdout)) == 1


# ------------------------------------------------------------------------ long scenarios
def _long_pig_scenario(rounds: int) -> str:
    """Pig (examples/pig.vbr), `rounds` times: a roll of 1 forced, `again` chosen, then the turn's
    total lost and the move counted (a 1 loses the turn's total; every roll and hold is a move)."""
    steps = "".join(f"  force d6 = 1\n  choose again\n  expect turn_total == 0 and moves == {k}\n"
                    for k in range(1, rounds + 1))
    return f'tests for "pig.vbr"\n\nscenario "{rounds} rolls of 1" {{\n{steps}}}\n'


def test_a_scenario_of_1200_steps_passes(tmp_path):
    (tmp_path / "pig.vbr").write_text((ROOT / "examples" / "pig.vbr").read_text())
    (tmp_path / "long.vbr").write_text(_long_pig_scenario(400))
    got = _vbr(["test", tmp_path / "long.vbr"], tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[-1] == "1 passed, 0 failed"


# Build the Python engine of a scenario file's program in a process of its own and print the
# process's peak resident memory, in bytes (VmHWM: since its exec, where ru_maxrss may still count
# the memory of the process it was forked from).
LONG_SCENARIO_ENGINE = r"""
import sys
from vbr.checking import checked_model
from vbr.engines.python_engine import PythonEngine
from vbr.ir.scenario_program import build_scenario_program
from vbr.scenario import load_scenarios

tree, rules, _ = load_scenarios(sys.argv[1])
engine = PythonEngine(build_scenario_program(checked_model(rules, {}), tree.scenarios).program)
assert len(engine.source) > 2_000_000
with open("/proc/self/status") as status:
    print(next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) * 1024)
"""


def test_the_python_engine_of_a_long_scenario_is_built_without_compiling_its_source_at_once(tmp_path):
    """The scenario's program has a unit per value its 1,500 steps name (2 MB of Python): the
    compiler's memory for it all at once (a hundred times the text) took the process 200 MB
    higher; part by part, the process's peak is about 70 MB (the file's parse cache empty here,
    as on a first run). Bounded at 150 MB."""
    (tmp_path / "pig.vbr").write_text((ROOT / "examples" / "pig.vbr").read_text())
    (tmp_path / "long.vbr").write_text(_long_pig_scenario(500))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-c", LONG_SCENARIO_ENGINE, str(tmp_path / "long.vbr")], capture_output=True,
                         text=True, env=env, timeout=HANG_GUARD, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    assert int(run.stdout.split()[-1]) < 150 << 20


def test_a_scenario_file_whose_steps_pass_the_c_source_bound_is_the_error_at_its_first_line(tmp_path):
    """Under `--engine c` each value a step names is a C function of its own (about 1.8 KB of C a
    step here): the 1,200 steps make most of the C, and the scenario file is blamed."""
    (tmp_path / "pig.vbr").write_text((ROOT / "examples" / "pig.vbr").read_text())
    (tmp_path / "long.vbr").write_text(_long_pig_scenario(400))
    got = _vbr(["test", tmp_path / "long.vbr", "--engine", "c"], tmp_path)
    assert got.returncode == 1
    first = got.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'long.vbr'}:1:1: error: the C engine cannot run here: the rule file with "
                            "these scenarios makes ")
    assert _TOO_MUCH_C in first and first.endswith(" of them come from the scenarios' steps")
    assert got.stdout.splitlines()[-1] == "0 passed, 1 failed"


# ------------------------------------------------------------------------ long chains of blocks
def test_a_phase_calling_2000_procedures_in_turn_plays_under_the_python_engine(tmp_path):
    """Each call ends a block, and the Python engine wrote each block inside the one before it
    (a RecursionError, `vbr: internal error`, past about 1,000). Procedure q<i> adds i % 3:
    0 + 1 + 2 over 666 rounds, then 0 and 1, 1,999 in all: odd, so seat 1 wins. The `if` first
    makes a join (a block with two ways in) that heads the chain."""
    procs = "".join(f"proc q{i}() {{\n  x = x + {i % 3}\n}}\n" for i in range(2000))
    calls = "".join(f"  q{i}()\n" for i in range(2000))
    rules = tmp_path / "procs.vbr"
    rules.write_text(f'game "Procedures"\nseats 2\nvar x: int = 0\n{procs}start p\nphase p {{\n'
                     f"  if x == 0 {{\n    x = 0\n  }}\n{calls}  end winner x % 2\n}}\n")
    got = _vbr(["run", rules, "--engine", "python"], tmp_path)
    assert got.returncode == 0, got.stderr
    assert _results(got.stdout) == ["result: seat 1 wins after 0 choices"]


# Under each typed engine: load the file, play seed 1 with random seats to the end, and say how it
# ended, the steps it counted and the words it ended in, or the located error.
BOTH_ENGINES = r"""
import json, sys
from vbr.engines.game import load
from vbr.errors import VbrError
from vbr.ir.layout import Header as H

def outcome(engine):
    game = load(sys.argv[1], {}, engine=engine)
    try:
        s = game.new_state(1)
        s.play_random(2)
    except VbrError as e:
        return {"stopped": e.render()}
    return {"end": str(s.outcome()), "steps": int(s.words[H.STEPS]), "words": [int(x) for x in s.words_in_use()]}

print(json.dumps({"python": outcome("python"), "c": outcome("c")}))
"""


@pytest.mark.parametrize("steps", [1_000_000, 250])
def test_a_chain_of_300_procedure_calls_ends_in_the_same_words_under_both_engines(tmp_path, steps):
    """The Python engine dispatches on every 49th block of the chain instead of writing it in
    place: the steps it counts, the words it ends in, and where a step limit met in the chain
    stops play, are the C engine's. The set-up, the phase and the 300 procedures each cost a step
    as they start (docs/language.md, Run-time limits): 302 steps, so `limit steps 250` stops play
    in one of the procedures, the same in both."""
    procs = "".join(f"proc q{i}() {{\n  x = x + {i % 3}\n}}\n" for i in range(300))
    calls = "".join(f"  q{i}()\n" for i in range(300))
    rules = tmp_path / "chain.vbr"
    rules.write_text(f'game "Chain"\nseats 2\nstart p\nlimit steps {steps}\nvar x: int = 0\n{procs}phase p {{\n'
                     f"{calls}  end winner x % 2\n}}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-c", BOTH_ENGINES, str(rules)], capture_output=True, text=True, env=env,
                         timeout=HANG_GUARD, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.splitlines()[-1])
    assert got["python"] == got["c"]
    if steps == 250:  # in one of the procedures, at its `proc`
        stopped = got["python"]["stopped"]
        assert re.match(rf"{re.escape(str(rules))}:\d+:1: error: the game ran more than 250 steps", stopped)
        assert stopped.splitlines()[1].startswith("    proc q")
    else:  # 0 + 1 + 2 over 100 rounds: 300, even
        assert got["python"]["end"] == "seat 0 wins" and got["python"]["steps"] == 302


def test_the_python_engine_of_a_phase_of_3000_ifs_is_built_in_bounded_memory(tmp_path):
    """Each `if` ends in a join (a block with two ways in), which the Python engine writes out
    at each way in while it is short: written so without end, the copies made the phase's code
    four times longer (100,000 lines; 430 MB to compile), and finding the blocks on a loop took
    time quadratic in the blocks. Now the copies add at most COPIED_BUDGET lines to a unit.
    Each `if x >= i` holds (x is i then), so x ends at 3001: seat 1 wins. The engine measured is
    the one that plays (built once: as vbr.engines.game.load builds it)."""
    from vbr.engines.game import Game, checked_model
    from vbr.engines.python_engine import PythonEngine
    from vbr.ir.build import build_program

    rules = tmp_path / "ifs.vbr"
    ifs = "".join(f"  if x >= {i} {{\n    x = x + 1\n  }}\n" for i in range(1, 3001))
    rules.write_text(f'game "Ifs"\nseats 2\nvar x: int = 1\nstart p\nphase p {{\n{ifs}  end winner x % 2\n}}\n')
    model = checked_model(rules)
    program = build_program(model)
    tracemalloc.start()
    try:
        engine = PythonEngine(program)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200 << 20
    assert str(Game(program, engine, model, rules).new_state(0).outcome()) == "seat 1 wins"


@pytest.mark.parametrize("succ, looped", [
    ([], set()),
    ([[1], [2], []], set()),  # a chain
    ([[0]], {0}),  # a block that goes on to itself
    ([[1], [2], [0], [2]], {0, 1, 2}),  # 3 goes into the loop 0 -> 1 -> 2 -> 0, and is on none
    ([[1, 3], [2], [1], [4], [3, 5], []], {1, 2, 3, 4}),  # two loops, 1 <-> 2 and 3 <-> 4, from 0
])
def test_the_blocks_on_a_loop_are_those_a_path_leads_back_to(succ, looped):
    from vbr.ir.cycles import on_cycle
    assert on_cycle(succ) == looped


def test_the_blocks_on_a_loop_of_200000_are_found_without_recursion():
    from vbr.ir.cycles import on_cycle
    n = 200_000
    assert on_cycle([[i + 1] for i in range(n - 1)] + [[0]]) == set(range(n))
    assert on_cycle([[i + 1] for i in range(n - 1)] + [[]]) == set()


# ------------------------------------------------------------------------ light fns called often
def _h(level: int, a: int) -> int:
    """fn h<level> of _light_fns, worked out here."""
    return (a * 3 + 1) % 1000 if level == 0 else (_h(level - 1, a) + _h(level - 1, a + 1)) % 1000


def _light_fns(calls: str, n: int, expected: int) -> str:
    """h0..h6, each calling the one before twice: h6 is 1,015 nodes written out, just under the
    1,024 of a heavy fn (h0 7 nodes, h<i> 9 more than twice h<i-1>); `d` adds 7 / (a % 119) to h6 (line 11).
    The phase sets x = CALLS(x) n times; seat 1 wins when x ends at `expected`."""
    fns = "fn h0(a: int) = (a * 3 + 1) % 1000\n" + "".join(
        f"fn h{i}(a: int) = (h{i - 1}(a) + h{i - 1}(a + 1)) % 1000\n" for i in range(1, 7))
    body = f"  x = {calls}(x)\n" * n
    return (f'game "Light"\nseats 2\nvar x: int = 1\n{fns}fn d(a: int) = h6(a) + 7 / (a % 119)\nstart p\nphase p {{\n'
            f"{body}  if x == {expected} {{\n    end winner 1\n  }}\n  end winner 0\n}}\n")


def _both_engines(rules: Path, tmp_path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-c", BOTH_ENGINES, str(rules)], capture_output=True, text=True, env=env,
                         timeout=HANG_GUARD, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_a_light_fn_called_in_1000_statements_builds_and_plays_alike_under_both_engines(tmp_path):
    """Written out at every call, the phase was a million nodes: 30 s and 3.7 GB to build under
    the Python engine, 23 MB of C refused. Past 20,000 nodes written out the unit calls it, and
    a light fn pays no steps either way: as many steps as the same phase with no statement."""
    x = 1
    for _ in range(1000):
        x = _h(6, x)
    rules, none = tmp_path / "light.vbr", tmp_path / "none.vbr"
    rules.write_text(_light_fns("h6", 1000, x))
    none.write_text(_light_fns("h6", 0, 1))
    got, without = _both_engines(rules, tmp_path), _both_engines(none, tmp_path)
    assert got["python"] == got["c"] and without["python"] == without["c"]
    assert (got["python"]["end"], got["python"]["steps"]) == (without["python"]["end"], without["python"]["steps"])
    assert got["python"]["end"] == "seat 1 wins"


def test_a_fault_in_a_light_fn_called_past_the_written_out_nodes_is_located_in_the_fn(tmp_path):
    x, calls = 1, 0
    while x % 119:  # the first call given a multiple of 119 divides by zero
        x, calls = _h(6, x) + 7 // (x % 119), calls + 1
    assert 25 < calls < 600  # past the first 19 calls, which are written out
    rules = tmp_path / "light.vbr"
    rules.write_text(_light_fns("d", 600, 0))
    got = _both_engines(rules, tmp_path)
    assert got["python"] == got["c"]
    assert got["python"]["stopped"].startswith(f"{rules}:11:24: error: division by zero")


def _list_fn_calls(n: int) -> str:
    """`k` takes a list (so it is written out at each call: a fn body is built for values, not
    lists) and is h6 of its count: 1,018 nodes (its call of h6 and h6's 1,015, `count`, `xs`).
    Line 14 holds the first of the n statements calling it, column 11 the call."""
    fns = "fn h0(a: int) = (a * 3 + 1) % 1000\n" + "".join(
        f"fn h{i}(a: int) = (h{i - 1}(a) + h{i - 1}(a + 1)) % 1000\n" for i in range(1, 7))
    body = "  x = x + k([x])\n" * n
    return (f'game "Listed"\nseats 2\nvar x: int = 1\n{fns}fn k(xs: list of int) = h6(count(xs))\nstart p\n'
            f"phase p {{\n{body}  end winner x % 2\n}}\n")


def test_a_fn_given_a_list_written_out_past_the_limit_is_an_error_at_the_call_that_passes_it(tmp_path):
    """49 calls write out 49,882 nodes; the 50th brings them to 50,900, past the 50,000 of
    MAX_WRITTEN_OUT (500 such calls took 15 s and 1.9 GB to build under `--engine python`)."""
    from vbr import limits as L
    assert L.MAX_WRITTEN_OUT == 50_000
    rules = tmp_path / "listed.vbr"
    rules.write_text(_list_fn_calls(500))
    for args in (["check", rules], ["run", rules, "--engine", "python"], ["run", rules, "--engine", "c"]):
        got = _vbr(args, tmp_path)
        assert got.returncode == 1, (args, got.stderr)
        assert got.stderr.splitlines()[0] == (
            f"{rules}:63:11: error: `k` written out here (1,018 expression nodes with the fns it calls; a fn given a "
            "list is written out at each call) brings what this file writes out at its calls to 50,900 nodes, more "
            "than 50,000, the limit on written-out calls")


def test_a_fn_given_a_list_written_out_within_the_limit_plays(tmp_path):
    x = 1
    for _ in range(49):
        x = x + _h(6, 1)  # count([x]) is 1
    rules = tmp_path / "listed.vbr"
    rules.write_text(_list_fn_calls(49))
    got = _vbr(["run", rules, "--engine", "python"], tmp_path)
    assert got.returncode == 0, got.stderr
    assert _results(got.stdout) == [f"result: seat {x % 2} wins after 0 choices"]


def test_a_procedure_giving_a_list_written_out_past_the_limit_is_an_error_at_the_call_that_passes_it(tmp_path):
    """`g` gives a list, so each call writes its body out (no call depth added): 101 statements,
    707 nodes (each `y = (y + i) % 1000` 7: the assignment, y, two operators, y, i, 1000; the
    `return [y, y + 1]` 6 and the block 1); 70 calls bring 49,490 + 707 = 50,197 past the
    50,000 (400 calls took 6.6 s and 830 MB under `--engine python`). The 71st call, `let a70`,
    is on line 6 + 102 + 2 + 2 * 70 = 250."""
    stmts = "".join(f"  y = (y + {i}) % 1000\n" for i in range(100))
    calls = "".join(f"  let a{k} = g()\n  x = x + count(a{k})\n" for k in range(400))
    rules = tmp_path / "procs.vbr"
    rules.write_text(f'game "Procs"\nseats 2\nvar x: int = 0\nvar y: int = 0\nproc g(): list of int {{\n{stmts}'
                     f"  return [y, y + 1]\n}}\nstart p\nphase p {{\n{calls}  end winner x % 2\n}}\n")
    got = _vbr(["check", rules], tmp_path)
    assert got.returncode == 1
    assert got.stderr.splitlines()[0] == (
        f"{rules}:250:13: error: `g` written out here (707 nodes of its body; a procedure that gives a list is written "
        "out at each call) brings what this file writes out at its calls to 50,197 nodes, more than 50,000, the limit "
        "on written-out calls")


# ------------------------------------------------------------------------ consts of doubling fns
def test_4900_consts_each_of_a_fn_that_doubles_11_times_check_and_play(tmp_path):
    """g<i> calls g<i-1> twice, 11 levels (24,000 nodes written out, within the limit on
    expanded size). Checking each const looked into every fn for what play changes once per
    path through the calls (2^11 times a const: 55 ms, 4.5 minutes for the file), and worked
    each call out again; now each fn is looked into once, and a call worked out once for its
    arguments. c4899 = g11(4899), worked out here: its parity names the winner."""
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def g(level: int, a: int) -> int:
        return a if level == 0 else (g(level - 1, a) + g(level - 1, a + 1)) % 1000

    fns = "fn g0(a: int) = a\n" + "".join(f"fn g{i}(a: int) = (g{i - 1}(a) + g{i - 1}(a + 1)) % 1000\n"
                                          for i in range(1, 12))
    consts = "".join(f"const c{k} = g11({k})\n" for k in range(4900))
    rules = tmp_path / "consts.vbr"
    rules.write_text(f'game "Consts"\nseats 2\nvar x: int = 0\n{fns}{consts}start p\nphase p {{\n  x = c4899\n'
                     "  end winner x % 2\n}\n")
    checked = _vbr(["check", rules], tmp_path, timeout=60)
    assert checked.returncode == 0, checked.stderr
    got = _vbr(["run", rules, "--engine", "python"], tmp_path, timeout=60)
    assert _results(got.stdout) == [f"result: seat {g(11, 4899) % 2} wins after 0 choices"]


def test_a_list_argument_calling_a_doubling_fn_in_1500_statements_builds_and_plays(tmp_path):
    """`k` takes a list, so whether its argument draws at random is asked at each call: the
    question looked into g11 and the fns it calls once per path (2^11 a call: 9.6 s for 300
    calls). x = count([g11(x)]) is 1 whatever g11 gives: seat 1 wins."""
    fns = "fn g0(a: int) = a\n" + "".join(f"fn g{i}(a: int) = (g{i - 1}(a) + g{i - 1}(a + 1)) % 1000\n"
                                          for i in range(1, 12))
    rules = tmp_path / "draws.vbr"
    body = "  x = k([g11(x)])\n" * 1500
    rules.write_text(f'game "Draws"\nseats 2\nvar x: int = 0\n{fns}fn k(xs: list of int) = count(xs)\nstart p\n'
                     f"phase p {{\n{body}  end winner x % 2\n}}\n")
    got = _vbr(["run", rules, "--engine", "python"], tmp_path, timeout=120)
    assert got.returncode == 0, got.stderr
    assert _results(got.stdout) == ["result: seat 1 wins after 0 choices"]


# ------------------------------------------------------------------------ many choices
def test_the_python_engine_of_a_phase_of_2000_choices_is_built_in_bounded_memory(tmp_path):
    """Where an agent answers a choice in play, the Python engine writes the block that follows
    out in place: each choice's code held the next choice's again (250,000 lines for 4,100
    choices, 840 MB), now until the copies have added COPIED_BUDGET lines (350 MB for 2,000
    choices before, 210 MB now; bounded here at 280 MB)."""
    from vbr.engines.game import load
    from vbr.engines.python_engine import PythonEngine
    from vbr.ir.build import build_program

    rules = tmp_path / "choices.vbr"
    rules.write_text("\n".join(['game "Choices"', "seats 2", "start play", "phase play {", *_choices(2000),
                                "  end draw", "}"]) + "\n")
    program = load(rules, {}, engine="python").program
    tracemalloc.start()
    try:
        PythonEngine(program)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 280 << 20


def test_choices_past_the_copied_lines_play_the_same_games_under_both_engines(tmp_path):
    """150 choices, each added to x: past the first few dozen the answer goes on through the
    dispatch, not a copy; random seats from seed 1 end the same game, with the same steps."""
    rules = tmp_path / "choices.vbr"
    lines = ['game "Choices"', "seats 2", "var x: int = 0", "start play", "phase play {"]
    for line in _choices(150):
        lines += [line, f"  x = x + {line.split()[1]}"]
    rules.write_text("\n".join(lines + ["  end winner x % 2", "}"]) + "\n")
    got = _both_engines(rules, tmp_path)
    assert got["python"] == got["c"] and "end" in got["python"]


def test_3000_statements_calling_a_heavy_fn_that_calls_another_twice_eleven_deep_build_under_python(tmp_path):
    """Whether a statement may draw (the step limit is then tested before it) looks into the heavy
    fns it calls: once per fn, not once per path through their calls (2,048 walks of `g0` at each
    of the 3,000 calls took 55 s; a generous hang guard here). g11(i) sums g0 = (a % 7) over
    a = i..i+11 taken with multiplicity C(11, k) at i + k: v = g11(2999) at the end."""
    fns = "fn g0(a: int) = a % 7\n" + "".join(f"fn g{i}(a: int) = g{i - 1}(a) + g{i - 1}(a + 1)\n" for i in range(1, 12))
    calls = "".join(f"  v = g11({i})\n" for i in range(3000))
    rules = tmp_path / "heavy.vbr"
    rules.write_text(f'game "x"\nseats 2\nvar v: int = 0\n{fns}start p\nphase p {{\n{calls}  say "{{v}}"\n  end draw\n}}\n')
    got = _vbr(["run", rules, "--engine", "python"], tmp_path, timeout=40)
    assert got.returncode == 0, got.stderr
    from math import comb
    assert f"  {sum(comb(11, k) * ((2999 + k) % 7) for k in range(12))}" in got.stdout.splitlines()
