"""One seeding convention (docs/cli.md, "Seeds"): game i of a run with seed S is the game
`vbr run --seed SEED_i` plays, SEED_i being the seed `vbr sim --out` writes in game i's row; `vbr
graph --sim` and `vbr report` count those same games, and a report's metrics and diagram come from
one set of them.

The games are read back independently of the run: each is played again by `vbr run --log`, and
its steps between phases are read from the log's `phase` events."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

import vbr
from vbr.cli import main
from vbr.visualizer.command import simulate
from vbr.visualizer.graph import END, START

RALLY = str(Path(__file__).parent / "fixtures" / "valid" / "flow_rally.vbr")
SEED, N = 11, 12


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> list[dict]:
    """The games of `vbr sim RALLY --seed SEED -n N`, one row each."""
    out = tmp_path_factory.mktemp("sim") / "rows.jsonl"
    assert main(["sim", RALLY, "--seed", str(SEED), "-n", str(N), "--out", str(out)]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def replayed(seed: int, log: Path, capsys) -> tuple[str, list[str]]:
    """`vbr run RALLY --seed seed`: its result line, and the phases the game entered, in order."""
    assert main(["run", RALLY, "--seed", str(seed), "--quiet", "--log", str(log)]) == 0
    result = capsys.readouterr().out.splitlines()[0]
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return result, [e["phase"] for e in events if e["t"] == "phase"]


def steps_of(phases: list[str]) -> Counter:
    """A game's steps as the diagram counts them: from the start into the first phase, then one
    per `goto`. RALLY's `receive` calls maybe_end() (drawn as a node: it can end the game) each
    time play enters it: a step into maybe_end() and, when it returns, one back to `receive`;
    the game ends in it (its only `end`), from `receive` entered last."""
    assert phases[-1] == "receive"
    steps = Counter(zip([START, *phases], phases))
    n = phases.count("receive")
    steps[("receive", "maybe_end()")] += n
    steps[("maybe_end()", "receive")] += n - 1
    steps[("maybe_end()", END)] += 1
    return steps


def test_game_i_of_sim_is_vbr_run_with_the_seed_of_its_row(rows, tmp_path, capsys):
    assert [r["index"] for r in rows] == list(range(N))
    assert len({r["seed"] for r in rows}) == N  # each game its own seed, none of them SEED + i alone
    for r in rows:
        result, _ = replayed(r["seed"], tmp_path / "g.jsonl", capsys)
        assert r["winner"] is not None  # RALLY has no draw, nor points: `vbr run` says `seat N wins`
        assert result == f"result: seat {r['winner']} wins after {r['choices']} choices"


def test_graph_sim_counts_the_games_sim_plays(rows, tmp_path, capsys):
    expected = Counter()
    for r in rows:
        expected += steps_of(replayed(r["seed"], tmp_path / "g.jsonl", capsys)[1])
    engine = rows[0]["engine"]
    game = vbr.load(RALLY, engine=engine)  # the games of the engine that played the rows
    assert simulate(game, N, seed=SEED, engine=engine).steps == dict(expected)
    assert simulate(game, N, seed=SEED, workers=2, engine=engine).steps == dict(expected)


def test_a_reports_diagram_counts_the_games_of_its_metrics(rows, tmp_path, capsys):
    page = tmp_path / "r.html"
    assert main(["report", RALLY, "-n", str(N), "--seed", str(SEED), "-o", str(page)]) == 0
    capsys.readouterr()
    html = page.read_text()
    wins = Counter(r["winner"] for r in rows)
    assert f"{wins[0]} of {N} games" in html and f"{wins[1]} of {N} games" in html  # the metrics: sim's games
    entered = Counter()
    for r in rows:
        entered.update(replayed(r["seed"], tmp_path / "g.jsonl", capsys)[1])
    for phase in ("serve", "receive", "fault"):  # the diagram's visits per game: the same games
        row = re.search(rf"<tr><td><code>{phase}</code>.*?</tr>", html).group()
        assert re.findall(r"<td>([^<]*)</td>", row)[-1] == f"{entered[phase] / N:.2f}", phase
