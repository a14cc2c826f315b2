"""Expressions and sequences of the checked model → typed nodes (`vbr.ir.nodes`).

`ExprBuilder.expr` gives a value's node and `ExprBuilder.seq` a list's; a construct the typed
program cannot express yet raises `Unsupported` with where it is, so that a caller can say why
the engine that needs it cannot run the file. A `fn` is written out where it is called, its
arguments bound once to fresh locals, so no engine has a function call inside an expression.
"""
from __future__ import annotations

from vbr import limits as LIM
from vbr.errors import Diagnostic, EngineUnavailable, VbrCheckError
from vbr.grammar import ast as A
from vbr.checking import types as T
from vbr.checking.scope import Scope
from vbr.ir import nodes as N
from vbr.ir.values import INT_MAX, LIT, NONE, ROW

ALIAS = "alias"  # a scope entry naming a list a fn was given: (ALIAS, (the argument, the caller's scope))

BUILTIN_TYPES = {
    "other": "seat", "next_seat": "seat", "team_of": "int", "abs": "int", "count": "int", "empty": "bool",
    "top": "ent", "bottom": "ent", "zone_of": "zone", "field": "cell", "number": "int", "side": "int", "row": "int",
    "col": "int", "in_court": "bool", "on_net": "bool", "step": "cell", "max": "int", "min": "int",
}


def item_type(list_type: str) -> str:
    """The typed program's type of the items of the checker's list type `list_type`: a list of
    lists holds lists fixed before play (LIT)."""
    item = list_type[len("list:"):]
    return LIT + item_type(item) if item.startswith("list:") else item


def ir_type(ty: str) -> str:
    """The typed program's type for the checker's type `ty` (a list of lists holds LIT values)."""
    return "list:" + item_type(ty) if ty.startswith("list:") else ty


class Unsupported(EngineUnavailable):
    """A construct the typed program does not express yet: `message`, at `span`."""

    def __init__(self, message: str, span, untyped_list: bool = False):
        super().__init__(message)
        self.message, self.span = message, span
        self.untyped_list = untyped_list  # a value of no declared type read as a list (ProgramBuilder._build_proc)

    def text(self) -> str:
        """The error as `vbr check` says it."""
        return f"not supported yet: {self.message}"

    def located(self) -> str:
        s = self.span
        where = f"{s.file}:{s.line}:{s.col}: " if s is not None else ""
        return f"{where}error: {self.text()}"

    def render(self) -> str:
        """The error as `vbr check` shows it: `located()`, then the source line and a caret."""
        return Diagnostic(self.span, self.text()).render() if self.span is not None else self.located()


class Misread(Unsupported):
    """A value given to an untyped parameter read there as what it is not (`a + 1` of an enum
    member, `a.v` of a number): an error of the rule file, located where the body reads it, found
    when the file is loaded (docs/language.md, `proc`), not a construct still to come."""

    def text(self) -> str:
        return self.message


_NUMBERS = ("int", "seat", "none", "any")  # what arithmetic and ordering read (none: a located error in play;
# any: a value of no type known here, whose unit for each call is built with the types it gives)


# what `+ - * / %` of two numbers fixed before play give (the language's `/` and `%` floor, as Python's)
_ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
               "/": lambda a, b: a // b, "%": lambda a, b: a % b}


def _fixed_number(x: N.Expr) -> bool:
    """Whether `x` is a number fixed before play (not none)."""
    return isinstance(x, N.Const) and x.ty in ("int", "seat") and x.value != NONE


def _worked_out(op: str, left: N.Expr, right: N.Expr) -> N.Const | None:
    """`left op right` (`+ - * / %`) as a number fixed before play, when both sides are and the
    result is a number of the language; None when play must work it out (and fault: a division
    by zero, a result out of range), or it is no number known now."""
    if not (_fixed_number(left) and _fixed_number(right)) or op in ("/", "%") and right.value == 0:
        return None
    value = _ARITHMETIC[op](left.value, right.value)
    return N.Const("int", value) if -INT_MAX <= value <= INT_MAX else None


# where a value is read from that may hold none: a bool read so is a condition that may be none
_KEPT = (N.Local, N.Global, N.Field, N.FieldOfAny, N.StackAt, N.ItemAt, N.Lookup, N.FnCall, N.Returned, N.Bind,
         N.IfElse, N.Pick, N.Roll)
HEAVY_FN = 1024  # expression nodes of a fn with the fns it calls written out, from which it is called, not written out
WRITTEN_OUT = 20_000  # expression nodes of light fns a unit's own code writes out; past them it calls them (no steps)


def _never_equal(a: str, b: str) -> bool:
    """Values of these two types are never equal, though their words may be (an untyped
    parameter given an int, compared with a string: `k == "x"` held when k was the string's
    number; two enums' members of the same place): the checker's "always false" for typed ones."""
    if a.startswith((LIT, ROW)) or b.startswith((LIT, ROW)):
        return False
    return not T.compatible(a, b)


def stored(value: N.Expr, slot: str, what: str, span) -> N.Expr:
    """`value`, once it is of a type slot `slot` holds (`what` names the slot in the error, as
    the checker does: `cannot assign Colour to int`): an untyped parameter given an enum member
    stored into an int var, field or parameter is an error where it is stored."""
    if _never_equal(value.ty, slot):
        raise Misread(what.format(given=T.show(value.ty), slot=T.show(slot)), span)
    return value


class _Told:
    """What the checker's table of built-ins reports to: the model, and the errors it finds."""

    def __init__(self, m, diags):
        self.m, self.diags = m, diags


class FnLocals:
    """What building a heavy fn's body lends it in place of a unit: its own locals, its name."""

    def __init__(self, name: str):
        self.name, self.inlining, self.nlocals = f"fn {name}", [name], 0

    def local(self, ty: str) -> int:
        self.nlocals += 1
        return self.nlocals - 1

    def temp(self, ty: str) -> int:
        """An expression's own local: in a fn's body, never shared."""
        return self.local(ty)


