"""A rule file as a PettingZoo AEC environment: one agent per seat, actions are action ids.

Agent `seat_i` plays seat i. Its observation is `{"observation": its tensor (observation.py),
"action_mask": 1 for each legal action}`, and with `observe_options=True` also `"options"`: a row
of features per action saying what that option is (observation.option_features). An action is a
fixed id of a value or an option's position in the pending choice (action_ids.py). Rewards come at the
end only: what the rule file's `returns` gives each seat, else +1 to the winning side, -1 to the
others, 0 in a draw (common.seat_returns). Same seed,
same game: `reset(seed=s)` plays the game that `vbr run --seed s` plays, and each later `reset()`
the next game of that seed's series.

`env.state()` is the referee's view for centralised training (observation.state_tensor: everything,
the cards no seat sees included), in `env.state_space`. An environment pickles (its encoding is made
again from its game on unpickling), so it can be sent to another process.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from vbr.errors import IllegalActionError, UsageError
from vbr.seeds import derive
from vbr.rl import common
from vbr.rl.observation import encoding, observation_tensor, state_tensor
from vbr.rl.state_reader import reader


class VbrAECEnv(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "vbr", "is_parallelizable": False}

    def __init__(self, rule_file, options: dict | None = None, seed: int = 0, render_mode: str | None = None,
                 max_actions: int | None = None, observe_options: bool = False):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise UsageError(f"render_mode {render_mode!r} is not one of {', '.join(self.metadata['render_modes'])}")
        seed = _check_seed(seed)
        self.game = common.load(rule_file, options, engine="auto")
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name="vbr_" + common.slug(self.game.title))
        self._seed, self._played = seed, 0
        self.ids = common.resolve_action_ids(self.game, self.game.new_state(seed), max_actions)
        self.max_actions = self.ids.size
        self.possible_agents = [f"seat_{i}" for i in range(self.game.seats)]
        self.agents = self.possible_agents[:]
        self.observe_options = bool(observe_options)
        self._encodings()
        box = {"observation": spaces.Box(low=self.encoding.low, high=self.encoding.high, dtype=np.float32),
               "action_mask": spaces.Box(0, 1, shape=(self.max_actions,), dtype=np.int8)}
        if self.observe_options:
            tile = (self.max_actions, 1)
            box["options"] = spaces.Box(low=np.tile(self.encoding.option_low, tile),
                                        high=np.tile(self.encoding.option_high, tile), dtype=np.float32)
        self._observation_spaces = {a: spaces.Dict(box) for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(self.max_actions) for a in self.possible_agents}
        referee = encoding(self.game, referee=True)
        self.state_space = spaces.Box(low=referee.low, high=referee.high, dtype=np.float32)
        self.vbr_state = None
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def _encodings(self) -> None:
        """The observation encoding of the game (made once per game, vbr.rl.observation.encoding)."""
        self.encoding = encoding(self.game)
        if self.observe_options:
            self.encoding.option_layout()

    def __getstate__(self) -> dict:
        """Everything but the encoding, whose value encoders are closures: unpickling makes it
        again from the game (which pickles as its rule file, vbr.engines.game.Game)."""
        out = dict(self.__dict__)
        del out["encoding"]
        return out

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._encodings()

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self._observation_spaces[self._known(agent)]

    def action_space(self, agent):
        return self._action_spaces[self._known(agent)]

    def _known(self, agent) -> str:
        if agent not in self._action_spaces:
            raise UsageError(f"{agent!r} is not an agent of this game: its agents are {', '.join(self.possible_agents)}")
        return agent

    # ------------------------------------------------------------------ the AEC cycle
    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game. `options` is accepted for PettingZoo's API and ignored: the rule file's
        options are fixed when the environment is made."""
        if seed is not None:
            self._seed, self._played = _check_seed(seed), 0
        game_seed = self._seed if self._played == 0 else derive(self._seed, self._played) >> 1
        self._played += 1
        self.vbr_state = self.game.new_state(game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._settle()
        self._accumulate_rewards()  # a game over in its setup has its returns already
        if self.render_mode == "human":
            self.render()

    def step(self, action):
        self._playing("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.vbr_state
        r = reader(st)
        at = self._position(r, action, f"{agent}: ")
        after = st.clone()
        after.apply_index(at)  # a step stopped by an error of the rules raises, and the game stays as it was
        self.ids.check(after)  # ... and so does one that comes to a choice too large for the action space
        self.vbr_state = after
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._settle()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True):
        self._playing("last()")
        return super().last(observe)

    def _playing(self, what: str) -> None:
        """A usage error unless a game has been reset and has agents left to act: once the game is
        over and every agent has taken its `None` step, none is left, until `reset()`."""
        if self.vbr_state is None:
            raise UsageError(f"call reset() before {what}")
        if not self.agents:
            raise UsageError(f"the game is over and every agent has left it: call reset() before {what}")

    def _position(self, r, action, who: str = "") -> int:
        """The position among the pending options of the one whose id is `action` (an int, or a
        numpy integer); an IllegalActionError for anything else, and once the game is over."""
        options = r.options()
        legal = ", ".join(map(str, self.ids.legal(options)))
        if r.chooser is None:
            raise IllegalActionError(f"{who}action {action!r} is not legal here: the game is over")
        try:
            a = int(action)
        except (TypeError, ValueError, OverflowError):
            raise IllegalActionError(f"{who}{action!r} is not an action (legal: {legal})") from None
        at = self.ids.position(options, a) if a == action else None
        if at is None:
            raise IllegalActionError(f"{who}action {action!r} is not legal here; the choice `{r.prompt()}` "
                                     f"has actions {legal} (see the action_mask)")
        return at

    def _settle(self) -> None:
        """After a move: either the game is over (rewards, every agent terminated) or a seat is
        to choose, among no more options than the action space holds."""
        st = self.vbr_state
        if st.is_terminal():
            for a, r in zip(self.possible_agents, common.seat_returns(st)):
                if a in self.rewards:
                    self.rewards[a] = r
                    self.terminations[a] = True
            return
        self.ids.check(st)
        self.agent_selection = self.possible_agents[reader(st).chooser]

    def observe(self, agent):
        seat = self.possible_agents.index(self._known(agent))
        mask = np.zeros(self.max_actions, dtype=np.int8)
        st = self.vbr_state
        if st is None:
            raise UsageError("call reset() before observe()")
        r = reader(st)
        offered = r.options() if r.chooser == seat else ()
        mask[self.ids.of(offered)] = 1
        obs = {"observation": observation_tensor(st, seat), "action_mask": mask}
        if self.observe_options:
            obs["options"] = self.ids.rows(self.encoding.option_features(st, seat, self.max_actions), offered)
        return obs

    def state(self) -> np.ndarray:
        """The referee's view of the game being played, for centralised training: what every seat
        sees and what none does (face-down cards included), in `state_space`. Never give it to a
        seat's policy: `observe(agent)` is what that seat may see."""
        if self.vbr_state is None:
            raise UsageError("call reset() before state()")
        return state_tensor(self.vbr_state)

    # ------------------------------------------------------------------ for people
    def action_text(self, action: int) -> str:
        """The rule file's text of an action of the seat to choose (`forward`, `#17`, `pass`)."""
        if self.vbr_state is None:
            raise UsageError("call reset() before action_text()")
        r = reader(self.vbr_state)
        return r.option_text(self._position(r, action))

    def render(self):
        if self.render_mode is None:
            return None
        out = common.public_text(self.vbr_state) if self.vbr_state is not None else "(not reset)"
        if self.render_mode == "ansi":
            return out
        print(out)
        return None

    def close(self):
        pass


def _check_seed(seed) -> int:
    """`seed` as a Python int (numpy's integers overflow in the seeds' 64-bit arithmetic), when it
    is a whole number in 0..2**63-1; else a UsageError."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 63:
        raise UsageError(f"a seed is a whole number in 0..2**63-1, not {seed!r}")
    return int(seed)
