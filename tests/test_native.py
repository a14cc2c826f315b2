"""The compiled form (vbr/interpreter/native.py): the generated functions built by Cython and the
C compiler play exactly the games their Python text plays; a build is kept in the user's cache
directory, loaded from there by later processes, and built again when its recorded hash does not
match; and when native code cannot be had, the user is told why.

Every build here is real (Cython and `cc`, installed by scripts/setup.sh with the `native`
extra), in a cache directory of the test's own."""
from __future__ import annotations

import gc
import os
import random
import signal
import subprocess
import sys
import symtable
import time
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, ROOT, ended
from test_lowering import both_forms, final_state, random_game_log
from vbr.errors import StepLimitExceeded
from vbr.interpreter import native as N
from vbr.interpreter import native_build as NB
from vbr.interpreter import native_cache as NC
from vbr.interpreter import (native_helpers, native_ints, native_mt, native_slots, native_training, native_types, rng,
                             state)
from vbr.interpreter.game import load
from vbr.play import play_game

CORPUS = sorted((FIXTURES / "valid").glob("every_construct_*.vbr"))
SMALL = FIXTURES / "valid" / "flow_jumps.vbr"  # the smallest valid rule file: a build of a few seconds
CALLS = FIXTURES / "valid" / "every_construct_court.vbr"  # a small file whose ops call its fns and procs


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
def test_every_construct_compiled_plays_the_games_of_the_closures(in_cache, path, monkeypatch):
    # Built at -O0: what is tested here is Cython's translation of every construct; the C
    # compiler's optimisation does not change what C means, and -O2 takes 34 s of the suite's time
    # on the cards corpus (3.5 s at -O0). Siatka's test above builds with the flags users get.
    monkeypatch.setattr(NB, "CFLAGS", ("-O0", "-fPIC"))
    closures, _ = both_forms(path)
    compiled = load(path, native=True)
    assert generated_ops_left(compiled) == []
    for seed in range(10):
        assert random_game_log(compiled, seed) == random_game_log(closures, seed), seed
        assert final_state(compiled, seed) == final_state(closures, seed), seed


@pytest.fixture(scope="module")
def compiled_derive(cache):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache))
        derive = load("siatka", native=True).program.derive  # the build Siatka's test plays, at users' flags
    assert derive is not rng.derive and derive.__module__.startswith("vbr_native_")
    return derive


@settings(max_examples=500, deadline=None)
@given(st.integers(min_value=-(2 ** 70), max_value=2 ** 130),
       st.lists(st.integers(min_value=-(2 ** 70), max_value=2 ** 80), max_size=4))
def test_the_compiled_seed_derivation_gives_the_seeds_of_rng_derive(compiled_derive, seed, salt):
    assert compiled_derive(seed, *salt) == rng.derive(seed, *salt)


@pytest.fixture(scope="module")
def compiled_generator(cache):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache))
        generator = load("siatka", native=True).program.generator
    # CPython 3.11 lays its generator out as native_mt.py's C assumes: the check lets it in here
    assert generator is not rng.generator and generator.__module__.startswith("vbr_native_")
    return generator


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(min_value=0, max_value=2 ** 64 - 1), st.sampled_from(native_mt.EDGES),
                 st.integers(min_value=-(2 ** 70), max_value=2 ** 130)))
def test_the_generator_seeded_in_c_is_pythons_generator_of_that_seed(compiled_generator, x):
    # beyond 0..2**64-1 (never a derived seed) it seeds as Python does; either way Python's numbers
    mine, python = compiled_generator(x), random.Random(x)
    assert type(mine) is random.Random and mine.gauss_next is None
    assert mine.getstate() == python.getstate()
    assert [mine.getrandbits(64) for _ in range(700)] == [python.getrandbits(64) for _ in range(700)]


# A game that never ends: the step limit or the choice limit stops it.
ENDLESS = '''game "x"
seats 2
limit %s
var n: int = 0
start p
phase p {
  choose x from 1..3 by n %% 2
  n += x
  goto p
}
'''


