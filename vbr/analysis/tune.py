"""Tuning: the value of one option that brings a measure closest to a target, each value with the
95 % interval of its own games, the games spent where they decide the answer.

The option takes a range of whole numbers (`LO..HI`) or a listed set of values; the measure is any
figure `vbr sim --json` reports (`figure`). The search is a race over a grid that is refined
where the answer may lie:

1. The first round plays `first_batch` games at each value of the first grid: every value of a
   listed set, or up to GRID evenly spaced values of a range, both ends included.
2. After each round, each value's interval bounds its distance to the target: at least `near`
   (0 when the interval holds the target), at most `far`. A value is *in contention* while its
   `near` is no larger than the smallest `far` of any value: no value is yet known to be closer.
3. The next round, in a range, plays the midpoint of the gap between the best value (the most
   surely close to the target: `Search.ranked`) and each played value beside it, a first batch each; then each value in
   contention gets as many games again as it has, or its share of what the budget has left.
   Refining beside the best value only keeps a measure that hardly depends on the option from
   spreading the budget over every value of the range, a few games each.
4. The search stops when a single value is in contention and no gap is left beside it (decided),
   or when the budget is spent.

Why a race rather than Robbins-Monro or probabilistic bisection: those assume the measure moves one
way with the option (a `target` score need not move the first server's advantage one way), they
return a root rather than each value's own estimate, and a listed set has no order to bisect. The
race assumes nothing of the measure's shape except where it refines (a value between two played
ones is tried only when one of them is in contention), and every value it reports carries an
interval from its own games. What it gives up: on a long monotone range bisection needs fewer
games, and a narrow peak between two grid values that are both out of contention is never found.

The intervals are each 95 %, as `vbr sim` reports them, not simultaneous over the values or the
rounds: a value can drop out of contention by chance. It is never dropped for good; each round
judges every value again from all its games.

Game i at every value is game i of the run with the search's seed (`vbr.sim.game_seed`): common
random numbers, so neighbouring values differ by the option rather than by the luck of the deal,
and the search, round by round, is the same on every backend and for any number of workers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Callable

from vbr.errors import UsageError
from vbr.limits import MAX_INT
from vbr.number_text import decimal_number, whole_number
from vbr.sim import RunSpec, chunk_ranges

GRID = 9  # values of a range in the first round, at most
FIRST_SHARE = 4  # the first round spends about 1/FIRST_SHARE of the budget ...
MIN_BATCH = 20  # ... but at least this many games per value, where the budget allows


# ------------------------------------------------------------------------------ what is tuned
@dataclass(frozen=True)
class Tuned:
    """The option being tuned and its values in order: ints for a range (a `range`, never listed
    out: `--option a=1..10**18` is a few numbers), the texts of a listed set."""

    name: str
    values: tuple
    is_range: bool

    def describe(self) -> str:
        return f"{self.values[0]}..{self.values[-1]}" if self.is_range else ",".join(map(str, self.values))


def split_options(items: list[str] | None) -> tuple[Tuned, dict]:
    """The one `--option NAME=LO..HI` or `NAME=A,B,C` to tune, and the fixed options (NAME[=VALUE])."""
    from vbr.cli_common import parse_options
    tuned, fixed = [], []
    for item in items or []:
        _, eq, value = item.partition("=")
        (tuned if eq and (".." in value or "," in value) else fixed).append(item)
    if not tuned:
        raise UsageError("vbr tune needs an option to tune: --option NAME=LO..HI (whole numbers) or NAME=A,B,C")
    if len(tuned) > 1:
        raise UsageError(f"vbr tune tunes one option at a time, not {len(tuned)} "
                         f"({', '.join(tuned)}); fix the others with --option NAME=VALUE")
    return parse_tuned(tuned[0]), parse_options(fixed)


def parse_tuned(item: str) -> Tuned:
    name, _, value = (s.strip() for s in item.partition("="))
    if ".." in value:
        lo, _, hi = (s.strip() for s in value.partition(".."))
        try:
            a, b = whole_number(lo), whole_number(hi)
        except ValueError:
            raise UsageError(f"--option {item!r}: a range is two whole numbers, LO..HI (e.g. target=5..21)") from None
        if a > b:
            raise UsageError(f"--option {item!r}: the range's low end {a} is above its high end {b}")
        if not -MAX_INT <= a <= b <= MAX_INT:
            raise UsageError(f"--option {item!r}: a range's ends are integers of the language "
                             f"(-{MAX_INT}..{MAX_INT})")
        return Tuned(name, range(a, b + 1), True)
    values = tuple(v.strip() for v in value.split(","))
    if any(not v for v in values) or len(values) < 2:
        raise UsageError(f"--option {item!r}: a listed set is two or more values, A,B,C")
    if len(set(values)) != len(values):
        raise UsageError(f"--option {item!r}: a value is listed twice")
    return Tuned(name, values, False)


@dataclass(frozen=True)
class Target:
    measure: str  # a name `figure` reads: a metric, `win_rate:S` or `measure:NAME`
    value: float
    percent: bool = field(default=False, compare=False)  # given as a percent (`50%`): only a share's may be


def parse_target(text: str) -> Target:
    """`MEASURE=VALUE`, VALUE a number (0.5) or a percent (50%)."""
    measure, eq, raw = (s.strip() for s in text.partition("="))
    if not measure or not eq or not raw:
        raise UsageError(f"--target {text!r}: expected MEASURE=VALUE (e.g. win_rate:0=0.5 or first_mover_advantage=50%)")
    try:
        value = decimal_number(raw[:-1]) / 100 if raw.endswith("%") else decimal_number(raw)
    except ValueError:
        raise UsageError(f"--target {text!r}: {raw!r} is not a number (e.g. 0.5, or 50%)") from None
    if not math.isfinite(value):
        raise UsageError(f"--target {text!r}: the value must be a finite number")
    return Target(measure, value, raw.endswith("%"))


# ------------------------------------------------------------------------------ the measure
SIDE_RATE = "win_rate:"


def measure_names(sides: int, declared: list[str]) -> list[str]:
    """Every figure `--target` may name: the metrics of `vbr sim`, each side's win rate, and the
    rule file's measures (`measure:NAME`, as `vbr sim --json` keys them)."""
    from vbr.analysis.metrics import METRICS
    return [m.name for m in METRICS] + [f"{SIDE_RATE}{s}" for s in range(sides)] + [f"measure:{n}" for n in declared]


