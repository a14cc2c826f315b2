"""The examples of the docs that tests/test_docs.py does not run print what the docs show.

tests/test_docs.py runs the console blocks of docs/tutorial.md and docs/cli.md and the python
blocks of the reference, the tutorial, cli.md and README.md. This file runs the rest a reader can
run in a moment:

- docs/analysis.md's console blocks (each `$ vbr ...` prints the lines below it) and its python
  blocks;
- the ```text blocks that show what a command prints for a file the text describes (the tutorial's
  Bump with a mistake made in it, its variant without `override`, cli.md's `loop.vbr` and
  `messy.vbr`, a failing scenario): the file is made as the text says, the command is run in a
  fresh folder, and it must print the block's lines (stdout and stderr interleaved).
"""
from __future__ import annotations

import contextlib
import re
import shlex
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from test_docs import Block, _commands, _interleaves, _normal, blocks
from vbr.cli import main

DOCS = ROOT / "docs"
ANALYSIS = DOCS / "analysis.md"
TUTORIAL = DOCS / "tutorial.md"
CLI = DOCS / "cli.md"
BUNDLED = ROOT / "rules"


def _run_vbr(cmd: str, capsys) -> tuple[int, list[str], list[str]]:
    """Run one `vbr ...` line in the current folder: its exit code, stdout and stderr lines."""
    argv = shlex.split(cmd)
    assert argv[0] == "vbr", f"not a vbr command: {cmd}"
    try:
        code = main(argv[1:])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def _prints_what_is_shown(where: str, block_text: str, folder: Path, capsys, monkeypatch) -> None:
    """Each `$ ` line of the block, run in `folder`, prints the lines below it; `$ cat FILE`
    shows a file, which is written with those lines first."""
    monkeypatch.chdir(folder)
    tmp = str(folder)
    for cmd, shown in _commands(Block(ROOT, 0, "text", block_text, None)):
        if cmd.startswith("cat "):
            (folder / cmd.split()[1]).write_text("\n".join(shown) + "\n", encoding="utf-8")
            continue
        _, out, err = _run_vbr(cmd.replace("/tmp/", tmp + "/"), capsys)
        got_out = [_normal(x, tmp) for x in out]
        got_err = [_normal(x, tmp) for x in err]
        want = [_normal(x, tmp) for x in shown]
        assert _interleaves(want, got_out, got_err), (
            f"{where}: `{cmd}` printed something else\n--- shown:\n" + "\n".join(want)
            + "\n--- stdout:\n" + "\n".join(got_out) + "\n--- stderr:\n" + "\n".join(got_err))


def _text_after(doc: Path, words: str) -> Block:
    """The first ```text block of `doc` below the first line holding `words`."""
    text = doc.read_text(encoding="utf-8")
    assert words in text, f"{doc.name} no longer says {words!r}"
    line = text[:text.index(words)].count("\n") + 1
    return next(b for b in blocks(doc) if b.lang == "text" and b.line > line)


def _tutorial_copy(folder: Path) -> Path:
    """docs/tutorial/ copied into `folder` (as docs/tutorial/), so that a test may change it."""
    dest = folder / "docs" / "tutorial"
    shutil.copytree(DOCS / "tutorial", dest)
    return dest


def _edit(path: Path, line: int, old: str, new: str) -> None:
    """Replace `old` with `new` on line `line` (1-based) of `path`, where it must be."""
    lines = path.read_text(encoding="utf-8").split("\n")
    assert old in lines[line - 1], f"{path.name}:{line} no longer holds {old!r}: {lines[line - 1]!r}"
    lines[line - 1] = lines[line - 1].replace(old, new)
    path.write_text("\n".join(lines), encoding="utf-8")


def _line_shown(block: Block, pattern: str) -> int:
    """The line number the block's first error of `pattern` (`FILE:LINE:COL: ...`) names."""
    return int(re.search(pattern + r":(\d+):\d+: ", block.text)[1])


# ------------------------------------------------------------------------------ analysis.md
ANALYSIS_CONSOLE = [b for b in blocks(ANALYSIS) if b.lang == "console"]
ANALYSIS_PYTHON = [b for b in blocks(ANALYSIS) if b.lang == "python"]


def test_analysis_shows_commands_and_python():
    assert ANALYSIS_CONSOLE and ANALYSIS_PYTHON


@pytest.mark.parametrize("block", ANALYSIS_CONSOLE, ids=[b.where for b in ANALYSIS_CONSOLE])
def test_every_command_shown_in_analysis_prints_what_is_shown(block, capsys, monkeypatch):
    _prints_what_is_shown(block.where, block.text, ROOT, capsys, monkeypatch)


@pytest.mark.parametrize("block", ANALYSIS_PYTHON, ids=[b.where for b in ANALYSIS_PYTHON])
def test_every_python_example_in_analysis_runs(block, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(block.text, block.where, "exec"), {})


