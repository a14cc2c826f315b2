"""Logs and replay (vbr/gamelog.py): an honest log always replays, options that read alike are
told apart, a broken or changed log is reported at its own line, and a log is written whole."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from vbr.engines.game import load as load_typed
from vbr.gamelog import header, replay, write_log


def load(rules, engine="python"):
    return load_typed(rules, {}, engine=engine)

# Two options of the first choice read alike: the member `pass` and none (optional).
ALIKE = ('game "x"\nseats 2\nenum E { pass, go }\nstart p\nphase p {\n'
         '  choose x from [pass, go] by 0 optional\n  choose y from [1, 2] by 1\n'
         '  say "x is {x}, y is {y}"\n  end draw\n}\n')


def play(tmp_path, text: str, picks: list[int], name="g.vbr"):
    """Play `text` taking option `picks[k]` at the k-th choice; write its log; return its path."""
    rules = tmp_path / name
    rules.write_text(text, encoding="utf-8")
    game = load(rules)
    st = game.new_state(5, log=[])
    for i in picks:
        st.apply_index(i)
    assert st.is_terminal()
    log = tmp_path / "g.jsonl"
    write_log(log, header(game, 5, ["random"] * game.seats, "python"), st.log)
    return log


def lines(log) -> list[str]:
    return log.read_text(encoding="utf-8").split("\n")[:-1]


def rewrite(log, k: int, change) -> None:
    """Replace line k (1-based) of the log by `change(its JSON)` (a dict, or raw text)."""
    all_lines = lines(log)
    new = change(json.loads(all_lines[k - 1]))
    all_lines[k - 1] = new if isinstance(new, str) else json.dumps(new)
    log.write_text("\n".join(all_lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("picks", [[2, 0], [0, 1], [1, 0], [2, 1]])
def test_options_that_read_alike_replay_as_chosen(tmp_path, picks):
    log = play(tmp_path, ALIKE, picks)
    r = replay(log)
    assert r.ok, r.message


def test_a_choice_is_logged_with_its_index_and_kind(tmp_path):
    choices = [json.loads(x) for x in lines(play(tmp_path, ALIKE, [2, 1])) if '"t": "choice"' in x or '"t":"choice"' in x]
    assert [(c["action"], c["index"], c["kind"]) for c in choices] == [("pass", 2, "none"), ("2", 1, "int")]


def test_a_say_with_unicode_line_separators_replays(tmp_path):
    text = 'game "x"\nstart p\nphase p {\n  say "a\u2028b\u2029c\u0085d"\n  end draw\n}\n'
    log = play(tmp_path, text, [])
    assert len(lines(log)) == 4  # header, phase, say, end: one line each
    r = replay(log)
    assert r.ok, r.message


def test_a_log_without_indexes_replays_by_text(tmp_path):
    log = play(tmp_path, ALIKE, [1, 0])  # go, 1: no option before them reads alike
    for k in (3, 4):
        rewrite(log, k, lambda e: {key: v for key, v in e.items() if key not in ("index", "kind")})
    assert replay(log).ok


# ---------------------------------------------------------------------- broken logs
@pytest.mark.parametrize("change,words", [
    (lambda h: {k: v for k, v in h.items() if k != "rules"}, "rules: Field required"),
    (lambda h: {k: v for k, v in h.items() if k != "seed"}, "seed: Field required"),
    (lambda h: {**h, "seed": 4.7}, "seed: Input should be a valid integer"),
    (lambda h: {**h, "seed": -1}, "seed: Input should be greater than or equal to 0"),
    (lambda h: {**h, "seed": 2 ** 64 + 4}, "seed: Input should be less than or equal to 9223372036854775807"),
    (lambda h: {**h, "options": [1, 2]}, "options: Input should be a valid dictionary"),
    (lambda h: {**h, "t": "choice"}, "t: String should match pattern"),
    (lambda h: '[1, 2]', "a JSON list, not an object"),
    (lambda h: '{"t": "header", "seed": Infinity}', "Infinity is not a number JSON allows"),
    (lambda h: '{"t": "header"', "not a vbr log line"),
], ids=["no rules", "no seed", "seed 4.7", "negative seed", "seed past 2**63", "options a list", "not a header",
        "an array", "Infinity", "cut short"])
def test_a_broken_header_is_reported_at_line_1(tmp_path, change, words):
    log = play(tmp_path, ALIKE, [0, 0])
    rewrite(log, 1, change)
    r = replay(log)
    assert not r.ok
    assert r.message.startswith(f"{log}:1: error: ") and words in r.message, r.message


def test_a_header_with_keys_of_a_later_vbr_is_refused_naming_the_version_that_wrote_it(tmp_path):
    from vbr import __version__
    log = play(tmp_path, ALIKE, [0, 0])
    rewrite(log, 1, lambda h: {**h, "vbr": "9.0.0", "variant": "beach"})
    r = replay(log)
    assert r.message == (f"{log}:1: error: this log's header has `variant`, which vbr {__version__} does not know: "
                         "it was written by vbr 9.0.0; replay it with that vbr")
    rewrite(log, 1, lambda h: {**h, "vbr": __version__})  # this vbr's header never has it: edited
    assert replay(log).message == f"{log}:1: error: not a vbr log line (variant: Extra inputs are not permitted)"


@pytest.mark.parametrize("make,why", [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: os.mkfifo(p), "not a regular file (a device, a pipe or a socket)"),
])
def test_a_log_that_cannot_be_read_is_said_as_vbr_replay_says_it_with_no_line(tmp_path, capsys, make, why):
    # docs/api.md: `.message` is what `vbr replay` prints; replay() said `LOG:1: error: not a vbr
    # log: no such file`, a line of a file that was never read, where the CLI said `vbr: error:
    # cannot read LOG: no such file`
    from vbr.cli import main
    log = tmp_path / "game.jsonl"
    make(log)
    r = replay(log)
    assert (r.ok, r.message) == (False, f"vbr: error: cannot read {log}: {why}")
    assert main(["replay", str(log)]) == 1
    assert capsys.readouterr() == ("", r.message + "\n")


def test_a_header_key_of_a_megabyte_is_quoted_cut(tmp_path):
    log = play(tmp_path, ALIKE, [0, 0])
    rewrite(log, 1, lambda h: {**h, "k" * 900_000: 1})
    r = replay(log)
    assert r.message.startswith(f"{log}:1: error: not a vbr log line (kkk") and len(r.message) < 3_000
    assert r.message.endswith("more characters)")


@pytest.mark.parametrize("change,words", [
    (lambda e: {**e, "seat": "0"}, "seat: Input should be a valid integer"),
    (lambda e: {k: v for k, v in e.items() if k != "action"}, "action: Field required"),
    (lambda e: {**e, "index": 1.0}, "index: Input should be a valid integer"),
    (lambda e: '["choice"]', "a JSON list, not an object"),
    (lambda e: '{"t": "choice", "seat": NaN}', "NaN is not a number JSON allows"),
    (lambda e: '{"t": "choice", "seat": 0, "action": "go", "x": -1e400}', "-1e400 is a number too large to read"),
], ids=["seat a string", "no action", "index a float", "an array", "NaN", "past the largest float"])
def test_a_broken_choice_is_reported_at_its_line(tmp_path, change, words):
    log = play(tmp_path, ALIKE, [0, 0])
    k = next(i for i, x in enumerate(lines(log), start=1) if '"t":"choice"' in x)
    rewrite(log, k, change)
    r = replay(log)
    assert r.message.startswith(f"{log}:{k}: error: ") and words in r.message, r.message


def test_a_changed_choice_is_reported_at_its_own_line(tmp_path):
    log = play(tmp_path, ALIKE, [0, 0])
    k = next(i for i, x in enumerate(lines(log), start=1) if '"t":"choice"' in x)
    rewrite(log, k, lambda e: {**e, "action": "go"})  # a legal option's text, at the index of another
    r = replay(log)
    assert r.message.startswith(f"{log}:{k}: error: the logged choice 0 go (option 0, text) is not legal"), r.message


def test_another_legal_choice_is_reported_at_the_first_event_it_changes(tmp_path):
    log = play(tmp_path, ALIKE, [0, 0])
    k = next(i for i, x in enumerate(lines(log), start=1) if '"t":"choice"' in x)
    rewrite(log, k, lambda e: {**e, "action": "go", "index": 1})  # all of a piece: the game plays it
    r = replay(log)
    say = next(i for i, x in enumerate(lines(log), start=1) if '"t": "say"' in x or '"t":"say"' in x)
    assert r.message.startswith(f"{log}:{say}: error: differs on replay"), r.message  # not at the end


def test_a_choice_of_the_wrong_kind_is_refused(tmp_path):
    log = play(tmp_path, ALIKE, [2, 0])  # x: none, which reads `pass`
    k = next(i for i, x in enumerate(lines(log), start=1) if '"t":"choice"' in x)
    rewrite(log, k, lambda e: {**e, "kind": "text"})  # the member `pass`, claimed at none's index
    r = replay(log)
    assert r.message.startswith(f"{log}:{k}: error: the logged choice 0 pass (option 2, text) is not legal"), r.message


def test_a_changed_event_before_a_choice_is_reported_at_its_line(tmp_path):
    log = play(tmp_path, ALIKE, [0, 0])
    rewrite(log, 2, lambda e: {**e, "phase": "q"})  # the phase event, before any choice
    assert replay(log).message.startswith(f"{log}:2: error: differs on replay")


def test_a_log_cut_short_is_reported_where_it_ends(tmp_path):
    log = play(tmp_path, ALIKE, [0, 0])
    all_lines = lines(log)
    log.write_text("\n".join(all_lines[:-1]) + "\n", encoding="utf-8")  # the `end` event lost
    r = replay(log)
    assert r.message == (f"{log}:{len(all_lines)}: error: differs on replay: the log ends here, and the replay goes "
                         f"on (is the log cut short?)\n  replayed: {all_lines[-1]}")  # the event lost


def test_a_log_replayed_under_its_rules_changed_since_says_they_changed(tmp_path):
    log = play(tmp_path, ALIKE, [0, 0])
    rules = tmp_path / "g.vbr"
    rules.write_text(ALIKE.replace('say "x is', 'say "now x is'), encoding="utf-8")
    r = replay(log)
    say = next(i for i, x in enumerate(lines(log), start=1) if '"t":"say"' in x)
    assert r.message.startswith(f"{log}:{say}: error: differs on replay"), r.message
    assert r.message.endswith(f"\nnote: {rules} has changed since this log was recorded (its text, or that of a file "
                              "it extends, is not the one played then): the replay plays the rules as they are now")
    assert "recorded by vbr" not in r.message  # the same vbr wrote it


def test_a_moved_log_whose_bundled_book_plays_otherwise_names_the_book_played_not_a_change(tmp_path):
    """A log's `bundled` is played when the file it names is not here (a log from another
    machine); a header whose `bundled` is another book than the one played then is no change of
    that book: the note says which file was missing and which book was played instead."""
    log = tmp_path / "s.jsonl"
    game = load("siatka")
    st = game.new_state(3, log=[])
    st.play_random(3)
    write_log(log, header(game, 3, ["random", "random"], "python"), st.log)
    head, *rest = lines(log)
    moved = json.loads(head) | {"rules": str(tmp_path / "gone" / "siatka.vbr")}
    log.write_text("\n".join([json.dumps(moved), *rest]) + "\n", encoding="utf-8")
    assert replay(log).ok  # the bundled siatka, the book played
    log.write_text("\n".join([json.dumps(moved | {"bundled": "cattack"}), *rest]) + "\n", encoding="utf-8")
    r = replay(log)
    assert not r.ok and "has changed since" not in r.message, r.message
    assert r.message.endswith(f"\nnote: this log names {tmp_path / 'gone' / 'siatka.vbr'}, which is not here, so the "
                              "replay played the bundled cattack its header names instead, and that is not the text "
                              "the log was played with (another version of the book, or another book)"), r.message


def test_a_log_of_a_variant_replayed_after_its_base_changed_says_the_rules_changed(tmp_path):
    # the digest covers the file the variant extends too
    (tmp_path / "base.vbr").write_text(ALIKE, encoding="utf-8")
    variant = tmp_path / "variant.vbr"
    variant.write_text('game "v"\nextends "base.vbr"\n', encoding="utf-8")
    game = load(variant)
    st = game.new_state(5, log=[])
    for i in (0, 0):
        st.apply_index(i)
    log = tmp_path / "v.jsonl"
    write_log(log, header(game, 5, ["random"] * 2, "python"), st.log)
    assert replay(log).ok
    (tmp_path / "base.vbr").write_text(ALIKE.replace('say "x is', 'say "now x is'), encoding="utf-8")
    r = replay(log)
    assert not r.ok and f"\nnote: {variant} has changed since this log was recorded" in r.message, r.message


def test_a_log_another_vbr_recorded_that_differs_names_both_versions(tmp_path):
    from vbr import __version__
    log = play(tmp_path, ALIKE, [0, 0])
    rewrite(log, 1, lambda h: {**h, "vbr": "0.0.1"})
    assert replay(log).ok  # another version alone is no fault
    say = next(i for i, x in enumerate(lines(log), start=1) if '"t":"say"' in x)
    rewrite(log, say, lambda e: {**e, "text": "edited"})
    r = replay(log)
    assert r.message.startswith(f"{log}:{say}: error: differs on replay"), r.message
    assert r.message.endswith(f"\nnote: this log was recorded by vbr 0.0.1, and this is vbr {__version__}: a change "
                              "in vbr between the two may play the game otherwise"), r.message
    assert "has changed since" not in r.message  # the rules are the ones it was played with


def test_a_log_names_the_digest_of_its_rule_texts_and_the_engines_write_the_same(tmp_path):
    import hashlib
    rules = tmp_path / "g.vbr"
    rules.write_text(ALIKE, encoding="utf-8")
    digests = {header(load(rules, engine), 5, ["random"] * 2, engine)["rules_digest"] for engine in ("python", "c")}
    assert digests == {"sha256:" + hashlib.sha256(ALIKE.encode()).hexdigest()}


def test_replay_of_a_game_left_early_says_it_was_left(tmp_path, capsys):
    from vbr.cli import main
    rules = tmp_path / "g.vbr"
    rules.write_text(ALIKE, encoding="utf-8")
    game = load(rules)
    st = game.new_state(5, log=[])
    st.apply_index(0)  # seat 0 chooses x; seat 1's choice of y never comes
    log = tmp_path / "g.jsonl"
    write_log(log, header(game, 5, ["random"] * game.seats, "python"), st.log)
    assert main(["replay", str(log)]) == 0
    n = len(lines(log)) - 1  # the events after the header
    assert capsys.readouterr().out == (f"{log}: reproduces exactly ({n} events, "
                                       "the game was left unfinished, seat 1 to choose)\n")


def test_replay_of_a_finished_game_names_its_result(tmp_path, capsys):
    from vbr.cli import main
    log = play(tmp_path, ALIKE, [0, 0])
    assert main(["replay", str(log)]) == 0
    assert capsys.readouterr().out == f"{log}: reproduces exactly ({len(lines(log)) - 1} events, draw)\n"


def test_a_log_the_closure_engine_recorded_is_refused_saying_to_record_it_again(tmp_path, capsys):
    """The closure engine's logs named no engine, generator or format in their header."""
    from vbr.cli import main
    log = play(tmp_path, ALIKE, [0, 0])
    rewrite(log, 1, lambda h: {k: v for k, v in h.items() if k not in ("engine", "generator", "format")})
    for engine in ([], ["--engine", "python"], ["--engine", "c"]):
        assert main(["replay", str(log), *engine]) == 1
        assert capsys.readouterr().err == (f"{log}:1: error: this log was recorded by the closure engine, which this "
                                           "vbr no longer has, so it cannot be played again: record the game again "
                                           "with --engine python or c\n")


