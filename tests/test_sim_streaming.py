"""`vbr sim` lets each game go once it has its figures and its `--out` row: the rows written as
the games arrive are the rows the run's games give written at once (as `vbr sim` wrote them from
its list of games before), whatever stops the run, a Ctrl-C too."""
import csv
import json
from types import SimpleNamespace

import pytest
from test_analysis_commands import _signal_once_games_are_done

from vbr.analysis.commands import Variant, run_fields
from vbr.analysis.metrics import row
from vbr.analysis.output import rows_text
from vbr.cli import main
from vbr.sim import RunSpec, game_for, play_range


def rows_at_once(path, n: int, seed: int, agents: list[str], rotate: bool = False, engine: str = "c") -> str:
    """The text `rows_text` gives of the rows of Siatka's first n games of a run (`metrics.row`,
    with `vbr sim`'s run fields), all at once."""
    game = game_for("siatka", (), engine)
    spec = RunSpec.of(game.path, {}, seed, agents, n, engine=engine, rotate=rotate)
    run = run_fields(Variant(game, ""), SimpleNamespace(engine=engine, restrict=None), "")
    return rows_text(path, [row(t, run) for t in play_range(spec, 0, n)])


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
@pytest.mark.parametrize("flags,agents,rotate", [
    ((), ["random", "random"], False),
    (("--agents", "random,greedy"), ["random", "greedy"], True),  # seats rotated: two seatings a deal
    (("--workers", "2"), ["random", "random"], False),  # the games come back from two processes
])
def test_rows_written_as_games_arrive_are_the_rows_of_the_run_written_at_once(tmp_path, capsys, suffix, flags,
                                                                              agents, rotate):
    out = tmp_path / f"games{suffix}"
    assert main(["sim", "siatka", "-n", "240", "--seed", "4", "--engine", "c", "--out", str(out), *flags]) == 0
    assert out.read_text(encoding="utf-8") == rows_at_once(out, 240, 4, agents, rotate)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no part file left beside it


def test_a_run_stopped_at_its_precision_writes_the_rows_of_the_games_it_kept(tmp_path, capsys):
    out = tmp_path / "games.csv"
    assert main(["sim", "siatka", "-n", "100000", "--seed", "4", "--engine", "c", "--precision", "0.1",
                 "--json", "--out", str(out)]) == 0
    games = json.loads(capsys.readouterr().out)["games"]
    assert 0 < games < 100000  # ±10 points needs a few hundred games, not a hundred thousand
    assert out.read_text(encoding="utf-8") == rows_at_once(out, games, 4, ["random", "random"])


def test_ctrl_c_keeps_the_rows_and_the_summary_of_the_same_finished_games(tmp_path):
    out = tmp_path / "games.csv"
    code, stdout, err, _ = _signal_once_games_are_done(["sim", "siatka", "-n", 100_000_000, "--engine", "c",
                                                        "--json", "--progress", "--out", out])
    assert code == 130
    stats = json.loads(stdout)
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert stats["interrupted"] and stats["games"] == len(rows) > 0
    assert [int(r["index"]) for r in rows] == list(range(len(rows)))
    assert stats["wins"]["0"] + stats["wins"]["1"] + stats["draws"] == len(rows)
    assert sum(r["winner"] == "0" for r in rows) == stats["wins"]["0"]
    assert out.read_text(encoding="utf-8") == rows_at_once(out, len(rows), 0, ["random", "random"])
    assert f"vbr: interrupted after {len(rows)} of 100000000 games; written: {out}" in err
    assert [p.name for p in tmp_path.iterdir()] == ["games.csv"]
