"""The language server's log on standard error: one line per record, never a traceback.

pygls logs what it cannot handle through `logging`, and with no handler set Python printed each
record whole: a message of JSON that does not parse, or whose params do not fit, wrote a Python
traceback of twenty to sixty lines into the editor's log, where vbr says what went wrong in one
line (`vbr lsp: ...`), as every other command does. `install()` gives pygls's loggers a handler
that writes, for each warning or error, the first line of its message and, when it carries an
exception, the exception's type and text; control characters escaped (vbr.terminal.clean).
"""
from __future__ import annotations

import logging
import sys

from vbr.terminal import clean


class OneLine(logging.Formatter):
    """A record as `vbr lsp: MESSAGE[: ExceptionType: text]`, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage().split("\n", 1)[0]
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text += f": {type(exc).__name__}: {exc}".split("\n", 1)[0]
        return "vbr lsp: " + clean(text)


def install(stream=None) -> None:
    """Send pygls's warnings and errors to `stream` (standard error) as OneLine writes them, and
    nowhere else."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(OneLine())
    handler.setLevel(logging.WARNING)
    log = logging.getLogger("pygls")
    log.handlers[:] = [handler]
    log.propagate = False
