"""Playing whole games through the API: agents in seats, a seed, an optional log."""
from __future__ import annotations

import operator
from dataclasses import dataclass, field, fields
from functools import lru_cache

from vbr.agents.spec import AgentSpecError, parse_agent, parse_agent_list
from vbr.engines.game import State as TypedState
from vbr.engines.python_runtime import FIRST_SEAT, GREEDY_SEAT
from vbr.engines.python_search import team_points
from vbr.errors import Diagnostic, VbrRuntimeError
from vbr.ir.layout import OVER, Header
from vbr.ir.values import NONE
from vbr.kept_games import per_game
from vbr.seeds import SEED_MAX, game_seed_value
from vbr.shared_values import SHARED, SMALL_INT


@dataclass
class GameResult:
    winner: int | None  # the winning seat; the winning team in a game of teams
    points: tuple | None
    choices: int
    state: object = None
    forced: int = 0  # choices that offered one legal option
    options: int = 0  # legal options offered, summed over all choices
    first_side: int | None = None  # the side (seat, or team) that made the first choice
    score_track: list = field(default_factory=list)  # (choices so far, score) after each change
    measures: dict = field(default_factory=dict)  # the file's measures: see measure_values
    restricted: tuple = (0, 0)  # a restricted seat's choices narrowed, and played whole as none was left

    def trial_fields(self) -> tuple:
        """What a run's Trial keeps of the game (vbr.sim.play_games), in Trial's order: winner,
        points, choices, forced, options, first side, score track, measures, restricted."""
        return (self.winner, self.points, self.choices, self.forced, self.options, self.first_side,
                self.score_track, self.measures, self.restricted)


def parse_agents(spec: str | None, seats: int) -> list[str]:
    """One canonical agent spec per seat (the grammar is in vbr/agents/spec.py)."""
    return parse_agent_list(spec, seats)


def play_game(game, seed: int, agent_names: list[str], record: bool = False, trace: bool = False,
              log_sink: list | None = None, restrict: dict | None = None) -> GameResult:
    """Play one game of a typed engine's `game` (vbr.engines.game: `vbr.load`'s, python or c) to
    its end: play_typed_game, with what balance metrics need besides the outcome. `record`,
    `trace` or a `log_sink` log the game's events (vbr.engines.events) into `log_sink` (a list,
    filled as the game goes, so a caller can still show the play so far when a rule file fails at
    run time; or a new one: the result's `state.log`). `restrict` maps seats to their Restriction
    (vbr.restrict): such a seat's agent is handed only the options left to it, and the result
    counts its restricted choices. `seed` is checked as Game.new_state checks it; `agent_names`
    is a list of one spec per seat, or one string as `--agents` takes it (`"mcts"` for every
    seat, `"random,mcts:iterations=50"`); another count of agents is an AgentSpecError."""
    last = _last_plan  # read once: another thread may set it between two reads
    plan = last[1] if last[0] is game else None
    if (plan is not None and type(seed) is int and 0 <= seed <= SEED_MAX and type(agent_names) is list
            and agent_names == plan.randoms
            and not (record or trace or restrict) and log_sink is None):
        return plan.play(game, seed)  # the common call of a loop of random games: what the lines below come to
    seed = game_seed_value(seed)
    agent_names = seat_agents(agent_names, game.seats)
    restrict = seat_restrictions(restrict, game.seats)
    logged = record or trace or log_sink is not None
    return play_typed_game(game, seed, agent_names, restrict,
                           log=(log_sink if log_sink is not None else []) if logged else None)


def seat_agents(agent_names, seats: int) -> list[str]:
    """play_game's agents, one spec per seat: a string is read as `--agents` reads it (one agent
    for every seat, or one per seat); a list or tuple must name one per seat, else an
    AgentSpecError says how many were given (a short list would leave a seat without an agent).
    Checked once per distinct agents (cached): a loop of games pays a lookup."""
    if isinstance(agent_names, str):
        return list(_spec_agents(agent_names, seats))
    try:
        _listed_agents(tuple(agent_names), seats)
    except TypeError:  # not a sequence of strings (an unhashable item)
        raise AgentSpecError(f"play_game takes one agent spec per seat ({seats} here), not {agent_names!r}") from None
    return agent_names if type(agent_names) is list else list(agent_names)