@pytest.mark.parametrize("limit,message", [("steps 400", "step limit of 400"), ("choices 30", "choice limit of 30")])
def test_the_compiled_loops_stop_a_game_where_the_python_ones_do(in_cache, tmp_path, monkeypatch, limit, message):
    """The VM's loops (state.run_ops, state.play_ops) are compiled with the engine's helpers and
    put in the program; they stop a game at its limits with the Python loops' very error, played
    by random seats (play_ops) and choice by choice (run_ops)."""
    monkeypatch.setattr(NB, "CFLAGS", ("-O0", "-fPIC"))  # what C means does not depend on its optimisation
    monkeypatch.setattr(native_training, "GAMES", 0)
    path = tmp_path / "endless.vbr"
    path.write_text(ENDLESS % limit)
    python, compiled = load(path), load(path, native=True)
    assert (python.program.run_ops, python.program.play_ops) == (state.run_ops, state.play_ops)
    for loop in (compiled.program.run_ops, compiled.program.play_ops):
        assert loop.__module__.startswith("vbr_native_"), loop
    for play in (lambda g: play_game(g, 3, ["random"] * g.seats), lambda g: random_game_log(g, 3)):
        errors = []
        for game in (python, compiled):
            with pytest.raises(StepLimitExceeded) as info:
                play(game)
            errors.append(str(info.value))
        assert errors[0] == errors[1] and message in errors[0]


def test_two_programs_of_the_same_rules_each_get_functions_of_their_own(in_cache):
    a, b = load("siatka", native=True), load("siatka", native=True)  # one build, in the cache
    op_a, op_b = a.program.phases[next(iter(a.program.phases))].ops[0], b.program.phases[next(iter(b.program.phases))].ops[0]
    assert op_a is not op_b
    python = load("siatka")
    for seed in range(5):
        assert final_state(a, seed) == final_state(python, seed) == final_state(b, seed)


