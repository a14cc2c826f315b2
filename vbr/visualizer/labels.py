"""Edge labels a designer can read: a transition's name, or its condition made short.

A guard from `graph` is a list of alternatives, each a conjunction of conditions in the order the
walk met them. `simplify` treats the conditions as opaque atoms that may be negated (`x` and
`not (x)`), and applies three rules until none applies:

- contradiction: an alternative holding both `x` and `not (x)` can never be taken, and is dropped;
- merging: `S and x` or `S and not (x)` is `S` (more generally, `T and not (x)` loses `not (x)`
  when another alternative is `S and x` with S within T);
- absorption: `S` or `S and T` is `S`.

The result means the same as the input. `short` then factors out the conditions every alternative
shares and keeps at most `MAX_LINES` lines: when the alternatives do not fit, the label says how
many ways there are, and the full guard stays in the tooltip (`full`).
"""
from __future__ import annotations

import re

MAX_LINES = 4
MAX_WIDTH = 52  # characters in one line of a short label

Alternative = list[str]


def negate(term: str) -> str:
    if term.startswith("not (") and term.endswith(")") and _balanced(term[5:-1]):
        return term[5:-1]
    if term.startswith("not ") and not term.startswith("not ("):
        return term[4:]
    return f"not ({term})"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "(["
        depth -= ch in ")]"
        if depth < 0:
            return False
    return depth == 0


def _key(term: str) -> str:
    """One spelling per condition: `not (not (x))` and `x` are the same atom."""
    once = negate(negate(term))
    return once


def simplify(alternatives: list[Alternative]) -> list[Alternative]:
    """Equivalent alternatives, with contradictions dropped, complementary pairs merged and
    alternatives another one implies left out. [] means never; [[]] means always."""
    alts = [list(dict.fromkeys(_key(t) for t in a)) for a in alternatives]
    alts = [a for a in alts if not any(negate(t) in a for t in a)]
    changed = True
    while changed:
        changed = False
        for i, a in enumerate(alts):
            for j, b in enumerate(alts):
                if i == j:
                    continue
                for t in a:
                    n = negate(t)
                    if n in b and set(a) - {t} <= set(b) - {n}:
                        alts[j] = [x for x in b if x != n]
                        changed = True
                        break
                if changed:
                    break
            if changed:
                break
        kept: list[Alternative] = []
        for i, a in enumerate(alts):
            if any(set(b) <= set(a) and (set(b) != set(a) or j < i) for j, b in enumerate(alts) if j != i):
                changed = True
                continue
            kept.append(a)
        alts = kept
    return alts


_ATOM = re.compile(r"^[\w.]+(\[[^\s]*\])?(\(.*\))?$")
_FLIP = {"==": "!=", "!=": "==", ">=": "<", "<": ">=", "<=": ">", ">": "<="}


def readable(term: str) -> str:
    """`not (a == b)` as `a != b`, `not (x >= t)` as `x < t`: the same condition, read at once."""
    if term.startswith("not (") and term.endswith(")") and _balanced(term[5:-1]):
        inner = term[5:-1]
        flipped = _flip(inner)
        if flipped:
            return flipped
        if _ATOM.match(inner):
            return f"not {inner}"
    return term


def _top_level(text: str) -> list[tuple[int, str]]:
    """The operators (` == `, ` and `, ...) outside brackets and strings, with where they start."""
    found, depth, quoted = [], 0, False
    ops = [f" {o} " for o in ("==", "!=", ">=", "<=", ">", "<", "and", "or", "in", "not in")]
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth -= 1
        elif not quoted and depth == 0 and ch == " ":
            for o in ops:
                if text.startswith(o, i):
                    found.append((i, o.strip()))
    return found


def _flip(inner: str) -> str | None:
    """`a + b >= c` negated as `a + b < c`: one comparison, nothing else at the top level."""
    ops = _top_level(inner)
    if len(ops) != 1 or ops[0][1] not in _FLIP:
        return None
    at, op = ops[0]
    return f"{inner[:at]} {_FLIP[op]} {inner[at + len(op) + 2:]}"


def _cut(line: str, width: int = MAX_WIDTH) -> str:
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def full(alternatives: list[Alternative]) -> str:
    """The whole guard, one conjunct a line, alternatives separated by `or`."""
    if not alternatives or any(not a for a in alternatives):
        return ""
    return "\nor\n".join("\nand ".join(a) for a in alternatives)


def factor(alternatives: list[Alternative]) -> tuple[Alternative, list[Alternative]]:
    """The conditions every alternative has, and what is left of each."""
    common = [t for t in alternatives[0] if all(t in a for a in alternatives[1:])]
    return common, [[t for t in a if t not in common] for a in alternatives]


def short(alternatives: list[Alternative], names: list[str] | None = None, max_lines: int = MAX_LINES) -> str:
    """A label of at most `max_lines` lines: the transition's names if the rules give them, else
    the simplified condition, its shared part first."""
    if names:
        shown = [_cut(n) for n in names[:max_lines]]
        if len(names) > max_lines:
            shown[-1] = f"+{len(names) - max_lines + 1} more"
        return "\n".join(shown)
    alts = simplify(alternatives)
    if not alts or any(not a for a in alts):
        return ""
    alts = [[readable(t) for t in a] for a in alts]
    common, rests = factor(alts)
    rests = [r for r in rests if r]
    if len(rests) < len(alts):
        rests = []  # one alternative was the shared part alone: it absorbs the others
    if not rests:
        return _lines(common, max_lines)
    options = [" and ".join(r) for r in rests]
    room = max_lines - min(len(common), max_lines - 1)
    if len(options) <= room:  # a line each, cut at MAX_WIDTH (the tooltip has them whole)
        head = _lines(common, max_lines - len(options)) if common else ""
        either = [f"({options[0]}" if common else options[0]] + [f"or {o}" for o in options[1:]]
        if common:
            either[-1] += ")"
            either[0] = "and " + either[0]
        either = [_cut(line) for line in either]
        return "\n".join(([head] if head else []) + either)
    ways = f"one of {len(rests)} ways"
    if not common:
        return ways
    return _lines(common, max_lines - 1) + "\n" + f"and {ways}"


def _lines(terms: Alternative, max_lines: int) -> str:
    """Conditions one a line; when there are too many, the last ones, nearest the transition."""
    if len(terms) > max_lines:
        terms = ["…"] + terms[len(terms) - max_lines + 1:]
    out = []
    for i, t in enumerate(terms):
        out.append(_cut(t if i == 0 else "and " + t))
    return "\n".join(out)
