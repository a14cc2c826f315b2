"""Determinization and information-set Monte Carlo tree search over the typed engines' states.

This module is the reference; vbr/engines/c_search.c is the same search in C, and for the same
state, seat, parameters and seed both give the same words (`determinize`) and the same option
(`mcts_choice`; `mcts_visits` also gives the root's visits per option). The functions take
either engine (PythonEngine or CEngine): they read and write the state's words and call the
engine's `apply`.

Determinization (`determinize(engine, words, seat, seed)`): a copy of the state in which every
thing `seat` may not look into (the zones of `Program.hidden[seat]`) is dealt anew. Hidden things
of one kind and one side (`Program.zone_side`) form a pool, its things taken zone by zone in
increasing zone order, each zone's from the bottom up, pools in the order their first thing was
met. A pool's list of things is shuffled (Fisher-Yates from the last down: position i swaps with
a draw below i + 1) and reversed, and then its i-th thing (in place order) takes what the i-th of
that list held: its revealed flag and its fields (all `width` words). Every thing keeps its id
and its place; what it is moves. The draws come from a stream seeded by `seed` with key
"determinize"; then every random stream k of the copy restarts from
`first_state(seed, key(streams[k]))`.
So every word that names a thing (a pending choice's options, a var, a local of a paused frame, the
items a `for` or a `let` copied onto the stack, a field) names, after the deal, the thing in the
place it named before, whatever it now is: the options of a choice pending for another seat are
still what that seat's zone offers, and no word names the real card behind a hidden place. (The
same world as dealing the things themselves into the places, up to which id each bears; so a
hidden thing's id no longer tells what it is, as its order of creation does in play.) What the
deal does not redo: a relation the rules kept between a hidden thing and another (a field naming
it) follows the place, not the card; a condition a pending choice put on its items is not asked
again of the cards now in their places.

The search is SO-ISMCTS (single-observer information-set MCTS, Cowling, Powley and Whitehouse 2012):
every iteration imagines a world, all worlds share one tree, a child counts how often it was
available and UCB is `value + k * sqrt(ln(available) / visits)` (k: `c` at the root, `inner_c` below
it), the first of equal bounds (in option order) taken. An option's key: at the root, its index;
elsewhere a thing offered to the searching seat itself while it lies where that seat may not look
by its index among the options (the seat takes it unseen, by where it lies, not by what it is:
State.observation shows it as `hidden`); else a thing by its id when it was visible to the
searching seat at the root, by its kind and its fields (all `width` words) when it was hidden then
(another seat's choice among things it may see, as single-observer ISMCTS sees the other seats'
moves); any other value by itself. A node's children are told apart by the chooser's seat, that key and, with `tree=closed`,
what the searching seat observes of the world when the choice comes (`_Search.observe`; with
`tree=open` 0, so the tree is open-loop over chance). A choice with a single option makes no node
(in a playout it still counts towards `depth` and `greedy_moves`). The answer is the root's most visited option; `mcts_choice`
stops the search as soon as the most visited option leads every other by more than a bound on the
iterations left (over all trees: the iterations still owed plus the work still under the budget's
reach, budget * extend, each iteration adding at least one to the work), which cannot change the
answer; `mcts_visits` never stops early. With `among` (a restricted seat) the root has children for
those options only, so every iteration goes to them, and the answer is the most visited of them.

The settings (`SearchParams`, the `mcts` agent's parameters):
- `iterations`, `c`: iterations per decision (at least), the UCB constant at the root.
- `budget`: after `iterations`, a tree goes on iterating while its work is under its share of the
  budget (with `worlds`, shared as the iterations are); the work of an iteration is the steps
  its world counted (vbr.ir.steps: units started, loop heads reached) and the choices it made,
  from the root's state to the playout's end (`Header.STEPS` and `Header.CHOICES`, counted
  alike by both engines), so cheap iterations buy more of them and the decision is the same on
  any machine. 0: exactly `iterations`. A greedy playout's trial copies and the spread playouts
  are not counted.
- `extend`, `confidence`: past its budget a tree goes on, up to `extend` times the budget (its
  reach: int(budget * extend)), while its answer is not confident; whether it is, is asked after
  every CONFIDENCE_EVERY-th iteration (by the tree's count) once the iterations and the budget are
  spent. Confident: the root's most visited option (the first in option order among the most
  visited) leads every other root child's mean reward by more than `confidence` standard errors
  of the difference, every root child visited at least twice (a child's standard error from its
  rewards' sum and sum of squares: sqrt(max(0, (squares / visits - mean^2) / (visits - 1)))). So the
  budget goes where two options are close; extend=1: exactly the budget.
- `inner_c`: the UCB constant below the root (0: `c`). Exploring there makes a node's mean the
  mean of exploratory play, which misjudges the root's options (in Pig, an opponent who hands the
  dice back for nothing flatters `hold`); a small one keeps the means near best play.
- `tree`: `open` or `closed` (see above).
- `worlds`: the iterations are shared among that many trees searched one after the other (the
  first `iterations % worlds` trees one more), and the answer is the option most visited over all.
- `widen` (progressive widening): 0 adds every untried option of a node before UCB chooses among
  the tried ones; w > 0 adds an untried one only while the node has fewer than
  floor((visits + 1) ** w) children (the root's visits: the iterations so far), or when no tried
  one is legal in this world.
- `rollout`: a playout choice of n > 1 options is `random` (a draw below n), or `greedy` for the
  playout's first `greedy_moves` choices (0: all of them) and random after: each option is applied
  to a copy of the world whose random streams all restart from one new seed (stream k from
  `first_state(seed, key(streams[k]))`, the same for every option), and worth to the mover's team
  GREEDY_WIN for a won game, its negative for a lost one, 0 for a draw, else the team's points
  lead; the best worth is taken, a draw among equal ones.
- `depth`: 0 plays each playout to the end; d > 0 stops one after d choices.
- `reward`: per team, at a playout's end. `win`: a win 1, a loss 0, a draw 0.5; a playout cut by
  `depth` is worth 0.5 + 0.5 * tanh(lead / 2). `margin` (where the file keeps points): the mean of
  the outcome and the margin score m = 0.5 + 0.5 * tanh(lead / spread), a cut playout's outcome
  being m itself with cut=lead (its worth is then m) or 0.5 with cut=even; the spread is fixed by
  `spread_playouts` or, with none, the root mean square of the searching team's leads at the ends
  of this tree's playouts so far, this one included (at least 1), times `spread_scale` either way:
  a lead counts beside the leads this search meets, whatever a point is worth in the game. A
  team's points lead: its points minus the best other team's (points kept per seat are summed by
  team).
- `cut`: `lead` or `even` (see `reward`). Scoring a cut playout as even while a finished one
  scores its outcome makes a win inside the horizon worth far more than a lead as large that has
  not yet been cashed in, so the search takes risks to end the game early (in Pig, rolling on at
  97 instead of banking it); scoring it by its lead treats both alike.
- `spread_playouts`: with reward=margin in a file that keeps points, k > 0 fixes each tree's
  spread before its first iteration: k worlds imagined from the root (each seeded by a
  `next_word`) are played to the end uniformly at random (a draw below n at each choice of n > 1
  options), and the spread is the root mean square of how much the searching team's lead moved
  from the root to each end (at least 1), times `spread_scale`. 0: the spread of the leads met, as
  above.
- `spread_scale`: the factor on the spread (above); a larger one weighs a point of lead less.

Every draw comes from one agent stream, `first_state(seed, key("mcts"))`, in this order, tree after
tree:
  0. when the tree is made, its spread playouts' draws (see `spread_playouts`);
  1. each iteration: a 64-bit word (`next_word`), the seed of that iteration's world;
  2. at a node that adds a child (in option order, first of each key): one draw below the number of
     untried options picks it (no draw when only one is untried);
  3. each playout choice of n > 1 options: a random one a draw below n; a greedy one a `next_word`
     (the seed of its copies), then a draw below the number of equally best options if several;
  4. at the end, when several root options share the most visits: a draw below their number.
`mcts_choice` at a root choice of a single option (or `among` a single one) returns it with no
draw and no search. A child's rewards (and a root child's squares of them) are
added in iteration order, so both languages sum the same doubles. A fault in an imagined world
stops the search with that fault (EngineFault here; the C engine reports it the same way).
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass

from vbr.engines.python_runtime import EngineFault
from vbr.ir import random_streams as R
from vbr.ir.layout import CHOICE, FAULT, Header as H
from vbr.ir.observed_words import fixed_fields, observed_vars, thing_fields, thing_vars
from vbr.ir.values import NONE

LEAD_SCALE = 2.0
DETERMINIZE_KEY = R.key("determinize")
MCTS_KEY = R.key("mcts")
ROOT, PLAIN, SEEN, HIDDEN, UNSEEN = 3, 0, 1, 2, 4  # the tags of an option's key


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


def team_points(p, words) -> list[int] | None:
    """Each team's points in the state `words`: the points var as it is when kept per team, its
    seats' points summed per team when kept per seat; None when the file keeps no points."""
    if p.points is None or not p.points[1]:
        return None
    base, count = p.points
    at = p.layout.vars + base
    pts = [int(x) for x in words[at:at + count]]
    if p.points_by_team:
        return pts
    total = [0] * len(p.teams)
    for t, seats in enumerate(p.teams):
        for seat in seats:
            total[t] += pts[seat]
    return total


