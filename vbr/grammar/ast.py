"""The abstract syntax of .vbr: frozen pydantic models, each carrying the `Span` it came from.

Class names equal the grammar's rule names (or aliases) so the Transformer maps 1:1. Children are
typed by their base class (`Expr`, `Stmt`, `Decl`); pydantic keeps the concrete subclass instance.
"""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

from vbr.errors import Span


class Node(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    span: Span

    def children(self) -> list["Node"]:
        out: list[Node] = []
        for name in _FIELDS.get(type(self)) or _fields(type(self)):
            _collect(getattr(self, name), out)
        return out


# each class's fields but the span, in order: pydantic's `model_fields` is a descriptor that costs
# more than the walk itself, and `walk` asks for the children of every node
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS[cls] = tuple(name for name in cls.model_fields if name != "span")
    return names


def _collect(value: Any, out: list) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _collect(v, out)


def shape(value: Any) -> Any:
    """The node without its spans: what the canonical printer must preserve."""
    if isinstance(value, Node):
        return (type(value).__name__,) + tuple(
            (k, shape(getattr(value, k))) for k in type(value).model_fields if k not in ("span", "own_line", "member_spans")
        )
    if isinstance(value, (list, tuple)):
        return tuple(shape(v) for v in value)
    return value


def walk(node: Node):
    """Every node below and including `node`, parents first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children()))


# ------------------------------------------------------------------------------------ types
class TypeRef(Node):
    name: str
    item: Optional["TypeRef"] = None  # for `list of T`


# ------------------------------------------------------------------------------ expressions
class Expr(Node):
    pass


class IntLit(Expr):
    value: int


class BoolLit(Expr):
    value: bool


class NoneLit(Expr):
    pass


class StrLit(Expr):
    value: str


class Name(Expr):
    id: str


class Attr(Expr):
    obj: Expr
    name: str


class Index(Expr):
    obj: Expr
    index: Expr


class Call(Expr):
    func: str
    args: list[Expr]


class ListLit(Expr):
    items: list[Expr]


class RangeExpr(Expr):
    lo: Expr
    hi: Expr


class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr


class Binary(Expr):
    op: str  # + - * / % == != < <= > >= and or in "not in"
    left: Expr
    right: Expr


class Cond(Expr):
    test: Expr
    then: Expr
    orelse: Expr


class Comprehension(Expr):
    agg: str  # sum any all first every
    body: Expr
    var: str
    source: Expr
    filter: Optional[Expr] = None


class Roll(Expr):
    die: str


class Pick(Expr):
    source: Expr


# ------------------------------------------------------------------------------- statements
class Stmt(Node):
    pass


class Block(Node):
    body: list[Stmt]


class Let(Stmt):
    name: str
    value: Expr


class Assign(Stmt):
    target: Expr
    op: str  # = += -=
    value: Expr


class CallStmt(Stmt):
    call: Expr


class IfBranch(Node):
    test: Expr
    body: Block


class If(Stmt):
    branches: list[IfBranch]
    orelse: Optional[Block] = None


class For(Stmt):
    var: str
    source: Expr
    body: Block


class Repeat(Stmt):
    count: Expr
    body: Block


class Loop(Stmt):
    max: Expr  # known before play (checker.constant_int)
    body: Block


class While(Stmt):
    test: Expr
    max: Expr  # known before play
    body: Block


class Break(Stmt):
    pass


class Continue(Stmt):
    pass


class Choose(Stmt):
    var: str
    source: Expr
    where: Optional[Expr] = None
    by: Expr
    by_team: bool = False  # `by team T`: the team T answers (through its first seat)
    optional: bool = False
    prompt: Optional[str] = None
    orelse: Optional[Block] = None


class Move(Stmt):
    what: Expr
    dest: Expr
    position: str = "top"  # where it lands in an ordered zone


class Shuffle(Stmt):
    zone: Expr


class Kwarg(Node):
    name: str
    value: Expr


class Create(Stmt):
    kind: str
    fields: list[Kwarg]
    times: Optional[Expr] = None
    dest: Expr


class Goto(Stmt):
    phase: str
    label: Optional[str] = None  # `goto serve as "point scored"`: the transition's name in diagrams


class EndWinner(Stmt):
    winner: Expr
    team: bool = False  # `end winner team T`: the team wins, all its seats with it


class EndDraw(Stmt):
    pass


class Emit(Stmt):
    event: str
    args: list[Expr]


class Say(Stmt):
    text: str  # raw, with {expr} holes
    parts: list[Any]  # str pieces and Expr holes, in order


class Return(Stmt):
    value: Optional[Expr] = None  # `return EXPR`: a procedure's result


class Reveal(Stmt):
    what: Expr


# ----------------------------------------------------------------------------- declarations
class Decl(Node):
    name: str = ""
    override: bool = False


class Extends(Decl):
    path: str


class Team(Node):
    name: str
    seats: list[int]


class Seats(Decl):
    count: int
    teams: list[Team] = []
    when: Optional[Expr] = None  # a condition over options: the first `seats` that holds applies


class Option(Decl):
    default: Expr
    choices: list[Expr] = []


class Enum(Decl):
    members: list[str]
    member_spans: list[Span] = []  # where each member is written (empty for a built enum)


class Field(Node):
    name: str
    type: TypeRef


class Kind(Decl):
    fields: list[Field]


class Zone(Decl):
    per: Optional[str] = None  # "seat" | "team" | None (global)
    visibility: str = "public"
    ordered: bool = False


class CourtItem(Node):
    what: str  # rows cols net field space
    values: list[Any]


class Court(Decl):
    items: list[CourtItem]


class Direction(Decl):
    right: int
    forward: int


class Die(Decl):
    faces: Expr


class VarRange(Node):
    lo: int
    hi: int
    overflow: Optional[str] = None  # "wrap" | "clamp" | None (an error to leave)
    wrap_to: Optional[int] = None


class Var(Decl):
    type: TypeRef
    per: Optional[str] = None
    init: Expr
    range: Optional[VarRange] = None


class Const(Decl):
    value: Expr


class Param(Node):
    name: str
    type: Optional[TypeRef] = None


class Fn(Decl):
    params: list[Param]
    body: Expr


class Proc(Decl):
    params: list[Param]
    body: Block
    result: Optional[TypeRef] = None  # `proc f(...): TYPE { ... }` gives a value


class Event(Decl):
    params: list[Param]


class Handler(Decl):
    event: str
    params: list[Param]
    when: Optional[Expr] = None
    body: Block


class Phase(Decl):
    title: Optional[str] = None
    body: Block


class Stage(Decl):
    title: Optional[str] = None
    members: list[Decl]  # Phase | Stage


class Setup(Decl):
    body: Block


class StartAt(Decl):
    phase: str


class Points(Decl):
    var: str


class Limit(Decl):
    value: Expr  # known before play: see checker.constant_int


class Measure(Decl):
    """`measure NAME: TYPE [first mover] [as "LABEL"]`: a figure of each game that sims report.
    Its name is `measure NAME`, a name no expression can spell: the rules set a measure
    (`measure NAME = EXPR`, an `Assign` to that name) but never read it, so measuring never changes
    play. `type` is seat, side, int or bool; `first_mover` marks the seat or side measure that says
    who moves first in the game's sense (docs/analysis.md)."""

    type: str
    first_mover: bool = False
    label: Optional[str] = None

    @property
    def short(self) -> str:
        return self.name.split(" ", 1)[1]


class Returns(Decl):
    """What each seat gets at the end of a game, for the RL adapters: `value` with `param` a
    seat, between `lo` and `hi`, all seats' together `total` if given."""

    param: Param
    value: Expr
    lo: int
    hi: int
    total: Optional[int] = None  # what the seats' returns always add up to, when the file says


class Require(Decl):
    """A condition over options that must hold before play; `message` says why when it does not."""

    cond: Expr
    message: str


class Comment(Node):
    """A `#` comment, kept so that `vbr fmt` can put it back where it was."""

    text: str
    own_line: bool = True  # False: it trails code on its line


class GameFile(Node):
    title: str
    decls: list[Decl]
    comments: list[Comment] = []


# -------------------------------------------------------------------------------- scenarios
class ScenarioStep(Node):
    kind: str  # option seed given start force choose expect legal illegal phase winner draw
    name: Optional[str] = None
    exprs: list[Expr] = []
    block: Optional[Block] = None
    value: Any = None


class Scenario(Node):
    title: str
    steps: list[ScenarioStep]


class TestFile(Node):
    rules: str
    scenarios: list[Scenario]
    comments: list[Comment] = []


for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, Node):
        _cls.model_rebuild()
