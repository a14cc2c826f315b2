"""The typed program's nodes: one class per construct, each documented with its meaning once.

Every run-time value is a 64-bit signed integer (`vbr.ir.values` says how each type is encoded;
`none` is NONE, which no integer of the language reaches). A node carries its type as the
checker's type string (`int`, `seat`, `enum:Face`, `ent:Tile`, ...), so an engine can render a
value as text without asking the program again.

Expressions (`Expr`) never suspend and never change the state, except that `Roll` and `Pick`
advance their random stream. Sequences (`Seq`) are list-valued expressions that are only ever
iterated (by an aggregate, a `choose`, a `for`, `move`, `pick`, `count`), so no engine builds a
list value. Statements (`Stmt`) change the state; a block ends in exactly one terminator (`Term`),
the only nodes that transfer control: a jump, a branch, a choice point, a call, a return, a `goto`
or the end of the game.

A fault (`Fault` message ids, `Program.messages`) stops the game with a located error: both
engines raise the same message at the same node, with the node's `span`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vbr.errors import Span

# ---------------------------------------------------------------------------------- expressions


@dataclass(eq=False)
class Expr:
    ty: str


@dataclass(eq=False)
class Const(Expr):
    """A value fixed before play (a literal, an option, an enum member, a direction), encoded."""
    value: int


@dataclass(eq=False)
class Local(Expr):
    """The frame's local `slot` (a parameter, a `let`, a loop's or a choice's name)."""
    slot: int


@dataclass(eq=False)
class Global(Expr):
    """A var: slot `base`, or `base + index` of a var kept per seat or team (`count` slots); an
    index out of 0..count-1 faults with `fault` (a message id)."""
    base: int
    count: int = 1
    index: Expr | None = None
    fault: int = -1
    span: Span | None = None


@dataclass(eq=False)
class ZoneAt(Expr):
    """The zone id `base + index` of a zone kept per seat or team, checked like `Global`."""
    base: int
    count: int
    index: Expr
    fault: int
    span: Span | None = None


@dataclass(eq=False)
class Field(Expr):
    """Field `pos` of the thing `obj`; faults with `fault` when `obj` is none or of another kind."""
    obj: Expr
    kind: int
    pos: int
    fault: int
    span: Span | None = None


@dataclass(eq=False)
class FieldOfAny(Expr):
    """A field several kinds have, of a thing whose kind is known only in play: its word by the
    thing's kind (`positions`, -1 for a kind without it); none or a kind without it faults."""
    obj: Expr
    positions: list[int]
    fault: int
    span: Span | None = None


@dataclass(eq=False)
class Unary(Expr):
    """`neg` (checked against the range of integers) or `not`."""
    op: str
    operand: Expr
    span: Span | None = None
    fault: int = -1  # `neg`: the result out of range


@dataclass(eq=False)
class Binary(Expr):
    """Arithmetic `+ - * / %` on integers, checked: a result out of -INT_MAX..INT_MAX or a
    division by zero faults; `/` rounds towards minus infinity and `%` takes the divisor's sign
    (Python's). Comparisons `== != < <= > >=` give a bool; `and`/`or` short-circuit."""
    op: str
    left: Expr
    right: Expr
    span: Span | None = None
    fault: int = -1  # arithmetic: the result out of range; fault + 1: a division by zero; `< <= > >=`
    # of the rules: a side that is none (internal comparisons have none)


@dataclass(eq=False)
class IfElse(Expr):
    test: Expr
    then: Expr
    orelse: Expr


@dataclass(eq=False)
class Known(Expr):
    """A value the rules need (a condition, the end of a range) read from where none may be kept
    (a var, a field, a local, ...): the value, or, when it is none, fault `fault`."""
    value: Expr
    fault: int


@dataclass(eq=False)
class StackAt(Expr):
    """Item `index` of a list copied onto the stack (`Collect`), which starts at the word local
    `base` holds."""
    base: int
    index: Expr


@dataclass(eq=False)
class Returned(Expr):
    """What the procedure that last returned gave (none when it gave nothing)."""


@dataclass(eq=False)
class Bind(Expr):
    """`value` into local `slot`, then `body`: an inlined `fn`'s parameter, evaluated once."""
    slot: int
    value: Expr
    body: Expr


