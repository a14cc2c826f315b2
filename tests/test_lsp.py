"""`vbr lsp` over a real LSP session on stdio (pytest-lsp drives `python -m vbr.lsp`): what each
request returns is reasoned from the text of the file, not from the server's own functions."""
import asyncio
import os
import re
import subprocess
import sys

import pytest

import pytest_lsp  # the test extra installs it, with vbr[lsp]: a missing one is a failure, not a skip
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from conftest import ROOT, RULES  # noqa: E402
from vbr.grammar.parser import parse  # noqa: E402
from vbr.grammar.printer import program  # noqa: E402

session = pytest.mark.asyncio(loop_scope="module")  # the tests that share one server

SIATKA = RULES / "siatka.vbr"
HIGH = RULES / "volleyball-high.vbr"


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "vbr.lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                           root_uri=ROOT.as_uri()))

    def record(params: T.PublishDiagnosticsParams) -> None:  # as pytest-lsp's own handler, and kept
        lsp_client.diagnostics[params.uri] = params.diagnostics
        _published.append(params)
    lsp_client.protocol.fm.features[T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    yield
    await lsp_client.shutdown_session()


# ------------------------------------------------------------------------------ helpers
_versions: dict[str, int] = {}
# every publishDiagnostics the server sent, in order: pytest-lsp's wait_for_notification has one
# waiter per method, and a notification that comes while it is not waiting (two close together)
# is lost to it, which hung a test for good
_published: list[T.PublishDiagnosticsParams] = []
_taken: dict[str, int] = {}  # a document -> the index in _published of the last publish a test took


async def open_doc(client: LanguageClient, path, text: str | None = None) -> list[T.Diagnostic]:
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8") if text is None else text
    _versions[uri] = 1
    since = len(_published)
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id="vbr", version=1, text=text)))
    return await _diagnostics(client, uri, since)


async def change_doc(client: LanguageClient, path, text: str) -> list[T.Diagnostic]:
    uri = path.as_uri()
    _versions[uri] += 1
    since = len(_published)
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=_versions[uri]),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
    return await _diagnostics(client, uri, since)


async def _diagnostics(client: LanguageClient, uri: str, since: int | None = None) -> list[T.Diagnostic]:
    """The diagnostics of the first publish for `uri` at its present version from index `since`
    of _published on (by default, after the last one taken for it)."""
    start = since if since is not None else _taken.get(uri, -1) + 1
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120  # a guard against a hang only
    while True:
        for i in range(start, len(_published)):
            params = _published[i]
            if params.uri == uri and params.version == _versions[uri]:
                _taken[uri] = i
                return list(params.diagnostics)
        assert loop.time() < deadline, f"no diagnostics of {uri} version {_versions[uri]} in 2 minutes"
        await asyncio.sleep(0.01)


def position(text: str, needle: str, nth: int = 0, into: int = 0) -> T.Position:
    """Where the nth occurrence of `needle` starts (plus `into` characters), 0-based."""
    starts = [m.start() for m in re.finditer(re.escape(needle), text)]
    at = starts[nth] + into
    line = text.count("\n", 0, at)
    return T.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1))


def vbr_check(path) -> set[tuple[int, int, str, str]]:
    """(line, col, severity, message) of every problem `vbr check` prints for a file."""
    run = subprocess.run([sys.executable, "-m", "vbr", "check", str(path)], capture_output=True, text=True)
    head = re.compile(rf"^{re.escape(str(path))}:(\d+):(\d+): (error|warning): (.*)$")
    return {(int(m[1]), int(m[2]), m[3], m[4]) for m in map(head.match, run.stderr.splitlines()) if m}


async def open_broken(client: LanguageClient, path, bad: str) -> tuple[list[T.Diagnostic], set]:
    """The diagnostics of `bad` opened as `path`, and what `vbr check` prints of it (written there)."""
    diags = await open_doc(client, path, bad)
    path.write_text(bad, encoding="utf-8")
    return diags, vbr_check(path)


def as_found(diags: list[T.Diagnostic]) -> set[tuple[int, int, str, str]]:
    sev = {T.DiagnosticSeverity.Error: "error", T.DiagnosticSeverity.Warning: "warning"}
    return {(d.range.start.line + 1, d.range.start.character + 1, sev[d.severity], d.message) for d in diags}


# ------------------------------------------------------------------------------ diagnostics
@session
async def test_a_bundled_file_has_no_diagnostics(client: LanguageClient):
    assert await open_doc(client, SIATKA) == []
    assert await open_doc(client, HIGH) == []


@session
async def test_an_error_arrives_at_its_range_with_the_text_of_vbr_check(client: LanguageClient, tmp_path):
    text = SIATKA.read_text(encoding="utf-8")
    path = tmp_path / "siatka.vbr"
    assert await open_doc(client, path, text) == []
    bad = text.replace("  goto serve\n", "  goto serv\n", 1)  # the placement phase's last line
    diags = await change_doc(client, path, bad)
    where = position(bad, "goto serv\n")  # the checker's span: the whole `goto` statement
    (d,) = [d for d in diags if d.severity == T.DiagnosticSeverity.Error]
    assert d.range.start == where
    assert d.range.end == T.Position(line=where.line, character=where.character + len("goto serv"))
    assert "`serv`" in d.message
    path.write_text(bad, encoding="utf-8")
    assert as_found(diags) == vbr_check(path)
    assert await change_doc(client, path, text) == []  # and it goes away when fixed


