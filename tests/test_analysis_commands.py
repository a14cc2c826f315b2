"""`vbr sim --out/--plot`, `vbr sweep` and `vbr compare` through the command line, as a designer
runs them: rows per game, a row per combination, differences with intervals, and every bad input
refused with exit 2 before a game is played."""
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, ended
from vbr.analysis.metrics import CSV_FIELDS, RUN_FIELDS
from vbr.cli import main
from vbr.play import play_game


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------------- sim --out
def test_sim_out_jsonl_has_one_row_per_game_that_vbr_run_plays_again(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    code, _, _ = run(capsys, "sim", "siatka", "-n", 6, "--seed", 3, "--agents", "random,greedy",
                      "--no-rotate-seats", "--out", out)
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in rows] == list(range(6))
    assert len({r["seed"] for r in rows}) == 6
    import vbr
    game = vbr.load("siatka", engine=rows[0]["engine"])  # the engine the rows name
    for r in rows:  # each row's seed is the game: played again alone, it ends the same way
        again = play_game(game, r["seed"], ["random", "greedy"])
        assert (again.winner, list(again.points), again.choices) == (r["winner"], r["score"], r["choices"])
        assert r["agents"] == ["random", "greedy"]
        # Siatka is first to 9 points (Winning the Game): the winner has at least 9
        assert r["score"][r["winner"]] >= 9
        assert r["final_margin"] == r["score"][r["winner"]] - r["score"][1 - r["winner"]]
        assert r["points_scored"] == sum(r["score"])


def test_out_file_gets_the_usual_permissions(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    old = os.umask(0o022)
    try:
        assert run(capsys, "sim", "siatka", "-n", 2, "--out", out)[0] == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644  # 0666 under umask 022, as `>` would make it


def test_sim_out_csv_has_the_documented_columns(tmp_path, capsys):
    out = tmp_path / "games.csv"
    assert run(capsys, "sim", "docs/tutorial/bump.vbr", "-n", 5, "--out", out)[0] == 0
    with out.open() as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == CSV_FIELDS + RUN_FIELDS
    assert len(rows) == 5
    for r in rows:
        a, b = map(int, r["score"].split("-"))
        assert max(a, b) == 3  # Bump is played to 3 (options: target=3)
        assert r["agents"] == "random;random"


def test_sim_plot_writes_png_and_svg(tmp_path, capsys):
    plots = tmp_path / "plots"
    code, out, _ = run(capsys, "sim", "siatka", "-n", 10, "--plot", plots, "--json")
    assert code == 0
    names = {p.name for p in plots.iterdir()}
    assert {"win_rate.png", "win_rate.svg", "length.png", "length.svg"} <= names
    assert json.loads(out)["plots"]


def test_sim_json_carries_every_metric_with_an_interval_or_a_reason(capsys):
    code, out, _ = run(capsys, "sim", "siatka", "-n", 40, "--json")
    ms = json.loads(out)["metrics"]
    for name in ("first_mover_advantage", "side_advantage", "draw_rate", "length_mean", "length_median",
                 "length_p10", "length_p90", "lead_changes_mean", "decisiveness_mean", "comeback_rate",
                 "branching_factor", "forced_share"):
        assert name in ms
        assert ms[name]["ci95"] is not None or ms[name]["reason"], name


# --------------------------------------------------------------------------------------- sweep
def test_sweep_plays_every_combination_in_grid_order(tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    code, text, _ = run(capsys, "sweep", "siatka", "--grid", "target=5,9", "--grid", "abilities=false,true",
                        "-n", 8, "--json", "--out", out)
    assert code == 0
    rows = json.loads(text)["rows"]
    assert [r["options"] for r in rows] == [{"target": 5, "abilities": False}, {"target": 5, "abilities": True},
                                            {"target": 9, "abilities": False}, {"target": 9, "abilities": True}]
    assert all(r["summary"]["games"] == 8 for r in rows)
    # first to 5 needs at least 5 points a game, first to 9 at least 9
    for r in rows:
        assert r["summary"]["metrics"]["points_mean"]["value"] >= r["options"]["target"]
    with out.open() as f:
        table = list(csv.DictReader(f))
    assert [(t["target"], t["abilities"]) for t in table] == [("5", "false"), ("5", "true"), ("9", "false"), ("9", "true")]
    assert {"games", "first_mover_advantage", "first_mover_advantage lo", "first_mover_advantage hi"} <= set(table[0])


def test_a_sweeps_jsonl_rows_hold_each_swept_option_as_sim_json_holds_it(capsys, tmp_path):
    """A number as a number and a bool as a bool (siatka.vbr: `option target = 9`, `option
    abilities = false`), as `vbr sim --json` writes a run's options; a CSV cell reads the same."""
    out, table = tmp_path / "sweep.jsonl", tmp_path / "sweep.csv"
    for where in (out, table):
        code, _, err = run(capsys, "sweep", "siatka", "--grid", "target=3,5", "--grid", "abilities=false,true", "-n", 2,
                           "--engine", "python", "--no-progress", "--out", where)
        assert code == 0, err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["target"], r["abilities"]) for r in rows] == [(3, False), (3, True), (5, False), (5, True)]
    with table.open(newline="") as f:
        assert [(r["target"], r["abilities"]) for r in csv.DictReader(f)] == [
            ("3", "false"), ("3", "true"), ("5", "false"), ("5", "true")]


