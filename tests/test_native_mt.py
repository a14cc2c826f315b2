"""Python's Mersenne Twister in C (vbr/interpreter/native_mt.py): which draws of generated code
are rewritten, and what the C seeds and draws, built for real (Cython and `cc`) into a small
module: Python's own numbers, and the generator left where Python leaves it, for every seed,
range and generator; Python's way wherever the C may not be used.

That the compiled rule files play the games of their Python form is tests/test_native.py's
business, and that the seeds module's generator is Python's generator of each seed too."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import built_probe, rewritten_by
from vbr.interpreter import native_ints
from vbr.interpreter import native_mt as M
from vbr.interpreter.state import _Deferred, _Shared

PROBE = f"""\
{M.IMPORT}
import random as _random


def seeded(x):
    r = _random.Random.__new__(_random.Random)
    vbr_mt_seed(r, x)
    r.gauss_next = None
    return r


def usable():
    return vbr_mt_usable()


def below(f, n):
    return {M.BELOW}(f, n)


def below_of(g, n):
    return {M.BELOW_OF}(g, n)
"""

REFUSED = PROBE + """

from cython.cimports.vbr_mt import vbr_mt_refuse


def refuse():
    vbr_mt_refuse()
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return built_probe(str(tmp_path_factory.mktemp("mt")), "vbr_mt_probe", PROBE)


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    module = built_probe(str(tmp_path_factory.mktemp("mt-refused")), "vbr_mt_refused", REFUSED)
    module.refuse()
    return module


def rewritten(source: str) -> str:
    return rewritten_by(native_ints.IntOps(), source)


def test_a_draw_scaled_to_a_range_becomes_one_call_that_draws():
    assert rewritten("a = (st.rng.getrandbits(64) * 6) >> 64") == "a = vbr_below_of(st.rng, 6)"
    assert rewritten("a = (bits(64) * (i + 1)) >> 64") == "a = vbr_below(bits, i + 1)"
    assert rewritten("a = (a.draws[seat](64) * k) >> 64") == "a = vbr_below(vbr_item(a.draws, seat), k)"
    assert rewritten("a = (bits(64) * len(xs)) >> 64") == "a = vbr_below(bits, len(xs))"


@pytest.mark.parametrize("source", [
    "a = (x * n) >> 64",  # not a draw: the product of two values
    "a = (bits(32) * n) >> 64",  # not 64 bits
    "a = (bits(64, 1) * n) >> 64",
    "a = (bits(64) * roll()) >> 64",  # n could draw: it stays after the draw
    "a = (bits(64) * len(f())) >> 64"])
def test_other_products_stay_scaled_after_the_call(source):
    assert "vbr_below" not in rewritten(source) and "vbr_scaled" in rewritten(source)


def test_the_c_is_used_on_this_python(probe):
    # CPython 3.11 on x86-64 lays its generator out as the C assumes: the check lets it in
    assert probe.usable()


SEEDS = st.one_of(st.integers(min_value=0, max_value=2 ** 64 - 1), st.sampled_from(M.EDGES))
RANGES = st.one_of(st.integers(0, 2 ** 30), st.sampled_from([0, 1, 2, 6, 2 ** 30 - 1, 2 ** 30, 2 ** 30 + 1, 2 ** 64]),
                   st.integers(-5, -1), st.integers(2 ** 30, 2 ** 70))


@settings(max_examples=200, deadline=None)
@given(SEEDS)
def test_a_generator_seeded_in_c_is_pythons(probe, x):
    mine, python = probe.seeded(x), random.Random(x)
    assert mine.getstate() == python.getstate()


@settings(max_examples=150, deadline=None)
@given(SEEDS, st.lists(RANGES, min_size=1, max_size=40), st.integers(0, 700))
def test_draws_in_c_are_pythons_and_leave_the_generator_where_python_does(probe, x, ranges, skip):
    mine, python = random.Random(x), random.Random(x)
    for _ in range(skip):  # anywhere in the table: its renewal every 312 draws
        mine.getrandbits(64), python.getrandbits(64)
    for i, n in enumerate(ranges):
        expected = (python.getrandbits(64) * n) >> 64
        assert (probe.below_of(mine, n) if i % 2 else probe.below(mine.getrandbits, n)) == expected
    assert mine.getstate() == python.getstate()


class Loaded(random.Random):
    def getrandbits(self, k):
        return 2 ** 63  # always the middle


class Plain:
    """Not a generator of Python's: anything with a getrandbits."""

    def __init__(self):
        self.calls = 0

    def getrandbits(self, k):
        self.calls += 1
        return (2 ** 64 - 1) if k == 64 else 0


class Holder:
    """What a _Deferred generator belongs to (a state, for a clone)."""


@pytest.mark.parametrize("module", ["probe", "refused"])
def test_other_generators_and_a_refused_check_draw_as_python_does(module, request):
    m = request.getfixturevalue(module)
    assert m.usable() is (module == "probe")  # refused: Python's way for everything below
    assert m.below_of(Loaded(1), 10) == 5 and m.below(Loaded(1).getrandbits, 10) == 5  # its own method
    plain = Plain()
    assert m.below_of(plain, 6) == 5 and m.below(plain.getrandbits, 6) == 5 and plain.calls == 2
    holder = Holder()
    deferred = holder.rng = _Deferred(_Shared(random.Random(3)), holder)  # a clone's, copied when it first draws
    python = random.Random(3)
    assert [m.below_of(deferred, 9) for _ in range(5)] == [(python.getrandbits(64) * 9) >> 64 for _ in range(5)]
    for n in [6, 2 ** 40, -3]:
        g, python = random.Random(8), random.Random(8)
        assert m.below_of(g, n) == (python.getrandbits(64) * n) >> 64
        assert m.below(g.getrandbits, n) == (python.getrandbits(64) * n) >> 64
    with pytest.raises(TypeError) as compiled:
        m.below_of(random.Random(1), 1.5)
    with pytest.raises(TypeError) as python_error:
        (random.Random(1).getrandbits(64) * 1.5) >> 64
    assert str(compiled.value) == str(python_error.value)
