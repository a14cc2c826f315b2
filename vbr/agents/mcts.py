"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS; Cowling, Powley & Whitehouse,
"Information Set Monte Carlo Tree Search", 2012).

The agent may not know the hidden cards, so each iteration searches a different imagined world
(`view.imagine`: hidden zones re-dealt, dice reseeded) and all of them share one tree. The tree is
keyed by the choices made, not by what the dice did, so it is open-loop over chance: each world
rolls its own dice and the statistics average over them. A node reached in a world where some of
its siblings are not legal must not be compared with them as if they had been: each child counts
how often it was *available*, and that, not its parent's visits, goes under the log of the UCB
bound (`mean + c * sqrt(ln(available) / visits)`).

How choices are keyed: a plain value (a direction, a number, a cell, `pass`) by itself; a card or
piece by its id where the id means the same thing in every world (it lay in a zone the seat can
see when the search began), otherwise by what it is (its kind and fields), because a re-deal
gives a hidden card a different id in every world and the opponent's "plays a 5" should be one
branch, not one per id. The root's children are keyed by option index instead: the answer is an
index into the real choice, and an imagined world's i-th option is its version of the real i-th.

Rewards are per side (team): a win 1, a loss 0, a draw 0.5; each node keeps the mean reward of
the side that chose it, so every mover maximizes its own side's. With `depth`, a playout that has
not ended after that many choices is scored by the points lead: 0.5 + 0.5 * tanh(lead / 2), where
lead is the side's points minus the best other side's (a lead of 2 is worth about 0.88).

Playouts are uniformly random. A one-step greedy playout (each option tried on a copy, the best
immediate result kept) was tried here and dropped: 5 to 10 times slower per iteration, and weaker
at the same thinking time (Siatka 5/20, Volleyball High 2/16 against random playouts).

