"""Small made-up games for the tests of the balance metrics (test_metrics.py, test_columns.py):
a score track of (choices made so far, score) after every score change, starting level. Each game
its own seed (100 + index, or `seed`): a seed played twice is one deal, whose games a summary's
intervals take as one cluster."""
from vbr.analysis.trial import Trial


def trial(track, winner, choices, forced=0, options=None, first=0, sides=2, points="final", index=0,
          agents=None, measures=None, seed=None):
    if points == "final":
        points = track[-1][1] if track else tuple([0] * sides)
    return Trial(index, 100 + index if seed is None else seed, agents or ["random"] * sides, sides, winner, points, choices, forced,
                 options if options is not None else 2 * choices, first, list(track), measures or {})


# 1-0, 1-1, 1-2, 2-2, 3-2 in 14 choices, side 0 wins; side 1 chose first
SEESAW = trial([(2, (1, 0)), (5, (1, 1)), (6, (1, 2)), (9, (2, 2)), (12, (3, 2))], 0, 14,
               forced=4, options=30, first=1)
# 1-0, 2-0, 2-1, 3-1 in 10 choices: side 0 leads from the first point to the end
WIRE = trial([(3, (1, 0)), (4, (2, 0)), (8, (2, 1)), (10, (3, 1))], 0, 10, forced=2, options=25, first=0,
             seed=101)
# 0-1, 1-1 in 5 choices: a draw
DRAW = trial([(2, (0, 1)), (4, (1, 1))], None, 5, forced=1, options=12, first=0, seed=102)
# no points declared; 7 choices, every one forced; side 1 wins and chose first
POINTLESS = trial([], 1, 7, forced=7, options=7, first=1, points=None, seed=103)
FOUR = [SEESAW, WIRE, DRAW, POINTLESS]
