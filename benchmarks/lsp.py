"""How long the language server takes to re-check a document as it is typed.

    python benchmarks/lsp.py [--rules NAME] [--edits N] [--json]

For a bundled rule file (default: the largest, volleyball-high) this measures what `vbr lsp` does
on every change of a document (`vbr/lsp/analysis.py: analyse`, everything up to the diagnostics it
publishes), in this thread's CPU time (`time.thread_time`, so that other work on a shared machine
counts less) and in wall time:

- **open**: the first analysis of the file (every declaration parsed, the whole file checked);
- **keystroke**: one character typed inside a phase or procedure (only that declaration is parsed
  again; the whole file is checked again);
- **new line**: a line break typed near the top (every declaration below moves: reused, its
  positions shifted, none parsed again);
- **syntax error**: a character that breaks one declaration (it alone fails; the whole text is
  parsed once more to be sure the cut was right; the rest is checked);
- **full parse**: for comparison, what parsing the whole file costs (`vbr.grammar.parser.parse`).

Each figure is the median over `--edits` edits at different places of the file, cycling through
typing and undoing so every analysis sees a new text. The issue's target: a re-check well under
0.3 s. docs/editors.md records the figures with the commit they were measured at.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time

from vbr.grammar.parser import parse
from vbr.loader import resolve
from vbr.lsp.analysis import PieceCache, analyse


def _timed(fn):
    c0, w0 = time.thread_time(), time.perf_counter()
    fn()
    return time.thread_time() - c0, time.perf_counter() - w0


def _places(text: str, count: int) -> list[int]:
    """Offsets just after an `=` inside an indented statement line: places where typing a digit
    keeps the file valid or makes it merely wrong (`x = 13`), spread over the file."""
    found = [m.end() for m in re.finditer(r"(?m)^  +[a-z_][a-z_0-9\[\]]* (?:\+=|=) (?=\d)", text)]
    random.Random(7).shuffle(found)
    return found[:count]


def measure(name: str, edits: int) -> dict:
    path = str(resolve(name))
    text = open(path, encoding="utf-8").read()
    out: dict[str, object] = {"file": name, "lines": text.count("\n"), "edits": edits}

    opens = [_timed(lambda: analyse(text, path, PieceCache())) for _ in range(3)]
    out["open"] = _median(opens)

    cache = PieceCache()
    analyse(text, path, cache)
    keys, lines, breaks = [], [], []
    for at in _places(text, edits):
        typed = text[:at] + "1" + text[at:]
        keys.append(_timed(lambda: analyse(typed, path, cache)))
        analyse(text, path, cache)
    top = text.index("\n", text.index("\nvar ")) + 1  # after the first var: most declarations below
    for i in range(edits):
        moved = text[:top] + "\n" * (1 + i % 3) + text[top:]
        lines.append(_timed(lambda: analyse(moved, path, cache)))
        analyse(text, path, cache)
    for at in _places(text, edits):
        broken = text[:at] + "}" + text[at:]
        breaks.append(_timed(lambda: analyse(broken, path, cache)))
        a = analyse(broken, path, cache)
        assert a.recovered and a.diagnostics, "the edit should break one declaration"
        analyse(text, path, cache)
    out["keystroke"] = _median(keys)
    out["new line"] = _median(lines)
    out["syntax error"] = _median(breaks)
    out["full parse"] = _median([_timed(lambda: parse(text + " " * i, path)) for i in range(3)])
    return out


def _median(samples: list[tuple[float, float]]) -> dict:
    return {"cpu": statistics.median(c for c, _ in samples), "wall": statistics.median(w for _, w in samples)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="volleyball-high", help="a bundled rule file's name or a path")
    ap.add_argument("--edits", type=int, default=15, help="edits per kind (default 15)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = measure(args.rules, args.edits)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['file']}: {result['lines']} lines, median of {result['edits']} edits each")
    for key in ("open", "keystroke", "new line", "syntax error", "full parse"):
        r = result[key]
        print(f"  {key:<13} {r['cpu'] * 1000:7.1f} ms CPU  {r['wall'] * 1000:7.1f} ms wall")


if __name__ == "__main__":
    main()
