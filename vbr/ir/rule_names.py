"""What the rule file (or a scenario file) calls the rule a typed unit is built from, and where
to point at it: the errors that blame a unit (the C engine's bound on generated C, the bound on a
state's size) name it the same way."""
from __future__ import annotations

from vbr.errors import Span
from vbr.ir import nodes as N

SCENARIO_UNITS = ("given", "probe")  # a scenario program's units (vbr.ir.scenario_program)


def rule_of(unit: N.Unit) -> tuple[str, Span]:
    """(phase `serve`, its span): a procedure built for several kinds of arguments, or a scenario
    file's steps (at that file's first line), give one."""
    name = unit.name.split(" #")[0]
    if unit.kind in SCENARIO_UNITS:
        return "the scenarios' steps", first_line(unit.span.file)
    if unit.kind == "handler":
        return f"the handler `{name}`", unit.span
    if unit.kind == "proc":
        return f"procedure `{name}`", unit.span
    if name == unit.kind:  # setup
        return f"`{name}`", unit.span
    return f"{unit.kind} `{name}`", unit.span


def first_line(file: str) -> Span:
    """The first line of `file`: where an error that no one rule of it makes points."""
    return Span(file=file, line=1, col=1, end_line=1, end_col=1)
