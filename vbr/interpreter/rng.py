"""A seeded generator whose whole state is one int: cheap to copy, identical on every platform.

SplitMix64; the state lives in the game state, so effects never call a global RNG and a seed
fixes a game byte for byte.
"""
MASK = (1 << 64) - 1


def mix(x: int) -> int:
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    x = (x ^ (x >> 27)) * 0x94D049BB133111EB & MASK
    return x ^ (x >> 31)


def step(state: int) -> tuple[int, int]:
    """Advance: returns (new state, 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    return state, mix(state)


def below(state: int, n: int) -> tuple[int, int]:
    """Advance and draw a number in 0..n-1: `step` and `mix` inlined, for the hot paths."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    x = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    x = (x ^ (x >> 27)) * 0x94D049BB133111EB & MASK
    return state, ((x ^ (x >> 31)) * n) >> 64


def derive(seed: int, *salt: int) -> int:
    """An independent seed for game i of a run, or for an agent's own choices."""
    x = seed & MASK
    for s in salt:
        x = mix((x ^ (s * 0x9E3779B97F4A7C15)) & MASK)
    return mix(x)
