"""Small integers in compiled code (vbr/interpreter/native_ints.py): which comparisons and
indexes of a generated function are rewritten, and what the C functions answer, built for real
(Cython and `cc`) into a small module that exposes them: Python's own answer for every value.

That the rewritten, compiled rule files play the games of their Python form is
tests/test_native.py's business."""
from __future__ import annotations

import operator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import built_probe, rewritten_by
from vbr.interpreter import native as N
from vbr.interpreter import native_ints as C
from vbr.interpreter.values import Cell, Ent
from vbr.interpreter.scope import INT_MAX

PROBE = f"""\
{C.IMPORT}


def compare(a, b, op):
    return {C.COMPARE}(a, b, op)


def fits(x):
    return {C.FITS}(x)


def item(x, i):
    return {C.ITEM}(x, i)


def scaled(x, n):
    return {C.SCALED}(x, n)


def add(a, b):
    return {C.ADD}(a, b)


def sub(a, b):
    return {C.SUB}(a, b)


def remove(xs, x):
    {C.REMOVE}(xs, x)


def equal(a, b, op):
    return {C.EQUAL}(a, b, op)


def field(E, KD, x, kind, pos, fail, name):
    return {C.FIELD}(E, KD, x, kind, pos, fail, name)


def with_(t, at, v):
    return {C.WITH}(t, at, v)


def slot(T, x, off, n, fail, name):
    return {C.SLOT}(T, x, off, n, fail, name)


def get_in(d, k, dflt):
    return {C.GET_IN}(d, k, dflt)
"""

PYTHON = {0: operator.lt, 1: operator.le, 4: operator.gt, 5: operator.ge}


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return built_probe(str(tmp_path_factory.mktemp("ints")), "vbr_ints_probe", PROBE)


def rewritten(source: str) -> str:
    return rewritten_by(C.IntOps(), source)


def test_an_ordering_comparison_becomes_a_call_with_pythons_code_of_the_operator():
    assert rewritten("a = x < 3") == "a = vbr_compare(x, 3, 0)"
    assert rewritten("a = V[2] <= y") == "a = vbr_compare(V[2], y, 1)"
    assert rewritten("a = f(x) > (t := V[1])") == "a = vbr_compare(f(x), (t := V[1]), 4)"
    assert rewritten("a = L[0] >= -4") == "a = vbr_compare(L[0], -4, 5)"


def test_a_chain_whose_middle_is_a_name_becomes_one_call_per_link():
    assert rewritten("a = 0 <= t < 2") == "a = vbr_compare(0, t, 1) and vbr_compare(t, 2, 0)"


def test_a_chain_whose_middle_is_evaluated_is_left_to_python():
    # `0 <= f() < 2` calls f once; two links would call it twice
    assert rewritten("a = 0 <= f() < 2") == "a = 0 <= f() < 2"


def test_the_range_check_of_arithmetic_becomes_one_call():
    source = f"a = t if {-INT_MAX} <= (t := x + y) <= {INT_MAX} else over(t)"
    assert rewritten(source) == "a = t if vbr_fits((t := vbr_add(x, y))) else over(t)"


def test_equality_other_constants_and_c_numbers_are_left_to_cython():
    for source in ["a = x == 3", "a = x != 'b'", "a = x is None", "a = x < 'b'", "a = x < True", "a = len(xs) > 10000",
                   "a = (not x) < y", "a = x in y", "a = x < 0.5"]:
        assert rewritten(source) == source
    # the inner comparison is a C number once rewritten: the outer one is Cython's
    assert rewritten("a = (x < y) < z") == "a = vbr_compare(x, y, 0) < z"


def test_equality_with_none_becomes_identity():
    # values.py: no rule file's value equals None but None itself
    assert rewritten("a = x == None") == "a = x is None"
    assert rewritten("a = None != L[3]") == "a = None is not L[3]"
    assert rewritten("a = x == y == None") == "a = x == y == None"  # a chain is left as it is


