"""What the language server knows about one open document, computed from its text alone (the
editor's buffer, saved or not): its declarations, its problems, its outline and where each name is
declared and used. No LSP types here; server.py turns these into protocol messages.

Parsing is done a top-level declaration at a time. A rule file's declarations start at the left
margin (`vbr fmt` writes them so), so the text is cut into pieces at every line that starts with
a declaration's keyword, and each piece is parsed alone, padded with blank lines so that its
positions are those of the whole file. Two things follow:

- a syntax error spoils only its own piece: the other declarations are still checked, outlined and
  resolved (problems that merely follow from the broken piece, such as "unknown `x`" for a name
  it declared, are left out while it is broken);
- an edit re-parses only the pieces it changed; a piece that merely moved up or down is reused
  with its positions shifted.

When a piece fails, the whole text is parsed once as well: if that succeeds, the cut was wrong
(a declaration that does not start at the left margin, say) and the whole parse is used. When
nothing can be recovered, the server keeps the last good outline (server.py).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from vbr.errors import Diagnostic, Span, VbrError
from vbr.grammar import ast as A
from vbr.grammar.parser import parse

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar" / "vbr.lark"


def _declaration_keywords() -> tuple[str, ...]:
    """The first word of every declaration the grammar allows (`_decl_body`'s rules)."""
    text = GRAMMAR.read_text(encoding="utf-8")
    body = re.search(r"^_decl_body:(.*?)\n(?=\S)", text, re.M | re.S)
    rules = re.findall(r"[a-z_]+", body.group(1)) if body else []
    words = []
    for rule in rules:
        m = re.search(rf'^{rule}:\s*"([a-z_]+)"', text, re.M)
        if m:
            words.append(m.group(1))
    return tuple(words)


DECLARATION_KEYWORDS = _declaration_keywords()
_GAME_CUT = re.compile(r"^(?:override[ \t]+)?(?:%s)\b" % "|".join(DECLARATION_KEYWORDS))
_TEST_CUT = re.compile(r"^scenario\b")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


# ------------------------------------------------------------------------------- positions
def line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [m.end() for m in re.finditer("\n", text)]
    return starts


@dataclass(frozen=True)
class Range:
    """0-based lines and columns (code points), end exclusive: what server.py converts for LSP."""

    line: int
    col: int
    end_line: int
    end_col: int

    def contains(self, line: int, col: int) -> bool:
        return (self.line, self.col) <= (line, col) <= (self.end_line, self.end_col)


def span_range(span: Span, lines: list[str] | None = None) -> Range:
    """A span as a range. A span of one point (a syntax error's position) covers the word there,
    or one character."""
    line, col = max(span.line - 1, 0), max(span.col - 1, 0)
    end_line, end_col = max(span.end_line - 1, 0), max(span.end_col - 1, 0)
    if (end_line, end_col) <= (line, col):
        end_line, end_col = line, col + 1
        if lines is not None and line < len(lines):
            m = _WORD.match(lines[line], col)
            if m:
                end_col = m.end()
    return Range(line, col, end_line, end_col)


# ------------------------------------------------------------------------------- pieces
@dataclass
class Piece:
    start: int  # 1-based line of its first line
    text: str
    decls: list[A.Decl] = field(default_factory=list)
    scenarios: list[A.Scenario] = field(default_factory=list)
    header: A.Node | None = None  # the GameFile or TestFile of the first piece
    error: VbrError | None = None


def cut(text: str) -> tuple[str, list[tuple[int, str]]]:
    """The file's kind ("game" or "tests") and its pieces: (first line, text), in order. The
    first piece holds the header (`game "..."` or `tests for "..."`) and whatever precedes the first
    declaration; in a file without a header, the first declaration too (the comments above it
    alone would fail as an empty file, where the file fails at that declaration)."""
    lines = text.split("\n")
    kind = "game"
    for line in lines:
        s = line.strip()
        if s and not s.startswith("#"):
            kind = "tests" if re.match(r"tests\b", s) else "game"
            break
    pattern = _TEST_CUT if kind == "tests" else _GAME_CUT
    cuts = [0]
    seen_header = False
    for i, line in enumerate(lines):
        if not seen_header:
            if line.strip() and not line.lstrip().startswith("#"):
                seen_header = True  # the header, or in a file without one, the first declaration
            continue
        if pattern.match(line):
            cuts.append(i)
    cuts.append(len(lines))
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        if b > a:
            pieces.append((a + 1, "\n".join(lines[a:b]) + ("\n" if b < len(lines) else "")))
    return kind, pieces


_HEADERS = {"game": 'game ""', "tests": 'tests for ""'}


def parse_piece(kind: str, start: int, text: str, path: str) -> Piece:
    piece = Piece(start, text)
    if start == 1:
        padded = text
    else:
        padded = _HEADERS[kind] + "\n" * (start - 1) + text
    try:
        tree = parse(padded, path)
    except VbrError as exc:
        piece.error = exc
        return piece
    if start == 1:
        piece.header = tree
    if isinstance(tree, A.GameFile):
        piece.decls = list(tree.decls)
    elif isinstance(tree, A.TestFile):
        piece.scenarios = list(tree.scenarios)
    return piece


def shift(node: A.Node, delta: int) -> None:
    """Move every span below `node` by `delta` lines, in place (the piece owns its nodes). Walks
    the nodes' fields directly: `Node.children` costs more than the shift itself."""
    stack = [node]
    node_type = A.Node
    while stack:
        n = stack.pop()
        fields = n.__dict__
        fields["span"] = _shifted(fields["span"], delta)
        for name, v in fields.items():
            if isinstance(v, node_type):
                stack.append(v)
            elif isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, node_type))
                if v and isinstance(v[0], Span):  # an enum's member_spans
                    fields[name] = [_shifted(x, delta) for x in v]


