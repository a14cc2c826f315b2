"""How fast the interpreter is, and how it compares with Siatka written by hand.

    python benchmarks/bench.py [--quick] [--json]      the timings (docs/performance.md)
    python benchmarks/bench.py --agreement [N]         evidence that both play the same game

Timings: (a) parse, check+compile time of every bundled rule file, the median of several runs;
(b) games/s with random agents for every bundled rule file (Siatka also with all three variants
on), single process, through the API: 1000 games of Siatka, as many of any other file as fit in
2 s (the best of 3 runs); (c) the hand-written Siatka's games/s on the same seeds; (d) the ratio
interpreter / hand-written, against the target of 1/3. The two Siatkas play game by game in
turn, so both meet the same machine; of 3 such runs the one with the median ratio is shown.

--agreement plays N games through the interpreter and 10 N hand-written ones for each set of
options, and compares per-game means (choices, each kind of choice and the options it offered,
wins, points) with a z score; |z| above 3 would mean the two are not the same game.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import handwritten_siatka as hand

import vbr
from vbr import VbrError
from vbr.agents import SeatView, make_agent
from vbr.interpreter import rng as R
from vbr.grammar.parser import parse
from vbr.interpreter.compiler import compile_rules
from vbr.loader import bundled_names, load_rules
from vbr.play import play_game

TARGET_RATIO = 1 / 3
ALL_VARIANTS = {name: True for name in hand.OPTIONS}
SIATKA_CONFIGS = [{}, {"abilities": True}, {"block_marker": True}, {"rotation": True}, ALL_VARIANTS]

# The rule file's prompts → the hand-written game's names for its choice points.
PROMPT_KINDS = [
    ("which tile stands", "placement"),
    ("Zagrywka", "zagrywka"),
    ("Rozegranie (R)", "R"),
    ("R: which direction", "R direction"),
    ("Rozegranie: roll again", "rozegranie"),
    ("Mocne odbicie", "mocne_odbicie"),
    ("which of the two bounces", "bounce"),
    ("Atak z zaskoczenia", "zaskoczenie"),
    ("Superatak", "superatak"),
    ("Block marker", "block marker"),
]


def options_text(options: dict) -> str:
    return ",".join(sorted(options)) or "default"


# ---------------------------------------------------------------------- (a) load times
def parser_build_time() -> float:
    """Seconds to build the Lark parser, paid once per process by the first parse."""
    start = time.perf_counter()
    try:
        parse('game "x"\n')
    except VbrError:
        pass  # the parser is built either way
    return time.perf_counter() - start


def load_times(names: list[str], runs: int) -> dict:
    out = {}
    for name in names:
        try:
            vbr.load(name)
        except VbrError as exc:  # one broken rule file does not stop the others' figures
            out[name] = {"error": str(exc).splitlines()[0]}
            continue
        parse_s, check_s = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            rules = load_rules(name)
            t1 = time.perf_counter()
            compile_rules(rules, {})
            t2 = time.perf_counter()
            parse_s.append(t1 - t0)
            check_s.append(t2 - t1)
        out[name] = {
            "parse_ms": round(statistics.median(parse_s) * 1000, 2),
            "check_compile_ms": round(statistics.median(check_s) * 1000, 2),
            "total_ms": round(statistics.median(p + c for p, c in zip(parse_s, check_s)) * 1000, 2),
        }
    return out


# ---------------------------------------------------------------------- (b, c, d) games/s
def timed(play, n: int) -> tuple[float, float]:
    """Seconds for n games (seeds 0..n-1), and the mean of what `play` returns (choices)."""
    total = 0
    start = time.perf_counter()
    for seed in range(n):
        total += play(seed)
    return time.perf_counter() - start, total / n


def games_in(play, budget: float) -> int:
    """How many games (seeds 0, 1, ...) fit in `budget` seconds; at least 20."""
    games = 0
    start = time.perf_counter()
    while games < 20 or time.perf_counter() - start < budget:
        play(games)
        games += 1
    return games


def paired(play_vbr, play_hand, n: int) -> tuple[float, float, float, float]:
    """Seconds for n games of each implementation, played in turn on the same seeds (vbr seed 0,
    hand seed 0, vbr seed 1, ...), and the mean choices of each. Both meet the same stretches of
    a shared machine, so their ratio holds even while other work comes and goes."""
    clock = time.perf_counter
    t_vbr = t_hand = 0.0
    c_vbr = c_hand = 0
    for seed in range(n):
        t0 = clock()
        c_vbr += play_vbr(seed)
        t1 = clock()
        c_hand += play_hand(seed)
        t2 = clock()
        t_vbr += t1 - t0
        t_hand += t2 - t1
    return t_vbr, t_hand, c_vbr / n, c_hand / n


def speed_rows(names: list[str], n: int, repeats: int, budget: float) -> list[dict]:
    """One row per rule file and set of options; `names` are the files that loaded.

    Siatka plays n games through the interpreter and n through the hand-written code, game by
    game in turn (`paired`), `repeats` times; the row shows the repeat with the median ratio.
    The other rule files play as many games as fit in `budget` seconds, the best of `repeats`."""
    rows = []
    for name in names:
        for options in (SIATKA_CONFIGS[0], ALL_VARIANTS) if name == "siatka" else ({},):
            game = vbr.load(name, options)
            agents = ["random"] * game.seats
            play = lambda seed: play_game(game, seed, agents).choices  # noqa: E731
            row = {"rules": name, "options": options_text(options), "handwritten_games_per_s": None,
                   "handwritten_choices_per_game": None, "ratio": None}
            if name == "siatka":
                hand_play = lambda seed: hand.play_game(seed, **options)[2]  # noqa: E731
                runs = sorted((paired(play, hand_play, n) for _ in range(repeats)), key=lambda r: r[1] / r[0])
                t_vbr, t_hand, choices, hand_choices = runs[len(runs) // 2]
                ratio = t_hand / t_vbr
                row.update(games=n, interpreter_games_per_s=round(n / t_vbr, 1),
                           interpreter_choices_per_game=round(choices, 2),
                           handwritten_games_per_s=round(n / t_hand, 1),
                           handwritten_choices_per_game=round(hand_choices, 2),
                           ratio=round(ratio, 3), ratios=[round(r[1] / r[0], 3) for r in runs],
                           meets_target=ratio >= TARGET_RATIO)
            else:
                games = games_in(play, budget)
                best = min(timed(play, games) for _ in range(repeats))
                row.update(games=games, interpreter_games_per_s=round(games / best[0], 1),
                           interpreter_choices_per_game=round(best[1], 2))
            rows.append(row)
    return rows


def source() -> dict:
    """Which vbr was measured: its directory, commit, and whether vbr/ or rules/ differ from it."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(vbr.__file__)))

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    commit = git("rev-parse", "--short", "HEAD")
    return {"path": root, "commit": commit or None,
            "modified": bool(git("status", "--porcelain", "--", "vbr", ":(glob)rules/*.vbr")) if commit else None}