def figure(trials: list, measure: str) -> tuple[float | None, tuple | None, str | None]:
    """(value, 95 % interval, why there is none) of a measure over games, as `vbr sim --json`
    reports it: the same summary's figure of that name, worked out alone."""
    from vbr.analysis.columns import Columns
    from vbr.analysis.metrics import summary_entry, win_rate_entries
    games = Columns(trials, walk=False)  # a win rate, or a measure, reads no score track
    if measure.startswith(SIDE_RATE):
        entry = win_rate_entries(games).get(measure[len(SIDE_RATE):], {"value": None, "ci95": None})
    else:
        entry = summary_entry(games, measure)
        if entry is None:  # a declared measure no game carried
            return None, None, "not set in any game"
    ci = entry.get("ci95")
    value = entry.get("value")
    return value, tuple(ci) if ci else None, entry.get("reason") or (None if value is not None else "no games")


# ------------------------------------------------------------------------------ the race
@dataclass
class Arm:
    """One value of the option: its games and what they say of the measure."""

    value: object
    trials: list = field(default_factory=list)
    estimate: float | None = None
    ci: tuple | None = None
    reason: str | None = None  # why there is no estimate, or no interval
    engine: str = ""  # the engine its games play in, from its first game on

    @property
    def games(self) -> int:
        return len(self.trials)

    def judge(self, measure: str) -> None:
        self.estimate, self.ci, self.reason = figure(self.trials, measure)

    def distances(self, target: float) -> tuple[float, float]:
        """(near, far): the least and the most the measure's distance to the target can be, by its
        interval; without an interval, anything from 0 up."""
        if self.ci is None:
            return 0.0, math.inf
        lo, hi = self.ci
        near = 0.0 if lo <= target <= hi else min(abs(lo - target), abs(hi - target))
        return near, max(abs(lo - target), abs(hi - target))

    def off_by(self, target: float) -> float:
        return abs(self.estimate - target)


