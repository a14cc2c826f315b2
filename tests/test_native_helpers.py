"""The engine's helpers compiled beside the generated code (vbr/interpreter/native_helpers.py):
which are chosen, what their compiled text holds, and that a native program calls their
compiled form, which fails as the Python one does. That the games are the Python form's is
tests/test_native.py's business (every built-in is called by its corpus)."""
from __future__ import annotations

import ast
import types
from types import SimpleNamespace

import pytest

from vbr.interpreter import builtins as B
from vbr.interpreter import expressions as X
from vbr.interpreter import native_helpers as H
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.game import load
from vbr.interpreter.scope import Fault
from vbr.loader import load_rules

from conftest import FIXTURES

COURT = FIXTURES / "valid" / "every_construct_court.vbr"  # a small file calling every built-in of a court

RECORD = []  # a module-level list: a function reading it must not be compiled (bound once)


def reads_a_list():
    return RECORD


def faults_of(xs):
    return [Fault(x) for x in xs]  # `Fault` is read in the comprehension's code only


def namespace(name: str) -> dict:
    return compile_rules(load_rules(name), {}).lowering.namespace


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("native-cache")


def test_module_level_functions_of_the_engine_are_chosen_and_closures_and_methods_are_not():
    ns = namespace("cattack")
    chosen = H.helpers(ns)
    assert B.other_side in chosen.values() and X.items_of in chosen.values()
    for f in chosen.values():
        assert f.__module__.startswith("vbr.interpreter.") and f.__closure__ is None and f.__qualname__ == f.__name__
    left = [v for v in ns.values() if callable(v) and v not in chosen.values()]
    assert any(isinstance(v, types.FunctionType) and v.__closure__ for v in left)  # `say`, `store`: closures
    assert any(isinstance(v, types.MethodType) for v in left)  # Court.step, bound to the court


def test_reach_step_and_a_repeats_count_down_are_helpers_not_closures():
    from vbr.interpreter import court, statements
    chosen = H.helpers(namespace(COURT)).values()
    assert B.reach_of in chosen  # its memo and the court are passed in
    assert court.shifted in chosen  # `step` without a net cost
    assert statements.count_down in H.helpers(namespace("volleyball-high")).values()


def test_a_random_seats_answer_is_a_helper_whose_fields_are_read_by_their_slots():
    from vbr.interpreter import native_slots
    from vbr.interpreter import state as S
    assert S.take in H.helpers(namespace("siatka")).values()  # its global NO_PICK is a class: bound once
    text, held = H.source([S.take])
    # its draw scaled and its option read in C, its limits compared in C
    assert S.take in held and "return vbr_item(options, vbr_below(vbr_item(vbr_get(a, " in text
    assert "if in_place and (vbr_compare(vbr_get(st, " in text
    assert {(S.Autoplay, name) for name in ("offered", "one_option", "scored", "draws")} <= set(native_slots.FIELDS)


def test_a_function_whose_globals_may_be_rebound_is_not_chosen(monkeypatch):
    monkeypatch.setattr(reads_a_list, "__module__", "vbr.interpreter.somewhere")
    assert H.helpers({"C1": reads_a_list, "C2": B.other_side}) == {"C2": B.other_side}


