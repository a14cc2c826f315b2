"""A unit's C as functions of a size the C compiler handles in linear time and memory.

A C compiler's optimiser grows faster than linearly with the size of one function (GCC took
several minutes over a phase of 4,000 statements written as one function, and the Cython build
of such a file grew past 15 GB), so no generated function is let grow past a few thousand lines:

- a block's statements beyond `STMT_LINES` lines go, whole statements at a time, into functions
  of their own (`static void NAME(W *S, W fp)`) that the block calls in order; a statement
  neither jumps nor returns, so this changes nothing but where the code lies;
- a unit of more than `UNIT_LINES` lines is cut into parts, each a run of consecutive blocks in a
  function `static W NAME(W *S, W fp, W *L, W pc)` (L: the unit's locals) that enters at
  block `pc` and returns the block to go on at when a jump leaves its part, or -1 when control
  leaves the unit (a call, a return, a choice, a `goto`, the end); the unit's own function calls
  the part holding `pc` until one returns -1. No word of the state changes on the way: the same words as one function.
"""
from __future__ import annotations

import re

STMT_LINES = 300  # lines of statements a block keeps in its own function
UNIT_LINES = 3000  # lines of C a unit's function holds before it is cut into parts

_GOTO = re.compile(r"goto L(\d+);")
_RETURN = re.compile(r"\breturn;")


def statement_groups(stmts: list[list[str]]) -> list[list[str]]:
    """Consecutive statements (each its lines) in groups of at most STMT_LINES lines (a longer
    statement is a group of its own)."""
    groups: list[list[str]] = [[]]
    for lines in stmts:
        if groups[-1] and len(groups[-1]) + len(lines) > STMT_LINES:
            groups.append([])
        groups[-1] += lines
    return groups


def function(head: str, lines: list[str]) -> str:
    return f"{head} {{\n" + "".join(f"    {x}\n" for x in lines) + "}"


def splits(blocks: list[list[str]]) -> bool:
    """Whether a unit of these blocks' lines is cut into parts (unit_functions)."""
    return sum(len(b) for b in blocks) > UNIT_LINES


def unit_functions(name: str, blocks: list[list[str]], prologue: list[str]) -> list[str]:
    """The C functions of a unit named `name` (`static void name(W *S, W fp, W pc)`) whose
    block b's lines are blocks[b] (its label `L<b>:` first; a jump is `goto L<n>;`, leaving
    the unit `return;`), the unit's function starting with `prologue` (which declares `L`)."""
    switch = ["switch (pc) {", *(f"case {b}: goto L{b};" for b in range(len(blocks))), "}"]
    if not splits(blocks):
        body = prologue + switch + ["return;"] + [x for b in blocks for x in b]
        return [function(f"static void {name}(W *S, W fp, W pc)", body)]
    parts, starts, size = [], [], 0  # each part's blocks, its first block, the last part's lines
    for b, lines in enumerate(blocks):
        if not parts or size + len(lines) > UNIT_LINES:
            parts.append([])
            starts.append(b)
            size = 0
        parts[-1].append(b)
        size += len(lines)
    out = []
    for k, members in enumerate(parts):
        inside = set(members)
        body = ["switch (pc) {", *(f"case {b}: goto L{b};" for b in members), "}", "return -1;"]
        for b in members:
            body += [_leave(x, inside) for x in blocks[b]]
        out.append(function(f"static W {name}_{k}(W *S, W fp, W *L, W pc)", body))
    calls = [f"{'if' if k == 0 else 'else if'} (pc < {starts[k + 1]}) pc = {name}_{k}(S, fp, L, pc);"
             for k in range(len(parts) - 1)]
    calls.append(f"else pc = {name}_{len(parts) - 1}(S, fp, L, pc);" if calls else f"pc = {name}_0(S, fp, L, pc);")
    loop = prologue + ["while (pc >= 0) {", *("    " + c for c in calls), "}"]
    out.append(function(f"static void {name}(W *S, W fp, W pc)", loop))
    return out


def _leave(line: str, inside: set[int]) -> str:
    """A line of a part's block: a jump out of the part returns its target, leaving the unit -1."""
    line = _GOTO.sub(lambda m: m.group(0) if int(m.group(1)) in inside else f"return {m.group(1)};", line)
    return _RETURN.sub("return -1;", line)