def _shifted(s: Span, delta: int) -> Span:
    new = s.__copy__()
    new.__dict__["line"] = s.line + delta
    new.__dict__["end_line"] = s.end_line + delta
    return new


class PieceCache:
    """Parsed pieces of one document by their text: an edit re-parses only what it changed."""

    def __init__(self):
        self.pieces: dict[str, Piece] = {}
        self.whole: tuple[str, object] | None = None  # (text, AST or VbrError) of the last whole parse
        self.scenarios: dict = {}  # a scenario file's step checkers and problems (_check_scenarios)

    def get(self, kind: str, start: int, text: str, path: str, taken: set[int] | None = None) -> Piece:
        """The piece of `text` starting at line `start`: the cached one (moved if it has moved),
        unless this pass has `taken` it already (two pieces of the same text)."""
        piece = self.pieces.get(f"{kind}\x00{text}")
        if piece is None or id(piece) in (taken or ()) or (start == 1) != (piece.start == 1):
            piece = parse_piece(kind, start, text, path)
        elif piece.start != start:
            if piece.error is not None:
                piece = parse_piece(kind, start, text, path)  # its message carries its position
            else:
                for d in piece.decls + piece.scenarios:
                    shift(d, start - piece.start)
                piece.start = start
        if taken is not None:
            taken.add(id(piece))
        return piece

    def parse(self, text: str, path: str) -> tuple[str, list[Piece]]:
        kind, cuts = cut(text)
        taken: set[int] = set()
        pieces = [self.get(kind, start, t, path, taken) for start, t in cuts]
        self.pieces = {f"{kind}\x00{p.text}": p for p in pieces}
        return kind, pieces

    def parse_whole(self, text: str, path: str):
        if self.whole is not None and self.whole[0] == text:
            return self.whole[1]
        try:
            result = parse(text, path)
        except VbrError as exc:
            result = exc
        self.whole = (text, result)
        return result


# ------------------------------------------------------------------------------- names
@dataclass
class Declared:
    """A declared name: what declares it and where."""

    name: str
    what: str  # var, option, phase, ..., "member of enum E", "field of kind K", "team"
    file: str
    range: Range  # the name itself
    decl: A.Node  # the declaration (for an enum member or a field: the enum or the kind)
    signature: str  # the declaration's text, up to its block


