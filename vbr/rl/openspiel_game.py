"""A rule file as an OpenSpiel Python game (`pyspiel.register_game`).

The game's type comes from the rule file: sequential turns (one seat chooses at a time); chance
`SAMPLED_STOCHASTIC` when the file rolls, picks at random or shuffles anywhere, else
`DETERMINISTIC` — the interpreter draws chance from the generator inside the state, in the middle
of running the rules, so its outcomes are not offered as chance nodes (docs/rl.md, "Chance");
`IMPERFECT_INFORMATION` when some seat may not look into some zone; `ZERO_SUM` for two sides of
equal size, else `GENERAL_SUM`; terminal rewards (+1, -1, 0, as common.seat_returns).

The game parameter `seed` (default: the one given at registration) fixes the game: two states
made from the same seed and given the same actions are equal, as OpenSpiel's clone and
serialization checks require.
"""
from __future__ import annotations

import json

import numpy as np
import pyspiel

from vbr.errors import IllegalActionError, UsageError
from vbr.interpreter.values import text
from vbr.rl import common
from vbr.rl.observation import encoding

# name -> (key, spec): what each registered name plays, so that registering the same rule file
# again under its name is harmless and a clash is an error, and so that pickled states replay.
_REGISTRY: dict[str, tuple[tuple, "_Spec"]] = {}


class _Spec:
    """One registration: the loaded game, its action space and its OpenSpiel type."""

    def __init__(self, name, game, seed, max_actions, observe_options=False):
        self.name = name
        self.observe_options = bool(observe_options)
        self.game = game
        prog = game.program
        self.encoding = encoding(prog)
        self.max_actions = common.resolve_max_actions(game, game.new_state(seed), max_actions)
        self.initial: dict[int, object] = {}  # seed -> the first state, cloned for every new game
        T = pyspiel.GameType
        self.zero_sum = common.zero_sum(prog)
        self.stochastic = common.has_chance(prog)
        self.imperfect = common.has_hidden_zones(prog)
        self.game_type = T(
            short_name=name,
            long_name=f"{prog.title} (vbr)",
            dynamics=T.Dynamics.SEQUENTIAL,
            chance_mode=T.ChanceMode.SAMPLED_STOCHASTIC if self.stochastic else T.ChanceMode.DETERMINISTIC,
            information=T.Information.IMPERFECT_INFORMATION if self.imperfect else T.Information.PERFECT_INFORMATION,
            utility=T.Utility.ZERO_SUM if self.zero_sum else T.Utility.GENERAL_SUM,
            reward_model=T.RewardModel.TERMINAL,
            max_num_players=prog.seats,
            min_num_players=prog.seats,
            provides_information_state_string=False,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification={"seed": seed},
        )
        self.game_info = pyspiel.GameInfo(
            num_distinct_actions=self.max_actions,
            max_chance_outcomes=0,
            num_players=prog.seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if self.zero_sum else None,
            max_game_length=prog.choice_limit,
        )

    def first_state(self, seed: int):
        st = self.initial.get(seed)
        if st is None:
            if len(self.initial) >= 256:  # the oldest seeds go: a long training run uses many
                del self.initial[next(iter(self.initial))]
            st = self.initial[seed] = self.game.new_state(seed)
            common.check_options(st, self.max_actions)
        return st.clone()


class VbrGame(pyspiel.Game):
    """A registered rule file; `pyspiel.load_game(name, {"seed": s})` makes one. Each
    registration is a subclass holding its `spec` (OpenSpiel keeps the factory until the process
    ends, and a class, unlike a closure, is safe to hold that long)."""

    spec: _Spec

    def __init__(self, params=None):
        params = dict(params or {})
        spec = self.spec
        super().__init__(spec.game_type, spec.game_info, params)
        seed = params.get("seed", spec.game_type.parameter_specification["seed"])
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
            raise UsageError(f"a seed is a whole number in 0..2**63-1, not {seed!r}")
        self.seed = seed

    def new_initial_state(self):
        return VbrState(self, _Held((self.spec.name, self.seed), self.spec.first_state(self.seed), []))

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(self.spec, iig_obs_type, params)


class _Held:
    """The vbr state inside an OpenSpiel state, with the option indices chosen so far. OpenSpiel
    copies a Python state's attributes with `copy.deepcopy` and serializes them with pickle:
    copying clones the vbr state (cheap, and it keeps the generator's place), pickling keeps the
    choices and replays them from the seed."""

    __slots__ = ("key", "state", "choices")

    def __init__(self, key, state, choices):
        self.key, self.state, self.choices = key, state, choices

    def __deepcopy__(self, memo):
        return _Held(self.key, self.state.clone(), list(self.choices))

    def __reduce__(self):
        return (_replay, (self.key, list(self.choices)))