@dataclass(eq=False)
class FnCall(Expr):
    """A heavy `fn` called (`Program.fns[fn]`, one written out at each call would make the
    program grow with every call): `args` evaluated left to right, then written to its
    parameters' words, then its body evaluated over its block of words, which is then set to
    none again (so that two calls leave the same words in either order). No fn runs twice at
    once (none calls itself), so each has one block. A call from outside a fn first pays
    `steps` steps of the `steps` limit (a step per 64 of the body's nodes)."""
    fn: int
    args: list[Expr]
    steps: int = 0


@dataclass(eq=False)
class Builtin(Expr):
    """A built-in function by name (`vbr.ir.builtins` lists each with its meaning), its arguments
    evaluated left to right; `fault` is the message id raised when an argument is outside the
    built-in's domain."""
    name: str
    args: list[Expr]
    fault: int = -1
    span: Span | None = None


@dataclass(eq=False)
class Lookup(Expr):
    """Entry `index` of a table fixed before play (a seat's partner, a team's voice, a space's
    cell per side); out of range faults with `fault`, or gives none when `fault` is -1."""
    table: list[int]
    index: Expr
    fault: int = -1


@dataclass(eq=False)
class Roll(Expr):
    """A face of die `die`, drawn uniformly from random stream `stream`; with `forced` >= 0 (a
    scenario's program only), the next face queued in `Program.forced_at[forced]` first, when
    one is left (`ForcedQueue`). With `undecided` >= 0 (a program whose draws are decided
    outside, vbr.ir.chance_program), the queued value is the face's index, and with none left
    the draw faults with `undecided` naming how many faces there are."""
    die: int
    stream: int
    forced: int = -1
    undecided: int = -1


@dataclass(eq=False)
class Pick(Expr):
    """An item of `seq` drawn uniformly from stream `stream`; faults on an empty sequence. With
    `forced` >= 0 (a scenario's program only), the next value queued in
    `Program.forced_at[forced]` when one is left: that value when `seq` holds it, else fault
    `forced_fault` naming it."""
    seq: "Seq"
    stream: int
    fault: int
    span: Span | None = None
    forced: int = -1
    forced_fault: int = -1
    undecided: int = -1  # as Roll's: the queued value is the item's index; none left faults naming how many


@dataclass(eq=False)
class Aggregate(Expr):
    """`sum`, `any`, `all`, `first`, `count`, `max` or `min` of `body` over `seq`, the item in
    local `slot`, the items where `cond` is false skipped. `first`, `max` and `min` give none
    when no item passes; an item of `max` or `min` that is none faults."""
    agg: str
    seq: "Seq"
    slot: int
    body: Expr
    cond: Expr | None = None
    span: Span | None = None
    fault: int = -1  # `sum`: the total out of range; `max`, `min`: an item that is none


@dataclass(eq=False)
class ItemAt(Expr):
    """Item `index` (0-based) of `seq`; out of range faults with `fault` naming the index and the last."""
    seq: "Seq"
    index: Expr
    fault: int


@dataclass(eq=False)
class Contains(Expr):
    """`item in seq`."""
    item: Expr
    seq: "Seq"


@dataclass(eq=False)
class SeqEqual(Expr):
    """Whether two lists hold the same items in the same order: `left`'s items worked out
    first, then `right`'s."""
    left: "Seq"
    right: "Seq"


@dataclass(eq=False)
class IndexOf(Expr):
    """`index_of(item, seq)`: where item first is in seq, counting from 0, or -1."""
    item: Expr
    seq: "Seq"


# ------------------------------------------------------------------------------------ sequences


@dataclass(eq=False)
class Seq:
    """A list-valued expression; `bound` is the most items it can hold (known from the program)."""
    item: str
    bound: int


@dataclass(eq=False)
class ZoneItems(Seq):
    """The things in zone `zone` from the bottom up (the top last)."""
    zone: Expr


@dataclass(eq=False)
class RangeItems(Seq):
    """lo..hi, both ends included; empty when hi < lo; more than `bound` numbers fault."""
    lo: Expr
    hi: Expr
    fault: int = -1


@dataclass(eq=False)
class Items(Seq):
    """A list literal's items, in order."""
    items: list[Expr]


@dataclass(eq=False)
class TableItems(Seq):
    """Row `index` of a table fixed before play (a team's seats); out of range faults."""
    rows: list[list[int]]
    index: Expr
    fault: int


@dataclass(eq=False)
class FieldItems(Seq):
    """The items of a thing's list field: its count at word `pos` of the thing, the items after
    (checked as `Field`)."""
    obj: Expr
    kind: int
    pos: int
    fault: int


