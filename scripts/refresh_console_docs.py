"""Re-run the `$ vbr ...` commands shown in the docs' console blocks and write what they print.

tests/test_docs.py holds every console block to what its commands print; when a change in vbr
changes that output on purpose (a new random number generator, say), run this, then read the
diff and the prose around each block, which may describe the old output.

    python scripts/refresh_console_docs.py docs/tutorial.md docs/cli.md
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd: str, tmp: str) -> list[str]:
    from vbr.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(shlex.split(cmd.replace("/tmp/", tmp + "/"))[1:])
        except SystemExit:
            pass
    return [line.replace(tmp, "/tmp").rstrip() for line in out.getvalue().splitlines()]


def refresh(doc: Path) -> int:
    lines = doc.read_text(encoding="utf-8").splitlines()
    out, i, changed = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        while i < len(lines):
            out.append(lines[i])
            if not re.match(r"^```console\s*$", lines[i]):
                i += 1
                continue
            i += 1
            block = []
            while lines[i].rstrip() != "```":
                block.append(lines[i])
                i += 1
            new = []
            for line in block:
                if line.startswith("$ "):
                    new.append(line)
                    new += run(line[2:], tmp)
            changed += new != block
            out += new
    doc.write_text("\n".join(out) + "\n", encoding="utf-8")
    return changed


if __name__ == "__main__":
    os.chdir(ROOT)
    for name in sys.argv[1:]:
        print(f"{name}: {refresh(Path(name))} block(s) changed")
