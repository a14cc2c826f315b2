"""A run's games grouped by deal, for the intervals that take the games of one deal as one cluster.

A deal is a game seed. With the seats rotated, a deal is played once in each seating, and its
games share the deal's random draws, so they are not independent; `vbr.analysis.stats` takes each
deal's games as one cluster wherever a deal holds more than one, and reads the deals' sums of a
figure from here. Everything is counted by `Counter` and summed by `itertools.accumulate`, never
by a Python loop over the games: a million games take a small fraction of a second a figure.
"""
from __future__ import annotations

from collections import Counter
from itertools import accumulate, compress, islice, repeat
from operator import add, is_not, le, sub


class Deals:
    """The games of a run, given by their seeds in order, grouped by deal in the order the deals
    first come. `repeated`: some seed comes more than once (else every interval is the plain one
    of independent games); `totals(values)`: each deal's sum of a per-game figure."""

    def __init__(self, seeds):
        seeds = seeds if isinstance(seeds, list) else list(seeds)
        sizes = Counter(seeds)  # each deal's games, in the order first come
        self.games, self.deals = len(seeds), len(sizes)
        self.repeated = self.deals < self.games
        if not self.repeated:
            return
        index = dict(zip(sizes, range(len(sizes))))
        ids = list(map(index.__getitem__, seeds))  # each game's deal, 0, 1, ... as first come
        in_order = all(map(le, ids, islice(ids, 1, None)))  # a deal's games together, as a rotated run plays them
        self._order = None if in_order else sorted(range(self.games), key=ids.__getitem__)
        self._sizes = list(sizes.values())
        self._ends = list(accumulate(self._sizes))
        self._starts = [0, *islice(self._ends, len(self._ends) - 1)]
        k = self._sizes[0]  # every deal k games in a row (a rotated run of whole deals): summed by slices
        self._stride = k if in_order and self._sizes.count(k) == self.deals else None

    def totals(self, values) -> tuple[list, list]:
        """(each deal's sum of `values`, each deal's games counted), over the deals with a game
        counted, in the order the deals first come. `values`: one a game, in the games' order;
        None for a game the figure is not taken over, which is left out of both. Needs `repeated`."""
        values = values if isinstance(values, list) else list(values)
        if None not in values:
            return self._sums(values), self._sizes
        counts = self._sums(list(map(is_not, values, repeat(None))))
        sums = self._sums(list(map(_NONE_AS_0.get, values, values)))  # None as 0, the rest as they are
        return list(compress(sums, counts)), list(compress(counts, counts))

    def _sums(self, values: list) -> list:
        """Each deal's sum of the values (one a game): of every deal's k games in a row, the k
        slices of every k-th game added; else by prefix sums. Exact for whole numbers."""
        if self._stride is not None:
            sums, k = values[0::self._stride], self._stride
            for j in range(1, k):
                sums = list(map(add, sums, values[j::k]))
            return sums
        if self._order is not None:
            values = list(map(values.__getitem__, self._order))
        prefix = list(accumulate(values, initial=0))
        return list(map(sub, map(prefix.__getitem__, self._ends), map(prefix.__getitem__, self._starts)))


_NONE_AS_0 = {None: 0}
