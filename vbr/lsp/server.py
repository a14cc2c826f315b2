"""`vbr lsp`: a language server for .vbr files over stdio (pygls).

Every open document is analysed (analysis.py) when it is opened and once a burst of changes
pauses, and its problems are published: the checker's errors and warnings, with the same text as
`vbr check`, each at its range; what the typed program cannot express joins them on open, on
save, and once the edits have paused a little longer (building the program costs a keystroke's
analysis again). Requests read the analysis of the text as it is then: hover, go to definition, find
references, completion, formatting (`vbr fmt`) and the outline. Text of a rule file in any of
them (a comment in a hover, a phase's title, a file's name in a message) has its control
characters escaped, as `vbr check` shows it (vbr.terminal.clean).
"""
from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from vbr.errors import VbrError
from vbr.grammar.parser import normalize_newlines
from vbr.lsp import analysis as an
from vbr.lsp.documents import Workspace
from vbr.lsp.protocol import VbrProtocol
from vbr.terminal import clean

try:
    from importlib.metadata import version as _version
    VERSION = _version("vbr")
except Exception:  # not installed: running from a checkout
    VERSION = "0"

_KINDS = {
    "phase": T.SymbolKind.Method, "stage": T.SymbolKind.Namespace, "proc": T.SymbolKind.Function,
    "fn": T.SymbolKind.Function, "kind": T.SymbolKind.Struct, "zone": T.SymbolKind.Array,
    "enum": T.SymbolKind.Enum, "member": T.SymbolKind.EnumMember, "field": T.SymbolKind.Field,
    "var": T.SymbolKind.Variable, "const": T.SymbolKind.Constant, "option": T.SymbolKind.Property,
    "die": T.SymbolKind.Object, "event": T.SymbolKind.Event, "direction": T.SymbolKind.Constant,
    "on": T.SymbolKind.Event, "setup": T.SymbolKind.Constructor, "court": T.SymbolKind.Object,
    "scenario": T.SymbolKind.Method, "team": T.SymbolKind.Constant,
}
_COMPLETION_KINDS = {
    "phase": T.CompletionItemKind.Method, "stage": T.CompletionItemKind.Module,
    "proc": T.CompletionItemKind.Function, "fn": T.CompletionItemKind.Function,
    "kind": T.CompletionItemKind.Struct, "zone": T.CompletionItemKind.Variable,
    "enum": T.CompletionItemKind.Enum, "var": T.CompletionItemKind.Variable,
    "const": T.CompletionItemKind.Constant, "option": T.CompletionItemKind.Property,
    "die": T.CompletionItemKind.Value, "event": T.CompletionItemKind.Event,
    "direction": T.CompletionItemKind.Constant, "team": T.CompletionItemKind.Constant,
}


class Document:
    """What the server keeps of one open document."""

    def __init__(self, path: str):
        self.path = path
        self.cache = an.PieceCache()
        self.analysis: an.Analysis | None = None
        self.outline: list[an.Symbol] = []  # the last outline that had anything in it


DEBOUNCE_S = 0.3  # an edit is analysed once no other edit of the document has come for this long
BUILD_PAUSE_S = 1.0  # ... and its typed program built (an.with_refusal) once none has come for this long