The spec's other parameters (`reward`, `rollout=greedy`, `greedy_moves`, `worlds`, `widen`, `tree`,
`inner_c`, `spread_playouts`, `budget`, `cut`, `spread_scale`, `extend`, `confidence`) are the typed
engines' search settings (vbr/engines/python_search.py). This agent plays win/loss rewards (whatever `reward` says), random
playouts, one open-loop tree, one UCB constant, no widening and exactly `iterations` per decision,
and refuses a spec that asks for any other of those (CLOSURE_PLAYS).
"""
from __future__ import annotations

import math

from vbr.agents.base import Agent, SeatView
from vbr.agents.spec import AGENTS
from vbr.errors import UsageError
from vbr.values import Ent

LEAD_SCALE = 2.0  # points of lead that make a cut-off playout worth tanh(1) above even


class _Node:
    __slots__ = ("children", "visits", "total", "available", "side")

    def __init__(self, side: int):
        self.children: dict = {}
        self.visits = 0
        self.total = 0.0
        self.available = 1
        self.side = side  # the team of the seat whose choice leads here


class MctsAgent(Agent):
    """Searches a fixed number of iterations, never a time budget, so that a seeded game is the
    same game on every machine; every random draw comes from the agent's own stream."""

    name = "mcts"
    params = AGENTS["mcts"].params
    # what this agent plays whatever the typed engines' parameters above say: a setting other than
    # its default and other than this is refused, so that no spec asks the closure engine in vain
    CLOSURE_PLAYS = {"rollout": "random", "reward": "win", "greedy_moves": 0, "worlds": 1, "widen": 0.0,
                     "tree": "open", "inner_c": 0.0, "spread_playouts": 0, "budget": 0,
                     "cut": "lead", "spread_scale": 1.5, "extend": 1.0, "confidence": 1.0}

    def __init__(self, seat: int, seed: int, **settings):
        super().__init__(seat, seed, **settings)
        defaults = {p.name: p.default for p in self.params}
        for name, plays in self.CLOSURE_PLAYS.items():
            value = getattr(self, name)
            if value != defaults[name] and value != plays:
                raise UsageError(f"mcts: {name}={value} runs only in the typed engines (--engine python or c); "
                                 f"the closure engine's mcts plays {name}={plays}")

    _root_options = None  # the options a search may take at its root (SeatView.candidates)

    def act(self, view: SeatView) -> int:
        n = view.option_count()
        if n == 1:
            return 0
        self._root_options = view.candidates()  # a restricted seat searches only what it may take
        root = _Node(-1)
        world = view.imagine(self.seed())
        self._prepare(world)
        for it in range(self.iterations):
            if it:
                world = view.imagine(self.seed())
            self._iterate(root, world)
        return self._most_visited(root, n)

    # ------------------------------------------------------------------ one search
    def _prepare(self, world) -> None:
        """Tables for this search: ids of cards hidden from the seat, and each side's rewards."""
        prog = world.prog
        self._team_of = prog.team_of
        self._hidden = frozenset(e for z in world.hidden_zones(self.seat) for e in world.zones[z])
        teams = len(prog.teams)
        self._wins = [[1.0 if t == w else 0.0 for t in range(teams)] for w in range(teams)]
        self._draw = [0.5] * teams
        self._bits = self.rng.getrandbits

    def _iterate(self, root: _Node, world) -> None:
        path = self._descend(root, world)
        rewards = self._playout(world)
        for node in path:
            node.visits += 1
            node.total += rewards[node.side]

    def _descend(self, root: _Node, world) -> list[_Node]:
        """Select by UCB while every legal child has been tried, then add one untried child."""
        p = world.pending
        node = self._root_step(root, world, p.seat, len(p.options))
        path = [node]
        while world.result is None and node.visits:
            p = world.pending
            if len(p.options) == 1:
                world.apply_index(0)  # a forced choice is no decision: no node
                continue
            node = self._step(node, world, p.seat, p.options)
            path.append(node)
        return path

    def _root_step(self, root: _Node, world, seat: int, n: int) -> _Node:
        options = self._root_options if self._root_options is not None else range(n)
        return self._choose(root, world, seat, {i: i for i in options if i < n})

    def _step(self, node: _Node, world, seat: int, options) -> _Node:
        keys: dict = {}
        hidden, kind, ent = self._hidden, world.kind, world.ent
        for i, v in enumerate(options):
            if isinstance(v, Ent):
                k = (kind[v], tuple(ent[v])) if v in hidden else ("#", int(v))
            else:
                k = v
            keys.setdefault(k, i)
        return self._choose(node, world, seat, keys)

    def _choose(self, node: _Node, world, seat: int, keys: dict) -> _Node:
        """Apply the chosen option to `world` and return its child: an untried one first (in a
        random order), else the best UCB bound among those legal here."""
        children = node.children
        legal, untried = [], []
        for k, i in keys.items():
            child = children.get((seat, k))
            if child is None:
                untried.append((k, i))
            else:
                child.available += 1
                legal.append((child, i))
        if untried:
            k, i = untried[(self._bits(64) * len(untried)) >> 64]
            child = children[(seat, k)] = _Node(self._team_of[seat])
        else:
            child, i = max(legal, key=self._ucb)
        world.apply_index(i)
        return child

    def _ucb(self, pair) -> float:
        child = pair[0]
        return child.total / child.visits + self.c * math.sqrt(math.log(child.available) / child.visits)

    def _most_visited(self, root: _Node, n: int) -> int:
        visits = [0] * n
        for (_, i), child in root.children.items():
            if i < n:  # an imagined world should offer the real options; if not, its extras are no answer
                visits[i] = child.visits
        options = self._root_options if self._root_options is not None else range(n)
        top = max(visits[i] for i in options)
        best = [i for i in options if visits[i] == top]
        return best[self.below(len(best))]

    # ------------------------------------------------------------------ playouts
    def _playout(self, world) -> list[float]:
        bits = self._bits
        apply = world.apply_index
        left = self.depth or -1
        while world.result is None:
            if left == 0:
                return self._estimate(world)
            left -= 1
            apply((bits(64) * len(world.pending.options)) >> 64)
        return self._rewards(world.result)

    def _rewards(self, outcome) -> list[float]:
        return self._draw if outcome.team is None else self._wins[outcome.team]

    def _estimate(self, world) -> list[float]:
        """A playout cut short: each side's reward from its points lead (see the module's notes)."""
        lead = _team_points(world)
        if lead is None:
            return self._draw
        out = []
        for t, p in enumerate(lead):
            best_other = max((q for u, q in enumerate(lead) if u != t), default=p)
            out.append(0.5 + 0.5 * math.tanh((p - best_other) / LEAD_SCALE))
        return out


def _team_points(world) -> list | None:
    """Points per team, whether the rules count them per team or per seat; None without points."""
    pts = world.points()
    prog = world.prog
    if not pts:
        return None
    if len(pts) == len(prog.teams):
        return list(pts)
    if len(pts) == prog.seats:
        total = [0] * len(prog.teams)
        for seat, p in enumerate(pts):
            total[prog.team_of[seat]] += p
        return total
    return None
