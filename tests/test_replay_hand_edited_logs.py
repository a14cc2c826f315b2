"""Logs edited by hand (docs/cli.md, `vbr replay`): what an editor does to a file it saves must not
stop an honest log from replaying."""
from vbr.cli import main

# One choice of three, then the game ends: 4 events whatever the seed (the phase, the choice, the
# say and the end).
RULES = ('game "x"\nseats 2\nstart p\nphase p {\n  choose x from 1..3 by 0 as "pick"\n'
         '  say "x is {x}"\n  end draw\n}\n')


def logged_game(tmp_path, capsys):
    """The log `vbr run --log` writes of a game of RULES (its output read and dropped)."""
    rules = tmp_path / "x.vbr"
    rules.write_text(RULES, encoding="utf-8")
    log = tmp_path / "x.jsonl"
    assert main(["run", str(rules), "--engine", "python", "--quiet", "--log", str(log)]) == 0
    capsys.readouterr()
    return log


def test_a_log_saved_with_a_byte_order_mark_still_replays(tmp_path, capsys):
    # Notepad and some other editors put U+FEFF before the first line of a UTF-8 file they save;
    # a rule file is read past it, and so is a log (it was `Unexpected UTF-8 BOM (decode using
    # utf-8-sig)`, Python's advice, exit 1)
    log = logged_game(tmp_path, capsys)
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    assert main(["replay", str(log)]) == 0
    assert capsys.readouterr().out == f"{log}: reproduces exactly (4 events, draw)\n"


def test_a_log_whose_lines_were_rewritten_with_spaces_and_keys_reversed_still_replays(tmp_path, capsys):
    # vbr writes each line as canonical JSON (keys sorted, no spaces); a tool that reads the log and
    # writes it back (`json.dumps` with its default spacing, keys in another order) changes no event:
    # replay compares what each line says, so the log still reproduces, its choice lines included
    import json
    log = logged_game(tmp_path, capsys)
    lines = log.read_text(encoding="utf-8").splitlines()
    rewritten = [lines[0]] + [json.dumps(dict(reversed(json.loads(line).items()))) for line in lines[1:]]
    assert all(a != b for a, b in zip(lines[1:], rewritten[1:]))  # every event's line is another text
    assert any('"t": "choice"' in line for line in rewritten)
    log.write_text("\n".join(rewritten) + "\n", encoding="utf-8")
    for engine in ("python", "c"):
        assert main(["replay", str(log), "--engine", engine]) == 0
        assert capsys.readouterr().out == f"{log}: reproduces exactly (4 events, draw)\n"


def test_a_rewritten_line_that_says_something_else_is_named_quoting_both_events(tmp_path, capsys):
    # the other side of the above: a line in another spacing whose event is not the replay's is the
    # first that differs, quoted as vbr writes it beside the replay's
    import json
    log = logged_game(tmp_path, capsys)
    lines = log.read_text(encoding="utf-8").splitlines()
    say = next(k for k, line in enumerate(lines) if '"t":"say"' in line)
    event = json.loads(lines[say])
    lines[say] = json.dumps({**event, "text": event["text"] + "!"})
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{log}:{say + 1}: error: differs on replay\n")
    assert f"  logged:   {{\"t\":\"say\",\"text\":\"{event['text']}!\"}}" in err
    assert f"  replayed: {{\"t\":\"say\",\"text\":\"{event['text']}\"}}" in err
