"""`vbr trace` on input it does not expect: a file of another kind where the rule file goes, a
rule file whose name a Markdown link cannot hold as it is (docs/cli.md, `vbr trace`)."""
from vbr.cli import main

RULES = 'game "T"\nseats 2\nstart p\n# [Serve] "the die"\nphase p {\n  end draw\n}\n'
SCENARIOS = 'tests for "rules.vbr"\n\n# [Serve] a cited comment\nscenario "[Serve] one" {\n  expect true\n}\n'


def test_a_scenario_file_given_as_the_rule_file_is_an_error_not_an_empty_table(tmp_path, capsys):
    (tmp_path / "rules.vbr").write_text(RULES, encoding="utf-8")
    scenarios = tmp_path / "rules_test.vbr"
    scenarios.write_text(SCENARIOS, encoding="utf-8")
    assert main(["trace", str(scenarios)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"{scenarios}:1:1: error: this is a scenario file; `vbr trace` takes a rule file")


def test_a_rule_files_path_with_a_space_and_brackets_is_a_working_markdown_link(tmp_path, monkeypatch, capsys):
    # CommonMark ends a link's target at a space, and at a `)` it did not open: the path is
    # percent-encoded, so the table's links lead to the file (`my games/v (2).vbr`)
    folder = tmp_path / "my games"
    folder.mkdir()
    (folder / "v (2).vbr").write_text(RULES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["trace", "my games/v (2).vbr"]) == 0
    assert "| Serve | [4](my%20games/v%20%282%29.vbr#L4) | — |" in capsys.readouterr().out
    page = tmp_path / "pages" / "v.md"
    page.parent.mkdir()
    assert main(["trace", "my games/v (2).vbr", "--update", str(page)]) == 0
    assert "| Serve | [4](../my%20games/v%20%282%29.vbr#L4) | — |" in page.read_text(encoding="utf-8")


def test_update_refuses_a_page_that_is_a_link_to_the_rule_file_and_leaves_the_rules_as_they_were(tmp_path, capsys):
    # the .md ending alone let a link named .md lead to the rule file, which got the table
    # appended and no longer parsed
    rules = tmp_path / "rules.vbr"
    rules.write_text(RULES, encoding="utf-8")
    page = tmp_path / "page.md"
    page.symlink_to(rules)
    assert main(["trace", str(rules), "--update", str(page)]) == 2
    assert capsys.readouterr().err.startswith(f"vbr: error: --update {page}: is the rule file or the scenario file")
    assert rules.read_text(encoding="utf-8") == RULES


def test_a_page_written_by_update_holds_no_raw_control_character_of_the_rules(tmp_path, capsys):
    # an ASSUMPTION's words come from a comment of the (untrusted) rule file; the page is read in
    # a terminal too (`cat`), so they are shown as `\xNN`, as the printed table shows them
    rules = tmp_path / "rules.vbr"
    rules.write_text(RULES + "# ASSUMPTION: a title \x1b]0;owned\x07 set\n", encoding="utf-8")
    page = tmp_path / "page.md"
    assert main(["trace", str(rules), "--update", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "- line [8](rules.vbr#L8): a title \\x1b]0;owned\\x07 set\n" in text
    assert "\x1b" not in text and "\x07" not in text


def test_update_of_a_page_in_a_folder_that_does_not_exist_is_a_usage_error(tmp_path, capsys):
    # as `vbr graph -o` and `vbr report -o` say it (docs/cli.md): exit 2, in words, before any work
    rules = tmp_path / "rules.vbr"
    rules.write_text(RULES, encoding="utf-8")
    page = tmp_path / "nowhere" / "page.md"
    assert main(["trace", str(rules), "--update", str(page)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"vbr: error: --update {page}: the folder {page.parent} does not exist\n")


def test_many_passages_and_many_cited_scenarios_are_paired_in_time_that_grows_with_them_not_their_product(tmp_path):
    # 100,000 passages (a hundred citations a comment line) and 6,000 scenario citations: trying
    # every passage for every citation took many minutes; looked up, about a second
    import subprocess
    import sys
    rules = ['game "T"', "seats 2", "start p", "phase p {", "  end draw", "}"]
    rules += ["# " + "".join(f"[S{j * 100 + i}, part block{i % 10}]" for i in range(100)) for j in range(1000)]
    (tmp_path / "rules.vbr").write_text("\n".join(rules) + "\n", encoding="utf-8")
    scenarios = ['tests for "rules.vbr"']
    for s in range(600):
        scenarios += ['scenario "' + "".join(f"[S{s * 10 + i}, block{i} x]" for i in range(10)) + f' {s}" {{',
                      "  start p", "}"]
    (tmp_path / "tests.vbr").write_text("\n".join(scenarios) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "vbr", "trace", str(tmp_path / "rules.vbr"), "--tests",
                           str(tmp_path / "tests.vbr")], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)  # a hang guard
    assert done.returncode == 0, done.stderr
    rows = {line.split(" | ")[0]: line for line in done.stdout.splitlines() if line.startswith("| S")}
    assert len(rows) == 100_000
    # [S42, part block2] is cited by scenario 4's [S42, block2 x] (the same section and word), by no other
    title = "".join(f"[S{40 + i}, block{i} x]" for i in range(10)) + " 4"
    assert rows["| S42, part block2"].endswith(f" | {title} |")
    assert rows["| S6000, part block0"].endswith(" | — |")  # cited by no scenario
