"""The compiled program lowered once more, into plain Python functions: the fast form that runs.

The expression and statement compilers turn a checked rule file into closures. Calling a tree of
small closures costs a Python call per node, and that dispatch, not the work, was most of the
interpreter's time (docs/performance.md). So each closure that has a direct Python equivalent
also records a *template*: how to build that equivalent as Python `ast` nodes. After compiling,
every op the VM can enter is rebuilt from the templates as one Python function (`lower_ops`),
which goes on through the ops after it (`_Chain`), with expressions inline (`V[3] + 1` instead of
three calls), pure procedures and `fn`s written in place, comprehensions as generator
expressions. A closure without a template is still called, from inside the generated function,
so every construct works whether or not it has a fast form, with the same results and the same
located errors (each statement sets `_k`; one `except` per function reports that span).

The templates are written with the node builders of template_nodes.py and get the `Lowering`
that builds them (for temps, references, calls of fns and comprehensions); the fast paths the
lowering may take are switched in fast_paths.py.

Safety: the generated code is built from `ast` nodes by this module, never from text. Every name
in it is one this module made up (`st`, `L`, `V`, `C12`, `_t3`, ...); every value that comes
from a rule file enters as a constant (an int, a string, a bool, None) or as a reference to an
object the compiler made, so nothing a rule file says can become Python code. The functions run
with no builtins. `tests/test_lowering.py` walks every generated module to hold this, and checks
that the lowered program plays exactly the games the closures play.
"""
from __future__ import annotations

import collections
import heapq
import sys
from typing import Callable

from vbr.interpreter import fast_paths
from vbr.interpreter import pyast as ast
from vbr.interpreter.builtins import is_cell, manhattan, other_side
from vbr.interpreter.expressions import (_iterate, counted, counted_range, divide, int_range, item_at, no_field,
                                         no_items, out_of_range, remainder)
from vbr.interpreter.field_reads import key_of_thing, read_fields_once
from vbr.interpreter.narrowing import narrowed, zones_template
from vbr.interpreter.program import Pending
from vbr.interpreter.scope import MAX_OPTIONS, OverBudget, checked, int_overflow
from vbr.interpreter.state import NO_PICK, take as take_answer
from vbr.interpreter.template_nodes import (CMP, call, load, local, note_read, seen_names, set_item, spend_inline, store,
                                            subscript)
from vbr.values import ZoneRef

# Names the generated functions bind from the state on entry, when their body uses them.
_STATE_FIELDS = {"V": "vals", "E": "ent", "KD": "kind", "Z": "zones", "W": "where"}
BREAK, CONTINUE = 1, 2  # the signals pure blocks return (structured.py)
_MEMO_TYPES = {"int", "seat", "bool", "str", "dir", "cell"}  # arguments a remembered fn may take
_MEMO_SIZE = 4096  # answers a fn remembers at most (per compiled program)
_INLINE_WEIGHT = 200  # a fn evaluating more nodes than this (ExprCompiler.fn_weight) is called, not copied


def _sentinel(name: str):
    """A value no rule file can make, which says its name when shown."""
    return type(name.title(), (), {"__repr__": lambda self: name, "__slots__": ()})()


_MISS = _sentinel("MISS")  # "not remembered yet"
_NO_ANSWERS: dict = {}  # where a remembered fn's lookup goes on when its first arguments are new: never written
_UNSET = _sentinel("UNSET")  # "not computed in this loop yet"