def machine() -> dict:
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "processor": platform.processor() or platform.machine()}


def run_timings(quick: bool) -> dict:
    names = bundled_names()
    n, repeats, runs, budget = (100, 1, 3, 0.3) if quick else (1000, 3, 9, 2.0)
    build = parser_build_time()
    load = load_times(names, runs)
    return {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "vbr": source(),
        "quick": quick,
        "target_ratio": round(TARGET_RATIO, 3),
        "parser_build_ms": round(build * 1000, 1),
        "load": load,
        "speed": speed_rows([name for name in names if "error" not in load[name]], n, repeats, budget),
    }


def print_timings(res: dict) -> None:
    m = res["machine"]
    print(f"{res['date']}  {m['cpus']} CPUs, {m['implementation']} {m['python']}, {m['platform']}"
          + ("  (--quick)" if res["quick"] else ""))
    v = res["vbr"]
    print(f"vbr at {v['path']}, commit {v['commit']}" + (" with local changes" if v["modified"] else ""))
    print()
    print(f"building the parser (once per process): {res['parser_build_ms']:.1f} ms")
    w = max([len("rules")] + [len(name) for name in res["load"]])
    print(f"{'rules':{w}} {'parse ms':>9} {'check+compile ms':>17} {'total ms':>9}")
    for name, t in res["load"].items():
        if "error" in t:
            print(f"{name:{w}} cannot load: {t['error']}")
            continue
        print(f"{name:{w}} {t['parse_ms']:9.2f} {t['check_compile_ms']:17.2f} {t['total_ms']:9.2f}")
    print()
    print(f"{'rules':{w}} {'options':32} {'games':>6} {'vbr games/s':>12} {'choices':>8} "
          f"{'hand games/s':>13} {'choices':>8} {'ratio':>6}")
    for r in res["speed"]:
        hand_rate, hand_choices, ratio = "-", "-", "-"
        if r["ratio"] is not None:
            hand_rate = f"{r['handwritten_games_per_s']:.1f}"
            hand_choices = f"{r['handwritten_choices_per_game']:.2f}"
            ratio = f"{r['ratio']:.3f}"
        print(f"{r['rules']:{w}} {r['options']:32} {r['games']:6} {r['interpreter_games_per_s']:12.1f} "
              f"{r['interpreter_choices_per_game']:8.2f} {hand_rate:>13} {hand_choices:>8} {ratio:>6}")
    print(f"\ntarget: interpreter / hand-written >= {res['target_ratio']}")


