"""The `vbr` command: a thin layer over the API. Every failure is a located message, never a traceback."""
from __future__ import annotations

import argparse
import sys
import textwrap
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from vbr.cli_common import (HelpFormatter, add_engine_args, asked_engine, check_agents, check_log_target, engine_type,
                             decimal, file_error, file_name, integer, note, parse_options, played_game, seat_agents, seed,
                             version)
from vbr.errors import EngineUnavailable, UsageError, VbrError
from vbr.terminal import SafeStream, clean, write_document


# Short commands whose work the file limits bound: no cyclic garbage collection while they run,
# and none of their objects collected at exit (the collections cost more than the parse).
_NO_GC = {"check", "fmt", "trace"}


def main(argv: list[str] | None = None) -> int:
    """`argv=None`: the process is this command (the console script, `python -m vbr`); a caller
    that passes its own argv keeps its garbage collector as it was."""
    whole_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if whole_process and argv and argv[0] in _NO_GC:
        import gc
        gc.disable()
        try:
            return _main(argv)
        finally:
            gc.freeze()
            gc.enable()
    return _main(argv)


def _main(argv: list[str]) -> int:
    """The command, with stdout and stderr passed through `SafeStream` while it runs: a last
    guard, for output is cleaned where it is made."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        return _dispatch(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _dispatch(argv: list[str]) -> int:
    parser = _parser()
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    if not argv[0].startswith("-") and argv[0] not in parser.command_names:
        return _unknown_command(parser, argv[0])
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the command's own parser, so the usage shown is the command's
            getattr(args, "parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse has printed the usage, the help or the version
        return exc.code if isinstance(exc.code, int) else 0
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    return _guard(lambda: args.func(args))


def _guard(fn) -> int:
    """`fn`'s exit code, or the one of the problem it raised, said in a line. SIGTERM and SIGHUP
    stop it as Ctrl-C does (vbr.stop_signals) wherever they land, also between the runs of a
    command that plays several (a sweep's combinations, importance's words): exit 128 + the
    signal's number, never a death by the signal that leaves a pool or a file half done."""
    from vbr import stop_signals
    try:
        with stop_signals.as_ctrl_c():
            return fn()
    except VbrError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except UsageError as exc:
        print(clean(f"vbr: error: {exc}"), file=sys.stderr)
        return 2
    except EngineUnavailable as exc:
        print(clean(exc.render()), file=sys.stderr)
        return 1
    except BrokenPipeError as exc:  # `vbr run ... | head`: the reader has seen enough
        if _stdout_closed():
            _silence_stdout()
            return _broken_pipe_code()
        print(clean(f"vbr: error: {file_error(exc)}"), file=sys.stderr)
        return 1
    except OSError as exc:
        print(clean(f"vbr: error: {file_error(exc)}"), file=sys.stderr)
        return 1
    except ValueError as exc:
        print(clean(f"vbr: error: {exc}"), file=sys.stderr)
        return 1
    except _game_failed() as exc:
        print(clean(exc.describe()), file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C, or a SIGTERM/SIGHUP where vbr tidies up (stop_signals)
        from vbr.stop_signals import exit_code
        print("vbr: interrupted", file=sys.stderr)
        return exit_code(exc)
    except Exception as exc:  # the last line of defence: say what broke, without a traceback
        print(clean(f"vbr: internal error: {type(exc).__name__}: {exc} (please report it)"), file=sys.stderr)
        return 3


def _game_failed():
    from vbr.sim import GameFailed
    return GameFailed


def _stdout_closed() -> bool:
    """Whether stdout is a pipe its reader has closed: only that broken pipe is a quiet end; any
    other (a worker's, a connection's) is an error. Where poll is missing, every broken pipe is
    taken for stdout's."""
    import select
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # no file under stdout: the pipe was another's
        return False
    if not hasattr(select, "poll"):
        return True
    poll = select.poll()
    poll.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poll.poll(0))


