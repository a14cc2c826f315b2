"""Paired runs through the command line: `vbr compare` pairs its arms by deal and says so, per-game
rows of sim, sweep and compare are read back and merged by `vbr summarize`, and compare reuses a
base arm already played."""
import json

import pytest

from vbr.cli import main

BUMP = "docs/tutorial/bump.vbr"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def figures(report: dict) -> dict:
    return {m["metric"]: (m["a"], m["b"], m["ci95"], m["method"]) for m in report["metrics"]}


def first_servers(engine: str, options: dict, seeds=range(60)) -> list[int]:
    """Cattack's initial server (`server = pick seats` in its setup) in the games of these seeds."""
    from vbr.engines.game import load
    game = load("cattack", options, engine=engine)
    at = game.program.layout.vars + game.model.vars["server"].base
    return [int(game.new_state(s).words[at]) for s in seeds]


def test_typed_engines_draw_cattacks_first_server_alike_under_another_deck():
    # `composition=fifteen` deals another deck, shuffled before the server is picked: the pick has
    # a stream of its own, so every deal keeps its first server, in either engine
    printed, fifteen = first_servers("python", {}), first_servers("python", {"composition": "fifteen"})
    assert printed == fifteen and set(printed) == {0, 1, 2, 3}
    assert first_servers("c", {"composition": "fifteen"}) == printed


def test_compare_pairs_its_arms_by_deal_and_says_what_an_unpaired_run_would_need(capsys):
    code, out, _ = run(capsys, "compare", BUMP, "--variant-option", "target=5", "-n", 100, "--seed", 1,
                       "--engine", "python")
    assert code == 0
    assert "paired: 100 deals played in both (same seeds and seatings)" in out
    assert "an unpaired run would need" in out and "games per variant for the seat 0 win rate's interval" in out
    assert "the pairing is weak" not in out


def test_compare_with_the_seats_rotated_counts_its_pairs_as_games_of_fewer_deals(capsys):
    # two agents: each deal (seed) is played in both seatings, two pairs a deal; the line said
    # "8 deals played in both" of the 4 deals the 8 games were dealt
    code, out, err = run(capsys, "compare", BUMP, "--variant-option", "target=5", "-n", 8, "--seed", 1,
                         "--agents", "first,random", "--engine", "python")
    assert code == 0, err
    assert "paired: 8 games of 4 deals played in both (same seeds and seatings)" in out


DICE = """game "Dice"
seats 2
die d6 = 1..6
die d4 = 1..4
start p
phase p {
  choose x from [1, 2] by 0
ABOVE  let r = roll d6
BELOW  if r >= 4 { end winner 0 }
  end winner 1
}
"""


@pytest.mark.parametrize("above, below, alike", [
    ("", "  let z = roll d6\n", True),  # added below the roll the winner hangs on: its numbers stay
    ("  let z = roll d4\n", "", True),  # another die's roll: a stream of its own
    ("  let z = roll d6\n", "", False),  # the same die's, above it: the roll is the second d6 now
])
def test_a_roll_added_to_a_variant_leaves_the_others_numbers_alone_as_analysis_md_says(tmp_path, capsys, above,
                                                                                      below, alike):
    base, variant = tmp_path / "base.vbr", tmp_path / "variant.vbr"
    base.write_text(DICE.replace("ABOVE", "").replace("BELOW", ""), encoding="utf-8")
    variant.write_text(DICE.replace("ABOVE", above).replace("BELOW", below), encoding="utf-8")
    code, out, err = run(capsys, "compare", base, variant, "-n", 40, "--json", "--engine", "python")
    assert code == 0, err
    pairing = json.loads(out)["pairing"]
    assert (pairing["same_winner"] == 40) is alike


def test_compare_json_gives_paired_intervals_and_holm_adjusted_marks(capsys):
    code, out, _ = run(capsys, "compare", BUMP, "--variant-option", "target=5", "-n", 60, "--json")
    r = json.loads(out)
    length = {m["metric"]: m for m in r["metrics"]}["length_mean"]
    assert length["method"] == "paired: per-seed differences" and length["pairs"] == 60
    assert length["p_holm"] >= length["p"] and length["significant"] is (length["p_holm"] < 0.05)
    assert r["pairing"]["pairs"] == 60


