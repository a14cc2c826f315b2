"""`--engine auto` for a command that plays one rule file under many option sets (`sweep`, `tune`).

Each option set is a program of its own, and a C build of it costs seconds. Unless an agent is
`mcts` (whose search the python engine runs a hundred times slower: always C), the python engine
often plays a set's games in less time than that build takes, or even than loading a cached
build. So, set by set: in python when its games are expected to take less time there than in C,
else in C. Expected: in python, the games at a python game's CPU time (timed, with the run's
agents, on a few games of the first set that needs it); in C, a cached build's load
(C_LOAD_SECONDS) or else a build (BUILD_SECONDS, until one is timed here), then the games at a
twentieth of that; both over the workers. Both engines play the
same games, so the choice changes how long the command takes, never what it finds; each set's
rows name the engine that played it. When a C build fails, that set and every later one play in
python, and a note says why once."""
from __future__ import annotations

import time

BUILD_SECONDS = 2.0  # a C build's wall-clock time until one is timed in this process
C_LOAD_SECONDS = 0.05  # loading a cached C build
C_SPEEDUP = 20  # a random game in C against the python engine (docs/performance.md: 20x and more)
TIMING_SECONDS = 0.2  # the python engine is timed on games of a set for this much CPU at most ...
TIMING_GAMES = 20  # ... or this many games


class EngineChoice:
    """The engine of each option set of rule file `path`, for agents `agents` (an --agents spec),
    games played `workers` at once; `note` hears why C could not be had, once."""

    def __init__(self, path, agents: str | None, workers: int, note):
        from vbr.agents.spec import searches
        self.path, self.agents, self.workers, self.note = str(path), agents, max(1, workers), note
        self.searching = searches(agents)
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
            if self.searching or self._c_sooner(key, games, cached):
                start = time.perf_counter()
                try:
                    game = game_for(self.path, key, "c")
                except CEngineUnavailable as exc:
                    self.why_not_c = str(exc)
                    under = ", ".join(f"{k}={v}" for k, v in key) or "no options"
                    self.note(f"--engine auto: the C engine cannot run here ({exc}; the game under {under}); "
                              "playing through the python engine")
                else:
                    if not cached:
                        self.build_seconds = time.perf_counter() - start
                    return "c", game
        return "python", game_for(self.path, key, "python")

    def _c_sooner(self, key: tuple, games: int, cached: bool) -> bool:
        """Whether C is expected to play `games` games of this set sooner than python."""
        if self.game_seconds is None:
            self.game_seconds = _time_python_games(self.path, key, games, self.agents)
        if self.game_seconds == float("inf"):  # a game stopped at an error in the rules: C reports it as well
            return True
        python = games * self.game_seconds / self.workers
        return (C_LOAD_SECONDS if cached else self.build_seconds) + python / C_SPEEDUP < python


def _time_python_games(path: str, key: tuple, most: int, agents_spec: str | None) -> float:
    """A game's CPU time in the python engine with these agents (an --agents spec), over up to
    `most` and TIMING_GAMES games of the file under these options (seeds 1, 2, ...), stopping
    once TIMING_SECONDS are spent, after a game played first untimed (seed 0: what a process does
    once, on its first game)."""
    from vbr.play import parse_agents, play_typed_game
    from vbr.sim import game_for
    game = game_for(path, key, "python")
    agents = parse_agents(agents_spec, game.seats)
    try:
        play_typed_game(game, 0, agents)
        start = time.process_time()
        played = 0
        while played < min(most, TIMING_GAMES) and (played == 0 or time.process_time() - start < TIMING_SECONDS):
            played += 1
            play_typed_game(game, played, agents)
    except Exception:  # an error in the rules: C is taken, and the run reports the error as it plays
        return float("inf")
    return (time.process_time() - start) / played
