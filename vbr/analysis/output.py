"""Writing results to files: checked before any game is played, and written whole or not at all.

A run can take hours; finding out at the end that `--out` points nowhere would waste them, so
`check_file` and `check_dir` look first. Files are written to a temporary name beside the target and
renamed over it, so a Ctrl-C or a crash never leaves half a file.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from vbr.atomic_file import can_create_in, write_atomic
from vbr.cli_common import refuse_link_out
from vbr.errors import UsageError

FORMATS = {".jsonl": "jsonl", ".csv": "csv", ".json": "json"}


def check_file(path: str | Path, flag: str, formats=(".jsonl", ".csv")) -> Path:
    """A file we may create or replace, of a known format."""
    p = Path(path)
    if p.suffix.lower() not in formats:
        raise UsageError(f"{flag} {path}: the file name must end in {' or '.join(formats)}")
    if p.is_dir():
        raise UsageError(f"{flag} {path}: is a directory")
    _check_dir(p.parent if str(p.parent) else Path("."), flag, path)
    refuse_link_out(p, flag)
    return p


def check_dir(path: str | Path, flag: str) -> Path:
    """A folder we may write into (made if missing, as long as its parent lets us)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"{flag} {path}: exists and is not a folder")
    probe = p
    while not probe.exists():
        probe = probe.parent
    _check_dir(probe, flag, path)
    return p


def _check_dir(d: Path, flag: str, given) -> None:
    if not d.is_dir():
        raise UsageError(f"{flag} {given}: the folder {d} does not exist")
    why = can_create_in(d)
    if why is not None:
        raise UsageError(f"{flag} {given}: cannot write into {d}")


def rows_text(path: Path, rows: list[dict], columns=None) -> str:
    """JSON lines keep every value's type; CSV flattens lists and dicts (see `_cell`). A CSV's
    columns are the first row's, else `columns` (a file of no row has its header still)."""
    from vbr.json_text import dumps
    if path.suffix.lower() == ".jsonl":
        return "".join(dumps(r, sort_keys=False) + "\n" for r in rows)
    if path.suffix.lower() == ".json":
        return dumps(rows, indent=1) + "\n"
    buf = io.StringIO()
    columns = list(rows[0]) if rows else list(columns or ())
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([inert(c) for c in columns])
    for r in rows:
        w.writerow([_cell(r.get(c)) if _is_number(r.get(c)) else inert(_cell(r.get(c))) for c in columns])
    return buf.getvalue()


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def inert(text: str) -> str:
    """A CSV text cell a spreadsheet shows rather than runs: its control characters (but the
    newline and the tab) and bidi controls shown as `\x1b` and `\u202e` (vbr.terminal.clean), as
    a terminal shows them; then, if it starts like a formula (`=`, `+`, `-`, `@`, a tab or a
    carriage return), OWASP's prefix, a single quote."""
    from vbr.terminal import clean
    text = clean(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _cell(v) -> str:
    """One CSV cell: a score as `9-6`, agents as `mcts;random`, none as empty."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        sep = "-" if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v) else ";"
        return sep.join(_cell(x) for x in v)
    if isinstance(v, dict):
        return ";".join(f"{k}={_cell(x)}" for k, x in v.items())
    return str(v)


def write_rows(path: Path, rows: list[dict], columns=None) -> None:
    write_atomic(path, rows_text(path, rows, columns))
