"""`--engine` on the commands that play: the typed engines give the same games as each other, run
through `vbr sim`, `run`, `sweep`, `compare`, `report` and `graph --sim`, and the results name the
engine; `--native` is `--engine c`; what a typed engine cannot do is a clear error, never a
traceback."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def vbr(*argv, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, argv)], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def test_sim_plays_the_same_games_through_the_python_and_the_c_engine(tmp_path):
    rows = {}
    for engine in ("python", "c"):
        out = tmp_path / f"{engine}.jsonl"
        done = vbr("sim", "siatka", "-n", 60, "--seed", 5, "--engine", engine, "--out", out)
        assert done.returncode == 0, done.stderr
        rows[engine] = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r.pop("engine") for r in rows["python"]} == {"python"} and {r.pop("engine") for r in rows["c"]} == {"c"}
    assert rows["python"] == rows["c"]
    # the book: "The player who first scores 9 points wins"
    assert all(max(r["score"]) == 9 and r["score"][r["winner"]] == 9 for r in rows["c"])


def test_greedy_and_mcts_seats_play_the_same_games_through_the_python_and_the_c_engine(tmp_path):
    # one deal in both seatings (the agents differ, so the seats are rotated): each agent in each
    # seat; the search at its default budget (past 20 iterations), seconds a game in python. In one
    # process: the games are the same in any number of workers (test_cli.py's one and two workers)
    rows = {}
    for engine in ("python", "c"):
        out = tmp_path / f"{engine}.jsonl"
        done = vbr("sim", "siatka", "-n", 2, "--agents", "greedy,mcts:iterations=20", "--engine", engine, "--out", out,
                   "--workers", 1)
        assert done.returncode == 0, done.stderr
        rows[engine] = [json.loads(line) for line in out.read_text().splitlines()]
        assert {r.pop("engine") for r in rows[engine]} == {engine}
    assert rows["python"] == rows["c"] and len(rows["c"]) == 2
    assert [r["agents"] for r in rows["c"]] == [["greedy", "mcts:iterations=20"], ["mcts:iterations=20", "greedy"]]


def test_sim_json_names_the_engine():
    done = vbr("sim", "siatka", "-n", 10, "--engine", "c", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["engine"] == "c"


def test_a_construct_the_typed_engines_lack_is_a_located_error(tmp_path):
    f = tmp_path / "lists.vbr"  # a list of lists worked out in play
    f.write_text('game "Lists"\nseats 2\nstart one\nvar seen: list of int per seat = [[1], [2, 3]]\n'
                 'phase one {\n  let n = [[count(seen)]]\n  end draw\n}\n')
    done = vbr("sim", f, "-n", 2, "--engine", "c")
    assert done.returncode == 1 and f"{f}:6:12: error: not supported yet:" in done.stderr
    assert "Traceback" not in done.stderr


def test_run_through_the_c_engine_ends_as_the_python_engine():
    ends = [vbr("run", "siatka", "--seed", 3, "--engine", e, "--quiet").stdout for e in ("python", "c")]
    assert ends[0] == ends[1] and ends[0].startswith("result: seat ")


def test_sweep_and_compare_take_the_engine():
    sweep = vbr("sweep", "siatka", "--grid", "target=3,5", "-n", 30, "--engine", "c", "--json")
    assert sweep.returncode == 0, sweep.stderr
    compare = vbr("compare", "siatka", "--variant-option", "target=3", "-n", 30, "--engine", "python", "--json")
    assert compare.returncode == 0, compare.stderr


def test_vbr_load_gives_a_typed_game_that_plays_to_the_books_end():
    import vbr as package
    game = package.load("siatka", {"target": 3}, engine="c")
    state = game.new_state(4)
    while not state.is_terminal():
        state.apply(state.legal_actions()[-1])
    # [Goal of the Game] first to `target` points wins
    assert max(state.outcome().points) == 3


def test_native_plays_what_engine_c_plays_and_names_the_c_engine(tmp_path):
    rows, summaries = {}, {}
    for flag in (["--native"], ["--engine", "c"]):
        out = tmp_path / f"{flag[0][2:]}.jsonl"
        done = vbr("sim", "siatka", "-n", 20, "--seed", 3, *flag, "--out", out, "--json")
        assert done.returncode == 0, done.stderr
        rows[flag[0]] = out.read_text()
        summaries[flag[0]] = json.loads(done.stdout)
    assert rows["--native"] == rows["--engine"] and '"engine": "c"' in rows["--native"]
    assert summaries["--native"]["engine"] == "c"


def test_native_with_another_engine_is_a_usage_error():
    done = vbr("run", "siatka", "--native", "--engine", "python")
    assert done.returncode == 2
    assert done.stderr.strip() == "vbr: error: --native is --engine c; it does not go with --engine python"


def test_a_typed_run_names_its_engine_in_text_and_in_every_out_row(tmp_path):
    sim = vbr("sim", "siatka", "-n", 10, "--engine", "python")
    assert sim.returncode == 0 and sim.stdout.splitlines()[0].endswith("agents random | random, engine python")
    out = tmp_path / "cmp.csv"
    compare = vbr("compare", "siatka", "--variant-option", "target=3", "-n", 10, "--engine", "c", "--out", out)
    assert compare.returncode == 0, compare.stderr
    assert "agents random | random, engine c" in compare.stdout
    with out.open() as f:
        assert {r["engine"] for r in csv.DictReader(f)} == {"c"}
    out = tmp_path / "sweep.csv"
    sweep = vbr("sweep", "siatka", "--grid", "target=3,5", "-n", 10, "--engine", "python", "--out", out)
    assert sweep.returncode == 0, sweep.stderr
    with out.open() as f:
        assert [r["engine"] for r in csv.DictReader(f)] == ["python", "python"]


def test_the_phase_steps_of_a_log_are_the_same_in_both_engines_and_follow_siatkas_turn_flow():
    """graph --sim and report count a game's steps between phases from its log. Siatka [Set-up]:
    the tiles are placed once, then the first serve; [Attack]: each point ends a rally begun by a
    serve, and play resumes with a serve after every point but the game's last."""
    import vbr as package
    from vbr.flow_steps import flow_steps
    from vbr.play import play_game
    from vbr.turn_flow import END, START
    games = {e: package.load("siatka", engine=e) for e in ("python", "c")}
    for seed in range(3):
        steps = {e: flow_steps(play_game(g, seed, ["random", "random"], record=True).state.log).steps
                 for e, g in games.items()}
        assert steps["python"] == steps["c"], seed
        points = sum(play_game(games["c"], seed, ["random", "random"]).points)
        taken = steps["c"]
        assert (taken[(START, "placement")], taken[("placement", "serve")]) == (1, 1)
        assert (taken[("serve", "bounce")], taken[("bounce", "serve")]) == (points, points - 1)
        assert taken[("bounce", END)] == 1


