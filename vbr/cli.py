"""The `vbr` command: a thin layer over the API. Every failure is a located message, never a traceback."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vbr.errors import UsageError, VbrError


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "graph":
        from vbr.visualizer.command import main as graph_main
        return _guard(lambda: graph_main(argv[1:]))
    args = _parser().parse_args(argv)
    if not getattr(args, "func", None):
        _parser().print_help()
        return 2
    return _guard(lambda: args.func(args))


def _guard(fn) -> int:
    try:
        return fn()
    except VbrError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except UsageError as exc:
        print(f"vbr: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `vbr run ... | head`: the reader has seen enough
        _silence_stdout()
        return 0
    except (ValueError, OSError) as exc:
        print(f"vbr: error: {exc}", file=sys.stderr)
        return 1
    except _game_failed() as exc:
        print(exc.describe(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("vbr: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the last line of defence: say what broke, without a traceback
        print(f"vbr: internal error: {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return 3


def _game_failed():
    from vbr.sim import GameFailed
    return GameFailed


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so Python's exit flush stays quiet."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def parse_options(items: list[str] | None) -> dict:
    out: dict = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not name.strip():
            raise UsageError(f"--option {item!r}: expected NAME or NAME=VALUE")
        out[name.strip()] = value if eq else True
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vbr", description="Rules language for volleyball tabletop games.")
    sub = p.add_subparsers(metavar="COMMAND")

    c = sub.add_parser("check", help="check rule files (and scenario files)")
    c.add_argument("files", nargs="+")
    c.set_defaults(func=cmd_check)

    def game_args(q, file=True):
        if file:
            q.add_argument("file", help="a .vbr file, or a bundled rule file's name (e.g. siatka)")
        q.add_argument("--seed", type=int, default=0, help="the seed that fixes every roll, shuffle and agent's pick (default 0)")
        q.add_argument("--agents", default="random", help=_agents_help())
        q.add_argument("--option", action="append", metavar="NAME[=VALUE]", help="set a rule option (repeatable)")

    def many_args(q, out_formats=".jsonl or .csv"):
        q.add_argument("-n", type=int, default=100, help="games per run (default 100)")
        q.add_argument("--workers", type=int, help="processes to play in (default: 1; on Ray, every CPU it has)")
        q.add_argument("--backend", default="local", choices=["local", "ray"],
                       help="where games are played: local processes, or Ray (pip install 'vbr[ray]')")
        q.add_argument("--ray-address", metavar="auto|HOST:PORT", help="a running Ray cluster (default: start a local Ray)")
        q.add_argument("--json", action="store_true", help="print one JSON object")
        q.add_argument("--out", metavar="FILE", help=f"write the results ({out_formats})")
        q.add_argument("--plot", metavar="DIR", help="write plots (PNG and SVG) into DIR")

    r = sub.add_parser("run", help="play one game and print it")
    game_args(r)
    r.add_argument("--log", help="write the game's events as JSON lines")
    r.add_argument("--quiet", action="store_true", help="only the result")
    r.set_defaults(func=cmd_run)

    s = sub.add_parser("sim", help="play many games and report balance metrics")
    game_args(s)
    many_args(s, "one row per game: .jsonl or .csv")
    s.set_defaults(func=cmd_sim, command="sim")

    w = sub.add_parser("sweep", help="play every combination of some options' values, one row each")
    game_args(w)
    w.add_argument("--grid", action="append", metavar="NAME=V1,V2,...", help="an option and the values to sweep (repeatable)")
    many_args(w, "one row per combination: .csv, .jsonl or .json")
    w.set_defaults(func=cmd_sweep, command="sweep")

    cp = sub.add_parser("compare", help="a variant against a base: every metric side by side, with the difference's CI")
    cp.add_argument("base", help="the base rule file")
    cp.add_argument("variant", nargs="?", help="the variant rule file (default: the base file, under --variant-option)")
    game_args(cp, file=False)
    cp.add_argument("--base-option", action="append", metavar="NAME[=VALUE]", help="an option for the base only")
    cp.add_argument("--variant-option", action="append", metavar="NAME[=VALUE]", help="an option for the variant only")
    many_args(cp, "one row per metric: .jsonl or .csv")
    cp.set_defaults(func=cmd_compare, command="compare")

    rp = sub.add_parser("replay", help="re-run a log and say whether it reproduces exactly")
    rp.add_argument("log")
    rp.set_defaults(func=cmd_replay)

    t = sub.add_parser("test", help="run scenario tests written in text")
    t.add_argument("files", nargs="+")
    t.set_defaults(func=cmd_test)

    f = sub.add_parser("fmt", help="print a file in canonical form")
    f.add_argument("file")
    f.add_argument("--check", action="store_true", help="exit 1 if the file is not in canonical form")
    f.set_defaults(func=cmd_fmt)

    tr = sub.add_parser("trace", help="book passage → rule-file lines → scenario tests, as a Markdown table")
    tr.add_argument("file", help="a rule file")
    tr.add_argument("--tests", help="its scenario file (default: rules/tests/NAME.vbr beside it)")
    tr.add_argument("--update", metavar="DOC", help="rewrite the generated part of a docs page instead of printing")
    tr.set_defaults(func=cmd_trace)

    sub.add_parser("graph", help="draw the turn-flow diagram (see `vbr graph --help`)")
    return p


# ---------------------------------------------------------------------------------- commands
def cmd_check(args) -> int:
    from vbr.grammar import ast as A
    from vbr.interpreter.game import load
    from vbr.loader import parse_file, resolve
    from vbr.scenario import check_file
    failed = 0
    for name in args.files:
        path = resolve(name)
        try:
            tree, _ = parse_file(path)
            if isinstance(tree, A.TestFile):
                check_file(path)
            else:
                game = load(path, lower=False)  # the diagnostics only: no fast form to build
                for w in _warnings(game):
                    print(w.render(game.rules.sources), file=sys.stderr)
            print(f"{path}: ok")
        except VbrError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def _warnings(game):
    try:
        from vbr.visualizer.findings import findings
    except ImportError:
        return []
    return findings(game.program.model)


def _load(args):
    from vbr.interpreter.game import load
    from vbr.play import parse_agents
    game = load(args.file, parse_options(args.option))
    return game, parse_agents(args.agents, game.seats)


def cmd_run(args) -> int:
    from vbr.gamelog import header, write_log
    from vbr.play import play_game
    from vbr.report import render_events
    game, agents = _load(args)
    if not args.quiet:
        print(f"{game.title}: seed {args.seed}, agents {' | '.join(agents)}")
    partial = []
    try:
        result = play_game(game, args.seed, agents, record=True, log_sink=partial)
    except VbrError:
        # show the play up to the failure: that is what a rule author needs to see
        for line in render_events(partial[0].log if partial else []):
            print(line)
        raise
    if not args.quiet:
        for line in render_events(result.state.log):
            print(line)
    print(f"result: {result.state.outcome()} after {result.choices} choices")
    if args.log:
        write_log(Path(args.log), header(game, args.seed, agents), result.state.log)
        print(f"log written to {args.log}")
    return 0


def cmd_sim(args) -> int:
    from vbr.analysis.commands import cmd_sim as run_sim
    game, agents = _load(args)
    return run_sim(args, game, agents)


def cmd_sweep(args) -> int:
    from vbr.analysis.commands import cmd_sweep as run_sweep
    return run_sweep(args, args.file, parse_options(args.option), args.agents)


def cmd_compare(args) -> int:
    from vbr.analysis.commands import cmd_compare as run_compare
    from vbr.analysis.commands import load_variant
    from vbr.play import parse_agents
    shared = parse_options(args.option)
    a_opts = {**shared, **parse_options(args.base_option)}
    b_opts = {**shared, **parse_options(args.variant_option)}
    b_file = args.variant or args.base
    if b_file == args.base and a_opts == b_opts:
        raise UsageError("compare needs two different things: a variant file, or --variant-option/--base-option")
    base = load_variant(args.base, a_opts, _label(args.base, a_opts, args.variant))
    variant = load_variant(b_file, b_opts, _label(b_file, b_opts, args.variant))
    return run_compare(args, base, variant, parse_agents(args.agents, base.game.seats))


def _label(file, options: dict, two_files) -> str:
    shown = ", ".join(f"{k}={v}" if v is not True else k for k, v in options.items())
    if two_files:
        return f"{Path(file).stem}" + (f" ({shown})" if shown else "")
    return shown or "as printed"


def _agents_help() -> str:
    try:
        from vbr.agents.spec import describe_agents
        return "one agent for all seats, or one per seat, e.g. mcts:iterations=200,random. " + describe_agents()
    except ImportError:
        return "one agent for all seats, or one per seat: random,greedy"


def cmd_replay(args) -> int:
    from vbr.gamelog import replay
    r = replay(Path(args.log))
    print(r.message, file=sys.stdout if r.ok else sys.stderr)
    return 0 if r.ok else 1


def cmd_test(args) -> int:
    from vbr.loader import resolve
    from vbr.scenario import run_file
    passed = failed = 0
    for name in args.files:
        path = resolve(name)
        try:
            results = run_file(path)
        except VbrError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
            continue
        for r in results:
            if r.ok:
                passed += 1
                print(f"PASS {path}: {r.title}")
            else:
                failed += 1
                print(f"FAIL {r.span}: {r.title}\n  {r.message}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_fmt(args) -> int:
    from vbr.grammar.printer import program
    from vbr.loader import parse_file, resolve
    path = resolve(args.file)
    tree, source = parse_file(path)
    text = program(tree)
    if args.check:
        if text != source:
            print(f"{path}: not in canonical form", file=sys.stderr)
            return 1
        print(f"{path}: canonical")
        return 0
    sys.stdout.write(text)
    return 0


def cmd_trace(args) -> int:
    from vbr.loader import resolve
    from vbr.trace import markdown
    path = resolve(args.file)
    tests = Path(args.tests) if args.tests else path.parent / "tests" / path.name
    tests = tests if tests.is_file() else None
    if args.update:
        from vbr.trace import update_doc
        changed = update_doc(Path(args.update), path, tests)
        print(f"{args.update}: {'updated' if changed else 'up to date'}")
        return 0
    sys.stdout.write(markdown(path, tests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
