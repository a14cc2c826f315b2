"""Text from a rule file or a log, made safe to show on a terminal.

A rule file is untrusted: its title, `say` strings, prompts and comments may hold raw control
characters, and a terminal obeys them (`ESC ] 0 ; ... BEL` retitles the window, `ESC [ 2 J` clears
it, OSC 52 writes the clipboard). Everything vbr prints that came from a rule file or a log goes
through `clean`, which shows every C0 control character (U+0000..U+001F) except the newline and
the tab, DEL (U+007F) and every C1 control character (U+0080..U+009F) as a visible `\\xNN` escape,
the way Python writes them: `\\x1b]0;title\\x07`. So are the characters that reorder text in a
bidi-aware terminal or browser — the directional marks, embeddings, overrides and isolates
(U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) — and the line and paragraph separators
(U+2028, U+2029), as `\\u202e`. So is a lone surrogate, as `\\udc9b`: how Python reads a byte of a
command-line argument or a file name that is not UTF-8, which would reach the terminal as that
raw byte (0x9b is CSI to a terminal taking 8-bit controls). The rest of the text is left alone,
so it stays readable.

One kind of output is written as it is where stdout is not a terminal: a whole file vbr makes for
the user to keep (`vbr fmt`'s rule file, `write_document`), which must read back the same; on a
terminal it is cleaned too.
"""
from __future__ import annotations

import re
import sys

# the characters that reorder text (Unicode's bidi controls) or break it where no newline shows
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
# C0 without \t (0x09) and \n (0x0a), then DEL and C1, then the bidi controls and lone surrogates.
_SURROGATES = "\ud800-\udfff"
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_SURROGATES}]")
_BIDI_ONLY = re.compile(f"[{_BIDI}]")


def _escape(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_bidi(text: str) -> str:
    """`text` with every bidi control and line or paragraph separator shown as `\\u202e`: for
    pages (HTML, SVG) whose other characters their own escaping keeps harmless."""
    return _BIDI_ONLY.sub(_escape, text)


def clean(text: object) -> str:
    """`text` as a string with every control character but newline and tab shown as `\\xNN`."""
    return _CONTROL.sub(_escape, str(text))


_SHOWN = re.compile(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})")


def _shown_char(m: re.Match) -> str:
    char = chr(int(m.group(1) or m.group(2), 16))
    return char if _CONTROL.match(char) else m.group()


def unclean(text: str) -> str:
    """The text `clean` made `text` from: each `\\xNN` or `\\uNNNN` it writes for a character it
    shows escaped read back as that character (another, such as `\\x41`, is left as written).
    Exact unless the text held such an escape of its own before `clean`."""
    return _SHOWN.sub(_shown_char, text)


def clean_line(text: object) -> str:
    """`clean`, and the newline too: for text that must stay on one line (a source line)."""
    return clean(text).replace("\n", "\\x0a")


class SafeStream:
    """A text stream that passes what it is given through `clean`, keeping the carriage return
    too (a progress line redraws itself with it). The CLI writes through one, so that nothing a
    rule file says reaches the terminal raw even if some path forgot to clean it."""

    _KEEP_CR = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}{_SURROGATES}]")

    def __init__(self, stream):
        self.stream = stream
        self.broken = False  # a write met a pipe whose reader had gone

    def write(self, text: str) -> int:
        try:
            self.stream.write(self._KEEP_CR.sub(_escape, text))
        except BrokenPipeError:
            self.broken = True
            raise
        return len(text)

    def __getattr__(self, name):  # flush, fileno, isatty, encoding, ...
        return getattr(self.stream, name)


def on_terminal(stream) -> bool:
    """Whether `stream` (a `SafeStream`'s own stream for one) writes to a terminal."""
    stream = stream.stream if isinstance(stream, SafeStream) else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # no isatty, or closed
        return False


def write_document(text: str, stream=None) -> None:
    """`text`, a file vbr made whole (a rule file in canonical form), on `stream` (stdout): on a
    terminal through `clean`, as everything vbr shows there; to a file or a pipe as it is, in
    UTF-8, so that what is written reads back as the same file (a rule file's strings have no
    escapes: a control character in one can be written only as itself)."""
    stream = sys.stdout if stream is None else stream
    if on_terminal(stream):
        stream.write(clean(text))
        return
    raw = stream.stream if isinstance(stream, SafeStream) else stream
    buffer = getattr(raw, "buffer", None)
    if buffer is None:  # a text stream with no bytes beneath it: as it is, in its own encoding
        raw.write(text)
        return
    raw.flush()  # what was written before goes first
    buffer.write(text.encode("utf-8"))