@dataclass
class Analysis:
    """One version of one document, analysed."""

    path: str
    text: str
    kind: str  # "game" or "tests"
    diagnostics: list[Diagnostic]
    decls: list[A.Decl]  # this file's own declarations (of a rule file)
    scenarios: list[A.Scenario]
    recovered: bool  # some pieces failed to parse; what is here comes from the others
    sources: dict[str, str]  # every file of the chain (this one first), by path
    trees: dict[str, list[A.Node]]  # every file's own declarations (or scenarios), by path
    rules: object | None = None  # the merged RuleSet, when there is one
    model: object | None = None  # the checked model, when the rule file checks
    _index: tuple | None = None

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def reads(self) -> set[str]:
        """The other files what is known here depends on: those of the chain that were read, and
        those its problems are in (a base file that could not be found or read is one), each
        path without `..` (`tests for "../rules.vbr"`)."""
        files = set(self.sources) | {d.span.file for d in self.diagnostics}
        return {os.path.normpath(f) for f in files} - {os.path.normpath(self.path)}

    # ------------------------------------------------------------- declarations and uses
    def index(self) -> tuple[dict[str, list[Declared]], dict[str, list[tuple[str, Range]]]]:
        """(name -> its declarations, name -> every use) over the whole chain, built on demand."""
        if self._index is None:
            self._index = _build_index(self)
        return self._index

    def word_at(self, line: int, col: int) -> tuple[str, Range] | None:
        lines = self.lines
        if not 0 <= line < len(lines):
            return None
        text = lines[line]
        for m in _WORD.finditer(text):
            if m.start() <= col <= m.end():
                return m.group(), Range(line, m.start(), line, m.end())
        return None

    def is_attribute(self, line: int, col: int) -> bool:
        text = self.lines[line]
        return col > 0 and text[:col].rstrip().endswith(".")


def _source_line_range(text_lines: list[str], span: Span, name: str) -> Range:
    """Where `name` is written in the declaration that starts at `span`."""
    line = span.line - 1
    for ln in range(line, min(span.end_line, len(text_lines))):
        start = span.col - 1 if ln == line else 0
        m = re.compile(rf"\b{re.escape(name)}\b").search(text_lines[ln], start)
        if m:
            return Range(ln, m.start(), ln, m.end())
    return span_range(span)


def _signature(text_lines: list[str], decl: A.Node) -> str:
    """The declaration's first line, from its keyword (and an `override` before it) to its
    block's `{` if it has a block of statements or phases, without a trailing comment."""
    span = decl.span
    line = text_lines[span.line - 1] if 0 < span.line <= len(text_lines) else ""
    text = _strip_comment(line[span.col - 1:])
    if line[: span.col - 1].strip() == "override":
        text = "override " + text
    if isinstance(decl, (A.Phase, A.Stage, A.Proc, A.Setup, A.Handler, A.Court)) and "{" in text:
        text = text[: text.index("{")]
    return text.rstrip()


def _strip_comment(line: str) -> str:
    in_str = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_str = not in_str
        elif ch == "#" and not in_str:
            return line[:i].rstrip()
    return line


def comment_above(text_lines: list[str], line: int) -> list[str]:
    """The `#` lines right above 0-based `line` and a comment trailing it, without the `#`."""
    out = []
    i = line - 1
    while i >= 0 and text_lines[i].lstrip().startswith("#"):
        out.append(text_lines[i].lstrip()[1:].rstrip())
        i -= 1
    out.reverse()
    if 0 <= line < len(text_lines):
        code = _strip_comment(text_lines[line])
        rest = text_lines[line][len(code):].strip()
        if rest.startswith("#"):
            out.append(rest[1:].strip())
    return out


_WHAT = {A.Var: "var", A.Const: "const", A.Option: "option", A.Enum: "enum", A.Kind: "kind", A.Zone: "zone",
         A.Direction: "direction", A.Die: "die", A.Fn: "fn", A.Proc: "proc", A.Event: "event", A.Phase: "phase",
         A.Stage: "stage"}


