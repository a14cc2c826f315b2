"""A sweep summarised by its options' values: each value pooled over the rest of the grid, and,
where the swept options are each side's pick from the same values (Volleyball High's `school0` and
`school1`), a Bradley-Terry ranking of those values with 95% intervals.

Pooling: a value's games are the games of every combination with that value, whatever the other
options were. Entrants: when the grid sweeps exactly one option per side (in the grid's order:
the first for side 0, the next for side 1), all over the same values, a game is a match between
the values the sides picked; a value wins it when the winning side picked it. Games between a value
and itself (mirror matches) say nothing about the value and are left out of its win rate and of
the ranking; draws are left out of the ranking.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from vbr.analysis import stats as S
from vbr.analysis.trial import Trial


@dataclass
class Cell:
    """One combination of a sweep: its swept options' values (as text) and its games, a list of
    Trials or their columns (a `ColumnStore`: what `games` reads of it, its games, sides, winner
    and choices)."""

    options: dict
    trials: list[Trial] | object

    @property
    def games(self):
        """The cell's games as columns: the store, or a list of Trials read as `Columns`."""
        if isinstance(self.trials, list):
            from vbr.analysis.columns import Columns
            return Columns(self.trials, walk=False)
        return self.trials


def pooled(axes, cells: list[Cell]) -> list[dict]:
    """For each swept option and each of its values: the games of every combination with that
    value, each side's win rate and the mean length. The interval is Wilson's with the games of
    one deal (seed) as a cluster (`stats.clustered_wilson`): the combinations play the same deals,
    so a value's games are not independent."""
    out = []
    read = [c.games for c in cells]
    for axis in axes:
        for value in axis.values:
            cs = [g for c, g in zip(cells, read) if c.options[axis.name] == value and g.games]
            n = sum(g.games for g in cs)
            if not n:
                continue
            sides = max(g.sides for g in cs)
            wins = [sum(g.winner.count(s) for g in cs) for s in range(sides)]
            out.append({"option": axis.name, "value": value, "games": n,
                        "win_rate": [k / n for k in wins], "ci95": _by_deal(cs, sides),
                        "mean_length": sum(sum(g.choices) for g in cs) / n})
    return out


def _by_deal(games: list, sides: int) -> list:
    """Each side's win rate's interval over these cells' games (each a `Cell.games`), the games of
    one seed a cluster."""
    seeds = [seed for g in games for seed in g.seed]
    winners = [w for g in games for w in g.winner]
    return [S.clustered_share([w == s for w in winners], seeds) for s in range(sides)]


def entrant_axes(axes, sides: int) -> list | None:
    """The swept options read as each side's pick: one per side, in grid order, all over the
    same values; None when the grid is not of that shape."""
    if sides < 2 or len(axes) != sides or len({frozenset(a.values) for a in axes}) != 1:
        return None
    return list(axes)


def matches(axes, cells: list[Cell]) -> list[tuple[tuple, int | None, int]]:
    """Every game as (the value each side picked, the winning side or None, its seed)."""
    return [(picks, w, seed) for c in cells for picks in [tuple(c.options[a.name] for a in axes)]
            for w, seed in zip(c.games.winner, c.games.seed)]


def entrants(axes, cells: list[Cell]) -> dict:
    """Each value as an entrant: its games (mirror matches left out), wins, win rate with its
    interval (Wilson's, the games of one deal a cluster: `stats.clustered_share`); and, for two
    sides, the Bradley-Terry ranking (`bradley_terry`, the games of one deal a cluster too). The
    combinations play the same deals, so games of one seed share its draws."""
    values = list(axes[0].values)
    games = matches(axes, cells)
    table = {}
    for v in values:
        mine = [(picks, w, seed) for picks, w, seed in games if v in picks and len(set(picks)) > 1]
        hits = [w is not None and picks[w] == v for picks, w, _ in mine]
        won = sum(hits)
        table[v] = {"games": len(mine), "wins": won, "value": won / len(mine) if mine else None,
                    "ci95": S.clustered_share(hits, [seed for _, _, seed in mine])}
    decided = [(p[w], p[1 - w], seed) for p, w, seed in games if w is not None and p[0] != p[1]]
    ranking = bradley_terry(values, [(a, b) for a, b, _ in decided],
                            deals=[seed for _, _, seed in decided]) if len(axes) == 2 else None
    return {"options": [a.name for a in axes], "entrants": table, "ranking": ranking}


