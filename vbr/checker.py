"""Declarations → a checked `Model`: every name defined once, every type known, options applied.

The model is the symbol table the engines are built from. Bodies (phases, procs, handlers, fns)
are type-checked by vbr.checking (`checked_model`) into the same `Diagnostics`, so that
`vbr check` reports every problem of a file at once.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from vbr import limits as LIM
from vbr.builtin_signatures import SIGNATURES
from vbr.errors import Diagnostic, Diagnostics, OptionError, Span, VbrCheckError
from vbr.grammar import ast as A, printer
from vbr.grammar.reserved import RESERVED_WORDS, reserved_message
from vbr.loader import RuleSet
from vbr.number_text import whole_meant, whole_number

BASE_TYPES = {"int", "bool", "seat", "cell", "dir", "zone"}
RESERVED = {"seats", "teams", "none", "true", "false"}
DEFAULT_LIMITS = {"steps": 1_000_000, "choices": 200_000, "depth": 200}


@dataclass
class KindInfo:
    index: int
    decl: A.Kind
    fields: dict[str, tuple[int, str]]  # name -> (position, type)


@dataclass
class Slotted:
    """A var or zone: `count` consecutive slots from `base` (1, or one per seat/team)."""

    decl: A.Decl
    base: int
    count: int
    per: str | None
    type: str = "any"


@dataclass
class Model:
    rules: RuleSet
    diags: Diagnostics
    seats: int = 2
    teams: list[list[int]] = field(default_factory=list)
    team_names: list[str] = field(default_factory=list)  # of the `seats ... teams { ... }` in force
    team_of: list[int] = field(default_factory=list)
    options: dict[str, object] = field(default_factory=dict)
    option_decls: dict[str, A.Option] = field(default_factory=dict)
    enums: dict[str, list[str]] = field(default_factory=dict)
    member_enum: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, KindInfo] = field(default_factory=dict)
    zones: dict[str, Slotted] = field(default_factory=dict)
    zone_names: list[str] = field(default_factory=list)
    zone_owner: list[int] = field(default_factory=list)  # slot -> seat/team index or -1
    vars: dict[str, Slotted] = field(default_factory=dict)
    nvals: int = 0
    consts: dict[str, A.Const] = field(default_factory=dict)
    directions: dict[str, tuple[int, int]] = field(default_factory=dict)
    dice: dict[str, A.Die] = field(default_factory=dict)
    court: A.Court | None = None
    fns: dict[str, A.Fn] = field(default_factory=dict)
    procs: dict[str, A.Proc] = field(default_factory=dict)
    events: dict[str, A.Event] = field(default_factory=dict)
    handlers: dict[str, list[A.Handler]] = field(default_factory=dict)
    phases: dict[str, A.Phase] = field(default_factory=dict)
    phase_stages: dict[str, list[A.Stage]] = field(default_factory=dict)
    stages: list[A.Stage] = field(default_factory=list)
    setup: A.Setup | None = None
    start: A.StartAt | None = None
    points: A.Points | None = None
    returns: A.Returns | None = None
    measures: dict[str, A.Measure] = field(default_factory=dict)  # by short name, in declaration order
    limits: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_LIMITS))

    @property
    def title(self) -> str:
        return self.rules.title

    def owner_count(self, per: str | None) -> int:
        return {None: 1, "seat": self.seats, "team": len(self.teams)}[per]

    def suggest(self, name: str, pool) -> str:
        close = difflib.get_close_matches(name, list(pool), n=1)
        return f"; did you mean `{close[0]}`?" if close else ""

    def suggest_or_list(self, name: str, pool, what: str) -> str:
        """A close name of `pool`, else the names there are (`what`, plural: "dice"): for the
        sorts of names a file declares few of, where a name too short to be close still has
        its fix among them."""
        close = self.suggest(name, pool)
        if close or len(pool) > 12:
            return close
        return f" ({what}: {', '.join(pool)})" if pool else f" (no {what} are declared)"

    def no_phase(self, name: str) -> str:
        """What follows `no phase `NAME``: a stage's name is said to be one (play goes to a
        phase, the stage's first if that is meant), else a close name or the phases there are."""
        stage = next((st for st in self.stages if st.name == name), None)
        if stage is None and name in self.procs:
            return f": `{name}` is a procedure, and a procedure is called, not gone to: write `{name}(...)`"
        if stage is None:
            return self.suggest_or_list(name, self.phases, "phases")
        first = next((p for p in A.walk(stage) if isinstance(p, A.Phase)), None)
        return f": `{name}` is a stage, and play goes to a phase" + (f" (its first is `{first.name}`)" if first else "")

    def measures_read(self, e: A.Expr) -> A.Expr:
        """A scenario's expectation reading the measures by name (`expect rallies == 2`): each
        measure's name that no other global name has, spelt as its var (`measure rallies`). Only
        a scenario reads them: it cannot change play."""
        from vbr.grammar.substitute import renamed
        taken = self.global_names()
        return renamed(e, {name: d.name for name, d in self.measures.items() if name not in taken})

    def global_names(self):
        return (set(self.vars) | set(self.consts) | set(self.option_decls) | set(self.member_enum)
                | set(self.directions) | set(self.zones) | set(self.enums) | set(self.kinds) | RESERVED)


def keywords() -> set[str]:
    return RESERVED_WORDS


def builtin_names() -> set[str]:
    return set(SIGNATURES)


def type_of(model: Model, t: A.TypeRef) -> str:
    if t.name == "list":
        return "list:" + type_of(model, t.item)
    if t.name in BASE_TYPES:
        return t.name
    if t.name in model.enums:
        return "enum:" + t.name
    if t.name in model.kinds:
        return "ent:" + t.name
    model.diags.error(t.span, f"unknown type `{t.name}`" + _type_hint(model, t.name))
    return "any"


