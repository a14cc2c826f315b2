"""Logs of the typed engines (vbr/engines/events.py): the same bytes from the Python and the C
engine, printed by `vbr run`, replayed by `vbr replay` through the engine the log names, and
refused with both generators named when the log was drawn from another generator, or both
formats named when it was written in another format."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vbr.engines.game import load
from vbr.gamelog import TYPED_LOG_FORMAT, dumps, header, replay, write_log
from vbr.ir import random_streams as R
from vbr.play import play_typed_game

ROOT = Path(__file__).resolve().parent.parent
BOOKS = [("siatka.vbr", {}), ("cattack.vbr", {}), ("cattack.vbr", {"players": 2}),
         ("tanto-cuore-beach-volleyball.vbr", {}), ("volleyball-high.vbr", {}), ("volleyball-high.vbr", {"mode": "solo"})]
BOOK_IDS = [f"{b}-{o}" for b, o in BOOKS]
DRAWS = ("roll", "shuffle", "pick")


def vbr(*argv):
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, argv)], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def typed_events(book: str, options: dict, engine: str, seed: int, agents: list[str] | None = None) -> list[dict]:
    game = load(ROOT / "rules" / book, options, engine=engine)
    events: list = []
    play_typed_game(game, seed, agents or ["random"] * game.program.seats, log=events)
    return events


@pytest.mark.parametrize("book, options", BOOKS, ids=BOOK_IDS)
def test_the_python_and_the_c_engine_write_the_same_log_but_for_the_engines_name(book, options, tmp_path):
    """Every book shuffles its decks in setup and picks who serves first, so the log holds draws
    beside the phases, choices, says and the end."""
    written = {}
    for engine in ("python", "c"):
        game = load(ROOT / "rules" / book, options, engine=engine)
        events = typed_events(book, options, engine, seed=11)
        write_log(tmp_path / engine, header(game, 11, ["random"] * game.seats, engine), events)
        written[engine] = (tmp_path / engine).read_bytes().split(b"\n")
        assert {e["t"] for e in events} >= {"phase", "choice", "say", "end"}
        assert any(e["t"] in DRAWS for e in events)
    assert written["python"][1:] == written["c"][1:] and len(written["c"]) > 10
    heads = [json.loads(written[e][0]) for e in ("python", "c")]
    assert [h.pop("engine") for h in heads] == ["python", "c"]
    assert heads[0] == heads[1] and heads[0]["generator"] == R.NAME and heads[0]["format"] == TYPED_LOG_FORMAT


def test_searching_agents_give_the_same_events_in_both_engines():
    agents = ["greedy", "mcts:iterations=20"]
    logs = [typed_events("siatka.vbr", {}, e, seed=2, agents=agents) for e in ("python", "c")]
    assert [dumps(e) for e in logs[0]] == [dumps(e) for e in logs[1]]


def test_a_logged_game_is_the_game_played_without_a_log():
    game = load(ROOT / "rules" / "tanto-cuore-beach-volleyball.vbr", {}, engine="c")
    for seed in range(3):
        events: list = []
        logged, plain = play_typed_game(game, seed, ["random", "random"], log=events), play_typed_game(game, seed, ["random", "random"])
        assert (logged.winner, logged.points, logged.choices) == (plain.winner, plain.points, plain.choices)
        assert sum(e["t"] == "choice" for e in events) == plain.choices


def first_options_log(game, seed: int, choices: int, log: list) -> list:
    """The log of `game` seeded with `seed`, option 0 taken at each of its first `choices` choices."""
    state = game.new_state(seed, log=log)
    for _ in range(choices):
        state.apply_index(0)
    return state.log


def test_logged_games_of_one_c_engine_played_in_turn_each_hear_their_own_events():
    # the C engine hands every logged call's events to the log of the state it runs, whichever
    # state of the same game ran before (its hook is made once and given each call's log)
    python, c = (load(ROOT / "rules" / "siatka.vbr", {}, engine=e) for e in ("python", "c"))
    a, b = c.new_state(1, log=[]), c.new_state(2, log=[])
    for _ in range(6):
        a.apply_index(0)
        b.apply_index(0)
    assert a.log == first_options_log(python, 1, 6, []) and b.log == first_options_log(python, 2, 6, [])
    assert a.log != b.log


class RefusesPicks(list):
    """A log that takes every event but a pick (which C hands over), where it raises."""

    def append(self, event) -> None:
        if event["t"] == "pick":
            raise RuntimeError("no picks")
        super().append(event)


def test_a_log_that_fails_in_a_c_call_raises_once_c_returns_and_the_next_logged_game_hears_its_events():
    python, c = (load(ROOT / "rules" / "siatka.vbr", {}, engine=e) for e in ("python", "c"))
    with pytest.raises(RuntimeError, match="no picks"):
        first_options_log(c, 1, 6, RefusesPicks())
    assert first_options_log(c, 1, 6, []) == first_options_log(python, 1, 6, [])


@pytest.mark.parametrize("engine", ["python", "c"])
def test_siatkas_log_keeps_the_score_as_the_book_counts_it(engine):
    """[Attack] a point moves the scorer's marker one space; [End of the Game] the game ends at
    the moment one player scores their 9th point; [Playing the Ball] a ball sent out scores for
    the opponent."""
    for seed in range(4):
        events = typed_events("siatka.vbr", {}, engine, seed)
        score, out_by = [0, 0], None
        for e in events:
            said = e.get("text", "") if e["t"] == "say" else ""
            m = re.fullmatch(r"point to seat (\d): (\d+)-(\d+)", said)
            if m:
                s = int(m[1])
                score[s] += 1
                assert [int(m[2]), int(m[3])] == score
                assert out_by is None or s == 1 - out_by
                out_by = None
            m = re.fullmatch(r"seat (\d) sends the ball out", said)
            if m:
                out_by = int(m[1])
        end = events[-1]
        assert end["t"] == "end" and end["points"] == score and score[end["winner"]] == 9 and min(score) < 9


def test_vbr_run_prints_the_same_game_through_either_typed_engine():
    outs = [vbr("run", "siatka", "--seed", 6, "--engine", e) for e in ("python", "c")]
    assert all(o.returncode == 0 for o in outs), outs[1].stderr
    first, *rest = outs[1].stdout.splitlines()
    assert first == "Siatka: seed 6, agents random | random, engine c"
    assert outs[0].stdout.splitlines()[1:] == rest
    # [Setup 4] each player shuffles their tactic cards; the first server is drawn at random
    assert rest[:3] == ["  shuffle deck[0]", "  shuffle deck[1]", rest[2]]
    assert re.fullmatch(r"  drawn at random: [01]", rest[2]) and rest[3] == "[placement]"
    assert rest[-2].startswith("game over: seat ") and rest[-1].startswith("result: seat ")
    rolls = [x for x in rest if x.startswith("  roll ")]
    assert rolls and all(re.fullmatch(r"  roll (green: [1-6]|movement: (diagonal|straight|sideways))", x) for x in rolls)


def test_a_typed_log_replays_through_its_engine_and_through_the_other(tmp_path):
    log = tmp_path / "c.jsonl"
    done = vbr("run", "volleyball-high", "--seed", 3, "--engine", "c", "--agents", "greedy,random", "--log", log, "--quiet")
    assert done.returncode == 0, done.stderr
    for extra in ([], ["--engine", "python"]):
        again = vbr("replay", log, *extra)
        assert again.returncode == 0 and "reproduces exactly" in again.stdout, again.stderr


def test_a_changed_event_in_a_typed_log_is_reported_at_its_line(tmp_path):
    log = tmp_path / "p.jsonl"
    assert vbr("run", "siatka", "--engine", "python", "--log", log, "--quiet").returncode == 0
    lines = log.read_text().split("\n")
    k = next(i for i, x in enumerate(lines) if '"t":"say"' in x)
    lines[k] = lines[k].replace("seat", "side", 1)
    log.write_text("\n".join(lines))
    r = replay(log)
    assert not r.ok and r.message.startswith(f"{log}:{k + 1}: error: differs on replay")


def test_a_log_of_another_version_of_the_generator_is_refused(tmp_path):
    log = tmp_path / "c.jsonl"
    assert vbr("run", "siatka", "--engine", "python", "--log", log, "--quiet").returncode == 0
    lines = log.read_text().split("\n")
    lines[0] = lines[0].replace(R.NAME, "splitmix64-streams/0")
    log.write_text("\n".join(lines))
    r = replay(log)
    assert not r.ok and "recorded with splitmix64-streams/0; --engine python draws from " + R.NAME in r.message
    assert "the vbr that wrote it" in r.message


def test_a_log_naming_no_generator_is_refused_saying_so(tmp_path):
    # it said "this log was recorded with none named"
    log = tmp_path / "c.jsonl"
    assert vbr("run", "siatka", "--engine", "python", "--log", log, "--quiet").returncode == 0
    lines = log.read_text().split("\n")
    lines[0] = json.dumps({k: v for k, v in json.loads(lines[0]).items() if k != "generator"})
    log.write_text("\n".join(lines))
    r = replay(log)
    assert not r.ok and r.message == (f"{log}:1: error: this log names no random generator (its header has no "
                                      "`generator`), so it cannot be known to be the game --engine python plays, "
                                      f"drawing from {R.NAME}: record the game again")


def test_a_typed_log_of_the_format_before_draws_were_logged_is_refused_as_older_not_as_differing(tmp_path):
    """A typed engine's log of format 1, as vbr wrote it before the typed engines logged draws:
    no `format` in its header and no roll, pick or shuffle lines."""
    log = tmp_path / "old.jsonl"
    assert vbr("run", "siatka", "--seed", 3, "--engine", "c", "--log", log, "--quiet").returncode == 0
    head, *events = [json.loads(x) for x in log.read_text().splitlines()]
    assert head.pop("format") == 2 and any(e["t"] in DRAWS for e in events)
    write_log(log, head, [e for e in events if e["t"] not in DRAWS])
    for engine in ([], ["--engine", "python"]):
        done = vbr("replay", log, *engine)
        assert done.returncode == 1 and "differs" not in done.stderr
        assert done.stderr.strip() == (
            f"{log}:1: error: this log was recorded by an older log format (format 1: no roll, pick or shuffle "
            "events); this vbr's typed engines write and replay format 2 (its roll, pick and shuffle events), so "
            "the two cannot be compared: record the game again")


def test_a_typed_log_of_a_newer_format_is_refused_naming_both_formats(tmp_path):
    log = tmp_path / "new.jsonl"
    assert vbr("run", "siatka", "--engine", "python", "--log", log, "--quiet").returncode == 0
    log.write_text(log.read_text().replace(f'"format":{TYPED_LOG_FORMAT}', f'"format":{TYPED_LOG_FORMAT + 1}', 1))
    r = replay(log)
    assert not r.ok and r.message.startswith(f"{log}:1: error: this log was recorded by a newer log format "
                                             f"(format {TYPED_LOG_FORMAT + 1}); this vbr's typed engines write and "
                                             f"replay format {TYPED_LOG_FORMAT}")
    assert r.message.endswith("replay it with the vbr that wrote it")


def test_a_log_of_an_engine_this_vbr_does_not_have_is_refused_naming_it_and_replays_through_one_it_has(tmp_path):
    # a newer vbr's engine: it was "not a vbr log line (engine: String should match pattern ...)"
    log = tmp_path / "c.jsonl"
    assert vbr("run", "siatka", "--engine", "python", "--log", log, "--quiet").returncode == 0
    log.write_text(log.read_text().replace('"engine":"python"', '"engine":"fortran"', 1))
    r = replay(log)
    assert not r.ok and r.message == (f"{log}:1: error: this log was recorded by the fortran engine, which this vbr "
                                      "does not have (it has python and c): replay it with --engine python or c, or "
                                      "with the vbr that wrote it")
    assert replay(log, "python").ok  # the same generator: the same game


def test_replay_with_an_engine_there_is_not_is_a_usage_error(tmp_path):
    done = vbr("replay", tmp_path / "x.jsonl", "--engine", "fortran")
    assert done.returncode == 2 and "argument --engine: no engine 'fortran' (engines: python, c)" in done.stderr


def test_a_run_time_error_shows_the_typed_game_up_to_it(tmp_path):
    f = tmp_path / "fails.vbr"
    f.write_text('game "Fails"\nseats 2\nstart one\nvar n: int = 0\n'
                 'phase one {\n  choose k from [1, 2] by 0 as "how many"\n  say "took {k}"\n  n = 10 / (k - k)\n  end draw\n}\n')
    for engine in ("python", "c"):
        done = vbr("run", f, "--engine", engine)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert done.stdout.splitlines()[1:] == ["[one]", f"  seat 0: how many -> {done.stdout.split('-> ')[1][0]}",
                                                f"  took {done.stdout.split('-> ')[1][0]}"]
        assert f"{f}:8:" in done.stderr