def test_sweep_table_names_each_combination(capsys):
    code, text, _ = run(capsys, "sweep", "siatka", "--grid", "target=5,9", "-n", 4)
    assert code == 0
    head = text.splitlines()[1]
    assert "target=5" in head and "target=9" in head
    assert any(line.startswith("first-mover advantage") for line in text.splitlines())


def test_sweep_headline_counts_one_combination_and_one_game_in_the_singular(capsys):
    code, text, _ = run(capsys, "sweep", "docs/tutorial/bump.vbr", "--grid", "target=3", "-n", 1)
    assert code == 0
    assert text.splitlines()[0] == "Bump: sweep of 1 combination, 1 game each, seed 0, agents random | random, engine python"


def test_a_run_of_one_game_counts_it_in_the_singular(capsys):
    # One game: `1 game`, and the side that won it `1 win` (the other `0 wins`).
    code, text, _ = run(capsys, "sim", "docs/tutorial/bump.vbr", "-n", 1, "--engine", "python")
    lines = text.splitlines()
    assert code == 0 and lines[0].startswith("Bump (docs/tutorial/bump.vbr), 1 game, seed 0, ")
    wins = sorted(line.split(",")[0].split(": ")[1] for line in lines[2:4])
    assert wins == ["0 wins", "1 win"]
    code, text, _ = run(capsys, "compare", "docs/tutorial/bump.vbr", "--variant-option", "target=1", "-n", 1,
                        "--engine", "python")
    assert code == 0 and text.splitlines()[2].startswith("1 game each, seed 0, ")


def test_sweep_table_of_six_combinations_fits_100_columns(capsys):
    code, text, _ = run(capsys, "sweep", "siatka", "--grid", "target=5,9,15", "--grid", "abilities=false,true", "-n", 4)
    assert code == 0
    lines = text.splitlines()
    assert max(map(len, lines)) <= 100
    table = lines[:lines.index(next(x for x in lines if x.startswith("each value pooled")))]
    heads = " ".join(line for line in table if line.startswith(" ")).split()
    combos = [f"target={t}" for t in (5, 9, 15)] + ["abilities=false", "abilities=true"]
    assert sorted(heads) == sorted(combos[:3] * 2 + combos[3:] * 3)  # each combination once
    # each block of columns names every figure
    assert sum(line.startswith("first-mover advantage") for line in lines) >= 2


