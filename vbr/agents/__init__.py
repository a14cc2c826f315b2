"""Agents pick among the legal choices the engine generates; they see only what their seat may see.

An agent gets a `SeatView`, never the state itself: the legal actions, the seat's observation,
and (for lookahead) `imagine()`, a copy of the state in which everything hidden from the seat has
been dealt anew. Agents are named by specs (`mcts:iterations=400`; vbr/agents/spec.py).
"""
from __future__ import annotations

from vbr.agents.base import Agent, SeatView
from vbr.agents.mcts import MctsAgent
from vbr.agents.simple import FirstAgent, GreedyAgent, RandomAgent
from vbr.agents.spec import AgentSpecError, describe_agents, parse_agent, parse_agent_list

AGENTS = {"random": RandomAgent, "first": FirstAgent, "greedy": GreedyAgent, "mcts": MctsAgent}


def make_agent(spec: str, seat: int, seed: int) -> Agent:
    """An agent from its spec (`greedy`, `mcts:iterations=400`), its parameters checked."""
    name, params = parse_agent(spec)
    return AGENTS[name](seat, seed, **params)


__all__ = ["AGENTS", "Agent", "AgentSpecError", "SeatView", "describe_agents", "make_agent", "parse_agent",
           "parse_agent_list"]
