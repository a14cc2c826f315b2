"""Per-game rows read back: the files `vbr sim --out`, `vbr sweep --rows` and `vbr compare --rows`
write, merged into runs again (`vbr summarize`, `vbr compare --base-rows`).

A row names what was played (`metrics.RUN_FIELDS`: its arm, rule file, options, engine and
`--restrict` rules); rows with the same rule file, options, engine, restrictions and agents (in
any seating) are one *arm*, whatever file or run they came from,
and a game played twice (the same arm, seed and seating: a file given twice, a run repeated) is
counted once. A JSON-lines file keeps every value's type; a CSV file is read back from the text
`output.rows_text` writes (`3-2` for a score, `random;greedy` for agents, empty for none).
"""
from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from vbr.analysis.trial import Trial


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

    @property
    def key(self) -> tuple:
        return (self.rules, tuple(sorted(self.rule_options.items())), self.engine, self.agents, self.restrict)


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
            try:
                t = Trial.from_row(r)
            except (ValueError, TypeError, KeyError) as exc:
                raise RowsError(f"{path}:{line}:1: error: {exc}") from None
            arm = _arm_of(r, t)
            arm = arms.setdefault(arm.key, arm)
            game = (arm.key, t.seed, tuple(t.agents))
            if game in seen:
                duplicates += 1
                continue
            seen.add(game)
            arm.trials.append(t)
    return Merged(list(arms.values()), duplicates, len(paths))


def _arm_of(r: dict, t: Trial) -> Arm:
    options = {str(k): str(v) for k, v in (r.get("rule_options") or {}).items()}
    restrict = tuple(str(x) for x in r.get("restrict") or ())
    label = r.get("arm") or ", ".join(f"{k}={v}" for k, v in options.items()) or "no options"
    if restrict and not r.get("arm"):
        label += f" (restricted: {' '.join(restrict)})"
    return Arm(str(r.get("rules") or ""), options, str(r.get("engine") or "closure"), tuple(sorted(t.agents)), label,
               restrict)


def read_file(path: Path):
    """(line number, row as a dict) for each row of a .jsonl or .csv file."""
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise RowsError(f"{path}: error: a rows file ends in .jsonl or .csv")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        from vbr.cli_common import file_error
        raise RowsUnreadable(file_error(exc, "read")) from None
    except UnicodeDecodeError:
        raise RowsUnreadable(f"cannot read {path}: not UTF-8 text") from None
    if suffix == ".jsonl":
        yield from _jsonl(path, text)
    else:
        for n, r in enumerate(csv.DictReader(text.splitlines()), start=2):
            yield n, _from_csv(path, n, r)


def _jsonl(path: Path, text: str):
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RowsError(f"{path}:{n}:{exc.colno}: error: not JSON ({exc.msg})") from None
        if not isinstance(r, dict):
            raise RowsError(f"{path}:{n}:1: error: a row is a JSON object, not {type(r).__name__}")
        yield n, r


_NUMBER = re.compile(r"-?\d+(\.\d+)?$")
_DASH = re.compile(r"(?<=[\d.])-")  # the dash between two numbers of a score, not a minus sign


def _from_csv(path: Path, line: int, r: dict) -> dict:
    """A CSV row with its values typed again, as JSON lines would have kept them."""
    try:
        out = {k: _scalar(v) for k, v in r.items() if k is not None}
        out["agents"] = r["agents"].split(";") if r.get("agents") else []
        out["score"] = _numbers(r["score"]) if r.get("score") else None
        cells = r["score_track"].split(";") if r.get("score_track") else []
        out["score_track"] = [[int(c), _numbers(s)] for c, s in zip(cells[::2], cells[1::2])]
        if r.get("restricted"):  # `3-0`: choices narrowed, choices played whole
            out["restricted"] = _numbers(r["restricted"])
        out["restrict"] = r["restrict"].split(";") if r.get("restrict") else []
        for k in ("rule_options", "measure_kinds"):  # NAME=VALUE;NAME=VALUE
            if r.get(k) is not None:
                out[k] = dict(kv.split("=", 1) for kv in r[k].split(";") if kv)
        for k in ("arm", "rules", "engine"):
            if k in r:
                out[k] = r[k]
    except (KeyError, ValueError) as exc:
        raise RowsError(f"{path}:{line}:1: error: not a game row of vbr ({exc})") from None
    return out


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