@pytest.mark.parametrize("value", [None, 0, False, "", (), (None,), Ent(0), 0.0, float("nan")])
def test_no_value_of_a_rule_file_equals_none_but_none(value):
    from vbr.interpreter.values import Cell, ZoneRef
    for v in [value, Cell(0, 0), ZoneRef(0)]:
        assert (v == None) is (v is None) and (v != None) is (v is not None)  # noqa: E711  (what is compared)


def test_comparisons_nested_in_statements_and_calls_are_rewritten():
    text = rewritten("while x < n:\n    if g(V[0] > 1):\n        x = x + 1")
    assert text.count("vbr_compare") == 2 and "<" not in text and ">" not in text


def test_the_declarations_are_part_of_the_builds_key(monkeypatch):
    before = N.key_of(["x"])
    monkeypatch.setattr(C, "PXD", C.PXD + "\n# changed\n")
    assert N.key_of(["x"]) != before


EDGES = [0, 1, -1, 2 ** 30 - 1, 2 ** 30, -(2 ** 30) + 1, -(2 ** 30), 2 ** 62, INT_MAX, -INT_MAX, INT_MAX + 1,
         -INT_MAX - 1, 10 ** 30, -(10 ** 30)]
integers = st.one_of(st.sampled_from(EDGES), st.integers(-5, 5), st.integers(-(2 ** 40), 2 ** 40), st.integers(),
                     st.booleans())


def test_compare_and_fits_answer_as_python_at_the_edges_of_machine_words(probe):
    for a in EDGES:
        assert probe.fits(a) is (-INT_MAX <= a <= INT_MAX), a
        for b in EDGES:
            for op, python in PYTHON.items():
                assert probe.compare(a, b, op) is python(a, b), (a, b, op)


@given(integers, integers, st.sampled_from(sorted(PYTHON)))
def test_compare_answers_as_python_orders_integers_and_bools(probe, a, b, op):
    assert probe.compare(a, b, op) is PYTHON[op](a, b)


@given(integers)
def test_fits_says_whether_a_value_is_in_the_languages_range_of_integers(probe, x):
    assert probe.fits(x) is (-INT_MAX <= x <= INT_MAX)


def test_values_other_than_integers_are_ordered_and_refused_as_python_does(probe):
    assert probe.compare("a", "b", 0) is True and probe.compare((1, 2), (1, 1), 4) is True
    assert probe.compare(2, 1.5, 4) is True
    with pytest.raises(TypeError) as python:
        None < 1
    with pytest.raises(TypeError) as compiled:
        probe.compare(None, 1, 0)
    assert str(compiled.value) == str(python.value)
    with pytest.raises(TypeError) as compiled:
        probe.fits("7")
    assert "'<=' not supported" in str(compiled.value)


def test_a_sum_or_difference_of_two_objects_becomes_a_call():
    assert rewritten("a = V[12] + V[9]") == "a = vbr_add(V[12], V[9])"
    assert rewritten("a = f(x) - (t := L[1])") == "a = vbr_sub(f(x), (t := L[1]))"
    assert rewritten("a = x + y - z") == "a = vbr_sub(vbr_add(x, y), z)"


def test_a_constant_operand_or_a_c_number_is_left_to_cython():
    for source in ["a = x + 1", "a = -1 + x", "a = x - 1 * 3", "a = len(xs) + y", "a = (not x) - y",
                   "a = x * y", "a = x / y", "a = (x or y) + z"]:
        assert rewritten(source) == source
    assert rewritten("a = (x < y) + z") == "a = vbr_compare(x, y, 0) + z"  # a C number once rewritten


@given(integers, integers)
def test_add_and_sub_answer_as_python_adds_and_subtracts_integers_and_bools(probe, a, b):
    assert probe.add(a, b) == a + b and type(probe.add(a, b)) is type(a + b)
    assert probe.sub(a, b) == a - b and type(probe.sub(a, b)) is type(a - b)


def test_add_and_sub_at_the_edges_of_machine_words(probe):
    for a in EDGES:
        for b in EDGES:
            assert probe.add(a, b) == a + b and probe.sub(a, b) == a - b, (a, b)


