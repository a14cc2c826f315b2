"""Stopping a run at a precision: a confidence sequence for a rate, and the watch that stops a run
once its interval is narrow enough.

A 95 % interval computed after each game and checked for a stopping rule is not a 95 % interval
any more: looking after every game and stopping at the first narrow interval picks the looks
where chance made it narrow. A confidence sequence holds at every number of games at once: with
probability 95 % the true rate is inside every one of its intervals, so it may be watched after
each game and the run stopped whenever it is narrow enough (Howard, Ramdas, McAuliffe & Sekhon,
"Time-uniform, nonparametric, nonasymptotic confidence sequences", Annals of Statistics 2021).

The sequence here is the beta-binomial mixture (Robbins 1970; Howard et al. 2021, §3). For a rate
p and observations x_1..x_t in [0, 1] with total k, the wealth

    M_t(p) = ∫ Π q^x_i (1 − q)^(1 − x_i) / (p^x_i (1 − p)^(1 − x_i)) dBeta(q; c·p, c·(1 − p))
           = B(c·p + k, c·(1 − p) + t − k) / B(c·p, c·(1 − p)) / (p^k (1 − p)^(t − k))

is a nonnegative supermartingale when p is the true rate (each factor has expectation at most 1
for any x in [0, 1] with mean p, since q^x (1 − q)^(1 − x) / (p^x (1 − p)^(1 − x)) is convex in x),
so by Ville's inequality it ever reaches 1/α with probability at most α. The interval after t
observations is every p whose wealth is below 1/α = 20. It narrows with the rate's own spread
(a rate near 10 % needs about a third of the games one near 50 % does), unlike a bound that
assumes the worst spread. The mixture's concentration c is chosen from the target half-width
alone, before any game (`concentration`): the sequence is narrowest near the number of games a
rate of 50 % needs to reach the target.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from vbr.analysis import stats as S
from vbr.analysis.rounding import Rounded, rounded
from vbr.analysis.trial import Trial

ALPHA = 0.05
_BISECTIONS = 40  # halvings of [0, 1] to find an end of an interval: 1e-12, far below any printed digit


def log_wealth(k: float, t: int, p: float, c: float) -> float:
    """log M_t(p) of the beta-binomial mixture with concentration c (module docstring), for a
    total k of t observations in [0, 1]; 0 < p < 1."""
    a, b = c * p, c * (1 - p)
    mixture = math.lgamma(a + k) + math.lgamma(b + t - k) - math.lgamma(a + b + t)
    prior = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    return mixture - prior - k * math.log(p) - (t - k) * math.log1p(-p)


def confidence_sequence(k: float, t: int, c: float, alpha: float = ALPHA) -> tuple[float, float]:
    """The sequence's interval after t observations totalling k: every p with log M_t(p) below
    log(1/α), found by bisection on each side of k/t (where the wealth is at most 1). Nothing
    observed yet: (0, 1)."""
    if t == 0:
        return (0.0, 1.0)
    level = math.log(1 / alpha)
    centre = min(max(k / t, 1e-12), 1 - 1e-12)
    return (_end(k, t, c, level, centre, 0.0), _end(k, t, c, level, centre, 1.0))


def _end(k: float, t: int, c: float, level: float, inside: float, bound: float) -> float:
    """Between `inside` (in the interval) and `bound` (0 or 1), where the wealth crosses `level`;
    `bound` itself when it never does."""
    edge = min(max(bound, 1e-12), 1 - 1e-12)
    if log_wealth(k, t, edge, c) < level:
        return bound
    out = edge
    for _ in range(_BISECTIONS):
        mid = (inside + out) / 2
        if log_wealth(k, t, mid, c) < level:
            inside = mid
        else:
            out = mid
    return out


def half_width(ci: tuple[float, float]) -> float:
    """Half an interval's length: what `--precision` compares with its target (the interval need
    not be symmetric about the estimate)."""
    return (ci[1] - ci[0]) / 2


MOST_NEEDED = 2 ** 31  # games_needed looks no further: a target that needs more is said to need more


def concentration(target: float, alpha: float = ALPHA) -> float:
    """The c, among the powers of 2 from 1 to 2^24, with which a rate of exactly ½ reaches a half
    width below `target` in the fewest observations: a choice made from the target alone (the
    first of them, 1 for a target none reaches within MOST_NEEDED)."""
    return min((2.0 ** j for j in range(25)), key=lambda c: games_needed(target, c, alpha))


def games_needed(target: float, c: float, alpha: float = ALPHA) -> int:
    """The fewest observations t, up to MOST_NEEDED, after which a total of t/2 gives a half width
    below `target`: when a run of a rate of ½ would stop (MOST_NEEDED: then, or later)."""
    lo, hi = 1, MOST_NEEDED
    while lo < hi:
        mid = (lo + hi) // 2
        if half_width(confidence_sequence(mid / 2, mid, c, alpha)) < target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def next_check(deals: int) -> int:
    """After a check at `deals` observations, the next: after every one up to 100, then after 1 %
    more (a run stops at most 1 % later than a check after every deal would stop it, for a
    hundredth of the work)."""
    return deals + max(1, deals // 100)


# ------------------------------------------------------------------------------ what is watched
@dataclass(frozen=True)
class Measure:
    """A rate a run can be stopped on: `observe` gives a game's observation in [0, 1], or None for
    a game the rate is not taken over."""

    name: str
    label: str
    observe: Callable[[Trial], float | None]


def measures(side_names: list[str], agents: list[str], rotated: bool, side_of_seat: list[int],
             declared: tuple = ()) -> dict[str, Measure]:
    """The measures `--metric` may name: `win_rate` (the headline: the first agent's win rate when
    the seats are rotated among different agents, else the first side's), `win_rate_S` for each
    side S, `draw_rate`, `first_mover_advantage` (the first mover's side's wins over the decided
    games with a first mover, as the report takes it), and `measure:NAME` for each rate among the
    rule file's measures (`declared`: their name, type and label): a seat or side measure as the
    wins of the side it names over the decided games that set it, a bool one as the share of
    the games that set it that set it true (the report's figures)."""
    out: dict[str, Measure] = {}
    if rotated and len(set(agents)) > 1:
        first = agents[0]
        out["win_rate"] = Measure("win_rate", f"{first} wins", lambda t: float(_agent_won(t, first, side_of_seat)))
    else:
        out["win_rate"] = Measure("win_rate", f"{side_names[0]} wins", lambda t: float(t.winner == 0))
    for s, name in enumerate(side_names):
        out[f"win_rate_{s}"] = Measure(f"win_rate_{s}", f"{name} wins", lambda t, s=s: float(t.winner == s))
    out["draw_rate"] = Measure("draw_rate", "draws", lambda t: float(t.winner is None))
    out["first_mover_advantage"] = Measure("first_mover_advantage", "first mover wins", _first_mover_won)
    for name, kind, label in declared:
        if kind in ("seat", "side"):
            out[f"measure:{name}"] = Measure(f"measure:{name}", f"{label} wins", lambda t, n=name: _named_side_won(t, n))
        elif kind == "bool":
            out[f"measure:{name}"] = Measure(f"measure:{name}", label, lambda t, n=name: _set_true(t, n))
    return out


def _first_mover_won(t: Trial) -> float | None:
    if t.winner is None or t.first_side is None:
        return None
    return float(t.winner == t.first_side)


def _named_side_won(t: Trial, name: str) -> float | None:
    value = t.measures.get(name, (None, None))[1]
    if t.winner is None or value is None:
        return None
    return float(t.winner == value)


def _set_true(t: Trial, name: str) -> float | None:
    value = t.measures.get(name, (None, None))[1]
    return None if value is None else float(bool(value))


def _agent_won(t: Trial, agent: str, side_of_seat: list[int]) -> bool:
    return t.winner is not None and any(side_of_seat[s] == t.winner for s, a in enumerate(t.agents) if a == agent)


class Running:
    """A measure watched game by game: its estimate, its interval, and with a `target` whether the
    run may stop. The unit of observation is the deal: the `per_deal` games of one seed in each
    seating (1 without rotation), whose mean is one observation, since the games of one deal are
    not independent of each other. With a target the interval is the confidence sequence, and
    `add` says stop once its half width is below the target, checked at the end of the deals
    `checks_at` names (the sequence holds at every number of deals, so any such schedule keeps
    it valid); without a target it is the Wilson interval of the games so far, as the run's
    report gives it."""

    def __init__(self, measure: Measure, per_deal: int = 1, target: float | None = None):
        self.measure, self.per_deal, self.target = measure, per_deal, target
        self.c = concentration(target) if target is not None else None
        self.total = 0.0  # the sum of the deals' observations
        self.deals = 0  # deals with an observation
        self.hits = 0.0  # the sum of the games' observations, and their number: for the estimate
        self.games = 0
        self._deal: list[float] = []
        self._seen = 0  # games of the current deal seen, observed or not
        self._next_check = 1  # the number of deals at which the target is checked next

    def add(self, trial: Trial) -> bool:
        """Count one more game (in the run's order); True when the target is met after it."""
        x = self.measure.observe(trial)
        if x is not None:
            self.hits += x
            self.games += 1
            self._deal.append(x)
        self._seen += 1
        if self._seen < self.per_deal:
            return False
        if self._deal:
            self.total += sum(self._deal) / len(self._deal)
            self.deals += 1
        self._deal, self._seen = [], 0
        if self.target is None or self.deals < self._next_check:
            return False
        self._next_check = next_check(self.deals)
        return half_width(self.interval()) < self.target

    @property
    def value(self) -> float | None:
        return self.hits / self.games if self.games else None

    def interval(self) -> tuple[float, float] | None:
        if self.target is not None:
            return confidence_sequence(self.total, self.deals, self.c)
        return S.wilson(round(self.hits), self.games) if self.games else None

    def text(self) -> str:
        """`seat 0 wins 29.8% (27.9-31.8)`: the estimate and its interval, for the progress line."""
        ci = self.interval()
        if self.value is None or ci is None:
            return f"{self.measure.label}: none yet"
        return f"{self.measure.label} {100 * self.value:.1f}% ({100 * ci[0]:.1f}-{100 * ci[1]:.1f})"

    def report(self) -> dict:
        """What `vbr sim --json` says of a run stopped at a precision (`precision`)."""
        ci = self.interval()
        return {"metric": self.measure.name, "label": self.measure.label, "target": self.target,
                "value": None if self.value is None else Rounded(self.value, 6), "cs95": [_r(x) for x in ci] if ci else None,
                "half_width": Rounded(half_width(ci), 6) if ci else None, "deals": self.deals, "games": self.games,
                "method": "beta-binomial mixture confidence sequence", "concentration": self.c}


def _r(x):
    return rounded(x) if isinstance(x, float) else x
