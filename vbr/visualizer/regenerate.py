"""`python -m vbr.visualizer.regenerate [DIR]`: redraw docs/diagrams/ for every bundled rule file.

The diagrams are generated, never edited: run this from the checkout after changing a rule file
and commit both files it writes, NAME.svg to look at and NAME.dot to read in a diff.
"""
from __future__ import annotations

import sys
from pathlib import Path

from vbr.errors import UsageError, VbrError
from vbr.loader import bundled_names
from vbr.visualizer.command import load_graph
from vbr.visualizer.render import RenderError, render, to_dot

DEFAULT_DIR = Path("docs") / "diagrams"


def main(argv: list[str] | None = None) -> int:
    out_dir = Path(argv[0]) if argv else DEFAULT_DIR
    names = bundled_names()
    if not names:
        print("no bundled rule files yet: nothing to draw", file=sys.stderr)
        return 0
    failed = 0
    for name in names:
        try:
            _draw(name, out_dir)
        except VbrError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
        except (RenderError, UsageError) as exc:
            print(f"regenerate: error: {exc}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def _draw(name: str, out_dir: Path) -> None:
    """NAME.dot and NAME.svg for one rule file, with its default options."""
    _, _, graph = load_graph(name, {})
    text = to_dot(graph)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = Path(name).stem
    for suffix in (".dot", ".svg"):
        render(text, out_dir / f"{stem}{suffix}")
    print(f"wrote {out_dir / stem}.dot and .svg")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
