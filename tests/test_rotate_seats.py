"""Fair seating (`--rotate-seats`): every deal (seed) is played with each seating of the agents,
`-n` counts games, rows carry the agents in seat order, and each agent's win rate is reported
over all its seatings. On by default exactly when the agents differ, with a note saying so."""
import json

import pytest

import vbr
from vbr.analysis import stats as S
from vbr.analysis.metrics import agent_win_rates
from vbr.analysis.trial import Trial
from cli_runs import rows_of, run
from vbr.play import play_game
from vbr.sim import RunSpec, game_seed, seatings

NOTE = "the agents differ, so seats are rotated"


# ------------------------------------------------------------------------------ the seatings
def test_two_agents_are_seated_both_ways():
    assert seatings(["mcts", "greedy"]) == [("mcts", "greedy"), ("greedy", "mcts")]


def test_more_seats_get_the_cyclic_rotations_of_the_agents():
    assert seatings(["a", "b", "c"]) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


def test_a_rotation_that_repeats_a_seating_is_played_once():
    assert seatings(["a", "b", "a", "b"]) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert seatings(["greedy", "greedy"]) == [("greedy", "greedy")]


def test_a_rotated_run_plays_each_deal_seed_in_every_seating_in_turn():
    spec = RunSpec.of("siatka", {}, 5, ["a", "b", "c"], 9, rotate=True)
    games = [spec.deal(i) for i in range(9)]
    assert [seed for seed, _ in games] == [game_seed(5, d) for d in (0, 0, 0, 1, 1, 1, 2, 2, 2)]
    assert [agents for _, agents in games[:3]] == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    assert games[3:6] == [(game_seed(5, 1), a) for _, a in games[:3]]


def test_an_unrotated_run_plays_game_i_on_seed_i_with_the_agents_as_given():
    spec = RunSpec.of("siatka", {}, 5, ["a", "b"], 4)
    assert [spec.deal(i) for i in range(4)] == [(game_seed(5, i), ["a", "b"]) for i in range(4)]


