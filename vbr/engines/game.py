"""A rule file as a game API over the typed program's engines: `load(path, options, engine)`,
`Game.new_state(seed)`, `State.legal_actions()`, `apply`, `apply_index`, `is_terminal`,
`outcome`, `current_player`, `clone`.

Choices read as `Action`s (`seat value`, vbr/actions.py); a run-time error is a
`VbrRuntimeError` located at the rule that failed, with the same message from either engine.
"""
from __future__ import annotations

import operator

from vbr.checking import checked_model as check_rules
from vbr.collector import uncollected
from vbr.engines.events import EventLog
from vbr.engines.load_key import load_key
from vbr.errors import IllegalActionError, VbrRuntimeError
from vbr.actions import Action, Outcome
from vbr.ir import nodes as N
from vbr.ir.build import build_program
from vbr.ir.layout import CHOICE, FAULT, OVER, Header as H
from vbr.ir.values import NONE
from vbr.loader import load_rules
from vbr.seeds import game_seed_value, whole_seed

ENGINES = ("python", "c")


def load(path, options: dict | None = None, engine: str = "python", note=None) -> "Game":
    """The game of rule file `path` under `options`, run by `engine` ("python" or "c").
    Raises VbrCheckError for a file with errors, `Unsupported` (vbr.ir.build_expr) for a
    construct the typed program does not express yet, CEngineUnavailable when C cannot be had."""
    model = checked_model(path, options)
    program = build_program(model)
    key = load_key(model.rules.sources, options or {}) if engine == "c" else None
    return Game(program, make_engine(program, engine, note, key), model, model.rules.path, options)


@uncollected()
def checked_model(path, options: dict | None = None):
    """The checked model (vbr.checker.Model) of rule file `path` under `options`, every body
    type-checked: a VbrCheckError for a file with errors. What a game is built from, and all a
    command that only describes the rules (its diagram) needs."""
    return check_rules(load_rules(path), options or {})


def c_build_cached(path, options: dict | None = None) -> bool:
    """Whether the C engine's library for rule file `path` under `options` is in the cache (a
    load through C would take it rather than build it). False for a file with errors."""
    from vbr.engines.c_engine import cached_library
    from vbr.errors import VbrError
    try:
        model = checked_model(path, options)
    except VbrError:
        return False
    return cached_library(load_key(model.rules.sources, options or {})) is not None


def make_engine(program: N.Program, engine: str, note=None, key: str | None = None):
    """The engine running `program`; `key`, the program's load key (vbr.engines.load_key) when
    it was made from a rule file by `load`, lets the C engine skip generating its C."""
    if engine == "python":
        from vbr.engines.python_engine import PythonEngine
        return PythonEngine(program)
    if engine == "c":
        from vbr.engines.c_engine import CEngine
        return CEngine(program, note, key)
    raise ValueError(f"no engine `{engine}` (engines: {', '.join(ENGINES)})")


