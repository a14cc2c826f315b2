"""`vbr sweep` under `--engine auto` (vbr/engine_choice.py): each combination of options plays in
the engine that gets its games done sooner (a cached C build, or C for search agents; python for
random agents when a C build would cost more than the games), the same games either way. Each test
has a cache of its own (XDG_CACHE_HOME), so what is cached is what the test built; the C engine is
built by the real compiler."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

from vbr.engine_choice import EngineChoice

ROOT = Path(__file__).resolve().parent.parent
BUMP = ROOT / "docs" / "tutorial" / "bump.vbr"


def sweep(tmp_path, *args: str) -> list[dict]:
    """`vbr sweep` of Bump over target 1 and 2, its --out rows."""
    out = tmp_path / f"rows-{len(list(tmp_path.glob('rows-*')))}.csv"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "vbr", "sweep", str(BUMP), "--grid", "target=1,2", "-n", "60",
                           "--no-progress", "--out", str(out), *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def without_engine(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "engine"} for r in rows]


def test_random_games_of_uncached_combinations_play_in_python_and_find_what_c_finds(tmp_path):
    # 60 random games of Bump take the python engine milliseconds, a C build most of a second
    auto = sweep(tmp_path)
    assert [r["engine"] for r in auto] == ["python", "python"]
    built = sweep(tmp_path, "--engine", "c")
    assert [r["engine"] for r in built] == ["c", "c"]
    assert without_engine(auto) == without_engine(built)


def test_a_combination_whose_c_build_is_cached_plays_in_c(tmp_path):
    sweep(tmp_path, "--engine", "c")  # both builds now in this test's cache
    assert [r["engine"] for r in sweep(tmp_path)] == ["c", "c"]


def test_search_agents_play_in_c_whatever_the_cache_holds(tmp_path):
    rows = sweep(tmp_path, "--agents", "greedy")
    assert [r["engine"] for r in rows] == ["c", "c"]


def test_many_random_games_are_worth_a_c_build(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    choice = EngineChoice(BUMP, "random", 1, note=lambda text: None)
    assert choice.load({"target": 3}, 10)[0] == "python"  # a few games: far below a build's cost
    assert choice.load({"target": 3}, 10**8)[0] == "c"  # a hundred million: far above it
    assert choice.load({"target": 3}, 10)[0] == "c"  # and now its build is cached