def test_sweep_of_many_combinations_prints_a_line_each_within_100_columns(tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    code, text, _ = run(capsys, "sweep", "docs/tutorial/bump.vbr", "--grid", "target=1,2,3,4,5,6,7", "-n", 5,
                        "--out", out)
    assert code == 0
    lines = text.splitlines()
    assert max(map(len, lines)) <= 100
    for t in range(1, 8):  # one line per combination, its options first
        assert sum(line.startswith(f"target={t} ") for line in lines) == 1
    assert "every figure of every combination, with its 95% CI: in the --out file" in lines
    with out.open() as f:
        assert len(list(csv.DictReader(f))) == 7


def test_sweep_of_two_options_pools_each_value_over_the_other(capsys):
    code, text, _ = run(capsys, "sweep", "siatka", "--grid", "target=3,5", "--grid", "abilities=false,true",
                        "-n", 4, "--json")
    pooled = {(p["option"], p["value"]): p for p in json.loads(text)["analysis"]["pooled"]}
    assert pooled[("target", "3")]["games"] == 8 and pooled[("abilities", "true")]["games"] == 8


def test_sim_win_rates_of_three_sides_add_up_to_100():
    from vbr.report import render_stats
    stats = {"title": "T", "rules": "t.vbr", "games": 3, "seed": 0, "agents": ["random"] * 3,
             "wins": {"0": 1, "1": 1, "2": 1}, "draws": 0, "win_rate": {"0": 0.3333, "1": 0.3333, "2": 0.3333},
             "ci95": {s: [0.0615, 0.7923] for s in "012"}, "mean_steps": 5, "games_per_s": 1, "seconds": 3}
    shares = [line.split(", ")[1].split("%")[0] for line in render_stats(stats).splitlines() if line.startswith("  seat ")]
    assert shares == ["33.4", "33.3", "33.3"]  # each alone rounds to 33.3: 99.9 in all


def test_sweep_plot_draws_each_metric_against_the_swept_option(tmp_path, capsys):
    plots = tmp_path / "p"
    assert run(capsys, "sweep", "siatka", "--grid", "target=5,9", "-n", 4, "--plot", plots)[0] == 0
    assert any(p.suffix == ".svg" for p in plots.iterdir()) and any(p.suffix == ".png" for p in plots.iterdir())


@pytest.mark.parametrize("grid,says", [
    (["target=5,x"], "option `target` is a whole number, not 'x'"),
    (["targt=5,9"], "unknown option `targt` (siatka.vbr has options: abilities, block_marker, r_ability, rotation, target)"),
    (["target=5,5"], "a value is listed twice"),
    (["target"], "expected NAME=V1,V2,..."),
    ([], "a sweep needs at least one --grid"),
])
def test_sweep_bad_grid_is_a_usage_error(capsys, grid, says):
    argv = ["sweep", "siatka", "-n", 2]
    for g in grid:
        argv += ["--grid", g]
    code, out, err = run(capsys, *argv)
    assert code == 2 and says in err and out == ""


def test_sweep_option_both_swept_and_fixed_is_a_usage_error(capsys):
    code, _, err = run(capsys, "sweep", "siatka", "--grid", "target=5,9", "--option", "target=7")
    assert code == 2 and "both swept (--grid) and fixed (--option)" in err


# ------------------------------------------------------------------------------------- compare
def test_compare_one_file_under_two_option_sets(capsys):
    code, text, _ = run(capsys, "compare", "siatka", "--variant-option", "target=5", "-n", 30, "--json")
    assert code == 0
    report = json.loads(text)
    assert report["base"]["options"]["target"] == 9 and report["variant"]["options"]["target"] == 5
    points = next(m for m in report["metrics"] if m["metric"] == "points_mean")
    # first to 5 against first to 9: far fewer points, and with 30 games each the interval shows it
    assert points["significant"] and points["ci95"][1] < 0
    assert "→" in points["sentence"]


def test_compare_prints_a_sentence_per_significant_change(capsys):
    code, text, _ = run(capsys, "compare", "siatka", "--variant-option", "target=5", "-n", 30)
    assert code == 0
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("changed significantly (Holm-adjusted p < 0.05 over"))
    assert any(line.strip().startswith("points per game") for line in lines[start:])


def test_compare_out_csv_gives_each_interval_end_a_column(tmp_path, capsys):
    out = tmp_path / "diff.csv"
    code, _, _ = run(capsys, "compare", "siatka", "--variant-option", "target=5", "-n", 30, "--out", out)
    assert code == 0
    with out.open() as f:
        rows = {r["metric"]: r for r in csv.DictReader(f)}
    points = rows["points_mean"]
    lo, diff, hi = float(points["diff lo"]), float(points["diff"]), float(points["diff hi"])
    assert lo <= diff <= hi < 0 and points["significant"] == "true"
    assert rows["win_rate_0"]["reason"] == "" and "ci95" not in points


