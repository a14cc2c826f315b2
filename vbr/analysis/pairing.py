"""The games of two runs played on the same deal (seed and seating), paired for a comparison's
paired intervals (vbr.analysis.comparison), and how alike the pairs came out (`pairing`).

Pairs are kept as two index sequences in step, not a list of tuples: a comparison of 10,000,000
games a run holds them in two ranges when both runs played their deals in the same order (as
`vbr compare` plays them), else in two arrays of 8 bytes a pair.
"""
from __future__ import annotations

from array import array
from operator import eq

from vbr.collector import uncollected
from vbr.analysis.columns import Columns
from vbr.analysis.rounding import rounded
from vbr.analysis.trial import Trial


class Pairs:
    """Paired games: pair k is game `a[k]` of run a and game `b[k]` of run b (two sequences of
    indexes in step). It reads as the list of (i, j) tuples it stands for: its length, its
    items, equality with such a list; `same_order` when pair k is game k of both runs."""

    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    @classmethod
    def of(cls, pairs) -> "Pairs":
        """Pairs as given: a Pairs, or (i, j) tuples."""
        if isinstance(pairs, Pairs):
            return pairs
        return cls(array("q", [i for i, _ in pairs]), array("q", [j for _, j in pairs]))

    @property
    def same_order(self) -> bool:
        return type(self.a) is range and self.a == self.b

    def __len__(self) -> int:
        return len(self.a)

    def __iter__(self):
        return zip(self.a, self.b)

    def __getitem__(self, k: int) -> tuple[int, int]:
        return self.a[k], self.b[k]

    def __eq__(self, other) -> bool:
        if isinstance(other, Pairs):
            other = list(other)
        return isinstance(other, list) and list(self) == other

    def __repr__(self) -> str:
        return f"Pairs({list(self)!r})"


def pair_up(a: list[Trial], b: list[Trial]) -> list[tuple[int, int]]:
    """The games of two runs played on the same deal: (i, j) with a[i] and b[j] of the same seed
    and the same agents in the same seats, in a's order; a game with no partner is left out. Runs
    of games with different numbers of seats (Cattack's `players`) compare the seats both have."""
    k = min((len(t.agents) for t in (*a, *b)), default=0)
    where = {(t.seed, *t.agents[:k]): j for j, t in enumerate(b)}
    return [(i, where[key]) for i, key in enumerate([(t.seed, *t.agents[:k]) for t in a]) if key in where]


def pair_up_stores(a, b) -> Pairs:
    """`pair_up` of two runs kept as `ColumnStore`s (read by their `seed`, `seating` and
    `seatings`): the pairs of the runs' trials. When both runs played the same deals in the same
    order, pair k is game k of both, found by one pass over the two runs' deals; else each deal
    is keyed by one int (its seed times the seatings of both runs, plus its seating's number
    among them), cheaper than a tuple. A deal a run played twice is one game played twice (the
    same seed and seating give the same game): either of its games pairs alike. Seatings of
    different numbers of seats compare the seats both have, as in `pair_up`."""
    seats = min((len(s) for s in (*a.seatings, *b.seatings)), default=0)
    numbers = {seating: k for k, seating in enumerate(dict.fromkeys(s[:seats] for s in (*a.seatings, *b.seatings)))}
    numbers = {s: numbers[s[:seats]] for s in (*a.seatings, *b.seatings)}
    if a.games == b.games and all(map(eq, _deal_keys(a, numbers), _deal_keys(b, numbers))):
        return Pairs(range(a.games), range(b.games))
    where = {}
    for j, key in enumerate(_deal_keys(b, numbers)):
        where[key] = j
    found = [(i, where[k]) for i, k in enumerate(_deal_keys(a, numbers)) if k in where]
    return Pairs.of(found)


def _deal_keys(store, numbers: dict) -> map:
    """Each game's deal as one int: seed × len(numbers) + its seating's number in `numbers`."""
    own = [numbers[s] for s in store.seatings]  # the store's seating index -> its number in both
    size = len(numbers)
    return map(lambda seed, k: seed * size + own[k], store.seed, store.seating)


@uncollected()
def pairing(a: list[Trial], b: list[Trial]) -> dict:
    """How alike the paired games of two runs came out: the pairs (`pair_up`), how many had the
    same winner (a draw counts as a winner here) and the same first side, against the number of
    same winners two independent runs with these win rates would give (Σ over outcomes of
    p_a·p_b, times the pairs). Far above it: the pairing shares the runs' luck, and narrows every
    paired interval; near it: the variants' games went their own ways."""
    return pairing_columns(Columns(a, walk=False), Columns(b, walk=False), pair_up(a, b))


def pairing_columns(ca, cb, pairs) -> dict:
    """`pairing` of two runs read as columns (`Columns`, or `ColumnStore`s: their `winner`,
    `first_side` and `seed`), `pairs` their paired games (`pair_up`, `pair_up_stores`); `deals`:
    the seeds the pairs were played on (fewer than the pairs where the seats were rotated)."""
    pairs = Pairs.of(pairs)
    wa, wb = ca.winner, cb.winner
    outcomes = sorted({*wa, *wb}, key=lambda w: (w is None, w))
    share = {w: (wa.count(w) / ca.games, wb.count(w) / cb.games) for w in outcomes}
    fa, fb = ca.first_side, cb.first_side
    seeds = ca.seed if pairs.same_order else [ca.seed[i] for i in pairs.a]
    return {"pairs": len(pairs), "deals": len(set(seeds)), "paired": len(pairs) == ca.games == cb.games,
            "same_winner": _same(wa, wb, pairs),
            "same_winner_if_independent": rounded(len(pairs) * sum(pa * pb for pa, pb in share.values())),
            "same_first_side": _same(fa, fb, pairs)}


def _same(xs, ys, pairs: Pairs) -> int:
    """How many pairs have the same value in xs (of run a) and ys (of run b)."""
    if pairs.same_order:
        return sum(map(eq, xs, ys))
    return sum(map(eq, map(xs.__getitem__, pairs.a), map(ys.__getitem__, pairs.b)))
