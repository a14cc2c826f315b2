"""Game logs as JSON lines, and replaying them: the same seed, options and choices must give the
same events, byte for byte.

A log is untrusted input like a rule file: each line is checked against a schema (`Header`,
`Event`, `ChoiceEvent`) before it is used, and every problem is reported at its own line
(`LOG:LINE: error: ...`). A choice is logged with its option's index and kind beside its text,
since two options may read alike (`pass` is none, and may also be an enum member); replay takes
the index and checks the text and kind against what the game offers. Replay stops at the first
line that differs.

A game that stops at an error in its rules is logged up to it, the error last (`fault_event`);
replay gives the same located error where the log has it. A run stopped by a signal in the middle
of the rules' run (before its first choice: no choice to cut the log at) is logged up to where it
stopped, `STOPPED` last; replay makes the same events up to there, and may have gone on.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from vbr import __version__, stop_signals
from vbr.atomic_file import write_atomic
from vbr.errors import EngineUnavailable, VbrError
from vbr.json_text import dumper

SEED_MAX = 2 ** 63 - 1  # the seeds `vbr run --seed` takes


_CANONICAL = dumper(sort_keys=True, separators=(",", ":"))


def dumps(event: dict) -> str:
    """`event` as a log's line: canonical JSON (keys sorted, no spaces; vbr.json_text's escapes)."""
    return _CANONICAL(event)


ENGINES = ("python", "c")  # the engines that record and replay logs
# What a log holds, named in its header (`format`; a typed engine's log naming none is format 1).
# 1: no draws; 2: every roll, pick and shuffle.
TYPED_LOG_FORMAT = 2
_TYPED_LOG_FORMATS = {1: "no roll, pick or shuffle events", 2: "its roll, pick and shuffle events"}


def generator_of(engine: str) -> str:
    """The random generator an engine draws from, as a log's header names it (both engines draw
    from the same)."""
    from vbr.ir.random_streams import NAME
    return NAME


def rules_digest(game) -> str:
    """The texts `game` was loaded from (its rule file, then each file it extends), as a log's
    header keeps them: a replay under rules changed since can say so."""
    import hashlib
    rules = game.rules
    text = "\0".join(rules.sources[name] for name in rules.chain)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def header(game, seed: int, agents: list[str], engine: str) -> dict:
    """A log's first line: the rules (`game`'s path, the digest of its texts and its options),
    seed and agents, the engine (python or c) that played it, its random generator and the format
    of its events (TYPED_LOG_FORMAT)."""
    from vbr.loader import bundled_dirs
    path = game.path.resolve()
    bundled = next((str(path.relative_to(d.resolve()).with_suffix("")) for d in bundled_dirs()
                    if path.is_relative_to(d.resolve())), None)
    return {"t": "header", "vbr": __version__, "rules": str(path), "bundled": bundled,
            "rules_digest": rules_digest(game), "options": game.options, "seed": seed, "agents": agents,
            "engine": engine, "generator": generator_of(engine), "format": TYPED_LOG_FORMAT}


def fault_event(exc: VbrError, rules: Path) -> dict:
    """The last event of a game stopped by an error in its rules (`exc`, raised in play): where (the
    file relative to the folder of `rules`, the file the game was loaded from, so the event reads
    the same whatever path the rules were named by) and what, as the first problem `exc` names."""
    import os
    d = exc.diagnostics[0]
    where = Path(d.span.file)
    file = os.path.relpath(where.resolve(), Path(rules).resolve().parent) if where.exists() else d.span.file
    return {"t": "error", "file": Path(file).as_posix(), "line": d.span.line, "col": d.span.col,
            "message": d.message}


STOPPED = {"t": "stopped"}  # the last line of a log of a run stopped inside the rules' run


def write_log(path: Path, head: dict, events: list[dict]) -> None:
    """Write the log whole or not at all: into a temporary file in the same folder, moved into
    place once complete (a full disk leaves the old file, or none, never half a log)."""
    lines = [dumps(head)] + [dumps(e) for e in events]
    write_atomic(Path(path), "\n".join(lines) + "\n")


# ------------------------------------------------------------------------------ the schema
class Header(BaseModel):
    """The first line: which rules, options, seed and agents played."""

    model_config = ConfigDict(extra="forbid")
    t: StrictStr = Field(pattern="^header$")
    vbr: StrictStr
    rules: StrictStr
    bundled: Optional[StrictStr] = None
    rules_digest: Optional[StrictStr] = Field(default=None, pattern="^sha256:[0-9a-f]{64}$")  # none: not kept
    options: dict[StrictStr, Union[StrictBool, StrictInt, StrictStr]] = {}
    seed: StrictInt = Field(ge=0, le=SEED_MAX)
    agents: list[StrictStr] = []
    # none: a log of the closure engine's, which this vbr no longer replays
    engine: Optional[StrictStr] = Field(default=None, max_length=200)
    generator: Optional[StrictStr] = Field(default=None, max_length=200)
    format: Optional[StrictInt] = Field(default=None, ge=1, le=SEED_MAX)  # none: 1


class Event(BaseModel):
    """Any later line: an object naming its kind of event (the rest is compared as it is)."""

    model_config = ConfigDict(extra="allow")
    t: StrictStr


class ChoiceEvent(Event):
    """A choice: who chose, which option (its index among those offered) and its text."""

    seat: StrictInt = Field(ge=0)
    action: StrictStr
    index: Optional[StrictInt] = Field(default=None, ge=0)  # logs before index and kind: by text
    kind: Optional[StrictStr] = None


@dataclass
class ReplayResult:
    ok: bool
    message: str
    outcome: object = None


class _Bad(Exception):
    def __init__(self, line: int, message: str):
        self.line, self.message = line, message


class _Unread(_Bad):
    """A log that cannot be read at all (missing, a folder, a device): `message` says why, and no
    line is at fault."""

    def __init__(self, why: str):
        super().__init__(0, why)


_WHY_UNREAD = {"missing": "no such file", "directory": "is a directory"}  # as vbr.cli_common.file_error says them


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent; one past the largest float (`1e400`, which Python
    reads as infinity and a message would quote as `Infinity`) is refused."""
    import math
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is a number too large to read")
    return value


