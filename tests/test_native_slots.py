"""Slot access in compiled code (vbr/interpreter/native_slots.py): the rewrite of a generated
function's field reads and writes, and what the two C functions do, built for real (Cython and
`cc`) into a small module that exposes them.

That the rewritten, compiled rule files play the games of their Python form is
tests/test_native.py's business."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from conftest import built_probe, rewritten_by
from vbr.interpreter import native as N
from vbr.interpreter import native_slots as S
from vbr.interpreter.program import Frame, Pending
from vbr.interpreter.state import State

PROBE = f"""\
{S.IMPORT}


def make(ns, fields):
    {S.BIND}(fields)

    def get(o, i):
        return {S.GET}(o, i)

    def put(o, i, v):
        {S.SET}(o, i, v)

    return get, put
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """get(o, i) and put(o, i, v): vbr_get and vbr_set as Python functions, bound to FIELDS."""
    module = built_probe(str(tmp_path_factory.mktemp("slots")), "vbr_slots_probe", PROBE)
    return module, module.make({}, S.FIELDS)


def rewritten(source: str) -> str:
    return rewritten_by(S.SlotAccess(), source)


def i(name: str) -> int:
    return S.INDEX[name]


def test_field_reads_and_writes_become_calls_of_the_slot_accessors():
    assert rewritten("x = st.steps") == f"x = vbr_get(st, {i('steps')})"
    assert rewritten("fr.pc = 4") == f"vbr_set(fr, {i('pc')}, 4)"
    assert rewritten("st.pending = _p") == f"vbr_set(st, {i('pending')}, _p)"
    assert rewritten("st.vals[3] = fr.L[0]") == f"vbr_get(st, {i('vals')})[3] = vbr_get(fr, {i('L')})[0]"


def test_an_augmented_field_is_read_added_to_in_place_and_written_back():
    assert rewritten("st.steps += len(x)").splitlines() == [
        f"_slot = vbr_get(st, {i('steps')})", "_slot += len(x)", f"vbr_set(st, {i('steps')}, _slot)"]


def test_a_chained_assignment_evaluates_its_value_once_and_assigns_each_target_in_turn():
    assert rewritten("s = st.steps = st.steps + n").splitlines() == [
        f"_slot = vbr_get(st, {i('steps')}) + n", "s = _slot", f"vbr_set(st, {i('steps')}, _slot)"]
    assert rewritten("st.pending = st.result = None").splitlines() == [
        "_slot = None", f"vbr_set(st, {i('pending')}, _slot)", f"vbr_set(st, {i('result')}, _slot)"]
    assert rewritten("a = b = f()") == "a = b = f()"  # no field: as it was


def test_a_field_assignment_whose_value_rebinds_its_owner_keeps_the_generic_path():
    # Python adds to the `steps` of the state `st` named before the value rebound it, and
    # assigns `pending` on the one named after
    assert rewritten("st.steps += (st := o).steps") == "st.steps += (st := o).steps"
    assert rewritten("st.pending = (st := o)") == "st.pending = (st := o)"


def test_only_fields_read_from_a_name_are_rewritten_and_methods_are_left_alone():
    # st.prog is a field; Program's step_limit is not a slot; goto and shuffle are methods
    assert rewritten("y = st.prog.step_limit") == f"y = vbr_get(st, {i('prog')}).step_limit"
    assert rewritten("st.goto('serve', C20)") == "st.goto('serve', C20)"
    assert rewritten("st.shuffle(z)") == "st.shuffle(z)"
    assert rewritten("z = f().steps") == "z = f().steps"


def test_fields_inside_nested_blocks_are_rewritten():
    text = rewritten("while True:\n    if st.log is None:\n        st.steps += 1\n    else:\n        fr.pc = 2")
    assert "st.log" not in text and "st.steps" not in text and "fr.pc" not in text
    assert text.count("vbr_set") == 2


def test_no_two_slotted_classes_share_a_field_name():
    names = [n for cls in S.SLOTTED for n in cls.__slots__ if not n.startswith("__")]
    assert len(names) == len(set(names)) == len(S.FIELDS)


def test_the_declarations_are_part_of_the_builds_key(monkeypatch):
    before = N.key_of(["x"])
    monkeypatch.setattr(S, "PXD", S.PXD + "\n# changed\n")
    assert N.key_of(["x"]) != before


def test_a_state_field_written_and_read_through_its_slot_holds_one_reference(probe):
    _, (get, put) = probe
    st = State.__new__(State)
    value, other = object(), object()
    base = sys.getrefcount(value)
    put(st, i("trace"), value)
    assert st.trace is value and get(st, i("trace")) is value
    assert sys.getrefcount(value) == base + 1  # the slot's reference, and no other
    put(st, i("trace"), other)
    assert st.trace is other and sys.getrefcount(value) == base  # the old value released


def test_a_frame_and_a_choice_point_are_read_through_their_own_fields(probe):
    _, (get, put) = probe
    fr = Frame.__new__(Frame)
    put(fr, i("pc"), 7)
    assert fr.pc == 7 == get(fr, i("pc"))
    p = Pending.__new__(Pending)
    put(p, i("seat"), 1)
    assert p.seat == 1 == get(p, i("seat"))


def test_an_empty_slot_reads_as_python_reads_it(probe):
    _, (get, _) = probe
    st = State.__new__(State)
    with pytest.raises(AttributeError) as python:
        st.steps
    with pytest.raises(AttributeError) as compiled:
        get(st, i("steps"))
    assert str(compiled.value) == str(python.value)


def test_an_object_of_another_class_takes_the_generic_path(probe):
    _, (get, put) = probe
    ns = SimpleNamespace(steps=3)
    assert get(ns, i("steps")) == 3
    put(ns, i("steps"), 4)
    assert ns.steps == 4

    class Counting(State):  # a subclass: not exactly the field's class, so its property is seen
        __slots__ = ()
        reads = 0

        @property
        def phase(self):
            Counting.reads += 1
            return "seen"

    sub = Counting.__new__(Counting)
    State.__dict__["phase"].__set__(sub, "in the slot")  # State's slot holds a value, the property hides it
    assert get(sub, i("phase")) == "seen" and Counting.reads == 1
    with pytest.raises(AttributeError):
        put(sub, i("phase"), "x")  # a property without a setter
    assert State.__dict__["phase"].__get__(sub) == "in the slot"


def test_binding_other_fields_than_the_builds_is_refused(probe):
    module, _ = probe
    with pytest.raises(ValueError, match="not this build's"):
        module.make({}, S.FIELDS[:-1])
