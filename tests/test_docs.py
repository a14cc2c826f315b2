"""The docs cannot fall behind the language.

Conventions the docs follow (docs/language.md says the first two in its introduction):

- A ```vbr block whose first line (comments aside) starts with `game` is a whole rule file: it
  must pass the checker. One that starts with `tests for` is a whole scenario file: it must parse,
  and if it tests one of the tutorial's rule files, its scenarios must pass.
- Any other ```vbr block is a piece of a file, and must parse as declarations (wrapped in
  `game "fragment"`), as statements (wrapped in a phase as well), as scenarios (wrapped in
  `tests for "fragment"`) or as one expression.
- `<!-- file: docs/tutorial/NAME.vbr -->` right above a ```vbr block marks it as a part of that
  file; the parts, in order and separated by one blank line, must make up the file exactly (and
  the file must load, or its scenarios pass).
- A ```python block (here and in README.md; docs/api.md's in tests/test_api.py) must run without
  an error (from the repository root).
- In a ```console block, each `$ vbr ...` line is run (from the repository root) and must print
  the lines below it, stdout and stderr interleaved as a terminal shows them. Timings are ignored
  and `/tmp/` stands for a fresh temporary directory. Blocks in ```text are not run.
- docs/language.md names every built-in function, aggregate, statement, declaration and scenario
  step the grammar and the built-in table (vbr/builtin_signatures.py) define, so a new one cannot go
  undocumented.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

import vbr
from conftest import ROOT
from vbr.errors import VbrError
from vbr.grammar import ast as A
from vbr.grammar.parser import parse, parse_expr
from vbr.builtin_signatures import SIGNATURES as BUILTINS  # the table the checker reads
from vbr.scenario import run_file

DOCS = ROOT / "docs"
LANGUAGE = DOCS / "language.md"
TUTORIAL = DOCS / "tutorial.md"
CLI = DOCS / "cli.md"
TUTORIAL_FILES = sorted((DOCS / "tutorial").glob("*.vbr"))
GRAMMAR = (ROOT / "vbr" / "grammar" / "vbr.lark").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------ reading the docs
@dataclass
class Block:
    doc: Path
    line: int  # of the opening fence
    lang: str
    text: str
    part_of: str | None  # from a `<!-- file: PATH -->` marker just above

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks(doc: Path) -> list[Block]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m[1]
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        above = next((x for x in reversed(lines[:start]) if x.strip()), "")
        marker = re.match(r"^<!-- file: (\S+) -->$", above.strip())
        out.append(Block(doc, start + 1, lang, "\n".join(body) + "\n", marker[1] if marker else None))
        i += 1
    return out


def first_line(text: str) -> str:
    return next((x.strip() for x in text.splitlines() if x.strip() and not x.strip().startswith("#")), "")


VBR_BLOCKS = [b for doc in (LANGUAGE, TUTORIAL, CLI) for b in blocks(doc) if b.lang == "vbr"]
# parts of a tutorial file are checked as that file (test_the_tutorial_shows_each_file_it_builds_exactly)
SHOWN_ALONE = [b for b in VBR_BLOCKS if b.part_of is None]
WHOLE_RULES = [b for b in SHOWN_ALONE if first_line(b.text).startswith("game ")]
WHOLE_TESTS = [b for b in SHOWN_ALONE if first_line(b.text).startswith("tests for ")]
FRAGMENTS = [b for b in SHOWN_ALONE if b not in WHOLE_RULES and b not in WHOLE_TESTS]
CONSOLE = [b for doc in (TUTORIAL, CLI) for b in blocks(doc) if b.lang == "console"]

SHELLS = [
    ("declarations", 'game "fragment"\n@'),
    ("statements", 'game "fragment"\nphase fragment {\n@}\n'),
    ("scenarios", 'tests for "fragment"\n@'),
]


def parse_fragment(text: str) -> tuple[str | None, list[str]]:
    """What the fragment parses as, and the errors of each attempt if it parses as nothing."""
    errors = []
    for name, shell in SHELLS:
        try:
            parse(shell.replace("@", text), "fragment")
            return name, []
        except VbrError as exc:
            errors.append(f"as {name}: {exc.message}")
    try:
        parse_expr(text.strip(), "fragment")
        return "expression", []
    except VbrError as exc:
        errors.append(f"as an expression: {exc.message}")
    return None, errors


# ------------------------------------------------------------------------------ examples
def test_the_docs_have_examples():
    assert len(VBR_BLOCKS) > 100 and WHOLE_RULES and WHOLE_TESTS and CONSOLE


@pytest.mark.parametrize("block", FRAGMENTS, ids=[b.where for b in FRAGMENTS])
def test_every_fragment_parses(block):
    kind, errors = parse_fragment(block.text)
    assert kind is not None, f"{block.where}: this example does not parse\n" + "\n".join(errors)


@pytest.mark.parametrize("block", WHOLE_RULES, ids=[b.where for b in WHOLE_RULES])
def test_every_whole_rule_file_passes_the_checker(block, tmp_path):
    path = tmp_path / "example.vbr"
    path.write_text(block.text, encoding="utf-8")
    try:
        vbr.load(path, engine="python")
    except VbrError as exc:
        pytest.fail(f"{block.where}: this rule file does not pass the checker\n{exc.render()}")


@pytest.mark.parametrize("block", WHOLE_TESTS, ids=[b.where for b in WHOLE_TESTS])
def test_every_whole_scenario_file_parses_and_passes_against_the_tutorial(block, tmp_path):
    """A scenario file shown in the docs must pass against the game it names: one of the
    tutorial's games, or a bundled rule file."""
    from vbr.loader import resolve
    tree = parse(block.text, block.where)
    assert isinstance(tree, A.TestFile)
    rules = DOCS / "tutorial" / tree.rules
    if not rules.is_file():
        rules = resolve(tree.rules)
    assert rules.is_file(), f"{block.where}: names {tree.rules!r}, neither a tutorial game nor a bundled rule file"
    path = tmp_path / "example_test.vbr"
    text = block.text
    if rules.parent == DOCS / "tutorial":  # beside the scenario file, as `tests for` may reach
        (tmp_path / rules.name).write_text(rules.read_text(encoding="utf-8"), encoding="utf-8")
        text = text.replace(f'"{tree.rules}"', f'"{rules.name}"', 1)
    path.write_text(text, encoding="utf-8")
    failed = [f"{r.title}: {r.message}" for r in run_file(path, engine="python") if not r.ok]
    assert not failed, f"{block.where}: " + "\n".join(failed)