# ------------------------------------------------------------------------------ the tutorial
def test_the_tutorials_check_errors_are_what_vbr_check_says(tmp_path, capsys, monkeypatch):
    # "Had the answer phase read `shot.strength` and the serve compared the card with a number"
    block = _text_after(TUTORIAL, "Had the answer phase read")
    bump = _tutorial_copy(tmp_path) / "bump.vbr"
    _edit(bump, _line_shown(block, r"bump\.vbr(?=:\d+:6:)"), "spare != none", "spare != 0")
    _edit(bump, _line_shown(block, r"bump\.vbr(?=:\d+:11:)"), "shot.power", "shot.strength")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run_vbr("vbr check docs/tutorial/bump.vbr", capsys)
    assert code == 1
    assert _interleaves(block.text.rstrip("\n").split("\n"), out, err), "\n".join(out + err)


def test_the_tutorials_loop_bound_error_is_what_the_first_deal_meets(tmp_path, capsys, monkeypatch):
    # "With `max 2` on the drawing loop, the first deal fails" (played as the tutorial plays it)
    block = _text_after(TUTORIAL, "With `max 2` on the drawing")
    bump = _tutorial_copy(tmp_path) / "bump.vbr"
    _edit(bump, _line_shown(block, r"bump\.vbr"), "max 3", "max 2")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run_vbr("vbr run docs/tutorial/bump.vbr --seed 9", capsys)
    assert code == 1
    assert err == block.text.rstrip("\n").split("\n")


@pytest.mark.parametrize("written, words", [
    ("option target = 5", "Without `override`, the checker refuses"),
    ("override option goal = 5", "`override goal` overrides nothing"),
])
def test_the_variants_override_errors_are_what_vbr_check_says(written, words, tmp_path, capsys, monkeypatch):
    # docs/tutorial.md: `...` stands for the directory vbr is installed in
    text = TUTORIAL.read_text(encoding="utf-8")
    block = next(b for b in blocks(TUTORIAL) if b.lang == "text" and written in b.text
                 and b.line > text[:text.index("Without `override`")].count("\n"))
    quick = _tutorial_copy(tmp_path) / "quick.vbr"
    _edit(quick, _line_shown(block, r"quick\.vbr"), "override option target = 5", written)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run_vbr("vbr check docs/tutorial/quick.vbr", capsys)
    assert code == 1
    shown = [x.replace(".../rules/", f"{BUNDLED}/") for x in block.text.rstrip("\n").split("\n")]
    assert err == shown


@pytest.mark.parametrize("doc", [TUTORIAL, CLI], ids=lambda d: d.name)
def test_a_failing_expectation_reads_as_the_docs_show(doc, tmp_path, capsys, monkeypatch):
    # "had the first scenario expected `power == 5`" (the tutorial quotes its reason, cli.md the report)
    tests = _tutorial_copy(tmp_path) / "bump_test.vbr"
    _edit(tests, 14, "expect power == 4", "expect power == 5")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run_vbr("vbr test docs/tutorial/bump_test.vbr", capsys)
    assert code == 1
    if doc is TUTORIAL:
        assert "  expectation failed (left side is 4, right side is 5)" in out
    else:
        assert out == _text_after(CLI, "Had the first scenario expected").text.rstrip("\n").split("\n")


# ------------------------------------------------------------------------------ cli.md
def test_the_loop_example_warns_as_cli_md_shows(tmp_path, capsys, monkeypatch):
    # docs/cli.md, `vbr check`: "For this file:" a ```vbr block, then `$ vbr check loop.vbr`
    text = CLI.read_text(encoding="utf-8")
    line = text[:text.index("For this file:")].count("\n") + 1
    rules = next(b for b in blocks(CLI) if b.lang == "vbr" and b.line > line)
    (tmp_path / "loop.vbr").write_text(rules.text, encoding="utf-8")
    shown = _text_after(CLI, "For this file:")
    _prints_what_is_shown(shown.where, shown.text, tmp_path, capsys, monkeypatch)


def test_the_fmt_example_prints_the_canonical_form_cli_md_shows(tmp_path, capsys, monkeypatch):
    # docs/cli.md, `vbr fmt`: `$ cat messy.vbr`, `$ vbr fmt messy.vbr`, `$ vbr fmt --check ...`
    block = _text_after(CLI, "Use `vbr fmt -w f.vbr`")
    _tutorial_copy(tmp_path)
    _prints_what_is_shown(block.where, block.text, tmp_path, capsys, monkeypatch)


def test_the_log_shown_begins_as_a_log_vbr_run_writes(tmp_path, capsys, monkeypatch):
    # docs/cli.md, `vbr replay`: the first lines of the log of `vbr run ... --seed 4 --log`,
    # of a checkout in /home/you/vbr
    block = _text_after(CLI, "here of a checkout")
    _tutorial_copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, _, _ = _run_vbr("vbr run docs/tutorial/bump.vbr --seed 4 --quiet --log bump.jsonl", capsys)
    assert code == 0
    written = (tmp_path / "bump.jsonl").read_text(encoding="utf-8").split("\n")
    shown = block.text.replace("/home/you/vbr", str(tmp_path)).rstrip("\n").split("\n")
    assert written[:len(shown)] == shown
