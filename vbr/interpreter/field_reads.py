"""A thing's field read once per expression, its kind checked once.

The expression compiler writes each `x.f` as a checked read, `E[x][p] if x is not None and
KD[x] == k else no_field(x, "f")`, for a var typed loosely may hold a thing of another kind. A
rule's condition often reads the same thing's fields many times (`p.side == s and p.field > 0
and not p.down ...`, a fn written in place reading its argument's fields at every use), and each
read pays the check again. Within one expression nothing can change a thing: an expression moves
no card and sets no var (it calls no procedure), and a thing never changes kind. So once a
checked read of `x` has succeeded, every later read of `x` on that path may skip the check, and
a later read of the same field may reuse the value.

"Later on that path" is what this pass follows: it walks an expression in the order Python
evaluates it, and what it learned inside one way of an `and`, `or`, `if ... else` or a chained
comparison, or inside a comprehension's rounds, it forgets when it leaves them. A call of
anything not known to leave the state alone (a procedure, a closure that may write the frame's
locals) makes it forget everything. Each statement's expressions are walked afresh: a statement
may change the state.

The first read of a field keeps its check and is written `(_c := <checked read>)`; a later read
of the same field is `_c`; a later read of another field of the same thing is `E[x][p]`. A
`_c` no later read uses is not written. The faults stay where they were: a later read only
happens after the first one succeeded.
"""
from __future__ import annotations

import ast as _std
from typing import Callable

from vbr.interpreter import pyast as ast

_COMPREHENSIONS = (_std.GeneratorExp, _std.ListComp, _std.SetComp, _std.DictComp)
# nodes whose children Python evaluates in the order of their fields (anything else is looked
# into only for calls that may change the state)
_IN_ORDER = (_std.Subscript, _std.BinOp, _std.UnaryOp, _std.Tuple, _std.List, _std.Set, _std.Attribute,
             _std.Starred, _std.Slice)
_NAME, _CONSTANT, _LOAD = ast.Name, ast.Constant, _std.Load  # the classes generated code is built of
_STABLE_ARRAYS = ("L", "V")  # a thing named by `L[i]` or `V[i]` is the same thing throughout an expression


def read_fields_once(fn: ast.FunctionDef, tmp: Callable[[], str], harmless: Callable[[ast.expr], bool]) -> None:
    """Rewrite the expressions of `fn`'s statements in place (the statements; expression nodes
    are never changed, only replaced, as a template may share them). `tmp()` gives a fresh
    name; `harmless(func)` says whether a call of `func` leaves the state and the frame alone."""
    try:
        survey = _Survey(fn, harmless)
        if not survey.repeated:
            return
        walker = _Walker(tmp, survey)
        changed: list = []
        _statements(fn.body, walker, changed)
        for owner, field, i in changed:  # the names no later read took are not bound
            if i is None:
                setattr(owner, field, _unused_dropped(getattr(owner, field), walker))
            else:
                getattr(owner, field)[i] = _unused_dropped(getattr(owner, field)[i], walker)
    except RecursionError:
        return  # an expression too deep to walk stays as it was (each is replaced whole or not at all)


def _statements(stmts: list, walker: "_Walker", changed: list) -> None:
    for s in stmts:
        if not isinstance(s, ast.stmt):
            continue
        for field, value in ast.iter_fields(s):
            if isinstance(value, ast.expr):
                new = walker.root(value)
                if new is not value:
                    setattr(s, field, new)
                    changed.append((s, field, None))
            elif isinstance(value, list):
                if value and isinstance(value[0], ast.expr):
                    for i, v in enumerate(value):
                        new = walker.root(v)
                        if new is not v:
                            value[i] = new
                            changed.append((s, field, i))
                else:
                    _statements(value, walker, changed)
                    for h in value:
                        if isinstance(h, _std.ExceptHandler):
                            _statements(h.body, walker, changed)


