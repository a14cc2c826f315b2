"""A typed engine's game (vbr.engines.game) as the terminal session plays it: the part of the
closure engine's State the session and the screen read (`pending`, `result`, `choices`, `log`,
`apply_index`, `legal_actions`, `outcome`, `observation`), and agents that answer as
`vbr run --engine python|c` answers (vbr.play.typed_decision)."""
from __future__ import annotations

from dataclasses import dataclass

from vbr.engines.events import EventLog
from vbr.ir.layout import Header as H
from vbr.ir.values import NONE


@dataclass
class Pending:
    seat: int
    options: list[int]


class TypedPlay:
    """One game through a typed engine, logged."""

    def __init__(self, game, seed: int):
        self.game, self.names = game, game.var_names  # each var slot's name, as the closure engine names it
        self.log: list = []
        self.state = game.new_state(seed, log=self.log)
        self.text = EventLog(game.program, [])  # things and values as text, as the log writes them

    @property
    def pending(self) -> Pending | None:
        st = self.state
        return None if st.is_terminal() else Pending(st.current_player(), st.options())

    @property
    def result(self):
        return self.state.outcome()

    @property
    def choices(self) -> int:
        return int(self.state.words[H.CHOICES])

    def apply_index(self, i: int) -> None:
        self.state.apply_index(i)

    def legal_actions(self):
        return self.state.legal_actions()

    def outcome(self):
        return self.state.outcome()

    def phase(self) -> str:
        """The phase being played: the unit of the stack's first frame, when it is a phase."""
        p = self.game.program
        unit = p.units[int(self.state.words[p.layout.stack + 1])]
        return unit.name if unit.kind == "phase" else ""

    def observation(self, seat: int) -> dict:
        """What `seat` may know, in the closure engine's form: every var, the things of the zones it
        may look into, the sizes of the others, and its pending choice. A thing lying in a zone it
        may not look into reads `hidden`, never its id."""
        p, S = self.game.program, self.state.words
        lay, hidden = p.layout, set(p.hidden[seat])
        zones = {}
        for z, name in enumerate(p.names.zones):
            at = lay.zone(z)
            things = [int(e) for e in S[at + 1:at + 1 + S[at]]]
            zones[name] = len(things) if z in hidden else [self.text.thing(S, e) for e in things]
        seen = lambda ty, v: self._seen(ty, int(v), hidden)  # noqa: E731
        values = S[lay.vars:lay.vars + lay.nvars]
        obs = {"phase": self.phase(), "vars": {n: seen(t, v) for n, t, v in zip(self.names, p.var_types, values)},
               "zones": zones}
        if not self.state.is_terminal() and self.state.current_player() == seat:
            site = p.choices[S[H.SITE]]
            obs["prompt"] = site.prompt
            obs["legal"] = [seen(site.item, v) for v in self.state.options()]
        return obs

    def _seen(self, ty: str, v: int, hidden: set) -> str:
        p = self.game.program
        if ty.startswith("ent") and v != NONE and int(self.state.words[p.layout.zone_of + v]) in hidden:
            return "hidden"
        return p.names.text(ty, v)


class TypedAgent:
    """A seat's agent over a TypedPlay: random, first, greedy or mcts, drawing from its own stream."""

    def __init__(self, play: TypedPlay, kind: str, params: dict, stream: int):
        self.play, self.kind, self.params, self.stream = play, kind, params, stream

    def act(self, view) -> int:
        from vbr.play import typed_decision
        choice, self.stream = typed_decision(self.play.state, self.kind, self.params, self.stream)
        return choice
