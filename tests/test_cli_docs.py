"""docs/cli.md and the command line agree on the flags, and every command the docs show parses.

- The synopsis at the top of docs/cli.md lists, for each command, every flag `vbr COMMAND --help`
  has (a flag and its other spelling, `-w` and `--write`, count as one), with `[game flags]` for
  the table of the Game flags section and `[run flags]` for the table of the `vbr sim` section;
  and it names no flag the command lacks.
- Each flag table of a command's section names only flags that command has.
- Every `vbr ...` command shown in README.md and the pages of docs/ (a console block's `$ vbr`, a
  shell block's or an indented `vbr` line, README's `.venv/bin/vbr` lines, and an inline
  `vbr CMD FILE ...` with no placeholder; a line ending in `\\` goes on on the next) is accepted by
  the command line's parser, flags and choices included.
"""
from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from conftest import ROOT
from vbr.cli import _parser

CLI = ROOT / "docs" / "cli.md"
FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


COMMANDS = _commands()


def _spellings(command: str) -> list[frozenset[str]]:
    """The command's flags, each action's spellings together (`-h` left out)."""
    return [frozenset(a.option_strings) for a in COMMANDS[command]._actions
            if a.option_strings and "--help" not in a.option_strings]


def _sections(text: str) -> dict[str, str]:
    """Each `## ` section of a page by its heading, up to the next `## ` heading."""
    parts = re.split(r"^## ", text, flags=re.M)
    return {p.split("\n", 1)[0].strip(): p for p in parts[1:]}


def _table_flags(section: str) -> set[str]:
    """The flags named in the first column of the section's tables."""
    cells = re.findall(r"^\|((?:[^|\\]|\\.)+)\|", section, flags=re.M)  # `\|` stays in its cell
    return {f for cell in cells for f in FLAG.findall(cell)}


def _synopsis() -> dict[str, str]:
    """The synopsis block's text for each command (a line `vbr NAME ...` and its indented lines)."""
    text = CLI.read_text(encoding="utf-8")
    block = re.search(r"^```text\n(vbr check .*?)^```", text, flags=re.M | re.S)[1]
    out: dict[str, str] = {}
    name = None
    for line in block.splitlines():
        m = re.match(r"^vbr (\w+)", line)
        if m:
            name = m[1]
            out[name] = line
        elif line.startswith(" ") and name:
            out[name] += "\n" + line
    return out


SECTIONS = _sections(CLI.read_text(encoding="utf-8"))
GAME_FLAGS = _table_flags(SECTIONS["Game flags"])
RUN_FLAGS = _table_flags(SECTIONS["`vbr sim`"].split("### ")[0])
SYNOPSIS = _synopsis()


def _synopsis_flags(command: str) -> set[str]:
    line = SYNOPSIS[command]
    flags = set(FLAG.findall(line))
    if "[game flags]" in line:
        flags |= GAME_FLAGS
    if "[run flags]" in line:
        flags |= RUN_FLAGS
    return flags


def test_the_synopsis_lists_every_command():
    assert set(SYNOPSIS) == set(COMMANDS)


def test_the_shared_flag_tables_are_found():
    assert {"--seed", "--agents", "--option"} <= GAME_FLAGS
    assert {"-n", "--workers", "--out", "--rotate-seats", "--no-progress"} <= RUN_FLAGS


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_synopsis_names_every_flag_of_the_command(command):
    shown = _synopsis_flags(command)
    missing = sorted(min(s) for s in _spellings(command) if not s & shown)
    assert not missing, f"docs/cli.md's synopsis of `vbr {command}` lacks {missing}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_synopsis_names_no_flag_the_command_lacks(command):
    has = set().union(*_spellings(command))
    extra = sorted(_synopsis_flags(command) - has)
    assert not extra, f"docs/cli.md's synopsis of `vbr {command}` names {extra}, which `vbr {command} --help` lacks"


TABLED = [c for c in sorted(COMMANDS) if f"`vbr {c}`" in SECTIONS and _table_flags(SECTIONS[f"`vbr {c}`"])]


def test_some_commands_have_flag_tables():
    assert {"run", "sim", "graph", "report", "mutate", "trace"} <= set(TABLED)


@pytest.mark.parametrize("command", TABLED)
def test_a_commands_flag_table_names_only_its_flags(command):
    section = SECTIONS[f"`vbr {command}`"].split("### ")[0]  # the engines' subsections are shared
    extra = sorted(_table_flags(section) - set().union(*_spellings(command)))
    assert not extra, f"docs/cli.md's table of `vbr {command}` names {extra}, which `vbr {command} --help` lacks"


@pytest.mark.parametrize("command", ["run", "play", "sim", "sweep", "compare", "importance", "tune"])
def test_the_game_flags_are_flags_of_each_command_that_shares_them(command):
    assert GAME_FLAGS <= set().union(*_spellings(command))


# ------------------------------------------------------------------------------ commands shown
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PLACEHOLDER = re.compile(r"\b[A-Z]+\b|\.\.\.|\[|\|")


def _joined_lines(doc: Path) -> list[tuple[int, str]]:
    """The page's lines with their numbers, a line ending in a backslash joined to the next."""
    out: list[tuple[int, str]] = []
    carry: tuple[int, str] | None = None
    for i, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        if carry:
            i, line = carry[0], carry[1] + " " + line.strip()
        carry = (i, line[:-1].rstrip()) if line.endswith("\\") else None
        if carry is None:
            out.append((i, line))
    return out


def _shown(doc: Path) -> list[tuple[str, str]]:
    """(where, command) for every whole `vbr` command line the page shows."""
    out = []
    lang = None
    for i, line in _joined_lines(doc):
        fence = re.match(r"^```(\S*)", line)
        if fence:
            lang = None if lang is not None else fence[1]
            continue
        where = f"{doc.relative_to(ROOT)}:{i}"
        if lang is not None:
            m = re.match(r"^(?:\$ )(vbr .*)", line) if lang == "console" else \
                re.match(r"^(vbr .*)", line) if lang in ("sh", "bash") else None
            if m:
                out.append((where, m[1]))
            continue
        m = re.match(r"^    (?:\.venv/bin/)?(vbr .*)", line)
        if m:
            if "[" not in m[1].split(" #")[0]:  # a synopsis (`vbr mutate FILE [--tests TESTS] ...`) is no command
                out.append((where, m[1]))
            continue
        for code in re.findall(r"`(vbr [a-z]+ [^-`][^`]*)`", line):  # inline: a whole command, with its file
            if not PLACEHOLDER.search(code):
                out.append((where, code))
    return out


SHOWN = [s for doc in DOCS for s in _shown(doc)]


def test_the_docs_show_commands():
    assert len(SHOWN) > 50
    assert any(c.startswith("vbr importance") for _, c in SHOWN)


@pytest.mark.parametrize("where,command", SHOWN, ids=[w for w, _ in SHOWN])
def test_every_command_shown_parses(where, command):
    argv = shlex.split(command, comments=True)[1:]
    try:
        _parser().parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{where}: `{command}` is refused by vbr's command line (exit {exc.code})")
