"""Agents by name: specs (`mcts:iterations=400`; vbr/agents/spec.py) naming the agents vbr plays
(`AGENTS`: each one's summary and settings). The engines play them: vbr.play.typed_decision, with
the search in vbr/engines/python_search.py and vbr/engines/c_search.c.
"""
from __future__ import annotations

from vbr.agents.spec import AGENTS, AgentSpecError, describe_agents, parse_agent, parse_agent_list

__all__ = ["AGENTS", "AgentSpecError", "describe_agents", "parse_agent", "parse_agent_list"]