# other languages' words for a type of this one
_TYPE_ALIASES = {"number": "int", "integer": "int", "num": "int", "boolean": "bool", "player": "seat",
                 "position": "cell", "direction": "dir"}


def _type_hint(model: Model, name: str) -> str:
    """What follows `unknown type `NAME``: a close type, the type another language's word means,
    or the types there are (there is no string type: docs/language.md, 10)."""
    close = model.suggest(name, BASE_TYPES | set(model.enums) | set(model.kinds))
    if close:
        return close
    if name in ("str", "string", "String", "text"):
        return "; there is no string type: strings are for options, titles and `say`"
    if name in _TYPE_ALIASES:
        return f"; did you mean `{_TYPE_ALIASES[name]}`?"
    declared = sorted(model.enums) + sorted(model.kinds)
    return f" (types: {', '.join(sorted(BASE_TYPES))}, `list of T`" + (f", {', '.join(declared)}" if declared else "") + ")"


def option_map(options) -> dict:
    """Options as given to the API (vbr.load, checked_model): None for none; a mapping of option
    names (strings) to values, a numpy scalar as the Python value it holds; anything else (a list
    of `NAME=VALUE` texts, as the command line takes them) a TypeError saying what options are."""
    from collections.abc import Mapping
    if options is None:
        return {}
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise TypeError(f"options map option names to values, as {{'target': 15}}; not {options!r}")
    return {name: _python_scalar(value) for name, value in options.items()}


def build_model(rules: RuleSet, options: dict[str, object] | None = None) -> Model:
    options = option_map(options)
    m = Model(rules=rules, diags=Diagnostics())
    m.diags.items += rules.problems  # an `override` of nothing, say: reported with everything else
    decls = list(_flatten(rules.decls, [], m))
    _first_pass(m, decls)
    _apply_options(m, options)
    _choose_seats(m, [d for d in decls if isinstance(d, A.Seats)])
    _seats_for_each_value(m, [d for d in decls if isinstance(d, A.Seats)])
    for d in decls:
        if isinstance(d, A.Require):
            _require(m, d)
    _second_pass(m, decls)
    nodes = [node for d in decls for node in A.walk(d)]  # every node of every declaration, walked once
    _warn_choices_from_zones_never_filled(m, nodes)
    sizes = _check_sizes(m, decls, nodes)
    if sizes:  # past a limit, compiling could recurse too deep or work without end: stop here
        m.diags.items += sizes
        raise VbrCheckError(sorted(m.diags.errors, key=lambda d: (d.span.file, d.span.line, d.span.col)),
                            rules.sources)
    return m


def _flatten(decls, stages, m: Model):
    for d in decls:
        if isinstance(d, A.Stage):
            m.stages.append(d)
            yield from _flatten(d.members, stages + [d], m)
        else:
            if isinstance(d, A.Phase):
                m.phase_stages[d.name] = stages
            yield d


def _first_pass(m: Model, decls: list[A.Decl]) -> None:
    """Names that types and other declarations refer to: seats, enums, kinds, options."""
    seen: dict[str, A.Decl] = {}
    singletons = (A.Seats, A.Court, A.Setup, A.StartAt, A.Points, A.Returns)
    for d in decls:
        if isinstance(d, (A.Handler, A.Require)):
            continue
        key = d.name
        if isinstance(d, A.Seats) and (d.when is not None or isinstance(seen.get(key), A.Seats) and seen[key].when is not None):
            seen.setdefault(key, d)
            continue
        if key in seen:
            what = "declared twice" if isinstance(d, singletons) else "defined twice"
            m.diags.error(d.span, f"`{key.lstrip('@')}` is {what}; the first is at {seen[key].span}")
            continue
        seen[key] = d
        if key in RESERVED_WORDS:
            _refuse_reserved(m, key, d.span)
        elif isinstance(d, A.Fn) and key in builtin_names():
            m.diags.error(d.span, f"`{key}` is a built-in function; choose another name")
    named = seen
    for d in decls:
        seen: set[str] = set()
        for param in getattr(d, "params", None) or ([d.param] if isinstance(d, A.Returns) else []):
            if param.name in RESERVED_WORDS:
                _refuse_reserved(m, param.name, param.span, "a parameter")
            if param.name in seen:
                m.diags.error(param.span, f"parameter `{param.name}` appears twice in `{d.name or 'on ' + d.event}`")
            seen.add(param.name)
        match d:
            case A.Enum():
                m.enums[d.name] = d.members
                for mem, span in zip(d.members, d.member_spans or [d.span] * len(d.members)):
                    if mem in RESERVED_WORDS:
                        _refuse_reserved(m, mem, span, "an enum member")
                    if mem in m.member_enum:
                        m.diags.error(span, f"enum member `{mem}` is already a member of `{m.member_enum[mem]}`")
                    elif type(named.get(mem)) in _VALUE_DECLS:
                        other = named[mem]
                        m.diags.error(span, f"enum member `{mem}` has the name of {_VALUE_DECLS[type(other)]} `{mem}` "
                                            f"(at {other.span}), which hides it wherever the name is read; rename one")
                    m.member_enum[mem] = d.name
            case A.Option():
                m.option_decls[d.name] = d
    for d in decls:
        if isinstance(d, A.Kind):
            m.kinds[d.name] = KindInfo(len(m.kinds), d, {})
    for k in m.kinds.values():
        for i, f in enumerate(k.decl.fields):
            if f.name in RESERVED_WORDS:
                _refuse_reserved(m, f.name, f.span, "a field")
            if f.name in k.fields:
                m.diags.error(f.span, f"field `{f.name}` appears twice in kind `{k.decl.name}`")
            k.fields[f.name] = (i, type_of(m, f.type))


# the declarations whose names are read as values where an enum member's is, and come first
# (docs/language.md, 5.2): one of them named as a member hides the member
_VALUE_DECLS = {A.Var: "var", A.Const: "const", A.Option: "option", A.Zone: "zone", A.Direction: "direction",
                A.Kind: "kind", A.Enum: "enum"}


