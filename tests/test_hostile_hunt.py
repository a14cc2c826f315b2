"""Hostile input found by hunting where the other hostile tests do not look: each test is a file,
a log or a name that once ended in a traceback, a raw control character on a terminal, or work
without bound, and now ends in vbr's own words (`FILE:LINE:COL: error: ...`, non-zero exit)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vbr.errors import VbrError
from vbr.loader import load_rules

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 120  # seconds: generous on a busy machine

# A file name longer than a name may be (255 bytes on Linux and macOS): the file system refuses
# to look it up at all (ENAMETOOLONG), which Path.exists() raises rather than answering no.
TOO_LONG = "a" * 300 + ".vbr"


def vbr(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vbr", *args], capture_output=True, text=True, timeout=HANG_GUARD,
                          cwd=cwd)


def test_extends_of_a_name_too_long_for_the_file_system_is_located_at_the_extends(tmp_path):
    rules = tmp_path / "v.vbr"
    rules.write_text(f'game "v"\nextends "{TOO_LONG}"\n')
    with pytest.raises(VbrError) as info:
        load_rules(rules)
    (d,) = info.value.diagnostics
    assert (d.span.file, d.span.line, d.span.col) == (str(rules), 2, 1)
    assert d.message.startswith(f"cannot read {tmp_path / TOO_LONG}: ")
    run = vbr("check", str(rules))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"{rules}:2:1: error: cannot read ")


def test_tests_for_a_name_too_long_for_the_file_system_is_located_at_its_line(tmp_path):
    tests = tmp_path / "t.vbr"
    tests.write_text(f'tests for "{TOO_LONG}"\n\nscenario "s" {{\n  expect true\n}}\n')
    run = vbr("test", str(tests))
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert f"{tests}:1:1: error: cannot read " in run.stdout + run.stderr


def test_a_rule_file_named_too_long_on_the_command_line_is_an_error_naming_it(tmp_path):
    with pytest.raises(VbrError) as info:
        load_rules(tmp_path / TOO_LONG)
    assert info.value.render().startswith(f"{tmp_path / TOO_LONG}: error: cannot read ")
