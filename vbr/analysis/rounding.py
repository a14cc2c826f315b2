"""A figure rounded for JSON that keeps the value it was rounded from, so that a figure is rounded
once wherever it is shown.

A run's summary holds its figures at four decimals (`rounded`): that is what `--json` writes and
what tests and scripts read. Text for a person rounds a figure again, to one place of a percent
or two decimals, and rounding an already rounded value can move the last digit: 4 of 21 is
19.048 %, whose 0.1905 prints as 19.1 %, and 14 of 17 is 82.353 %, whose 0.8235 prints as
82.3 %. So `rounded` gives a `Rounded`: a float equal to the four-decimal value (in JSON, in
comparisons, in sums), whose `exact` is the full value; text reads a figure through `exact`,
which is the value itself for a plain number (a summary read back from JSON has only the
four decimals, and is shown from them).
"""
from __future__ import annotations

PLACES = 4


class Rounded(float):
    """A float of `places` decimals (`PLACES` unless given) that remembers, as `exact`, the value it
    was rounded from. Arithmetic on it gives a plain float of the rounded value: only `exact(x)`
    reads the full one."""
    __slots__ = ("exact", "places")

    def __new__(cls, value: float, places: int = PLACES):
        full = float(exact(value))
        self = super().__new__(cls, round(full, places))
        self.exact, self.places = full, places
        return self

    def __reduce__(self):  # pickled (a summary sent between processes) as itself, with its full value
        return (Rounded, (self.exact, self.places))


def rounded(x):
    """Four decimals for floats (each a `Rounded`), lists for intervals (JSON has no tuples)."""
    if isinstance(x, float):
        return Rounded(x)
    if isinstance(x, tuple):
        return [rounded(v) for v in x]
    return x


def exact(x):
    """The full value of a figure `rounded` gave; any other value as it is (None stays None)."""
    return x.exact if isinstance(x, Rounded) else x