def test_add_and_sub_of_other_values_are_pythons(probe):
    assert probe.add((1, 2), (3,)) == (1, 2, 3) and probe.add("a", "b") == "ab"
    assert probe.add(Ent(2), 3) == 5 and probe.sub(2, 0.5) == 1.5
    with pytest.raises(TypeError) as python:
        None + 1
    with pytest.raises(TypeError) as compiled:
        probe.add(None, 1)
    assert str(compiled.value) == str(python.value)
    with pytest.raises(TypeError) as compiled:
        probe.sub("a", 1)
    assert "unsupported operand" in str(compiled.value)


def test_a_computed_index_becomes_a_call_and_a_constant_index_or_slice_does_not():
    assert rewritten("a = E[_t][1]") == "a = vbr_item(E, _t)[1]"
    assert rewritten("a = Z[C3[s] if s is not None else f(s)]") == \
        "a = vbr_item(Z, vbr_item(C3, s) if s is not None else f(s))"
    for source in ["a = V[3]", "a = V[-1]", "a = V[1:3]", "a = V[i:]", "V[i] = 2", "a = D[i, j]"]:
        assert rewritten(source) == source


ITEMS = st.one_of(st.sampled_from([-(2 ** 30), -3, -1, 0, 1, 2, 3, 2 ** 30, 2 ** 70]), st.integers(-8, 8))


@given(st.lists(st.integers(), max_size=6), ITEMS, st.booleans())
def test_item_answers_as_python_indexes_lists_and_tuples(probe, xs, i, as_tuple):
    x = tuple(xs) if as_tuple else xs
    for index in (i, Ent(i) if i >= 0 else i):
        try:
            expected = x[index]
        except IndexError as python:
            with pytest.raises(IndexError) as compiled:
                probe.item(x, index)
            assert str(compiled.value) == str(python)
        else:
            assert probe.item(x, index) is expected


def test_item_of_other_containers_and_indexes_is_pythons(probe):
    class Tracked(list):
        def __getitem__(self, i):
            return ("seen", i)

    assert probe.item({3: "three"}, 3) == "three" and probe.item("abc", 1) == "b"
    assert probe.item(Tracked([1, 2]), 0) == ("seen", 0)  # not exactly a list: its own indexing
    assert probe.item([5, 6], True) == 6  # a bool is an int, as Python indexes it
    index = None
    with pytest.raises(TypeError) as python:
        [1][index]
    with pytest.raises(TypeError) as compiled:
        probe.item([1], index)
    assert str(compiled.value) == str(python.value)


def test_a_draw_scaled_to_a_range_becomes_one_call():
    assert rewritten("j = (x * (i + 1)) >> 64") == "j = vbr_scaled(x, i + 1)"
    assert rewritten("v = F[g.bits(32) * 6 >> 64]") == "v = vbr_item(F, vbr_scaled(g.bits(32), 6))"
    # the draw itself, made in C (tests/test_native_mt.py)
    assert rewritten("v = F[st.rng.getrandbits(64) * 6 >> 64]") == "v = vbr_item(F, vbr_below_of(st.rng, 6))"
    for source in ["j = x * n >> 32", "j = x >> 64", "j = x * (n >> 64)"]:
        assert rewritten(source) == source
    assert rewritten("j = x + n >> 64") == "j = vbr_add(x, n) >> 64"  # a sum, not a draw


def test_rewrite_helper_rewrites_a_helpers_own_tree_in_place():
    import ast
    tree = ast.parse("def take(a, st, k):\n    if st.steps >= a.limit:\n        Z[W[x]].remove(x)\n"
                     "    return options[(a.draws[0](64) * k) >> 64]")
    C.rewrite_helper(tree)
    assert ast.unparse(tree) == ("def take(a, st, k):\n    if vbr_compare(st.steps, a.limit, 5):\n"
                                 "        vbr_remove(vbr_item(Z, vbr_item(W, x)), x)\n"
                                 "    return vbr_item(options, vbr_below(a.draws[0], k))")


