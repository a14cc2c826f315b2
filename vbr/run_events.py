"""`vbr run`'s events, handed on as they happen: printed, and written to the log, never all kept,
so a game of millions of choices takes no more memory than a game of ten.

The engines append each event of a logged game to the list they are given
(vbr.engines.events.EventLog); `RunEvents` stands in for that list. A reader of the printed
lines that stops early (`vbr run ... | head`) stops the printing, not the game or its log. A run
stopped by a signal keeps the log up to a point a replay reaches (`stop`).
"""
from __future__ import annotations

from vbr.gamelog import STOPPED, dumps


class RunEvents:
    """Each event appended is printed as `vbr run` prints it (unless `quiet`) and written as a line
    to `log` (a binary file open for writing, or None), whose name `name` an error names."""

    def __init__(self, log, name: str | None = None, quiet: bool = False):
        self.log, self.name, self.printing = log, name, not quiet
        self.chosen = False  # whether a choice has been made
        self.last_choice: int | None = None  # where the log's last choice line begins, in a file

    def append(self, event: dict) -> None:
        if event["t"] == "choice":
            self.chosen = True
        if self.log is not None:
            if event["t"] == "choice" and self.log.seekable():
                self.last_choice = self.log.tell()
            self.write(event)
        if self.printing:
            from vbr.report import render_events
            try:
                for line in render_events([event]):
                    print(line)
            except BrokenPipeError:  # the reader has seen enough; the game and its log go on
                self.printing = False

    def write(self, event: dict) -> None:
        """`event` as the log's next line (not printed: a run's closing `error` line)."""
        try:
            self.log.write((dumps(event) + "\n").encode("utf-8"))
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, self.name) from None

    def stop(self) -> str:
        """At an interruption: the log ends where a replay can follow it, and this says where. In
        a file, at its last choice line, cut off (play stood at that choice with every event
        before it made; a stop inside the rules' run after it leaves part of their events). With
        no choice yet, or in a pipe, whose lines are sent already, STOPPED last: a replay makes the
        same events up to it, and may make more."""
        if self.log is None:
            return ""
        if self.last_choice is not None and self.log.seekable():
            self.log.truncate(self.last_choice)
            self.log.seek(self.last_choice)
            return "the last choice before the interruption"
        self.write(STOPPED)
        return "where it stopped" if self.chosen else "where it stopped, before the first choice"
