"""`vbr report FILE -o report.html`: one self-contained HTML page a designer opens to see a game.

Modules: `build` (the page: `build_report` returns its text), `command` (the CLI: `add_parser`,
`run`). The page needs no network: the diagram and the plots are inline SVG, the style sheet and
the small script that shows an edge's condition on hover are inline too.
"""