def test_a_remove_statement_becomes_a_call_and_other_removes_do_not():
    assert rewritten("Z[W[x]].remove(x)") == "vbr_remove(vbr_item(Z, vbr_item(W, x)), x)"
    for source in ["a = xs.remove(x)", "xs.remove(x, y)", "xs.remove(*x)", "xs.remove(x=1)", "remove(x)"]:
        assert rewritten(source) == source


@given(st.lists(st.integers(-3, 3) | st.sampled_from([2 ** 40, -(2 ** 70), True, False, 1.0, "1"]), max_size=8),
       st.integers(-3, 3) | st.sampled_from([2 ** 40, -(2 ** 70), True, 1.0, "1", None]), st.booleans())
def test_remove_takes_out_the_item_list_remove_takes_out(probe, items, x, as_ent):
    if as_ent and type(x) is int and x >= 0:
        x = Ent(x)
    python, compiled = list(items), list(items)
    try:
        python.remove(x)
    except ValueError as error:
        with pytest.raises(ValueError) as info:
            probe.remove(compiled, x)
        assert str(info.value) == str(error)
    else:
        probe.remove(compiled, x)
    assert [(type(v), v) for v in compiled] == [(type(v), v) for v in python]


def test_remove_of_the_same_object_and_of_other_containers(probe):
    card = Ent(2000)  # past ENT_IDS: an Ent made apart, equal to another of its id
    deck = [Ent(5), Ent(2000), card]
    probe.remove(deck, card)
    assert deck == [5, 2000] and deck[1] is card  # the first equal one went, as list.remove takes it
    held = {1, 2}
    probe.remove(held, 2)  # a set's own remove
    assert held == {1}


# the sampled values are the edges of CPython 3.11's 30-bit digits, which vbr_u64 reads
DRAWS = st.one_of(st.integers(0, 2 ** 64 - 1),
                  st.sampled_from([0, 1, 2 ** 30 - 1, 2 ** 30, 2 ** 32 - 1, 2 ** 32, 2 ** 60 - 1, 2 ** 60, 2 ** 63,
                                   2 ** 64 - 1, 2 ** 64, 2 ** 90 - 1, 2 ** 90]),
                  st.integers(-(2 ** 70), 2 ** 130))
RANGES = st.one_of(st.integers(0, 2 ** 30), st.sampled_from([0, 1, 2 ** 30 - 1, 2 ** 30, 2 ** 32, 2 ** 40]),
                   st.integers(-(2 ** 40), 2 ** 70))


@given(DRAWS, RANGES)
def test_scaled_answers_as_python_multiplies_and_shifts(probe, x, n):
    assert probe.scaled(x, n) == (x * n) >> 64
    assert type(probe.scaled(x, n)) is int


def test_scaled_of_other_values_is_pythons(probe):
    assert probe.scaled(2 ** 63, True) == (2 ** 63 * True) >> 64  # a bool is an int, not exactly
    assert probe.scaled(Ent(2 ** 63), 4) == 2  # an int subclass: Python's own operators
    with pytest.raises(TypeError) as python:
        (2 ** 63 * None) >> 64
    with pytest.raises(TypeError) as compiled:
        probe.scaled(2 ** 63, None)
    assert str(compiled.value) == str(python.value)


def test_equality_of_two_values_becomes_a_call():
    assert rewritten("a = E[_t][2] == v") == "a = vbr_equal(vbr_item(E, _t)[2], v, 2)"
    assert rewritten("a = x != f(y)") == "a = vbr_equal(x, f(y), 3)"
    assert rewritten("a = x == y == z") == "a = x == y == z"  # a chain: Python's


@given(integers | st.sampled_from([None, "a", (1, 2), 1.0, Ent(3), Ent(2000)]),
       integers | st.sampled_from([None, "a", (1, 2), 1.0, Ent(3), Ent(2000)]))
def test_equal_answers_as_python_tests_equality(probe, a, b):
    assert probe.equal(a, b, 2) is (a == b) and probe.equal(a, b, 3) is (a != b)