def seat_restrictions(restrict, seats: int) -> dict | None:
    """play_game's `restrict` checked: None, or a mapping of seats (0..seats-1; numpy's integers
    taken as theirs) to vbr.restrict.Restriction, as parse_restrictions makes; anything else (a
    list of --restrict words, a seat the game lacks, a restriction as text) is a UsageError saying
    what restrict takes: a restriction that would be ignored, or fail mid-game, is refused first."""
    from vbr.errors import UsageError
    from vbr.restrict import Restriction
    if restrict is None:
        return None
    checked = {}
    try:
        for seat, restriction in restrict.items():
            n = operator.index(seat) if not isinstance(seat, bool) else -1
            if not (0 <= n < seats and isinstance(restriction, Restriction)):
                raise TypeError
            checked[n] = restriction
    except (TypeError, AttributeError):
        raise UsageError(f"restrict maps seats (0..{seats - 1}) to vbr.restrict.Restriction, as "
                         f"vbr.restrict.parse_restrictions makes them; not {restrict!r}") from None
    return checked


@lru_cache(maxsize=64)
def _spec_agents(spec: str, seats: int) -> tuple:
    return tuple(parse_agent_list(spec, seats))


@lru_cache(maxsize=64)
def _listed_agents(names: tuple, seats: int) -> tuple:
    """The names, each a spec of an agent vbr has (parse_agent raises for another), one per seat."""
    if len(names) != seats or not all(isinstance(n, str) for n in names):
        raise AgentSpecError(f"play_game takes one agent spec per seat ({seats} here), not {list(names)!r}; "
                             f"or one string as --agents takes it (\"random\" for every seat)")
    for n in names:
        parse_agent(n)
    return names


def count_restricted(restriction, option_words: list, counts: list) -> list[int] | None:
    """The options `restriction` leaves the seat, None for all of them: when it takes none, and
    when it would take every one (the choice is then played unrestricted). `counts` gets +1 in [0]
    for a choice it narrowed, in [1] for one it would have emptied."""
    kept = restriction.keep(option_words)
    if len(kept) == len(option_words):
        return None
    counts[0 if kept else 1] += 1
    return kept or None


def set_up_matters(game) -> bool:
    """Whether the first-mover figure needs the first choice after the set-up phases: only for a
    file that declares no first-mover measure (then the loops play its set-up phases choice by
    choice, to see where play begins)."""
    return not any(m.first_mover for m in game.program.measures)


def game_model(game):
    """The checked model a game was built from."""
    return game.model


@per_game
def repeating_phases(game) -> frozenset:
    """The phases on a cycle of the file's turn flow (vbr graph): play comes back to them. The
    others are its set-up phases (Siatka's tile placement): the game's first move, for the
    first-mover figure of a file that declares no first-mover measure, is the first choice made in
    a repeating phase. Empty when no phase repeats: then it is the game's first choice."""
    import networkx as nx
    from vbr.visualizer.graph import build_graph
    graph = build_graph(game_model(game))
    phases = {n for n, kind in graph.nodes(data="kind") if kind == "phase"}
    cyclic = {n for part in nx.strongly_connected_components(graph) if len(part) > 1 for n in part}
    cyclic |= {n for n in phases if graph.has_edge(n, n)}
    return frozenset(phases & cyclic)


def _repeating_units(game) -> frozenset:
    """The units of a typed program that are repeating phases (repeating_phases)."""
    names = repeating_phases(game)
    return frozenset(u for u, unit in enumerate(game.program.units) if unit.kind == "phase" and unit.name in names)


def measure_values(game, read) -> dict:
    """The file's measures at a game's end, by name: (kind, value), kind `side` for a seat or side
    measure (its value the side it names: for a seat, the seat, or in a game of teams its team),
    else `int` or `bool`; value None when the game never set it. `read(base)` gives a var slot's
    value, None for none."""
    side = dict(enumerate(_side_of(game))).get
    return {m.name: _measure_reader(m, side)(read(m.base)) for m in game.program.measures}