# A later process's load, as `vbr run --native` does it, built at -O0 and untrained: what these tests
# check is the cache (which file is loaded, built again or swept), not the C compiler's optimisation.
LOAD_AND_PLAY = """
import sys
from vbr.interpreter import native_build, native_training
from vbr.interpreter.game import load
native_build.CFLAGS = ("-O0", "-fPIC")
native_training.GAMES = 0
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


@pytest.fixture(scope="module")
def first_build(tmp_path_factory) -> tuple[list[str], Path]:
    """The output of the first process to load SMALL natively, and the cache it built the module
    in: copied by each test that starts from a cache holding that one build."""
    home = tmp_path_factory.mktemp("first-build")
    return load_in_a_process(SMALL, home), home


def cache_after(first_build, tmp_path) -> list[str]:
    """tmp_path becomes a cache home holding the first build (a copy); returns the first process's
    output."""
    import shutil
    lines, home = first_build
    shutil.copytree(home / "vbr", tmp_path / "vbr")
    return lines


def test_a_later_process_loads_the_build_from_the_cache(first_build, tmp_path):
    first = cache_after(first_build, tmp_path)
    second = load_in_a_process(SMALL, tmp_path)
    assert [line for line in first if line.startswith("NOTE")] != []
    assert [line for line in second if line.startswith("NOTE")] == []
    assert first[-1] == second[-1]
    built = sorted(p.name for p in (tmp_path / "vbr" / "native").iterdir())
    # the module, its hash and its build lock beside it; no build folder or private copy is left
    assert len(built) == 3 and built[1:] == [built[0] + ".lock", built[0] + ".sha256"]


def the_module_built_in(cache_home) -> Path:
    (module,) = (cache_home / "vbr" / "native").glob("*" + NB.suffix())
    return module


def test_a_build_whose_bytes_do_not_match_its_hash_is_built_again_not_loaded(first_build, tmp_path):
    first = cache_after(first_build, tmp_path)
    module = the_module_built_in(tmp_path)
    data = bytearray(module.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a file changed after its build: its hash no longer matches
    module.write_bytes(bytes(data))
    again = load_in_a_process(SMALL, tmp_path)
    assert [line for line in again if line.startswith("NOTE")] != []
    assert again[-1] == first[-1]
    assert NC.intact(str(module)) is not None


# A native build in a process of its own, its errors said as the CLI says them (`--native` on the
# command line is `--engine c` now; the Cython form is had through the API)
NATIVE_LOAD = ("import sys\nfrom vbr.cli import _guard\nfrom vbr.interpreter.game import load\n"
               "sys.exit(_guard(lambda: load(sys.argv[1], native=True) and 0))")


def native_load(path, env, **kw):
    return subprocess.run([sys.executable, "-c", NATIVE_LOAD, str(path)], env=env, cwd=ROOT, **kw)


def test_without_a_c_compiler_the_build_says_why_as_a_usage_error(tmp_path):
    env = {**os.environ, "CC": str(tmp_path / "no-such-compiler"), "XDG_CACHE_HOME": str(tmp_path)}
    done = native_load(ROOT / "rules" / "siatka.vbr", env, capture_output=True, text=True, timeout=120)
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
    """Python runs the generated code with no builtins; Cython resolves a name that is not
    assigned anywhere as a builtin. So in the text given to Cython, a function's only global
    names are builtins the program's namespace holds under other names (`len` for C5) and the
    slot accessors and comparisons the part cimports (native_slots.py, native_ints.py), and
    the types that annotate some names (native_types.py: `cython.int` and builtin types): every
    other name is a parameter, a local, or one `make` reads from the program's namespace. Each part holds `make`, its
    functions and `link`, and `link` rebinds exactly the functions of other parts that the part
    calls."""
    from vbr.interpreter.compiler import compile_rules
    from vbr.loader import load_rules
    program = compile_rules(load_rules("siatka"), {}, keep_code=True)
    parts = N.factory_sources(program.lowering.modules, program.lowering.namespace, set())
    assert len(parts) == 2  # Siatka's functions are between one and two PART_CHARS
    handed = {v.__name__ for v in program.lowering.namespace.values() if any(v is b for b in N.BUILTINS_BY_NAME)}
    assert {"len", "tuple"} <= handed
    cimported = (native_slots.GET, native_slots.SET, native_slots.BIND, native_ints.COMPARE, native_ints.FITS, native_ints.ITEM,
                 native_ints.SCALED, native_ints.ADD, native_ints.SUB, native_ints.REMOVE, native_ints.EQUAL, native_ints.FIELD, native_ints.WITH,
                 native_ints.SLOT, native_ints.GET_IN,
                 "vbr_mt_seed", "vbr_mt_usable", native_mt.BELOW, native_mt.BELOW_OF)
    every = {n for _, names in parts for n in names}
    named, linked = set(), set()
    assert len(every) > 20
    for text, names in parts:
        assert names
        top = symtable.symtable(text, "<native>", "exec")
        assert {s.get_name() for s in top.get_symbols() if s.is_imported()} == {*cimported, "cython"}
        (make,) = top.get_children()
        assert make.get_name() == "make" and make.get_parameters() == ("ns", "fields")
        tables = {t.get_name(): t for t in make.get_children()}
        assert set(tables) == set(names) | {"link"}
        for t in [make, *tables.values()]:
            named.update(t.get_globals())
        called = {s for t in tables.values() if t.get_name() != "link" for s in t.get_frees()} & (every - set(names))
        assert set(tables["link"].get_frees()) == called | ({"ns"} if called else set())  # read from the namespace
        linked |= called
    assert handed <= named  # each builtin handed over is named
    declared = {"cython", "list", *(t.__name__ for t in native_types.CONSTANT_TYPES)}
    assert named - handed <= set(cimported) | declared  # and every other global name is one the part imports or a type
    assert linked  # the parts call each other


def test_a_build_in_parts_calls_only_compiled_functions_and_plays_the_python_forms_games(in_cache, monkeypatch):
    """Cut into three parts (each its own module in one built file, calling the others' compiled
    functions once linked): no compiled function calls a Python one, and the games are the
    Python form's."""
    monkeypatch.setattr(NB, "CFLAGS", ("-O0", "-fPIC"))  # what C means does not depend on its optimisation
    monkeypatch.setattr(N, "PART_CHARS", 2_000)
    monkeypatch.setattr(N, "MAX_PARTS", 3)
    from vbr.interpreter.compiler import compile_rules
    from vbr.loader import load_rules
    program = compile_rules(load_rules(CALLS), {}, keep_code=True)
    parts = N.factory_sources(program.lowering.modules, program.lowering.namespace, set())
    assert sum("nonlocal" in t for t, _ in parts) >= 2  # parts that call another part's functions
    python = load(CALLS)
    before = set(N._LOADED)
    compiled = load(CALLS, native=True)
    (modules,) = [m for key, m in N._LOADED.items() if key not in before]
    assert native_helpers.source(native_helpers.helpers(program.lowering.namespace).values()) is not None
    assert len(modules) == 3 + 1 + 1  # and the seeds' module, and the engine's helpers
    assert generated_ops_left(compiled) == []
    # what each part's functions call is the compiled function of whichever part holds it
    ns = compiled.program.lowering.namespace
    generated = [ns[name] for _, names in parts for name in names]
    scopes = {id(r): r for f in generated for r in gc.get_referents(f) if type(r).__name__.endswith("scope_struct__make")}
    assert len(scopes) == 3
    held = [v for scope in scopes.values() for v in gc.get_referents(scope) if callable(v)]
    assert not [v.__name__ for v in held if isinstance(v, types.FunctionType) and v.__name__ in ns]
    for seed in range(10):
        assert final_state(compiled, seed) == final_state(python, seed), seed


