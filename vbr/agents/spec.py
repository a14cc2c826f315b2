"""Agents as text: `NAME` or `NAME:PARAM=VALUE,PARAM=VALUE`, so that a command line, a log header
and a simulation's summary can all name an agent with its settings, and read the name back.

Grammar of a list (`--agents`): comma-separated tokens. A token with `=` and no `:` before it is a
parameter of the agent named before it; any other token starts a new agent. So
`mcts:iterations=400,c=0.7,random` is two agents, `mcts:c=0.7,iterations=400` and `random`.

Canonical form: the name, then only the parameters that differ from their defaults, sorted by
name (`mcts:c=1.5,iterations=400`; an agent at its defaults is its bare name, `mcts`). Leaving
defaults out keeps the names of the plain agents (`random`, `greedy`) what they always were in
logs; sorting makes two spellings of one agent one string. `parse_agent(canonical(...))` gives
back the same name and parameters.
"""
from __future__ import annotations

import difflib
import numbers
from dataclasses import dataclass

from vbr.errors import UsageError
from vbr.number_text import decimal_number, whole_meant, whole_number


class AgentSpecError(UsageError):
    """An agent spec that names no agent, or gives it a parameter it does not have or cannot take."""


@dataclass(frozen=True)
class Param:
    """One setting of an agent. `allowed` is (lo, hi) for numbers, the tuple of choices for text."""

    name: str
    type: type
    default: object
    allowed: tuple
    help: str

    def parse(self, agent: str, raw: str):
        read = {int: whole_number, float: decimal_number}.get(self.type, self.type)
        try:
            value = read(raw)
        except ValueError:
            value = None
        if value is None or not self.admits(value):
            whole = whole_meant(raw) if self.type is int else None
            fix = f": write {whole}" if whole is not None and self.admits(whole) else ""
            raise AgentSpecError(f"{agent}: {self.name} must be {self.domain()}, not {raw!r}{fix}")
        return value

    def admits(self, value) -> bool:
        if self.type is str:
            return value in self.allowed
        lo, hi = self.allowed
        return lo <= value <= hi

    def domain(self) -> str:
        if self.type is str:
            return "one of " + ", ".join(self.allowed)
        kind = "an integer" if self.type is int else "a number"
        lo, hi = self.allowed
        return f"{kind} from {_text(lo)} to {_text(hi)}"