def _refuse_reserved(m: Model, word: str, span: Span, what: str = "a name") -> None:
    m.diags.error(span, reserved_message(word, what))


def _choose_seats(m: Model, decls: list[A.Seats]) -> None:
    """The first `seats` declaration whose `when` holds for the chosen options applies."""
    for d in decls:
        if d.when is None or option_condition(m, d.when):
            _seats(m, d)
            break
    else:
        if decls:
            shown = ", ".join(f"{k}={_shown(v)}" for k, v in m.options.items())
            m.diags.error(decls[0].span, "no `seats ... when` holds for these options" + (f" ({shown})" if shown else ""))
    if not m.teams:
        m.teams = [[s] for s in range(m.seats)]
        m.team_of = list(range(m.seats))


def _seats_for_each_value(m: Model, decls: list[A.Seats]) -> None:
    """A warning at each value an option's `in { ... }` allows under which no `seats ... when`
    holds, the other options as chosen: play under it would be refused before it starts. Only
    when every `seats` has a `when` and they hold for the options chosen."""
    if not decls or any(d.when is None for d in decls) or m.diags.errors:
        return
    named = {n.id for d in decls for n in A.walk(d.when) if isinstance(n, A.Name)}
    for name, od in m.option_decls.items():
        if name not in named or not od.choices:
            continue
        chosen = m.options[name]
        for c in od.choices:
            v = literal_value(m, c)
            if v is None or v == chosen:
                continue
            m.options[name] = v
            before = list(m.diags.items)
            holds = any(option_condition(m, d.when) for d in decls)
            m.diags.items[:] = before
            if not holds:
                m.diags.warning(c.span, f"with `{name} = {_shown(v)}`, which its `in {{ ... }}` allows, no `seats ... "
                                        "when` holds (the other options as chosen): a game under it is refused")
        m.options[name] = chosen


def _require(m: Model, d: A.Require) -> None:
    """`require COND as "MESSAGE"`: the message, with the options in force, when COND does not
    hold; a COND that is no condition over options is that error alone."""
    before = len(m.diags.errors)
    holds = option_condition(m, d.cond, "`require`")
    if not holds and len(m.diags.errors) == before:
        shown = ", ".join(f"{k}={_shown(v)}" for k, v in m.options.items())
        m.diags.error(d.span, f"{d.message} (options: {shown})" if shown else d.message)


def option_condition(m: Model, e: A.Expr, what: str = "a declaration's `when`"):
    """Evaluate a condition over options alone (declarations are chosen before anything runs);
    `what` names the condition in an error (`require`, a declaration's `when`)."""
    match e:
        case A.IntLit(value=v) | A.BoolLit(value=v) | A.StrLit(value=v):
            return v
        case A.Name(id=i) if i in m.options:
            return m.options[i]
        case A.Name(id=i) if i in m.member_enum:
            return i
        case A.Unary(op="not", operand=o):
            return not option_condition(m, o, what)
        case A.ListLit(items=items):
            return tuple(option_condition(m, x, what) for x in items)
        case A.Binary(op=op, left=l, right=r):
            a, b = option_condition(m, l, what), option_condition(m, r, what)
            ops = {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
                   ">": lambda: a > b, ">=": lambda: a >= b, "and": lambda: a and b, "or": lambda: a or b,
                   "in": lambda: a in b, "not in": lambda: a not in b}
            try:
                return ops[op]()
            except (KeyError, TypeError):
                pass
    hint = f" (`{e.id}` is no option)" if isinstance(e, A.Name) else ""
    m.diags.error(e.span, f"{what} may use only options, literals, comparisons, `and`, `or`, `not` and `in`{hint}")
    return False


def _seats(m: Model, d: A.Seats) -> None:
    if not 1 <= d.count <= 16:
        m.diags.error(d.span, "a game has between 1 and 16 seats")
        return
    m.seats = d.count
    if d.teams:
        taken: dict[int, str] = {}
        for t in d.teams:
            for s in t.seats:
                if s >= d.count:
                    m.diags.error(t.span, f"team `{t.name}` names seat {s}, but seats are 0..{d.count - 1}")
                elif s in taken:
                    m.diags.error(t.span, f"seat {s} is in team `{taken[s]}` already")
                taken[s] = t.name
        missing = [s for s in range(d.count) if s not in taken]
        if missing:
            m.diags.error(d.span, f"seats {missing} belong to no team")
            return
        m.teams = [list(t.seats) for t in d.teams]
        m.team_names = [t.name for t in d.teams]
        m.team_of = [0] * d.count
        for i, t in enumerate(d.teams):
            for s in t.seats:
                if s < d.count:
                    m.team_of[s] = i


def literal_value(m: Model, e: A.Expr):
    match e:
        case A.IntLit(value=v) | A.BoolLit(value=v):
            return v
        case A.StrLit(value=v):
            return _Text(v)
        case A.Name(id=i) if i in m.member_enum:
            return i
        case A.Name(id=i):
            m.diags.error(e.span, f"`{i}` is no enum member: an option's value is a number, `true`, `false`, "
                                  f"a \"string\" or a member of an `enum` the file declares"
                                  + m.suggest(i, m.member_enum))
            return None
    m.diags.error(e.span, "an option's value is a number, `true`, `false`, a \"string\" or an enum member")
    return None


class _Text(str):
    """A string option value (as opposed to an enum member, also a str at run time)."""


class Written(str):
    """An option's value as a scenario's `option` step writes it in the language: a "string" or
    an enum member's name (`Written.text`, `Written.name`), never text to read as a number or as
    true (`"5"` is no number, `yes` no `true`), as a value given on the command line is."""
    quoted: bool = False

    @classmethod
    def text(cls, value: str) -> "Written":
        out = cls(value)
        out.quoted = True
        return out

    @classmethod
    def name(cls, value: str) -> "Written":
        return cls(value)


