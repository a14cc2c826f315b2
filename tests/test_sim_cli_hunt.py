"""`vbr sim` flags met together as a designer writes them: each conflict said in the words of the
flags given."""
from pathlib import Path

from vbr.cli import main

BUMP = Path(__file__).resolve().parents[1] / "docs" / "tutorial" / "bump.vbr"


def test_skill_over_a_setting_agents_already_gives_names_both_flags(capsys):
    # `--agents mcts:iterations=5 --skill iterations=5,20`: the error said `mcts: iterations is
    # given twice`, naming no flag, though each flag gives it once
    code = main(["sim", str(BUMP), "-n", "2", "--engine", "python", "--agents", "mcts:iterations=5",
                 "--skill", "iterations=5,20"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("vbr: error: --skill 'iterations=5,20': --agents mcts:iterations=5 sets iterations already, and "
                   "--skill sets it to each of its two values: leave it out of --agents\n")


def test_summarize_of_a_sims_rows_counts_a_deal_the_run_played_twice_twice(tmp_path, capsys):
    # game seeds are 31 bits (vbr.sim.game_seed), so long runs play some deal twice: games 233
    # and 242 of a run with seed 140448 have one seed. Both are games of the run, and `vbr sim`
    # counts both; `vbr summarize` of its rows called one a duplicate and counted 242 games
    from vbr.sim import game_seed
    assert game_seed(140448, 233) == game_seed(140448, 242)
    rows = tmp_path / "rows.jsonl"
    code = main(["sim", str(BUMP), "-n", "243", "--seed", "140448", "--engine", "python", "--out", str(rows)])
    sim, _ = capsys.readouterr()
    assert code == 0
    code = main(["summarize", str(rows)])
    again, err = capsys.readouterr()
    assert code == 0 and "more than once" not in err
    assert again.splitlines()[0].startswith("Bump (") and ", 243 games, from rows of 1 file," in again.splitlines()[0]
    assert again.splitlines()[2:4] == sim.splitlines()[2:4]  # each seat's wins, as the run counted them


def test_summarize_of_a_rows_file_given_twice_still_counts_each_game_once(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    assert main(["sim", str(BUMP), "-n", "5", "--engine", "python", "--out", str(rows)]) == 0
    capsys.readouterr()
    assert main(["summarize", str(rows), str(rows)]) == 0
    out, err = capsys.readouterr()
    # one file named twice is rows of one file
    assert "5 games appear more than once" in err and ", 5 games, from rows of 1 file," in out.splitlines()[0]


def test_per_agent_and_skill_lines_print_the_share_of_their_counts_not_of_a_rounded_value():
    # 17 wins of 37 games is 45.946 %: its JSON value, 0.4595 (4 decimals), printed again to one
    # place read 46.0 %
    from vbr.report import agent_lines, skill_line
    random = {"games": 37, "wins": 17, "value": 0.4595, "ci95": [0.3104, 0.6161]}
    lines = agent_lines({"per_agent": {"random": random}, "seatings": [["first", "random"], ["random", "first"]]})
    assert lines[1] == "  random: 17 wins of 37, 45.9% (95% CI 31.0-61.6%)"
    assert skill_line({"high": "greedy:samples=3", "low": "greedy", **random}) == (
        "skill expression: greedy:samples=3 wins 45.9% (31.0-61.6%) of 37 games against greedy")


def test_a_run_of_fewer_games_than_workers_starts_a_process_per_game_at_most():
    # `--workers 6 -n 2`: six processes were started (each a start and a load of the rules) for two
    # games; two chunks of one game each are all the work there is
    import multiprocessing

    from vbr.backends import LocalBackend
    from vbr.sim import RunSpec, run
    seen = []
    spec = RunSpec.of(str(BUMP), {}, 0, ["random", "random"], 2)
    result = run(spec, LocalBackend(6), progress=lambda done, planned: seen.append(len(multiprocessing.active_children())))
    assert result.games == 2 and max(seen) <= 2


def test_plot_folder_named_as_the_out_file_is_a_usage_error_before_any_game(tmp_path, capsys):
    # docs/cli.md: everything is checked before the first game. `--out X.csv --plot X.csv` played
    # the run, wrote the rows to X.csv, then could not make the folder X.csv and ended in exit 1,
    # its summary never printed
    out = tmp_path / "games.csv"
    code = main(["sim", str(BUMP), "-n", "3", "--engine", "python", "--out", str(out), "--plot", str(out)])
    printed, err = capsys.readouterr()
    assert code == 2 and printed == "" and not out.exists()
    assert err == f"vbr: error: --plot {out}: --out names it as a file; the plots need a folder of their own\n"


def test_the_text_report_of_an_interrupted_run_says_in_its_first_line_that_it_is_partial(capsys):
    # Ctrl-C after 79,000 of 1,000,000 games printed `..., 79000 games, seed 0, ...`: stdout, kept
    # in a file, read as a whole run of 79,000; only stderr said the run was stopped
    import json

    from vbr.report import render_stats
    assert main(["sim", str(BUMP), "-n", "4", "--engine", "python", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert render_stats(stats).splitlines()[0].startswith("Bump (") and ", 4 games, seed 0," in render_stats(stats)
    stats |= {"interrupted": True, "games_planned": 1000}
    assert ", 4 games of 1000 (interrupted), seed 0, agents random | random" in render_stats(stats).splitlines()[0]
