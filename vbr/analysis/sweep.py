"""A sweep: the same run under every combination of some options' values, one summary each.

`--grid target=5,9,15 --grid abilities=false,true` is six combinations, played in the order the
grid reads (the last option varying fastest). Every combination is loaded, and so checked, before
the first game: a value of the wrong type stops the sweep at once, not after an hour.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from vbr.errors import UsageError


@dataclass(frozen=True)
class Axis:
    name: str
    values: tuple[str, ...]  # as typed: the rule file's checker gives them their types


def parse_grid(items: list[str]) -> list[Axis]:
    axes: list[Axis] = []
    for item in items:
        name, eq, rest = item.partition("=")
        name = name.strip()
        values = tuple(v.strip() for v in rest.split(","))
        if not name or not eq or not rest.strip() or any(not v for v in values):
            raise UsageError(f"--grid {item!r}: expected NAME=V1,V2,... (e.g. --grid target=5,9,15)")
        if any(a.name == name for a in axes):
            raise UsageError(f"--grid {name}: given twice; list all its values in one --grid")
        if len(set(values)) != len(values):
            raise UsageError(f"--grid {item!r}: a value is listed twice")
        axes.append(Axis(name, values))
    if not axes:
        raise UsageError("a sweep needs at least one --grid NAME=V1,V2,...")
    return axes


def refuse_same_values(flag: str, name: str, texts, values) -> None:
    """A UsageError when two of an option's listed values, as typed (`texts`), are one value to the
    rule file (`values`, as its checker read each: `1`, `01` and `+1` are 1), which would play the
    same games twice under two names."""
    seen: dict = {}
    for typed, value in zip(texts, values):
        key = (type(value).__name__, value)
        if key in seen and seen[key] != typed:
            raise UsageError(f"{flag} {name}: {seen[key]} and {typed} are the same value; list it once")
        seen.setdefault(key, typed)


MAX_COMBINATIONS = 10_000  # a sweep's combinations: each is loaded (and let go) before the first game


def combinations(axes: list[Axis], base: dict | None = None) -> list[dict]:
    """Every combination, as the options to load a game with (the grid over `base`); a usage
    error, before any is made, for more than MAX_COMBINATIONS."""
    clash = [a.name for a in axes if base and a.name in base]
    if clash:
        raise UsageError(f"option `{clash[0]}` is both swept (--grid) and fixed (--option)")
    count = math.prod(len(a.values) for a in axes)
    if count > MAX_COMBINATIONS:
        raise UsageError(f"the grid has {count:,} combinations; a sweep plays at most {MAX_COMBINATIONS:,}")
    names = [a.name for a in axes]
    return [{**(base or {}), **dict(zip(names, combo))} for combo in itertools.product(*(a.values for a in axes))]