class Lowering:
    """Collects templates while the compilers run, then builds the Python functions."""

    def __init__(self, enabled: bool = True, keep_code: bool = False):
        self.enabled = enabled
        self.keep_code = keep_code  # keep the generated modules (`modules`) for inspection
        self.namespace: dict = {"__builtins__": {}}
        self._names: dict[int, str] = {}
        self._exprs: dict[int, tuple] = {}  # id(closure) -> (closure, build(self) -> ast.expr)
        self._stmts: dict[int, tuple] = {}  # id(action) -> (action, build(self, in_loop) -> [ast.stmt])
        self._storing: dict[int, tuple] = {}
        self._writing: dict[int, tuple] = {}  # id(store) -> (store, build(self, value) -> [ast.stmt])
        self._fixed: dict[int, tuple] = {}
        self._tmp = 0
        self._spans: list = []  # the spans of the function being built
        self._defs: list[ast.FunctionDef] = []
        self._jobs: list[tuple] = []  # functions referenced before they are built
        self._functions: dict[tuple, str] = {}
        self._nparams: dict[str, int] = {}
        self._fn_own_locals: dict[str, bool] = {}
        self._fn_sizes: dict[str, int] = {}
        self._memo: dict[str, bool] = {}  # fn name -> remembered?
        self._memos: dict[str, dict] = {}  # generated function -> its dict of answers
        self.functions = 0
        self.modules: list[ast.Module] = []
        self.refused: list[str] = []  # generated functions Python would not compile (`build`)
        self._fallbacks: dict[str, Callable] = {}  # a fn's or proc's function -> what stands in for it
        self._checked: dict = {}  # thing -> checked reads of it written since the last function was queued
        self._loops: dict[str, ast.FunctionDef] = {}  # a comprehension's function (`loop_function`), by name
        self._loops_used: set[str] = set()  # the ones a queued function names
        self._loop_count = 0
        self._first_loops: dict[tuple, str] = {}  # (kind, field's place, op, field) -> its `first_in_loop`

    # ------------------------------------------------------------------ registering templates
    def expr_template(self, fn, build: Callable) -> Callable:
        if self.enabled:
            self._exprs[id(fn)] = (fn, build)
        return fn

    def stmt_template(self, fn, build: Callable) -> Callable:
        if self.enabled:
            self._stmts[id(fn)] = (fn, build)
        return fn

    def store_template(self, store, array: str, index: int) -> None:
        """`store(st, L, v)` is `array[index] = v`, array being "L" (locals) or "V" (vars)."""
        if self.enabled:
            self._storing[id(store)] = (store, array, index)

    def store_target(self, store):
        entry = self._storing.get(id(store))
        return entry[1:] if entry is not None else None

    def store_written(self, store, build: Callable) -> None:
        """`store(st, L, v)` written out by `build(low, v)` -> [ast.stmt], v a plain expression
        holding the value (already computed: a store runs after its value)."""
        if self.enabled:
            self._writing[id(store)] = (store, build)

    def store_writer(self, store):
        entry = self._writing.get(id(store))
        return entry[1] if entry is not None else None

    def fixed_template(self, fn, value) -> Callable:
        """`fn` always gives `value` (a literal, an option, a list the rules spell out)."""
        if self.enabled:
            self._fixed[id(fn)] = (fn, value)
            self._exprs[id(fn)] = (fn, lambda low: low.ref(value))
        return fn

    def fixed_value(self, fn):
        entry = self._fixed.get(id(fn))
        return entry[1] if entry is not None else None

    # ------------------------------------------------------------------ building blocks
    def ref(self, obj) -> ast.expr:
        """A value fixed at compile time: an int, string, bool or None inline, anything else (a
        closure, a table, a helper) by reference."""
        if obj is None or type(obj) in (int, str, bool):
            return ast.Constant(obj)
        name = self._names.get(id(obj))
        if name is None:
            name = self._names[id(obj)] = f"C{len(self._names)}"
            self.namespace[name] = obj  # which also keeps it alive, so its id stays unique
        return load(name)

    def function_ref(self, kind: str, name: str, closure, nparams: int = 0) -> ast.expr:
        """A call target for a rule file's `fn` (kind "fn", the closure of its body) or pure
        `proc` (kind "proc", the closure of its block): the lowered function, built later by
        `drain`; or the closure itself when it has no template."""
        if kind != "proc" and id(closure) not in self._exprs or kind == "proc" and id(closure) not in self._stmts:
            return self.ref(closure)
        key = (kind, name)
        if key not in self._functions:
            self._functions[key] = fname = f"{'P' if kind == 'proc' else 'F'}{len(self._functions)}"
            self._nparams[fname] = nparams
            self._jobs.append((kind, self._functions[key], closure))
        return load(self._functions[key])

    def lowered(self, kind: str, name: str):
        """The built function for a fn or pure proc, if it was lowered."""
        fname = self._functions.get((kind, name))
        return self.namespace.get(fname) if fname else None

    def finish(self) -> None:
        """Lowering is done: drop the templates (code compiled later, for scenarios, keeps its
        closures) and record nothing more."""
        self.enabled = False
        for table in (self._exprs, self._stmts, self._storing, self._writing, self._fixed):
            table.clear()

    def fn_call(self, name: str, body, args: list[ast.expr], nlocals: int, ptypes=(), weight: int = 0) -> ast.expr:
        """A call of a rule file's `fn`. Its body is an expression over its parameters (locals
        0..n-1): with arguments that cannot fail or change anything (constants, vars, locals)
        the body is written in place; else, when the body needs no other local, it becomes
        `F(st, a0, a1, ...)`; else `F(st, [a0, a1, ..., None, ...])`, a frame of locals.
        A fn whose `weight` (its nodes, the fns it calls written out) is over _INLINE_WEIGHT is
        never written in place, so what the lowering writes grows with the file, not with the
        calls below calls (`f2(a) = f1(a) + f1(a)`, and so on, doubles at each level)."""
        if id(body) not in self._exprs:
            frame = ast.List(args + [ast.Constant(None)] * (nlocals - len(args)), ast.Load())
            return call(self.ref(body), load("st"), frame)
        if name not in self._fn_own_locals:
            params = [load(f"_a{i}") for i in range(len(args))]
            self._fn_own_locals[name] = _with_params(self.expr(body), params) is None
        if self._fn_own_locals[name]:  # it reads locals of its own (a comprehension's name)
            frame = ast.List(args + [ast.Constant(None)] * (nlocals - len(args)), ast.Load())
            return call(self.function_ref("fn", name, body), load("st"), frame)
        if self._memo_ok(name, body, ptypes):
            return self._memo_call(name, body, args)
        oversized = weight > _INLINE_WEIGHT
        if not oversized and all(_is_plain(a) for a in args):  # plain: read twice or not at all, all the same
            return _with_params(self.expr(body), args)
        if oversized or self._fn_size(name, body) > 80:  # a long body: called, not copied
            return call(self.function_ref("fnp", name, body, len(args)), load("st"), *args)
        # `(_a := arg0, _b := arg1, body)[-1]`: each argument once, in order, as a call would
        temps = [self.tmp() for _ in args]
        value = _with_params(self.expr(body), [load(t) for t in temps])
        items = [ast.NamedExpr(store(t), a) for t, a in zip(temps, args)] + [value]
        return subscript(ast.Tuple(items, ast.Load()), ast.Constant(-1))

    def _memo_ok(self, name: str, body, ptypes) -> bool:
        """A fn worth remembering: its answer depends on its arguments alone (its body reads no
        state: no `st`, var, zone, card or die), each argument is a plain value whose equality
        is its identity in a dict (ints, seats, bools, texts, members, cells: not a card, whose id
        would equal an int), and the body is more than a few steps."""
        if name not in self._memo:
            value = _with_params(self.expr(body), [load(f"_a{i}") for i in range(len(ptypes))])
            reads = {n.id for n in ast.walk(value) if type(n) is ast.Name} if value is not None else {"L"}
            stateless = all(r.startswith(("_a", "_t", "C")) for r in reads)
            plain = all(t in _MEMO_TYPES or t.startswith("enum:") for t in ptypes)
            self._memo[name] = stateless and plain and bool(ptypes) and self._fn_size(name, body) > 15
        return self._memo[name]

    def _memo_call(self, name: str, body, args: list[ast.expr]) -> ast.expr:
        """`memo.get(key, MISS)`, and the body (which remembers its answer) only on a miss."""
        key = (name, "memo")
        if key not in self._functions:
            fname = self._functions[key] = f"F{len(self._functions)}"
            memo: dict = {}
            self._jobs.append(("memo", fname, (body, len(args), memo)))
            self._memos[fname] = memo
        fname = self._functions[key]
        temps = [self.tmp() for _ in args]
        found = self.tmp()
        keys = [ast.NamedExpr(store(t), a) for t, a in zip(temps, args)]
        if not fast_paths.MEMO_BARE_KEY:
            keys = [ast.Tuple(keys, ast.Load())]
        get = self.ref(self._memos[fname])
        for i, k in enumerate(keys):  # `memo.get(a0, NO).get(a1, MISS)`: a dict per argument, no tuple built
            get = call(ast.Attribute(get, "get", ast.Load()), k, self.ref(_MISS if i == len(keys) - 1 else _NO_ANSWERS))
        return ast.IfExp(ast.Compare(ast.NamedExpr(store(found), get), [ast.IsNot()], [self.ref(_MISS)]),
                         load(found), call(load(fname), *(load(t) for t in temps)))

    def proc_in_place(self, name: str, body, args: list[ast.expr], nlocals: int) -> list[ast.stmt] | None:
        """A pure procedure's statements written at the call, its locals as Python locals of
        the caller's function: `_t1 = arg0; ...; <body>`. None when the body is long, or hands
        its frame of locals to a closure (then it is called)."""
        if self._proc_size(name, body) > 150:
            return None
        names = [self.tmp() for _ in range(nlocals)]
        stmts = self._stmts[id(body)][1](self, False)
        if not _locals_renamed(stmts, names):
            return None
        head = [ast.Assign([store(t)], a) for t, a in zip(names, args)]
        if nlocals > len(args):  # the rest start as none, as in a fresh frame
            head.append(ast.Assign([store(t) for t in names[len(args):]], ast.Constant(None)))
        return head + stmts

    def _proc_size(self, name: str, body) -> int:
        if ("proc", name) not in self._fn_sizes:
            self._fn_sizes[("proc", name)] = sum(1 for s in self._stmts[id(body)][1](self, False) for _ in ast.walk(s))
        return self._fn_sizes[("proc", name)]

    def _fn_size(self, name: str, body) -> int:
        if name not in self._fn_sizes:
            self._fn_sizes[name] = sum(1 for _ in ast.walk(self.expr(body)))
        return self._fn_sizes[name]

    def drain(self) -> None:
        """Build every function that `function_ref` promised."""
        while self._jobs:
            kind, fname, closure = self._jobs.pop()
            self._fallbacks[fname] = _fallback(kind, closure)
            if kind == "fn":
                self.function(fname, ("st", "L"), [ast.Return(self.expr(closure))], locate=False)
            elif kind == "memo":  # def F(a0, ...): value = body; remember it (up to a bound); return it
                body, nparams, memo = closure
                params = [f"_a{i}" for i in range(nparams)]
                value = _with_params(self.expr(body), [load(p) for p in params])
                self.function(fname, tuple(params), [ast.Assign([store("_v")], value)]
                              + self._remembered(memo, params) + [ast.Return(load("_v"))], locate=False)
            elif kind == "fnp":
                nparams = self._nparams[fname]
                value = _with_params(self.expr(closure), [load(f"_a{i}") for i in range(nparams)])
                self.function(fname, ("st", *(f"_a{i}" for i in range(nparams))), [ast.Return(value)], locate=False)
            else:
                self.function(fname, ("st", "L"), self._stmts[id(closure)][1](self, False))

    def _remembered(self, memo: dict, params: list[str]) -> list[ast.stmt]:
        """The statements that remember `_v` as the answer for `params`, while the memo holds
        fewer than _MEMO_SIZE answers. Keyed by a dict per argument (MEMO_BARE_KEY), the answers
        are counted in a list of one int beside the memo (a dict's len counts its first
        arguments only): `if count[0] < SIZE: count[0] += 1; m = memo; n = m.get(a0); if n is
        None: n = m[a0] = {}; m = n; ...; m[a_last] = _v`. The function runs only when the
        answer was missing, so each count is a new answer, and there are never more dicts than
        answers."""
        if not fast_paths.MEMO_BARE_KEY or len(params) == 1:
            key = load(params[0]) if fast_paths.MEMO_BARE_KEY else ast.Tuple([load(p) for p in params], ast.Load())
            room = ast.Compare(call(self.ref(len), self.ref(memo)), [ast.Lt()], [ast.Constant(_MEMO_SIZE)])
            return [ast.If(room, [set_item(self.ref(memo), key, load("_v"))], [])]
        count = [0]  # the answers the memo holds (this function is built once per remembered fn)
        held = subscript(self.ref(count), ast.Constant(0))
        m, n = self.tmp(), self.tmp()
        body: list[ast.stmt] = [
            ast.AugAssign(ast.Subscript(self.ref(count), ast.Constant(0), ast.Store()), ast.Add(), ast.Constant(1)),
            ast.Assign([store(m)], self.ref(memo))]
        for p in params[:-1]:
            new = [ast.Assign([store(n), ast.Subscript(load(m), load(p), ast.Store())], ast.Dict([], []))]
            body += [ast.Assign([store(n)], call(ast.Attribute(load(m), "get", ast.Load()), load(p))),
                     ast.If(ast.Compare(load(n), [ast.Is()], [ast.Constant(None)]), new, []),
                     ast.Assign([store(m)], load(n))]
        body.append(set_item(load(m), load(params[-1]), load("_v")))
        return [ast.If(ast.Compare(held, [ast.Lt()], [ast.Constant(_MEMO_SIZE)]), body, [])]

    def is_ref(self, e: ast.expr, obj) -> bool:
        """Whether `e` is `ref(obj)`."""
        return type(e) is ast.Name and e.id.startswith("C") and self.namespace.get(e.id) is obj

    def checked_read(self, thing: ast.expr) -> None:
        """A checked read of a field of `thing` was written for the function being built: a
        function where no thing is read twice is not given to field_reads.py (its walk costs
        about a fifth of the load). Templates built only to be measured count too, which
        only makes the pass look at more."""
        key = key_of_thing(thing)
        if key is not None:
            self._checked[key] = self._checked.get(key, 0) + 1

    def loop_function(self, agg: str, x: str, body: ast.expr, filt: ast.expr | None, counts: bool) -> tuple | None:
        """The comprehension `agg(body for x in items if filt)` as a generated function with a
        `for` loop (`_aggregate_loop`): `def Q(st, _items, <what it reads of the function
        around it>)`. The same expressions in the same order, each item once, but no generator
        resumed per item and no helper call for `any`, `sum`, ... (what that bought:
        docs/performance.md, session 8). What it reads of the frame's locals, `L[i]`, it is
        handed by value (nothing in an expression writes them), so that a comprehension around
        it can still read its own item, `L[slot]`, as a Python name. With `counts`, it is
        handed the items' source and counts them itself, as `counted` does (`_counting`);
        without, the counted items (a range's, `counted_range`). Returns (name, the arguments
        after `st` and the items), or None when the locals are handed whole to a closure inside."""
        slots: dict[str, int] = {}

        def by_value(n):
            if type(n) is ast.Subscript and type(n.value) is ast.Name and n.value.id == "L" \
                    and type(n.slice) is ast.Constant and type(n.ctx) is ast.Load:
                slots[f"_L{n.slice.value}"] = n.slice.value
                return load(f"_L{n.slice.value}")
            return None
        had_filter = filt is not None
        body = _rewrite_expr(body, by_value)
        filt = _rewrite_expr(filt, by_value) if had_filter else None
        if body is None or had_filter and filt is None:
            return None
        free = _free_names([body] + ([filt] if filt is not None else []), x)
        name = f"Q{self._loop_count}"
        self._loop_count += 1
        params = ("st", "_items", *free)
        fn = ast.FunctionDef(name, ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                                                 kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                             (_counting(self) if counts else []) + _aggregate_loop(self, agg, x, body, filt), [], None)
        self._loops[name] = fn  # (field_reads.py runs on it in `build`, if some function calls it)
        return name, [subscript(load("L"), ast.Constant(slots[f])) if f in slots else load(f) for f in free]

    def comprehension(self, agg: str, src: ast.expr, body: ast.expr, filt: ast.expr | None, slot: int,
                      fallback) -> ast.expr:
        """`any(body for x in src if filt)` (and all, sum, first, a list) as a Python generator
        expression, the comprehension's name a Python name instead of local `slot`. When the body or
        filter hands the locals to a closure (which would look for the name in its slot), the
        comprehension is called as it was compiled: `fallback(st, L)`."""
        x = self.tmp()
        body = _slot_renamed(body, slot, x)
        if filt is not None:
            filt = _slot_renamed(filt, slot, x)
            if filt is None:
                return call(self.ref(fallback), load("st"), load("L"))
        if body is None:
            return call(self.ref(fallback), load("st"), load("L"))
        if fast_paths.COMP_BY_NAME:  # (a walrus in a generator expression binds in the enclosing function: a cell, PEP 572)
            both = _aliases_dropped(ast.Tuple([body] + ([filt] if filt is not None else []), ast.Load()), x)
            body, filt = both.elts[0], (both.elts[1] if filt is not None else None)
        if type(src) is ast.Call and len(src.args) == 3 and self.is_ref(src.func, int_range):  # over `lo..hi`
            counting = call(self.ref(counted_range), *src.args)
        else:
            counting = call(self.ref(counted), load("st"), src)
        ranged = type(src) is ast.Call and len(src.args) == 3 and self.is_ref(src.func, int_range)
        made = self.loop_function(agg, x, body, filt, counts=not ranged) if fast_paths.COMP_LOOPS else None
        if made is not None:  # the items counted inside, but a range's (counted_range: no tuple built)
            name, args = made
            return call(load(name), load("st"), counting if ranged else src, *args)
        items = self.tmp()  # bound outside: Python allows no := in a comprehension's iterable
        bind = ast.NamedExpr(store(items), counting)
        gen = ast.GeneratorExp(body, [ast.comprehension(store(x), load(items), [filt] if filt is not None else [], 0)])
        if agg == "first":
            value = call(self.ref(next), gen, ast.Constant(None))
        else:
            value = call(self.ref(_AGGREGATE[agg if agg in _AGGREGATE else "list"]), gen)
        return subscript(ast.Tuple([bind, value], ast.Load()), ast.Constant(1))

    def first_in_loop(self, kind: int, pos: int, op: str, field: str) -> str:
        """`first(x for x in items if x.field OP v)` as a generated function `Q(st, _items, _v)`:
        expressions.py's `first_in` written out, with the kind, the field's place and the
        comparison in the code. The same steps (the items, counted first and checked later), the
        same fault, the same answer. One function per (kind, field, op)."""
        key = (kind, pos, op, field)
        name = self._first_loops.get(key)
        if name is not None:
            note_read(name)
            return name
        name = self._first_loops[key] = f"Q{self._loop_count}"
        self._loop_count += 1
        x = self.tmp()
        steps = ast.Attribute(load("st"), "steps", ast.Store())
        body = [
            ast.AugAssign(steps, ast.Add(), call(self.ref(len), load("_items"))),
            ast.Assign([store("KD")], ast.Attribute(load("st"), "kind", ast.Load())),
            ast.Assign([store("E")], ast.Attribute(load("st"), "ent", ast.Load())),
            ast.For(store(x), load("_items"), [
                ast.If(ast.Compare(subscript(load("KD"), load(x)), [ast.NotEq()], [ast.Constant(kind)]),
                       [ast.Expr(call(self.ref(no_field), load(x), ast.Constant(field)))], []),
                ast.If(ast.Compare(subscript(subscript(load("E"), load(x)), ast.Constant(pos)), [CMP[op]()],
                                   [load("_v")]),
                       [ast.Return(load(x))], []),
            ], [], None),
            ast.Return(ast.Constant(None)),
        ]
        params = ("st", "_items", "_v")
        self._loops[name] = ast.FunctionDef(name, ast.arguments(
            posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[], kw_defaults=[],
            kwarg=None, defaults=[]), body, [], None)
        note_read(name)
        return name

    def _harmless(self, func: ast.expr) -> bool:
        """Whether a call of `func` in generated code leaves the state and the frame's locals as
        they were (field_reads.py relies on it): a fn's function (an expression's body moves
        nothing), a module-level function of the modules holding the language's builtins and
        checks (none writes the state), a Python builtin that only reads, a table's `get`. Not a
        closure (it may hold the frame's locals), not a procedure's function."""
        if type(func) is ast.Attribute:
            return _table_get(func, self.namespace)
        if type(func) is not ast.Name:
            return False
        if func.id.startswith("F"):  # (a procedure's function is named P...: `function_ref`)
            return _is_global(func.id)
        if func.id.startswith("Q"):  # a comprehension's function: an expression's loop
            return func.id in self._loops or func.id in self._loops_used
        obj = self.namespace.get(func.id) if func.id.startswith("C") else None
        if obj is None:
            return False
        if any(obj is b for b in _READING_BUILTINS):
            return True
        module = sys.modules.get(getattr(obj, "__module__", None) or "")
        return (module is not None and module.__name__ in _HARMLESS_MODULES
                and getattr(module, getattr(obj, "__name__", ""), None) is obj and callable(obj))

    def tmp(self) -> str:
        self._tmp += 1
        return f"_t{self._tmp}"

    def expr(self, fn) -> ast.expr:
        entry = self._exprs.get(id(fn))
        if entry is not None:
            return entry[1](self)
        return call(self.ref(fn), load("st"), load("L"))

    def mark(self, span) -> ast.stmt:
        """`_k = i`: from here on, a failure is located at `span`."""
        return ast.Assign([store("_k")], ast.Constant(self._span_index(span)))

    def stmts(self, fn, span, in_loop: bool) -> list[ast.stmt]:
        """One statement: a marker saying where a failure is, then its code."""
        mark = self.mark(span)
        entry = self._stmts.get(id(fn))
        if entry is not None:
            return [mark] + entry[1](self, in_loop)
        opaque = call(self.ref(fn), load("st"), load("L"))
        if not in_loop:
            return [mark, ast.Expr(opaque)]
        # an opaque pure statement may signal break or continue to the loop around it
        sig = self.tmp()
        return [mark, ast.Assign([store(sig)], opaque),
                ast.If(load(sig), [ast.If(ast.Compare(load(sig), [ast.Eq()], [ast.Constant(BREAK)]),
                                           [ast.Break()], [ast.Continue()])], [])]

    def block(self, parts, in_loop: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for fn, span in parts:
            out += self.stmts(fn, span, in_loop)
        return out or [ast.Pass()]

    def _span_index(self, span) -> int:
        self._spans.append(span)
        return len(self._spans) - 1

    # ------------------------------------------------------------------ functions
    def function(self, name: str, params: tuple[str, ...], body: list[ast.stmt], tail: list[ast.stmt] = (),
                 locate: bool = True) -> str:
        """Queue `def name(params): <bind state fields>; try: body except: locate; raise; tail`.
        Returns the name; `build()` makes them all at once."""
        spans = tuple(self._spans)
        self._spans = []
        if locate and spans:
            handler = ast.ExceptHandler(self.ref(Exception), None, [
                ast.If(ast.Compare(ast.Attribute(load("st"), "fault_span", ast.Load()), [ast.Is()], [ast.Constant(None)]),
                       [ast.Assign([ast.Attribute(load("st"), "fault_span", ast.Store())],
                                   ast.Subscript(self.ref(spans), load("_k"), ast.Load()))], []),
                ast.Raise()])
            body = [ast.Assign([store("_k")], ast.Constant(0)), ast.Try(body, [handler], [], [])]
        body = body + list(tail)
        fn = ast.FunctionDef(name, ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                                                 kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body, [], None)
        repeated = any(n > 1 for n in self._checked.values())
        self._checked.clear()
        if fast_paths.FIELDS_ONCE and repeated:
            read_fields_once(fn, self.tmp, self._harmless)
        used = seen_names()
        self._loops_used.update(n for n in used if n in self._loops)
        prologue = [ast.Assign([store(k)], ast.Attribute(load("st"), attr, ast.Load()))
                    for k, attr in _STATE_FIELDS.items() if k in used]
        if "L" in used and "fr" in params and "L" not in params:
            prologue.append(ast.Assign([store("L")], ast.Attribute(load("fr"), "L", ast.Load())))
        fn.body = prologue + fn.body
        self._defs.append(fn)
        return name

    def build(self, filename: str) -> dict:
        """Compile every queued function in one module; returns the namespace holding them.

        Python refuses some code it could run (more than 20 blocks nested in one function, an
        expression nested too deep for its compiler): then each function is compiled alone, and
        one that Python refuses is left out. An op left out stays a closure (`lower_ops` patches
        only what was built); a fn's or proc's function is replaced by its closure
        (`_fallbacks`), so whatever calls it still works."""
        loops = [d for name, d in self._loops.items() if name in self._loops_used]
        self._loops = {name: d for name, d in self._loops.items() if name not in self._loops_used}
        if fast_paths.FIELDS_ONCE:
            for d in loops:
                read_fields_once(d, self.tmp, self._harmless)
        self._defs = loops + self._defs
        if not self._defs:
            return self.namespace
        module = ast.Module(self._defs, [])
        if self.keep_code:
            self.modules.append(module)
        try:
            code = compile(module, filename, "exec")  # our own ast, never rule text
        except _REFUSED:
            code = None
        if code is not None:
            exec(code, self.namespace)
            self.functions += len(self._defs)
        else:
            refused_loops: set[str] = set()
            for d in self._defs:  # the comprehensions' functions first: whoever calls one refused is refused
                try:
                    if refused_loops and any(type(n) is ast.Name and n.id in refused_loops for n in ast.walk(d)):
                        raise SyntaxError("calls a comprehension's function Python refused")
                    one = compile(ast.Module([d], []), filename, "exec")
                except _REFUSED:
                    if d.name.startswith("Q"):
                        refused_loops.add(d.name)
                    self.refused.append(d.name)
                    if d.name in self._fallbacks:
                        self.namespace[d.name] = self._fallbacks[d.name]
                    continue
                exec(one, self.namespace)
                self.functions += 1
        self._defs = []
        return self.namespace


_READING_BUILTINS = (len, any, all, tuple, type, min, max, sorted, sum, abs)
_HARMLESS_MODULES = frozenset(("vbr.interpreter.builtins", "vbr.interpreter.expressions", "vbr.interpreter.scope",
                               "vbr.interpreter.lowering"))
_REFUSED = (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError)  # what compile() may raise


def _fallback(kind: str, closure) -> Callable:
    """What stands in for a fn's or pure proc's generated function, with the same signature,
    when Python refuses to compile that function: its closure."""
    if kind == "memo":  # F(a0, a1, ...): the body reads nothing but its parameters
        body = closure[0]
        return lambda *args: body(None, list(args))
    if kind == "fnp":  # F(st, a0, a1, ...): the body needs no local but its parameters
        return lambda st, *args: closure(st, list(args))
    return closure  # F(st, L) and P(st, L): the closure's own signature


def _table_get(f: ast.expr, ns: dict) -> bool:
    """Whether `f` is the `get` of a dict the program holds (a compiler's table, a remembered fn's
    answers: `C7.get`), or of what such a `get` answered (`C7.get(a0, NO).get`: a remembered fn
    of several arguments keeps a dict per argument, `_memo_call`). Either only reads."""
    if not (type(f) is ast.Attribute and f.attr == "get"):
        return False
    on = f.value
    if type(on) is ast.Call:
        return _table_get(on.func, ns)
    return type(on) is ast.Name and on.id.startswith("C") and type(ns.get(on.id)) is dict


def _is_plain(e: ast.expr) -> bool:
    """A value that cannot fail, change anything or cost to read twice: a constant, a reference,
    a var or a local."""
    if isinstance(e, (ast.Constant, ast.Name)):
        return True
    return (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in ("L", "V")
            and isinstance(e.slice, ast.Constant))


def _param_index(node, n: int) -> int | None:
    """i when `node` is `L[i]` with i < n (a read of parameter i)."""
    if (type(node) is ast.Subscript and type(node.value) is ast.Name and node.value.id == "L"
            and type(node.slice) is ast.Constant and type(node.slice.value) is int and node.slice.value < n):
        return node.slice.value
    return None


def _copy_plain(e: ast.expr) -> ast.expr:
    """A fresh copy of a plain expression (ast nodes are not shared between places)."""
    if type(e) is ast.Constant:
        return ast.Constant(e.value)
    if type(e) is ast.Name:
        return load(e.id)
    return ast.Subscript(_copy_plain(e.value), _copy_plain(e.slice), ast.Load())


def _rewrite(nodes: list, swap, skip=None) -> bool:
    """Replace, in place, every node below `nodes` for which `swap(node)` gives a new node (its
    children are not visited). False as soon as a bare `L` is met: the frame's locals handed
    whole to a closure, which the rewrite cannot follow (the nodes are then half rewritten, to
    be dropped). Nodes for which `skip(node)` holds are kept as they are, unvisited."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if type(node) is ast.Name and node.id == "L":
            return False
        for field in node._fields:
            value = getattr(node, field, None)
            for k, item in (enumerate(value) if isinstance(value, list) else ((None, value),)):
                if not isinstance(item, ast.AST):
                    continue
                new = swap(item)
                if new is None:
                    if skip is None or not skip(item):
                        stack.append(item)
                elif k is None:
                    setattr(node, field, new)
                else:
                    value[k] = new
    return True


def _rewrite_expr(e: ast.expr, swap, skip=None) -> ast.expr | None:
    holder = ast.Expr(e)
    return holder.value if _rewrite([holder], swap, skip) else None


def _locals_renamed(stmts: list[ast.stmt], names: list[str]) -> bool:
    """Rewrite `L[i]` (read or written) as the Python local `names[i]`, in place; False when
    `L` is used any other way (handed to a closure), and then nothing may be used."""
    def swap(node):
        i = _param_index(node, len(names))
        return None if i is None else ast.Name(names[i], type(node.ctx)())
    return _rewrite(stmts, swap)


def _with_params(body: ast.expr, params: list[ast.expr]) -> ast.expr | None:
    """`body` with its parameters (`L[0]`..`L[n-1]`) replaced by the plain expressions `params`,
    or None when it also reads other locals (then it needs a frame of its own)."""
    def swap(node):
        i = _param_index(node, len(params))
        return None if i is None else _copy_plain(params[i])
    return _rewrite_expr(body, swap)


def lower_ops(low: Lowering, codes: list, filename: str, budget: int = 64) -> None:
    """Rebuild every op that carries a recipe (a fused run of actions, a branch test, a jump, a
    choice) as one generated function, and put it in the op's place.

    Each function goes on through the ops that follow without returning to the VM: a branch
    becomes a Python `if` over the code of both ways, a jump is followed, a choice that is
    skipped goes on after it, and so does a choice that random seats answer in place while
    `State.play_random` plays (`_Chain.answered`). With STRUCTURED, the ways of a branch or a
    choice stop where they meet again, which is written once after the `if`, and a loop is a
    Python `while` (`_Flow`). It stops (sets `fr.pc`, returns to the VM) at an op without a
    recipe (a call, a `goto`), at a place the path has been before (other than a loop's head,
    inside its `while`), at an op already written into COPIES other functions (JOIN_COPIES for
    a place several ops lead to), and after `budget` ops: the generated code grows with the
    rules, never with their square. The start of each code is written first, so the function
    random play runs most gets the copies. The ops it runs through stay in the list for the VM
    to enter directly."""
    patches = []
    for code in codes:
        joins = _joins(code.ops)
        flow = _Flow(code.ops) if fast_paths.STRUCTURED else None
        todo = sorted(_entries(code.ops))  # the start first: the function random play runs most gets the copies
        done = set()
        copies = collections.Counter()
        while todo:
            i = heapq.heappop(todo)
            if i in done or not 0 <= i < len(code.ops) or getattr(code.ops[i], "recipe", None) is None:
                continue
            done.add(i)
            name = f"{code.ops[i].recipe[0]}{len(patches)}"
            chain = _Chain(low, code, joins, budget, copies, flow)
            low.function(name, ("st", "fr"), chain.run_from(i, frozenset()))
            for j in chain.handed_over:
                heapq.heappush(todo, j)
            patches.append((code, i, name))
    low.drain()
    namespace = low.build(filename)
    for code, i, name in patches:
        if name in namespace:  # else Python refused it (`build`): the op stays a closure
            code.ops[i] = namespace[name]
    low.finish()


def _entries(ops: list) -> set[int]:
    """Where the VM may enter a code: its start, where a suspended choice or a call resumes,
    and wherever an op without a recipe may send it (loop heads say so in `exits`)."""
    entries = {0}
    for pc, op in enumerate(ops):
        recipe = getattr(op, "recipe", None)
        if recipe is None:
            entries.update(label if isinstance(label, int) else label.pc for label in getattr(op, "exits", ()))
            entries.add(pc + 1)
        elif recipe[0] == "choose":
            entries.add(recipe[1].after.pc)
        elif recipe[0] == "tail":
            entries.add(pc + 1)  # after a call returns
    return entries


def _successors(op, pc: int) -> list[int]:
    recipe = getattr(op, "recipe", None)
    if recipe is None:
        return []
    if recipe[0] == "fused":
        return [recipe[3]]
    if recipe[0] == "branch":
        return [recipe[2], recipe[3].pc]
    if recipe[0] == "loop":
        return [recipe[4], recipe[5].pc]
    if recipe[0] == "jump":
        return [recipe[1].pc]
    if recipe[0] == "tail":
        return []
    c = recipe[1]  # a choice goes on after it when skipped, or in its `else`
    return [c.after.pc] + ([c.else_label.pc] if c.else_label is not None else [])


def _joins(ops: list) -> set[int]:
    """Places more than one op with a recipe leads to."""
    seen, joins = set(), set()
    for pc, op in enumerate(ops):
        for nxt in _successors(op, pc):
            (joins if nxt in seen else seen).add(nxt)
    return joins


class _Flow:
    """Where the ways out of an op meet again, and which ops head a loop: what `_Chain` needs
    to write a branch as Python `if`/`else` followed by the code both ways reach (STRUCTURED),
    and a loop as a Python `while`, instead of returning to the VM at each.

    The ops of a code come from structured statements, so every cycle enters through its head
    (a `branch` or `loop` op that a later op jumps back to) and leaves through the head's end
    label, a `break` (a jump there) or a transfer of control (which returns from the function
    anyway). Where the ways of a branch meet is its nearest post-dominator: the first op every
    way from it passes. Ops without a recipe and transfers count as leaving the code (the
    generated code returns there), so a branch with a way that transfers control has no
    meeting place: each of its ways is written out to its end, as before."""

    def __init__(self, ops: list):
        n = len(ops)
        succ = [[s if 0 <= s < n else -1 for s in _successors(op, pc)] or [-1] for pc, op in enumerate(ops)]
        self.meet = _nearest_post_dominators(succ)
        self.loops: dict[int, tuple[int, frozenset]] = {}  # head -> (end, its body and the ways from it to its end)
        preds = collections.defaultdict(list)
        for pc, nxt in enumerate(succ):
            for s in nxt:
                preds[s].append(pc)
        for pc, nxt in enumerate(succ):
            for head in nxt:
                if 0 <= head <= pc:
                    self._add_loop(ops, succ, preds, head, pc)

    def _add_loop(self, ops, succ, preds, head: int, tail: int) -> None:
        recipe = getattr(ops[head], "recipe", None)
        if recipe is None or recipe[0] not in ("branch", "loop"):
            return
        end = (recipe[3] if recipe[0] == "branch" else recipe[5]).pc
        body, todo = {head}, [tail]
        while todo:
            pc = todo.pop()
            if pc not in body:
                body.add(pc)
                todo += preds[pc]
        if end in body or (head in self.loops and self.loops[head][0] != end):
            return
        todo = [s for pc in body for s in succ[pc]]  # and the ways out of it that lead to its end (`break`)
        while todo:
            pc = todo.pop()
            if pc not in body and pc not in (head, end, -1):
                body.add(pc)
                todo += succ[pc]
        old = self.loops.get(head, (end, frozenset()))[1]
        self.loops[head] = (end, old | body)


def _if(test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt]) -> ast.If:
    """`if test: body else: orelse`, a way that falls out at once written `pass`."""
    return ast.If(test, body or [ast.Pass()], orelse)


def _nearest_post_dominators(succ: list[list[int]]) -> dict[int, int]:
    """pc -> the nearest op that every way from pc to the end of the code passes, for the ops
    that have one (-1 in `succ`: the end). Cooper, Harvey and Kennedy's iterative algorithm ("A
    Simple, Fast Dominance Algorithm") on the reversed graph: nearly linear in the ops, as a rule
    file of thousands of statements needs (sets of post-dominators would be quadratic)."""
    n = len(succ)
    end = n  # the end of the code, as a node
    preds: list[list[int]] = [[] for _ in range(n + 1)]  # the reversed graph's successors
    for pc, nxt in enumerate(succ):
        for s in nxt:
            preds[end if s == -1 else s].append(pc)
    order, number = [], [-1] * (n + 1)  # postorder of the reversed graph from the end
    seen = [False] * (n + 1)
    seen[end] = True
    stack = [(end, iter(preds[end]))]
    while stack:
        node, it = stack[-1]
        for p in it:
            if not seen[p]:
                seen[p] = True
                stack.append((p, iter(preds[p])))
                break
        else:
            stack.pop()
            number[node] = len(order)
            order.append(node)
    ipdom = [-1] * (n + 1)
    ipdom[end] = end
    changed = True
    while changed:
        changed = False
        for node in reversed(order[:-1]):  # reverse postorder, the end (last in postorder) left out
            new = -1
            for s in succ[node]:
                s = end if s == -1 else s
                if ipdom[s] == -1:
                    continue
                if new == -1:
                    new = s
                    continue
                a, b = s, new
                while a != b:
                    while number[a] < number[b]:
                        a = ipdom[a]
                    while number[b] < number[a]:
                        b = ipdom[b]
                new = a
            if new != ipdom[node]:
                ipdom[node], changed = new, True
    return {pc: ipdom[pc] for pc in range(n) if ipdom[pc] not in (-1, end)}


class _Chain:
    """The code of one generated op: the op's own work, then its successors' (see lower_ops).

    `stop` is where the code being written falls out of the Python `if` it is in (where the
    ways of a branch meet: written once, after the `if`); inside a Python `while`, reaching its
    head is `continue` and reaching its end is `break` (STRUCTURED, `_Flow`)."""

    def __init__(self, low: Lowering, code, joins: set[int], budget: int, copies, flow: _Flow | None = None):
        self.low, self.code, self.joins, self.left = low, code, joins, budget
        self.copies = copies  # how often each op's code was written so far, in this code object
        self.handed_over: list[int] = []  # where the VM goes on from this code: entries too
        self.flow = flow
        self.loops: list[tuple] = []  # the Python `while`s the code being written is in: (head, end, body)

    def run_from(self, pc: int, path: frozenset, stop: int | None = None) -> list[ast.stmt]:
        op = self.code.ops[pc] if 0 <= pc < len(self.code.ops) else None
        if pc == stop:
            return []
        if self.loops:
            head, end, body = self.loops[-1]
            if pc == head:
                return [ast.Continue()]
            if pc == end:
                return [ast.Break()]
            if pc not in body:
                return self.hand_over(pc, op)  # out of the loop other than at its end: not from structured code
        recipe = getattr(op, "recipe", None)
        if recipe is None or pc in path or self.left <= 0 or \
                (path and self.copies[pc] >= (fast_paths.JOIN_COPIES if pc in self.joins else fast_paths.COPIES)):
            return self.hand_over(pc, op)
        self.left -= 1
        self.copies[pc] += 1
        path = path | {pc}
        low = self.low
        if self.flow is not None and pc in self.flow.loops:
            return self.loop(pc, recipe, path, stop)
        if recipe[0] == "fused":
            _, fns, spans, nxt = recipe
            return low.block(zip(fns, spans), False) + self.run_from(nxt, path, stop)
        if recipe[0] == "jump":
            return self.run_from(recipe[1].pc, path, stop)
        if recipe[0] == "tail":  # a transfer of control (goto, call, end, return): it ends the chain
            return [low.mark(self.code.spans[pc])] + recipe[1](low)
        meet, inner = self.meeting(pc, stop)
        if recipe[0] == "branch":  # go on when the test holds, else past the branch
            _, test, nxt, skip = recipe
            return [low.mark(self.code.spans[pc]),
                    _if(low.expr(test), self.run_from(nxt, path, inner), self.run_from(skip.pc, path, inner))] \
                + self.after(meet, path, stop)
        if recipe[0] == "loop":  # a bounded loop's head (not written as a `while`): test, count the round, go in
            _, test, slot, limit, nxt, end, too_many = recipe
            go = self.round(slot, limit, too_many) + self.run_from(nxt, path, inner)
            if test is None:
                return [low.mark(self.code.spans[pc])] + go + self.after(meet, path, stop)
            return [low.mark(self.code.spans[pc]), _if(low.expr(test), go, self.run_from(end.pc, path, inner))] \
                + self.after(meet, path, stop)
        return self.choose(pc, recipe[1], path, inner) + self.after(meet, path, stop)

    def meeting(self, pc: int, stop: int | None) -> tuple[int | None, int | None]:
        """(where the ways out of op pc meet, to be written after them, or None; where the code
        of each way stops): the meeting place when it lies in the loop being written."""
        meet = self.flow.meet.get(pc) if self.flow is not None else None
        if meet is None or meet == stop:
            return None, stop
        if self.loops:
            _, end, body = self.loops[-1]
            if meet not in body and meet != end:
                return None, stop
        return meet, meet

    def after(self, meet: int | None, path: frozenset, stop: int | None) -> list[ast.stmt]:
        return [] if meet is None else self.run_from(meet, path, stop)

    def round(self, slot: int, limit: int, too_many) -> list[ast.stmt]:
        """A bounded loop's round counted, and too many rounds an error."""
        counter = subscript(load("L"), ast.Constant(slot))
        return [set_item(load("L"), ast.Constant(slot), ast.BinOp(counter, ast.Add(), ast.Constant(1))),
                ast.If(ast.Compare(subscript(load("L"), ast.Constant(slot)), [ast.Gt()], [ast.Constant(limit)]),
                       [ast.Expr(call(self.low.ref(too_many), ast.Constant(limit)))], [])] + spend_inline(self.low)

    def loop(self, pc: int, recipe: tuple, path: frozenset, stop: int | None) -> list[ast.stmt]:
        """A loop head and its body as `while True:`; its end after the loop."""
        end, body = self.flow.loops[pc]
        low = self.low
        self.loops.append((pc, end, body))
        path = frozenset({pc})  # every way round passes the head: the body may be written again here
        if recipe[0] == "branch" and hasattr(recipe[1], "for_slots"):
            inside = self.next_item(recipe[1].for_slots, self.run_from(recipe[2], path))
        elif recipe[0] == "branch":
            _, test, nxt, _skip = recipe
            inside = [ast.If(low.expr(test), self.run_from(nxt, path), [ast.Break()])]
        else:
            _, test, slot, limit, nxt, _end, too_many = recipe
            inside = self.round(slot, limit, too_many) + self.run_from(nxt, path)
            if test is not None:
                inside = [ast.If(low.expr(test), inside, [ast.Break()])]
        self.loops.pop()
        return [ast.While(ast.Constant(True), [low.mark(self.code.spans[pc])] + inside, [])] + \
            self.run_from(end, path, stop)

    def next_item(self, slots: tuple[int, int, int], go: list[ast.stmt]) -> list[ast.stmt]:
        """A `for` loop's head (`advance` in statements.py, written out): the next item into
        the loop's name and `go`, or out of the loop when there is none."""
        counter, hidden, var = slots
        i, xs = self.low.tmp(), self.low.tmp()
        return [ast.Assign([store(i)], local(counter)), ast.Assign([store(xs)], local(hidden)),
                ast.If(ast.Compare(load(i), [ast.Lt()], [call(self.low.ref(len), load(xs))]),
                       [set_item(load("L"), ast.Constant(var), subscript(load(xs), load(i))),
                        set_item(load("L"), ast.Constant(counter), ast.BinOp(load(i), ast.Add(), ast.Constant(1)))]
                       + go, [ast.Break()])]

    def choose(self, pc: int, c, path: frozenset, stop: int | None = None) -> list[ast.stmt]:
        """The options in one loop; none: skip to after the choice (optional), take the `else`,
        or fail; else suspend for the seat's answer (as `settle` in statements.py does)."""
        low = self.low
        options, restore, count = _choose_options(low, c.src, c.src_type, c.where, c.slot, c.narrow)
        body = [low.mark(self.code.spans[pc])] + options
        if c.optional or c.else_label is not None:
            way_out = c.else_label if c.else_label is not None else c.after  # nothing to choose: the `else`, if any
            none = [set_item(load("L"), ast.Constant(c.slot), ast.Constant(None))] + self.run_from(way_out.pc, path, stop)
        else:
            none = restore() + [ast.Expr(call(low.ref(c.nothing)))]
        rest = []  # when there are options (`none` may fall out of its `if` at `stop`)
        body.append(ast.If(ast.UnaryOp(ast.Not(), load("_opts")), none, rest))
        many = ast.Compare(call(low.ref(len), load("_opts")), [ast.Gt()], [ast.Constant(MAX_OPTIONS)])
        n_opts = call(low.ref(len), load("_opts"))
        if type(count) is int:  # as many items as a list the rules spell out: at most that many options
            many = None if count <= MAX_OPTIONS else many
        elif count is not None:  # `_n` items: no more options; without `where`, exactly as many
            over = ast.Compare(load(count), [ast.Gt()], [ast.Constant(MAX_OPTIONS)])
            many = over if c.where is None else ast.BoolOp(ast.And(), [over, many])
            n_opts = load(count) if c.where is None else n_opts
        if many is not None:
            rest.append(ast.If(many, restore() + [ast.Expr(call(low.ref(c.too_many), n_opts))], []))
        if c.optional:
            rest.append(ast.Expr(call(ast.Attribute(load("_opts"), "append", ast.Load()), ast.Constant(None))))
        by = low.expr(c.by)
        if restore() and _reads_slot(by, c.slot):
            rest += restore()  # `by` may read the slot: the slot as the closures leave it, first
            restore = list
        rest.append(ast.Assign([store("_s")], by))
        seat = low.fixed_value(c.by)
        if not (fast_paths.CHOICE_LEAN and type(seat) is int and seat in c.seats):  # a seat the rules name: no check
            rest.append(ast.If(ast.Compare(load("_s"), [ast.NotIn()], [low.ref(c.seats)]),
                               restore() + [ast.Expr(call(low.ref(c.no_seat), load("_s")))], []))
        suspend = restore()  # suspending: the frame as the closures leave it (the last item in the slot)
        # Pending(seat, options, prompt, slot, next_pc, span) with its __init__ written out
        fields = [("seat", load("_s")), ("options", call(low.ref(tuple), load("_opts"))),
                  ("prompt", ast.Constant(c.prompt)), ("slot", ast.Constant(c.slot)),
                  ("next_pc", ast.Constant(c.after.pc)), ("span", low.ref(c.span))]
        suspend.append(ast.Assign([store("_p")], call(low.ref(object.__new__), low.ref(Pending))))
        suspend += [ast.Assign([ast.Attribute(load("_p"), name, ast.Store())], value) for name, value in fields]
        suspend += [ast.Assign([ast.Attribute(load("st"), "pending", ast.Store())], load("_p")),
                    _set_pc(ast.Constant(pc)),  # the frame at its choice, as the closures leave it (a step-limit error names it)
                    ast.Return(ast.Constant(True))]
        rest.append(self.answered(c, path, stop, suspend))
        return body

    def answered(self, c, path: frozenset, stop: int | None, suspend: list[ast.stmt]) -> ast.stmt:
        """While random seats play (`st.auto`, State.play_random), the seat's answer is asked
        for here (`state.take`, which also counts the step the VM would count for the choice)
        and the code goes on after the choice, without suspending. Near the step or choice
        limit `take` answers NO_PICK and the choice suspends as usual (`suspend`), and the VM
        stops the game where it always did."""
        answer = self.low.tmp()
        take = call(self.low.ref(take_answer), load("_a"), load("st"), load("_s"), load("_opts"), ast.Constant(True))
        room = ast.BoolOp(ast.And(), [
            ast.Compare(ast.NamedExpr(store("_a"), ast.Attribute(load("st"), "auto", ast.Load())),
                        [ast.IsNot()], [ast.Constant(None)]),
            ast.Compare(ast.NamedExpr(store(answer), take), [ast.IsNot()], [self.low.ref(NO_PICK)])])
        go = [set_item(load("L"), ast.Constant(c.slot), load(answer))]
        return ast.If(room, go + self.run_from(c.after.pc, path, stop), suspend)

    def hand_over(self, pc: int, op) -> list[ast.stmt]:
        """Stop here: the VM runs op `pc` next. An op without a recipe is called at once (it
        sets the pc itself and says whether control changed)."""
        stmts = [_set_pc(ast.Constant(pc))]
        self.handed_over.append(pc)
        if op is not None and getattr(op, "recipe", None) is None:
            return stmts + [self.low.mark(self.code.spans[pc]),
                            ast.Return(call(self.low.ref(op), load("st"), load("fr")))]
        return stmts + [ast.Return(ast.Constant(None))]


def _is_global(name: str) -> bool:
    """A name of the generated module (a compiler object `C3`, a fn's or procedure's function
    `F2`/`P0`, a comprehension's `Q1`), not a local of a generated function."""
    return name[:1] in "CFPQ" and name[1:].isdigit()


def _free_names(parts: list[ast.expr], item: str) -> list[str]:
    """The names `parts` read that are bound outside them: the state's arrays (V, E, ...: handed
    over, cheaper than read from `st` at every call), temps, parameters; not the item, not a name
    bound inside (by `:=` or a comprehension), not a name of the module (`_is_global`)."""
    nodes = [n for e in parts for n in ast.walk(e)]
    bound = {n.target.id for n in nodes if type(n) is ast.NamedExpr}
    bound |= {t.id for n in nodes if isinstance(n, ast.comprehension) for t in ast.walk(n.target) if type(t) is ast.Name}
    reads = {n.id for n in nodes if type(n) is ast.Name and type(n.ctx) is ast.Load}
    return sorted(r for r in reads - bound - {item, "st"} if not _is_global(r))


def _counting(low: Lowering) -> list[ast.stmt]:
    """`expressions.counted` written out at the start of a comprehension's function: a zone's
    items are its own list (an expression moves nothing, so no copy), none is a fault, and each
    item is a step, checked against the limit."""
    items, steps = load("_items"), ast.Attribute(load("st"), "steps", ast.Load())
    zones = ast.Attribute(load("st"), "zones", ast.Load())
    return [
        ast.If(ast.Compare(call(low.ref(type), items), [ast.Is()], [low.ref(ZoneRef)]),
               [ast.Assign([store("_items")], subscript(zones, load("_items")))],
               [ast.If(ast.Compare(load("_items"), [ast.Is()], [ast.Constant(None)]),
                       [ast.Expr(call(low.ref(no_items)))], [])]),
        ast.Assign([ast.Attribute(load("st"), "steps", ast.Store())],
                   ast.BinOp(steps, ast.Add(), call(low.ref(len), load("_items")))),
        ast.If(ast.Compare(steps, [ast.Gt()], [_attrs(load("st"), ["prog", "step_limit"])]),
               [ast.Raise(call(low.ref(OverBudget), ast.Constant("step limit")), None)], [])]


def _aggregate_loop(low: Lowering, agg: str, x: str, body: ast.expr, filt: ast.expr | None) -> list[ast.stmt]:
    """`for x in _items: ...` answering `agg` as Python's would: `any` returns at the first true
    body, `all` at the first false one, `first` the body of the first item that passes; `sum`
    adds in order from 0 and checks the total (`_checked_sum`); a list is a tuple of the bodies."""
    ret = ast.Return
    head: list[ast.stmt] = []
    if agg in ("any", "all"):
        test = body if agg == "any" else ast.UnaryOp(ast.Not(), body)
        test = ast.BoolOp(ast.And(), [filt, test]) if filt is not None else test
        loop = [ast.If(test, [ret(ast.Constant(agg == "any"))], [])]
        after = [ret(ast.Constant(agg != "any"))]
    elif agg == "first":
        loop = [ast.If(filt, [ret(body)], [])] if filt is not None else [ret(body)]
        after = [ret(ast.Constant(None))]
    else:
        if agg == "sum":
            head = [ast.Assign([store("_r")], ast.Constant(0))]
            add = ast.Assign([store("_r")], ast.BinOp(load("_r"), ast.Add(), body))
            after = [ret(call(low.ref(checked), load("_r")))]
        else:  # a list
            head = [ast.Assign([store("_r")], ast.List([], ast.Load()))]
            add = ast.Expr(call(ast.Attribute(load("_r"), "append", ast.Load()), body))
            after = [ret(call(low.ref(tuple), load("_r")))]
        loop = [ast.If(filt, [add], [])] if filt is not None else [add]
    return head + [ast.For(store(x), load("_items"), loop, [], None)] + after


def _checked_sum(items) -> int:
    """The language's `sum`: Python's, its total kept in the range of the language's integers
    (`checked` is imported once, at the top: this runs at every `sum`)."""
    return checked(sum(items))


_AGGREGATE = {"any": any, "all": all, "sum": _checked_sum, "list": tuple}


def _slot_renamed(node: ast.expr, slot: int, name: str) -> ast.expr | None:
    """`node` with every `L[slot]` read as the Python name `name`; None when `L` is also used
    other than as `L[constant]` (handed whole to a closure)."""
    def swap(n):
        return load(name) if _is_local(n) and n.slice.value == slot else None
    return _rewrite_expr(node, swap, skip=_is_local)  # other locals of the enclosing code stay


def _aliases_dropped(node: ast.expr, name: str) -> ast.expr:
    """`node` with each `(_t := name)` read as `name` itself, and `_t` after it as `name`: the
    item of a loop, which nothing in an expression rebinds (each `_t` bound there once)."""
    stores = collections.Counter(n.id for n in ast.walk(node) if type(n) is ast.Name and type(n.ctx) is ast.Store)
    aliases = {n.target.id for n in ast.walk(node) if type(n) is ast.NamedExpr and type(n.value) is ast.Name
               and n.value.id == name and stores[n.target.id] == 1}
    if not aliases:
        return node

    def swap(n):
        if type(n) is ast.NamedExpr and n.target.id in aliases:
            return load(name)
        if type(n) is ast.Name and n.id in aliases:
            return load(name)
        return None
    return _rewrite_expr(node, swap, skip=_is_local)  # (`node` has `L` in `L[i]` only: _slot_renamed)


def _is_local(n) -> bool:
    """`L[constant]`."""
    return type(n) is ast.Subscript and type(n.value) is ast.Name and n.value.id == "L" and type(n.slice) is ast.Constant


def _reads_slot(node: ast.expr, slot: int) -> bool:
    """Whether `node` may read local `slot`: it reads `L[slot]`, or uses `L` other than as
    `L[constant]` (hands the locals whole to a closure)."""
    names = sum(1 for n in ast.walk(node) if type(n) is ast.Name and n.id == "L")
    others = sum(1 for n in ast.walk(node) if type(n) is ast.Subscript and type(n.value) is ast.Name
                 and n.value.id == "L" and type(n.slice) is ast.Constant and n.slice.value != slot)
    return names != others


def _attrs(obj: ast.expr, names) -> ast.expr:
    for name in names:
        obj = ast.Attribute(obj, name, ast.Load())
    return obj


def _set_pc(value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Attribute(load("fr"), "pc", ast.Store())], value)