def test_equal_of_a_nan_and_itself_is_pythons(probe):
    # not PyObject_RichCompareBool's answer, which takes an object to be equal to itself
    nan = float("nan")
    assert probe.equal(nan, nan, 2) is (nan == nan) is False
    assert probe.equal(nan, nan, 3) is (nan != nan) is True


def test_a_checked_field_read_becomes_one_call():
    # expressions.py `_attr_of_kind`, once the indexes are rewritten; the thing named or bound
    assert rewritten("a = E[x][0] if x is not None and KD[x] == 1 else no_field(x, 'tactic')") == \
        "a = vbr_field(E, KD, x, 1, 0, no_field, 'tactic')"
    assert rewritten("a = E[_t][2] if (_t := V[3]) is not None and KD[_t] == 0 else no_field(_t, 'f')") == \
        "a = vbr_field(E, KD, (_t := V[3]), 0, 2, no_field, 'f')"


@pytest.mark.parametrize("source", [
    "a = E[_t][_p] if (_t := x) is not None and (_p := P[KD[_t]]) is not None else f(st, _t, T, 'n')",  # by kind
    "a = E[x][0] if x is not None and KD[y] == 1 else no_field(x, 'f')",  # another thing's kind
    "a = E[x][0] if x is not None and KD[x] == k else no_field(x, 'f')",  # a kind not constant
    "a = E[x][i] if x is not None and KD[x] == 1 else no_field(x, 'f')",  # a place not constant
    "a = V[x][0] if x is not None and KD[x] == 1 else no_field(x, 'f')",  # not the things' table
    "a = E[x][0] if x is not None and KD[x] != 1 else no_field(x, 'f')",
    "a = E[x][0] if x is not None or KD[x] == 1 else no_field(x, 'f')",
    "a = E[x][0] if x is not None and KD[x] == 1 else no_field(y, 'f')",
    "a = E[x][0] if x is not None and KD[x] == 1 else other"])
def test_other_conditional_reads_are_left_as_they_are(source):
    assert "vbr_field" not in rewritten(source)


def python_field(E, KD, x, kind, pos, fail, name):
    return E[x][pos] if x is not None and KD[x] == kind else fail(x, name)


def missing(x, name):
    raise LookupError(f"{x} has no field {name}")


THINGS = st.one_of(st.integers(-4, 5), st.sampled_from([None, True, False, 2 ** 40, -(2 ** 70), 1.0, "1"]))


@given(st.lists(st.one_of(st.tuples(st.integers(), st.integers()), st.lists(st.integers(), max_size=3), st.none()),
                max_size=5),
       st.lists(st.integers(-1, 2) | st.sampled_from([True, 1.0, None]), max_size=6),
       THINGS, st.integers(-1, 2), st.integers(-3, 3), st.booleans())
def test_field_answers_as_pythons_checked_read(probe, E, KD, x, kind, pos, as_ent):
    if as_ent and type(x) is int and x >= 0:
        x = Ent(x)
    try:
        expected = python_field(E, KD, x, kind, pos, missing, "f")
    except Exception as python:
        with pytest.raises(type(python)) as compiled:
            probe.field(E, KD, x, kind, pos, missing, "f")
        assert str(compiled.value) == str(python)
    else:
        assert probe.field(E, KD, x, kind, pos, missing, "f") is expected


def test_field_of_other_containers_and_kinds_is_pythons(probe):
    class Kinds(list):
        def __getitem__(self, i):
            return 7

    E = [(10, 11), (20, 21)]
    assert probe.field(E, Kinds([0, 0]), 1, 7, 0, missing, "f") == 20  # not exactly a list: its own indexing
    assert probe.field(tuple(E), (0, 3), 1, 3, 1, missing, "f") == 21
    assert probe.field({5: ("a",)}, {5: 2}, 5, 2, 0, missing, "f") == "a"
    assert probe.field(E, [0, 1], 1, True, 0, missing, "f") == 20  # True == 1, as Python compares
    with pytest.raises(LookupError, match="None has no field f"):
        probe.field(E, [0, 1], None, 1, 0, missing, "f")