# ---------------------------------------------------------------------- agreement
def interpreter_game_stats(game, seed: int) -> dict:
    """play_game's loop, counting every choice by kind and the options it offered."""
    state = game.new_state(seed)
    agents = [make_agent("random", seat, R.derive(seed, 7919, seat)) for seat in range(game.seats)]
    tally: dict = {}
    while state.result is None:
        p = state.pending
        kind = next((k for key, k in PROMPT_KINDS if key in p.prompt), p.prompt)
        made, offered = tally.get(kind, (0, 0))
        tally[kind] = (made + 1, offered + len(p.options))
        state.apply_index(agents[p.seat].act(SeatView(state, p.seat)))
    return game_stats(state.result.winner, state.result.points, state.choices, tally)


def handwritten_game_stats(seed: int, options: dict) -> dict:
    g = hand.Siatka(seed, **options)
    g.tally = {}
    winner = g.play()
    return game_stats(winner, g.score, g.choices, g.tally)


def game_stats(winner, points, choices, tally) -> dict:
    out = {"choices": choices, "seat 0 wins": int(winner == 0), "points 0": points[0], "points 1": points[1]}
    for kind, (made, offered) in tally.items():
        out[f"{kind}: choices"] = made
        out[f"{kind}: options"] = offered
    return out


def compare(a: list[dict], b: list[dict]) -> list[dict]:
    keys = list(dict.fromkeys([k for g in a for k in g] + [k for g in b for k in g]))
    rows = []
    for k in keys:
        xa = [g.get(k, 0) for g in a]
        xb = [g.get(k, 0) for g in b]
        ma, mb = statistics.fmean(xa), statistics.fmean(xb)
        se = math.sqrt(statistics.pvariance(xa) / len(xa) + statistics.pvariance(xb) / len(xb))
        z = (ma - mb) / se if se > 0 else (0.0 if ma == mb else math.inf)
        rows.append({"per game": k, "vbr": round(ma, 3), "hand": round(mb, 3), "z": round(z, 2)})
    return rows


def run_agreement(n: int) -> dict:
    out = []
    for options in SIATKA_CONFIGS:
        game = vbr.load("siatka", options)
        a = [interpreter_game_stats(game, seed) for seed in range(n)]
        b = [handwritten_game_stats(seed, options) for seed in range(10 * n)]
        rows = compare(a, b)
        out.append({"options": options_text(options), "vbr_games": n, "hand_games": 10 * n, "rows": rows,
                    "max_abs_z": max(abs(r["z"]) for r in rows)})
    return {"date": datetime.date.today().isoformat(), "agreement": out}


def print_agreement(res: dict) -> None:
    for block in res["agreement"]:
        print(f"\n{block['options']}: {block['vbr_games']} interpreter games, {block['hand_games']} hand-written games")
        print(f"  {'per game':32} {'vbr':>9} {'hand':>9} {'z':>7}")
        for r in block["rows"]:
            print(f"  {r['per game']:32} {r['vbr']:9.3f} {r['hand']:9.3f} {r['z']:7.2f}")
        print(f"  largest |z|: {block['max_abs_z']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small counts (well under 20 s)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--agreement", type=int, nargs="?", const=2000, metavar="N",
                    help="instead of timing, compare the two implementations over N interpreter games (default 2000)")
    args = ap.parse_args(argv)
    if args.agreement:
        res = run_agreement(args.agreement)
        show = print_agreement
    else:
        res = run_timings(args.quick)
        show = print_timings
    if args.json:
        print(json.dumps(res, sort_keys=True))
    else:
        show(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
