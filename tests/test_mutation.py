"""`vbr mutate` on a tiny rule file: which mutants it makes, how they are judged, and the report."""
import argparse
import json
from collections import Counter
from pathlib import Path

import pytest

from vbr.grammar.parser import parse
from vbr.mutation import command, report, runner
from vbr.mutation.mutants import apply, mutants

MINI = '''game "Mini"
seats 2
# [Rules 1] "Roll the die: 4 or more scores for seat 0, less scores for seat 1."
die d = 1..6
option target = 2
var score: int per seat = 0
var bonus: int = 0
points score
start throw
phase throw {
  let r = roll d
  # [Rules 2] "A 6 scores one more."
  if r == 6 {
    bonus += 1
  }
  if r >= 4 {
    score[0] += 1 + bonus
  } else {
    score[1] += 1
  }
  bonus = 0  # EQUIVALENT(delete): bonus is set only just before it is read
  if score[0] >= target or score[1] >= target {
    end winner if score[0] >= target then 0 else 1
  }
  goto again
}
phase again {
  choose go from [true] by 0 as "roll again"
  goto throw
}
'''

TESTS = '''tests for "../mini.vbr"
scenario "[Rules 1] a 4 scores for seat 0" {
  force d = 4
  start throw
  expect score[0] == 1 and score[1] == 0
}
scenario "[Rules 1] a 3 scores for seat 1" {
  force d = 3
  start throw
  expect score[0] == 0 and score[1] == 1
}
'''

SIX = '''scenario "[Rules 2] a 6 scores 1 + 1 = 2 for seat 0" {
  force d = 6
  start throw
  expect score[0] == 2
}
'''


@pytest.fixture
def mini(tmp_path):
    (tmp_path / "mini.vbr").write_text(MINI)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "mini.vbr").write_text(TESTS)
    return tmp_path / "mini.vbr"


def _find(ms, line, kind, after):
    (m,) = [m for m in ms if m.line == line and m.kind == kind and m.after == after]
    return m


def test_the_kinds_of_mutant_and_where_they_are():
    ms = mutants(parse(MINI, "mini.vbr"))
    assert {m.kind for m in ms} == {"number", "compare", "logic", "delete"}
    assert _find(ms, 14, "number", "bonus += 2").before == "bonus += 1"
    assert _find(ms, 14, "number", "bonus += 0").col == 14
    assert _find(ms, 16, "compare", "r > 4").before == "r >= 4"
    assert _find(ms, 22, "logic", "score[0] >= target and score[1] >= target").col == 6
    assert _find(ms, 14, "delete", "(deleted)").before == "bonus += 1"
    assert _find(ms, 13, "delete", "(deleted)").before == "if r == 6 { … }"
    assert [m.index for m in ms] == list(range(len(ms)))
    # the list is the same every time it is made
    assert [(m.line, m.col, m.kind, m.after) for m in ms] == \
           [(m.line, m.col, m.kind, m.after) for m in mutants(parse(MINI, "mini.vbr"))]


def test_a_mutant_changes_only_its_node():
    tree = parse(MINI, "mini.vbr")
    m = _find(mutants(tree), 14, "number", "bonus += 2")
    from vbr.grammar.printer import program
    before, after = program(tree).splitlines(), program(apply(tree, m)).splitlines()
    assert [(a, b) for a, b in zip(before, after) if a != b] == [("    bonus += 1", "    bonus += 2")]


def test_two_list_items_swapped_and_a_direction_changed():
    text = 'game "x"\nseats 2\ndirection up = (0, 1)\ndie d = [1, 1, 2]\nstart p\nphase p {\n  end draw\n}\n'
    ms = mutants(parse(text, "x.vbr"))
    swaps = [m for m in ms if m.kind == "swap"]
    assert [(m.before, m.after) for m in swaps] == [("[1, 1, 2]", "[1, 2, 1]")]  # equal neighbours are not swapped
    dirs = sorted(m.after for m in ms if m.kind == "direction")
    assert dirs == ["direction up = (-1, 1)", "direction up = (0, 0)", "direction up = (0, 2)", "direction up = (1, 1)"]


