"""What every `vbr` command parses and says alike, below all of them: `--seed`, `--option`, a
number argument (ASCII digits only: vbr.number_text), an output file checked before the work, an
OSError in words, and vbr's version.

`vbr.cli` builds the one parser and each command module (vbr/*/command.py) adds its own
subcommand to it; they all take these from here, and this module imports no command.
"""
from __future__ import annotations

import argparse
import errno
import os
from pathlib import Path

from vbr.errors import UsageError
from vbr.number_text import decimal_number, whole_number

SEED_MAX = 2**63 - 1
MAX_GAMES = 100_000_000  # games one run plays at most (`-n`, `graph --sim`)


def integer(text: str) -> int:
    """An integer argument's type: a whole number in ASCII digits (vbr.number_text), else a usage
    error (`'٣' is not a whole number ...`); what it counts is checked where it is used."""
    try:
        return whole_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (write it in the digits 0-9)") from None


def decimal(text: str) -> float:
    """A number argument's type: a decimal number in ASCII (vbr.number_text: `0.02`, `.5`, `1e-3`;
    no `nan` or `inf`), else a usage error."""
    try:
        value = decimal_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (write it in the digits 0-9, e.g. 0.02)") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is too large a number")
    return value


def file_name(text: str) -> str:
    """A file argument's type: any name but the empty one, which the commands would take for the
    flag not given (`--log "$LOG"` with LOG unset would play the game and write no log)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty file name")
    return text


def seed(text: str) -> int:
    """A `--seed`: a whole number from 0 to 2**63 - 1 (larger ones would be cut down silently)."""
    n = integer(text)
    if not 0 <= n <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{n} is not a seed: seeds run from 0 to {SEED_MAX} (2**63 - 1)")
    return n


def parse_options(items: list[str] | None, flag: str = "--option") -> dict[str, object]:
    """`--option` values: `NAME` alone means true; `NAME=VALUE` keeps VALUE as a string (the
    checker converts it to the option's type and checks it). Spaces around the name and the value
    are dropped; `flag` names the flag in errors. One name given two different values is a usage
    error: which was meant is not for vbr to guess (the same value twice is one)."""
    out: dict[str, object] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not name.strip():
            raise UsageError(f"{flag} {item!r}: expected NAME or NAME=VALUE")
        name, value = name.strip(), value.strip() if eq else True
        if name in out and out[name] != value:
            raise UsageError(f"{flag} {name} is given twice, as {_as_given(out[name])} and as {_as_given(value)}: "
                             "give it once")
        out[name] = value
    return out


def _as_given(value) -> str:
    """An `--option` value as typed: `5`, `''`; `true` for the name alone."""
    return "true" if value is True else value if value else "''"


_REASONS = {errno.ENOENT: "no such file", errno.EISDIR: "is a directory", errno.ENOTDIR: "a part of the path is not a folder",
            errno.EACCES: "permission denied", errno.EPERM: "permission denied", errno.ENOSPC: "no space left on the device",
            errno.EROFS: "read-only file system"}


def file_error(exc: OSError, verb: str = "") -> str:
    """An OSError in words: `cannot read game.jsonl: no such file`, not `[Errno 2] ...`; one vbr
    raised itself keeps its own words (vbr.atomic_file: `a link out of its folder: ...`)."""
    own = exc.strerror is not None and exc.errno is not None and exc.strerror != os.strerror(exc.errno)
    reason = (None if own else _REASONS.get(exc.errno)) or (exc.strerror or str(exc)).lower()
    if exc.filename is None:
        return reason
    return f"cannot {verb or 'open'} {exc.filename}: {reason}"


def refuse_link_out(path: Path, flag: str) -> None:
    """A UsageError for a link that leads out of its folder (atomic_file: no file is replaced
    through one)."""
    from vbr.atomic_file import link_out_of_folder
    real = link_out_of_folder(path)
    if real is not None:
        raise UsageError(f"{flag} {path}: is a link to {real}, outside its folder; vbr replaces no file through "
                         "such a link: name the file itself")


def check_writable(path: str | Path, flag: str) -> None:
    """Before the work: `path` can be written (its folder exists, and a file there can be opened
    for writing), else a UsageError naming `flag`. Finding out after a game that its log cannot
    be written wastes the game. A file that did not exist is not left behind."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{flag} {path}: is a directory")
    from vbr.atomic_file import no_folder, special_file
    if not p.parent.is_dir():
        raise UsageError(f"{flag} {path}: {no_folder(p.parent)}")
    refuse_link_out(p, flag)
    if special_file(p):  # opened only to write (a named pipe: its reader would take our close for the end)
        if not os.access(p, os.W_OK):
            raise UsageError(f"{flag}: cannot write {path}: permission denied")
        return
    existed = p.exists()
    try:
        with open(p, "a", encoding="utf-8"):  # try it: permission bits do not tell root or read-only mounts apart
            pass
    except OSError as exc:
        raise UsageError(f"{flag}: {file_error(exc, 'write')}") from None
    if not existed:  # the file made, not a link to it that was there before
        Path(os.path.realpath(p)).unlink()