def _parse(line: int, raw: str, model: type[BaseModel]):
    """The line `raw` read as JSON and checked against `model`; `_Bad` at `line` saying what is wrong."""
    return _validated(line, _loaded(line, raw), model)


def _loaded(line: int, raw: str):
    """The line `raw` read as JSON, an object; `_Bad` at `line` where it is not."""
    try:
        data = json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except ValueError as exc:  # JSONDecodeError is a ValueError, as is a refused Infinity or NaN
        why = getattr(exc, "msg", None) or str(exc)
        if "sys.set_int_max_str_digits" in why:  # Python's bound on digits, and a setting of Python's to lift it
            why = "an integer of thousands of digits"
        elif isinstance(exc, json.JSONDecodeError):
            why = why.removesuffix(" at")  # "Unterminated string starting at": the column follows
            why = f"not JSON ({why[:1].lower() + why[1:]} at column {exc.colno})"
        what = "; a log holds the JSON lines `vbr run --log FILE` writes" if line == 1 else ""
        raise _Bad(line, f"not a vbr log line: {why}{what}") from None
    if not isinstance(data, dict):
        raise _Bad(line, f"not a vbr log line: a JSON {type(data).__name__ if data is not None else 'null'}, "
                         "not an object")
    return data


def _validated(line: int, data: dict, model: type[BaseModel]) -> dict:
    """`data`, a line's object, if `model` takes it; else `_Bad` at `line` naming each problem."""
    try:
        model.model_validate(data)
    except ValidationError as exc:
        if model is Header:
            _later_header(data, exc.errors())
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())
        raise _Bad(line, cut(f"not a vbr log line ({problems})", MAX_QUOTED)) from None
    return data


def _later_header(head: dict, errors: list) -> None:
    """`_Bad` saying so when the only fault of a header is keys this vbr does not know and another
    vbr wrote it (a later one's keys)."""
    by = head.get("vbr")
    if not isinstance(by, str) or by == __version__ or any(e["type"] != "extra_forbidden" for e in errors):
        return
    keys = ", ".join(f"`{cut(str(e['loc'][0]), 40)}`" for e in errors[:5]) + (", ..." if len(errors) > 5 else "")
    raise _Bad(1, f"this log's header has {keys}, which vbr {__version__} does not know: it was written by vbr "
                  f"{cut(by, 40)}; replay it with that vbr")