@dataclass(eq=False)
class ReachItems(Seq):
    """Every end of a movement of exactly `dist` steps from `start` in `side`'s frame: row
    (start, dist, side) of `Program.reach_tables[table]`, worked out before play by the court's
    own search (Court.reach). A start the table does not hold faults with `fault`; a distance
    out of 0..64 with `fault + 1`."""
    start: Expr
    dist: Expr
    side: Expr
    table: int
    fault: int


@dataclass(eq=False)
class ReachSearch(Seq):
    """`reach` whose directions or net cost are known only in play: Court.reach's search, run
    then over the court's grid (`Program.court_tables`: cols, rows, net), its steps the vectors
    of the directions in `dirs` (`Program.directions`) in `side`'s frame; the ends in the court's
    order (row, then column). A distance out of 0..64 faults with `fault`, a net cost below 0
    with `fault + 1`, a start or a direction that is none with `fault + 2` (`fault + 3`: the
    memory for the search could not be had)."""
    start: Expr
    dist: Expr
    side: Expr
    dirs: "Seq"
    net: Expr
    fault: int


@dataclass(eq=False)
class VarItems(Seq):
    """The items of a var holding a list: its count at word `at` of the vars, the items after
    (at most `bound`, build.py's MAX_LIST_VAR). A var kept per seat or team holds `count` such
    records of `1 + bound` words, `index` choosing one (checked as `Global`)."""
    at: int
    count: int = 1
    index: Expr | None = None
    fault: int = -1


@dataclass(eq=False)
class StackItems(Seq):
    """A list copied onto the stack: local `count` items from the word local `base` holds."""
    base: int
    count: int


@dataclass(eq=False)
class KindItems(Seq):
    """Every thing of kind `kind`, in creation order."""
    kind: int


@dataclass(eq=False)
class ChooseSeq(Seq):
    """`then` or `orelse` by `test`."""
    test: Expr
    then: Seq
    orelse: Seq


@dataclass(eq=False)
class BindSeq(Seq):
    """`value` into local `slot`, then the sequence `body` (an inlined `fn` giving a list)."""
    slot: int
    value: Expr
    body: Seq


@dataclass(eq=False)
class Comprehension(Seq):
    """`every(body for x in source if cond)`: body per item of `source` (in local `slot`)."""
    source: Seq
    slot: int
    body: Expr
    cond: Expr | None = None


# ----------------------------------------------------------------------------------- statements


@dataclass(eq=False)
class Stmt:
    span: Span


@dataclass(eq=False)
class SetLocal(Stmt):
    slot: int
    value: Expr


@dataclass(eq=False)
class SetGlobal(Stmt):
    """A var's slot (checked index as in `Global`) set to `value`, kept within the var's range
    (`lo..hi`: `wrap` to `wrap_to`, `clamp`, or fault `range_fault`) when it has one."""
    target: Global
    value: Expr
    lo: int | None = None
    hi: int | None = None
    overflow: str | None = None
    wrap_to: int | None = None
    range_fault: int = -1


@dataclass(eq=False)
class SetListItems(Stmt):
    """A var or a thing's field holding a list (read as `target`) set to the items of `value`,
    taken whole before any is written (and before the thing is checked); more items than it
    holds (`target.bound`) faults with `fault` naming how many."""
    target: "VarItems | FieldItems"
    value: Seq
    fault: int


@dataclass(eq=False)
class SetField(Stmt):
    """A thing's field (checked as `Field` or `FieldOfAny`) set to `value`."""
    target: Expr
    value: Expr


@dataclass(eq=False)
class MoveOne(Stmt):
    """Thing `what` out of its zone onto the top (or the bottom) of zone `dest`; moving none faults."""
    what: Expr
    dest: Expr
    bottom: bool
    fault: int


@dataclass(eq=False)
class MoveAll(Stmt):
    """Every item of `seq` (taken before any moves), in order, as `MoveOne` each."""
    seq: Seq
    dest: Expr
    bottom: bool
    fault: int


@dataclass(eq=False)
class Shuffle(Stmt):
    """Zone `zone` put in a uniformly random order (Fisher-Yates from the top down, stream
    `stream`: position i, from the top, swaps with one of 0..i). With `undecided` >= 0 (a program
    whose draws are decided outside), each position's partner is the next value queued in
    `Program.forced_at[forced]`, and with none left the shuffle faults with `undecided` naming
    how many partners position i has (i + 1)."""
    zone: Expr
    stream: int
    forced: int = -1
    undecided: int = -1


