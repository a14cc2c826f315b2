"""Text → AST. The only place that talks to Lark; every failure leaves here as a located VbrSyntaxError."""
from __future__ import annotations

import os
import re
import threading
from functools import lru_cache
from pathlib import Path

from typing import TYPE_CHECKING

from vbr.errors import Diagnostic, Span, VbrError, VbrSyntaxError
from vbr.grammar import ast as A
from vbr.grammar import glued
from vbr.grammar.misspelt import (character_hint, keyword_for, keyword_read_as_value, misspelt_expression_word, roll_called,
                                  misspelt_statement, value_left_out)
from vbr.grammar.reserved import declared_reserved
from vbr.limits import MAX_NAME_CHARS, MAX_NESTING, MAX_TOKENS

if TYPE_CHECKING:
    from lark import Lark, Tree
    from lark.exceptions import UnexpectedInput

# Lark (and the transformer built on it) is imported by the functions that parse: a file whose AST
# the loader reads back from the cache (vbr/loader.py) needs neither.

# Friendly messages for common mistakes: (message, test on the unexpected token and what the
# parser would have accepted, examples). tests/test_parser.py walks the examples so the table
# cannot rot: each must fail to parse and get its own message.
_STATEMENT_WORDS = {"GOTO", "LET", "IF", "CHOOSE", "MOVE", "SHUFFLE", "CREATE", "SAY", "EMIT", "FOR", "REPEAT",
                    "LOOP", "WHILE", "BREAK", "CONTINUE", "RETURN", "REVEAL"}
SYNTAX_HINTS: list[tuple[str, object, list[str]]] = [
    ("a rule file starts with `game \"Title\"` and a scenario file with `tests for \"RULES\"`",
     lambda tok, acc: "GAME" in acc and "TESTS" in acc,
     ['seats 2', 'phase x { }']),
    ("a block is missing its closing `}`",
     lambda tok, acc: tok.type == "$END" and "RBRACE" in acc,
     ['game "g" phase p { goto p', 'game "g" phase p { if true { goto p }']),
    ("`=` assigns; compare with `==`",
     lambda tok, acc: tok.type == "ASSIGN_OP" and "COMP_OP" in acc,
     ['game "g" phase p { if x = 1 { } }', 'game "g" phase p { while x = 1 max 3 { } }']),
    ("`choose` needs `by SEAT`: who makes the choice",
     lambda tok, acc: "BY" in acc,
     ['game "g" phase p { choose c from hand[0] }', 'game "g" phase p { choose c from hand[0] where c.v > 1 }']),
    ("a loop must say how often it may run at most: `loop max N { ... }` or `while COND max N { ... }`",
     lambda tok, acc: "MAX" in acc,
     ['game "g" phase p { loop { } }', 'game "g" phase p { while true { } }']),
    ("`sum`, `any`, `all`, `first` and `every` are reserved words and need `(` after them; rename the variable",
     lambda tok, acc: acc == {"LPAR"},
     ['game "g" phase p { if first == 1 { } }', 'game "g" phase p { goto p } fn f(a: int) = sum + 1']),
    ("`override` cannot stand inside a stage: write `override phase NAME { ... }` outside it, which replaces the "
     "phase wherever it is",
     lambda tok, acc: tok.type == "OVERRIDE" and "PHASE" in acc and "STAGE" in acc,
     ['game "g" stage s { override phase p { goto p } }']),
    ("this takes a number written out, not a name: `seats N` and the court's sizes and places are fixed in the "
     "text",
     lambda tok, acc: tok.type == "NAME" and acc <= {"INT", "MINUS"},
     ['game "g" seats players', 'game "g" court { rows r }']),
    ("this takes a string, written between double quotes: `game \"Title\"`, `extends \"siatka\"`",
     lambda tok, acc: tok.type == "NAME" and acc == {"STRING"},
     ['game g', 'game "g" extends base']),
    ("`else if` is written `elif`: `if A { ... } elif B { ... } else { ... }`",
     lambda tok, acc: tok.type == "IF" and acc == {"LBRACE"},
     ['game "g" phase p { if true { goto p } else if false { goto p } }']),
    ("this `}` closes no block: delete it, or look above for the `{` it was meant to close",
     lambda tok, acc: tok.type == "RBRACE" and "PHASE" in acc,
     ['game "g" phase p { goto p } }']),
    ("a statement cannot stand here; expected a declaration such as `phase`, `var`, `zone` or `proc`",
     lambda tok, acc: tok.type in _STATEMENT_WORDS and "PHASE" in acc,
     ['game "g" goto p', 'game "g" let x = 1']),
]


