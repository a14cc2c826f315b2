"""The random streams of a game: one per place a draw happens (`Program.streams`), one per agent.

Each stream is a SplitMix64 counter (Steele, Lea and Flood, 2014): its state advances by the
golden gamma and each output is the state mixed. A stream's first state is the game's seed mixed
with the stream's key (64 bits of the SHA-256 of where the draw happens), so streams are
independent, cost one word of state and nothing to seed, and two variants of a rule file share
the numbers of every draw site their changes leave alone. A number below n is drawn without bias
(Lemire, 2019: multiply, and redraw the rare low products that would favour some values).

This module is the definition; the C engine's runtime (vbr/engines/c_runtime.h) computes the
same numbers, and tests hold the two together. NAME goes into logs: a log of another generator
replays with a clear message, never a silent difference.
"""
from __future__ import annotations

import hashlib

from vbr.seeds import derive

NAME = "splitmix64-streams/1"
MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK
    return z ^ (z >> 31)


def key(where: str) -> int:
    """A stream's key: 64 bits of the SHA-256 of where its draws happen."""
    return int.from_bytes(hashlib.sha256(where.encode()).digest()[:8], "little")


AGENT_KEY = key("agent")  # the agents' streams' key


def first_state(seed: int, stream_key: int) -> int:
    """A stream's state before its first draw, for a game seeded with `seed` (any int)."""
    return mix((mix(seed & MASK) ^ stream_key) & MASK)


AGENT_SALT = 7919  # an agent's stream is seeded from derive(game seed, AGENT_SALT, seat)


def agent_stream(seed: int, seat: int) -> int:
    """The first state of seat `seat`'s agent stream in a game seeded with `seed`: its random
    picks, an mcts seat's search seeds (vbr.play.typed_agents; the C engine's vbr_agent_stream)."""
    return first_state(derive(seed, AGENT_SALT, seat), AGENT_KEY)


def signed(x: int) -> int:
    """A 64-bit pattern as the signed word a state keeps it in."""
    return x - (1 << 64) if x >> 63 else x


def next_word(state: int) -> tuple[int, int]:
    """(the new state, a uniform 64-bit number) from a stream's state (either sign)."""
    s = (state + GAMMA) & MASK
    return s, mix(s)


def below(state: int, n: int) -> tuple[int, int]:
    """(the new state, a number uniform in 0..n-1) for 1 <= n < 2**63."""
    state = (state + GAMMA) & MASK  # next_word, written out: agents draw once a choice
    z = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK
    m = (z ^ (z >> 31)) * n
    low = m & MASK
    if low < n:
        threshold = ((1 << 64) - n) % n
        while low < threshold:
            state, x = next_word(state)
            m = x * n
            low = m & MASK
    return state, m >> 64