def test_graph_sim_through_the_c_engine_counts_each_game_entering_placement_once():
    # Siatka [Set-up]: each player places their tiles once, before the first serve
    done = vbr("graph", "siatka", "--sim", 20, "--engine", "c")
    assert done.returncode == 0, done.stderr
    edge = next(line for line in done.stdout.splitlines() if line.strip().startswith('"start" -> "placement"'))
    assert "(taken 20 times: 100.0% of the exits from start)" in edge


def test_report_plays_through_the_engine_asked_for_and_names_it(tmp_path):
    page = tmp_path / "r.html"
    done = vbr("report", "siatka", "-n", 10, "--engine", "c", "-o", page)
    assert done.returncode == 0, done.stderr
    assert "seed 0, engine c" in page.read_text()


def test_vbr_test_runs_scenarios_through_the_c_engine(tmp_path):
    """The tutorial's first Bump scenario as written and once more expecting power 5 (the forced
    serve is a 4), through the C engine: one PASS, one FAIL saying both sides, exit 1."""
    tutorial = ROOT / "docs" / "tutorial"
    text = (tutorial / "bump_test.vbr").read_text()
    first = text.index("scenario ")
    scenario = text[first:text.index("scenario ", first + 1)]
    wrong = scenario.replace('scenario "', 'scenario "wrong: ', 1).replace("expect power == 4", "expect power == 5")
    (tmp_path / "bump.vbr").write_text((tutorial / "bump.vbr").read_text())
    (tmp_path / "t.vbr").write_text(text[:first] + scenario + wrong)
    done = vbr("test", tmp_path / "t.vbr", "--engine", "c")
    assert done.returncode == 1, done.stderr
    assert done.stdout.count("PASS ") == 1 and done.stdout.count("FAIL ") == 1, done.stdout
    assert "expectation failed (left side is 4, right side is 5)" in done.stdout