def _broken_pipe_code() -> int:
    """The exit code of a command whose stdout's reader has gone: 0, the quiet end it asks for;
    but 1 when the pipe broke under stderr, as a problem was being told (`vbr check BAD 2>&1 |
    head -1`: the file still has errors), stderr then silenced as stdout is."""
    if not getattr(sys.stderr, "broken", False):
        return 0
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stderr.fileno())
    except OSError:
        pass
    return 1


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so Python's exit flush stays quiet."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _unknown_command(parser: argparse.ArgumentParser, word: str) -> int:
    """A first word that is no command (`vbr chek`): the usage, then the command meant where one is
    close, and the commands; exit 2."""
    import difflib
    close = difflib.get_close_matches(word, parser.command_names, n=1)
    parser.print_usage(sys.stderr)
    meant = f"; did you mean {close[0]}?" if close else ""
    print(f"vbr: error: unknown command {word!r}{meant} (commands: {', '.join(parser.command_names)})",
          file=sys.stderr)
    return 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vbr", description="Rules language for volleyball tabletop games.")
    p.add_argument("--version", action="version", version=f"vbr {version()}")
    sub = p.add_subparsers(metavar="COMMAND")
    add = sub.add_parser

    def add_parser(name, **kw):
        q = add(name, formatter_class=HelpFormatter, **kw)
        q.set_defaults(parser=q)
        p.command_names.append(name)
        return q
    sub.add_parser = add_parser
    p.command_names = []

    c = sub.add_parser("check", help="check rule files (and scenario files)")
    c.add_argument("files", nargs="+")
    c.add_argument("--strict", action="store_true",
                   help="count the turn flow's warnings (unreachable phases, no way out, loops without a choice) as "
                        "errors; for a scenario file, those of the rule file it tests")
    c.set_defaults(func=cmd_check)

    def game_args(q, file=True):
        if file:
            q.add_argument("file", help="a .vbr file, or a bundled rule file's name (e.g. siatka)")
        q.add_argument("--seed", type=seed, default=0, metavar="S",
                       help="the seed that fixes every roll, shuffle and agent's pick: a whole number from 0 to 2**63 - 1 "
                            "(default 0); the same seed plays the same game")
        q.add_argument("--agents", default="random", help=_agents_help())
        q.add_argument("--option", action="append", metavar="NAME[=VALUE]", help="set a rule option (repeatable)")

    def many_args(q, out_formats=".jsonl or .csv", n_default=100, n_help="games per run (default 100)"):
        q.add_argument("-n", type=integer, default=n_default, help=n_help)
        q.add_argument("--workers", type=integer, metavar="W",
                       help="play in W processes at once, 1 or more (default: one per core for a run with an "
                            "mcts agent, else 1; on Ray, every CPU it has); the results do not depend on it")
        q.add_argument("--backend", default="local", choices=["local", "ray"],
                       help="where games are played: local processes, or Ray (pip install 'vbr[ray]')")
        q.add_argument("--ray-address", metavar="auto|HOST:PORT", help="a running Ray cluster (default: start a local Ray)")
        q.add_argument("--json", action="store_true", help="print one JSON object")
        q.add_argument("--out", metavar="FILE", type=file_name, help=f"write the results ({out_formats})")
        q.add_argument("--plot", metavar="DIR", type=file_name, help="write plots (PNG and SVG) into DIR")
        q.add_argument("--rotate-seats", action=argparse.BooleanOptionalAction, default=None,
                       help="play every deal (seed) with the agents in each seating (their cyclic rotations over "
                            "the seats), -n counting games, and report each agent's win rate as well as each "
                            "seat's (default: on when the agents differ, with a note saying so)")
        progress_arg(q)

    def progress_arg(q):
        q.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                       help="show progress on stderr, game by game, with the rate, the time left and the running "
                            "estimate (default: on a terminal only; elsewhere --progress writes a line every few "
                            "seconds)")

    def precision_args(q):
        q.add_argument("--precision", type=decimal, metavar="H",
                       help="stop once the 95%% confidence sequence of the watched rate is narrower than +/-H "
                            "(e.g. 0.02), or at -n games, whichever comes first (docs/analysis.md, \"Stopping at "
                            "a precision\"); without -n, -n is twice the games a rate of 50%% needs for it")
        q.add_argument("--metric", metavar="NAME",
                       help="the rate --precision watches and the progress line shows: win_rate (default: the "
                            "first side's, or with different agents, seats rotated, the first agent's), "
                            "win_rate_S for side S, draw_rate, first_mover_advantage, or measure:NAME for a seat, "
                            "side or bool measure the rule file declares")

    def rows_arg(q):
        q.add_argument("--rows", metavar="FILE", type=file_name,
                       help="also write one row per game of every arm played (.jsonl or .csv), for `vbr summarize`")

    r = sub.add_parser("run", help="play one game and print it")
    game_args(r)
    r.add_argument("--log", type=file_name, help="write the game's events as JSON lines")
    r.add_argument("--quiet", action="store_true", help="only the result")
    add_engine_args(r)
    r.set_defaults(func=cmd_run)

    s = sub.add_parser("sim", help="play many games and report balance metrics")
    game_args(s)
    many_args(s, "one row per game: .jsonl or .csv", None,  # cmd_sim's default: 100, or by --precision
              "games per run (default 100; with --precision, twice the games a rate of 50%% needs to reach it)")
    precision_args(s)
    s.add_argument("--skill", metavar="PARAM=LOW,HIGH",
                   help="the skill-expression figure: the one agent of --agents with PARAM=HIGH against itself "
                        "with PARAM=LOW (e.g. --agents mcts --skill iterations=50,400), seats rotated, and how "
                        "often the higher setting wins")
    s.add_argument("--restrict", action="append", metavar="SEAT=RULE",
                   help="restricted play: SEAT never takes the options a rule names (never:WORD[,WORD...], a WORD "
                        "an enum member, a kind, or an option's text; or pass: it passes wherever it may); a choice "
                        "left with no option is played whole and counted (repeatable)")
    add_engine_args(s)
    s.set_defaults(func=cmd_sim, command="sim")

    w = sub.add_parser("sweep", help="play every combination of some options' values, one row each")
    game_args(w)
    w.add_argument("--grid", action="append", metavar="NAME=V1,V2,...", help="an option and the values to sweep (repeatable)")
    many_args(w, "one row per combination: .csv, .jsonl or .json")
    rows_arg(w)
    add_engine_args(w)
    w.set_defaults(func=cmd_sweep, command="sweep")

    cp = sub.add_parser("compare", help="a variant against a base: every metric side by side, with the difference's CI")
    cp.add_argument("base", help="the base rule file")
    cp.add_argument("variant", nargs="?", help="the variant rule file (default: the base file, under --variant-option)")
    game_args(cp, file=False)
    cp.add_argument("--base-option", action="append", metavar="NAME[=VALUE]", help="an option for the base only")
    cp.add_argument("--variant-option", action="append", metavar="NAME[=VALUE]", help="an option for the variant only")
    many_args(cp, "one row per metric: .jsonl or .csv")
    rows_arg(cp)
    cp.add_argument("--base-rows", metavar="ROWS", type=file_name,
                    help="read the base's games from per-game rows already played (sim --out, sweep or compare "
                         "--rows; .jsonl or .csv) and play only the variant, on their deals (-n and --seed unused)")
    add_engine_args(cp)
    cp.set_defaults(func=cmd_compare, command="compare")

    im = sub.add_parser("importance", help="restricted play: what each enum member, kind and pass is worth to the "
                                           "seat that has it, ranked by the win rate it loses without it")
    game_args(im)
    im.add_argument("-n", type=integer, default=200, help="deals (seeds) per seat and word (default 200)")
    im.add_argument("--workers", type=integer, metavar="W", help="play in W processes at once (default: one per core with an mcts agent, else 1)")
    im.add_argument("--backend", default="local", choices=["local", "ray"], help="where games are played")
    im.add_argument("--ray-address", metavar="auto|HOST:PORT", help="a running Ray cluster")
    im.add_argument("--json", action="store_true", help="print one JSON object")
    im.add_argument("--out", metavar="FILE", type=file_name, help="write one row per word (.jsonl or .csv)")
    progress_arg(im)
    add_engine_args(im)
    im.set_defaults(func=cmd_importance, command="importance", plot=None)

    sm = sub.add_parser("summarize", help="merge per-game rows of earlier runs and summarise them again")
    sm.add_argument("rows", nargs="+", metavar="ROWS", type=file_name, help="files of per-game rows (.jsonl or .csv)")
    sm.add_argument("--json", action="store_true", help="print one JSON object")
    sm.set_defaults(func=cmd_summarize, command="summarize")

    rp = sub.add_parser("replay", help="re-run a log and say whether it reproduces exactly")
    rp.add_argument("log", type=file_name)
    rp.add_argument("--engine", type=engine_type(("python", "c")), metavar="{python,c}",
                    help="replay through this engine (default: the one the log names); a log drawn from another "
                         "random generator, or recorded by the retired closure engine, is refused")
    rp.set_defaults(func=cmd_replay)

    t = sub.add_parser("test", help="run scenario tests written in text")
    t.add_argument("files", nargs="+")
    t.add_argument("--strict", action="store_true",
                   help="also fail a file whose rule file's turn flow has warnings (as `vbr check --strict`)")
    t.add_argument("--trace", action="store_true", help="print the events between the steps of each failing scenario")
    t.add_argument("--engine", type=engine_type(("auto", "python", "c")), default="auto", metavar="{auto,python,c}",
                   help="what runs the scenarios: auto (the default) takes python, the typed program's own "
                        "engine; c gives the same steps and verdicts, and builds a C library for each set of "
                        "options the file's scenarios name (slower than python for a file run once); a rule "
                        "file using a construct the typed program cannot express yet is an error")
    t.set_defaults(func=cmd_test)

    f = sub.add_parser("fmt", help="print files in canonical form, or rewrite them in it (-w)")
    f.add_argument("files", nargs="+", metavar="FILE")
    mode = f.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="print only a verdict for each file; exit 1 if any is not in canonical form")
    mode.add_argument("-w", "--write", action="store_true",
                      help="rewrite each file not in canonical form in place (whole or not at all) and say so; "
                           "not `vbr fmt f.vbr > f.vbr`, which empties f.vbr before vbr reads it")
    f.set_defaults(func=cmd_fmt)

    tr = sub.add_parser("trace", help="book passage → rule-file lines → scenario tests, as a Markdown table")
    tr.add_argument("file", help="a rule file")
    tr.add_argument("--tests", type=file_name, help="the scenario file (default: tests/NAME.vbr beside the rule file)")
    tr.add_argument("--update", metavar="DOC", type=file_name, help="rewrite the generated part of a Markdown page (.md) instead of printing")
    tr.set_defaults(func=cmd_trace)

    from vbr.tty_play.command import add_parser as play_parser
    play_parser(sub)

    # each module is small at the top: what the command needs is imported when it runs
    from vbr.html_report.command import add_parser as report_parser
    report_parser(sub)
    from vbr.mutation.command import add_parser as mutate_parser
    mutate_parser(sub)
    from vbr.lsp.command import add_parser as lsp_parser
    lsp_parser(sub)
    from vbr.visualizer.command import add_parser as graph_parser
    graph_parser(sub)
    from vbr.analysis.tune_command import add_parser as tune_parser
    tune_parser(sub)
    from vbr.cache_command import add_parser as cache_parser
    cache_parser(sub)
    return p