def stream_keys(p) -> list[int]:
    return [R.key(where) for where in p.streams]


def redeal(p, S, seat: int, seed: int, keys: list[int]) -> None:
    """Determinize the state S in place (see the module's docstring); `keys` are the program's stream keys."""
    lay, width = p.layout, p.layout.width
    state = R.first_state(seed, DETERMINIZE_KEY)
    pools: dict[tuple[int, int], list[int]] = {}  # (kind, side) -> its things, in place order
    for z in p.hidden[seat]:
        at = lay.zone(z)
        side = p.zone_side[z]
        for w in range(at + 1, at + 1 + S[at]):
            e = int(S[w])
            pools.setdefault((int(S[lay.kinds + e]), side), []).append(e)
    for things in pools.values():
        items = list(things)
        for i in range(len(items) - 1, 0, -1):
            state, j = R.below(state, i + 1)
            items[i], items[j] = items[j], items[i]
        items.reverse()
        contents = {e: (S[lay.revealed + e], S[lay.fields + e * width:lay.fields + (e + 1) * width]) for e in things}
        for e, source in zip(things, items):
            revealed, row = contents[source]
            S[lay.revealed + e] = revealed
            S[lay.fields + e * width:lay.fields + (e + 1) * width] = row
    for k, key in enumerate(keys):
        S[lay.streams + k] = R.signed(R.first_state(seed, key))