def literal_type(m: Model, v) -> str:
    if isinstance(v, _Text):
        return "str"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "enum:" + m.member_enum[v]
    return "any"


def parse_option_value(text: str):
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return whole_number(text.strip())  # ASCII digits: `٣` and `1_000` stay text, and are refused as numbers
    except ValueError:
        return text.strip()


def _apply_options(m: Model, given: dict[str, object]) -> None:
    """Options come from outside the file, so their problems have no place in it: they are
    collected and raised together as one `OptionError` (a usage error) naming what is allowed."""
    for name, d in m.option_decls.items():
        m.options[name] = literal_value(m, d.default)
        _check_option_values(m, d, m.options[name])
    problems = {name: p for name, p in ((name, _apply_option(m, name, raw)) for name, raw in given.items()) if p}
    if problems:
        raise OptionError("; ".join(problems.values()), problems)


def _check_option_values(m: Model, d: A.Option, default) -> None:
    """An option's `in { ... }` lists values of its default's type, and holds the default: a
    default outside it would be played without anyone having chosen a value it allows."""
    if not d.choices or default is None:
        return
    allowed = [literal_value(m, c) for c in d.choices]
    want = literal_type(m, default)
    for c, v in zip(d.choices, allowed):
        if v is not None and literal_type(m, v) != want:
            m.diags.error(c.span, f"option `{d.name}` is {_option_kind(want)} (its default is {_shown(default)}), "
                                  f"so `in {{ ... }}` cannot hold {_shown(v)}")
    if default not in allowed:
        values = ", ".join(_shown(v) for v in allowed if v is not None)
        m.diags.error(d.default.span, f"the default of option `{d.name}`, {_shown(default)}, is not one of the "
                                      f"values its `in {{ ... }}` allows ({values}): add it there or change the default")


def _option_kind(t: str) -> str:
    """How an option's type reads in an error: `a number`, `true or false`, `a string`, `a Pace`."""
    return {"int": "a number", "bool": "true or false", "str": "a string"}.get(t, "a " + t.removeprefix("enum:"))


def _shown(v) -> str:
    """An option's value as the file writes it: `true`, `3`, `"1v1"`, `slow`."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, _Text):
        return f'"{v}"'
    return str(v)


def _given(raw) -> str:
    """A value given for an option, as an error shows it: a flag given alone (`--option NAME`)
    or a scenario's `true` as the language spells it, text quoted."""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, Written):
        return f'"{raw}"' if raw.quoted else str(raw)
    return repr(raw)


def _written_wrong(m: Model, name: str, default, value: "Written") -> str | None:
    """Why a scenario's value is refused for an option of a string or an enum, or None: as in the
    language, a string is written in quotes (`"2v2"`) and an enum member without (`hawk`), and
    the one is never the other (a command-line value has no quotes to tell them apart)."""
    if isinstance(default, _Text) and not value.quoted:
        return f'option `{name}` is a string, written in quotes: write "{value}", not the name {value}'
    if isinstance(default, str) and not isinstance(default, _Text) and value.quoted:
        enum = m.member_enum.get(default, "")
        members = m.enums.get(enum, [])
        fix = f"write {value}, not the string \"{value}\"" if value in members else f"not the string \"{value}\""
        return (f"option `{name}` is a {enum}, one of {', '.join(members)}, written without quotes: {fix}"
                + ("" if value in members else _close_value(value, members)))
    return None


def _not_bool(name: str, raw) -> str:
    """Why a value given for a true-or-false option is refused; a value given as text (on the
    command line, or to `vbr.load`) is told the other spellings text may use."""
    if not isinstance(raw, str) or isinstance(raw, Written):
        return f"option `{name}` is true or false, not {_given(raw)}"
    if not raw.strip():
        return f"option `{name}` is given no value: give true or false (yes/no and on/off also do)"
    return f"option `{name}` is true or false (yes/no and on/off also do), not {_given(raw)}"


def _not_whole(name: str, raw, default: int) -> str:
    """Why a value given for a number option is refused, and what to give instead: the whole
    number a decimal spelling of one stands for (`1e1`, `9.0`: write 10, 9), else the default as
    an example. Options are whole numbers, as every number of the language is."""
    if isinstance(raw, str) and not raw.strip():
        return f"option `{name}` is given no value: give a whole number, such as {default} (its default)"
    said = f"option `{name}` is a whole number, not {_given(raw)}"
    whole = whole_meant(raw)
    if whole is not None:
        return f"{said}: write {whole}"
    return f"{said}: write one in the digits 0-9, such as {default} (its default)"


def _close_value(raw, allowed: list[str]) -> str:
    """`; did you mean printed?` for the allowed value a misspelt one is closest to (`printd`,
    `1V1`), else nothing."""
    if not isinstance(raw, str):
        return ""
    lower = {v.lower(): v for v in allowed}
    close = difflib.get_close_matches(raw.strip().lower(), list(lower), n=1)
    return f"; did you mean {lower[close[0]]}?" if close else ""


def _python_scalar(raw):
    """A numpy scalar given for an option (np.int64(5), np.bool_(True), np.str_: options swept
    with numpy) as the Python value it holds; anything else as it is."""
    if type(raw).__module__ == "numpy" and hasattr(raw, "item") and getattr(raw, "ndim", None) == 0:
        return raw.item()
    return raw


