"""One score: who leads it and by how much. A score is a tuple, one number per side.

The leader is the side with strictly the most points: a shared top is nobody's lead. The gap is
the top minus the second. Both are read for every score of every game a summary covers, and a
run's games pass through few scores, each many times: they are cached by score.
"""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1 << 14)
def leader_of(score: tuple) -> int | None:
    """The side strictly ahead, else None. Why strictly: a shared top is nobody's lead, so a tie
    can neither start nor end one. A score of fewer than two sides has nobody to lead."""
    if len(score) < 2:
        return None
    top = max(score)
    return score.index(top) if score.count(top) == 1 else None


@lru_cache(maxsize=1 << 14)
def gap_of(score: tuple) -> float:
    """Top minus second; 0 for a score of fewer than two sides."""
    if len(score) < 2:
        return 0
    ordered = sorted(score)
    return ordered[-1] - ordered[-2]
