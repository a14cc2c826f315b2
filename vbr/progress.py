"""Progress of a long run on a terminal: games done, games/s, time left. Silent when stderr is not
a terminal (a pipe, a file, CI), so logs and JSON output stay clean."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, label: str = "", stream=None, every: float = 0.2):
        self.stream = stream or sys.stderr
        self.label = label
        self.every = every
        self.start = time.perf_counter()
        self.last = 0.0
        self.shown = False

    @classmethod
    def for_terminal(cls, label: str = "", quiet: bool = False) -> "Progress | None":
        stream = sys.stderr
        return cls(label, stream) if not quiet and stream.isatty() else None

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        head = f"{self.label}: " if self.label else ""
        self.stream.write(f"\r{head}{done}/{total} games  {rate:,.0f} games/s  {_clock(left)} left  ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