# ---------------------------------------------------------------------------------- commands
def cmd_check(args) -> int:
    from vbr.checking import checked_model
    from vbr.grammar import ast as A
    from vbr.loader import load_rules, parse_file, resolve
    failed = 0
    for name in args.files:
        path = resolve(name)
        try:
            tree, _ = parse_file(path)
            if isinstance(tree, A.TestFile):
                from vbr.scenario import check_file
                check_file(path)
                if args.strict:  # the warnings of the rule file it tests, as errors
                    _strict_flow(path)
            else:
                model = checked_model(load_rules(path))  # the diagnostics, and the typed program: no engine
                _refuse_unsupported(model)
                warnings = _warnings(model)
                if args.strict and warnings:  # the same findings, as errors
                    warnings = [replace(w, severity="error") for w in warnings]
                    raise VbrError(warnings, model.rules.sources)
                for w in warnings:
                    print(w.render(model.rules.sources), file=sys.stderr)
            print(clean(f"{path}: ok"))
        except VbrError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def _refuse_unsupported(model) -> None:
    """Raises, as a located error, what the typed program cannot express (every engine plays it)."""
    from vbr.ir.build import refusal
    problem = refusal(model)
    if problem is not None:
        raise VbrError(problem, model.rules.sources)


def _warnings(model):
    try:
        from vbr.visualizer.findings import findings
    except ImportError:
        return []
    return findings(model)