class Game:
    """A typed program, the engine that runs it and the checked model it was built from; `path`
    and `options` as `load` was given them (the rule file's path, the options chosen)."""

    def __init__(self, program: N.Program, engine, model=None, path=None, options: dict | None = None):
        self.program, self.engine, self.model = program, engine, model
        self.path, self.options = path, dict(options or {})

    def __reduce__(self):
        """A game pickles as what loaded it (its rule file's path, options and engine): unpickling
        loads the file again, as it is then, so a game goes to another process (multiprocessing)."""
        if self.path is None:
            raise TypeError("only a game loaded from a rule file (vbr.load) can be pickled")
        return load, (self.path, self.options, self.engine.name)

    def __deepcopy__(self, memo) -> "Game":
        """The game itself: play never changes it (a deep copy of what holds one, such as an
        environment, shares it, as its states do)."""
        return self

    @property
    def title(self) -> str:
        return self.program.title

    @property
    def seats(self) -> int:
        """How many seats play, after the options chose among `seats ... when`."""
        return self.program.seats

    @property
    def rules(self):
        """The rule file as read (vbr.loader.RuleSet): its declarations and sources."""
        return self.model.rules

    @property
    def option_values(self) -> dict:
        """Every option the file declares, by name, with its value in this game: the one chosen
        (converted to the option's type), else its default."""
        return dict(self.model.options)

    @property
    def team_of(self) -> list[int]:
        """Each seat's team (its index in `program.teams`)."""
        return list(self.model.team_of)

    @property
    def by_team(self) -> bool:
        """Whether games are won, and counted, by team: a team has several seats, or none, or the
        teams are not the seats in order (`teams { a: 1  b: 0 }`: team 0 is seat 1)."""
        return self.program.teams != [[s] for s in range(self.program.seats)]

    @property
    def var_names(self) -> list[str]:
        """Each var slot's name, in slot order: the var's, `name[i]` for slot i of a var per
        seat or team (as observations name them)."""
        return [f"{name}[{i}]" if v.per else name for name, v in self.model.vars.items() for i in range(v.count)]

    def new_state(self, seed: int, log: list | None = None) -> "State":
        """A game seeded with `seed`, at its first choice: a whole number (numpy's too) from 0 to
        2**63 - 1, as `vbr run --seed` takes (vbr.seeds.game_seed_value: TypeError, ValueError).
        With `log`, the game's events (vbr.engines.events) are appended to it as they happen, also
        when a run-time error stops it."""
        seed = game_seed_value(seed)
        if log is not None and not hasattr(log, "append"):
            raise TypeError(f"log is a list the game's events are appended to (log=[]), not {log!r}; "
                            f"to write a log file, see vbr.gamelog.write_log")
        events = EventLog(self.program, log) if log is not None else None
        return State(self, self.engine.new(seed, events), events)