def _measure_reader(m, side):
    """A function from measure m's var's value (None or the word NONE when unset) to its (kind,
    value) as measure_values gives it; `side(seat)` is a seat's side, None for none or a number
    that is no seat."""
    if m.type == "seat":
        return lambda v: ("side", side(v))
    kind = m.type
    return lambda v: (kind, m.value(None if v == NONE else v))


def _first_mover(game, measures: dict, first_choice_side: int | None) -> int | None:
    """The side the file's first-mover measure names when it declares one (None when a game
    left it unset), else the side that made the game's first choice."""
    first = next((m for m in game.program.measures if m.first_mover), None)
    return measures[first.name][1] if first is not None else first_choice_side


def sides(game) -> int:
    """How many sides can win: teams in a game of teams, seats otherwise."""
    return len(game.program.teams) if _teamed(game) else game.seats


def side_names(game) -> list[str]:
    """The sides as the rule file names them (its team names: also where each team is one seat,
    the seats in order, each side then that seat and its team), else `seat N`."""
    names = _team_names(game)
    if names:
        return [f"team {n}" for n in names]
    return [f"team {i}" for i in range(sides(game))] if _teamed(game) else [f"seat {i}" for i in range(game.seats)]


def outcome_text(game, out) -> str:
    """`str(out)` (`team 1 wins (2, 5)`), the winning team called as `side_names` calls it
    (`team north wins (2, 5)`) in a game won and counted by team."""
    text = str(out)
    names = side_names(game)
    if out.by_team and game.by_team and out.team is not None and 0 <= out.team < len(names):
        return text.replace(f"team {out.team} wins", f"{names[out.team]} wins", 1)
    return text


def side_unit(game) -> str:
    """What a side is called: `team` in a game of teams or a file that names its teams, else `seat`."""
    return "team" if _teamed(game) or _team_names(game) else "seat"


def _team_names(game) -> list[str] | None:
    """The names of the `seats ... teams { ... }` declaration in force (the one whose teams the
    program has: a file may declare several, one per option)."""
    from vbr.grammar import ast as A
    for d in game.rules.decls:
        if isinstance(d, A.Seats) and [list(t.seats) for t in d.teams] == game.program.teams:
            return [t.name for t in d.teams]
    return None


def _side_of(game) -> list[int]:
    """Each seat's side: its team in a game of teams, else the seat itself."""
    prog = game.program
    if not _teamed(game):
        return list(range(prog.seats))
    team_of = [-1] * prog.seats
    for team, seats in enumerate(prog.teams):
        for seat in seats:
            team_of[seat] = team
    return team_of


def _teamed(game) -> bool:
    """Games where a team has several seats, or none (a side the rules play), or the teams are not
    the seats in order, are won, and counted, by team (under either engine: Game.by_team)."""
    return game.by_team


TYPED_AGENTS = ("random", "first", "greedy", "mcts")  # the agents that play through the typed engines (vbr/engines)
# the seats engine.play_seats plays on (random, and where the engine can, greedy and first); 1: by hand
SEAT_KINDS = {"random": 0, "greedy": GREEDY_SEAT, "first": FIRST_SEAT}


