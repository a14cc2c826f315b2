"""`vbr sweep` under `--engine auto` (vbr/engine_choice.py): each combination of options plays in
the engine that gets its games done sooner (a cached C build, or C for search agents; python for
random agents when a C build would cost more than the games), the same games either way. Each test
has a cache of its own (XDG_CACHE_HOME), so what is cached is what the test built; the C engine is
built by the real compiler."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from vbr.engine_choice import EngineChoice

ROOT = Path(__file__).resolve().parent.parent
BUMP = ROOT / "docs" / "tutorial" / "bump.vbr"


def sweep(tmp_path, *args: str, n: int = 3000, env: dict | None = None, said: list | None = None) -> list[dict]:
    """`vbr sweep` of Bump over target 1 and 2, `n` games each, its --out rows (and in `said` what it
    wrote on stderr)."""
    out = tmp_path / f"rows-{len(list(tmp_path.glob('rows-*')))}.csv"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), **(env or {})}
    done = subprocess.run([sys.executable, "-m", "vbr", "sweep", str(BUMP), "--grid", "target=1,2", "-n", str(n),
                           "--no-progress", "--out", str(out), *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    if said is not None:
        said += done.stderr.splitlines()
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def without_engine(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "engine"} for r in rows]


def test_random_games_play_in_python_unless_a_cached_c_build_is_sooner_and_find_the_same(tmp_path):
    # 3,000 random games of Bump take the python engine a few tenths of a second: less than a C
    # build (most of a second), more than loading a cached one and playing them in C
    cold = sweep(tmp_path)
    assert [r["engine"] for r in cold] == ["python", "python"]
    built = sweep(tmp_path, "--engine", "c")
    assert [r["engine"] for r in built] == ["c", "c"]
    cached = sweep(tmp_path)
    assert [r["engine"] for r in cached] == ["c", "c"]
    assert without_engine(cold) == without_engine(built) == without_engine(cached)


def test_mcts_plays_in_c_however_few_its_games(tmp_path):
    rows = sweep(tmp_path, "--agents", "first,mcts", n=10)
    assert [r["engine"] for r in rows] == ["c", "c"]


def test_without_a_compiler_an_mcts_sweep_plays_in_python_and_says_why_once(tmp_path):
    said: list = []
    rows = sweep(tmp_path, "--agents", "first,mcts", n=10, env={"CC": "/nonexistent/cc"}, said=said)
    assert [r["engine"] for r in rows] == ["python", "python"]
    why = [line for line in said if "--engine auto" in line]
    assert len(why) == 1 and why[0].startswith("vbr: --engine auto: the C engine cannot run here (")
    assert why[0].endswith("); playing through the python engine")


def test_the_cost_of_the_games_decides_between_python_and_c(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    choice = EngineChoice(BUMP, "random", 1, note=lambda text: None)
    assert choice.load({"target": 3}, 10)[0] == "python"  # a few games: far below a build's cost
    assert choice.load({"target": 3}, 10**8)[0] == "c"  # a hundred million: far above it
    assert choice.load({"target": 3}, 10)[0] == "python"  # below even loading the build now cached
    assert choice.load({"target": 3}, 3000)[0] == "c"  # above that


def test_greedy_games_are_timed_with_greedy_agents(tmp_path, monkeypatch):
    # a greedy game tries every option on imagined worlds: dearer than a random one, so fewer of
    # them outweigh a C build
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    random, greedy = (EngineChoice(BUMP, agents, 1, note=lambda text: None) for agents in ("random", "greedy"))
    random.load({"target": 5}, 20)  # each timed over 20 games: below a build's cost either way
    greedy.load({"target": 5}, 20)
    assert greedy.game_seconds > 2 * random.game_seconds


def tune(tmp_path, *args: str) -> dict:
    """`vbr tune --json` of Bump's target over 1..4 towards a mean length of 8, 400 games at most."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "vbr", "tune", str(BUMP), "--option", "target=1..4",
                           "--target", "length_mean=8", "-n", "400", "--no-progress", "--json", *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_tune_plays_each_value_where_its_games_are_done_sooner_and_finds_the_same(tmp_path):
    auto = tune(tmp_path)
    assert auto["engine"] == "python" and {a["engine"] for a in auto["arms"]} == {"python"}
    built = tune(tmp_path, "--engine", "c")
    assert built["engine"] == "c"
    assert without_engines(auto) == without_engines(built)


def without_engines(x):
    """x with every `engine` entry taken out, however deep."""
    if isinstance(x, dict):
        return {k: without_engines(v) for k, v in x.items() if k != "engine"}
    if isinstance(x, list):
        return [without_engines(v) for v in x]
    return x