def _apply_option(m: Model, name: str, raw) -> str | None:
    d = m.option_decls.get(name)
    if d is None:
        avail = ", ".join(sorted(m.option_decls)) or "none"
        return (f"unknown option `{name}` ({m.rules.path.name} has options: {avail})"
                + m.suggest(name, m.option_decls))
    raw = _python_scalar(raw)
    value = parse_option_value(raw) if isinstance(raw, str) and not isinstance(raw, Written) else raw
    default = m.options[name]
    if isinstance(default, bool) and not isinstance(value, bool):
        return _not_bool(name, raw)
    if isinstance(default, int) and not isinstance(default, bool) and (isinstance(value, bool) or not isinstance(value, int)):
        return _not_whole(name, raw, default)
    if isinstance(value, Written):
        wrong = _written_wrong(m, name, default, value)
        if wrong:
            return wrong
        value = str(value)  # an enum member's name, or a string's text
    if isinstance(default, _Text):
        value = _Text(str(raw) if not isinstance(raw, bool) else ("true" if raw else "false"))
    elif isinstance(default, str) and value not in m.enums.get(m.member_enum.get(default, ""), []):
        members = m.enums.get(m.member_enum.get(default, ""), [])
        return f"option `{name}` is one of {', '.join(members)}, not {_given(raw)}" + _close_value(raw, members)
    if d.choices:
        allowed = [literal_value(m, c) for c in d.choices]
        if value not in allowed:
            shown = [str(v) for v in allowed]
            return f"option `{name}` is one of {', '.join(shown)}, not {_given(raw)}" + _close_value(raw, shown)
    m.options[name] = value
    return None


def _second_pass(m: Model, decls: list[A.Decl]) -> None:
    for d in decls:
        match d:
            case A.Zone():
                n = m.owner_count(d.per)
                m.zones[d.name] = Slotted(d, len(m.zone_names), n, d.per, "zone")
                for i in range(n):
                    m.zone_names.append(f"{d.name}[{i}]" if d.per else d.name)
                    m.zone_owner.append(i if d.per else -1)
            case A.Var():
                n = m.owner_count(d.per)
                m.vars[d.name] = Slotted(d, m.nvals, n, d.per, type_of(m, d.type))
                m.nvals += n
                if d.range and d.range.lo > d.range.hi:
                    m.diags.error(d.range.span, "a range's low end must not exceed its high end")
            case A.Const():
                m.consts[d.name] = d
            case A.Direction():
                m.directions[d.name] = (d.right, d.forward)
            case A.Die():
                m.dice[d.name] = d
            case A.Court():
                m.court = d
            case A.Fn():
                m.fns[d.name] = d
            case A.Proc():
                m.procs[d.name] = d
            case A.Event():
                m.events[d.name] = d
            case A.Handler():
                m.handlers.setdefault(d.event, []).append(d)
            case A.Phase():
                m.phases[d.name] = d
            case A.Setup():
                m.setup = d
            case A.StartAt():
                m.start = d
            case A.Points():
                m.points = d
            case A.Measure():
                _measure(m, d)
            case A.Returns():
                m.returns = d
                if d.lo > d.hi:
                    m.diags.error(d.span, "a range's low end must not exceed its high end")
    for d in decls:  # after every const is known
        if isinstance(d, A.Limit):
            _limit(m, d)
    _measure_names(m)
    _check_references(m)


MEASURE_TYPES = ("seat", "side", "int", "bool")


@dataclass(frozen=True)
class MeasureSlot:
    """A declared measure as the engines keep it: its var slot, and how sims report it."""
    name: str
    type: str  # seat | side | int | bool
    base: int  # its var slot
    first_mover: bool
    label: str  # what a report calls it: the declared `as` text, else the name

    def value(self, raw):
        """The measure's value in a game from its var's value (None or an int or bool): None when
        unset, True/False for a bool, else an int."""
        if raw is None:
            return None
        return bool(raw) if self.type == "bool" else int(raw)


def measure_slots(m: Model) -> tuple[MeasureSlot, ...]:
    """The file's measures, in declaration order."""
    return tuple(MeasureSlot(d.short, d.type, m.vars[d.name].base, d.first_mover, d.label or d.short)
                 for d in m.measures.values())


def _measure(m: Model, d: A.Measure) -> None:
    """A measure is kept as a var named `measure NAME` that only `measure NAME = ...` writes: a
    seat or side measure starts unset (none), an int one at 0, a bool one false. A side is a team
    in a file of teams, else a seat: an int held to the sides' numbers (a `range`, so a wrong side
    faults where it is set)."""
    if d.type not in MEASURE_TYPES:
        m.diags.error(d.span, f"a measure is one of {', '.join(MEASURE_TYPES)}, not `{d.type}`")
        return
    if d.first_mover and d.type not in ("seat", "side"):
        m.diags.error(d.span, "only a seat or side measure can be the first mover")
    first = next((o for o in m.measures.values() if o.first_mover), None)
    if d.first_mover and first is not None:
        m.diags.error(d.span, f"`{first.short}` is already the first mover, at {first.span}")
    init = {"seat": A.NoneLit, "side": A.NoneLit, "int": lambda span: A.IntLit(span=span, value=0),
            "bool": lambda span: A.BoolLit(span=span, value=False)}[d.type](span=d.span)
    var_type = "int" if d.type == "side" else d.type
    # a seat or side measure holds one, or play stops where it is set (a seat var stores any int)
    rng = A.VarRange(span=d.span, lo=0, hi=(len(m.teams) or m.seats) - 1) if d.type == "side" \
        else A.VarRange(span=d.span, lo=0, hi=m.seats - 1) if d.type == "seat" else None
    var = A.Var(span=d.span, name=d.name, type=A.TypeRef(span=d.span, name=var_type), init=init, range=rng)
    m.vars[d.name] = Slotted(var, m.nvals, 1, None, var_type)
    m.nvals += 1
    m.measures[d.short] = d


def _measure_names(m: Model) -> None:
    """A measure may not have a name the file gives a value (a var, a const, ...): a scenario's
    `expect NAME` would read that, never the measure."""
    sorts = (("var", m.vars), ("const", m.consts), ("option", m.option_decls), ("enum member", m.member_enum),
             ("direction", m.directions), ("zone", m.zones), ("enum", m.enums), ("kind", m.kinds))
    for short, d in m.measures.items():
        sort = next((what for what, names in sorts if short in names), None)
        if sort is not None:
            m.diags.error(d.span, f"measure `{short}` has the name of {sort} `{short}`: a scenario's `expect {short}` "
                                  "would read that, never the measure; give the measure a name of its own")