def play_typed_game(game, seed: int, agent_names: list[str], restrict: dict | None = None,
                    log: list | None = None) -> GameResult:
    """One game through a typed engine (vbr.engines.game: `--engine python` or `c`), with what
    balance metrics need: how many options each choice offered, and the score after every choice
    that changed it. Seat s's agent draws from its own stream, seeded from
    `derive(seed, 7919, s)` (random_streams.agent_stream): a random seat's pick of k options is one
    unbiased draw below k; a first seat takes the first option, drawing nothing; an mcts seat
    searches with the next draw as its seed; a greedy seat
    seeds its imagined worlds and breaks ties from its stream (greedy_choice). Other agents are
    refused (a UsageError naming the ones there are). A seat in `restrict` (vbr.restrict) plays
    by hand among the options left to it (an mcts seat's root has only those, State.mcts's
    `among`). With `log`,
    the game's events (vbr.engines.events) are appended to it as they happen: the same game, each
    choice logged."""
    whole = None if log is not None or restrict else _one_call(game, agent_names)
    if whole is not None:
        return whole.play(game, seed)
    program = game.program
    agents = typed_agents(seed, agent_names)
    teams = program.teams
    team_of = {s: t for t, seats in enumerate(teams) for s in seats}
    by_team = _teamed(game)
    state = game.new_state(seed, log)
    engine = game.engine
    streams = [a[2] for a in agents]
    restrict = restrict or {}
    kinds = [1 if seat in restrict else SEAT_KINDS.get(a[0], 1) for seat, a in enumerate(agents)]
    samples = [a[1].get("samples", 2) for a in agents]
    restricted = [0, 0]
    points = _points(state)
    stats = [0, 0, -1, 0, *(points or ())]
    track: list = []
    repeating = _repeating_units(game) if set_up_matters(game) else frozenset()
    phase_word = program.layout.stack + 1  # the running phase's unit (the bottom frame's)
    first_move = None if repeating else -1  # -1: the first choice of all (stats[2])
    by_hand = [1] * len(kinds)  # in the set-up phases every seat plays by hand, to see where each choice is
    while True:
        if log is None:  # the turns the engine plays (SEAT_KINDS) in one call; a logged game takes each by hand
            streams = engine.play_seats(state.words, streams, kinds if first_move is not None else by_hand, stats, track,
                                        samples)
            state.check()
        if state.is_terminal():
            break
        seat = state.current_player()  # one turn by hand, counted as play_seats counts one
        kind, params, _ = agents[seat]
        k = int(state.words[Header.NOPTS])
        stats[2] = seat if stats[2] < 0 else stats[2]
        stats[0] += k
        stats[1] += k == 1
        if first_move is None and int(state.words[phase_word]) in repeating:
            first_move = seat
        allowed = None
        if seat in restrict:
            from vbr.restrict import typed_option_words
            allowed = count_restricted(restrict[seat], typed_option_words(state), restricted)
        choice, streams[seat] = typed_decision(state, kind, params, streams[seat], allowed)
        state.apply_index(choice)
        now = _points(state)
        if now is not None and list(now) != stats[4:]:
            stats[4:] = list(now)
            track.append((int(state.words[Header.CHOICES]), now))
            stats[3] += 1
    out = state.outcome()
    winner = out.team if by_team else out.winner
    first = first_move if first_move is None or first_move >= 0 else stats[2] if stats[2] >= 0 else None
    first_side = None if first is None else team_of[first] if by_team else first
    at = program.layout.vars
    measures = measure_values(game, lambda base: None if state.words[at + base] == NONE else int(state.words[at + base]))
    first_side = _first_mover(game, measures, first_side)
    points, fold = out.points, side_points(game)
    if fold is not None and points is not None:
        points, track = fold(points), folded_track(track, fold)
    return GameResult(winner, points, int(state.words[Header.CHOICES]), state, stats[1], stats[0], first_side,
                      track, measures, tuple(restricted))


def side_points(game):
    """How a game's points read one entry per side (GameResult.points, a Trial's): None where the
    points var already does (a game not counted by team, or one keeping its points per team); else
    a function summing a tuple of the seats' points per team."""
    program = game.program
    if program.points is None or program.points_by_team or not _teamed(game):
        return None
    teams = [tuple(t) for t in program.teams]
    return lambda pts: tuple(sum(pts[s] for s in seats) for seats in teams)


def folded_track(track: list, fold) -> list:
    """A score track of the seats' points as the sides' (`fold`, side_points'), a row kept only
    where the sides' points changed from the row before."""
    out, last = [], None
    for choices, pts in track:
        now = fold(pts)
        if now != last:
            out.append((choices, now))
            last = now
    return out


def typed_trial_fields(game, seed: int, agent_names: list[str], restrict: dict | None = None,
                       log: list | None = None) -> tuple:
    """`play_typed_game(...).trial_fields()`, its points, score track, measures and restricted
    counts interned (vbr.shared_values.SHARED): what a run keeps of a game (vbr.sim.play_games).
    A game played in one engine call is read straight from what the engine packed."""
    whole = None if log is not None or restrict else _one_call(game, agent_names)
    if whole is not None:
        return whole.trial_fields(game, seed)
    return SHARED.fields(play_typed_game(game, seed, agent_names, restrict, log).trial_fields())


