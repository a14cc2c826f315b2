"""`vbr sim --precision H`: a run that stops once the confidence sequence of its watched rate is
narrower than ±H, checked against the sequence computed here on its own (scipy's log-beta and root
finder) from the games the run wrote; on tests/fixtures/valid/loaded_die.vbr, where seat 0 wins
exactly 30 % of the games (a roll of 1-3 on a d10)."""
import json
import math
import re

import pytest
from scipy.optimize import brentq
from scipy.special import betaln

from conftest import ROOT
from vbr.analysis.sequential import concentration, confidence_sequence, games_needed, log_wealth, next_check
from vbr.cli import main

DIE = ROOT / "tests" / "fixtures" / "valid" / "loaded_die.vbr"
SERVED = ROOT / "tests" / "fixtures" / "valid" / "served_die.vbr"
LEVEL = math.log(20)  # 1/α for α = 0.05


def wealth(k, t, p, c):
    """log M_t(p) of the beta-binomial mixture, written from its definition with scipy's log-beta."""
    return betaln(c * p + k, c * (1 - p) + t - k) - betaln(c * p, c * (1 - p)) - k * math.log(p) - (t - k) * math.log(1 - p)


def sequence(k, t, c):
    """The interval {p : log M_t(p) < log 20}, its ends found by scipy's brentq on each side of k/t."""
    f = lambda p: wealth(k, t, p, c) - LEVEL
    centre = min(max(k / t, 1e-12), 1 - 1e-12)
    lo = 0.0 if f(1e-12) < 0 else brentq(f, 1e-12, centre, xtol=1e-12)
    hi = 1.0 if f(1 - 1e-12) < 0 else brentq(f, centre, 1 - 1e-12, xtol=1e-12)
    return lo, hi


def sim(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("k,t,c", [(3, 10, 1.0), (300, 1000, 512.0), (0, 40, 128.0), (95, 100, 16.0)])
def test_the_log_wealth_and_the_interval_agree_with_the_definition(k, t, c):
    assert log_wealth(k, t, 0.37, c) == pytest.approx(wealth(k, t, 0.37, c), rel=1e-9)
    assert confidence_sequence(k, t, c) == pytest.approx(sequence(k, t, c), abs=1e-9)


def test_the_interval_is_every_rate_whose_wealth_is_below_twenty():
    # a grid of rates: inside the interval exactly when the wealth is below 1/α
    k, t, c = 47, 100, 64.0
    lo, hi = confidence_sequence(k, t, c)
    for i in range(1, 1000):
        p = i / 1000
        if abs(p - lo) > 1e-6 and abs(p - hi) > 1e-6:
            assert (lo < p < hi) == (wealth(k, t, p, c) < LEVEL), p


def test_a_run_stops_at_the_first_check_where_the_half_width_is_below_the_target_and_covers_the_known_rate(
        tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 100_000, "--precision", 0.05, "--seed", 5, "--json", "--out", out)
    assert code == 0
    stats = json.loads(stdout)
    p = stats["precision"]
    wins = [json.loads(line)["winner"] == 0 for line in out.read_text().splitlines()]
    c = p["concentration"]
    # the stopping rule by hand: checks after 1, 2, ... games (every game up to 100, then 1 % more)
    k = stop = 0
    check = 1
    for t, won in enumerate(wins, 1):
        k += won
        if t == check:
            check = t + max(1, t // 100)
            lo, hi = sequence(k, t, c)
            if (hi - lo) / 2 < 0.05:
                stop = t
                break
    assert stop == len(wins) == stats["games"] < 100_000
    assert p["reached"] and p["half_width"] < 0.05
    assert p["cs95"] == pytest.approx(sequence(k, stop, c), abs=1e-4)
    assert p["cs95"][0] < 0.3 < p["cs95"][1]  # the die's known rate


def test_a_run_that_reaches_n_first_says_the_precision_was_not_reached(capsys):
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 50, "--precision", 0.02)
    assert code == 0 and "50 games" in stdout.splitlines()[0]
    assert "precision not reached: seat 0 wins" in stdout and "not below 2 percentage points" in stdout


def test_without_n_a_run_at_a_precision_may_play_twice_what_a_rate_of_half_needs_and_stops_when_reached(capsys):
    # a rate of ½ is the widest: the die's 30 % reaches ±5 points before the games ½ needs
    most = 2 * games_needed(0.05, concentration(0.05))
    code, stdout, err = sim(capsys, "sim", DIE, "--precision", 0.05, "--json")
    assert code == 0
    stats = json.loads(stdout)
    assert f"--precision 0.05 without -n: at most {most:,} games" in err
    assert stats["games_planned"] == most and stats["precision"]["reached"]
    assert stats["games"] <= games_needed(0.05, concentration(0.05))


def test_without_n_a_rate_that_never_gets_a_value_stops_at_twice_what_a_rate_of_half_needs(tmp_path, capsys):
    rules = tmp_path / "unset.vbr"
    rules.write_text('game "Unset"\nseats 2\nmeasure server: seat first mover as "server"\nstart p\n'
                     'phase p {\n  choose x from [1, 2] by 0\n  end winner x - 1\n}\n', encoding="utf-8")
    code, stdout, _ = sim(capsys, "sim", rules, "--precision", 0.2, "--metric", "measure:server", "--json")
    assert code == 0
    assert json.loads(stdout)["games"] == 2 * games_needed(0.2, concentration(0.2))


def test_without_precision_a_run_plays_100_games(capsys):
    code, stdout, _ = sim(capsys, "sim", DIE)
    assert code == 0 and "100 games" in stdout.splitlines()[0]


def test_a_target_no_fair_rate_reaches_in_the_games_searched_says_it_needs_more_than_them(capsys):
    # at t games a rate of ½'s 95 % interval is at least 1.96 * 0.5 / sqrt(t) wide on each side, and
    # the sequence wider: at the search's 2^31 games, 2.1e-5, far above ±1e-6
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 50, "--precision", 1e-6)
    assert code == 0
    assert stdout.splitlines()[-2].endswith("a rate of 50% needs more than 2,147,483,647 games (raise -n)")