MAX_LOG_BYTES = 256 * 1024 * 1024  # a log file, read at most this much
MAX_LOG_LINE = 1024 * 1024  # one line (one event) of a log
MAX_JSON_DEPTH = 32  # arrays and objects inside each other on one line
MAX_SHOWN = 300  # characters of an event a message quotes
MAX_QUOTED = 2000  # characters of a message about the header's rules (a path, an option), quoting it


def read_log(path: Path) -> tuple[dict, list[dict]]:
    """The header and the events of a log, each line checked; `_Bad` names the first wrong one."""
    lines = log_lines(path)
    head = next(lines)
    return head, list(lines)


def log_lines(path: Path) -> Iterator[dict]:
    """The header, then each event of a log, read and checked one line at a time, so a log costs
    memory for one line, not for the file: `_Bad` at the first wrong line, at a line longer than
    MAX_LOG_LINE bytes, at JSON nested deeper than MAX_JSON_DEPTH, past MAX_LOG_BYTES in all, and
    for anything but a regular file. Lines end at `\\n` only: a JSON string may hold U+2028 and
    the like, which `splitlines` cuts. A byte order mark before the header (an editor's) is read
    past, as in a rule file."""
    for number, text in _log_texts(path):
        yield _line(number, text)


def _log_texts(path: Path) -> Iterator[tuple[int, str]]:
    """Each line of a log, numbered from 1, as text (its `\\n` off), unparsed: `_Bad` as
    `log_lines` says but for what a line holds."""
    from vbr.source_files import Unreadable, regular_file
    try:
        f = regular_file(path)
    except Unreadable as exc:
        raise _Unread(_WHY_UNREAD.get(exc.kind) or (exc.detail or exc.kind).lower()) from None
    with f:
        read, number = 0, 0
        while True:
            raw = f.readline(MAX_LOG_LINE + 1)
            if not raw:
                break
            number += 1
            read += len(raw)
            if read > MAX_LOG_BYTES:
                raise _Bad(number, f"the log is longer than {MAX_LOG_BYTES // (1024 * 1024)} MB, the most vbr reads")
            if len(raw) > MAX_LOG_LINE and not raw.endswith(b"\n"):
                raise _Bad(number, f"the line is longer than {MAX_LOG_LINE:,} bytes, the most vbr reads of one event")
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8").removesuffix("\n")  # a BOM an editor put first
            except UnicodeDecodeError:
                raise _Bad(number, "not a vbr log: not UTF-8 text") from None
            yield number, text
        if number == 0:
            raise _Bad(1, "the log is empty")


