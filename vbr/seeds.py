"""Seeds for game i of a run, for each agent and for imagined worlds, derived from the user's seed
with SplitMix64's finalizer (`derive`), which spreads nearby seeds apart: the one way of seeding."""
from __future__ import annotations

import operator

MASK = (1 << 64) - 1
SEED_MAX = 2 ** 63 - 1  # the largest game seed: `vbr run --seed` takes 0..SEED_MAX


def whole_seed(seed) -> int:
    """A seed given to the API (`Game.new_state`, `play_game`, an agent's seed) as a Python int:
    an int or an integer of numpy's (`np.int64(3)`), whose bit operations would overflow; a bool,
    a float, a string or None raises a TypeError saying what a seed is."""
    if isinstance(seed, bool):
        raise TypeError(f"a seed is a whole number, not {seed!r}")
    try:
        return operator.index(seed)
    except TypeError:
        raise TypeError(f"a seed is a whole number, not {seed!r} ({type(seed).__name__})") from None


def game_seed_value(seed) -> int:
    """A game's seed given to the API, checked as `vbr run --seed` checks it: a whole number
    (whole_seed) from 0 to SEED_MAX, else a ValueError. Never cut down silently: games are seeded
    modulo 2**64, so 2**64 would otherwise be game 0 again, and -1 a game `vbr run` cannot play."""
    if type(seed) is int and 0 <= seed <= SEED_MAX:
        return seed  # the common case, at the cost of a comparison
    n = whole_seed(seed)
    if not 0 <= n <= SEED_MAX:
        raise ValueError(f"{n} is not a game seed: seeds run from 0 to {SEED_MAX} (2**63 - 1), as for vbr run --seed")
    return n


def mix(x: int) -> int:
    """SplitMix64's finalizer: a 64-bit value to another, nearby inputs far apart."""
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    x = (x ^ (x >> 27)) * 0x94D049BB133111EB & MASK
    return x ^ (x >> 31)


def derive(seed: int, *salt: int) -> int:
    """An independent seed for game i of a run, or for an agent's own choices."""
    x = seed & MASK
    for s in salt:
        x = mix((x ^ (s * 0x9E3779B97F4A7C15)) & MASK)
    return mix(x)