_NOT_RESTRICTED = SHARED.one((0, 0))  # the restricted counts of a game no restriction narrowed


def _one_call(game, agent_names) -> "_WholeGamePlan | None":
    """How the game's engine plays a whole game in one call (_WholeGamePlan.play), when it can and
    these agents are one `random` per seat of the game; else None."""
    last = _last_plan
    plan = last[1] if last[0] is game else _plan(game)
    if plan is None or (agent_names != plan.randoms and not (
            len(agent_names) == len(plan.randoms) and _all_random(tuple(agent_names)))):
        return None
    return plan


@lru_cache(maxsize=64)
def _all_random(agent_names: tuple) -> bool:
    return all(typed_agent(n)[0] == "random" for n in agent_names)


class _WholeGamePlan:
    """What play_typed_game's one-call path hands the engine for a game, and how it reads what the
    engine packs (CEngine.whole_games): which units are repeating phases (None when the first move is
    the game's first choice), the words of the file's measures, each seat's side, and where the
    points, the measures' words and the score track lie in the packed words."""

    def __init__(self, game):
        program = game.program  # the game itself is not kept: a plan is kept per_game, while the game is
        repeating = _repeating_units(game) if set_up_matters(game) else frozenset()
        self.repeating = tuple(int(u in repeating) for u in range(len(program.units))) if repeating else None
        self.names = tuple(m.name for m in program.measures)
        self.reads = tuple(program.layout.vars + m.base for m in program.measures)
        self.first_mover = next((m.name for m in program.measures if m.first_mover), None)
        self.by_team = _teamed(game)
        self.team_of = {s: t for t, seats in enumerate(program.teams) for s in seats}
        side = dict(enumerate(_side_of(game))).get  # a seat's side; None for none or no seat
        self.convert = tuple(_measure_reader(m, side) for m in program.measures)
        self.npoints = program.points[1] if program.points is not None else None
        self.at_measures = 9 + (self.npoints or 0)
        self.at_track = self.at_measures + len(self.reads)
        self.width = 1 + (self.npoints or 0)  # a track row: the choices made, then the points
        self.fold = side_points(game)  # the seats' points summed per team, where sides are teams
        self.engine_play = game.engine.whole_games(self.repeating, self.reads)
        self.randoms = ["random"] * program.seats  # the agents of play_game's common call, as a list
        self.tag = object()  # this plan's keys in SHARED: its measures' dicts by the words read

    def play(self, game, seed: int) -> "_PackedResult":
        """play_typed_game of `game` (this plan's) with every seat random and nothing logged or
        restricted: the whole game in one engine call (CEngine.whole_games), its seats' streams
        seeded by the engine as typed_agents seeds them, so the same game, counts and rows as the
        loop choice by choice."""
        status, words, packed = self.engine_play(seed)
        if status != OVER:
            self.final_state(game, seed, words).check()  # a run-time error of the rules: raised, located
        result = _new_result(_PackedResult)  # no __init__: type() calling one costs a tenth of a call
        result._plan, result._game, result._seed, result._words, result._bytes = self, game, seed, words, packed
        return result

    def final_state(self, game, seed: int, words) -> TypedState:
        """The state game `seed` of `game` ended in: over `words`, or, when the engine kept none,
        over the words of the game played again (the same seed, the same game, word for word)."""
        return _state_of(game, self.engine_play.words(seed) if words is None else words)

    def trial_fields(self, game, seed: int) -> tuple:
        """`play(seed).trial_fields()`, its points, score track, measures and restricted counts
        interned (vbr.shared_values.SHARED), read straight from the packed words: what a run
        keeps of a game, without the result object."""
        status, words, packed = self.engine_play(seed)
        if status != OVER:
            self.final_state(game, seed, words).check()
        packed = memoryview(packed).cast("q").tolist()
        at, p = self.at_track, self.npoints
        read = (self.tag, *packed[self.at_measures:at])
        measures = SHARED.table.get(read)
        if measures is None:
            measures = self.shared_measures(read, packed)
        options = packed[4]
        points, track = None if p is None else tuple(packed[9:9 + p]), SHARED.track_of(packed[at:], self.width)
        if self.fold is not None:
            points, track = self.fold(points), folded_track(track, self.fold)
        return (self.winner(packed), None if p is None else SHARED.one(points), packed[3],
                packed[5], options if options <= SMALL_INT else SHARED.one(options), self.first_side(packed, measures),
                track, measures, _NOT_RESTRICTED)

    def winner(self, packed: list) -> int | None:
        """The game's winner (a seat, or a team in a game of teams; None for a draw), from the
        words the engine packed, as a list of ints."""
        winner = packed[1]
        if self.by_team:
            team = packed[2]
            return team - 1 if team else None if winner == NONE else self.team_of.get(winner)
        return None if winner == NONE else winner

    def points(self, packed: list) -> tuple | None:
        """The final score, one entry per side; None when the file declares no points."""
        p = self.npoints
        if p is None:
            return None
        return tuple(packed[9:9 + p]) if self.fold is None else self.fold(packed[9:9 + p])

    def measures(self, packed: list) -> dict:
        """The file's measures at the end (measure_values), a new dict."""
        return {name: convert(v) for name, convert, v in zip(self.names, self.convert, packed[self.at_measures:])}

    def shared_measures(self, read: tuple, packed: list) -> dict:
        """`measures(packed)` as the one dict SHARED holds for them, kept under `read` (this
        plan's tag and the words read) too."""
        return SHARED.keyed(read, lambda: SHARED.measures(self.measures(packed)))

    def first_side(self, packed: list, measures: dict) -> int | None:
        """The first mover: the side the file's first-mover measure names, else the side of the
        first move of a repeating phase (or of the game's first choice)."""
        if self.first_mover is not None:
            return measures[self.first_mover][1]
        first_any, first_move = packed[6:8]
        first = None if first_move == NONE else first_move if first_move >= 0 else first_any if first_any >= 0 else None
        return None if first is None else self.team_of[first] if self.by_team else first

    def score_track(self, packed: list) -> list:
        """The score track, new tuples of its own (SHARED.track_of interns them instead)."""
        flat, w = packed[self.at_track:], self.width
        if not flat:
            return []
        if w == 3 and self.fold is None:  # two sides' points: the common case written out
            return list(zip(flat[::3], zip(flat[1::3], flat[2::3])))
        track = list(zip(flat[::w], zip(*[flat[i::w] for i in range(1, w)])))
        return track if self.fold is None else folded_track(track, self.fold)


