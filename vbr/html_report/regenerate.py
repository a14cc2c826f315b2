"""`python -m vbr.html_report.regenerate [DIR]`: rewrite docs/reports/ for every bundled rule file.

Each report plays GAMES games with random agents under the file's default options (the page says
so at its top). Run from the checkout, so that the pages name the rule files relative to it.
"""
from __future__ import annotations

import sys
from pathlib import Path

from vbr.errors import UsageError, VbrError
from vbr.html_report.build import build_report
from vbr.html_report.command import check_output, write_atomic
from vbr.loader import bundled_names

DEFAULT_DIR = Path("docs") / "reports"
GAMES = 200


def main(argv: list[str] | None = None) -> int:
    out_dir = Path(argv[0]) if argv else DEFAULT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in bundled_names():
        out = out_dir / f"{Path(name).stem}.html"
        try:
            check_output(str(out))
            write_atomic(out, build_report(name, {}, n=GAMES, agents="random"))
            print(f"wrote {out}")
        except VbrError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
        except (UsageError, OSError) as exc:
            print(f"regenerate: error: {exc}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
