"""`python -m vbr.lsp`: the language server over stdio, as `vbr lsp` starts it."""
import sys

from vbr.lsp.command import run

sys.exit(run())
