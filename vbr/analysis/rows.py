"""Per-game rows read back: the files `vbr sim --out`, `vbr sweep --rows` and `vbr compare --rows`
write, merged into runs again (`vbr summarize`, `vbr compare --base-rows`).

A row names what was played (`metrics.RUN_FIELDS`: its arm, rule file, options, engine and
`--restrict` rules); rows with the same rule file, options, engine, restrictions and agents (in
any seating) are one *arm*, whatever file or run they came from,
and a game played twice (the same arm, seed, seating and index in its run: a file given twice, a
run repeated) is counted once. Not the seed and seating alone: game seeds are 31 bits
(`vbr.sim.game_seed`), so a run of tens of thousands of games plays some deal twice, at two indices,
and both games are in it. A JSON-lines file keeps every value's type; a CSV file is read back from the text
`output.rows_text` writes (`3-2` for a score, `random;greedy` for agents, empty for none).
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from vbr.analysis.output import inert_undone, pair_value_undone
from vbr.analysis.trial import Trial
from vbr.restrict import same_rules


class RowsError(ValueError):
    """A rows file that cannot be read as games: `FILE:LINE:1: error: ...`."""


class RowsUnreadable(RowsError):
    """A rows file that cannot be read at all, said in words without a place: `cannot read
    FILE: no such file` (the command puts `vbr: error: ` or its flag before it)."""


@dataclass
class Arm:
    """The games of one rule file under one set of options, one engine and one set of `--restrict`
    rules, by one set of agents."""

    rules: str
    rule_options: dict  # name -> value as text
    engine: str
    agents: tuple  # the agents that played, sorted (the same in every seating)
    label: str  # the arm the rows were written as (base, variant, a sweep's combination), or its options
    restrict: tuple = ()  # the `--restrict` rules in force (SEAT=RULE each), none for unrestricted play
    trials: list[Trial] = field(default_factory=list)
    sides: int = 0  # how many sides every game of the arm has
    where: str = ""  # FILE:LINE of the arm's first row
    file: str = ""  # the rule file itself (`same_file`), whichever way its rows name it

    def check_game(self, sides: int, seats: int) -> None:
        """RowsError, at the arm's first row, unless its games have the sides and seats (one agent
        each) of the game its rule file plays under its options."""
        agents = len(self.trials[0].agents) if self.trials else seats
        if (self.sides, agents) != (sides, seats):
            raise RowsError(f"{self.where}:1: error: these games have {self.sides} sides and {agents} agents, but "
                            f"{self.rules} under these options has {sides} sides and {seats} seats")

    @property
    def key(self) -> tuple:
        return (self.file or self.rules, tuple(sorted(self.rule_options.items())), self.engine, self.agents,
                same_rules(self.restrict))


@dataclass
class Merged:
    arms: list[Arm]
    duplicates: int  # games seen more than once, counted once
    files: int


def read(paths: list[str]) -> Merged:
    """The arms of every row of the files, in the order they first appear."""
    arms: dict[tuple, Arm] = {}
    seen: set = set()
    duplicates = 0
    for path in paths:
        for line, r in read_file(Path(path)):
            t = _trial(path, line, r)
            arm = _arm_of(r, t, f"{path}:{line}")
            key = arm.key
            arm = arms.setdefault(key, arm)
            if t.sides != arm.sides:
                raise RowsError(f"{path}:{line}:1: error: this game has {t.sides} sides, the games before it of the "
                                f"same rule file, options and agents {arm.sides}")
            game = (key, t.seed, tuple(t.agents), t.index)
            if game in seen:
                duplicates += 1
                continue
            seen.add(game)
            arm.trials.append(t)
    return Merged(list(arms.values()), duplicates, len(paths))


# ------------------------------------------------------------------------------ what a row may hold
# A rows file is untrusted, like a log: each row is checked against what vbr writes before a figure
# is computed from it (a side of 10**30 would have the summary count 10**30 sides' wins).
INT_MAX = 2 ** 63 - 1  # the engines' integers, and seeds
Count = Annotated[StrictInt, Field(ge=0, le=INT_MAX)]
Number = Annotated[StrictInt, Field(ge=-INT_MAX, le=INT_MAX)]
Scalar = Union[StrictBool, StrictInt, StrictStr]
MeasureValue = Optional[Union[StrictBool, Number]]
MeasureKind = Literal["side", "int", "bool"]


class GameRow(BaseModel):
    """The columns of a game row (`metrics.row`, or `Trial.to_row`) a summary reads, with the
    types and ranges vbr writes them in; the other columns are figures computed again from these."""

    model_config = ConfigDict(extra="allow")
    index: Count
    seed: Count
    agents: list[StrictStr] = Field(min_length=1)
    sides: StrictInt = Field(ge=1)
    winner: Optional[Count]
    score: Optional[list[Number]] = None
    points: Optional[list[Number]] = None
    choices: Count
    forced: Count
    offered: Count = 0
    options: Count = 0
    first_side: Optional[Count]
    score_track: list[tuple[Count, list[Number]]]
    restricted: tuple[Count, Count] = (0, 0)
    measures: dict[StrictStr, tuple[MeasureKind, MeasureValue]] = {}
    measure_kinds: dict[StrictStr, MeasureKind] = {}
    arm: Optional[StrictStr] = None
    rules: Optional[StrictStr] = None
    rule_options: Optional[dict[StrictStr, Scalar]] = None
    engine: Optional[Literal["c", "python", "closure"]] = None  # the engines that have played games (closure: retired)
    restrict: Optional[list[StrictStr]] = None


def _inconsistent(t: Trial) -> str | None:
    """What in a well-typed row no game could have written: a side past its sides, a score of
    another number of sides, more forced choices than choices, a measure's value of another kind."""
    sides = range(t.sides)
    if t.winner is not None and t.winner not in sides:
        return f"winner {t.winner} of {t.sides} sides"
    if t.first_side is not None and t.first_side not in sides:
        return f"first_side {t.first_side} of {t.sides} sides"
    scores = ([t.points] if t.points is not None else []) + [s for _, s in t.score_track]
    if any(len(s) != t.sides for s in scores):
        return f"a score of {next(len(s) for s in scores if len(s) != t.sides)} sides in a game of {t.sides}"
    if t.forced > t.choices:
        return f"{t.forced} forced choices of {t.choices}"
    for name, (kind, value) in t.measures.items():
        if not _measure_fits(kind, value, sides):
            return f"measure {name!r} of kind {kind} is {value!r}"[:200]
    return None


