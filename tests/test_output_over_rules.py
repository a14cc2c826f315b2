"""An output file named as the rule file itself is a usage error (exit 2) before anything is
written: `vbr graph g.dot -o g.dot` replaced the rules with their own diagram."""
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