@session
async def test_all_problems_at_once(client: LanguageClient, tmp_path):
    text = SIATKA.read_text(encoding="utf-8")
    bad = text.replace("var ball: cell = none", "var ball: cel = none").replace("goto bounce", "goto bounse", 1)
    diags, expected = await open_broken(client, tmp_path / "two.vbr", bad)
    assert len([e for e in expected if e[2] == "error"]) >= 2
    assert as_found(diags) == expected


@session
async def test_a_syntax_error_keeps_the_rest_of_the_file(client: LanguageClient, tmp_path):
    text = SIATKA.read_text(encoding="utf-8")
    path = tmp_path / "broken.vbr"
    # a syntax error inside one procedure, and an unknown name in a phase further up
    bad = text.replace("proc refill(s: seat) {", "proc refill(s: seat) {\n  let = 3", 1)
    bad = bad.replace("var ball: cell = none", "var ball: cel = none")
    diags = await open_doc(client, path, bad)
    syntax = position(bad, "let = 3", into=len("let "))
    assert any(d.range.start == syntax for d in diags), diags
    unknown = position(bad, "cel = none")
    assert any(d.range.start == unknown and "cel" in d.message for d in diags), diags
    # nothing that follows from refill's absence (its callers) is reported
    assert not [d for d in diags if "refill" in d.message]
    symbols = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(text_document=T.TextDocumentIdentifier(uri=path.as_uri())))
    names = {s.name for s in _flat(symbols)}
    assert {"placement", "play_card", "take_over", "Tile", "hand"} <= names  # before and after the break
    assert "refill" not in names


@session
async def test_an_unclosed_block_is_reported_with_the_text_of_vbr_check_not_as_the_end_of_the_file(
        client: LanguageClient, tmp_path):
    # a piece parsed alone ends where the next declaration starts, and its parse said "(the end of
    # the file comes first)" where vbr check says "(`phase` on line N comes first)"
    text = SIATKA.read_text(encoding="utf-8")
    bad = text.replace("    refill(s)\n  }\n", "    refill(s)\n", 1)  # setup's `for` loses its `}`
    assert bad != text
    diags, expected = await open_broken(client, tmp_path / "unclosed.vbr", bad)
    assert len(expected) == 1 and "comes first" in next(iter(expected))[3] and "end of the file" not in str(expected)
    assert expected <= as_found(diags)
    assert not [d for d in diags if "the end of the file comes first" in d.message]


@session
async def test_a_declaration_line_typed_twice_is_reported_as_vbr_check_reports_it(client: LanguageClient, tmp_path):
    # the first copy, cut off alone, left its `{` open to "the end of the file"; the whole parse
    # (vbr check) stops on the next line, the second copy, which that block takes in
    text = SIATKA.read_text(encoding="utf-8")
    bad = text.replace("proc play_card(c: Card) {\n", "proc play_card(c: Card) {\nproc play_card(c: Card) {\n", 1)
    assert bad != text
    diags, expected = await open_broken(client, tmp_path / "twice.vbr", bad)
    second = position(bad, "proc play_card(c: Card)", nth=1)
    assert [(line, col) for line, col, _, _ in expected] == [(second.line + 1, len("proc play_card(c") + 1)]
    assert expected <= as_found(diags)
    assert not [d for d in diags if "the end of the file comes first" in d.message]


@session
async def test_a_block_left_open_does_not_hide_the_syntax_error_of_the_next_declaration(client: LanguageClient,
                                                                                         tmp_path):
    # the whole parse (vbr check) stops on the first line of refill, which play_card's open block
    # takes in: both broken pieces were given that error, and refill's own `)` went unreported
    text = SIATKA.read_text(encoding="utf-8")
    bad = text.replace('  say "seat {holder} plays {c.tactic}"\n}\n', '  say "seat {holder} plays {c.tactic}"\n', 1)
    bad = bad.replace("    move top(deck[s]) to hand[s]\n", "    move top(deck[s]) to hand[s] )\n", 1)
    assert bad.count("\n") == text.count("\n") - 1
    diags, expected = await open_broken(client, tmp_path / "two_broken.vbr", bad)
    assert expected <= as_found(diags)  # the first, as vbr check says it
    stray = position(bad, "to hand[s] )", into=len("to hand[s] "))
    assert any(d.range.start == stray and "unexpected ')'" in d.message for d in diags), diags


@session
async def test_a_file_without_its_game_line_is_an_error_at_its_first_declaration_as_vbr_check_says(
        client: LanguageClient, tmp_path):
    # the comments above the first declaration were parsed alone, as the header: "unexpected end
    # of file" at line 1, column 1, where vbr check names the first declaration's word
    text = SIATKA.read_text(encoding="utf-8")
    bad = text.replace('game "Siatka"\n', "", 1)
    assert bad != text
    diags, expected = await open_broken(client, tmp_path / "headless.vbr", bad)
    assert len(expected) == 1 and "unexpected end of file" not in str(expected)
    assert as_found([d for d in diags if d.severity == T.DiagnosticSeverity.Error]) == expected