def test_a_native_run_with_two_workers_gives_the_same_trials_as_python(in_cache):
    from vbr.backends import LocalBackend
    from vbr.sim import RunSpec, run
    out = {}
    for native in (False, True):
        spec = RunSpec.of(str(ROOT / "rules" / "siatka.vbr"), {}, 0, ["random", "random"], 60, native=native)
        out[native] = run(spec, LocalBackend(2)).trials
    assert len(out[False]) == 60
    assert out[True] == out[False]


def deep_rules(levels: int) -> str:
    """A small game whose one assignment nests `levels` pairs of arithmetic, each with its own
    overflow check: 2 * levels assignment expressions, one inside the other."""
    expr = "c"
    for i in range(levels):
        expr = f"((1 - {expr}) + {2 * i + 1})"
    return ('game "Deep"\nseats 2\nvar x: int = 0\nstart play\nphase play {\n'
            f"  choose c from 1..2 by 0\n  x = {expr}\n  if x > 3 {{ end winner 1 }}\n  end draw\n}}\n")


def test_nested_assignments_counts_the_deepest_chain_of_assignment_expressions():
    import ast
    assert N.nested_assignments(ast.parse("(a := (b := 1)) + (c := 2)")) == 2
    assert N.nested_assignments(ast.parse("f(x) + [y for y in z]")) == 0
    assert N.nested_assignments(ast.parse("(a := g((b := (c := 1)), (d := 2)))")) == 3


def test_a_function_nested_too_deep_for_cython_stays_python_and_the_rest_is_compiled(in_cache, tmp_path):
    path = tmp_path / "deep.vbr"
    path.write_text(deep_rules(7))  # 14 nested checks: beyond MAX_NESTED_ASSIGNMENTS (12)
    notes = []
    compiled = load(path, native=True, note=notes.append)
    python = load(path)
    left = generated_ops_left(compiled)
    assert left and set(left) < set(generated_ops_left(python))  # some stayed Python, not all
    assert any("stay Python" in n for n in notes)
    for seed in range(5):
        assert random_game_log(compiled, seed) == random_game_log(python, seed), seed


def write_compiler(tmp_path, body: str) -> str:
    cc = tmp_path / "fake-cc"
    cc.write_text("#!/bin/sh\n" + body + "\n")
    cc.chmod(0o755)
    return str(cc)