@dataclass
class Search:
    tuned: Tuned
    target: Target
    base: RunSpec  # the fixed options, seed, agents, engine and seating of every game; its n unused
    budget: int
    choice: object = None  # under --engine auto (base.engine "auto"): a vbr.engine_choice.EngineChoice
    arms: dict = field(default_factory=dict)  # value -> Arm, in the order first played
    rounds: int = 0
    exit_code: int = 0  # not 0: stopped by Ctrl-C or a signal, with this code

    @property
    def spent(self) -> int:
        return sum(a.games for a in self.arms.values())

    @property
    def seatings(self) -> int:
        return self.base.per_deal

    def measured(self) -> list[Arm]:
        return [a for a in self.arms.values() if a.estimate is not None]

    def contenders(self) -> list[Arm]:
        """The values no other value is yet known to beat (see the module's step 2)."""
        arms = self.measured()
        if not arms:
            return []
        t = self.target.value
        best_far = min(a.distances(t)[1] for a in arms)
        return [a for a in arms if a.distances(t)[0] <= best_far]

    def engine_of(self, arm: Arm, options: dict) -> str:
        """The engine the value's games play in: the base's, or under auto the one `choice` picks
        for its share of the budget (the budget over the first round's values), kept for it."""
        if not arm.engine:
            arm.engine = (self.base.engine if self.choice is None else
                          self.choice.load(options, self.budget // len(first_grid(self.tuned)))[0])
        return arm.engine

    def first_batch(self) -> int:
        grid = len(first_grid(self.tuned))
        games = max(self.budget // (FIRST_SHARE * grid), min(MIN_BATCH, self.budget // grid))
        return self._whole(games)

    def _whole(self, games: int) -> int:
        """Games in whole deals: every seating of a deal, when the seats rotate."""
        return games // self.seatings * self.seatings

    def ranked(self) -> list[Arm]:
        """The measured values, the most surely close to the target first: by `far`, the most their
        distance to it can be, then by the estimate's distance, then in the option's order. Why
        `far` first: among many values, the one whose estimate lands closest is often one with few
        games that got there by luck; `far` counts that luck against it."""
        t = self.target.value
        return sorted(self.measured(), key=lambda a: (a.distances(t)[1], a.off_by(t), self.tuned.values.index(a.value)))

    def best(self) -> Arm | None:
        """The answer: the first of `ranked`."""
        return next(iter(self.ranked()), None)

    def gaps(self) -> list:
        """In a range: the midpoints of the gaps between the best value and the played values beside it."""
        best = self.best()
        if not self.tuned.is_range or best is None:
            return []
        played = sorted(self.arms)
        i = played.index(best.value)
        beside = [(played[j], best.value) for j in (i - 1,) if j >= 0] + \
                 [(best.value, played[j]) for j in (i + 1,) if j < len(played)]
        return [(a + b) // 2 for a, b in beside if b - a > 1]

    def next_round(self) -> dict:
        """Games to play next at each value; empty when the search is decided or the budget spent."""
        live = self.contenders()
        new = self.gaps()
        if not self.measured() or (not new and len(live) <= 1):
            return {}
        left = self.budget - self.spent
        each = self.first_batch()
        plan = {v: each for v in new[:left // each]}
        left -= each * len(plan)
        want = sum(a.games for a in live)
        share = min(1.0, left / want) if want else 0.0
        for a in live:
            games = self._whole(math.floor(a.games * share))
            if games:
                plan[a.value] = games
        return plan


def first_grid(tuned: Tuned) -> list:
    """Every value of a listed set; in a range of more than GRID values, GRID of them evenly spaced,
    both ends included."""
    values = tuned.values
    count = values[-1] - values[0] + 1 if tuned.is_range else len(values)  # len() of a range stops at 2**63
    if not tuned.is_range or count <= GRID:
        return list(values)
    step = Fraction(count - 1, GRID - 1)  # exact: a float step is off in a range past 2**53
    return sorted({values[0] + round(i * step) for i in range(GRID)})


def check_budget(tuned: Tuned, budget: int, seatings: int) -> None:
    grid = len(first_grid(tuned))
    if budget < grid * seatings:
        need = f"{grid} values, {seatings} seatings each" if seatings > 1 else f"{grid} values"
        raise UsageError(f"-n {budget} cannot play the first round: at least one game for each of {need}, "
                         f"so -n {grid * seatings} or more")


def search(tuned: Tuned, target: Target, base: RunSpec, budget: int, backend,
           progress: Callable[[int, int], None] | None = None,
           on_round: Callable[[Search], None] | None = None, choice=None) -> Search:
    """Race the option's values to the target on `backend` (vbr.backends) until decided or the
    budget is spent; `progress(games, budget)` once a round's values are loaded and after each
    game, `on_round(search)` after each round.
    Under --engine auto (`base.engine` "auto") `choice` (a vbr.engine_choice.EngineChoice) picks
    each value's engine. Ctrl-C (or SIGTERM, SIGHUP) stops it, keeping every game finished."""
    from vbr import stop_signals
    s = Search(tuned, target, base, budget, choice=choice)
    check_budget(tuned, budget, s.seatings)
    plan = {v: s.first_batch() for v in first_grid(tuned)}
    try:
        with stop_signals.as_ctrl_c():
            while plan:
                s.rounds += 1
                play_round(s, plan, backend, progress)
                if on_round:
                    on_round(s)
                plan = s.next_round()
    except KeyboardInterrupt as exc:
        s.exit_code = stop_signals.exit_code(exc)
    for arm in s.arms.values():
        arm.judge(target.measure)
    return s


def play_round(s: Search, plan: dict, backend, progress) -> None:
    """Each value's next games (games arm.games .. arm.games + k - 1 at that value), in chunks: in
    one pool where the backend can play several runs at once (`map_runs`), else value by value."""
    runs = []
    for value, games in plan.items():
        arm = s.arms.setdefault(value, Arm(value))
        options = dict(s.base.options) | {s.tuned.name: value}
        spec = replace(s.base, options=tuple(sorted(options.items())), n=arm.games + games,
                       engine=s.engine_of(arm, options))
        backend.prepare(spec)  # a value the file refuses is said before any game
        runs.append((arm, spec, [(arm.games + a, arm.games + b) for a, b in chunk_ranges(games, backend.workers)]))
    if progress:  # the round's values are loaded (built, in C): its games start now
        progress(s.spent, s.budget)
    if hasattr(backend, "map_runs"):
        owners = (arm for arm, _, chunks in runs for a, b in chunks for _ in range(b - a))
        for part in backend.map_runs((spec, a, b) for _, spec, chunks in runs for a, b in chunks):
            for trial in part:  # the games come in the chunks' order: the next one is the next owner's
                keep(s, next(owners), [trial], progress)
    else:
        for arm, spec, chunks in runs:
            for part in backend.map(spec, chunks):
                keep(s, arm, part, progress)
    for arm, _, _ in runs:
        arm.judge(s.target.measure)


def keep(s: Search, arm: Arm, part: list, progress) -> None:
    arm.trials += part
    if progress:
        progress(s.spent, s.budget)


# ------------------------------------------------------------------------------ the answer
@dataclass
class Verdict:
    """What the search found. status: near (a value's interval holds the target), between (no
    interval holds it, but values lie on both sides of it), out_of_range (every value's interval
    lies on one side of it: `side`), or unmeasured (no value gave the measure at all)."""

    status: str
    answer: Arm | None  # the value most surely close to the target (`Search.ranked`)
    contenders: list[Arm]  # the other values still in contention
    closest: list[Arm]  # the first three of `Search.ranked`, the answer first
    side: str | None = None  # above | below, for out_of_range
    bracket: tuple | None = None  # (a, b): neighbouring values on either side of the target, for between
    untried: list = field(default_factory=list)  # range values beside the answer never played, the nearest
    untried_more: int = 0  # how many more there are than `untried` lists


def verdict(s: Search) -> Verdict:
    t = s.target.value
    arms = s.ranked()
    if not arms:
        return Verdict("unmeasured", None, [], [])
    answer = s.best()
    others = sorted((a for a in s.contenders() if a is not answer), key=lambda a: s.tuned.values.index(a.value))
    untried, more = untried_beside(s, answer)
    v = Verdict("near", answer, others, arms[:3], untried=untried, untried_more=more)
    if any(a.ci and a.ci[0] <= t <= a.ci[1] for a in arms):
        return v
    above = [a for a in arms if a.estimate > t]
    if len(above) in (0, len(arms)):
        return replace(v, status="out_of_range", side="above" if above else "below")
    return replace(v, status="between", bracket=bracket(s, answer))


def bracket(s: Search, answer: Arm) -> tuple | None:
    """The answer and its played neighbour on the target's other side (in a range), else None."""
    if not s.tuned.is_range:
        return None
    t = s.target.value
    played = sorted(a.value for a in s.measured())
    i = played.index(answer.value)
    for j in (i - 1, i + 1):
        if 0 <= j < len(played):
            other = s.arms[played[j]]
            if (other.estimate - t) * (answer.estimate - t) < 0:
                return tuple(sorted((answer.value, other.value)))
    return None


UNTRIED_SHOWN = 5  # untried values listed on each side of the answer, at most


def untried_beside(s: Search, answer: Arm) -> tuple[list, int]:
    """In a range: the values between the answer and its played neighbours that were not played,
    at most UNTRIED_SHOWN on each side, the nearest; and how many more there are."""
    if not s.tuned.is_range:
        return [], 0
    played = sorted(s.arms)
    i = played.index(answer.value)
    lo = played[i - 1] + 1 if i > 0 else answer.value
    hi = played[i + 1] - 1 if i + 1 < len(played) else answer.value
    below = range(max(lo, answer.value - UNTRIED_SHOWN), answer.value)
    above = range(answer.value + 1, min(hi, answer.value + UNTRIED_SHOWN) + 1)
    return [*below, *above], (answer.value - lo - len(below)) + (hi - answer.value - len(above))
