"""Errors are values with positions until the CLI prints them.

Every problem vbr reports about a rule file, a scenario or a run carries a `Span`; the CLI renders
it gcc-style (`file:line:col: error: message`, the source line, a caret). Nothing in vbr raises a
bare Python exception at a user on purpose: the CLI turns anything else into an internal error.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from vbr.source_files import quotable_text
from vbr.terminal import clean, clean_line


class Span(BaseModel):
    """Where a piece of text lives: 1-based line and column, as editors count them."""

    model_config = ConfigDict(frozen=True)
    file: str = "<input>"
    line: int = 1
    col: int = 1
    end_line: int = 1
    end_col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @classmethod
    def at_offset(cls, file: str, text: str, offset: int, length: int = 0) -> "Span":
        """The span of `length` characters of `text` from character `offset` (on one line)."""
        line = text.count("\n", 0, offset) + 1
        col = offset - text.rfind("\n", 0, offset)
        return cls(file=file, line=line, col=col, end_line=line, end_col=col + length)


@dataclass(frozen=True)
class Diagnostic:
    span: Span
    message: str
    severity: str = "error"  # or "warning"

    def render(self, sources: dict[str, str] | None = None) -> str:
        """`file:line:col: error: message`, the source line and a caret under the column. Text from
        the file (the line, names and strings quoted in the message) is shown with its control
        characters escaped (vbr/terminal.py), and the caret still points at the same character."""
        head = clean(f"{self.span}: {self.severity}: {self.message}")
        text = _source_text(self.span.file, sources)
        if text is None:
            return head
        lines = _lines(text)
        if not 1 <= self.span.line <= len(lines) or (self.span.line == len(lines) and not lines[-1]):
            return head
        raw = lines[self.span.line - 1].removesuffix("\r")
        col = max(self.span.col - 1, 0)
        before, after = _window(raw, col)
        before, after = before.expandtabs(1), after.expandtabs(1)
        caret = " " * len(clean_line(before)) + "^"
        return f"{head}\n    {clean_line(before + after)}\n    {caret}"


SHOWN_WIDTH = 100  # characters of a long source line shown around the caret
MAX_SHOWN = 100  # problems rendered in full; the rest are counted


@lru_cache(maxsize=4)
def _lines(text: str) -> list[str]:
    """As the parser counts lines (str.splitlines also splits at \f, \x1c, ...); kept, since one
    file can have many problems."""
    return text.split("\n")


def _window(raw: str, col: int) -> tuple[str, str]:
    """The line before and from the caret, cut to SHOWN_WIDTH around it with … where cut, so that
    a problem on a line of megabytes shows a line, not the megabytes."""
    if len(raw) <= SHOWN_WIDTH:
        return raw[:col], raw[col:]
    half = SHOWN_WIDTH // 2
    start = max(0, min(col - half, len(raw) - SHOWN_WIDTH))
    stop = start + SHOWN_WIDTH
    before = ("…" if start else "") + raw[start:col]
    after = raw[col:stop] + ("…" if stop < len(raw) else "")
    return before, after


def _source_text(file: str, sources: dict[str, str] | None) -> str | None:
    """The text to quote a line from. A file not handed over is read as the loader reads a rule
    file (a regular file, of bounded size, that is a rule or scenario file), so an error naming
    some other file never shows a line of it."""
    if sources and file in sources:
        return sources[file]
    return quotable_text(Path(file))


class VbrError(Exception):
    """One or more located problems. The only exception vbr means users to see."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic, sources: dict[str, str] | None = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        self.sources = sources or {}
        super().__init__(self.render())

    @classmethod
    def at(cls, span: Span, message: str, sources: dict[str, str] | None = None) -> "VbrError":
        return cls([Diagnostic(span, message)], sources)

    @property
    def span(self) -> Span:
        return self.diagnostics[0].span

    @property
    def message(self) -> str:
        return self.diagnostics[0].message

    def render(self) -> str:
        shown = [d.render(self.sources) for d in self.diagnostics[:MAX_SHOWN]]
        rest = len(self.diagnostics) - MAX_SHOWN
        if rest > 0:
            shown.append(f"... and {rest} more problem{'s' if rest > 1 else ''} (the first {MAX_SHOWN} are shown)")
        return "\n".join(shown)


class VbrSyntaxError(VbrError):
    """The text is not a .vbr program."""


class VbrCheckError(VbrError):
    """The text parses but names or types do not resolve."""


class VbrRuntimeError(VbrError):
    """A rule file did something impossible while running (a located bug in the rule file)."""


class StepLimitExceeded(VbrRuntimeError):
    """A game ran past its step limit: an endless loop in the rules, most likely."""


class UsageError(ValueError):
    """The command line asks for something that cannot be (an unknown agent, an option the rule
    file lacks, a bad count). It has no place in any file, so it carries none; the CLI exits 2."""


class OptionError(UsageError):
    """An option given from outside the rule file (`--option`, `--grid`, the API's `options`)
    that the file does not declare, or a value of the wrong type. `by_name`: each such option's
    own problem, by the name it was given under (empty when the problem is no one option's)."""

    def __init__(self, message: str, by_name: dict[str, str] | None = None):
        super().__init__(message)
        self.by_name = dict(by_name or {})


class EngineUnavailable(Exception):
    """An engine cannot run this rule file here: a construct it does not express yet (located),
    or what it needs is missing (a C compiler). `located()` is the text to show."""

    def located(self) -> str:
        return str(self)

    def render(self) -> str:
        """The text a command shows for it: `located()`, with the source line and a caret when
        it is located in a file, as a VbrError renders its problems."""
        return self.located()


class IllegalActionError(ValueError):
    """The action is well formed but not legal in this state (python-chess's IllegalMoveError)."""


class InvalidActionError(ValueError):
    """The text does not name an action at all."""


@dataclass
class Diagnostics:
    """A collector: the checker reports every problem, not just the first."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, span: Span, message: str) -> None:
        self.items.append(Diagnostic(span, message))

    def warning(self, span: Span, message: str) -> None:
        self.items.append(Diagnostic(span, message, "warning"))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]