def _limit(m: Model, d: A.Limit) -> None:
    key = d.name.split(" ", 1)[1]
    if key not in DEFAULT_LIMITS:
        m.diags.error(d.span, f"unknown limit `{key}` (limits: {', '.join(DEFAULT_LIMITS)})")
        return
    value = constant_int(m, d.value)
    if value is None:
        m.diags.error(d.value.span, f"`limit {key}` takes a whole number known before play: a number, an int "
                                    "option, a const, or `+ - * / %` on them")
    elif value < 1:
        m.diags.error(d.value.span, f"a limit must be at least 1; this is {value}")
    elif value > LIM.MAX_USER_LIMITS[key]:
        m.diags.error(d.value.span, f"`limit {key}` may be at most {LIM.MAX_USER_LIMITS[key]:,}, "
                                    f"the most a rule file may ask for")
    else:
        m.limits[key] = value


_ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
               "/": lambda a, b: a // b if b else None, "%": lambda a, b: a % b if b else None}


def constant_int(m: Model, e: A.Expr, known: dict[str, int | None] | None = None) -> int | None:
    """The int an expression has before play, from the text and the chosen options alone: a
    number, an int option, a const defined so, and `-`, `+ - * / %` on them (dividing as the
    game does: rounding down). None when it is anything else, divides by zero, or goes past
    the largest int a rule file may hold. `known`: each const's value once worked out (None
    while it is, so a const defined through itself is no number), so that each is evaluated once."""
    known = {} if known is None else known
    match e:
        case A.IntLit(value=v):
            value = v
        case A.Name(id=i) if type(m.options.get(i)) is int:
            value = m.options[i]
        case A.Name(id=i) if i in m.consts:
            if i not in known:
                known[i] = None
                known[i] = constant_int(m, m.consts[i].value, known)
            value = known[i]
        case A.Unary(op="-", operand=o):
            v = constant_int(m, o, known)
            value = None if v is None else -v
        case A.Binary(op=op, left=l, right=r) if op in _ARITHMETIC:
            a, b = constant_int(m, l, known), constant_int(m, r, known)
            value = None if a is None or b is None else _ARITHMETIC[op](a, b)
        case _:
            value = None
    return value if value is not None and abs(value) <= LIM.MAX_INT else None


def known_number(e: A.Expr, value: int) -> str:
    """A number known before play as a message shows it: `3`, or "`first_server` is 2" when the
    text is not the number itself."""
    shown = printer.expr(e)
    return f"`{shown}` is {value}" if shown != str(value) else str(value)


def _check_references(m: Model) -> None:
    for ev, hs in m.handlers.items():
        e = m.events.get(ev)
        for h in hs:
            if e is None:
                m.diags.error(h.span, f"no event `{ev}` is declared" + m.suggest(ev, m.events))
            elif len(h.params) != len(e.params):
                m.diags.error(h.span, f"event `{ev}` has {len(e.params)} parameter(s), this handler takes {len(h.params)}")
    if not m.phases:
        m.diags.error(Span(file=str(m.rules.path)), "the rule file declares no `phase`")
    if m.start is None:
        if m.phases:
            m.diags.error(Span(file=str(m.rules.path)), "say where play begins: `start PHASE`")
    elif m.start.phase not in m.phases:
        m.diags.error(m.start.span, f"`start` names no phase `{m.start.phase}`" + m.no_phase(m.start.phase))
    if m.points is not None:
        v = m.vars.get(m.points.var)
        if v is None:
            m.diags.error(m.points.span, f"`points` names no var `{m.points.var}`" + m.suggest(m.points.var, m.vars))
        elif v.per is None or v.type not in ("int", "any"):
            m.diags.error(m.points.span, "`points` names an int var kept per seat or per team")
    if m.court is not None:
        _check_court(m, m.court)
    for name in m.zones:
        if name in m.vars:
            m.diags.error(m.zones[name].decl.span, f"`{name}` is both a zone and a var")


def _check_court(m: Model, c: A.Court) -> None:
    vals: dict[str, int] = {}
    for it in c.items:
        if it.what in ("rows", "cols", "net"):
            vals[it.what] = it.values[0]
    for need in ("rows", "cols"):
        if need not in vals:
            m.diags.error(c.span, f"the court needs `{need} N`")
    rows, cols = vals.get("rows", 1), vals.get("cols", 1)
    seen: dict[int, A.CourtItem] = {}
    for it in c.items:
        if it.what == "field":
            n, r, col = it.values
            if not (1 <= r <= rows and 1 <= col <= cols):
                m.diags.error(it.span, f"field {n} is off the grid (rows 1..{rows}, cols 1..{cols})")
            if n in seen:
                m.diags.error(it.span, f"field {n} is numbered twice")
            seen[n] = it


# --------------------------------------------------------------------- zones nothing fills


def _warn_choices_from_zones_never_filled(m: Model, nodes: list[A.Node]) -> None:
    """Warn at each `choose` (with no `optional` and no `else`) from a zone that nothing in the
    program ever creates things in or moves things to: it will have nothing to offer (an
    `override setup` that leaves out the `create`s, say). A destination the text does not name
    (a zone parameter, a fn's result) may be any zone that is handed around (in a call, a
    `let`, a fn): those zones count as filled. When a variant's `override` replaced the base's
    declaration that filled the zone, the warning is at that `override`. `nodes`: every node of
    the declarations."""
    named, loose = _zones_filled_by(m, nodes)
    if loose:
        named |= _zones_handed_around(m, nodes)
    for node in nodes:
        if isinstance(node, A.Choose) and not node.optional and node.orelse is None:
            zone = _zone_named(m, node.source)
            if zone is not None and zone not in named:
                _warn_never_filled(m, node, zone)
            elif _written_empty(node.source):
                m.diags.warning(node.span, f"`choose {node.var}` chooses from a list that is always empty: "
                                           "it will have nothing to choose from (add `optional` or an "
                                           "`else` block, or give it options)")


