"""Fair seating on sides of unequal size (a pair against one seat): rotating the agents over the
seats would put an agent on the pair in 2 of 3 seatings, so its win rate would mix its skill with
the pair's share of the seats. Where one agent fills the other seats, every deal puts each agent
given once on every side once, and a side's seats take it in turn over the deals; elsewhere the
rotations stay, and the note and the per-agent results say how the agents sit on the sides."""
import json
from collections import Counter

import pytest

from vbr.analysis import stats as S
from cli_runs import rows_of, run
from vbr.seating import seating_cycle, seatings, spread
from vbr.sim import RunSpec, game_seed

PAIR_AND_ONE = [0, 1, 0]  # Cattack for 3: team red is seats 0 and 2, team blue seat 1
# a pair against one seat in which the pair (team red) wins every game, whoever sits where
RED_WINS = ('game "Red wins"\nseats 3 teams { red: 0 2 blue: 1 }\nstart a\nphase a {\n'
            '  choose x from 1..2 by 0 as "pick"\n  end winner team 0\n}\n')


def side_of(agent: str, seating, sides) -> set:
    return {sides[seat] for seat, name in enumerate(seating) if name == agent}


# ------------------------------------------------------------------------------ the seatings
def test_on_a_pair_against_one_seat_each_deal_puts_the_single_agent_on_each_team_once():
    for deal in seating_cycle(["mcts", "random", "random"], PAIR_AND_ONE):
        assert Counter(frozenset(side_of("mcts", s, PAIR_AND_ONE)) for s in deal) == {
            frozenset({0}): 1, frozenset({1}): 1}


def test_the_pair_s_two_seats_take_the_single_agent_in_turn_over_the_deals():
    # over a whole cycle: as often on the pair as on the single seat, and on the pair as often in
    # seat 0 as in seat 2; the agents as given are the first seating
    cycle = seating_cycle(["mcts", "random", "random"], PAIR_AND_ONE)
    seats = Counter(s.index("mcts") for deal in cycle for s in deal)
    assert seats[0] == seats[2] and seats[1] == seats[0] + seats[2]
    assert cycle[0][0] == ("mcts", "random", "random")
    assert all(len(set(deal)) == len(deal) for deal in cycle)  # no deal plays one seating twice


def test_the_first_seating_is_the_agents_as_given_wherever_the_single_agent_sits():
    for agents in (["random", "mcts", "random"], ["random", "random", "mcts"]):
        assert seating_cycle(agents, PAIR_AND_ONE)[0][0] == tuple(agents)


def test_two_single_agents_against_three_seats_and_one_each_play_both_sides_and_every_seat():
    # teams of seats 0 1 2 and seat 3: a and b each on each team once a deal, never on one team
    # together on the single seat, and each in every seat of the three over the cycle equally often
    sides = [0, 0, 0, 1]
    cycle = seating_cycle(["a", "b", "r", "r"], sides)
    for deal in cycle:
        for name in ("a", "b"):
            assert sorted(min(side_of(name, s, sides)) for s in deal) == [0, 1]
    for name in ("a", "b"):
        on_three = Counter(s.index(name) for deal in cycle for s in deal if s.index(name) != 3)
        assert on_three[0] == on_three[1] == on_three[2] > 0


@pytest.mark.parametrize("agents, sides", [
    (["a", "b"], [0, 1]),
    (["a", "b", "c"], [0, 1, 2]),
    (["a", "b", "a", "b"], [0, 1, 0, 1]),
    (["a", "b", "c", "d"], [0, 1, 0, 1]),
    (["a", "b", "b", "b"], [0, 1, 0, 1]),
])
def test_sides_of_one_size_keep_the_cyclic_rotations_of_every_deal(agents, sides):
    assert seating_cycle(agents, sides) == [seatings(agents)]


@pytest.mark.parametrize("agents", [["a", "b", "c"], ["a", "a", "b", "b"]])
def test_agents_that_no_seating_balances_keep_the_rotations(agents):
    # three agents given once on a pair against one seat: the single seat can hold one of them at
    # a time, so they cannot each sit there half the time; two agents given twice on seats 0 1 2
    # against seat 3 have no one agent to fill the others' seats
    sides = PAIR_AND_ONE if len(agents) == 3 else [0, 0, 0, 1]
    assert seating_cycle(agents, sides) == [seatings(agents)]


