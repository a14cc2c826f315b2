"""The vbr language server (`vbr lsp`, or `python -m vbr.lsp`): diagnostics, hover, definitions,
references, completion, formatting and the outline of .vbr files, over stdio. Needs the `lsp`
extra (`pip install 'vbr[lsp]'`: pygls and lsprotocol); server.py is imported only to run it."""