def test_a_things_fields_with_one_changed_become_one_call():
    # statements.py, a field's store: the place a constant, or a name (a field of several kinds)
    assert rewritten("E[e] = (_a := E[e])[:2] + (v,) + _a[2 + 1:]") == "E[e] = vbr_with((_a := vbr_item(E, e)), 2, v)"
    assert rewritten("E[e] = (_a := E[e])[:_p] + (3,) + _a[_p + 1:]") == "E[e] = vbr_with((_a := vbr_item(E, e)), _p, 3)"


@pytest.mark.parametrize("source", [
    "E[e] = (_a := E[e])[:2] + (f(x),) + _a[2 + 1:]",  # the value is evaluated after the first slice
    "E[e] = (_a := E[e])[:2] + (v,) + _a[2 + 2:]",
    "E[e] = (_a := E[e])[:2] + (v,) + _b[2 + 1:]",
    "E[e] = (_a := E[e])[:2] + (v, w) + _a[2 + 1:]",
    "E[e] = (_a := E[e])[:p] + (v,) + _a[q + 1:]",
    "E[e] = E[e][:2] + (v,) + _a[2 + 1:]"])
def test_other_sums_of_slices_stay_sums(source):
    assert "vbr_with" not in rewritten(source)


@given(st.one_of(st.lists(st.integers(), max_size=5).map(tuple), st.lists(st.integers(), max_size=5),
                 st.tuples(st.integers(), st.integers()).map(lambda p: Cell(*p))),
       st.integers(-7, 7) | st.sampled_from([2 ** 40, True, None, 1.0]), st.integers() | st.none())
def test_with_answers_as_pythons_sum_of_slices(probe, t, at, v):
    try:
        expected = t[:at] + (v,) + t[at + 1:]
    except Exception as python:
        with pytest.raises(type(python)) as compiled:
            probe.with_(t, at, v)
        assert str(compiled.value) == str(python)
    else:
        got = probe.with_(t, at, v)
        assert got == expected and type(got) is type(expected)
        assert all(a is b for a, b in zip(got, expected))


def test_a_checked_index_into_a_table_becomes_one_call():
    # expressions.py `_slot_template` (a seat's zone, a list var's item), once rewritten; the
    # index's name is dropped where nothing else reads it
    assert rewritten("a = T[_t] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _t, 2)") == \
        "a = vbr_slot(T, V[2], 0, 2, out_of_range, 'team')"
    assert rewritten("a = T[3 + _t] if (_t := f(x)) is not None and 0 <= _t < 4 else out_of_range('v', _t, 4)") == \
        "a = vbr_slot(T, f(x), 3, 4, out_of_range, 'v')"
    assert rewritten("a = T[_t] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _t, 2)\nb = _t") \
        == "a = vbr_slot(T, (_t := V[2]), 0, 2, out_of_range, 'team')\nb = _t"


@pytest.mark.parametrize("after", ["_t += 1", "del _t", "def g():\n    return _t", "_t = 0"])
def test_the_index_keeps_its_name_where_anything_else_uses_the_name(after):
    template = "a = T[_t] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _t, 2)"
    assert rewritten(f"{template}\n{after}").startswith("a = vbr_slot(T, (_t := V[2]), 0, 2, out_of_range, 'team')")


@pytest.mark.parametrize("source", [
    "a = T[_t] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _t, 3)",  # another bound
    "a = T[_t] if (_t := V[2]) is not None and 1 <= _t < 2 else out_of_range('team', _t, 2)",
    "a = T[_t] if (_t := V[2]) is not None and 0 <= _t <= 2 else out_of_range('team', _t, 2)",
    "a = T[_t] if (_t := V[2]) is not None and 0 <= _t < n else out_of_range('team', _t, n)",
    "a = T[_u] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _t, 2)",
    "a = f(T)[_t] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _t, 2)",  # T not a name
    "a = T[_t] if (_t := V[2]) is not None or 0 <= _t < 2 else out_of_range('team', _t, 2)",
    "a = T[_t] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _u, 2)",
    "a = T[_t * 2] if (_t := V[2]) is not None and 0 <= _t < 2 else out_of_range('team', _t, 2)"])