def _plan(game) -> _WholeGamePlan | None:
    """The game's _WholeGamePlan when its engine plays whole games in one call, else None; the
    last game's kept beside the cache for the next call (_one_call)."""
    global _last_plan
    plan = _plans(game)
    _last_plan = (game, plan)
    return plan


@per_game
def _plans(game) -> _WholeGamePlan | None:
    return _WholeGamePlan(game) if hasattr(game.engine, "whole_games") else None


_last_plan: tuple = (None, None)  # (a game, its _plan)
_new_result = object.__new__


def _state_of(game, words) -> TypedState:
    """A typed state over words an engine has played to the end (no events, nothing to raise)."""
    state = TypedState.__new__(TypedState)
    state.game, state.words = game, words
    return state


class _kept:
    """A method read as an attribute: its value worked out when first read, then kept in the
    instance (functools.cached_property without its lock)."""

    def __init__(self, fn):
        self.fn, self.name = fn, fn.__name__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class _PackedResult(GameResult):
    """The GameResult of a game _WholeGamePlan.play played in one call, read from the words the
    engine packed (CEngine.whole_games: bytes of 64-bit words) when a field is first read (and kept),
    so a caller pays only for what it reads. The same fields and values, equality and repr as a
    GameResult made with them. Made by _WholeGamePlan.play, which sets its plan, game, seed,
    words (None when the engine kept none) and packed bytes. The C engine keeps no words of the
    game's end: its `state`, when read, is the game played again from its seed (a few µs), so a
    result holds a few hundred bytes, not a state's."""

    def __reduce__(self):
        """Pickled as the GameResult it reads as (its plan holds the engine's functions), so a
        result goes back from a worker process."""
        return GameResult, tuple(getattr(self, f.name) for f in fields(GameResult))

    @_kept
    def _packed(self) -> list:
        return memoryview(self._bytes).cast("q").tolist()

    @_kept
    def winner(self) -> int | None:
        return self._plan.winner(self._packed)

    @_kept
    def choices(self) -> int:
        return self._packed[3]

    @_kept
    def options(self) -> int:
        return self._packed[4]

    @_kept
    def forced(self) -> int:
        return self._packed[5]

    @_kept
    def points(self) -> tuple | None:
        return self._plan.points(self._packed)

    @_kept
    def state(self) -> TypedState:
        return self._plan.final_state(self._game, self._seed, self._words)

    @_kept
    def measures(self) -> dict:
        return self._plan.measures(self._packed)

    @_kept
    def first_side(self) -> int | None:
        return self._plan.first_side(self._packed, self.measures)

    @_kept
    def score_track(self) -> list:
        return self._plan.score_track(self._packed)

    def trial_fields(self) -> tuple:
        """GameResult.trial_fields, read from the packed words in one go (keeping none of them)."""
        packed, plan = self._packed, self._plan
        measures = plan.measures(packed)
        return (plan.winner(packed), plan.points(packed), packed[3], packed[5], packed[4],
                plan.first_side(packed, measures), plan.score_track(packed), measures, self.restricted)

    def __eq__(self, other):
        if not isinstance(other, GameResult):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(GameResult))

    __hash__ = None

    def __repr__(self) -> str:
        return "GameResult(" + ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(GameResult)) + ")"


