"""Progress of a long run: games done, the rate, the time left and a running estimate.

On a terminal the line is redrawn in place (`\\r`) after each game, at most five times a second.
The clock of the rate and the time left starts at the first call, which a caller makes once its
set-up (loading, C builds) is done and before its first game: set-up is no game's time, and
counting it made the first lines of a search whose values are built first say hours were left.
Elsewhere (a pipe, a file, CI) a run is silent, so logs and JSON output stay clean, unless
`--progress` asks for it: then a whole line is written every few seconds, fit for a log file.
"""
from __future__ import annotations

import os
import sys
import time
from typing import Callable

ON_A_TERMINAL = 0.2  # seconds between two redraws of the line on a terminal
IN_A_LOG = 5.0  # seconds between two lines written to a log (stderr not a terminal, --progress)


class Progress:
    def __init__(self, label: str = "", stream=None, every: float = ON_A_TERMINAL,
                 estimate: Callable[[], str] | None = None, in_place: bool = True, may_stop_early: bool = False):
        self.stream = stream or sys.stderr
        self.label = label
        self.every = every
        self.estimate = estimate  # the running estimate's text, asked for at each redraw
        self.in_place = in_place  # redraw one line (a terminal), or write a line each time (a log)
        self.may_stop_early = may_stop_early  # a run stopped at a precision: its time left is at most
        self.start: float | None = None  # set at the first call: the set-up before it is no game's time
        self.counted_from = 0  # the games done at the first call
        self.last = None
        self.shown = False

    @classmethod
    def for_terminal(cls, label: str = "", quiet: bool = False, force: bool | None = None,
                     estimate: Callable[[], str] | None = None, may_stop_early: bool = False) -> "Progress | None":
        """Progress on stderr when it is a terminal and the output is not `quiet`, or whenever
        `force` is True (`--progress`); never when `force` is False (`--no-progress`)."""
        stream = sys.stderr
        tty = stream.isatty()
        if force is False or (force is None and (quiet or not tty)):
            return None
        return cls(label, stream, ON_A_TERMINAL if tty else IN_A_LOG, estimate, in_place=tty,
                   may_stop_early=may_stop_early)

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.start is None:
            self.start, self.counted_from = now, done
        if done < total and self.last is not None and now - self.last < self.every:
            return
        self.draw(done, total)

    def draw(self, done: int, total: int) -> None:
        """The line now, whenever the last was drawn (a caller's estimate that changed after the
        last game: `vbr tune`'s best value once its last round is judged)."""
        now = time.perf_counter()
        if self.start is None:
            self.start, self.counted_from = now, done
        self.last = now
        played = done - self.counted_from  # the games played since the clock started
        elapsed = (now - self.start) * done / played if played > 0 else 0.0  # rate and time left of those games
        line = progress_line(self.label, done, total, elapsed, self.estimate() if self.estimate else "",
                             self.may_stop_early)
        if self.in_place:  # one row, never wrapped (a wrapped line is not redrawn in place)
            width = _columns(self.stream) - 1
            self.stream.write(f"\r{line[:width]:<{min(width, len(line) + 2)}}")
        else:
            self.stream.write(f"{line}\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown and self.in_place:
            self.stream.write("\n")
            self.stream.flush()
        self.shown = False


def _columns(stream) -> int:
    """The width of the terminal `stream` writes to; a very wide one when it does not say."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 10_000
    return columns if columns > 1 else 10_000


def progress_line(label: str, done: int, total: int, elapsed: float, estimate: str = "",
                  may_stop_early: bool = False) -> str:
    """`target=5: 120/1000 games  35.2 games/s  0:25 left  seat 0 wins 51.7% (42.4-60.9)`: no rate
    and no time left before the first game has ended; `at most 0:25 left` for a run that may stop
    before `total` (`--precision`), whose end no one knows."""
    head = f"{label}: " if label else ""
    parts = [f"{head}{done}/{total} games"]
    if done and elapsed > 0:
        bound = "at most " if may_stop_early else ""
        parts += [speed(done, elapsed), f"{bound}{clock((total - done) * elapsed / done)} left"]
    if estimate:
        parts.append(estimate)
    return "  ".join(parts)


def speed(games: int, seconds: float) -> str:
    """How fast games were played, in words that never round to zero: `1234.5 games/s`, or,
    slower than a game a second, `8.3 s per game`."""
    if games <= 0 or seconds <= 0:
        return "no games played"
    rate = games / seconds
    if rate >= 1:
        return f"{rate:.1f} games/s"
    per = seconds / games
    return f"{per:.1f} s per game" if per < 100 else f"{per:,.0f} s per game"


def clock(seconds: float) -> str:
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