def _choose_options(low: Lowering, src, src_type: str, where, slot: int,
                    narrow=None) -> tuple[list[ast.stmt], Callable, object]:
    """`_opts = [x for x in src if where(x)]` as a loop, its items counted as steps, as
    `choice_items` counts them. Returns (that code, restore, count): count is how many items
    there are, an int when fixed, else (CHOICE_LEAN) the name of a Python local holding it, or
    None.

    The closures put each x in its local slot for `where` to read there. The loop here reads
    x as a Python name instead (WHERE_BY_NAME), unless `where` hands the locals whole to a
    closure. Then `restore()` makes the code that leaves the slot as the closures leave it (the
    last item, if any), which the choice runs before anything can see the slot: before a failure
    it reports, before `by` when `by` may read it, and before suspending. Every other way on
    overwrites the slot first (none for no option, the answer for an answered choice). A
    failure inside `where` leaves the item it failed at in the slot, as the closures do.

    With `narrow` (narrowing.py), the loop goes through the things of the kind in the zones
    `where` requires, worked out first as the closure works them out; `restore` still leaves
    the last of all the items in the slot, as the closure does."""
    fixed = low.fixed_value(src)
    head = []
    count = None
    if isinstance(fixed, tuple):  # a list the rules spell out: iterated as it is
        items = low.ref(fixed)
        head = [ast.AugAssign(ast.Attribute(load("st"), "steps", ast.Store()), ast.Add(), ast.Constant(len(fixed)))]
        count = len(fixed) if fast_paths.CHOICE_LEAN else None
    else:
        if src_type == "zone":  # a zone's list, read in place: a condition cannot move cards
            items = low.tmp()  # `_t = Z[z]; st.steps += len(_t)`: counted, and checked at the next check
            head = [ast.Assign([store(items)], subscript(load("Z"), low.expr(src)))]
        else:  # `_t = _iterate(st, src); st.steps += len(_t)`: choice_items, written out
            items = low.tmp()
            head = [ast.Assign([store(items)], call(low.ref(_iterate), load("st"), low.expr(src)))]
        n = call(low.ref(len), load(items))
        if fast_paths.CHOICE_LEAN:  # `st.steps += (_n := len(_t))`
            count = low.tmp()
            n = ast.NamedExpr(store(count), n)
        head.append(ast.AugAssign(ast.Attribute(load("st"), "steps", ast.Store()), ast.Add(), n))
        items = load(items)
    if where is None:
        if fast_paths.CHOICE_LEAN and src_type == "zone" and not isinstance(fixed, tuple):  # `_t[:]`: a zone's list copied
            copy = ast.Subscript(items, ast.Slice(None, None, None), ast.Load())  # without a call
        else:
            copy = call(low.ref(list), items)
        return head + [ast.Assign([store("_opts")], copy)], list, count
    x = low.tmp()
    take = ast.Expr(call(ast.Attribute(load("_opts"), "append", ast.Load()), load(x)))
    renamed = _slot_renamed(low.expr(where), slot, x) if fast_paths.WHERE_BY_NAME else None
    if renamed is None:  # (a failed rename leaves its nodes half done: the test is built afresh)
        body = [set_item(load("L"), ast.Constant(slot), load(x)), ast.If(low.expr(where), [take], [])]
    else:
        test = _aliases_dropped(renamed, x)
        lazy = []
        if fast_paths.HOIST_INVARIANTS:
            test, lazy = _hoisted(low, test)
        body = [ast.If(test, [take], [])]
        if lazy:  # `_t1 = _t2 = UNSET` before the loop: each computed at most once per loop
            head = head + [ast.Assign([store(t) for t in lazy], low.ref(_UNSET))]

    def restore() -> list[ast.stmt]:
        """The slot as the closures leave it (the last item, if any), in fresh nodes each time;
        nothing when the loop itself puts each item there."""
        if renamed is None or fixed == ():
            return []
        if isinstance(fixed, tuple):
            return [set_item(load("L"), ast.Constant(slot), low.ref(fixed[-1]))]
        last = subscript(_copy_plain(items), ast.Constant(-1))
        return [ast.If(_copy_plain(items), [set_item(load("L"), ast.Constant(slot), last)], [])]
    if narrow is not None and renamed is not None:
        found = low.tmp()
        head = head + _narrowed_items(low, narrow, items, found)
        loop = ast.For(store(x), load(found), body, [])
    else:
        loop = ast.For(store(x), items, body, [])
    if renamed is not None:  # a fault in `where` leaves its item in the slot, as the closures leave it
        keep = ast.ExceptHandler(low.ref(Exception), None, [set_item(load("L"), ast.Constant(slot), load(x)), ast.Raise()])
        loop = ast.Try([loop], [keep], [], [])
    return head + [ast.Assign([store("_opts")], ast.List([], ast.Load())), loop], restore, count


