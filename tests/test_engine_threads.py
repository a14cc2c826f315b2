"""One loaded game played from several threads at once (the C engine runs without the GIL) gives
each game as one thread alone gives it: no two threads share the arrays the engine hands to C."""
from __future__ import annotations

import threading

import pytest

import vbr
from vbr.play import play_game


def _results(game, seeds, agents) -> dict:
    return {s: (r.winner, r.points, r.choices) for s in seeds for r in [play_game(game, s, agents)]}


def _in_threads(game, seeds, agents, threads: int) -> dict:
    got: dict = {}
    parts = [seeds[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=lambda part: got.update(_results(game, part, agents)), args=(part,))
               for part in parts]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return got


@pytest.mark.parametrize("agents,games", [(["random", "random"], 4000), (["greedy", "random"], 600)],
                         ids=["whole games in one call", "seat by seat"])
def test_games_played_in_four_threads_at_once_are_the_games_one_thread_plays(agents, games):
    game = vbr.load("siatka", engine="c")
    seeds = list(range(games))
    alone = _results(game, seeds, agents)
    together = _in_threads(game, seeds, agents, 4)
    assert [s for s in seeds if together[s] != alone[s]] == []
