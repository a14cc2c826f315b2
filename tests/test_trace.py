"""Traceability: rule files cite the book; the docs tables are generated and kept current."""
import pytest

from conftest import ROOT, RULES, rule_files
from vbr.trace import MARKER, citations, markdown, matches, scenario_tags


def test_citations_and_matching():
    text = 'var x: int = 0  # [Serve] "the die"\n# [Variant 1, Block (Blok, B)] and [Attack]\nsay "[not a cite]"\n'
    c = citations(text)
    assert {t: p.lines for t, p in c.items()} == {"Serve": [1], "Variant 1, Block (Blok, B)": [2], "Attack": [2]}
    assert matches("Variant 1, Block (Blok, B)", "Variant 1, Block example")
    assert not matches("Variant 1, Block (Blok, B)", "Variant 1, Serve (Zagrywka, Z)")
    assert matches("Playing the Ball", "Playing the Ball, Example 2")
    assert scenario_tags("[A] [B, c] text [D]") == ["A", "B, c"]



def test_lines_are_numbered_as_vbr_numbers_them_past_a_form_feed_in_a_comment():
    # str.splitlines also ends a line at a form feed, a vertical tab or U+2028, which a comment
    # may hold (`vbr check` accepts it): every citation and assumption below one was two lines off
    from vbr.trace import assumptions
    text = 'game "x"\n# a page break \x0c, a separator \u2028 and a tab \x0b\r\nseats 2\r# [Setup 4]\n# ASSUMPTION: none\n'
    assert {t: p.lines for t, p in citations(text).items()} == {"Setup 4": [4]}
    assert assumptions(text) == [(5, "none")]

@pytest.mark.parametrize("rules", rule_files(), ids=lambda p: p.stem)
def test_every_rule_file_cites_the_book_and_states_assumptions(rules):
    text = rules.read_text()
    assert len(citations(text)) >= 10
    assert "ASSUMPTION" in text


@pytest.mark.parametrize("rules", rule_files(), ids=lambda p: p.stem)
def test_rulebook_table_is_current_and_every_passage_is_tested(rules):
    doc = ROOT / "docs" / "rulebooks" / f"{rules.stem}.md"
    assert doc.is_file(), f"write {doc} and run `vbr trace {rules.stem} --update {doc}`"
    generated = markdown(rules, RULES / "tests" / rules.name, f"../../rules/{rules.name}")
    assert MARKER in doc.read_text(), f"run `vbr trace {rules.stem} --update {doc}`"
    assert doc.read_text().split(MARKER)[1].strip() == generated.strip(), f"run `vbr trace {rules.stem} --update {doc}`"
    rows = [l for l in generated.splitlines() if l.startswith("| ") and not l.startswith("| Book")]
    untested = [r.split("|")[1].strip() for r in rows if r.rstrip().endswith("| — |")]
    assert untested == [], untested