def _zones_filled(m: Model, decls) -> tuple[set[str], bool]:
    """(the zones `decls` create things in or move things to by name, whether any `create` or
    `move` has a destination the text does not name)."""
    return _zones_filled_by(m, [node for d in decls for node in A.walk(d)])


def _zones_filled_by(m: Model, nodes: list[A.Node]) -> tuple[set[str], bool]:
    """_zones_filled of the declarations whose every node is `nodes`."""
    named: set[str] = set()
    loose = False
    for node in nodes:
        if isinstance(node, (A.Create, A.Move)):
            zone = _zone_named(m, node.dest)
            if zone is None:
                loose = True
            else:
                named.add(zone)
    return named, loose


def _warn_never_filled(m: Model, choose: A.Choose, zone: str) -> None:
    """The warning that `choose` takes from `zone`, which nothing fills: at each `override` that
    replaced a base declaration filling it, else at the `choose`."""
    dropped = [(old, new) for old, new in m.rules.replaced if zone in _zones_filled(m, [old])[0]]
    for old, new in dropped:
        m.diags.warning(new.span, f"`choose {choose.var}` (at {choose.span}) chooses from `{zone}`, which nothing "
                                  f"creates things in or moves things to any more: this `override` replaces the "
                                  f"base's declaration at {old.span}, which did; it will have nothing to choose from")
    if not dropped:
        m.diags.warning(choose.span, f"`choose {choose.var}` chooses from `{zone}`, which nothing ever "
                                     "creates things in or moves things to: it will have nothing to choose from")


def _written_empty(e: A.Expr) -> bool:
    """`[]`, or a range of two numbers written out whose high end is below its low end (`3..1`)."""
    if isinstance(e, A.ListLit):
        return not e.items
    if isinstance(e, A.RangeExpr) and isinstance(e.lo, A.IntLit) and isinstance(e.hi, A.IntLit):
        return e.hi.value < e.lo.value
    return False


def _zone_named(m: Model, e: A.Expr) -> str | None:
    """The zone `e` names in the text: `hand` or `hand[s]`; None for anything else."""
    if isinstance(e, A.Index):
        e = e.obj
    return e.id if isinstance(e, A.Name) and e.id in m.zones else None


def _zones_handed_around(m: Model, nodes: list[A.Node]) -> set[str]:
    """The zones named in a call's arguments, a `let`, a fn's body or a destination the text does
    not name directly: where a zone may travel to a `move` or `create` elsewhere. `nodes`: every
    node of the declarations."""
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, A.Call):
            parts = node.args
        elif isinstance(node, A.Let):
            parts = [node.value]
        elif isinstance(node, A.Fn):
            parts = [node.body]
        elif isinstance(node, (A.Create, A.Move)):
            parts = [node.dest]
        else:
            continue
        out |= {n.id for part in parts for n in A.walk(part) if isinstance(n, A.Name) and n.id in m.zones}
    return out


# ------------------------------------------------------------------------------------ limits


def _check_sizes(m: Model, decls: list[A.Decl], nodes: list[A.Node]) -> list[Diagnostic]:
    """The limits of vbr/limits.py that only the whole model shows: counts, sizes, and depth and
    size counted through calls. Each problem is located and names its limit. `nodes`: every node
    of `decls`."""
    out: list[Diagnostic] = []

    def error(span: Span, message: str) -> None:
        out.append(Diagnostic(span, message))

    if len(decls) > LIM.MAX_DECLARATIONS:
        error(decls[LIM.MAX_DECLARATIONS].span, f"more than {LIM.MAX_DECLARATIONS:,} declarations (with everything "
                                                "`extends` brings in), the limit on declarations")
    for d in decls:
        match d:
            case A.Kind() if len(d.fields) > LIM.MAX_FIELDS:
                error(d.fields[LIM.MAX_FIELDS].span, f"kind `{d.name}` has more than {LIM.MAX_FIELDS} fields, "
                                                     "the limit on fields of a kind")
            case A.Enum() if len(d.members) > LIM.MAX_MEMBERS:
                error(d.span, f"enum `{d.name}` has more than {LIM.MAX_MEMBERS:,} members, the limit on enum members")
            case A.Option() if len(d.choices) > LIM.MAX_MEMBERS:
                error(d.choices[LIM.MAX_MEMBERS].span, f"option `{d.name}` lists more than {LIM.MAX_MEMBERS:,} "
                                                       "values, the limit on an option's values")
            case A.Court():
                for it in d.items:
                    low = 0 if it.what == "net" else 1
                    if it.what in ("rows", "cols", "net") and not low <= it.values[0] <= LIM.MAX_COURT_SIDE:
                        error(it.span, f"a court has {low} to {LIM.MAX_COURT_SIDE} {it.what if low else 'net rows'}, "
                                       f"not {it.values[0]:,} (the limit on a court's size)")
    for node in nodes:
        if isinstance(node, A.RangeExpr):
            lo, hi = _fixed_int(m, node.lo), _fixed_int(m, node.hi)
            if lo is not None and hi is not None and hi - lo + 1 > LIM.MAX_LITERAL_RANGE:
                error(node.span, f"the range {lo}..{hi} has {hi - lo + 1:,} items; a range written with "
                                 f"fixed ends has at most {LIM.MAX_LITERAL_RANGE:,}, the limit on ranges")
    out += _through_calls(m, decls)
    return out


def _fixed_int(m: Model, e: A.Expr) -> int | None:
    """An int known before play from the text alone: a literal, its negation, or an int option."""
    match e:
        case A.IntLit(value=v):
            return v
        case A.Unary(op="-", operand=A.IntLit(value=v)):
            return -v
        case A.Name(id=i) if type(m.options.get(i)) is int:
            return m.options[i]
    return None