def _load(args):
    """The command's game, loaded only through the engine it plays with (`args.engine` once
    resolved), and its agents, one per seat."""
    game = played_game(args, args.file, parse_options(args.option), _note)
    return game, seat_agents(args, game, args.agents)


def _note(text: str) -> None:
    print(clean(f"vbr: {text}"), file=sys.stderr, flush=True)


def cmd_run(args) -> int:
    """One game through the engine `--engine` picks, its events printed as they happen (also up
    to a run-time error: what a rule author needs to see) and logged with `--log` (the log's
    header names the engine and its generator), none kept (vbr.run_events): a game of millions of
    choices takes the memory of a short one. The log is written whole or not at all
    (vbr.atomic_file.streamed), and a reader that stops reading early (`vbr run ... --log LOG |
    head`) stops the printing only. A game stopped by an error in its rules is logged up to it,
    the error last (vbr.gamelog.fault_event), and the error is raised; one stopped by Ctrl-C (or
    SIGTERM, SIGHUP) is logged up to where a replay can follow it (RunEvents.stop)."""
    from contextlib import nullcontext

    from vbr import stop_signals
    from vbr.atomic_file import streamed
    from vbr.gamelog import fault_event, header
    from vbr.play import outcome_text, play_typed_game
    from vbr.run_events import RunEvents
    game, agents = _load(args)
    if args.log:  # before the game: finding out after it that the log cannot be written wastes it
        check_log_target(args.log, game)
    if not args.quiet:
        print(clean(f"{game.title}: seed {args.seed}, agents {' | '.join(agents)}, engine {args.engine}"))
    fault = stopped = None
    with _opened(streamed(Path(args.log)), args.log) if args.log else nullcontext() as log:
        events = RunEvents(log, args.log, args.quiet)
        if log is not None:
            events.write(header(game, args.seed, agents, args.engine))
        try:
            # SIGTERM and SIGHUP write the log as Ctrl-C does; each logged call into C holds them back (held)
            with stop_signals.as_ctrl_c(), stop_signals.held():
                result = play_typed_game(game, args.seed, agents, log=events)
        except VbrError as exc:
            fault = exc
            if log is not None:
                events.write(fault_event(exc, game.path))
        except KeyboardInterrupt as exc:  # Ctrl-C (or a signal): the log up to where a replay follows it
            stopped, upto = exc, events.stop()
    if stopped is not None:
        if args.log:
            print(clean(f"vbr: log written to {args.log} (up to {upto})"), file=sys.stderr)
        raise stopped
    if fault is not None:
        if args.log:
            print(clean(f"log written to {args.log} (up to the error)"))
        raise fault
    print(clean(f"result: {outcome_text(game, result.state.outcome())} after {result.choices} choices"))
    if args.log:
        print(clean(f"log written to {args.log}"))
    return 0


