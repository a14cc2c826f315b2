"""A game as a tree of decision nodes, chance nodes and ends (OpenSpiel's explicit chance), played
by the typed program's engines (python or c) on the rule file's chance program
(vbr/ir/chance_program.py): every roll, pick and shuffle takes its outcome, an index among the
values it draws, from one queue in the state.

An engine runs from one choice to the next and cannot stop in the middle of a step. So a
`Position` keeps the last decision state, the option chosen in it and the chance outcomes
decided since, and moves on by running that step on a copy of the decision state whose queue
holds those outcomes. The run reaches the next choice or the end, or faults at the first draw
not yet decided: that draw is the next chance node, and the copy, stopped where the draw found
it, shows the game as it stands there (`Drawing`: read it, never play on it).

The nodes: a die's outcomes are its distinct faces (equal faces are one outcome, named by the
first index holding it, with their share of the probability), a pick's its distinct items, and a
shuffle of n things is n - 1 nodes, position i (from the last down) taking the thing at one of
positions 0..i, each equally likely. A step with k draws runs k + 1 times, each time only as far
as its next draw.

The states a position holds are never changed after it took them (every run starts from a copy),
so copies of a position share them.
"""
from __future__ import annotations

from vbr.engines.game import Game, State, checked_model, make_engine
from vbr.engines.load_key import load_key
from vbr.errors import IllegalActionError, UsageError
from vbr.ir.chance_program import CAPACITY, build_chance_program
from vbr.ir.layout import FAULT, Header as H
from vbr.rl.common import check_rule_file


class Draws:
    """A rule file's chance program run by one engine: its `game` (whose `model` is the checked
    rule file), what each undecided draw's fault is (`sites`) and where the queue lies. `key`:
    the program's load key (vbr.engines.load_key), when it was made from a rule file as read, lets
    the C engine take the library built before without generating its C."""

    def __init__(self, model, engine: str = "python", options: dict | None = None, key: str | None = None):
        chance = build_chance_program(model)
        program = chance.program
        self.game = Game(program, make_engine(program, engine, key=key), model, model.rules.path, options)
        self.engine, self.sites, self.queue = self.game.engine, chance.sites, program.forced_at[0]
        self.zone_at = {program.layout.zone(z): z for z in range(len(program.names.zones))}
        self.held = self.engine.held(0)  # a state before anything has run, copied for every start
        self.known: dict[tuple, Draw] = {}  # the rolls' and shuffles' nodes met so far, by fault and arguments

    @classmethod
    def load(cls, rule_file, options: dict | None, engine: str) -> "Draws":
        """The chance program of `rule_file` (a path or a bundled name) under `options`, or of a
        typed game already loaded (`vbr.load`, engine python or c), run by `engine` ("python" or
        "c")."""
        if engine not in ("python", "c"):
            raise UsageError(f"the OpenSpiel game plays the typed engines, `python` or `c`, not {engine!r}")
        if isinstance(rule_file, Game):
            if options:
                raise UsageError("options are given when loading; pass a rule file, not a loaded game, with options")
            return cls(rule_file.model, engine, rule_file.options)
        check_rule_file(rule_file)
        if options is not None and not isinstance(options, dict):
            raise UsageError(f"options are a dict of option names to values, not {type(options).__name__}")
        model = checked_model(rule_file, options or {})
        key = load_key(model.rules.sources, options or {}, "chance program") if engine == "c" else None
        return cls(model, engine, options, key)

    def fill(self, words, outcomes) -> None:
        """Queue `outcomes` in `words`, none of them taken yet."""
        if len(outcomes) > CAPACITY:
            raise UsageError(f"a step of `{self.game.title}` draws more than {CAPACITY} times, more than a chance "
                             "node's step can hold")
        q = self.queue
        words[q], words[q + 1] = 0, len(outcomes)
        for i, o in enumerate(outcomes):
            words[q + 2 + i] = o

    def taken(self, words) -> int:
        return int(words[self.queue])

    def fresh(self):
        """The words of a game before anything has run."""
        copy = getattr(self.engine, "copy", None)
        return copy(self.held) if copy is not None else list(self.held)