# ------------------------------------------------------------------------------ names
@session
async def test_hover_shows_the_declaration_its_comment_and_the_passage(client: LanguageClient):
    text = SIATKA.read_text(encoding="utf-8")
    await open_doc(client, SIATKA)
    # `hand` is used in proc refill; its declaration is `zone hand per seat owner  # [Setup 4] "..."`
    use = position(text, "hand[s]", into=1)
    hover = await client.text_document_hover_async(
        T.HoverParams(text_document=T.TextDocumentIdentifier(uri=SIATKA.as_uri()), position=use))
    value = hover.contents.value
    assert "**zone** `hand`" in value
    assert "zone hand per seat owner" in value
    assert "Keep your hand hidden from your opponent." in value
    assert "Rulebook: [Setup 4]" in value
    # an option, with the comment block above it
    use = position(text, "option target")
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=SIATKA.as_uri()),
        position=T.Position(line=use.line, character=use.character + len("option t"))))
    assert "**option** `target`" in hover.contents.value
    assert "option target = 9" in hover.contents.value
    assert "[Goal of the Game]" in hover.contents.value


@session
async def test_definition_and_references(client: LanguageClient):
    text = SIATKA.read_text(encoding="utf-8")
    await open_doc(client, SIATKA)
    doc = T.TextDocumentIdentifier(uri=SIATKA.as_uri())
    use = position(text, "goto bounce", into=len("goto b"))
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert loc.uri == SIATKA.as_uri()
    assert loc.range.start == position(text, "phase bounce", into=len("phase "))
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc, position=use, context=T.ReferenceContext(include_declaration=True)))
    expected = [position(text, "goto bounce", nth=i, into=len("goto ")) for i in range(text.count("goto bounce"))]
    expected.append(position(text, "phase bounce", into=len("phase ")))
    assert {_at(r.range.start) for r in refs} == {_at(p) for p in expected}
    # a field of a kind: `t.field` goes to `field: int` in `kind Tile`
    use = position(text, "t.field", into=2)
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert loc.range.start == position(text, "field: int")


@session
async def test_a_measure_has_hover_definition_and_references_by_the_name_after_measure(client: LanguageClient):
    # Siatka: `measure first_server: seat first mover as "first server"`, set once in setup
    text = SIATKA.read_text(encoding="utf-8")
    await open_doc(client, SIATKA)
    doc = T.TextDocumentIdentifier(uri=SIATKA.as_uri())
    use = position(text, "measure first_server = server", into=len("measure f"))
    hover = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=use))
    assert hover is not None and "**measure** `first_server`" in hover.contents.value
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert loc.range.start == position(text, "measure first_server: seat", into=len("measure "))
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc, position=use, context=T.ReferenceContext(include_declaration=True)))
    assert {_at(r.range.start) for r in refs} == {_at(position(text, "measure first_server = server", into=8)),
                                                   _at(position(text, "measure first_server: seat", into=8))}


@session
async def test_definition_and_references_across_extends(client: LanguageClient, tmp_path):
    path = tmp_path / "variant.vbr"
    text = ('game "Siatka, first to 5"\nextends "siatka"\n\n# a shorter game\n'
            "override option target = 5\n\nvar rallies: int = 0\n\n"
            "override proc take_over(s: seat) {\n  holder = s\n  rallies += 1\n  bounces = 0\n  played = 0\n}\n")
    assert await open_doc(client, path, text) == []
    doc = T.TextDocumentIdentifier(uri=path.as_uri())
    base = SIATKA.read_text(encoding="utf-8")
    use = position(text, "holder = s")
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert loc.uri == SIATKA.as_uri()
    assert loc.range.start == position(base, "var holder", into=len("var "))
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc, position=use, context=T.ReferenceContext(include_declaration=False)))
    in_variant = [r.range.start for r in refs if r.uri == path.as_uri()]
    assert in_variant == [use]
    base_uses = {_at(r.range.start) for r in refs if r.uri == SIATKA.as_uri()}
    # every whole word `holder` of the base file's code (not its comments), less its declaration
    code_lines = [re.sub(r"#.*", "", line) for line in base.split("\n")]
    words = {(i, m.start()) for i, line in enumerate(code_lines) for m in re.finditer(r"\bholder\b", line)}
    assert base_uses == words - {_at(position(base, "var holder", into=len("var ")))}


@session
async def test_a_parameter_is_its_own_name(client: LanguageClient):
    """In `proc refill(s: seat) { ... }` the `s` is the parameter, not anything global."""
    text = SIATKA.read_text(encoding="utf-8")
    await open_doc(client, SIATKA)
    doc = T.TextDocumentIdentifier(uri=SIATKA.as_uri())
    head = position(text, "proc refill(s: seat)", into=len("proc refill("))
    lines = text.split("\n")
    end = next(i for i in range(head.line, len(lines)) if lines[i] == "}")
    body = [(i, m.start()) for i in range(head.line + 1, end)
            for m in re.finditer(r"\bs\b", re.sub(r"#.*", "", lines[i]))]
    use = T.Position(line=body[0][0], character=body[0][1])
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert _at(loc.range.start) == _at(head)
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc, position=use, context=T.ReferenceContext(include_declaration=True)))
    assert sorted(_at(r.range.start) for r in refs) == [_at(head)] + body
    hover = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=use))
    assert "**parameter** `s`" in hover.contents.value and "proc refill(s: seat)" in hover.contents.value


