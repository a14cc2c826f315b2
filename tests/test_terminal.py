"""No control character from a rule file or a log reaches the terminal raw (vbr/terminal.py).

The hostile files are written at test time: raw ESC, BEL, CSI and OSC sequences do not belong in
the repository."""
import json
import re

import pytest

from vbr.cli import main
from vbr.errors import Diagnostic, Span
from vbr.report import render_events
from vbr.terminal import SafeStream, clean

ESC, BEL = "\x1b", "\x07"
TITLE = f"Evil{ESC}]0;pwned{BEL}{ESC}[2J\x9b31m"            # retitle the window, clear the screen, C1 CSI
CLIPBOARD = f"{ESC}]52;c;aGVsbG8={BEL}"                      # OSC 52: write the clipboard
# Forbidden on a terminal: C0 but newline, DEL, C1. (Tab is allowed and kept.)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

RULES = f"""game "{TITLE}"
# [Serve{ESC}[2J] the serve
seats 2
start p
option target = 1
var score: int per seat = 0
points score
phase p "Serve{ESC}[1m" {{
  choose c from ["x{ESC}[31m", "y"] by 0 as "pick{CLIPBOARD}"
  say "hello{CLIPBOARD} over\x7f\x85"
  score[0] += target
  end winner 0
}}
phase z "never{ESC}[2J" {{
  end draw
}}
"""

SCENARIOS = f"""tests for "evil.vbr"

scenario "[Serve{ESC}[2J] fails{CLIPBOARD}" {{
  expect score[0] == 5
}}
"""


@pytest.fixture
def evil(tmp_path):
    rules = tmp_path / "evil.vbr"
    rules.write_text(RULES, encoding="utf-8")
    (tmp_path / "evil_test.vbr").write_text(SCENARIOS, encoding="utf-8")
    return tmp_path