class Draw:
    """A chance node: `what` is drawn (`roll green`, `pick`, `shuffle deck[0], position 11`),
    `texts` are the values it draws among, by index, and `outcomes` (index, probability) per
    distinct value, in increasing order of index."""

    __slots__ = ("what", "texts", "outcomes")

    def __init__(self, what: str, values, texts: list[str]):
        self.what, self.texts = what, texts
        first: dict = {}
        for i, v in enumerate(values):
            first.setdefault(v, [i, 0])[1] += 1
        n = len(values)
        self.outcomes = tuple((i, c / n) for i, c in first.values())


def draw_at(draws: Draws, words) -> Draw | None:
    """The undecided draw `words` stopped at, None when they stopped elsewhere."""
    fault = int(words[H.FAULT]) if int(words[H.STATUS]) == FAULT else -1
    site = draws.sites.get(fault)
    if site is None:
        return None
    n, b = int(words[H.FAULT_A]), int(words[H.FAULT_B])
    if site.kind == "pick":  # its items vary from draw to draw
        return _draw(draws, site, words, n, b)
    known = draws.known.get((fault, n, b))
    if known is None:
        known = draws.known[(fault, n, b)] = _draw(draws, site, words, n, b)
    return known


def _items(draws: Draws, words, n: int) -> list[int]:
    """The n items an undecided pick wrote past the queue's values."""
    at = draws.queue + 2 + int(words[draws.queue + 1])
    return [int(v) for v in words[at:at + n]]


def _draw(draws: Draws, site, words, n: int, b: int) -> Draw:
    p = draws.game.program
    if site.kind == "roll":
        faces = p.dice[site.die]
        return Draw(f"roll {p.die_names[site.die]}", faces, [p.names.text(site.item, v) for v in faces])
    if site.kind == "pick":
        if b != n:  # the queue had no room for the items: each index is its own outcome
            return Draw("pick", range(n), [f"item {i + 1} of {n}" for i in range(n)])
        items = _items(draws, words, n)
        return Draw("pick", items, [p.names.text(site.item, v, words) for v in items])
    zone = p.names.zones[draws.zone_at[b]]
    return Draw(f"shuffle {zone}, position {n - 1}", range(n), [str(i) for i in range(n)])


class Drawing(State):
    """A game stopped at an undecided draw, in the middle of a step: no seat is to choose, the
    phase is the one being played (None in setup). For reading only."""

    def __init__(self, game: Game, words):
        self.game, self.words = game, words

    def current_player(self):
        return None

    def is_terminal(self) -> bool:
        return False

    @property
    def phase(self) -> str | None:
        """The unit of the bottom frame when it is a phase (the frames above it may be placed
        only as a fault unwinds, and a draw's fault stops a step wherever it is)."""
        p, words = self.game.program, self.words
        bottom = p.layout.stack
        if int(words[H.TOP]) <= bottom + 1 or not 0 <= int(words[bottom + 1]) < len(p.units):
            return None
        unit = p.units[int(words[bottom + 1])]
        return unit.name if unit.kind == "phase" else None


