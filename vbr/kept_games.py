"""The games a process keeps once it has loaded them (vbr.sim.game_for): a fixed number at most,
the least recently used let go first, each kept under every key it was asked by, together with
how long the load that made it took; and what is worked out once for a game (`per_game`), kept
no longer than the game, so that a game let go is freed."""
from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from typing import Callable, Hashable, Iterable, NamedTuple, TypeVar

# The games vbr.sim.game_for keeps per process: a command plays one game at a time, or a few side by side (a compare its two arms, and under
# `--engine auto` the base again through python; a sweep one combination at a time per process;
# `vbr tune` a round of at most 9 values of a range, vbr.analysis.tune.GRID, beside its base game).
# 16 keeps each of these loaded once, and bounds what a sweep over many option sets, a long tune
# or a long-lived process holds (a Siatka game: about 0.4 MB resident in python, 0.6 MB in C).
GAMES_KEPT = 16

T = TypeVar("T")
_MISSING = object()


class Loaded(NamedTuple):
    """A kept game, and how long the load that made it took (seconds)."""

    game: object
    seconds: float


class KeptGames:
    """Up to `most` games, each under one or more keys (vbr.sim.game_for keeps a game under the
    path it was asked by and under its file's own path). Asking for a key (`get`) makes its game
    the most recently used, under all its keys; keeping a game beyond `most` lets the least
    recently used one go, under all its keys at once, its load time with it. A key a later load
    was kept under is that load's: letting the earlier game go leaves it. `most` counts games, not
    keys. Safe to use from several threads at once (vbr.sim.build_ahead loads games in threads);
    a load itself happens outside, so two threads asking for one missing key both load it, and
    the game kept last is the one kept."""

    def __init__(self, most: int):
        if most < 1:
            raise ValueError(f"a cache of games keeps at least one, not {most}")
        self.most = most
        self._by_key: OrderedDict[Hashable, Loaded] = OrderedDict()  # the least recently used first
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Loaded | None:
        """The game kept under `key` (now the most recently used), or None."""
        with self._lock:
            loaded = self._by_key.get(key)
            if loaded is not None:
                self._use(loaded)
            return loaded

    def __contains__(self, key: Hashable) -> bool:
        """Whether a game is kept under `key` (without using it)."""
        with self._lock:
            return key in self._by_key

    def keep(self, keys: Iterable[Hashable], game: object, seconds: float) -> None:
        """Keep `game` under each of `keys`, its load having taken `seconds`, as the most
        recently used; then let the least recently used games go until `most` are left."""
        loaded = Loaded(game, seconds)
        with self._lock:
            for key in keys:
                self._by_key[key] = loaded
            self._use(loaded)
            while len(self._kept()) > self.most:
                self._let_go(next(iter(self._by_key.values())))

    def games(self) -> list:
        """The games kept, the least recently used first."""
        with self._lock:
            return [loaded.game for loaded in self._kept()]

    def _kept(self) -> list[Loaded]:
        return list({id(loaded): loaded for loaded in self._by_key.values()}.values())

    def _keys_of(self, loaded: Loaded) -> list[Hashable]:
        return [key for key, there in self._by_key.items() if there is loaded]

    def _use(self, loaded: Loaded) -> None:
        for key in self._keys_of(loaded):
            self._by_key.move_to_end(key)

    def _let_go(self, loaded: Loaded) -> None:
        for key in self._keys_of(loaded):
            del self._by_key[key]


def per_game(work: Callable[[object], T]) -> Callable[[object], T]:
    """`work(game)` worked out once for each game and kept while the game is, no longer (keyed
    weakly): a game KeptGames lets go is not held alive by what was worked out for it, so what
    `work` gives must not hold the game either. Threads asking at once may each work it out."""
    values: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(work)
    def worked_out(game) -> T:
        value = values.get(game, _MISSING)
        if value is _MISSING:
            value = values[game] = work(game)
        return value
    return worked_out
