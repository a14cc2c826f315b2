"""The checked model → the typed program (`vbr.ir.nodes.Program`).

`build_program(model)` gives the program or raises `Unsupported` (located) for a construct the
typed program does not express yet. Statements become blocks: loops and `if`s become branches
and jumps, a `choose` and a procedure call end a block (play may stop there), a `goto` drops
every frame. The state's bounds (things, options, frames) come from the program: a thing count
from its `create`s where they are fixed, else the `things` limit.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager

from vbr.collector import uncollected
from vbr.checker import Model, constant_int, measure_slots, type_of
from vbr.grammar import ast as A, printer
from vbr.court import court_of
from vbr.errors import Diagnostic, VbrCheckError
from vbr.ir import nodes as N
from vbr.checking.scope import Scope
from vbr.ir.build_expr import ExprBuilder, FnLocals, Unsupported, ir_type, item_type, stored
from vbr.ir.frames import frame_bound
from vbr.ir.list_writes import ListWrites
from vbr.ir.reach_tables import reach_table
from vbr.ir.layout import FRAME_HEAD, ITEMS_PER_STEP, make_layout
from vbr.ir.simplify import simplify
from vbr.ir.state_bound import bound_state, widest_kind
from vbr.ir.values import INT_MAX, NONE, ROW, Names, cell

MAX_THINGS = 4096  # most things a game may hold when its `create`s do not fix the number
MAX_OPTIONS = 4096  # most options a choice may offer
MAX_CREATE_TIMES = 10_000  # most things one `create ... times n` makes (docs/language.md, Run-time limits)
MAX_SETUP_THINGS = MAX_CREATE_TIMES  # most things the record holds when `setup` fixes their number: one full create
MAX_ZONE_WORDS = 4 * 1024 * 1024  # most words a state's zones take: zone slots times (1 + things) (docs/language.md)
MAX_RECORD_WORDS = 4 * 1024 * 1024  # most words the things' fields take: things times the widest kind's record
COPY_WORDS = 4096  # words for copied lists beyond four per thing (Layout.copies)
MAX_LIST_FIELD = 16  # most items a thing's list field holds when no `create` fixes it
MAX_LIST_VAR = 256  # most items a var holding a list holds (docs/language.md, Limits)
STEP_FAULT, DEPTH_FAULT, CHOICE_FAULT, CELL_FAULT, COPY_FAULT, ITEMS_FAULT = 0, 1, 2, 3, 4, 5  # every program's first messages


@uncollected()
def build_program(m: Model) -> N.Program:
    return ProgramBuilder(m).build()


def may_repeat(seq: N.Seq, optional: bool) -> bool:
    """Whether a choice's options from `seq` may offer a value twice: two equal items, or, with
    `optional`, a none item beside the pass it adds. A zone's or a kind's things, a range's
    numbers and a literal or a table row of distinct constants other than none never do."""
    if isinstance(seq, (N.ZoneItems, N.KindItems, N.RangeItems)):
        return False
    if isinstance(seq, N.ChooseSeq):
        return may_repeat(seq.then, optional) or may_repeat(seq.orelse, optional)
    if isinstance(seq, N.BindSeq):
        return may_repeat(seq.body, optional)
    if isinstance(seq, N.Items) and all(isinstance(x, N.Const) for x in seq.items):
        return _repeats([x.value for x in seq.items], optional)
    if isinstance(seq, N.TableItems):
        return any(_repeats(row, optional) for row in seq.rows)
    return True


def _repeats(values: list[int], optional: bool) -> bool:
    """Whether `values` hold a value twice, or, with `optional`, a none."""
    return len(set(values)) < len(values) or optional and NONE in values


def refusal(m: Model) -> Diagnostic | None:
    """What of model `m` the typed program cannot express, as the located error `vbr check` and
    the language server report (every engine plays the typed program), or None. The program is
    built and dropped: no engine is made."""
    try:
        build_program(m)
    except Unsupported as exc:
        return Diagnostic(exc.span, exc.text())
    except VbrCheckError as exc:  # a bound of the typed state the file goes past (_bound_zones, _bound_records, bound_state)
        return exc.diagnostics[0]
    return None


class ProgramBuilder:
    hold_start = False  # the start of play returns instead of going to the start phase (a scenario's)

    def __init__(self, m: Model):
        self.m = m
        self.texts: list[str] = []
        self._text_ids: dict[str, int] = {}
        self.messages: list[tuple[str, object]] = []
        self.streams: list[str] = []
        self._stream_uses: dict[tuple[str, str], int] = {}
        self.choices: list[N.ChoiceSite] = []
        self.die_index = {name: i for i, name in enumerate(m.dice)}
        self.die_types: list[str] = []
        self.dice: list[tuple[int, ...]] = []
        self.court = court_of(m.court)
        self.things = _thing_bound(m)
        _bound_zones(m, self.things)
        self.field_at, self.list_cap, self.width = _field_layout(m)
        _bound_records(m, self.things, self.width, self.list_cap)
        self.list_vars, self.list_words = _list_var_layout(m)
        self.list_writes = ListWrites(m)
        self.max_range = MAX_OPTIONS
        self.reach_tables: list[dict] = []
        self.reach_bounds: list[int] = []  # each table's longest row
        self.lits: dict[str, list[tuple]] = {}  # an item type -> the lists of it fixed before play (LIT values)
        self._lit_index: dict[tuple, int] = {}
        # no list fixed before play is longer than the file's longest list literal (or range of literals)
        self.longest_literal = max((_literal_length(n) for d in m.rules.decls for n in A.walk(d)), default=0)
        self._reach_keys: dict[tuple, int] = {}
        self.fns: list[N.FnBody] = []
        self._fn_keys: dict[tuple, int | None] = {}
        self._fn_sizes: dict[str, int] = {}
        self.fn_draws: dict[str, bool] = {}  # whether working out a fn may draw at random (ExprBuilder._draws)
        self.written_out = 0  # nodes of fns and list-giving procs written out at their calls (ExprBuilder.count_written_out)
        self.unit_index: dict[tuple[str, str], int] = {}
        self.units: list[N.Unit] = []
        limits = m.limits  # these are messages 0..5 of every program (STEP_FAULT ... ITEMS_FAULT)
        self.step_fault = self.fault(f"the game ran more than {limits['steps']} steps (`limit steps`)", None)
        self.depth_fault = self.fault(f"calls nest deeper than {limits['depth']}; a procedure calling itself without end?", None)
        self.choice_fault = self.fault(f"the game asked more than {limits['choices']} choices (`limit choices`)", None)
        self.cell_fault = self.fault("a position off the court by more than 32768", None)
        self.copy_fault = self.fault("the lists that loops, `let`s and arguments hold at once fill the state", None)
        self.items_fault = self.fault(f"the game's aggregates and comprehensions went through more than "
                                      f"{ITEMS_PER_STEP * limits['steps']} items ({ITEMS_PER_STEP} for each of "
                                      "`limit steps`)", None)

    # ------------------------------------------------------------------ tables
    def text(self, s: str) -> int:
        if s not in self._text_ids:
            self._text_ids[s] = len(self.texts)
            self.texts.append(s)
        return self._text_ids[s]

    def fault(self, message: str, span) -> int:
        self.messages.append((message, span))
        return len(self.messages) - 1

    def overflow_fault(self, span) -> int:
        """Three messages for an arithmetic node: its result out of range, a division by zero,
        arithmetic on none."""
        first = self.fault("a result out of the range of integers (-%d..%d)" % (INT_MAX, INT_MAX), span)
        self.fault("division by zero", span)
        self.fault("arithmetic on none", span)
        return first

    def stream(self, unit: str, what: str) -> int:
        """A random stream per place a draw happens: the unit, what is drawn, and which such
        draw of the unit it is, so that a variant's other draws leave this one's numbers alone."""
        n = self._stream_uses.get((unit, what), 0)
        self._stream_uses[(unit, what)] = n + 1
        self.streams.append(f"{unit}/{what}/{n}")
        return len(self.streams) - 1

    def court_cells(self, side: int) -> list[int]:
        """A side's fields' cells in number order, encoded."""
        return [cell(*c) for c in self.court.cells(side)]

    def lit_row(self, item: str, values: tuple) -> int:
        """The index of the list `values` (of type `item`) among the lists fixed before play."""
        key = (item, values)
        if key not in self._lit_index:
            rows = self.lits.setdefault(item, [])
            self._lit_index[key] = len(rows)
            rows.append(list(values))
        return self._lit_index[key]

    def reach_table(self, dirs: tuple[int, ...], net_cost: int) -> int:
        """The index of the table of `reach` with these directions and net cost
        (vbr.ir.reach_tables) in `reach_tables`; its rows' longest in `reach_bounds`."""
        key = (dirs, net_cost)
        if key not in self._reach_keys:
            vecs = [self.m.directions[list(self.m.directions)[d]] for d in dirs]
            table, bound = reach_table(self.court, vecs, net_cost)
            self._reach_keys[key] = len(self.reach_tables)
            self.reach_tables.append(table)
            self.reach_bounds.append(bound)
        return self._reach_keys[key]

    def fn_size(self, name: str) -> int:
        """Expression nodes of fn `name` with every fn it calls written out."""
        if name not in self._fn_sizes:
            self._fn_sizes[name] = 0
            size = 0
            for n in A.walk(self.m.fns[name].body):
                size += 1 + (self.fn_size(n.func) if isinstance(n, A.Call) and n.func in self.m.fns else 0)
            self._fn_sizes[name] = size
        return self._fn_sizes[name]

    def fn_body(self, name: str, types: tuple, span) -> int:
        """The index in `fns` of fn `name`'s body for arguments of these types, built once."""
        key = (name, types)
        if key in self._fn_keys:
            if self._fn_keys[key] is None:
                raise Unsupported(f"`{name}` calls itself", span)
            return self._fn_keys[key]
        self._fn_keys[key] = None
        d, own = self.m.fns[name], FnLocals(name)
        scope = Scope()
        for p, ty in zip(d.params, types):
            scope.names[p.name] = (ty, own.local(ty))
        body = ExprBuilder(self, own).expr(d.body, scope)
        self.fns.append(N.FnBody(name, len(d.params), body, own.nlocals))
        self._fn_keys[key] = len(self.fns) - 1
        return self._fn_keys[key]

    def option_const(self, name: str, span) -> N.Const:
        v = self.m.options[name]
        if isinstance(v, bool):
            return N.Const("bool", int(v))
        if isinstance(v, int):
            return N.Const("int", v)
        if isinstance(v, str) and v in self.m.member_enum:  # `option mode = solo in {...}`: the member
            enum = self.m.member_enum[v]
            return N.Const("enum:" + enum, self.m.enums[enum].index(v))
        if isinstance(v, str) and v in self.m.directions:
            return N.Const("dir", list(self.m.directions).index(v))
        if isinstance(v, str):
            return N.Const("str", self.text(v))
        raise Unsupported(f"option `{name}`'s value {v!r}", span)

    def forced_queue(self, key: tuple) -> int:
        """The queue a scenario forces this draw's values into (`Roll.forced`), -1 for none: a
        rule file's own program has none (vbr.ir.scenario_program gives a scenario's)."""
        return -1

    def undecided(self, key: tuple, span) -> int:
        """The fault a draw raises when its value was not decided outside (`Roll.undecided`), -1
        for none: only a program whose draws are decided outside has them (vbr.ir.chance_program)."""
        return -1

    # ------------------------------------------------------------------ the program
    def build(self) -> N.Program:
        self.build_units()
        return self.finish()

    def build_units(self) -> None:
        """Every unit of the rule file: its phases, procedures, handlers and the start of play."""
        m = self.m
        self._dice()
        for name, d in m.phases.items():
            self._declare(name, "phase", d.span)
        for name, d in m.procs.items():
            self._declare(name, "proc", d.span)
        self.handler_units: dict[str, list[int]] = {}
        for ev, hs in m.handlers.items():
            self.handler_units[ev] = [self._declare(f"on {ev} #{i}", "handler", h.span) for i, h in enumerate(hs)]
        init = self._declare("start of play", "setup", m.setup.span if m.setup else None)
        self.shaped: dict[tuple, int] = {}  # (proc, its untyped parameters' types) -> the unit built for them
        self.shaped_handlers: dict[tuple, int] = {}  # (event, handler's index, untyped parameters' types) -> its unit
        self.untyped_refusals: dict[str, Unsupported] = {}
        self.handler_refusals: dict[tuple[str, int], Unsupported] = {}
        for name, d in m.procs.items():
            self._build_proc(name, d)
        for name, d in m.phases.items():
            UnitBuilder(self, self.units[self.unit_index[(name, "phase")]]).phase(d)
        for ev, hs in m.handlers.items():
            for i, h in enumerate(hs):
                self._build_handler(ev, i, h)
        UnitBuilder(self, self.units[init]).start(hold=self.hold_start)
        self.init = init
        self.returns_units = [self._returns_unit(seat) for seat in range(m.seats)] if m.returns is not None else []
        self._refuse_reached_stubs()

    def _refuse_reached_stubs(self) -> None:
        """Raise the refusal of a procedure or handler that reads an untyped parameter as a list
        (`_build_proc`) if play can run its unit built for no list: a call or emit built before
        the refusal was known (a procedure declared later, a handler, one calling itself back)
        reaches it from a phase, the start of play or a `returns`."""
        stubs = {self.unit_index[(name, "proc")]: exc for name, exc in self.untyped_refusals.items()}
        stubs.update({self.handler_units[ev][i]: exc for (ev, i), exc in self.handler_refusals.items()})
        if not stubs:
            return
        seen = {i for i, u in enumerate(self.units) if u.kind not in ("proc", "handler")}
        todo = list(seen)
        while todo:
            unit = todo.pop()
            if unit in stubs:
                raise stubs[unit]
            for b in self.units[unit].blocks:
                called = [b.term.unit] if isinstance(b.term, N.Call) else b.term.handlers if isinstance(b.term, N.Emit) else []
                todo += [c for c in called if c not in seen]
                seen.update(called)

    def _returns_unit(self, seat: int) -> int:
        """`returns(S) = EXPR` for one seat: a unit that gives EXPR with S that seat, run where
        play ended (the engines' `call`) for the RL adapters."""
        d = self.m.returns
        unit = self._declare(f"returns for seat {seat}", "returns", d.span)
        ub = UnitBuilder(self, self.units[unit])
        scope = Scope()
        with ub.statement():
            slot = ub.local("seat")
            ub.emit(N.SetLocal(d.span, slot, N.Const("seat", seat)))
            scope.names[d.param.name] = ("seat", slot)
            value = ub.x.expr(d.value, scope)
        ub.end(N.Return(d.value.span, value))
        ub._close()
        return unit

    def finish(self) -> N.Program:
        """The program of the units built: simplified, laid out, with its tables."""
        m, init = self.m, self.init
        for unit in self.units:
            simplify(unit)
        options = min(MAX_OPTIONS, max((c.bound for c in self.choices), default=0)) + 1
        fn_words = m.nvals + self.list_words
        for fn in self.fns:
            fn.base, fn_words = fn_words, fn_words + fn.nlocals
        forced_at = []
        for capacity in self.forced_capacities():
            forced_at.append(fn_words)
            fn_words += 2 + capacity
        layout = make_layout(len(self.streams), fn_words, self.things, self.width,
                             len(m.zone_names), options, FRAME_HEAD + max(u.nlocals for u in self.units),
                             m.limits["depth"], *self._stack_room(), values=m.nvals + self.list_words)
        bound_state(m, layout, self.units, self.list_vars, self.list_cap)
        rows = {name: (layout.vars + at, cap, item_type(m.vars[name].type)) for name, (at, cap) in self.list_vars.items()}
        names = Names({k: list(v) for k, v in m.enums.items()}, list(m.directions), list(m.zone_names),
                      self._cell_text(), self.texts, rows, self.lits)
        points, points_by_team = None, False
        if m.points is not None and m.points.var in m.vars:
            v = m.vars[m.points.var]
            points, points_by_team = (v.base, v.count), v.per == "team"
        p = N.Program(m.title, m.seats, [list(t) for t in m.teams], layout, self.units, init, self.dice,
                      list(m.dice), self.die_types, self.texts, self.messages, self.choices, self.streams, names,
                      points, dict(m.limits))
        p.points_by_team = points_by_team
        p.kinds = [(k.decl.name, list(k.fields), [t for _, t in k.fields.values()]) for k in m.kinds.values()]
        p.var_types = _var_types(m)
        p.measures = measure_slots(m)
        p.field_at = dict(self.field_at)
        p.court_tables = self._court_tables()
        p.directions = [m.directions[d] for d in m.directions]
        p.zone_side, p.hidden = visibility(m)
        p.reach_tables = self.reach_tables
        p.fns = self.fns
        p.list_vars = dict(self.list_vars)
        p.returns_units = list(self.returns_units)
        p.forced_at = [layout.vars + at for at in forced_at]
        p.held = self.hold_start
        p.list_caps = {(k, self.field_at[(k, name)]): cap for (k, name), cap in self.list_cap.items()}
        p.source_hash = hashlib.sha256(repr(sorted(m.options.items())).encode() +
                                       b"".join(s.encode() for s in m.rules.sources.values())).hexdigest()
        return p

    def forced_capacities(self) -> list[int]:
        """How many values each forced queue holds (a rule file's own program has none)."""
        return []

    def _stack_room(self) -> tuple[int, int]:
        """(copies, frames) of the layout: room for the lists frames copy, and for the frames
        (vbr.ir.frames); both in `frames` when the program's own bound is the smaller."""
        copies = COPY_WORDS + 4 * self.things
        frames = frame_bound(self.units, self.m.limits["depth"])
        if frames < 0:
            return copies, -1
        both = frame_bound(self.units, self.m.limits["depth"], copies=True)
        return (0, both) if both <= frames + copies else (copies, frames)

    def _build_proc(self, name: str, d: A.Proc) -> None:
        """A procedure's unit, for callers that give its untyped parameters no list. One that
        reads such a parameter as a list has no such unit: its refusal waits for a call that
        needs the unit (proc_unit), and every call that gives its parameters values of known
        types has one built for those types."""
        unit = self.unit_index[(name, "proc")]
        try:
            UnitBuilder(self, self.units[unit]).proc(d)
        except Unsupported as exc:
            if not exc.untyped_list:
                raise
            self.untyped_refusals[name] = exc
            self.units[unit] = N.Unit(name, "proc", d.span)  # never called: every call is shaped
            UnitBuilder(self, self.units[unit]).end(N.Return(d.body.span, None))

    def _build_handler(self, event: str, i: int, h: A.Handler) -> None:
        """The `i`-th handler of `event`'s unit, for emits that give its untyped parameters no
        list; one that reads such a parameter as a list waits, as `_build_proc`'s procedure does."""
        unit = self.handler_units[event][i]
        try:
            UnitBuilder(self, self.units[unit]).handler(h)
        except Unsupported as exc:
            if not exc.untyped_list:
                raise
            self.handler_refusals[(event, i)] = exc
            self.units[unit] = N.Unit(f"on {event} #{i}", "handler", h.span)  # never called: every emit is shaped
            UnitBuilder(self, self.units[unit]).end(N.Return(h.body.span, None))

    def proc_unit(self, name: str, shape: tuple) -> int:
        """The unit of procedure `name` for a call whose untyped parameters hold values of the
        types in `shape` (one per untyped parameter, in order; None where the call leaves it
        untyped): the procedure's own unit when the shape is all None, else one built for the
        shape, once (a procedure written with `xs` read as a list, called with a list of
        numbers, is built as if declared `xs: list of int`)."""
        if all(t is None for t in shape):
            if name in self.untyped_refusals:
                raise self.untyped_refusals[name]
            return self.unit_index[(name, "proc")]
        key = (name, shape)
        if key not in self.shaped:
            d = self.m.procs[name]
            self.shaped[key] = len(self.units)
            self.units.append(N.Unit(name, "proc", d.span))
            types = dict(zip((p.name for p in d.params if p.type is None), shape))
            UnitBuilder(self, self.units[self.shaped[key]]).proc(d, types)
        return self.shaped[key]

    def handler_unit(self, event: str, i: int, shape: tuple) -> int:
        """The unit of the `i`-th handler of `event` for an `emit` whose arguments to the event's
        untyped parameters are of the types in `shape` (one per parameter, in order; None for a
        declared parameter or one the emit gives no known type): the handler's own unit when the
        shape is all None, else one built for the shape, once, as `proc_unit` builds a procedure's."""
        if all(t is None for t in shape):
            if (event, i) in self.handler_refusals:
                raise self.handler_refusals[(event, i)]
            return self.handler_units[event][i]
        key = (event, i, shape)
        if key not in self.shaped_handlers:
            h = self.m.handlers[event][i]
            self.shaped_handlers[key] = len(self.units)
            self.units.append(N.Unit(f"on {event} #{i}", "handler", h.span))
            UnitBuilder(self, self.units[self.shaped_handlers[key]]).handler(h, shape)
        return self.shaped_handlers[key]

    def _declare(self, name: str, kind: str, span) -> int:
        self.unit_index[(name, kind)] = len(self.units)
        self.units.append(N.Unit(name, kind, span))
        return len(self.units) - 1

    def phase_unit(self, name: str) -> int:
        return self.unit_index[(name, "phase")]

    def _dice(self) -> None:
        for name, d in self.m.dice.items():
            ub = UnitBuilder(self, N.Unit(f"die {name}", "setup", d.span))
            seq = ExprBuilder(self, ub).seq(d.faces, Scope())
            items = seq.items if isinstance(seq, N.Items) else None
            if isinstance(seq, N.RangeItems) and isinstance(seq.lo, N.Const) and isinstance(seq.hi, N.Const):
                items = [N.Const("int", v) for v in range(seq.lo.value, seq.hi.value + 1)]
            if items is None or not all(isinstance(x, N.Const) for x in items):
                raise Unsupported(f"die `{name}`'s faces are not fixed before play", d.span)
            self.dice.append(tuple(x.value for x in items))
            self.die_types.append(seq.item)

    def _cell_text(self):
        court = self.court
        if court is None:
            return None
        from vbr.values import Cell
        return lambda x, y: court.cell_text(Cell(x, y))

    def _court_tables(self) -> dict | None:
        """Each position function's answer on every cell of the grid (x * height + y), its answer
        off the grid, the answers on the declared spaces, and every field's cell by (side, number)."""
        court = self.court
        if court is None:
            return None
        from vbr.values import Cell
        grid = [Cell(x, y) for x in range(court.cols) for y in range(court.height)]
        spaces = list(court._cell_space)
        tables = {"cols": court.cols, "height": court.height, "rows": court.rows, "net": court.net,
                  "spaces": [cell(*c) for c in spaces]}
        for name in ("number", "side", "row", "col", "in_court", "on_net"):
            fn = getattr(court, name)
            tables[name] = ([int(fn(c)) for c in grid], int(fn(Cell(-99, -99))), [int(fn(c)) for c in spaces])
        numbers = sorted(court.fields)
        tables["fields"] = {(s, n): cell(*court.field(s, n)) for s in (0, 1) for n in numbers}
        return tables