# ------------------------------------------------------------------------------ completion
@session
async def test_completion_offers_names_keywords_and_options(client: LanguageClient, tmp_path):
    text = SIATKA.read_text(encoding="utf-8")
    path = tmp_path / "complete.vbr"
    bad = text.replace("  goto serve\n", "  goto serve\n  \n", 1)
    await open_doc(client, path, bad)
    at = position(bad, "  goto serve\n  \n", into=len("  goto serve\n  "))
    result = await client.text_document_completion_async(
        T.CompletionParams(text_document=T.TextDocumentIdentifier(uri=path.as_uri()), position=at))
    labels = {i.label for i in result.items}
    declared = set(re.findall(r"^\s*(?:override\s+)?(?:phase|proc|fn|var|zone|kind|option|die|enum)\s+(\w+)", text, re.M))
    options = set(re.findall(r"^option (\w+)", text, re.M))
    assert options == {"target", "abilities", "block_marker", "r_ability", "rotation"}
    assert declared <= labels
    assert {"goto", "choose", "phase", "let"} <= labels  # keywords
    assert {"other", "field", "top"} <= labels  # built-in functions
    after_dot = bad.replace("  goto serve\n  \n", "  goto serve\n  hitter.\n", 1)
    await change_doc(client, path, after_dot)
    at = position(after_dot, "hitter.\n", into=len("hitter."))
    result = await client.text_document_completion_async(
        T.CompletionParams(text_document=T.TextDocumentIdentifier(uri=path.as_uri()), position=at))
    fields = set()
    for body in re.findall(r"^kind \w+ \{(.*)\}", text, re.M):
        fields |= set(re.findall(r"(\w+):", body))
    assert {i.label for i in result.items} == fields


# ------------------------------------------------------------------------------ fmt, outline
@session
async def test_formatting_gives_the_canonical_form(client: LanguageClient, tmp_path):
    text = SIATKA.read_text(encoding="utf-8")
    path = tmp_path / "messy.vbr"
    messy = text.replace("seats 2\n", "seats    2\n").replace("  goto serve\n", "      goto   serve\n", 1)
    await open_doc(client, path, messy)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
        text_document=T.TextDocumentIdentifier(uri=path.as_uri()),
        options=T.FormattingOptions(tab_size=2, insert_spaces=True)))
    (edit,) = edits
    assert edit.range.start == T.Position(line=0, character=0)
    assert edit.range.end.line >= messy.count("\n")
    assert edit.new_text == program(parse(messy, str(path))) == text  # the bundled file is canonical


@session
async def test_document_symbols_are_the_files_declarations(client: LanguageClient):
    text = HIGH.read_text(encoding="utf-8")
    await open_doc(client, HIGH)
    symbols = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(text_document=T.TextDocumentIdentifier(uri=HIGH.as_uri())))
    flat = _flat(symbols)
    for word, kind in (("phase", T.SymbolKind.Method), ("proc", T.SymbolKind.Function),
                       ("kind", T.SymbolKind.Struct), ("zone", T.SymbolKind.Array)):
        in_text = re.findall(rf"^\s*(?:override\s+)?{word}\s+(\w+)", text, re.M)
        assert in_text
        shown = [s.name for s in flat if s.kind == kind and s.detail.split()[0] == word]
        assert sorted(shown) == sorted(in_text), word
    lines = text.split("\n")
    for s in flat:
        if s.kind == T.SymbolKind.Method:  # the name's range covers the name, on the phase's line
            line = lines[s.selection_range.start.line]
            assert line[s.selection_range.start.character:s.selection_range.end.character] == s.name


def _at(p: T.Position) -> tuple[int, int]:
    return p.line, p.character


def _flat(symbols) -> list:
    out = []
    for s in symbols or []:
        out.append(s)
        out += _flat(s.children)
    return out


@session
async def test_a_scenario_file_whose_rules_are_a_link_to_another_file_quotes_none_of_it(client: LanguageClient,
                                                                                      tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET first line\n", encoding="utf-8")
    (tmp_path / "leak.vbr").symlink_to(secret)
    tests = tmp_path / "t.vbr"
    diags = await open_doc(client, tests, 'tests for "leak.vbr"\nscenario "x" {\n}\n')
    assert diags and not any("TOPSECRET" in d.message for d in diags)
    assert any("it is a link to a file that is not a .vbr file" in d.message for d in diags)


@session
async def test_a_scenario_file(client: LanguageClient):
    tests = RULES / "tests" / "siatka.vbr"
    text = tests.read_text(encoding="utf-8")
    assert await open_doc(client, tests) == []
    symbols = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(text_document=T.TextDocumentIdentifier(uri=tests.as_uri())))
    assert [s.name for s in symbols] == re.findall(r'^scenario "([^"]*)"', text, re.M)
    # a name of the rule file, used in an expectation: its declaration is in rules/siatka.vbr
    use = position(text, "expect holder", into=len("expect "))
    hover = await client.text_document_hover_async(
        T.HoverParams(text_document=T.TextDocumentIdentifier(uri=tests.as_uri()), position=use))
    assert "**var** `holder`" in hover.contents.value
    assert "_declared in siatka.vbr" in hover.contents.value
    # a misspelt name: the error arrives where `vbr check` puts it (the copy must sit beside its rules)
    path = RULES / "tests" / "siatka.vbr"  # the same URI, changed in the editor only
    bad = text.replace("expect holder", "expect holdr", 1)
    diags = await change_doc(client, path, bad)
    where = position(bad, "expect holdr", into=len("expect "))
    assert [(d.range.start.line, d.range.start.character, d.message) for d in diags] == \
        [(where.line, where.character, "unknown name `holdr`; did you mean `holder`?")]
    assert await change_doc(client, path, text) == []