# --------------------------------------------------------------------------- through `vbr sim`
def test_sim_rows_cover_every_seating_of_each_deal_and_replay_with_their_agents(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    code, _, _ = run(capsys, "sim", "siatka", "-n", 8, "--seed", 2, "--agents", "greedy,random", "--out", out)
    assert code == 0
    rows = rows_of(out)
    assert [r["index"] for r in rows] == list(range(8))
    assert [r["seed"] for r in rows] == [game_seed(2, d) for d in (0, 0, 1, 1, 2, 2, 3, 3)]
    assert [r["agents"] for r in rows] == [["greedy", "random"], ["random", "greedy"]] * 4
    game = vbr.load("siatka", engine=rows[0]["engine"])  # the engine the rows name
    for r in rows[:4]:  # a row is its game: its seed with its agents in seat order plays it again
        again = play_game(game, r["seed"], r["agents"])
        assert (again.winner, list(again.points), again.choices) == (r["winner"], r["score"], r["choices"])


def test_an_odd_n_plays_the_last_deal_in_its_first_seating_only_and_says_so(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    code, _, err = run(capsys, "sim", "siatka", "-n", 5, "--agents", "greedy,random", "--out", out)
    assert code == 0
    rows = rows_of(out)
    assert len(rows) == 5
    assert rows[4]["seed"] == game_seed(0, 2) and rows[4]["agents"] == ["greedy", "random"]
    assert "-n 5 is not a multiple of the 2 seatings" in err


def test_sim_reports_each_agents_wins_over_both_seatings_as_its_rows_count_them(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    code, text, _ = run(capsys, "sim", "siatka", "-n", 12, "--seed", 4, "--agents", "greedy,random", "--json",
                        "--out", out)
    assert code == 0
    stats, rows = json.loads(text), rows_of(out)
    for name in ("greedy", "random"):
        won = sum(1 for r in rows if r["winner"] is not None and r["agents"][r["winner"]] == name)
        assert stats["per_agent"][name]["wins"] == won and stats["per_agent"][name]["games"] == 12
    # per seat, as without rotation: seat 0's wins are the rows seat 0 won
    assert stats["wins"]["0"] == sum(1 for r in rows if r["winner"] == 0)
    assert stats["seatings"] == [["greedy", "random"], ["random", "greedy"]] and stats["rotate_seats"] is True


def test_sim_text_has_a_line_per_agent_with_its_interval(capsys):
    code, text, _ = run(capsys, "sim", "siatka", "-n", 8, "--agents", "greedy,random")
    assert code == 0
    assert "per agent, seats rotated (2 seatings: greedy | random, random | greedy):" in text
    assert "  greedy: " in text and " wins of 8, " in text and "(95% CI " in text


SEAT_0_WINS = 'game "Seat 0 wins"\nseats 2\nstart a\nphase a {\n  choose x from 1..2 by 0 as "pick"\n  end winner 0\n}\n'


def test_the_per_agent_lines_count_one_win_and_one_seating_in_the_singular(tmp_path, capsys):
    # seat 0 wins every game: over one deal in both seatings each agent sat there once, so won once;
    # one agent rotated has one seating, in which it won both games
    f = tmp_path / "seat0.vbr"
    f.write_text(SEAT_0_WINS)
    code, text, _ = run(capsys, "sim", f, "-n", 2, "--agents", "first,random")
    assert code == 0
    assert "per agent, seats rotated (2 seatings: first | random, random | first):" in text
    assert "  first: 1 win of 2, 50.0% " in text and "  random: 1 win of 2, 50.0% " in text
    code, text, _ = run(capsys, "sim", f, "-n", 2, "--agents", "random", "--rotate-seats")
    assert code == 0
    assert "per agent, seats rotated (1 seating: random | random):" in text
    assert "  random: 2 wins of 2, 100.0% " in text


# ----------------------------------------------------------------------------- the default
def test_rotation_is_on_by_default_when_the_agents_differ_and_a_note_says_so(capsys):
    code, text, err = run(capsys, "sim", "siatka", "-n", 4, "--agents", "greedy,random", "--json")
    assert code == 0 and json.loads(text)["rotate_seats"] is True
    assert NOTE in err and "--no-rotate-seats" in err


@pytest.mark.parametrize("agents", ["greedy", "random,random"])
def test_rotation_is_off_by_default_when_every_seat_has_the_same_agent(capsys, agents):
    code, text, err = run(capsys, "sim", "siatka", "-n", 4, "--agents", agents, "--json")
    assert code == 0
    stats = json.loads(text)
    assert stats["rotate_seats"] is False and stats["per_agent"] is None
    assert NOTE not in err


def test_asking_for_rotation_needs_no_note(capsys):
    code, text, err = run(capsys, "sim", "siatka", "-n", 4, "--agents", "greedy,random", "--rotate-seats", "--json")
    assert code == 0 and json.loads(text)["rotate_seats"] is True
    assert err == ""


def test_no_rotate_seats_plays_game_i_on_its_own_seed_with_the_agents_as_given(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    code, text, err = run(capsys, "sim", "siatka", "-n", 6, "--seed", 3, "--agents", "greedy,random",
                          "--no-rotate-seats", "--out", out)
    assert code == 0 and NOTE not in err and "per agent" not in text
    rows = rows_of(out)
    assert [r["seed"] for r in rows] == [game_seed(3, i) for i in range(6)]
    assert all(r["agents"] == ["greedy", "random"] for r in rows)


# --------------------------------------------------------------------- sweep, compare, engines
def test_sweep_and_compare_rotate_the_seats_of_every_run(capsys):
    code, text, err = run(capsys, "sweep", "siatka", "-n", 4, "--agents", "greedy,random", "--grid", "target=3,5",
                          "--json")
    assert code == 0 and NOTE in err
    for r in json.loads(text)["rows"]:
        assert r["summary"]["rotate_seats"] is True and set(r["summary"]["per_agent"]) == {"greedy", "random"}
    code, text, err = run(capsys, "compare", "siatka", "--variant-option", "target=5", "-n", 4,
                          "--agents", "greedy,random", "--json")
    assert code == 0 and NOTE in err
    report = json.loads(text)
    assert report["base_summary"]["rotate_seats"] and report["variant_summary"]["rotate_seats"]


def test_the_python_engine_plays_each_deal_in_both_seatings(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    code, _, _ = run(capsys, "sim", "siatka", "-n", 4, "--agents", "greedy,random", "--engine", "python", "--out", out)
    assert code == 0
    rows = rows_of(out)
    assert [r["agents"] for r in rows] == [["greedy", "random"], ["random", "greedy"]] * 2
    assert [r["seed"] for r in rows] == [game_seed(0, d) for d in (0, 0, 1, 1)]


# -------------------------------------------------------------------------- per-agent rates
def trial(i, agents, winner, sides=2):
    return Trial(i, 100 + i // 2, list(agents), sides, winner, None, 10, 0, 20, 0)


def test_an_agents_win_rate_counts_its_wins_in_every_seat():
    # deal 0: a wins from seat 0, then b wins from seat 0; deal 1: a wins both; deal 2: a draw, then b wins
    trials = [trial(0, "ab", 0), trial(1, "ba", 0), trial(2, "ab", 0), trial(3, "ba", 1),
              trial(4, "ab", None), trial(5, "ba", 0)]
    rates = agent_win_rates(trials, [0, 1])
    assert list(rates) == ["a", "b"]
    assert (rates["a"]["wins"], rates["a"]["games"], rates["a"]["value"]) == (3, 6, 0.5)
    assert (rates["b"]["wins"], rates["b"]["games"], rates["b"]["value"]) == (2, 6, 0.3333)
    # each deal's two games a cluster: a won 1, 2 and 0 of its deals' 2 games, p = 1/2, so
    # se² = Σ(yᵢ − 2p)²/(m(m − 1))/2² = (0 + 1 + 1)/6/4 = 1/12 over m = 3 deals, where 6
    # independent games give p(1 − p)/6 = 1/24: a design effect of 2, Wilson at 1.5 of 3 games
    assert rates["a"]["ci95"] == pytest.approx(S.wilson(1.5, 3), abs=1e-4)


def test_an_agents_win_rate_over_deals_of_one_game_each_is_wilson_s_over_the_games():
    # the same six outcomes, each game a deal of its own (seed i): Wilson at 3/6,
    # (0.5 + 1.96²/12 ± 1.96·√(0.25/6 + 1.96²/144)) / (1 + 1.96²/6) = 0.1876..0.8124
    trials = [trial(0, "ab", 0), trial(1, "ba", 0), trial(2, "ab", 0), trial(3, "ba", 1),
              trial(4, "ab", None), trial(5, "ba", 0)]
    for i, t in enumerate(trials):
        t.seed = 100 + i
    assert agent_win_rates(trials, [0, 1])["a"]["ci95"] == pytest.approx([0.1876, 0.8124], abs=1e-4)


def test_an_agents_win_rate_over_deals_whose_seatings_it_wins_alike_is_about_root_two_wider():
    # ten deals, a winning both seatings of deals 0, 3, 4 and 7 and losing both of the others:
    # 8 of 20 games, but the second game of a deal says nothing the first did not. Over the
    # m = 10 deals p = 0.4 and se² = p(1 − p)/(m − 1), where 20 games give p(1 − p)/20: a design
    # effect of 20/9, so Wilson on 9 games and 8/(20/9) = 3.6 wins
    a_wins = {0, 3, 4, 7}
    trials = [trial(i, "ab" if i % 2 == 0 else "ba", (i % 2) if i // 2 in a_wins else 1 - i % 2)
              for i in range(20)]
    rate = agent_win_rates(trials, [0, 1])["a"]
    assert (rate["wins"], rate["games"]) == (8, 20)
    assert rate["ci95"] == pytest.approx(S.wilson(3.6, 9), abs=1e-4)
    lo, hi = S.wilson(8, 20)
    assert 1.3 < (rate["ci95"][1] - rate["ci95"][0]) / (hi - lo) < 1.6


def test_in_a_game_of_teams_an_agent_wins_with_the_team_of_its_seats():
    # seats 0 and 2 are team 0, seats 1 and 3 team 1; team 1 wins, then team 1 again
    trials = [trial(0, "abab", 1, sides=2), trial(1, "baba", 1, sides=2)]
    rates = agent_win_rates(trials, [0, 1, 0, 1])
    assert (rates["a"]["wins"], rates["b"]["wins"]) == (1, 1)
    assert rates["a"]["games"] == rates["b"]["games"] == 2


def test_a_note_says_when_a_seating_puts_different_agents_on_one_side(tmp_path, capsys):
    # Cattack for 3: team red is seats 0 and 2, blue seat 1. greedy,random,random with the seats
    # rotated puts greedy on each team once a deal (vbr.seating), on red beside random (greedy |
    # random | random, or random | random | greedy): a red win there is a win of both, and the
    # agents' wins add up to the games and those red wins
    rows = tmp_path / "rows.jsonl"
    code, out, err = run(capsys, "sim", "cattack", "--option", "players=3", "-n", 6, "--agents",
                         "greedy,random,random", "--engine", "python", "--json", "--out", rows)
    assert code == 0, err
    assert "different agents share a side (seats 0, 2: " in err
    per = json.loads(out)["per_agent"]
    shared = sum(1 for r in rows_of(rows) if r["winner"] == 0 and r["agents"][0] != r["agents"][2])
    assert per["greedy"]["wins"] + per["random"]["wins"] == 6 + shared
    # four players, teams 0 2 and 1 3: each seating keeps a team to one agent, nothing to say
    code, _, err = run(capsys, "sim", "cattack", "-n", 2, "--agents", "greedy,random,greedy,random",
                       "--engine", "python")
    assert code == 0 and "share a side" not in err


def test_a_rotated_sweep_has_a_line_and_columns_per_agent(tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    code, text, _ = run(capsys, "sweep", "siatka", "-n", 4, "--agents", "greedy,random", "--grid", "target=3,5",
                        "--out", out)
    assert code == 0
    assert "seats rotated" in text.splitlines()[0]
    assert any(line.startswith("agent greedy wins ") for line in text.splitlines())
    header = out.read_text().splitlines()[0].split(",")
    assert {"win_rate agent greedy", "win_rate agent greedy lo", "win_rate agent random hi"} <= set(header)


def test_a_seat_s_win_rate_in_a_summary_takes_each_deal_s_games_as_one_cluster():
    from vbr.analysis.metrics import summarize
    # ten deals, each played in both seatings, seat 0 winning both games of 6 deals and seat 1 both
    # of the other 4: over the 10 deals p = 0.6, se² = p(1 − p)/9 against p(1 − p)/20 for 20
    # independent games, a design effect of 20/9: Wilson on 9 games and 5.4 wins
    deal_winner = [0, 0, 1, 0, 1, 0, 0, 1, 0, 1]
    games = [Trial(index=i, seed=100 + i // 2, agents=["a", "b"] if i % 2 == 0 else ["b", "a"], sides=2,
                   winner=deal_winner[i // 2], points=None, choices=3, forced=0, options=6, first_side=0)
             for i in range(20)]
    rate = summarize(games)["win_rate"]["0"]
    assert rate["value"] == pytest.approx(0.6)
    assert rate["ci95"] == pytest.approx(S.wilson(5.4, 9), abs=1e-4)
    # a deal played once each: Wilson over the games, as without rotation
    once = [Trial(index=i, seed=100 + i, agents=g.agents, sides=2, winner=g.winner, points=None, choices=3,
                  forced=0, options=6, first_side=0) for i, g in enumerate(games)]
    assert summarize(once)["win_rate"]["0"]["ci95"] == pytest.approx(S.wilson(12, 20), abs=1e-4)


# ------------------------------------------------------------------ every summary interval
def dealt(figures: list[dict], plays: int, order=None) -> list[Trial]:
    """Each deal's game (`figures[d]`, Trial fields beside the defaults) played `plays` times on
    the deal's seed, in the seatings a, b and b, a in turn, alike each time (a second seating
    changes nothing here), the deals' games together; `order`: the games' positions shuffled so."""
    games = [Trial(index=0, seed=500 + d, agents=["a", "b"] if k % 2 == 0 else ["b", "a"], sides=2, winner=0,
                   points=None, choices=5, forced=0, options=10, first_side=0)
             for d in range(len(figures)) for k in range(plays)]
    for i, t in enumerate(games):
        t.index = i
        for name, value in figures[i // plays].items():
            setattr(t, name, value)
    return [games[k] for k in order] if order else games


def test_a_proportion_of_deals_played_twice_alike_is_wilson_s_of_one_game_a_deal_on_m_minus_1_deals():
    from vbr.analysis.metrics import summarize
    # 10 deals, 3 of them drawn, and a bool measure true in 6; each deal played twice alike. Over
    # the m = 10 deals p = 0.3 and se² = p(1 − p)/(m − 1), where 20 independent games give
    # p(1 − p)/20: a design effect of 20/9, so Wilson on 9 games and 0.3·9 = 2.7 draws: the
    # interval of one game a deal (3 of 10) but for the ratio estimator's m/(m − 1)
    figures = [{"winner": None if d < 3 else 0, "measures": {"long": ("bool", d not in (0, 3, 5, 7))}}
               for d in range(10)]
    twice, once = summarize(dealt(figures, 2)), summarize(dealt(figures, 1))
    draws = twice["metrics"]["draw_rate"]
    assert (draws["value"], draws["n"], draws["method"]) == (0.3, 20, "Wilson score, deals as clusters")
    assert draws["ci95"] == pytest.approx(S.wilson(2.7, 9), abs=1e-4)
    assert twice["measures"]["measure:long"]["ci95"] == pytest.approx(S.wilson(0.6 * 9, 9), abs=1e-4)
    # every seed once: Wilson over the games, as before, and about √2 narrower
    assert once["metrics"]["draw_rate"]["ci95"] == pytest.approx(S.wilson(3, 10), abs=1e-4)
    assert once["metrics"]["draw_rate"]["method"] == "Wilson score"
    lo, hi = S.wilson(6, 20)
    assert 1.3 < (draws["ci95"][1] - draws["ci95"][0]) / (hi - lo) < 1.6


def test_a_mean_of_deals_played_twice_alike_is_the_interval_of_one_game_a_deal():
    from vbr.analysis.metrics import summarize
    # lengths 10, 12, 14, 16, 18, each deal twice: each deal's sum is twice its game, so the ratio
    # estimator's se over the 5 deals is s/√5 of one game a deal, s² = (16 + 4 + 0 + 4 + 16)/4 = 10:
    # 14 ± t₄·√2, with Student's t at the deals less one, as the 5 games of one a deal give
    figures = [{"choices": 10 + 2 * d, "options": 20 + 4 * d} for d in range(5)]
    twice, once = summarize(dealt(figures, 2)), summarize(dealt(figures, 1))
    mean = twice["metrics"]["length_mean"]
    half = S.student_t(4) * 2 ** 0.5
    assert (mean["value"], mean["method"]) == (14, "Student's t, deals as clusters")
    assert mean["ci95"] == pytest.approx([14 - half, 14 + half], abs=1e-4)
    assert once["metrics"]["length_mean"]["ci95"] == pytest.approx([14 - half, 14 + half], abs=1e-4)
    assert once["metrics"]["length_mean"]["method"] == "Student's t"
    # the 10 games as if independent: s² = 80/9 over 10, 14 ± t₉·√(8/9), far narrower
    assert S.mean_ci([10 + 2 * d for d in range(5) for _ in range(2)]) == pytest.approx(
        (14 - S.student_t(9) * (8 / 9) ** 0.5, 14 + S.student_t(9) * (8 / 9) ** 0.5), abs=1e-9)


def test_a_pooled_ratio_of_deals_played_twice_alike_is_the_interval_of_one_game_a_deal():
    from vbr.analysis.metrics import summarize
    # options over choices 6/3, 10/4, 12/4, 8/4, each deal twice: R = 36/15 = 2.4, the residuals
    # y − R·x of one game a deal −1.2, 0.4, 2.4, −1.6 (squares 9.92), se = √(9.92/(4·3))/3.75 =
    # 0.242457, and each deal's sums (2y, 2x) give the same: 2.4 ± 1.959964·0.242457
    figures = [{"options": y, "choices": x} for y, x in ((6, 3), (10, 4), (12, 4), (8, 4))]
    twice, once = summarize(dealt(figures, 2)), summarize(dealt(figures, 1))
    ratio = twice["metrics"]["branching_factor"]
    assert (ratio["value"], ratio["method"]) == (2.4, "ratio, deals as clusters")
    assert ratio["ci95"] == pytest.approx([1.9248, 2.8752], abs=1e-4)
    assert once["metrics"]["branching_factor"]["ci95"] == pytest.approx([1.9248, 2.8752], abs=1e-4)
    assert once["metrics"]["branching_factor"]["method"] == "ratio, games as clusters"
    # the 8 games as if independent: se = √(19.84/(8·7))/3.75 = 0.158725, √(7/6)·√2 narrower
    assert S.ratio_ci([6, 6, 10, 10, 12, 12, 8, 8], [3, 3, 4, 4, 4, 4, 4, 4]) == pytest.approx(
        (2.4 - S.Z95 * 0.158725, 2.4 + S.Z95 * 0.158725), abs=1e-5)


def test_a_quantile_of_deals_played_twice_alike_has_the_ranks_of_one_game_a_deal():
    from vbr.analysis.metrics import summarize
    # lengths 1..100, each deal twice. One game a deal: the median's textbook ranks X₍₄₀₎..X₍₆₁₎,
    # 40..61. Twice: at or below the median 50.5 are the first 50 deals' games, p = 0.5 with a
    # design effect of 2m/(m − 1) = 200/99 (as for a proportion), so the ranks of 200 games are
    # 100.5 ∓ 1.959964·√(200/99 · 200 · 0.25) = 100.5 ∓ 19.698: ⌊80.80⌋ = 80 and ⌈120.20⌉ = 121,
    # whose games are deal 40's second and deal 61's first: 40..61 again
    figures = [{"choices": d + 1} for d in range(100)]
    twice, once = summarize(dealt(figures, 2)), summarize(dealt(figures, 1))
    median = twice["metrics"]["length_median"]
    assert (median["value"], median["method"]) == (50.5, "order statistics, deals as clusters")
    assert median["ci95"] == [40, 61]
    assert once["metrics"]["length_median"]["ci95"] == [40, 61]
    assert once["metrics"]["length_median"]["method"] == "order statistics"
    # the 200 games as if independent: ranks 100.5 ∓ 13.859, X₍₈₆₎..X₍₁₁₅₎ = 43..58
    assert S.quantile_ci(sorted(float(d) for d in range(1, 101) for _ in range(2)), 0.5) == (43, 58)


def test_a_deals_games_need_not_be_played_together_to_be_one_cluster():
    from vbr.analysis.metrics import summarize
    # the games of test_a_mean_of_deals_..., each deal's two apart (0 5 1 6 ... as the run lists them)
    figures = [{"choices": 10 + 2 * d, "options": 20 + 4 * d, "winner": d % 2} for d in range(5)]
    together = summarize(dealt(figures, 2))
    apart = summarize(dealt(figures, 2, order=[0, 2, 4, 6, 8, 1, 3, 5, 7, 9]))
    assert apart["metrics"] == together["metrics"]
    assert apart["win_rate"] == together["win_rate"]


def test_a_figure_no_deal_counts_twice_keeps_the_independent_games_interval():
    from vbr.analysis.metrics import summarize
    # each deal played twice, but the int measure set in its first game only: its 6 games are each
    # a deal's only one, and its interval is Student's over them, as in a run of unique seeds
    figures = [{"choices": 4 + d} for d in range(6)]
    games = dealt(figures, 2)
    for t in games:
        t.measures = {"serves": ("int", t.choices if t.index % 2 == 0 else None)}
    entry = summarize(games)["measures"]["measure:serves"]
    assert entry["method"] == "Student's t"
    assert entry["ci95"] == pytest.approx(S.mean_ci([4, 5, 6, 7, 8, 9]), abs=1e-4)


@pytest.mark.parametrize("seeds, values, expected", [
    # every deal two games in a row, as a rotated run plays them
    ([7, 7, 3, 3, 9, 9], [1, 2, 3, 4, 5, 6], ([3, 7, 11], [2, 2, 2])),
    # an odd -n: the last deal in its first seating only
    ([7, 7, 3, 3, 9], [1, 2, 3, 4, 5], ([3, 7, 5], [2, 2, 1])),
    # a deal's games apart (rows merged from several runs), the deals in the order first come
    ([7, 3, 9, 7, 3, 9], [1, 3, 5, 2, 4, 6], ([3, 7, 11], [2, 2, 2])),
    # a game the figure is not taken over (None) left out, and a deal with none counted dropped
    ([7, 7, 3, 3, 9, 9], [1, None, None, None, 5, 6], ([1, 11], [1, 2])),
])
def test_deals_sum_each_deals_games_whatever_their_order(seeds, values, expected):
    from vbr.analysis.deals import Deals
    deals = Deals(seeds)
    assert deals.repeated and deals.deals == len(set(seeds))
    assert deals.totals(values) == expected


def test_deals_of_unique_seeds_are_not_repeated():
    from vbr.analysis.deals import Deals
    assert not Deals([4, 5, 6]).repeated


def test_one_deal_in_both_seatings_has_no_spread_between_deals_to_measure():
    from vbr.analysis.metrics import summarize
    # -n 2 rotated: one deal, two games. A mean's or a ratio's spread is between deals, and there is
    # one; a proportion's design effect cannot be read and is 1 (Wilson over the games, as before)
    games = dealt([{"choices": 7, "options": 12}], 2)
    games[1].choices, games[1].winner = 9, 1
    ms = summarize(games)["metrics"]
    assert ms["length_mean"]["value"] == 8 and ms["length_mean"]["ci95"] is None
    assert ms["length_mean"]["reason"] == "the games are of one deal: no spread between deals to measure"
    assert ms["branching_factor"]["ci95"] is None
    assert summarize(games)["win_rate"]["0"]["ci95"] == pytest.approx(S.wilson(1, 2), abs=1e-4)


def test_seeds_that_repeat_in_a_run_of_one_seating_are_independent_games_with_plain_intervals():
    from vbr.analysis.metrics import summarize
    # a run's game seeds are 31 bits, so a long run meets a seed twice by chance: two games drawn
    # independently, with the same agents in the same seats. Only a deal played in several
    # seatings (the seats rotated) shares its draws by design: here the intervals are the plain
    # ones, Wilson's over 20 games, as if every seed were new
    deal_winner = [0, 0, 1, 0, 1, 0, 0, 1, 0, 1]
    games = [Trial(index=i, seed=100 + i // 2, agents=["a", "b"], sides=2, winner=deal_winner[i // 2], points=None,
                   choices=3, forced=0, options=6, first_side=0) for i in range(20)]
    summary = summarize(games)
    assert summary["win_rate"]["0"]["ci95"] == pytest.approx(S.wilson(12, 20), abs=1e-4)
    assert "deals as clusters" not in summary["metrics"]["draw_rate"]["method"]
