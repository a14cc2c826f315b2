"""What vbr writes out from untrusted rule files, option values and logs is safe and bounded.

- `vbr fmt` to a file or a pipe writes the rule file as it is, so it reads as the same rules
  (strings have no escapes: docs/language.md, 1. Files); on a terminal, escaped (docs/cli.md,
  `vbr fmt`).
- JSON (a log, rows, `--json`) writes every control, format and separator character as JSON's
  escape, which reads back as the same text (docs/language.md, Limits, "Writing").
- A text a game writes (a `say`, a choice's prompt and chosen thing, a reveal's items together) is
  at most 4,096 characters, cut with a mark past that, in both typed engines, and a name at most
  256 (docs/language.md, Limits); so a log's every line stays one that replay reads.

The hostile files are written at test time: raw control characters do not belong in the repository.
"""
import json
import os
import pty
import subprocess
import sys
import unicodedata

import pytest

from vbr.cli import main
from vbr.grammar.parser import parse
from vbr.grammar.printer import program
from vbr.json_text import dumps
from vbr.loader import load_rules

ESC, BEL, RLO, LRI, PDI = "\x1b", "\x07", "\u202e", "\u2066", "\u2069"
ZWSP, BOM, NEL, DEL, TAG = "\u200b", "\ufeff", "\x85", "\x7f", "\U000e0001"
TITLE = f"Evil{ESC}]0;pwned{BEL} {RLO}txt"
SAID = f"a{RLO}b{LRI}c{PDI}d{ZWSP}e{BOM}f{NEL}g{DEL}h\u2028i{TAG}j"
# Every character JSON must not write as itself: Unicode's controls, format characters,
# surrogates, unassigned, line and paragraph separators.
HIDDEN = {"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"}


def hidden_in(text: str) -> list[str]:
    """The characters of `text` that do not show as themselves, but the newline (JSON lines)."""
    return [c for c in text if c != "\n" and unicodedata.category(c) in HIDDEN]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------ 1: vbr fmt
MESSY = (f'game "{TITLE}"   # a comment {ESC}[2J with {RLO}\nseats 2\nstart p\n'
         f'phase p {{ say "hi{BEL} {RLO}abc" \n end draw }}\n')