def _line(number: int, text: str) -> dict:
    if _too_deep(text):
        raise _Bad(number, f"not a vbr log line: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    if number == 1:
        return _parse(1, text, Header)
    e = _loaded(number, text)
    return _validated(number, e, ChoiceEvent if e.get("t") == "choice" else Event)  # a choice is an Event


# a string; an unterminated one runs to the end of the line, so that each character is read once
# (not again from each of its escaped quotes, which is quadratic in the line)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?')
_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    """Whether arrays and objects nest deeper than MAX_JSON_DEPTH (strings' contents aside)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:  # too few brackets, in strings or not
        return False
    depth = 0
    for b in _BRACKET.findall(_JSON_STRING.sub("", text)):
        depth += 1 if b in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            return True
    return False


def shown(event: dict) -> str:
    """An event as a message quotes it: its JSON, cut to MAX_SHOWN characters."""
    return cut(dumps(event), MAX_SHOWN)


def cut(text: str, most: int) -> str:
    """`text` cut to `most` characters, the cut saying how many more there were."""
    return text if len(text) <= most else f"{text[:most]}… ({len(text) - most:,} more characters)"


def replay(path: Path, engine: str | None = None) -> ReplayResult:
    """Play the log's game again from its header and its choices, through `engine` (python or c;
    default: the engine the log names); ok when every event comes out the same. Stops at the first
    line that differs, and says which. A log the closure engine recorded (its header names no
    engine) is refused, saying to record it again; so is a log drawn from another random generator
    than the engine's, naming both, and a log of another format of events than this vbr writes
    (TYPED_LOG_FORMAT), naming both. A log that cannot be read at all is said as `vbr replay` says
    it, `vbr: error: cannot read LOG: no such file`; any other wrong log at its line, `LOG:N: error: ...`."""
    try:
        return _replay(path, engine)
    except _Unread as unread:  # as the CLI says a file it cannot read: no line to point at
        return ReplayResult(False, f"vbr: error: cannot read {path}: {unread.message}")
    except _Bad as bad:
        return ReplayResult(False, f"{path}:{bad.line}: error: {bad.message}")


def _replay(path: Path, engine: str | None) -> ReplayResult:
    logged = _log_texts(path)
    head = _line(*next(logged))
    if head.get("engine") is None:
        raise _Bad(1, "this log was recorded by the closure engine, which this vbr no longer has, so it cannot "
                      "be played again: record the game again with --engine python or c")
    if engine is None and head["engine"] not in ENGINES:
        raise _Bad(1, f"this log was recorded by the {cut(head['engine'], 40)} engine, which this vbr does not have "
                      f"(it has {' and '.join(ENGINES)}): replay it with --engine {' or '.join(ENGINES)}, or with the "
                      "vbr that wrote it")
    engine = engine or head["engine"]
    recorded, drawn = head.get("generator"), generator_of(engine)
    if recorded is None:
        raise _Bad(1, f"this log names no random generator (its header has no `generator`), so it cannot be known to "
                      f"be the game --engine {engine} plays, drawing from {drawn}: record the game again")
    if recorded != drawn:
        raise _Bad(1, f"this log was recorded with {recorded}; --engine {engine} draws from {drawn}, so it cannot "
                      f"play the same game (replay it with {_engines_drawing(recorded)})")
    _same_format(head)
    rules = head["rules"]
    if not _is_file(rules) and head.get("bundled"):
        rules = head["bundled"]  # the log travelled to another machine or checkout
    try:
        loaded = _load(rules, head.get("options") or {}, engine)
    except (VbrError, ValueError) as exc:
        raise _Bad(1, cut(f"cannot load the rules this log names: {exc}", MAX_QUOTED)) from None
    except EngineUnavailable as exc:
        others = [e for e in ENGINES if e != engine and generator_of(e) == drawn]
        hint = f" (--engine {' or '.join(others)} draws from the same generator)" if others else ""
        from vbr.engines.c_engine import CEngineUnavailable
        why = str(exc) if isinstance(exc, CEngineUnavailable) else exc.located()  # its located() is a whole `vbr: error:` line
        raise _Bad(1, f"the {engine} engine cannot replay this log: {why}{hint}") from None
    with stop_signals.held():  # each logged call into C holds Ctrl-C back at the cost of a count, not system calls
        game = _Replaying(loaded, head["seed"])
        try:
            count, stopped = _compare(game, logged)
        except _Bad as bad:
            if game.fault is not None:  # what the replay stopped at, said in full
                bad.message += "\n" + game.fault.render()
            bad.message += "".join("\n" + note for note in _changed_since(head, loaded, rules))
            raise
    if stopped and game.made() > count:
        return ReplayResult(True, f"{path}: reproduces exactly up to where the run was stopped, inside the rules' "
                                  f"run ({count} events; the replay goes on past them)")
    if game.fault is not None:
        return ReplayResult(False, f"{game.fault.render()}\n{path}: reproduces exactly up to this error in the rules "
                                   f"({count} events)")
    return ReplayResult(True, f"{path}: reproduces exactly ({count} events, {game.how_it_ended()})",
                        game.outcome())


def _compare(game: "_Replaying", logged: Iterator[tuple[int, str]]) -> tuple[int, bool]:
    """Each logged event (the log's lines after its header, numbered, as text) against the
    replay's, each logged choice applied; the number of events, and whether the log ends at
    STOPPED (the replay may then have made more); `_Bad` at the first line that differs, and at a
    STOPPED line that is not the last. A line that is the replay's event as vbr writes it, byte
    for byte, is that event; any other line is read and checked (`_line`), and compared as JSON."""
    count = 0
    for j, (line, text) in enumerate(logged):  # the log is read as it is replayed: a divergence stops the reading
        count = j + 1
        if _written_as_made(game, j, text):
            continue
        e = _line(line, text)
        if e["t"] == STOPPED["t"]:
            if dumps(e) != dumps(STOPPED):
                raise _Bad(line, f"not a vbr log line: a `stopped` line has nothing but `t` ({shown(e)})")
            if next(logged, None) is not None:
                raise _Bad(line + 1, "a log ends at its `stopped` line: nothing follows it")
            return j, True
        if e["t"] != "choice":
            _same_event(game, j, e)
            continue
        # everything before this choice came out as logged, and nothing more
        _nothing_more(game, j)
        game.forget(j)  # compared: a replay keeps the events since the last choice, not the game's
        seat = game.seat()
        if seat is None:
            raise _Bad(line, "the logged choice is not on replay: " + game.why_no_choice())
        offered = game.offered()
        i = e.get("index")
        if i is None:  # a log written before choices kept their index: the first option of that text
            i = next((k for k, (t, _) in enumerate(offered) if t == e["action"]), len(offered))
        if e["seat"] != seat or i >= len(offered) or offered[i][0] != e["action"] \
                or e.get("kind", offered[i][1]) != offered[i][1]:
            listed = ", ".join(f"{k}: {t} ({kind})" for k, (t, kind) in enumerate(offered))
            raise _Bad(line, f"the logged choice {e['seat']} {e['action']} (option {i}, {e.get('kind', 'any kind')}) "
                             f"is not legal on replay: seat {seat} is offered {listed}")
        game.apply(i)
        if _made(game, j) != text:
            _same_event(game, j, e)
    if game.made() > count:
        raise _Bad(count + 2, "differs on replay: the log ends here, and the replay goes on (is the log cut short?)"
                              f"\n  replayed: {shown(game.event(count))}")
    return count, False


def _same_format(head: dict) -> None:
    """A typed engine's log of TYPED_LOG_FORMAT's events, else `_Bad` at the header saying which
    format it has and which this vbr writes."""
    recorded = head.get("format") or 1
    if recorded == TYPED_LOG_FORMAT:
        return
    age = "an older" if recorded < TYPED_LOG_FORMAT else "a newer"
    held = _TYPED_LOG_FORMATS.get(recorded)
    raise _Bad(1, f"this log was recorded by {age} log format (format {recorded}{': ' + held if held else ''}); "
                  f"this vbr's typed engines write and replay format {TYPED_LOG_FORMAT} "
                  f"({_TYPED_LOG_FORMATS[TYPED_LOG_FORMAT]}), so the two cannot be compared: "
                  + ("record the game again" if recorded < TYPED_LOG_FORMAT else "replay it with the vbr that wrote it"))


def _changed_since(head: dict, game, played: str) -> list[str]:
    """Notes on why a replay of the log whose header is `head` may differ where nothing in the log
    was edited: the rules' texts are not those it was played with (its `rules_digest`), or another
    vbr wrote it. `played` names the rules the replay loaded: the header's `bundled` when the file
    it names is not here."""
    notes = []
    if head.get("rules_digest") not in (None, rules_digest(game)):
        if played != head["rules"]:
            notes.append(f"note: this log names {cut(head['rules'], 200)}, which is not here, so the replay played the "
                         f"bundled {cut(played, 40)} its header names instead, and that is not the text the log was "
                         "played with (another version of the book, or another book)")
        else:
            notes.append(f"note: {game.path} has changed since this log was recorded (its text, or that of a file "
                         "it extends, is not the one played then): the replay plays the rules as they are now")
    if head["vbr"] != __version__:
        notes.append(f"note: this log was recorded by vbr {cut(head['vbr'], 40)}, and this is vbr {__version__}: "
                     "a change in vbr between the two may play the game otherwise")
    return notes


def _engines_drawing(generator: str) -> str:
    engines = [e for e in ENGINES if generator_of(e) == generator]
    return " or ".join(f"--engine {e}" for e in engines) if engines else "the vbr that wrote it"


def _is_file(name: str) -> bool:
    """Whether the log's rule file is there; False where the file system refuses the name itself (too
    long, say), which loading it then says in the log's words."""
    try:
        return Path(name).is_file()
    except OSError:
        return False