def bradley_terry(values: list[str], wins: list[tuple[str, str]], iterations: int = 10_000,
                  deals: list | None = None) -> dict:
    """The Bradley-Terry model fitted to (winner, loser) pairs: P(i beats j) = πᵢ/(πᵢ + πⱼ).

    Fitted by Hunter's (2004) MM iteration, πᵢ ← Wᵢ / Σⱼ nᵢⱼ/(πᵢ + πⱼ), until no log-strength
    moves by 1e-10. The log-strengths θᵢ = log πᵢ are centred (mean 0), so an entrant's `vs_average`
    = 1/(1 + e^−θᵢ) is its chance against an entrant of average strength. Intervals: θᵢ ± z·√Cᵢᵢ,
    with C the inverse of the Fisher information under the centring, I⁺ = (I + 11ᵀ/k)⁻¹ − 11ᵀ/k,
    where Iᵢᵢ = Σⱼ nᵢⱼpᵢⱼ(1 − pᵢⱼ) and Iᵢⱼ = −nᵢⱼpᵢⱼ(1 − pᵢⱼ). The fit exists only when every
    entrant both won and lost a game against the others (more exactly, when every entrant can be
    reached from every other by a chain of wins); else `reason` says which did not.

    `deals`: each game's deal (its seed), in step with `wins`. Where a deal holds several games
    (a sweep's combinations play the same deals, each in every seating when the seats rotate),
    they share its draws, and Cᵢᵢ is at least the cluster-robust (sandwich) variance
    (C·B·C)ᵢᵢ, with B = G/(G − 1)·Σ_d s_d s_dᵀ over the G deals, s_d the deal's summed scores
    (1 − pᵢⱼ to the winner i, −(1 − pᵢⱼ) to the loser j): Huber-White, with the small-sample
    factor of the cluster estimators in `stats`. Taken at least C, as `stats.clustered_wilson`
    takes a design effect of at least 1; games of distinct deals keep C.
    """
    k = len(values)
    at = {v: i for i, v in enumerate(values)}
    w = [[0] * k for _ in range(k)]
    for a, b in wins:
        w[at[a]][at[b]] += 1
    stuck = _not_connected(w, values)
    if stuck:
        return {"reason": stuck}
    pi = [1.0] * k
    for _ in range(iterations):
        new = []
        for i in range(k):
            den = sum((w[i][j] + w[j][i]) / (pi[i] + pi[j]) for j in range(k) if j != i)
            new.append(sum(w[i]) / den)
        g = math.exp(sum(math.log(x) for x in new) / k)
        new = [x / g for x in new]
        done = max(abs(math.log(x / y)) for x, y in zip(new, pi)) < 1e-10
        pi = new
        if done:
            break
    theta = [math.log(x) for x in pi]
    cov = _centred_inverse(_information(w, theta))
    var = [cov[i][i] for i in range(k)]
    if deals is not None and len(set(deals)) < len(deals):
        var = list(map(max, var, _sandwich(cov, theta, [(at[a], at[b]) for a, b in wins], deals)))
    rows = []
    for i, v in enumerate(values):
        half = S.Z95 * math.sqrt(max(var[i], 0.0))
        rows.append({"value": v, "theta": theta[i], "theta_ci95": (theta[i] - half, theta[i] + half),
                     "vs_average": _logistic(theta[i]),
                     "vs_average_ci95": (_logistic(theta[i] - half), _logistic(theta[i] + half))})
    return {"ranking": sorted(rows, key=lambda r: -r["theta"]), "games": len(wins)}


def _sandwich(cov, theta, games: list[tuple[int, int]], deals: list) -> list[float]:
    """The diagonal of C·B·C (`bradley_terry`): each deal's summed score vector s_d, then
    G/(G − 1)·Σ_d ((C·s_d)ᵢ)² for each entrant i. `games`: (winner, loser) indices. One deal
    has no spread between deals to measure: zeros, which leave C as it is (as `stats.ratio_se`
    gives no standard error of one cluster)."""
    k = len(theta)
    scores: dict = {}
    for (i, j), deal in zip(games, deals):
        s = scores.setdefault(deal, [0.0] * k)
        q = 1 - _logistic(theta[i] - theta[j])
        s[i] += q
        s[j] -= q
    g = len(scores)
    out = [0.0] * k
    if g < 2:
        return out
    for s in scores.values():
        for i in range(k):
            out[i] += math.fsum(cov[i][j] * s[j] for j in range(k)) ** 2
    return [v * g / (g - 1) for v in out]


def _logistic(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _not_connected(w, values) -> str | None:
    """Why the fit does not exist, or None: an entrant every other cannot reach by a chain of wins."""
    k = len(values)
    for start in range(k):
        seen, todo = {start}, [start]
        while todo:
            i = todo.pop()
            for j in range(k):
                if w[i][j] and j not in seen:
                    seen.add(j)
                    todo.append(j)
        if len(seen) < k:
            never = [values[i] for i in range(k) if not any(w[i])]
            if never:
                return f"no Bradley-Terry ranking: {', '.join(never)} never won a game against another value"
            return f"no Bradley-Terry ranking: {values[start]} beat none of {', '.join(values[j] for j in range(k) if j not in seen)}, nor anyone who did"
    return None


def _information(w, theta) -> list[list[float]]:
    k = len(theta)
    info = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if i != j:
                p = _logistic(theta[i] - theta[j])
                v = (w[i][j] + w[j][i]) * p * (1 - p)
                info[i][j] -= v
                info[i][i] += v
    return info


def _centred_inverse(info) -> list[list[float]]:
    """(I + 11ᵀ/k)⁻¹ − 11ᵀ/k: the inverse of I on the vectors that sum to 0 (I's null space is
    the constant vectors once every entrant is connected), by Gauss-Jordan elimination."""
    k = len(info)
    a = [[info[i][j] + 1 / k for j in range(k)] + [float(i == j) for j in range(k)] for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        a[c] = [x / a[c][c] for x in a[c]]
        for r in range(k):
            if r != c and a[r][c]:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [[a[i][k + j] - 1 / k for j in range(k)] for i in range(k)]
