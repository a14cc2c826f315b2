"""`vbr check` of every bundled rule file, each run a fresh process (Python's start included).

For each file: the median wall time and the median CPU time (user + system of the child, from
`resource.getrusage(RUSAGE_CHILDREN)`) of N runs; CPU time is the steadier figure on a shared
machine. `python -c pass` is measured the same way, as the floor no command can go below.

Bytecode is written to a directory of this benchmark's own (`PYTHONPYCACHEPREFIX`), and one
unmeasured run per file goes first, so the runs measure a warm `vbr check`, as a user sees it:
without bytecode every run would pay for compiling vbr, pydantic, Lark and NetworkX again.

    python benchmarks/check.py [--runs N] [--root DIR] [--json]

`--root DIR` measures the vbr package in DIR instead of this checkout (for example an older
commit unpacked with `git archive COMMIT | tar -x -C DIR`), with this checkout's Python.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(argv: list[str], runs: int, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs` runs of argv (after one unmeasured run)."""
    walls, cpus = [], []
    for i in range(runs + 1):
        c0, t0 = _cpu(), time.perf_counter()
        done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        t1, c1 = time.perf_counter(), _cpu()
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr.decode(errors='replace')}")
        if i:
            walls.append(t1 - t0)
            cpus.append(c1 - c0)
    return statistics.median(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9, help="measured runs per file (default 9)")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose vbr is measured")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    files = sorted((root / "rules").glob("*.vbr"))
    with tempfile.TemporaryDirectory(prefix="vbr-check-bench-") as pyc:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        env.update(PYTHONPYCACHEPREFIX=pyc, PYTHONPATH=str(root))
        rows = {"python -c pass": measure([sys.executable, "-c", "pass"], args.runs, env, root)}
        for f in files:
            rows[f"rules/{f.name}"] = measure([sys.executable, "-m", "vbr", "check", str(f)], args.runs, env, root)
    if args.json:
        print(json.dumps({"runs": args.runs, "root": str(root),
                          "median_s": {k: {"wall": round(w, 4), "cpu": round(c, 4)} for k, (w, c) in rows.items()}},
                         indent=1))
        return 0
    names = {k: k if k.startswith("python") else f"vbr check {k}" for k in rows}
    width = max(map(len, names.values()))
    print(f"median of {args.runs} runs, {root}")
    print(f"| {'command':<{width}} | wall ms | CPU ms |")
    print(f"|{'-' * (width + 2)}|--------:|-------:|")
    for k, (w, c) in rows.items():
        print(f"| {names[k]:<{width}} | {w * 1000:7.0f} | {c * 1000:6.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
