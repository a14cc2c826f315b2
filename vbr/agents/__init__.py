"""Agents by name: specs (`mcts:iterations=400`; vbr/agents/spec.py) naming the agents vbr plays
(`AGENTS`: each one's summary and settings), which the typed engines play (vbr.play.typed_decision,
vbr/engines/python_search.py, vbr/engines/c_search.h).

`Agent`, `SeatView` and `make_agent` are the closure engine's agents (vbr/agents/base.py,
simple.py, mcts.py), loaded only when one of them is asked for.
"""
from __future__ import annotations

from vbr.agents.spec import AGENTS, AgentSpecError, describe_agents, parse_agent, parse_agent_list

_CLOSURE = {"Agent": "vbr.agents.base", "SeatView": "vbr.agents.base", "make_agent": "vbr.agents.simple"}


def __getattr__(name: str):
    if name in _CLOSURE:
        from importlib import import_module
        return getattr(import_module(_CLOSURE[name]), name)
    raise AttributeError(f"module 'vbr.agents' has no attribute {name!r}")


__all__ = ["AGENTS", "AgentSpecError", "describe_agents", "parse_agent", "parse_agent_list"]
