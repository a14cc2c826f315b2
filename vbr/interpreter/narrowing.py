"""A choice over every thing of a kind, narrowed to the zones its condition requires.

`choose k from Card where playable(k, s) and k.value > 2` goes through every Card of the game,
while `playable` says `k in hand[s] or (... and k in table[t])`: only the cards in one or two
zones can pass. When the condition has that shape, the choice looks at the things of the
kind in those zones instead, in the order of the kind (creation order, as `Card` lists them),
and the game is the same game: the same options in the same order, the same steps counted (one
per thing of the kind, as before), the same faults at the same items.

Why it is the same. The condition's *skeleton* is made of `k in Z` (Z not mentioning k),
`M and X` (X anything: it only runs once M holds, so only for things in the zones),
`G and M` (G not mentioning k), `M1 or M2`, and calls of fns whose body is such a skeleton.
For a thing in none of the zones, the condition runs only the skeleton's parts that do not
mention k (the zones Z and the guards G) and comes out false. Those parts may not roll, pick,
count steps (no comprehension, range or fn call paid for in steps) nor change anything; they
are evaluated once before the loop, to learn the zones, and give the answer they give for
every thing, since nothing changes while a choice's options are worked out. If evaluating them
fails in any way, or gives something that is not a zone, the choice goes through every thing
as before (where the same failure, if any, happens where it always did). So things outside the
zones, which could only have been looked at and turned down, are never looked at.

Both forms use it alike: the closure (`narrowed` in statements.py's `choose`) and the lowered
code (`_choose_options` in lowering.py), each evaluating the same parts.
"""
from __future__ import annotations

from dataclasses import dataclass

from vbr.errors import Diagnostics
from vbr.grammar import ast as A
from vbr.interpreter import pyast as ast
from vbr.interpreter.expressions import FN_CHARGED
from vbr.values import ZoneRef

ENABLED = True  # (tests compile with it off to compare)
_BANNED = (A.Comprehension, A.RangeExpr, A.Roll, A.Pick)  # they count steps or draw


@dataclass(frozen=True)
class Member:
    """`k in Z`: the closure of Z."""
    zone: object


@dataclass(frozen=True)
class Union:
    """`M1 or M2`."""
    first: object
    second: object


@dataclass(frozen=True)
class Guarded:
    """`G and M`: M's zones only when G holds."""
    test: object
    plan: object


class _OverBudget(Exception):
    pass


