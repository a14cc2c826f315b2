"""The games a process keeps once it has loaded them (vbr.sim.game_for): a fixed number at most,
the least recently used let go first, each kept under every key it was asked by, together with
how long the load that made it took."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Hashable, Iterable, NamedTuple


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

