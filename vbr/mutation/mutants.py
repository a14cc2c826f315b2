"""Small semantic changes of a rule file, made from its AST: each a rule the scenarios should notice.

Kinds (what `vbr mutate` changes):
  number     an integer literal ±1 (a bonus, a distance, a card value, a threshold, a count)
  compare    `<`↔`<=`, `>`↔`>=`, `==`↔`!=`
  logic      `and`↔`or`, and either side of an `and` or `or` dropped (`a and b` → `a`, `a and b` → `b`)
  delete     one statement removed from its block (a `reveal` too: what the players are shown)
  swap       two neighbouring items of a list literal exchanged (die faces, card lists)
  direction  one component of a `direction` vector ±1
  filter     a comprehension's condition dropped, or negated (`if c` → `if not c`, `if not c` → `if c`)
  argument   two neighbouring arguments of a call exchanged (`reach(src, d, t)` → `reach(src, t, d)`);
             an integer argument ±1 is a `number` mutant

Not mutated: `say` text, an option's list of allowed values, the court's layout, enums, kinds,
zones, limits, `require` and `seats` (declarations rather than rules; a change there is caught by
the checker or changes no rule of play), and `returns`, which neither play nor a scenario reads.
A `measure` is mutated: a scenario's `expect` reads it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from vbr.grammar import ast as A
from vbr.grammar import printer

FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "and": "or", "or": "and"}
_SKIP_DECLS = (A.Seats, A.Enum, A.Kind, A.Zone, A.Court, A.Extends, A.Limit, A.Require, A.Event, A.Points,
               A.StartAt, A.Returns)

Path = tuple  # of (field name, index or None) steps from the file's root


@dataclass(frozen=True)
class Mutant:
    index: int  # its place in the full list of the file's mutants (the list is the same on every run)
    kind: str
    path: Path  # to the node replaced
    line: int
    col: int
    before: str
    after: str
    new: Any  # the replacement node (or, for `delete` and `swap`, the new list for the path's field)

    def where(self, file: str) -> str:
        return f"{file}:{self.line}:{self.col}"


def mutants(tree: A.GameFile) -> list[Mutant]:
    """Every mutant of the file, in the order of the tree (deterministic)."""
    out: list[Mutant] = []
    for i, d in enumerate(tree.decls):
        _decl(d, (("decls", i),), out)
    return [replace(m, index=k) for k, m in enumerate(out)]


def apply(tree: A.GameFile, m: Mutant) -> A.GameFile:
    return _replace(tree, m.path, m.new)


# ------------------------------------------------------------------------------------ finding
def _decl(d: A.Decl, path: Path, out: list) -> None:
    if isinstance(d, _SKIP_DECLS):
        return
    if isinstance(d, A.Stage):
        for i, m in enumerate(d.members):
            _decl(m, path + (("members", i),), out)
        return
    if isinstance(d, A.Direction):
        for name in ("right", "forward"):
            for delta in (1, -1):
                new = d.model_copy(update={name: getattr(d, name) + delta})
                out.append(Mutant(0, "direction", path, d.span.line, d.span.col, _one_line(printer.decl(d)),
                                  _one_line(printer.decl(new)), new))
        return
    if isinstance(d, A.Option):
        _node(d.default, path + (("default", None),), d, out)
        return
    for name in type(d).model_fields:
        if name in ("span",):
            continue
        _field(d, name, path, out)


def _field(parent: A.Node, name: str, path: Path, out: list) -> None:
    value = getattr(parent, name)
    if isinstance(value, A.Node):
        _node(value, path + ((name, None),), parent, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, A.Node):
                _node(v, path + ((name, i),), parent, out)


def _node(n: A.Node, path: Path, parent: A.Node | None, out: list) -> None:
    if isinstance(n, A.Say):
        return
    if isinstance(n, A.IntLit):
        for delta in (1, -1):
            new = n.model_copy(update={"value": n.value + delta})
            out.append(Mutant(0, "number", path, n.span.line, n.span.col, _context(n, parent, n),
                              _context(n, parent, new), new))
    elif isinstance(n, A.Binary) and n.op in FLIP:
        new = n.model_copy(update={"op": FLIP[n.op]})
        kind = "logic" if n.op in ("and", "or") else "compare"
        out.append(Mutant(0, kind, path, n.span.line, n.span.col, _short(printer.expr(n)), _short(printer.expr(new)), new))
        if kind == "logic":
            for side in (n.left, n.right):
                out.append(Mutant(0, kind, path, n.span.line, n.span.col, _short(printer.expr(n)),
                                  _short(printer.expr(side)), side))
    elif isinstance(n, A.Block):
        for i, s in enumerate(n.body):
            if isinstance(s, A.Say):  # text for the reader; no rule of play
                continue
            body = n.body[:i] + n.body[i + 1:]
            out.append(Mutant(0, "delete", path + (("body", None),), s.span.line, s.span.col, _stmt_text(s),
                              "(deleted)", body))
    elif isinstance(n, A.ListLit):
        for i in range(len(n.items) - 1):
            a, b = n.items[i], n.items[i + 1]
            if A.shape(a) == A.shape(b):
                continue
            items = n.items[:i] + [b, a] + n.items[i + 2:]
            out.append(Mutant(0, "swap", path + (("items", None),), a.span.line, a.span.col,
                              _short(printer.expr(n)), _short(printer.expr(n.model_copy(update={"items": items}))), items))
    elif isinstance(n, A.Comprehension) and n.filter is not None:
        _filters(n, path, out)
    elif isinstance(n, A.Call):
        _arguments(n, path, out)
    for name in type(n).model_fields:
        if name != "span":
            _field(n, name, path, out)


def _filters(n: A.Comprehension, path: Path, out: list) -> None:
    """The comprehension's condition dropped, then negated."""
    f = n.filter
    negated = f.operand if isinstance(f, A.Unary) and f.op == "not" else A.Unary(span=f.span, op="not", operand=f)
    for new in (n.model_copy(update={"filter": None}), n.model_copy(update={"filter": negated})):
        out.append(Mutant(0, "filter", path, f.span.line, f.span.col, _head(n), _head(new), new))


