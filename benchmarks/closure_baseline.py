"""Yardsticks played in processes of their own, taking turns: the closure engine (the older
engine, retired from vbr/ by issue 35) out of a commit that still has it, the typed engines of
this checkout, and Siatka written by hand.

The closure engine is gone from this checkout, so its figures come from `vbr/` and `rules/` of
CLOSURE_COMMIT (dd4e08f, main as the session that retired it began; `--commit` for another),
taken out of git into a temporary folder (`git archive`: nothing in the checkout changes) and
imported there by a player process whose `sys.path` starts with that folder. Every player, of
either tree, is a process of this script (`--player TREE BOOK HOW`): it loads the book (not
timed), plays a few games to warm, then answers `play A B` (seeds A..B-1) with the thread CPU
seconds and the choices made, one JSON line each. `take_turns` has the players play blocks of
games in turn on the same seeds, so that a shared machine's busy stretches meet all of them
alike (separate runs of one process against another gave ratios from 0.95 to 2.1 in a busy
hour); the ratio of two players is the median of the rounds' ratios.

HOW is one of PLAYS: `closure` (`vbr.play.play_game`, as `vbr sim` played with the closure
engine), `closure-loop` (its own random-play loop, `State.play_random`), `closure-splitmix` (as
`closure`, each of its generators replaced by a SplitMix64 stream in Python, `SplitMix`: what the
typed engines' generator costs the closure engine), `python` and `c`
(`vbr.play.play_typed_game`, as `vbr sim --engine python|c` plays), `python-loop` (the typed
Python engine's `State.play_random`), `handwritten` (benchmarks/handwritten_siatka.py, Siatka
only). The engines draw from different generators, so they play other games of the same rules:
compare the choices a game beside each figure.

`closure_results` plays random games in the closure engine of a commit and hands back each
game's winner, points and choices (what the hand-written Siatkas are checked against: they draw
the closure engine's numbers in the same order, so they play its games).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

CLOSURE_COMMIT = "dd4e08f"  # a commit of main with vbr/interpreter/, the closure engine
PLAYS = ("closure", "closure-loop", "closure-splitmix", "python", "python-loop", "c", "handwritten")
WARM = 5  # games a player plays before its timing starts (seeds far from the timed ones)
BLOCK = 20  # games a player plays before the next takes its turn
_RUNNER = "--player"  # the argument that makes this script a player process
_RESULTS = "--results"  # the argument that makes this script play games for their results
HERE = os.path.dirname(os.path.abspath(__file__))


def repo_root() -> str:
    return os.path.dirname(HERE)


def extract(root: str, commit: str, into: str) -> str | None:
    """`vbr/` and `rules/` of `commit` written under `into`; None, or why not."""
    try:
        out = subprocess.run(["git", "archive", "--format=tar", commit, "vbr", "rules"], cwd=root,
                             capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return f"git archive failed: {e}"
    if out.returncode != 0:
        return f"git archive {commit}: {out.stderr.decode(errors='replace').strip()}"
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(into, filter="data")
    return None


@contextlib.contextmanager
def tree_at(commit: str, root: str | None = None):
    """A temporary folder holding `vbr/` and `rules/` of `commit`, for the `with` block; raises
    RuntimeError saying why when git cannot give them."""
    with tempfile.TemporaryDirectory(prefix=f"vbr-{commit}-") as folder:
        why = extract(root or repo_root(), commit, folder)
        if why is not None:
            raise RuntimeError(why)
        yield folder


def _play(tree: str, book: str, how: str):
    """play(seed) -> choices, for `book` played as HOW by the vbr imported from `tree`."""
    sys.path.insert(0, tree)
    sys.path.insert(1, HERE)
    import vbr
    here = os.path.realpath(os.path.dirname(vbr.__file__))
    if here != os.path.realpath(os.path.join(tree, "vbr")):
        raise RuntimeError(f"imported vbr from {here}, not from {tree}")
    path = os.path.join(tree, "rules", f"{book}.vbr")
    if how == "handwritten":
        import handwritten_siatka
        if book != "siatka":
            raise RuntimeError("the hand-written game is Siatka's")
        return lambda seed: handwritten_siatka.play_game(seed)[2]
    if how == "closure-splitmix":
        from vbr.interpreter import rng
        rng.generator, rng.copy = SplitMix, lambda r: SplitMix(r.state)
    if how.startswith("closure"):
        import inspect
        game = vbr.load(path, engine="closure") if "engine" in inspect.signature(vbr.load).parameters else vbr.load(path)
        agents = ["random"] * game.seats
        if how in ("closure", "closure-splitmix"):
            from vbr.play import play_game
            return lambda seed: play_game(game, seed, agents).choices
        from vbr.interpreter.rng import derive, generator

        def loop(seed):
            state = game.new_state(seed)
            state.play_random([generator(derive(derive(seed, 7919, s), s + 1)).getrandbits for s in range(len(agents))])
            return state.choices
        return loop
    from vbr.engines.game import load
    from vbr.seeds import derive
    game = load(path, {}, engine="c" if how == "c" else "python")
    if how == "python-loop":
        def typed_loop(seed):
            state = game.new_state(seed)
            state.play_random(derive(seed, 1))
            return state.choices
        return typed_loop
    from vbr.play import play_typed_game
    agents = ["random"] * game.seats
    return lambda seed: play_typed_game(game, seed, agents).choices


class SplitMix:
    """A SplitMix64 stream with the methods of `random.Random` the closure engine calls: its
    numbers are those of vbr.ir.random_streams.next_word, worked out in Python as the typed
    Python engine works them out (python_runtime.draw_below)."""

    __slots__ = ("state",)

    def __init__(self, seed: int):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def getrandbits(self, k: int) -> int:
        s = self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
        return (z ^ (z >> 31)) >> (64 - k)

    def random(self) -> float:
        return self.getrandbits(53) / 9007199254740992

    def shuffle(self, xs: list) -> None:
        for i in range(len(xs) - 1, 0, -1):
            j = (self.getrandbits(64) * (i + 1)) >> 64
            xs[i], xs[j] = xs[j], xs[i]


def player(tree: str, book: str, how: str) -> None:
    """The child: load, warm, then answer `play A B` lines until its input ends."""
    try:
        play = _play(tree, book, how)
        for seed in range(10**6, 10**6 + WARM):
            play(seed)
    except Exception as e:  # reported to the parent, which shows it in place of the figure
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)
        return
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        _, a, b = line.split()
        choices = 0
        start = time.thread_time()
        for seed in range(int(a), int(b)):
            choices += play(seed)
        print(json.dumps({"seconds": time.thread_time() - start, "choices": choices}), flush=True)


def results(tree: str, book: str, options: dict, n: int) -> None:
    """The child of closure_results: print [winner, points, choices] of seeds 0..n-1, as JSON."""
    sys.path.insert(0, tree)
    import vbr
    from vbr.play import play_game
    game = vbr.load(os.path.join(tree, "rules", f"{book}.vbr"), options, engine="closure")
    agents = ["random"] * game.seats
    out = []
    for seed in range(n):
        r = play_game(game, seed, agents)
        out.append([r.winner, list(r.points), r.choices])
    print(json.dumps(out))


def closure_results(book: str, options: dict, n: int, commit: str = CLOSURE_COMMIT) -> list[tuple]:
    """(winner, points, choices) of random games of `book` under `options`, seeds 0..n-1, in the
    closure engine of `commit`, played in a process of its own."""
    with tree_at(commit) as old:
        done = subprocess.run([sys.executable, "-I", os.path.abspath(__file__), _RESULTS, old, book,
                               json.dumps(options), str(n)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError((done.stderr.strip().splitlines() or ["no output"])[-1])
    return [(w, tuple(p), c) for w, p, c in json.loads(done.stdout)]


class Player:
    """A player process: `how` (one of PLAYS) of `book` by the vbr in `tree`, and its answers."""

    def __init__(self, tree: str, book: str, how: str):
        cmd = [sys.executable, "-I", os.path.abspath(__file__), _RUNNER, tree, book, how]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        if hasattr(os, "sched_setaffinity"):  # every player on one CPU: the same caches and clock
            try:
                os.sched_setaffinity(self.proc.pid, {min(os.sched_getaffinity(0))})
            except OSError:
                pass
        self.error = self.answer().get("error")

    def answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=60)
            tail = (self.proc.stderr.read().strip().splitlines() or ["no output"])[-1]
            return {"error": f"exit {self.proc.returncode}: {tail}"}
        return json.loads(line)

    def play(self, a: int, b: int) -> dict:
        self.proc.stdin.write(f"play {a} {b}\n")
        self.proc.stdin.flush()
        return self.answer()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def take_turns(specs: dict[str, tuple[str, str, str]], games: int, rounds: int) -> dict:
    """Each name's player, (tree, book, how), plays `games` games a round, all in turns of BLOCK
    games on the same seeds. Per name: games/s and choices a game over all rounds, and each
    round's seconds (for ratios: `ratio`); or {"error": ...} for a player that could not play."""
    players: dict[str, Player] = {}
    try:
        for name, (tree, book, how) in specs.items():
            players[name] = Player(tree, book, how)
            if players[name].error:
                return {"error": f"{name}: {players[name].error}"}
        took = {name: [] for name in players}
        choices = dict.fromkeys(players, 0)
        for _ in range(rounds):
            spent = dict.fromkeys(players, 0.0)
            for a in range(0, games, BLOCK):
                for name, p in players.items():
                    r = p.play(a, min(a + BLOCK, games))
                    if "error" in r:
                        return {"error": f"{name}: {r['error']}"}
                    spent[name] += r["seconds"]
                    choices[name] += r["choices"]
            for name in players:
                took[name].append(spent[name])
    finally:
        for p in players.values():
            p.close()
    n = games * rounds
    return {name: {"games": n, "games_per_s": round(n / sum(took[name]), 1),
                   "choices_per_game": round(choices[name] / n, 2), "rounds_s": took[name]} for name in took}


def ratio(rows: dict, faster: str, slower: str) -> float:
    """The median over the rounds of `slower`'s seconds / `faster`'s: how many times as fast."""
    return statistics.median(s / f for f, s in zip(rows[faster]["rounds_s"], rows[slower]["rounds_s"]))


if __name__ == "__main__":
    if sys.argv[1:2] == [_RUNNER]:
        player(*sys.argv[2:5])
    elif sys.argv[1:2] == [_RESULTS]:
        results(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), int(sys.argv[5]))
    else:
        print(__doc__)