@dataclass(frozen=True)
class SearchParams:
    """The search's settings (the `mcts` agent's parameters in the typed engines; see the module's
    docstring for what each does). The defaults are the agent's defaults."""
    iterations: int = 200
    c: float = 0.7
    depth: int = 3
    reward: str = "margin"
    rollout: str = "random"
    greedy_moves: int = 0
    worlds: int = 1
    widen: float = 0.0
    tree: str = "closed"
    inner_c: float = 0.1
    spread_playouts: int = 8
    budget: int = 6000
    cut: str = "lead"
    spread_scale: float = 1.5
    extend: float = 4.0
    confidence: float = 1.0

    def __post_init__(self):
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {self.reward!r}")
        if self.rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, not {self.rollout!r}")
        if self.tree not in TREES:
            raise ValueError(f"tree must be one of {', '.join(TREES)}, not {self.tree!r}")
        if self.cut not in CUTS:
            raise ValueError(f"cut must be one of {', '.join(CUTS)}, not {self.cut!r}")
        if (self.iterations < 0 or self.depth < 0 or self.greedy_moves < 0 or self.worlds < 1 or not 0 <= self.widen <= 1
                or self.inner_c < 0 or self.spread_playouts < 0 or self.budget < 0 or self.spread_scale <= 0
                or self.extend < 1 or self.confidence < 0):
            raise ValueError(f"search parameters out of range: {self}")

    def numbers(self) -> list[float]:
        """The settings as the C search reads them (c_search.c, VbrParams): numbers in field order."""
        return [float(self.iterations), float(self.c), float(self.depth), float(REWARDS.index(self.reward)),
                float(ROLLOUTS.index(self.rollout)), float(self.greedy_moves), float(self.worlds), float(self.widen),
                float(TREES.index(self.tree)), float(self.inner_c), float(self.spread_playouts), float(self.budget),
                float(CUTS.index(self.cut)), float(self.spread_scale), float(self.extend), float(self.confidence)]


