"""From finished games to answers: per-game records (`Trial`), balance metrics with confidence
intervals, sweeps over options, comparisons of two variants, and their plots.

Nothing here knows a game: every figure comes from the declared score, the seats and teams, and
the choices the engine offered.
"""
