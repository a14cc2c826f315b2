"""`vbr graph FILE`: draw a rule file's turn flow, optionally with counts from random games.

Without `-o` the DOT text goes to stdout, to pipe into Graphviz or keep under version control.
The flow's findings (unreachable phases, dead ends, automatic loops) go to stderr as warnings,
since a diagram is often the moment someone looks at the flow as a whole.
"""
from __future__ import annotations

import argparse
import random
import sys

import networkx as nx

import vbr
from vbr.checker import Model, build_model
from vbr.cli import SEED_MAX, seed
from vbr.errors import Span, UsageError, VbrError, VbrRuntimeError
from vbr.interpreter.game import Game
from vbr.terminal import clean
from vbr.visualizer.findings import findings
from vbr.visualizer.graph import END, build_graph
from vbr.visualizer.render import Overlay, RenderError, check_output, render, to_dot


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage or the help
        return int(exc.code or 0)
    try:
        if args.output is not None:
            check_output(args.output)
        if args.sim and args.seed + args.sim - 1 > SEED_MAX:
            raise UsageError(f"--seed {args.seed} --sim {args.sim}: the last game's seed would pass {SEED_MAX} (2**63 - 1)")
        options = parse_options(args.option)
        game, model, graph = load_graph(args.file, options)
        _warn(model, graph)
        overlay = simulate(game, args.sim, args.seed) if args.sim else None
        text = to_dot(graph, overlay)
        if args.output is None:
            sys.stdout.write(text)  # control characters from the rule file are escaped by to_dot
        else:
            render(text, args.output)
    except VbrError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except RenderError as exc:
        print(clean(f"vbr graph: error: {exc}"), file=sys.stderr)
        return 1
    except UsageError as exc:
        print(clean(f"vbr graph: error: {exc}"), file=sys.stderr)
        return 2
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vbr graph", description="Draw a rule file's turn flow.")
    p.add_argument("file", help="a .vbr rule file, or a bundled rule file's name")
    p.add_argument("-o", "--output", help="write OUT.svg, .png or .pdf (drawn by Graphviz) or .dot; "
                                          "without it, DOT text goes to stdout")
    p.add_argument("--option", action="append", default=[], metavar="NAME[=VALUE]",
                   help="set a rule option (NAME alone means true); repeatable")
    p.add_argument("--sim", type=_count, default=0, metavar="N",
                   help="play N random games and draw how often each step was taken")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help="games use seeds S, S+1, ...: a whole number from 0 to 2**63 - 1 (default 0)")
    return p


def _count(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n} is not a number of games")
    return n


def parse_options(given: list[str]) -> dict[str, object]:
    """`NAME` means true; `NAME=VALUE` stays a string, which the checker converts and checks."""
    out: dict[str, object] = {}
    for item in given:
        name, eq, value = item.partition("=")
        if not name.strip():
            raise UsageError(f"--option {item!r}: expected NAME or NAME=VALUE")
        out[name.strip()] = value.strip() if eq else True
    return out


def load_graph(path: str, options: dict[str, object]) -> tuple[Game, Model, nx.DiGraph]:
    """Load and fully check the rules (a broken file is reported, not drawn), then graph them."""
    game = vbr.load(path, options)
    model = build_model(game.rules, options)
    return game, model, build_graph(model)


def _warn(model: Model, graph: nx.DiGraph) -> None:
    for d in findings(model, graph):
        print(d.render(model.rules.sources), file=sys.stderr)


def simulate(game: Game, n: int, seed: int = 0) -> Overlay:
    """The summed phase-to-phase counts of n random games (seeds seed, seed+1, ...), each game's
    last phase counted once more as the step to "game over"."""
    total: Overlay = {}
    for i in range(n):
        for key, count in play_random(game, seed + i).items():
            total[key] = total.get(key, 0) + count
    return total


def play_random(game: Game, seed: int) -> Overlay:
    state = game.new_state(seed, trace=True)
    rng = random.Random(seed)
    while not state.is_terminal():
        actions = state.legal_actions()
        if not actions:
            raise VbrRuntimeError.at(Span(file=str(game.path)), f"seed {seed}: play stopped in phase "
                                     f"`{state.phase}` with nothing to choose and no end")
        state.apply_index(rng.randrange(len(actions)))
    trace = dict(state.trace)
    trace[(state.phase, END)] = trace.get((state.phase, END), 0) + 1
    return trace