def test_survivors_are_killed_by_a_scenario_that_pins_the_amount(mini):
    res = runner.run(mini, n=1000, seed=1)
    s = report.summary(res.ctx, res)
    gone = [(x["line"], x["after"]) for x in s["survivors"]]
    assert (14, "(deleted)") in gone and (14, "bonus += 2") in gone  # no scenario rolls a 6
    # every mutant that passes the checker is counted, once
    assert s["checked"] == s["killed"] + s["survived"] + s["equivalent"] and s["tried"] == s["mutants"]
    (mini.parent / "tests" / "mini.vbr").write_text(TESTS + SIX)
    s2 = report.summary(runner.context(mini), runner.run(mini, n=1000, seed=1))
    gone2 = [(x["line"], x["after"]) for x in s2["survivors"]]
    assert (14, "(deleted)") not in gone2 and (14, "bonus += 2") not in gone2 and (14, "bonus += 0") not in gone2
    assert s2["killed"] > s["killed"]
    assert s2["score"] == round(100 * s2["killed"] / (s2["checked"] - s2["equivalent"]), 1)


def test_equivalent_survivors_are_listed_apart_with_the_reason(mini):
    res = runner.run(mini, n=1000, seed=1)
    s = report.summary(res.ctx, res)
    assert [(x["line"], x["kind"], x["why"]) for x in s["equivalents"]] == \
           [(21, "delete", "bonus is set only just before it is read")]
    assert all(x["line"] != 21 or x["kind"] != "delete" for x in s["survivors"])
    text = report.text(s)
    assert "equivalent survivors (1), not counted:" in text
    assert "mini.vbr:21:3: bonus = 0 → (deleted)  (delete): bonus is set only just before it is read" in text


def test_survivors_are_grouped_by_the_passage_their_line_cites(mini):
    res = runner.run(mini, n=1000, seed=1)
    s = report.summary(res.ctx, res)
    by_line = {x["line"]: x["passages"] for x in s["survivors"]}
    assert by_line[4] == ["Rules 1"] and by_line[14] == ["Rules 2"] and by_line[5] == []
    text = report.text(s)
    assert "  [Rules 2]\n" in text and "  (no passage cited)\n" in text
    assert "mini.vbr:14:14: bonus += 1 → bonus += 2  (number)" in text


SPIN = '''game "Spin"
seats 2
var n: int = 0
start spin
phase spin {
  n += 1
  if n < 3 {
    goto spin
  }
  choose go from [true] by 0 as "stop"
  end winner 0
}
'''


def test_a_mutant_that_loops_is_killed_by_the_step_guard(tmp_path):
    (tmp_path / "spin.vbr").write_text(SPIN)
    (tmp_path / "spin_test.vbr").write_text('tests for "spin.vbr"\nscenario "three spins" {\n  expect n == 3\n}\n')
    ctx = runner.context(tmp_path / "spin.vbr", tmp_path / "spin_test.vbr")
    ctx.guard = runner.baseline(ctx)
    assert ctx.guard == runner.GUARD_FLOOR  # the scenario takes a few steps; ten times that is less
    m = _find(ctx.mutants, 6, "delete", "(deleted)")  # `n += 1` gone: `goto spin` for ever
    out = runner.evaluate(ctx, m)
    assert out.status == "killed" and f"the game ran more than {runner.GUARD_FLOOR} steps" in out.reason


def test_a_mutant_the_checker_rejects_is_not_counted(mini):
    ctx = runner.context(mini)
    ctx.guard = runner.baseline(ctx)
    m = _find(ctx.mutants, 11, "delete", "(deleted)")  # `let r` gone: `r` is unknown
    out = runner.evaluate(ctx, m)
    assert out.status == "invalid" and "r" in out.reason


def test_sampling_is_fixed_by_the_seed(mini):
    a = runner.run(mini, n=5, seed=3)
    b = runner.run(mini, n=5, seed=3)
    c = runner.run(mini, n=5, seed=4)
    assert [o.index for o in a.tried] == [o.index for o in b.tried]
    assert sum(o.status != "invalid" for o in a.tried) == 5
    assert [o.index for o in a.tried] != [o.index for o in c.tried]


