"""What each built-in function wants of its arguments and what it gives: `CHECKS[name](checker,
call, argument types)` reports a wrong argument and returns the call's type. Names and arities
are the table's (vbr/builtin_signatures.py), checked before these run."""
from __future__ import annotations

from typing import Callable

from vbr.builtin_signatures import SIGNATURES
from vbr.checking import types as T
from vbr.grammar import ast as A

CHECKS: dict[str, Callable] = {}


def _want(c, node: A.Call, i: int, t: str, want: str, what: str) -> None:
    if not T.compatible(t, want):
        c.diags.error(node.args[i].span, f"{what} must be {T.show(want)}, not {T.show(t)}")


def _gives(rtype: str, *wants: tuple[int, str, str]):
    """A check that wants `wants` ((argument, type, what) each) and gives `rtype`."""
    def check(c, node, ts):
        for i, want, what in wants:
            if i < len(ts):
                _want(c, node, i, ts[i], want, what)
        return rtype
    return check


def _collection(name: str, rtype: str):
    def check(c, node, ts):
        if T.item_type(ts[0]) is None:
            c.diags.error(node.args[0].span, f"`{name}` needs a list or zone, not {T.show(ts[0])}")
        return rtype
    return check


def _extreme(name: str):
    def check(c, node, ts):
        if len(ts) == 2:
            for i in (0, 1):
                _want(c, node, i, ts[i], "int", f"`{name}`'s argument")
        else:
            _want(c, node, 0, ts[0], "list:int", f"`{name}`'s argument")
        return "int"
    return check


def _on_court(check):
    """`check`, after the court a geometry built-in needs is found declared (or reported missing)."""
    def on_court(c, node, ts):
        if c.m.court is None:
            c.diags.error(node.span, f"`{node.func}` needs a `court` declaration")
        return check(c, node, ts)
    return on_court


def _space(c, node, ts):
    name = node.args[0]
    sname = getattr(name, "id", None)
    if c.m.court is not None:
        spaces = list(dict.fromkeys(it.values[0] for it in c.m.court.items if it.what == "space"))
        if sname not in spaces:
            known = ", ".join(spaces) or "none declared"
            c.diags.error(name.span, f"the court has no space `{sname}` (spaces: {known})")
    return "cell"


def _step(c, node, ts):
    _want(c, node, 0, ts[0], "cell", "`step`'s cell")
    _want(c, node, 1, ts[1], "dir", "`step`'s direction")
    _want(c, node, 2, ts[2], "int", "`step`'s side")
    _want(c, node, 3, ts[3], "int", "`step`'s number of steps")
    if len(ts) == 5:
        _want(c, node, 4, ts[4], "int", "`step`'s net cost")
    return "cell"


CHECKS.update({
    "count": _collection("count", "int"),
    "empty": _collection("empty", "bool"),
    "top": _gives("ent", (0, "zone", "`top`'s argument")),
    "bottom": _gives("ent", (0, "zone", "`bottom`'s argument")),
    "zone_of": _gives("zone", (0, "ent", "`zone_of`'s argument")),
    "owner": _gives("seat"),
    "max": _extreme("max"),
    "min": _extreme("min"),
    "abs": _gives("int", (0, "int", "`abs`'s argument")),
    "index_of": _gives("int"),
    "next_seat": _gives("seat", (0, "seat", "`next_seat`'s argument")),
    "other": _gives("seat", (0, "int", "`other`'s argument")),
    "team_of": _gives("int", (0, "seat", "`team_of`'s argument")),
    "team_seats": _gives("list:seat", (0, "int", "`team_seats`'s argument")),
    "partner": _gives("seat", (0, "seat", "`partner`'s argument")),
    "field": _on_court(_gives("cell", (0, "int", "`field`'s side"), (1, "int", "`field`'s number"))),
    "cell_at": _on_court(_gives("cell", (0, "int", "`cell_at`'s side"), (1, "int", "`cell_at`'s row"),
                                (2, "int", "`cell_at`'s column"))),
    "space": _on_court(_space),
    **{name: _on_court(_gives(rtype, (0, "cell", f"`{name}`'s argument")))
       for name, rtype in (("number", "int"), ("side", "int"), ("row", "int"), ("col", "int"),
                           ("in_court", "bool"), ("on_net", "bool"))},
    "cells": _on_court(_gives("list:cell", (0, "int", "`cells`'s side"))),
    "step": _on_court(_step),
    "reach": _on_court(_gives("list:cell", (0, "cell", "`reach`'s cell"), (1, "int", "`reach`'s distance"),
                              (2, "int", "`reach`'s side"), (3, "list:dir", "`reach`'s directions"),
                              (4, "int", "`reach`'s net cost"))),
    "distance": _gives("int", (0, "cell", "`distance`'s argument"), (1, "cell", "`distance`'s argument")),
    "directions": _gives("list:dir"),
})

_unchecked = [name for name in SIGNATURES if name not in CHECKS]
if _unchecked:
    raise RuntimeError(f"vbr/builtin_signatures.py lists built-ins with no check here: {', '.join(_unchecked)}")
