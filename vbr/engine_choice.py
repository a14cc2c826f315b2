"""`--engine auto` for a command that plays one rule file under many option sets (`vbr sweep`).

Each option set is a program of its own, and a C build of it costs seconds. When every seat's
agent is `random` or `first`, the python engine often plays a set's games in less time than that
build takes. So, set by set: a set whose C build is already in the cache plays in C; with other
agents it is built and plays in C; with random or first agents it plays in python when its games
are expected to take the python engine less time than a C build, else in C. The expectation: a
python game's CPU time, timed on a few games of the first set that needs one, over the workers;
a C build's time, taken as BUILD_SECONDS until one is timed here. Both engines play the same
games, so the choice changes how long the command takes, never what it finds; each set's rows
name the engine that played it. When a C build fails, that set and every later one play in
python, and a note says why once."""
from __future__ import annotations

import time

CHEAP_AGENTS = frozenset({"random", "first"})
BUILD_SECONDS = 2.0  # a C build's wall-clock time until one is timed in this process
TIMING_SECONDS = 0.2  # the python engine is timed on games of a set for this much CPU at most ...
TIMING_GAMES = 20  # ... or this many games


class EngineChoice:
    """The engine of each option set of rule file `path`, for agents `agents` (an --agents spec),
    games played `workers` at once; `note` hears why C could not be had, once."""

    def __init__(self, path, agents: str | None, workers: int, note):
        from vbr.agents.spec import agent_names
        self.path, self.workers, self.note = str(path), max(1, workers), note
        self.cheap = agent_names(agents) <= CHEAP_AGENTS
        self.why_not_c: str | None = None
        self.build_seconds = BUILD_SECONDS
        self.game_seconds: float | None = None  # a python game's CPU time, once timed

    def load(self, options: dict, games: int) -> tuple[str, object]:
        """The engine `games` games of the file under `options` play in, and its game (loaded
        once per process: vbr.sim.game_for)."""
        from vbr.engines.c_engine import CEngineUnavailable
        from vbr.engines.game import c_build_cached
        from vbr.sim import game_for
        key = tuple(sorted(options.items()))
        if self.why_not_c is None:
            cached = c_build_cached(self.path, options)
            if cached or not self.cheap or self._python_seconds(key, games) >= self.build_seconds:
                start = time.perf_counter()
                try:
                    game = game_for(self.path, key, "c")
                except CEngineUnavailable as exc:
                    self.why_not_c = str(exc)
                    self.note(f"--engine auto: the C engine cannot run here ({exc}); playing through the python engine")
                else:
                    if not cached:
                        self.build_seconds = time.perf_counter() - start
                    return "c", game
        return "python", game_for(self.path, key, "python")

    def _python_seconds(self, key: tuple, games: int) -> float:
        """How long the python engine is expected to take over `games` games of this set."""
        if self.game_seconds is None:
            self.game_seconds = _time_python_games(self.path, key)
        return games * self.game_seconds / self.workers


def _time_python_games(path: str, key: tuple) -> float:
    """A random game's CPU time in the python engine, over up to TIMING_GAMES games of the file
    under these options (seeds 0, 1, ...), stopping once TIMING_SECONDS are spent."""
    from vbr.play import play_typed_game
    from vbr.sim import game_for
    game = game_for(path, key, "python")
    agents = ["random"] * game.seats
    start = time.process_time()
    played = 0
    while played < TIMING_GAMES and (played == 0 or time.process_time() - start < TIMING_SECONDS):
        try:
            play_typed_game(game, played, agents)
        except Exception:  # an error in the rules: C is taken, and the run reports the error as it plays
            return float("inf")
        played += 1
    return (time.process_time() - start) / played