@dataclass
class _Body:
    """One body's own shape: its depth, its size, and where it uses a fn, proc or const."""

    decl: A.Decl
    depth: int = 0
    size: int = 0
    loops: int = 0  # the most loops over a list (LOOPING) nested in one another
    uses: list[tuple[int, int, str]] = field(default_factory=list)  # (depth of the use, loops around it, name)


def _through_calls(m: Model, decls: list[A.Decl]) -> list[Diagnostic]:
    """Depth counted into every fn, proc and const a body uses (compiling and running follow
    them), and the size of each fn and const with every fn call written out (what evaluating one
    may cost). Both are computed without recursion, over the graph of uses; a cycle adds nothing
    (a fn or const defined through itself is reported as such by the compiler; a proc may recurse,
    bounded at run time by `limit depth`). The loops over a list nested in one another are
    counted into the fns and consts a body uses the same way (procs run on frames of their own).
    Each limit is reported once per chain: at the declaration that goes past it while everything
    it uses stays within."""
    callables = {**m.fns, **m.procs, **m.consts}
    bodies: dict[str, _Body] = {}
    roots: list[_Body] = []
    for d in decls:
        b = _shape(d, callables)
        if isinstance(d, (A.Fn, A.Proc, A.Const)) and callables.get(d.name) is d:
            bodies[d.name] = b
        else:
            roots.append(b)
    depth: dict[str, int] = {}
    size: dict[str, int] = {}
    loops: dict[str, int] = {}
    cap = LIM.MAX_EXPANDED_SIZE + 1
    for name in bodies:
        if name in depth:
            continue
        stack, on_path = [(name, False)], set()
        while stack:
            n, done = stack.pop()
            b = bodies[n]
            if done:
                on_path.discard(n)
                depth[n] = max([b.depth] + [at + depth.get(u, 0) for at, _, u in b.uses])
                loops[n] = 0 if isinstance(b.decl, A.Proc) else _loops_through(b, loops)
                if isinstance(b.decl, A.Proc):
                    size[n] = 0
                else:  # a const is computed once: using one costs nothing more
                    size[n] = min(cap, b.size + sum(size.get(u, 0) for _, _, u in b.uses if u in m.fns))
                continue
            if n in depth or n in on_path:
                continue
            on_path.add(n)
            stack.append((n, True))
            stack.extend((u, False) for _, _, u in b.uses if u not in depth and u not in on_path)
    out: list[Diagnostic] = []
    for b in [*bodies.values(), *roots]:
        d = max([b.depth] + [at + depth.get(u, 0) for at, _, u in b.uses])
        if d > LIM.MAX_DEPTH_THROUGH_CALLS and all(depth.get(u, 0) <= LIM.MAX_DEPTH_THROUGH_CALLS for _, _, u in b.uses):
            out.append(Diagnostic(b.decl.span, f"this nests {d} levels deep counting into the functions, procedures "
                                                f"and consts it uses; the limit on depth through calls is "
                                                f"{LIM.MAX_DEPTH_THROUGH_CALLS} (a chain of calls too long?)"))
        nested = _loops_through(b, loops)
        if nested > LIM.MAX_LOOP_NESTING and all(loops.get(u, 0) <= LIM.MAX_LOOP_NESTING for _, _, u in b.uses):
            out.append(Diagnostic(b.decl.span, f"this nests {nested} loops over lists in one another (aggregates, "
                                                f"comprehensions, `in`), counting into the fns and consts it uses; the "
                                                f"limit on nested loops is {LIM.MAX_LOOP_NESTING}"))
        name = getattr(b.decl, "name", "")
        if isinstance(b.decl, (A.Fn, A.Const)) and size.get(name, 0) > LIM.MAX_EXPANDED_SIZE and all(
                size.get(u, 0) <= LIM.MAX_EXPANDED_SIZE for _, _, u in b.uses):
            what = "fn" if isinstance(b.decl, A.Fn) else "const"
            out.append(Diagnostic(b.decl.span, f"{what} `{name}` is more than {LIM.MAX_EXPANDED_SIZE:,} expression "
                                                "nodes with every fn it calls written out, the limit on expanded size "
                                                "(functions that each call the one before more than once?)"))
    return out


def _loops_through(b: _Body, loops: dict[str, int]) -> int:
    """A body's loops over lists nested in one another, counted on into what it uses (a proc's
    own, 0 in `loops`, start again: its statements run one after another)."""
    return max([b.loops] + [around + loops.get(u, 0) for _, around, u in b.uses])


LIST_BUILTINS = frozenset({"count", "sum", "max", "min", "any", "all", "first", "index_of"})  # loops over a list


def _looping(node) -> bool:
    """Whether an expression goes through a list's items: an aggregate or comprehension, `in`,
    or a built-in over a list."""
    return isinstance(node, A.Comprehension) or isinstance(node, A.Binary) and node.op in ("in", "not in") or \
        isinstance(node, A.Call) and node.func in LIST_BUILTINS


def _shape(d: A.Decl, callables: dict) -> _Body:
    """Walk one declaration without recursion: its depth (the declaration's body at 1), its node
    count, its loops over lists nested in one another, and its uses of fns, procs and consts with
    their depth and the loops around them."""
    b = _Body(d)
    stack = [(c, 1, 0) for c in d.children()]
    while stack:
        node, at, around = stack.pop()
        b.size += 1
        b.depth = max(b.depth, at)
        if _looping(node):
            around += 1
            b.loops = max(b.loops, around)
        if isinstance(node, A.Call) and node.func in callables:
            b.uses.append((at, around, node.func))
        elif isinstance(node, A.Name) and node.id in callables:
            b.uses.append((at, around, node.id))
        stack.extend((c, at + 1, around) for c in node.children())
    return b
