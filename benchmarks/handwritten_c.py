"""Siatka written by hand in C (handwritten_siatka.c) beside the same game written by hand in plain
Python (handwritten_siatka.py): random games per CPU-second, the two taking turns in blocks in one
process, so that a busy minute slows both alike. The C file is built here by the system compiler
(`cc -O2`, as a C programmer would build it) into a temporary folder and loaded with ctypes; a
call plays many games, so the figure is the C game's own speed.

Both play the same rules with uniformly random choices from different generators, so they play
other games of the same rules: the mean choices and points per game printed beside each figure
agree within their sampling error when the two are the same game.

    python benchmarks/handwritten_c.py [--blocks 5] [--games 300] [--option abilities ...] [--json]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import handwritten_siatka  # noqa: E402

OPTION_BITS = {"abilities": 1, "block_marker": 2, "rotation": 4}


def build(folder: Path) -> ctypes.CDLL:
    """handwritten_siatka.c as a shared library in `folder`, by the system's C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("handwritten_c.py: no C compiler (cc or gcc) on PATH")
    out = folder / "handwritten_siatka.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(out), str(HERE / "handwritten_siatka.c")], check=True)
    lib = ctypes.CDLL(str(out))
    lib.play_many.argtypes = [ctypes.c_uint64, ctypes.c_long, ctypes.c_int, ctypes.POINTER(ctypes.c_long)]
    lib.play_many.restype = None
    return lib


def c_block(lib, seed: int, n: int, bits: int) -> list[int]:
    """[wins 0, wins 1, points 0, points 1, choices] of n games in C."""
    totals = (ctypes.c_long * 5)()
    lib.play_many(seed, n, bits, totals)
    return list(totals)


def python_block(seed: int, n: int, options: dict) -> list[int]:
    totals = [0] * 5
    for i in range(n):
        winner, score, made = handwritten_siatka.play_game(seed + i, **options)
        totals[winner] += 1
        totals[2] += score[0]
        totals[3] += score[1]
        totals[4] += made
    return totals


def measure(blocks: int, games: int, names: list[str]) -> dict:
    options = {name: True for name in names}
    bits = sum(OPTION_BITS[name] for name in names)
    c_games = games * 200
    rows = {"plain Python": {"games": 0, "cpu": 0.0, "totals": [0] * 5},
            "C": {"games": 0, "cpu": 0.0, "totals": [0] * 5}}
    with tempfile.TemporaryDirectory() as folder:
        lib = build(Path(folder))
        for b in range(blocks):
            for name, run, n in (("plain Python", lambda s, n: python_block(s, n, options), games),
                                 ("C", lambda s, n: c_block(lib, s, n, bits), c_games)):
                start = time.process_time()
                totals = run(b * c_games, n)
                rows[name]["cpu"] += time.process_time() - start
                rows[name]["games"] += n
                rows[name]["totals"] = [a + x for a, x in zip(rows[name]["totals"], totals)]
    out = {}
    for name, r in rows.items():
        g = r["games"]
        out[name] = {"games": g, "games_per_cpu_s": round(g / r["cpu"], 1),
                     "mean_choices": round(r["totals"][4] / g, 2),
                     "mean_points": [round(r["totals"][2] / g, 3), round(r["totals"][3] / g, 3)]}
    out["C / plain Python"] = round(out["C"]["games_per_cpu_s"] / out["plain Python"]["games_per_cpu_s"], 1)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--games", type=int, default=300, help="plain Python games per block (C plays 200 times as many)")
    ap.add_argument("--option", action="append", choices=sorted(OPTION_BITS), default=[])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    result = measure(args.blocks, args.games, args.option)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return
    for name in ("plain Python", "C"):
        r = result[name]
        print(f"{name:13} {r['games_per_cpu_s']:>12,.0f} games/CPU-s   mean choices {r['mean_choices']:6.2f}   "
              f"mean points {r['mean_points'][0]:.3f} / {r['mean_points'][1]:.3f}   ({r['games']} games)")
    print(f"C / plain Python: {result['C / plain Python']}x")


if __name__ == "__main__":
    main()
