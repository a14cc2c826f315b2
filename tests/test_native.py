"""The compiled form (vbr/interpreter/native.py): the generated functions built by Cython and the
C compiler play exactly the games their Python text plays; a build is kept in the user's cache
directory, loaded from there by later processes, and built again when its recorded hash does not
match; and when native code cannot be had, the user is told why.

Every build here is real (Cython and `cc`, installed by scripts/setup.sh with the `native`
extra), in a cache directory of the test's own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import symtable

import pytest

from conftest import FIXTURES, ROOT
from test_lowering import both_forms, final_state, random_game_log
from vbr.interpreter import native as N
from vbr.interpreter.game import load

CORPUS = sorted((FIXTURES / "valid").glob("every_construct_*.vbr"))
SMALL = FIXTURES / "valid" / "flow_jumps.vbr"  # the smallest valid rule file: a build of a few seconds


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("native-cache")


@pytest.fixture
def in_cache(cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def generated_ops_left(game) -> list[str]:
    """Ops of the program that are still generated *Python* functions (their code object comes
    from the module `<vbr: FILE>`)."""
    p = game.program
    codes = [*p.phases.values(), *p.procs.values(), *(h for hs in p.handlers.values() for h in hs)]
    if p.setup is not None:
        codes.append(p.setup)
    ops = [op for c in codes for op in c.ops] + [body for body, _ in p.pure_procs.values()]
    return [op.__name__ for op in ops if getattr(getattr(op, "__code__", None), "co_filename", "").startswith("<vbr:")]


def test_siatka_compiled_plays_the_games_of_its_python_form(in_cache):
    python = load("siatka")
    compiled = load("siatka", native=True)
    assert generated_ops_left(python), "the Python form runs generated functions"
    assert generated_ops_left(compiled) == []
    for seed in range(30):
        assert final_state(compiled, seed) == final_state(python, seed), seed
        assert random_game_log(compiled, seed) == random_game_log(python, seed), seed


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_every_construct_compiled_plays_the_games_of_the_closures(in_cache, path):
    closures, _ = both_forms(path)
    compiled = load(path, native=True)
    assert generated_ops_left(compiled) == []
    for seed in range(10):
        assert random_game_log(compiled, seed) == random_game_log(closures, seed), seed
        assert final_state(compiled, seed) == final_state(closures, seed), seed


def test_two_programs_of_the_same_rules_each_get_functions_of_their_own(in_cache):
    a, b = load(SMALL, native=True), load(SMALL, native=True)
    op_a, op_b = a.program.phases[next(iter(a.program.phases))].ops[0], b.program.phases[next(iter(b.program.phases))].ops[0]
    assert op_a is not op_b
    python = load(SMALL)
    for seed in range(5):
        assert final_state(a, seed) == final_state(python, seed) == final_state(b, seed)


LOAD_AND_PLAY = """
import sys
from vbr.interpreter.game import load
from vbr.play import play_game
game = load(sys.argv[1], native=True, note=lambda text: print("NOTE", text))
r = play_game(game, 7, ["random"] * game.seats)
print("RESULT", r.winner, r.points, r.choices)
"""


def load_in_a_process(path, cache_home) -> list[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run([sys.executable, "-c", LOAD_AND_PLAY, str(path)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_later_process_loads_the_build_from_the_cache(tmp_path):
    first = load_in_a_process(SMALL, tmp_path)
    second = load_in_a_process(SMALL, tmp_path)
    assert [line for line in first if line.startswith("NOTE")] != []
    assert [line for line in second if line.startswith("NOTE")] == []
    assert first[-1] == second[-1]
    built = sorted(p.name for p in (tmp_path / "vbr" / "native").iterdir())
    assert len(built) == 2 and built[1] == built[0] + ".sha256"  # the module, and its hash beside it


def test_a_build_whose_bytes_do_not_match_its_hash_is_built_again_not_loaded(tmp_path):
    first = load_in_a_process(SMALL, tmp_path)
    (module,) = [p for p in (tmp_path / "vbr" / "native").iterdir() if not p.name.endswith(".sha256")]
    data = bytearray(module.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a file changed after its build: its hash no longer matches
    module.write_bytes(bytes(data))
    again = load_in_a_process(SMALL, tmp_path)
    assert [line for line in again if line.startswith("NOTE")] != []
    assert again[-1] == first[-1]
    assert N._intact(str(module))


def test_without_a_c_compiler_the_cli_says_why_and_exits_2(tmp_path):
    env = {**os.environ, "CC": str(tmp_path / "no-such-compiler"), "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "vbr", "sim", "siatka", "-n", "2", "--native"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.startswith("vbr: error: native code needs a C compiler")
    assert "Traceback" not in done.stderr


def test_without_cython_the_reason_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "Cython", None)  # what `import Cython` meets when it is not installed
    assert "pip install 'vbr[native]'" in N.unavailable()
    with pytest.raises(N.NativeUnavailable, match="needs Cython"):
        load(SMALL, native=True)


def test_generated_code_over_the_size_bound_is_not_compiled(in_cache, monkeypatch):
    monkeypatch.setattr(N, "MAX_SOURCE", 100)
    with pytest.raises(N.NativeUnavailable, match="too large to compile"):
        load(SMALL, native=True)


def test_the_compiled_code_reaches_nothing_but_what_the_program_hands_it():
    """Python runs the generated code with no builtins; Cython would resolve a name that is not
    assigned anywhere as a builtin. So in the text given to Cython, no function may have a global
    name: every name is a parameter, a local, or one `make` reads from the program's namespace."""
    from vbr.interpreter.compiler import compile_rules
    from vbr.loader import load_rules
    program = compile_rules(load_rules("siatka"), {}, keep_code=True)
    text, names = N.factory_source(program.lowering.modules, program.lowering.namespace, set())
    assert len(names) > 10
    top = symtable.symtable(text, "<native>", "exec")
    (make,) = top.get_children()
    assert make.get_name() == "make" and make.get_parameters() == ("ns",)
    tables = [make, *make.get_children()]
    assert {t.get_name() for t in tables[1:]} == set(names)
    for t in tables:
        assert t.get_globals() == (), (t.get_name(), t.get_globals())


def test_sim_native_with_two_workers_gives_the_same_trials_as_python(in_cache, tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(in_cache)}
    out = {}
    for form in ("python", "native"):
        path = tmp_path / f"{form}.jsonl"
        argv = [sys.executable, "-m", "vbr", "sim", "siatka", "-n", "60", "--workers", "2", "--out", str(path), "--json"]
        done = subprocess.run(argv + (["--native"] if form == "native" else []), env=env, capture_output=True,
                              text=True, timeout=600, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        out[form] = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(out["python"]) == 60
    assert out["native"] == out["python"]