def _replay(key, choices) -> _Held:
    name, seed = key
    if name not in _REGISTRY:
        raise UsageError(f"cannot rebuild a state of {name!r}: register its rule file first (vbr.rl.register_openspiel)")
    spec = _REGISTRY[name][1]
    st = spec.first_state(seed)
    for i in choices:
        st.apply_index(i)
    return _Held(key, st, list(choices))


class VbrState(pyspiel.State):
    def __init__(self, game: VbrGame, held: _Held):
        super().__init__(game)
        self.held = held

    def current_player(self):
        st = self.held.state
        if st.result is not None:
            return pyspiel.PlayerId.TERMINAL
        return st.pending.seat

    def _legal_actions(self, player):
        st = self.held.state
        if st.result is not None or st.pending is None or st.pending.seat != player:
            return []
        return list(range(len(st.pending.options)))

    def _apply_action(self, action):
        st = self.held.state
        n = len(st.pending.options)
        if not 0 <= action < n:
            raise IllegalActionError(f"action {action} is not legal here: the choice `{st.pending.prompt}` has options 0..{n - 1}")
        st.apply_index(action)
        self.held.choices.append(int(action))
        common.check_options(st, self.get_game().spec.max_actions)

    def _action_to_string(self, player, action):
        st = self.held.state
        p = st.pending
        if p is None or p.seat != player or not 0 <= action < len(p.options):
            return f"option {action}"
        texts = [text(v, st.prog) for v in p.options]
        t = texts[action]
        return t if texts.count(t) == 1 else f"{t} (option {action})"

    def is_terminal(self):
        return self.held.state.result is not None

    def returns(self):
        st = self.held.state
        return common.seat_returns(st.prog, st.result)

    def vbr_state(self):
        """The interpreter's state (everything in it, hidden cards included)."""
        return self.held.state

    def __str__(self):
        return common.full_text(self.held.state)


class _Observer:
    """OpenSpiel's observer protocol over observation.py: `tensor` (flat) and `dict`, filled by
    `set_from(state, player)`; `string_from` gives the seat's view as JSON (State.observation)."""

    def __init__(self, spec: _Spec, iig_obs_type, params):
        if params:
            raise ValueError(f"vbr observers take no parameters, not {params}")
        if iig_obs_type is not None and (iig_obs_type.perfect_recall or not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("vbr games offer one observation: a seat's own view of the present state "
                             "(no perfect-recall information states, no public-only or all-players views)")
        enc = self.encoding = spec.encoding
        self.max_actions = spec.max_actions
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
        st = state.held.state
        self.dict["observation"][:] = self.encoding.encode(st, player)
        if self.options:
            self.dict["options"][:] = self.encoding.option_features(st, player, self.max_actions)

    def string_from(self, state, player):
        return json.dumps(state.held.state.observation(player), sort_keys=True)


def register(rule_file, options=None, name: str | None = None, seed: int = 0, max_actions: int | None = None,
             observe_options: bool = False) -> str:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
        raise UsageError(f"a seed is a whole number in 0..2**63-1, not {seed!r}")
    game = common.load(rule_file, options)
    prog = game.program
    if name is None:
        name = "vbr_" + common.slug(prog.title)
        if game.options:
            name += "_" + common.slug("_".join(f"{k}_{v}" for k, v in sorted(game.options.items())))
    elif not isinstance(name, str) or not name or not all(c.isalnum() or c == "_" for c in name):
        raise UsageError(f"an OpenSpiel game name is letters, digits and `_`, not {name!r}")
    key = (str(game.path), tuple(sorted((k, repr(v)) for k, v in game.options.items())), seed, max_actions,
           bool(observe_options))
    if name in _REGISTRY:
        if _REGISTRY[name][0] == key:
            return name
        raise UsageError(f"an OpenSpiel game named {name!r} is already registered with other rules, options or "
                         "settings; pass another name=")
    if name in pyspiel.registered_names():
        raise UsageError(f"OpenSpiel already has a game named {name!r}; pass another name=")
    spec = _Spec(name, game, seed, max_actions, observe_options)
    _REGISTRY[name] = (key, spec)
    pyspiel.register_game(spec.game_type, type(f"VbrGame_{name}", (VbrGame,), {"spec": spec}))
    return name
