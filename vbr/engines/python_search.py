"""Determinization and information-set Monte Carlo tree search over the typed engines' states.

This module is the reference; vbr/engines/c_search.h is the same search in C, and for the same
state, seat, parameters and seed both give the same words (`determinize`) and the same option
(`mcts_choice`; `mcts_visits` also gives the root's visits per option). The functions take
either engine (PythonEngine or CEngine): they read and write the state's words and call the
engine's `apply`.

Determinization (`determinize(engine, words, seat, seed)`): a copy of the state in which every
thing `seat` may not look into (the zones of `Program.hidden[seat]`) is dealt anew. Hidden things
of one kind and one side (`Program.zone_side`) form a pool: its places are taken zone by zone in
increasing zone order, each zone's from the bottom up; its things are shuffled (Fisher-Yates from
the last down: position i swaps with a draw below i + 1) and then dealt in reverse order of the
shuffled list into the places in order, pools in the order their first place was met. Each thing
dealt gets its new zone. The draws come from a stream seeded by `seed` with key "determinize";
then every random stream k of the copy restarts from `first_state(seed, key(streams[k]))`.

The search is SO-ISMCTS as vbr/agents/mcts.py describes it: every iteration imagines a world, all
worlds share one tree keyed by the choices made (open-loop over chance), a child counts how often
it was available and UCB is `mean + c * sqrt(ln(available) / visits)`, the first of equal bounds
(in option order) taken. An option's key: at the root, its index; elsewhere a thing by its id when
it was visible to the searching seat at the root, a thing that was hidden then by its kind and its
fields (all `width` words), any other value by itself; a node's children are told apart by the
chooser's seat and that key. A choice with a single option makes no node (in a playout it still
counts towards `depth`). Rewards per team: a win 1, a loss 0, a draw 0.5; with `depth` > 0 a
playout still running after `depth` choices is scored by each team's points lead over the best
other team, 0.5 + 0.5 * tanh(lead / 2) (points kept per seat are summed by team; no points: a
draw). The answer is the root's most visited option.

Every draw comes from one agent stream, `first_state(seed, key("mcts"))`, in this order:
  1. each iteration: a 64-bit word (`next_word`), the seed of that iteration's world;
  2. at a node with untried options (in option order, first of each key): one draw below their
     number picks the option to add (no draw when only one is untried);
  3. each playout choice of n > 1 options: a draw below n (a single option is taken undrawn);
  4. at the end, when several root options share the most visits: a draw below their number.
`mcts_choice` at a root choice of a single option returns 0 with no draw and no search. A child's rewards are
added in iteration order, so both languages sum the same doubles. A fault in an imagined world
stops the search with that fault (EngineFault here; the C engine reports it the same way).
"""
from __future__ import annotations

import math

from vbr.engines.python_runtime import EngineFault
from vbr.ir import random_streams as R
from vbr.ir.layout import CHOICE, FAULT, Header as H
from vbr.ir.values import NONE

LEAD_SCALE = 2.0
DETERMINIZE_KEY = R.key("determinize")
MCTS_KEY = R.key("mcts")
ROOT, PLAIN, SEEN, HIDDEN = 3, 0, 1, 2  # the tags of an option's key


def copy_words(engine, words):
    """A copy of a state's words in the engine's own form (a list, or a C array)."""
    return engine.copy(words) if hasattr(engine, "copy") else list(words)


def determinize(engine, words, seat: int, seed: int):
    """A copy of `words` with what `seat` cannot see dealt anew and every stream reseeded (see above)."""
    if not 0 <= seat < engine.program.seats:
        raise ValueError(f"no seat {seat}: the game has {engine.program.seats}")
    S = copy_words(engine, words)
    redeal(engine.program, S, seat, seed, stream_keys(engine.program))
    return S


def stream_keys(p) -> list[int]:
    return [R.key(where) for where in p.streams]


def redeal(p, S, seat: int, seed: int, keys: list[int]) -> None:
    """Determinize the state S in place; `keys` are the program's stream keys."""
    lay = p.layout
    state = R.first_state(seed, DETERMINIZE_KEY)
    pools: dict[tuple[int, int], list[tuple[int, int]]] = {}  # (kind, side) -> its places (word, zone)
    for z in p.hidden[seat]:
        at = lay.zone(z)
        side = p.zone_side[z]
        for w in range(at + 1, at + 1 + S[at]):
            pools.setdefault((S[lay.kinds + S[w]], side), []).append((w, z))
    for places in pools.values():
        items = [S[w] for w, _ in places]
        for i in range(len(items) - 1, 0, -1):
            state, j = R.below(state, i + 1)
            items[i], items[j] = items[j], items[i]
        items.reverse()
        for (w, z), e in zip(places, items):
            S[w] = e
            S[lay.zone_of + e] = z
    for k, key in enumerate(keys):
        S[lay.streams + k] = R.signed(R.first_state(seed, key))


class _Node:
    __slots__ = ("children", "visits", "total", "available", "side")

    def __init__(self, side: int):
        self.children: dict = {}
        self.visits = 0
        self.total = 0.0
        self.available = 1
        self.side = side  # the team of the seat whose choice leads here


def mcts_choice(engine, words, seat: int, iterations: int, c: float, depth: int, seed: int) -> int:
    """The option `seat` takes at the pending choice of `words` after `iterations` iterations."""
    if words[H.STATUS] == CHOICE and words[H.NOPTS] == 1:
        return 0
    return mcts_visits(engine, words, seat, iterations, c, depth, seed)[0]


