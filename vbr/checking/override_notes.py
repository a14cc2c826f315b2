"""Why a base file's line is wrong in a variant: the variant's `override` that made it so.

A variant that overrides `proc take_over(s: seat)` with two parameters breaks every call of it in
the base file; an `override enum Tactic` that leaves out a member breaks every use of that member
there. The errors are rightly located in the base file, which its author did not touch. Each such
error gets a note naming the override it follows from: one whose name the message names, one
whose base declaration (an enum, a kind, a stage) declared a name the message names and the
override no longer does, or else one whose name is written where the error points (`fn
bounces_of` overridden to give a Face, where the base's `choose d from bounces_of(face)` wants a
list). A procedure a variant
declares with a built-in's name (`proc max`) takes the built-in's place in the base too: an error
naming it gets a note saying so.
"""
from __future__ import annotations

import re
from pathlib import Path

from vbr.builtin_signatures import SIGNATURES
from vbr.errors import Diagnostic
from vbr.grammar import ast as A
from vbr.loader import parse_file

_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def with_override_notes(errors: list[Diagnostic], rules) -> list[Diagnostic]:
    """`errors`, each one located in a file `rules` extends that an override of a more derived
    file explains carrying a note saying so (rules: a vbr.loader.RuleSet)."""
    chain = list(rules.chain)
    if len(chain) < 2 or not any(e.span.file in chain[1:] for e in errors):
        return errors
    overrides = _overrides(rules, chain)
    return [_noted(e, overrides, chain, _pointed_at(e, rules.sources)) if e.span.file in chain[1:] else e
            for e in errors]


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(r'"[^"\n]*"')


def _pointed_at(e: Diagnostic, sources: dict) -> set[str]:
    """The names written where the error points, from its column to the end of its line (strings
    left out): `bounces_of` of `choose d from bounces_of(face) by holder` at `bounces_of`."""
    lines = (sources.get(e.span.file) or "").split("\n")
    if not 1 <= e.span.line <= len(lines):
        return set()
    rest = _STRING.sub('""', lines[e.span.line - 1][max(e.span.col - 1, 0):].split("#", 1)[0])
    return set(_WORD.findall(rest))


def _overrides(rules, chain: list[str]) -> list[tuple[A.Decl, A.Decl]]:
    """(override, the base's declaration it replaced), for each declaration of a derived file
    that replaced one of a file further down the chain."""
    own: dict[str, dict[str, A.Decl]] = {}  # file -> its own declarations by name
    for file in chain:
        try:
            tree, _ = parse_file(Path(file), text=rules.sources.get(file))
        except Exception:  # noqa: BLE001 — a file that no longer reads gives no notes
            tree = None
        own[file] = {} if tree is None else {d.name: d for d in _walk(tree.decls) if d.name}
    found = []
    for i, file in enumerate(chain[:-1]):
        for name, d in own[file].items():
            original = next((own[b][name] for b in chain[i + 1:] if name in own[b]), None)
            if original is not None and getattr(d, "override", False):
                found.append((d, original))
            elif original is None and isinstance(d, A.Proc) and name in SIGNATURES:
                found.append((d, None))  # a new procedure named as a built-in: it takes its place in the base too
    return found


def _walk(decls):
    for d in decls:
        yield d
        if isinstance(d, A.Stage):
            yield from _walk(d.members)


def _noted(e: Diagnostic, overrides: list[tuple[A.Decl, A.Decl]], chain: list[str],
           pointed: set[str] = frozenset()) -> Diagnostic:
    """`e` with a note naming the override it follows from: one the message names, one whose
    enum, kind or stage lost a name the message names, else one written where the error points
    (`pointed`, its line from its column on); `e` itself when none is."""
    named = set(_NAMED.findall(e.message))
    for new, old in overrides:
        if chain.index(new.span.file) >= chain.index(e.span.file):
            continue  # an override made further down the chain than the error explains nothing there
        shown = new.name.lstrip("@")
        if old is None:
            if new.name in named:
                return Diagnostic(e.span, f"{e.message} (`{shown}` is the procedure declared at {new.span}, which "
                                          f"takes the place of the built-in `{shown}` in the whole file)", e.severity)
            continue
        if new.name in named:
            return Diagnostic(e.span, f"{e.message} (`{shown}` is overridden at {new.span})", e.severity)
        gone = sorted(named & (_words(old) - _words(new))) if isinstance(old, (A.Enum, A.Kind, A.Stage)) else []
        if gone:
            return Diagnostic(e.span, f"{e.message} (`{gone[0]}` was declared in the base's `{shown}`, which "
                                      f"{new.span} overrides without it)", e.severity)
    for new, old in overrides:
        if old is not None and chain.index(new.span.file) < chain.index(e.span.file) and new.name in pointed:
            return Diagnostic(e.span, f"{e.message} (`{new.name.lstrip('@')}`, used here, is overridden at "
                                      f"{new.span})", e.severity)
    return e


def _words(d: A.Decl) -> set[str]:
    """The names an enum declares (its members), a kind (its fields) or a stage (its phases and
    stages, to any depth); none for anything else."""
    if isinstance(d, A.Enum):
        return set(d.members)
    if isinstance(d, A.Kind):
        return {f.name for f in d.fields}
    if isinstance(d, A.Stage):
        return {m.name for m in _walk(d.members)}
    return set()