class Planner:
    """Works out a condition's plan (or None) for one choice: `x` is the expression compiler,
    `var` the choice's name, `scope` the scope around the choice (without the name).

    The work is bounded: a condition may call a fn thousands of times, each written out here;
    past BUDGET nodes looked at or copied, the choice is simply not narrowed."""

    BUDGET = 20_000

    def __init__(self, x, var: str, scope):
        self.x, self.m, self.var, self.scope = x, x.m, var, scope
        self._clean_fns: dict[str, bool] = {}
        self.left = self.BUDGET

    def spend(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise _OverBudget

    def plan_of(self, where: A.Expr):
        """The plan of a choice's whole `where`, or None."""
        try:
            return self.plan(where)
        except (_OverBudget, RecursionError):
            return None

    def plan(self, e: A.Expr):
        self.spend()
        if isinstance(e, A.Binary):
            if e.op == "in" and isinstance(e.left, A.Name) and e.left.id == self.var:
                zone = self.compiled(e.right, "zone")
                return Member(zone) if zone is not None else None
            if e.op == "and":
                first = self.plan(e.left)
                if first is not None:
                    return first
                rest = self.plan(e.right)
                test = self.compiled(e.left, "bool") if rest is not None else None
                return Guarded(test, rest) if test is not None else None
            if e.op == "or":
                first, second = self.plan(e.left), self.plan(e.right)
                return Union(first, second) if first is not None and second is not None else None
            return None
        if isinstance(e, A.Call) and e.func in self.m.fns:
            body = self.written_out(e)
            return self.plan(body) if body is not None else None
        return None

    def written_out(self, call: A.Call):
        """The body of the fn `call` calls, its parameters replaced by the call's arguments:
        when the call is not paid for in steps, each argument is the choice's name or a part
        that may run once before the loop, and no name the body reads for itself means
        something else at the choice (a local of the same name)."""
        d = self.m.fns[call.func]
        if len(call.args) != len(d.params) or self.x.fn_weight(d.name) >= FN_CHARGED:
            return None
        for a in call.args:
            if not (isinstance(a, A.Name) and a.id == self.var) and not self.clean(a):
                return None
        params = {p.name for p in d.params}
        own = {n.id for n in A.walk(d.body) if isinstance(n, A.Name)} - params
        if any(self.scope.lookup(n) is not None or n == self.var for n in own):
            return None
        return _substituted(d.body, {p.name: a for p, a in zip(d.params, call.args)}, self.spend)

    def clean(self, e: A.Expr) -> bool:
        """Whether `e` may be evaluated once before the loop: it does not read the choice's
        name, and it neither draws, nor counts steps, nor calls a fn that does."""
        for n in A.walk(e):
            self.spend()
            if isinstance(n, _BANNED) or (isinstance(n, A.Name) and n.id == self.var):
                return False
            if isinstance(n, A.Call) and n.func in self.m.fns and not self.clean_fn(n.func):
                return False
        return True

    def clean_fn(self, name: str) -> bool:
        if name not in self._clean_fns:
            self._clean_fns[name] = False  # (fns do not recurse; this only guards the walk)
            ok = self.x.fn_weight(name) < FN_CHARGED
            for n in A.walk(self.m.fns[name].body) if ok else ():
                self.spend()
                if isinstance(n, _BANNED) or (isinstance(n, A.Call) and n.func in self.m.fns
                                              and not self.clean_fn(n.func)):
                    ok = False
                    break
            self._clean_fns[name] = ok
        return self._clean_fns[name]

    def compiled(self, e: A.Expr, want: str):
        """The closure of a clean part of type `want`, compiled at the choice; None if it is
        not clean, not of that type, or compiling it has anything to say."""
        if not self.clean(e):
            return None
        saved, self.x.diags = self.x.diags, Diagnostics()
        try:
            f, t = self.x.compile(e, self.scope)
            quiet = not self.x.diags.items
        except Exception:  # anything unexpected: no plan
            return None
        finally:
            self.x.diags = saved
        return f if quiet and t == want else None


def _substituted(node, names: dict, spend):
    """A copy of `node` with each Name in `names` replaced (not inside a comprehension that
    binds the same name); `spend()` is called for each node."""
    spend()
    if isinstance(node, A.Name):
        return names.get(node.id, node)
    if isinstance(node, A.Comprehension) and node.var in names:
        names = {k: v for k, v in names.items() if k != node.var}
        return node.model_copy(update={"source": _substituted(node.source, names, spend),
                                       "body": _substituted(node.body, names, spend),
                                       "filter": _substituted(node.filter, names, spend) if node.filter else None})
    if not isinstance(node, A.Node):
        return node
    changes = {}
    for field in type(node).model_fields:
        value = getattr(node, field)
        if isinstance(value, A.Node):
            changes[field] = _substituted(value, names, spend)
        elif isinstance(value, list) and value and isinstance(value[0], A.Node):
            changes[field] = [_substituted(v, names, spend) for v in value]
    return node.model_copy(update=changes) if changes else node


def zones_of(plan, st, L) -> tuple:
    """The zones `plan` names, in the state: the closure form's evaluation."""
    if type(plan) is Member:
        return (plan.zone(st, L),)
    if type(plan) is Union:
        return zones_of(plan.first, st, L) + zones_of(plan.second, st, L)
    return zones_of(plan.plan, st, L) if plan.test(st, L) else ()


def zones_template(plan, low):
    """The same evaluation as a Python expression of the lowered code."""
    if type(plan) is Member:
        return ast.Tuple([low.expr(plan.zone)], ast.Load())
    if type(plan) is Union:
        return ast.BinOp(zones_template(plan.first, low), ast.Add(), zones_template(plan.second, low))
    return ast.IfExp(low.expr(plan.test), zones_template(plan.plan, low), ast.Tuple([], ast.Load()))


def narrowed(st, zones, kind: int, items):
    """The things of kind `kind` in `zones`, in creation order (`items`, every thing of the
    kind, when `zones` is None, after a failure, or holds anything but zones)."""
    if zones is None:
        return items
    for z in zones:
        if type(z) is not ZoneRef:
            return items
    kinds, lists = st.kind, st.zones
    if len(zones) == 1:
        found = [x for x in lists[zones[0]] if kinds[x] == kind]
    else:
        found = list({x for z in set(zones) for x in lists[z] if kinds[x] == kind})
    found.sort()
    return found


def plan_zones(plan, st, L):
    """`zones_of`, or None when evaluating the parts fails in any way."""
    try:
        return zones_of(plan, st, L)
    except Exception:
        return None