@dataclass(eq=False)
class Create(Stmt):
    """`times` new things of kind `kind` with `fields` (evaluated once; a list field's items as a
    sequence, written as its count then its items), each field at its word of `offsets`, each
    thing onto the top of `dest`; more things than the program's bound faults with `fault`, a
    list longer than its field holds with `fault + 1`."""
    kind: int
    fields: list
    offsets: list[int]
    dest: Expr
    times: Expr | None
    fault: int


@dataclass(eq=False)
class CallEvent(Stmt):
    """A call of procedure `unit` written out in the running unit (a procedure that gives a
    list), `what` "call" where its body begins, "return" where it returns: told to a log that
    listens, as a Call and a Return are (vbr.engines.events); nothing else."""
    what: str
    unit: int


@dataclass(eq=False)
class Say(Stmt):
    """A line of the game's log: its literal pieces (indexes into `Program.texts`) with `args`
    between them, each described by its type (a thing with its kind and fields)."""
    pieces: list[int]
    args: list[Expr]


@dataclass(eq=False)
class Collect(Stmt):
    """The items of `seq` copied onto the top of the stack, above the running frame: where they
    start into local `base`, how many into local `count`. More words than the state holds faults
    (message COPY_FAULT). A `let` of a list, a list argument and a `for` keep their items so."""
    seq: Seq
    base: int
    count: int


@dataclass(eq=False)
class Mark(Stmt):
    """The stack's top into local `slot` (a loop's lists are released back to it)."""
    slot: int


@dataclass(eq=False)
class Release(Stmt):
    """The stack cut back to the word local `slot` holds: the lists copied since are gone."""
    slot: int


@dataclass(eq=False)
class Check(Stmt):
    """Faults with `fault` (naming `arg`'s value) unless `test` holds (a loop past its `max`,
    a count out of range)."""
    test: Expr
    fault: int
    arg: Expr | None = None


@dataclass(eq=False)
class Reveal(Stmt):
    """Thing `what` (or every thing of zone `zone`) shown in the log; the state is unchanged.
    A list shown: `what` (of type `items:T`) is where a copy of its items starts, `count` how
    many there are."""
    what: Expr | None
    zone: Expr | None
    count: Expr | None = None


# ---------------------------------------------------------------------------------- terminators


@dataclass(eq=False)
class Term:
    span: Span


@dataclass(eq=False)
class Jump(Term):
    target: int


@dataclass(eq=False)
class Branch(Term):
    test: Expr
    then: int
    orelse: int


@dataclass(eq=False)
class Choose(Term):
    """A choice point. The options are the items of `seq` for which `cond` holds (the item in
    local `slot` while `cond` is asked), then none if `optional`. No options: an optional choice
    or one with an `else` sets the slot to none and goes on at `empty` without asking; any other
    faults with `nothing`. Otherwise seat `by` (a seat, else fault `no_seat`) answers, the answer
    lands in `slot` and play goes on at `next`. `prompt` indexes `Program.texts`; `site` names
    the choice (its index in `Program.choices`). When `repeats` (the items may hold a value
    twice), each value is offered once, where it first comes, and `optional` adds none only
    when no item is none."""
    seq: Seq
    slot: int
    cond: Expr | None
    by: Expr
    optional: bool
    empty: int
    next: int
    prompt: int
    site: int
    nothing: int
    no_seat: int
    too_many: int
    repeats: bool = True


@dataclass(eq=False)
class Call(Term):
    """Procedure `unit` called with `args` (evaluated here, into its first locals); play goes on
    at `next` when it returns, its result (or none) in local `result` when that is not None."""
    unit: int
    args: list[Expr]
    result: int | None
    next: int


@dataclass(eq=False)
class Emit(Term):
    """`emit EVENT(args)`: the arguments are already in locals `args`; each handler's `when`
    (in `guards`, None for none) is asked in order, reading them; then every handler whose guard
    held is called with them, the first first, and play goes on at `next` when the last returns.
    Their frames are pushed at once: one past `limit depth` faults with `depth_fault`."""
    handlers: list[int]
    guards: list
    args: list[int]
    next: int
    depth_fault: int = 1  # build.DEPTH_FAULT, the message of a call too deep, unless the builder gives its own


@dataclass(eq=False)
class Return(Term):
    value: Expr | None


@dataclass(eq=False)
class ReturnList(Term):
    """`return LIST` from a called procedure that gives a list (one that calls itself, so it
    cannot be written out where it is called): the `count` items from word `base` on (a copy
    above the frame) moved down to where the frame starts, the frame gone. The caller finds them
    from the stack top it had at the call, their count as `Returned`. More than `bound` items
    fault with `fault`, naming how many."""
    base: Expr
    count: Expr
    bound: int
    fault: int