def _code_lines(text: str, decl) -> list[int]:
    """0-based lines strictly inside `decl` (not its first or last) holding code, not a comment,
    a blank or a string."""
    lines = text.split("\n")
    return [i for i in range(decl.span.line, decl.span.end_line - 1)
            if lines[i].strip() and not lines[i].lstrip().startswith("#") and '"' not in lines[i]]


def _shape(decls) -> list[tuple[str, str | None]]:
    return [(type(d).__name__, getattr(d, "name", None)) for d in decls]


def _said(a) -> list[tuple]:
    return [(d.span.line, d.span.col, d.severity, d.message) for d in a.diagnostics]


EDITS = ["blank", "comment", "number", "break", "drop", "move"]


def _edit(rnd, text: str, decls, kind: str) -> tuple[str, str, object]:
    """One random edit of `kind` (EDITS) of `text` (which parses into `decls`): (its kind, the new
    text, the declaration it touched or None). Code edits change a number, insert a stray `)` or
    delete a line inside one declaration, or move a whole declaration to the end of the file."""
    lines = text.split("\n")
    inner = [d for d in decls if _code_lines(text, d)]
    decl = rnd.choice(inner)
    i = rnd.choice(_code_lines(text, decl))
    if kind == "blank":
        lines.insert(rnd.randrange(1, len(lines)), "")
        decl = None
    elif kind == "comment":
        lines.insert(rnd.randrange(1, len(lines)), "  # a note")
        decl = None
    elif kind == "number":
        numbered = [d for d in inner if any(re.search(r"\b\d+\b", lines[k].split("#")[0])
                                              for k in _code_lines(text, d))]
        decl = rnd.choice(numbered)
        i = rnd.choice([k for k in _code_lines(text, decl) if re.search(r"\b\d+\b", lines[k].split("#")[0])])
        code, _, note = lines[i].partition("#")
        number = rnd.choice(list(re.finditer(r"\b\d+\b", code)))
        code = code[:number.start()] + str(int(number.group()) + 1) + code[number.end():]
        lines[i] = code + ("#" + note if note else "")
    elif kind == "break":
        indent = len(lines[i]) - len(lines[i].lstrip())
        lines[i] = lines[i][:indent] + ") " + lines[i][indent:]
    elif kind == "drop":
        del lines[i]
    else:  # move
        block = lines[decl.span.line - 1:decl.span.end_line]
        del lines[decl.span.line - 1:decl.span.end_line]
        lines += ["", *block]
    return kind, "\n".join(lines), decl


def test_edits_parsed_a_declaration_at_a_time_equal_a_whole_parse():
    """The server re-parses only the declarations an edit touched and shifts the others: after a
    sequence of edits of code, comments and blank lines, what it holds (declarations, positions
    included, and problems) equals what it makes of the same text afresh; when the text parses,
    its declarations are the whole parse's; when an edit breaks one declaration, the server
    reports a syntax error inside it and keeps every other declaration."""
    import random

    from vbr.errors import VbrError
    from vbr.lsp.analysis import PieceCache, analyse
    path = str(HIGH)
    text = HIGH.read_text(encoding="utf-8")
    decls = list(parse(text, path).decls)
    cache = PieceCache()
    rnd = random.Random(3)
    # every kind of edit once, in a random order, then two more of any kinds: each kind met
    # after others (16 edits of random kinds took twice the parsing to meet them)
    kinds = rnd.sample(EDITS, len(EDITS)) + [rnd.choice(EDITS) for _ in range(2)]
    for kind in kinds:
        kind, edited, touched = _edit(rnd, text, decls, kind)
        a = analyse(edited, path, cache)
        fresh = analyse(edited, path)
        assert (a.decls, _said(a), a.recovered) == (fresh.decls, _said(fresh), fresh.recovered), kind
        try:
            whole = list(parse(edited, path).decls)
        except VbrError:
            assert kind in ("break", "drop") and a.recovered
            assert any(touched.span.line <= d.span.line <= touched.span.end_line and d.severity == "error"
                       for d in a.diagnostics), (kind, _said(a))
            assert _shape(a.decls) == _shape(d for d in decls if d is not touched)
            assert analyse(text, path, cache).decls == decls  # the edit undone
            continue
        assert not a.recovered and a.decls == whole
        text, decls = edited, whole