_COMMENTS: list = []  # filled by the lexer while one file is parsed
_LEXING = threading.Lock()  # held while a text is lexed and its comments read: one at a time, so that
                            # threads parsing at once (vbr.sim.build_ahead) get their own comments


_GRAMMAR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vbr.lark")
_OPTIONS = dict(parser="lalr", propagate_positions=True, start=["start", "expr"], maybe_placeholders=False)
PARSER_FILE = re.compile(r"parser-[0-9a-f]{32}\.lark")  # a built parser's name in the cache (cache_path)
PARSERS_KEPT = 4  # built parsers kept in the cache: this vbr's, and those used last by others


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The parser. Building its LALR tables costs a few hundred ms, so the built parser is kept
    in the user's cache folder (`cache_path`), under a name made from the grammar, the options,
    Lark's version and Python's, sealed under the user's secret (vbr.private_cache): a file
    whose seal does not hold is never unpickled, and the parser is built instead. A parser loaded
    is marked as used; writing a new one deletes all but the PARSERS_KEPT used last (those of
    other grammars, Lark's or Python's: earlier versions of vbr, other checkouts)."""
    import io

    from lark import Lark

    from vbr import cache_folder, private_cache
    with open(_GRAMMAR, encoding="utf-8") as f:
        grammar = f.read()
    callbacks = {"COMMENT": _COMMENTS.append, **{name: glued.check for name in glued.word_terminals(grammar)}}
    path = cache_path(grammar)
    seal_key = b"parser:" + (path or "").encode()
    saved = private_cache.read_sealed(path, seal_key) if path is not None else None
    if saved is not None:
        try:
            loaded = Lark.__new__(Lark)._load(io.BytesIO(saved), lexer_callbacks=callbacks)
            cache_folder.touch(Path(path))
            return loaded
        except Exception:  # noqa: BLE001 — sealed by us, yet not loadable (another Lark): build it
            pass
    parser = Lark(grammar, **_OPTIONS, lexer_callbacks=callbacks)
    if path is not None:
        out = io.BytesIO()
        parser.save(out, exclude_options=("lexer_callbacks",))
        if private_cache.write_sealed(path, seal_key, out.getvalue()):
            cache_folder.keep_newest(Path(path).parent, PARSER_FILE, PARSERS_KEPT)
    return parser


def cache_path(grammar: str) -> str | None:
    """Where the built parser is kept: `$XDG_CACHE_HOME/vbr` (else `~/.cache/vbr`), one file per
    key; None when that directory cannot be made or written (then nothing is cached)."""
    import hashlib
    import sys

    import lark
    folder = cache_dir()
    key = "\0".join([grammar, repr(sorted(_OPTIONS.items())), lark.__version__, sys.version.split()[0]])
    name = f"parser-{hashlib.sha256(key.encode()).hexdigest()[:32]}.lark"  # PARSER_FILE
    return None if folder is None else os.path.join(folder, name)


def cache_dir(*sub: str) -> str | None:
    """vbr's folder in the user's cache directory, or a folder inside it (vbr.private_cache.folder:
    made 0700, used only while it is the user's alone); None when it cannot be had."""
    from vbr import private_cache
    folder = private_cache.folder(*sub)
    return None if folder is None else str(folder)


def parse(text: str, file: str = "<input>") -> A.GameFile | A.TestFile:
    """Parse a rule file or a scenario file."""
    return _parse(text, file, "start")


def parse_expr(text: str, file: str = "<input>", line: int = 1, col: int = 1) -> A.Expr:
    """Parse one expression (used for `{holes}` in `say` strings, and by tools)."""
    return _parse(text, file, "expr", line, col)


def _parse(text: str, file: str, start: str, line0: int = 1, col0: int = 1, nesting: int = MAX_NESTING):
    from lark.exceptions import UnexpectedInput, VisitError

    from vbr.grammar.transformer import ToAst
    if "\x00" in text:  # shown at the first, its line counted as the file's lines are (below)
        plain = normalize_newlines(text.removeprefix("\ufeff")) if line0 == 1 and col0 == 1 else text
        at = Span.at_offset(file, plain, plain.index("\x00"), 1)
        if at.line == 1:
            at = at.model_copy(update={"col": at.col + col0 - 1, "end_col": at.end_col + col0 - 1})
        at = at.model_copy(update={"line": at.line + line0 - 1, "end_line": at.end_line + line0 - 1})
        raise VbrSyntaxError(Diagnostic(at, "the file contains NUL bytes; is it text?"))
    if line0 == 1 and col0 == 1:
        text = normalize_newlines(text.removeprefix("\ufeff"))
        _count_tokens(text, file)
    with _LEXING:
        _COMMENTS.clear()
        glued.SOURCE[0] = text
        try:
            tree = _lark().parse(text, start=start)
        except UnexpectedInput as exc:
            raise _syntax_error(exc, text, file, start, line0, col0) from None
        except glued.GluedWord as exc:
            raise _glued_error(exc.at, text, file, line0, col0) from None
        comments = _comments(text, file) if start == "start" else []
    if line0 != 1 or col0 != 1:
        _shift_positions(tree, line0, col0)
    says = _check_nesting(tree, nesting, file, text if line0 == 1 else None)
    try:
        result = ToAst(file, lambda t, ln, c, tok: _parse(t, file, "expr", ln, c, nesting - says.get(id(tok), 0))).transform(tree)
        if start == "start" and line0 == 1 and isinstance(result, A.GameFile):
            _refuse_keyword_read_as_value(result, text, file)
        if comments:
            result = result.model_copy(update={"comments": comments})
        return result
    except VisitError as exc:
        if isinstance(exc.orig_exc, VbrError):
            raise exc.orig_exc from None
        raise


_LINE_END = re.compile(r"\r\n?")


def normalize_newlines(text: str) -> str:
    """`\\r\\n` and a lone `\\r` (old Mac files) end a line as `\\n` does, so that positions count
    lines as editors do."""
    return _LINE_END.sub("\n", text) if "\r" in text else text


# what the lexer makes a token of, roughly: a string (with the tokens of its {holes}), a comment,
# a word or number, any other character
_TOKEN = re.compile(r'"[^"\n]*"|#[^\n]*|\w+|[^\s\w]')


def _count_tokens(text: str, file: str) -> None:
    count_tokens(text, file, MAX_TOKENS)


def count_tokens(text: str, file: str, limit: int, chain: bool = False) -> int:
    """The file's tokens; more than `limit` is a located error at the token past it, raised before
    Lark builds anything for the text (parsing and checking cost memory and time in proportion to
    the tokens). `chain`: the limit is what is left for the files of an `extends` chain. A name
    (a word outside strings and comments that does not start with a digit) longer than
    MAX_NAME_CHARS is a located error too: a name is written whole on every line of a log and of
    `vbr run` that names it. (A number's limit is on its value: vbr.grammar.transformer.)"""
    count = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if len(tok) > MAX_NAME_CHARS and tok[0] not in '"#' and not tok[0].isdigit():  # a name
            raise VbrSyntaxError(Diagnostic(Span.at_offset(file, text, m.start()),
                                            f"this name has {len(tok):,} characters, more than the {MAX_NAME_CHARS} a "
                                            "name may have (the limit on a name)"), {file: text})
        count += 1 if tok[0] != '"' else 1 + sum(1 for _ in _TOKEN.finditer(tok[1:-1]))
        if count > limit:
            if chain:
                message = (f"the files of this `extends` chain have more than {MAX_TOKENS:,} tokens together "
                           "(words, numbers, strings, symbols and comments), the limit on a file's size, for a "
                           "chain as for one file")
            else:
                message = (f"the file has more than {MAX_TOKENS:,} tokens (words, numbers, strings, symbols and "
                           "comments), the limit on a file's size; split it with `extends`")
            raise VbrSyntaxError(Diagnostic(Span.at_offset(file, text, m.start()), message), {file: text})
    return count


def _check_nesting(tree: Tree, limit: int, file: str, text: str | None) -> dict[int, int]:
    """Refuse a parse tree deeper than `limit` (every pass over the AST after this one may recurse
    freely). Walks without recursion. Returns the depth of each `say` string (by the token's id),
    so that the expressions in its {holes} get only what is left of the limit."""
    from lark import Token, Tree
    says: dict[int, int] = {}
    stack = [(tree, 1, tree)]
    while stack:
        node, depth, anchor = stack.pop()
        if node.data in _ANCHORS:
            anchor = node
        if depth > limit:
            line, col = _position(anchor)
            raise VbrSyntaxError(Diagnostic(Span(file=file, line=line, col=col, end_line=line, end_col=col),
                                            f"this nests more than {MAX_NESTING} levels deep (each operator, call, "
                                            "statement and block is a level), the limit on nesting; "
                                            "split it with `let`, `fn` or `proc`"),
                                 {file: text} if text is not None else None)
        if node.data == "say":
            says.update((id(c), depth) for c in node.children if isinstance(c, Token))
        stack.extend((c, depth + 1, anchor) for c in node.children if isinstance(c, Tree))
    return says


# statements and declarations: a too deep tree is reported at the innermost one holding the fault
_ANCHORS = {"let", "assign", "call_stmt", "if_", "elif_", "for_", "repeat", "loop", "while_", "choose", "move",
            "shuffle", "create", "emit", "say", "reveal", "end_winner", "end_team", "seats", "option", "die",
            "var", "const", "fn", "proc", "handler", "require", "sc_given", "sc_force", "sc_force_pick", "sc_choose", "sc_expect",
            "sc_expect_legal", "sc_expect_illegal", "sc_expect_winner"}


def _position(node: Tree) -> tuple[int, int]:
    from lark import Token
    m = node.meta
    if not getattr(m, "empty", True):
        return m.line, m.column
    for tok in node.scan_values(lambda v: isinstance(v, Token)):
        if tok.line is not None:
            return tok.line, tok.column
    return 1, 1


def _comments(text: str, file: str) -> list[A.Comment]:
    # the lines as the lexer counts them (the newlines are normalized): str.splitlines also ends one
    # at a form feed or U+2028, and every comment below such a one was judged by the line above it
    lines = text.split("\n")
    out = []
    for tok in _COMMENTS:
        before = lines[tok.line - 1][: tok.column - 1] if tok.line <= len(lines) else ""
        out.append(A.Comment(span=Span(file=file, line=tok.line, col=tok.column, end_line=tok.line,
                                       end_col=tok.column + len(tok)),
                             text=str(tok)[1:].rstrip(), own_line=not before.strip()))
    _COMMENTS.clear()
    return out


def _shift_positions(tree, line0: int, col0: int) -> None:
    from lark import Token

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


def _glued_error(at: int, text: str, file: str, line0: int, col0: int) -> VbrSyntaxError:
    """A keyword glued to the word after it (vbr/grammar/glued.py), located at the whole word."""
    start, message = glued.glued_message(text, at)
    at_word = Span.at_offset(file, text, start)
    line, col = at_word.line, at_word.col
    if line == 1:
        col += col0 - 1
    line += line0 - 1
    found = Diagnostic(Span(file=file, line=line, col=col, end_line=line, end_col=col), message)
    return VbrSyntaxError([found], {file: text} if line0 == 1 else None)


def _refuse_keyword_read_as_value(result: A.GameFile, text: str, file: str) -> None:
    """A syntax error at an `=` that ends its line when the next declaration's first word was
    read as its value (`misspelt.keyword_read_as_value`): the same error `value_left_out` gives
    where the parse stops, instead of errors at the declarations after it."""
    found = keyword_read_as_value(result.decls, text)
    if found is not None:
        line, col, at, word = found
        message = f"nothing follows this `=`: write the value (`{word}` on line {at} starts the next declaration)"
        raise VbrSyntaxError([Diagnostic(Span(file=file, line=line, col=col, end_line=line, end_col=col), message)],
                             {file: text})


def _syntax_error(exc: UnexpectedInput, text: str, file: str, start: str, line0: int, col0: int) -> VbrSyntaxError:
    from lark.exceptions import UnexpectedEOF
    line, col = exc.line, exc.column
    if isinstance(exc, UnexpectedEOF) or line is None or line < 1:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    if line == 1:
        col += col0 - 1
    line += line0 - 1
    message = _describe(exc, text, start)
    misspelt = _misspelt_statement(exc, text) if line0 == 1 else None
    bracket = _bracket_left_open(exc, text) if line0 == 1 and misspelt is None else None
    left_out = value_left_out(text, line, col) if line0 == 1 and start == "start" else None
    if bracket is not None:
        line, col, message = bracket
    elif misspelt is not None:
        col, message = misspelt
    elif left_out is not None:
        word = text.split("\n")[line - 1].split()[0]
        message = f"nothing follows this `=`: write the value (`{word}` on line {line} starts the next declaration)"
        line, col = left_out
    elif message.startswith(SYNTAX_HINTS[1][0]) and line0 == 1:
        line, col, message = _unclosed(text, line, col, message)
    elif _declaration_in_block(exc, text) and line0 == 1:
        line, col, message = _unclosed(text[:exc.token.start_pos], line, col, message, f"`{exc.token}` on line {line}")
    found = Diagnostic(Span(file=file, line=line, col=col, end_line=line, end_col=col), message)
    # a reserved word declared as a name parses where it is declared and fails where it is used:
    # the declaration is the mistake to show first
    declared = declared_reserved(text, file) if start == "start" and line0 == 1 else []
    return VbrSyntaxError(declared + [found], {file: text} if line0 == 1 else None)


def _bracket_left_open(exc: UnexpectedInput, text: str) -> tuple[int, int, str] | None:
    """(line, column, message) at a `(` or `[` left open on an earlier line, when the parser
    wanted its `)` or `]` at the first token of a later line (vbr/grammar/unclosed.py)."""
    from lark.exceptions import UnexpectedToken

    from vbr.grammar.unclosed import unclosed_bracket
    if not isinstance(exc, UnexpectedToken) or exc.token.type == "$END" or exc.line is None:
        return None
    if not {"RPAR", "RSQB"} & set(exc.accepts or exc.expected):
        return None
    found = unclosed_bracket(text[:exc.token.start_pos])
    if found is None or found[0] >= exc.line:
        return None
    line, col, ch = found
    closer = ")" if ch == "(" else "]"
    return line, col, f"this `{ch}` is never closed: its `{closer}` is missing (`{exc.token}` on line {exc.line} comes first)"


def _misspelt_statement(exc: UnexpectedInput, text: str) -> tuple[int, str] | None:
    """(column, message) when the line the parser gave up on starts with a misspelt statement
    word (`chose c from ...`, `mvoe top(deck) to hand`), or the word before where it gave up is a
    misspelt `roll` or `pick` (`server = pik seats`): the mistake is that word, not the token
    further on where the parser noticed (vbr/grammar/misspelt.py)."""
    from lark.exceptions import UnexpectedToken
    if not isinstance(exc, UnexpectedToken) or exc.token.type == "$END" or exc.line is None:
        return None
    line_text = text.split("\n")[exc.line - 1]
    found = misspelt_statement(line_text, exc.column)
    if found is not None:
        col, word, keyword = found
        return col, f"`{word}` starts no statement; did you mean `{keyword}`?"
    found = misspelt_expression_word(line_text, exc.column)
    if found is not None:
        col, word, keyword = found
        return col, f"unknown word `{word}`; did you mean `{keyword}`?"
    found = roll_called(line_text, exc.column)
    if found is not None:
        col, written = found
        return col, f"`roll` takes the die's name after it, without parentheses: `{written}`"
    return None


_DECLARATION_WORDS = {"PHASE", "PROC", "FN", "VAR", "CONST", "ZONE", "KIND", "ENUM", "EVENT", "STAGE", "SETUP", "DIE",
                      "COURT", "DIRECTION", "OPTION", "OVERRIDE"}


def _declaration_in_block(exc: UnexpectedInput, text: str) -> bool:
    """A declaration's first word where a block could still be closed, written no further right
    than the line that opened the innermost block still open: that block lacks its `}` (a
    declaration never stands inside a block; one indented into it is misplaced, not a sign)."""
    from lark.exceptions import UnexpectedToken

    from vbr.grammar.unclosed import unclosed_brace
    if not (isinstance(exc, UnexpectedToken) and exc.token.type in _DECLARATION_WORDS
            and "RBRACE" in set(exc.accepts or exc.expected)):
        return False
    at = unclosed_brace(text[:exc.token.start_pos])
    if at is None:
        return False
    opener = text.split("\n")[at.line - 1]
    return exc.token.column - 1 <= len(opener) - len(opener.lstrip(" \t"))


def _unclosed(text: str, line: int, col: int, message: str, first: str = "the end of the file") -> tuple[int, int, str]:
    """A missing `}` shown at the `{` left open (vbr/grammar/unclosed.py), not where the parser
    found it missing (the end of the file, or the next declaration: `first`)."""
    from vbr.grammar.unclosed import unclosed_brace
    at = unclosed_brace(text)
    if at is None:
        return line, col, message
    why = (f"; the `}}` on line {at.closer_line} is indented as if it closed an outer block"
           if at.closer_line else "")
    return at.line, at.col, f"{SYNTAX_HINTS[1][0]}: this `{{` is never closed{why} ({first} comes first)"


def _describe(exc: UnexpectedInput, text: str, start: str) -> str:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken
    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream
        fix = character_hint(exc.char, text[:at], text[at + 1:].split("\n", 1)[0])
        return f"unexpected character {exc.char!r}" + (f"; {fix}" if fix else "")
    if isinstance(exc, UnexpectedEOF):
        return "unexpected end of file" if start == "start" else "unexpected end of the expression"
    if not isinstance(exc, UnexpectedToken):
        return "syntax error"
    tok = exc.token
    accepts = set(exc.accepts or exc.expected)
    end = "end of file" if start == "start" else "end of the expression"  # a `{hole}` of a `say`
    shown = end if tok.type == "$END" else repr(str(tok))
    expected = sorted(_pretty(t) for t in accepts if t != "$END")
    if "$END" in accepts:  # lark's name for the end of the text, in words
        expected.insert(0, "the end of the file" if start == "start" else "the end of the expression")
    more = f", ... ({len(expected)} in all)" if len(expected) > 8 else ""
    base = f"unexpected {shown}; expected {', '.join(expected[:8])}{more}" if expected else f"unexpected {shown}"
    hint = next((msg for msg, test, _ in SYNTAX_HINTS if test(tok, accepts)), None)
    if hint is None and _fraction_at(tok, text):
        hint = "numbers are whole: there are no fractions (`3.5`); count in smaller units, or use `/`, which rounds down"
    if hint is None and tok.type != "$END" and _OPTION_VALUE.match(text[text.rfind("\n", 0, tok.start_pos) + 1:tok.start_pos]):
        hint = ("an option's value is one number, `true`, `false`, a string or an enum member, written out; work out "
                "others from it with a `const`")
    keyword = keyword_for(str(tok), _keywords(accepts)) if hint is None and str(tok).isidentifier() else None
    if keyword is not None:
        return f"unknown word `{tok}`; did you mean `{keyword}`? (expected {', '.join(expected[:8])}{more})"
    return f"{hint} ({base})" if hint else base


def _fraction_at(tok, text: str) -> bool:
    """Whether the parser stopped inside a number with a fraction: at its point (`3.5` where a
    number ends a value) or at the digits after it (`1..6.5`, where `6.` reads as a field's dot)."""
    at = tok.start_pos or 0
    if str(tok) == ".":
        return at > 0 and text[at - 1:at + 2].replace(".", "").isdigit()
    return tok.type == "INT" and at > 1 and text[at - 1] == "." and text[at - 2].isdigit()


# a line up to the token: an option's value (or the start of one) and no more
_OPTION_VALUE = re.compile(r"\s*(override\s+)?option\s+\w+\s*=\s*-?\s*\w+\s*$")


def _keywords(accepts: set[str]) -> list[str]:
    """The words among the terminals the parser would have accepted (`'phase'`, `'winner'`)."""
    words = []
    for terminal in accepts:
        try:
            pattern = _lark().get_terminal(terminal).pattern
        except KeyError:
            continue
        if pattern.type == "str" and pattern.value.isidentifier():
            words.append(pattern.value)
    return sorted(words)


def _pretty(terminal: str) -> str:
    try:
        pattern = _lark().get_terminal(terminal).pattern
    except KeyError:
        return terminal
    if pattern.type == "str":
        return repr(pattern.value)
    return _TERMINAL_WORDS.get(terminal, terminal)


# The grammar's named terminals as an author reads them: the words they stand for (vbr.lark).
_TERMINAL_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": "a string",
    "OWNER_KIND": "'seat' or 'team'", "VISIBILITY": "'hidden', 'owner', 'team' or 'public'",
    "ORDERED": "'ordered'", "WRAP": "'wrap'", "CLAMP": "'clamp'", "FIRST_MOVER": "'first mover'",
    "ASSIGN_OP": "'=', '+=' or '-='", "BY_TEAM": "'team'", "OPTIONAL": "'optional'", "END_POS": "'top' or 'bottom'",
    "COMP_OP": "a comparison ('==', '!=', '<', '<=', '>', '>=')", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'",
    "AGG": "'sum', 'any', 'all', 'first' or 'every'",
}