def test_compare_calls_cattacks_teams_by_their_names_as_sim_does(capsys):
    code, out, _ = run(capsys, "compare", "cattack", "--variant-option", "target=5", "-n", 4)
    assert code == 0
    assert "team red win rate" in out and "team blue win rate" in out and "seat 0" not in out
    assert "side advantage of team " in out


def test_compare_two_files(tmp_path, capsys):
    variant = tmp_path / "bump5.vbr"
    text = open("docs/tutorial/bump.vbr").read()
    assert "option target = 3" in text
    variant.write_text(text.replace("option target = 3", "option target = 5"))
    code, out, _ = run(capsys, "compare", "docs/tutorial/bump.vbr", variant, "-n", 60, "--json")
    assert code == 0
    points = next(m for m in json.loads(out)["metrics"] if m["metric"] == "points_mean")
    assert points["significant"] and points["ci95"][0] > 0  # to 5 points scores more than to 3


def test_compare_of_a_thing_with_itself_is_a_usage_error(capsys):
    code, _, err = run(capsys, "compare", "siatka", "-n", 2)
    assert code == 2 and "compare needs two different things" in err


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("argv,says", [
    (["sim", "siatka", "--agents", "smart"], "unknown agent 'smart'"),
    (["sim", "siatka", "--agents", "mcts:iters=3"], "unknown parameter 'iters' (parameters: iterations, c, rollout, depth, reward, greedy_moves, worlds, widen, tree, inner_c, spread_playouts, budget, cut, spread_scale, extend, confidence)"),
    (["sim", "siatka", "--option", "rotaton"], "did you mean `rotation`"),
    (["sim", "siatka", "-n", "0"], "-n must be at least 1"),
    (["sim", "siatka", "--workers", "0"], "--workers must be at least 1"),
    (["sim", "siatka", "--workers", "-4"], "--workers must be at least 1"),
    (["sim", "siatka", "--ray-address", "auto"], "--ray-address is for --backend ray"),
    (["sim", "siatka", "--out", "games.txt"], "must end in .jsonl or .csv"),
    (["compare", "siatka", "--variant-option", "target=x"], "option `target` is a whole number, not 'x'"),
])
def test_bad_run_requests_are_usage_errors(capsys, argv, says):
    code, out, err = run(capsys, *argv)
    assert code == 2 and says in err and out == ""


def _vbr(*argv, **kw):
    return subprocess.run([sys.executable, "-c", "import sys, vbr.cli; sys.exit(vbr.cli.main())", *map(str, argv)],
                          capture_output=True, text=True, **kw)


