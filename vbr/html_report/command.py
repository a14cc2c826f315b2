"""`vbr report FILE [--option ...] [-n N] [--agents ...] [--seed S] [--workers W] -o report.html`.

vbr/cli.py wires it in with `add_parser(subparsers)`; the parser's default `func` is `run`.
Everything that can be checked is checked before a game is played: the output's name and folder
(by creating and removing a file there), the options, the agents, `--expand` and `--labels`. The
page is written beside its name and renamed over it, so a failure leaves no partial file.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from vbr.atomic_file import can_create_in, no_folder, write_atomic
from vbr.cli_common import add_engine_args, check_not_rule_file, file_name, integer, parse_options, played_game, seed
from vbr.errors import UsageError

SUFFIXES = (".html", ".htm")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "report", help="one self-contained HTML page: diagram, source, simulation, rulebook trace",
        description="Write one HTML file (no network needed: everything inline) with the turn-flow diagram "
                    "(hover an edge for its condition), every phase linked to its highlighted source lines, "
                    "a simulation's balance metrics with their 95% CIs and plots, the rulebook trace "
                    "(passage → rule lines → scenarios), the assumptions and the options used.")
    p.add_argument("file", help="a .vbr rule file, or a bundled rule file's name (e.g. siatka)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.html", type=file_name, help="the page to write")
    p.add_argument("--option", action="append", metavar="NAME[=VALUE]", help="set a rule option (repeatable)")
    p.add_argument("-n", type=integer, default=200, help="games to simulate (default 200)")
    p.add_argument("--agents", default="random", help="one agent for all seats, or one per seat (default random)")
    p.add_argument("--seed", type=seed, default=0, metavar="S", help="the run's seed (default 0)")
    p.add_argument("--workers", type=integer, metavar="W",
                   help="play in W processes (default: one per core with an mcts agent, else 1)")
    p.add_argument("--labels", choices=("short", "full", "none"), default="short",
                   help="the diagram's edge labels (default short; the full condition is always on hover)")
    p.add_argument("--expand", action="append", default=[], metavar="PHASE",
                   help="list the choice points inside PHASE in the diagram (repeatable)")
    add_engine_args(p)
    p.set_defaults(func=run)
    return p


def check_output(path: str) -> Path:
    """A file we can write: an .html name, in a folder that exists and takes a new file."""
    out = Path(path)
    if out.suffix.lower() not in SUFFIXES:
        raise UsageError(f"-o {path}: give a file ending in .html")
    if out.is_dir():
        raise UsageError(f"-o {path}: is a directory")
    if not out.parent.is_dir():
        raise UsageError(f"-o {path}: {no_folder(out.parent)}")
    why = can_create_in(out.parent)
    if why is not None:
        raise UsageError(f"-o {path}: cannot write in {out.parent}: {why}")
    return out


def run(args) -> int:
    """0 when the page is written; 1 when Graphviz's `dot`, which draws its diagram, is missing
    or fails (said before any game when missing); a usage error or a broken rule file is
    reported by `vbr.cli`'s guard."""
    import sys
    from vbr.analysis.commands import check_count
    from vbr.sim import check_workers
    from vbr.html_report.build import build_report
    from vbr.terminal import clean
    from vbr.visualizer.render import RenderError, require_dot
    out = check_output(args.output)
    check_not_rule_file(out, args.file)
    check_count(args.n)
    if args.workers is None:
        from vbr.backends import default_workers
        args.workers = default_workers(args.agents)
    check_workers(args.workers)
    options = parse_options(args.option or [])

    def load():  # the game through the engine `--engine` asks for (auto: the one it picks), and only that one
        game = played_game(args, args.file, options)
        return args.engine, game
    try:
        require_dot()
        text = build_report(args.file, options, n=args.n, agents=args.agents, seed=args.seed, workers=args.workers,
                            labels=args.labels, expand=args.expand, engine=load)
    except RenderError as exc:
        print(clean(f"vbr: error: {exc}"), file=sys.stderr)
        return 1
    write_atomic(out, text)
    print(f"wrote {out}")
    return 0