def _head(n: A.Comprehension) -> str:
    """`for x in spots if empty_space(x)`: the part of a comprehension a filter mutant changes."""
    tail = f" if {printer.expr(n.filter)}" if n.filter is not None else ""
    return _short(f"for {n.var} in {printer.expr(n.source)}{tail}")


def _arguments(n: A.Call, path: Path, out: list) -> None:
    """Each pair of neighbouring arguments that differ, exchanged."""
    for i in range(len(n.args) - 1):
        a, b = n.args[i], n.args[i + 1]
        if A.shape(a) == A.shape(b):
            continue
        args = n.args[:i] + [b, a] + n.args[i + 2:]
        out.append(Mutant(0, "argument", path + (("args", None),), a.span.line, a.span.col, _short(printer.expr(n)),
                          _short(printer.expr(n.model_copy(update={"args": args}))), args))


# ------------------------------------------------------------------------------------ text
def _context(n: A.IntLit, parent, new: A.IntLit) -> str:
    """A number shown with the expression around it (`bonus + 1`), when it sits in one."""
    if isinstance(parent, A.Expr) and not isinstance(parent, (A.ListLit,)):
        for name in type(parent).model_fields:
            value = getattr(parent, name)
            if value is n:
                return _short(printer.expr(parent.model_copy(update={name: new})))
            if isinstance(value, list) and any(v is n for v in value):
                return _short(printer.expr(parent.model_copy(update={name: [new if v is n else v for v in value]})))
    if isinstance(parent, A.Kwarg):
        return f"{parent.name}: {printer.expr(new)}"
    if isinstance(parent, (A.Var, A.Option)):
        return f"{parent.name} = {printer.expr(new)}"
    if isinstance(parent, A.Assign) and parent.value is n:
        return _short(printer.stmt(parent.model_copy(update={"value": new}), 0))
    return printer.expr(new)


def _stmt_text(s: A.Stmt) -> str:
    return _one_line(printer.stmt(s, 0))


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    return _short(lines[0] + (" … }" if len(lines) > 1 else ""))


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# ------------------------------------------------------------------------------------ rebuilding
def _replace(node: A.Node, path: Path, new: Any) -> A.Node:
    (name, i), rest = path[0], path[1:]
    value = getattr(node, name)
    if i is None:
        child = new if not rest else _replace(value, rest, new)
        return node.model_copy(update={name: child})
    items = list(value)
    items[i] = new if not rest else _replace(items[i], rest, new)
    return node.model_copy(update={name: items})