class State:
    """One game in progress: its words (a list or a C array) and the game that runs them;
    `log` is its list of events when it keeps one (Game.new_state), else None."""

    _events = None  # the EventLog of a logged game; a clone or an imagined world keeps none

    def __init__(self, game: Game, words, events: EventLog | None = None):
        self.game, self.words, self._events = game, words, events
        self._end_event()
        self._raise_fault()

    @property
    def log(self) -> list | None:
        return self._events.events if self._events is not None else None

    def words_in_use(self) -> list[int]:
        """The state's words up to its top, a new list: equal in every engine for the same game and
        answers (a Python engine's comparisons leave bools, which equal 1 and 0). The pending
        choice's words (its options, their count, seat, site and destination) are in use only while
        a choice waits, and read as 0 at the end or a run-time error: a whole game played in one
        call (vbr.play) answers its random seats where each choice is made, without writing them. A
        state stopped at a run-time error holds the same error (its message and the values it
        names) in every engine, but not always the same other words: the steps counted and the
        running frames' words (their pc and locals) are as far as each engine had written them back
        (the C engine keeps them in C variables while a unit runs)."""
        words = self.words[:self.words[H.TOP]]
        if words[H.STATUS] != CHOICE:
            lay = self.game.program.layout
            words[H.SEAT] = words[H.SITE] = words[H.NOPTS] = words[H.DEST] = 0
            words[lay.options:lay.options + lay.max_options] = [0] * lay.max_options
        return words

    def is_terminal(self) -> bool:
        return self.words[H.STATUS] != CHOICE

    def current_player(self) -> int | None:
        return int(self.words[H.SEAT]) if self.words[H.STATUS] == CHOICE else None

    def options(self) -> list[int]:
        return [int(v) for v in self.game.engine.options(self.words)]

    def legal_actions(self) -> list[Action]:
        if self.words[H.STATUS] != CHOICE:
            return []
        p = self.game.program
        site = p.choices[self.words[H.SITE]]
        seat = int(self.words[H.SEAT])
        return [Action(seat, p.names.text(site.item, v, self.words)) for v in self.options()]

    def apply_index(self, i: int) -> None:
        """Take option `i` (0-based) of the pending choice: an int, or an integer of numpy's
        (`np.argmax(...)`); anything else (a bool, numpy's too, a float, an array), or a position
        out of range, an IllegalActionError, the state left as it was."""
        n = self.words[H.NOPTS] if self.words[H.STATUS] == CHOICE else 0
        if not isinstance(i, int) and hasattr(i, "__index__"):
            try:
                i = i.__index__()  # np.int64: the same position as a Python int
            except TypeError:  # np.array([1]): an array, no integer
                pass
        if isinstance(i, bool) or not (isinstance(i, int) and 0 <= i < n):  # True is no position
            if self.words[H.STATUS] == OVER:
                raise IllegalActionError(f"option {i!r} is not legal here: the game is over")
            if self.words[H.STATUS] == FAULT:
                raise IllegalActionError(f"option {i!r} is not legal here: the game stopped at an error in its "
                                         f"rules ({self._fault_text()})")
            raise IllegalActionError(f"option {i!r} is not legal here: there are {n} options (0..{n - 1})")
        events = self._events
        if events is not None:
            events.choice(self.words, i)
        self.game.engine.apply(self.words, i, events)
        self._end_event()
        self._raise_fault()

    def option_text(self, i: int) -> tuple[str, str]:
        """Option i of the pending choice as a log writes it: (its text, its kind)."""
        p = self.game.program
        item = p.choices[self.words[H.SITE]].item
        v = int(self.words[p.layout.options + i])
        return p.names.text(item, v, self.words), p.names.kind_of(item, v)

    def apply(self, action: "Action | str") -> None:
        if isinstance(action, str):
            action = Action.parse(action)
        legal = self.legal_actions()
        for i, a in enumerate(legal):
            if a == action:
                self.apply_index(i)
                return
        shown = ", ".join(str(a) for a in legal[:20])
        hint = "; to choose by position, use apply_index(i)" if isinstance(action, int) else ""
        if not shown:
            shown = (f"none (the game stopped at an error in its rules: {self._fault_text()})"
                     if self.words[H.STATUS] == FAULT else "none (the game is over)")
        raise IllegalActionError(f"`{action}` is not legal here; legal: {shown}{hint}")

    def points(self) -> tuple[int, ...] | None:
        """The `points` var per seat (or team), or None for a file that declares no `points`."""
        p = self.game.program
        if p.points is None:
            return None
        base, count = p.points
        at = p.layout.vars + base
        return tuple(int(v) for v in self.words[at:at + count])

    @property
    def choices(self) -> int:
        """How many choices have been made so far."""
        return int(self.words[H.CHOICES])

    @property
    def phase(self) -> str | None:
        """The name of the phase being played (the unit of the bottom frame), None once over."""
        fp = int(self.words[H.FP])
        if fp < 0 or self.words[H.STATUS] != CHOICE:
            return None
        while int(self.words[fp]) >= 0:
            fp = int(self.words[fp])
        return self.game.program.units[int(self.words[fp + 1])].name

    def observation(self, seat: int) -> dict:
        """What `seat` may know (vbr/engines/observation.py); a seat the game lacks is a ValueError."""
        from vbr.engines.observation import observation
        return observation(self.game, self.words, self._seat(seat), self.phase)

    def _seat(self, seat) -> int:
        """`seat` as an int, when the game has that seat (a negative one is no seat: it would
        read another seat's view from the end of a list); else a ValueError naming the seats."""
        try:
            n = operator.index(seat) if not isinstance(seat, bool) else None
        except TypeError:
            n = None
        if n is None or not 0 <= n < self.game.seats:
            raise ValueError(f"no seat {seat!r}: '{self.game.title}' has seats 0..{self.game.seats - 1}")
        return n

    def outcome(self) -> Outcome | None:
        if self.words[H.STATUS] != OVER:
            return None
        w = int(self.words[H.WINNER])
        points = self.points()
        p = self.game.program
        team = int(self.words[H.WINNER_TEAM])
        if team:
            return Outcome(None if w == NONE else w, points, team - 1, by_team=True)
        if w == NONE:
            return Outcome(None, points, None)
        team_of = {s: t for t, seats in enumerate(p.teams) for s in seats}
        return Outcome(w, points, team_of.get(w))

    def declared_returns(self) -> list[int] | None:
        """Each seat's value of the file's `returns(S) = EXPR` where play stands (the RL adapters
        ask it once the game is over), None when the file declares none. A run-time error in
        EXPR is a VbrRuntimeError located at it, naming the seat."""
        from vbr.engines.python_runtime import EngineFault
        p = self.game.program
        if not p.returns_units:
            return None
        values = []
        for seat, unit in enumerate(p.returns_units):
            try:
                value = self.game.engine.call(self._frames_dropped(), unit)
            except EngineFault as f:
                message, _ = p.messages[f.fault]
                span = self.game.model.returns.value.span
                raise VbrRuntimeError.at(span, f"`returns` for seat {seat}: "
                                               + message.format(self._shown(f.a), self._shown(f.b))) from None
            values.append(None if value is None or value == NONE else int(value))
        return values

    def _frames_dropped(self):
        """A copy of the words with no frame on the stack (as a `goto` leaves it): what a unit
        called where play ended has room above."""
        words = self.clone().words
        stack = self.game.program.layout.stack
        if isinstance(words, list):
            del words[stack:]
        words[H.FP], words[H.TOP], words[H.DEPTH] = -1, stack, 0
        return words

    def clone(self) -> "State":
        engine = self.game.engine
        copy = engine.copy(self.words) if hasattr(engine, "copy") else list(self.words)
        s = State.__new__(State)
        s.game, s.words = self.game, copy
        return s

    def __copy__(self) -> "State":
        """copy.copy is clone: a copy sharing the words would change with the original."""
        return self.clone()

    def __deepcopy__(self, memo) -> "State":
        """copy.deepcopy is clone too: the game (its program and engine) is shared, not copied."""
        return self.clone()

    def __reduce__(self):
        """A state pickles as its game and its words (up to its top in C, whose array is larger),
        as a clone without a log; so states go to other processes (multiprocessing)."""
        engine = self.game.engine
        words = list(self.words[:self.words[H.TOP]]) if hasattr(engine, "copy") else list(self.words)
        return _unpickled_state, (self.game, words)

    def determinize(self, seat: int, seed: int) -> "State":
        """A copy in which everything `seat` cannot see is dealt anew and every random stream
        reseeded from `seed` (vbr.engines.python_search.determinize; any whole number, numpy's
        too); the same words in either engine. Every thing keeps its id and its place, and what
        it is (its fields) is dealt, so a pending choice's options, vars and paused loops name the
        things now in the places they named."""
        seat, seed = self._seat(seat), whole_seed(seed)
        engine = self.game.engine
        if hasattr(engine, "determinize"):
            words = engine.determinize(self.words, seat, seed)
        else:
            from vbr.engines.python_search import determinize
            words = determinize(engine, self.words, seat, seed)
        s = State.__new__(State)
        s.game, s.words = self.game, words
        return s

    def mcts(self, iterations: int | None = None, c: float | None = None, depth: int | None = None, seed: int = 0,
             among: list[int] | None = None, **settings) -> int:
        """The option index information-set MCTS picks for the seat to move (python_search.mcts_choice,
        run in C by the C engine): the same answer from either engine for the same seed. Settings not
        given are python_search.SearchParams's defaults; `settings` are its other fields (reward,
        rollout, greedy_moves, worlds, widen, tree, inner_c, spread_playouts, budget, cut, spread_scale,
        extend, confidence). `among`: the options a restricted seat may take; the search's root has
        only these, so every iteration goes to them, and the most visited is taken. Each setting is
        checked as the agent spec's parameter (vbr.agents.spec.check_settings: `c=nan`, `widen=2`
        or `iterations=0` with `budget=0` is an AgentSpecError, a name the agent lacks a TypeError);
        `iterations=0` with a budget searches as long as the budget allows."""
        seed = whole_seed(seed)
        given = {k: v for k, v in (("iterations", iterations), ("c", c), ("depth", depth)) if v is not None}
        return self.mcts_with(search_params({**given, **settings}), seed, among)

    def mcts_with(self, params, seed: int, among: list[int] | None = None) -> int:
        """`mcts` under settings already checked and made a python_search.SearchParams
        (search_params), `seed` a Python int: the same search, the same answer, without checking
        the settings again (an agent's every decision)."""
        from vbr.engines.python_runtime import EngineFault
        from vbr.engines.python_search import mcts_choice
        engine, seat = self.game.engine, self.current_player()
        if seat is None:
            raise IllegalActionError(f"{self.no_choice_reason()}: there is no choice to search")
        try:
            if hasattr(engine, "mcts"):
                return engine.mcts(self.words, seat, params, seed, among)
            return mcts_choice(engine, self.words, seat, params, seed, among)
        except EngineFault as f:  # an imagined world met a run-time error of the rules
            p = self.game.program
            message, span = p.messages[f.fault]
            raise VbrRuntimeError.at(span or next(u.span for u in p.units if u.span is not None),
                                     message.format(self._shown(f.a), self._shown(f.b)))

    def mcts_visits(self, params, seed: int) -> tuple[int, list[int]]:
        """The search of `mcts` run whole (never stopped early): (its option, the root's visits
        per option), the same in either engine."""
        from vbr.engines.python_search import mcts_visits
        engine, seat = self.game.engine, self.current_player()
        if hasattr(engine, "mcts_visits"):
            return engine.mcts_visits(self.words, seat, params, seed)
        return mcts_visits(engine, self.words, seat, params, seed)

    def no_choice_reason(self) -> str:
        """Why a state waits for no choice, for an IllegalActionError: `the game is over`, or
        the error in its rules it stopped at (FILE:LINE:COL: MESSAGE)."""
        if self.words[H.STATUS] == FAULT:
            return f"the game stopped at an error in its rules ({self._fault_text()})"
        return "the game is over"

    def check(self) -> None:
        """Raise the located run-time error the state stopped at, if it stopped at one."""
        self._raise_fault()

    def play_random(self, agent_seed: int) -> None:
        """Every choice answered uniformly at random from the agents' stream until the end
        (PythonEngine.play_random); a logged game takes its choices one by one, to log them."""
        if self._events is not None:
            from vbr.ir import random_streams as R
            agent = R.first_state(agent_seed, R.AGENT_KEY)
            while self.words[H.STATUS] == CHOICE:
                agent, i = R.below(agent, self.words[H.NOPTS])
                self.apply_index(i)
            return
        self.game.engine.play_random(self.words, agent_seed)
        self._raise_fault()

    def _end_event(self) -> None:
        if self._events is not None:
            self._events.end(self.words)

    def _raise_fault(self) -> None:
        w = self.words
        if w[H.STATUS] != FAULT:
            return
        p = self.game.program
        message, span = p.messages[w[H.FAULT]]
        a, b = (self._shown(x) for x in (w[H.FAULT_A], w[H.FAULT_B]))
        raise VbrRuntimeError.at(span or self._running_span(), message.format(a, b))

    def _fault_text(self) -> str:
        """The error the state stopped at, in one line: `FILE:LINE:COL: MESSAGE`."""
        try:
            self._raise_fault()
        except VbrRuntimeError as exc:
            d = exc.diagnostics[0]
            return f"{d.span.file}:{d.span.line}:{d.span.col}: {d.message}"
        return ""

    def _running_span(self):
        """Where a limit of the whole game (steps, depth, the state's room) is located: the
        phase, procedure or handler running when it was passed, else the first that has a place."""
        p, w = self.game.program, self.words
        fp = int(w[H.FP])
        if 0 <= fp < int(w[H.TOP]) and p.units[int(w[fp + 1])].span is not None:
            return p.units[int(w[fp + 1])].span
        return next(u.span for u in p.units if u.span is not None)

    @staticmethod
    def _shown(v: int) -> str:
        return "none" if v == NONE else str(int(v))


def search_params(chosen: dict):
    """State.mcts's settings (a dict of its keyword arguments) checked as an agent spec's are
    (vbr.agents.spec.check_settings) and made a python_search.SearchParams; iterations=0 beside a
    budget searches as long as the budget allows."""
    from vbr.agents.spec import check_settings
    from vbr.engines.python_search import SearchParams
    # iterations=0 beside a budget: the budget alone bounds the search (no agent spec says it)
    by_budget = chosen.get("iterations") == 0 and chosen.get("budget", SearchParams.budget) != 0
    checked = check_settings("mcts", {k: v for k, v in chosen.items() if not (by_budget and k == "iterations")})
    return SearchParams(**checked, **({"iterations": 0} if by_budget else {}))


def _unpickled_state(game: Game, words: list) -> State:
    """A pickled State again (State.__reduce__): its words in an array of `game`'s engine."""
    engine = game.engine
    if hasattr(engine, "copy"):
        S = engine.array()
        S[:len(words)] = words
    else:
        S = list(words)
    s = State.__new__(State)
    s.game, s.words = game, S
    return s