def _load(rules, options: dict, engine: str):
    from vbr.engines.game import load
    return load(rules, options, engine=engine)


class _Replaying:
    """A log's game being played again through a typed engine (vbr.engines: python or c): `state`
    is the engine's, `log` the events it has made so far. An error in the rules stops it: `fault`
    is the error, and `log` ends with its `fault_event`, as `vbr run --log` writes it."""

    def __init__(self, game, seed: int):
        self.log = []  # the events made since the first `forgotten`
        self.forgotten = 0
        self.fault: VbrError | None = None
        self.state = None
        self.rules = game.path
        try:
            self.state = game.new_state(seed, log=self.log)
        except VbrError as exc:
            self._stop(exc)

    def made(self) -> int:
        """How many events the game has made so far."""
        return self.forgotten + len(self.log)

    def event(self, k: int) -> dict | None:
        """The game's `k`-th event (not one forgotten), or None if it has not made it."""
        return self.log[k - self.forgotten] if k < self.made() else None

    def forget(self, upto: int) -> None:
        """Let go of the events before the `upto`-th, compared already."""
        del self.log[:upto - self.forgotten]
        self.forgotten = max(self.forgotten, upto)

    def why_no_choice(self) -> str:
        if self.fault is not None:
            return "the game stopped at an error in the rules"
        return "the game is over" if self.state.is_terminal() else "no choice is pending"

    def apply(self, i: int) -> None:
        try:
            self.state.apply_index(i)
        except VbrError as exc:
            self._stop(exc)

    def _stop(self, exc: VbrError) -> None:
        self.fault = exc
        self.log.append(fault_event(exc, self.rules))

    def outcome(self):
        return self.state.outcome()

    def how_it_ended(self) -> str:
        return _how_it_ended(self.outcome(), self.seat())

    def seat(self) -> int | None:
        return None if self.fault is not None else self.state.current_player()

    def offered(self) -> list[tuple[str, str]]:
        """The pending choice's options: (text, kind) each, as a log writes them."""
        return [self.state.option_text(i) for i in range(len(self.state.options()))]


