"""The language server's standard input, bounded: LSP messages are untrusted input like a rule file.

pygls reads a message's header lines, then exactly its `Content-Length` bytes, and decodes them
as JSON. Unbounded, a `Content-Length: 99999999999999` made it ask for that many bytes at once
(the server died with `internal error: MemoryError`), and a body of arrays nested 200,000 deep
ended in a RecursionError traceback. Here a header line is read up to MAX_HEADER_LINE bytes, and
a body longer than MAX_MESSAGE_BYTES, or nested deeper than MAX_JSON_DEPTH, is refused: the
server says so on standard error in one line and stops (as at the end of its input), and
`vbr lsp` exits 1.
"""
from __future__ import annotations

import re
import sys

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a message: a rule file of 4 MB (limits.MAX_FILE_BYTES) fits, escaped
MAX_HEADER_LINE = 64 * 1024  # a header line, read at most this much at a time
MAX_JSON_DEPTH = 200  # arrays and objects in one another; LSP's own messages nest about ten deep

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


class BoundedInput:
    """`stream` (binary) as pygls reads it, `readline()` and `read(n)` bounded as above. After a
    refusal `refused` holds the one-line error, and every read returns nothing."""

    def __init__(self, stream):
        self.stream = stream
        self.refused: str | None = None

    def readline(self) -> bytes:
        return b"" if self.refused else self.stream.readline(MAX_HEADER_LINE)

    def read(self, n: int) -> bytes:
        if self.refused:
            return b""
        if n > MAX_MESSAGE_BYTES:
            return self._refuse(f"a message of {n:,} bytes (Content-Length), more than the "
                                f"{MAX_MESSAGE_BYTES:,} a message may have")
        body = self.stream.read(n)
        if _too_deep(body):
            return self._refuse(f"a message of JSON nested deeper than {MAX_JSON_DEPTH} levels")
        return body

    def _refuse(self, why: str) -> bytes:
        self.refused = f"vbr lsp: error: {why}; the server stops"
        print(self.refused, file=sys.stderr, flush=True)
        return b""


def _too_deep(body: bytes) -> bool:
    """Whether arrays and objects nest deeper than MAX_JSON_DEPTH (strings' contents aside)."""
    if body.count(b"[") + body.count(b"{") <= MAX_JSON_DEPTH:
        return False
    depth = 0
    for b in _BRACKET.findall(_JSON_STRING.sub(b"", body)):
        depth += 1 if b in b"[{" else -1
        if depth > MAX_JSON_DEPTH:
            return True
    return False