def mcts_visits(engine, words, seat: int, iterations: int, c: float, depth: int,
                seed: int) -> tuple[int, list[int]]:
    """The same search, run even for a single option: (the option, the root's visits per option)."""
    if words[H.STATUS] != CHOICE:
        raise ValueError("mcts needs a state waiting for a choice")
    if not 0 <= seat < engine.program.seats:
        raise ValueError(f"no seat {seat}: the game has {engine.program.seats}")
    search = _Search(engine, words, seat, c, depth, seed)
    for _ in range(iterations):
        search.iterate()
    return search.most_visited(int(words[H.NOPTS]))


class _Search:
    def __init__(self, engine, words, seat: int, c: float, depth: int, seed: int):
        self.engine, self.words, self.seat, self.c, self.depth = engine, words, seat, float(c), depth
        p = self.p = engine.program
        lay = p.layout
        self.agent = R.first_state(seed, MCTS_KEY)
        self.streams = stream_keys(p)
        self.root = _Node(-1)
        self.hidden = {int(words[at + 1 + i]) for at in map(lay.zone, p.hidden[seat]) for i in range(words[at])}
        self.team_of = [0] * p.seats
        for t, seats in enumerate(p.teams):
            for s in seats:
                self.team_of[s] = t
        teams = len(p.teams)
        self.wins = [[1.0 if t == w else 0.0 for t in range(teams)] for w in range(teams)]
        self.draw = [0.5] * teams
        self.thing_sites = [site.item.startswith("ent") for site in p.choices]

    def draw_below(self, n: int) -> int:
        self.agent, v = R.below(self.agent, n)
        return v

    def iterate(self) -> None:
        self.agent, world_seed = R.next_word(self.agent)
        world = copy_words(self.engine, self.words)
        redeal(self.p, world, self.seat, world_seed, self.streams)
        path = self.descend(world)
        rewards = self.playout(world)
        for node in path:
            node.visits += 1
            node.total += rewards[node.side]

    def apply(self, world, i: int) -> None:
        self.engine.apply(world, i)
        if world[H.STATUS] == FAULT:
            raise EngineFault(int(world[H.FAULT]), int(world[H.FAULT_A]), int(world[H.FAULT_B]))

    def descend(self, world) -> list[_Node]:
        """Select by UCB while every legal child has been tried, then add one untried child."""
        n = int(world[H.NOPTS])
        node = self.choose(self.root, world, {(ROOT, i): i for i in range(n)})
        path = [node]
        while world[H.STATUS] == CHOICE and node.visits:
            if world[H.NOPTS] == 1:
                self.apply(world, 0)
                continue
            node = self.choose(node, world, self.keys(world))
            path.append(node)
        return path

    def keys(self, world) -> dict:
        """Each distinct option key of the pending choice and the first option that has it."""
        lay = self.p.layout
        at, n = lay.options, int(world[H.NOPTS])
        things = self.thing_sites[world[H.SITE]]
        keys: dict = {}
        for i in range(n):
            v = int(world[at + i])
            if not things or v == NONE:
                k = (PLAIN, v)
            elif v in self.hidden:
                f = lay.fields + v * lay.width
                k = (HIDDEN, int(world[lay.kinds + v]), *(int(x) for x in world[f:f + lay.width]))
            else:
                k = (SEEN, v)
            keys.setdefault(k, i)
        return keys

    def choose(self, node: _Node, world, keys: dict) -> _Node:
        """Apply the chosen option to `world` and return its child: an untried one first (a draw
        among them), else the first best UCB bound among those legal here."""
        seat = int(world[H.SEAT])
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
            k, i = untried[self.draw_below(len(untried)) if len(untried) > 1 else 0]
            child = children[(seat, k)] = _Node(self.team_of[seat])
        else:
            child, i = legal[0]
            best = self.ucb(child)
            for other, j in legal[1:]:
                u = self.ucb(other)
                if u > best:
                    child, i, best = other, j, u
        self.apply(world, i)
        return child

    def ucb(self, child: _Node) -> float:
        return child.total / child.visits + self.c * math.sqrt(math.log(child.available) / child.visits)

    def playout(self, world) -> list[float]:
        left = self.depth or -1
        while world[H.STATUS] == CHOICE:
            if left == 0:
                return self.estimate(world)
            left -= 1
            n = int(world[H.NOPTS])
            self.apply(world, self.draw_below(n) if n > 1 else 0)
        team, w = int(world[H.WINNER_TEAM]), int(world[H.WINNER])
        if team:  # a team as a whole won: its index + 1
            return self.wins[team - 1]
        return self.draw if w == NONE else self.wins[self.team_of[w]]

    def estimate(self, world) -> list[float]:
        """A playout cut short: each team's reward from its points lead."""
        lead = self.team_points(world)
        if lead is None:
            return self.draw
        out = []
        for t, p in enumerate(lead):
            best_other = max((q for u, q in enumerate(lead) if u != t), default=p)
            out.append(0.5 + 0.5 * math.tanh((p - best_other) / LEAD_SCALE))
        return out

    def team_points(self, world) -> list[int] | None:
        p = self.p
        if p.points is None or not p.points[1]:
            return None
        base, count = p.points
        at = p.layout.vars + base
        pts = [int(x) for x in world[at:at + count]]
        if count == len(p.teams):
            return pts
        if count == p.seats:
            total = [0] * len(p.teams)
            for seat, x in enumerate(pts):
                total[self.team_of[seat]] += x
            return total
        return None

    def most_visited(self, n: int) -> tuple[int, list[int]]:
        visits = [0] * n
        for (_, k), child in self.root.children.items():
            if k[1] < n:
                visits[k[1]] = child.visits
        top = max(visits)
        best = [i for i, v in enumerate(visits) if v == top]
        return (best[self.draw_below(len(best))] if len(best) > 1 else best[0]), visits
