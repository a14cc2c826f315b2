"""Where the time of one `vbr.play.play_game` call of a random C game goes, layer by layer: CPU µs a
game of the whole call, of the one-call plan's `play` (the result object, no argument checks), of
the C engine's whole-game function (`CEngine.whole_games`: the ctypes call into the thread's own state,
the packed words copied out), and of the generated C alone (the program's C source compiled by
the system compiler with the engine's flags into a test program that plays the games in a loop of
its own, no Python in between). The Python layers take turns in blocks in one process; the test
program runs after them.

    python benchmarks/play_game_cost.py [--book rules/siatka.vbr] [--blocks 4] [--games 20000]
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vbr.engines import c_engine  # noqa: E402
from vbr.engines.game import load  # noqa: E402
from vbr.play import _one_call, play_game  # noqa: E402

DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* vbr_play_game's io (c_source.py): [seed, flags at (0: none), reads at, reads, result at,
   track at, track rows], then the result and the track */
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    static W io[7 + 64 + 4096 * 8];
    W *S = calloc(vbr_words(), sizeof(W));
    long choices = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (long g = 0; g < n; g++) {
        io[0] = (W)(0x9E3779B97F4A7C15ULL * (U)(g + 1));
        io[1] = 0; io[2] = 7; io[3] = 0; io[4] = 7; io[5] = 7 + 64; io[6] = 4096;
        vbr_play_game(S, io);
        choices += io[7 + 3];
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    printf("%.4f %.2f\n", seconds / n * 1e6, (double)choices / n);
    return 0;
}
"""


def c_alone(game, games: int) -> tuple[float, float]:
    """(µs a game of the C alone, the zeroing of its state included; mean choices a game): the
    program's C compiled with the engine's flags (not as a shared library) into a test program."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("play_game_cost.py: no C compiler (cc or gcc) on PATH")
    flags = [f for f in c_engine.compiler_flags(c_engine.compiler_version(cc)) if f not in ("-shared", "-fPIC")]
    with tempfile.TemporaryDirectory() as folder:
        src, exe = Path(folder) / "game.c", Path(folder) / "game"
        src.write_text(game.engine.source + DRIVER, encoding="utf-8")
        subprocess.run([cc, *flags, "-o", str(exe), str(src), *c_engine.LINK_FLAGS], check=True)
        micro, choices = map(float, subprocess.run([str(exe), str(games)], check=True, capture_output=True,
                                                   text=True).stdout.split())
    return micro, choices


def layers(game) -> dict:
    agents = ["random"] * game.seats
    plan = _one_call(game, agents)
    if plan is None:
        sys.exit("play_game_cost.py: this game's engine plays no whole game in one call")
    engine_play, plan_play = plan.engine_play, plan.play

    def whole_call(seeds):
        for s in seeds:
            play_game(game, s, agents)

    def plan_call(seeds):
        for s in seeds:
            plan_play(game, s)

    def engine_call(seeds):
        for s in seeds:
            engine_play(s)
    return {"vbr.play.play_game": whole_call, "the one-call plan's play": plan_call,
            "the engine's whole-game function": engine_call}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--book", default=str(ROOT / "rules" / "siatka.vbr"))
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--games", type=int, default=20_000, help="games a block")
    args = ap.parse_args()
    game = load(args.book, {}, engine="c")
    timed = layers(game)
    spent = dict.fromkeys(timed, 0.0)
    seed = 0
    for _ in range(args.blocks):
        for name, run in timed.items():
            seeds = range(seed, seed + args.games)
            start = time.process_time()
            run(seeds)
            spent[name] += time.process_time() - start
        seed += args.games
    total = args.blocks * args.games
    for name, seconds in spent.items():
        print(f"{name:36s} {seconds / total * 1e6:6.2f} µs a game")
    micro, choices = c_alone(game, total)
    print(f"{'the generated C alone (test program)':36s} {micro:6.2f} µs a game ({choices:.1f} choices)")


if __name__ == "__main__":
    main()
