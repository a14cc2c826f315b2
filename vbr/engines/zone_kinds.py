"""Which kinds of thing each zone of a typed program can ever hold, worked out before play.

A thing enters a zone only by a statement of the program: a `create` (its kind), a `move` of one
thing or of a sequence's items. What a statement moves is followed back through the locals it
was read from (every write of each local of each unit and heavy fn, a procedure's, a handler's
or a fn's parameters from their callers' arguments, a list's items from where it was collected)
to a kind's things, a zone's items or its top: so the kinds of every zone grow together until
nothing changes. A value's declared type is no evidence (a `Card` parameter may be given any
thing, and its field reads test the kind), and where a value cannot be followed it may be of any
kind. A determinization (python_search.redeal) deals each hidden place a thing of the kind it
held, so it changes no zone's kinds.

Both engines read a field of a zone's item without testing the item's kind when the zones it is
read from hold one kind only.
"""
from __future__ import annotations

from vbr.ir import nodes as N


def zone_kinds(p: N.Program) -> list[frozenset[int]]:
    """Each zone's kinds (an index into `p.kinds`)."""
    return _Flow(p).run()


def zones_of(p: N.Program, e: N.Expr, env: dict | None = None, slots: list | None = None) -> frozenset[int]:
    """The zones a zone-valued expression may give: a constant's, a row of a zone kept per seat
    or team, either of a test's, a binding's body's, a local's (`slots`, by slot, when known);
    else every zone."""
    env = env or {}
    if isinstance(e, N.Const):
        return frozenset({e.value})
    if isinstance(e, N.ZoneAt):
        if isinstance(e.index, N.Const) and 0 <= e.index.value < e.count:
            return frozenset({e.base + e.index.value})
        return frozenset(range(e.base, e.base + e.count))
    if isinstance(e, N.IfElse):
        return zones_of(p, e.then, env, slots) | zones_of(p, e.orelse, env, slots)
    if isinstance(e, N.Bind):
        inner = dict(env)
        inner[e.slot] = zones_of(p, e.value, env, slots) if e.value.ty == "zone" else None
        return zones_of(p, e.body, inner, slots)
    if isinstance(e, N.Local) and env.get(e.slot) is not None:
        return env[e.slot]
    if isinstance(e, N.Local) and slots is not None and e.slot < len(slots):
        return slots[e.slot]
    return frozenset(range(p.layout.nzones))


def seq_zones(p: N.Program, s: N.Seq, slots: list | None = None) -> frozenset[int] | None:
    """The zones whose items a sequence gives (one of two by a test, under a binding), or None
    when it is no zone's items."""
    if isinstance(s, N.ZoneItems):
        return zones_of(p, s.zone, slots=slots)
    if isinstance(s, N.BindSeq):
        return seq_zones(p, s.body, slots)
    if isinstance(s, N.ChooseSeq):
        a, b = seq_zones(p, s.then, slots), seq_zones(p, s.orelse, slots)
        return None if a is None or b is None else a | b
    return None


_WRITING = (N.FnCall, N.SetLocal, N.Bind, N.BindSeq, N.Collect, N.Mark, N.Aggregate, N.Comprehension, N.Choose)
_MOVING = (N.Create, N.MoveOne, N.MoveAll, N.Call, N.Emit)  # the statements `moves` reads