def test_summarize_of_compares_rows_gives_the_compares_figures(tmp_path, capsys):
    rows = tmp_path / "both.jsonl"
    code, out, _ = run(capsys, "compare", BUMP, "--variant-option", "target=5", "-n", 50, "--seed", 4,
                       "--json", "--rows", rows)
    assert code == 0
    played = json.loads(out)
    lines = [json.loads(x) for x in rows.read_text().splitlines()]
    assert [r["arm"] for r in lines] == ["base"] * 50 + ["variant"] * 50
    code, out, _ = run(capsys, "summarize", rows, "--json")
    assert code == 0 and figures(json.loads(out)) == figures(played)


def test_summarize_of_compares_rows_names_the_options_each_arm_was_played_with(tmp_path, capsys):
    # the rows' arms are labelled base and variant; alone those say nothing of what was compared
    rows = tmp_path / "both.jsonl"
    assert run(capsys, "compare", BUMP, "--variant-option", "target=5", "-n", 10, "--rows", rows)[0] == 0
    code, out, _ = run(capsys, "summarize", rows)
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"base: base, target=3 ({BUMP})" and lines[1] == f"variant: variant, target=5 ({BUMP})"


def test_compare_reuses_a_base_arm_already_played(tmp_path, capsys):
    base = tmp_path / "base.csv"
    assert run(capsys, "sim", BUMP, "-n", 50, "--seed", 4, "--out", base)[0] == 0
    code, out, _ = run(capsys, "compare", BUMP, "--variant-option", "target=5", "-n", 50, "--seed", 4, "--json")
    full = json.loads(out)
    code, out, _ = run(capsys, "compare", BUMP, "--variant-option", "target=5", "--base-rows", base, "--json")
    assert code == 0
    reused = json.loads(out)
    assert reused["base_rows"] == str(base) and figures(reused) == figures(full)


def test_a_base_played_by_the_python_engine_is_reused_by_a_comparison_in_c(tmp_path, capsys):
    # both engines play the same games: rows of either are the base's games
    base = tmp_path / "base.jsonl"
    assert run(capsys, "sim", BUMP, "-n", 50, "--seed", 4, "--engine", "python", "--out", base)[0] == 0
    code, out, _ = run(capsys, "compare", BUMP, "--variant-option", "target=5", "-n", 50, "--seed", 4,
                       "--engine", "c", "--json")
    full = json.loads(out)
    code, out, err = run(capsys, "compare", BUMP, "--variant-option", "target=5", "--base-rows", base,
                         "--engine", "c", "--json")
    assert code == 0, err
    assert figures(json.loads(out)) == figures(full)


def test_base_rows_of_another_rule_file_are_a_usage_error(tmp_path, capsys):
    base = tmp_path / "base.jsonl"
    assert run(capsys, "sim", BUMP, "-n", 3, "--out", base)[0] == 0
    code, _, err = run(capsys, "compare", "siatka", "--variant-option", "target=5", "--base-rows", base)
    assert code == 2 and "no games of the base" in err and "bump.vbr" in err


def test_summarize_merges_runs_and_counts_a_game_once(tmp_path, capsys):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.csv"
    assert run(capsys, "sim", BUMP, "-n", 30, "--seed", 1, "--out", one)[0] == 0
    assert run(capsys, "sim", BUMP, "-n", 20, "--seed", 2, "--out", two)[0] == 0
    wins = [0, 0]
    for line in one.read_text().splitlines():
        wins[json.loads(line)["winner"]] += 1
    code, out, err = run(capsys, "summarize", one, two, one, "--json")
    assert code == 0
    merged = json.loads(out)
    assert merged["games"] == 50 and "30 games appear more than once" in err
    code, out, _ = run(capsys, "summarize", two, "--json")
    second = json.loads(out)["wins"]
    assert merged["wins"] == {"0": wins[0] + second["0"], "1": wins[1] + second["1"]}


def test_summarize_of_csv_rows_gives_the_runs_figures_and_measures(tmp_path, capsys):
    rows = tmp_path / "games.csv"
    code, out, _ = run(capsys, "sim", "siatka", "-n", 8, "--seed", 5, "--json", "--out", rows)
    played = json.loads(out)
    assert played["measures"]  # Siatka declares its first server
    code, out, _ = run(capsys, "summarize", rows, "--json")
    again = json.loads(out)
    assert code == 0 and (again["metrics"], again["measures"]) == (played["metrics"], played["measures"])