@session
async def test_saving_a_base_file_checks_its_variants_again(client: LanguageClient, tmp_path):
    base = tmp_path / "base.vbr"
    base.write_text('game "Base"\nstart p\nvar n: int = 0\nphase p {\n  end draw\n}\n', encoding="utf-8")
    variant = tmp_path / "variant.vbr"
    text = 'game "Variant"\nextends "base.vbr"\nsetup {\n  n = 1\n}\n'
    assert await open_doc(client, variant, text) == []
    # the base file loses `n`, is saved: the variant's use of it is now an error
    base.write_text('game "Base"\nstart p\nvar m: int = 0\nphase p {\n  end draw\n}\n', encoding="utf-8")
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=base.as_uri())))
    # two publications come (the base file's, then the variant's), maybe in one read: watch what
    # the client has received rather than wait for one notification after another
    for _ in range(600):
        if client.diagnostics.get(variant.as_uri()):
            break
        await asyncio.sleep(0.1)
    (d,) = client.diagnostics[variant.as_uri()]
    assert "`n`" in d.message
    assert d.range.start == position(text, "n = 1")


# ------------------------------------------------------------------------------ bounded (issue 38, item 5)
@session
async def test_a_document_past_the_token_limit_gets_the_checkers_error_alone(client: LanguageClient, tmp_path):
    from vbr.limits import MAX_TOKENS
    text = 'game "Big"\n' + "".join(f"const c{i} = {i}\n" for i in range(MAX_TOKENS // 4 + 10))
    diags = await asyncio.wait_for(open_doc(client, tmp_path / "big.vbr", text), timeout=120)  # a hang guard only
    assert len(diags) == 1 and f"more than {MAX_TOKENS:,} tokens" in diags[0].message


@session
async def test_a_request_for_a_document_never_opened_reads_nothing_from_disk(client: LanguageClient, tmp_path):
    fifo = tmp_path / "pipe.vbr"
    os.mkfifo(fifo)  # reading it would wait for ever; /dev/zero would never end
    for uri in ("file:///dev/zero", fifo.as_uri()):
        symbols = await asyncio.wait_for(client.text_document_document_symbol_async(
            T.DocumentSymbolParams(text_document=T.TextDocumentIdentifier(uri=uri))), timeout=60)
        assert not symbols


@session
async def test_a_burst_of_edits_is_analysed_once_it_pauses(client: LanguageClient, tmp_path):
    path = tmp_path / "burst.vbr"
    text = SIATKA.read_text(encoding="utf-8")
    await open_doc(client, path, text)
    uri = path.as_uri()
    since = len(_published)
    for k in range(20):  # sent at once, as fast typing does: each its own version
        _versions[uri] += 1
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=_versions[uri]),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=text + "#" * (k + 1) + "\n")]))
    await _diagnostics(client, uri, since)
    seen = [p.version for p in _published[since:_taken[uri] + 1] if p.uri == uri]
    assert len(seen) <= 2 and seen[-1] == _versions[uri]


@session
async def test_a_position_far_past_the_end_gets_an_answer_not_a_crash(client: LanguageClient):
    await open_doc(client, SIATKA)
    for position in (T.Position(line=10 ** 9, character=0), T.Position(line=0, character=10 ** 9)):
        try:
            hover = await asyncio.wait_for(client.text_document_hover_async(
                T.HoverParams(text_document=T.TextDocumentIdentifier(uri=SIATKA.as_uri()), position=position)), timeout=60)
        except Exception as exc:  # a JSON-RPC error reply to this request is an answer too
            assert "JsonRpc" in type(exc).__name__ or "error" in str(exc).lower()
        else:
            assert hover is None
    # the server still answers afterwards
    symbols = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(text_document=T.TextDocumentIdentifier(uri=SIATKA.as_uri())))
    assert symbols


@pytest.mark.slow  # checks Siatka
def test_a_scenario_files_step_problems_and_refused_option_are_diagnostics_at_their_steps():
    """The language server checks a scenario's steps as `vbr check` does, with no engine: a die it
    lacks, a forced face of the wrong type, an option the rule file does not have, each at its step."""
    from vbr.lsp.analysis import PieceCache, analyse
    text = ('tests for "siatka"\n\nscenario "bad" {\n  force green = forward\n  force nodie = 3\n}\n\n'
            'scenario "bad option" {\n  option nosuch = 3\n  expect holder == 0\n}\n')
    a = analyse(text, str(RULES / "tests" / "mine.vbr"), PieceCache())
    assert [(line, col, message) for line, col, _, message in _said(a)] == [
        (4, 17, "a forced face must be int, not dir"),
        (5, 3, "no die `nodie` (dice: movement, green)"),
        (9, 3, "unknown option `nosuch` (siatka.vbr has options: abilities, block_marker, r_ability, rotation, target)"),
    ]