def start_phase(m: Model) -> str:
    """The phase play starts in: the file's `start`, else its first phase."""
    return m.start.phase if m.start else next(iter(m.phases))


def _literal_length(n: A.Node) -> int:
    """How many items a list literal, or a range between two number literals, holds (else 0)."""
    if isinstance(n, A.ListLit):
        return len(n.items)
    if isinstance(n, A.RangeExpr) and isinstance(n.lo, A.IntLit) and isinstance(n.hi, A.IntLit):
        return max(n.hi.value - n.lo.value + 1, 0)
    return 0


def _field_layout(m: Model) -> tuple[dict, dict, int]:
    """Each field's word in its thing's record, keyed (kind, name); a list field's capacity (its
    count, then the items), the longest list literal any `create` or assignment gives it (a
    list of any other form: MAX_LIST_FIELD); and the widest record."""
    longest: dict[tuple[int, str], int] = {}

    def given(kinds, name: str, value: A.Expr) -> None:
        size = len(value.items) if isinstance(value, A.ListLit) else MAX_LIST_FIELD
        for k in kinds:
            longest[(k, name)] = max(longest.get((k, name), 0), size)
    handlers = [h for hs in m.handlers.values() for h in hs]
    bodies = [d.body for d in [*m.phases.values(), *m.procs.values(), *handlers]] + ([m.setup.body] if m.setup else [])
    for body in bodies:
        for n in A.walk(body):
            if isinstance(n, A.Create) and n.kind in m.kinds:
                for kw in n.fields:
                    given([m.kinds[n.kind].index], kw.name, kw.value)
            elif isinstance(n, A.Assign) and isinstance(n.target, A.Attr):  # `thing.tags = LIST`: each kind's field of that name
                given([k.index for k in m.kinds.values() if n.target.name in k.fields], n.target.name, n.value)
    at, caps, width = {}, {}, 0
    for kind in m.kinds.values():
        word = 0
        for name, (pos, ty) in sorted(kind.fields.items(), key=lambda kv: kv[1][0]):
            at[(kind.index, name)] = word
            if ty.startswith("list:"):
                caps[(kind.index, name)] = longest.get((kind.index, name), 0)
                word += 1 + caps[(kind.index, name)]
            else:
                word += 1
        width = max(width, word)
    return at, caps, width