def shown(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out + err


def test_clean_shows_control_characters_as_escapes_and_keeps_the_rest():
    assert clean(f"a{ESC}[2Jb{BEL}\x9b\x7f\x00") == "a\\x1b[2Jb\\x07\\x9b\\x7f\\x00"
    assert clean("tab\tnew\nline é ü ☃") == "tab\tnew\nline é ü ☃"
    assert clean("\r") == "\\x0d"
    assert clean(clean(TITLE)) == clean(TITLE)


def test_safe_stream_escapes_what_it_is_given_but_a_carriage_return():
    class Sink:
        text = ""

        def write(self, s):
            self.text += s

    sink = Sink()
    SafeStream(sink).write(f"\r1/10 games {ESC}[2J\n")
    assert sink.text == "\r1/10 games \\x1b[2J\n"


def test_events_are_rendered_without_control_characters():
    events = [{"t": "phase", "phase": "p"},
              {"t": "choice", "seat": 0, "prompt": f"pick{CLIPBOARD}", "action": "0", "item": f"x{ESC}[31m", "of": 2},
              {"t": "say", "text": f"hello{CLIPBOARD}"}]
    assert render_events(events) == ["[p]", "  seat 0: pick\\x1b]52;c;aGVsbG8=\\x07 -> x\\x1b[31m",
                                     "  hello\\x1b]52;c;aGVsbG8=\\x07"]


def test_error_source_line_is_escaped_and_the_caret_still_points_at_the_column():
    line = f'phase p "{ESC}[2J" {{ goto nowhere }}'
    d = Diagnostic(Span(file="f.vbr", line=1, col=line.index("nowhere") + 1), f"no phase `nowhere` in \"{ESC}[2J\"")
    head, src, caret = d.render({"f.vbr": line + "\n"}).splitlines()
    assert head == 'f.vbr:1:23: error: no phase `nowhere` in "\\x1b[2J"'
    assert src == '    phase p "\\x1b[2J" { goto nowhere }'
    assert caret.index("^") == src.index("nowhere")


def test_error_lines_are_counted_as_the_parser_counts_them():
    """A form feed or a record separator is not a line break: the line shown is the line meant."""
    text = "a\x0cb\x1ec\nsecond\n"
    d = Diagnostic(Span(file="f.vbr", line=2, col=1), "here")
    assert d.render({"f.vbr": text}).splitlines()[1] == "    second"


@pytest.mark.parametrize("argv,escaped", [
    (["check", "{d}/evil.vbr"], "\\x1b"),  # the warning about phase `z` shows its line
    (["check", "--strict", "{d}/evil.vbr"], "\\x1b"),
    (["run", "{d}/evil.vbr", "--seed", "1"], "\\x1b"),
    (["sim", "{d}/evil.vbr", "-n", "5"], "\\x1b"),
    (["sim", "{d}/evil.vbr", "-n", "5", "--json"], "\\u001b"),
    (["sweep", "{d}/evil.vbr", "-n", "3", "--grid", "target=1,2"], "\\x1b"),
    (["compare", "{d}/evil.vbr", "-n", "3", "--variant-option", "target=2"], None),  # shows no title
    (["graph", "{d}/evil.vbr"], "\\x1b"),
    (["test", "{d}/evil_test.vbr"], "\\x1b"),
    (["trace", "{d}/evil.vbr", "--tests", "{d}/evil_test.vbr"], None),
    (["fmt", "--check", "{d}/evil.vbr"], None),  # `vbr fmt` to a terminal: tests/test_output_hygiene.py
])
def test_no_command_lets_a_control_character_of_the_rule_file_through(evil, capsys, argv, escaped):
    code, text = shown(capsys, *(a.format(d=evil) for a in argv))
    assert code in (0, 1), text
    if escaped:
        assert escaped in text  # the hostile text was shown, escaped...
    assert not RAW.search(text)  # ...and nothing raw got through


def test_run_shows_title_prompt_item_and_say_escaped(evil, capsys):
    code, text = shown(capsys, "run", evil / "evil.vbr", "--seed", "1", "--agents", "first", "--engine", "python")
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "Evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m: seed 1, agents first | first, engine python"
    assert "  seat 0: pick\\x1b]52;c;aGVsbG8=\\x07 -> x\\x1b[31m" in lines
    assert "  hello\\x1b]52;c;aGVsbG8=\\x07 over\\x7f\\x85" in lines


def test_json_output_escapes_c1_and_del_too(evil, capsys):
    code = main(["sim", str(evil / "evil.vbr"), "-n", "2", "--json"])
    out = capsys.readouterr().out
    assert code == 0 and not RAW.search(out)
    assert "\\u009b" in out and json.loads(out)["title"] == TITLE


def test_replay_of_a_tampered_log_shows_its_text_escaped(evil, capsys):
    log = evil / "g.jsonl"
    assert main(["run", str(evil / "evil.vbr"), "--quiet", "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"t":"say"' in line)
    lines[i] = json.dumps({"t": "say", "text": f"forged{ESC}[2J"})
    log.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    code, text = shown(capsys, "replay", log)
    assert code == 1 and not RAW.search(text)


def test_a_located_error_in_a_hostile_file_is_escaped(tmp_path, capsys):
    p = tmp_path / "bad.vbr"
    p.write_text(f'game "x"\nstart p\nphase p "{ESC}]0;t{BEL}" {{ goto nowhere }}\n')
    code, text = shown(capsys, "check", p)
    assert code == 1 and not RAW.search(text)
    head, src, caret = text.splitlines()[:3]
    assert head.startswith(f"{p}:3:") and "no phase `nowhere`" in head
    col = int(head.split(":")[2])
    line = f'phase p "{ESC}]0;t{BEL}" {{ goto nowhere }}'
    assert col > line.index(BEL) + 1  # the column lies past the control characters...
    assert src[caret.index("^")] == line[col - 1]  # ...and the caret is under the same character


def test_main_escapes_rule_text_a_command_prints_without_cleaning(tmp_path, capsys):
    """`vbr mutate` prints its survivors' source text as it is; main() passes stdout through
    SafeStream, so the ESC inside the rule file's string still arrives escaped."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "m.vbr").write_text(f'game "m"\nseats 2\nstart p\nphase p "P" {{\n'
                                    f'  choose c from ["x{ESC}[2J", "y"] by 0\n  end winner 0\n}}\n')
    (tmp_path / "tests" / "m.vbr").write_text('tests for "../m.vbr"\n\nscenario "play starts in p" {\n'
                                              '  expect phase p\n}\n')
    code, text = shown(capsys, "mutate", tmp_path / "m.vbr")
    assert code == 1  # the scenario notices no swap of the two items: a survivor, shown with its text
    assert '["y", "x\\x1b[2J"]  (swap)' in text
    assert not RAW.search(text)


# A byte that is not UTF-8 in an argument (or a file name) reaches Python as a lone surrogate, and
# would reach the terminal as that raw byte: 0x9b is CSI to a terminal that takes 8-bit controls.
NOT_UTF8 = b"\xff\x9b".decode("utf-8", "surrogateescape")  # "\udcff\udc9b"


def test_clean_and_the_safe_stream_show_a_byte_that_is_not_utf8_as_its_escape():
    assert clean(f"a{NOT_UTF8}b") == "a\\udcff\\udc9bb"

    class Sink:
        text = ""

        def write(self, s):
            self.text += s

    sink = Sink()
    SafeStream(sink).write(f"say {NOT_UTF8}\n")
    assert sink.text == "say \\udcff\\udc9b\n"


@pytest.mark.parametrize("engine", ["python", "c"])
def test_an_option_value_that_is_not_utf8_is_printed_escaped_and_logged_and_written_as_json_escapes(
        tmp_path, capsys, engine):
    rules = tmp_path / "name.vbr"
    rules.write_text('game "Name"\nseats 2\noption name = "bob"\nstart p\nphase p {\n  say "hello {name}"\n'
                     '  choose x from 1..2 by 0\n  end winner x - 1\n}\n', encoding="utf-8")
    log, rows = tmp_path / "game.jsonl", tmp_path / "rows.jsonl"
    code, text = shown(capsys, "run", rules, "--engine", engine, "--option", f"name=a{NOT_UTF8}", "--log", log)
    assert code == 0 and "  hello a\\udcff\\udc9b\n" in text
    # JSON's escapes for the two bytes: a log is UTF-8 text, which cannot hold them as they are
    assert '{"t":"say","text":"hello a\\udcff\\udc9b"}' in log.read_text(encoding="utf-8")
    assert main(["replay", str(log)]) == 0
    assert main(["sim", str(rules), "-n", "2", "--engine", engine, "--option", f"name={NOT_UTF8}", "--out",
                 str(rows)]) == 0
    assert [json.loads(x)["rule_options"] for x in rows.read_text(encoding="utf-8").splitlines()] == \
        [{"name": NOT_UTF8}] * 2


def test_a_log_of_a_rule_file_whose_name_is_not_utf8_replays(tmp_path, capsys):
    rules = tmp_path / f"{NOT_UTF8}.vbr"
    rules.write_text('game "x"\nseats 2\nstart p\nphase p {\n  choose x from 1..2 by 0\n  end winner x - 1\n}\n',
                     encoding="utf-8")
    log = tmp_path / "game.jsonl"
    assert main(["run", str(rules), "--engine", "python", "--quiet", "--log", str(log)]) == 0
    assert json.loads(log.read_text(encoding="utf-8").splitlines()[0])["rules"] == str(rules)
    capsys.readouterr()
    assert main(["replay", str(log)]) == 0
    assert "reproduces exactly (" in capsys.readouterr().out
