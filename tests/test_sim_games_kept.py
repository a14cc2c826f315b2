"""A process keeps the games it loads for its runs (vbr.sim.game_for), at most GAMES_KEPT of them:
the least recently asked for is let go, under every key it was kept by, and loaded again from its
file when asked for again, the same game. A sweep over many option sets, a long tune or a
long-lived process holds no more games than that, however many it plays."""
from __future__ import annotations

import gc
import weakref
from dataclasses import replace

import pytest

from vbr.kept_games import KeptGames
from vbr.play import play_game
from vbr.sim import GAMES_KEPT, RunSpec, game_for, load_seconds, play_range

# a race to `target` points, whose every option value is another game (another load)
RACE = """game "Race to a target"
option target = 3
seats 2
points score
var score: int per seat = 0
var turn_of: seat = 0
die d = 1..6
start turn

phase turn {
  choose n from [1, 2] by turn_of as "how many points to try for"
  if roll d > 2 * n {
    score[turn_of] += n
  }
  if score[turn_of] >= target {
    end winner turn_of
  }
  turn_of = next_seat(turn_of)
  goto turn
}
"""


def _race(tmp_path) -> str:
    path = tmp_path / "race.vbr"
    path.write_text(RACE, encoding="utf-8")
    return str(path)


def _target(n: int) -> tuple:
    return (("target", n),)


def _alive(refs: dict) -> list:
    gc.collect()
    return [n for n, ref in refs.items() if ref() is not None]


def _games(game, seeds=(1, 2, 3)) -> list:
    """Each seed's game played by two random seats: its outcome and its whole log."""
    played = []
    for seed in seeds:
        log: list = []
        played.append((play_game(game, seed, ["random", "random"], log_sink=log).trial_fields(), log))
    return played


def test_loading_more_option_sets_than_games_kept_leaves_only_the_last_games_kept_alive(tmp_path):
    path = _race(tmp_path)
    targets = range(1, GAMES_KEPT + 3)
    refs = {n: weakref.ref(game_for(path, _target(n), "python")) for n in targets}
    assert _alive(refs) == list(targets)[-GAMES_KEPT:]


def test_a_game_let_go_is_loaded_again_when_asked_for_and_plays_the_same_games_for_the_same_seeds(tmp_path):
    path = _race(tmp_path)
    first = game_for(path, _target(3), "python")
    before = _games(first)
    for n in range(4, 4 + GAMES_KEPT):
        game_for(path, _target(n), "python")
    assert load_seconds(path, _target(3), "python") == 0.0  # let go: this process holds no such game
    again = game_for(path, _target(3), "python")
    assert again is not first  # loaded again from the file
    assert load_seconds(path, _target(3), "python") > 0.0  # the time of that second load
    assert _games(again) == before


def test_the_game_asked_for_most_recently_stays_while_more_than_games_kept_others_are_loaded(tmp_path):
    path = _race(tmp_path)
    kept = game_for(path, _target(1), "python")
    oldest = weakref.ref(game_for(path, _target(2), "python"))
    for n in range(3, 3 + GAMES_KEPT):
        game_for(path, _target(n), "python")
        assert game_for(path, _target(1), "python") is kept  # asked for again after each load
    assert _alive({2: oldest}) == []


def test_a_game_kept_under_the_path_it_was_asked_by_and_its_files_own_is_let_go_under_both(tmp_path, monkeypatch):
    # asked as ./race.vbr, the game names its file race.vbr: kept under both, found by either
    monkeypatch.chdir(tmp_path)
    _race(tmp_path)
    game = game_for("./race.vbr", _target(3), "python")
    assert str(game.path) == "race.vbr"
    assert game_for("race.vbr", _target(3), "python") is game
    ref = weakref.ref(game)
    del game
    for n in range(4, 4 + GAMES_KEPT):
        game_for("race.vbr", _target(n), "python")
    assert _alive({3: ref}) == []  # under neither key any more
    assert game_for("./race.vbr", _target(3), "python") is game_for("race.vbr", _target(3), "python")