REWARDS = ("win", "margin")
ROLLOUTS = ("random", "greedy")
TREES = ("open", "closed")
CUTS = ("even", "lead")
CONFIDENCE_EVERY = 16  # past the budget, confidence is checked after every 16th iteration
OBSERVE_SEED = 0x1234567  # the observation hash's first state (tree=closed)
GREEDY_WIN = 1000.0  # a greedy playout choice's worth of a won game; a lost one is its negative


class _Node:
    __slots__ = ("children", "visits", "total", "squares", "available", "side")

    def __init__(self, side: int):
        self.children: dict = {}
        self.visits = 0
        self.total = 0.0
        self.squares = 0.0  # a root child's: the sum of its rewards' squares
        self.available = 1
        self.side = side  # the team of the seat whose choice leads here


def mcts_choice(engine, words, seat: int, params: SearchParams, seed: int, among: list[int] | None = None) -> int:
    """The option `seat` takes at the pending choice of `words` after the search `params` describe.
    The search stops early once the iterations left cannot change which option is most visited
    (so the answer is the full search's). `among`: the only options the root may take (a
    restricted seat; None: all); the search's iterations all go to them."""
    if words[H.STATUS] == CHOICE:
        allowed = root_options(int(words[H.NOPTS]), among)
        if len(allowed) == 1:
            return allowed[0]
    return _search_root(engine, words, seat, params, seed, settle=True, among=among)[0]


def mcts_visits(engine, words, seat: int, params: SearchParams, seed: int,
                among: list[int] | None = None) -> tuple[int, list[int]]:
    """The same search, run even for a single option and never stopped early: (the option, the
    root's visits per option, summed over the trees; 0 for an option not `among`)."""
    return _search_root(engine, words, seat, params, seed, settle=False, among=among)


def root_options(n: int, among: list[int] | None) -> list[int]:
    """The options a search may take at a root of n options: `among` in increasing order, as
    Python ints (numpy's integers taken as theirs), or all. Anything but a non-empty collection of
    option indices (a bool, a string, None, a position out of range) is a ValueError."""
    if among is None:
        return list(range(n))
    try:
        if isinstance(among, (str, bytes)) or any(isinstance(i, bool) for i in among):
            raise TypeError
        allowed = sorted({operator.index(i) for i in among})
    except TypeError:
        allowed = []
    if not allowed or allowed[0] < 0 or allowed[-1] >= n:
        raise ValueError(f"among must name some of the {n} options, not {among!r}")
    return allowed


