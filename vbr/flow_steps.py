"""A traced game's steps between the nodes of its turn-flow diagram, counted from its events.

`vbr graph --sim` and `vbr report` draw the phases, "start", "game over", and the procedures that
can end the game or go to a phase (vbr.turn_flow.jumping_procs) as nodes of their own. A traced
run (vbr.sim, `trace`) hands each game's log to a `FlowSteps`, which follows play along those
nodes from the engines' `phase` events, the game's `end`, and each call of a procedure and its
return (vbr.engines.events: heard because `hears_calls` is true):

- a call of a procedure drawn as a node is a step from the node play is in into the procedure's
  node (`point()`), which play is then in; a call of any other procedure, or of one whose node
  play is already inside (a procedure calling itself), is no step;
- that procedure's return is a step from its node back to the node that called it;
- a `goto` is a step from the node play is in to the phase (every call then left behind);
- the end of the game is a step from the node play is in to "game over".

So the counts are what play did along the drawn edges, and `entered` how often play came into
each node: a return into a caller's node enters nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vbr.kept_games import per_game
from vbr.turn_flow import END, START, jumping_procs, proc_node


@per_game
def drawn_procs(game) -> frozenset[str]:
    """The procedures a diagram of a loaded game (vbr.engines.game.Game) draws as nodes: those that
    can end the game or go to a phase, over the checked model under the game's options, as
    vbr.visualizer.graph draws them (one only a branch the options rule out calls is never
    called in play)."""
    return frozenset(jumping_procs(game.model))


@dataclass
class FlowCounts:
    """Steps along the drawn edges, {(from node, to node): count}, and how often play entered each
    node, {node: count} (the start once a game): of one game, or summed over games (`add`)."""

    steps: dict = field(default_factory=dict)
    entered: dict = field(default_factory=dict)

    def add(self, steps: dict, entered: dict) -> None:
        for key, n in steps.items():
            self.steps[key] = self.steps.get(key, 0) + n
        for node, n in entered.items():
            self.entered[node] = self.entered.get(node, 0) + n


class FlowSteps:
    """Stands in for a logged game's list of events (vbr.engines.events.EventLog appends to it):
    each event counted as it comes (see the module's docstring), none kept, so a game of millions
    of choices takes no more memory than a short one. `drawn`: the names of the procedures the
    diagram draws as nodes."""

    hears_calls = True

    def __init__(self, drawn: frozenset[str] | set[str]):
        self.drawn = drawn
        self.steps: dict = {}
        self.entered: dict = {START: 1}
        self.at = START  # the node play is in
        self.calls: list = []  # per call not yet returned: the node to step back to, or None (no step)

    def append(self, e: dict) -> None:
        t = e["t"]
        if t == "call":
            self.call(e["proc"])
        elif t == "return":
            back = self.calls.pop() if self.calls else None  # a scenario's own call has no call event
            if back is not None:
                self.step(back, enters=False)
        elif t == "phase":
            self.calls.clear()
            self.step(e["phase"])
        elif t == "end":
            self.step(END)

    def call(self, name: str) -> None:
        node = proc_node(name)
        # the nodes play is inside are where it is and those it stepped back to from a call
        # (the first a phase or the start, never a procedure's node)
        if name not in self.drawn or node == self.at or node in self.calls:
            self.calls.append(None)
            return
        self.calls.append(self.at)
        self.step(node)

    def step(self, to: str, enters: bool = True) -> None:
        key = (self.at, to)
        self.steps[key] = self.steps.get(key, 0) + 1
        if enters:
            self.entered[to] = self.entered.get(to, 0) + 1
        self.at = to


def flow_steps(events: list[dict], drawn: frozenset[str] | set[str] = frozenset()) -> FlowSteps:
    """A game's events (calls and returns among them, vbr.engines.events.CallEvents) counted by a
    `FlowSteps` following the procedures `drawn` as nodes."""
    counted = FlowSteps(drawn)
    for e in events:
        counted.append(e)
    return counted
