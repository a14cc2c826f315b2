"""Restricted play (`vbr sim --restrict SEAT=RULE`) and `vbr importance` (issue 36, goal 6), on a
toy whose answers are known by hand (tests/fixtures/valid/safe_or_risky.vbr): seat 0 picks `safe`
(wins on a die's 4..6, 1/2) or `risky` (wins on a 6, 1/6), so uniformly random it wins 1/3;
never taking `risky` it wins 1/2, never taking `safe` 1/6. Seat 1's optional `boo` changes
nothing."""
import json
import re
from pathlib import Path

import pytest

from vbr.cli import main
from vbr.restrict import Restriction

TOY = Path(__file__).parent / "fixtures" / "valid" / "safe_or_risky.vbr"
ENGINES = ("python", "c")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def sim(capsys, *more):
    code, out, err = run(capsys, "sim", TOY, "--json", *more)
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------------------------ the rule
def test_never_takes_away_the_options_a_word_names():
    options = [frozenset({"safe"}), frozenset({"risky"})]
    assert Restriction(frozenset({"risky"})).keep(options) == [0]


def test_pass_keeps_only_pass_where_a_choice_may_be_passed_and_nothing_elsewhere():
    rule = Restriction(only_pass=True)
    assert rule.keep([frozenset({"boo"}), frozenset({"pass"})]) == [1]
    assert rule.keep([frozenset({"safe"}), frozenset({"risky"})]) == [0, 1]


def test_a_thing_is_named_by_its_kind_and_its_enum_fields(capsys):
    # Siatka's cards are things of kind Card with a `tactic`: never:Card leaves every card choice
    # with pass only, exactly as the `pass` rule does (the book's card choices are all optional)
    a = sim_siatka(capsys, "0=never:Card")
    b = sim_siatka(capsys, "0=pass")
    assert a["restricted"]["narrowed_per_game"] > 0
    assert a["wins"] == b["wins"] and a["restricted"]["narrowed_per_game"] == b["restricted"]["narrowed_per_game"]


def sim_siatka(capsys, rule):
    code, out, err = run(capsys, "sim", "siatka", "-n", 20, "--seed", 3, "--json", "--engine", "c", "--restrict", rule)
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------------------------ sim --restrict
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rule, rate", [("0=never:risky", 1 / 2), ("0=never:safe", 1 / 6)])
def test_a_restricted_seat_wins_as_often_as_its_remaining_options_make_it(capsys, engine, rule, rate):
    stats = sim(capsys, "-n", 1500, "--seed", 1, "--engine", engine, "--restrict", rule)
    lo, hi = stats["ci95"]["0"]
    assert lo <= rate <= hi
    assert stats["restricted"] == {"rules": [rule], "narrowed_per_game": 1.0, "played_whole": 0}


def test_the_restricted_play_line_gives_the_choices_narrowed_per_game_to_two_places_as_importance_does(capsys):
    # docs/cli.md: seat 0 makes one choice a game, and never:risky narrows each: 1.00 per game
    # (the line said 1.0, where vbr importance's table says 1.00 of the same figure)
    code, out, err = run(capsys, "sim", TOY, "-n", 20, "--restrict", "0=never:risky")
    assert code == 0, err
    assert "restricted play (0=never:risky): 1.00 choices narrowed per game, 0 left with no option" in out


def test_a_choice_the_restriction_would_empty_is_played_whole_and_counted(capsys):
    stats = sim(capsys, "-n", 50, "--restrict", "0=never:safe,risky")
    assert stats["restricted"]["played_whole"] == 50 and stats["restricted"]["narrowed_per_game"] == 0
    assert sum(stats["wins"].values()) == 50


@pytest.mark.parametrize("spec, message", [
    ("0=never:sometimes", "`sometimes` names no option of this file; it can name: boo, pass, risky, safe"),
    ("0=never:rsiky", "`rsiky` names no option of this file; did you mean `risky`?"),
    ("2=pass", "the seats are 0..1"),
    ("x", "expected SEAT=RULE"),
    ("\u00b2=pass", "expected SEAT=RULE"),  # a digit to str.isdigit, no seat number (int() refused it)
    ("0=always:safe", "a rule is never:WORD[,WORD...] or pass"),
])
def test_a_restriction_that_names_nothing_is_a_usage_error_naming_what_it_could(capsys, spec, message):
    code, _, err = run(capsys, "sim", TOY, "-n", 5, "--restrict", spec)
    assert code == 2 and message in err


