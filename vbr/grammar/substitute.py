"""An expression with names replaced by expressions: a procedure's or handler's parameters by
the arguments of one call, so that a condition read inside it can be written in the caller's
terms (`team_score[t] < target` in `score_for(other(serving))` is `team_score[other(serving)] <
target` where it was called)."""
from __future__ import annotations

from vbr.grammar import ast as A


def substitute(e: A.Expr, names: dict) -> A.Expr:
    """`e` with each `Name` in `names` replaced by its expression (or by what a function of the
    `Name` gives: `renamed` keeps each name's place). A comprehension's own variable hides a name
    of the same spelling in its body and filter."""
    if not names:
        return e
    if isinstance(e, A.Name):
        new = names.get(e.id, e)
        return new(e) if callable(new) else new
    if isinstance(e, A.Comprehension) and e.var in names:
        inner = {k: v for k, v in names.items() if k != e.var}
        return e.model_copy(update={"source": substitute(e.source, names),
                                    "body": substitute(e.body, inner),
                                    "filter": None if e.filter is None else substitute(e.filter, inner)})
    update = {}
    for field in type(e).model_fields:
        if field == "span":
            continue
        value = getattr(e, field)
        new = _each(value, names)
        if new is not value:
            update[field] = new
    return e.model_copy(update=update) if update else e


def _each(value, names):
    if isinstance(value, A.Expr):
        new = substitute(value, names)
        return new if new is not value else value
    if isinstance(value, list) and any(isinstance(v, A.Expr) for v in value):
        new = [substitute(v, names) if isinstance(v, A.Expr) else v for v in value]
        return new if any(a is not b for a, b in zip(new, value)) else value
    return value


def renamed(e: A.Expr, names: dict[str, str]) -> A.Expr:
    """`e` with each `Name` in `names` spelt as its new name, where it was written."""
    return substitute(e, {old: (lambda n, new=new: n.model_copy(update={"id": new})) for old, new in names.items()})