def test_a_key_a_later_load_was_kept_under_stays_with_it_when_the_earlier_game_is_let_go():
    # two loads of one file asked by two paths: the second is kept under the file's own path too
    games = KeptGames(2)
    earlier, later, other = object(), object(), object()
    games.keep(["asked", "own"], earlier, 1.0)
    games.keep(["asked again", "own"], later, 2.0)
    assert games.get("own").game is later
    games.get("asked again")
    games.keep(["another"], other, 3.0)  # three games: the earlier, least recently used, goes
    assert "asked" not in games
    assert games.get("own") == (later, 2.0)
    assert games.games() == [other, later]



def test_a_game_let_go_after_runs_played_it_in_both_engines_is_freed(tmp_path):
    # what a run works out once per game (its whole-game plan in C, its diagram's nodes, its
    # repeating phases) is kept no longer than the game: a sweep's worker frees each combination
    played = []
    for engine in ("c", "python"):
        spec = RunSpec.of(_race(tmp_path), {"target": 2}, 1, ["random", "random"], 4, engine=engine, trace=True)
        assert len(play_range(spec, 0, 4)) == 4
        assert len(play_range(replace(spec, trace=False), 0, 4)) == 4
        played.append(weakref.ref(game_for(spec.path, spec.options, engine)))
    for n in range(3, 3 + GAMES_KEPT):  # as many other games, each played
        spec = RunSpec.of(_race(tmp_path), {"target": n}, 1, ["random", "random"], 1, engine="python")
        play_range(spec, 0, 1)
    assert _alive(dict(enumerate(played))) == []


def test_a_game_let_go_keeps_its_rules_for_the_runs_handed_to_workers_and_a_changed_file_is_refused(tmp_path):
    # a tune of more values than GAMES_KEPT lets the first go before its runs are handed on: the
    # workers must still be told which rules to check, and this process must not play an edited
    # file's rules for a game it loaded before the edit
    from vbr.engines.game import load
    from vbr.sim import RulesChanged, rules_digest, stamped
    path = _race(tmp_path)
    before = rules_digest(load(path, {"target": 1}, engine="python"))
    first = RunSpec.of(path, {"target": 1}, 1, ["random", "random"], 4, engine="python")
    game_for(path, _target(1), "python")
    for n in range(2, GAMES_KEPT + 3):
        game_for(path, _target(n), "python")
    assert load_seconds(path, _target(1), "python") == 0.0  # let go
    assert stamped(first).rules == before
    (tmp_path / "race.vbr").write_text(RACE.replace("2 * n", "3 * n"), encoding="utf-8")
    with pytest.raises(RulesChanged, match="race.vbr .* was changed after this process first loaded it"):
        game_for(path, _target(1), "python")


def test_a_sweeps_cells_keep_no_games_so_no_more_than_games_kept_stay_alive(tmp_path):
    from vbr.analysis.commands import load_variant
    path = _race(tmp_path)
    targets = range(1, GAMES_KEPT + 5)
    cells, refs = [], {}
    for n in targets:
        cells.append(load_variant(path, {"target": n}, None, "python"))
        refs[n] = weakref.ref(game_for(path, _target(n), "python"))  # the game the cell was loaded from
    assert _alive(refs) == list(targets)[-GAMES_KEPT:]
    # what a sweep reads of every cell is kept without the game
    assert [(c.label, c.option_values["target"], c.seats, c.sides) for c in cells] == \
        [(f"target={n}", n, 2, [0, 1]) for n in targets]


def test_a_sweep_of_more_cells_than_games_kept_plays_each_cell_under_its_own_option(tmp_path, capsys):
    # each cell's game is let go and loaded again to be played: a race to 1 point ends sooner than
    # a race to 20, so the cells' mean choices a game rise with the target
    import json

    from vbr.cli import main
    path = _race(tmp_path)
    top = GAMES_KEPT + 4
    assert main(["sweep", path, "--grid", "target=" + ",".join(map(str, range(1, top + 1))), "-n", "30", "--engine", "python", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["options"]["target"] for r in rows] == list(range(1, top + 1))
    steps = [r["summary"]["mean_steps"] for r in rows]
    assert steps[0] < steps[len(steps) // 2] < steps[-1]