def test_workers_give_the_same_report(mini):
    one = runner.run(mini, n=12, seed=2, workers=1)
    two = runner.run(mini, n=12, seed=2, workers=2)
    assert report.summary(one.ctx, one) == report.summary(two.ctx, two)


def test_scenarios_failing_on_the_file_itself_are_an_error(mini):
    (mini.parent / "tests" / "mini.vbr").write_text(TESTS.replace("score[0] == 1 and", "score[0] == 5 and"))
    args = argparse.Namespace(file=str(mini), tests=None, n=10, seed=1, workers=1, json=False)
    assert command.run(args) == 2


def test_the_command_prints_json(mini, capsys, monkeypatch):
    monkeypatch.chdir(mini.parent)
    parser = argparse.ArgumentParser(prog="vbr")
    command.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["mutate", "mini.vbr", "--tests", "tests/mini.vbr", "-n", "1000", "--json"])
    assert args.func(args) == 1  # some mutants survive
    s = json.loads(capsys.readouterr().out)
    assert s["file"] == "mini.vbr" and s["tests"] == "tests/mini.vbr"
    assert s["survived"] == len(s["survivors"]) and s["killed"] + s["survived"] + s["equivalent"] == s["checked"]
    assert parser.parse_args(["mutate", "x.vbr"]).n == 100
    with pytest.raises(SystemExit):
        parser.parse_args(["mutate", "x.vbr", "--workers", "0"])


def test_an_equivalence_can_name_the_code_it_covers():
    text = ('game "x"\nseats 2\nkind T { a: int, b: int }\nzone z public\nstart p\nsetup {\n'
            '  create T(a: 1, b: 2) in z  # EQUIVALENT(number "b: 2"): b is never read\n'
            '  create T(a: 3, b: 0) in z  # EQUIVALENT(number "a: 3" → "a: 4"): only a 3 or more counts\n}\n'
            'phase p {\n  # EQUIVALENT(delete, swap): the game ends\n  # here either way\n  end draw\n}\n')
    eq = runner.equivalences(text)
    assert [(e.line, e.kinds, e.text, e.after) for e in eq] == \
           [(7, ("number",), "b: 2", ""), (8, ("number",), "a: 3", "a: 4"), (13, ("delete", "swap"), "", "")]
    assert eq[2].why == "the game ends here either way"
    ms = mutants(parse(text, "x.vbr"))
    covered = sorted((m.line, m.before, m.after) for m in ms if any(e.covers(m) for e in eq))
    assert covered == [(7, "b: 2", "b: 1"), (7, "b: 2", "b: 3"), (8, "a: 3", "a: 4"), (13, "end draw", "(deleted)")]



def test_equivalences_stacked_above_one_line_each_keep_their_own_reason():
    # the first mark's reason ran on over the second mark's line, up to the code
    text = ('game "x"\nseats 2\nkind T { a: int, b: int }\nzone z public\nstart p\nsetup {\n'
            '  # EQUIVALENT(number "a: 1" → "a: 0"): a is never read\n'
            '  # EQUIVALENT(number "b: 2" → "b: 3"): b is never\n'
            '  # read either\n'
            '  create T(a: 1, b: 2) in z\n}\nphase p {\n  end draw\n}\n')
    eq = runner.equivalences(text)
    assert [(e.line, e.text, e.after, e.why) for e in eq] == \
           [(10, "a: 1", "a: 0", "a is never read"), (10, "b: 2", "b: 3", "b is never read either")]


def test_an_equivalence_below_a_form_feed_in_a_comment_covers_its_own_line():
    # the lines were split by str.splitlines, which ends one at a form feed too: the equivalence
    # named the line after the one it was written on, and covered no mutant
    text = ('game "x"\n# a page break \x0c here\nseats 2\nstart p\n'
            'phase p {\n  end draw  # EQUIVALENT(delete): the only statement\n}\n')
    assert [(e.line, e.kinds) for e in runner.equivalences(text)] == [(6, ("delete",))]
    assert [m.line for m in mutants(parse(text, "x.vbr")) if m.kind == "delete"] == [6]