def _list_var_layout(m: Model) -> tuple[dict, int]:
    """Where each var holding a list keeps its items, past the other vars' words: (word, capacity)
    by name, the capacity the longest list literal the var is ever given (its initial value, an
    assignment; a slot's own list of a var kept per seat or team) when every value given it is
    one, else MAX_LIST_VAR, and never above MAX_LIST_VAR; and how many words they take."""
    longest = {name: _given_length(v.decl.init, bool(v.per)) for name, v in m.vars.items()
               if v.type.startswith("list:")}
    bodies = [d.body for d in [*m.phases.values(), *m.procs.values()]] + \
        [h.body for hs in m.handlers.values() for h in hs] + ([m.setup.body] if m.setup else [])
    for body in bodies:
        for n in A.walk(body):
            if isinstance(n, A.Assign):
                t = n.target.obj if isinstance(n.target, A.Index) else n.target
                name = t.id if isinstance(t, A.Name) else None
                if name in longest:
                    longest[name] = max(longest[name], _given_length(n.value, False))
    places, words = {}, m.nvals
    for name, size in longest.items():
        cap = min(size, MAX_LIST_VAR)
        places[name] = (words, cap)
        words += m.vars[name].count * (1 + cap)
    return places, words - m.nvals


def _given_length(e, per_slot: bool) -> int:
    """The items a list var's value holds when it is a literal (per slot: the longest of a literal
    of literals; a literal whose items may be lists, which a slot may get one each of, counts as
    not known), else MAX_LIST_VAR."""
    if not isinstance(e, A.ListLit):
        return MAX_LIST_VAR
    if per_slot and e.items and all(isinstance(x, A.ListLit) for x in e.items):
        return max(len(x.items) for x in e.items)
    scalars = (A.IntLit, A.BoolLit, A.StrLit, A.NoneLit)
    return len(e.items) if not per_slot or all(isinstance(x, scalars) for x in e.items) else MAX_LIST_VAR


def visibility(m: Model) -> tuple[list[int], list[list[int]]]:
    """Each zone's side (the team that owns it, -1 for nobody), and per seat the zones it may not
    look into: `hidden` ones, another seat's `owner` ones, another team's `team` ones."""
    team_of = m.team_of
    sides, hidden = [], [[] for _ in range(m.seats)]
    for z in m.zones.values():
        vis, per = z.decl.visibility, z.per
        for i in range(z.count):
            zone = z.base + i
            owner_seats = ([] if per is None else list(m.teams[i]) if per == "team" else [i])
            sides.append(-1 if per is None else i if per == "team" else team_of[i])
            for seat in range(m.seats):
                if vis == "public":
                    continue
                if vis == "hidden" or (vis == "owner" and seat not in owner_seats) or \
                        (vis == "team" and team_of[seat] not in {team_of[s] for s in owner_seats}):
                    hidden[seat].append(zone)
    return sides, [sorted(h) for h in hidden]


def _var_types(m: Model) -> list[str]:
    types = ["any"] * m.nvals
    for v in m.vars.values():
        for i in range(v.count):
            types[v.base + i] = v.type
    return types




def _thing_bound(m: Model) -> int:
    """The most things a game holds: the `create`s that `setup` reaches (through the procedures
    it calls) counted where each runs a fixed number of times, taking the larger branch of an
    `if`, at most MAX_SETUP_THINGS (a `create` past it faults, as one past MAX_THINGS does); MAX_THINGS
    when a phase creates things or a count is not fixed before play."""
    in_play = [d.body for d in m.phases.values()] + [h.body for hs in m.handlers.values() for h in hs]
    if any(isinstance(n, A.Create) for body in _reached(m, in_play) for n in A.walk(body)):
        return MAX_THINGS
    if m.setup is None:
        return 1
    total = _creates(m, m.setup.body.body, 1, ())
    return MAX_THINGS if total is None else min(max(total, 1), MAX_SETUP_THINGS)


