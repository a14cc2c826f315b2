"""The Python engine's rules: each node of the typed program as Python source.

`python_source(program)` gives a module's text: per block of each unit a function
`b<unit>_<block>(S, fp)` that runs the block on state list S (the frame at fp) and returns the
next block of the same frame, or -1 when control moved (a call, a return, a choice, a `goto`, the
end); `BLOCKS[unit]` lists them. Sequences, aggregates and bound values become small functions
of their own, so that every expression stays an expression. Nothing of the rule file's text is
in the source: names are numbers, texts are indexes into the program's tables.
"""
from __future__ import annotations

from vbr.engines.word_source import WordSource
from vbr.ir import nodes as N
from vbr.ir.layout import CHOICE, FRAME_HEAD, OVER, Header as H
from vbr.ir.values import NONE

RUNTIME = ("EngineFault", "add", "sub", "mul", "div", "mod", "neg", "index", "thing_word", "thing_word_any", "other",
           "step", "distance", "cell_at", "on_court", "reach", "lookup_or_none", "zone_items", "take_out", "put", "draw_below",
           "shuffle")
_ARITH = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod"}
_CELL_FNS = ("number", "side", "row", "col", "in_court", "on_net")


def team_table(p: N.Program) -> tuple[int, ...]:
    """Each seat's team."""
    team = [0] * p.seats
    for t, seats in enumerate(p.teams):
        for s in seats:
            team[s] = t
    return tuple(team)


def python_source(program: N.Program) -> str:
    return _Source(program).module()