def test_other_checked_reads_are_left_as_they_are(source):
    assert "vbr_slot" not in rewritten(source)


def python_slot(T, x, off, n, fail, name):
    return (T[off + x] if off else T[x]) if x is not None and 0 <= x < n else fail(name, x, n)


def out_of_range(name, i, n):
    raise IndexError(f"`{name}[{i}]`: index out of range 0..{n - 1}")


@given(st.lists(st.integers(), max_size=6), st.booleans(),
       st.integers(-3, 8) | st.sampled_from([None, True, False, 2 ** 40, -(2 ** 70), 1.0, 0.5, "1"]),
       st.integers(0, 3), st.integers(0, 6))
def test_slot_answers_as_pythons_checked_index(probe, T, as_tuple, x, off, n):
    if as_tuple:
        T = tuple(T)
    try:
        expected = python_slot(T, x, off, n, out_of_range, "v")
    except Exception as python:
        with pytest.raises(type(python)) as compiled:
            probe.slot(T, x, off, n, out_of_range, "v")
        assert str(compiled.value) == str(python)
    else:
        assert probe.slot(T, x, off, n, out_of_range, "v") is expected


def test_slot_of_other_tables_and_indexes_is_pythons(probe):
    class Seats(list):
        def __getitem__(self, i):
            return ("seat", i)

    assert probe.slot(Seats([1, 2]), 1, 0, 2, out_of_range, "v") == ("seat", 1)  # its own indexing
    assert probe.slot({0: "a", 3: "b"}, 1, 2, 2, out_of_range, "v") == "b"
    assert probe.slot((7, 8), True, 0, 2, out_of_range, "v") == 8  # 0 <= True < 2: T[True] is T[1]
    assert probe.slot([7, 8], Ent(1), 0, 2, out_of_range, "v") == 8
    with pytest.raises(IndexError, match=r"`v\[None\]`"):
        probe.slot((7, 8), None, 0, 2, out_of_range, "v")


def test_a_remembered_fns_second_lookup_becomes_one_call():
    # lowering.py `_memo_call`: `memo.get(a0, NO).get(a1, MISS)`, and its first lookup hoisted
    assert rewritten("a = M.get(x, NO).get(y, MISS)") == "a = vbr_get_in(M.get(x, NO), y, MISS)"
    assert rewritten("a = M.get(x, NO).get(y, NO).get(z, MISS)") == \
        "a = vbr_get_in(vbr_get_in(M.get(x, NO), y, NO), z, MISS)"
    assert rewritten("a = (_t if (_t := h) is not U else (_t := M.get(x, NO))).get(y, MISS)") == \
        "a = vbr_get_in(_t if (_t := h) is not U else (_t := M.get(x, NO)), y, MISS)"


@pytest.mark.parametrize("source", [
    "a = f(x).get(y, MISS)",  # not a lookup's answer: its `get` might not be a dict's
    "a = M.get(x).get(y, MISS)",
    "a = M.get(x, NO).get(y)",
    "a = M.get(x, NO).get(y, f())",
    "a = M.get(x, NO).pop(y, MISS)"])
def test_other_gets_are_left_as_they_are(source):
    assert "vbr_get_in" not in rewritten(source)


@given(st.dictionaries(st.integers(-3, 3) | st.text(max_size=1), st.integers(), max_size=5),
       st.integers(-4, 4) | st.sampled_from([True, 1.0, "a", (1, 2), Cell(1, 2)]))
def test_get_in_answers_as_a_dicts_get(probe, d, k):
    miss = object()
    assert probe.get_in(d, k, miss) is d.get(k, miss)


def test_get_in_of_other_mappings_and_unhashable_keys_is_pythons(probe):
    class OwnGet(dict):
        def get(self, k, dflt=None):
            return ("own", k)

    assert probe.get_in(OwnGet(a=1), "a", None) == ("own", "a")
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        probe.get_in({}, [1], None)
    with pytest.raises(AttributeError, match="'int' object has no attribute 'get'"):
        probe.get_in(3, 1, None)
