"""`vbr graph FILE`: draw a rule file's turn flow, optionally with counts from random games.

Without `-o` the DOT text goes to stdout, to pipe into Graphviz or keep under version control.
The flow's findings (unreachable phases, dead ends, automatic loops) go to stderr as warnings,
since a diagram is often the moment someone looks at the flow as a whole. vbr/cli.py wires the
command in with `add_parser(subparsers)`; the parser's default `func` is `run`. The module is
small at the top: what drawing needs is imported when it draws.
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from vbr.cli_common import (MAX_GAMES, add_engine_args, check_not_rule_file, file_name, parse_options, played_game,
                             seat_agents, seed)
from vbr.number_text import whole_number
from vbr.errors import UsageError

if TYPE_CHECKING:
    import networkx as nx

    from vbr.checker import Model
    from vbr.visualizer.render import Overlay


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("graph", help="draw the turn-flow diagram",
                              description="Draw a rule file's turn flow.")
    p.add_argument("file", help="a .vbr rule file, or a bundled rule file's name")
    p.add_argument("-o", "--output", type=file_name, help="write OUT.svg, .png or .pdf (drawn by Graphviz) or .dot; "
                                          "without it, DOT text goes to stdout")
    p.add_argument("--option", action="append", default=[], metavar="NAME[=VALUE]",
                   help="set a rule option (NAME alone means true); repeatable")
    p.add_argument("--labels", choices=("short", "full", "none"), default="short",
                   help="edge labels: short (the transition's name, or its condition simplified, at most 4 lines; "
                        "the default), full (the whole condition) or none; the full condition is always the tooltip")
    p.add_argument("--expand", action="append", default=[], metavar="PHASE",
                   help="list the choice points play meets inside PHASE (or a procedure drawn as a node), "
                        "procedures included; repeatable")
    p.add_argument("--sim", type=_count, default=None, metavar="N",
                   help="play N games and draw each step's share of the exits from its node, and each node's visits per game")
    p.add_argument("--agents", default=None,
                   help="with --sim: the agents, one for all seats or one per seat (default: uniformly random choices)")
    p.add_argument("--workers", type=_workers, default=None, metavar="W",
                   help="with --sim: play in W processes at once (default: one per core with an mcts agent, else 1); "
                        "the counts do not depend on it")
    p.add_argument("--seed", type=seed, default=None, metavar="S",
                   help="with --sim: the run's seed, as for `vbr sim`: the same games `vbr sim --seed S` plays "
                        "(a whole number from 0 to 2**63 - 1, default 0)")
    add_engine_args(p)  # with --sim: what plays its games
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    """0 when the diagram is written; a broken rule file is reported by `vbr.cli`'s guard (1),
    as is a usage error (2). 1 when Graphviz cannot draw it."""
    from vbr.terminal import clean
    from vbr.visualizer.graph import build_graph
    from vbr.visualizer.render import RenderError, check_output, render, require_dot, to_dot
    check_sim_flags(args)
    try:
        if args.output is not None:
            check_output(args.output)
            check_not_rule_file(args.output, args.file)
            require_dot(args.output)
        options = parse_options(args.option)
        game = played_game(args, args.file, options) if args.sim else None  # the game --sim plays
        game, model, graph = load_graph(args.file, options, fold=bool(args.option or args.sim), game=game)
        _warn(model, build_graph(model))
        check_expand(graph, args.expand)
        agents = seat_agents(args, game, args.agents) if args.sim else None
        overlay = simulate(game, args.sim, args.seed or 0, agents, args.workers or _default_workers(args), args.engine) if args.sim else None
        text = to_dot(graph, overlay, labels=args.labels, games=args.sim or None,
                      expand=expand_names(graph, args.expand))
        if args.output is None:
            sys.stdout.write(text)  # control characters from the rule file are escaped by to_dot
        else:
            render(text, args.output)
    except RenderError as exc:
        print(clean(f"vbr: error: {exc}"), file=sys.stderr)
        return 1
    return 0


def check_sim_flags(args) -> None:
    """--agents, --workers, --seed, --engine and --native say how the --sim games are played:
    without --sim they would change nothing, so giving one is a UsageError rather than ignored."""
    if args.sim:
        return
    why = "--sim 0 plays no game" if args.sim == 0 else "without --sim no game is played"
    for flag in ("--agents", "--workers", "--seed", "--engine"):
        if getattr(args, flag[2:]) is not None:
            raise UsageError(f"{flag} is for --sim N: {why}")
    if args.native:
        raise UsageError(f"--native is for --sim N: {why}")


def _default_workers(args) -> int:
    from vbr.backends import default_workers
    return default_workers(getattr(args, "agents", None))


def _workers(text: str) -> int:
    from vbr.sim import MAX_WORKERS
    try:
        n = whole_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers") from None
    if not 1 <= n <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"{n}: give from 1 to {MAX_WORKERS} workers")
    return n


def check_expand(graph: nx.DiGraph, names: list[str]) -> None:
    """Every `--expand` names a phase, or a procedure the diagram draws as its own node."""
    known = [n for n, k in graph.nodes(data="kind") if k in ("phase", "proc")]
    for name in names:
        if name not in known and f"{name}()" not in known:
            phases = ", ".join(n for n in known if not n.endswith("()"))
            procs = ", ".join(n for n in known if n.endswith("()"))
            raise UsageError(f"--expand {name}: no phase or procedure node of that name (phases: {phases}"
                             + (f"; procedures drawn as nodes: {procs}" if procs else "") + ")")


def expand_names(graph: nx.DiGraph, names: list[str]) -> list[str]:
    return [n if n in graph else f"{n}()" for n in names]


def _count(text: str) -> int:
    """`--sim N`: 0 (no games) to MAX_GAMES, as `-n` of the commands that play runs."""
    try:
        n = whole_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of games") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n} is not a number of games")
    if n > MAX_GAMES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_GAMES}, not {n}")
    return n


def load_graph(path: str, options: dict[str, object], fold: bool = False, game=None) -> tuple[object, Model, nx.DiGraph]:
    """Fully check the rules (a broken file is reported, not drawn), then graph them for drawing:
    procedures that jump as nodes of their own, and with `fold`, what the options rule out left
    out. `game`: a game already loaded from them under `options` (what `--sim` plays; loading it
    checked them), handed back; without it the rules are only checked, and None is handed back."""
    from vbr.checker import build_model
    from vbr.engines.game import checked_model
    from vbr.visualizer.graph import build_graph
    rules = game.rules if game is not None else checked_model(path, options).rules
    model = build_model(rules, options)
    return game, model, build_graph(model, procs=True, fold=fold)


def _warn(model: Model, graph: nx.DiGraph) -> None:
    from vbr.visualizer.findings import findings
    for d in findings(model):
        print(d.render(model.rules.sources), file=sys.stderr)


def simulate(game, n: int, seed: int = 0, agents: list[str] | None = None, workers: int = 1,
             engine: str = "python") -> Overlay:
    """The summed steps along the drawn nodes (vbr.flow_steps) of the n games of a run with
    `seed`: the games `vbr sim` plays (game i is `vbr run --seed game_seed(seed, i)`), with
    `agents`, or `random` in every seat, through `engine`. With workers > 1 the games are shared
    among processes; the counts are the same."""
    from vbr.backends import LocalBackend
    from vbr.sim import RunSpec, run
    spec = RunSpec.of(game.path, game.options, seed, agents or ["random"] * game.seats, n, trace=True, engine=engine)
    result = run(spec, LocalBackend(workers))
    if result.interrupted:
        raise KeyboardInterrupt
    return overlay_of(result.trials)


def overlay_of(trials) -> Overlay:
    """The steps of a traced run's games (`vbr.sim.TracedTrial`) summed, and their entries into
    each node."""
    from vbr.flow_steps import FlowCounts
    total = FlowCounts()
    for t in trials:
        total.add(t.steps, t.entered)
    return total
