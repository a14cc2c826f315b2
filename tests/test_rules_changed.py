"""A run's games are the same whatever runs them (vbr/sim.py): worker processes load the rule file
again, so one edited on disk after the command loaded it would have them play other rules than the
run's own (and than the report describes). They check they read the rules the command loaded, and
a run whose file changed stops with an error saying so."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vbr.backends import LocalBackend
from vbr.sim import RulesChanged, RunSpec, played_game

PIG = Path(__file__).parent / "fixtures" / "valid" / "pig.vbr"


def _spec(path: Path) -> RunSpec:
    return RunSpec.of(str(path), {}, 1, ["random", "random"], 40, engine="python")


def _winners(chunks) -> list:
    return [t.winner for batch in chunks for t in batch]


def test_a_pool_whose_rule_file_is_unchanged_plays_the_games_this_process_plays(tmp_path):
    path = tmp_path / "pig.vbr"
    shutil.copy(PIG, path)
    played_game(str(path), {}, "python", print)  # the command loads the file, as `vbr sim` does
    here = _winners(LocalBackend(1).map(_spec(path), [(0, 20), (20, 40)]))
    assert _winners(LocalBackend(2).map(_spec(path), [(0, 20), (20, 40)])) == here


def test_a_rule_file_edited_after_the_command_loaded_it_stops_the_pool_with_an_error_saying_so(tmp_path):
    path = tmp_path / "pig.vbr"
    shutil.copy(PIG, path)
    played_game(str(path), {}, "python", print)  # the command loads the file ...
    path.write_text(PIG.read_text().replace(">= 20", ">= 5"))  # ... and its author saves an edit meanwhile
    with pytest.raises(RulesChanged, match="pig.vbr .* was changed after this run began"):
        _winners(LocalBackend(2).map(_spec(path), [(0, 20), (20, 40)]))