@contextmanager
def _opened(writing, name: str):
    """`writing` (a context manager giving a file), its errors naming the file `name` (a log's
    temporary file is no name the person gave)."""
    try:
        with writing as f:
            yield f
    except OSError as exc:
        if exc.filename != name:  # the temporary file's, or none (a write that failed as it was flushed)
            raise OSError(exc.errno, exc.strerror, name) from None
        raise


def cmd_sim(args) -> int:
    from vbr.analysis.commands import cmd_sim as run_sim
    from vbr.analysis.commands import skill_agents
    game, agents = _load(args)
    if args.skill:
        if args.rotate_seats is False:
            raise UsageError("--skill plays each setting in every seat: it does not go with --no-rotate-seats")
        agents = skill_agents(args.skill, agents, game)
        check_agents(args.engine, agents)
        args.rotate_seats = True
    _check_restrictions(args, game, agents)
    return run_sim(args, game, agents)


def cmd_importance(args) -> int:
    from vbr.analysis.importance import cmd_importance as run_importance
    game, agents = _load(args)
    return run_importance(args, game, agents)


def _check_restrictions(args, game, agents: list[str]) -> None:
    """`--restrict` read before any game is played: a UsageError for one that names nothing."""
    from vbr.restrict import parse_restrictions
    parse_restrictions(args.restrict, game.seats, game.model, {c.item for c in game.program.choices})


