"""Which `{` a file that ends inside a block left open: the place to show for a missing `}`.

The parser meets a missing `}` only at the end of the file, where every `}` written has closed
some block, just not the one its author meant. The braces of the text (outside strings and
comments) are matched again here, and the indentation says where they went wrong: a `}` that
starts its line further left than the line of the `{` it closes was meant for an outer block,
so that `{` is the one left open. Without such a `}`, the innermost block still open is.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unclosed:
    line: int  # 1-based, of the `{` left open
    col: int
    closer_line: int | None = None  # the `}` that, by its indentation, was meant for an outer block


def unclosed_brace(text: str) -> Unclosed | None:
    """The `{` the text most likely leaves open, or None when its braces all match."""
    lines = text.split("\n")
    stack: list[tuple[int, int]] = []  # (line, col) of each open `{`, 1-based
    misplaced: Unclosed | None = None
    for ln, line in enumerate(lines, 1):
        for col, ch in _braces(line):
            if ch == "{":
                stack.append((ln, col))
            elif stack:
                opened = stack.pop()
                starts_line = line[:col - 1].strip() == ""
                if misplaced is None and starts_line and col - 1 < _indent(lines[opened[0] - 1]):
                    misplaced = Unclosed(opened[0], opened[1], ln)
    if not stack:
        return None
    return misplaced or Unclosed(*stack[-1])


def unclosed_bracket(text: str) -> tuple[int, int, str] | None:
    """(line, column, bracket) of the innermost `(` or `[` the text leaves open on a line before
    its last, or None: a token on a later line that the parser met where it wanted the `)` or `]`
    is the first sign of it, not the mistake."""
    lines = text.split("\n")
    stack: list[tuple[int, int, str]] = []
    for ln, line in enumerate(lines, 1):
        for col, ch in _braces(line, "()[]"):
            if ch in "([":
                stack.append((ln, col, ch))
            elif stack:
                stack.pop()
    return stack[-1] if stack and stack[-1][0] < len(lines) else None


def _braces(line: str, which: str = "{}"):
    """Each `{` and `}` (or the characters of `which`) of a line outside its strings and its
    comment, with its 1-based column."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_string = not in_string
        elif not in_string and ch == "#":
            return
        elif not in_string and ch in which:
            yield i + 1, ch


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
