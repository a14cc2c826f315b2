"""What the PettingZoo and OpenSpiel adapters share: loading, the action space's size, the returns
of an outcome, and the text of a state for people."""
from __future__ import annotations

import os
import re
import warnings

import vbr
from vbr.engines.c_engine import CEngineUnavailable
from vbr.engines.game import Game
from vbr.errors import Diagnostic, UsageError, VbrRuntimeError
from vbr.grammar import ast as A


def load(rule_file, options: dict | None, engine: str = "auto") -> Game:
    """A typed game (`vbr.engines.game.Game`) from a path or a bundled name, played by `engine`:
    "auto" (the PettingZoo adapter's, vbr's default: the C engine where a C compiler builds the
    file, else the Python engine, with a warning saying why), "python" or "c". A loaded typed
    game passes through; any other loaded game is a usage error."""
    if isinstance(rule_file, Game):
        if options:
            raise UsageError("options are given when loading; pass a rule file, not a loaded game, with options")
        return rule_file
    check_rule_file(rule_file)
    if options is not None and not isinstance(options, dict):
        raise UsageError(f"options are a dict of option names to values, not {type(options).__name__}")
    if engine != "auto":
        return vbr.load(rule_file, options or {}, engine=engine)
    try:
        return vbr.load(rule_file, options or {}, engine="c")
    except CEngineUnavailable as exc:
        warnings.warn(f"engine='auto': the C engine cannot run here ({exc}); playing through the python engine",
                      stacklevel=4)  # the line calling vbr.rl.pettingzoo_env
        return vbr.load(rule_file, options or {}, engine="python")


def check_rule_file(rule_file) -> None:
    """A usage error unless `rule_file` is a path or a bundled name (a loaded typed game is
    taken before this)."""
    if not isinstance(rule_file, (str, os.PathLike)):
        raise UsageError(f"a rule file is a path or a bundled name, or a game loaded with vbr.load(..., "
                         f"engine='python' or 'c'), not a {type(rule_file).__name__}")


def model_and_things(first_state) -> tuple:
    """The checked model of a typed game's first state and how many things it holds."""
    from vbr.rl.state_reader import model_of, reader
    return model_of(first_state), len(reader(first_state).kind)


def derived_max_actions(first_state) -> int:
    """The most options one choice can offer, from the declarations: a choice picks among
    entities, court places, directions, enum members, seats, teams or booleans, and an optional
    choice adds `pass`. Entities are counted in the first state of a game (after `setup`).
    A choice over numbers has no declared bound: one that offers more than this at run time
    stops the game with an error naming it (`ActionIds.check`), and `max_actions=N` raises it."""
    from vbr.court import court_of
    m, things = model_and_things(first_state)
    court = court_of(m.court)
    places = 0
    if court is not None:
        places = court.height * court.cols + 2 * len(court.spaces)
    enums = max((len(v) for v in m.enums.values()), default=0)
    return max(things, places, len(m.directions), enums, m.seats, len(m.teams), 2) + 1


def resolve_max_actions(game, first_state, max_actions) -> int:
    return _resolve("max_actions", max_actions, lambda: derived_max_actions(first_state))


def resolve_action_ids(game, first_state, max_actions):
    """The game's action ids (action_ids.py): fixed where every choice's domain is fixed before
    play, else positions among at most `max_actions` (given, or derived) options."""
    from vbr.rl.action_ids import action_ids
    return action_ids(model_and_things(first_state)[0], resolve_max_actions(game, first_state, max_actions))


def _resolve(name: str, given, derive) -> int:
    """A bound the user gave (a whole number ≥ 1: an int, or a numpy integer taken as the int it
    holds; else a usage error), or the derived one."""
    if given is None:
        return derive()
    import numpy as np
    if isinstance(given, bool) or not isinstance(given, (int, np.integer)) or given < 1:
        raise UsageError(f"{name} must be a whole number of at least 1, not {given!r}")
    return int(given)


def seat_returns(state) -> list[float]:
    """Each seat's return: 0 to all until the game is over; then what the rule file's
    `returns(s) = EXPR range LO..HI` gives each seat (a value outside LO..HI is a located
    error), and without one, +1 to every seat of the winning side, -1 to the others and 0 to
    all in a draw. In a game of teams, each seat gets its team's result; a win by a team with
    no seats (a solo game's opponent) is a loss for every seat. `state`: a typed game's."""
    from vbr.rl.state_reader import model_of
    m = model_of(state)
    outcome = state.outcome()
    n = m.seats
    if outcome is None:
        return [0.0] * n
    if m.returns is not None:
        return _declared_returns(state, m)
    if outcome.by_team:
        team = outcome.team
    elif outcome.winner is None:
        return [0.0] * n
    else:
        team = m.team_of[outcome.winner]
    return [1.0 if m.team_of[s] == team else -1.0 for s in range(n)]


def _declared_returns(state, m) -> list[float]:
    d = m.returns
    values = state.declared_returns()
    for seat, value in enumerate(values):
        if type(value) is not int or not d.lo <= value <= d.hi:
            raise VbrRuntimeError([Diagnostic(d.value.span, f"`returns` gives seat {seat} {value}, outside its range "
                                                            f"{d.lo}..{d.hi}")], m.rules.sources)
    if d.total is not None and sum(values) != d.total:
        raise VbrRuntimeError([Diagnostic(d.span, f"`returns` gives the seats {values}, which add up to "
                                                  f"{sum(values)}, not {d.total}")], m.rules.sources)
    return [float(v) for v in values]


