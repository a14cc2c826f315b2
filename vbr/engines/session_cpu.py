"""The CPU time a session of processes has used, read from Linux's /proc: what tells a compiler
that hangs (waiting on something that never comes, using no CPU) from a slow one.

A session is the processes started under one leader with `start_new_session` (the C build's
compiler and every process it runs). Each process's own user and system time counts, and the
time of its children it has waited for, so a pass of the compiler that has ended still counts.
"""
from __future__ import annotations

import os


def session_cpu(sid: int) -> float | None:
    """Seconds of CPU the processes of session `sid` have used, those alive and the ended ones
    their parents waited for; None where /proc cannot tell (not Linux)."""
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    ticks = 0
    for pid in pids:
        fields = _stat_fields(pid)
        if fields is not None and int(fields[3]) == sid:  # the 6th field of stat: the session
            ticks += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: str) -> list[str] | None:
    """/proc/PID/stat's fields after the command's name (which may hold spaces and parentheses),
    from the state on; None for a process that has ended meanwhile."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()