@session
async def test_what_the_typed_program_cannot_express_is_reported_on_open_on_save_and_once_edits_pause(
        client: LanguageClient, tmp_path):
    # every engine plays the typed program, so `vbr check` reports it; the server builds the
    # program when the file is opened or saved, and once edits have paused (docs/editors.md)
    path = tmp_path / "lists.vbr"
    text = ('game "Lists"\nseats 2\nstart one\nvar seen: list of int per seat = [[1], [2, 3]]\n'
            'phase one {\n  let n = [[count(seen)]]\n  end draw\n}\n')
    path.write_text(text, encoding="utf-8")
    (d,) = await open_doc(client, path, text)
    assert d.message == "not supported yet: a list worked out in play as an item of a list (such items are lists fixed before play)"
    assert d.range.start == position(text, "[count") and d.severity == T.DiagnosticSeverity.Error
    assert as_found([d]) == vbr_check(path)
    edited = text.replace("end draw", "end draw ")
    assert await change_doc(client, path, edited) == []  # first checked, at once ...
    (d,) = await asyncio.wait_for(_diagnostics(client, path.as_uri()), timeout=60)  # ... then built, unsaved
    assert d.message.startswith("not supported yet: ") and d.range.start == position(edited, "[count")
    fixed = edited.replace("[[count(seen)]]", "[count(seen)]")
    assert await change_doc(client, path, fixed) == []
    path.write_text(edited, encoding="utf-8")
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=path.as_uri())))
    assert await asyncio.wait_for(_diagnostics(client, path.as_uri()), timeout=60) == []  # the document, not the disk


# ------------------------------------------------------------------------------ as an editor meets it
def edit_doc(client: LanguageClient, path, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
    """One incremental change, as editors send them: `text` replaces the range from `start` to
    `end` ((line, character), 0-based, UTF-16). Waits for nothing."""
    uri = path.as_uri()
    _versions[uri] += 1
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=_versions[uri]),
        content_changes=[T.TextDocumentContentChangePartial(
            range=T.Range(start=T.Position(line=start[0], character=start[1]),
                          end=T.Position(line=end[0], character=end[1])), text=text)]))


_SMALL = 'game "Small"\nseats 2\nstart p\nvar n: int = 0\nphase p {\n  n = 1\n  end draw\n}\n'


@session
async def test_a_request_right_after_an_edit_answers_from_the_edited_text(client: LanguageClient, tmp_path):
    # an edit is analysed once the edits pause (0.3 s), but a request in between must answer
    # from the text as it is then (docs/cli.md), not from the text before the edit
    path = tmp_path / "moved.vbr"
    assert await open_doc(client, path, _SMALL) == []
    edit_doc(client, path, (1, 0), (1, 0), "# one\n# two\n")  # two lines typed above `seats 2`
    edited = _SMALL.replace("seats 2\n", "# one\n# two\nseats 2\n")
    doc = T.TextDocumentIdentifier(uri=path.as_uri())
    use = position(edited, "n = 1")  # line 7 now; line 5 before the edit
    hover = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=use))
    assert hover is not None and "**var** `n`" in hover.contents.value
    assert "line 6_" in hover.contents.value  # `var n` moved from line 4 to 6
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert loc.range.start == position(edited, "var n", into=len("var "))
    symbols = _flat(await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=doc)))
    assert {(s.name, s.selection_range.start.line) for s in symbols} == {("n", 5), ("p", 6)}
    assert await _diagnostics(client, path.as_uri()) == []  # the edit's own publish comes too


@session
async def test_formatting_or_saving_a_document_never_opened_reads_nothing_from_disk(client: LanguageClient,
                                                                                  tmp_path):
    fifo = tmp_path / "never.vbr"
    os.mkfifo(fifo)  # reading it would wait until something writes to it
    try:
        client.text_document_did_save(T.DidSaveTextDocumentParams(
            text_document=T.TextDocumentIdentifier(uri=fifo.as_uri())))
        edits = await asyncio.wait_for(client.text_document_formatting_async(T.DocumentFormattingParams(
            text_document=T.TextDocumentIdentifier(uri=fifo.as_uri()),
            options=T.FormattingOptions(tab_size=2, insert_spaces=True))), timeout=30)  # a hang guard only
    except BaseException:
        await _release(fifo)
        raise
    assert edits is None


async def _release(fifo) -> None:
    """Let a server stuck reading `fifo` go on, so that a failure here does not hang the session:
    the pipe is opened for writing and closed (an end of file to its reader) for a few seconds."""
    for _ in range(50):
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # no reader now
            pass
        await asyncio.sleep(0.1)


@session
async def test_a_document_whose_path_has_a_space_is_answered_and_checked_after_edits(client: LanguageClient,
                                                                                   tmp_path):
    # an editor sends `file:///.../My%20Rules/small.vbr` for it
    folder = tmp_path / "My Rules"
    folder.mkdir()
    path = folder / "small.vbr"
    assert "%20" in path.as_uri()
    assert await open_doc(client, path, _SMALL) == []
    doc = T.TextDocumentIdentifier(uri=path.as_uri())
    use = position(_SMALL, "n = 1")
    hover = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=use))
    assert hover is not None and "**var** `n`" in hover.contents.value
    edit_doc(client, path, (use.line, use.character), (use.line, use.character + 1), "nn")
    (d,) = await asyncio.wait_for(_diagnostics(client, path.as_uri()), timeout=30)  # a hang guard only
    assert d.range.start == use and "`nn`" in d.message


