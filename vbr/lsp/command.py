"""`vbr lsp [--stdio]`: the language server on standard input and output.

vbr/cli.py wires it in with `add_parser(subparsers)`; the parser's default `func` is `run`.
"""
from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "lsp", help="the language server for editors (LSP over stdio)",
        description="Speak the Language Server Protocol on standard input and output: an editor starts "
                    "it and gets every problem of a .vbr file as it is typed, hover, go to definition, "
                    "find references, completion, formatting and the outline (docs/editors.md). "
                    "Needs the lsp extra: pip install 'vbr[lsp]'.")
    p.add_argument("--stdio", action="store_true",
                   help="use standard input and output (the only transport, and the default; "
                        "accepted because some clients pass it)")
    p.set_defaults(func=run)
    return p


def run(args=None) -> int:
    """Serve until the client says exit; 2 when pygls is not installed."""
    try:
        from vbr.lsp.server import main
    except ImportError as exc:
        print(f"vbr lsp needs the lsp extra (pip install 'vbr[lsp]'): {exc}", file=sys.stderr)
        return 2
    return main()