PICKS = '''game "Picks"
seats 2
const FACES = [1, 2, 3, 4, 5, 6]
var score: int per seat = 0
start count
fn diff(a: int, b: int) = a - b
phase count {
  score[0] = sum(x for x in FACES if x % 2 == 0)
  score[1] = diff(5, 2)
  reveal FACES
  end winner 0
}
'''


def test_a_comprehension_condition_is_dropped_and_negated():
    ms = mutants(parse(PICKS + 'fn odd(n: int) = any(x for x in FACES if not x % 2 == 0)\n', "picks.vbr"))
    got = [(m.line, m.before, m.after) for m in ms if m.kind == "filter"]
    assert got == [(8, "for x in FACES if x % 2 == 0", "for x in FACES"),
                   (8, "for x in FACES if x % 2 == 0", "for x in FACES if not x % 2 == 0"),
                   (13, "for x in FACES if not x % 2 == 0", "for x in FACES"),
                   (13, "for x in FACES if not x % 2 == 0", "for x in FACES if x % 2 == 0")]
    assert _find(ms, 8, "filter", "for x in FACES").col == 38  # the condition's place


def test_neighbouring_call_arguments_that_differ_are_swapped():
    ms = mutants(parse(PICKS + 'fn same(n: int) = diff(n, n) + diff(1, n)\n', "picks.vbr"))
    got = [(m.line, m.col, m.before, m.after) for m in ms if m.kind == "argument"]
    assert got == [(9, 19, "diff(5, 2)", "diff(2, 5)"), (13, 37, "diff(1, n)", "diff(n, 1)")]
    # an integer argument ±1 is a number mutant
    assert {m.after for m in ms if m.line == 9 and m.kind == "number" and m.col > 14} == {"diff(6, 2)", "diff(4, 2)", "diff(5, 3)", "diff(5, 1)"}


def test_a_reveal_is_deleted():
    ms = mutants(parse(PICKS, "picks.vbr"))
    assert _find(ms, 10, "delete", "(deleted)").before == "reveal FACES"


def _picks(tmp_path, expectations):
    (tmp_path / "picks.vbr").write_text(PICKS)
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "tests" / "picks.vbr").write_text(
        'tests for "../picks.vbr"\nscenario "the sum of the even faces, and 5 - 2" {\n  start count\n'
        + "".join(f"  expect {e}\n" for e in expectations) + "}\n")
    return tmp_path / "picks.vbr"


def test_the_new_kinds_find_what_a_loose_scenario_misses_and_an_exact_one_kills(tmp_path):
    loose = _picks(tmp_path, ["score[0] > 0", "score[1] != 0"])
    s = report.summary(*_ctx_and(runner.run(loose, n=1000, kinds=["filter", "argument"])))
    assert sorted((x["kind"], x["after"]) for x in s["survivors"]) == [
        ("argument", "diff(2, 5)"), ("filter", "for x in FACES"), ("filter", "for x in FACES if not x % 2 == 0")]
    # 2 + 4 + 6 = 12, not 21 (every face) or 9 (the odd ones); 5 - 2 = 3, not 2 - 5
    exact = _picks(tmp_path, ["score[0] == 12", "score[1] == 3"])
    s = report.summary(*_ctx_and(runner.run(exact, n=1000, kinds=["filter", "argument"])))
    assert s["survived"] == 0 and s["killed"] == 3


def _ctx_and(result):
    return result.ctx, result


def test_kinds_and_lines_restrict_the_mutants_tried(mini):
    res = runner.run(mini, n=1000, seed=1, kinds=["number", "delete"], lines=[(14, 14), (16, 18)])
    tried = [res.ctx.mutants[o.index] for o in res.tried]
    # line 14 `bonus += 1`: 2 numbers and its deletion; 16 `if r >= 4`: 2 numbers and the deleted if;
    # 17 `score[0] += 1 + bonus`: the 0 and the 1 each ±1, and its deletion; 18 `} else {`: nothing
    assert sorted(Counter((m.line, m.kind) for m in tried).items()) == [
        ((14, "delete"), 1), ((14, "number"), 2), ((16, "delete"), 1), ((16, "number"), 2), ((17, "delete"), 1),
        ((17, "number"), 4)]
    assert res.selected == len(tried) == 11 and res.total == len(res.ctx.mutants) > 11
    s = report.summary(res.ctx, res)
    assert f"11 mutants checked of 11 selected of {res.total} " in report.text(s)


