"""The build of an untrusted rule file (rule file -> typed program -> engine source -> C library)
is bounded, and what it refuses is a located error (docs/language.md, "Limits"): a long list
literal builds in time linear in its items under both typed engines and plays the same game; a
rule file whose C passes the C engine's source bound is refused at the construct that makes most
of it. Each `vbr` runs as a process of its own with a cache folder of its own (so the C build
happens); the times are only hang guards (speed is measured in benchmarks/hostile_build.py)."""
from __future__ import annotations

import os
import subprocess
import sys
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