def utility_bounds(m) -> tuple[float, float]:
    """The least and the most a seat's return can be in checked model `m`: the declared
    `returns` range, else -1..1."""
    d = m.returns
    return (float(d.lo), float(d.hi)) if d is not None else (-1.0, 1.0)


def utility_sum(m) -> float | None:
    """What the seats' returns in checked model `m` always add up to, or None when that varies:
    the declared `returns ... total N`; without `returns`, 0 for two sides of equal size (each
    seat +1 or -1 by its side)."""
    d = m.returns
    if d is not None:
        return float(d.total) if d.total is not None else None
    teams = m.teams
    return 0.0 if len(teams) == 2 and len(teams[0]) == len(teams[1]) > 0 else None


def chance_constructs(m):
    """Every `roll`, `pick` and `shuffle` in the rule file of checked model `m`: in phases,
    stages, procedures, functions, handlers, setup and the vars' initial values."""
    decls = [*m.phases.values(), *m.stages, *m.procs.values(), *m.fns.values(),
             *(h for hs in m.handlers.values() for h in hs), *(v.decl for v in m.vars.values())]
    if m.setup is not None:
        decls.append(m.setup)
    for d in decls:
        for n in A.walk(d):
            if isinstance(n, (A.Roll, A.Pick, A.Shuffle)):
                yield n


def has_chance(m) -> bool:
    """Does the rule file of checked model `m` roll a die, pick at random or shuffle anywhere?"""
    return next(chance_constructs(m), None) is not None


def derived_max_chance_outcomes(game, first_state) -> int:
    """A bound on the outcomes of one draw, from the declarations: a die's faces, a `pick` from a
    list written out or a range of two numbers, the seats, the teams, and for a shuffle or a pick
    from a zone the cards and pieces (counted in the first state of a game, after `setup`). A
    draw among more (a pick from a list built at run time, cards created in play) stops the game
    with an error naming it; `max_chance_outcomes=N` raises the bound. `game`: a typed game."""
    m, things = model_and_things(first_state)
    sizes = [len(f) for f in game.program.dice]
    for n in chance_constructs(m):
        if isinstance(n, A.Pick) and isinstance(n.source, A.ListLit):
            sizes.append(len(n.source.items))
        elif isinstance(n, A.Pick) and isinstance(n.source, A.RangeExpr) and \
                isinstance(n.source.lo, A.IntLit) and isinstance(n.source.hi, A.IntLit):
            sizes.append(n.source.hi.value - n.source.lo.value + 1)
    return max(*sizes, things, m.seats, len(m.teams), 1)


def resolve_max_chance_outcomes(game, first_state, bound) -> int:
    return _resolve("max_chance_outcomes", bound, lambda: derived_max_chance_outcomes(game, first_state))


def has_hidden_zones(game) -> bool:
    """Is some zone hidden from some seat in typed game `game`?"""
    from vbr.rl.observation import encoding
    return any(encoding(game).hidden[s] for s in range(game.seats))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "game"


def public_text(state) -> str:
    """A typed game's state as a spectator sees it: the phase, every var, the public zones'
    things, the other zones' sizes (vbr.engines.observation.public_view), and the end or who is
    to choose. Not what the seat is asked: which `choose` asks can tell what a hidden hand holds
    (Siatka asks "Rozegranie: roll again?" only of a seat holding a Rozegranie card), so it is
    the chooser's to see, as in the observations. The rule file's text (its title, a text var)
    has its control characters escaped (vbr.terminal.clean): `render_mode="human"` prints it."""
    from vbr.engines.observation import public_view
    from vbr.rl.state_reader import reader
    from vbr.terminal import clean
    r = reader(state)
    view = public_view(state.game, state.words)
    lines = [f"{state.game.title} — phase {state.phase or '(setup)'}",
             "  " + ", ".join(f"{n}={v}" for n, v in view["vars"].items())]
    for name, items in view["zones"].items():
        shown = (", ".join(items) or "empty") if isinstance(items, list) else f"{items} unseen"
        lines.append(f"  {name}: {shown}")
    if state.is_terminal():
        lines.append(f"  over: {state.outcome()}")
    elif r.chooser is not None:
        lines.append(f"  seat {r.chooser} to choose")
    return clean("\n".join(lines))


def full_text(state) -> str:
    """Everything in a typed game's state (for OpenSpiel's `str(state)`: two states print alike
    when equal): the phase, every var, every zone's things, and the end or the pending choice.
    The rule file's text (a prompt, a text var) has its control characters escaped
    (vbr.terminal.clean): the string is printed."""
    from vbr.engines.observation import full_view
    from vbr.rl.state_reader import reader
    from vbr.terminal import clean
    view, r = full_view(state.game, state.words), reader(state)
    lines = [f"phase {state.phase}", " ".join(f"{n}={v}" for n, v in view["vars"].items())]
    lines += [f"{name}: " + " ".join(items) for name, items in view["zones"].items()]
    if state.is_terminal():
        lines.append(f"over: {state.outcome()}")
    elif r.chooser is not None:
        options = " | ".join(r.option_text(i) for i in range(len(r.options())))
        lines.append(f"seat {r.chooser} {r.prompt()}: {options}")
    return clean("\n".join(lines))