def _measure_fits(kind: str, value, sides: range) -> bool:
    """Whether a measure of `kind` may hold `value`: none (unset), a bool for a bool measure, an
    integer for an int one, one of the sides for a side one."""
    if value is None:
        return True
    if kind == "bool" or isinstance(value, bool):
        return kind == "bool" and isinstance(value, bool)
    return isinstance(value, int) and (value in sides if kind == "side" else -INT_MAX <= value <= INT_MAX)


def _trial(path, line: int, r: dict) -> Trial:
    """The game row `r` (at `path`:`line`) holds; RowsError saying it is no game row at all (neither
    index nor winner: the rows of another command, or a summary), naming the columns it lacks, or every
    column whose value no vbr writes (GameRow)."""
    if not any(k in r for k in ("index", "winner")):  # another file's rows (a summary has a seed): no older vbr's
        raise RowsError(f"{path}:{line}:1: error: not a game row of vbr (no index or winner: per-game rows are "
                        f"what `vbr sim --out`, `vbr sweep --rows` and `vbr compare --rows` write, not `vbr "
                        f"importance --out` or a summary's)")
    need = [k for k in ("index", "seed", "agents", "sides", "winner", "choices", "forced", "first_side", "score_track")
            if k not in r] + [k for k, alt in (("score", "points"), ("offered", "options")) if k not in r and alt not in r]
    if need:
        raise RowsError(f"{path}:{line}:1: error: a game row without {', '.join(need)} (rows written by an older vbr "
                        f"lack them: play the run again)")
    try:
        GameRow.model_validate(r)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
        raise RowsError(f"{path}:{line}:1: error: not a game row of vbr ({problems})") from None
    t = Trial.from_row(r)
    if why := _inconsistent(t):
        raise RowsError(f"{path}:{line}:1: error: not a game row of vbr ({why})")
    return t


