"""Text → AST. The only place that talks to Lark; every failure leaves here as a located VbrSyntaxError."""
from __future__ import annotations

from functools import lru_cache

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from vbr.errors import Diagnostic, Span, VbrError, VbrSyntaxError
from vbr.grammar import ast as A
from vbr.grammar.transformer import ToAst

# Friendly messages for common mistakes, matched against the parser state the bad input reaches
# (Lark's `match_examples`). tests/test_parser.py walks this table so it cannot rot.
SYNTAX_HINTS: dict[str, list[str]] = {
    "a rule file starts with `game \"Title\"` and a scenario file with `tests for \"rules\"`": [
        'seats 2',
        'phase x { }',
    ],
    "a block is missing its closing `}`": [
        'game "g" phase p { goto p',
        'game "g" phase p { if true { goto p }',
    ],
    "`=` assigns; compare with `==`": [
        'game "g" phase p { if x = 1 { } }',
        'game "g" phase p { while x = 1 max 3 { } }',
    ],
    "`choose` needs `by SEAT`: who makes the choice": [
        'game "g" phase p { choose c from hand[0] }',
        'game "g" phase p { choose c from hand[0] where c.v > 1 }',
    ],
    "a loop must say how often it may run at most: `loop max N { ... }` or `while COND max N { ... }`": [
        'game "g" phase p { loop { } }',
        'game "g" phase p { while true { } }',
    ],
    "a statement cannot start here; expected a declaration such as `phase`, `var`, `zone` or `proc`": [
        'game "g" goto p',
        'game "g" let x = 1',
    ],
}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark.open("vbr.lark", rel_to=__file__, parser="lalr", propagate_positions=True,
                     start=["start", "expr"], maybe_placeholders=False)


def parse(text: str, file: str = "<input>") -> A.GameFile | A.TestFile:
    """Parse a rule file or a scenario file."""
    return _parse(text, file, "start")


def parse_expr(text: str, file: str = "<input>", line: int = 1, col: int = 1) -> A.Expr:
    """Parse one expression (used for `{holes}` in `say` strings, and by tools)."""
    return _parse(text, file, "expr", line, col)


def _parse(text: str, file: str, start: str, line0: int = 1, col0: int = 1):
    if "\x00" in text:
        raise VbrSyntaxError(Diagnostic(Span(file=file), "the file contains NUL bytes; is it text?"))
    try:
        tree = _lark().parse(text, start=start)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, file, start, line0, col0) from None
    if line0 != 1 or col0 != 1:
        _shift_positions(tree, line0, col0)
    try:
        return ToAst(file, lambda t, ln, c: _parse(t, file, "expr", ln, c)).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, VbrError):
            raise exc.orig_exc from None
        raise


def _shift_positions(tree, line0: int, col0: int) -> None:
    def fix(line, col):
        return (line + line0 - 1, col + col0 - 1 if line == 1 else col)

    for node in tree.iter_subtrees():
        m = node.meta
        if not getattr(m, "empty", True):
            m.line, m.column = fix(m.line, m.column)
            m.end_line, m.end_column = fix(m.end_line, m.end_column)
        for c in node.children:
            if isinstance(c, Token) and c.line is not None:
                c.line, c.column = fix(c.line, c.column)
                c.end_line, c.end_column = fix(c.end_line, c.end_column)


def _syntax_error(exc: UnexpectedInput, text: str, file: str, start: str, line0: int, col0: int) -> VbrSyntaxError:
    line, col = exc.line, exc.column
    if isinstance(exc, UnexpectedEOF) or line is None or line < 1:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    if line == 1:
        col += col0 - 1
    line += line0 - 1
    message = _describe(exc, text, start)
    return VbrSyntaxError(Diagnostic(Span(file=file, line=line, col=col, end_line=line, end_col=col), message),
                          {file: text} if line0 == 1 else None)


def _describe(exc: UnexpectedInput, text: str, start: str) -> str:
    hint = None
    if start == "start":
        try:
            hint = exc.match_examples(lambda t: _lark().parse(t, start="start"), SYNTAX_HINTS,
                                      use_accepts=True)
        except Exception:  # match_examples re-parses examples; a failure there must not hide the error
            hint = None
    if isinstance(exc, UnexpectedCharacters):
        base = f"unexpected character {exc.char!r}"
    elif isinstance(exc, UnexpectedEOF):
        base = "unexpected end of file"
    elif isinstance(exc, UnexpectedToken):
        tok = exc.token
        shown = "end of file" if tok.type == "$END" else repr(str(tok))
        expected = sorted(_pretty(t) for t in exc.accepts or exc.expected)[:8]
        base = f"unexpected {shown}; expected {', '.join(expected)}" if expected else f"unexpected {shown}"
    else:
        base = "syntax error"
    return f"{hint} ({base})" if hint else base


def _pretty(terminal: str) -> str:
    try:
        pattern = _lark().get_terminal(terminal).pattern
    except KeyError:
        return terminal
    if pattern.type == "str":
        return repr(pattern.value)
    return {"NAME": "a name", "INT": "a number", "STRING": "a string"}.get(terminal, terminal)