def test_a_measure_no_game_sets_says_no_game_gave_it_a_value_not_how_many_games_it_needs(tmp_path, capsys):
    rules = tmp_path / "unset.vbr"
    rules.write_text('game "Unset"\nseats 2\nmeasure server: seat first mover as "server"\nstart p\n'
                     'phase p {\n  choose x from [1, 2] by 0\n  end winner x - 1\n}\n', encoding="utf-8")
    code, stdout, _ = sim(capsys, "sim", rules, "-n", 30, "--precision", 0.1, "--metric", "measure:server")
    assert code == 0
    assert stdout.splitlines()[-2] == ("precision not reached: no game gave server wins a value (a measure no game "
                                       "sets, or no decided game), so it has no interval to narrow to 10 percentage "
                                       "points")


def test_the_precision_line_shows_the_watched_rate_as_the_win_line_does(capsys):
    # seed 15 stops with a rate of 28.35..28.4 %: rounded to 4 decimals first, it printed 28.3 %
    # beside the win line's 28.4 %; one rate, one figure
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 100_000, "--precision", 0.03, "--seed", 15)
    wins, games = map(int, re.search(r"(\d+) games, seed 15.*\n(?:.*\n)*?  seat 0: (\d+) wins", stdout).groups()[::-1])
    shown = f"{100 * wins / games:.1f}%"
    assert code == 0 and f"seat 0: {wins} wins, {shown}" in stdout
    assert f"precision reached: seat 0 wins {shown} (" in stdout


def test_with_the_seats_rotated_a_deal_in_both_seatings_is_one_observation(capsys):
    # the same roll in both seatings: each agent wins one of a deal's two games, an observation of ½
    # every deal, so the run stops at the first check at or after the deals a rate of ½ needs
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 100_000, "--agents", "random,greedy", "--precision", 0.1, "--json")
    assert code == 0
    p = json.loads(stdout)["precision"]
    needed = games_needed(0.1, p["concentration"])
    check = 1
    while check < needed:
        check = next_check(check)
    assert p["deals"] == check and p["games"] == 2 * check and p["value"] == 0.5
    assert p["label"] == "random wins"