class VbrLanguageServer(LanguageServer):
    def __init__(self):
        super().__init__("vbr", VERSION, text_document_sync_kind=T.TextDocumentSyncKind.Incremental,
                         protocol_cls=VbrProtocol)
        self.documents: dict[str, Document] = {}
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._building: dict[str, asyncio.TimerHandle] = {}
        self._published: dict[str, tuple] = {}  # uri -> (version, diagnostics) last published

    def publish_soon(self, uri: str) -> None:
        """Publish the document's diagnostics once its edits pause (DEBOUNCE_S), and again with
        what the typed program cannot express once they have paused for BUILD_PAUSE_S: a burst
        of keystrokes costs one analysis and one build, not one each. A request in between
        analyses the text as it is then, so its answer is never stale."""
        for pending in (self._pending, self._building):
            old = pending.pop(uri, None)
            if old is not None:
                old.cancel()
        loop = asyncio.get_running_loop()
        self._pending[uri] = loop.call_later(DEBOUNCE_S, self._publish_pending, uri, self._pending, False)
        self._building[uri] = loop.call_later(BUILD_PAUSE_S, self._publish_pending, uri, self._building, True)

    def _publish_pending(self, uri: str, pending: dict, built: bool) -> None:
        pending.pop(uri, None)
        if self.is_open(uri):
            self.publish(uri, built=built, if_changed=built)

    def is_open(self, uri: str) -> bool:
        """Whether the client has opened the document: pygls keeps it under its URI unquoted
        (`file:///My%20Rules/x.vbr` as `file:///My Rules/x.vbr`)."""
        return unquote(uri) in self.workspace.text_documents

    # ------------------------------------------------------------------ analysis
    def analyse(self, uri: str) -> Document:
        doc = self.workspace.get_text_document(uri)
        state = self.documents.get(uri)
        if state is None:
            state = self.documents[uri] = Document(_path(uri))
        text = normalize_newlines(doc.source)  # as `vbr check` reads a file: a lone \r ends a line
        if state.analysis is None or state.analysis.text != text:
            state.analysis = an.analyse(text, state.path, state.cache)
            symbols = an.outline(state.analysis)
            if symbols or not state.analysis.recovered:
                state.outline = symbols
        return state

    def publish(self, uri: str, built: bool = False, if_changed: bool = False) -> None:
        """Publish the document's diagnostics; `built` (on open, on save, after an edit's longer
        pause): with what the typed program cannot express (an.with_refusal), which the first
        publish after an edit leaves out. `if_changed`: not when they are the ones last published
        for this version of the document (an edit's second publish, when building found nothing)."""
        state = self.analyse(uri)
        a = an.with_refusal(state.analysis) if built else state.analysis
        doc = self.workspace.get_text_document(uri)
        diagnostics = [
            T.Diagnostic(range=self.client_range(doc, p.range), message=clean(p.message), source="vbr",
                         severity=T.DiagnosticSeverity.Warning if p.severity == "warning" else T.DiagnosticSeverity.Error)
            for p in an.problems(a)
        ]
        if if_changed and self._published.get(uri) == (doc.version, diagnostics):
            return
        self._published[uri] = (doc.version, diagnostics)
        self.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=diagnostics))

    def forget(self, uri: str) -> None:
        """A document closed: nothing kept of it."""
        self.documents.pop(uri, None)
        self._published.pop(uri, None)

    def refresh_readers(self, path: str, except_uri: str | None = None) -> None:
        """Check again every open document that reads `path` from disk: a variant that extends
        it, a scenario file that tests it, also when it could not be read before (it was missing)."""
        path = os.path.normpath(path)
        for uri, state in list(self.documents.items()):
            if uri != except_uri and state.analysis is not None and path in state.analysis.reads():
                state.analysis = None
                self.publish(uri)

    def state(self, uri: str) -> Document | None:
        """The analysis of an open document's text as it is now (an edit not yet analysed, its
        edits not having paused, is analysed first); None for one the client has not opened (the
        server reads no file from disk on a request's say-so: `file:///dev/zero` is never read)."""
        if not self.is_open(uri):
            return None
        try:
            return self.analyse(uri)
        except Exception:
            return None

    # ------------------------------------------------------------------ positions
    def client_range(self, doc, r: an.Range, lines: list[str] | None = None) -> T.Range:
        lines = lines if lines is not None else doc.lines
        return doc.position_codec.range_to_client_units(
            lines, T.Range(start=T.Position(line=r.line, character=r.col),
                           end=T.Position(line=r.end_line, character=r.end_col)))

    def server_position(self, doc, pos: T.Position) -> tuple[int, int]:
        p = doc.position_codec.position_from_client_units(doc.lines, pos)
        return p.line, p.character

    def at_request(self, params):
        """(the document, its analysis, the request's (line, col) in server units) for a request
        naming a position in an open document (`state`'s rules); None for one not open."""
        state = self.state(params.text_document.uri)
        if state is None:
            return None
        doc = self.workspace.get_text_document(params.text_document.uri)
        return doc, state.analysis, self.server_position(doc, params.position)

    def location(self, doc, a: an.Analysis, file: str, r: an.Range) -> T.Location:
        lines = [line + "\n" for line in a.sources.get(file, "").split("\n")]
        where = os.path.normpath(file)  # `tests for "../rules.vbr"`: the rule file's own URI, no `..` in it
        return T.Location(uri=from_fs_path(where) or where, range=self.client_range(doc, r, lines))


def _path(uri: str) -> str:
    path = to_fs_path(uri)
    if not path or not uri.startswith("file:"):
        return str(Path.cwd() / (re.sub(r"\W+", "_", uri) + ".vbr"))
    return path


server = VbrLanguageServer()


