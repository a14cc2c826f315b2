"""An output file named as the rule file itself is a usage error (exit 2) before anything is
written: `vbr graph g.dot -o g.dot` replaced the rules with their own diagram."""
import pytest

from vbr.cli import main

RULES = 'game "G"\nseats 2\nstart p\nphase p {\n  choose x from 1..2 by 0\n  end winner 0\n}\n'


def test_graph_output_named_as_its_rule_file_is_a_usage_error_and_the_rules_stay(tmp_path, capsys):
    rules = tmp_path / "g.dot"  # a rule file may have any name
    rules.write_text(RULES, encoding="utf-8")
    assert main(["graph", str(rules), "-o", str(rules)]) == 2
    assert rules.read_text(encoding="utf-8") == RULES
    assert f"-o {rules}: is the rule file" in capsys.readouterr().err


def test_report_output_named_as_its_rule_file_is_a_usage_error_and_the_rules_stay(tmp_path, capsys):
    rules = tmp_path / "g.html"
    rules.write_text(RULES, encoding="utf-8")
    assert main(["report", str(rules), "-o", str(rules), "-n", "2"]) == 2
    assert rules.read_text(encoding="utf-8") == RULES
    assert f"-o {rules}: is the rule file" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["sim", "{rules}", "-n", "2", "--out", "{rules}"],
    ["importance", "{rules}", "-n", "2", "--out", "{rules}"],
    ["sweep", "{rules}", "--grid", "top=2,3", "-n", "2", "--rows", "{rules}"],
    ["compare", "{rules}", "--variant-option", "top=3", "-n", "2", "--out", "{rules}"],
])
def test_rows_written_over_a_rule_file_of_the_run_are_a_usage_error_and_the_rules_stay(argv, tmp_path, capsys):
    rules = tmp_path / "g.jsonl"  # a rule file may have a rows file's name
    text = 'game "G"\nseats 2\noption top = 2\nstart p\nphase p {\n  choose x from 1..top by 0\n  end winner 0\n}\n'
    rules.write_text(text, encoding="utf-8")
    flag = argv[-2]
    assert main([a.format(rules=rules) for a in argv]) == 2
    assert rules.read_text(encoding="utf-8") == text
    assert f"{flag} {rules}: is the rule file" in capsys.readouterr().err
