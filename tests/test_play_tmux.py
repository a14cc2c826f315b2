"""`vbr play` as a person plays it: in an 80×24 tmux pane, keys sent with `send-keys`, screens read
with `capture-pane`. Each wait polls the pane until what is awaited shows (a generous timeout,
never a fixed sleep). tmux is required: without it these tests fail, saying how to install it.

The command is `python -m vbr play` (the CLI's own `play`): a broken `vbr play` fails these tests."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

import vbr
from vbr.gamelog import replay

from conftest import ROOT

PROMPT = "your choice ("
SEED = 7
WAIT = 120  # seconds: the machine may be busy


def entry() -> list[str]:
    return [sys.executable, "-m", "vbr", "play"]


class Pane:
    """One tmux server of our own (its own socket, in a folder of its own), one 80×24 session in it."""

    def __init__(self, tmp_path):
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed; these tests play vbr in it: apt-get install -y tmux", pytrace=False)
        self.dir = tempfile.mkdtemp(prefix="vbr-tmux-")  # short: a socket's path has a length limit
        self.socket = os.path.join(self.dir, "sock")
        self.conf = tmp_path / "tmux.conf"
        self.conf.write_text("set -g history-limit 100000\n", encoding="utf-8")

    def tmux(self, *args) -> str:
        r = subprocess.run(["tmux", "-S", self.socket, "-f", str(self.conf), *args], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, f"tmux {' '.join(args)}: {r.stderr}"
        return r.stdout

    def start(self, argv: list[str], env: str = "env -u NO_COLOR") -> None:
        command = f"cd {shlex.quote(str(ROOT))} && {env} {shlex.join(argv)}; echo \"[exit $?]\"; exec sleep 600"
        self.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "play", command)

    def screen(self) -> str:
        """What the 80×24 pane shows now (lines wrapped by the pane joined back, -J)."""
        return self.tmux("capture-pane", "-p", "-J", "-t", "play")

    def history(self, escapes: bool = False) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "play", *(["-e"] if escapes else []))

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "play", *keys)

    def answer(self, text: str) -> None:
        if text:
            self.send("-l", text)
        self.send("Enter")

    def wait(self, what: str, ok) -> str:
        """Poll the whole history until `ok(history)`; fail showing the screen when it never comes."""
        deadline = time.monotonic() + WAIT
        while True:
            text = self.history()
            if ok(text):
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"waited {WAIT} s for {what}; the pane shows:\n{self.screen()}", pytrace=False)
            time.sleep(0.05)

    def wait_prompt(self, count: int) -> str:
        """Until the `count`-th question is asked, or the command has ended."""
        return self.wait(f"question {count}", lambda t: t.count(PROMPT) >= count and t.rstrip().endswith("leave):")
                         or "[exit " in t)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def pane(tmp_path):
    p = Pane(tmp_path)
    yield p
    p.close()


def zone_ids(state, zone: str) -> list[str]:
    """The ids (`#N`) of what lies in `zone` (a zone's slot name, `hand[1]`) of a typed state, hidden or not."""
    from vbr.engines.observation import full_view
    return [thing.split()[0] for thing in full_view(state.game, state.words)["zones"][zone]]


def shows(text: str, ident: str) -> bool:
    return re.search(rf"{re.escape(ident)}\b", text) is not None


def replays(log) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vbr", "replay", str(log)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_a_whole_seeded_game_of_siatka_played_in_tmux(pane, tmp_path):
    log = tmp_path / "game.jsonl"
    pane.start(entry() + ["siatka", "--seed", str(SEED), "--engine", "python", "--log", str(log)])  # its deal, read below
    pane.wait_prompt(1)
    first = pane.screen()
    lines = first.rstrip("\n").split("\n")
    assert len(lines) <= 24 and max(len(x) for x in lines) <= 80
    assert "== Siatka | Place the tiles | you: seat 0 | score 0-0 =" in first
    assert "> which tile stands on the next field" in first
    assert "  free on your side: field 1, field 2, field 3, field 4, field 5, field 6" in first
    assert "  1) #0 Tile(defence=2, ability=A)" in first and "  6) #5 Tile(defence=5, ability=B)" in first
    assert "field=0" not in first and "bench[0] (yours): Tile(defence/ability) #0 2/A," in first
    assert lines[-1].startswith("your choice (1-6, ? choices, q leave):")
    start = vbr.load("siatka", engine="python").new_state(SEED)
    for ident in zone_ids(start, "hand[1]") + zone_ids(start, "deck[1]") + zone_ids(start, "deck[0]"):
        assert not shows(first, ident), f"the screen shows {ident}, a hidden card:\n{first}"
    for ident in zone_ids(start, "hand[0]"):
        assert shows(first, ident)
    assert "hand[1] 3" in first

    # bad entries: asked again, with a hint; ? shows the choices again
    pane.answer("abc")
    assert "'abc' is not a number: type 1 to 6" in pane.wait_prompt(2)
    pane.answer("")
    assert "type a number from 1 to 6 and Enter" in pane.wait_prompt(3)
    pane.answer("99")
    assert "99 is not a choice: type 1 to 6" in pane.wait_prompt(4)
    pane.answer("?")
    text = pane.wait_prompt(5)
    assert text.count("> which tile stands on the next field") == 2 and text.count("  6) #5 Tile(") == 2

    # the rest of the game: always the first choice
    asked = 5
    decisions = 0
    while True:
        pane.answer("1")
        asked += 1
        text = pane.wait_prompt(asked)
        if "[exit " in text:
            break
        decisions += 1
        screen = pane.screen()
        rows = screen.rstrip("\n").split("\n")
        n = int(re.search(r"your choice \(1-(\d+),", rows[-1]).group(1))
        # one decision fits the screen: the board's top line, the question and every choice
        assert any(r.startswith("== Siatka |") for r in rows), screen
        assert any(r.startswith("> ") for r in rows) and f"  {n}) " in screen, screen
        assert max(len(r) for r in rows) <= 80, screen
        assert decisions < 400, "the game does not end"
    assert decisions > 5
    assert re.search(r"^result: seat [01] wins \(\d+, \d+\) after \d+ choices: you (won|lost)$", text, re.M), text
    assert f"log written to {log}" in text and "[exit 0]" in text
    long = [x for x in text.split("\n") if len(x) > 80 and str(log) not in x]  # a path is as long as it is
    assert not long, long
    assert "\x1b[" in pane.history(escapes=True)  # a terminal, no NO_COLOR: colour

    # the final screen hides the other hand as the first did
    r = replay(log)
    assert r.ok, r.message
    end = vbr.load("siatka", engine="python").new_state(SEED)
    for line in log.read_text().splitlines()[1:]:
        e = json.loads(line)
        if e["t"] == "choice":
            end.apply(f"{e['seat']} {e['action']}")
    assert end.is_terminal()
    board = text[text.rindex("== Siatka |"):]
    for ident in zone_ids(end, "hand[1]"):
        assert not shows(board, ident), f"the last screen shows {ident} of the other hand"
    assert f"hand[1] {len(zone_ids(end, 'hand[1]'))}" in board

    done = replays(log)
    assert done.returncode == 0 and "reproduces exactly" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("keys", [["-l", "q"], ["C-d"]], ids=["q", "ctrl-d"])
def test_leaving_mid_game_ends_cleanly_with_a_log_that_replays(pane, tmp_path, keys):
    log = tmp_path / "left.jsonl"
    pane.start(entry() + ["siatka", "--seed", str(SEED), "--log", str(log)], env="NO_COLOR=1")
    pane.wait_prompt(1)
    pane.answer("2")
    pane.wait_prompt(2)
    pane.send(*keys)
    if keys[0] != "C-d":
        pane.send("Enter")
    text = pane.wait("the command to end", lambda t: "[exit " in t)
    assert "You left the game after 1 choice." in text and f"log written to {log}" in text
    assert "[exit 0]" in text
    assert "\x1b[" not in pane.history(escapes=True)  # NO_COLOR: no colour, even on a terminal
    done = replays(log)
    assert done.returncode == 0 and "reproduces exactly" in done.stdout, done.stdout + done.stderr


def test_a_seat_that_does_not_exist_is_a_usage_error(pane):
    pane.start(entry() + ["siatka", "--seat", "5"])
    text = pane.wait("the command to end", lambda t: "[exit " in t)
    assert "vbr: error: --seat 5: no such seat; Siatka has seats 0 and 1" in text and "[exit 2]" in text


def test_a_whole_game_of_siatka_through_the_c_engine_played_in_tmux(pane, tmp_path):
    from vbr.engines.game import load as load_typed
    log = tmp_path / "game.jsonl"
    pane.start(entry() + ["siatka", "--seed", str(SEED), "--engine", "c", "--log", str(log)], env="NO_COLOR=1")
    first = pane.wait_prompt(1)
    assert f"Siatka: seed {SEED}; you play seat 0, against seat 1 random, engine c" in first
    assert "> which tile stands on the next field" in first
    start = load_typed(ROOT / "rules" / "siatka.vbr", {}, engine="c").new_state(SEED)
    for ident in zone_ids(start, "hand[1]") + zone_ids(start, "deck[0]") + zone_ids(start, "deck[1]"):
        assert not shows(pane.screen(), ident), f"the screen shows {ident}, a hidden card"
    for ident in zone_ids(start, "hand[0]"):
        assert shows(pane.screen(), ident)
    asked = 1
    while True:
        pane.answer("1")
        asked += 1
        text = pane.wait_prompt(asked)
        if "[exit " in text:
            break
        assert asked < 400, "the game does not end"
    assert re.search(r"^result: seat [01] wins \(\d+, \d+\) after \d+ choices: you (won|lost)$", text, re.M), text
    assert f"log written to {log}" in text and "[exit 0]" in text
    assert json.loads(log.read_text().split("\n")[0])["engine"] == "c"
    done = replays(log)
    assert done.returncode == 0 and "reproduces exactly" in done.stdout, done.stdout + done.stderr


def test_hot_seat_clears_one_persons_screen_and_scrollback_before_the_next_sees_the_terminal(pane, tmp_path):
    # `--agents human`: two people at one terminal. When seat 1 is asked to take the terminal, no
    # card of seat 0's hand may be on the screen or in the scrollback (tmux's history holds all
    # that was printed unless it was cleared); once seat 1 presses Enter, its own hand is shown.
    log = tmp_path / "hot.jsonl"
    pane.start(entry() + ["siatka", "--seed", str(SEED), "--engine", "python", "--agents", "human",
                          "--log", str(log)], env="NO_COLOR=1")
    handed = "seat 0, press Enter to see your screen (q leaves):"
    pane.wait("seat 0's hand-over", lambda t: t.rstrip().endswith(handed))
    start = vbr.load("siatka", engine="python").new_state(SEED)
    mine, theirs = zone_ids(start, "hand[0]"), zone_ids(start, "hand[1]")
    pane.answer("")
    text = pane.wait_prompt(1)
    assert "| you: seat 0 |" in text and all(shows(text, i) for i in mine)
    asked = 1
    while "seat 1, press Enter" not in pane.screen():  # seat 0 places its tiles
        pane.answer("1")
        asked += 1
        pane.wait(f"question {asked} or the hand-over", lambda t: t.count(PROMPT) >= asked and t.rstrip().endswith("leave):")
                  or "seat 1, press Enter" in t)
        assert asked < 10, pane.screen()
    before = pane.history()
    assert "seat 1 to play: hand the terminal to seat 1." in before
    for ident in mine + theirs:
        assert not shows(before, ident), f"{ident} is on the screen or in the scrollback at the hand-over:\n{before}"
    assert "hand[0] (yours)" not in before and "you: seat 0" not in before
    pane.answer("")
    after = pane.wait("seat 1's screen", lambda t: t.rstrip().endswith("leave):"))
    assert "| you: seat 1 |" in after and "hand[1] (yours)" in after
    assert all(shows(after, i) for i in theirs) and not any(shows(after, i) for i in mine)
    assert re.search(r"hidden \(how many\):.* hand\[0\] 3", after)
    pane.answer("q")
    text = pane.wait("the command to end", lambda t: "[exit " in t)
    assert "[exit 0]" in text
    done = replays(log)
    assert done.returncode == 0 and "reproduces exactly" in done.stdout, done.stdout + done.stderr


def test_keys_typed_before_a_question_shows_do_not_answer_it(pane):
    # Keys pressed while the game starts (or while an agent thinks) are not an answer to a question
    # nobody has seen yet: the first question still waits, and `?` shows it again.
    pane.start(entry() + ["siatka", "--seed", str(SEED)], env="NO_COLOR=1")
    pane.answer("3")  # sent at once: the game is still loading
    pane.wait_prompt(1)
    pane.answer("?")
    text = pane.wait("the choices again", lambda t: "keys: a number and Enter chooses" in t)
    assert "you (seat 0): which tile stands on the next field" not in text, text
    assert text.count("> which tile stands on the next field") == 2 and "  6) #5 Tile(" in text


def test_a_searching_agent_says_it_is_thinking_and_ctrl_c_then_leaves_with_a_log_that_replays(pane, tmp_path):
    # mcts with a million playouts and no budget thinks for minutes: the screen says so on one line
    # (a person would take the silence for a hang; a long agent spec is cut, as the whole line is
    # erased after), keys typed meanwhile are not echoed into it, and Ctrl-C leaves at once with
    # the log so far.
    log = tmp_path / "think.jsonl"
    spec = "mcts:iterations=1000000,budget=0,c=0.5,depth=10,inner_c=0.2,spread_playouts=4"
    pane.start(entry() + ["siatka", "--seed", str(SEED), "--agents", spec, "--log", str(log)], env="NO_COLOR=1")
    asked = 1
    thinking = re.compile(r"^seat 1 \(mcts:budget=0,c=0.5,depth=10,inner_c=0.2,.*~$", re.M)
    pane.wait_prompt(1)
    while not thinking.search(pane.screen()):  # seat 0 places its tiles, then seat 1 thinks over its own
        pane.answer("1")
        asked += 1
        pane.wait(f"question {asked} or the agent thinking",
                  lambda t: t.count(PROMPT) >= asked and t.rstrip().endswith("leave):") or thinking.search(t))
        assert asked < 10, pane.screen()
    assert len(thinking.search(pane.screen()).group(0)) < 80
    pane.answer("2")
    pane.send("C-c")
    text = pane.wait("the command to end", lambda t: "[exit " in t)
    assert "[exit 130]" in text and f"vbr: interrupted; the game was left, log written to {log}" in text
    assert "2" not in [line.strip() for line in pane.screen().split("\n")]  # not echoed
    assert "seat 1 (mcts:" not in pane.screen()  # erased
    done = replays(log)
    assert done.returncode == 0 and "reproduces exactly" in done.stdout, done.stdout + done.stderr


def test_closing_the_terminal_mid_game_still_writes_the_log_so_far(pane, tmp_path):
    # Closing the window hangs the terminal up (SIGHUP, more than once: the shell passes it on
    # too). It ended the process at once and the log with it; the log is written as on `q`.
    log = tmp_path / "closed.jsonl"
    pane.start(entry() + ["siatka", "--seed", str(SEED), "--log", str(log)], env="NO_COLOR=1")
    pane.wait_prompt(1)
    pane.answer("1")
    pane.wait_prompt(2)
    pane.tmux("kill-session", "-t", "play")
    deadline = time.monotonic() + WAIT
    while not log.exists():
        assert time.monotonic() < deadline, f"no log at {log} {WAIT} s after the terminal closed"
        time.sleep(0.05)
    r = replay(log)
    assert r.ok, r.message
    mine = [json.loads(x) for x in log.read_text().splitlines()[1:]]
    assert [e["seat"] for e in mine if e["t"] == "choice"][:1] == [0]  # the answer given is in it