def _arm_of(r: dict, t: Trial, where: str) -> Arm:
    options = {str(k): str(v) for k, v in (r.get("rule_options") or {}).items()}
    restrict = tuple(str(x) for x in r.get("restrict") or ())
    label = r.get("arm") or ", ".join(f"{k}={v}" for k, v in options.items()) or "no options"
    if restrict and not r.get("arm"):
        label += f" (restricted: {' '.join(restrict)})"
    rules = str(r.get("rules") or "")
    return Arm(rules, options, str(r.get("engine") or "closure"), tuple(sorted(t.agents)), label,
               restrict, sides=t.sides, where=where, file=same_file(rules))


def same_file(rules: str) -> str:
    """The rule file a row names, as one name whichever way the row names it (`docs/x.vbr`,
    `./docs/x.vbr`, its absolute path: a relative one is taken from the current folder): the
    file's absolute path with its links followed, where it exists; else the name as given."""
    return _same_file(rules, os.getcwd())


@lru_cache(maxsize=256)
def _same_file(rules: str, cwd: str) -> str:
    """`same_file` in the folder `cwd` (the current one: a name is looked up once in each)."""
    try:
        path = Path(rules)
        return str(path.resolve()) if rules and path.is_file() else rules
    except (OSError, ValueError, RuntimeError):  # a name too long, with a NUL, a loop of links: no file
        return rules


def read_file(path: Path):
    """(line number, row as a dict) for each row of a .jsonl or .csv file: a regular file (no
    device is read, no pipe waited on) of UTF-8 text; a byte-order mark before it (a spreadsheet's
    "CSV UTF-8") is dropped, as from a rule file or a log."""
    from vbr.source_files import Unreadable, regular_file
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise RowsError(f"{path}: error: a rows file ends in .jsonl or .csv")
    try:
        with regular_file(path) as f:
            text = f.read().decode("utf-8").removeprefix("\ufeff")
    except Unreadable as exc:
        reason = {"missing": "no such file", "directory": "is a directory"}.get(exc.kind) or exc.detail or exc.kind
        raise RowsUnreadable(f"cannot read {path}: {reason}") from None
    except OSError as exc:
        from vbr.cli_common import file_error
        raise RowsUnreadable(file_error(exc, "read")) from None
    except UnicodeDecodeError:
        raise RowsUnreadable(f"cannot read {path}: not UTF-8 text") from None
    if suffix == ".jsonl":
        yield from _jsonl(path, text)
    else:
        yield from _csv(path, text)