def test_the_helpers_are_one_text_with_their_globals_imported_from_their_own_modules():
    text, held = H.source([B.other_side, B._coll, X.items_of, X._iterate])
    assert held == [B._coll, B.other_side, X._iterate, X.items_of]  # by module, then by name
    names = [f.__name__ for f in held]
    tree = ast.parse(text)
    assert [d.name for d in tree.body if isinstance(d, ast.FunctionDef)] == names
    imports = {(n.module, a.name) for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert ("vbr.interpreter.expressions", "OverBudget") in imports  # the class the engine catches
    assert ("vbr.interpreter.builtins", "Fault") in imports
    assert not {name for _, name in imports} & set(names)  # defined here instead, and called here
    assert "vbr_get(st" in text  # st.steps through its slot


def test_the_engine_functions_a_helper_calls_are_compiled_with_it():
    from vbr.interpreter import scope, statements
    text, held = H.source([statements.repeat_count])
    assert held == [scope.spend, statements.repeat_count]  # spend, called by repeat_count, is held too
    tree = ast.parse(text)
    assert [d.name for d in tree.body if isinstance(d, ast.FunctionDef)] == ["spend", "repeat_count"]
    imports = {a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert "spend" not in imports and {"Fault", "OverBudget"} <= imports


def calls_a_list_reader():
    return reads_a_list()


def test_a_called_function_that_cannot_be_compiled_is_imported_as_it_is(monkeypatch):
    monkeypatch.setattr(calls_a_list_reader, "__module__", "vbr.interpreter.somewhere")
    monkeypatch.setattr(reads_a_list, "__module__", "vbr.interpreter.somewhere")
    text, held = H.source([calls_a_list_reader])
    assert held == [calls_a_list_reader]
    assert "from vbr.interpreter.somewhere import reads_a_list" in text.splitlines()


def test_a_global_read_only_in_a_comprehension_is_imported_too(monkeypatch):
    monkeypatch.setattr(faults_of, "__module__", "vbr.interpreter.somewhere")
    text, held = H.source([faults_of])
    assert held == [faults_of]
    assert "from vbr.interpreter.somewhere import Fault" in text.splitlines()


def test_a_helper_whose_name_another_module_binds_to_something_else_stays_python():
    def _iterate(st, coll):  # a second `_iterate`, of another module
        return coll
    _iterate.__module__ = "vbr.interpreter.zzz"
    text, held = H.source([X._iterate, _iterate, B.other_side])
    assert held == [B.other_side, X._iterate]
    assert "type(coll) is ZoneRef" in text  # the engine's own, first in the order
    ns = {"C1": X._iterate, "C2": _iterate}
    compiled = SimpleNamespace(_iterate="the compiled _iterate")
    assert H.swap(ns, dict(ns), held, compiled) == 1
    assert ns == {"C1": "the compiled _iterate", "C2": _iterate}  # the namesake left out stays Python


def with_a_default(x, limit=len(RECORD)):
    return x if x < limit else limit


def test_a_helper_with_a_default_that_is_not_a_constant_stays_python(monkeypatch):
    monkeypatch.setattr(with_a_default, "__module__", "vbr.interpreter.somewhere")
    assert with_a_default in H.helpers({"C1": with_a_default}).values()
    assert H.source([with_a_default]) is None


PICK = lambda x: x  # noqa: E731  (a lambda at module level: its qualified name is its name)


def test_a_lambda_is_not_chosen(monkeypatch):
    monkeypatch.setattr(PICK, "__module__", "vbr.interpreter.somewhere")
    assert PICK.__qualname__ == PICK.__name__ == "<lambda>"
    assert H.helpers({"C1": PICK}) == {}


def test_a_native_program_calls_the_compiled_helpers_and_they_fail_as_pythons_do(cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    game = load(COURT, native=True)
    ns = game.program.lowering.namespace
    python = H.helpers(namespace(COURT))
    compiled = {name: ns[name] for name in python}
    assert all(type(f) is not types.FunctionType for f in compiled.values())  # none left in Python
    (other,) = [f for name, f in compiled.items() if python[name] is B.other_side]
    assert other(0) == 1 and other(1) == 0
    for bad in (2, -1, None):
        with pytest.raises(Fault) as native_fault:
            other(bad)
        with pytest.raises(Fault) as python_fault:
            B.other_side(bad)
        assert str(native_fault.value) == str(python_fault.value)
    state = game.new_state(3)
    (iterate,) = [f for name, f in compiled.items() if python[name] is X._iterate]
    with pytest.raises(Fault, match="cannot iterate over none"):
        iterate(state, None)
