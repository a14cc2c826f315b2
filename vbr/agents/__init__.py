"""Agents pick among the legal choices the engine generates; they see only what their seat may see.

An agent gets a `SeatView`, never the state itself: the legal actions, the seat's observation,
and (for lookahead) `imagine()`, a copy of the state in which everything hidden from the seat has
been dealt anew.
"""
from __future__ import annotations

from vbr.agents.base import Agent, SeatView
from vbr.agents.simple import FirstAgent, GreedyAgent, RandomAgent

AGENTS = {"random": RandomAgent, "first": FirstAgent, "greedy": GreedyAgent}


def make_agent(name: str, seat: int, seed: int) -> Agent:
    try:
        cls = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r} (agents: {', '.join(AGENTS)})") from None
    return cls(seat, seed)


__all__ = ["AGENTS", "Agent", "SeatView", "make_agent"]
