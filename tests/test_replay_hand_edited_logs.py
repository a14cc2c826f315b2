"""Logs edited by hand (docs/cli.md, `vbr replay`): what an editor does to a file it saves must not
stop an honest log from replaying."""
from vbr.cli import main

# One choice of three, then the game ends: 4 events whatever the seed (the phase, the choice, the
# say and the end).
RULES = ('game "x"\nseats 2\nstart p\nphase p {\n  choose x from 1..3 by 0 as "pick"\n'
         '  say "x is {x}"\n  end draw\n}\n')


def test_a_log_saved_with_a_byte_order_mark_still_replays(tmp_path, capsys):
    # Notepad and some other editors put U+FEFF before the first line of a UTF-8 file they save;
    # a rule file is read past it, and so is a log (it was `Unexpected UTF-8 BOM (decode using
    # utf-8-sig)`, Python's advice, exit 1)
    rules = tmp_path / "x.vbr"
    rules.write_text(RULES, encoding="utf-8")
    log = tmp_path / "x.jsonl"
    assert main(["run", str(rules), "--engine", "python", "--quiet", "--log", str(log)]) == 0
    capsys.readouterr()
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    assert main(["replay", str(log)]) == 0
    assert capsys.readouterr().out == f"{log}: reproduces exactly (4 events, draw)\n"
