"""Seeds for game i of a run, for each agent and for imagined worlds, derived from the user's seed
with SplitMix64's finalizer (`derive`), which spreads nearby seeds apart: the one way of seeding."""
from __future__ import annotations

MASK = (1 << 64) - 1


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