@session
async def test_lines_end_where_the_protocol_ends_them(client: LanguageClient, tmp_path):
    # LSP ends a line at \n, \r\n or \r only, as `vbr check` does; a form feed, NEL or U+2028 in a
    # comment is a character of its line, so an edit below it lands where the editor made it
    path = tmp_path / "ends.vbr"
    text = _SMALL.replace("var n", "# a page\x0cbreak, a NEL\x85here, a line\u2028separator\nvar n")
    assert await open_doc(client, path, text) == []
    use = position(text, "n = 1")
    assert use.line == 6
    edit_doc(client, path, (use.line, use.character), (use.line, use.character + 1), "nn")
    (d,) = await asyncio.wait_for(_diagnostics(client, path.as_uri()), timeout=30)  # a hang guard only
    assert d.range.start == use and d.message.startswith("unknown variable `nn`")  # `nn = 1` assigns it
    # a file whose lines end with a lone \r (as old Mac files do): `n = 1` is on the sixth line
    path = tmp_path / "mac.vbr"
    assert await open_doc(client, path, _SMALL.replace("\n", "\r")) == []
    doc = T.TextDocumentIdentifier(uri=path.as_uri())
    use = T.Position(line=5, character=2)
    hover = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=use))
    assert hover is not None and "**var** `n`" in hover.contents.value
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert loc.range.start == T.Position(line=3, character=4)


_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


@session
async def test_no_raw_control_character_of_a_rule_file_reaches_the_editor(client: LanguageClient, tmp_path):
    # ESC ] 0 ; ... BEL retitles a terminal, U+202E reverses the text after it (docs/language.md,
    # Limits): hover, completion, the outline and diagnostics show them escaped, as `vbr check` does
    evil = "\x1b]0;owned\x07\u202e"
    base = tmp_path / f"base{evil}.vbr"  # a base file's name is in a message about it
    base.write_text('game "Base"\nseats 2\nstart p\nvar n: int = 0\nphase p {\n  end draw\n}\nvar n: int = 1\n',
                    encoding="utf-8")
    path = tmp_path / "evil.vbr"
    text = (f'game "Evil"\nextends "{base.name}"\n# the count {evil}\nvar m: int = 0\n'
            f'override phase p "title {evil}" {{\n  m = 1\n  end draw\n}}\n')
    diags = await open_doc(client, path, text)
    assert any("`n` is defined twice" in d.message and "\\x1b]0;owned\\x07\\u202e" in d.message for d in diags), diags
    doc = T.TextDocumentIdentifier(uri=path.as_uri())
    use = position(text, "m = 1")
    hover = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=use))
    assert "the count \\x1b]0;owned\\x07\\u202e" in hover.contents.value
    items = (await client.text_document_completion_async(T.CompletionParams(text_document=doc, position=use))).items
    (p,) = [i for i in items if i.label == "p"]
    assert p.detail == 'override phase p "title \\x1b]0;owned\\x07\\u202e"'
    symbols = _flat(await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=doc)))
    (p,) = [s for s in symbols if s.name == "p"]
    assert p.detail == 'phase "title \\x1b]0;owned\\x07\\u202e"'
    shown = [d.message for d in diags] + [hover.contents.value] + [i.detail or "" for i in items] \
        + [s.name + s.detail for s in symbols]
    assert not [s for s in shown if _RAW.search(s)]


@session
async def test_a_variant_whose_base_file_is_missing_is_checked_again_once_the_base_is_made(client: LanguageClient,
                                                                                         tmp_path):
    variant = tmp_path / "variant.vbr"
    text = 'game "Variant"\nextends "later.vbr"\nsetup {\n  n = 1\n}\n'
    (d,) = await open_doc(client, variant, text)
    assert "cannot find rule file" in d.message
    base = tmp_path / "later.vbr"  # the base file is written (an editor's watcher reports it) ...
    base.write_text('game "Base"\nseats 2\nstart p\nvar n: int = 0\nphase p {\n  end draw\n}\n', encoding="utf-8")
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
        changes=[T.FileEvent(uri=base.as_uri(), type=T.FileChangeType.Created)]))
    # ... and the variant, which uses its `n`, is fine now
    assert await asyncio.wait_for(_diagnostics(client, variant.as_uri()), timeout=30) == []  # a hang guard only


@session
async def test_a_scenario_file_testing_rules_up_a_folder_links_to_them_and_sees_them_saved(client: LanguageClient,
                                                                                         tmp_path):
    rules = tmp_path / "rules.vbr"
    rules.write_text('game "Rules"\nseats 2\nstart p\nvar n: int = 0\nphase p {\n  end draw\n}\n', encoding="utf-8")
    (tmp_path / "tests").mkdir()
    tests = tmp_path / "tests" / "rules.vbr"
    text = 'tests for "../rules.vbr"\n\nscenario "n" {\n  expect n == 0\n}\n'
    assert await open_doc(client, tests, text) == []
    use = position(text, "n == 0")
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(
        text_document=T.TextDocumentIdentifier(uri=tests.as_uri()), position=use))
    assert loc.uri == rules.as_uri()  # the file's own URI, not `.../tests/../rules.vbr`, which an editor opens again
    assert loc.range.start == T.Position(line=3, character=4)
    # the rule file loses `n` and is saved: the scenario file is checked again
    rules.write_text('game "Rules"\nseats 2\nstart p\nvar m: int = 0\nphase p {\n  end draw\n}\n', encoding="utf-8")
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=rules.as_uri())))
    (d,) = await asyncio.wait_for(_diagnostics(client, tests.as_uri()), timeout=30)  # a hang guard only
    assert d.range.start == use and "`n`" in d.message
