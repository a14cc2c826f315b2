"""The compiled form of a rule file: code objects of closures plus the tables they index."""
from __future__ import annotations

from dataclasses import dataclass, field

from vbr.errors import Span
from vbr.interpreter import rng


@dataclass
class Code:
    """One phase, procedure, handler or setup block as a list of ops (`op(state, frame)`)."""

    name: str
    kind: str  # phase proc handler setup given
    span: Span
    ops: list = field(default_factory=list)
    spans: list = field(default_factory=list)
    nlocals: int = 1
    nparams: int = 0
    guard: object = None  # handlers: `when` condition over the parameters
    result_slot: int | None = None  # the local a called procedure's `return VALUE` lands in


class Frame:
    __slots__ = ("code", "pc", "L")

    def __init__(self, code: Code, L: list | None = None):
        self.code = code
        self.pc = 0
        self.L = L if L is not None else [None] * code.nlocals

    @classmethod
    def called(cls, code: Code, args: list) -> "Frame":
        """A frame for a proc or handler, its parameters in the first local slots."""
        L = [None] * code.nlocals
        L[:len(args)] = args
        return cls(code, L)

    def copy(self) -> "Frame":
        f = Frame.__new__(Frame)
        f.code, f.pc, f.L = self.code, self.pc, list(self.L)
        return f


class Pending:
    """A choice point: `seat` must pick one of `options`; the answer lands in local `slot`."""

    __slots__ = ("seat", "options", "prompt", "slot", "next_pc", "span")

    def __init__(self, seat: int, options: tuple, prompt: str, slot: int, next_pc: int, span: Span):
        self.seat, self.options, self.prompt = seat, options, prompt
        self.slot, self.next_pc, self.span = slot, next_pc, span


@dataclass
class Program:
    model: object
    title: str
    seats: int
    teams: list
    team_of: list
    options: dict
    zone_names: list
    zone_owner: list
    zone_visibility: list = field(default_factory=list)
    court: object = None
    dir_vec: dict = field(default_factory=dict)
    die_names: list = field(default_factory=list)
    die_index: dict = field(default_factory=dict)
    die_types: dict = field(default_factory=dict)
    dice: list = field(default_factory=list)
    kind_names: list = field(default_factory=list)
    kind_fields: list = field(default_factory=list)
    nvals: int = 0
    var_init: list = field(default_factory=list)  # (base, count, closure) of vars set by an expression
    fixed_vals: list = field(default_factory=list)  # every var's value at the start, where a constant fixes it
    var_ranges: dict = field(default_factory=dict)  # slot -> (lo, hi, overflow, wrap_to)
    var_names: list = field(default_factory=list)
    phases: dict = field(default_factory=dict)
    procs: dict = field(default_factory=dict)
    handlers: dict = field(default_factory=dict)
    setup: Code | None = None
    start: str = ""
    points: tuple | None = None  # (base, count)
    measures: tuple = ()  # checker.MeasureSlot per declared measure
    limits: dict = field(default_factory=dict)
    step_limit: int = 0  # limits["steps"], limits["depth"], limits["choices"] as plain attributes
    depth_limit: int = 0
    choice_limit: int = 0
    const_values: dict = field(default_factory=dict)
    fn_code: dict = field(default_factory=dict)
    fn_weight: dict = field(default_factory=dict)  # name -> nodes a call evaluates at most (ExprCompiler.fn_weight)
    pure_procs: dict = field(default_factory=dict)  # name -> (closure, nlocals): procs that never suspend
    scratch_locals: object = None
    scratch_state: object = None
    lowering: object = None  # the Lowering that built the fast form (lowering.py)
    hidden_cache: dict = field(default_factory=dict)  # seat -> the zones it may not see (State.hidden_zones)
    compilers: tuple = ()  # (ExprCompiler, StmtCompiler): scenarios compile against the same tables
    zone_side: list = field(default_factory=list)  # zone -> the teams it belongs to (zone_sides)
    by_team: bool = False  # a team has several seats, or none: games are won, and counted, by team

    def __post_init__(self):
        self.by_team = any(len(t) != 1 for t in self.teams)

    def cell_text(self, c) -> str:
        return self.court.cell_text(c) if self.court else repr(c)

    def zone_sides(self) -> list:
        """For each zone, the teams it belongs to as a sorted tuple (None for a zone of nobody).

        An owner index alone names a seat in one zone and a team in another; imagined worlds pool
        hidden things by side, so that a team's deck and its players' hands share one pool (a card
        goes from one to the other) and no two unrelated owners that happen to share a number do."""
        if not self.zone_side:
            self.zone_side = [None if owner < 0 else tuple(sorted({self.team_of[s] for s in self.team_seats(per, owner)}))
                              for owner, (_, per) in zip(self.zone_owner, self.zone_visibility)]
        return self.zone_side

    def team_seats(self, owner_kind: str | None, owner: int) -> tuple[int, ...]:
        if owner < 0:
            return ()
        if owner_kind == "team":
            return tuple(self.teams[owner])
        return (owner,)