class ExprBuilder:
    """Builds the nodes of one unit's expressions; `unit` lends it locals, faults, texts, streams."""

    def __init__(self, program_builder, unit_builder):
        self.pb, self.ub, self.m = program_builder, unit_builder, program_builder.m

    # ------------------------------------------------------------------ values
    def expr(self, e: A.Expr, scope: Scope) -> N.Expr:
        method = getattr(self, "x_" + type(e).__name__, None)
        if method is None:
            raise Unsupported(f"the typed program has no value form of {type(e).__name__} yet", e.span)
        return method(e, scope)

    def x_IntLit(self, e, scope):
        return N.Const("int", e.value)

    def x_BoolLit(self, e, scope):
        return N.Const("bool", int(e.value))

    def x_NoneLit(self, e, scope):
        return N.Const("none", NONE)

    def x_StrLit(self, e, scope):
        return N.Const("str", self.pb.text(e.value))

    def x_ListLit(self, e: A.ListLit, scope: Scope):
        """A list literal as a value, an item of a list of lists: a list fixed before play, kept
        once in the program's table of such lists (`Names.lits`), so that two are equal exactly
        when their indexes are."""
        items = [self.expr(x, scope) for x in e.items]
        if not all(isinstance(x, N.Const) for x in items):
            raise Unsupported("a list worked out in play as an item of a list (such items are lists fixed before play)",
                              e.span)
        items = self.same_lits(items)
        item = self.joined_type([x.ty for x in items], e.span) if items else ""  # "": typed where it meets others
        return N.Const(LIT + item, self.pb.lit_row(item, tuple(x.value for x in items)))

    def joined_type(self, types: list[str], span) -> str:
        """The one type values of `types` share (none aside), so that each reads as it should:
        things of several kinds share `ent`, ints and seats `int`; values that read otherwise (a
        bool and a number, two enums) cannot share a list or an `if`'s two sides (Unsupported)."""
        kinds = {t for t in types if t != "none"}
        if len(kinds) <= 1:
            return kinds.pop() if kinds else "none"
        if "any" in kinds:
            return "any"
        if all(t.startswith("ent") for t in kinds):
            return "ent"
        if kinds <= {"int", "seat"}:
            return "int"
        shown = " and ".join(sorted(_shown_type(t) for t in kinds))
        raise Unsupported(f"values of several types ({shown}) in one list or `if`: the typed engines keep one type "
                          "for the values a list or an `if` gives", span)

    def x_RangeExpr(self, e: A.RangeExpr, scope: Scope):
        """A range as a value, an item of a list of lists: fixed before play, as a list literal is."""
        lo, hi = self.expr(e.lo, scope), self.expr(e.hi, scope)
        if not (isinstance(lo, N.Const) and isinstance(hi, N.Const)):
            raise Unsupported("a range worked out in play as an item of a list (such items are lists fixed before play)",
                              e.span)
        if hi.value - lo.value >= self.pb.longest_literal:  # bounds named by consts or options, not literals
            raise Unsupported(f"a range as an item of a list holding more numbers ({hi.value - lo.value + 1}) than "
                              f"the file's longest list literal ({self.pb.longest_literal})", e.span)
        return N.Const(LIT + "int", self.pb.lit_row("int", tuple(range(lo.value, hi.value + 1))))

    def same_lits(self, values: list) -> list:
        """`values` with each empty list fixed before play (type `lit:`) retyped as the other
        lists among them, so that lists of one item type share one table."""
        typed = {v.ty for v in values if v.ty.startswith(LIT) and v.ty != LIT}
        if len(typed) != 1 or not any(v.ty == LIT for v in values):
            return values
        ty = typed.pop()
        return [N.Const(ty, self.pb.lit_row(ty[len(LIT):], ())) if v.ty == LIT else v for v in values]

    def lit_items(self, value: N.Expr, span) -> N.Seq:
        """The items of a list fixed before play, given its index (a LIT value)."""
        item = value.ty[len(LIT):]
        rows = self.pb.lits.setdefault(item, [])  # the table itself: rows met later in the build join it
        fault = self.pb.fault("none where a list is needed", span)
        return N.TableItems(item, self.pb.longest_literal, rows, value, fault)

    def x_Name(self, e: A.Name, scope: Scope):
        name, m = e.id, self.m
        local = scope.lookup(name)
        if local is not None:
            if local[0] == ALIAS:
                return self.expr(*local[1])
            if local[0].startswith(("list:", ROW)):
                raise Unsupported(f"the list `{name}` as a value", e.span)
            return N.Local(local[0], local[1])
        if name in m.vars:
            v = m.vars[name]
            if v.type.startswith("list:"):
                raise Unsupported(f"the list `{name}` as a value", e.span)
            if v.per:
                raise Unsupported(f"`{name}` is kept per {v.per}: as a value it is a list", e.span)
            return N.Global(v.type, v.base)
        if name in m.consts:
            return self.expr(m.consts[name].value, Scope())
        if name in m.options:
            return self.pb.option_const(name, e.span)
        if name in m.member_enum:
            enum = m.member_enum[name]
            return N.Const("enum:" + enum, m.enums[enum].index(name))
        if name in m.directions:
            return N.Const("dir", list(m.directions).index(name))
        if name in m.zones and not m.zones[name].per:
            return N.Const("zone", m.zones[name].base)
        raise Unsupported(f"`{name}` as a value", e.span)

    def x_Attr(self, e: A.Attr, scope: Scope):
        obj = self.expr(e.obj, scope)
        if obj.ty.startswith("ent:"):
            kind = self.m.kinds[obj.ty[4:]]
            if e.name not in kind.fields:  # a thing given a parameter of no declared type
                raise Misread(f"kind `{kind.decl.name}` has no field `{e.name}`", e.span)
        elif obj.ty in ("ent", "any"):
            owners = [k for k in self.m.kinds.values() if e.name in k.fields]
            if not owners:
                raise Unsupported(f"no kind has a field `{e.name}`", e.span)
            if len(owners) > 1:
                return self._field_of_any(e, obj, owners)
            kind = owners[0]
        else:
            raise Misread(f"only cards and pieces have fields; this is {T.show(obj.ty)}", e.span)
        pos, ft = kind.fields[e.name]
        if ft.startswith("list:"):
            raise Unsupported(f"the list field `{e.name}` as a value", e.span)
        fault = self.pb.fault(f"`.{e.name}` of {{0}}, which is no {kind.decl.name}", e.span)
        return N.Field(ft, obj, kind.index, self.pb.field_at[(kind.index, e.name)], fault, e.span)

    def _field_of_any(self, e: A.Attr, obj: N.Expr, owners) -> N.Expr:
        types = {k.fields[e.name][1] for k in owners}
        if any(t.startswith("list:") for t in types):
            raise Unsupported(f"the list field `{e.name}` of a thing whose kind is known only in play", e.span)
        positions = [-1] * len(self.m.kinds)
        for k in owners:
            positions[k.index] = self.pb.field_at[(k.index, e.name)]
        fault = self.pb.fault(f"`.{e.name}` of {{0}}, which has no such field", e.span)
        return N.FieldOfAny(types.pop() if len(types) == 1 else "any", obj, positions, fault, e.span)

    def field_items(self, e: A.Attr, scope: Scope) -> N.Seq | None:
        """`thing.field` of a list field, as a sequence; None when e is no such field."""
        obj = self.expr(e.obj, scope)
        kinds = [self.m.kinds[obj.ty[4:]]] if obj.ty.startswith("ent:") else \
            [k for k in self.m.kinds.values() if e.name in k.fields]
        if len(kinds) != 1 or e.name not in kinds[0].fields or not kinds[0].fields[e.name][1].startswith("list:"):
            return None
        kind = kinds[0]
        item = item_type(kind.fields[e.name][1])
        fault = self.pb.fault(f"`.{e.name}` of {{0}}, which is no {kind.decl.name}", e.span)
        return N.FieldItems(item, self.pb.list_cap[(kind.index, e.name)], obj, kind.index,
                            self.pb.field_at[(kind.index, e.name)], fault)

    def x_Index(self, e: A.Index, scope: Scope):
        if isinstance(e.obj, A.Name) and scope.lookup(e.obj.id) is None:
            name = e.obj.id
            slotted = self.m.vars.get(name) or self.m.zones.get(name)
            if slotted is not None and slotted.per and slotted.type.startswith("list:"):
                raise Unsupported(f"the list `{name}[...]` as a value", e.span)
            if slotted is not None and slotted.per:
                idx = self.number(e.index, scope, "an index")
                fault = self.pb.fault(f"`{name}[{{0}}]`: out of 0..{slotted.count - 1}", e.span)
                if name in self.m.zones:
                    return N.ZoneAt("zone", slotted.base, slotted.count, idx, fault, e.span)
                return N.Global(slotted.type, slotted.base, slotted.count, idx, fault, e.span)
        seq = self.seq(e.obj, scope)
        fault = self.pb.fault("list index {0} out of range 0..{1}", e.span)
        return N.ItemAt(seq.item, seq, self.number(e.index, scope, "an index"), fault)

    def cond(self, e: A.Expr, scope: Scope) -> N.Expr:
        """A condition (of an `if`, a `while`, a `where`, a `when`, `not`, `and`, `or`, an `if`
        expression, a filter, the body of `any` or `all`): a bool read from where none may be
        kept faults on none, where it is written."""
        x = self.expr(e, scope)
        if x.ty not in ("bool", "none", "any"):  # an untyped parameter given a number, say
            raise Misread(f"a condition must be bool, not {T.show(x.ty)}", e.span)
        if x.ty == "bool" and isinstance(x, _KEPT):
            return N.Known("bool", x, self.pb.fault("this condition is none, neither true nor false", e.span))
        return x

    def zone(self, e: A.Expr, scope: Scope, what: str) -> N.Expr:
        """A value read as a zone (where a `move` or a `create` puts things, what a `shuffle`
        shuffles): one of another type, such as an untyped parameter given a number, is an error
        where it is read (the number was taken for the zone of that place)."""
        x = self.expr(e, scope)
        if x.ty not in ("zone", "none", "any"):
            raise Misread(f"{what} must be zone, not {T.show(x.ty)}", e.span)
        return x

    def number(self, e: A.Expr, scope: Scope, what: str, sort: str = "a number") -> N.Expr:
        """A value read as a number (`sort`: a seat, a team, a count): one of another type, such
        as an untyped parameter given an enum member, is an error where it is read."""
        x = self.expr(e, scope)
        if x.ty not in _NUMBERS:
            raise Misread(f"{what} must be {sort}, not {T.show(x.ty)}", e.span)
        return x

    def range_end(self, e: A.Expr, scope: Scope) -> N.Expr:
        """An end of a range worked out in play: a none there faults, where it is written."""
        x = self.expr(e, scope)
        if isinstance(x, _KEPT) or isinstance(x, N.Aggregate) and x.agg in ("first", "max", "min"):
            return N.Known(x.ty, x, self.pb.fault("this end of a range is none, not a number", e.span))
        return x

    def x_Unary(self, e: A.Unary, scope: Scope):
        operand = self.cond(e.operand, scope) if e.op == "not" else self.expr(e.operand, scope)
        if e.op == "not":
            if isinstance(operand, N.Const):
                return N.Const("bool", int(not operand.value))
            return N.Unary("bool", "not", operand)
        self._numbers(e.op, [(e.operand, operand)])
        if _fixed_number(operand):  # `-3`: a number fixed before play (a die's face, an item of a table)
            return N.Const("int", -operand.value)
        return N.Unary("int", "neg", operand, e.span, self.pb.overflow_fault(e.span))

    @staticmethod
    def _numbers(op: str, sides) -> None:
        """Arithmetic and ordering read numbers: a side of another type (an untyped parameter
        given an enum member, a bool) is an error where it is read."""
        for written, built in sides:
            if built.ty not in _NUMBERS:
                raise Misread(f"`{op}` works on numbers, not {T.show(built.ty)}", written.span)

    def x_Binary(self, e: A.Binary, scope: Scope):
        op = e.op
        if op in ("in", "not in"):
            if self.is_list(e.left, scope):
                found = self._list_in(e, scope)
            else:
                item, seq = self.expr(e.left, scope), self.seq(e.right, scope)
                found = N.Contains("bool", item, seq)
                if _never_equal(item.ty, seq.item):  # never among them; both still worked out
                    found = N.Binary("bool", "and", found, N.Const("bool", 0))
            return found if op == "in" else N.Unary("bool", "not", found)
        if op in ("==", "!=") and self.is_list(e.left, scope) and self.is_list(e.right, scope):
            same = N.SeqEqual("bool", self.seq(e.left, scope), self.seq(e.right, scope))
            return same if op == "==" else N.Unary("bool", "not", same)
        side = self.cond if op in ("and", "or") else self.expr
        left = side(e.left, scope)
        if op in ("and", "or") and isinstance(left, N.Const):
            decided = bool(left.value) == (op == "or")
            return N.Const("bool", left.value) if decided else side(e.right, scope)
        right = side(e.right, scope)
        if op in ("and", "or"):
            if isinstance(right, N.Const) and bool(right.value) == (op == "and"):
                return left
            return N.Binary("bool", op, left, right)
        if op in ("==", "!="):
            left, right = self.same_lits([left, right])
            if isinstance(left, N.Const) and isinstance(right, N.Const):
                return N.Const("bool", int((left.value == right.value) == (op == "==")))
            if _never_equal(left.ty, right.ty):  # both sides still worked out: a draw in them happens
                return N.Binary("bool", "and" if op == "==" else "or", N.Binary("bool", op, left, right),
                                N.Const("bool", int(op == "!=")))
            return N.Binary("bool", op, left, right)
        self._numbers(op, [(e.left, left), (e.right, right)])
        if op in ("<", "<=", ">", ">="):
            return N.Binary("bool", op, left, right, e.span, self.pb.fault(f"`{op}` compares numbers, not none", e.span))
        fixed = _worked_out(op, left, right)
        if fixed is not None:
            return fixed
        return N.Binary("int", op, left, right, e.span, self.pb.overflow_fault(e.span))

    def x_Cond(self, e: A.Cond, scope: Scope):
        test = self.cond(e.test, scope)
        then, orelse = self.expr(e.then, scope), self.expr(e.orelse, scope)
        if isinstance(test, N.Const):
            return then if test.value else orelse
        then, orelse = self.same_lits([then, orelse])
        return N.IfElse(self.joined_type([then.ty, orelse.ty], e.span), test, then, orelse)

    def x_Roll(self, e: A.Roll, scope: Scope):
        die = self.pb.die_index[e.die]
        return N.Roll(self.pb.die_types[die], die, self.pb.stream(self.ub.name, f"roll {e.die}"),
                      self.pb.forced_queue(("roll", die)), self.pb.undecided(("roll", die), e.span))

    def x_Pick(self, e: A.Pick, scope: Scope):
        seq = self.seq(e.source, scope)
        pick = N.Pick(seq.item, seq, self.pb.stream(self.ub.name, "pick"), -1, e.span, self.pb.forced_queue(("pick",)))
        pick.undecided = self.pb.undecided(("pick", seq.item), e.span)
        if pick.forced >= 0 and pick.undecided < 0:
            pick.forced_fault = self.pb.fault("the forced pick {0} is not among the items on offer", e.span)
        return pick

    def x_Comprehension(self, e: A.Comprehension, scope: Scope):
        if e.agg == "every":
            raise Unsupported("`every(...)` as a value (a list)", e.span)
        source, slot, body, cond = self._comprehension(e, scope)
        ty = {"sum": "int", "any": "bool", "all": "bool"}.get(e.agg, body.ty)
        fault = self.pb.overflow_fault(e.span) if e.agg == "sum" else -1
        return N.Aggregate(ty, e.agg, source, slot, body, cond, e.span, fault)

    def _list_in(self, e: A.Binary, scope: Scope) -> N.Expr:
        """`LIST in ROWS`, ROWS a list of lists: whether some row holds LIST's items in order, as
        `any(row == LIST for row in ROWS)`. LIST is worked out again for each row, so what in it
        draws at random is worked out once first (`_drawn_once`)."""
        wanted = self.seq(e.left, scope)
        wanted, binds = self._drawn_once(wanted, e.span)
        rows = self.seq(e.right, scope)
        if not rows.item.startswith((ROW, LIT)):
            raise Unsupported(f"a list sought in {T.show('list:' + rows.item)}", e.span)
        slot = self.ub.temp(rows.item)
        row = self.var_items(rows.item[len(ROW):], N.Local("int", slot), e.span) if rows.item.startswith(ROW) \
            else self.lit_items(N.Local(rows.item, slot), e.span)
        found = N.Aggregate("bool", "any", rows, slot, N.SeqEqual("bool", row, wanted))
        for bound_slot, value in reversed(binds):
            found = N.Bind("bool", bound_slot, value, found)
        return found

    def _drawn_once(self, seq: N.Seq, span) -> tuple[N.Seq, list[tuple[int, N.Expr]]]:
        """`seq` read again without drawing again: the items of a list literal (or the ends of a
        range), up to the last that draws at random, bound to locals in order, once; and those
        (local, value) bindings. A list that draws in another way (a comprehension) is refused."""
        def draws(x) -> bool:
            return any(isinstance(n, (N.Pick, N.Roll)) for n in N.walk(x))
        if not draws(seq):
            return seq, []
        if isinstance(seq, N.Items):
            parts = list(seq.items)
        elif isinstance(seq, N.RangeItems):
            parts = [seq.lo, seq.hi]
        else:
            raise Unsupported("a list drawn at random, other than a list literal or a range, sought in a list of "
                              "lists", span)
        last = max(i for i, x in enumerate(parts) if draws(x))
        binds = [(self.ub.temp(x.ty), x) for x in parts[:last + 1]]
        parts[:last + 1] = [N.Local(x.ty, slot) for slot, x in binds]
        if isinstance(seq, N.Items):
            return N.Items(seq.item, seq.bound, parts), binds
        return N.RangeItems(seq.item, seq.bound, parts[0], parts[1], seq.fault), binds

    def _comprehension(self, e: A.Comprehension, scope: Scope):
        """(source, the item's local, body, condition) of `AGG(body for x in source if cond)`."""
        source = self.seq(e.source, scope)
        inner = scope.child()
        slot = self.ub.temp(source.item)
        inner.names[e.var] = (source.item, slot)
        body = self.cond(e.body, inner) if e.agg in ("any", "all") else self.expr(e.body, inner)
        cond = self.cond(e.filter, inner) if e.filter is not None else None
        return source, slot, body, cond

    def x_Call(self, e: A.Call, scope: Scope):
        if e.func in self.m.fns:
            size = self.pb.fn_size(e.func)
            if not any(self.is_list(a, scope) for a in e.args) and (size >= HEAVY_FN or not self._may_write_out(size)):
                return self._fn_call(e, scope, heavy=size >= HEAVY_FN)
            return self._inline(e, scope, self.expr)
        if e.func in self.m.procs:
            raise Unsupported("a procedure's result inside an expression (only `let x = f(...)`)", e.span)
        return self._builtin(e, scope)

    # ------------------------------------------------------------------ built-ins
    def _builtin(self, e: A.Call, scope: Scope) -> N.Expr:
        name, args = e.func, e.args
        if name in ("count", "empty"):
            seq = self.seq(args[0], scope)
            slot = self.ub.temp(seq.item)
            count = N.Aggregate("int", "count", seq, slot, N.Const("int", 1))
            if name == "count":
                return count
            return N.Binary("bool", "==", count, N.Const("int", 0))
        if name in ("max", "min") and len(args) == 1:
            seq = self.seq(args[0], scope)
            slot = self.ub.temp(seq.item)
            fault = self.pb.fault(f"`{name}` of a list holding none", e.span)
            return N.Aggregate("int", name, seq, slot, N.Local(seq.item, slot), None, e.span, fault)
        if name == "index_of":
            return N.IndexOf("int", self.expr(args[0], scope), self.seq(args[1], scope))
        if name == "owner":
            return self._owner(e, scope)
        if name == "partner":
            table = []
            for seat in range(self.m.seats):
                team = self.m.teams[self.m.team_of[seat]]
                table.append(team[(team.index(seat) + 1) % len(team)])
            fault = self.pb.fault("`partner({0})`: no such seat", e.span)
            return N.Lookup("seat", table, self.number(args[0], scope, "`partner`'s argument", "a seat"), fault)
        if name == "team_of":
            fault = self.pb.fault("`team_of({0})`: no such seat", e.span)
            return N.Lookup("int", list(self.m.team_of), self.number(args[0], scope, "`team_of`'s argument", "a seat"),
                            fault)
        if name == "space":
            court = self.pb.court
            sname = getattr(args[0], "id", None)
            if court is None or sname not in court.spaces:
                raise Unsupported("`space` of no declared space", e.span)
            from vbr.ir.values import cell
            fault = self.pb.fault("`space`: there is no side {0} (0 or 1)", e.span)
            return N.Lookup("cell", [cell(*court.space(sname, side)) for side in (0, 1)], self.expr(args[1], scope), fault)
        if name == "cell_at":
            court = self.pb.court
            if court is None:
                raise Unsupported("`cell_at` needs a court", e.span)
            values = self._read_as_built_in_reads(e, [self.expr(a, scope) for a in args])
            fault = self.pb.fault("`cell_at`: there is no side {0} (0 or 1)", e.span)
            return N.Builtin("cell", "cell_at", values, fault, e.span)
        if name == "distance":
            values = self._read_as_built_in_reads(e, [self.expr(a, scope) for a in args])
            return N.Builtin("int", "distance", values, self.pb.fault("`distance` of none", e.span), e.span)
        if name == "step" and len(args) == 5 and self.pb.court is not None:
            return self._step_paying(e, scope)
        if name not in BUILTIN_TYPES:
            raise Unsupported(f"the built-in `{name}`", e.span)
        values = [self.side(a, scope, name) if name == "step" and i == 2 else self.expr(a, scope) for i, a in enumerate(args)]
        values = self._read_as_built_in_reads(e, values)
        if name in ("field", "number", "side", "row", "col", "in_court", "on_net", "step") and self.pb.court is None:
            raise Unsupported(f"`{name}` needs a court", e.span)
        messages = {
            "other": "`other({0})`: only 0 and 1 have an other side; use next_seat or partner",
            "field": "there is no field {1} on side {0}",
            "number": "`number` of none", "side": "`side` of none", "row": "`row` of none", "col": "`col` of none",
            "in_court": "`in_court` of none", "on_net": "`on_net` of none",
            "zone_of": "`zone_of` of {0}, which is no thing", "top": "`top` of none", "bottom": "`bottom` of none",
            "step": "`step` from or along none, or to a position off the court by more than 32768",
            "team_of": "`team_of({0})`: no such seat", "next_seat": "`next_seat({0})`: no such seat",
            "abs": "`abs` of none", "max": "`max` of none", "min": "`min` of none",
        }
        fault = self.pb.fault(messages[name], e.span) if name in messages else -1
        return N.Builtin(BUILTIN_TYPES[name], name, values, fault, e.span)

    def _read_as_built_in_reads(self, e: A.Call, values: list) -> list:
        """`values`, once each is of a type the built-in reads there (the checker's table,
        vbr/checking/builtins.py): an untyped parameter given another (`abs` of an enum member)
        is an error where it is given."""
        from vbr.checking.builtins import CHECKS
        from vbr.errors import Diagnostics
        told = _Told(self.m, Diagnostics())
        CHECKS[e.func](told, e, [v.ty for v in values])
        if told.diags.errors:
            first = told.diags.errors[0]
            raise Misread(first.message, first.span)
        return values

    def _step_paying(self, e: A.Call, scope: Scope) -> N.Expr:
        """`step(c, d, side, n, net cost)`: unit steps until n is paid, a net row costing the net
        cost (Court.step); faults: off the court, then a net cost below 0, then n out of 0..1024."""
        values = [self.side(a, scope, "step") if i == 2 else self.expr(a, scope) for i, a in enumerate(e.args)]
        fault = self.pb.fault("`step` from or along none, or to a position off the court by more than 32768", e.span)
        self.pb.fault("`step`'s net cost is {0}: it must be 0 or more", e.span)
        self.pb.fault("`step` of {0} with a net cost is out of 0..1024", e.span)
        return N.Builtin("cell", "step_paying", values, fault, e.span)

    def side(self, e: A.Expr, scope: Scope, what: str) -> N.Expr:
        """A court side given to `what`: 0 or 1, else a fault where it is given."""
        x = self.expr(e, scope)
        if isinstance(x, N.Const) and x.value in (0, 1):
            return x
        return N.Lookup("int", [0, 1], x, self.pb.fault(f"`{what}`: there is no side {{0}} (0 or 1)", e.span))

    def _owner(self, e: A.Call, scope: Scope) -> N.Expr:
        """`owner(x)`: the seat (or team) a zone is kept for, -1 for a shared one; of a thing,
        of the zone it is in."""
        x = self.expr(e.args[0], scope)
        if x.ty != "zone":
            x = N.Builtin("zone", "zone_of", [x], self.pb.fault("`owner` of {0}, which is no thing", e.span), e.span)
        fault = self.pb.fault("`owner` of {0}, which is no zone", e.span)
        return N.Lookup("seat", list(self.m.zone_owner), x, fault)

    def _may_write_out(self, size: int) -> bool:
        """Whether a light fn of `size` nodes (with the fns it calls written out) called here is
        written out: always inside a fn's body (bounded by the limit on expanded size) or inside
        a fn being written out (its caller counted it whole); in a unit's own code, while the fns
        written out there come to at most WRITTEN_OUT nodes, and those of the whole file to at
        most the limit on written-out calls. Past that it is called, as a heavy fn is: a phase
        calling a fn of 1,015 nodes in 1,000 statements wrote out a million nodes, which the
        Python engine took 30 s and 3.7 GB to compile. The bundled books write out at most about
        1,000 nodes a unit."""
        ub = self.ub
        if isinstance(ub, FnLocals) or ub.inlining:
            return True
        return ub.written_out + size <= WRITTEN_OUT and self.pb.written_out + size <= LIM.MAX_WRITTEN_OUT

    def _count_written_out(self, e: A.Call) -> None:
        """Count fn `e.func` written out at call `e` in a unit's own code (_inline): see
        count_written_out."""
        ub = self.ub
        if isinstance(ub, FnLocals) or ub.inlining:
            return
        size = self.pb.fn_size(e.func)
        ub.written_out += size
        self.count_written_out(e, size, "expression nodes with the fns it calls; a fn given a list is written out "
                                        "at each call")

    def count_written_out(self, e: A.Call, size: int, what: str) -> None:
        """Count `size` nodes of `e.func` written out at call `e` (a fn, or a procedure that gives
        a list); past the file's limit on written-out calls, a located error at the call (a fn
        given a list, or such a procedure, called thousands of times: 500 calls of a fn of 1,018
        nodes took 15 s and 1.9 GB to build under `--engine python`). `what` says what the size
        counts and why the call is written out."""
        self.pb.written_out += size
        if self.pb.written_out > LIM.MAX_WRITTEN_OUT:
            raise VbrCheckError([Diagnostic(e.span, (
                f"`{e.func}` written out here ({size:,} {what}) brings what this file writes out at its calls to "
                f"{self.pb.written_out:,} nodes, more than {LIM.MAX_WRITTEN_OUT:,}, the limit on written-out calls"))],
                self.m.rules.sources)

    def _fn_call(self, e: A.Call, scope: Scope, heavy: bool = True) -> N.Expr:
        """A fn called: its body built once for these argument types, its arguments here. A heavy
        fn called from a unit pays a step per 64 of its nodes (docs/language.md, `limit`); a light
        one (called past WRITTEN_OUT) pays none, as when it is written out."""
        values = [self.expr(a, scope) for a in e.args]
        fn = self.pb.fn_body(e.func, tuple(v.ty for v in values), e.span)
        steps = 0 if isinstance(self.ub, FnLocals) or not heavy else self.pb.fn_size(e.func) // 64
        return N.FnCall(self.pb.fns[fn].body.ty, fn, values, steps)

    def _inline(self, e: A.Call, scope: Scope, build):
        """`fn f(a, b) = body` written out at its call: each argument into a fresh local, but for
        a local of the caller, a var or a constant, which the body reads where it reads the
        parameter (nothing an expression runs writes a var, or a local it did not bind); a list
        argument is read there too (lists never change, so reading it again gives the same
        items), unless it draws at random."""
        d = self.m.fns[e.func]
        if e.func in self.ub.inlining:
            raise Unsupported(f"`{e.func}` calls itself", e.span)
        self._count_written_out(e)
        inner = Scope()
        slots = []
        for p, a in zip(d.params, e.args):
            if self.is_list(a, scope):
                if self._draws(a):
                    raise Unsupported(f"a list drawn at random given to `{e.func}` (bind it with `let` first)", a.span)
                inner.names[p.name] = (ALIAS, (a, scope))
                continue
            v = self.expr(a, scope)
            if isinstance(v, N.Local):  # a local of the caller: nothing the body runs writes it
                inner.names[p.name] = (v.ty, v.slot)
                continue
            if isinstance(v, N.Global) and v.index is None or isinstance(v, N.Const):
                inner.names[p.name] = (ALIAS, (a, scope))  # read again where the body reads it: the same value
                continue
            slot = self.ub.temp(v.ty)
            inner.names[p.name] = (v.ty, slot)
            slots.append((slot, v))
        self.ub.inlining.append(e.func)
        try:
            body = build(d.body, inner)
        finally:
            self.ub.inlining.pop()
        for slot, v in reversed(slots):
            body = N.BindSeq(body.item, body.bound, slot, v, body) if isinstance(body, N.Seq) \
                else N.Bind(body.ty, slot, v, body)
        return body

    def _draws(self, e: A.Expr, seen: frozenset = frozenset()) -> bool:
        """Whether working out `e` may draw at random: a `roll` or `pick` in it or in a fn it calls
        (each fn looked into once for the program, ProgramBuilder.fn_draws: fns each calling the
        one before twice were looked into 2^n times at each call)."""
        for node in A.walk(e):
            if isinstance(node, (A.Roll, A.Pick)):
                return True
            if isinstance(node, A.Call) and node.func in self.m.fns and node.func not in seen:
                if node.func not in self.pb.fn_draws:
                    self.pb.fn_draws[node.func] = self._draws(self.m.fns[node.func].body, seen | {node.func})
                if self.pb.fn_draws[node.func]:
                    return True
        return False

    # ------------------------------------------------------------------ sequences
    def is_list(self, e: A.Expr, scope: Scope) -> bool:
        """Whether e gives a list (by its form alone, before it is built)."""
        m = self.m
        if isinstance(e, (A.ListLit, A.RangeExpr)):
            return True
        if isinstance(e, A.Comprehension):
            return e.agg == "every"
        if isinstance(e, A.Cond):
            return self.is_list(e.then, scope) or self.is_list(e.orelse, scope)
        if isinstance(e, A.Name):
            local = scope.lookup(e.id)
            if local is not None:
                return self.is_list(*local[1]) if local[0] == ALIAS else local[0].startswith(("list:", ROW, LIT))
            if e.id in m.consts:
                return self.is_list(m.consts[e.id].value, Scope())
            return e.id in ("seats", "teams") or e.id in m.enums or e.id in m.kinds or \
                (e.id in m.vars and (bool(m.vars[e.id].per) or m.vars[e.id].type.startswith("list:"))) or (e.id in m.zones and bool(m.zones[e.id].per))
        if isinstance(e, A.Call):
            if e.func in m.fns:
                d = m.fns[e.func]
                inner = Scope()
                for p, a in zip(d.params, e.args):
                    inner.names[p.name] = (ALIAS, (a, scope)) if self.is_list(a, scope) else ("any", -1)
                return self.is_list(d.body, inner)
            return e.func in ("cells", "reach", "team_seats", "directions")
        if isinstance(e, A.Attr):
            kinds = [k for k in m.kinds.values() if e.name in k.fields]
            return any(k.fields[e.name][1].startswith("list:") for k in kinds)
        if isinstance(e, A.Index) and isinstance(e.obj, A.Name) and scope.lookup(e.obj.id) is None and \
                e.obj.id in m.vars and m.vars[e.obj.id].per:
            return m.vars[e.obj.id].type.startswith("list:")
        if isinstance(e, A.Index):
            return self.items_are_lists(e.obj, scope)
        return False

    def items_are_lists(self, e: A.Expr, scope: Scope) -> bool:
        """Whether the items of the list `e` gives are lists (by its form alone, before it is built)."""
        m = self.m
        if isinstance(e, A.ListLit):
            return any(self.is_list(x, scope) for x in e.items)
        if isinstance(e, A.Cond):
            return self.items_are_lists(e.then, scope) or self.items_are_lists(e.orelse, scope)
        if not isinstance(e, A.Name):
            return False
        local = scope.lookup(e.id)
        if local is not None:
            return self.items_are_lists(*local[1]) if local[0] == ALIAS else \
                local[0].startswith(("list:" + LIT, "list:" + ROW))
        if e.id in m.consts:
            return self.items_are_lists(m.consts[e.id].value, Scope())
        v = m.vars.get(e.id)
        return v is not None and v.type.startswith("list:") and (bool(v.per) or v.type.startswith("list:list:"))

    def seq(self, e: A.Expr, scope: Scope) -> N.Seq:
        m = self.m
        if isinstance(e, A.Name) and (scope.lookup(e.id) or ("",))[0] == ALIAS:
            return self.seq(*scope.lookup(e.id)[1])
        if isinstance(e, A.Name) and scope.lookup(e.id) is not None and scope.lookup(e.id)[0].startswith("list:"):
            ty, (base, count, bound) = scope.lookup(e.id)
            items = N.StackItems(ty[5:], bound, base, count)
            passed = getattr(self.ub, "passed_rows", {}).get(base)  # a slot's list copied, or none (UnitBuilder.keep_row)
            if passed is None:
                return items
            var, slot = passed
            given = N.Binary("bool", "!=", N.Local("int", slot), N.Const("none", NONE))
            return N.ChooseSeq(items.item, bound, given, items, self.var_items(var, N.Local("int", slot), e.span))
        if isinstance(e, A.Name) and scope.lookup(e.id) is not None and scope.lookup(e.id)[0].startswith(ROW):
            ty, slot = scope.lookup(e.id)
            return self.var_items(ty[len(ROW):], N.Local("int", slot), e.span)
        if isinstance(e, A.Name) and scope.lookup(e.id) is None:
            return self._named_seq(e, scope)
        listed = self.list_var(e, scope)
        if listed is not None:
            return listed
        if isinstance(e, A.ListLit):
            items = self.same_lits([self.expr(x, scope) for x in e.items])
            item = self.joined_type([x.ty for x in items], e.span)
            return N.Items("any" if item == "none" else item, len(items), items)
        if isinstance(e, A.RangeExpr):
            lo, hi = self.range_end(e.lo, scope), self.range_end(e.hi, scope)
            if isinstance(lo, N.Const) and isinstance(hi, N.Const):
                return N.RangeItems("int", max(hi.value - lo.value + 1, 0), lo, hi)
            bound = self.pb.max_range
            fault = self.pb.fault(f"the range {{0}}..{{1}} holds more than {bound} numbers, the most a range "
                                  "built in play holds here", e.span)
            return N.RangeItems("int", bound, lo, hi, fault)
        if isinstance(e, A.Cond):
            test = self.cond(e.test, scope)
            then, orelse = self.seq(e.then, scope), self.seq(e.orelse, scope)
            if isinstance(test, N.Const):
                return then if test.value else orelse
            return N.ChooseSeq(then.item, max(then.bound, orelse.bound), test, then, orelse)
        if isinstance(e, A.Call) and e.func in m.fns:
            return self._inline(e, scope, self.seq)
        if isinstance(e, A.Attr):
            items = self.field_items(e, scope)
            if items is not None:
                return items
        if isinstance(e, A.Call) and e.func == "team_seats":
            rows = [list(t) for t in m.teams]
            fault = self.pb.fault(f"`team_seats({{0}})`: no such team (0..{len(rows) - 1})", e.span)
            return N.TableItems("seat", max(len(r) for r in rows), rows, self.expr(e.args[0], scope), fault)
        if isinstance(e, A.Call) and e.func == "cells" and self.pb.court is not None:
            rows = [[c for c in self.pb.court_cells(side)] for side in (0, 1)]
            fault = self.pb.fault("`cells({0})`: no such side (0 or 1)", e.span)
            return N.TableItems("cell", max(len(r) for r in rows), rows, self.expr(e.args[0], scope), fault)
        if isinstance(e, A.Call) and e.func == "reach" and self.pb.court is not None:
            return self._reach(e, scope)
        if isinstance(e, A.Call) and e.func == "directions":
            return N.Items("dir", len(m.directions), [N.Const("dir", i) for i in range(len(m.directions))])
        if isinstance(e, A.Comprehension) and e.agg == "every":
            source, slot, body, cond = self._comprehension(e, scope)
            return N.Comprehension(body.ty, source.bound, source, slot, body, cond)
        value = self.expr(e, scope)
        if value.ty == "zone":
            return N.ZoneItems("ent", self.pb.things, value)
        if value.ty.startswith(LIT):
            return self.lit_items(value, e.span)
        if value.ty.startswith(ROW):
            return self.var_items(value.ty[len(ROW):], value, e.span)
        raise self.not_a_list(value, e.span)

    def not_a_list(self, value: N.Expr, span) -> Unsupported:
        """Why a value cannot be read as a list here."""
        if value.ty == "none":
            return Unsupported("`none` where a list is kept: a var, field or local holding a list holds a list "
                               "(`[]` for none)", span)
        if value.ty == "any":
            return Unsupported("a value of no declared type read as a list: declare the procedure's or event's parameter "
                               "that holds it (`z: zone`, `xs: list of int`)", span, untyped_list=True)
        return Unsupported(f"{T.show(value.ty)} is not a list", span)

    def list_var(self, e: A.Expr, scope: Scope) -> N.VarItems | None:
        """`NAME` or `NAME[i]` of a var holding a list (one kept per seat or team takes the
        index), as a sequence; None when e is neither."""
        if isinstance(e, A.Index) and isinstance(e.obj, A.Name):
            name, index = e.obj.id, e.index
        elif isinstance(e, A.Name):
            name, index = e.id, None
        else:
            return None
        v = self.m.vars.get(name)
        if scope.lookup(name) is not None or v is None or not v.type.startswith("list:") or bool(v.per) != (index is not None):
            return None
        return self.var_items(name, self.expr(index, scope) if index is not None else None, e.span)

    def var_items(self, name: str, index: N.Expr | None, span) -> N.VarItems:
        """The items of list var `name`; of its slot `index` when it is kept per seat or team (a
        constant index chooses the slot before play)."""
        v = self.m.vars[name]
        at, cap = self.pb.list_vars[name]
        item = item_type(v.type)
        if index is None:
            return N.VarItems(item, cap, at)
        if isinstance(index, N.Const) and 0 <= index.value < v.count:
            return N.VarItems(item, cap, at + index.value * (1 + cap))
        fault = self.pb.fault(f"`{name}[{{0}}]`: out of 0..{v.count - 1}", span)
        return N.VarItems(item, cap, at, v.count, index, fault)

    def _reach(self, e: A.Call, scope: Scope) -> N.Seq:
        """`reach(start, distance, side, DIRS[, net cost])` with the directions and the net cost
        fixed before play: a table the court's search fills for every start and distance."""
        dirs = self.seq(e.args[3], scope)
        net = self.expr(e.args[4], scope) if len(e.args) == 5 else N.Const("int", 1)
        if not (isinstance(dirs, N.Items) and all(isinstance(d, N.Const) for d in dirs.items) and isinstance(net, N.Const)):
            return self._reach_in_play(e, dirs, net, scope)
        table = self.pb.reach_table(tuple(d.value for d in dirs.items), net.value)
        fault = self.pb.fault("`reach` from {0}, a position the court's table does not hold", e.span)
        self.pb.fault("`reach` distance {0} is out of 0..64", e.span)
        start, dist, side = self.expr(e.args[0], scope), self.expr(e.args[1], scope), self.side(e.args[2], scope, "reach")
        return N.ReachItems("cell", self.pb.reach_bounds[table], start, dist, side, table, fault)

    def _reach_in_play(self, e: A.Call, dirs: N.Seq, net: N.Expr, scope: Scope) -> N.Seq:
        """`reach` whose directions or net cost are known only in play: the court's search, then."""
        fault = self.pb.fault("`reach` distance {0} is out of 0..64", e.span)
        self.pb.fault("`reach`'s net cost is {0}: it must be 0 or more", e.span)
        self.pb.fault("`reach` from or along none", e.span)
        self.pb.fault("`reach`: no memory left for its search", e.span)
        start, dist, side = self.expr(e.args[0], scope), self.expr(e.args[1], scope), self.side(e.args[2], scope, "reach")
        court = self.pb.court
        return N.ReachSearch("cell", max(court.cols * court.height, 1), start, dist, side, dirs, net, fault)

    def _named_seq(self, e: A.Name, scope: Scope) -> N.Seq:
        m, name = self.m, e.id
        if name == "seats":
            return N.Items("seat", m.seats, [N.Const("seat", s) for s in range(m.seats)])
        if name == "teams":
            return N.Items("int", len(m.teams), [N.Const("int", t) for t in range(len(m.teams))])
        if name in m.enums:
            members = m.enums[name]
            return N.Items("enum:" + name, len(members), [N.Const("enum:" + name, i) for i in range(len(members))])
        if name in m.kinds:
            return N.KindItems("ent:" + name, self.pb.things, m.kinds[name].index)
        if name in m.vars and m.vars[name].type.startswith("list:"):
            v = m.vars[name]
            if v.per:  # a list of lists: each item names a slot's list (ROW)
                return N.Items(ROW + name, v.count, [N.Const(ROW + name, i) for i in range(v.count)])
            return self.var_items(name, None, e.span)
        if name in m.vars and m.vars[name].per:
            v = m.vars[name]
            return N.Items(v.type, v.count, [N.Global(v.type, v.base + i) for i in range(v.count)])
        if name in m.zones:
            z = m.zones[name]
            if z.per:
                return N.Items("zone", z.count, [N.Const("zone", z.base + i) for i in range(z.count)])
            return N.ZoneItems("ent", self.pb.things, N.Const("zone", z.base))
        if name in m.consts:
            return self.seq(m.consts[name].value, Scope())
        raise self.not_a_list(self.expr(e, scope), e.span)


def _shown_type(t: str) -> str:
    """A value's type as a message names it: a list fixed before play (type `lit:T`) as `list of
    T`, an empty one as `empty list` (it was shown as nothing: `( and int)`)."""
    if not t.startswith(LIT):
        return T.show(t)
    return f"list of {T.show(t[len(LIT):])}" if t != LIT else "empty list"
