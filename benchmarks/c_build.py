"""What the C engine adds to loading a rule file: a cold build (an empty cache folder) and a
load from the cache, per rule file, beside the typed Python engine's own making.

    python benchmarks/c_build.py [--repeat 5] [FILE ...]

For each file the checked, typed program is made once; then each engine is made from it
(vbr.engines.game.make_engine): C first with `XDG_CACHE_HOME` a new empty folder (the build:
generating the C source, compiling it, sealing and loading the library), then `--repeat` times
from the cache (the source generated again, the cache's key and the library's integrity checked,
the library loaded), taking turns with the Python engine. Times are wall clock and CPU seconds
(this process's and, for the build, the compiler's); the medians of the cached loads are shown.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vbr.engines.game import load, make_engine  # noqa: E402

BOOKS = ["siatka.vbr", "cattack.vbr", "tanto-cuore-beach-volleyball.vbr", "volleyball-high.vbr"]


def timed(make) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and of its finished children) of make()."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    w, c = time.perf_counter(), time.process_time()
    make()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime - kids.ru_utime) + (after.ru_stime - kids.ru_stime)
    return time.perf_counter() - w, time.process_time() - c + child


def measure(path: Path, repeat: int) -> dict:
    program = load(path, {}, engine="python").program
    with tempfile.TemporaryDirectory() as cache:
        before = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            cold = timed(lambda: make_engine(program, "c"))
            cached, python = [], []
            for _ in range(repeat):
                cached.append(timed(lambda: make_engine(program, "c")))
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
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
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