@dataclass(eq=False)
class Goto(Term):
    """Every frame dropped; phase `unit` starts."""
    unit: int


@dataclass(eq=False)
class End(Term):
    """The game ends: seat (or team, when `team`) `winner` wins, or a draw when winner is None."""
    winner: Expr | None
    team: bool = False
    fault: int = -1


@dataclass(eq=False)
class Fail(Term):
    """A fault the program knows before play it would reach (a phase that falls off its end)."""
    fault: int


# ---------------------------------------------------------------------------------------- units


@dataclass(eq=False)
class Block:
    stmts: list[Stmt] = field(default_factory=list)
    term: Term | None = None


@dataclass(eq=False)
class Unit:
    """A phase, procedure or set-up: its blocks (entry 0) over `nlocals` locals, the first
    `nparams` its parameters."""
    name: str
    kind: str  # phase proc handler setup returns, or in a scenario's program: given probe
    span: Span
    nparams: int = 0
    nlocals: int = 0
    blocks: list[Block] = field(default_factory=list)
    local_types: list[str] = field(default_factory=list)


@dataclass(eq=False)
class FnBody:
    """A heavy fn's body, built once for the types its arguments have at a call: its locals (its
    parameters first) are the words from `base` of the vars on (read with `fp` = the vars' start
    + base - FRAME_HEAD, as a frame's locals are)."""
    name: str
    nparams: int
    body: Expr
    nlocals: int = 0
    base: int = 0


@dataclass(eq=False)
class ChoiceSite:
    """A `choose` of the rule file: its name (the chosen name), the options' type, its prompt."""
    var: str
    item: str
    prompt: str
    span: Span
    bound: int = 0  # the most options it can offer, `pass` aside


@dataclass(eq=False)
class Program:
    """The typed program of one rule file under one set of options."""
    title: str
    seats: int
    teams: list[list[int]]
    layout: "object"  # vbr.ir.layout.Layout
    units: list[Unit]
    init: int  # the unit that sets the vars computed at the start, runs `setup` and goes to `start`
    dice: list[tuple[int, ...]]
    die_names: list[str]
    die_types: list[str]
    texts: list[str]
    messages: list[tuple[str, Span]]  # fault id -> (message, where)
    choices: list[ChoiceSite]
    streams: list[str]  # random stream id -> its key (where the draw happens in the rules)
    names: "object"  # vbr.ir.values.Names: how values of each type read as text
    points: tuple[int, int] | None  # (base, count) of the points var
    limits: dict[str, int]
    by_team: bool = False
    source_hash: str = ""
    points_by_team: bool = False  # the points var is kept per team (else, when there is one, per seat)
    kinds: list = field(default_factory=list)  # (name, field names, field types) per kind
    var_types: list[str] = field(default_factory=list)  # per var slot
    court_tables: dict | None = None  # build.py's ProgramBuilder._court_tables
    directions: list = field(default_factory=list)  # (right, forward) per direction
    zone_side: list[int] = field(default_factory=list)  # the team owning each zone, -1 for nobody
    hidden: list[list[int]] = field(default_factory=list)  # per seat: the zones it may not look into
    reach_tables: list[dict] = field(default_factory=list)  # ReachItems' tables: (start, dist, side) -> ends
    list_caps: dict = field(default_factory=dict)  # (kind, word) of a list field -> the items it holds
    measures: tuple = ()  # checker.MeasureSlot per declared measure
    field_at: dict = field(default_factory=dict)  # (kind, field name) -> its word in a thing's row
    fns: list[FnBody] = field(default_factory=list)  # the heavy fns FnCall calls
    list_vars: dict = field(default_factory=dict)  # a var holding a list -> (its first word past `layout.vars`, capacity)
    returns_units: list[int] = field(default_factory=list)  # per seat, the unit giving its `returns` value
    forced_at: list[int] = field(default_factory=list)  # a scenario's program: each ForcedQueue's first word
    held: bool = False  # the start of play returns, and a runner starts play (a scenario's program)


def sub_exprs(node):
    """The expressions and sequences directly inside a node (a statement, terminator, expression
    or sequence): its fields of those types and the items of its lists of them."""
    for v in vars(node).values():
        if isinstance(v, (Expr, Seq)):
            yield v
        elif isinstance(v, list):
            yield from (i for i in v if isinstance(i, (Expr, Seq)))


def walk(node):
    """The node and every expression and sequence below it, parents first."""
    yield node
    for c in sub_exprs(node):
        yield from walk(c)
