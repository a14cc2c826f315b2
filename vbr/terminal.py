"""Text from a rule file or a log, made safe to show on a terminal.

A rule file is untrusted: its title, `say` strings, prompts and comments may hold raw control
characters, and a terminal obeys them (`ESC ] 0 ; ... BEL` retitles the window, `ESC [ 2 J` clears
it, OSC 52 writes the clipboard). Everything vbr prints that came from a rule file or a log goes
through `clean`, which shows every C0 control character (U+0000..U+001F) except the newline and
the tab, DEL (U+007F) and every C1 control character (U+0080..U+009F) as a visible `\\xNN` escape,
the way Python writes them: `\\x1b]0;title\\x07`. The rest of the text is left alone, so it stays
readable.
"""
from __future__ import annotations

import re

# C0 without \t (0x09) and \n (0x0a), then DEL and C1.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escape(m: re.Match) -> str:
    return f"\\x{ord(m.group()):02x}"


def clean(text: object) -> str:
    """`text` as a string with every control character but newline and tab shown as `\\xNN`."""
    return _CONTROL.sub(_escape, str(text))


def clean_line(text: object) -> str:
    """`clean`, and the newline too: for text that must stay on one line (a source line)."""
    return clean(text).replace("\n", "\\x0a")


class SafeStream:
    """A text stream that passes what it is given through `clean`, keeping the carriage return
    too (a progress line redraws itself with it). The CLI writes through one, so that nothing a
    rule file says reaches the terminal raw even if some path forgot to clean it."""

    _KEEP_CR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(self._KEEP_CR.sub(_escape, text))
        return len(text)

    def __getattr__(self, name):  # flush, fileno, isatty, encoding, ...
        return getattr(self.stream, name)