@server.feature(T.INITIALIZE)
def initialize(ls: VbrLanguageServer, params: T.InitializeParams) -> None:
    """Documents whose lines end where LSP ends them (vbr/lsp/documents.py): pygls's workspace,
    made just before this, gives way to one whose documents split lines so."""
    ls.protocol._workspace = Workspace.like(ls.workspace, ls._text_document_sync_kind)


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: VbrLanguageServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri, built=True)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: VbrLanguageServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.publish_soon(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: VbrLanguageServer, params: T.DidSaveTextDocumentParams) -> None:
    if ls.is_open(params.text_document.uri):  # a document never opened is not read from disk
        ls.publish(params.text_document.uri, built=True)
    ls.refresh_readers(_path(params.text_document.uri), params.text_document.uri)


@server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: VbrLanguageServer, params: T.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        ls.refresh_readers(_path(change.uri), change.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: VbrLanguageServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


# ---------------------------------------------------------------------- names
def _lookup(a: an.Analysis, line: int, col: int):
    """The word under the cursor, its range, and what it may name: (word, range, key) where key is
    the index key (`.name` for a field of a kind)."""
    found = a.word_at(line, col)
    if found is None:
        return None
    word, r = found
    declared, _ = a.index()
    keys = ["." + word, word] if a.is_attribute(line, r.col) else [word, "." + word]
    for key in keys:
        if key in declared:
            return word, r, key
    return word, r, keys[0]


def _local(a: an.Analysis, line: int, col: int):
    """(sites, uses) when the word at the position is a parameter or local of the declaration it
    is in; None otherwise."""
    found = a.word_at(line, col)
    if found is None or a.is_attribute(line, found[1].col):
        return None
    unit = an.unit_at(a, line, col)
    if unit is None:
        return None
    sites, uses = an.locals_of(a, unit, found[0])
    return (sites, uses) if sites else None


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls: VbrLanguageServer, params: T.DefinitionParams):
    request = ls.at_request(params)
    if request is None:
        return None
    doc, a, at = request
    local = _local(a, *at)
    if local is not None:
        return [ls.location(doc, a, a.path, s.range) for s in local[0]]
    hit = _lookup(a, *at)
    if hit is None:
        return None
    declared, _ = a.index()
    sites = declared.get(hit[2], [])
    return [ls.location(doc, a, d.file, d.range) for d in sites] or None


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
def references(ls: VbrLanguageServer, params: T.ReferenceParams):
    request = ls.at_request(params)
    if request is None:
        return None
    doc, a, at = request
    local = _local(a, *at)
    if local is not None:
        sites, uses = local
        if not params.context.include_declaration:
            uses = [u for u in uses if u not in {s.range for s in sites}]
        return [ls.location(doc, a, a.path, r) for r in uses] or None
    hit = _lookup(a, *at)
    if hit is None:
        return None
    declared, used = a.index()
    sites = used.get(hit[2], [])
    if not params.context.include_declaration:
        own = {(d.file, d.range) for d in declared.get(hit[2], [])}
        sites = [s for s in sites if s not in own]
    return [ls.location(doc, a, file, r) for file, r in sites] or None


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls: VbrLanguageServer, params: T.HoverParams):
    request = ls.at_request(params)
    if request is None:
        return None
    doc, a, at = request
    local = _local(a, *at)
    if local is not None:
        word, r = a.word_at(*at)
        text = "\n\n---\n\n".join(f"**{s.what}** `{s.name}`\n\n```vbr\n{s.text}\n```\n\n_line {s.range.line + 1}_"
                                   for s in local[0])
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=clean(text)),
                       range=ls.client_range(doc, r))
    hit = _lookup(a, *at)
    if hit is None:
        return None
    word, r, key = hit
    declared, _ = a.index()
    sites = declared.get(key)
    if not sites:
        return None
    parts = [describe(a, d) for d in sites]
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=clean("\n\n---\n\n".join(parts))),
                   range=ls.client_range(doc, r))


def describe(a: an.Analysis, d: an.Declared) -> str:
    """A declaration as hover text: what it is, its text, the comment above it, the passages it cites."""
    from vbr.trace import citations
    lines = a.sources.get(d.file, "").split("\n")
    out = [f"**{d.what}** `{d.name}`", f"```vbr\n{d.signature}\n```"]
    line = d.range.line if d.what.startswith("field") or d.what == "team" else d.decl.span.line - 1
    comment = an.comment_above(lines, line)
    if d.what.startswith("member"):  # the member's own line may trail a comment too
        comment = comment or an.comment_above(lines, d.range.line)
    if comment:
        out.append("\n".join(c.strip() for c in comment))
    cited = list(citations("\n".join("#" + c for c in comment)))
    if cited:
        out.append("Rulebook: " + ", ".join(f"[{c}]" for c in cited))
    where = Path(d.file).name if d.file != a.path else "this file"
    out.append(f"_declared in {where}, line {d.range.line + 1}_")
    return "\n\n".join(out)


