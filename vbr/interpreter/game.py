"""A game as an API: `load` a rule file, make states, play them. The CLI is a thin layer on this."""
from __future__ import annotations

from pathlib import Path

from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.program import Program
from vbr.interpreter.state import State
from vbr.loader import RuleSet, load_rules


class Game:
    def __init__(self, rules: RuleSet, program: Program, options: dict):
        self.rules = rules
        self.program = program
        self.options = dict(options)

    @property
    def title(self) -> str:
        return self.program.title

    @property
    def seats(self) -> int:
        return self.program.seats

    @property
    def path(self) -> Path:
        return self.rules.path

    @property
    def model(self):
        """The checked model the game was compiled from (vbr.checker.Model)."""
        return self.program.model

    @property
    def option_values(self) -> dict:
        """Every option the file declares, by name, with its value in this game."""
        return dict(self.program.options)

    @property
    def team_of(self) -> list[int]:
        """Each seat's team (its index in `program.teams`)."""
        return list(self.program.team_of)

    @property
    def by_team(self) -> bool:
        """Whether games are won, and counted, by team: a team has several seats, or none."""
        return self.program.by_team

    @property
    def var_names(self) -> list[str]:
        """Each var slot's name, in slot order: the var's, `name[i]` for slot i of a var per seat or team."""
        return list(self.program.var_names)

    def new_state(self, seed: int = 0, record: bool = False, trace: bool = False, sink: list | None = None) -> State:
        """A new game. `record` keeps a log of events; `trace` counts phase transitions
        (state.trace: {(from_phase, to_phase): count}, from "" at the start)."""
        return State.new(self.program, seed, record=record, trace=trace, sink=sink)


def load(path, options: dict | None = None, lower: bool = True) -> Game:
    """`lower=False` skips building the fast form (lowering.py): for checking, which only needs
    the diagnostics; the game still plays, through the closures."""
    rules = load_rules(path)
    program = compile_rules(rules, options or {}, lower=lower)
    return Game(rules, program, options or {})
