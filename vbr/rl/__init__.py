"""Any rule file as a reinforcement-learning environment: PettingZoo (AEC) and OpenSpiel.

    import vbr.rl
    env = vbr.rl.pettingzoo_env("siatka", options={"abilities": True})
    name = vbr.rl.register_openspiel("siatka")          # then pyspiel.load_game(name)
    x = vbr.rl.observation_tensor(state, seat)          # numpy float32, fixed shape per rule file
    s = vbr.rl.state_tensor(state)                      # the referee's view, for a centralised critic

They need the optional extra (`pip install 'vbr[rl]'`); without it, each of these raises a
`UsageError` that says so. docs/rl.md describes the observation layout and the game types.
"""
from __future__ import annotations

import importlib

from vbr.errors import UsageError

INSTALL_HINT = "pip install 'vbr[rl]'"


def require(module: str, what: str):
    """Import `module`, or say which extra is missing and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(f"{what} needs the optional package {exc.name or module!r}, which is not installed; "
                         f"install the rl extra: {INSTALL_HINT}") from None


def observation_tensor(state, seat: int):
    """What `seat` may see of `state`, as a numpy float32 vector (docs/rl.md, "Observations")."""
    require("numpy", "vbr.rl.observation_tensor")
    from vbr.rl.observation import observation_tensor as f
    return f(state, seat)


def state_tensor(state):
    """The referee's view of `state`, everything included (what no seat may see too), as a numpy
    float32 vector: the global state of centralised training (docs/rl.md, "The global state")."""
    require("numpy", "vbr.rl.state_tensor")
    from vbr.rl.observation import state_tensor as f
    return f(state)


def observation_shape(game) -> tuple[int]:
    """The shape of every observation tensor of a loaded game (`vbr.load(...)`)."""
    require("numpy", "vbr.rl.observation_shape")
    from vbr.rl.observation import observation_shape as f
    return f(game)


def pettingzoo_env(rule_file, options: dict | None = None, **settings):
    """A PettingZoo AEC environment playing `rule_file` (a path or a bundled name), one agent per
    seat (`seat_0`, ...). Settings: `seed`, `render_mode` ("human" or "ansi"), `max_actions`,
    `observe_options` (add what each option is to the observation)."""
    require("numpy", "vbr.rl.pettingzoo_env")
    require("gymnasium", "vbr.rl.pettingzoo_env")
    require("pettingzoo", "vbr.rl.pettingzoo_env")
    from vbr.rl.pettingzoo_adapter import VbrAECEnv
    return VbrAECEnv(rule_file, options, **settings)


def register_openspiel(rule_file, options: dict | None = None, name: str | None = None, **settings) -> str:
    """Register `rule_file` as an OpenSpiel Python game and return its short name, for
    `pyspiel.load_game(name)`; every roll, pick and shuffle is a chance node. Settings:
    `max_actions`, `max_chance_outcomes` (raise the bound on one draw's outcomes),
    `observe_options` (append what each option is to the observation tensor), `engine` (the
    typed engine that plays it: "python", the default, or "c")."""
    require("numpy", "vbr.rl.register_openspiel")
    require("pyspiel", "vbr.rl.register_openspiel")
    from vbr.rl.openspiel_game import register
    return register(rule_file, options, name=name, **settings)


__all__ = ["pettingzoo_env", "register_openspiel", "observation_tensor", "observation_shape", "state_tensor",
           "INSTALL_HINT"]