def _declarations(decls, file: str, text_lines: list[str], out: dict[str, list[Declared]]) -> None:
    for d in decls:
        what = _WHAT.get(type(d))
        if what and d.name:
            out.setdefault(d.name, []).append(
                Declared(d.name, what, file, _source_line_range(text_lines, d.span, d.name), d, _signature(text_lines, d)))
        if isinstance(d, A.Stage):
            _declarations(d.members, file, text_lines, out)
        elif isinstance(d, A.Enum):
            for member in d.members:
                r = _find_after(text_lines, d.span, member, skip_first=True)
                out.setdefault(member, []).append(
                    Declared(member, f"member of enum `{d.name}`", file, r, d, _signature(text_lines, d)))
        elif isinstance(d, A.Kind):
            for f in d.fields:
                r = _source_line_range(text_lines, f.span, f.name)
                out.setdefault("." + f.name, []).append(
                    Declared(f.name, f"field of kind `{d.name}`", file, r, d,
                             f"{f.name}: {_text_of(text_lines, f.type.span)}"))
        elif isinstance(d, A.Measure):  # named `measure NAME`, a name only the word after `measure` spells
            r = _source_line_range(text_lines, d.span, d.short)
            out.setdefault(d.short, []).append(Declared(d.short, "measure", file, r, d, _signature(text_lines, d)))
        elif isinstance(d, A.Seats):
            for t in d.teams:
                r = _source_line_range(text_lines, t.span, t.name)
                out.setdefault(t.name, []).append(Declared(t.name, "team", file, r, d, _signature(text_lines, d)))


def _find_after(text_lines, span: Span, name: str, skip_first: bool) -> Range:
    """`name` in the span's text, after the declaration's own name when `skip_first`."""
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    brace = False
    for ln in range(span.line - 1, min(span.end_line, len(text_lines))):
        text = text_lines[ln]
        start = span.col - 1 if ln == span.line - 1 else 0
        if skip_first and not brace:
            i = text.find("{", start)
            if i < 0:
                continue
            brace, start = True, i
        m = pattern.search(text, start)
        if m:
            return Range(ln, m.start(), ln, m.end())
    return span_range(span)


def _text_of(text_lines, span: Span) -> str:
    if span.line != span.end_line or not 0 < span.line <= len(text_lines):
        return ""
    return text_lines[span.line - 1][span.col - 1: span.end_col - 1]


def _locals(node: A.Node) -> set[str]:
    names = set()
    for n in A.walk(node):
        if isinstance(n, A.Param):
            names.add(n.name)
        elif isinstance(n, A.Let):
            names.add(n.name)
        elif isinstance(n, (A.For, A.Choose, A.Comprehension)):
            names.add(n.var)
    return names


def _uses(top: A.Node, file: str, text_lines: list[str], out: dict[str, list[tuple[str, Range]]]) -> None:
    """Every use of a global name in one declaration (or scenario)."""
    local = _locals(top)

    def at(name: str, span: Span, last: bool = False, after_first_word: bool = False, key: str | None = None):
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        found = None
        for ln in range(span.line - 1, min(span.end_line, len(text_lines))):
            text = text_lines[ln]
            a = span.col - 1 if ln == span.line - 1 else 0
            b = span.end_col - 1 if ln == span.end_line - 1 else len(text)
            if after_first_word and ln == span.line - 1:
                m0 = _WORD.match(text, a)
                a = m0.end() if m0 else a
            for m in pattern.finditer(text, a, b):
                found = Range(ln, m.start(), ln, m.end())
                if not last:
                    out.setdefault(key or name, []).append((file, found))
                    return
        if found is not None:
            out.setdefault(key or name, []).append((file, found))

    for n in A.walk(top):
        if isinstance(n, A.Name) and n.id.startswith("measure "):  # `measure NAME = ...` sets one
            at(n.id.split(" ", 1)[1], n.span)
        elif isinstance(n, A.Name):
            if n.id not in local:
                at(n.id, n.span)
        elif isinstance(n, A.Call):
            at(n.func, n.span)
        elif isinstance(n, A.Attr):
            at(n.name, n.span, last=True, key="." + n.name)
        elif isinstance(n, A.Roll):
            at(n.die, n.span, after_first_word=True)
        elif isinstance(n, A.Goto):
            at(n.phase, n.span, after_first_word=True)
        elif isinstance(n, A.StartAt):
            at(n.phase, n.span, after_first_word=True)
        elif isinstance(n, A.Points):
            at(n.var, n.span, after_first_word=True)
        elif isinstance(n, A.Emit):
            at(n.event, n.span, after_first_word=True)
        elif isinstance(n, A.Handler):
            at(n.event, n.span, after_first_word=True)
        elif isinstance(n, A.Create):
            at(n.kind, n.span, after_first_word=True)
        elif isinstance(n, A.Kwarg):
            at(n.name, n.span, key="." + n.name)
        elif isinstance(n, A.TypeRef):
            at(n.name, n.span)
        elif (isinstance(n, A.ScenarioStep) and n.name and n.kind in ("option", "start", "force", "phase")
              and not (n.kind == "force" and n.name == "pick")):  # `force pick` names no declaration
            at(n.name, n.span, after_first_word=True)