def _narrowed_items(low: Lowering, narrow, items: ast.expr, found: str) -> list[ast.stmt]:
    """`try: _z = <the zones> except Exception: _z = None`, then `found = narrowed(st, _z,
    kind, items)`: narrowing.py's `plan_zones` and `narrowed`, written out."""
    plan, kind = narrow
    zs = low.tmp()
    zones = ast.Try([ast.Assign([store(zs)], zones_template(plan, low))],
                    [ast.ExceptHandler(low.ref(Exception), None, [ast.Assign([store(zs)], ast.Constant(None))])],
                    [], [])
    pick = call(low.ref(narrowed), load("st"), load(zs), ast.Constant(kind), _copy_plain(items))
    return [zones, ast.Assign([store(found)], pick)]


# ---------------------------------------------------------------------- values the same for every item
_STATE_ARRAYS = frozenset(("V", "E", "KD", "Z", "W"))
_OPS = (ast.Subscript, ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.IfExp)  # what a part's worth counts


def _pure_helpers() -> tuple:
    """Functions a hoisted value may call: each gives the same answer for the same arguments,
    reads no state, spends no step and changes nothing; some raise a fault (the same one, at
    its first evaluation, as before)."""
    return (type, len, remainder, divide, out_of_range, no_field, item_at, int_overflow,
            other_side, manhattan, is_cell)