@pytest.mark.parametrize("flag,where", [("--out", "nowhere/games.jsonl"), ("--plot", "a-file/plots")])
def test_unwritable_destination_is_refused_before_any_game(tmp_path, flag, where):
    (tmp_path / "a-file").write_text("")
    # a hundred million games would take days: returning at all shows that none was played
    r = _vbr("sim", "siatka", "-n", 100_000_000, flag, tmp_path / where, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert f"vbr: error: {flag} {tmp_path / where}" in r.stderr


@pytest.mark.parametrize("folder", ["/proc", "/sys"])
def test_a_folder_no_one_may_write_into_is_refused(capsys, folder):
    # not even root can create a file here, so the probe must try, not read permission bits
    code, _, err = run(capsys, "sim", "siatka", "-n", 2, "--out", f"{folder}/games.jsonl")
    assert code == 2 and f"cannot write into {folder}" in err


def _as_a_shell_starts_it():
    """Ctrl-C's default action, whatever this test run inherited: a shell without job control
    starts its background jobs with SIGINT ignored, and Python then keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _children(pid: int) -> set[int]:
    ppid_of = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid_of[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):  # a process that ended while we looked
            pass
    return {child for child, parent in ppid_of.items() if parent == pid}


ANY_GAMES = rb"\r(?:[^\r]*: )?[1-9][0-9]*/[0-9]+ games"


def _signal_once_games_are_done(argv, sig=signal.SIGINT, to=None, shown=ANY_GAMES):
    """Run vbr with its stderr on a terminal (a pty), so it shows progress, and send it `sig`
    (Ctrl-C's, unless told) once the progress line counts a finished game: the moment the test is
    about, reached without a guess at how long start-up takes on this machine. Returns the exit
    code, stdout, what reached the terminal, and the processes vbr had started by then. `to`:
    who gets the signal instead of vbr, given vbr's pid and those processes ("group": vbr's
    whole process group, as a service manager or `kill -- -PGID` sends it). `shown`: the pattern
    of the progress line to wait for (any count of finished games, unless told)."""
    import pty
    import re
    import select
    master, terminal = pty.openpty()
    p = subprocess.Popen([sys.executable, "-c", "import sys, vbr.cli; sys.exit(vbr.cli.main())", *map(str, argv)],
                         stdout=subprocess.PIPE, stderr=terminal, text=True, cwd=os.getcwd(),
                         preexec_fn=_as_a_shell_starts_it, start_new_session=to == "group")
    os.close(terminal)
    seen = b""
    try:
        while not re.search(shown, seen):
            assert select.select([master], [], [], 120)[0], seen  # no progress in two minutes
            seen += os.read(master, 4096)
        children = _children(p.pid)
        if to == "group":
            os.killpg(p.pid, sig)
        elif to is not None:
            os.kill(to(children), sig)
        else:
            p.send_signal(sig)
        out = p.communicate(timeout=120)[0]
        while select.select([master], [], [], 5)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every writer of the terminal has closed it
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    return p.returncode, out, seen.decode().replace("\r\n", "\n"), children


def test_ctrl_c_during_sim_writes_the_finished_games_and_says_so(tmp_path):
    out = tmp_path / "games.jsonl"
    code, _, err, _ = _signal_once_games_are_done(["sim", "siatka", "-n", 100_000_000, "--out", out])
    assert code == 130
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and [r["index"] for r in rows] == list(range(len(rows)))
    assert f"vbr: interrupted after {len(rows)} of 100000000 games; written: {out}" in err
    assert [p.name for p in tmp_path.iterdir()] == ["games.jsonl"]  # no half-written file beside it


def test_ctrl_c_during_sweep_writes_the_rows_so_far(tmp_path):
    out = tmp_path / "sweep.csv"
    code, _, err, _ = _signal_once_games_are_done(["sweep", "siatka", "--grid", "target=5,9", "-n", 100_000_000,
                                                   "--workers", 2, "--out", out])
    assert code == 130
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and rows[0]["target"] == "5" and int(rows[0]["games"]) > 0
    assert "vbr: interrupted after" in err and "of 200000000 games" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.csv"]


# Siatka between two mcts seats of 1,000 iterations takes about a third of a second of CPU a game
# in C (greedy seats, a millisecond, ended a whole run of 200 before the first progress line on a
# fast machine): the progress line counts games one by one long before the first chunk (25 games
# of 200 in one process, 12 with two workers) is over.
SLOW_AGENTS = "mcts:iterations=1000"
FIRST_CHUNK = {1: rb"\r([1-9]|1[0-9]|2[0-4])/200 games", 2: rb"\r([1-9]|1[01])/200 games"}


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_in_the_first_chunk_keeps_the_games_finished(tmp_path, workers):
    out = tmp_path / "games.jsonl"
    code, _, err, _ = _signal_once_games_are_done(["sim", "siatka", "-n", 200, "--agents", SLOW_AGENTS,
                                                   "--workers", workers, "--out", out], shown=FIRST_CHUNK[workers])
    shown = max(int(m) for m in re.findall(r"\r(\d+)/200 games", err.split("vbr: interrupted")[0]))
    assert code == 130
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) >= shown >= 1 and [r["index"] for r in rows] == list(range(len(rows)))
    assert f"vbr: interrupted after {len(rows)} of 200 games; written: {out}" in err


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_or_sighup_during_sim_with_workers_writes_the_finished_games_and_ends_the_workers(tmp_path, name):
    sig = getattr(signal, name)
    out = tmp_path / "games.jsonl"
    code, _, err, children = _signal_once_games_are_done(
        ["sim", "siatka", "-n", 100_000_000, "--workers", 2, "--out", out], sig)
    assert code == 128 + sig  # as a shell reports a process ended by the signal
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and [r["index"] for r in rows] == list(range(len(rows)))
    assert f"vbr: interrupted after {len(rows)} of 100000000 games; written: {out}" in err
    assert len(children) >= 2 and ended(children)  # the two workers (and the pool's helper), not left running


def test_sigterm_to_vbrs_whole_process_group_writes_the_finished_games_and_does_not_hang(tmp_path):
    # the workers die of it at once, possibly halfway through sending a result
    out = tmp_path / "games.jsonl"
    for _ in range(3):
        code, _, err, children = _signal_once_games_are_done(
            ["sim", "siatka", "-n", 100_000_000, "--workers", 2, "--out", out], signal.SIGTERM, to="group")
        assert code == 128 + signal.SIGTERM
        rows = out.read_text().splitlines()
        assert rows and f"vbr: interrupted after {len(rows)} of 100000000 games" in err
        assert ended(children)


def test_a_worker_killed_during_a_run_is_a_one_line_error_not_a_hang(tmp_path):
    def a_worker(children):
        return max(c for c in children if "multiprocessing.spawn" in Path(f"/proc/{c}/cmdline").read_text())

    code, out, err, children = _signal_once_games_are_done(
        ["sim", "siatka", "-n", 100_000_000, "--workers", 2], signal.SIGKILL, to=a_worker)
    assert code == 1 and out == ""
    assert err.rstrip().endswith(f"vbr: error: a worker process ended (exit code -{signal.SIGKILL}) while it played a chunk of games")
    assert "Traceback" not in err and ended(children)


@pytest.mark.parametrize("argv", [["sim", "siatka", "-n", "100000000"], ["graph", "siatka", "--sim", "100000000"],
                                  ["mutate", "siatka", "-n", "1000"]], ids=lambda a: a[0])
def test_workers_end_when_vbr_is_killed_outright(argv):
    p = subprocess.Popen([sys.executable, "-m", "vbr", *argv, "--workers", "2"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(workers := _children(p.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        p.kill()  # SIGKILL: vbr cannot clean up; its workers must notice on their own
        p.wait()
    assert len(workers) >= 2 and ended(workers)


# ------------------------------------------------------------------------------------ progress
def test_progress_is_silent_when_stderr_is_not_a_terminal(capsys):
    code, _, err = run(capsys, "sim", "siatka", "-n", 30)
    assert code == 0 and err == ""


def test_progress_on_a_terminal_shows_games_rate_and_time_left():
    import io

    from vbr.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    p = Progress("target=5", stream, every=0.0)
    p(50, 200)
    p(200, 200)
    p.close()
    shown = stream.getvalue()
    assert "\rtarget=5: 50/200 games" in shown and "games/s" in shown and " left" in shown
    assert "200/200 games" in shown and shown.endswith("\n")


def test_progress_counts_no_set_up_before_its_first_call_as_game_time():
    # a search loads (in C, builds) its values before its first game: 0.3 s of that is no game's
    # time, so the 99 games left after one played in microseconds take 0:00, not 99 x 0.3 s = 0:30
    import io

    from vbr.progress import Progress
    stream = io.StringIO()
    p = Progress("tune target", stream, every=0.0, in_place=False)
    time.sleep(0.3)  # the set-up
    p(0, 100)
    p(1, 100)
    first, second = stream.getvalue().splitlines()
    assert first == "tune target: 0/100 games"
    assert second.startswith("tune target: 1/100 games  ") and second.endswith("  0:00 left"), second


def test_progress_of_a_run_that_may_stop_sooner_gives_its_time_left_as_a_bound():
    # --precision (or tune) plays at most -n games: the time to the last of them is the most left
    from vbr.progress import progress_line
    assert progress_line("", 50, 1000, 5.0, may_stop_early=True) == "50/1000 games  10.0 games/s  at most 1:35 left"
    assert progress_line("", 50, 1000, 5.0) == "50/1000 games  10.0 games/s  1:35 left"


def test_progress_on_a_real_terminal_counts_each_game_with_rate_time_left_and_the_running_estimate():
    _, _, shown, _ = _signal_once_games_are_done(["sim", "siatka", "-n", 200, "--agents", SLOW_AGENTS],
                                                 shown=FIRST_CHUNK[1] + rb"[^\r]*\)")
    line = re.findall(r"\r(\d+/200 games[^\r\n]*)", shown)[-1].rstrip()
    assert re.fullmatch(r"([1-9]|1[0-9]|2[0-4])/200 games  \d+\.\d (games/s|s per game)  \d+:\d\d left  "
                        r"seat 0 wins \d+\.\d% \(\d+\.\d-\d+\.\d\)", line), line


def test_progress_on_a_narrow_terminal_is_cut_to_its_width_so_it_is_redrawn_in_place():
    import fcntl
    import pty
    import struct
    import termios

    from vbr.progress import Progress
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))  # 24 rows, 40 columns
    with os.fdopen(terminal, "w") as stream:
        p = Progress("[3/6] target=5, abilities=true", stream, every=0.0, estimate=lambda: "seat 0 wins 51.7% (42.4-60.9)")
        p(120, 1000)
    shown = os.read(master, 4096).decode()
    os.close(master)
    assert shown == "\r" + "[3/6] target=5, abilities=true: 120/1000 games"[:39]


def test_progress_flag_writes_whole_lines_where_stderr_is_not_a_terminal(capsys):
    code, _, err = run(capsys, "sim", ROOT / "tests/fixtures/valid/loaded_die.vbr", "-n", 40, "--progress")
    assert code == 0 and "\r" not in err
    assert err.splitlines()[0] == "0/40 games  seat 0 wins: none yet"
    assert re.fullmatch(r"40/40 games  .* games/s  0:00 left  seat 0 wins \d+\.\d% \(\d+\.\d-\d+\.\d\)",
                        err.splitlines()[-1])


def test_a_slow_run_reports_seconds_per_game_not_zero_games_a_second():
    from vbr.sim import RunResult, RunSpec
    slow = RunResult(RunSpec.of("siatka", {}, 0, ["random"] * 2, 3), trials=[None] * 3, seconds=96.0)
    assert slow.games_per_s == 0.0312
    from vbr.report import speed_line
    assert speed_line({"games": 3, "seconds": 100.0, "load_seconds": 0}) == "33.3 s per game (100.0 s)"
    assert speed_line({"games": 3000, "seconds": 2.5, "load_seconds": 0.1}) == "1200.0 games/s (2.5 s, loading 0.1 s)"


def test_a_run_of_under_a_second_takes_its_rate_from_before_the_seconds_were_rounded():
    # 200 games in 0.0021 s: 95,238 games/s, measured to three digits as 95,200; the seconds
    # rounded to 0.002 would say 100,000
    from vbr.report import speed_line
    assert speed_line({"games": 200, "seconds": 0.002, "games_per_s": 95200.0}) == "95200.0 games/s (0.002 s)"


def test_a_run_faster_than_its_rounding_of_the_seconds_is_not_said_to_have_played_no_games():
    # One game played in 0.0004 s: the summary's seconds round to 0.0, but a game was played,
    # at the rate the run measured (2500 games/s), in under a thousandth of a second.
    from vbr.report import speed_line
    assert speed_line({"games": 1, "seconds": 0.0, "games_per_s": 2500.0, "load_seconds": 0.1}) == (
        "2500.0 games/s (under 0.001 s, loading 0.1 s)")


# ------------------------------------------------------------------------------------------ Ray
def test_ray_backend_writes_the_same_rows_as_the_local_one(tmp_path, capsys, one_ray):
    local, ray = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    argv = ["sim", "siatka", "-n", 24, "--seed", 11, "--agents", "greedy,random"]
    assert run(capsys, *argv, "--out", local)[0] == 0
    assert run(capsys, *argv, "--backend", "ray", "--workers", 2, "--out", ray)[0] == 0
    assert ray.read_text() == local.read_text()
    assert len(local.read_text().splitlines()) == 24


def test_sweep_over_an_option_that_changes_the_seats_plays_every_combination(capsys):
    # Cattack's `players` sets how many seats play (README: players=4|3|2): one agent spec for all
    # seats fits each combination (the agents were parsed for the first combination's 2 seats, and
    # the 4-seat games ended in an IndexError).
    code, text, _ = run(capsys, "sweep", "cattack", "--grid", "players=2,4", "-n", 2, "--engine", "python")
    assert code == 0 and text.splitlines()[0].startswith("Cattack! No.1: sweep of 2 combinations, 2 games each")


def test_a_sweep_over_the_seats_records_each_games_own_agents_so_summarize_reads_its_rows(tmp_path, capsys):
    # Cattack's players=2 games have 2 seats and players=4 games 4: `--agents first` fills every
    # seat of each, so a players=2 row names 2 agents (4 named seats it does not have, and
    # `vbr summarize`, which docs/cli.md says reads `vbr sweep --rows`, refused them)
    rows = tmp_path / "rows.jsonl"
    code, text, _ = run(capsys, "sweep", "cattack", "--grid", "players=2,4", "-n", 2, "--agents", "first",
                        "--engine", "python", "--rows", rows)
    assert code == 0 and text.splitlines()[0] == "Cattack! No.1: sweep of 2 combinations, 2 games each, seed 0, agents first in every seat, engine python"
    agents = {json.loads(line)["arm"]: json.loads(line)["agents"] for line in rows.read_text().splitlines()}
    assert agents == {"players=2": ["first"] * 2, "players=4": ["first"] * 4}
    code, text, err = run(capsys, "summarize", rows)
    assert code == 0, err
    base, variant, played = text.splitlines()[:3]
    assert base.startswith("base: players=2, agents first|first (") and base.endswith("cattack.vbr)")
    assert variant.startswith("variant: players=4, agents first|first|first|first (")
    assert played == "2 games from rows of 1 file, agents first in every seat, engine python"


def test_agents_per_seat_for_arms_of_different_seats_are_a_usage_error(capsys):
    code, _, err = run(capsys, "sweep", "cattack", "--grid", "players=2,4", "-n", 2, "--agents", "greedy,random")
    assert code == 2
    assert err == ("vbr: error: --agents greedy,random: the games have 2 and 4 seats: give one agent for every seat "
                   "(e.g. --agents greedy), not one per seat\n")


def test_compare_of_games_with_different_seats_pairs_their_deals_played_read_or_summarised(tmp_path, capsys):
    # one agent in every seat: a players=2 and a players=4 game of one seed are one deal (docs/cli.md,
    # vbr compare: the same deals, seeds and seatings), whether both arms are played, the base read
    # from its own `vbr sim --out` (`--base-rows`), or the rows summarised again
    arms = ["cattack", "--base-option", "players=2", "--variant-option", "players=4", "--agents", "first",
            "--engine", "python"]
    played_rows, base = tmp_path / "both.jsonl", tmp_path / "base.jsonl"
    code, played, err = run(capsys, "compare", *arms, "-n", 4, "--rows", played_rows)
    assert code == 0, err
    assert played.splitlines()[2:4] == ["4 games each, seed 0, agents first in every seat, engine python",
                                        "paired: 4 deals played in both (same seeds and seatings); each interval but the"]
    assert run(capsys, "sim", "cattack", "--option", "players=2", "--agents", "first", "-n", 4, "--engine", "python",
               "--out", base)[0] == 0
    code, read, err = run(capsys, "compare", *arms, "--base-rows", base)
    assert code == 0, err
    assert read.splitlines()[3] == played.splitlines()[3] and read.splitlines()[5:] == played.splitlines()[5:]
    code, again, err = run(capsys, "summarize", played_rows)
    assert code == 0, err
    assert again.splitlines()[3] == played.splitlines()[3] and again.splitlines()[5:] == played.splitlines()[5:]


def test_compare_of_games_with_different_seats_plays_both(capsys):
    # Siatka has 2 seats, Cattack 4: the default agent, random, plays every seat of each (the 4-seat
    # arm got the 2 agents parsed for the base, and its games ended in an IndexError).
    code, text, _ = run(capsys, "compare", "siatka", "cattack", "-n", 2, "--engine", "python")
    assert code == 0 and text.splitlines()[1].startswith("variant: cattack")