def test_summarize_keeps_the_games_of_other_agents_apart(tmp_path, capsys):
    rows = tmp_path / "games.jsonl"
    assert run(capsys, "sim", BUMP, "-n", 10, "--out", rows)[0] == 0
    greedy = tmp_path / "greedy.jsonl"
    assert run(capsys, "sim", BUMP, "-n", 10, "--agents", "greedy", "--out", greedy)[0] == 0
    code, out, _ = run(capsys, "summarize", rows, greedy, "--json")
    report = json.loads(out)  # two arms: compared, random's games as the base
    assert code == 0 and report["base_summary"]["agents"] == ["random", "random"]
    assert report["variant_summary"]["agents"] == ["greedy", "greedy"]


def test_summarize_reads_a_sweeps_rows_back_as_its_table(tmp_path, capsys):
    rows = tmp_path / "sweep.jsonl"
    code, out, _ = run(capsys, "sweep", BUMP, "--grid", "target=2,3,4", "-n", 20, "--json", "--rows", rows)
    assert code == 0
    swept = json.loads(out)
    code, out, _ = run(capsys, "summarize", rows, "--json")
    again = json.loads(out)
    assert [r["summary"]["metrics"] for r in again["rows"]] == [r["summary"]["metrics"] for r in swept["rows"]]
    assert again["analysis"]["against_first"] == swept["analysis"]["against_first"]


def test_summarize_of_a_sweeps_rows_gives_its_grid_and_each_swept_option_as_the_sweeps_json(tmp_path, capsys):
    # cli.md, vbr summarize: `--json` prints what sweep would print with `--json`: the grid as
    # given, and each combination's swept options as `vbr sim --json` writes options (a number
    # as a number: bump.vbr's `option target = 3`), not as the rows' text
    rows = tmp_path / "sweep.csv"
    code, out, _ = run(capsys, "sweep", BUMP, "--grid", "target=2,3,4", "-n", 4, "--engine", "python", "--json",
                       "--rows", rows)
    assert code == 0
    swept = json.loads(out)
    code, out, _ = run(capsys, "summarize", rows, "--json")
    again = json.loads(out)
    assert [r["options"] for r in again["rows"]] == [r["options"] for r in swept["rows"]] == \
        [{"target": 2}, {"target": 3}, {"target": 4}]
    assert again["grid"] == swept["grid"] == {"target": ["2", "3", "4"]}
    assert again["interrupted"] is swept["interrupted"] is False


def test_summarize_of_a_sweeps_rows_takes_its_options_in_the_order_of_its_grid(tmp_path, capsys):
    # the grid names `abilities` before `target`, which siatka.vbr declares first: the table's
    # header lines, the pooled values and the grid read back in the sweep's order
    rows = tmp_path / "sweep.jsonl"
    code, out, _ = run(capsys, "sweep", "siatka", "--grid", "abilities=false,true", "--grid", "target=1,2", "-n", 2,
                       "--engine", "python", "--json", "--rows", rows)
    assert code == 0
    swept = json.loads(out)
    code, out, _ = run(capsys, "summarize", rows, "--json")
    again = json.loads(out)
    assert list(again["grid"]) == list(swept["grid"]) == ["abilities", "target"]
    assert [(p["option"], p["value"]) for p in again["analysis"]["pooled"]] == \
        [(p["option"], p["value"]) for p in swept["analysis"]["pooled"]] == \
        [("abilities", "false"), ("abilities", "true"), ("target", "1"), ("target", "2")]