class Position:
    """Where a game stands: at a choice or the end (`need` is None), or at a chance node (`need`,
    a `Draw`). `past` holds the finished steps as (option, outcomes) pairs, setup's first with
    option None: with the step in progress, all that `replay` needs. `bound`: the most outcomes
    one draw may have (None: no bound)."""

    __slots__ = ("draws", "bound", "base", "action", "decided", "state", "need", "past")

    def __init__(self, draws: Draws, bound: int | None):
        self.draws, self.bound = draws, bound
        self.base = self.action = self.need = self.state = None
        self.decided: list[int] = []
        self.past: list[tuple] = []

    @property
    def outcomes(self):
        return self.need.outcomes if self.need is not None else None

    @classmethod
    def start(cls, draws: Draws, bound: int | None) -> "Position":
        """A new game: var values and setup, up to the first chance node or choice."""
        pos = cls(draws, bound)
        pos._advance()
        return pos

    def copy(self) -> "Position":
        c = Position.__new__(Position)
        c.draws, c.bound, c.base, c.action = self.draws, self.bound, self.base, self.action
        c.decided, c.past = self.decided[:], self.past[:]
        c.state, c.need = self.state, self.need
        return c

    def choose(self, i: int) -> None:
        """Take option `i` of the pending choice (its index is checked by the caller). A step
        that stops at an error of the rules raises it and leaves the position as it was."""
        undo = self.base, self.action, self.decided
        self.past.append((self.action, tuple(self.decided)))
        self.base, self.action, self.decided = self.state, i, []
        try:
            self._advance()
        except BaseException:
            self.past.pop()
            self.base, self.action, self.decided = undo
            raise

    def settle(self, outcome: int) -> None:
        """Decide the chance node's draw: `outcome` is one of `outcomes`. A step that stops at an
        error of the rules raises it and leaves the position as it was."""
        if not any(o == outcome for o, _ in self.need.outcomes):
            raise IllegalActionError(f"chance outcome {outcome} is not one of `{self.need.what}`'s: "
                                     f"{', '.join(str(o) for o, _ in self.need.outcomes)}")
        self.decided.append(int(outcome))
        try:
            self._advance()
        except BaseException:
            self.decided.pop()  # a step that stops at an error of the rules leaves the position as it was
            raise

    def label(self, outcome: int) -> str | None:
        """`roll d: 4`, `pick: #3`, `shuffle deck[0], position 11: 7` (position 11 takes the
        thing at position 7); None when `outcome` is not an outcome here."""
        need = self.need
        if need is None or not 0 <= outcome < len(need.texts):
            return None
        return f"{need.what}: {need.texts[outcome]}"

    def moves(self) -> list[tuple]:
        """Every step so far as (option, outcomes): what `replay` takes."""
        return [*self.past, (self.action, tuple(self.decided))]

    @classmethod
    def replay(cls, draws: Draws, bound: int | None, moves) -> "Position":
        """The position `moves` (from `moves()`) lead to: each step runs once."""
        pos = cls(draws, bound)
        for n, (action, decided) in enumerate(moves):
            if n:
                if pos.need is not None:
                    raise ValueError("a replayed step stops at a chance node before its end")
                pos.past.append((pos.action, tuple(pos.decided)))
                pos.base, pos.action = pos.state, action
            pos.decided = list(decided)
            pos._advance()
        return pos

    def _advance(self) -> None:
        d = self.draws
        if self.base is None:
            words = d.fresh()
            d.fill(words, self.decided)
            d.engine.goto(words, d.game.program.init)
        else:
            words = self.base.clone().words
            d.fill(words, self.decided)
            d.engine.apply(words, self.action)
        need = draw_at(d, words)
        if need is not None:
            return self._stop(Drawing(d.game, words), need)
        if d.taken(words) != len(self.decided):
            raise ValueError(f"{len(self.decided) - d.taken(words)} decided chance outcomes were never drawn")
        self.state, self.need = State(d.game, words), None  # a fault of the rules raises here, located

    def _stop(self, st: Drawing, need: Draw) -> None:
        n = len(need.texts)
        if self.bound is not None and n > self.bound:  # the outcomes are indices into the values
            site = self.draws.sites[int(st.words[H.FAULT])]
            raise UsageError(f"{site.span}: `{need.what}` draws among {n} outcomes, more than the {self.bound} "
                             f"chance outcomes this game declares; pass max_chance_outcomes={n} or more")
        self.state, self.need = st, need


def after_setup(draws: Draws) -> State:
    """The game after setup with every draw decided as its first outcome: a sample of what play
    holds (how many things), as `Game.new_state` gives for the ordinary program."""
    pos = Position.start(draws, None)
    while pos.need is not None:
        pos.settle(pos.need.outcomes[0][0])
    return pos.state

