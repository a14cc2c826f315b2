"""Traceability: which rulebook passage each rule encodes, where, and which scenario tests it.

Rule files cite the book in comments as `[Section]` or `[Section, part]`, and state what the book
leaves open as `ASSUMPTION:`; scenario titles start with the passage they test. This module pairs
them into the table docs/rulebooks/*.md carries: book passage → rule-file lines → tests.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from vbr.grammar import ast as A
from vbr.grammar.parser import normalize_newlines
from vbr.loader import SCENARIO_FILE, parse_file

_CITE = re.compile(r"\[([^\[\]]+)\]")


@dataclass
class Passage:
    tag: str
    lines: list[int] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)


def _comment(line: str) -> str:
    """The comment part of a line (a `#` outside a string)."""
    in_str = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_str = not in_str
        elif ch == "#" and not in_str:
            return line[i + 1:]
    return ""


def source_lines(text: str) -> list[str]:
    """`text`'s lines as vbr numbers them (a `Span`'s line, an editor's): ended by `\n`, `\r\n` or a
    lone `\r` only. `str.splitlines` also ends a line at a form feed, a vertical tab, `\x1c`..`\x1e`,
    NEL and U+2028/U+2029, which a comment may hold: every line after one was numbered one too far."""
    return normalize_newlines(text).split("\n")


def citations(text: str) -> dict[str, Passage]:
    out: dict[str, Passage] = {}
    for n, line in enumerate(source_lines(text), 1):
        for tag in _CITE.findall(_comment(line)):
            out.setdefault(tag.strip(), Passage(tag.strip())).lines.append(n)
    return out


def assumptions(text: str) -> list[tuple[int, str]]:
    out = []
    lines = source_lines(text)
    for n, line in enumerate(lines, 1):
        c = _comment(line)
        if "ASSUMPTION" in c:
            words = [c.split("ASSUMPTION", 1)[1].lstrip(": ")]
            k = n
            while k < len(lines) and lines[k].strip().startswith("#") and _comment(lines[k]).strip() \
                    and "ASSUMPTION" not in lines[k]:
                words.append(_comment(lines[k]).strip())
                k += 1
            out.append((n, " ".join(w.strip() for w in words)))
    return out


def _section(tag: str) -> str:
    return tag.split(",")[0].strip()


def _words(tag: str) -> set[str]:
    rest = tag.split(",", 1)[1] if "," in tag else ""
    words = {w for w in re.findall(r"[a-z0-9]+", rest.lower()) if len(w) > 2 or w.isdigit()}
    return words - {"example", "outcome", "the", "and"}


def matches(passage: str, cited: str) -> bool:
    """Does a scenario citing `cited` test the rule citing `passage`? The same passage, or the
    same section where the finer part names the same thing (`Variant 1, Block` ~ `Variant 1,
    Block (Blok, B)`), or a whole section's rule for any part of it."""
    return not _filed_under(passage).isdisjoint(_looked_up(cited))


def _filed_under(passage: str) -> set[tuple]:
    """The keys a passage is found by: itself, and its section's words, or its whole section when
    its finer part names nothing."""
    section, words = _section(passage), _words(passage)
    return {("passage", passage)} | ({("word", section, w) for w in words} if words else {("section", section)})


def _looked_up(cited: str) -> set[tuple]:
    """The keys a citation finds the passages it `matches` by."""
    section = _section(cited)
    return {("passage", cited), ("section", section)} | {("word", section, w) for w in _words(cited)}


def scenario_tags(title: str) -> list[str]:
    """The passages a scenario cites: the bracketed tags its title starts with."""
    lead = re.match(r"^(\s*\[[^\[\]]+\])+", title)
    return _CITE.findall(lead.group(0)) if lead else []


def trace(rules: Path, tests: Path | None) -> tuple[list[Passage], list[tuple[int, str]]]:
    """The passages `rules` cites, each with the scenarios of `tests` whose titles cite it, and
    the assumptions it states. A `rules` that is a scenario file, or a `tests` that is missing or
    not a scenario file, is a VbrError."""
    from vbr.errors import Diagnostic, VbrCheckError
    tree, text = parse_file(Path(rules))  # through the loader: a regular rule file of bounded size, or a located error
    if isinstance(tree, A.TestFile):
        raise VbrCheckError([Diagnostic(tree.span, "this is a scenario file; `vbr trace` takes a rule file (and its "
                                                   "scenario file with --tests)")], {str(rules): text})
    passages = citations(text)
    if tests is not None:
        tree, source = parse_file(Path(tests), kind=SCENARIO_FILE)
        if not isinstance(tree, A.TestFile):
            raise VbrCheckError([Diagnostic(tree.span, "not a scenario file: it should start with `tests for \"RULES\"`")],
                                {str(tests): source})
        tested = _Index(passages.values())
        for sc in tree.scenarios:
            for tag in scenario_tags(sc.title):
                for p in tested.matching(tag.strip()):
                    p.tests.append(sc.title)
    return list(passages.values()), assumptions(text)