def test_summarize_of_rows_of_several_files_heads_an_option_one_file_lacks_as_n_a(tmp_path, capsys):
    # three arms are printed as a sweep, the options the arms differ in heading their columns;
    # safe_or_risky.vbr declares no `target`, and its column said `target=pass` (the text of a
    # passed choice), a value no option takes
    other = "tests/fixtures/valid/safe_or_risky.vbr"
    for name, file, more in (("a.jsonl", BUMP, ["--option", "target=2"]), ("b.jsonl", BUMP, []),
                             ("c.jsonl", other, [])):
        assert run(capsys, "sim", file, "-n", 4, "--engine", "python", "--out", tmp_path / name, *more)[0] == 0
    code, out, err = run(capsys, "summarize", tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl")
    assert code == 0, err
    heads = [line.split() for line in out.splitlines() if line.startswith(" ") and "=" in line.split()[0]]
    assert ["target=2", "target=3"] in heads and ["target=n/a"] in heads and [f"rules={other}"] in heads
    assert "pass" not in out


def test_a_bad_row_is_reported_at_its_line(tmp_path, capsys):
    rows = tmp_path / "games.jsonl"
    assert run(capsys, "sim", BUMP, "-n", 2, "--out", rows)[0] == 0
    rows.write_text(rows.read_text() + "{not json\n")
    code, _, err = run(capsys, "summarize", rows)
    assert code == 1 and err.startswith(f"{rows}:3:2: error: not JSON")


def test_a_rows_file_that_cannot_be_read_is_said_in_words(tmp_path, capsys):
    # cli.md, Errors: a file that cannot be read is `vbr: error: cannot read FILE: no such file`,
    # not the OS's own wording; summarize exits 1 (a file problem), --base-rows 2 (a usage error).
    missing = tmp_path / "gone.csv"
    code, _, err = run(capsys, "summarize", missing)
    assert (code, err) == (1, f"vbr: error: cannot read {missing}: no such file\n")
    code, _, err = run(capsys, "compare", BUMP, "--variant-option", "target=1", "--base-rows", missing)
    assert (code, err) == (2, f"vbr: error: --base-rows: cannot read {missing}: no such file\n")


def test_two_flags_naming_one_file_are_a_usage_error_before_any_game(tmp_path, capsys):
    # A sweep's --out table and its --rows games cannot share a file (the rows replaced the table),
    # and compare's --rows cannot replace the --base-rows file it reads.
    same = tmp_path / "same.csv"
    code, _, err = run(capsys, "sweep", BUMP, "--grid", "target=1,2", "-n", 2, "--out", same, "--rows", same)
    assert (code, err) == (2, f"vbr: error: --rows {same}: --out names the same file; give each its own file\n")
    assert not same.exists()
    base = tmp_path / "base.csv"
    assert run(capsys, "sim", BUMP, "-n", 2, "--out", base)[0] == 0
    before = base.read_text()
    code, _, err = run(capsys, "compare", BUMP, "--variant-option", "target=1", "--base-rows", base, "--rows", base)
    assert (code, err) == (2, f"vbr: error: --rows {base}: --base-rows names the same file; give each its own file\n")
    assert base.read_text() == before


NEGATIVE_POINTS = """game "Neg"
seats 2
points score
start p
var score: int per seat = 0
phase p {
  choose c from [0, 1] by 0 as "who loses a point"
  score[c] -= 1
  score[1 - c] += 2
  if score[0] >= 3 or score[1] >= 3 {
    end winner if score[0] > score[1] then 0 else 1
  }
  goto p
}
"""


def test_csv_rows_of_negative_scores_read_back_as_their_jsonl_rows(tmp_path, capsys):
    # A score whose first number is negative is written `'-2-4` (the quote keeps a spreadsheet from
    # reading a formula): read back it is the score [-2, 4] again, so the CSV rows summarise as
    # the JSON lines of the same run do (they ended in an internal TypeError).
    rules = tmp_path / "neg.vbr"
    rules.write_text(NEGATIVE_POINTS)
    csv_rows, json_rows = tmp_path / "n.csv", tmp_path / "n.jsonl"
    for out in (csv_rows, json_rows):
        assert run(capsys, "sim", rules, "-n", 20, "--engine", "python", "--out", out)[0] == 0
    assert "'-" in csv_rows.read_text()  # some game ended with seat 0 below zero
    code, from_csv, _ = run(capsys, "summarize", csv_rows, "--json")
    assert code == 0
    code, from_json, _ = run(capsys, "summarize", json_rows, "--json")
    assert json.loads(from_csv)["metrics"] == json.loads(from_json)["metrics"]


@pytest.mark.parametrize("column, value, says", [
    ("score", ["a", 1], "score.0: Input should be a valid integer"),
    ("choices", "many", "choices: Input should be a valid integer"),
    ("winner", 7, "winner 7 of 2 sides"),
    ("first_side", -1, "first_side: Input should be greater than or equal to 0"),
    ("score_track", "zz", "score_track: Input should be a valid list"),
    ("agents", "random", "agents: Input should be a valid list"),
])
def test_a_row_with_a_value_of_the_wrong_kind_is_an_error_at_its_line(tmp_path, capsys, column, value, says):
    # Rows are read from files anyone may have edited: a value no game could have written is an
    # error at its line (exit 1), not an internal error deep in the metrics.
    rows = tmp_path / "games.jsonl"
    assert run(capsys, "sim", BUMP, "-n", 3, "--engine", "python", "--out", rows)[0] == 0
    lines = rows.read_text().splitlines()
    second = json.loads(lines[1])
    second[column] = value
    lines[1] = json.dumps(second)
    rows.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "summarize", rows)
    assert (code, err) == (1, f"{rows}:2:1: error: not a game row of vbr ({says})\n")