def check_log_target(path: str | Path, game, flag: str = "--log") -> None:
    """Before the game: `path` can be written (check_writable) and is none of the rule files
    `game` was loaded from (the file and those it extends), nor any other `.vbr` file there is
    (another game's rules, a scenario file), which a log would replace."""
    check_writable(path, flag)
    target = Path(path)
    if target.exists() and any(Path(src).exists() and os.path.samefile(target, src) for src in game.rules.sources):
        raise UsageError(f"{flag} {path}: is a rule file of this game; a log written there would replace it")
    if target.is_file() and target.suffix.lower() == ".vbr":
        raise UsageError(f"{flag} {path}: is a .vbr file (rules or scenarios); a log written there would replace it: "
                         "give the log a name of its own (.jsonl)")


def check_not_rule_file(path: str | Path, rule_file: str, flag: str = "-o") -> None:
    """An output `path` that is not the rule file itself (named as `rule_file`), which writing it
    would replace: a UsageError when it is."""
    target, rules = Path(path), Path(rule_file)
    if target.is_file() and rules.is_file() and os.path.samefile(target, rules):
        raise UsageError(f"{flag} {path}: is the rule file; the output written there would replace it")


def version() -> str:
    """The installed vbr's version, or the checkout's when vbr was never installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("vbr")
    except PackageNotFoundError:
        import vbr
        return vbr.__version__


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a help text's own line breaks are kept (the agents' list)."""

    def _split_lines(self, text, width):
        lines = []
        for part in text.splitlines():
            indent = part[:len(part) - len(part.lstrip())]
            lines += [indent + line for line in super()._split_lines(part, width - len(indent))] or [""]
        return lines


# ------------------------------------------------------------------------------ --engine
ENGINE_CHOICES = ("auto", "c", "python")


def engine_type(choices: tuple = ENGINE_CHOICES):
    """An `--engine` value's type: one of `choices`, else a usage error naming them, with the one
    meant where one is close (`C`, `pyhton`: `did you mean c?`), and for `closure` saying that
    engine was retired."""
    from vbr import no_engine

    def engine(text: str) -> str:
        if text in choices:
            return text
        raise argparse.ArgumentTypeError(no_engine(text, choices))
    return engine


engine_choice = engine_type()


def add_engine_args(q: argparse.ArgumentParser) -> None:
    """`--engine` and its older spelling `--native` (= `--engine c`), on a command that plays."""
    q.add_argument("--engine", type=engine_choice, metavar="{auto,c,python}",
                   help="what plays the games: auto (the default) takes c when a C compiler builds the rules, "
                        "else python, with a one-line note; c compiles the rules with the system's C compiler "
                        "and caches the build, and stops with the reason when it cannot; python is the typed "
                        "program's own engine (the same games as c). Both play the random, first, greedy and "
                        "mcts agents")
    q.add_argument("--native", action="store_true", help="the same as --engine c")


def note(text: str) -> None:
    """A line for the user on stderr, `vbr: ...` (what a command says besides its answer)."""
    import sys
    from vbr.terminal import clean
    print(clean(f"vbr: {text}"), file=sys.stderr, flush=True)


def asked_engine(args) -> str:
    """The engine a command's flags ask for: `--engine` (auto when not given; a Namespace made
    without the flag asks for the default), `--native` read as c; a UsageError when they disagree."""
    asked = getattr(args, "engine", None)
    engine = asked or "auto"
    if getattr(args, "native", False):
        if asked not in (None, "c"):
            raise UsageError(f"--native is --engine c; it does not go with --engine {asked}")
        engine, args.native = "c", False
    return engine


def played_game(args, file, options: dict, note=note):
    """The game a command plays, loaded once (kept for its runs, vbr.sim.game_for) and only
    through the engine it plays with, kept in `args.engine`: the one asked for (asked_engine), or
    for auto the one vbr.sim.played_game picks (`note` hears why auto did not take c)."""
    from vbr.sim import played_game as load
    args.engine, game = load(file, options, asked_engine(args), note)
    return game


def seat_agents(args, game, agents: str | None) -> list[str]:
    """One agent spec per seat of `game` from `--agents` (vbr.play.parse_agents); a UsageError,
    before any game, for a spec that names no agent or gives it a setting it does not take."""
    from vbr.play import parse_agents
    return parse_agents(agents, game.seats)


def check_agents(engine: str, agents: list[str]) -> None:
    """A UsageError, before any game, for an agent spec the engine does not play (every engine
    plays every agent vbr names: vbr.play.TYPED_AGENTS)."""
    from vbr.play import typed_agent
    for name in agents:
        typed_agent(name)