def test_a_failing_compiler_is_a_usage_error_that_quotes_it(tmp_path):
    cc = write_compiler(tmp_path, 'echo "fake-cc: cannot compile today" >&2\nexit 7')
    env = {**os.environ, "CC": cc, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = native_load(SMALL, env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == ("vbr: error: the C compiler failed on the generated code (exit 7): "
                                            "fake-cc: cannot compile today")
    assert [p for p in (tmp_path / "cache" / "vbr" / "native").iterdir() if p.suffix != ".lock"] == []


# A compiler that starts a pass of its own (a child that writes its pid), then hangs.
HANGING_COMPILER = 'sleep 600 &\necho $! > "$(dirname "$0")/child.pid"\nexec sleep 600'


def test_a_build_step_over_its_time_bound_is_stopped_with_all_it_started(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", write_compiler(tmp_path, HANGING_COMPILER))
    monkeypatch.setattr(NB, "BUILD_SECONDS", 6)  # Cython takes about a second on this file
    monkeypatch.setattr(native_training, "GAMES", 0)  # the compile step is tested: no probe of the fake compiler
    with pytest.raises(N.NativeUnavailable, match=r"^the C compiler took more than 6 s on the generated code$"):
        load(SMALL, native=True)
    assert ended({int((tmp_path / "child.pid").read_text())})
    assert [p.name for p in (tmp_path / "cache" / "vbr" / "native").iterdir() if p.is_dir()] == []


def test_when_one_part_fails_to_compile_the_parts_compiling_beside_it_are_stopped(tmp_path, monkeypatch):
    """Parts compile at once: the one that fails says why, and it and the others (here: hanging,
    each with a pass of its own) are stopped with all they started."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(NB, "cpus", lambda: 3)  # the three parts compile at once
    monkeypatch.setattr(N, "PART_CHARS", 2_000)
    monkeypatch.setattr(N, "MAX_PARTS", 3)
    monkeypatch.setattr(native_training, "GAMES", 0)  # the compile steps are tested: no probe of the fake compiler
    # the part whose source file ends in _1.c fails once the other two have started their passes
    # (or after 60 s); the others hang
    script = ('pids="$(dirname "$0")/child.pid"\n'
              'for a in "$@"; do case "$a" in *_1.c)\n'
              '  for i in $(seq 600); do [ "$(cat "$pids" 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.1; done\n'
              '  sleep 600 & echo $! > "$pids.failed"\n'  # left behind by the failing part: stopped too
              '  echo "fake-cc: part 1 is wrong" >&2; exit 3;; esac; done\n'
              'sleep 600 &\necho $! >> "$pids"\nexec sleep 600')
    monkeypatch.setenv("CC", write_compiler(tmp_path, script))
    with pytest.raises(N.NativeUnavailable, match=r"^the C compiler failed on the generated code \(exit 3\): fake-cc: part 1 is wrong$"):
        load(CALLS, native=True)
    children = [int(line) for line in (tmp_path / "child.pid").read_text().split()]
    assert len(children) == 2 and ended(children)
    assert ended({int((tmp_path / "child.pid.failed").read_text())})
    assert [p.name for p in (tmp_path / "cache" / "vbr" / "native").iterdir() if p.is_dir()] == []


def test_sigterm_during_a_build_stops_the_build_and_removes_its_folder(tmp_path):
    cc = write_compiler(tmp_path, HANGING_COMPILER)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "CC": cc}
    vbr = subprocess.Popen([sys.executable, "-c", NATIVE_LOAD, str(SMALL)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    pid_file = tmp_path / "child.pid"
    for _ in range(1200):  # Cython runs first: until the compiler has started its child
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.1)
    vbr.send_signal(signal.SIGTERM)
    _, err = vbr.communicate(timeout=60)
    assert vbr.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert ended({int(pid_file.read_text())})
    assert [p.name for p in (tmp_path / "cache" / "vbr" / "native").iterdir() if p.is_dir()] == []


def test_a_step_is_stopped_by_its_cpu_limit_even_with_no_one_waiting():
    """What stops a step orphaned by a vbr killed outright: the trampoline's RLIMIT_CPU."""
    burn = [sys.executable, "-c", "while True: pass"]
    done = subprocess.run([sys.executable, "-I", "-c", NB.LIMITED, "1", *burn], capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGXCPU


def test_a_compiler_that_cannot_be_started_is_reported_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cc = tmp_path / "broken-cc"
    cc.write_text("#!/no/such/interpreter\n")
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    with pytest.raises(N.NativeUnavailable) as caught:
        load(SMALL, native=True)
    assert str(caught.value) == f"the C compiler could not be run: {cc}: No such file or directory"


def test_an_unwritable_cache_is_a_usage_error(tmp_path, monkeypatch):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_folder))
    monkeypatch.setattr(N, "_LOADED", {})  # this process may have loaded the module already
    with pytest.raises(N.NativeUnavailable, match="cannot be written"):
        load(SMALL, native=True)


def test_a_cached_file_that_matches_its_hash_but_does_not_load_is_built_again(first_build, tmp_path):
    import hashlib
    first = cache_after(first_build, tmp_path)
    module = the_module_built_in(tmp_path)
    junk = b"not a shared object"
    module.write_bytes(junk)
    (tmp_path / "vbr" / "native" / (module.name + ".sha256")).write_text(hashlib.sha256(junk).hexdigest() + "\n")
    again = load_in_a_process(SMALL, tmp_path)
    assert [line for line in again if line.startswith("NOTE")] != []
    assert again[-1] == first[-1]
    assert module.read_bytes() != junk


def test_the_folder_of_a_killed_build_is_swept_by_the_next_build(tmp_path):
    native = tmp_path / "vbr" / "native"
    native.mkdir(parents=True)
    (native / "tmpkilled").mkdir()
    (native / "tmpkilled" / "half.c").write_text("")
    old = NC.STALE_SECONDS + 60
    os.utime(native / "tmpkilled", (os.path.getmtime(native) - old,) * 2)
    (native / "tmprunning").mkdir()  # another build, under way now
    load_in_a_process(SMALL, tmp_path)
    names = {p.name for p in native.iterdir()}
    assert "tmpkilled" not in names and "tmprunning" in names


def test_two_processes_building_at_once_build_once(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    argv = [sys.executable, "-c", LOAD_AND_PLAY, str(SMALL)]
    both = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
            for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in both]
    assert [p.returncode for p in both] == [0, 0], [err for _, err in outs]
    builds = [sum(line.startswith("NOTE building") for line in out.splitlines()) for out, _ in outs]
    assert sorted(builds) == [0, 1]  # the second waited for the first's build and loaded it
    assert outs[0][0].splitlines()[-1] == outs[1][0].splitlines()[-1]


def test_a_build_past_the_cache_bound_removes_the_modules_used_longest_ago_but_not_one_in_use(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(NB, "CFLAGS", ("-O0", "-fPIC"))  # the builds' speed is not what is tested
    monkeypatch.setattr(native_training, "GAMES", 0)  # nor their training (test_native_training.py)
    native = tmp_path / "vbr" / "native"

    def cached() -> set[str]:
        return {p.name for p in native.glob("*" + NB.suffix())}

    def build(levels: int) -> str:
        """The module a new process would load for a game of `levels`: from the cache, or built."""
        monkeypatch.setattr(N, "_LOADED", {})
        before = cached() if native.exists() else set()
        path = tmp_path / f"game{levels}.vbr"
        path.write_text(deep_rules(levels))
        load(path, native=True)
        return "".join(cached() - before)

    a, b = build(2), build(3)
    assert cached() == {a, b}
    os.utime(native / (a + ".sha256"), (1, 1))  # as if a and b were used in turn, long ago
    os.utime(native / (b + ".sha256"), (2, 2))
    build(2)  # a, loaded from the cache: used now
    sizes = sum(p.stat().st_size for p in native.glob("*" + NB.suffix()))
    monkeypatch.setattr(NC, "MAX_CACHE_BYTES", sizes)  # a and b fill it; c, the smallest, fits in b's place
    c = build(1)
    assert cached() == {a, c}  # b, used longest ago, is gone; a stays
    assert not (native / (b + ".sha256")).exists()

    import fcntl
    monkeypatch.setattr(NC, "MAX_CACHE_BYTES", 1)  # room for nothing but the newest
    with open(native / (a + ".lock"), "a+b") as held:  # as another process loading a would hold it
        fcntl.flock(held, fcntl.LOCK_SH)
        d = build(4)
    assert cached() == {a, d}  # c is gone; a, held, stays