def test_rows_naming_a_relative_rule_file_read_from_another_folder_say_where_it_is_sought(tmp_path, capsys, monkeypatch):
    # A row names its rule file as the run was given it (cli.md: a relative path is taken from the
    # current folder): summarised from another folder, the error says so, not only "cannot find".
    from conftest import ROOT
    played, elsewhere = tmp_path / "played", tmp_path / "elsewhere"
    played.mkdir()
    elsewhere.mkdir()
    (played / "rows_bump.vbr").write_text((ROOT / BUMP).read_text())
    monkeypatch.chdir(played)
    rows = tmp_path / "games.jsonl"
    assert run(capsys, "sim", "rows_bump.vbr", "-n", 2, "--engine", "python", "--out", rows)[0] == 0
    monkeypatch.chdir(elsewhere)
    code, _, err = run(capsys, "summarize", rows)
    assert code == 1
    assert err.splitlines()[-1] == ("vbr: the rows name rows_bump.vbr as their run was given it, relative to the "
                                    f"folder the run was played in; this is {elsewhere}")


def test_arms_of_one_rule_file_and_options_are_compared_with_the_first_each_under_its_own_name(tmp_path, capsys):
    # Three runs of bump.vbr under the same options by other agents are three arms; each against
    # the first is a comparison of its own (cli.md: more arms are a sweep, each against the first),
    # named by what sets it apart, not two comparisons printed as one under one name.
    files = []
    for agents in ("random", "greedy", "first"):
        files.append(tmp_path / f"{agents}.jsonl")
        assert run(capsys, "sim", BUMP, "-n", 6, "--engine", "python", "--agents", agents, "--out", files[-1])[0] == 0
    code, out, _ = run(capsys, "summarize", *files, "--json")
    against = json.loads(out)["analysis"]["against_first"]
    assert code == 0 and against["first"].endswith("agents random|random")
    assert [r["combination"].rsplit(", ", 1)[-1] for r in against["rows"] if r["metric"] == "length_mean"] == \
        ["agents greedy|greedy", "agents first|first"]
    code, out, _ = run(capsys, "summarize", *files)
    assert code == 0 and "figures of the 2 comparisons" in out


def test_arms_of_three_rule_files_under_the_same_options_are_told_apart_by_their_files(tmp_path, capsys):
    # three copies of bump.vbr are three rule files, so three arms: the table names each column's
    # file and each comparison with the first is one of its own
    from conftest import ROOT
    files = []
    for name in ("one", "two", "three"):
        (tmp_path / f"{name}.vbr").write_text((ROOT / BUMP).read_text())
        files.append(tmp_path / f"{name}.csv")
        assert run(capsys, "sim", tmp_path / f"{name}.vbr", "-n", 4, "--engine", "python", "--out", files[-1])[0] == 0
    code, out, _ = run(capsys, "summarize", *files, "--json")
    report = json.loads(out)
    assert code == 0 and [r["options"] for r in report["rows"]] == [{"rules": str(tmp_path / f"{n}.vbr")}
                                                                   for n in ("one", "two", "three")]
    assert len({r["combination"] for r in report["analysis"]["against_first"]["rows"]}) == 2


def test_rows_of_one_rule_file_named_by_a_relative_and_an_absolute_path_are_one_arm(tmp_path, capsys):
    # cli.md: rows of the same rule file are one arm, a relative path taken from the current
    # folder; the same run of bump.vbr named both ways is the same games, each counted once
    from conftest import ROOT
    rows = {}
    for name, path in (("relative", BUMP), ("absolute", ROOT / BUMP)):
        rows[name] = tmp_path / f"{name}.jsonl"
        assert run(capsys, "sim", path, "-n", 6, "--engine", "python", "--out", rows[name])[0] == 0
    code, out, err = run(capsys, "summarize", rows["relative"], rows["absolute"], "--json")
    assert code == 0 and "6 games appear more than once" in err
    assert json.loads(out)["games"] == 6
    code, out, err = run(capsys, "compare", BUMP, "--variant-option", "target=1", "--engine", "python",
                         "--base-rows", rows["absolute"], "--json")
    assert code == 0, err
    assert json.loads(out)["base_summary"]["games"] == 6


