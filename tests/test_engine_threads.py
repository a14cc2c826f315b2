"""One loaded game played from several threads at once gives each game as one thread alone gives
it (docs/api.md, play_game), in either engine: the C engine runs without the GIL and no two
threads share the arrays it hands to C; the Python engine's generated code hears its log and its
in-play agent (LOG, AUTO) from a namespace of the thread's own."""
from __future__ import annotations

import threading

import pytest

import vbr
from vbr.play import play_game


def _results(game, seeds, agents, record=False) -> dict:
    return {s: (r.winner, r.points, r.choices, r.state.log if record else None)
            for s in seeds for r in [play_game(game, s, agents, record=record)]}


def _in_threads(game, seeds, agents, threads: int, record=False) -> dict:
    got: dict = {}
    parts = [seeds[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=lambda part: got.update(_results(game, part, agents, record)), args=(part,))
               for part in parts]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return got


@pytest.mark.parametrize("engine", ["c", "python"])
@pytest.mark.parametrize("agents,games", [(["random", "random"], 4000), (["greedy", "random"], 600)],
                         ids=["whole games in one call", "seat by seat"])
def test_games_played_in_four_threads_at_once_are_the_games_one_thread_plays(engine, agents, games):
    game = vbr.load("siatka", engine=engine)
    seeds = list(range(games if engine == "c" else games // 10))
    alone = _results(game, seeds, agents)
    together = _in_threads(game, seeds, agents, 4)
    assert [s for s in seeds if together[s] != alone[s]] == []


@pytest.mark.parametrize("engine", ["c", "python"])
def test_a_game_recorded_while_other_threads_play_unrecorded_keeps_its_own_events_only(engine):
    """Each recorded game's events are those it logs alone: none of the unrecorded games played
    beside it meanwhile, and none of its own missing."""
    game = vbr.load("siatka", engine=engine)
    seeds = list(range(60))
    alone = _results(game, seeds, ["random", "random"], record=True)
    got: dict = {}
    recorder = threading.Thread(target=lambda: got.update(_results(game, seeds, ["random", "random"], record=True)))
    others = [threading.Thread(target=_results, args=(game, range(100 + 50 * i, 150 + 50 * i), ["random", "greedy"]))
              for i in range(3)]
    for w in [recorder, *others]:
        w.start()
    for w in [recorder, *others]:
        w.join()
    assert [s for s in seeds if got[s] != alone[s]] == []
