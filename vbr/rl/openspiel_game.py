"""A rule file as an OpenSpiel Python game (`pyspiel.register_game`).

The game's type comes from the rule file: sequential turns (one seat chooses at a time); chance
`EXPLICIT_STOCHASTIC` when the file rolls, picks at random or shuffles anywhere, else
`DETERMINISTIC`: every draw is a chance node whose outcomes OpenSpiel chooses (chance_nodes.py;
docs/rl.md, "Chance"); `IMPERFECT_INFORMATION` when some seat may not look into some zone;
`ZERO_SUM` for two sides of equal size with win/loss returns or `returns ... total 0`,
`CONSTANT_SUM` for another declared total, else `GENERAL_SUM`; terminal
rewards (the file's `returns`, else +1, -1, 0: common.seat_returns), bounded by
`min_utility`/`max_utility` (the `returns` range, else -1..1).

Actions are fixed ids of values where every choice's domain is fixed before play, else option
positions (action_ids.py). Observations are the seat's present view (observation.py); information states (perfect recall,
a string only) are the seat's action-observation history (information_state.py), kept per state
from the first time one is asked for.

The game is played by the typed program's engines (`engine="python"`, the default, or `"c"`),
on the rule file's chance program (vbr/ir/chance_program.py), whose draws take their outcomes
from the chance nodes. The actions so far, chance outcomes included, fix a state: two states
given the same actions are equal, as OpenSpiel's clone and serialization checks require. No
generator draws anything, so the game has no seed.
"""
from __future__ import annotations

import json

import numpy as np
import pyspiel

from vbr.errors import IllegalActionError, UsageError
from vbr.rl import common
from vbr.rl.chance_nodes import Draws, Position, after_setup
from vbr.rl.information_state import Record, option_texts, view
from vbr.rl.observation import encoding
from vbr.rl.state_reader import reader

# name -> (key, spec): what each registered name plays, so that registering the same rule file
# again under its name is harmless and a clash is an error, and so that pickled states replay.
_REGISTRY: dict[str, tuple[tuple, "_Spec"]] = {}


class _Spec:
    """One registration: the rule file's chance program under its engine, its action space and
    its OpenSpiel type."""

    def __init__(self, name, draws: Draws, max_actions, max_chance_outcomes=None, observe_options=False):
        self.name = name
        self.observe_options = bool(observe_options)
        game = draws.game
        m = game.model
        self.draws = draws
        self.encoding = encoding(game)
        first = after_setup(draws)  # a sample game, to count its cards and pieces
        self.ids = common.resolve_action_ids(game, first, max_actions)
        self.max_actions = self.ids.size
        self.initial: Position | None = None  # the start, copied for every new game
        T = pyspiel.GameType
        self.utility_sum = common.utility_sum(m)
        lowest, highest = common.utility_bounds(m)
        self.stochastic = common.has_chance(m)
        self.max_chance = common.resolve_max_chance_outcomes(game, first, max_chance_outcomes) if self.stochastic else 0
        self.imperfect = common.has_hidden_zones(game)
        self.game_type = T(
            short_name=name,
            long_name=f"{game.title} (vbr)",
            dynamics=T.Dynamics.SEQUENTIAL,
            chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC if self.stochastic else T.ChanceMode.DETERMINISTIC,
            information=T.Information.IMPERFECT_INFORMATION if self.imperfect else T.Information.PERFECT_INFORMATION,
            utility=_utility(self.utility_sum),
            reward_model=T.RewardModel.TERMINAL,
            max_num_players=game.seats,
            min_num_players=game.seats,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification={},
        )
        self.game_info = pyspiel.GameInfo(
            num_distinct_actions=self.max_actions,
            max_chance_outcomes=self.max_chance,
            num_players=game.seats,
            min_utility=lowest,
            max_utility=highest,
            utility_sum=self.utility_sum,
            max_game_length=m.limits["choices"],
        )

    def start(self) -> Position:
        if self.initial is None:
            self.initial = Position.start(self.draws, self.max_chance)
            self.check(self.initial)
        return self.initial.copy()

    def check(self, pos: Position) -> None:
        if pos.need is None:
            self.ids.check(pos.state)