NUMBERS = """game "Numbers"
seats 2
start play
phase play {
  choose n from 1..3 by 0 as "n"
  choose b from [true, false] by 1 as "b"
  if n == 3 and b { end winner 0 }
  end winner 1
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_number_or_a_truth_value_names_the_options_whose_text_it_is(capsys, tmp_path, engine):
    # cli.md: never:WORD takes away an option whose text is the word, a number among them; seat 0
    # wins only with n = 3 and seat 1's b true, so taking 1 and 2 (`01` is 1) from seat 0 and
    # false from seat 1 leaves seat 0 every game, each of both seats' choices narrowed (these
    # words were refused: `1` names no option of this file; it can name: )
    path = tmp_path / "numbers.vbr"
    path.write_text(NUMBERS, encoding="utf-8")
    code, out, err = run(capsys, "sim", path, "-n", 20, "--json", "--engine", engine,
                         "--restrict", "0=never:01,2", "--restrict", "1=never:false")
    assert code == 0, err
    stats = json.loads(out)
    assert stats["wins"] == {"0": 20, "1": 0}
    assert stats["restricted"]["narrowed_per_game"] == 2.0 and stats["restricted"]["played_whole"] == 0
    code, _, err = run(capsys, "sim", path, "-n", 2, "--restrict", "0=never:several")
    assert code == 2 and "it can name: false, true, a whole number" in err


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_restricted_mcts_seat_never_takes_what_is_taken_away_under_the_typed_engines(capsys, engine):
    # never:safe leaves seat 0 only risky, which wins 1 in 6 whatever the search prefers
    stats = sim(capsys, "-n", 300, "--seed", 2, "--agents", "mcts:iterations=50,random", "--no-rotate-seats",
                "--engine", engine, "--restrict", "0=never:safe")
    lo, hi = stats["ci95"]["0"]
    assert lo <= 1 / 6 <= hi
    assert stats["restricted"]["narrowed_per_game"] == 1.0


def test_a_restricted_greedy_seat_never_takes_what_is_taken_away(capsys):
    # greedy prefers `safe` here (its imagined worlds win more often); restricted, it must play risky
    stats = sim(capsys, "-n", 600, "--seed", 2, "--agents", "greedy,random", "--no-rotate-seats",
                "--restrict", "0=never:safe")
    lo, hi = stats["ci95"]["0"]
    assert lo <= 1 / 6 <= hi


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_summarize_reports_the_restricted_counts_the_sim_reported(capsys, tmp_path, suffix):
    # seat 0 chooses once a game: never:risky narrows that choice in every game; never:safe,risky
    # would empty it, so it is played whole, in every game
    rows = tmp_path / f"rows{suffix}"
    stats = sim(capsys, "-n", 30, "--restrict", "0=never:risky", "--out", rows)
    code, out, err = run(capsys, "summarize", rows, "--json")
    assert code == 0, err
    assert json.loads(out)["restricted"] == stats["restricted"] == {
        "rules": ["0=never:risky"], "narrowed_per_game": 1.0, "played_whole": 0}


def test_summarize_keeps_restricted_and_unrestricted_rows_apart(capsys, tmp_path):
    whole, free = tmp_path / "whole.jsonl", tmp_path / "free.jsonl"
    sim(capsys, "-n", 20, "--restrict", "0=never:safe,risky", "--out", whole)
    sim(capsys, "-n", 20, "--out", free)
    code, out, err = run(capsys, "summarize", free, whole, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["base_summary"]["restricted"] is None
    assert report["variant_summary"]["restricted"] == {
        "rules": ["0=never:safe,risky"], "narrowed_per_game": 0.0, "played_whole": 20}


def test_summarize_merges_rows_of_one_restriction_given_in_other_words(capsys, tmp_path):
    # `never:safe,risky` and `never:risky,safe`, or the two words in two --restrict rules of one
    # seat, take away the same options (restrict.py): the same games, one arm, each counted once
    files = []
    for n, rules in enumerate((["0=never:safe,risky"], ["0=never:risky,safe"], ["0=never:risky", "0=never:safe"])):
        files.append(tmp_path / f"rows{n}.csv")
        sim(capsys, "-n", 10, "--engine", "python", *[x for r in rules for x in ("--restrict", r)], "--out", files[-1])
    code, out, err = run(capsys, "summarize", *files, "--json")
    assert code == 0, err
    assert "20 games appear more than once" in err
    assert json.loads(out)["restricted"] == {"rules": ["0=never:safe,risky"], "narrowed_per_game": 0.0,
                                             "played_whole": 10}


def test_csv_rows_of_a_restriction_given_with_a_leading_tab_read_back_as_given(capsys, tmp_path):
    # `--restrict` takes `\t0=never:risky` (its seat read stripped); the CSV cell starts like a
    # formula, so is written quoted (output.inert), and reads back as the rule given: one arm with
    # the JSON lines of the same run, its rules as sim reported them
    rule = "\t0=never:risky"
    csv_rows, json_rows = tmp_path / "rows.csv", tmp_path / "rows.jsonl"
    stats = sim(capsys, "-n", 6, "--engine", "python", "--restrict", rule, "--out", csv_rows)
    sim(capsys, "-n", 6, "--engine", "python", "--restrict", rule, "--out", json_rows)
    code, out, err = run(capsys, "summarize", csv_rows, json_rows, "--json")
    assert code == 0, err
    assert "6 games appear more than once" in err
    assert json.loads(out)["restricted"] == stats["restricted"] and stats["restricted"]["rules"] == [rule]


# ------------------------------------------------------------------------------ vbr importance
@pytest.mark.parametrize("engine, seed, n", [("python", 1, 2000), ("c", 1, 2000)])
def test_importance_ranks_each_word_by_the_win_rate_its_seat_loses_without_it(capsys, engine, seed, n):
    code, out, err = run(capsys, "importance", TOY, "-n", n, "--seed", seed, "--engine", engine, "--json")
    assert code == 0, err
    rows = {r["word"]: r for r in json.loads(out)["importance"]}
    order = [r["word"] for r in json.loads(out)["importance"]]
    # without `safe` seat 0 wins 1/6 instead of 1/3: a drop of 1/6; without `risky`, 1/2: a gain
    assert rows["safe"]["ci95"][0] <= 1 / 6 <= rows["safe"]["ci95"][1]
    assert rows["risky"]["ci95"][0] <= -1 / 6 <= rows["risky"]["ci95"][1]
    # seat 1's shout changes nothing: every paired deal ends alike
    assert rows["boo"]["drop"] == 0 and rows["pass"]["drop"] == 0
    assert order[0] == "safe" and order[-1] == "risky"
    # each word is measured on the seat it bites: seat 0 for the moves, seat 1 for the shout
    assert rows["safe"]["games"] == n and rows["boo"]["games"] == n


def test_importance_text_names_words_that_never_bite(capsys, tmp_path):
    path = tmp_path / "toy.vbr"
    path.write_text(TOY.read_text().replace("enum Shout { boo }", "enum Shout { boo }\nenum Unused { never_seen }"))
    code, out, _ = run(capsys, "importance", path, "-n", 20)
    assert code == 0
    line = next(x for x in out.splitlines() if "never_seen" in x)
    assert "never offered" in line


@pytest.mark.parametrize("engine", ["python", "c"])
def test_importance_with_mcts_seats_runs_under_the_typed_engines(capsys, engine):
    # a search of 50 iterations (budget=0: no more) tells `safe` (wins 1/2) from `risky` (1/6)
    # and takes safe, so taking safe away costs its seat 1/2 - 1/6 = 1/3, and risky nothing. In
    # this process (--workers 1; an mcts agent's default is a worker per core): a pool of workers
    # starts for each of the command's 9 runs, some 20 s of CPU (under C, 2 s of play), and the
    # games are the same in any number of workers (test_cli.py's one and two workers)
    code, out, err = run(capsys, "importance", TOY, "-n", 300, "--seed", 1, "--engine", engine,
                         "--agents", "mcts:iterations=50,budget=0", "--json", "--workers", 1)
    assert code == 0, err
    rows = {r["word"]: r for r in json.loads(out)["importance"]}
    assert rows["safe"]["ci95"][0] <= 1 / 3 <= rows["safe"]["ci95"][1]
    assert abs(rows["risky"]["drop"]) < 0.05


def test_importance_out_csv_writes_the_interval_as_two_numeric_columns(capsys, tmp_path):
    # risky's true drop is -1/6 (seat 0 wins 1/2 without it, 1/3 with it): its interval's ends are
    # negative numbers, each in a column of its own, written as numbers (no quote before the minus);
    # a word never offered has no interval: both cells empty
    import csv
    path = tmp_path / "toy.vbr"
    path.write_text(TOY.read_text().replace("enum Shout { boo }", "enum Shout { boo }\nenum Unused { never_seen }"))
    out = tmp_path / "importance.csv"
    code, _, err = run(capsys, "importance", path, "-n", 600, "--seed", 1, "--engine", "python", "--out", out)
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[0].split(",")[:5] == ["word", "what", "drop", "drop lo", "drop hi"]
    rows = {r["word"]: r for r in csv.DictReader(text.splitlines())}
    risky = rows["risky"]
    lo, drop, hi = float(risky["drop lo"]), float(risky["drop"]), float(risky["drop hi"])
    assert lo <= drop <= hi and lo <= -1 / 6 <= hi and hi < 0
    assert risky["drop lo"].startswith("-") and risky["drop hi"].startswith("-")
    assert float(rows["safe"]["drop lo"]) <= 1 / 6 <= float(rows["safe"]["drop hi"])
    assert rows["never_seen"]["drop lo"] == rows["never_seen"]["drop hi"] == ""
    assert "ci95" not in rows["risky"]


def test_importance_table_says_one_choice_played_whole_in_the_singular():
    from vbr.analysis.importance import Importance, render
    bit = Importance("pep_talk", "a member of Title", 0.13, (0.054, 0.206), 0.37, 0.5, 13.54, 1, 400)
    never = Importance("pep_talk", "a member of Title", None, None, 0.0, 0.0, 0.0, 1, 0)
    shown = render("Game", [bit], ["greedy", "greedy"], 200).splitlines()[-1]
    assert shown.endswith("a member of Title (1 choice played whole)"), shown
    shown = render("Game", [never], ["greedy", "greedy"], 200).splitlines()[-1]
    assert shown.endswith("a member of Title (1 choice offered nothing else)"), shown


def test_importance_progress_counts_the_games_of_all_its_runs_to_the_last(capsys):
    # TOY: 4 words (safe, risky, boo, pass) over 2 seats: the unrestricted run and 8 restricted
    # ones, 20 games each, 180 in all
    code, _, err = run(capsys, "importance", TOY, "-n", 20, "--progress")
    assert code == 0
    counts = [tuple(map(int, m)) for m in re.findall(r"importance: (\d+)/(\d+) games", err.replace("\r", "\n"))]
    assert counts[0] == (0, 180) and counts[-1] == (180, 180)
    assert [done for done, _ in counts] == sorted(done for done, _ in counts)


def test_importance_stopped_by_sigterm_in_a_word_s_runs_exits_with_the_signal_s_code():
    # the progress line counts the base run's games first: past -n, the words' runs are playing
    import signal
    import subprocess
    import sys
    n = 20000
    proc = subprocess.Popen([sys.executable, "-m", "vbr", "importance", str(TOY), "-n", str(n), "--engine", "python",
                             "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = b""
    while True:
        chunk = proc.stderr.read1(4096)
        assert chunk, seen.decode()[-300:]  # it ended before its words' runs began
        seen += chunk
        done = [int(m) for m in re.findall(rb"importance: (\d+)/", seen)]
        if done and done[-1] > n:
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM, err.decode()[-300:]
    assert err.decode().splitlines()[-1].startswith("vbr: interrupted after ")


def test_importance_of_a_file_with_no_word_to_restrict_says_so_and_writes_the_header_alone(tmp_path, capsys):
    # no enum, no kind, no optional choice: nothing a restriction can name
    rules = tmp_path / "plain.vbr"
    rules.write_text('game "Plain"\nseats 2\nstart p\nphase p {\n  choose x from 1..2 by 0\n  end winner x - 1\n}\n',
                     encoding="utf-8")
    out = tmp_path / "words.csv"
    code, stdout, err = run(capsys, "importance", rules, "-n", 10, "--out", out)
    assert code == 0, err
    assert stdout.splitlines()[-1] == ("  no word to weigh: the file has no enum member or kind, and no choice that "
                                       "may be passed")
    assert out.read_text(encoding="utf-8") == ("word,what,drop,drop lo,drop hi,restricted_rate,base_rate,"
                                               "narrowed_per_game,played_whole,games\n")


def test_importance_s_out_columns_are_those_of_its_rows():
    from vbr.analysis.importance import OUT_COLUMNS, Importance
    row = Importance("w", "a kind", 0.1, (0.0, 0.2), 0.4, 0.5, 1.0, 0, 10).out_row()
    assert tuple(row) == OUT_COLUMNS
