"""What the PettingZoo and OpenSpiel adapters share: loading, the action space's size, the returns
of an outcome, and the text of a state for people."""
from __future__ import annotations

import re

import vbr
from vbr.errors import Diagnostic, UsageError, VbrRuntimeError
from vbr.grammar import ast as A
from vbr.interpreter.scope import Fault


def load(rule_file, options: dict | None, engine: str = "auto"):
    """A loaded game from a path or a bundled name, through `engine` (vbr's default, "auto", for
    the PettingZoo adapter); a loaded `Game` (either kind) passes through."""
    if hasattr(rule_file, "program") and hasattr(rule_file, "new_state"):
        if options:
            raise UsageError("options are given when loading; pass a rule file, not a loaded game, with options")
        return rule_file
    if options is not None and not isinstance(options, dict):
        raise UsageError(f"options are a dict of option names to values, not {type(options).__name__}")
    return vbr.load(rule_file, options or {}, engine=engine)


def model_and_things(first_state) -> tuple:
    """The checked model of a game's first state (either kind) and how many things it holds."""
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
    """A bound the user gave (a whole number ≥ 1, else a usage error), or the derived one."""
    if given is None:
        return derive()
    if isinstance(given, bool) or not isinstance(given, int) or given < 1:
        raise UsageError(f"{name} must be a whole number of at least 1, not {given!r}")
    return given


def seat_returns(state) -> list[float]:
    """Each seat's return: 0 to all until the game is over; then what the rule file's
    `returns(s) = EXPR range LO..HI` gives each seat (a value outside LO..HI is a located
    error), and without one, +1 to every seat of the winning side, -1 to the others and 0 to
    all in a draw. In a game of teams, each seat gets its team's result; a win by a team with
    no seats (a solo game's opponent) is a loss for every seat. `state`: either kind of game's."""
    from vbr.rl.state_reader import is_typed, model_of
    typed, m = is_typed(state), model_of(state)
    outcome = state.outcome() if typed else state.result
    n = m.seats
    if outcome is None:
        return [0.0] * n
    if m.returns is not None:
        return _declared_returns(state, m, typed)
    if outcome.by_team:
        team = outcome.team
    elif outcome.winner is None:
        return [0.0] * n
    else:
        team = m.team_of[outcome.winner]
    return [1.0 if m.team_of[s] == team else -1.0 for s in range(n)]


def _declared_returns(state, m, typed: bool) -> list[float]:
    d = m.returns
    values = state.declared_returns() if typed else [_closure_return(state, s) for s in range(m.seats)]
    for seat, value in enumerate(values):
        if type(value) is not int or not d.lo <= value <= d.hi:
            raise VbrRuntimeError([Diagnostic(d.value.span, f"`returns` gives seat {seat} {value}, outside its range "
                                                            f"{d.lo}..{d.hi}")], m.rules.sources)
    if d.total is not None and sum(values) != d.total:
        raise VbrRuntimeError([Diagnostic(d.span, f"`returns` gives the seats {values}, which add up to "
                                                  f"{sum(values)}, not {d.total}")], m.rules.sources)
    return [float(v) for v in values]


def _closure_return(state, seat: int):
    """A closure state's `returns` value for `seat` (its compiled fn `@returns`)."""
    prog = state.prog
    d = prog.model.returns
    body, nlocals, _, _ = prog.fn_code["@returns"]
    locals_ = [None] * nlocals
    locals_[0] = seat
    try:
        return body(state, locals_)
    except Fault as exc:
        raise VbrRuntimeError([Diagnostic(d.value.span, f"`returns` for seat {seat}: {exc}")], prog.model.rules.sources)


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
    """Is some zone hidden from some seat in `game` (either kind)?"""
    from vbr.rl.observation import encoding
    return any(encoding(game).hidden[s] for s in range(game.seats))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "game"


def public_text(state) -> str:
    """The state (either kind of game's) as a spectator sees it: phase, vars, public zones'
    contents, other zones' sizes."""
    from vbr.rl.state_reader import is_typed
    if is_typed(state):
        return _typed_public_text(state)
    prog = state.prog
    from vbr.values import text
    lines = [f"{prog.title} — phase {state.phase or '(setup)'}"]
    lines.append("  " + ", ".join(f"{n}={text(v, prog)}" for n, v in zip(prog.var_names, state.vals)))
    for z, name in enumerate(prog.zone_names):
        items = state.zones[z]
        if prog.zone_visibility[z][0] == "public":
            lines.append(f"  {name}: " + (", ".join(state.describe(e) for e in items) or "empty"))
        else:
            lines.append(f"  {name}: {len(items)} unseen")
    if state.result is not None:
        lines.append(f"  over: {state.result}")
    elif state.pending is not None:
        lines.append(f"  seat {state.pending.seat} to choose: {state.pending.prompt}")
    return "\n".join(lines)


def _typed_public_text(state) -> str:
    """public_text of a typed game's state: what no seat is kept from (vbr.engines.observation)."""
    from vbr.engines.observation import public_view
    from vbr.rl.state_reader import reader
    view, r = public_view(state.game, state.words), reader(state)
    lines = [f"{state.game.title} — phase {state.phase or '(setup)'}",
             "  " + ", ".join(f"{n}={v}" for n, v in view["vars"].items())]
    for name, items in view["zones"].items():
        shown = (", ".join(items) or "empty") if isinstance(items, list) else f"{items} unseen"
        lines.append(f"  {name}: {shown}")
    if state.is_terminal():
        lines.append(f"  over: {state.outcome()}")
    elif r.chooser is not None:
        lines.append(f"  seat {r.chooser} to choose: {r.prompt()}")
    return "\n".join(lines)


def full_text(state) -> str:
    """Everything in a typed game's state (for OpenSpiel's `str(state)`: two states print alike
    when equal): the phase, every var, every zone's things, and the end or the pending choice."""
    from vbr.engines.observation import full_view
    from vbr.rl.state_reader import reader
    view, r = full_view(state.game, state.words), reader(state)
    lines = [f"phase {state.phase}", " ".join(f"{n}={v}" for n, v in view["vars"].items())]
    lines += [f"{name}: " + " ".join(items) for name, items in view["zones"].items()]
    if state.is_terminal():
        lines.append(f"over: {state.outcome()}")
    elif r.chooser is not None:
        options = " | ".join(r.option_text(i) for i in range(len(r.options())))
        lines.append(f"seat {r.chooser} {r.prompt()}: {options}")
    return "\n".join(lines)