def _search_root(engine, words, seat: int, params: SearchParams, seed: int, settle: bool,
                 among: list[int] | None = None) -> tuple[int, list[int]]:
    if words[H.STATUS] != CHOICE:
        raise ValueError("mcts needs a state waiting for a choice")
    if not 0 <= seat < engine.program.seats:
        raise ValueError(f"no seat {seat}: the game has {engine.program.seats}")
    n = int(words[H.NOPTS])
    allowed = root_options(n, among)
    agent = R.first_state(seed, MCTS_KEY)
    visits = [0] * n
    budgets = [params.budget // params.worlds + (t < params.budget % params.worlds) for t in range(params.worlds)]
    reach_all = sum(reach(b, params) for b in budgets)
    shares = reaches = 0  # the iterations and the work the trees so far and this one may reach
    for t in range(params.worlds):
        share = params.iterations // params.worlds + (t < params.iterations % params.worlds)
        budget = budgets[t]
        if not share and not budget:
            break
        most = reach(budget, params)
        shares, reaches = shares + share, reaches + most
        search = _Search(engine, words, seat, params, agent, allowed)
        stop = False
        while (search.iterations < share or search.work < budget
               or (search.work < most and (search.iterations % CONFIDENCE_EVERY or not search.confident()))):
            search.iterate()
            left = (max(0, share - search.iterations) + max(0, most - search.work)
                    + params.iterations - shares + reach_all - reaches)
            if settle and _settled([v + w for v, w in zip(visits, search.root_visits(n))], left):
                stop = True
                break
        for i, v in enumerate(search.root_visits(n)):
            visits[i] += v
        agent = search.agent
        if stop:
            break
    top = max(visits[i] for i in allowed)
    best = [i for i in allowed if visits[i] == top]
    if len(best) > 1:
        agent, pick = R.below(agent, len(best))
        return best[pick], visits
    return best[0], visits


def reach(budget: int, params: SearchParams) -> int:
    """The work a tree of `budget` may go on to while its answer is not confident: budget * extend."""
    return int(float(budget) * float(params.extend))


def _settled(visits: list[int], left: int) -> bool:
    """Whether the most visited option leads every other by more than `left`, a bound on the
    iterations left (each iteration's world makes at least the root's choice, so it adds at least
    one to the work)."""
    first = second = 0
    for v in visits:
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
    return first - second > left


def _mean_and_variance(node: _Node) -> tuple[float, float]:
    """A root child's mean reward and the variance of that mean (its rewards' sample variance over its visits)."""
    m = node.total / node.visits
    return m, (node.squares / node.visits - m * m) / (node.visits - 1)


class _Search:
    """One tree: its root, the agent stream it draws from, and the search's settings."""

    def __init__(self, engine, words, seat: int, params: SearchParams, agent: int, allowed: list[int] | None = None):
        self.engine, self.words, self.seat, self.params = engine, words, seat, params
        self.allowed = allowed if allowed is not None else list(range(int(words[H.NOPTS])))  # the root's options
        self.c, self.depth = float(params.c), params.depth
        self.inner_c = float(params.inner_c) if params.inner_c > 0 else self.c
        self.closed = params.tree == "closed"
        self.margin = params.reward == "margin"
        self.cut_lead = params.cut == "lead"
        self.spread_scale = float(params.spread_scale)
        self.greedy = params.rollout == "greedy"
        p = self.p = engine.program
        lay = p.layout
        self.agent = agent
        self.streams = stream_keys(p)
        self.root = _Node(-1)
        self.hidden = {int(words[at + 1 + i]) for at in map(lay.zone, p.hidden[seat]) for i in range(words[at])}
        self.zone_hidden = set(p.hidden[seat])
        self.var_words = observed_vars(p)
        self.thing_words, self.thing_lists = thing_vars(p)
        self.thing_fields = [frozenset(words) for words in thing_fields(p)]
        self.root_things = int(words[H.THINGS])  # made by the root: their fixed fields go with their ids
        self.seen_fields = [[i for i in range(lay.width) if not fixed >> i & 1] for fixed in fixed_fields(p)]
        self.team_of = [0] * p.seats
        for t, seats in enumerate(p.teams):
            for s in seats:
                self.team_of[s] = t
        teams = len(p.teams)
        self.wins = [[1.0 if t == w else 0.0 for t in range(teams)] for w in range(teams)]
        self.draw = [0.5] * teams
        self.thing_sites = [site.item.startswith("ent") for site in p.choices]
        self.root_team = self.team_of[seat]
        self.spread = [0, 0]  # the searching team's leads at playouts' ends: their count, their sum of squares
        self.iterations = 0
        self.work = 0  # the steps counted and the choices made by the iterations' worlds
        self.fixed_spread = self.spread_playouts(params.spread_playouts) if self.margin else None

    def draw_below(self, n: int) -> int:
        self.agent, v = R.below(self.agent, n)
        return v

    def next_word(self) -> int:
        self.agent, v = R.next_word(self.agent)
        return v

    def spread_playouts(self, k: int) -> float | None:
        """The margin reward's spread from k random playouts of the root to the game's end: the
        root mean square of the change in the searching team's lead (at least 1); None when k is 0
        or the file keeps no points (the spread is then the adaptive one)."""
        start = self.leads(self.words)
        if not k or start is None:
            return None
        squares = 0
        for _ in range(k):
            world = copy_words(self.engine, self.words)
            redeal(self.p, world, self.seat, self.next_word(), self.streams)
            while world[H.STATUS] == CHOICE:
                n = int(world[H.NOPTS])
                self.apply(world, self.draw_below(n) if n > 1 else 0)
            x = self.leads(world)[self.root_team] - start[self.root_team]
            squares += x * x
        return max(1.0, math.sqrt(squares / k)) * self.spread_scale

    def iterate(self) -> None:
        world_seed = self.next_word()
        world = copy_words(self.engine, self.words)
        redeal(self.p, world, self.seat, world_seed, self.streams)
        path = self.descend(world)
        rewards = self.playout(world)
        self.iterations += 1
        self.work += int(world[H.STEPS]) - int(self.words[H.STEPS]) + int(world[H.CHOICES]) - int(self.words[H.CHOICES])
        self.root.visits += 1
        for node in path:
            node.visits += 1
            node.total += rewards[node.side]
        r = rewards[path[0].side]
        path[0].squares += r * r

    def confident(self) -> bool:
        """Whether the root's most visited option (the first in option order of those most visited)
        leads every other root child in mean reward by more than `confidence` standard errors of the
        difference, each child visited at least twice."""
        children = sorted((k[1], child) for (_, k, _), child in self.root.children.items())
        if not children:
            return False
        a = max(children, key=lambda kc: (kc[1].visits, -kc[0]))[1]
        if a.visits < 2:
            return False
        ma, va = _mean_and_variance(a)
        for _, b in children:
            if b is a:
                continue
            if b.visits < 2:
                return False
            mb, vb = _mean_and_variance(b)
            if not ma - mb > self.params.confidence * math.sqrt(max(0.0, va) + max(0.0, vb)):
                return False
        return True

    def apply(self, world, i: int) -> None:
        self.engine.apply(world, i)
        if world[H.STATUS] == FAULT:
            raise EngineFault(int(world[H.FAULT]), int(world[H.FAULT_A]), int(world[H.FAULT_B]))

    def descend(self, world) -> list[_Node]:
        """Select by UCB while every legal child has been tried, then add one untried child."""
        node = self.choose(self.root, world, {(ROOT, i): i for i in self.allowed})
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
        mine = int(world[H.SEAT]) == self.seat
        keys: dict = {}
        for i in range(n):
            v = int(world[at + i])
            if not things or v == NONE:
                k = (PLAIN, v)
            elif mine and int(world[lay.zone_of + v]) in self.zone_hidden:
                k = (UNSEEN, i)
            elif v in self.hidden:
                f = lay.fields + v * lay.width
                k = (HIDDEN, int(world[lay.kinds + v]), *(int(x) for x in world[f:f + lay.width]))
            else:
                k = (SEEN, v)
            keys.setdefault(k, i)
        return keys

    def widened(self, node: _Node) -> int:
        """How many children `node` may have (progressive widening): floor((visits + 1) ** widen)."""
        return math.floor(math.pow(node.visits + 1, self.params.widen))

    def choose(self, node: _Node, world, keys: dict) -> _Node:
        """Apply the chosen option to `world` and return its child: an untried one first (a draw
        among them) while widening allows another child or no tried one is legal here, else the
        first best UCB bound among those legal here."""
        seat = int(world[H.SEAT])
        children = node.children
        root = node is self.root
        seen = self.observe(world) if self.closed and not root else 0
        legal, untried = [], []
        for k, i in keys.items():
            child = children.get((seat, k, seen))
            if child is None:
                untried.append((k, i))
            else:
                child.available += 1
                legal.append((child, i))
        grow = untried and (not legal or not self.params.widen or len(children) < self.widened(node))
        if grow:
            k, i = untried[self.draw_below(len(untried)) if len(untried) > 1 else 0]
            child = children[(seat, k, seen)] = _Node(self.team_of[seat])
        else:
            c = self.c if root else self.inner_c
            child, i = legal[0]
            best = self.ucb(child, c)
            for other, j in legal[1:]:
                u = self.ucb(other, c)
                if u > best:
                    child, i, best = other, j, u
        self.apply(world, i)
        return child

    def ucb(self, child: _Node, c: float) -> float:
        return child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)

    def observe(self, world) -> int:
        """tree=closed: what the searching seat observes of `world` (observed_words), hashed: the
        sum of mix(w ^ i·GAMMA) over its words w, the i-th from 1 (64-bit words), mixed once more
        after an exclusive or with OBSERVE_SEED. The terms are independent of one another, so C
        works them out side by side."""
        h = 0
        for i, w in enumerate(self.observed_words(world), 1):
            h += R.mix((int(w) ^ i * R.GAMMA) & R.MASK)
        return R.mix((h & R.MASK) ^ OBSERVE_SEED)

    def observed_words(self, world):
        """The words the searching seat observes of `world`, in order (vbr.ir.observed_words): the
        vars' words (a var holding a list: per slot its count, then its items), then zone by zone
        its count and, in a zone the seat may see, each thing (its id, or -1 - its kind for a thing
        hidden from the seat at the root) followed by its fields, but for a thing the root had and
        the seat saw there, not those no statement sets (fixed_fields: its id tells them); a word
        naming a thing (thing_vars, thing_fields) as `thing_seen` gives it."""
        lay, (plain, lists) = self.p.layout, self.var_words
        for w in range(plain):
            if self.thing_words[w]:
                yield self.thing_seen(world, int(world[lay.vars + w]))
            else:
                yield world[lay.vars + w]
        for (at, slots, cap), things in zip(lists, self.thing_lists):
            for t in range(slots):
                base = lay.vars + at + t * (1 + cap)
                yield world[base]
                items = world[base + 1:base + 1 + min(max(int(world[base]), 0), cap)]
                if things:
                    for e in items:
                        yield self.thing_seen(world, int(e))
                else:
                    yield from items
        everything = range(lay.width)
        for z in range(lay.nzones):
            at = lay.zone(z)
            count = int(world[at])
            yield count
            if z in self.zone_hidden:
                continue
            for w in range(at + 1, at + 1 + count):
                e = int(world[w])
                kind = int(world[lay.kinds + e])
                hidden = e in self.hidden
                yield -1 - kind if hidden else e
                f = lay.fields + e * lay.width
                things = self.thing_fields[kind]
                for i in everything if hidden or e >= self.root_things else self.seen_fields[kind]:
                    yield self.thing_seen(world, int(world[f + i])) if i in things else world[f + i]

    def thing_seen(self, world, e: int) -> int:
        """What a word naming thing `e` (a var's, a list's item, a field's) shows the searching
        seat: -1 when `e` lies in a zone the seat may not look into (State.observation's `hidden`:
        the id would tell the card); -2 - its kind when it lay hidden from the seat at the root
        (its id tells where it lay then, which the seat did not see; what it is, where it lies now,
        the zones show); else `e` itself (none, too)."""
        lay = self.p.layout
        if not 0 <= e < lay.things:  # none
            return e
        if int(world[lay.zone_of + e]) in self.zone_hidden:
            return -1
        if e in self.hidden:
            return -2 - int(world[lay.kinds + e])
        return e

    def playout(self, world) -> list[float]:
        """Play on to the end (or `depth` choices): each team's reward."""
        left = self.depth or -1
        moves = 0
        while world[H.STATUS] == CHOICE:
            if left == 0:
                return self.with_margin(self.draw, world, cut=True) if self.margin else self.estimate(world)
            left -= 1
            n = int(world[H.NOPTS])
            if n == 1:
                i = 0
            elif self.greedy and (not self.params.greedy_moves or moves < self.params.greedy_moves):
                i = self.greedy_option(world, n)
            else:
                i = self.draw_below(n)
            moves += 1
            self.apply(world, i)
        team, w = int(world[H.WINNER_TEAM]), int(world[H.WINNER])
        if team:  # a team as a whole won: its index + 1
            out = self.wins[team - 1]
        else:
            out = self.draw if w == NONE else self.wins[self.team_of[w]]
        return self.with_margin(out, world) if self.margin else out

    def with_margin(self, outcome: list[float], world, cut: bool = False) -> list[float]:
        """reward=margin: each team's outcome averaged with its margin score 0.5 + 0.5 * tanh(lead /
        spread); `cut`: a playout cut by `depth`, whose outcome is 0.5, or with cut=lead the margin
        score itself."""
        leads = self.leads(world)
        if leads is None:
            return outcome
        if self.fixed_spread is not None:
            spread = self.fixed_spread
        else:
            x = leads[self.root_team]
            self.spread[0] += 1
            self.spread[1] += x * x
            spread = max(1.0, math.sqrt(self.spread[1] / self.spread[0])) * self.spread_scale
        out = []
        for o, lead in zip(outcome, leads):
            m = 0.5 + 0.5 * math.tanh(lead / spread)
            out.append(0.5 * (m if cut and self.cut_lead else o) + 0.5 * m)
        return out

    def greedy_option(self, world, n: int) -> int:
        """The option whose immediate result is worth most to the seat to move's team (a win
        GREEDY_WIN, a loss its negative, else the team's points lead), each tried on a copy of the
        world whose random streams restart from one new seed (so that no option sees the world's
        own next draws); the first of equal worths unless a draw picks among them."""
        seed = self.next_word()
        team = self.team_of[int(world[H.SEAT])]
        lay = self.p.layout
        firsts = [R.signed(R.first_state(seed, key)) for key in self.streams]
        best, top = [], None
        for i in range(n):
            trial = copy_words(self.engine, world)
            trial[lay.streams:lay.streams + len(firsts)] = firsts
            self.apply(trial, i)
            worth = self.worth(trial, team)
            if top is None or worth > top:
                best, top = [i], worth
            elif worth == top:
                best.append(i)
        return best[self.draw_below(len(best))] if len(best) > 1 else best[0]

    def worth(self, world, team: int) -> float:
        if world[H.STATUS] == CHOICE:
            leads = self.leads(world)
            return float(leads[team]) if leads is not None else 0.0
        winner_team, w = int(world[H.WINNER_TEAM]), int(world[H.WINNER])
        won = winner_team - 1 if winner_team else (-1 if w == NONE else self.team_of[w])
        return 0.0 if won < 0 else GREEDY_WIN if won == team else -GREEDY_WIN

    def leads(self, world) -> list[int] | None:
        """Each team's points lead over the best other team (None when the file keeps no points)."""
        pts = self.team_points(world)
        if pts is None:
            return None
        out = []
        for t, p in enumerate(pts):
            best_other = max((q for u, q in enumerate(pts) if u != t), default=p)
            out.append(p - best_other)
        return out

    def estimate(self, world) -> list[float]:
        """A playout cut short, with reward=win: each team's reward from its points lead."""
        lead = self.leads(world)
        if lead is None:
            return self.draw
        return [0.5 + 0.5 * math.tanh(x / LEAD_SCALE) for x in lead]

    def team_points(self, world) -> list[int] | None:
        return team_points(self.p, world)

    def root_visits(self, n: int) -> list[int]:
        visits = [0] * n
        for (_, k, _), child in self.root.children.items():
            if k[1] < n:
                visits[k[1]] = child.visits
        return visits
