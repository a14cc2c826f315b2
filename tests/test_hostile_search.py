"""The search agent (mcts) on choices of thousands of options: its time grows with the options
and iterations, not with their product squared. A node's options are told apart by their keys,
found through a hash table (vbr/engines/c_search.c vbr_key_met); the C search compared each
option's key with every key before it, so a choice of 4,000 numbers cost 8 million comparisons
at every node of every iteration (a decision of a rule file with 3,000 cards took 35 s at
iterations=1, its budget of work running thousands of iterations). Both engines pick alike."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 60  # seconds: the search below takes a few; it took minutes

WIDE = ('game "Wide"\nseats 2\nstart one\nvar t: int = 0\nvar score: int per seat = 0\npoints score\n'
        'phase one {\n  choose n from 1..4000 by t % 2 as "pick"\n  score[t % 2] += n % 7\n  t += 1\n'
        '  if t >= 4 {\n    end draw\n  }\n  goto one\n}\n')

CHILD = r"""
import sys
from vbr.engines.game import load
game = load(sys.argv[1], {}, engine="c")
state = game.new_state(1)
print(state.mcts(iterations=20000, budget=0, tree="closed", seed=5))
"""


def test_both_engines_pick_alike_among_4000_options(tmp_path):
    from vbr.engines.game import load
    path = tmp_path / "wide.vbr"
    path.write_text(WIDE)
    for tree in ("open", "closed"):
        picks = {engine: load(path, {}, engine=engine).new_state(1).mcts(iterations=30, budget=0, tree=tree, seed=5)
                 for engine in ("python", "c")}
        assert picks["python"] == picks["c"] and 0 <= picks["c"] < 4000


def test_a_closed_c_search_of_20000_iterations_among_4000_options_ends_in_bounded_time(tmp_path):
    path = tmp_path / "wide.vbr"
    path.write_text(WIDE)
    run = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True,
                         timeout=HANG_GUARD, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert 0 <= int(run.stdout) < 4000
