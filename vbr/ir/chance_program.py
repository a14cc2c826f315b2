"""A rule file's typed program whose draws are decided outside it: OpenSpiel's explicit chance.

`build_chance_program(model)` builds the rule file's program with one queue (`[taken, count,
values...]` past the vars, `Program.forced_at[0]`) that every `roll`, `pick` and `shuffle` takes
its outcomes from, in the order play meets them: a roll the index of its face among the die's
faces, a pick the index of its item among those on offer, a shuffle, for each position from the
top down, the index of the position it swaps with. A draw that finds the queue empty faults
with its own message id (`ChanceProgram.sites` says what it draws) naming how many outcomes it
has (the fault's first argument) and, for a shuffle, the zone's first word (its second); a pick
also writes the items it draws among into the queue past its values, as many as `CAPACITY`
leaves room for, and names how many it wrote (its second argument). The state is left as the
draw found it, for reading only. A caller decides that draw's outcome, appends it to the queue
of a copy of the state the step began from, and runs the step again: so a step with k draws runs
k + 1 times (vbr/rl/chance_nodes.py, OpenSpiel's chance nodes).
"""
from __future__ import annotations

from dataclasses import dataclass

from vbr.checker import Model
from vbr.ir import nodes as N
from vbr.ir.build import ProgramBuilder

QUEUE = 0  # the one queue every draw takes from
# outcomes decided for one step at most (every copy of a state carries the queue): a step drawing
# more faults past them
CAPACITY = 1024


@dataclass
class ChanceSite:
    """What a draw is: `roll` (of die `die`), `pick` or `shuffle`, where it is, and the type of
    the values it draws (a die's faces, a pick's items; "" for a shuffle's positions)."""
    kind: str
    die: int
    span: object
    item: str = ""


@dataclass
class ChanceProgram:
    program: N.Program
    sites: dict[int, ChanceSite]  # a draw's `undecided` message id -> the draw


def build_chance_program(m: Model) -> ChanceProgram:
    builder = _ChanceBuilder(m)
    return ChanceProgram(builder.build(), builder.sites)


class _ChanceBuilder(ProgramBuilder):
    def __init__(self, m: Model):
        super().__init__(m)
        self.sites: dict[int, ChanceSite] = {}

    def forced_queue(self, key: tuple) -> int:
        return QUEUE

    def forced_capacities(self) -> list[int]:
        return [CAPACITY]

    def undecided(self, key: tuple, span) -> int:
        kind = key[0]
        what = f"roll {self._die_name(key[1])}" if kind == "roll" else kind
        fault = self.fault(f"the {what} here draws one of {{0}} outcomes, which no one decided", span)
        die = key[1] if kind == "roll" else -1
        item = self.die_types[die] if kind == "roll" else key[1] if kind == "pick" else ""
        self.sites[fault] = ChanceSite(kind, die, span, item)
        return fault

    def _die_name(self, die: int) -> str:
        return list(self.m.dice)[die]