class _Flow:
    def __init__(self, p: N.Program):
        self.p = p
        self.every = frozenset(range(len(p.kinds)))
        self.zone = [frozenset()] * p.layout.nzones
        self.local = {u: [frozenset()] * max(unit.nlocals, unit.nparams) for u, unit in enumerate(p.units)}
        for k, fn in enumerate(p.fns):  # a heavy fn's locals, its parameters first
            self.local[("fn", k)] = [frozenset()] * max(fn.nlocals, fn.nparams)
        self.zones = {u: list(t) for u, t in self.local.items()}  # the zones a zone-valued local may hold
        self.all_zones = frozenset(range(p.layout.nzones))
        called = set()
        for u in p.units:
            for b in u.blocks:
                if isinstance(b.term, N.Call):
                    called.add(b.term.unit)
                elif isinstance(b.term, N.Emit):
                    called.update(b.term.handlers)
        for i, u in enumerate(p.units):  # a unit play starts or a scenario calls: parameters of any kind
            if i not in called:
                for s in range(u.nparams):
                    self.local[i][s] = self.every
                    self.zones[i][s] = self.all_zones
        self.changed = False

    def run(self) -> list[frozenset[int]]:
        """Each round goes through the nodes that write a local or put things in a zone, in the
        program's order, until a round changes nothing (found once: a round walks no tree)."""
        sites = self.sites()
        self.changed = True
        while self.changed:
            self.changed = False
            for u, n, moves in sites:
                if moves:
                    self.moves(u, n)
                else:
                    self.writes(u, n)
        return self.zone

    def sites(self) -> list[tuple]:
        """(unit or ("fn", k), node, whether it is a statement of `moves`) for every node of the
        program `writes` or `moves` reads, in the program's order: each statement's nodes, then
        the statement; then each heavy fn's nodes."""
        sites = []
        for u, unit in enumerate(self.p.units):
            for b in unit.blocks:
                for s in [*b.stmts, b.term]:
                    sites += [(u, n, False) for n in N.walk(s) if isinstance(n, _WRITING)]
                    if isinstance(s, _MOVING):
                        sites.append((u, s, True))
        for k, fn in enumerate(self.p.fns):
            sites += [(("fn", k), n, False) for n in N.walk(fn.body) if isinstance(n, _WRITING)]
        return sites

    def grow(self, table: list, i: int, kinds: frozenset[int]) -> None:
        if i < len(table) and not kinds <= table[i]:
            table[i] = table[i] | kinds
            self.changed = True

    def moves(self, u: int, s) -> None:
        """What statement s puts into a zone, or hands to a unit's parameters or result."""
        if isinstance(s, N.Create):
            self.into(u, s.dest, frozenset({s.kind}))
        elif isinstance(s, N.MoveOne):
            self.into(u, s.dest, self.kinds(u, s.what))
        elif isinstance(s, N.MoveAll):
            self.into(u, s.dest, self.seq_kinds(u, s.seq))
        elif isinstance(s, N.Call):
            for i, a in enumerate(s.args):
                self.grow(self.local[s.unit], i, self.kinds(u, a))
                self.grow(self.zones[s.unit], i, self.zones_of(u, a))
                if isinstance(a, N.Local) and not a.ty.startswith(("ent", "any")):  # a list's start: its items' kinds
                    self.grow(self.local[s.unit], i, self.local[u][a.slot])
            if s.result is not None:
                self.grow(self.local[u], s.result, self.every)
                self.grow(self.zones[u], s.result, self.all_zones)
        elif isinstance(s, N.Emit):
            for h in s.handlers:
                for i, slot in enumerate(s.args):
                    self.grow(self.local[h], i, self.local[u][slot])
                    self.grow(self.zones[h], i, self.zones[u][slot])

    def zones_of(self, u, e) -> frozenset[int]:
        return zones_of(self.p, e, slots=self.zones[u]) if isinstance(e, N.Expr) and e.ty == "zone" else frozenset()

    def into(self, u, dest: N.Expr, kinds: frozenset[int]) -> None:
        for z in self.zones_of(u, dest):
            self.grow(self.zone, z, kinds)

    def writes(self, u, n) -> None:
        """What node n writes into a local of unit (or heavy fn, ("fn", k)) u."""
        if isinstance(n, N.FnCall):
            for i, a in enumerate(n.args):
                self.grow(self.local[("fn", n.fn)], i, self.kinds(u, a))
                self.grow(self.zones[("fn", n.fn)], i, self.zones_of(u, a))
        elif isinstance(n, (N.SetLocal, N.Bind, N.BindSeq)):
            self.grow(self.local[u], n.slot, self.kinds(u, n.value))
            self.grow(self.zones[u], n.slot, self.zones_of(u, n.value))
        elif isinstance(n, N.Collect):  # a list on the stack: its kinds kept at the local of its start
            self.grow(self.local[u], n.base, self.seq_kinds(u, n.seq))
        elif isinstance(n, N.Mark):  # the start of what a call may leave on the stack: a list of any kind
            self.grow(self.local[u], n.slot, self.every)
        elif isinstance(n, N.Aggregate):
            self.grow(self.local[u], n.slot, self.seq_kinds(u, n.seq))
        elif isinstance(n, N.Comprehension):
            self.grow(self.local[u], n.slot, self.seq_kinds(u, n.source))
        elif isinstance(n, N.Choose):
            self.grow(self.local[u], n.slot, self.seq_kinds(u, n.seq))

    def kinds(self, u, e, env: dict | None = None) -> frozenset[int]:
        """The kinds of thing expression e may give in unit (or heavy fn) u; `env`: the kinds of
        the locals a binding or an aggregate around e holds while e is worked out (a local's
        other writes are of other times: a statement's locals are taken again by others)."""
        if not isinstance(e, N.Expr) or not e.ty.startswith(("ent", "any")):
            return frozenset()
        env = env or {}
        if isinstance(e, N.Local):
            if e.slot in env:
                return env[e.slot]
            table = self.local[u]
            return table[e.slot] if e.slot < len(table) else self.every
        if isinstance(e, N.Bind):
            return self.kinds(u, e.body, {**env, e.slot: self.kinds(u, e.value, env)})
        if isinstance(e, N.IfElse):
            return self.kinds(u, e.then, env) | self.kinds(u, e.orelse, env)
        if isinstance(e, N.Builtin) and e.name in ("top", "bottom"):
            return self.zones_kinds(self.zones_of(u, e.args[0]))
        if isinstance(e, N.StackAt):
            return self.local[u][e.base]
        if isinstance(e, N.FnCall):
            return self.kinds(("fn", e.fn), self.p.fns[e.fn].body)
        if isinstance(e, N.Pick):
            return self.seq_kinds(u, e.seq)
        if isinstance(e, N.ItemAt):
            return self.seq_kinds(u, e.seq)
        if isinstance(e, N.Aggregate) and e.agg in ("first", "max", "min"):
            return self.kinds(u, e.body, {**env, e.slot: self.seq_kinds(u, e.seq)})
        return self.every

    def seq_kinds(self, u, s) -> frozenset[int]:
        if isinstance(s, N.KindItems):
            return frozenset({s.kind})
        zones = seq_zones(self.p, s, self.zones[u])
        if zones is not None:
            return self.zones_kinds(zones)
        if isinstance(s, N.Comprehension):
            return self.kinds(u, s.body)
        if isinstance(s, N.StackItems):
            return self.local[u][s.base]
        if isinstance(s, N.Items):
            return frozenset().union(*(self.kinds(u, x) for x in s.items))
        if isinstance(s, N.BindSeq):
            return self.seq_kinds(u, s.body)
        if isinstance(s, N.ChooseSeq):
            return self.seq_kinds(u, s.then) | self.seq_kinds(u, s.orelse)
        return self.every if s.item.startswith(("ent", "any")) else frozenset()

    def zones_kinds(self, zones) -> frozenset[int]:
        return frozenset().union(*(self.zone[z] for z in zones))
