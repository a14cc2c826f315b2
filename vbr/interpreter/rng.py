"""Seeded randomness that lives in the game state, so effects never call a global RNG and a seed
fixes a game byte for byte.

The draws come from Python's Mersenne Twister (`random.Random`), seeded with an int: the same
numbers on every platform and Python version, and drawn in C, about three times cheaper than the
pure-Python SplitMix64 that stood here before (docs/performance.md). A number in 0..n-1 is the
top of a 64-bit draw scaled to n, `(bits * n) >> 64`, so it never depends on Python's own
`randrange`. Seeds for game i of a run, for each agent and for imagined worlds are derived from
the user's seed with SplitMix64 (`derive`), which spreads nearby seeds apart.
"""
from __future__ import annotations

import _random
import random

from vbr.seeds import MASK, derive, mix  # noqa: F401 — one seeding, vbr/seeds.py


def stream(seed: int) -> random.Random:
    """A generator for one game (or one agent) from a seed."""
    return generator(derive(seed))


def generator(x: int) -> random.Random:
    """`random.Random(x)` for an int x (the same numbers), without its Python-level layers."""
    r = _new(random.Random)
    _seed(r, x)
    r.gauss_next = None
    return r


def below(r: random.Random, n: int) -> int:
    """A number in 0..n-1 (n >= 1)."""
    return (r.getrandbits(64) * n) >> 64


def copy(r: random.Random) -> random.Random:
    """An independent generator at the same point of the same stream."""
    c = _new(random.Random)  # not seeded (seeding costs more than the copy): setstate fills it all
    c.setstate(r.getstate())
    return c


_new = random.Random.__new__
_seed = _random.Random.seed