def test_the_score_line_and_the_counts_per_kind_count_the_same_mutants(mini):
    res = runner.run(mini, n=1000, seed=1)
    s = report.summary(res.ctx, res)
    kinds = s["by_kind"].values()
    counted = s["checked"] - s["equivalent"]
    assert sum(k["of"] for k in kinds) == counted
    assert sum(k["killed"] for k in kinds) == s["killed"]
    assert sum(k["equivalent"] for k in kinds) == s["equivalent"] == 1
    assert s["by_kind"]["delete"]["equivalent"] == 1  # line 21's `bonus = 0`
    text = report.text(s)
    assert f": {s['killed']} of {counted} counted mutants killed" in text
    d = s["by_kind"]["delete"]
    assert f"delete {d['killed']}/{d['of']} (+1 equivalent)" in text


@pytest.mark.parametrize("select", [["--lines", "100-120"], ["--kind", "direction"]])
def test_kinds_or_lines_that_select_no_mutant_are_a_usage_error_not_a_perfect_score(mini, capsys, select):
    # mini.vbr ends before line 100 and declares no direction: nothing is selected, so there is no
    # score to give (it printed `0 of 0 counted mutants killed (100.0 %)` and exited 0).
    from vbr.cli import main
    assert main(["mutate", str(mini), *select]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("vbr: error: --kind and --lines select no mutant of mini.vbr"), err


def test_a_missing_default_scenario_file_is_said_to_be_the_scenario_file_and_points_to_tests(tmp_path, capsys):
    # No --tests and no tests/mini.vbr beside the rule file: the file missing is the scenarios'
    # (it said `cannot find rule file 'tests/mini.vbr'`, naming the bundled rule files).
    from vbr.cli import main
    (tmp_path / "mini.vbr").write_text(MINI)
    assert main(["mutate", str(tmp_path / "mini.vbr")]) == 2
    err = capsys.readouterr().err
    assert err == (f"{tmp_path / 'tests' / 'mini.vbr'}: error: no scenario file here: vbr mutate runs the scenarios "
                   "of tests/NAME.vbr beside the rule file, or of the file --tests names\n")


def test_the_command_takes_kinds_and_line_ranges():
    parser = argparse.ArgumentParser(prog="vbr")
    command.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["mutate", "x.vbr", "--kind", "filter", "--kind", "argument", "--lines", "12-40",
                              "--lines", "7"])
    assert args.kinds == ["filter", "argument"] and args.lines == [(12, 40), (7, 7)]
    for bad in (["--kind", "nothing"], ["--lines", "40-12"], ["--lines", "a-b"], ["--lines", "0"]):
        with pytest.raises(SystemExit) as e:
            parser.parse_args(["mutate", "x.vbr", *bad])
        assert e.value.code == 2


@pytest.mark.parametrize("half", ["40-", "-40"])
def test_a_line_range_missing_one_end_is_a_usage_error_not_one_line(half, capsys):
    # docs/cli.md: --lines A-B, or A for one line; `40-` was read as line 40 alone, quietly
    # narrowing a run its user meant to reach the end of the file
    parser = argparse.ArgumentParser(prog="vbr")
    command.add_parser(parser.add_subparsers(dest="command"))
    with pytest.raises(SystemExit) as e:
        parser.parse_args(["mutate", "x.vbr", "--lines", half])
    assert e.value.code == 2
    assert f"argument --lines: '{half}' is not a line (12) or a range of lines (12-40)" in capsys.readouterr().err