def test_replay_through_the_closure_engine_is_a_usage_error(tmp_path, capsys):
    from vbr.cli import main
    log = play(tmp_path, ALIKE, [0, 0])
    assert main(["replay", str(log), "--engine", "closure"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == ("vbr replay: error: argument --engine: no engine 'closure' "
                                                       "(engines: python, c); the closure engine was retired")


def test_replay_through_c_without_a_compiler_says_why_once_and_names_the_other_engine(tmp_path, capsys, monkeypatch):
    # A log names the C engine; with no C compiler the replay is refused at line 1 with the reason
    # said once (not a `vbr: error:` inside the log's error) and the engine that draws alike.
    from vbr.cli import main
    log = play(tmp_path, ALIKE, [0, 0])
    rewrite(log, 1, lambda h: {**h, "engine": "c"})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["replay", str(log)]) == 1
    assert capsys.readouterr().err == (f"{log}:1: error: the c engine cannot replay this log: no C compiler found "
                                       "(install gcc, or set CC) (--engine python draws from the same generator)\n")


def test_an_empty_log_is_reported(tmp_path):
    log = tmp_path / "g.jsonl"
    log.write_text("")
    assert replay(log).message == f"{log}:1: error: the log is empty"


# ---------------------------------------------------------------------- writing
def test_a_log_is_written_whole_or_not_at_all(tmp_path):
    log = play(tmp_path, ALIKE, [0, 0])
    before = log.read_text()
    with pytest.raises(TypeError):
        write_log(log, {"t": "header"}, [{"t": "say", "text": object()}])  # fails half way through
    assert log.read_text() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


# ---------------------------------------------------------------------- a game stopped by its rules
# Seat 0 chooses x from 1..3, the rules say "picked", then divide by zero at line 8, column 7 (the
# `7` the division starts at): the first agent takes option 0, so the choice logged is `1`.
FAULT = ('game "fault"\nseats 2\nvar n: int = 3\nstart p\nphase p {\n  choose x from 1..3 by 0\n'
         '  say "picked"\n  n = 7 / (n - n)\n  end draw\n}\n')
FAULT_EVENTS = [{"t": "phase", "phase": "p"},
                {"t": "choice", "seat": 0, "prompt": "choose x", "action": "1", "index": 0, "kind": "int", "of": 3},
                {"t": "say", "text": "picked"},
                {"t": "error", "file": "fault.vbr", "line": 8, "col": 7, "message": "division by zero"}]


def run_fault(tmp_path, capsys, engine: str, rules_arg: str | None = None):
    from vbr.cli import main
    rules = tmp_path / "fault.vbr"
    rules.write_text(FAULT, encoding="utf-8")
    log = tmp_path / "fault.jsonl"
    code = main(["run", rules_arg or str(rules), "--agents", "first", "--engine", engine, "--log", str(log)])
    return code, capsys.readouterr(), log


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_run_stopped_by_an_error_in_the_rules_writes_the_log_up_to_it_and_the_error(tmp_path, capsys, engine):
    code, said, log = run_fault(tmp_path, capsys, engine)
    assert code == 1
    assert said.err.splitlines()[0] == f"{tmp_path / 'fault.vbr'}:8:7: error: division by zero"
    assert said.out.splitlines()[-1] == f"log written to {log} (up to the error)"
    head, *events = [json.loads(x) for x in lines(log)]
    assert head["t"] == "header" and head["engine"] == engine and head["agents"] == ["first", "first"]
    assert events == FAULT_EVENTS


def test_the_error_a_log_ends_with_names_the_rule_file_as_its_folder_does(tmp_path, capsys, monkeypatch):
    # named `fault.vbr` from its own folder, the rules give the same log as named by their whole path
    monkeypatch.chdir(tmp_path)
    code, said, log = run_fault(tmp_path, capsys, "python", rules_arg="fault.vbr")
    assert code == 1 and said.err.startswith("fault.vbr:8:7: error: division by zero\n")
    assert [json.loads(x) for x in lines(log)][1:] == FAULT_EVENTS


@pytest.mark.parametrize("recorded,replayed", [("python", "python"), ("python", "c"), ("c", "python")])
def test_a_log_of_a_game_stopped_by_its_rules_replays_to_the_same_located_error(tmp_path, capsys, recorded,
                                                                                 replayed):
    from vbr.cli import main
    _, _, log = run_fault(tmp_path, capsys, recorded)
    assert main(["replay", str(log), "--engine", replayed]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{tmp_path / 'fault.vbr'}:8:7: error: division by zero"
    assert err[1].strip() == "n = 7 / (n - n)"
    assert err[-1] == f"{log}: reproduces exactly up to this error in the rules (4 events)"  # the four after the header
    assert "differs" not in "\n".join(err)


def test_a_logged_error_the_replay_does_not_meet_differs_at_its_line(tmp_path, capsys):
    from vbr.cli import main
    _, _, log = run_fault(tmp_path, capsys, "python")
    rewrite(log, 5, lambda e: {**e, "line": 7})  # the error said to be at the `say`
    assert main(["replay", str(log)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{log}:5: error: differs on replay\n")
    assert f"{tmp_path / 'fault.vbr'}:8:7: error: division by zero" in err  # what the replay met, in full


def test_a_log_of_a_game_stopped_before_its_first_choice_replays_to_the_error(tmp_path, capsys):
    from vbr.cli import main
    rules = tmp_path / "early.vbr"
    rules.write_text('game "x"\nseats 2\nvar n: int = 3\nstart p\nphase p {\n  n = 7 / (n - n)\n  end draw\n}\n',
                     encoding="utf-8")
    log = tmp_path / "early.jsonl"
    assert main(["run", str(rules), "--engine", "python", "--quiet", "--log", str(log)]) == 1
    assert [json.loads(x) for x in lines(log)][1:] == [
        {"t": "phase", "phase": "p"},
        {"t": "error", "file": "early.vbr", "line": 6, "col": 7, "message": "division by zero"}]
    capsys.readouterr()
    assert main(["replay", str(log)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (f"{log}: reproduces exactly up to this error in the rules "
                                                        "(2 events)")


def test_a_run_stopped_by_ctrl_c_writes_a_log_that_replays_up_to_its_last_choice(tmp_path):
    # mcts at 100,000 iterations a decision: a game of Siatka takes many seconds, stopped once the
    # run has printed its first choice (a fixed wait let a busy machine stop it before any)
    log = tmp_path / "stopped.jsonl"
    run = subprocess.Popen([sys.executable, "-m", "vbr", "run", "siatka", "--agents", "mcts:iterations=100000",
                            "--engine", "c", "--log", str(log)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONUNBUFFERED": "1"})
    guard = threading.Timer(120, run.kill)  # against a hang only
    guard.start()
    try:
        while " -> " not in (run.stdout.readline() or " -> "):  # a choice's line, or the end of its output
            pass
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=120)
    finally:
        guard.cancel()
    assert run.returncode == 130
    assert err.splitlines() == [f"vbr: log written to {log} (up to the last choice before the interruption)",
                                "vbr: interrupted"]
    replay = subprocess.run([sys.executable, "-m", "vbr", "replay", str(log)], capture_output=True, text=True,
                            timeout=120)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert replay.stdout.splitlines()[-1].startswith(f"{log}: reproduces exactly (")
    assert "the game was left unfinished" in replay.stdout


# A set-up of 5,000 rounds, each counting through 100,000 numbers and saying the total: seconds in
# C, minutes in python, before the first choice.
LONG_SET_UP = '''game "A long set-up"
limit steps 100000000
seats 2
var total: int = 0
start play
setup {
  repeat 5000 {
    total += count(every(x for x in 1..100000 if x % 7 == total % 7))
    say "total {total}"
  }
}
phase play {
  choose x from [1, 2] by 0 as "pick"
  if x == 1 { end winner 0 }
  end winner 1
}
'''


def stopped_in_set_up(tmp_path, engine: str, sig: int):
    """`vbr run` of LONG_SET_UP with --log, sent `sig` once it has printed its title line (play
    begins right after it); its process and its log's lines as JSON."""
    import os
    rules, log = tmp_path / "long.vbr", tmp_path / "long.jsonl"
    rules.write_text(LONG_SET_UP, encoding="utf-8")
    run = subprocess.Popen([sys.executable, "-m", "vbr", "run", str(rules), "--engine", engine, "--log", str(log)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert run.stdout.readline().startswith("A long set-up: seed 0")
    time.sleep(0.2)
    run.send_signal(sig)
    _, err = run.communicate(timeout=300)
    return run.returncode, err, log, [json.loads(x) for x in lines(log)]


def replayed(log) -> subprocess.CompletedProcess:
    # through C, whose set-up takes seconds (a log replays in either engine: they draw alike)
    return subprocess.run([sys.executable, "-m", "vbr", "replay", str(log), "--engine", "c"], capture_output=True,
                          text=True, timeout=300)


def test_a_run_stopped_inside_its_set_up_in_python_writes_a_log_that_replays_up_to_where_it_stopped(tmp_path):
    code, err, log, events = stopped_in_set_up(tmp_path, "python", signal.SIGTERM)
    assert code == 128 + signal.SIGTERM
    assert err.splitlines() == [f"vbr: log written to {log} (up to where it stopped, before the first choice)",
                                       "vbr: interrupted"]
    # some of the set-up's totals, then the line that says the run stopped there: no choice was made
    said = events[1:-1]
    assert events[-1] == {"t": "stopped"} and len(said) < 5000
    assert all(e["t"] == "say" for e in said)
    done = replayed(log)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == (f"{log}: reproduces exactly up to where the run was stopped, inside the "
                                            f"rules' run ({len(said)} events; the replay goes on past them)")


def test_a_ctrl_c_met_while_c_runs_a_logged_set_up_is_taken_once_it_returns_and_the_log_replays(tmp_path):
    # C cannot be stopped part way: the set-up ends (its 5,000 totals and the phase), then the run stops
    # at its first choice, with no traceback of the event C was handing over when the signal came
    code, err, log, events = stopped_in_set_up(tmp_path, "c", signal.SIGINT)
    assert code == 130
    assert err.splitlines() == [f"vbr: log written to {log} (up to where it stopped, before the first choice)",
                                       "vbr: interrupted"]
    assert [e["t"] for e in events[1:]] == ["say"] * 5000 + ["phase", "stopped"]
    done = replayed(log)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == (f"{log}: reproduces exactly (5001 events, the game was left unfinished, "
                                            "seat 0 to choose)")


# Two says after the choice: C hands both over in the call that takes it.
TWO_SAYS = ('game "x"\nseats 2\nstart p\nphase p {\n  choose y from [1, 2] by 0\n'
            '  say "first {y}"\n  say "second {y}"\n  end draw\n}\n')


def test_a_ctrl_c_met_while_c_hands_over_an_event_of_a_replay_stops_it_once_that_call_returns(tmp_path, capsys,
                                                                                              monkeypatch):
    # the replay holds Ctrl-C back once for all its calls into C (stop_signals.held), not per call:
    # a Ctrl-C met while C hands over the first say is taken once C has handed over the second,
    # and the replay ends as a command stopped by Ctrl-C does, with no event dropped with a traceback
    from vbr.cli import main
    from vbr.engines.events import PHASE, SAY, EventLog
    log = play(tmp_path, TWO_SAYS, [1])
    heard, dropped = [], []
    monkeypatch.setattr(sys, "unraisablehook", dropped.append)  # where ctypes reports an exception it drops
    from_c = EventLog.from_c

    def ctrl_c_at_the_first_say(self, S, what, *args):
        if what == SAY and SAY not in heard:
            os.kill(os.getpid(), signal.SIGINT)
        from_c(self, S, what, *args)
        heard.append(what)

    monkeypatch.setattr(EventLog, "from_c", ctrl_c_at_the_first_say)
    assert main(["replay", str(log), "--engine", "c"]) == 130
    assert capsys.readouterr().err == "vbr: interrupted\n"
    assert heard == [PHASE, SAY, SAY] and dropped == []


def test_a_stopped_line_ends_a_log(tmp_path, capsys):
    from vbr.cli import main
    log = play(tmp_path, ALIKE, [2, 1])
    all_lines = lines(log)
    log.write_text("\n".join(all_lines[:2] + ['{"t": "stopped"}'] + all_lines[2:]) + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    assert capsys.readouterr().err.startswith(f"{log}:4: error: a log ends at its `stopped` line: nothing follows it")


def test_a_stopped_line_holds_nothing_else(tmp_path, capsys):
    from vbr.cli import main
    log = play(tmp_path, ALIKE, [2, 1])
    log.write_text("\n".join(lines(log)[:2] + ['{"t": "stopped", "at": 3}']) + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    assert capsys.readouterr().err.startswith(f"{log}:3: error: not a vbr log line: a `stopped` line has nothing but")


# A game of n choices, each seat in turn choosing 1 or 2, in a phase entered again for each.
LONG_GAME = '''game "A long game"
option n = 1000
limit choices 1000000
limit steps 10000000
seats 2
var t: int = 0
start p
phase p {
  choose x from [1, 2] by t % 2 as "x"
  t += 1
  if t >= n { end winner 0 }
  goto p
}
'''


def peak_kb_of_a_logged_run(tmp_path, choices: int) -> int:
    """The most memory (KB of resident set) `vbr run --log` of LONG_GAME takes, at `choices` choices."""
    rules, log = tmp_path / "long.vbr", tmp_path / f"long{choices}.jsonl"
    rules.write_text(LONG_GAME, encoding="utf-8")
    code = ("import resource, sys\nfrom vbr.cli import main\ncode = main(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code, "run", str(rules), "--engine", "python", "--quiet",
                           "--option", f"n={choices}", "--log", str(log)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # the header, the phase and a choice each time round (the last ends the game), the end
    assert len(lines(log)) == 1 + 2 * choices + 1
    return int(done.stderr.splitlines()[-1])


def test_a_logged_run_of_many_choices_takes_the_memory_of_a_short_one(tmp_path):
    # its events are printed and logged as they come, none kept: 100,000 choices kept as events
    # took some 55 MB more than 1,000
    grew = peak_kb_of_a_logged_run(tmp_path, 100_000) - peak_kb_of_a_logged_run(tmp_path, 1_000)
    assert grew < 20_000, grew


def peak_kb_of_a_replay(tmp_path, choices: int) -> int:
    """The most memory (KB of resident set) `vbr replay` of a logged LONG_GAME of `choices`
    choices takes, through the python engine."""
    rules, log = tmp_path / "long.vbr", tmp_path / f"long{choices}.jsonl"
    rules.write_text(LONG_GAME, encoding="utf-8")
    written = subprocess.run([sys.executable, "-m", "vbr", "run", str(rules), "--engine", "python", "--quiet",
                              "--option", f"n={choices}", "--log", str(log)], capture_output=True, text=True,
                             timeout=300)
    assert written.returncode == 0, written.stderr
    code = ("import resource, sys\nfrom vbr.cli import main\ncode = main(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code, "replay", str(log), "--engine", "python"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and f"reproduces exactly ({2 * choices + 1} events, seat 0 wins)" in done.stdout, \
        done.stdout + done.stderr
    return int(done.stderr.splitlines()[-1])


def test_a_replay_of_many_choices_takes_the_memory_of_a_short_one(tmp_path):
    # the replay's events are compared as they come and let go of: 100,000 choices' events kept
    # took 17 to 45 MB more than 1,000, and 40,000 choices' some 16 MB more (with replay's
    # `game.forget` left out); let go of, none more
    grew = peak_kb_of_a_replay(tmp_path, 40_000) - peak_kb_of_a_replay(tmp_path, 1_000)
    assert grew < 8_000, grew


def test_a_log_the_disk_will_not_take_whole_is_an_error_naming_it_and_leaves_no_file(tmp_path):
    # at most 64 KB a file (RLIMIT_FSIZE; a write past it fails, "file too large"), a log of some
    # 200 KB: the write fails part way through the game, which stops, and no part of the log stays
    import errno
    import os
    import resource
    rules, log = tmp_path / "long.vbr", tmp_path / "logs" / "long.jsonl"
    rules.write_text(LONG_GAME, encoding="utf-8")
    log.parent.mkdir()

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    done = subprocess.run([sys.executable, "-m", "vbr", "run", str(rules), "--engine", "python", "--quiet",
                           "--option", "n=2000", "--log", str(log)], capture_output=True, text=True, timeout=300,
                          preexec_fn=small_files)
    assert done.returncode == 1
    assert done.stderr == f"vbr: error: cannot open {log}: {os.strerror(errno.EFBIG).lower()}\n"
    assert list(log.parent.iterdir()) == []