PYTHON = [b for doc in (LANGUAGE, TUTORIAL, CLI, ROOT / "README.md") for b in blocks(doc) if b.lang == "python"]
# docs/api.md's run in tests/test_api.py


@pytest.mark.parametrize("block", PYTHON, ids=[b.where for b in PYTHON])
def test_every_python_example_runs(block, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    exec(compile(block.text, block.where, "exec"), {})


# ------------------------------------------------------------------------------ the tutorial
def _is_rules(path: Path) -> bool:
    return isinstance(parse(path.read_text(encoding="utf-8"), str(path)), A.GameFile)


TUTORIAL_RULES = [p for p in TUTORIAL_FILES if _is_rules(p)]
TUTORIAL_TESTS = [p for p in TUTORIAL_FILES if not _is_rules(p)]


def test_the_tutorial_builds_rule_files_and_tests():
    assert len(TUTORIAL_RULES) >= 2 and len(TUTORIAL_TESTS) >= 2


@pytest.mark.parametrize("path", TUTORIAL_RULES, ids=[p.name for p in TUTORIAL_RULES])
def test_tutorial_rule_files_load(path):
    vbr.load(path, engine="python")


@pytest.mark.parametrize("path", TUTORIAL_TESTS, ids=[p.name for p in TUTORIAL_TESTS])
def test_tutorial_scenarios_pass(path):
    results = run_file(path, engine="python")
    assert results
    failed = [f"{r.span}: {r.title}\n  {r.message}" for r in results if not r.ok]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("path", TUTORIAL_FILES, ids=[p.name for p in TUTORIAL_FILES])
def test_the_tutorial_shows_each_file_it_builds_exactly(path):
    name = str(path.relative_to(ROOT))
    parts = [b.text.strip("\n") for b in blocks(TUTORIAL) if b.part_of == name]
    assert parts, f"docs/tutorial.md shows no part of {name} (mark each with <!-- file: {name} -->)"
    shown = "\n\n".join(parts) + "\n"
    assert shown == path.read_text(encoding="utf-8"), f"the parts of {name} in docs/tutorial.md differ from the file"


def test_every_file_part_names_a_tutorial_file():
    named = {b.part_of for doc in (LANGUAGE, TUTORIAL) for b in blocks(doc) if b.part_of}
    assert named <= {str(p.relative_to(ROOT)) for p in TUTORIAL_FILES}


# ------------------------------------------------------------------------------ commands shown
_TIMING = [  # and the engine `--engine auto` takes, which depends on what the C build cache holds (docs/cli.md)
    (re.compile(r"[\d.]+ games/s \([\d.]+ s(, loading [\d.]+ s)?\)"), "N games/s (N s)"),
    (re.compile(r", engines? (c|python)( and (c|python))?\b"), ", engine E"),
    (re.compile(r'"(games_per_s|seconds|load_seconds)": [\d.]+'), r'"\1": N'),
]


def _normal(line: str, tmp: str) -> str:
    line = line.replace(tmp, "/tmp").rstrip()
    for pattern, repl in _TIMING:
        line = pattern.sub(repl, line)
    return line


def _interleaves(shown: list[str], out: list[str], err: list[str]) -> bool:
    """Can `shown` be split into `out` and `err`, each keeping its own order?"""
    if len(shown) != len(out) + len(err):
        return False

    @lru_cache(maxsize=None)
    def fits(i: int, j: int) -> bool:
        k = i + j
        if k == len(shown):
            return True
        return ((i < len(out) and out[i] == shown[k] and fits(i + 1, j))
                or (j < len(err) and err[j] == shown[k] and fits(i, j + 1)))
    return fits(0, 0)


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    cmds: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            cmds.append((line[2:], []))
        elif cmds:
            cmds[-1][1].append(line.rstrip())
    for _, shown in cmds:
        while shown and not shown[-1]:
            shown.pop()
    return cmds


@pytest.mark.parametrize("block", CONSOLE, ids=[b.where for b in CONSOLE])
def test_every_command_shown_prints_what_is_shown(block, tmp_path, capsys, monkeypatch):
    from vbr.cli import main
    monkeypatch.chdir(ROOT)
    tmp = str(tmp_path)
    cmds = _commands(block)
    assert cmds, f"{block.where}: a console block without `$ ` commands"
    for cmd, shown in cmds:
        argv = shlex.split(cmd.replace("/tmp/", tmp + "/"))
        assert argv[0] == "vbr", f"{block.where}: only `vbr` commands can be shown in a console block"
        main(argv[1:])
        out, err = capsys.readouterr()
        got_out = [_normal(x, tmp) for x in out.splitlines()]
        got_err = [_normal(x, tmp) for x in err.splitlines()]
        want = [_normal(x, tmp) for x in shown]
        assert _interleaves(want, got_out, got_err), (
            f"{block.where}: `{cmd}` printed something else (if on purpose: "
            "python scripts/refresh_console_docs.py docs/tutorial.md docs/cli.md)\n--- shown:\n" + "\n".join(want)
            + "\n--- stdout:\n" + "\n".join(got_out) + "\n--- stderr:\n" + "\n".join(got_err))


# ------------------------------------------------------------------------------ links
def _slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    lines, inside = [], False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = not inside
        elif not inside and line.startswith("#"):
            lines.append(_slug(line))
    return set(lines)


# every page a user reads: the README, docs/*.md, and the pages under docs/ (reports, rulebooks)
LINKED_DOCS = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *sorted(DOCS.glob("*/*.md"))]


