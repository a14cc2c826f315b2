"""`vbr replay` per engine: CPU µs an event of replaying a long log of each bundled book through
the typed Python engine and through the C engine (`vbr.gamelog.replay`, what the command runs,
the process's start aside), whole and with its rules loaded beforehand (the replay's play and
comparison of the events alone: the Python engine's making costs more than C's cached library).
The engines take turns in blocks in one process, so that a busy minute slows both alike; each
figure is the least of its blocks.

    python benchmarks/replay.py [--blocks 5] [--json]

Each log is a random game made long by an option (`vbr run BOOK --option ... --log`), played
once through C and written in a temporary folder; both engines draw alike, so both replay it.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vbr.cli import main as vbr  # noqa: E402
from vbr.engines.game import ENGINES, load  # noqa: E402
from vbr import gamelog  # noqa: E402
from vbr.gamelog import read_log, replay  # noqa: E402

# (book, its options that make a game long): a few thousand events each
LOGS = [("siatka", ["target=200"]), ("tanto-cuore-beach-volleyball", ["target=60"]),
        ("cattack", ["target=30"]), ("volleyball-high", ["points=3"])]


def written_logs(folder: Path) -> list[Path]:
    """One log per entry of LOGS, seed 3, random agents, played through C."""
    logs = []
    for book, options in LOGS:
        log = folder / f"{book}.jsonl"
        args = ["run", str(ROOT / "rules" / f"{book}.vbr"), "--seed", "3", "--engine", "c", "--quiet", "--log", str(log)]
        for option in options:
            args += ["--option", option]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = vbr(args)
        if code != 0:
            raise SystemExit(f"vbr {' '.join(args)} failed with exit code {code}")
        logs.append(log)
    return logs


def measure(logs: list[Path], blocks: int) -> dict:
    """Per log and engine: CPU seconds of a whole replay and of one whose rules were loaded
    beforehand (the least of the blocks); the log's events and choices."""
    out = {}
    for log in logs:
        head, events = read_log(log)
        loaded = {engine: load(head["rules"], head.get("options") or {}, engine) for engine in ENGINES}
        best = {(engine, part): float("inf") for engine in ENGINES for part in ("whole", "played")}
        for _ in range(blocks):
            for engine in ENGINES:
                best[engine, "whole"] = min(best[engine, "whole"], cpu(lambda: replay(log, engine)))
                with preloaded(loaded[engine]):
                    best[engine, "played"] = min(best[engine, "played"], cpu(lambda: replay(log, engine)))
        out[log.stem] = {"events": len(events), "choices": sum(e["t"] == "choice" for e in events),
                         **{f"{engine} {part}": s for (engine, part), s in best.items()}}
    return out


def cpu(replaying) -> float:
    """CPU seconds of `replaying()`, which must answer that the log reproduces."""
    gc.collect()
    t = time.process_time()
    done = replaying()
    spent = time.process_time() - t
    assert done.ok, done.message
    return spent


@contextlib.contextmanager
def preloaded(game):
    """While the block runs, a replay takes `game` as its rules, loaded (gamelog._load)."""
    before = gamelog._load
    gamelog._load = lambda rules, options, engine: game
    try:
        yield
    finally:
        gamelog._load = before


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        figures = measure(written_logs(Path(folder)), args.blocks)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{'':36s} {'µs an event, whole replay':>27s}   {'rules loaded before':>27s}")
    print(f"{'log':28s} {'events':>7s} {'python':>9s} {'c':>7s} {'c/python':>9s}   {'python':>9s} {'c':>7s} {'c/python':>9s}")
    for name, f in figures.items():
        row = f"{name:28s} {f['events']:7d}"
        for part in ("whole", "played"):
            us = {e: f[f"{e} {part}"] / f["events"] * 1e6 for e in ENGINES}
            row += f" {us['python']:9.1f} {us['c']:7.1f} {us['c'] / us['python']:9.2f}  "
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
