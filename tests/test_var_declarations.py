"""A var's declaration is checked before play where what it says is known then: its range's
`wrap TO`, a number written as its initial value, and a per-slot initial list's length."""

from conftest import check_problems
from vbr.engines.game import checked_model


def problems(tmp_path, decl: str) -> list[tuple[int, int, str]]:
    return check_problems(tmp_path / "v.vbr", 'game "x"\nseats 2\nstart p\n' + decl + '\nphase p {\n  end draw\n}\n')


def test_a_wrap_target_outside_the_range_is_an_error_at_the_range(tmp_path):
    # it would store 9 in a var said to hold 0..3, silently
    [(line, col, msg)] = problems(tmp_path, "var k: int = 0 range 0..3 wrap 9")
    assert (line, col) == (4, 16)
    assert msg == "`wrap 9` sends `k` out of its range 0..3: wrap to a number in the range"


def test_a_written_initial_value_outside_a_range_that_neither_clamps_nor_wraps_is_an_error_at_check(tmp_path):
    [(line, col, msg)] = problems(tmp_path, "var m: int = -1 range 0..3")
    assert (line, col) == (4, 14)
    assert msg.startswith("`m` starts at -1, out of its range 0..3")


def test_each_written_item_of_a_per_seat_initial_list_is_held_to_the_range(tmp_path):
    [(line, col, msg)] = problems(tmp_path, "var m: int per seat = [1, 9] range 0..3")
    assert (line, col) == (4, 27) and msg.startswith("`m` starts at 9")


def test_a_per_seat_initial_list_of_another_length_than_the_seats_is_an_error_at_check(tmp_path):
    [(line, col, msg)] = problems(tmp_path, "var z: int per seat = [1, 2, 3]")
    assert (line, col) == (4, 23)
    assert msg.startswith("`z` is kept per seat: its initial list has 3 values for 2 seats")


def test_what_the_range_holds_to_it_and_one_value_for_every_slot_are_fine(tmp_path):
    p = tmp_path / "ok.vbr"
    p.write_text('game "x"\nseats 2\nstart p\nvar c: int = 7 range 0..3 clamp\nvar w: int = 0 range 0..3 wrap 1\n'
                 'var a: int per seat = 3\nvar b: int per seat = [1, 2] range 0..3\n'
                 'var l: list of int per seat = [1, 2, 3]\nphase p {\n  end draw\n}\n')
    assert checked_model(p).vars["l"].count == 2