def _units(nodes):
    """The declarations whose locals are their own: a stage's phases one by one."""
    for n in nodes:
        if isinstance(n, A.Stage):
            yield from _units(n.members)
        else:
            yield n


def _build_index(a: Analysis):
    declared: dict[str, list[Declared]] = {}
    used: dict[str, list[tuple[str, Range]]] = {}
    for file, nodes in a.trees.items():
        text_lines = a.sources.get(file, "").split("\n")
        decls = [n for n in nodes if isinstance(n, A.Decl)]
        _declarations(decls, file, text_lines, declared)
        for n in _units(nodes):
            _uses(n, file, text_lines, used)
    for name, sites in declared.items():  # a declaration is a use of its name too
        for d in sites:
            if (d.file, d.range) not in used.get(name, []):
                used.setdefault(name, []).append((d.file, d.range))
    for v in used.values():
        v.sort(key=lambda fr: (fr[0] != a.path, fr[0], fr[1].line, fr[1].col))
    return declared, used


# ------------------------------------------------------------------------------- checking
def analyse(text: str, path: str, cache: PieceCache | None = None) -> Analysis:
    """Parse (piece by piece) and check the text of the document at `path`. A document past the
    limits `vbr check` puts on a file (its size, its tokens: vbr.limits) gets that error alone,
    found in time linear in the text, and is not parsed."""
    too_big = _past_limits(text, path)
    if too_big is not None:
        return Analysis(path, text, "game", [too_big], [], [], True, {path: text}, {path: []})
    cache = cache or PieceCache()
    kind, pieces = cache.parse(text, path)
    broken = [p for p in pieces if p.error is not None]
    header = pieces[0].header if pieces else None
    decls = [d for p in pieces for d in p.decls]
    scenarios = [s for p in pieces for s in p.scenarios]
    diags: list[Diagnostic] = []
    whole = None
    if broken:
        whole = cache.parse_whole(text, path)
        if not isinstance(whole, VbrError):  # the cut was wrong, the file is fine
            broken, header = [], whole
            decls = list(whole.decls) if isinstance(whole, A.GameFile) else []
            scenarios = list(whole.scenarios) if isinstance(whole, A.TestFile) else []
    taker = _whole_error_taker(broken, whole)
    for p in broken:
        diags += whole.diagnostics if p is taker else p.error.diagnostics
    spoiled = {w for p in broken for w in _WORD.findall(p.text)}
    a = Analysis(path, text, kind, [], decls, scenarios, bool(broken), {path: text}, {})
    a.trees[path] = list(scenarios) if kind == "tests" else list(decls)
    try:
        if kind == "tests":
            more = _check_scenarios(a, header, scenarios, cache)
        else:
            title = header.title if isinstance(header, A.GameFile) else ""
            more = _check_rules(a, title, decls)
    except VbrError as exc:  # a problem that stops the check (a missing parent, a cycle)
        more = list(exc.diagnostics)
        a.sources.update({k: v for k, v in exc.sources.items() if k not in a.sources})
    except Exception as exc:  # a bug of vbr's, not of the file: say so rather than go quiet
        more = [Diagnostic(Span(file=path), f"internal error in vbr while checking: {type(exc).__name__}: {exc}")]
    more = [d for d in more if not (spoiled and set(_QUOTED.findall(d.message)) & spoiled)]
    diags += more
    a.diagnostics = _dedupe(diags)
    return a