def _bound_zones(m: Model, things: int) -> None:
    """Each zone slot holds room for every thing (1 + things words): a located error at the zone
    whose slots take the state's zones past MAX_ZONE_WORDS (thousands of zones per seat of 16 seats
    made a state of gigabytes)."""
    slots = 0
    for z in m.zones.values():
        slots += z.count
        if slots * (1 + things) > MAX_ZONE_WORDS:
            raise VbrCheckError([Diagnostic(z.decl.span, (
                f"zone `{z.decl.name}` brings the zones to {slots:,} slots (one per seat or team of a zone kept per "
                f"seat or team) of {1 + things:,} words each (one for every thing the game may hold, {things:,}, and "
                f"one more): more than the {MAX_ZONE_WORDS:,} words a state's zones may take, the limit on zones"))],
                m.rules.sources)


def _bound_records(m: Model, things: int, width: int, caps: dict) -> None:
    """Every thing has a record as wide as the widest kind's (a list field holds as many items as
    the longest list literal given it): a located error at that kind when the things' records
    would take more than MAX_RECORD_WORDS (a create giving a list of 20,000 numbers made a state of
    650 MB)."""
    if things * width <= MAX_RECORD_WORDS:
        return
    kind = widest_kind(m, caps)
    raise VbrCheckError([Diagnostic(kind.decl.span, (
        f"kind `{kind.decl.name}`'s record is {width:,} words wide (a list field holds as many items as the longest "
        f"list literal a `create` or an assignment gives it), and the game may hold {things:,} things: "
        f"{things * width:,} words, more than the {MAX_RECORD_WORDS:,} words the things' records may take, "
        "the limit on records"))], m.rules.sources)


def _reached(m: Model, bodies: list) -> list:
    """The bodies, and those of every procedure they call, directly or not."""
    seen, todo, out = set(), list(bodies), []
    while todo:
        body = todo.pop()
        out.append(body)
        for n in A.walk(body):
            if isinstance(n, A.Call) and n.func in m.procs and n.func not in seen:
                seen.add(n.func)
                todo.append(m.procs[n.func].body)
    return out


def _creates(m: Model, stmts, times: int, calling: tuple) -> int | None:
    total = 0
    for s in stmts:
        n = _creates_in(m, s, times, calling)
        if n is None:
            return None
        total += n
    return total


def _creates_in(m: Model, s, times: int, calling: tuple) -> int | None:
    if isinstance(s, A.Create):
        k = 1 if s.times is None else _fixed(m, s.times)
        return None if k is None else k * times
    if isinstance(s, A.For):
        k = _fixed_count(m, s.source)
        return None if k is None else _creates(m, s.body.body, times * k, calling)
    if isinstance(s, A.Repeat):
        k = _fixed(m, s.count)
        return None if k is None else _creates(m, s.body.body, times * k, calling)
    if isinstance(s, (A.While, A.Loop)):
        return _creates(m, s.body.body, times * constant_int(m, s.max), calling)
    if isinstance(s, A.If):
        counts = [_creates(m, b.body.body, times, calling) for b in s.branches]
        if s.orelse is not None:
            counts.append(_creates(m, s.orelse.body, times, calling))
        return None if None in counts else max(counts, default=0)
    if isinstance(s, A.Choose):
        return _creates(m, s.orelse.body, times, calling) if s.orelse is not None else 0
    if isinstance(s, A.CallStmt) and isinstance(s.call, A.Call) and s.call.func in m.procs:
        name = s.call.func
        if name in calling:
            return None
        return _creates(m, m.procs[name].body.body, times, calling + (name,))
    if any(isinstance(x, A.Create) for x in A.walk(s)):
        return None
    return 0