def _utility(total: float | None):
    """OpenSpiel's kind of utility for returns that always add up to `total` (None: they vary)."""
    kinds = pyspiel.GameType.Utility
    if total is None:
        return kinds.GENERAL_SUM
    return kinds.ZERO_SUM if total == 0 else kinds.CONSTANT_SUM


class VbrGame(pyspiel.Game):
    """A registered rule file; `pyspiel.load_game(name)` makes one. Each registration is a
    subclass holding its `spec` (OpenSpiel keeps the factory until the process ends, and a class,
    unlike a closure, is safe to hold that long)."""

    spec: _Spec

    def __init__(self, params=None):
        super().__init__(self.spec.game_type, self.spec.game_info, dict(params or {}))

    def new_initial_state(self):
        return VbrState(self, _Held(self.spec, self.spec.start()))

    def __reduce__(self):
        """Pickled as its registration (the rule file, options, name and settings): unpickling,
        in this process or another, registers it there if need be and loads it."""
        return _registered_game, self.spec.registration

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of a kind of observation (OpenSpiel's observer protocol): a seat's own view
        of the present (the default), its information state (perfect recall), the public view
        (what every seat sees) or a seat's private view (what it sees beyond the public one); None
        for a kind the game does not offer (all players' views), as `make_observation` expects."""
        t = iig_obs_type
        if params:
            raise ValueError(f"vbr observers take no parameters, not {params}")
        single = t is None or t.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if t is not None and not t.public_info and not t.perfect_recall and single:
            return _PrivateObserver()
        if t is not None and t.public_info and not t.perfect_recall and t.private_info == pyspiel.PrivateInfoType.NONE:
            return _PublicObserver()
        if t is not None and t.public_info and t.perfect_recall and single:
            return _InfoStateObserver(t, params)
        if t is None or (t.public_info and single):
            return _Observer(self.spec, t, params)
        return None


class _Held:
    """The position inside an OpenSpiel state. OpenSpiel copies a Python state's attributes with
    `copy.deepcopy` and serializes them with pickle: copying copies the position (its vbr states
    are shared, never changed), pickling keeps the game's name and the steps, replayed on load."""

    __slots__ = ("spec", "pos", "record")

    def __init__(self, spec: _Spec, pos: Position, record: Record | None = None):
        self.spec, self.pos = spec, pos
        self.record = record  # the seats' histories (information_state.py), kept once asked for

    def __deepcopy__(self, memo):
        return _Held(self.spec, self.pos.copy(), self.record)  # a record is never changed: shared

    def histories(self, actions) -> Record:
        """The seats' histories, built on the first request by replaying `actions` (the state's
        history) from the start, and kept up to date from then on by every move."""
        if self.record is None:
            pos = self.spec.start()
            rec = Record.start(pos)
            for a in actions:
                actor = None if pos.need is not None else pos.state.current_player()
                if actor is None:
                    pos.settle(a)
                else:
                    pos.choose(self.spec.ids.position(reader(pos.state).options(), int(a)))
                rec = rec.step(pos, actor, a)
            self.record = rec
        return self.record

    def __reduce__(self):
        return (_replay, (self.spec.name, self.pos.moves()))


def _replay(name, moves) -> _Held:
    if name not in _REGISTRY:
        raise UsageError(f"cannot rebuild a state of {name!r}: register its rule file first (vbr.rl.register_openspiel)")
    spec = _REGISTRY[name][1]
    return _Held(spec, Position.replay(spec.draws, spec.max_chance, moves))


class VbrState(pyspiel.State):
    def __init__(self, game: VbrGame, held: _Held):
        super().__init__(game)
        self.held = held

    def current_player(self):
        pos = self.held.pos
        if pos.need is not None:
            return pyspiel.PlayerId.CHANCE
        seat = pos.state.current_player()
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def chance_outcomes(self):
        """(outcome, probability) of the pending draw, outcomes in increasing order (docs/rl.md)."""
        return list(self.held.pos.outcomes or ())

    def _legal_actions(self, player):
        pos = self.held.pos
        if pos.need is not None or pos.state.current_player() != player:
            return []
        return self.held.spec.ids.legal(reader(pos.state).options())

    def _apply_action(self, action):
        """Take a choice or a chance outcome. One that stops at an error (of the rules, or a choice
        or a draw too large for the game's bounds) raises it and leaves the state as it was."""
        held = self.held
        pos = held.pos.copy()
        if pos.need is not None:
            actor = None
            pos.settle(action)
        else:
            if pos.state.is_terminal():
                raise IllegalActionError(f"action {action} is not legal here: the game is over")
            r = reader(pos.state)
            options, ids = r.options(), held.spec.ids
            at = ids.position(options, int(action))
            if at is None:
                raise IllegalActionError(f"action {action} is not legal here: the choice `{r.prompt()}` has actions "
                                         f"{', '.join(map(str, ids.legal(options)))}")
            actor = r.chooser
            pos.choose(at)
        held.spec.check(pos)
        held.pos = pos
        if held.record is not None:
            held.record = held.record.step(pos, actor, int(action))

    def _action_to_string(self, player, action):
        """The option's text as the seat sees it, as its information state writes its options
        (information_state.option_texts): a card or piece by kind and fields, `unseen` where it
        lies in a zone the seat may not look into, never by id (ids follow the order of creation,
        so an id would say which card it is, or which of two identical copies); equal texts are
        told apart by the action."""
        pos = self.held.pos
        if player == pyspiel.PlayerId.CHANCE:
            return pos.label(action) or f"chance outcome {action}"
        r = reader(pos.state)
        mine = pos.need is None and r.chooser == player
        options = r.options() if mine else ()
        at = self.held.spec.ids.position(options, action) if mine else None
        if at is None:
            return f"option {action}"
        texts = option_texts(pos.state, player)
        t = texts[at]
        return t if texts.count(t) == 1 else f"{t} (option {action})"

    def is_terminal(self):
        pos = self.held.pos
        return pos.need is None and pos.state.is_terminal()

    def returns(self):
        st = self.held.pos.state
        return common.seat_returns(st)

    def vbr_state(self):
        """The typed game's state (vbr.engines.game.State: everything in it, hidden cards
        included); at a chance node, the game as it stands at the draw, in the middle of a step
        (chance_nodes.Drawing): read it, never play on it."""
        return self.held.pos.state

    def __str__(self):
        pos = self.held.pos
        s = common.full_text(pos.state)
        return s if pos.need is None else f"{s}\nchance: {pos.need.what}"


class _Observer:
    """OpenSpiel's observer protocol over observation.py: `tensor` (flat) and `dict`, filled by
    `set_from(state, player)`; `string_from` gives the seat's view of the present as JSON (`_view`)."""

    def __init__(self, spec: _Spec, iig_obs_type, params):
        if params:
            raise ValueError(f"vbr observers take no parameters, not {params}")
        if iig_obs_type is not None and (iig_obs_type.perfect_recall or not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("vbr games offer a seat's own view of the present state, and its information state "
                             "(perfect recall, a string only); no public-only or all-players views")
        enc = self.encoding = spec.encoding
        self.max_actions = spec.max_actions
        self.ids = spec.ids
        self.options = spec.observe_options
        size = enc.size
        if self.options:  # the options' rows after the flat tensor (observation.option_features)
            enc.option_layout()
            size += spec.max_actions * enc.option_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:enc.size]}
        if self.options:
            self.dict["options"] = self.tensor[enc.size:].reshape(spec.max_actions, enc.option_size)

    def set_from(self, state, player):
        st = state.held.pos.state
        self.dict["observation"][:] = self.encoding.encode(st, player)
        if self.options:
            r = reader(st)
            offered = r.options() if r.chooser is not None else ()
            self.dict["options"][:] = self.ids.rows(self.encoding.option_features(st, player, self.max_actions), offered)

    def string_from(self, state, player):
        return json.dumps(_view(state, player), sort_keys=True)


class _StringObserver:
    """An observer whose observation is a string only (`string_from`): no tensor."""

    kind = ""  # which observation, for the error of a tensor asked for

    def __init__(self):
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        raise ValueError(f"vbr games have no {self.kind} observation tensor, only the string")


class _PublicObserver(_StringObserver):
    """The public observation: what every seat sees of the present, as a spectator does (the
    phase, every var, the things of the public zones, the size of every other zone), as JSON.
    The same for every player."""

    kind = "public"

    def string_from(self, state, player):
        return json.dumps(_view(state, None), sort_keys=True)


class _PrivateObserver(_StringObserver):
    """A seat's private observation: what it sees of the present beyond the public observation
    (the contents of the non-public zones it may look into, the vars that name a card only it
    sees, and its prompt and options when it is to choose), as JSON."""

    kind = "private"

    def string_from(self, state, player):
        mine, public = _view(state, player, turn=False), _view(state, None)
        return json.dumps({k: v for k, v in mine.items() if public.get(k) != v}, sort_keys=True)


def _view(state, seat: int | None, turn: bool = True) -> dict:
    """What `seat` (None: a spectator) sees of an OpenSpiel state's present, as an information
    state writes a view (information_state.view): a card by kind and fields, never by id, which
    would tell which of two identical copies it is, and so where it has been out of sight.
    `turn`: with whose turn it is (`to choose`), which a spectator's view never has."""
    pos = state.held.pos
    shown = view(pos.state, seat, pos.need is not None)
    if seat is None or not turn:
        del shown["to choose"]
    return shown


class _InfoStateObserver:
    """The perfect-recall observer: `string_from` is the seat's information state
    (information_state.py); there is no tensor (docs/rl.md, "Information states")."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"vbr observers take no parameters, not {params}")
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("vbr games offer one perfect-recall view: a seat's own information state "
                             "(no public-only or all-players views)")
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        raise ValueError("vbr games have no information-state tensor, only the string "
                         "(information_state_string; docs/rl.md, \"Information states\")")

    def string_from(self, state, player):
        return state.held.histories(state.history()).string(player)


def register(rule_file, options=None, name: str | None = None, max_actions: int | None = None,
             max_chance_outcomes: int | None = None, observe_options: bool = False, engine: str = "python") -> str:
    """Register `rule_file` (a path or a bundled name) under `options`, played by `engine`
    ("python" or "c"), and return its OpenSpiel name (by default `vbr_` and the title, then the
    options, then `_c` for the C engine)."""
    draws = Draws.load(rule_file, options, engine)
    game = draws.game
    if name is None:
        name = "vbr_" + common.slug(game.title)
        if game.options:
            name += "_" + common.slug("_".join(f"{k}_{v}" for k, v in sorted(game.options.items())))
        if engine == "c":
            name += "_c"
    elif not isinstance(name, str) or not name or not all(c.isalnum() or c == "_" for c in name):
        raise UsageError(f"an OpenSpiel game name is letters, digits and `_`, not {name!r}")
    # the rule texts as read (the file and those it extends): the same path edited since is another game
    rules = tuple(game.rules.sources[f] for f in game.rules.chain)
    key = (str(game.path), rules, tuple(sorted((k, repr(v)) for k, v in game.options.items())), max_actions,
           max_chance_outcomes, bool(observe_options), engine)
    if name in _REGISTRY:
        if _REGISTRY[name][0] == key:
            return name
        raise UsageError(f"an OpenSpiel game named {name!r} is already registered with other rules, options or "
                         "settings; pass another name=")
    if name in pyspiel.registered_names():
        raise UsageError(f"OpenSpiel already has a game named {name!r}; pass another name=")
    spec = _Spec(name, draws, max_actions, max_chance_outcomes, observe_options)
    spec.registration = (str(game.path), dict(game.options), name, max_actions, max_chance_outcomes,
                         bool(observe_options), engine)
    _REGISTRY[name] = (key, spec)
    pyspiel.register_game(spec.game_type, type(f"VbrGame_{name}", (VbrGame,), {"spec": spec}))
    return name


def _registered_game(rule_file, options, name, max_actions, max_chance_outcomes, observe_options, engine):
    """A pickled VbrGame again: its registration made (once per process) and the game loaded."""
    register(rule_file, options, name, max_actions, max_chance_outcomes, observe_options, engine)
    return pyspiel.load_game(name)
