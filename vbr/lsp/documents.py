"""The open documents, with their lines where the protocol puts them.

LSP counts lines at `\\n`, `\\r\\n` and `\\r` only, as vbr's parser does (vbr.grammar.parser
.normalize_newlines). pygls splits a document with `str.splitlines`, which also breaks a line at a
vertical tab, a form feed, `\\x1c`..`\\x1e`, NEL (`\\x85`) and U+2028/U+2029: a comment holding one
(`vbr check` accepts it) would put every later line one off, and an edit the editor made below it
would be applied to the wrong line, so the server's copy of the text would no longer be the
editor's.
`TextDocument` splits as the protocol does; `Workspace` makes every document it opens one.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from pygls.workspace import TextDocument as _PyglsDocument
from pygls.workspace import Workspace as _PyglsWorkspace

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def protocol_lines(text: str) -> list[str]:
    """`text`'s lines as LSP counts them, each with its line end (the last may have none)."""
    return _LINE.findall(text)


class TextDocument(_PyglsDocument):
    """pygls's document with LSP's line ends: edits, positions and words read lines so. The
    lines are split once per text, not at each position converted (an outline of 3,000 phases
    converts 6,000 ranges, and splitting the text for each took seconds)."""

    _split: tuple[str, tuple[str, ...]] | None = None  # (the text, its lines)

    @property
    def lines(self) -> Sequence[str]:
        text = self.source
        if self._split is None or self._split[0] is not text:
            self._split = (text, tuple(protocol_lines(text)))
        return self._split[1]


class Workspace(_PyglsWorkspace):
    """pygls's workspace, whose documents are `TextDocument`s."""

    @classmethod
    def like(cls, other: _PyglsWorkspace, sync_kind) -> "Workspace":
        """A workspace with `other`'s root, folders and position encoding, and no document yet
        (it replaces pygls's own as the client initializes, before any document is opened)."""
        return cls(other.root_uri, sync_kind, list(other.folders.values()), other.position_encoding)

    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return TextDocument(doc_uri, source=source, version=version, language_id=language_id,
                            sync_kind=self._sync_kind, position_codec=self.position_codec)