@pytest.mark.parametrize("name, says", [
    ("nowhere.vbr", "cannot find scenario file"),  # a file that is not there (not a `rule file`)
    ("rules.vbr", "not a scenario file"),  # a rule file, not scenarios
])
def test_a_tests_file_that_is_missing_or_no_scenario_file_is_an_error_not_an_empty_column(tmp_path, capsys, name, says):
    # `--tests` names the scenarios the table's last column lists: a file that cannot give them is
    # said (exit 1), not read as a file of no scenarios (an empty column, exit 0).
    from vbr.cli import main
    rules = tmp_path / "rules.vbr"
    rules.write_text('game "T"\nstart p\n# [Serve] "the die"\nphase p {\n  end draw\n}\n')
    assert main(["trace", str(rules), "--tests", str(tmp_path / name)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and says in err, err


def test_update_refuses_a_page_that_is_not_markdown_and_keeps_the_file(tmp_path, capsys):
    # `--update` rewrites a Markdown page: naming the rule file itself would append the table to
    # the rules, so any other ending is a usage error and the file is left as it was.
    from vbr.cli import main
    rules = tmp_path / "rules.vbr"
    text = 'game "T"\nstart p\n# [Serve] "the die"\nphase p {\n  end draw\n}\n'
    rules.write_text(text)
    assert main(["trace", str(rules), "--update", str(rules)]) == 2
    assert capsys.readouterr().err == f"vbr: error: --update {rules}: give a Markdown page (.md)\n"
    assert rules.read_text() == text


def test_update_from_another_folder_links_the_rule_file_from_the_page(tmp_path, monkeypatch, capsys):
    # The page's links lead to the rule file from the page's own folder, wherever vbr runs
    # (from a folder holding neither, it failed with a ValueError about subpaths).
    import re
    from vbr.cli import main
    page = tmp_path / "pages" / "siatka.md"
    page.parent.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["trace", str(RULES / "siatka.vbr"), "--update", str(page)]) == 0
    links = set(re.findall(r"\]\(([^)#]+)#L\d+\)", page.read_text()))
    assert len(links) == 1
    assert (page.parent / links.pop()).resolve() == (RULES / "siatka.vbr").resolve()


def test_a_printed_table_links_the_rule_file_from_the_current_folder(tmp_path, monkeypatch, capsys):
    # docs/cli.md: printed from the checkout, Siatka's first row links `rules/siatka.vbr#L15`
    # (the table is most often saved where vbr runs), the file named by its path or by its book's
    # name (which vbr finds as an absolute path); from a folder the file is not below, the
    # absolute path is the only link that leads to it
    import re
    from vbr.cli import main
    monkeypatch.chdir(ROOT)
    for named in ("rules/siatka.vbr", "siatka"):
        assert main(["trace", named]) == 0
        assert set(re.findall(r"\]\(([^)#]+)#L\d+\)", capsys.readouterr().out)) == {"rules/siatka.vbr"}
    monkeypatch.chdir(tmp_path)
    assert main(["trace", str(RULES / "siatka.vbr")]) == 0
    assert set(re.findall(r"\]\(([^)#]+)#L\d+\)", capsys.readouterr().out)) == {(RULES / "siatka.vbr").resolve().as_posix()}


def test_a_rule_file_citing_nothing_says_so_instead_of_empty_headings_and_names_where_scenarios_were_looked_for(
        tmp_path, capsys):
    # docs/cli.md, `vbr trace`: it printed a table head with no rows and an empty `Assumptions`
    # heading (docs/tutorial/bump.vbr cites no book), and said nothing of the scenario file
    from vbr.cli import main
    from vbr.trace import NO_ASSUMPTION, NO_PASSAGE
    rules = tmp_path / "plain.vbr"
    rules.write_text('game "T"\nseats 2\nstart p\nphase p {\n  end draw\n}\n')
    assert main(["trace", str(rules)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{NO_PASSAGE}\n\n{NO_ASSUMPTION}\n"
    assert "cites no rulebook passage" in NO_PASSAGE and "states no assumption" in NO_ASSUMPTION
    assert err == (f"vbr: no scenario file at {tmp_path / 'tests' / 'plain.vbr'}, where vbr trace looks for one: "
                   "no passage is shown as tested (name the scenario file with --tests)\n")


def test_a_rule_file_citing_passages_but_no_assumption_keeps_its_table_and_says_no_assumption(tmp_path, capsys):
    from vbr.cli import main
    from vbr.trace import NO_ASSUMPTION
    rules = tmp_path / "rules.vbr"
    rules.write_text('game "T"\nstart p\n# [Serve] "the die"\nphase p {\n  end draw\n}\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "rules.vbr").write_text('tests for "../rules.vbr"\nscenario "[Serve] x" {\n}\n')
    assert main(["trace", str(rules)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["| Book passage | Rule file lines | Scenario tests |", "|---|---|---|",
                                f"| Serve | [3]({rules.as_posix()}#L3) | [Serve] x |", "", NO_ASSUMPTION]
    assert err == ""