class _Survey:
    """One walk of the function before the pass: how often each name is read and bound, which
    nodes hold something the pass must look at (a checked read, a call that may change
    things, a binding, a comprehension) and which hold such a call, and whether any thing is
    read twice at all (else the pass has nothing to do)."""

    def __init__(self, fn, harmless):
        self.loads: dict[str, int] = {}
        self.stores: dict[str, int] = {}
        self.interesting: set[int] = set()
        self.harmful: set[int] = set()
        self.harmless = harmless
        self.keys: dict = {}  # thing -> checked reads of it, in the expression being walked
        self.worth: set[int] = set()  # the statements' expressions reading some thing twice
        for stmt in fn.body:
            self._scan(stmt)
        self.repeated = bool(self.worth)

    def _scan(self, node) -> int:
        """Walk `node` (children first); returns what it holds: 1 something to look at, 2 a call
        that may change things. Names and constants are counted here, not walked."""
        held = 0
        loads = self.loads
        statement = isinstance(node, (_std.stmt, _std.ExceptHandler))
        for field in _node_fields(type(node)):
            value = getattr(node, field, None)
            for v in (value if type(value) is list else (value,)):
                t = type(v)
                if t is _NAME or t is _std.Name:
                    if type(v.ctx) is _LOAD:
                        loads[v.id] = loads.get(v.id, 0) + 1
                elif statement and isinstance(v, _std.expr):  # an expression of a statement: the pass's unit
                    self.keys = {}
                    held |= self._scan(v)
                    if any(n > 1 for n in self.keys.values()):
                        self.worth.add(id(v))
                elif t is not _CONSTANT and t is not _std.Constant and isinstance(v, _std.AST):
                    held |= self._scan(v)
        if isinstance(node, _std.NamedExpr):
            self.stores[node.target.id] = self.stores.get(node.target.id, 0) + 1
            held |= 1
        elif isinstance(node, _std.Call):
            if not self.harmless(node.func):
                held |= 3
        elif isinstance(node, _COMPREHENSIONS):
            held |= 1
        elif isinstance(node, _std.IfExp):
            read = _checked_read(node)
            if read is not None and read[0] is not None:
                self.keys[read[0]] = self.keys.get(read[0], 0) + 1
                held |= 1
        if held & 1:
            self.interesting.add(id(node))
        if held & 2:
            self.harmful.add(id(node))
        return held


