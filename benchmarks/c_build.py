"""What the C engine adds to loading a rule file: a cold build (an empty cache folder) and a
load from the cache, per rule file, beside the typed Python engine's own making.

    python benchmarks/c_build.py [--repeat 5] [FILE ...]

For each file the checked, typed program is made once; then each engine is made from it
(vbr.engines.game.make_engine, with the file's load key as vbr.engines.game.load gives it): C
first with `XDG_CACHE_HOME` a new empty folder (the build: generating the C source, compiling
it, sealing and loading the library, leaving the load's reference), then `--repeat` times from
the cache, each in a new process (the load's reference and the library's integrity checked, the
library loaded: what a second `vbr` command pays), taking turns with the Python engine made in
this process. Times are wall clock and CPU seconds (the process's and, for the build, the
compiler's); the medians of the cached loads are shown.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vbr.engines.game import load, make_engine  # noqa: E402
from vbr.engines.load_key import load_key  # noqa: E402
from vbr.loader import load_rules  # noqa: E402

BOOKS = ["siatka.vbr", "cattack.vbr", "tanto-cuore-beach-volleyball.vbr", "volleyball-high.vbr"]


def timed(make) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and of its finished children) of make()."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    w, c = time.perf_counter(), time.process_time()
    make()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime - kids.ru_utime) + (after.ru_stime - kids.ru_stime)
    return time.perf_counter() - w, time.process_time() - c + child


def made(path: Path, engine: str) -> tuple[float, float]:
    """(wall, CPU) of making `engine` for the file's program, its load key computed as load does
    and the engine's module imported."""
    program, sources = load(path, {}, engine="python").program, load_rules(path).sources

    def make():
        import vbr.engines.c_engine  # noqa: F401
        make_engine(program, engine, key=load_key(sources, {}))
    return timed(make)


def in_new_process(path: Path) -> tuple[float, float]:
    """A new process's making of the C engine, its imports included, with Python's bytecode
    cache on as an installed vbr has it (a first process writes it: `measure` runs one first)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, __file__, "--child", str(path)], check=True, env=env,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def measure(path: Path, repeat: int) -> dict:
    program = load(path, {}, engine="python").program
    with tempfile.TemporaryDirectory() as cache:
        before = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            cold = made(path, "c")
            in_new_process(path)  # Python's bytecode cache written
            cached, python = [], []
            for _ in range(repeat):
                cached.append(in_new_process(path))
                python.append(timed(lambda: make_engine(program, "python")))
        finally:
            if before is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = before
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    return {"cold build wall": cold[0], "cold build cpu": cold[1], "cached wall": med(cached, 0),
            "cached cpu": med(cached, 1), "python engine wall": med(python, 0), "python engine cpu": med(python, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    if args.child:
        print(*made(args.child, "c"))
        return 0
    files = args.files or [ROOT / "rules" / b for b in BOOKS]
    print(f"{'seconds':34s}{'cold build':>18s}{'cached load':>18s}{'Python engine':>18s}")
    print(f"{'':34s}" + "      wall     cpu" * 3)
    for path in files:
        r = measure(path, args.repeat)
        print(f"{path.name:34s}" + "".join(f"{r[k + ' wall']:10.3f}{r[k + ' cpu']:8.3f}"
                                          for k in ("cold build", "cached", "python engine")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