def _whole_error_taker(broken: list[Piece], whole) -> Piece | None:
    """The broken piece whose syntax errors are shown as the whole file's parse gives them (vbr
    check's, word for word): the first whose lines, or the line after them (where the next
    declaration starts: a block the piece left open takes it in), hold the whole parse's error.
    A piece parsed alone ends where the next declaration starts, so its own message can only say
    that the end of the file came first, where the whole parse names what did (`phase` on line
    54). The other broken pieces keep their own errors: the whole parse stops at its first."""
    if not isinstance(whole, VbrError) or not whole.diagnostics:
        return None
    line = whole.diagnostics[0].span.line
    for piece in broken:
        if piece.start <= line <= piece.start + piece.text.count("\n") + (not piece.text.endswith("\n")):
            return piece
    return None


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen, out = set(), []
    for d in diags:
        key = (d.span.file, d.span.line, d.span.col, d.message, d.severity)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _chain_trees(a: Analysis, chain: list[str]) -> None:
    from vbr.loader import parse_file
    for file in chain:
        if file in a.trees:
            continue
        try:
            tree, source = parse_file(Path(file))
        except VbrError:
            continue
        a.sources[file] = source
        a.trees[file] = list(getattr(tree, "decls", []))


def _check_rules(a: Analysis, title: str, decls: list[A.Decl]) -> list[Diagnostic]:
    from vbr.checking import checked_model
    from vbr.loader import RuleSet, load_rules, merge, resolve_extends
    problems: list[Diagnostic] = []
    parents = [d for d in decls if isinstance(d, A.Extends)]
    own = [d for d in decls if not isinstance(d, A.Extends)]
    if len(parents) > 1:
        return [Diagnostic(parents[1].span, "a rule file extends at most one other file")]
    if parents:
        base = load_rules(resolve_extends(parents[0].path, Path(a.path), parents[0].span))
        a.sources.update({k: v for k, v in base.sources.items() if k != a.path})
        replaced = list(base.replaced)
        merged, more = merge(base.decls, own, replaced)
        rules = RuleSet(Path(a.path), title, merged, dict(a.sources), [a.path] + base.chain, base.problems + more,
                        replaced)
        _chain_trees(a, base.chain)
    else:
        rules = RuleSet(Path(a.path), title, own, {a.path: a.text}, [a.path], [])
    a.rules = rules
    try:
        model = checked_model(rules, {})
    except VbrError as exc:
        return problems + list(exc.diagnostics)
    a.model = model
    try:
        from vbr.visualizer.findings import findings
    except ImportError:
        return problems
    return problems + list(findings(model))


