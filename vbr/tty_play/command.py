"""`vbr play FILE [--seat N] [--agents ...] [--option ...] [--seed N] [--log PATH]`.

vbr/cli.py wires it in with `add_parser(subparsers)`; the parser's default `func` is `run`.
`python -m vbr.tty_play FILE ...` is the same command.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from vbr.cli_common import (add_engine_args, check_agents, check_log_target, file_name, integer, parse_options,
                             played_game, seed)
from vbr.errors import UsageError, VbrError
from vbr.terminal import SafeStream, clean
from vbr.agents.spec import HUMAN  # the agent of a seat another person plays at this terminal

TYPED_ENGINES = ("c", "python")  # what plays a game in the terminal (vbr.engines.game)


def add_parser(subparsers) -> argparse.ArgumentParser:
    from vbr.agents.spec import describe_agents  # the agents' specs, which the typed engines' agents take
    p = subparsers.add_parser(
        "play", help="play a game yourself, in the terminal, against agents",
        description="Play one seat of a game (in a game of teams, every seat of that team) against agents. "
                    "The screen shows what that seat may see; type the number of a choice and Enter, "
                    "? to see the choices again, z to see every zone in full, q or Ctrl-D to leave (the log so "
                    "far is written). "
                    "See docs/play.md.")
    p.add_argument("file", help="a .vbr file, or a bundled rule file's name (e.g. siatka)")
    p.add_argument("--seat", type=integer, default=0, metavar="N",
                   help="the seat you play (default 0); in a game of teams you play every seat of its team")
    p.add_argument("--agents", default="random",
                   help="the other seats' agents, comma-separated: one for all of them, or one per other "
                        "seat in seat order (default random)\nagents: NAME or NAME:PARAM=VALUE,...\n"
                        + describe_agents().split("\n", 1)[-1]
                        + "\n  human    another person at this terminal (hot seat): the screen is "
                          "cleared and handed over between people")
    p.add_argument("--option", action="append", metavar="NAME[=VALUE]", help="set a rule option (repeatable)")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help="the seed that fixes every roll, shuffle and agent's pick (default 0)")
    p.add_argument("--log", metavar="PATH", type=file_name,
                   help="write the game's events as JSON lines (also when you leave early); `vbr replay` checks it")
    add_engine_args(p)
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    """0 when the game ends or the person leaves it; errors are reported by `vbr.cli`'s guard
    (2 on a usage error, 1 when the rule file or the log cannot be read or written), or 128 + the
    signal's number when Ctrl-C (130), a closed terminal (SIGHUP) or SIGTERM stops it: the log so
    far is written then too."""
    from vbr.tty_play.screen import wrap
    from vbr.tty_play.session import Session
    game = played_game(args, args.file, parse_options(args.option))  # only the engine's it plays with
    if args.engine not in TYPED_ENGINES:
        raise UsageError(f"--engine {args.engine}: vbr play plays through the typed engines only "
                         f"({', '.join(TYPED_ENGINES)}, or auto to take c where it builds)")
    you = seats_played(game, args.seat)
    agents = other_agents(game, you, args.agents)
    check_agents(args.engine, [a for a in agents if a not in (None, HUMAN)])
    log = Path(args.log) if args.log else None
    if log is not None:  # before the game: finding out after it that the log cannot be written wastes it
        check_log_target(log, game)
    out = sys.stdout.stream if isinstance(sys.stdout, SafeStream) else sys.stdout  # colour codes are ours
    colour = _isatty(out) and not os.environ.get("NO_COLOR")
    others = ", ".join(f"seat {s} {a}" + (" (hot seat)" if a == HUMAN else "")
                       for s, a in enumerate(agents) if a is not None) or "no agents"
    mine = f"seat {args.seat}" if len(you) == 1 else f"seats {_and(you)}"
    for line in wrap(clean(f"{game.title}: seed {args.seed}; you play {mine}, against {others}, engine {args.engine}")):
        print(line, file=out)
    for line in wrap("Type a choice's number and Enter; ? shows the choices again, z every zone in full, q or "
                     "Ctrl-D leaves."):
        print(line, file=out)
    session = Session(game, args.seed, you, agents, out, sys.stdin, colour=colour, log_path=log, terminal=_isatty(out))
    from vbr import stop_signals
    try:
        with _leaving_on_hang_up(session):
            result = session.play()
    except KeyboardInterrupt as exc:  # Ctrl-C, or the terminal closed: a note only if it can be written
        try:
            print(file=out)
            written = f", log written to {log}" if session.log_written else ""
            print(clean("vbr: interrupted; the game was left" + written), file=sys.stderr)
        except OSError:
            pass
        return stop_signals.exit_code(exc)
    except VbrError:  # an error in the rules: said by the CLI, after where the play so far went
        if session.log_written:
            print(clean(f"log written to {log} (up to the error)"), file=out)
        raise
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, exc.filename or args.log) from None
    if session.stopped:  # the input ended as the terminal closed: the log is written, the signal told
        return 128 + session.stopped
    if not result.finished:
        n = result.choices
        print(f"You left the game after {n} choice{'' if n == 1 else 's'}.", file=out)
    if log is not None:
        print(clean(f"log written to {log}"), file=out)
    return 0


def _leaving_on_hang_up(session):
    """While the game is played, SIGHUP (a closed terminal) and SIGTERM raise `Stopped`, a
    KeyboardInterrupt, as Ctrl-C does: by default they end the process at once, and the log with
    it. Once: a closed terminal sends SIGHUP more than once (the shell passes it on too). And not
    once the session is leaving (a closed terminal's input ends too, often first): raised then,
    it would cut the writing of the log short; the session leaves, and the signal is told after."""
    import signal
    from vbr import stop_signals

    def stop(signum, frame):
        for sig in stop_signals.STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        session.stopped = signum
        if not session.leaving:
            raise stop_signals.Stopped(signum)
    return stop_signals.raising(stop)


def seats_played(game, seat: int) -> tuple[int, ...]:
    """The seats the person plays: `seat`, or in a game of teams every seat of its team."""
    n = game.seats
    if not 0 <= seat < n:
        which = "one seat, 0" if n == 1 else f"seats {_and(range(n))}"
        raise UsageError(f"--seat {seat}: no such seat; {game.title} has {which}")
    teams = game.program.teams
    if any(len(t) != 1 for t in teams):
        return tuple(teams[game.team_of[seat]])
    return (seat,)


def other_agents(game, you: tuple[int, ...], spec: str) -> list[str | None]:
    """One agent spec per seat, None for the person's: `spec` is one agent for every other seat,
    or one per other seat in seat order; `human` is another person at this terminal (hot seat)."""
    from vbr.agents.spec import AgentSpecError
    from vbr.play import parse_agents
    others = [s for s in range(game.seats) if s not in you]
    if not others:
        return [None] * game.seats
    agents, human, given = _without_humans(spec)
    try:
        specs = parse_agents(agents, len(others))
        every = given == 1 and human == {0}  # `--agents human`: every other seat
        specs = [HUMAN if k in human or every else a for k, a in enumerate(specs)]
    except AgentSpecError as exc:
        for n in range(1, game.seats + 1):  # well formed, but for another number of seats?
            try:
                parse_agents(agents, n)
            except AgentSpecError:
                continue
            raise UsageError(f"--agents {spec}: {n} agents for {len(others)} other "
                             f"seat{'s' if len(others) > 1 else ''} (seat{'s' if len(others) > 1 else ''} {_and(others)}); "
                             "give one agent for all of them, or one per other seat") from None
        other = f"; or {HUMAN}, another person at this terminal" if "unknown agent" in str(exc) else ""
        raise UsageError(f"--agents: {exc}{other}") from None
    out: list[str | None] = [None] * game.seats
    for s, a in zip(others, specs):
        out[s] = a
    return out


def _without_humans(spec: str) -> tuple[str, set[int], int]:
    """`spec` with each `human` (no agent: another person at this terminal) standing in as `first`,
    which has no parameters; the positions among the agents given of those that were `human`; how
    many agents it gives. An agent starts at a token that is not a `name=value` parameter
    (vbr.agents.spec's grammar). A usage error when `human` is given parameters (`human:x=1`,
    `human,c=2`): told as `human`'s, never as those of the agent that stands in for it."""
    tokens = [t.strip() for t in spec.split(",")]
    human, k = set(), -1
    for t in tokens:
        if t and ("=" not in t or ":" in t.split("=", 1)[0]):
            k += 1
            if t == HUMAN:
                human.add(k)
            elif t.split(":", 1)[0].strip() == HUMAN:
                raise UsageError(f"--agents: {HUMAN} (another person at this terminal) takes no parameters, "
                                 f"not {t.split(':', 1)[1].strip()!r}")
        elif t and k in human:
            raise UsageError(f"--agents: {HUMAN} (another person at this terminal) takes no parameters, not {t!r}")
    return ",".join("first" if t == HUMAN else t for t in tokens), human, k + 1


def _and(items) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
