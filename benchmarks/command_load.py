"""A whole `vbr` command's wall and CPU time now against at an earlier commit, both measured now.

    python benchmarks/command_load.py --commit BASE [--rounds R] [--bytecode] -- sim siatka -n 10 --engine c

The earlier commit's `vbr/` and `rules/` are taken out of git (`git archive`, nothing in the
checkout changes) and the command runs as a fresh process from each tree in turn (old, new, old,
new, ...), so both go through the same stretches of a shared machine. Each run's wall clock and
its CPU time (user + system of the child) are kept; the medians are printed. A command that plays
few games (`-n 10` with a cached C build) measures what loading costs: imports, parse, check,
building the engine's game. `--bytecode` lets Python keep compiled modules (in a folder of its
own per tree), as an installed vbr does; without it nothing is cached, as when
PYTHONDONTWRITEBYTECODE is set.
"""
from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def extract(commit: str, into: Path) -> None:
    """`vbr/` and `rules/` of `commit` into the folder `into`."""
    data = subprocess.run(["git", "archive", commit, "vbr", "rules"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")


def timed(tree: Path, argv: list[str], bytecode: bool, cache: Path) -> tuple[float, float]:
    """One run of `vbr argv` from `tree`: (wall seconds, CPU seconds of the child)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "vbr", *argv], env=env, cwd=tree, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commit", required=True, help="the earlier commit")
    ap.add_argument("--rounds", type=int, default=10, help="runs of each tree (default 10)")
    ap.add_argument("--bytecode", action="store_true", help="let Python keep compiled modules")
    ap.add_argument("argv", nargs=argparse.REMAINDER, help="the vbr command, after --")
    args = ap.parse_args()
    argv = [a for a in args.argv if a != "--"] or ["sim", "siatka", "-n", "10", "--engine", "c"]
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        extract(args.commit, old)
        trees = {"old": old, "new": ROOT}
        runs: dict = {name: [] for name in trees}
        for name, tree in trees.items():  # a first run each, not kept: a cold C build, compiled modules
            timed(tree, argv, args.bytecode, Path(tmp) / f"pyc-{name}")
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(timed(tree, argv, args.bytecode, Path(tmp) / f"pyc-{name}"))
    print(f"vbr {' '.join(argv)}: median of {args.rounds} runs each, alternating"
          + (", modules compiled once" if args.bytecode else ", no compiled modules kept"))
    for name in trees:
        wall = statistics.median(w for w, _ in runs[name])
        cpu = statistics.median(c for _, c in runs[name])
        print(f"  {name} ({args.commit if name == 'old' else 'this checkout'}): {wall:.3f} s wall, {cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