def _past_limits(text: str, path: str) -> Diagnostic | None:
    """The error `vbr check` gives a file this large, or None."""
    from vbr.grammar.parser import count_tokens
    from vbr.limits import MAX_FILE_BYTES, MAX_TOKENS
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        return Diagnostic(Span(file=path, line=1, col=1, end_line=1, end_col=1),
                          f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB, the most vbr reads from a rule file")
    try:
        count_tokens(text, path, MAX_TOKENS)
    except VbrError as exc:
        return exc.diagnostics[0]
    return None


def _check_scenarios(a: Analysis, header, scenarios: list[A.Scenario], cache: "PieceCache") -> list[Diagnostic]:
    """Each scenario's steps checked against the rule file it tests, as `vbr check` does
    (vbr.scenario.StepChecker over the rule file's checked model under the scenario's options).
    The checkers (one per set of options) are kept while the rule files are unchanged, and each
    scenario's problems while its text and place are, so an edit checks only the scenario it
    touched."""
    from vbr.loader import load_rules
    if not isinstance(header, A.TestFile):
        return []
    rules = load_rules(header.rules, tests=Path(a.path), span=header.span)
    a.rules = rules
    a.sources.update({k: v for k, v in rules.sources.items() if k != a.path})
    _chain_trees(a, rules.chain)
    key = tuple(sorted(rules.sources.items()))
    state = cache.scenarios
    if state.get("rules") != key or len(state.get("found", ())) > 500:  # each edit of a scenario adds its text
        state.clear()
        state.update(rules=key, checkers={}, found={})
    found = state["found"]
    out: list[Diagnostic] = []
    lines = a.lines
    for sc in scenarios:
        sc_key = (sc.span.line, sc.span.col, "\n".join(lines[sc.span.line - 1:sc.span.end_line]))
        if sc_key not in found:
            found[sc_key] = _scenario_problems(rules, sc, state["checkers"])
        out += found[sc_key]
    return out


def _scenario_problems(rules, sc: A.Scenario, checkers: dict) -> list[Diagnostic]:
    """`sc`'s problems: its steps', or the rule file's under its options, or an option refused."""
    from vbr.checking import checked_model
    from vbr.errors import OptionError
    from vbr.scenario import StepChecker, options_key, options_of
    options = options_of(sc)
    opt_key = options_key(options)
    try:
        if opt_key not in checkers:
            checkers[opt_key] = StepChecker(checked_model(rules, options))
        return checkers[opt_key].problems(sc)
    except VbrError as exc:
        return list(exc.diagnostics)
    except OptionError as exc:  # an option the rule file does not have, at the scenario's `option` step
        at = next((s.span for s in sc.steps if s.kind == "option"), sc.span)
        return [Diagnostic(at, str(exc))]


# ------------------------------------------------------------------------------- outline
@dataclass
class Symbol:
    name: str
    what: str  # phase, stage, proc, fn, kind, zone, ..., scenario
    range: Range
    name_range: Range
    children: list["Symbol"] = field(default_factory=list)
    detail: str = ""


_OUTLINED = {A.Phase: "phase", A.Stage: "stage", A.Proc: "proc", A.Fn: "fn", A.Kind: "kind", A.Zone: "zone",
             A.Enum: "enum", A.Var: "var", A.Const: "const", A.Option: "option", A.Die: "die", A.Event: "event",
             A.Direction: "direction", A.Handler: "on", A.Setup: "setup", A.Court: "court"}


def outline(a: Analysis) -> list[Symbol]:
    text_lines = a.lines
    if a.kind == "tests":
        out = []
        for sc in a.scenarios:
            r = span_range(sc.span)
            name = _find_after(text_lines, sc.span, "scenario", skip_first=False)
            out.append(Symbol(sc.title, "scenario", r, name))
        return out
    return _outline(a.decls, text_lines)


def _outline(decls, text_lines) -> list[Symbol]:
    out = []
    for d in decls:
        what = _OUTLINED.get(type(d))
        if what is None:
            continue
        r = span_range(d.span)
        if isinstance(d, A.Handler):
            name, name_range = d.name, _source_line_range(text_lines, d.span, d.event)
        elif isinstance(d, (A.Setup, A.Court)):
            name, name_range = what, Range(r.line, r.col, r.line, r.col + len(what))
        else:
            name, name_range = d.name, _source_line_range(text_lines, d.span, d.name)
        sym = Symbol(name, what, r, name_range, detail=getattr(d, "title", None) or "")
        if isinstance(d, A.Stage):
            sym.children = _outline(d.members, text_lines)
        elif isinstance(d, A.Kind):
            sym.children = [Symbol(f.name, "field", span_range(f.span), _source_line_range(text_lines, f.span, f.name))
                            for f in d.fields]
        elif isinstance(d, A.Enum):
            for m in d.members:
                mr = _find_after(text_lines, d.span, m, skip_first=True)
                sym.children.append(Symbol(m, "member", mr, mr))
        out.append(sym)
    return out


# ------------------------------------------------------------------------------- problems here
@dataclass
class Problem:
    range: Range
    message: str
    severity: str  # "error" or "warning"


def with_refusal(a: Analysis) -> Analysis:
    """`a` with what of its checked rule file the typed program cannot express among its
    diagnostics, as `vbr check` reports it (vbr.ir.build.refusal: the program is built, no
    engine). Building costs more than a keystroke's check (about 0.14 s for Volleyball High),
    so the server asks for it when a document is opened or saved, or its edits have paused
    (server.BUILD_PAUSE_S)."""
    if a.model is None or any(d.message.startswith("not supported yet: ") for d in a.diagnostics):
        return a
    from vbr.ir.build import refusal
    refused = refusal(a.model)
    if refused is not None:
        a.diagnostics = a.diagnostics + [refused]
    return a


def problems(a: Analysis) -> list[Problem]:
    """The diagnostics as this document shows them. A problem located in another file (the file
    this one extends, or the rule file a scenario file tests) is shown at the line that names that
    file, with its own position in front of its message."""
    lines = a.lines
    anchor = _anchor(a)
    out = []
    for d in a.diagnostics:
        if d.span.file == a.path and d.span.line > 0:
            out.append(Problem(span_range(d.span, lines), d.message, d.severity))
        else:
            where = f"{d.span}: " if d.span.line > 0 else f"{d.span.file}: "
            out.append(Problem(anchor, where + d.message, d.severity))
    return out


def _anchor(a: Analysis) -> Range:
    for d in a.decls:
        if isinstance(d, A.Extends):
            return span_range(d.span)
    lines = a.lines
    for i, line in enumerate(lines):  # the header line
        if line.strip() and not line.lstrip().startswith("#"):
            return Range(i, 0, i, len(line.rstrip()))
    return Range(0, 0, 0, 0)


# ------------------------------------------------------------------------------- locals
@dataclass
class Local:
    """A parameter or a local (`let`, `for`, `choose`, a comprehension's variable) of one declaration."""

    name: str
    what: str  # parameter, let, for, choose, comprehension
    range: Range
    text: str  # the line that declares it, trimmed


def unit_at(a: Analysis, line: int, col: int) -> A.Node | None:
    """The declaration (a stage's phase, not the stage) or scenario of this file at a position."""
    for n in _units(a.trees.get(a.path, [])):
        r = span_range(n.span)
        if (r.line, r.col) <= (line, col) <= (r.end_line, r.end_col):
            return n
    return None


def locals_of(a: Analysis, unit: A.Node, name: str) -> tuple[list[Local], list[Range]]:
    """Where `name` is declared as a local of `unit`, and every use of it there."""
    lines = a.lines
    sites: list[Local] = []
    uses: list[Range] = []
    for n in A.walk(unit):
        what = None
        if isinstance(n, A.Param) and n.name == name:
            what = "parameter"
        elif isinstance(n, A.Let) and n.name == name:
            what = "let"
        elif isinstance(n, A.For) and n.var == name:
            what = "for"
        elif isinstance(n, A.Choose) and n.var == name:
            what = "choose"
        elif isinstance(n, A.Comprehension) and n.var == name:
            what = "comprehension"
        if what is not None:
            r = (_source_line_range(lines, n.span, name) if what in ("parameter",)
                 else _find_word_after(lines, n.span, {"let": "let", "for": "for", "choose": "choose",
                                                      "comprehension": "for"}[what], name))
            sites.append(Local(name, what, r, lines[r.line].strip() if r.line < len(lines) else ""))
        elif isinstance(n, A.Name) and n.id == name:
            uses.append(span_range(n.span))
    for s in sites:
        if s.range not in uses:
            uses.append(s.range)
    uses.sort(key=lambda r: (r.line, r.col))
    return sites, uses


def _find_word_after(lines: list[str], span: Span, keyword: str, name: str) -> Range:
    """`name` where it follows `keyword` (`let x`, `for t in`) within the span."""
    pattern = re.compile(rf"\b{keyword}\s+({re.escape(name)})\b")
    for ln in range(span.line - 1, min(span.end_line, len(lines))):
        a = span.col - 1 if ln == span.line - 1 else 0
        m = pattern.search(lines[ln], a)
        if m:
            return Range(ln, m.start(1), ln, m.end(1))
    return span_range(span)