def test_a_comparisons_csv_rows_keep_the_measures_only_its_variant_declares(tmp_path, capsys):
    # bump.vbr with a measure `rallies` (one per point) against bump.vbr without it: the CSV's
    # columns are every arm's, so the variant's measure reads back as the comparison reported it
    from conftest import ROOT
    text = (ROOT / BUMP).read_text()
    counted = tmp_path / "counted.vbr"
    counted.write_text(text.replace("option target = 3", "option target = 3\nmeasure rallies: int")
                       .replace("  score[s] += 1", "  score[s] += 1\n  measure rallies += 1"))
    for suffix in (".csv", ".jsonl"):
        rows = tmp_path / f"rows{suffix}"
        code, out, err = run(capsys, "compare", BUMP, counted, "-n", 6, "--engine", "python", "--json", "--rows", rows)
        assert code == 0, err
        played = json.loads(out)["variant_summary"]["measures"]["measure:rallies"]
        assert played["n"] == 6 and played["value"] >= 3  # the game lasts `target` points at least
        code, out, err = run(capsys, "summarize", rows, "--json")
        assert code == 0, err
        assert json.loads(out)["variant_summary"]["measures"]["measure:rallies"] == played


def test_a_relative_rule_file_is_taken_from_the_folder_summarize_runs_in_each_time(tmp_path, capsys, monkeypatch):
    # summarised from folder `one`, then (in the same process) from `two`: there `game.vbr` is
    # two/game.vbr, the file the rows of its absolute path name, so they are one arm
    from conftest import ROOT
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "game.vbr").write_text((ROOT / BUMP).read_text())
    monkeypatch.chdir(tmp_path / "two")
    relative, absolute = tmp_path / "relative.jsonl", tmp_path / "absolute.jsonl"
    assert run(capsys, "sim", "game.vbr", "-n", 4, "--engine", "python", "--out", relative)[0] == 0
    assert run(capsys, "sim", tmp_path / "two" / "game.vbr", "-n", 4, "--engine", "python", "--out", absolute)[0] == 0
    monkeypatch.chdir(tmp_path / "one")
    assert run(capsys, "summarize", relative, "--json")[0] == 0
    monkeypatch.chdir(tmp_path / "two")
    code, out, err = run(capsys, "summarize", relative, absolute, "--json")
    assert code == 0 and "4 games appear more than once" in err and json.loads(out)["games"] == 4


def test_arms_that_differ_by_engine_or_agents_are_told_apart(tmp_path, capsys):
    # Rows of one rule file and options, played through python, through c, and by greedy agents,
    # are three arms: each must be named by what sets it apart (they were printed under the same
    # options, and the sweep's headline gave every column the first arm's agents).
    files = {}
    for name, extra in (("py", ["--engine", "python"]), ("c", ["--engine", "c"]),
                        ("greedy", ["--engine", "c", "--agents", "greedy"])):
        files[name] = tmp_path / f"{name}.csv"
        assert run(capsys, "sim", BUMP, "-n", 4, *extra, "--out", files[name])[0] == 0
    code, out, _ = run(capsys, "summarize", files["py"], files["c"])
    lines = out.splitlines()
    assert code == 0 and lines[0].endswith("engine python (docs/tutorial/bump.vbr)")
    assert lines[1].endswith("engine c (docs/tutorial/bump.vbr)")
    code, out, _ = run(capsys, "summarize", files["py"], files["c"], files["greedy"])
    lines = out.splitlines()
    assert code == 0 and lines[0] == ("Bump: sweep of 3 combinations, 4 games each, agents as each column names them, "
                                  "engines c and python")
    heads = [word for line in lines for word in line.split() if word.startswith(("engine=", "agents="))]
    assert heads == ["engine=python", "engine=c", "agents=random|random", "agents=random|random",  # 1st block
                     "engine=c", "agents=greedy|greedy"]  # the table's 2nd block of columns