def test_spread_counts_the_seatings_an_agent_sits_on_each_side_and_on_several_at_once():
    # the rotations of a, b, c on a pair against seat 1: each agent in each seat once, so on the
    # pair twice and alone once; a pair of two agents means no agent sits on two sides
    assert spread([seatings(["a", "b", "c"])], PAIR_AND_ONE) == {
        name: {"sides": {0: 2, 1: 1}, "several": 0} for name in "abc"}
    # the filler random sits on both teams whenever mcts is on the pair
    cycle = seating_cycle(["mcts", "random", "random"], PAIR_AND_ONE)
    assert spread(cycle, PAIR_AND_ONE)["random"] == {"sides": {0: 4, 1: 2}, "several": 2}


def test_a_run_on_unequal_sides_plays_deal_d_in_its_cycle_s_seatings_on_the_deal_s_seed():
    spec = RunSpec.of("cattack", {"players": 3}, 5, ["m", "r", "r"], 8, rotate=True, sides=PAIR_AND_ONE)
    cycle = seating_cycle(["m", "r", "r"], PAIR_AND_ONE)
    assert spec.per_deal == 2
    assert [spec.deal(i) for i in range(8)] == [(game_seed(5, i // 2), list(cycle[(i // 2) % len(cycle)][i % 2]))
                                                for i in range(8)]
    assert spec.plan() == [("m", "r", "r"), ("r", "m", "r"), ("r", "r", "m")]


# --------------------------------------------------------------------------- through `vbr sim`
def test_a_team_that_always_wins_gives_the_single_agent_half_its_games(tmp_path, capsys):
    # team red wins every game: an agent's wins are its games on red. On each team equally often
    # it wins exactly half (rotating over the seats it sat on red in 2 of 3 seatings: 4 of 6)
    rules = tmp_path / "red.vbr"
    rules.write_text(RED_WINS)
    out = tmp_path / "rows.jsonl"
    code, text, err = run(capsys, "sim", rules, "-n", 8, "--agents", "first,random,random", "--json", "--out", out)
    assert code == 0, err
    first = json.loads(text)["per_agent"]["first"]
    assert (first["wins"], first["games"]) == (4, 8)
    assert first["sides"] == {"0": {"games": 4, "wins": 4}, "1": {"games": 4, "wins": 0}}
    # and the rows show where it sat: two deals of the cycle each, seats 0 and 2 once each
    seats = Counter(r["agents"].index("first") for r in rows_of(out))
    assert seats == {1: 4, 0: 2, 2: 2}


def test_sim_on_cattack_for_3_seats_greedy_on_each_team_equally_and_says_how(tmp_path, capsys):
    out = tmp_path / "rows.jsonl"
    code, text, err = run(capsys, "sim", "cattack", "--option", "players=3", "-n", 8, "--seed", 3,
                          "--agents", "greedy,random,random", "--engine", "python", "--json", "--out", out)
    assert code == 0, err
    rows, stats = rows_of(out), json.loads(text)
    on = Counter("red" if r["agents"].index("greedy") in (0, 2) else "blue" for r in rows)
    assert on == {"red": 4, "blue": 4}
    assert stats["seatings_per_deal"] == 2
    assert "every deal is played in each of the 2 seatings" in err
    assert ("over the 4 seatings of 2 deals, greedy on team red in 2, team blue in 2; random on team red in 4, "
            "team blue in 2 (on several sides at once in 2)") in err
    # per team, greedy's games and its team's wins there, as the rows count them
    for side, name in ((0, "red"), (1, "blue")):
        mine = [r for r in rows if (r["agents"].index("greedy") in (0, 2)) == (side == 0)]
        assert stats["per_agent"]["greedy"]["sides"][str(side)] == {
            "games": len(mine), "wins": sum(r["winner"] == side for r in mine)}


def test_the_single_agent_s_interval_takes_each_deal_s_two_games_as_one_cluster(tmp_path, capsys):
    # the games of a deal share its seed, one seed a deal; the interval is clustered Wilson of each
    # deal's wins and games (stats.clustered_wilson), as every interval of a rotated run is
    out = tmp_path / "rows.jsonl"
    code, text, err = run(capsys, "sim", "cattack", "--option", "players=3", "-n", 12, "--seed", 1,
                          "--agents", "random,greedy,random", "--engine", "python", "--json", "--out", out)
    assert code == 0, err
    rows = rows_of(out)
    assert [r["seed"] for r in rows] == [game_seed(1, i // 2) for i in range(12)]
    wins, games = Counter(), Counter()
    for r in rows:  # greedy wins when the winning team is the team of its seat
        games[r["seed"]] += 1
        wins[r["seed"]] += r["winner"] == PAIR_AND_ONE[r["agents"].index("greedy")]
    seeds = list(games)
    expected = S.clustered_wilson([wins[s] for s in seeds], [games[s] for s in seeds])
    got = json.loads(text)["per_agent"]["greedy"]["ci95"]
    assert got == pytest.approx(list(expected), abs=1e-4)


def test_sim_text_gives_each_agent_s_games_and_wins_on_each_team(tmp_path, capsys):
    rules = tmp_path / "red.vbr"
    rules.write_text(RED_WINS)
    code, text, _ = run(capsys, "sim", rules, "-n", 4, "--agents", "random,first,random")
    assert code == 0
    assert ("per agent, seats rotated (3 seatings, 2 a deal: random | first | random, first | random | random, "
            "random | random | first):") in text
    assert "  first: 2 wins of 4, 50.0% " in text and "; on team red: 2 of 2 won, on team blue: 0 of 2" in text


def test_agents_no_seating_balances_are_rotated_and_the_note_says_how_they_spread(tmp_path, capsys):
    # three different agents on a pair against one seat: each sits on the pair in 2 of the 3
    # rotations; the note and the per-agent entries say so
    rules = tmp_path / "red.vbr"
    rules.write_text(RED_WINS)
    code, text, err = run(capsys, "sim", rules, "-n", 6, "--agents", "first,random,greedy", "--json")
    assert code == 0, err
    assert "no side-balanced seatings for these agents" in err
    assert "first on team red in 2, team blue in 1; random on team red in 2, team blue in 1" in err
    per = json.loads(text)["per_agent"]
    assert per["first"]["sides"] == {"0": {"games": 4, "wins": 4}, "1": {"games": 2, "wins": 0}}


def test_sides_of_one_size_have_no_spread_note_and_no_per_side_entries(capsys):
    code, text, err = run(capsys, "sim", "cattack", "-n", 2, "--agents", "greedy,random,greedy,random",
                          "--engine", "python", "--json")
    assert code == 0, err
    assert "sides differ in size" not in err
    assert all("sides" not in a for a in json.loads(text)["per_agent"].values())


# ------------------------------------------------------------ sweeps and comparisons of sides
# a game whose teams an option changes, its seats kept: a pair against one seat, or three seats on
# their own. Two agents given once and one given twice seat side-balanced on the pair against one
# (2 seatings a deal, seating_cycle) and in the 3 rotations on three sides of one seat each
SPLIT = ('game "Split"\noption split = false\nseats 3 teams { red: 0 2 blue: 1 } when not split\n'
         'seats 3 when split\nstart a\nphase a {\n  choose x from 1..2 by 0 as "pick"\n  end winner 0\n}\n')


def test_a_sweep_whose_combinations_seat_differently_notes_each_combination_s_seatings(tmp_path, capsys):
    rules = tmp_path / "split.vbr"
    rules.write_text(SPLIT)
    assert len(seating_cycle(["first", "random", "random"], [0, 1, 0])[0]) == 2
    assert len(seating_cycle(["first", "random", "random"], [0, 1, 2])[0]) == 3
    code, _, err = run(capsys, "sweep", rules, "--grid", "split=false,true", "--agents", "first,random,random",
                       "-n", 4, "--engine", "python")
    assert code == 0, err
    assert ("every deal is played in each of the 2 seatings that put each agent given once on every side in turn "
            "(split=false); in each of the 3 seatings of the agents (split=true)") in err
    # 4 games are two whole deals of 2 seatings, but end inside the second deal of 3
    assert "-n 4 is not a multiple of the 3 seatings of split=true" in err
    assert "not a multiple of the 2 seatings" not in err


def test_a_comparison_whose_arms_seat_differently_says_its_unpaired_games(tmp_path, capsys):
    # the base plays deal 0 as first | random | random and random | first | random, deal 1 as
    # random | random | first and random | first | random (balanced_cycle); the variant deal 0 in
    # the 3 rotations and deal 1 as given: only deal 0's two seatings of the base are in both
    rules = tmp_path / "split.vbr"
    rules.write_text(SPLIT)
    code, text, err = run(capsys, "compare", rules, "--variant-option", "split=true", "--agents",
                          "first,random,random", "-n", 4, "--engine", "python")
    assert code == 0, err
    assert "(as printed); in each of the 3 seatings of the agents (split=true)" in err
    assert ("unpaired: only 2 games were played in both variants with the same seed and seating; the intervals "
            "treat the runs as independent") in text