def typed_agents(seed: int, agent_names: list[str]) -> list[tuple[str, dict, int]]:
    """Each seat's agent over a typed state: (kind, parameters, its stream's first state), the
    stream seeded as random_streams.agent_stream seeds it."""
    from vbr.ir.random_streams import agent_stream
    return [(*typed_agent(name), agent_stream(seed, seat)) for seat, name in enumerate(agent_names)]


def agent_choice(state, spec: str, seed: int = 0) -> int:
    """The index, in `state.legal_actions()`, of the option the agent `spec` (`"greedy"`,
    `"mcts:iterations=400"`, as `--agents` names one) picks at the state's pending choice, its
    random draws from a stream seeded by `seed` (any whole number): for a loop that plays agents of
    one's own against vbr's. The state is left as it was. An unknown agent or parameter is an
    AgentSpecError; a state whose game is over, an IllegalActionError."""
    from vbr.errors import IllegalActionError
    from vbr.ir import random_streams as S
    from vbr.seeds import whole_seed
    if not isinstance(spec, str):
        raise AgentSpecError(f"agent_choice takes one agent spec as text (\"greedy\", \"mcts:iterations=400\"), "
                             f"not {spec!r}")
    kind, params = typed_agent(spec)
    if state.is_terminal():
        raise IllegalActionError(f"{state.no_choice_reason()}: there is no choice to make")
    return typed_decision(state, kind, params, S.first_state(whole_seed(seed), S.AGENT_KEY))[0]


def typed_decision(state, kind: str, params: dict, stream: int, allowed: list[int] | None = None) -> tuple[int, int]:
    """The option agent `kind` picks at a typed state's pending choice, drawing from `stream`:
    (the option, the stream left). random: one draw below the number of options (of `allowed`,
    the options a restricted seat may take, when given); first: the first of them, no draw;
    greedy: greedy_choice; mcts: a search seeded by the next draw (restricted: a search whose root
    has only the options `allowed`)."""
    from vbr.ir import random_streams as S
    if kind == "first":
        return (0 if allowed is None else allowed[0]), stream
    if kind == "random":
        stream, choice = S.below(stream, int(state.words[Header.NOPTS]) if allowed is None else len(allowed))
        return (choice if allowed is None else allowed[choice]), stream
    try:
        if kind == "greedy":
            samples, in_engine = params.get("samples", 2), getattr(state.game.engine, "greedy_choice", None)
            got = in_engine(state.words, samples, stream, allowed) if in_engine else None  # C's: the same answer
            return got if got is not None else greedy_choice(state, samples, stream, allowed)
        stream, draw = S.below(stream, 1 << 62)
        return state.mcts_with(agent_search_params(tuple(search_settings(params).items())), draw, allowed), stream
    except VbrRuntimeError as exc:
        raise imagined_error(exc, state, kind) from None