class _Source(WordSource):
    # ------------------------------------------------------------------ the module
    def module(self) -> str:
        out = [f"from vbr.engines.python_runtime import {', '.join(RUNTIME)}", ""]
        tables = []
        for u, unit in enumerate(self.p.units):
            names = []
            for b, block in enumerate(unit.blocks):
                name = f"b{u}_{b}"
                names.append(name)
                lines = [f"def {name}(S, fp):"]
                for s in block.stmts:
                    lines += ["    " + x for x in self.stmt(s)]
                lines += ["    " + x for x in self.term(block.term, unit)]
                out.append("\n".join(lines))
            tables.append("(" + "".join(n + ", " for n in names) + ")")
        out = out[:2] + self.defs + out[2:]
        out.append("BLOCKS = (" + "".join(t + ", " for t in tables) + ")")
        return "\n\n".join(out) + "\n"

    # ------------------------------------------------------------------ expressions
    def index_call(self, i: str, n: int, fault: int) -> str:
        return f"index({i}, {n}, {fault})"

    def x_Const(self, e):
        return str(e.value)

    def x_ItemAt(self, e):
        name = self.fresh("item")
        self.defs.append(f"def {name}(S, fp):\n    xs = {self.seq(e.seq)}(S, fp)\n    i = {self.expr(e.index)}\n"
                         f"    if not 0 <= i < len(xs):\n        raise EngineFault({e.fault}, i, len(xs) - 1)\n    return xs[i]")
        return f"{name}(S, fp)"

    def x_Lookup(self, e):
        table = tuple(e.table)
        if e.fault < 0:
            return f"lookup_or_none({table!r}, {self.expr(e.index)})"
        return f"{table!r}[index({self.expr(e.index)}, {len(table)}, {e.fault})]"

    def field_word(self, f) -> str:
        lay = self.lay
        if isinstance(f, N.FieldOfAny):
            return (f"thing_word_any(S, {self.expr(f.obj)}, {tuple(f.positions)!r}, {lay.kinds}, {lay.fields}, "
                    f"{lay.width}, {f.fault})")
        return f"thing_word(S, {self.expr(f.obj)}, {f.kind}, {lay.kinds}, {lay.fields}, {lay.width}, {f.pos}, {f.fault})"

    def x_Unary(self, e):
        if e.op == "not":
            return f"(not {self.expr(e.operand)})"
        return f"neg({self.expr(e.operand)}, {e.fault})"

    def x_Binary(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        if e.op in _ARITH:
            return f"{_ARITH[e.op]}({a}, {b}, {e.fault})"
        return f"({a} {e.op} {b})"

    def x_IfElse(self, e):
        return f"({self.expr(e.then)} if {self.expr(e.test)} else {self.expr(e.orelse)})"

    def x_Bind(self, e):
        name = self.fresh("bind")
        self.defs.append(f"def {name}(S, fp):\n    {self.local(e.slot)} = {self.expr(e.value)}\n"
                         f"    return {self.expr(e.body)}")
        return f"{name}(S, fp)"

    def x_Roll(self, e):
        faces = self.p.dice[e.die]
        return f"{faces!r}[draw_below(S, {self.lay.streams + e.stream}, {len(faces)})]"

    def x_Pick(self, e):
        name = self.fresh("pick")
        self.defs.append(f"def {name}(S, fp):\n    xs = {self.seq(e.seq)}(S, fp)\n"
                         f"    return xs[draw_below(S, {self.lay.streams + e.stream}, len(xs))] if xs else {NONE}")
        return f"{name}(S, fp)"

    def x_Contains(self, e):
        return f"({self.expr(e.item)} in {self.seq(e.seq)}(S, fp))"

    def x_Aggregate(self, e):
        name = self.fresh("agg")
        item = self.local(e.slot)
        skip = f"        if not {self.expr(e.cond)}:\n            continue\n" if e.cond is not None else ""
        body = self.expr(e.body)
        start, each, end = {
            "sum": ("0", f"        r = add(r, {body}, {e.fault})\n", "r"),
            "count": ("0", "        r += 1\n", "r"),
            "any": ("False", f"        if {body}:\n            return True\n", "r"),
            "all": ("True", f"        if not {body}:\n            return False\n", "r"),
            "first": (str(NONE), f"        return {body}\n", "r"),
            "max": (str(NONE), f"        b = {body}\n        if r == {NONE} or b > r:\n            r = b\n", "r"),
            "min": (str(NONE), f"        b = {body}\n        if r == {NONE} or b < r:\n            r = b\n", "r"),
        }[e.agg]
        self.defs.append(f"def {name}(S, fp):\n    r = {start}\n    for v in {self.seq(e.seq)}(S, fp):\n"
                         f"        {item} = v\n{skip}{each}    return {end}")
        return f"{name}(S, fp)"

    def x_Builtin(self, e):
        a = [self.expr(x) for x in e.args]
        name, f = e.name, e.fault
        if name == "other":
            return f"other({a[0]}, {f})"
        if name == "next_seat":
            return f"(index({a[0]}, {self.p.seats}, {f}) + 1) % {self.p.seats}"
        if name == "team_of":
            return f"{team_table(self.p)!r}[index({a[0]}, {self.p.seats}, {f})]"
        if name == "abs":
            return f"abs({a[0]})"
        if name in ("max", "min"):
            return f"{name}({a[0]}, {a[1]})"
        if name in ("top", "bottom"):
            z = self.zone_word(a[0])
            pick = "S[zb + S[zb]]" if name == "top" else "S[zb + 1]"
            fn = self.fresh(name)
            self.defs.append(f"def {fn}(S, fp):\n    zb = {z}\n    return {pick} if S[zb] else {NONE}")
            return f"{fn}(S, fp)"
        if name == "zone_of":
            return f"S[{self.lay.zone_of} + index({a[0]}, S[{H.THINGS}], {f})]"
        if name == "field":
            return f"FIELDS_OF.get(({a[0]}, {a[1]})) or field_missing({a[0]}, {a[1]}, {f})"
        if name in _CELL_FNS:
            t = self.p.court_tables
            table, default, answers = t[name]
            return (f"on_court({a[0]}, {tuple(table)!r}, {default}, {tuple(t['spaces'])!r}, {tuple(answers)!r}, "
                    f"{t['cols']}, {t['height']}, {f})")
        if name == "step":
            return f"step({a[0]}, *DIRS[{a[1]}], {a[2]}, {a[3]}, {f})"
        if name == "distance":
            return f"distance({a[0]}, {a[1]}, {f})"
        if name == "cell_at":
            t = self.p.court_tables
            return f"cell_at({a[0]}, {a[1]}, {a[2]}, {t['cols']}, {t['height']}, {f}, CELL_FAULT)"
        raise AssertionError(f"no Python rule for the built-in {name}")

    def zone_word(self, zone: str) -> str:
        return f"{self.lay.zones} + ({zone}) * {self.lay.zone_size}"

    # ------------------------------------------------------------------ sequences
    def seq(self, s: N.Seq) -> str:
        """The name of a function (S, fp) -> list of the sequence's items."""
        name = self.fresh("seq")
        self.defs.append(f"def {name}(S, fp):\n" + "\n".join("    " + x for x in self.seq_body(s)))
        return name

    def seq_body(self, s: N.Seq) -> list[str]:
        if isinstance(s, N.ZoneItems):
            return [f"return zone_items(S, {self.zone_word(self.expr(s.zone))})"]
        if isinstance(s, N.RangeItems):
            lines = [f"lo = {self.expr(s.lo)}", f"hi = {self.expr(s.hi)}"]
            if s.fault >= 0:
                lines += [f"if hi - lo + 1 > {s.bound}:", f"    raise EngineFault({s.fault}, hi - lo + 1)"]
            return lines + ["return list(range(lo, hi + 1))"]
        if isinstance(s, N.Items):
            return ["return [" + "".join(self.expr(x) + ", " for x in s.items) + "]"]
        if isinstance(s, N.StackItems):
            return [f"b = {self.local(s.base)}", f"return S[b:b + {self.local(s.count)}]"]
        if isinstance(s, N.TableItems):
            rows = tuple(tuple(r) for r in s.rows)
            return [f"return list({rows!r}[index({self.expr(s.index)}, {len(rows)}, {s.fault})])"]
        if isinstance(s, N.FieldItems):
            lay = self.lay
            return [f"w = thing_word(S, {self.expr(s.obj)}, {s.kind}, {lay.kinds}, {lay.fields}, {lay.width}, {s.pos}, {s.fault})",
                    "return S[w + 1:w + 1 + S[w]]"]
        if isinstance(s, N.ReachItems):
            return [f"return reach(REACH[{s.table}], {self.expr(s.start)}, {self.expr(s.dist)}, {self.expr(s.side)}, {s.fault})"]
        if isinstance(s, N.KindItems):
            k = self.lay.kinds
            return [f"return [e for e in range(S[{H.THINGS}]) if S[{k} + e] == {s.kind}]"]
        if isinstance(s, N.ChooseSeq):
            return [f"return {self.seq(s.then)}(S, fp) if {self.expr(s.test)} else {self.seq(s.orelse)}(S, fp)"]
        if isinstance(s, N.BindSeq):
            return [f"{self.local(s.slot)} = {self.expr(s.value)}", f"return {self.seq(s.body)}(S, fp)"]
        if isinstance(s, N.Comprehension):
            return ["r = []", f"for v in {self.seq(s.source)}(S, fp):", f"    {self.local(s.slot)} = v",
                    *(["    if not " + self.expr(s.cond) + ":", "        continue"] if s.cond is not None else []),
                    f"    r.append({self.expr(s.body)})", "return r"]
        raise AssertionError(f"no Python rule for the sequence {type(s).__name__}")

    # ------------------------------------------------------------------ statements
    def stmt(self, s: N.Stmt) -> list[str]:
        return getattr(self, "s_" + type(s).__name__)(s)

    def s_SetLocal(self, s):
        return [f"{self.local(s.slot)} = {self.expr(s.value)}"]

    def s_SetGlobal(self, s):
        lines = [f"v = {self.expr(s.value)}"]
        if s.lo is not None:
            if s.overflow == "wrap":
                span = s.hi - s.wrap_to + 1
                lines += [f"if v > {s.hi}:", f"    v = {s.wrap_to} + (v - {s.wrap_to}) % {span}",
                          f"elif v < {s.lo}:", f"    raise EngineFault({s.range_fault}, v)"]
            elif s.overflow == "clamp":
                lines += [f"v = {s.lo} if v < {s.lo} else {s.hi} if v > {s.hi} else v"]
            else:
                lines += [f"if v != {NONE} and not {s.lo} <= v <= {s.hi}:", f"    raise EngineFault({s.range_fault}, v)"]
        return lines + [f"S[{self.global_word(s.target)}] = v"]

    def s_SetField(self, s):
        return [f"v = {self.expr(s.value)}", f"S[{self.field_word(s.target)}] = v"]

    def s_Check(self, s):
        arg = self.expr(s.arg) if s.arg is not None else str(NONE)
        return [f"if not {self.expr(s.test)}:", f"    raise EngineFault({s.fault}, {arg})"]

    def s_Collect(self, s):
        return [f"xs = {self.seq(s.seq)}(S, fp)", f"if len(S) + len(xs) > {self.lay.words}:",
                "    raise EngineFault(COPY_FAULT)", f"{self.local(s.base)} = len(S)", f"{self.local(s.count)} = len(xs)",
                "S += xs", f"S[{H.TOP}] = len(S)"]

    def s_Mark(self, s):
        return [f"{self.local(s.slot)} = S[{H.TOP}]"]

    def s_Release(self, s):
        return [f"del S[{self.local(s.slot)}:]", f"S[{H.TOP}] = len(S)"]

    def move_lines(self, what: str, dest: str, bottom: bool, fault: int) -> list[str]:
        lay = self.lay
        return [f"e = {what}", f"if e == {NONE}:", f"    raise EngineFault({fault})",
                f"take_out(S, {lay.zones} + S[{lay.zone_of} + e] * {lay.zone_size}, e)",
                f"put(S, {self.zone_word('d')}, e, {bottom})", f"S[{lay.zone_of} + e] = d"]

    def s_MoveOne(self, s):
        return [f"d = {self.expr(s.dest)}", *self.move_lines(self.expr(s.what), "d", s.bottom, s.fault)]

    def s_MoveAll(self, s):
        order = "reversed(xs)" if s.bottom else "xs"
        inner = self.move_lines("x", "d", s.bottom, s.fault)
        return [f"xs = {self.seq(s.seq)}(S, fp)", f"d = {self.expr(s.dest)}", f"for x in {order}:",
                *["    " + x for x in inner]]

    def s_Shuffle(self, s):
        return [f"shuffle(S, {self.zone_word(self.expr(s.zone))}, {self.lay.streams + s.stream})"]

    def s_Create(self, s):
        lay = self.lay
        times = self.expr(s.times) if s.times is not None else "1"
        lines, writes = [], []
        for i, (v, at) in enumerate(zip(s.fields, s.offsets)):
            if isinstance(v, N.Seq):
                cap = self.p.list_caps[(s.kind, at)]
                lines += [f"v{i} = {self.seq(v)}(S, fp)", f"if len(v{i}) > {cap}:", f"    raise EngineFault({s.fault + 1})"]
                writes += [f"    S[r + {at}] = len(v{i})", f"    S[r + {at + 1}:r + {at + 1} + len(v{i})] = v{i}"]
            else:
                lines.append(f"v{i} = {self.expr(v)}")
                writes.append(f"    S[r + {at}] = v{i}")
        return lines + [f"d = {self.expr(s.dest)}", f"for _ in range({times}):",
                        f"    e = S[{H.THINGS}]", f"    if e >= {lay.things}:", f"        raise EngineFault({s.fault})",
                        f"    S[{H.THINGS}] = e + 1", f"    S[{lay.kinds} + e] = {s.kind}",
                        f"    r = {lay.fields} + e * {lay.width}", *writes,
                        f"    put(S, {self.zone_word('d')}, e, False)", f"    S[{lay.zone_of} + e] = d"]

    def s_Say(self, s):
        args = "(" + "".join(f"({a.ty!r}, {self.expr(a)}), " for a in s.args) + ")"
        return ["if LOG is not None:", f"    LOG(S, 'say', {tuple(s.pieces)!r}, {args})"]

    def s_Reveal(self, s):
        what = self.expr(s.what) if s.what is not None else self.expr(s.zone)
        return ["if LOG is not None:", f"    LOG(S, 'reveal', {int(s.what is None)}, {what})"]

    # ------------------------------------------------------------------ terminators
    def term(self, t: N.Term, unit: N.Unit) -> list[str]:
        return getattr(self, "t_" + type(t).__name__)(t, unit)

    def t_Jump(self, t, unit):
        return [f"return {t.target}"]

    def t_Branch(self, t, unit):
        return [f"return {t.then} if {self.expr(t.test)} else {t.orelse}"]

    def t_Choose(self, t, unit):
        lay, slot = self.lay, self.local(t.slot)
        lines = [f"opts = []", f"for v in {self.seq(t.seq)}(S, fp):"]
        if t.cond is not None:
            lines += [f"    {slot} = v", f"    if {self.expr(t.cond)}:", "        opts.append(v)"]
        else:
            lines += ["    opts.append(v)"]
        if t.optional or t.empty != t.next:
            lines += ["if not opts:", f"    {slot} = {NONE}", f"    return {t.empty}"]
        else:
            lines += ["if not opts:", f"    raise EngineFault({t.nothing})"]
        lines += [f"if len(opts) > {lay.max_options}:", f"    raise EngineFault({t.too_many}, len(opts))"]
        if t.optional:
            lines += [f"opts.append({NONE})"]
        lines += [f"seat = {self.expr(t.by)}", f"if not 0 <= seat < {self.p.seats}:", f"    raise EngineFault({t.no_seat}, seat)",
                  f"S[{lay.options}:{lay.options} + len(opts)] = opts", f"S[{H.NOPTS}] = len(opts)",
                  f"S[{H.SEAT}] = seat", f"S[{H.SITE}] = {t.site}", f"S[{H.DEST}] = fp + {FRAME_HEAD + t.slot}",
                  f"S[fp + 2] = {t.next}", f"S[{H.STATUS}] = {CHOICE}", "return -1"]
        return lines

    def t_Call(self, t, unit):
        callee = self.p.units[t.unit]
        args = [self.expr(a) for a in t.args]
        pad = callee.nlocals - len(args)
        frame = "[fp, " + f"{t.unit}, 0, " + "".join(a + ", " for a in args) + "]" + (f" + [{NONE}] * {pad}" if pad else "")
        return [f"S[fp + 2] = {t.next}", f"if S[{H.DEPTH}] >= {self.lay.depth}:", f"    raise EngineFault(DEPTH_FAULT)",
                f"frame = {frame}", f"if len(S) + {FRAME_HEAD + callee.nlocals} > {self.lay.words}:",
                "    raise EngineFault(COPY_FAULT)", f"S[{H.FP}] = len(S)", "S += frame", f"S[{H.TOP}] = len(S)",
                f"S[{H.DEPTH}] += 1", "return -1"]

    def t_Emit(self, t, unit):
        lines = []
        for i, guard in enumerate(t.guards):
            lines.append(f"ok{i} = {self.expr(guard) if guard is not None else 'True'}")
        lines.append(f"S[fp + 2] = {t.next}")
        args = "".join(self.local(a) + ", " for a in t.args)
        for i in reversed(range(len(t.handlers))):
            callee = self.p.units[t.handlers[i]]
            pad = callee.nlocals - len(t.args)
            frame = f"[S[{H.FP}], {t.handlers[i]}, 0, {args}]" + (f" + [{NONE}] * {pad}" if pad else "")
            lines += [f"if ok{i}:", f"    if S[{H.DEPTH}] >= {self.lay.depth}:", "        raise EngineFault(DEPTH_FAULT)",
                      f"    frame = {frame}", f"    if len(S) + {FRAME_HEAD + callee.nlocals} > {self.lay.words}:",
                      "        raise EngineFault(COPY_FAULT)", f"    S[{H.FP}] = len(S)", "    S += frame",
                      f"    S[{H.TOP}] = len(S)", f"    S[{H.DEPTH}] += 1"]
        return lines + ["return -1"]

    def t_Return(self, t, unit):
        value = self.expr(t.value) if t.value is not None else str(NONE)
        return [f"S[{H.RETURNED}] = {value}", f"S[{H.FP}] = S[fp]", "del S[fp:]", f"S[{H.TOP}] = fp",
                f"S[{H.DEPTH}] -= 1", "return -1"]

    def t_Goto(self, t, unit):
        callee = self.p.units[t.unit]
        frame = f"[-1, {t.unit}, 0] + [{NONE}] * {callee.nlocals}"
        return ["if LOG is not None:", f"    LOG(S, 'phase', {t.unit})",
                f"del S[{self.lay.stack}:]", f"S[{H.FP}] = {self.lay.stack}", f"S += {frame}",
                f"S[{H.TOP}] = len(S)", f"S[{H.DEPTH}] = 1", "return -1"]

    def t_End(self, t, unit):
        if t.team:
            voices = tuple(ts[0] if ts else NONE for ts in self.p.teams)
            return [f"w = {self.expr(t.winner)}", f"if not 0 <= w < {len(voices)}:", f"    raise EngineFault({t.fault}, w)",
                    f"S[{H.WINNER}] = {voices!r}[w]", f"S[{H.WINNER_TEAM}] = w + 1", f"S[{H.STATUS}] = {OVER}", "return -1"]
        if t.winner is None:
            return [f"S[{H.WINNER}] = {NONE}", f"S[{H.STATUS}] = {OVER}", "return -1"]
        return [f"w = {self.expr(t.winner)}", f"if not 0 <= w < {self.p.seats}:", f"    raise EngineFault({t.fault}, w)",
                f"S[{H.WINNER}] = w", f"S[{H.STATUS}] = {OVER}", "return -1"]

    def t_Fail(self, t, unit):
        return [f"raise EngineFault({t.fault})"]