def cmd_sweep(args) -> int:
    from vbr.analysis.commands import cmd_sweep as run_sweep
    # the engine asked for, before the first combination is loaded (under auto each combination
    # gets its own: vbr.engine_choice); the agents are checked against every combination's seats
    # (an option may change them) before the first game
    args.engine = asked_engine(args)
    if args.engine != "auto":
        played_game(args, args.file, parse_options(args.option), _note)
    return run_sweep(args, args.file, parse_options(args.option), args.agents)


def cmd_compare(args) -> int:
    from vbr.analysis.commands import arms_agents, load_variant
    from vbr.analysis.commands import cmd_compare as run_compare
    shared = parse_options(args.option)
    a_opts = {**shared, **parse_options(args.base_option, "--base-option")}
    b_opts = {**shared, **parse_options(args.variant_option, "--variant-option")}
    b_file = args.variant or args.base
    if b_file == args.base and a_opts == b_opts:
        raise UsageError("compare needs two different things: a variant file, or --variant-option/--base-option")
    engine = _compare_engine(args, (args.base, a_opts), (b_file, b_opts))
    base = load_variant(args.base, a_opts, _label(args.base, a_opts, args.variant), engine)
    variant = load_variant(b_file, b_opts, _label(b_file, b_opts, args.variant), engine)
    _refuse_same_arms(base.game, variant.game)
    agents = arms_agents(args.agents, [base.seats, variant.seats])  # both arms' seats
    return run_compare(args, base, variant, agents)


def _refuse_same_arms(base, variant) -> None:
    """A UsageError when the two arms of a compare are one game: the same rule file (however its
    path is written) under the same options in force, which options spelt otherwise
    (`--variant-option target=3` where 3 is the default, `target=03`) can give."""
    from vbr.analysis.commands import options_text
    if Path(base.path).resolve() == Path(variant.path).resolve() and base.option_values == variant.option_values:
        raise UsageError(f"compare needs two different things: the base and the variant are both {base.path} "
                         f"under {options_text(base.option_values)}")


def _compare_engine(args, base: tuple, variant: tuple) -> str:
    """One engine for both arms of a compare, kept in `args.engine`: what `--engine` names; under
    auto, c when a C compiler builds both arms, else python. Each arm's game is loaded through it
    (vbr.sim.game_for keeps it for the run), and no other's is."""
    from vbr.sim import build_ahead, played_game as arm_engine
    asked = asked_engine(args)
    if asked != "python":
        build_ahead([base, variant])  # both arms' C builds at once
    first = arm_engine(*base, asked, _note)[0]
    args.engine = first
    if asked != "auto":
        return first
    second = arm_engine(*variant, asked, _note)[0]
    if second != first:
        args.engine = "python"
        arm_engine(*base, "python", _note)
        _note(f"--engine auto: the base and the variant play through one engine: {args.engine}")
    return args.engine


def cmd_summarize(args) -> int:
    from vbr.analysis.summarize import cmd_summarize as run_summarize
    return run_summarize(args)


def _label(file, options: dict, two_files) -> str:
    shown = ", ".join(f"{k}={v}" if v is not True else k for k, v in options.items())
    if two_files:
        return f"{Path(file).stem}" + (f" ({shown})" if shown else "")
    return shown or "as printed"


def _agents_help() -> str:
    try:
        from vbr.agents.spec import describe_agents
        return "one agent for all seats, or one per seat, e.g. mcts:iterations=200,random (default random)\n" + describe_agents()
    except ImportError:
        return "one agent for all seats, or one per seat: random,greedy"


def cmd_replay(args) -> int:
    from vbr.gamelog import replay
    try:
        r = replay(Path(args.log), args.engine)  # a log it cannot read is said in words, as a rule file is
    except OSError as exc:
        print(clean(f"vbr: error: {file_error(exc, 'read')}"), file=sys.stderr)
        return 1
    print(clean(r.message), file=sys.stdout if r.ok else sys.stderr)
    return 0 if r.ok else 1