def _text(value) -> str:
    """A value as it is written in a spec: floats without a needless `.0`, so `c=2` stays `c=2`."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return str(value)


@dataclass(frozen=True)
class AgentKind:
    """An agent vbr plays (vbr.play.typed_decision): its name, what it does, its settings."""

    name: str
    summary: str
    params: tuple[Param, ...] = ()


AGENTS = {k.name: k for k in (
    AgentKind("random", "a uniformly random legal choice"),
    AgentKind("first", "always the first legal choice"),
    AgentKind("greedy", "one-step lookahead on imagined worlds: a win, else the best points lead",
              (Param("samples", int, 2, (1, 1000), "imagined worlds per option"),)),
    AgentKind("mcts", "information-set Monte Carlo tree search over imagined worlds", (
        Param("iterations", int, 200, (1, 1_000_000), "playouts per decision, at least (see budget)"),
        Param("c", float, 0.7, (0.0, 100.0), "UCB exploration constant"),
        Param("rollout", str, "random", ("random", "greedy"),
              "playout policy: uniformly random, or greedy (each option tried, best immediate result)"),
        Param("depth", int, 3, (0, 100_000), "playout cut-off in choices, scored by points lead (0: play to the end)"),
        Param("reward", str, "margin", ("win", "margin"),
              "win: win/loss only; margin: also the points lead at a playout's end"),
        Param("greedy_moves", int, 0, (0, 100_000),
              "with rollout=greedy: only a playout's first k choices greedy, then random (0: all)"),
        Param("worlds", int, 1, (1, 1000), "trees per decision, the iterations shared, root visits summed"),
        Param("widen", float, 0.0, (0.0, 1.0),
              "progressive widening: a node keeps at most (visits+1)^widen children (0: off)"),
        Param("tree", str, "closed", ("open", "closed"),
              "open: a node's children keyed by the choices made; closed: also by what the seat observes"),
        Param("inner_c", float, 0.1, (0.0, 100.0), "UCB exploration constant below the root (0: c)"),
        Param("spread_playouts", int, 8, (0, 100_000),
              "reward=margin: random playouts to the end that set how much a point of lead weighs (0: the leads met)"),
        Param("budget", int, 6000, (0, 1_000_000_000),
              "after the iterations, go on while the imagined worlds' work (steps of rules run and choices made) "
              "is under this (0: exactly the iterations)"),
        Param("cut", str, "lead", ("even", "lead"),
              "reward=margin: a playout cut by depth counts as even (0.5) or as its points lead says"),
        Param("spread_scale", float, 1.5, (0.01, 100.0),
              "reward=margin: the spread a point of lead is weighed against, times this"),
        Param("extend", float, 4.0, (1.0, 100.0),
              "past the budget, go on up to this many times it while the best option is not confidently ahead"),
        Param("confidence", float, 1.0, (0.0, 100.0),
              "with extend: standard errors the best option's mean must lead every other's by"),
    )),
)}


def _close(word: str, names) -> str:
    """`; did you mean NAME?` for the name of `names` closest to a misspelt `word`, else nothing."""
    close = difflib.get_close_matches(word.lower(), list(names), n=1)
    return f"; did you mean {close[0]}?" if close else ""


def agent_class(name: str):
    try:
        return AGENTS[name]
    except KeyError:
        hint = f"; {HUMAN}, a person at the terminal, plays only in `vbr play`" if name == HUMAN else _close(name, AGENTS)
        raise AgentSpecError(f"unknown agent {name!r} (agents: {', '.join(AGENTS)})" + hint) from None


def check_settings(agent: str, settings: dict) -> dict:
    """Settings given in Python (State.mcts's keyword arguments) checked as a spec's are, and
    returned as Python ints, floats and strings (numpy's numbers too are taken): each a parameter
    of `agent` (else a TypeError naming its parameters, as for an unknown keyword), of the
    parameter's type and within its range (else an AgentSpecError saying which values it takes:
    `mcts: iterations must be an integer from 1 to 1000000, not 0`), and refused as a spec's are
    where the other settings leave one nothing to do (`_refuse_idle`: greedy_moves=3 without
    rollout='greedy')."""
    declared = {p.name: p for p in agent_class(agent).params}
    checked = {}
    for key, value in settings.items():
        param = declared.get(key)
        if param is None:
            raise TypeError(f"{agent}: unknown parameter {key!r} (parameters: {', '.join(declared) or 'none'})")
        if param.type is str:
            ok = isinstance(value, str) and param.admits(value)
        else:
            ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
                  and (param.type is float or float(value).is_integer()) and param.admits(value))
        if not ok:
            raise AgentSpecError(f"{agent}: {key} must be {param.domain()}, not {value!r}")
        checked[key] = value if param.type is str else param.type(value)
    params = {name: checked.get(name, p.default) for name, p in declared.items()}
    _refuse_idle(agent, {k: v for k, v in checked.items() if v != declared[k].default}, params)
    return checked


def _split(spec: str) -> list[tuple[str, list[str]]]:
    """Tokens grouped into agents: (the agent's token, its further `name=value` tokens)."""
    groups: list[tuple[str, list[str]]] = []
    tokens = [t.strip() for t in spec.split(",")]
    if not any(tokens):
        return groups
    for token in tokens:
        if not token:  # `random,,greedy`: a seat left out, or a slip; either way not what was meant
            raise AgentSpecError(f"{spec!r} has an empty place between commas: give one agent per seat "
                                 f"(random,greedy) or one for every seat (random)")
        if "=" in token and ":" not in token.split("=", 1)[0]:
            key = token.split("=", 1)[0].strip()
            if not key.isidentifier():  # `mcts(iterations=5)`, `mcts iterations=5`: an agent misspelt
                raise AgentSpecError(f"{token!r} is neither an agent nor a parameter: write NAME or "
                                     f"NAME:PARAM=VALUE,... (mcts:iterations=400,c=0.7)")
            if not groups:
                raise AgentSpecError(f"parameter {token!r} comes before any agent (write NAME:{token})")
            groups[-1][1].append(token)
        else:
            groups.append((token, []))
    return groups


def _parse_group(head: str, extra: list[str]) -> tuple[str, dict]:
    name, colon, first = head.partition(":")
    name = name.strip()
    kind = agent_class(name)
    declared = {p.name: p for p in kind.params}
    given: dict = {}
    for item in ([first] if colon and first.strip() else []) + extra:
        key, eq, raw = (s.strip() for s in item.partition("="))
        if not eq:
            raise AgentSpecError(f"{name}: {key!r} needs a value ({key}=VALUE)")
        if key not in declared:
            names = ", ".join(declared) or "none"
            raise AgentSpecError(f"{name}: unknown parameter {key!r} (parameters: {names})" + _close(key, declared))
        if key in given:
            raise AgentSpecError(f"{name}: {key} is given twice")
        given[key] = declared[key].parse(name, raw)
    params = {p.name: given.get(p.name, p.default) for p in kind.params}
    _refuse_idle(name, {k: v for k, v in given.items() if v != declared[k].default}, params)
    return name, params


# A setting that does something only beside another: (the other, whether its value lets it act, in words)
NEEDS = {
    "greedy_moves": ("rollout", lambda v: v == "greedy", "rollout=greedy"),
    "spread_playouts": ("reward", lambda v: v == "margin", "reward=margin"),
    "spread_scale": ("reward", lambda v: v == "margin", "reward=margin"),
    "cut": ("reward", lambda v: v == "margin", "reward=margin"),
    "confidence": ("extend", lambda v: v > 1, "extend above 1"),
}


def _refuse_idle(name: str, given: dict, params: dict) -> None:
    """An AgentSpecError for a setting given off its default where the settings in force leave it
    nothing to do (`mcts:greedy_moves=3` with random playouts, `cut=even` with reward=win): the
    agent would play as without it, and the spec would say otherwise."""
    for key in given:
        other, acts, needed = NEEDS.get(key, (None, None, None))
        if other in params and not acts(params[other]):
            raise AgentSpecError(f"{name}: {key} does nothing without {needed} ({other} is "
                                 f"{_text(params[other])}): give {needed} too, or leave {key} out")


def parse_agent(spec: str) -> tuple[str, dict]:
    """One agent: its name and every parameter's value (defaults filled in)."""
    groups = _split(spec)
    if len(groups) != 1:
        raise AgentSpecError(f"{spec!r}: expected one agent, found {len(groups)}")
    return _parse_group(*groups[0])


def canonical(name: str, params: dict) -> str:
    kind = agent_class(name)
    changed = sorted(f"{p.name}={_text(params[p.name])}" for p in kind.params
                     if p.name in params and params[p.name] != p.default)
    return name + (":" + ",".join(changed) if changed else "")


def _groups(spec: str | None) -> list[tuple[str, list[str]]]:
    """The agents a spec gives (_split): random when no spec is given; a spec given that names no
    agent (`--agents ","`, `--agents ""`) is an AgentSpecError rather than random."""
    if spec is None:
        return [("random", [])]
    groups = _split(spec)
    if not groups:
        raise AgentSpecError(f"{spec!r} names no agent (agents: {', '.join(AGENTS)})")
    return groups


def agent_names(spec: str | None) -> set[str]:
    """The names of the agents an --agents spec gives (random when none is given)."""
    return {_parse_group(head, extra)[0] for head, extra in _groups(spec)}


HUMAN = "human"  # no agent: a seat a person plays (logs name it so; `vbr play --agents human`, a hot seat)
SEARCH_AGENTS = frozenset({"mcts"})  # agents that search at each choice: tens of milliseconds a game and more


def searches(spec: str | None) -> bool:
    """Whether an agent of an --agents spec searches (SEARCH_AGENTS)."""
    return bool(agent_names(spec) & SEARCH_AGENTS)


def parse_agent_list(spec: str | None, seats: int) -> list[str]:
    """One canonical spec per seat: one agent given plays every seat, otherwise one per seat."""
    groups = _groups(spec)
    specs = [canonical(*_parse_group(head, extra)) for head, extra in groups]
    if len(specs) == 1:
        return specs * seats
    if len(specs) != seats:
        raise AgentSpecError(f"{len(specs)} agents given for {seats} seat{'s' if seats != 1 else ''} "
                             "(give one, or one per seat)")
    return specs


def describe_agents() -> str:
    """Every agent with its parameters, for `--help`."""
    lines = ["agents: NAME or NAME:PARAM=VALUE,... (one for every seat, or one per seat, comma-separated)"]
    for name, kind in AGENTS.items():
        lines.append(f"  {name:<8} {kind.summary}")
        for p in kind.params:
            setting = f"{p.name}={_text(p.default)}"
            lines.append(f"    {setting:<18} {p.help} ({p.domain()})")
    return "\n".join(lines)