def test_either_side_of_and_or_or_is_dropped():
    ms = mutants(parse(MINI, "mini.vbr"))
    got = sorted(m.after for m in ms if m.line == 22 and m.kind == "logic")
    assert got == ["score[0] >= target", "score[0] >= target and score[1] >= target", "score[1] >= target"]
    assert {m.col for m in ms if m.line == 22 and m.kind == "logic"} == {6}


# ------------------------------------------------------------------------------ bounded (issue 38, item 7)
def _let_chain(tmp_path, n: int = 120):
    """A phase of `n` lets on lines 5..n+4, each reading the one before and the last read by the
    `end`: deleting any of them leaves a name the checker does not know, so every such mutant is
    rejected, each at the cost of a whole check."""
    lines = ['game "Chain"', "seats 2", "start p", "phase p {", "  let a0 = 0"]
    lines += [f"  let a{i} = a{i - 1}" for i in range(1, n)] + [f"  end winner a{n - 1}", "}"]
    rules = tmp_path / "chain.vbr"
    rules.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "chain.vbr").write_text('tests for "../chain.vbr"\nscenario "ends" {\n  expect winner 0\n}\n',
                                                  encoding="utf-8")
    return rules


def test_a_run_tries_at_most_ten_mutants_for_each_one_asked_for(tmp_path):
    from vbr.mutation import runner
    result = runner.run(_let_chain(tmp_path), n=2, kinds=["delete"], lines=[(5, 124)])
    assert len(result.tried) == 20 and all(o.status == "invalid" for o in result.tried)
    assert result.stopped == "the bound of 20 mutants tried (10 × n)"


def test_a_run_starts_no_mutant_after_its_time_bound_and_says_so(tmp_path, capsys):
    # docs/cli.md: `--max-seconds S` starts no mutant after S seconds; with 0 the bound is past
    # before the first mutant (the scenarios' run on the file itself comes first), so none is
    # started: the first one was, before the bound was looked at
    from vbr.cli import main
    code = main(["mutate", str(_let_chain(tmp_path)), "-n", "50", "--max-seconds", "0"])
    out = capsys.readouterr().out
    assert code == 0  # no mutant counted, so none survived
    assert "stopped early, at the time bound (0 s): 0 mutants tried" in out
    assert "  killed of counted by kind: none counted\n" in out  # not a line that ends at its colon


def test_returns_are_not_mutated_and_measures_are():
    # docs/mutation.md: no scenario reads `returns`; an `expect` reads a measure, so its mutants count
    text = ('game "x"\nseats 2\nvar n: int = 0\nmeasure m: int\nreturns(s) = n + 1 range -5..5\nstart p\n'
            'phase p {\n  measure m += 2\n  end draw\n}\n')
    ms = mutants(parse(text, "x.vbr"))
    assert sorted((m.line, m.kind, m.after) for m in ms) == [
        (3, "number", "n = -1"), (3, "number", "n = 1"),
        (8, "delete", "(deleted)"), (8, "number", "measure m += 1"), (8, "number", "measure m += 3"),
        (9, "delete", "(deleted)")]


def test_the_scenarios_read_at_the_start_judge_every_mutant_in_this_process_and_in_workers(mini):
    # a scenario added to the file while a run goes on is not one of its scenarios: the mutant
    # that drops the 6's bonus survives the scenarios the run read (none rolls a 6), in this
    # process and in a worker started after the edit, though the file on disk now kills it
    import multiprocessing
    ctx = runner.context(mini)
    dropped = next(i for i, m in enumerate(ctx.mutants) if m.line == 14 and m.kind == "delete")
    (mini.parent / "tests" / "mini.vbr").write_text(TESTS + SIX)
    ctx.guard = runner.baseline(ctx)
    assert runner.evaluate(ctx, ctx.mutants[dropped]).status == "survived"
    with multiprocessing.get_context("spawn").Pool(1, initializer=runner._init, initargs=(ctx,)) as pool:
        assert pool.apply(runner._work, (dropped,)).status == "survived"
    now = runner.context(mini)  # the file as it is now kills it
    now.guard = runner.baseline(now)
    assert runner.evaluate(now, now.mutants[dropped]).status == "killed"