def cmd_test(args) -> int:
    from vbr.loader import SCENARIO_FILE, resolve
    from vbr.scenario import format_trace
    passed = failed = 0
    for name in args.files:
        path = resolve(name, kind=SCENARIO_FILE)
        try:
            if args.strict:
                _strict_flow(path)
            results = _run_scenarios(path, args.trace, getattr(args, "engine", "auto"))
        except VbrError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
            continue
        except EngineUnavailable as exc:
            print(clean(exc.render()), file=sys.stderr)
            failed += 1
            continue
        for r in results:
            if r.ok:
                passed += 1
                print(clean(f"PASS {path}: {r.title}"))
            else:
                failed += 1
                print(clean(f"FAIL {r.span}: {r.title}\n" + textwrap.indent(r.message, "  ")))
                if args.trace:
                    print(clean("\n".join(format_trace(r))))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def _run_scenarios(path: Path, trace: bool, engine: str) -> list:
    """A scenario file's results through `engine`; auto: python (a scenario file is run once
    after each edit, and the C engine builds a library for each edit: python is the quicker)."""
    from vbr.scenario import run_file
    return run_file(path, trace=trace, engine="python" if engine == "auto" else engine)


def _strict_flow(scenarios: Path) -> None:
    """The flow findings of the rule file a scenario file tests, raised as errors."""
    from vbr.checker import build_model
    from vbr.scenario import load_scenarios
    from vbr.visualizer.findings import findings
    _, rules, _ = load_scenarios(scenarios)
    found = findings(build_model(rules, {}))
    if found:
        raise VbrError([replace(w, severity="error") for w in found], rules.sources)


def cmd_fmt(args) -> int:
    """Each file in canonical form, one after another (escaped on a terminal, as it is to a file or
    a pipe: `vbr.terminal.write_document`); with --check, a verdict for each; with
    --write, each file not in canonical form rewritten in place. A file that does not parse is
    reported and left as it is; the others are still done."""
    from vbr.grammar.printer import program
    from vbr.loader import parse_file, resolve
    failed = 0
    for name in args.files:
        try:
            path = resolve(name)
            tree, source = parse_file(path)
        except VbrError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
            continue
        text = program(tree)
        if args.check:
            failed += _fmt_verdict(path, text == source)
        elif args.write:
            failed += _fmt_rewrite(path, text, source)
        else:
            write_document(text)
    return 1 if failed else 0


def _fmt_verdict(path: Path, canonical: bool) -> int:
    if canonical:
        print(clean(f"{path}: canonical"))
        return 0
    print(clean(f"{path}: not in canonical form"), file=sys.stderr)
    return 1


def _fmt_rewrite(path: Path, text: str, source: str) -> int:
    """`path` rewritten whole in canonical form, keeping its permissions (through a symbolic link,
    the file it leads to is rewritten and the link stays); 1 if it cannot be written."""
    from vbr.atomic_file import write_atomic
    if text == source:
        print(clean(f"{path}: canonical"))
        return 0
    target = path.resolve()
    try:
        write_atomic(target, text, mode=target.stat().st_mode & 0o7777)
    except OSError as exc:
        print(clean(f"vbr: error: {file_error(OSError(exc.errno, exc.strerror, str(path)), 'write')}"), file=sys.stderr)
        return 1
    print(clean(f"{path}: rewritten in canonical form"))
    return 0


def cmd_trace(args) -> int:
    from vbr.loader import resolve
    from vbr.trace import markdown
    path = resolve(args.file)
    # named: a file that is missing or holds no scenarios is an error; else tests/NAME.vbr beside
    # the rule file, when there is one
    looked = Path(args.tests) if args.tests else path.parent / "tests" / path.name
    tests = looked if args.tests or looked.is_file() else None
    if args.update:
        from vbr.trace import update_doc
        changed = update_doc(Path(args.update), path, tests)
        print(clean(f"{args.update}: {'updated' if changed else 'up to date'}"))
    else:
        sys.stdout.write(clean(markdown(path, tests, _from_here(path))))
    if tests is None:  # said after the table, so that an error in the files comes alone
        note(f"no scenario file at {looked}, where vbr trace looks for one: no passage is shown as tested "
             "(name the scenario file with --tests)")
    return 0


def _from_here(path: Path) -> str:
    """How a printed page links to a file: by its path from the current folder when it lies
    below it (the page is most often saved there), else by its absolute path."""
    here = Path.cwd().resolve()
    full = path.resolve()
    return full.relative_to(here).as_posix() if full.is_relative_to(here) else full.as_posix()


if __name__ == "__main__":
    sys.exit(main())