def test_mutate_kills_the_same_mutant_for_the_same_reason_through_the_python_and_the_c_engine(tmp_path):
    """Deleting Siatka's `take_over(receiver)` in the serve leaves the holder at 0: the serve
    scenario, which expects seat 1 to hold the ball, kills that mutant in either engine, with the
    same reason. (The book's serve scenario alone, in a file of its own: every other scenario of
    the book would cost the C engine a build per option group, judging nothing more here.)"""
    lines = (ROOT / "rules" / "siatka.vbr").read_text().splitlines()
    serve = 1 + [x.strip() for x in lines].index("take_over(receiver)")  # its one call, in the serve
    book = (ROOT / "rules" / "tests" / "siatka.vbr").read_text()
    first = book.index('scenario "[Serve] the die shows 3')
    scenario = book[first:book.index("\nscenario ", first)]
    tests = tmp_path / "serve.vbr"
    tests.write_text(f'tests for "{ROOT / "rules" / "siatka.vbr"}"\n{scenario}\n')
    reports = {}
    for engine in ("python", "c"):
        done = vbr("mutate", "siatka", "--tests", tests, "--engine", engine, "-n", 1, "--kind", "delete", "--lines",
                   serve, "--json")
        assert done.returncode == 0, done.stderr
        reports[engine] = json.loads(done.stdout)
    assert reports["python"]["killed"] == reports["c"]["killed"] == 1
    assert reports["python"]["killed_by"] == reports["c"]["killed_by"]
    assert "[Serve] the die shows 3" in json.dumps(reports["python"]["killed_by"])


def test_a_random_seat_against_a_greedy_one_keeps_the_same_score_track_in_both_engines():
    """The random seat's turns run inside the engine's loop, the greedy seat's one by one: the
    score after each change (what lead changes and comebacks are read from) is the same in both."""
    from vbr.engines.game import load
    from vbr.play import play_typed_game
    games = {e: load(ROOT / "rules" / "siatka.vbr", {}, engine=e) for e in ("python", "c")}
    for seed in range(4):
        tracks = {e: play_typed_game(g, seed, ["random", "greedy:samples=1"]).score_track for e, g in games.items()}
        assert tracks["python"] == tracks["c"], seed
        # [Attack] each point moves one marker one space: the track goes up by one point a row
        rows = [(0, (0, 0))] + tracks["c"]
        assert all(sum(b) == sum(a) + 1 for (_, a), (_, b) in zip(rows, rows[1:]))


def test_vbr_load_native_is_the_c_engine_and_goes_with_no_other():
    import vbr as package
    from vbr.engines.c_engine import CEngine
    # docs/api.md: `native=True` is another spelling of `engine="c"`
    assert type(package.load("siatka", native=True).engine) is CEngine
    with pytest.raises(ValueError, match="native=True is engine='c'"):
        package.load("siatka", native=True, engine="python")


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_traced_run_counts_each_game_s_steps_between_phases_as_its_log_has_them(tmp_path, engine):
    # a phase entered at the start, then again after each of its choices but the game's last:
    # 1 step from the start into it and n - 1 from it into itself; the game ends in it
    from vbr.sim import RunSpec, play_range
    from vbr.turn_flow import END, START
    rules = tmp_path / "round.vbr"
    rules.write_text('game "Round"\nseats 2\noption n = 50\nvar t: int = 0\nstart p\nphase p {\n'
                     '  choose x from [1, 2] by t % 2\n  t += 1\n  if t >= n { end winner 0 }\n  goto p\n}\n',
                     encoding="utf-8")
    trials = play_range(RunSpec.of(rules, {"n": 50}, 0, ["random", "random"], 3, trace=True, engine=engine), 0, 3)
    assert [(t.steps, t.entered) for t in trials] == [({(START, "p"): 1, ("p", "p"): 49, ("p", END): 1},
                                                         {START: 1, "p": 50, END: 1})] * 3