@pytest.mark.parametrize("doc", LINKED_DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_link_in_the_docs_leads_somewhere(doc):
    text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.M | re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(target)
    assert not broken, f"{doc.name}: broken links: {broken}"


# ------------------------------------------------------------------------------ completeness
REFERENCE = LANGUAGE.read_text(encoding="utf-8")
HEADINGS = [x for x in REFERENCE.splitlines() if x.startswith("#")]


def _alternatives(rule: str) -> list[str]:
    """The rule names a grammar rule like `_stmt: a | b\n | c` chooses between."""
    m = re.search(rf"^{rule}:(.*(?:\n\s+\|.*)*)", GRAMMAR, re.M)
    assert m, f"the grammar has no rule {rule}"
    return re.findall(r"\w+", m[1])


def _keywords(rule: str) -> list[str]:
    """The quoted words of a grammar rule's definition, in order."""
    m = re.search(rf"^{rule}:(.*(?:\n\s+\|.*)*)", GRAMMAR, re.M)
    assert m, f"the grammar has no rule {rule}"
    return re.findall(r'"([a-z]+)"', m[1])


def _has_heading(word: str) -> bool:
    return any(f"`{word}`" in h for h in HEADINGS)


# statements and declarations that start with no keyword of their own: their heading
UNKEYED = {"assign": "Assignment", "call_stmt": "Procedure call"}


@pytest.mark.parametrize("builtin", sorted(BUILTINS))
def test_the_reference_documents_every_builtin(builtin):
    assert f"`{builtin}(" in REFERENCE, f"docs/language.md does not document the built-in `{builtin}`"


def test_the_reference_documents_every_aggregate():
    m = re.search(r"^AGG[.\d]*:(.*)$", GRAMMAR, re.M)
    for word in re.findall(r'"(\w+)"', m[1]):
        assert f"`{word}(" in REFERENCE, f"docs/language.md does not document the aggregate `{word}`"


@pytest.mark.parametrize("rule", _alternatives("_stmt"))
def test_the_reference_has_a_section_for_every_statement(rule):
    if rule in UNKEYED:
        assert any(UNKEYED[rule] in h for h in HEADINGS), f"docs/language.md has no section `{UNKEYED[rule]}`"
        return
    words = _keywords(rule)
    assert words, f"statement rule `{rule}` starts with no keyword: add it to UNKEYED"
    assert _has_heading(words[0]), f"docs/language.md has no section for the statement `{words[0]}`"


@pytest.mark.parametrize("rule", _alternatives("_decl_body"))
def test_the_reference_has_a_section_for_every_declaration(rule):
    words = _keywords(rule)
    assert words, f"declaration rule `{rule}` starts with no keyword"
    assert _has_heading(words[0]), f"docs/language.md has no section for the declaration `{words[0]}`"


@pytest.mark.parametrize("rule", _alternatives("_scen_item"))
def test_the_reference_documents_every_scenario_step(rule):
    phrase = " ".join(_keywords(rule))
    assert f"`{phrase} " in REFERENCE or f"`{phrase}`" in REFERENCE, \
        f"docs/language.md does not document the scenario step `{phrase}`"


def test_the_reference_gives_the_default_limits():
    from vbr.checker import DEFAULT_LIMITS
    section = REFERENCE[REFERENCE.index("### `limit`"):REFERENCE.index("### `extends`")]
    for name, value in DEFAULT_LIMITS.items():
        assert f"`{name}`" in section and f"{value:,}" in section, f"docs/language.md: the default of `limit {name}` is {value:,}"


def test_statement_and_declaration_rules_are_found():
    assert len(_alternatives("_stmt")) >= 20 and len(_alternatives("_decl_body")) >= 20


SIATKA_REF = re.compile(r"`rules/siatka\.vbr:(\d+)` \(`([^`]+)`\)")


def test_siatka_line_references_are_current():
    lines = (ROOT / "rules" / "siatka.vbr").read_text(encoding="utf-8").splitlines()
    refs = SIATKA_REF.findall(REFERENCE)
    assert refs
    stale = []
    for number, snippet in refs:
        n = int(number)
        if n <= len(lines) and snippet in lines[n - 1]:
            continue
        now = [i + 1 for i, x in enumerate(lines) if snippet in x]
        stale.append(f"rules/siatka.vbr:{n} for `{snippet}` is now at line(s) {now or 'nowhere'}")
    assert not stale, "docs/language.md cites stale lines; update them:\n" + "\n".join(stale)


def test_the_reference_lists_exactly_the_reserved_words():
    from vbr.checker import RESERVED_WORDS
    files = REFERENCE[REFERENCE.index("## 1. Files"):REFERENCE.index("## 2. Declarations")]
    listed = re.search(r"reserved —.*?: `([^`]*)`", files, re.S).group(1).split()
    assert sorted(listed) == sorted(RESERVED_WORDS)


def _named(text: str, start: str, end: str) -> set[str]:
    """The words in backquotes (a `NAME=VALUE` counted by its name) between two marks of a text."""
    part = text[text.index(start):text.index(end, text.index(start))]
    return {w.split("=")[0].split(":")[-1] for w in re.findall(r"`([\w:=.,]+)`", part)}


def test_the_readme_and_the_api_page_name_every_setting_of_the_agents():
    from vbr.agents.spec import AGENTS
    mcts = {p.name for p in AGENTS["mcts"].params}
    readme = _named((ROOT / "README.md").read_text(encoding="utf-8"), "Agents: ", "parameters.")
    missing = (mcts | {"samples"}) - readme - {"iterations", "c"}  # those two in `mcts:iterations=400,c=0.7`
    assert not missing, f"README.md's agents paragraph lacks {sorted(missing)}"
    api = _named((DOCS / "api.md").read_text(encoding="utf-8"), "`mcts(iterations", "analysis.md")
    missing = mcts - {"iterations", "c", "depth"} - api  # those three by position
    assert not missing, f"docs/api.md's State.mcts lacks {sorted(missing)}"