class _Index:
    """Passages found by the citations they `matches`, through their keys, not by trying each: the
    pairing takes time that grows with the passages and the citations, not with their product."""

    def __init__(self, passages):
        self.filed: dict[tuple, list[Passage]] = {}
        for p in passages:
            for key in _filed_under(p.tag):
                self.filed.setdefault(key, []).append(p)

    def matching(self, cited: str) -> list[Passage]:
        """The passages `matches(passage, cited)` holds for, each once."""
        found = (p for key in _looked_up(cited) for p in self.filed.get(key, []))
        return list({id(p): p for p in found}.values())


def markdown(rules: Path, tests: Path | None, rel: str = "") -> str:
    """The table and the assumptions as Markdown, every control character of the rule file's
    comments and the scenarios' titles shown as `\\xNN` (vbr.terminal.clean): the page is read in
    a terminal too. A file that cites no passage, or states no assumption, gets a sentence saying
    so in place of an empty table or an empty list."""
    from urllib.parse import quote

    from vbr.terminal import clean
    passages, assumed = trace(rules, tests)
    name = quote(rel or str(rules))  # a link's target: a space or a `)` in the path would end it
    out = ["| Book passage | Rule file lines | Scenario tests |", "|---|---|---|"] if passages else [NO_PASSAGE]
    for p in passages:
        lines = ", ".join(f"[{n}]({name}#L{n})" for n in p.lines)
        tests_ = "<br>".join(_escape(t) for t in dict.fromkeys(p.tests)) or "—"
        out.append(f"| {_escape(p.tag)} | {lines} | {tests_} |")
    out += ["", "Assumptions where the book is silent:", ""] if assumed else ["", NO_ASSUMPTION]
    out += [f"- line [{n}]({name}#L{n}): {_escape(t)}" for n, t in assumed]
    return clean("\n".join(out) + "\n")


NO_PASSAGE = "The rule file cites no rulebook passage (a comment such as `# [Serve] ...`)."
NO_ASSUMPTION = "The rule file states no assumption (a comment such as `# ASSUMPTION: ...`)."


def _escape(s: str) -> str:
    return s.replace("|", "\\|")


MARKER = "<!-- generated by `vbr trace`: everything below this line -->"


MARKDOWN = (".md", ".markdown")


def update_doc(doc: Path, rules: Path, tests: Path | None) -> bool:
    """Rewrite the generated part of a Markdown page (a docs/rulebooks page); True if it
    changed. Its links to the rule file's lines are relative to the page's folder, wherever the
    two are. A page not named .md or .markdown is a UsageError, before anything is read or
    written (it may be the rule file itself), and so is a page in a folder that does not exist,
    and a page that is the rule file or the scenario file by another name (a link). The page is read as a rule file is (a regular file
    of at most 4 MB of UTF-8: no pipe is waited on, no device read; a ValueError in words
    otherwise) and written whole or not at all."""
    from vbr.atomic_file import no_folder, write_atomic
    from vbr.errors import UsageError
    if doc.suffix.lower() not in MARKDOWN:
        raise UsageError(f"--update {doc}: give a Markdown page (.md)")
    if not doc.parent.is_dir():
        raise UsageError(f"--update {doc}: {no_folder(doc.parent)}")
    if doc.exists() and any(f is not None and f.exists() and os.path.samefile(doc, f) for f in (rules, tests)):
        raise UsageError(f"--update {doc}: is the rule file or the scenario file itself (a link to it); the table "
                         "written there would end it")
    text = _page(doc) if doc.exists() else f"# {rules.stem}\n\n{MARKER}\n"
    head = text.split(MARKER)[0]
    rel = Path(os.path.relpath(rules.resolve(), doc.resolve().parent)).as_posix()
    new = head + MARKER + "\n\n" + markdown(rules, tests, rel)
    if new == text:
        return False
    try:
        write_atomic(doc, new)
    except OSError as exc:  # named as the page, not as the temporary file beside it
        raise OSError(exc.errno, exc.strerror, str(doc)) from None
    return True


def _page(doc: Path) -> str:
    from vbr.source_files import Unreadable, read_bytes
    try:
        return read_bytes(doc).decode("utf-8")
    except Unreadable as exc:
        why = {"directory": "it is a directory", "special": "it is not a regular file (a device, a pipe or a socket)",
               "too big": "it is larger than 4 MB"}.get(exc.kind, exc.detail or exc.kind)
    except UnicodeDecodeError:
        why = "it is not UTF-8 text"
    raise ValueError(f"cannot read {doc}: {why}")