def _fixed(m: Model, e) -> int | None:
    """An integer fixed before play: a literal, an option, either of two by a fixed condition (the larger)."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Name) and e.id in m.options and type(m.options[e.id]) is int:
        return m.options[e.id]
    if isinstance(e, A.Name) and e.id in m.consts:
        return _fixed(m, m.consts[e.id].value)
    if isinstance(e, A.Cond):
        a, b = _fixed(m, e.then), _fixed(m, e.orelse)
        return None if a is None or b is None else max(a, b)
    return None


def _fixed_count(m: Model, e) -> int | None:
    """How many items a `for` goes through, when that is fixed before play."""
    if isinstance(e, A.Name) and e.id == "seats":
        return m.seats
    if isinstance(e, A.Name) and e.id == "teams":
        return len(m.teams)
    if isinstance(e, A.Name) and e.id in m.enums:
        return len(m.enums[e.id])
    if isinstance(e, A.Name) and e.id in m.consts:
        return _fixed_count(m, m.consts[e.id].value)
    if isinstance(e, A.RangeExpr):
        lo, hi = _fixed(m, e.lo), _fixed(m, e.hi)
        return None if lo is None or hi is None else max(hi - lo + 1, 0)
    if isinstance(e, A.ListLit):
        return len(e.items)
    if isinstance(e, A.Cond):
        a, b = _fixed_count(m, e.then), _fixed_count(m, e.orelse)
        return None if a is None or b is None else max(a, b)
    if isinstance(e, A.Call) and e.func in m.fns:
        return _fixed_count(m, m.fns[e.func].body)
    return None


class UnitBuilder:
    """Builds one unit's blocks from its body."""

    def __init__(self, pb: ProgramBuilder, unit: N.Unit):
        self.pb, self.m, self.unit = pb, pb.m, unit
        self.name = unit.name
        self.inlining: list[str] = []
        self.written_out = 0  # nodes of fns written out in this unit's own code (ExprBuilder._may_write_out)
        self.x = ExprBuilder(pb, self)
        self.current = self.new_block()
        self.proc_decl = None
        self.list_return = None  # inside a list-giving proc written out at its call: (base, count, after, bounds, unit)
        self.writing_out: list[str] = []  # the list-giving procs being written out, outermost first
        self.taken: list[list[int]] = []  # per expression being built (one inside another): its temporaries
        self.spare: list[int] = []  # temporaries free for the next expression
        self.later: list = []  # the statements after the one being built, in its block (`block`)
        self.passed_rows: dict[int, tuple[str, int]] = {}  # keep_row's copies that may stand for none

    # ------------------------------------------------------------------ temporaries
    @contextmanager
    def statement(self):
        """Around building one statement (with the blocks inside it). The locals its expressions
        take for their own use (`temp`: an aggregate's item, a written-out fn's arguments) are
        written before they are read and dead once the statement has run, so the statements
        after it may take them again: a unit's frame is as large as its largest statement needs,
        not the sum of all. Within a statement each temporary is its own, so the words a
        statement leaves do not hang on the order an engine evaluates its parts in."""
        self.taken.append([])
        try:
            yield
        finally:
            self.spare = sorted(self.spare + self.taken.pop(), reverse=True)

    def temp(self, ty: str) -> int:
        """A local for an expression's own use while its statement runs (see `statement`)."""
        if not self.taken:  # outside any statement (a var's initial value): a local of its own
            return self.local(ty)
        slot = self.spare.pop() if self.spare else self.local(ty)
        self.taken[-1].append(slot)
        return slot

    # ------------------------------------------------------------------ plumbing
    def local(self, ty: str) -> int:
        self.unit.local_types.append(ty)
        self.unit.nlocals += 1
        return self.unit.nlocals - 1

    def new_block(self) -> int:
        self.unit.blocks.append(N.Block())
        return len(self.unit.blocks) - 1

    def emit(self, stmt: N.Stmt) -> None:
        if self.current is not None:
            self.unit.blocks[self.current].stmts.append(stmt)

    def end(self, term: N.Term) -> None:
        """`term` ends the current block; code after it (unreachable) goes to a fresh block."""
        if self.current is not None:
            self.unit.blocks[self.current].term = term
        self.current = None

    def enter(self, b: int) -> None:
        if self.current is not None:
            self.end(N.Jump(None, b))
        self.current = b

    # ------------------------------------------------------------------ units
    def proc(self, d: A.Proc, types: dict | None = None) -> None:
        """The procedure's body; `types`: the IR types its untyped parameters hold, by name
        (ProgramBuilder.proc_unit), where they are known."""
        self.proc_decl = d
        self.writing_out = [d.name] if self._gives_list_decl(d) else []
        scope = self._params(d.params, types or {})
        self.block(d.body, scope, None)
        if self.writing_out and self.current is not None:
            self.end(N.Fail(d.body.span, self.pb.fault(f"procedure `{d.name}` ended without `return`: it gives a list", d.span)))
        self.end(N.Return(d.body.span, None))
        self._close()

    def handler(self, h: A.Handler, shape: tuple = ()) -> None:
        """The handler's body; `shape`: the IR types the emit gives the event's parameters, by
        position (ProgramBuilder.handler_unit), None where unknown or declared. A parameter the
        handler leaves untyped has the event's type, else the one `shape` gives it."""
        declared = self.m.events[h.event].params
        params = [p if p.type is not None or d.type is None else p.model_copy(update={"type": d.type})
                  for p, d in zip(h.params, declared)]
        scope = self._params(params, {p.name: ty for p, ty in zip(params, shape) if ty is not None})
        self.block(h.body, scope, None)
        self.end(N.Return(h.body.span, None))
        self._close()

    def phase(self, d: A.Phase) -> None:
        self.block(d.body, Scope(), None)
        self.end(N.Fail(d.body.span, self.pb.fault(f"phase `{d.name}` ended without `goto` or `end`", d.span)))
        self._close()

    def start(self, hold: bool = False) -> None:
        """The vars an expression sets, in declaration order (a var's range applies to its initial
        value as to any value it is given), then `setup`, then the start phase; with `hold`, a
        return instead of the start phase (a scenario starts play itself)."""
        m = self.m
        for name, v in m.vars.items():
            if v.type.startswith("list:"):
                self._start_list_var(name, v)
                continue
            if v.per and self.x.is_list(v.decl.init, Scope()):
                self._start_per_slot(v)
                continue
            value = self.x.expr(v.decl.init, Scope())
            for i in range(v.count):
                self.emit(self._set_global(v.decl, N.Global(v.type, v.base + i), value))
        if m.setup is not None:
            self.block(m.setup.body, Scope(), None)
        if hold:
            self.end(N.Return(None, None))
        else:
            self.end(N.Goto(None, self.pb.phase_unit(start_phase(m))))
        self._close()

    def _start_list_var(self, name: str, v) -> None:
        """A var holding a list given its first items: per slot from a literal of as many lists
        as slots, else the one list (worked out once) in every slot."""
        init, span = v.decl.init, v.decl.span
        slots = [self.x.var_items(name, N.Const("int", i) if v.per else None, span) for i in range(v.count)]
        per_slot = v.per and isinstance(init, A.ListLit) and init.items and \
            all(self.x.is_list(x, Scope()) for x in init.items)
        if per_slot and len(init.items) != v.count:
            fault = self.pb.fault(f"initial list has {len(init.items)} values for {v.count} slots", span)
            self.emit(N.Check(span, N.Const("bool", 0), fault))
            return
        values = [self.x.seq(x, Scope()) for x in init.items] if per_slot else \
            [self.x.seq(init, Scope())] + slots[:1] * (v.count - 1)
        for target, value in zip(slots, values):
            value = self.held_as(value, target.item, span)
            self.emit(N.SetListItems(span, target, value, self.list_fault(name, target.bound, span)))

    def _start_per_slot(self, v) -> None:
        """A var kept per seat or team given a list: one item per slot, as many as slots."""
        span = v.decl.span
        seq = self.x.seq(v.decl.init, Scope())
        base, n = self.local("int"), self.local("int")
        self.emit(N.Collect(span, seq, base, n))
        fault = self.pb.fault(f"initial list has {{0}} values for {v.count} slots", span)
        self.emit(N.Check(span, N.Binary("bool", "==", N.Local("int", n), N.Const("int", v.count)), fault, N.Local("int", n)))
        for i in range(v.count):
            self.emit(self._set_global(v.decl, N.Global(v.type, v.base + i), N.StackAt(v.type, base, N.Const("int", i))))

    def list_fault(self, name: str, cap: int, span) -> int:
        return self.pb.fault(f"`{name}` holds at most {cap} items; this list has {{0}}", span)

    def _params(self, params, types: dict | None = None) -> Scope:
        """A parameter's local; a list's two (where its items start on the stack, how many).
        An untyped parameter is of the type `types` gives it, else "any"."""
        scope = Scope()
        for p in params:
            ty = ir_type(type_of(self.m, p.type)) if p.type else (types or {}).get(p.name) or "any"
            if ty.startswith("list:"):
                scope.names[p.name] = (ty, (self.local("int"), self.local("int"), MAX_OPTIONS))
            else:
                scope.names[p.name] = (ty, self.local(ty))
        self.unit.nparams = self.unit.nlocals
        return scope

    def _close(self) -> None:
        for b in self.unit.blocks:
            if b.term is None:
                b.term = N.Return(None, None)

    # ------------------------------------------------------------------ statements
    def block(self, blk: A.Block, scope: Scope, loop) -> None:
        """The block's statements in turn; while one is built, `later` holds those after it in
        the block (where a name it binds is seen)."""
        outer = self.later
        try:
            for i, s in enumerate(blk.body):
                if self.current is None:  # after a goto, end or return: never run, never built
                    return
                method = getattr(self, "s_" + type(s).__name__, None)
                if method is None:
                    raise Unsupported(f"the statement {type(s).__name__}", s.span)
                self.later = blk.body[i + 1:]
                with self.statement():
                    method(s, scope, loop)
        finally:
            self.later = outer

    def s_Let(self, s: A.Let, scope, loop):
        if self._gives_list(s.value) or self.x.is_list(s.value, scope):
            seq = self.rows_unchanged(self._list_value(s.value, scope), self.later, s.value.span)
            base, n = self.local("int"), self.local("int")
            self.emit(N.Collect(s.span, seq, base, n))
            scope.names[s.name] = ("list:" + seq.item, (base, n, seq.bound))
            return
        if isinstance(s.value, A.Call) and s.value.func in self.m.procs:
            ty = ir_type(type_of(self.m, self.m.procs[s.value.func].result))
            slot = self.local(ty)
            self._call(s.value, scope, result=slot)
            scope.names[s.name] = (ty, slot)
            return
        value = self.x.expr(s.value, scope)
        slot = self.local(value.ty)
        self.emit(N.SetLocal(s.span, slot, value))
        if value.ty.startswith(ROW):
            self.keep_row(scope, s.name, value.ty, slot, self.later, s.span)
        else:
            scope.names[s.name] = (value.ty, slot)

    def s_Assign(self, s: A.Assign, scope, loop):
        target = self.x.list_var(s.target, scope)
        if target is not None:
            name = (s.target.obj if isinstance(s.target, A.Index) else s.target).id
            value = self.held_as(self._list_value(s.value, scope), target.item, s.value.span)
            self.emit(N.SetListItems(s.span, target, value, self.list_fault(name, target.bound, s.span)))
            return
        items = self.x.field_items(s.target, scope) if isinstance(s.target, A.Attr) else None
        if items is not None:
            fault = self.pb.fault(f"`.{s.target.name}` holds at most {items.bound} items; this list has {{0}}", s.span)
            self.emit(N.SetListItems(s.span, items, self.held_as(self._list_value(s.value, scope), items.item,
                                                                  s.value.span), fault))
            return
        if isinstance(s.target, A.Name) and (scope.lookup(s.target.id) or ("",))[0].startswith("list:"):
            if s.op != "=":
                raise Unsupported("`+=` or `-=` on a list", s.span)
            ty, (base, n, bound) = scope.lookup(s.target.id)
            seq = self.held_as(self._list_value(s.value, scope), ty[len("list:"):], s.value.span)
            self.emit(N.Collect(s.span, seq, base, n))
            if base in self.passed_rows:  # a list given: no longer the none a choice may have left
                self.emit(N.SetLocal(s.span, self.passed_rows[base][1], N.Const("int", 0)))
            scope.names[s.target.id] = (ty, (base, n, max(bound, seq.bound)))
            return
        target = self.x.expr(s.target, scope)
        if isinstance(s.value, A.Call) and s.value.func in self.m.procs:
            ty = ir_type(type_of(self.m, self.m.procs[s.value.func].result))
            slot = self.local(ty)
            self._call(s.value, scope, result=slot)
            value = N.Local(ty, slot)
        else:
            value = self.x.expr(s.value, scope)
        if s.op != "=":
            self.x._numbers(s.op, [(s.value, value)])
            value = N.Binary(target.ty, s.op[0], target, value, s.span, self.pb.overflow_fault(s.span))
        value = stored(value, target.ty, "cannot assign {given} to {slot}", s.span)
        if isinstance(target, N.Local):
            self.emit(N.SetLocal(s.span, target.slot, value))
        elif isinstance(target, N.Global):
            self.emit(self._set_global(s, target, value))
        elif isinstance(target, (N.Field, N.FieldOfAny)):
            self.emit(N.SetField(s.span, target, value))
        else:
            raise Unsupported("this assignment's target", s.span)

    def _set_global(self, s, target: N.Global, value: N.Expr) -> N.SetGlobal:
        var = next((v for v in self.m.vars.values() if v.base <= target.base < v.base + v.count), None)
        r = var.decl.range if var is not None else None
        if r is None:
            return N.SetGlobal(s.span, target, value)
        name = var.decl.name
        fault = self.pb.fault(f"`{name}` = {{0}} is out of its range {r.lo}..{r.hi}", s.span)
        return N.SetGlobal(s.span, target, value, r.lo, r.hi, r.overflow, r.wrap_to, fault)

    def s_CallStmt(self, s: A.CallStmt, scope, loop):
        c = s.call
        if self._gives_list(c):
            mark = self.local("int")
            self.emit(N.Mark(s.span, mark))
            self._list_value(c, scope)
            self.emit(N.Release(s.span, mark))
            return
        if isinstance(c, A.Call) and c.func in self.m.procs:
            self._call(c, scope, result=None)
            return
        # a fn or built-in called for nothing but what it does on the way (a roll, a fault): its
        # value is worked out and dropped
        if self.x.is_list(c, scope):
            mark, base, n = self.local("int"), self.local("int"), self.local("int")
            self.emit(N.Mark(s.span, mark))
            self.emit(N.Collect(s.span, self.x.seq(c, scope), base, n))
            self.emit(N.Release(s.span, mark))
            return
        value = self.x.expr(c, scope)
        self.emit(N.SetLocal(s.span, self.local(value.ty), value))

    def _gives_list(self, e: A.Expr) -> bool:
        """Whether `e` calls a procedure that gives a list."""
        return isinstance(e, A.Call) and e.func in self.m.procs and self._gives_list_decl(self.m.procs[e.func])

    def _gives_list_decl(self, d: A.Proc) -> bool:
        return d.result is not None and ir_type(type_of(self.m, d.result)).startswith("list:")

    def _list_value(self, e: A.Expr, scope) -> N.Seq:
        """The list `e` gives, as a sequence: a list-giving procedure's call is written out here
        (`_inline_list_call`) and read as the items it left on the stack."""
        if not self._gives_list(e):
            return self.x.seq(e, scope)
        ty, (base, count, bound) = self._inline_list_call(e, scope)
        return N.StackItems(ty[5:], bound, base, count)

    def _inline_list_call(self, c: A.Call, scope) -> tuple:
        """A call of a procedure that gives a list, written out in the running unit: the
        arguments into new locals, then the body, each `return LIST` copying its list onto the
        stack (where the caller's lists live) and going on after the call. The call adds no
        depth, and a body that ends without `return` faults there. One that would write itself
        out inside itself (the procedure calls itself) calls the procedure's unit instead
        (`_called_list`). Gives the list's type and (base, count, bound)."""
        d = self.m.procs[c.func]
        if c.func in self.writing_out:
            return self._called_list(c, scope)
        self.x.count_written_out(c, sum(1 for _ in A.walk(d.body)), "nodes of its body; a procedure that gives a list "
                                                                     "is written out at each call")
        inner = Scope()
        for a, p in zip(c.args, d.params):
            ty = ir_type(type_of(self.m, p.type)) if p.type else "any"
            if ty.startswith("list:") or (ty == "any" and self.x.is_list(a, scope)):
                seq = self._list_value(a, scope)
                seq = self.held_as(seq, ty[len("list:"):], a.span) if ty != "any" else self.rows_unchanged(seq, [d.body], a.span)
                base, n = self.local("int"), self.local("int")
                self.emit(N.Collect(c.span, seq, base, n))
                inner.names[p.name] = (ty if ty != "any" else "list:" + seq.item, (base, n, seq.bound))
            else:
                value = self.x.expr(a, scope)
                slot = self.local(value.ty if ty == "any" else ty)
                self.emit(N.SetLocal(c.span, slot, value))
                if ty == "any" and value.ty.startswith(ROW):
                    self.keep_row(inner, p.name, value.ty, slot, [d.body], c.span)
                else:
                    inner.names[p.name] = (value.ty if ty == "any" else ty, slot)
        base, count, after = self.local("int"), self.local("int"), self.new_block()
        unit = self.pb.unit_index[(c.func, "proc")]  # the procedure's name, to a log
        self.emit(N.CallEvent(c.span, "call", unit))
        saved = self.proc_decl, self.list_return
        self.proc_decl, self.list_return = d, (base, count, after, [], unit)
        self.writing_out.append(c.func)
        try:
            self.block(d.body, inner, None)
            bounds = self.list_return[3]
        finally:
            self.proc_decl, self.list_return = saved
            self.writing_out.pop()
        if self.current is not None:
            self.end(N.Fail(d.body.span, self.pb.fault(f"procedure `{c.func}` ended without `return`: it gives a list", d.span)))
        self.current = after
        return ir_type(type_of(self.m, d.result)), (base, count, max(bounds, default=0))

    def _called_list(self, c: A.Call, scope) -> tuple:
        """A call of the unit of a procedure that gives a list (`ReturnList`): its items lie from
        the stack top as it stood at the call, MAX_OPTIONS of them at most. Gives the list's
        type and (base, count, bound), as `_inline_list_call`."""
        base, count = self.local("int"), self.local("int")
        self._call(c, scope, count, mark=base)
        return ir_type(type_of(self.m, self.m.procs[c.func].result)), (base, count, MAX_OPTIONS)

    def _call(self, c: A.Call, scope, result, mark: int | None = None) -> None:
        """A call of procedure `c.func`'s unit (the one built for what the call gives its untyped
        parameters), its result into local `result` (when not None); with `mark`, the stack top
        just before the call (its list arguments copied) into that local."""
        args, shape = [], []
        for a, p in zip(c.args, self.m.procs[c.func].params):
            ty, words = self._argument(a, p, scope, self.m.procs[c.func].body)
            args += words
            if p.type is None:
                shape.append(ty)
        unit = self.pb.proc_unit(c.func, tuple(shape))
        if mark is not None:
            self.emit(N.Mark(c.span, mark))
        after = self.new_block()
        if result is not None:
            self.end(N.Call(c.span, unit, args, result, after))
            self.current = after
            self.emit(N.SetLocal(c.span, result, N.Returned("any")))
            return
        self.end(N.Call(c.span, unit, args, None, after))
        self.current = after

    def _argument(self, a: A.Expr, p: A.Param, scope, body: A.Block) -> tuple[str | None, list[N.Expr]]:
        """What a call gives procedure parameter `p` (of the procedure whose body is `body`): the
        type it builds an untyped `p` with (ProgramBuilder.proc_unit: the value's, so that the
        body says, reveals and offers it as that type does; None for a declared `p`, `none` or a
        value of no known type), and the words passed (a list's two: where its items lie on the
        stack, how many)."""
        declared = ir_type(type_of(self.m, p.type)) if p.type is not None else None
        if declared is None and self.x.is_list(a, scope):
            seq = self.rows_unchanged(self.x.seq(a, scope), [body], a.span)
            ty = "list:" + seq.item
        elif declared is not None and declared.startswith("list:"):
            seq, ty = self.held_as(self.x.seq(a, scope), declared[len("list:"):], a.span), None
        else:
            value = self.x.expr(a, scope)
            if declared is not None:
                value = stored(value, declared, f"argument `{p.name}` must be {{slot}}, not {{given}}", a.span)
            if declared is not None or not value.ty.startswith(ROW):
                return (value.ty if declared is None and value.ty not in ("any", "none") else None), [value]
            # the list of a slot of a list var given untyped: the slot's items, as any list is given
            row = self.local(value.ty)
            self.emit(N.SetLocal(a.span, row, value))
            seq = self.x.var_items(value.ty[len(ROW):], N.Local("int", row), a.span)
            ty = "list:" + seq.item
        base, n = self.local("int"), self.local("int")
        self.list_argument(a.span, seq, base, n)
        return ty, [N.Local("int", base), N.Local("int", n)]

    def list_argument(self, span, seq: N.Seq, base: int, n: int) -> None:
        """A list passed to a called unit, copied onto the stack: the unit reads it as at most
        MAX_OPTIONS items (`_params`), so a longer one faults here, naming how many it has."""
        self.emit(N.Collect(span, seq, base, n))
        if seq.bound > MAX_OPTIONS:
            fault = self.pb.fault(f"a list passed to a procedure or handler holds at most {MAX_OPTIONS} items; "
                                  "this list has {0}", span)
            self.emit(N.Check(span, N.Binary("bool", "<=", N.Local("int", n), N.Const("int", MAX_OPTIONS)), fault,
                              N.Local("int", n)))

    def held_as(self, seq: N.Seq, item: str, span) -> N.Seq:
        """`seq`, kept where lists of items of type `item` are kept (a var, a field, a declared
        parameter, a procedure's result). Lists of the slots of a list var kept per seat or team
        (ROW items) kept where lists fixed before play are is refused (Unsupported): such a place
        keeps a list of lists as lists fixed before play, which these are not."""
        if seq.item.startswith(ROW) and item != seq.item:
            var = seq.item[len(ROW):]
            raise Unsupported(f"the lists of `{var}`, a var kept per seat or team, kept as a list of lists (a var, "
                              "field, declared parameter or result holding lists keeps lists fixed before play; "
                              f"keep the one list needed, `{var}[i]`)", span)
        return seq

    def rows_unchanged(self, seq: N.Seq, life, span) -> N.Seq:
        """`seq`, kept while `life` runs (a `let`'s, a parameter's). Lists of the slots of a list
        var kept per seat or team (ROW items) name those slots: kept while `life` may give that var
        new items they would read the new ones, so that is refused (Unsupported)."""
        if seq.item.startswith(ROW) and self.pb.list_writes.may_write(life, seq.item[len(ROW):]):
            var = seq.item[len(ROW):]
            raise Unsupported(f"the lists of `{var}`, a var kept per seat or team, kept as a list of lists while "
                              f"`{var}` may be given new items (keep the one list needed, `{var}[i]`)", span)
        return seq

    def keep_row(self, scope: Scope, name: str, row_ty: str, slot: int, life, span, none: bool = True) -> None:
        """`name` bound to the list of a slot of a list var kept per seat or team, named by the
        ROW value (of type `row_ty`) in local `slot`: to the ROW itself when nothing in `life`
        (statements run while `name` is seen) may give that var new items, else to a copy of the
        slot's items taken now, so that the name keeps the list it was given (a list is a value).
        With `none`, the local may hold none (an `optional` choice passed): the copy then holds no
        items, and reading `name` reads the slot that none names, as reading the ROW would: the
        same located error (`passed_rows`, ExprBuilder.seq), until `name` is given a list."""
        var = row_ty[len(ROW):]
        if not self.pb.list_writes.may_write(life, var):
            scope.names[name] = (row_ty, slot)
            return
        seq = self.x.var_items(var, N.Local("int", slot), span)
        if none:
            given = N.Binary("bool", "!=", N.Local("int", slot), N.Const("none", NONE))
            seq = N.ChooseSeq(seq.item, seq.bound, given, seq, N.Items(seq.item, 0, []))
        base, n = self.local("int"), self.local("int")
        self.emit(N.Collect(span, seq, base, n))
        scope.names[name] = ("list:" + seq.item, (base, n, seq.bound))
        if none:
            self.passed_rows[base] = (var, slot)

    def s_If(self, s: A.If, scope, loop):
        done = self.new_block()
        for br in s.branches:
            test = self.x.cond(br.test, scope)
            if isinstance(test, N.Const) and not test.value:
                continue
            if isinstance(test, N.Const):
                self.block(br.body, scope.child(), loop)
                self.enter(done)
                return
            then, orelse = self.new_block(), self.new_block()
            self.end(N.Branch(br.test.span, test, then, orelse))
            self.current = then
            self.block(br.body, scope.child(), loop)
            self.enter(done)
            self.current = orelse
        if s.orelse is not None:
            self.block(s.orelse, scope.child(), loop)
        self.enter(done)

    def _loop(self, span, scope, body: A.Block, head_test, before_body=(), advance=(), release=None) -> None:
        """head: `head_test` (None: always) else leave; body (with `before_body` first); then
        `advance`, back to head. `continue` goes to the advance, `break` past the loop. The lists
        a round copies are released when it ends; those before the loop (`release`) when it ends."""
        mark = self.local("int")
        self.emit(N.Mark(span, mark))
        head, body_b, step, done = self.new_block(), self.new_block(), self.new_block(), self.new_block()
        self.enter(head)
        if head_test is None:
            self.end(N.Jump(span, body_b))
        else:
            self.end(N.Branch(span, head_test, body_b, done))
        self.current = body_b
        for st in before_body:
            self.emit(st)
        self.block(body, scope, (step, done))
        self.enter(step)
        self.emit(N.Release(span, mark))
        for st in advance:
            self.emit(st)
        self.end(N.Jump(span, head))
        self.current = done
        self.emit(N.Release(span, release if release is not None else mark))

    def s_For(self, s: A.For, scope, loop):
        seq = self.x.seq(s.source, scope)
        inner = scope.child()
        var = self.local(seq.item)
        inner.names[s.var] = (seq.item, var)
        i = self.local("int")
        one = N.Binary("int", "+", N.Local("int", i), N.Const("int", 1), s.span, self.pb.overflow_fault(s.span))
        if isinstance(seq, N.RangeItems):
            hi = self.local("int")
            self.emit(N.SetLocal(s.span, i, seq.lo))
            self.emit(N.SetLocal(s.span, hi, seq.hi))
            test = N.Binary("bool", "<=", N.Local("int", i), N.Local("int", hi))
            self._loop(s.span, inner, s.body, test, [N.SetLocal(s.span, var, N.Local("int", i))],
                       [N.SetLocal(s.span, i, one)])
            return
        before, base, n = self.local("int"), self.local("int"), self.local("int")
        self.emit(N.Mark(s.span, before))
        self.emit(N.Collect(s.span, seq, base, n))
        self.emit(N.SetLocal(s.span, i, N.Const("int", 0)))
        test = N.Binary("bool", "<", N.Local("int", i), N.Local("int", n))
        each = [N.SetLocal(s.span, var, N.StackAt(seq.item, base, N.Local("int", i)))]
        if seq.item.startswith(ROW) and self.pb.list_writes.may_write([s.body], seq.item[len(ROW):]):
            each += self._loop_rows_copied(inner, s.var, seq.item[len(ROW):], var, s.span)
        self._loop(s.span, inner, s.body, test, each, [N.SetLocal(s.span, i, one)], release=before)

    def _loop_rows_copied(self, scope: Scope, name: str, var: str, row: int, span) -> list[N.Stmt]:
        """A `for` over lists of list var `var` (ROW values) whose body may give it new items:
        every slot's items copied now, before the loop, so that each round's `name` is its list
        as the loop found it; the statements that bind `name`, each round, to the copy of the
        slot local `row` names."""
        v = self.m.vars[var]
        copies = []
        for k in range(v.count):
            at, count = self.local("int"), self.local("int")
            self.emit(N.Collect(span, self.x.var_items(var, N.Const("int", k), span), at, count))
            copies.append((at, count))
        at, count = self.local("int"), self.local("int")
        scope.names[name] = ("list:" + item_type(v.type), (at, count, self.pb.list_vars[var][1]))

        def of_row(word: int) -> N.Expr:
            chosen: N.Expr = N.Local("int", copies[-1][word])
            for k in range(v.count - 2, -1, -1):
                test = N.Binary("bool", "==", N.Local("int", row), N.Const("int", k))
                chosen = N.IfElse("int", test, N.Local("int", copies[k][word]), chosen)
            return chosen
        return [N.SetLocal(span, at, of_row(0)), N.SetLocal(span, count, of_row(1))]

    def s_Repeat(self, s: A.Repeat, scope, loop):
        left = self.local("int")
        cap = self.m.limits["steps"]
        count = self.x.number(s.count, scope, "a repeat count")
        fault = self.pb.fault(f"repeat count {{0}} is out of 0..{cap}", s.span)
        self.emit(N.SetLocal(s.span, left, count))
        ok = N.Binary("bool", "and", N.Binary("bool", ">=", N.Local("int", left), N.Const("int", 0)),
                      N.Binary("bool", "<=", N.Local("int", left), N.Const("int", cap)))
        self.emit(N.Check(s.span, ok, fault, N.Local("int", left)))
        test = N.Binary("bool", ">", N.Local("int", left), N.Const("int", 0))
        self._loop(s.span, scope.child(), s.body, test,
                   [N.SetLocal(s.span, left, N.Binary("int", "-", N.Local("int", left), N.Const("int", 1), s.span, self.pb.overflow_fault(s.span)))])

    def s_Loop(self, s: A.Loop, scope, loop):
        self._bounded(s, scope, None)

    def s_While(self, s: A.While, scope, loop):
        self._bounded(s, scope, self.x.cond(s.test, scope.child()))

    def _bounded(self, s, scope, test) -> None:
        rounds = self.local("int")
        self.emit(N.SetLocal(s.span, rounds, N.Const("int", 0)))
        bound = constant_int(self.m, s.max)
        fault = self.pb.fault(f"loop ran more than its `max {printer.expr(s.max)}` ({bound}) rounds"
                              if printer.expr(s.max) != str(bound) else f"loop ran more than its `max {bound}` rounds", s.span)
        more = N.Binary("int", "+", N.Local("int", rounds), N.Const("int", 1), s.span, self.pb.overflow_fault(s.span))
        within = N.Binary("bool", "<=", N.Local("int", rounds), N.Const("int", bound))
        self._loop(s.span, scope.child(), s.body, test,
                   [N.SetLocal(s.span, rounds, more), N.Check(s.span, within, fault, None)])

    def s_Break(self, s, scope, loop):
        self.end(N.Jump(s.span, loop[1]))

    def s_Continue(self, s, scope, loop):
        self.end(N.Jump(s.span, loop[0]))

    def s_Choose(self, s: A.Choose, scope, loop):
        seq = self.x.seq(s.source, scope)
        inner = scope.child()
        slot = self.local(seq.item)
        inner.names[s.var] = (seq.item, slot)
        cond = self.x.cond(s.where, inner) if s.where is not None else None
        if seq.item.startswith(ROW):  # each list once: an item equal to an earlier one is no option
            earlier = self.earlier_row(seq.item[len(ROW):], slot, s.span)
            cond = earlier if cond is None else N.Binary("bool", "and", cond, earlier)
        by = self.x.number(s.by, scope, "`by`", "a seat or a team's number")
        if s.by_team:
            teams = self.m.teams
            fault = self.pb.fault(f"`by team` gave {{0}}, which is no team (0..{len(teams) - 1})", s.span)
            voice = [t[0] if t else NONE for t in teams]
            if NONE in voice:  # a team the rules play cannot be asked: a fault when it is
                team = self.local("int")
                self.emit(N.SetLocal(s.span, team, by))
                by = N.Local("int", team)
                unseated = self.pb.fault("`by team {0}`: that team has no seat to answer (the rules play it)", s.span)
                self.emit(N.Check(s.span, N.Lookup("bool", [int(bool(t)) for t in teams], by, fault), unseated, by))
            by = N.Lookup("seat", voice, by, fault)
        site = len(self.pb.choices)
        prompt = s.prompt or f"choose {s.var}"
        self.pb.choices.append(N.ChoiceSite(s.var, seq.item, prompt, s.span, seq.bound))
        nothing = self.pb.fault(f"`choose {s.var}` has nothing to choose from (add `optional` or an `else` block)", s.span)
        no_seat = self.pb.fault(f"`by` gave {{0}}, which is no seat (0..{self.m.seats - 1})", s.span)
        too_many = self.pb.fault(f"`choose {s.var}` offers {{0}} options; a choice offers at most {MAX_OPTIONS}", s.span)
        after = self.new_block()
        empty = self.new_block() if s.orelse is not None else after
        self.end(N.Choose(s.span, seq, slot, cond, by, s.optional, empty, after, self.pb.text(prompt), site,
                          nothing, no_seat, too_many, may_repeat(seq, s.optional)))
        if s.orelse is not None:
            self.current = empty
            self.block(s.orelse, scope.child(), loop)
            self.enter(after)
        self.current = after
        if seq.item.startswith(ROW):  # none only when passed (`optional`) or when nothing was chosen (`else`)
            self.keep_row(scope, s.var, seq.item, slot, self.later, s.span, s.optional or s.orelse is not None)
        else:
            scope.names[s.var] = (seq.item, slot)

    def earlier_row(self, name: str, slot: int, span) -> N.Expr:
        """Whether no slot before slot `slot` (a local) of the list var `name` kept per seat or
        team holds the same list: `not any(name[j] == name[slot] for j in 0..slot - 1)`."""
        j = self.local("int")
        before = N.Binary("int", "-", N.Local("int", slot), N.Const("int", 1), span, self.pb.overflow_fault(span))
        count = self.m.vars[name].count
        js = N.RangeItems("int", count, N.Const("int", 0), before, self.pb.fault("no earlier slot", span))
        same = N.SeqEqual("bool", self.x.var_items(name, N.Local("int", j), span),
                          self.x.var_items(name, N.Local("int", slot), span))
        return N.Unary("bool", "not", N.Aggregate("bool", "any", js, j, same))

    def s_Move(self, s: A.Move, scope, loop):
        dest = self.x.zone(s.dest, scope, "`to`" if isinstance(s, A.Move) else "`in`")
        bottom = s.position == "bottom"
        fault = self.pb.fault("`move` of none", s.span)
        try:
            what = self.x.expr(s.what, scope)
        except Unsupported:
            what = None
        if what is not None and what.ty.startswith(("ent", "any", "none")):
            self.emit(N.MoveOne(s.span, what, dest, bottom, fault))
            return
        self.emit(N.MoveAll(s.span, self.x.seq(s.what, scope), dest, bottom, fault))

    def s_Shuffle(self, s: A.Shuffle, scope, loop):
        zone = self.x.zone(s.zone, scope, "`shuffle`'s argument")
        self.emit(N.Shuffle(s.span, zone, self.pb.stream(self.name, "shuffle"), self.pb.forced_queue(("shuffle",)),
                            self.pb.undecided(("shuffle",), s.span)))

    def s_Create(self, s: A.Create, scope, loop):
        kind = self.m.kinds[s.kind]
        given = {kw.name: stored(self.x.expr(kw.value, scope), kind.fields[kw.name][1],
                                 f"field `{kw.name}` must be {{slot}}, not {{given}}", kw.value.span)
                 for kw in s.fields if not kind.fields[kw.name][1].startswith("list:")}
        values, offsets = [], []
        for name, (pos, ty) in sorted(kind.fields.items(), key=lambda kv: kv[1][0]):
            offsets.append(self.pb.field_at[(kind.index, name)])
            if ty.startswith("list:"):
                given_list = next((kw.value for kw in s.fields if kw.name == name), None)
                values.append(self.held_as(self.x.seq(given_list, scope), item_type(ty), given_list.span)
                              if given_list is not None else N.Items(item_type(ty), 0, []))
            else:
                values.append(given.get(name, N.Const("none", NONE)))
        dest = self.x.zone(s.dest, scope, "`to`" if isinstance(s, A.Move) else "`in`")
        times = self._create_times(s, scope) if s.times is not None else None
        fault = self.pb.fault(f"more than {self.pb.things} things (the `things` bound of this file)", s.span)
        self.pb.fault(f"a list longer than its field holds ({MAX_LIST_FIELD})", s.span)
        self.emit(N.Create(s.span, kind.index, values, offsets, dest, times, fault))

    def _create_times(self, s: A.Create, scope) -> N.Expr:
        """A create's `times`, worked out once into a local, out of 0..MAX_CREATE_TIMES a fault at the create."""
        n = self.local("int")
        self.emit(N.SetLocal(s.span, n, self.x.expr(s.times, scope)))
        ok = N.Binary("bool", "and", N.Binary("bool", ">=", N.Local("int", n), N.Const("int", 0)),
                      N.Binary("bool", "<=", N.Local("int", n), N.Const("int", MAX_CREATE_TIMES)))
        fault = self.pb.fault(f"`create ... times {{0}}`: out of 0..{MAX_CREATE_TIMES}", s.span)
        self.emit(N.Check(s.span, ok, fault, N.Local("int", n)))
        return N.Local("int", n)

    def s_Goto(self, s: A.Goto, scope, loop):
        self.end(N.Goto(s.span, self.pb.phase_unit(s.phase)))

    def s_EndWinner(self, s: A.EndWinner, scope, loop):
        if s.team:
            fault = self.pb.fault(f"`end winner team {{0}}`: no such team (0..{len(self.m.teams) - 1})", s.span)
            self.end(N.End(s.span, self.x.number(s.winner, scope, "the winning team", "a team's number"), True, fault))
            return
        fault = self.pb.fault("`end winner {0}`: no such seat", s.span)
        self.end(N.End(s.span, self.x.number(s.winner, scope, "the winner", "a seat"), False, fault))

    def s_EndDraw(self, s, scope, loop):
        self.end(N.End(s.span, None))

    def s_Emit(self, s: A.Emit, scope, loop):
        ev = self.m.events[s.event]
        mark = self.local("int")  # a list argument's copy is released once every handler has run
        self.emit(N.Mark(s.span, mark))
        # per argument its local (a list's: where it starts, how many, its bound) and type; the words passed
        slots = [self._event_argument(a, p, scope, s.event) for a, p in zip(s.args, ev.params)]
        words = [w for slot, _ in slots for w in (slot[:2] if isinstance(slot, tuple) else (slot,))]
        # the handlers built for the types the event's untyped parameters are given
        shape = tuple(ty if p.type is None and ty not in ("any", "none") else None
                      for p, (_, ty) in zip(ev.params, slots))
        units = [self.pb.handler_unit(s.event, i, shape) for i in range(len(self.m.handlers.get(s.event, [])))]
        guards = []
        for h in self.m.handlers.get(s.event, []):
            if h.when is None:
                guards.append(None)
                continue
            inner = Scope()
            for p, (slot, ty) in zip(h.params, slots):
                inner.names[p.name] = (ir_type(type_of(self.m, p.type)) if p.type else ty, slot)
            guards.append(self.x.cond(h.when, inner))
        after = self.new_block()
        deep = self.pb.fault(f"`emit {s.event}` runs its handlers on frames of their own, pushed at once: with the "
                             f"frames below them, more than {self.m.limits['depth']} (`limit depth`)", s.span)
        self.end(N.Emit(s.span, units, guards, words, after, deep))
        self.current = after
        self.emit(N.Release(s.span, mark))

    def _event_argument(self, a: A.Expr, p: A.Param, scope, event: str) -> tuple:
        """What an `emit` gives event parameter `p`: its local (a list's: where its copy starts on
        the stack, how many items, their bound) and its type. A list given a parameter of no
        declared type is passed as a declared list parameter's is, the handlers built for it
        (ProgramBuilder.handler_unit), as a procedure's untyped parameter is given one."""
        declared = ir_type(type_of(self.m, p.type)) if p.type is not None else None
        if declared is not None and declared.startswith("list:"):
            seq = self.held_as(self.x.seq(a, scope), declared[len("list:"):], a.span)
        elif declared is None and self.x.is_list(a, scope):
            seq = self.rows_unchanged(self.x.seq(a, scope), [h.body for h in self.m.handlers.get(event, [])], a.span)
        else:
            value = self.x.expr(a, scope)
            if declared is not None:
                value = stored(value, declared, f"argument `{p.name}` of event `{event}` must be {{slot}}, not {{given}}",
                               a.span)
            slot = self.local(value.ty)
            self.emit(N.SetLocal(a.span, slot, value))
            if declared is not None or not value.ty.startswith(ROW):
                return slot, value.ty
            # the list of a slot of a list var given untyped: the slot's items, as any list is given
            seq = self.x.var_items(value.ty[len(ROW):], N.Local("int", slot), a.span)
        base, n = self.local("int"), self.local("int")
        self.list_argument(a.span, seq, base, n)
        return (base, n, min(seq.bound, MAX_OPTIONS)), "list:" + seq.item

    def s_Say(self, s: A.Say, scope, loop):
        """A hole holding a list is said as two arguments, where its copy starts (of type
        `items:T`, vbr.engines.events) and how many items it has; the copy is released after."""
        pieces, args = [], []
        text = ""
        mark = None
        for part in s.parts:
            if isinstance(part, str):
                text += part
                continue
            pieces.append(self.pb.text(text))
            text = ""
            if not self.x.is_list(part, scope):
                args.append(self.x.expr(part, scope))
                continue
            if mark is None:
                mark = self.local("int")
                self.emit(N.Mark(s.span, mark))
            seq = self.x.seq(part, scope)
            base, n = self.local("int"), self.local("int")
            self.emit(N.Collect(s.span, seq, base, n))
            args += [N.Local("items:" + seq.item, base), N.Local("int", n)]
        pieces.append(self.pb.text(text))
        self.emit(N.Say(s.span, pieces, args))
        if mark is not None:
            self.emit(N.Release(s.span, mark))

    def s_Return(self, s: A.Return, scope, loop):
        if self.list_return is not None:
            base, count, after, bounds, unit = self.list_return
            seq = self.held_as(self._list_value(s.value, scope), self._result_item(), s.value.span)
            self.emit(N.Collect(s.span, seq, base, count))
            self.emit(N.CallEvent(s.span, "return", unit))
            bounds.append(seq.bound)
            self.end(N.Jump(s.span, after))
            return
        if self.proc_decl is not None and s.value is not None and self._gives_list_decl(self.proc_decl):
            # the procedure's own unit, called where it calls itself: its list moved down to its frame
            base, n = self.local("int"), self.local("int")
            self.emit(N.Collect(s.span, self.held_as(self._list_value(s.value, scope), self._result_item(), s.value.span),
                                base, n))
            fault = self.pb.fault(f"procedure `{self.proc_decl.name}` gives at most {MAX_OPTIONS} items when it "
                                  "calls itself; this list has {0}", s.span)
            self.end(N.ReturnList(s.span, N.Local("int", base), N.Local("int", n), MAX_OPTIONS, fault))
            return
        value = self.x.expr(s.value, scope) if s.value is not None else None
        if value is not None and self.proc_decl is not None and self.proc_decl.result is not None:
            value = stored(value, ir_type(type_of(self.m, self.proc_decl.result)),
                           "the returned value must be {slot}, not {given}", s.value.span)
        self.end(N.Return(s.span, value))

    def _result_item(self) -> str:
        """The type of the items of the list the procedure being built gives."""
        return ir_type(type_of(self.m, self.proc_decl.result))[len("list:"):]

    def s_Reveal(self, s: A.Reveal, scope, loop):
        if self.x.is_list(s.what, scope):
            seq = self.x.seq(s.what, scope)
            mark, base, n = self.local("int"), self.local("int"), self.local("int")
            self.emit(N.Mark(s.span, mark))
            self.emit(N.Collect(s.span, seq, base, n))
            self.emit(N.Reveal(s.span, N.Local("items:" + seq.item, base), None, N.Local("int", n)))
            self.emit(N.Release(s.span, mark))
            return
        what = self.x.expr(s.what, scope)
        if what.ty == "zone":
            self.emit(N.Reveal(s.span, None, what))
        else:
            self.emit(N.Reveal(s.span, what, None))