def _csv(path: Path, text: str):
    """The rows of CSV text, read as the csv module reads a file opened with `newline=""`: a
    quoted cell keeps its line breaks (no `splitlines`, which also breaks at U+2028 and others)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for r in reader:
            n = reader.line_num
            _whole(path, n, r, len(set(reader.fieldnames)))
            yield n, _from_csv(path, n, r)
    except csv.Error as exc:
        raise RowsError(f"{path}:{reader.reader.line_num}:1: error: not CSV ({exc})") from None  # the line it read


def _whole(path: Path, line: int, r: dict, columns: int) -> None:
    """A RowsError unless the CSV row `r` has a cell for each of the header's `columns`, as every
    row vbr writes has (a row cut short, or one with cells past the header, was not)."""
    cells = sum(v is not None for k, v in r.items() if k is not None) + len(r.get(None) or ())
    if cells != columns:
        raise RowsError(f"{path}:{line}:1: error: not a game row of vbr (it has {cells} cells; "
                        f"the header names {columns} columns)")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _jsonl(path: Path, text: str):
    """The rows of JSON lines: one a line ended by a newline alone (a `\r` before it is JSON's
    white space), as JSON may hold U+2028, NEL and other characters `splitlines` breaks at."""
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise RowsError(f"{path}:{n}:{exc.colno}: error: not JSON ({exc.msg})") from None
        except ValueError as exc:  # NaN or Infinity, or an integer of thousands of digits
            raise RowsError(f"{path}:{n}:1: error: not a game row of vbr ({_why(exc)})") from None
        except RecursionError:
            raise RowsError(f"{path}:{n}:1: error: not a game row of vbr (JSON nested too deep)") from None
        if not isinstance(r, dict):
            raise RowsError(f"{path}:{n}:1: error: a row is a JSON object, not {type(r).__name__}")
        yield n, r


def _why(exc: ValueError) -> str:
    """A refused number in words: Python's own limit on digits names a setting of Python's."""
    return "an integer of thousands of digits" if "sys.set_int_max_str_digits" in str(exc) else str(exc)


_NUMBER = re.compile(r"-?\d+(\.\d+)?$")
_DASH = re.compile(r"(?<=[\d.])-")  # the dash between two numbers of a score, not a minus sign


def _from_csv(path: Path, line: int, r: dict) -> dict:
    """A CSV row with its values typed again, as JSON lines would have kept them."""
    try:
        out = {k: _scalar(v) for k, v in r.items() if k is not None}
        out["agents"] = r["agents"].split(";") if r.get("agents") else []
        out["score"] = _numbers(r["score"]) if r.get("score") else None
        cells = r["score_track"].split(";") if r.get("score_track") else []
        out["score_track"] = [[_scalar(c), _numbers(s)] for c, s in zip(cells[::2], cells[1::2])]
        if r.get("restricted"):  # `3-0`: choices narrowed, choices played whole
            out["restricted"] = _numbers(r["restricted"])
        out["restrict"] = inert_undone(r["restrict"]).split(";") if r.get("restrict") else []
        for k in ("rule_options", "measure_kinds"):  # NAME=VALUE;NAME=VALUE
            if r.get(k) is not None:
                out[k] = _pairs(k, r[k])
        if "engine" in r:
            out["engine"] = r["engine"]
        if "arm" in r:
            out["arm"] = inert_undone(r["arm"])
        if "rules" in r:
            out["rules"] = _rule_file(r["rules"])
    except (KeyError, ValueError) as exc:
        raise RowsError(f"{path}:{line}:1: error: not a game row of vbr ({_why(exc)})") from None
    return out


def _pairs(column: str, cell: str) -> dict:
    """The `NAME=VALUE;NAME=VALUE` cell `output._cell` wrote of a dict in `column`, each value as
    the run gave it: `inert`'s escapes undone, then `output.pair_value`'s (a value's own `;` and
    `%`). A ValueError naming a pair without `=`."""
    out = {}
    for pair in inert_undone(cell).split(";"):
        name, eq, value = pair.partition("=")
        if pair and not eq:
            raise ValueError(f"{column}: `{pair[:100]}` is no NAME=VALUE pair")
        if pair:
            out[name] = pair_value_undone(value)
    return out


def _rule_file(cell: str) -> str:
    """The rule file a CSV row names: the name its run was given, which `inert` wrote as `cell`
    (vbr.analysis.output.inert_undone), unless only `cell` as written names a file."""
    if "\\" not in cell and not cell.startswith("'"):
        return cell  # nothing inert changes
    name = inert_undone(cell)
    return cell if name != cell and _exists(cell) and not _exists(name) else name


def _exists(name: str) -> bool:
    try:
        return Path(name).exists()
    except (OSError, ValueError):  # a name too long, or with a NUL in it: no file
        return False


def _scalar(v: str):
    if v == "":
        return None
    if v in ("true", "false"):
        return v == "true"
    if _NUMBER.match(v):
        return float(v) if "." in v else int(v)
    return v


def _numbers(text: str) -> list:
    """`9-6`, `4--2` (a minus after the dash) or `'-2-4`: a list of numbers whose first is negative
    starts with the quote `output.inert` puts before a cell that starts like a formula."""
    if text.startswith("'-"):
        text = text[1:]
    return [_scalar(x) for x in _DASH.split(text)]