def _hoisted(low: Lowering, test: ast.expr) -> tuple[ast.expr, list[str]]:
    """`test`, a choice's `where` read once per item, with each largest part that is the same
    for every item computed once, lazily: `(_t if _t is not UNSET else (_t := part))`, `_t`
    set to UNSET before the loop (the names returned). The first evaluation happens where it
    happened before, so faults, and the order of everything, stay as they were; later ones
    would have given the same value.

    A part is the same for every item when it reads neither the item (a Python name) nor a temp
    bound outside it, and nothing in it can change or spend: constants, the compiler's objects,
    the state's arrays (V, E, KD, Z, W: a condition cannot move cards or set vars; it cannot
    call a procedure, and a roll or pick touches only the dice), locals `L[i]` (no closure
    taking the locals whole is in the test: `_slot_renamed`), operators, subscripts, and calls
    of `_pure_helpers`, of a remembered fn (`_memo_ok`: its body reads its arguments only, so
    it spends nothing) or of a dict's `get` (the compiler's tables and the remembered answers).
    Not `st`: no attribute of the state, nothing that spends or rolls. A temp a part binds must
    be bound nowhere else: the lazy form binds it at the first evaluation only, and as the part
    takes the same way each time, a read of it after the part (in this or a later item) finds
    the value it would have been given again. A part must be worth a name: it calls something,
    or does at least four operations (`V[3] > 0` costs about what the lazy test costs)."""
    if _reads_slot(test, -1):  # the locals handed whole to a closure (`_slot_renamed` lets none through)
        return test, []
    ns = low.namespace
    helpers = _pure_helpers()
    stores = collections.Counter(n.target.id for n in ast.walk(test) if type(n) is ast.NamedExpr)
    memo_fns = set(low._memos)

    def callable_ok(f) -> bool:
        if type(f) is ast.Name:
            if f.id in memo_fns:
                return True
            obj = ns.get(f.id) if f.id.startswith("C") else None
            return obj is not None and any(obj is h for h in helpers)
        return _table_get(f, ns)

    info: dict[int, tuple | None] = {}  # id(node) -> (binds, reads of temps, calls) or None: not pure

    def pure(node):
        """(temps bound, temps read, whether it calls) for a pure node, or None."""
        key = id(node)
        if key in info:
            return info[key]
        result = None
        t = type(node)
        if t is ast.Constant:
            result = (frozenset(), frozenset(), False)
        elif t is ast.Name:
            if node.id in _STATE_ARRAYS or node.id.startswith("C") and node.id in ns:
                result = (frozenset(), frozenset(), False)
            elif node.id.startswith("_t"):
                result = (frozenset(), frozenset((node.id,)), False)
        elif t is ast.Subscript and type(node.value) is ast.Name and node.value.id == "L":
            if type(node.slice) is ast.Constant:
                result = (frozenset(), frozenset(), False)
        elif t is ast.Call:
            if callable_ok(node.func) and not node.keywords:
                parts = [pure(a) for a in node.args]
                if type(node.func) is ast.Attribute and type(node.func.value) is not ast.Name:
                    parts.append(pure(node.func.value))  # `C7.get(a0, NO).get(a1, MISS)`: the first lookup too
                if all(p is not None for p in parts) and not any(type(a) is ast.Starred for a in node.args):
                    result = _joined(parts, True)
        elif t in _OPS or t is ast.Tuple or t is ast.NamedExpr:
            if t is ast.Subscript and type(node.slice) is ast.Slice:
                parts = None
            else:
                parts = [pure(c) for c in ast.iter_child_nodes(node)
                         if not isinstance(c, (ast.expr_context, ast.cmpop, ast.boolop, ast.operator, ast.unaryop))]
            if parts is not None and all(p is not None for p in parts):
                result = _joined(parts, False)
                if t is ast.NamedExpr:
                    result = (result[0] | {node.target.id}, result[1] - {node.target.id}, result[2])
        info[key] = result
        return result

    def hoistable(node) -> bool:
        p = pure(node)
        if p is None or _is_plain(node):
            return False
        binds, reads, calls = p
        if not reads <= binds:  # the item, or a temp bound outside
            return False
        if binds:
            own_stores = collections.Counter(n.target.id for n in ast.walk(node) if type(n) is ast.NamedExpr)
            if any(stores[b] != own_stores[b] or own_stores[b] != 1 for b in binds):
                return False
        return calls or sum(1 for n in ast.walk(node) if type(n) in _OPS) >= 4

    names: list[str] = []

    def swap(node):
        if not isinstance(node, ast.expr) or not hoistable(node):
            return None
        t = low.tmp()
        names.append(t)
        unset = low.ref(_UNSET)
        return ast.IfExp(ast.Compare(load(t), [ast.IsNot()], [unset]), load(t),
                         ast.NamedExpr(store(t), node))

    def skip(node):  # a comprehension inside binds names of its own: left as it is; `L[i]` too
        return type(node) in (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda) or _is_local(node)

    return _rewrite_expr(test, swap, skip), names


def _joined(parts, calls: bool) -> tuple:
    binds = frozenset().union(*(p[0] for p in parts)) if parts else frozenset()
    reads = frozenset().union(*(p[1] for p in parts)) if parts else frozenset()
    return binds, reads, calls or any(p[2] for p in parts)