def test_with_the_seats_rotated_the_games_a_rate_of_half_needs_count_every_seating(capsys):
    # -n counts games, and the sequence deals: with two seatings a rate of ½ needs its deals twice
    # over in games (the note before the run says so of its most); the line said the deals' number
    # of games, an -n that stops half way
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 50, "--agents", "random,greedy", "--precision", 0.1, "--json")
    assert code == 0
    p = json.loads(stdout)["precision"]
    assert not p["reached"] and p["games_needed_at_half"] == 2 * games_needed(0.1, p["concentration"])
    code, stdout, _ = sim(capsys, "sim", DIE, "-n", 50, "--agents", "random,greedy", "--precision", 0.1)
    assert f"a rate of 50% needs about {2 * games_needed(0.1, p['concentration']):,} games (raise -n)" in stdout


@pytest.mark.parametrize("argv,says", [
    (["--precision", "0.5"], "--precision must be above 0 and below 0.5"),
    (["--precision", "0"], "--precision must be above 0 and below 0.5"),
    (["--precision", "0.02", "--metric", "first_mover"],
     "--metric first_mover: not a measure a run can be stopped on; the measures are win_rate, win_rate_0, "
     "win_rate_1, draw_rate, first_mover_advantage"),
])
def test_a_bad_precision_or_metric_is_a_usage_error(capsys, argv, says):
    code, _, err = sim(capsys, "sim", DIE, *argv)
    assert code == 2 and says in err



def _observed(row: dict, metric: str) -> float | None:
    """A game's observation of `metric`, from its row, as the report's figures take it."""
    winner = row["winner"]
    if metric == "first_mover_advantage":
        return None if winner is None or row["first_side"] is None else float(winner == row["first_side"])
    value = row[metric]
    if metric == "measure:server":  # a seat measure: the side it names won, over decided games
        return None if winner is None or value is None else float(winner == value)
    return None if value is None else float(value)  # a bool measure: set true, over games that set it


@pytest.mark.parametrize("metric,rate", [("first_mover_advantage", 0.3), ("measure:server", 0.3),
                                         ("measure:ten", 0.1)])
def test_a_run_stops_on_the_first_mover_or_a_declared_measure_and_covers_its_known_rate(tmp_path, capsys, metric,
                                                                                      rate):
    # served_die.vbr: the drawn server moves first and wins 30 % of the games; a ten is rolled in 10 %
    out = tmp_path / "games.jsonl"
    code, stdout, _ = sim(capsys, "sim", SERVED, "-n", 100_000, "--precision", 0.05, "--metric", metric, "--seed", 2,
                          "--json", "--out", out)
    assert code == 0
    p = json.loads(stdout)["precision"]
    seen = [x for x in (_observed(json.loads(line), metric) for line in out.read_text().splitlines()) if x is not None]
    assert p["reached"] and p["metric"] == metric and p["games"] == len(seen)
    assert p["value"] == pytest.approx(sum(seen) / len(seen), abs=1e-6)
    assert p["cs95"][0] < rate < p["cs95"][1]


def test_an_int_measure_is_no_rate_to_stop_on(capsys):
    code, _, err = sim(capsys, "sim", SERVED, "--precision", "0.02", "--metric", "measure:face")
    assert code == 2 and "--metric measure:face: not a measure a run can be stopped on" in err
    assert err.rstrip().endswith("draw_rate, first_mover_advantage, measure:server, measure:ten")


def test_a_run_stops_at_the_same_game_with_two_workers_as_in_one_process(capsys):
    argv = ["sim", DIE, "-n", 100_000, "--precision", 0.05, "--seed", 3, "--json"]
    one = json.loads(sim(capsys, *argv)[1])
    two = json.loads(sim(capsys, *argv, "--workers", 2)[1])
    assert (two["games"], two["precision"]) == (one["games"], one["precision"])
