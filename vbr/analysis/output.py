"""Writing results to files: checked before any game is played, and written whole or not at all.

A run can take hours; finding out at the end that `--out` points nowhere would waste them, so
`check_file` and `check_dir` look first. Files are written to a temporary name beside the target and
renamed over it, so a Ctrl-C or a crash never leaves half a file.
"""
from __future__ import annotations

import csv
import io
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from vbr.atomic_file import can_create_in, no_folder, streamed, write_atomic
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
        raise UsageError(f"{flag} {given}: {no_folder(d)}")
    why = can_create_in(d)
    if why is not None:
        raise UsageError(f"{flag} {given}: cannot write into {d}")


def rows_text(path: Path, rows: list[dict], columns=None) -> str:
    """JSON lines keep every value's type; CSV flattens lists and dicts (see `_cell`). A CSV's
    columns are every row's, in the order they first appear (the first row's first: a sweep's
    combinations may name their sides differently), else `columns` (a file of no row has its
    header still)."""
    from vbr.json_text import dumps
    if path.suffix.lower() == ".jsonl":
        return "".join(dumps(r, sort_keys=False) + "\n" for r in rows)
    if path.suffix.lower() == ".json":
        return dumps(rows, indent=1) + "\n"
    columns = list(dict.fromkeys(c for r in rows for c in r)) if rows else list(columns or ())
    return csv_text(rows, columns, header=True)


def csv_text(rows: list[dict], columns: list, header: bool) -> str:
    """These rows as CSV lines of these columns (`rows_text`), after the header line if `header`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if header:
        w.writerow([inert(c) for c in columns])
    for r in rows:
        w.writerow([_cell(r.get(c)) if _is_number(r.get(c)) else inert(_cell(r.get(c))) for c in columns])
    return buf.getvalue()


class _NoRows(Exception):
    """A stream of rows that ended with none: its file is left as it was."""


class RowStream:
    """Rows written to a file as they come (`add`), byte for byte what `rows_text` writes of them
    all (a CSV's columns `columns`, else the first row's, and any other of the first row's after
    them); see `streamed_rows`."""

    def __init__(self, f, path: Path, columns=None):
        self._file, self._jsonl = f, path.suffix.lower() == ".jsonl"
        self._columns: list | None = None
        self._given = list(columns or ())
        self.rows = 0

    def add(self, rows: list[dict]) -> None:
        """These rows appended after those added before."""
        if not rows:
            return
        if self._jsonl:
            from vbr.json_text import dumps
            text = "".join(dumps(r, sort_keys=False) + "\n" for r in rows)
        else:
            header = self._columns is None
            if header:
                self._columns = self._given + [c for c in rows[0] if c not in self._given]
            text = csv_text(rows, self._columns, header)
        self._file.write(text.encode("utf-8"))
        self.rows += len(rows)


@contextmanager
def streamed_rows(path: Path, columns=None) -> Iterator[RowStream]:
    """A `RowStream` into `path` (.jsonl or .csv; a CSV's columns `columns` where given: rows of
    several runs may have columns the first lacks), whose file becomes the whole of `path` once the
    block ends without an exception and with a row written at least; otherwise `path` is left as
    it was (vbr.atomic_file.streamed; a special file is written in place as the rows come)."""
    try:
        with streamed(Path(path)) as f:
            stream = RowStream(f, Path(path), columns)
            yield stream
            if not stream.rows:
                raise _NoRows
    except _NoRows:
        pass


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def inert(text: str) -> str:
    """A CSV text cell a spreadsheet shows rather than runs: its control characters (but the
    newline and the tab) and bidi controls shown as `\x1b` and `\u202e` (vbr.terminal.clean), as
    a terminal shows them; then, if it starts like a formula (`=`, `+`, `-`, `@`, a tab or a
    carriage return), OWASP's prefix, a single quote."""
    from vbr.terminal import clean
    text = clean(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def inert_undone(cell: str) -> str:
    """The text `inert` made the CSV cell `cell` from: the quote before a formula's first
    character dropped, the escapes of `clean` read back (vbr.terminal.unclean). Exact unless the
    text itself started with that quote or held such an escape."""
    from vbr.terminal import unclean
    if cell.startswith("'") and cell[1:].startswith(_FORMULA_START):
        cell = cell[1:]
    return unclean(cell)


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
        return ";".join(f"{k}={pair_value(_cell(x))}" for k, x in v.items())
    return str(v)


def pair_value(text: str) -> str:
    """A value of a `NAME=VALUE;NAME=VALUE` cell (`_cell` of a dict): its own `%` and `;` written
    `%25` and `%3B`, so the cell splits at its `;` alone (`pair_value_undone`)."""
    return text.replace("%", "%25").replace(";", "%3B")


def pair_value_undone(text: str) -> str:
    """The value `pair_value` wrote as `text`; a `%` it did not write (a cell of a vbr before it)
    stays as it is."""
    return re.sub("%(25|3B)", lambda m: "%" if m.group(1) == "25" else ";", text)


def write_rows(path: Path, rows: list[dict], columns=None) -> None:
    write_atomic(path, rows_text(path, rows, columns))