def test_fmt_into_a_file_writes_the_rules_as_they_are_and_they_read_as_the_same_rules(tmp_path):
    messy = tmp_path / "messy.vbr"
    messy.write_text(MESSY, encoding="utf-8")
    out = tmp_path / "out.vbr"
    with open(out, "wb") as f:  # `vbr fmt messy.vbr > out.vbr`
        done = subprocess.run([sys.executable, "-m", "vbr", "fmt", str(messy)], stdout=f, stderr=subprocess.PIPE,
                              timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert text == program(parse(MESSY, "messy.vbr"))  # the canonical form, character for character
    assert load_rules(out).title == TITLE  # the same title, its ESC, BEL and RLO themselves
    assert f'say "hi{BEL} {RLO}abc"' in text and f"# a comment {ESC}[2J with {RLO}" in text
    assert main(["fmt", "--check", str(out)]) == 0  # canonical: it formats to itself


def test_fmt_into_a_pipe_writes_what_fmt_w_writes_in_place(tmp_path):
    messy = tmp_path / "messy.vbr"
    messy.write_text(MESSY, encoding="utf-8")
    piped = subprocess.run([sys.executable, "-m", "vbr", "fmt", str(messy)], capture_output=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert main(["fmt", "-w", str(messy)]) == 0
    assert piped.stdout == messy.read_bytes()


def test_fmt_on_a_terminal_shows_control_and_bidi_characters_escaped(tmp_path):
    messy = tmp_path / "messy.vbr"
    messy.write_text(MESSY, encoding="utf-8")
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vbr", "fmt", str(messy)], stdout=follower,
                            stderr=subprocess.PIPE)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed: vbr has ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert proc.wait(timeout=300) == 0
    text = shown.decode("utf-8").replace("\r\n", "\n")  # the terminal's own line ends
    assert text.splitlines()[0] == 'game "Evil\\x1b]0;pwned\\x07 \\u202etxt"  # a comment \\x1b[2J with \\u202e'
    assert '  say "hi\\x07 \\u202eabc"' in text
    assert ESC not in text and BEL not in text and RLO not in text


# ------------------------------------------------------------------------------ 2: JSON
def test_json_writes_controls_format_characters_and_separators_as_escapes_that_read_back():
    value = {"t": SAID, f"key{RLO}": [f"x{ESC}", "\udcff"]}
    text = dumps(value, sort_keys=True, indent=2)
    assert hidden_in(text) == []
    assert json.loads(text) == value
    assert "\\u202e" in text and "\\u2066" in text and "\\u2069" in text and "\\u200b" in text
    assert "\\ufeff" in text and "\\u0085" in text and "\\u007f" in text and "\\u2028" in text
    assert "\\udb40\\udc01" in text  # U+E0001, past U+FFFF: its UTF-16 pair, as JSON writes one
    assert "\\udcff" in text and "\\u001b" in text


def test_json_keeps_readable_text_and_the_layout_of_indent_as_it_is():
    value = {"name": "Siatkówka ☃ 日本 \ue000"}  # letters, a symbol, CJK, a private-use character
    assert dumps(value) == '{"name": "Siatkówka ☃ 日本 \ue000"}'
    assert dumps([1, 2], indent=1) == "[\n 1,\n 2\n]"


SAYS = f'game "Says{RLO}"\nseats 2\noption tag = "t"\nstart p\nphase p {{\n  say "{SAID} {{tag}}"\n' \
       '  choose x from 1..2 by 0\n  end winner x - 1\n}\n'


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_log_writes_a_says_bidi_and_format_characters_as_escapes_and_replays(tmp_path, capsys, engine):
    rules = tmp_path / "says.vbr"
    rules.write_text(SAYS, encoding="utf-8")
    log = tmp_path / "game.jsonl"
    code, _, err = run(capsys, "run", rules, "--engine", engine, "--option", f"tag=v{LRI}", "--quiet", "--log", log)
    assert code == 0, err
    text = log.read_text(encoding="utf-8")
    assert hidden_in(text) == []
    events = [json.loads(line) for line in text.splitlines()]
    assert events[0]["options"] == {"tag": f"v{LRI}"}
    assert [e["text"] for e in events if e["t"] == "say"] == [f"{SAID} v{LRI}"]
    code, out, _ = run(capsys, "replay", log)
    assert code == 0 and "reproduces exactly" in out


@pytest.mark.parametrize("argv", [
    ["sim", "{r}", "-n", "2", "--json"],
    ["sweep", "{r}", "-n", "2", "--grid", f"tag=a{RLO},b{ZWSP}", "--json"],
    ["compare", "{r}", "-n", "2", "--variant-option", f"tag=c{BOM}", "--json"],
])
def test_json_on_stdout_holds_no_hidden_character_and_reads_back(tmp_path, capsys, argv):
    rules = tmp_path / "says.vbr"
    rules.write_text(SAYS, encoding="utf-8")
    code, out, err = run(capsys, *(a.format(r=rules) for a in argv))
    assert code == 0, err
    assert hidden_in(out) == []
    json.loads(out)


def test_rows_jsonl_write_an_option_value_as_escapes_and_read_back_as_it(tmp_path, capsys):
    rules = tmp_path / "says.vbr"
    rules.write_text(SAYS, encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    code, _, err = run(capsys, "sim", rules, "-n", 3, "--option", f"tag={RLO}{NEL}\u2029x", "--out", rows)
    assert code == 0, err
    text = rows.read_text(encoding="utf-8")
    assert hidden_in(text) == [] and len(text.splitlines()) == 3
    assert [json.loads(x)["rule_options"] for x in text.splitlines()] == [{"tag": f"{RLO}{NEL}\u2029x"}] * 3


def test_mutate_json_is_valid_json_when_the_rules_hold_control_characters(tmp_path, capsys):
    # a survivor's text is the rule file's: its DEL and RLO were written raw into the JSON, and the
    # terminal guard then made them `\x7f`, which is no JSON escape
    (tmp_path / "tests").mkdir()
    (tmp_path / "m.vbr").write_text(f'game "m"\nseats 2\nstart p\nphase p "P" {{\n'
                                    f'  choose c from ["x{DEL}{RLO}", "y"] by 0\n  end winner 0\n}}\n',
                                    encoding="utf-8")
    (tmp_path / "tests" / "m.vbr").write_text('tests for "../m.vbr"\n\nscenario "play starts in p" {\n'
                                              '  expect phase p\n}\n', encoding="utf-8")
    code, out, _ = run(capsys, "mutate", tmp_path / "m.vbr", "--json")
    assert code == 1  # the scenario notices no swap of the two items: a survivor
    assert hidden_in(out) == []
    report = json.loads(out)
    assert f'["y", "x{DEL}{RLO}"]' in [s["after"] for s in report["survivors"]]


# ------------------------------------------------------------------------------ 3: say
LIMIT = 4096
MARK = " [... cut at 4096 characters]"


def says_of(capsys, rules, engine) -> list[str]:
    log = rules.parent / f"{engine}.jsonl"
    code, _, err = run(capsys, "run", rules, "--engine", engine, "--quiet", "--log", log)
    assert code == 0, err
    return [json.loads(x)["text"] for x in log.read_text(encoding="utf-8").splitlines() if '"t":"say"' in x]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_say_past_the_limit_is_cut_at_it_with_the_mark_and_one_at_it_is_whole(tmp_path, capsys, engine):
    rules = tmp_path / "long.vbr"
    rules.write_text(f'game "Long"\nseats 2\nstart p\nphase p {{\n  say "{"a" * LIMIT}"\n'
                     f'  say "{"b" * (LIMIT + 1)}"\n  say "{"c" * 100_000}"\n  end draw\n}}\n', encoding="utf-8")
    assert says_of(capsys, rules, engine) == ["a" * LIMIT, "b" * LIMIT + MARK, "c" * LIMIT + MARK]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_say_whose_holes_write_past_the_limit_is_cut_at_it(tmp_path, capsys, engine):
    # three holes of a list of 256 six-digit numbers: `[100000, 100001, ...]`, 2,048 characters each
    rules = tmp_path / "holes.vbr"
    rules.write_text('game "Holes"\nseats 2\nvar xs: list of int = []\nstart p\nphase p {\n'
                     '  xs = every(n for n in 100000..100255)\n  say "{xs}|{xs}|{xs}"\n  end draw\n}\n',
                     encoding="utf-8")
    listed = "[" + ", ".join(str(n) for n in range(100000, 100256)) + "]"
    assert len(listed) == 2048
    assert says_of(capsys, rules, engine) == [(listed + "|" + listed + "|" + listed)[:LIMIT] + MARK]


def test_a_long_say_in_a_loop_prints_at_most_the_limit_each_time(tmp_path):
    # 200 says of 100,000 characters each: 20 MB before the limit, about 200 x 4 KB now
    rules = tmp_path / "flood.vbr"
    rules.write_text(f'game "Flood"\nseats 2\nstart p\nphase p {{\n  repeat 200 {{ say "{"z" * 100_000}" }}\n'
                     '  end draw\n}\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "vbr", "run", str(rules), "--engine", "python"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    said = [line for line in lines if line.startswith("  z")]
    assert said == ["  " + "z" * LIMIT + MARK] * 200
    assert len(done.stdout) < 200 * (LIMIT + len(MARK) + 3) + 1000  # the says, and a few short lines


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_prompt_past_the_limit_is_cut_and_its_log_replays(tmp_path, capsys, engine):
    # a prompt of 1.1 MB was logged whole, in a line longer than the 1 MB replay reads of one event
    rules = tmp_path / "prompt.vbr"
    rules.write_text(f'game "Prompt"\nseats 2\nstart p\nphase p {{\n  choose x from 1..2 by 0 as "{"p" * 1_100_000}"\n'
                     '  end winner x - 1\n}\n', encoding="utf-8")
    log = tmp_path / "game.jsonl"
    code, out, err = run(capsys, "run", rules, "--engine", engine, "--log", log)
    assert code == 0, err
    assert f"  seat 0: {'p' * LIMIT}{MARK} -> " in out
    choices = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if '"t":"choice"' in x]
    assert [c["prompt"] for c in choices] == ["p" * LIMIT + MARK]
    code, out, err = run(capsys, "replay", log)
    assert code == 0 and "reproduces exactly" in out, err


def long_prompt_state(tmp_path, engine: str, chars: int = 1_100_000):
    """A game of `engine` at its first choice, whose prompt is `chars` characters `p`."""
    import vbr
    rules = tmp_path / "prompt.vbr"
    rules.write_text(f'game "Prompt"\nseats 2\nstart p\nphase p {{\n  choose x from 1..2 by 0 as "{"p" * chars}"\n'
                     '  end winner x - 1\n}\n', encoding="utf-8")
    game = vbr.load(rules, engine=engine)
    return game, game.new_state(0)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_what_a_seat_observes_of_a_prompt_past_the_limit_is_cut_as_a_log_writes_it(tmp_path, engine):
    # State.observation, which `vbr play` and the RL environments show, gave the whole 1.1 MB
    _, state = long_prompt_state(tmp_path, engine)
    assert state.observation(0)["prompt"] == "p" * LIMIT + MARK


def test_terminal_play_shows_a_prompt_past_the_limit_cut(tmp_path):
    # the screen wrapped the whole prompt above the choices (of 1.1 MB, 14,000 lines of 78 `p`s,
    # each cut from what was left of the prompt: minutes of work before the screen showed)
    from vbr.tty_play.screen import Board, Screen, plain
    game, state = long_prompt_state(tmp_path, "python", 10_000)
    lines = [plain(x) for x in Screen(Board(game), state.observation(0), 0).choice_lines()]
    assert sum(line.count("p") for line in lines) == LIMIT
    assert lines[-3].endswith("p" + MARK) and lines[-2:] == ["  1) 1", "  2) 2"]


def test_an_information_state_writes_a_prompt_past_the_limit_cut(tmp_path):
    from vbr.rl.information_state import view
    _, state = long_prompt_state(tmp_path, "python", 10_000)
    assert view(state, 0, False)["choose"] == "5:3 " + "p" * LIMIT + MARK  # the `choose` at line 5, column 3


def card_rules(tmp_path, body: str):
    """A rule file whose deck holds 200 cards, each with a list of 700 six-digit numbers: a card
    reads `#N Card(xs=[100000, ...])`, 5,608 characters or more; all of them, over 1 MB."""
    xs = ", ".join(["100000"] * 700)
    rules = tmp_path / "cards.vbr"
    rules.write_text(f'game "Cards"\nseats 2\nkind Card {{ xs: list of int }}\nzone deck public\nstart p\n'
                     f'setup {{\n  create Card(xs: [{xs}]) in deck times 200\n}}\nphase p {{\n{body}\n}}\n',
                     encoding="utf-8")
    return rules


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_reveal_of_long_things_shows_them_together_cut_at_the_limit_and_its_log_replays(tmp_path, capsys, engine):
    # 200 such cards were logged in one line of over 1 MB, which replay refuses (1 MB a line)
    rules = card_rules(tmp_path, "  reveal deck\n  choose x from 1..2 by 0\n  end winner x - 1")
    reveals = [e for e in logged_and_replayed(tmp_path, capsys, rules, engine) if e["t"] == "reveal"]
    first = "#0 Card(xs=[" + ", ".join(["100000"] * 700) + "])"  # created first: entity 0
    assert reveals == [{"t": "reveal", "what": "deck", "items": [first[:LIMIT] + MARK]}]


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_chosen_thing_past_the_limit_is_logged_cut(tmp_path, capsys, engine):
    rules = card_rules(tmp_path, "  choose c from deck by 0\n  end draw")
    choice = next(e for e in logged_and_replayed(tmp_path, capsys, rules, engine) if e["t"] == "choice")
    n = int(choice["action"].lstrip("#"))
    assert choice["item"] == (f"#{n} Card(xs=[" + ", ".join(["100000"] * 700) + "])")[:LIMIT] + MARK


def logged_and_replayed(tmp_path, capsys, rules, engine: str) -> list[dict]:
    """The events of `vbr run RULES --engine ENGINE --log`, once `vbr replay` of the log has said it
    reproduces exactly."""
    log = tmp_path / "game.jsonl"
    code, _, err = run(capsys, "run", rules, "--engine", engine, "--quiet", "--log", log)
    assert code == 0, err
    events = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    code, out, err = run(capsys, "replay", log)
    assert code == 0 and "reproduces exactly" in out, err
    return events


def test_a_name_of_257_characters_is_an_error_at_it_and_one_of_256_plays_and_replays(tmp_path, capsys):
    # a phase named with 1.1 MB was written whole on its `phase` line of the log, which replay refuses
    def rules(name: str):
        path = tmp_path / f"n{len(name)}.vbr"
        path.write_text(f'game "N"\nseats 2\nstart {name}\nphase {name} {{\n  choose x from 1..2 by 0\n'
                        '  end winner x - 1\n}\n', encoding="utf-8")
        return path

    long = rules("p" * 257)
    code, _, err = run(capsys, "check", long)
    assert code == 1
    assert err.startswith(f"{long}:3:7: error: this name has 257 characters, more than the 256 a name may have")
    log = tmp_path / "game.jsonl"
    code, _, err = run(capsys, "run", rules("p" * 256), "--quiet", "--log", log)
    assert code == 0, err
    assert {"t": "phase", "phase": "p" * 256} in [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    code, out, err = run(capsys, "replay", log)
    assert code == 0 and "reproduces exactly" in out, err