# ---------------------------------------------------------------------- completion
@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
def completion(ls: VbrLanguageServer, params: T.CompletionParams):
    from vbr.builtin_signatures import SIGNATURES
    from vbr.highlight import grammar_keywords
    request = ls.at_request(params)
    if request is None:
        return None
    doc, a, (line, col) = request
    declared, _ = a.index()
    items: dict[str, T.CompletionItem] = {}
    text = a.lines[line] if line < len(a.lines) else ""
    before = re.sub(r"[A-Za-z0-9_]*$", "", text[:col])
    if before.rstrip().endswith(".") and not before.rstrip().endswith(".."):  # a field of an entity
        for key, sites in declared.items():
            if key.startswith("."):
                items[key[1:]] = T.CompletionItem(label=key[1:], kind=T.CompletionItemKind.Field,
                                                  detail=", ".join(s.what for s in sites))
        return T.CompletionList(is_incomplete=False, items=sorted(items.values(), key=lambda i: i.label))
    for key, sites in declared.items():
        if key.startswith("."):
            continue
        what = sites[0].what
        kind = _COMPLETION_KINDS.get(what, T.CompletionItemKind.EnumMember if what.startswith("member")
                                     else T.CompletionItemKind.Variable)
        items[key] = T.CompletionItem(label=key, kind=kind, detail=clean(sites[0].signature or what))
    for name, sig in sorted(SIGNATURES.items()):
        items.setdefault(name, T.CompletionItem(label=name, kind=T.CompletionItemKind.Function, detail="built-in",
                                                documentation=sig.doc))
    for word in grammar_keywords():
        items.setdefault(word, T.CompletionItem(label=word, kind=T.CompletionItemKind.Keyword))
    return T.CompletionList(is_incomplete=False, items=sorted(items.values(), key=lambda i: i.label))


# ---------------------------------------------------------------------- formatting, outline
@server.feature(T.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: VbrLanguageServer, params: T.DocumentFormattingParams):
    from vbr.grammar.parser import parse
    from vbr.grammar.printer import program
    if not ls.is_open(params.text_document.uri):
        return None  # a document never opened is not read from disk
    doc = ls.workspace.get_text_document(params.text_document.uri)
    text = doc.source
    try:
        formatted = program(parse(text, _path(params.text_document.uri)))
    except VbrError:
        return None  # `vbr fmt` formats only a file that parses
    if formatted == text:
        return []
    lines = doc.lines
    end = T.Position(line=len(lines), character=0)
    return [T.TextEdit(range=T.Range(start=T.Position(line=0, character=0), end=end), new_text=formatted)]


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: VbrLanguageServer, params: T.DocumentSymbolParams):
    state = ls.state(params.text_document.uri)
    if state is None:
        return None
    doc = ls.workspace.get_text_document(params.text_document.uri)
    return [_symbol(ls, doc, s) for s in state.outline]


def _symbol(ls: VbrLanguageServer, doc, s: an.Symbol) -> T.DocumentSymbol:
    r = ls.client_range(doc, s.range)
    sel = ls.client_range(doc, s.name_range)
    if not (_le(r.start, sel.start) and _le(sel.end, r.end)):  # the protocol wants it inside
        sel = T.Range(start=r.start, end=r.start)
    detail = f'{s.what} "{s.detail}"' if s.detail else s.what  # `phase "Serve"`: the word, then the title
    return T.DocumentSymbol(name=clean(s.name or s.what), detail=clean(detail),
                            kind=_KINDS.get(s.what, T.SymbolKind.Object),
                            range=r, selection_range=sel, children=[_symbol(ls, doc, c) for c in s.children])


def _le(a: T.Position, b: T.Position) -> bool:
    return (a.line, a.character) <= (b.line, b.character)


@server.feature(T.EXIT)
def exit_notification(ls: VbrLanguageServer, params=None) -> None:
    """The client says exit: remembered, for the exit code (main)."""
    ls.exit_without_shutdown = not ls.protocol._shutdown


def main() -> int:
    """Serve on standard input and output until the input ends or the client says exit; 1 when a
    message was refused (vbr/lsp/bounded_input.py), and when the client said exit without
    shutdown first, as LSP asks ("otherwise with error code 1")."""
    import sys
    from vbr.lsp import log_lines
    from vbr.lsp.bounded_input import BoundedInput
    log_lines.install()
    stdin = BoundedInput(sys.stdin.buffer)
    server.start_io(stdin=stdin)
    return 1 if stdin.refused or getattr(server, "exit_without_shutdown", False) else 0