def _how_it_ended(outcome, seat: int | None) -> str:
    """The game's result (`seat 0 wins`), or, for a game left before its end, that it was."""
    if outcome is not None:
        return str(outcome)
    if seat is not None:
        return f"the game was left unfinished, seat {seat} to choose"
    return "the game was left unfinished"


def _same_event(game: _Replaying, k: int, logged: dict) -> None:
    """The replay's k-th event is the log's (the game has made every event up to its next choice
    when this is asked); else `_Bad` at the log's line, quoting both (cut to MAX_SHOWN)."""
    a = game.event(k)
    if a is None:
        raise _Bad(k + 2, f"differs on replay: the replay has no such event\n  logged:   {shown(logged)}")
    if logged["t"] == "choice" and "index" not in logged:  # logged before choices kept index and kind
        a = {key: v for key, v in a.items() if key not in ("index", "kind")}
    if dumps(a) != dumps(logged):
        raise _Bad(k + 2, f"differs on replay\n  logged:   {shown(logged)}\n  replayed: {shown(a)}")


def _made(game: _Replaying, k: int) -> str | None:
    """The replay's k-th event as vbr writes it in a log (`dumps`), or None if it has not made it."""
    a = game.event(k)
    return None if a is None else dumps(a)


def _written_as_made(game: _Replaying, k: int, text: str) -> bool:
    """Whether the log's line `text`, its k-th event, is the replay's k-th event as vbr writes it,
    byte for byte, and reading it would find it so: an event the engine made is an object naming
    its kind, with no number JSON does not allow (the engines' values are integers), and `text`
    is no deeper than MAX_JSON_DEPTH. A choice, which the replay makes only once it is applied,
    and a `stopped` line, which ends the log, are read."""
    a = game.event(k)
    if a is None or a["t"] in ("choice", STOPPED["t"]) or dumps(a) != text:
        return False
    return not _too_deep(text)


def _nothing_more(game: _Replaying, upto: int) -> None:
    """The replay made no event the log lacks before line `upto + 2`."""
    if game.made() > upto:
        raise _Bad(upto + 2, f"differs on replay: the replay has another event here\n  replayed: {shown(game.event(upto))}")