def imagined_error(exc: VbrRuntimeError, state, kind: str) -> VbrRuntimeError:
    """A run-time error of the rules met in a world an agent imagined (State.determinize), said
    as such: the game itself did not come there, and may never."""
    seat, choice = state.current_player(), int(state.words[Header.CHOICES]) + 1
    note = (f" (in a world seat {seat}'s {kind} agent imagined at choice {choice}, dealing anew what seat {seat} "
            "cannot see; this game itself did not come there)")
    return type(exc)([Diagnostic(d.span, d.message + note if i == 0 else d.message)
                      for i, d in enumerate(exc.diagnostics)], exc.sources)


def greedy_choice(state, samples: int, stream: int, allowed: list[int] | None = None) -> tuple[int, int]:
    """The greedy agent's choice over a typed state: each option tried on `samples` worlds the seat to
    move may imagine (State.determinize, each seeded by the next draw of `stream`), scored by its
    immediate result for the seat's side (a win 1000, a loss -1000, else its points lead), ties
    broken by a draw. A single option is taken without a draw. `allowed`: the options a restricted
    seat may take (all when None). Returns (option, stream left)."""
    from vbr.ir import random_streams as S
    seat = state.current_player()
    candidates = allowed if allowed is not None else range(len(state.options()))
    if len(candidates) == 1:
        return candidates[0], stream
    teams = state.game.program.teams
    side = next(t for t, seats in enumerate(teams) if seat in seats)
    best, best_score = [], None
    for i in candidates:
        total = 0.0
        for _ in range(samples):
            stream, seed = S.below(stream, 1 << 62)
            world = state.determinize(seat, seed)
            world.apply_index(i)
            total += _typed_value(world, side)
        if best_score is None or total > best_score:
            best, best_score = [i], total
        elif total == best_score:
            best.append(i)
    if len(best) == 1:
        return best[0], stream
    stream, pick = S.below(stream, len(best))
    return best[pick], stream


def _typed_value(world, team: int) -> float:
    """A world's worth to `team`: a win 1000, a loss -1000, else its points lead over the best
    other team (python_search.team_points: a points var kept per seat summed per team)."""
    out = world.outcome()
    if out is not None:
        if out.team is None:
            return 0.0
        return 1000.0 if out.team == team else -1000.0
    pts = team_points(world.game.program, world.words)
    if not pts:
        return 0.0
    others = [p for j, p in enumerate(pts) if j != team]
    return float(pts[team] - (max(others) if others else 0))


@lru_cache(maxsize=64)
def typed_agent(name: str) -> tuple[str, dict]:
    """(kind, parameters) of an agent spec the typed engines can play; a UsageError for any other."""
    from vbr.errors import UsageError
    kind, params = parse_agent(name)
    if kind not in TYPED_AGENTS:
        raise UsageError(f"agent `{kind}` does not play through the typed engines; they play "
                         f"{', '.join(TYPED_AGENTS)}")
    return kind, params


SEARCH_SETTINGS = ("iterations", "c", "depth", "reward", "rollout", "greedy_moves", "worlds", "widen", "tree", "inner_c", "spread_playouts", "budget",
                   "cut", "spread_scale", "extend", "confidence")


@lru_cache(maxsize=64)
def agent_search_params(settings: tuple):
    """An mcts agent's settings ((name, value) pairs of search_settings) checked and made the
    python_search.SearchParams State.mcts makes of them: once per agent spec, not per decision."""
    from vbr.engines.game import search_params
    return search_params(dict(settings))


def search_settings(params: dict) -> dict:
    """An mcts spec's parameters as python_search.SearchParams's fields (State.mcts's settings)."""
    return {name: params[name] for name in SEARCH_SETTINGS if name in params}


def _points(state) -> tuple | None:
    o = state.game.program.points
    if o is None:
        return None
    at = state.game.program.layout.vars + o[0]
    return tuple(int(v) for v in state.words[at:at + o[1]])

