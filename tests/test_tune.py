"""`vbr tune`: the option value that brings a measure closest to a target, on toy rule files whose
answers are known by hand (tests/fixtures/tune), the no-answer case, and usage errors (exit 2)."""
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import ROOT
from vbr.analysis import stats as S
from vbr.analysis.trial import Trial
from vbr.analysis.tune import Arm, Target, Tuned, figure, first_grid, parse_target
from vbr.cli import main

COIN = ROOT / "tests" / "fixtures" / "tune" / "weighted_coin.vbr"  # seat 0 wins min(edge, 20)/20 of games
COUNTED = ROOT / "tests" / "fixtures" / "tune" / "counted.vbr"  # every game is `rounds` choices long


def tune(capsys, *argv):
    code = main(["tune", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def tune_json(capsys, *argv):
    code, out, err = tune(capsys, *argv, "--json")
    return code, json.loads(out), err


def coin_rate(edge: int) -> float:
    """Seat 0's win rate at `edge`, by hand: a d20 shows 1..edge with probability edge/20."""
    return min(max(edge, 0), 20) / 20


def holds(ci, x) -> bool:
    return ci[0] <= x <= ci[1]


# ------------------------------------------------------------------------------ finding a root
@pytest.fixture(scope="module")
def coin_root():
    """One search for the root of the weighted coin's rate (0.5 at edge 10) over 0..40, 4000 games."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["tune", str(COIN), "--option", "edge=0..40", "--target", "win_rate:0=0.5", "-n", "4000", "--json"])
    return code, json.loads(out.getvalue())


@pytest.mark.slow
def test_a_win_rate_root_is_found_within_a_step_and_the_answer_interval_holds_its_hand_rate(coin_root):
    # the rate crosses 0.5 at edge 10 exactly; 9 and 11 are 0.05 off, and 4000 games cannot
    # always tell them from 10, so the answer is 9, 10 or 11, its interval holding its own rate
    code, r = coin_root
    assert code == 0 and r["status"] == "near"
    answer = r["answer"]
    assert answer["value"] in (9, 10, 11)
    assert holds(answer["ci95"], coin_rate(answer["value"])) and holds(answer["ci95"], 0.5)
    assert r["games"] <= 4000


@pytest.mark.slow
def test_games_go_to_the_values_in_contention_not_to_those_far_from_the_target(coin_root):
    _, r = coin_root
    games = {a["value"]: a["games"] for a in r["arms"]}
    first = games[0]  # edge 0 (rate 0) and edge 40 (rate 1) are ruled out by their first batch
    assert games[40] == first and games[30] == first
    assert games[r["answer"]["value"]] >= 4 * first
    assert {9, 10, 11} <= set(games)  # the grid was refined down to the neighbours of the root


def test_a_listed_set_is_raced_as_given(capsys):
    # 0.2, 0.5 and 0.85 by hand: only edge 10 can hold 0.5, and the race stops once that is clear
    code, r, _ = tune_json(capsys, COIN, "--option", "edge=4,10,17", "--target", "win_rate:0=50%", "-n", 1000)
    assert code == 0 and r["status"] == "near" and r["answer"]["value"] == "10"
    assert holds(r["answer"]["ci95"], coin_rate(10))
    assert r["values"] == {"set": ["4", "10", "17"]} and [a["value"] for a in r["arms"]] == ["4", "10", "17"]


@pytest.mark.slow
def test_an_exact_measure_is_decided_early_at_the_value_that_hits_the_target(capsys):
    code, r, _ = tune_json(capsys, COUNTED, "--option", "rounds=1..30", "--target", "length_mean=7", "-n", 5000)
    assert code == 0 and r["status"] == "near"
    assert r["answer"]["value"] == 7 and r["answer"]["ci95"] == [7.0, 7.0]
    assert r["contenders"] == [] and r["games"] < 5000  # decided: the budget is not spent


def test_a_target_between_two_values_names_both_and_answers_the_closer(capsys):
    code, r, _ = tune_json(capsys, COUNTED, "--option", "rounds=1..30", "--target", "length_mean=2.4", "-n", 2000)
    assert code == 0 and r["status"] == "between"
    assert r["answer"]["value"] == 2 and r["between"] == [2, 3]


def test_progress_starts_at_zero_games_once_the_first_rounds_values_are_loaded(capsys):
    # its clock starts there, so the loading (a C build per value) is not counted as the games' time
    code, _, err = tune(capsys, COUNTED, "--option", "rounds=1..30", "--target", "length_mean=2.4", "-n", 2000,
                        "--progress")
    assert code == 0 and err.splitlines()[0] == "tune rounds: 0/2000 games"


@pytest.mark.slow
def test_the_number_of_workers_changes_nothing_but_the_wall_clock(capsys):
    # three values in one pool: each chunk's games come back to the value they were played at
    argv = (COIN, "--option", "edge=2,10,18", "--target", "win_rate:0=0.5", "-n", 300)
    _, one, _ = tune_json(capsys, *argv)
    _, two, _ = tune_json(capsys, *argv, "--workers", 2)
    assert one["arms"] == two["arms"] and one["answer"] == two["answer"] and two["workers"] == 2


@pytest.mark.slow
def test_on_ray_the_search_plays_the_same_games_as_here(capsys, one_ray):
    argv = (COIN, "--option", "edge=2,10,18", "--target", "win_rate:0=0.5", "-n", 300)
    _, here, _ = tune_json(capsys, *argv)
    code, ray, _ = tune_json(capsys, *argv, "--backend", "ray", "--workers", 2)
    assert code == 0 and ray["backend"] == "ray"
    assert ray["arms"] == here["arms"] and ray["answer"] == here["answer"]


# ------------------------------------------------------------------------------ no answer
def test_values_without_an_interval_are_not_said_to_have_one(capsys):
    # -n 2 over two values: one game each, too few for an interval, so the verdict rests on the
    # estimates alone (it said "every value's interval lies below it" of values with no interval).
    # Bump's games at target 1 and 2 last well under 50 choices.
    code, out, _ = tune(capsys, "docs/tutorial/bump.vbr", "--option", "target=1..2", "--target", "length_mean=50",
                        "-n", 2, "--engine", "python")
    assert code == 1
    assert ("no value of target brings mean length near 50.00: every value's estimate lies below it (2 values "
            "with too few games for an interval: a larger -n gives them one)") in out
    closest = next(line for line in out.splitlines() if line.startswith("closest: "))
    assert closest.count("(no CI, 1 game)") == 2  # one game each, in the singular


def test_a_range_with_no_value_near_the_target_says_so_with_the_closest_values(capsys):
    # edge 0..3 reaches at most 0.15 by hand: every interval lies below 0.5
    # the python engine's games of seed 1: each value's 95% interval holds its rate there
    code, out, _ = tune(capsys, COIN, "--option", "edge=0..3", "--target", "win_rate:0=0.5", "-n", 800, "--seed", 1,
                        "--engine", "python")
    assert code == 1
    assert "no value of edge brings seat 0 win rate near 50.0%: every value's interval lies below it" in out
    assert "closest: edge = 3:" in out
    code, r, _ = tune_json(capsys, COIN, "--option", "edge=0..3", "--target", "win_rate:0=0.5", "-n", 800,
                           "--seed", 1, "--engine", "python")
    assert r["status"] == "out_of_range" and r["side"] == "below"
    assert [a["value"] for a in r["closest"]] == [3, 2, 1]
    assert holds(r["closest"][0]["ci95"], coin_rate(3))



@pytest.mark.parametrize("engine", ["python", "c"])
def test_the_text_report_names_the_engine_that_played(capsys, engine):
    code, out, _ = tune(capsys, COIN, "--option", "edge=0..3", "--target", "win_rate:0=0.5", "-n", 40, "--engine", engine)
    assert code in (0, 1) and out.splitlines()[1].endswith(f", engine {engine}")

def test_a_first_mover_target_is_labelled_with_the_files_first_mover_measure_as_vbr_sim_labels_it(capsys):
    # Siatka's `measure first_server: seat first mover as "first server"` defines its first mover:
    # tune said only `first-mover advantage`, not whose first move, where vbr sim says `(first server)`
    argv = ("siatka", "--option", "target=5,9", "--target", "first_mover_advantage=0.5", "-n", 4, "--engine", "python")
    code, out, _ = tune(capsys, *argv, "--no-progress")
    assert code in (0, 1)
    assert out.splitlines()[0].startswith(
        "Siatka: tuning target in 5,9 to bring first_mover_advantage — first-mover advantage (first server) — to 50.0%")
    assert "first-mover advantage (first server), 95% CI" in out.splitlines()[2]
    _, r, _ = tune_json(capsys, *argv)
    main(["sim", "siatka", "-n", "2", "--engine", "python", "--json"])
    sim = json.loads(capsys.readouterr().out)
    assert r["label"] == sim["metrics"]["first_mover_advantage"]["label"] == "first-mover advantage (first server)"


def test_the_header_names_a_label_with_brackets_of_its_own_after_its_name_and_any_other_label_before_it(capsys):
    # the first-mover label ends in whose first move it is, `(first server)`: the header read
    # `first-mover advantage (first server) (first_mover_advantage)`, two bracketed parts in a row
    from vbr.analysis.tune_command import named
    assert named("first-mover advantage (first server)", "first_mover_advantage") == \
        "first_mover_advantage — first-mover advantage (first server) —"
    assert named("mean length", "length_mean") == "mean length (length_mean)"  # as docs/cli.md shows it
    code, out, _ = tune(capsys, COUNTED, "--option", "rounds=2,3", "--target", "length_mean=3", "-n", 8,
                        "--engine", "python", "--no-progress")
    assert code in (0, 1) and " to bring mean length (length_mean) to 3.00" in out.splitlines()[0]


def test_a_first_mover_target_of_a_file_without_a_first_mover_measure_is_the_first_choice_s(capsys):
    # the tutorial's Bump declares no first-mover measure: its first mover is whoever makes the first choice
    code, r, _ = tune_json(capsys, ROOT / "docs" / "tutorial" / "bump.vbr", "--option", "target=2,3", "--target",
                           "first_mover_advantage=0.5", "-n", 4, "--engine", "python")
    assert code in (0, 1) and r["label"] == "first-mover advantage (first choice)"


# ------------------------------------------------------------------------------ stopped
@pytest.mark.slow
def test_sigterm_during_a_search_prints_what_the_finished_games_say_and_exits_with_the_signal():
    import pty
    import re
    import select
    master, terminal = pty.openpty()  # stderr on a terminal, so that vbr shows its progress
    p = subprocess.Popen([sys.executable, "-c", "import sys, vbr.cli; sys.exit(vbr.cli.main())", "tune", str(COIN),
                          "--option", "edge=0..20", "--target", "win_rate:0=0.5", "-n", "100000000"],
                         stdout=subprocess.PIPE, stderr=terminal, text=True)
    os.close(terminal)
    seen = ""

    def read_terminal(seconds):
        nonlocal seen
        ready, _, _ = select.select([master], [], [], seconds)
        if ready:
            try:
                seen += os.read(master, 4096).decode(errors="replace")
            except OSError:  # the terminal's other end has closed: vbr has ended
                return False
        return bool(ready)

    while not re.search(r"[1-9]\d*/100000000 games", seen):  # a finished game: the moment the test is about
        assert read_terminal(120), f"no progress within 120 s: {seen!r}"
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=120)
    while read_terminal(1):
        pass
    os.close(master)
    assert p.returncode == 128 + signal.SIGTERM
    done = re.search(r"vbr: interrupted after (\d+) of 100000000 games", seen)
    assert done and int(done.group(1)) > 0
    rows = re.findall(r"^ +(\d+) +(\d+)  ", out, re.M)  # the table: value, games
    assert out.startswith("Weighted coin: tuning edge in 0..20")
    assert sum(int(games) for _, games in rows) == int(done.group(1))  # every finished game is counted


# ------------------------------------------------------------------------------ usage errors
@pytest.mark.parametrize("argv,said", [
    (("--option", "nope=0..5", "--target", "win_rate:0=0.5"), "unknown option `nope` (weighted_coin.vbr has options: edge)"),
    # a misspelt option is offered the one meant, as `vbr run --option` offers it
    (("--option", "egde=0..5", "--target", "win_rate:0=0.5"),
     "unknown option `egde` (weighted_coin.vbr has options: edge); did you mean `edge`?"),
    (("--option", "edge=0..5", "--target", "speed=0.5"), "unknown measure `speed`; --target can name: first_mover_advantage"),
    (("--option", "edge=3", "--target", "win_rate:0=0.5"), "vbr tune needs an option to tune"),
    (("--option", "edge=5..2", "--target", "win_rate:0=0.5"), "the range's low end 5 is above its high end 2"),
    (("--option", "edge=0..5", "--target", "win_rate:0=1.5"), "a share lies from 0 to 1"),
    (("--option", "edge=0..5", "--target", "win_rate:0=half"), "'half' is not a number"),
    # cli.md: a share is given as 0.5 or 50%; a length of 20% was read as 0.2 choices
    (("--option", "edge=0..5", "--target", "length_mean=20%"),
     "--target length_mean: mean length is not a share (its unit: choices), so it takes no percent: write the "
     "number (20)"),
    (("--option", "edge=a,b", "--target", "win_rate:0=0.5"), "option `edge` is a whole number, not 'a'"),
    (("--option", "edge=0..40", "--target", "win_rate:0=0.5", "-n", 5), "-n 5 cannot play the first round"),
])
def test_bad_input_is_a_usage_error_before_any_game(capsys, argv, said):
    code, out, err = tune(capsys, COIN, *argv)
    assert code == 2 and said in err and out == ""


def test_an_unknown_measure_lists_every_side_win_rate(capsys):
    code, _, err = tune(capsys, COIN, "--option", "edge=0..5", "--target", "win_rate:2=0.5")
    assert code == 2 and "win_rate:0, win_rate:1" in err and "win_rate:2," not in err


def test_two_options_to_tune_are_refused(capsys):
    code, _, err = tune(capsys, "siatka", "--option", "target=5..9", "--option", "abilities=false,true",
                        "--target", "win_rate:0=0.5")
    assert code == 2 and "one option at a time" in err


def test_a_range_over_an_option_with_listed_choices_names_the_values_it_cannot_take(capsys):
    code, _, err = tune(capsys, "cattack", "--option", "players=1..4", "--target", "win_rate:0=0.5")
    assert code == 2 and "option `players` takes only 2, 3, 4; the range 1..4 holds 1" in err


# ------------------------------------------------------------------------------ the pieces
def test_the_first_grid_of_a_long_range_is_nine_values_with_both_ends():
    grid = first_grid(Tuned("x", tuple(range(0, 41)), True))
    assert len(grid) == 9 and grid[0] == 0 and grid[-1] == 40 and grid == sorted(set(grid))
    assert first_grid(Tuned("x", (1, 2, 3), True)) == [1, 2, 3]


def test_a_value_interval_bounds_its_distance_to_the_target():
    arm = Arm(5, estimate=0.4, ci=(0.35, 0.45))
    assert arm.distances(0.5) == pytest.approx((0.05, 0.15))
    assert arm.distances(0.42) == pytest.approx((0.0, 0.07))


def test_the_answer_is_the_value_most_surely_close_not_a_lucky_estimate_from_few_games():
    from vbr.analysis.tune import Search
    from vbr.sim import RunSpec
    s = Search(Tuned("x", (1, 2), True), Target("win_rate:0", 0.5), RunSpec.of("f.vbr", {}, 0, ["random"] * 2, 0), 100)
    s.arms = {1: Arm(1, estimate=0.50, ci=(0.30, 0.70)),  # on the target, but within 0.2 of it at best
              2: Arm(2, estimate=0.53, ci=(0.51, 0.55))}  # within 0.05 of it for sure
    assert [a.value for a in s.ranked()] == [2, 1]


def test_a_target_is_a_number_or_a_percent():
    assert parse_target("win_rate:0=50%") == Target("win_rate:0", 0.5)
    assert parse_target("length_mean = 12.5") == Target("length_mean", 12.5)


def test_a_value_s_share_is_shown_rounded_once_from_its_full_value_as_vbr_sim_shows_it():
    # 17 wins of 37 games is 45.946 %: vbr sim prints 45.9 %; tune printed 46.0 %, rounding the
    # four decimals of its JSON (0.4595) again (docs/analysis.md: each figure rounded once)
    from vbr.analysis.trial import Trial
    from vbr.analysis.tune_command import arm_json, with_ci
    arm = Arm(5, trials=[Trial(i, i, ["random", "random"], 2, 0 if i < 17 else 1, None, 3, 0, 6, 0, [], {})
                         for i in range(37)])
    arm.judge("win_rate:0")
    assert arm.estimate == 0.4595  # what --json gives
    assert with_ci(arm_json(arm), "share").startswith("45.9% (")


@pytest.mark.parametrize("ci, unit, text", [
    # docs/cli.md: vbr sim writes a metric's interval `(-3.4%..10.3%)`; `-14.2-20.5 %` read as a
    # subtraction, or as an interval from -14.2 to -20.5
    ((-0.142, 0.205), "share", "-14.2%..20.5%"),
    ((0.331, 0.668), "share", "33.1%..66.8%"),
    ((-1.5, 2.25), "count", "-1.50..2.25"),
])
def test_an_interval_is_written_with_two_dots_between_its_ends_as_vbr_sim_writes_one(ci, unit, text):
    from vbr.analysis.tune_command import fmt_ci
    assert fmt_ci(ci, unit) == text


def test_the_progress_line_ends_with_the_best_value_of_the_last_round(capsys):
    # docs/cli.md: the progress line shows "the best value after the last finished round"; the
    # last line was drawn at the last game, before that round was judged, and named the round before's
    code, r, err = tune_json(capsys, COIN, "--option", "edge=0..40", "--target", "win_rate:0=0.5", "-n", 400,
                             "--progress")
    assert r["rounds"] > 1
    assert f"best edge={r['answer']['value']}: " in err.splitlines()[-1]


# ------------------------------------------------------------------------------ rotated seats
DEAL_WINNERS = [0, 0, 0, 1, 1, 0, 1, 0, 0, 1]  # seat 0 wins 6 of 10 deals


def deal_games(seeds: list[int]) -> list[Trial]:
    """Games with these seeds, game i won by seat DEAL_WINNERS[i // 2] (each deal's outcome)."""
    return [Trial(index=i, seed=seed, agents=["a", "b"] if i % 2 == 0 else ["b", "a"], sides=2,
                  winner=DEAL_WINNERS[i // 2], points=None, choices=3, forced=0, options=6, first_side=0)
            for i, seed in enumerate(seeds)]


def test_a_side_win_rate_with_the_seats_rotated_takes_each_deal_s_two_games_as_one_cluster():
    # ten deals, each played in both seatings with the same winner: 12 of 20 games won by seat 0,
    # but the second game of a deal says nothing the first did not. Over the m = 10 deals p = 0.6
    # and se² = p(1 − p)/(m − 1), where 20 independent games would give p(1 − p)/20: a design
    # effect of 20/9, so Wilson on 20/(20/9) = 9 games, 12/(20/9) = 5.4 wins; about √2 as wide as
    # Wilson over the 20 games taken as independent
    value, ci, _ = figure(deal_games([100 + i // 2 for i in range(20)]), "win_rate:0")
    assert value == pytest.approx(0.6)
    assert ci == pytest.approx(S.wilson(5.4, 9), abs=1e-4)
    lo, hi = S.wilson(12, 20)
    assert 1.3 < (ci[1] - ci[0]) / (hi - lo) < 1.6


def test_a_side_win_rate_with_one_game_a_deal_is_wilson_s_over_the_games():
    value, ci, _ = figure(deal_games([100 + i for i in range(20)]), "win_rate:0")
    assert value == pytest.approx(0.6)
    assert ci == pytest.approx(S.wilson(12, 20), abs=1e-4)