_NOT_NODES = frozenset(("ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "is_async", "conversion"))
_FIELDS: dict[type, tuple] = {}


def _node_fields(t: type) -> tuple:
    """The fields of a node class that may hold other statements or expressions."""
    fields = _FIELDS.get(t)
    if fields is None:
        fields = _FIELDS[t] = tuple(f for f in t._fields if f not in _NOT_NODES)
    return fields


class _Facts:
    """What is known at a point of an expression: the kind of each thing read there (by its
    key: a Python name, `L[i]` or `V[i]`), and the name holding each field read there."""
    __slots__ = ("kinds", "values")

    def __init__(self, kinds=None, values=None):
        self.kinds: dict = dict(kinds or {})
        self.values: dict = dict(values or {})

    def copy(self) -> "_Facts":
        return _Facts(self.kinds, self.values)

    def forget(self, name: str | None = None) -> None:
        """Everything (a call that may change things), or what is known of `name` (rebound)."""
        if name is None:
            self.kinds.clear()
            self.values.clear()
            return
        self.kinds.pop(name, None)
        for key in [k for k in self.values if k[0] == name]:
            del self.values[key]


class _Walker:
    """The rewrite: each statement's expressions visited in the order Python evaluates them,
    with what is known so far (`facts`)."""

    def __init__(self, tmp, survey: _Survey):
        self.tmp = tmp
        self.survey = survey
        self.new: dict[int, ast.AST] = {}  # the nodes this pass made (only they can hold its names)
        self.reused: dict[str, int] = {}  # each `_c` name this pass bound -> the later reads that take it
        self.facts = _Facts()
        self.no_binding = 0  # inside a comprehension's iterable, where Python allows no `:=`

    def rebuilt(self, node, **changes):
        new = _rebuilt(node, **changes)
        return self.made(new) if new is not node else node

    def made(self, node):
        self.new[id(node)] = node  # kept, so that no other node takes its id
        return node

    def root(self, e: ast.expr) -> ast.expr:
        if id(e) not in self.survey.worth:
            return e  # no thing read twice in it
        self.facts = _Facts()
        return self.visit(e)

    def visit(self, e):
        """`e` rewritten, and `self.facts` what holds once it has been evaluated."""
        if id(e) not in self.survey.interesting:
            return e  # no read, call, binding or comprehension in it: nothing to learn or change
        for cls, how in self._BY_CLASS:
            if isinstance(e, cls):
                return how(self, e)
        if isinstance(e, (_std.Lambda, _std.Name, _std.Constant)):
            return e  # a lambda's body runs later, somewhere else
        if not isinstance(e, _IN_ORDER):
            if id(e) in self.survey.harmful:
                self.facts.forget()
            return e
        return self._in_order(e)

    def _conditional(self, parts: list) -> list:
        """`parts` visited in order, each only if those before let it run: what they teach is
        forgotten after them."""
        saved = self.facts
        self.facts = saved.copy()
        done = [self.visit(p) for p in parts]
        end = self.facts  # what held before holds after only if no part forgot or rebound it
        self.facts = _Facts({k: v for k, v in saved.kinds.items() if end.kinds.get(k) == v},
                            {k: v for k, v in saved.values.items() if end.values.get(k) == v})
        return done

    def _if(self, e):
        read = _checked_read(e)
        if read is not None and read[0] is not None:
            return self.read(e, *read)
        test = self.visit(e.test)
        body, = self._conditional([e.body])
        orelse, = self._conditional([e.orelse])
        return self.rebuilt(e, test=test, body=body, orelse=orelse)

    def _bool(self, e):
        first = self.visit(e.values[0])
        return self.rebuilt(e, values=[first, *self._conditional(e.values[1:])])

    def _compare(self, e):  # a chain goes on only while true
        left, first = self.visit(e.left), self.visit(e.comparators[0])
        return self.rebuilt(e, left=left, comparators=[first, *self._conditional(e.comparators[1:])])

    def _call(self, e):
        func = self.visit(e.func)
        args = [self.visit(a) for a in e.args]
        keywords = [self.rebuilt(k, value=self.visit(k.value)) for k in e.keywords]
        if id(e) in self.survey.harmful:
            self.facts.forget()
        return self.rebuilt(e, func=func, args=args, keywords=keywords)

    def _named(self, e):
        value = self.visit(e.value)
        self.facts.forget(e.target.id)
        return self.rebuilt(e, value=value)

    def _in_order(self, e):
        changes = {}
        for field, value in ast.iter_fields(e):
            if isinstance(value, ast.expr):
                new = self.visit(value)
                if new is not value:
                    changes[field] = new
            elif isinstance(value, list) and value and isinstance(value[0], ast.expr):
                new = [self.visit(v) for v in value]
                if any(a is not b for a, b in zip(new, value)):
                    changes[field] = new
        return self.rebuilt(e, **changes) if changes else e

    def read(self, e: ast.IfExp, key, obj: ast.expr, bound: str | None, kind: int, pos: int) -> ast.expr:
        facts = self.facts
        if bound is not None:
            survey = self.survey
            if survey.loads.get(bound, 0) != survey.stores.get(bound, 0) * _reads_of(e, bound):
                return e  # the name the check binds is read elsewhere too: it must stay bound here
            facts.forget(bound)
        have = facts.values.get((key, kind, pos))
        if have is not None:
            self.reused[have] += 1
            return self.made(ast.Name(have, ast.Load()))
        if facts.kinds.get(key) == kind:
            value = ast.Subscript(ast.Subscript(ast.Name("E", ast.Load()), _copy(obj), ast.Load()),
                                  ast.Constant(pos), ast.Load())
        else:
            value = e
        if self.no_binding:
            return value
        name = self.tmp()
        self.reused[name] = 0
        facts.kinds[key] = kind
        facts.values[(key, kind, pos)] = name
        return self.made(ast.NamedExpr(ast.Name(name, ast.Store()), value))

    def comprehension(self, e) -> ast.expr:
        """The first iterable is evaluated here; the rest, the filters and the element once per
        round, each round with what was known before it (and nothing if a round may call
        something harmful), learning only for the round."""
        gens = list(e.generators)
        first = self.iterable(gens[0].iter)
        saved = self.facts
        harmful = id(e) in self.survey.harmful
        self.facts = _Facts() if harmful else saved.copy()
        new_gens = []
        for i, g in enumerate(gens):
            it = first if i == 0 else self.iterable(g.iter)
            for n in ast.walk(g.target):
                if isinstance(n, _std.Name):
                    self.facts.forget(n.id)
            ifs = []
            for cond in g.ifs:
                ifs.append(self.visit(cond))
            new_gens.append(self.rebuilt(g, iter=it, ifs=ifs))
        if isinstance(e, _std.DictComp):
            parts = {"key": self.visit(e.key), "value": self.visit(e.value)}
        else:
            parts = {"elt": self.visit(e.elt)}
        self.facts = _Facts() if harmful else saved
        return self.rebuilt(e, generators=new_gens, **parts)

    def iterable(self, e) -> ast.expr:
        self.no_binding += 1
        try:
            return self.visit(e)
        finally:
            self.no_binding -= 1


_Walker._BY_CLASS = ((_std.IfExp, _Walker._if), (_std.BoolOp, _Walker._bool), (_std.Compare, _Walker._compare),
                     (_std.Call, _Walker._call), (_std.NamedExpr, _Walker._named),
                     (_COMPREHENSIONS, _Walker.comprehension))


def _checked_read(e: ast.IfExp):
    """(key, the thing's expression, the name the check binds or None, kind, place) when `e` is
    `E[x][p] if x is not None and KD[x] == k else no_field(...)` (x a name, or `(x := a)` in
    the test); the key is a's: a name, `L[i]` or `V[i]` (None for anything else)."""
    test, body = e.test, e.body
    if not (isinstance(test, _std.BoolOp) and isinstance(test.op, _std.And) and len(test.values) == 2):
        return None
    none, kind = test.values
    if not (isinstance(none, _std.Compare) and len(none.ops) == 1 and isinstance(none.ops[0], _std.IsNot)
            and isinstance(none.comparators[0], _std.Constant) and none.comparators[0].value is None):
        return None
    thing = none.left
    if isinstance(thing, _std.NamedExpr):
        x, obj, bound = thing.target.id, thing.value, thing.target.id
    elif isinstance(thing, _std.Name):
        x, obj, bound = thing.id, thing, None
    else:
        return None
    if not (isinstance(kind, _std.Compare) and len(kind.ops) == 1 and isinstance(kind.ops[0], _std.Eq)
            and _is_item(kind.left, "KD", x) and isinstance(kind.comparators[0], _std.Constant)
            and type(kind.comparators[0].value) is int):
        return None
    if not (isinstance(body, _std.Subscript) and _is_item(body.value, "E", x) and isinstance(body.slice, _std.Constant)
            and type(body.slice.value) is int):
        return None
    return key_of_thing(obj), obj, bound, kind.comparators[0].value, body.slice.value


def _is_item(e, array: str, name: str) -> bool:
    return (isinstance(e, _std.Subscript) and isinstance(e.value, _std.Name) and e.value.id == array
            and isinstance(e.slice, _std.Name) and e.slice.id == name)


def key_of_thing(obj):
    if isinstance(obj, _std.Name):
        return obj.id
    if (isinstance(obj, _std.Subscript) and isinstance(obj.value, _std.Name) and obj.value.id in _STABLE_ARRAYS
            and isinstance(obj.slice, _std.Constant) and type(obj.slice.value) is int):
        return (obj.value.id, obj.slice.value)
    return None


def _copy(obj: ast.expr) -> ast.expr:
    if isinstance(obj, _std.Name):
        return ast.Name(obj.id, ast.Load())
    return ast.Subscript(ast.Name(obj.value.id, ast.Load()), ast.Constant(obj.slice.value), ast.Load())


def _rebuilt(node, **changes):
    """A copy of `node` with some fields replaced: nodes are never changed in place."""
    if all(_same(v, getattr(node, f, None)) for f, v in changes.items()):
        return node
    fields = {f: getattr(node, f) for f in node._fields + node._attributes if hasattr(node, f)}
    fields.update(changes)
    return type(node)(**fields)


def _same(a, b) -> bool:
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(x is y for x, y in zip(a, b))
    return a is b


def _reads_of(e: ast.IfExp, name: str) -> int:
    """How often the checked read `e` reads `name`: in `KD[x]`, `E[x]` and the fault's call."""
    fault = e.orelse
    if isinstance(fault, _std.Call):
        return 2 + sum(1 for a in fault.args if isinstance(a, _std.Name) and a.id == name)
    return sum(1 for n in ast.walk(e) if isinstance(n, _std.Name) and n.id == name and isinstance(n.ctx, _std.Load))


def _unused_dropped(e: ast.expr, walker: _Walker) -> ast.expr:
    """`e` without the `(_c := v)` this pass wrote whose `_c` no later read takes: `v`. Only
    the nodes the pass made are looked into."""
    reused, made = walker.reused, walker.new

    def drop(node):
        if id(node) not in made:
            return node
        if isinstance(node, _std.NamedExpr) and reused.get(node.target.id) == 0:
            return drop(node.value)
        changes = {}
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST) and not isinstance(value, (ast.expr_context, ast.operator, ast.boolop,
                                                                      ast.cmpop, ast.unaryop)):
                new = drop(value)
                if new is not value:
                    changes[field] = new
            elif isinstance(value, list):
                new = [drop(v) if isinstance(v, ast.AST) else v for v in value]
                if any(a is not b for a, b in zip(new, value)):
                    changes[field] = new
        return _rebuilt(node, **changes) if changes else node
    return drop(e)
