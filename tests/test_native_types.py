"""Types declared in the text given to Cython (vbr/interpreter/native_types.py): which names are
declared, which are left alone, and what a declaration does when a value breaks it, built for
real (Cython and `cc`): a TypeError, never a value read as the wrong type.

That the declared, compiled rule files play the games of their Python form is
tests/test_native.py's business."""
from __future__ import annotations

import ast

import pytest

from conftest import built_probe
from vbr.interpreter import native_slots
from vbr.interpreter import native_types as T
from vbr.interpreter.values import Ent

VALS, L_FIELD, STEPS = native_slots.INDEX["vals"], native_slots.INDEX["L"], native_slots.INDEX["steps"]


def declared(source: str) -> str:
    """The text of the function in `source` with its declarations, which must leave the tree as
    it found it once undone (the program keeps its code)."""
    tree = ast.parse(source)
    before = ast.dump(tree)
    rewriter = T.Declared()
    rewriter.rewrite(tree.body[0])
    text = ast.unparse(tree)
    rewriter.undo()
    assert ast.dump(tree) == before
    return text


def test_a_list_field_bound_once_at_the_top_is_declared_a_list():
    source = (f"def f(st, fr):\n    V = vbr_get(st, {VALS})\n    L = vbr_get(fr, {L_FIELD})\n"
              "    return V[0] + L[1]")
    assert declared(source) == (f"def f(st, fr):\n    V: list = vbr_get(st, {VALS})\n"
                                f"    L: list = vbr_get(fr, {L_FIELD})\n    return V[0] + L[1]")


def test_a_name_bound_again_or_to_another_field_or_below_the_top_is_not_declared():
    for source in [f"def f(st):\n    V = vbr_get(st, {VALS})\n    V = g(V)\n    return V",  # bound twice
                   f"def f(st):\n    V = vbr_get(st, {VALS})\n    (V := 1)\n    return V",
                   f"def f(st):\n    n = vbr_get(st, {STEPS})\n    return n",  # steps: an int, not a list
                   f"def f(st):\n    if st:\n        V = vbr_get(st, {VALS})\n    return V",  # not at the top
                   f"def f(st):\n    V = g(st, {VALS})\n    return V"]:
        assert declared(source) == source


def test_the_failure_marker_is_declared_a_c_int_once_when_every_value_it_gets_is_an_int_constant():
    source = "def f(st):\n    _k = 0\n    try:\n        _k = 1\n        g()\n        _k = 2\n    except E:\n        raise"
    assert declared(source) == source.replace("    _k = 0", "    _k: cython.int = 0", 1)
    for other in ["_k = n", "_k = 'a'", "_k = True", "(_k := n)", "_k, m = n"]:
        mixed = source.replace("_k = 2", other)
        assert declared(mixed) == mixed


def test_a_constant_is_declared_with_its_own_type_when_it_is_a_dict_tuple_or_frozenset():
    assert T.constant_line("C1", {1: 2}) == "C1: dict = ns['C1']"
    assert T.constant_line("C2", (1, 2)) == "C2: tuple = ns['C2']"
    assert T.constant_line("C3", frozenset({1})) == "C3: frozenset = ns['C3']"

    class Table(dict):
        pass

    for value in [Table(), [1], {1}, len, Ent(3), None, "text", 4]:
        assert T.constant_line("C4", value) == "C4 = ns['C4']"


PROBE = f"""\
{T.IMPORT}


def make(ns):
    C1: dict = ns['C1']
    C2: frozenset = ns['C2']

    def f(k):
        return (C1.get(k, 0), k in C2)
    return f


def first(o):
    V: list = o
    return V[0]


def marked(n):
    _k: cython.int = 0
    _k = 2
    try:
        return 10 // n
    except ZeroDivisionError:
        return (7, 8, 9)[_k]
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return built_probe(str(tmp_path_factory.mktemp("types")), "vbr_types_probe", PROBE)


def test_declared_names_read_their_values_as_python_does(probe):
    f = probe.make({"C1": {"a": 3}, "C2": frozenset({"a"})})
    assert f("a") == (3, True) and f("b") == (0, False)
    assert probe.first([5, 6]) == 5
    assert probe.marked(0) == 9 and probe.marked(5) == 2


def test_a_value_of_another_type_is_refused_not_read_as_the_declared_one(probe):
    with pytest.raises(TypeError):
        probe.make({"C1": [("a", 3)], "C2": frozenset()})
    with pytest.raises(TypeError):
        probe.make({"C1": {}, "C2": {"a"}})  # a set is not a frozenset
    with pytest.raises(TypeError):
        probe.first((5, 6))
