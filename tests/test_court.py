"""Court geometry: frames, field numbering, exact-distance trajectories."""
import pytest

from vbr.court import Court
from vbr.values import Cell

FWD, BACK, LEFT, RIGHT = (0, 1), (0, -1), (-1, 0), (1, 0)


def court(net=0):
    return Court(2, 3, net, {1: (2, 1), 2: (2, 2), 3: (2, 3), 4: (1, 3), 5: (1, 2), 6: (1, 1)}, {"serve": (0, 4)})


def test_each_side_has_its_own_frame():
    c = court()
    # forward from side 0's front row crosses to side 1's front row; the two halves face each other
    assert c.side(c.step(c.field(0, 2), FWD, 0, 1)) == 1
    assert c.number(c.step(c.field(0, 2), FWD, 0, 1)) == 2
    # side 1's own left is side 0's right
    assert c.number(c.step(c.field(1, 2), LEFT, 1, 1)) == 1
    assert c.step(c.field(1, 1), LEFT, 1, 1) == Cell(3, 2)
    assert not c.in_court(Cell(3, 2))
    # backward from the back row leaves the court
    assert c.side(c.step(c.field(0, 5), BACK, 0, 1)) == -1
    assert (c.row(c.field(1, 1)), c.col(c.field(1, 1))) == (2, 1)


def test_a_space_belongs_to_a_side_but_is_off_the_court_proper():
    c = court()
    s = c.space("serve", 0)
    assert c.side(s) == 0 and (c.row(s), c.col(s)) == (0, 4)
    assert not c.in_court(s) and not c.in_grid(s)


def test_reach_starts_from_a_space_but_never_ends_on_one():
    c = Court(2, 3, 0, {4: (1, 3), 3: (2, 3)}, {"serve": (0, 3)})  # the space behind field 4
    assert c.reach(c.space("serve", 0), 1, 0, [FWD]) == (c.field(0, 4),)
    assert c.reach(c.space("serve", 0), 2, 0, [FWD]) == (c.field(0, 3),)
    assert c.reach(c.field(0, 4), 1, 0, [BACK]) == ()  # not onto the serve space
    assert c.reach(c.field(0, 3), 2, 0, [BACK]) == ()  # nor through it


def test_step_with_a_free_net_crosses_it_without_paying():
    c = court(net=1)
    front = c.field(0, 2)
    assert c.on_net(c.step(front, FWD, 0, 1))                     # the net row costs a step
    assert c.step(front, FWD, 0, 1, 0) == c.field(1, 2)           # free: straight across
    assert c.step(front, FWD, 0, 2, 0) == c.field(1, 5)           # and on to the back row
    assert c.step(front, FWD, 0, 3, 2) == c.field(1, 2)           # a net of 2: 2 + 1 to cross
    assert c.step(c.field(0, 5), FWD, 0, 1, 0) == front           # no net on the way: as ever
    assert c.step(front, BACK, 0, 1, 0) == c.field(0, 5)


def test_cell_at_counts_rows_and_columns_in_the_sides_own_frame():
    c = court()
    assert c.cell(0, 2, 1) == c.field(0, 1) and c.cell(1, 2, 1) == c.field(1, 1)
    assert c.cell(1, 1, 3) == c.field(1, 4)
    assert c.cell(0, 0, 4) == c.space("serve", 0)


def test_reach_exact_distance_never_reverses():
    c = court()
    start = c.field(0, 5)  # back middle
    ends = c.reach(start, 2, 0, [FWD, BACK, LEFT, RIGHT])
    # two steps, no reversing on either axis: forward twice, forward+side, side twice are out (cols 1..3)
    assert c.field(1, 2) in ends        # forward, forward: over the net
    assert c.field(0, 1) in ends and c.field(0, 3) in ends  # forward then sideways
    assert start not in ends            # forward then back would reverse
    assert all(c.in_court(e) for e in ends)


def test_net_rows_cost_distance_and_are_never_a_landing_spot():
    c = court(net=1)
    start = c.field(0, 2)
    assert c.reach(start, 1, 0, [FWD]) == ()            # one step lands on the net: not allowed
    assert c.reach(start, 2, 0, [FWD]) == (c.field(1, 2),)
    # with the net free (a serve ignoring it), one step reaches the other side
    assert c.reach(start, 1, 0, [FWD], net_cost=0) == (c.field(1, 2),)


def test_net_cost_is_charged_per_net_row_and_the_ball_never_runs_along_the_net():
    c = court(net=1)
    start = c.field(0, 2)
    # a net that costs 2: forward twice lands on the net (not allowed), three steps cross
    assert c.reach(start, 2, 0, [FWD], net_cost=2) == ()
    assert c.reach(start, 3, 0, [FWD], net_cost=2) == (c.field(1, 2),)
    # free net, two steps: across and then one more step; never sideways while on the net
    ends = c.reach(start, 2, 0, [FWD, LEFT, RIGHT], net_cost=0)
    assert c.field(1, 5) in ends                 # straight on to the back row
    assert c.field(1, 1) in ends and c.field(1, 3) in ends  # across, then sideways
    assert c.field(1, 4) not in ends and c.field(1, 6) not in ends  # would need a step along the net


def test_cells_of_a_side_are_its_fields_in_number_order_every_time():
    """`cells(side)` is worked out once per side and then handed out again: the same fields in
    number order at the second ask as at the first, and a side that has no fields still fails
    every time (nothing remembered for it)."""
    c = court()
    for side in (0, 1):
        first = c.cells(side)
        assert first == tuple(c.field(side, n) for n in range(1, 7))
        assert c.cells(side) == first
    for _ in range(2):
        with pytest.raises(KeyError):
            c.cells(2)


GEOMETRY = '''game "geometry"
seats 2
enum Spot { serve }
court {
  rows 2
  cols 3
  net 1
  field 1 at row 2 col 1
  field 2 at row 2 col 2
  field 3 at row 2 col 3
  field 4 at row 1 col 3
  space serve at row 0 col 3
}
direction forward = (0, 1)
direction backward = (0, -1)
start p
phase p {
  end winner 0
}
'''

GEOMETRY_TESTS = '''tests for "geometry.vbr"
scenario "cell_at, step with a net cost, and a space off the court" {
  expect cell_at(0, 2, 1) == field(0, 1)
  expect cell_at(1, 1, 3) == field(1, 4)
  expect number(cell_at(0, 1, 1)) == 0 and in_court(cell_at(0, 1, 1))
  expect cell_at(0, 0, 3) == space(serve, 0)
  expect not in_court(space(serve, 0)) and side(space(serve, 0)) == 0
  expect not in_court(step(field(0, 4), backward, 0, 1))
  expect on_net(step(field(0, 1), forward, 0, 1))
  expect step(field(0, 1), forward, 0, 1, 0) == field(1, 3)
  expect step(field(0, 1), forward, 0, 1, 1) == step(field(0, 1), forward, 0, 1)
  expect reach(space(serve, 0), 1, 0, [forward]) == [field(0, 4)]
  expect reach(field(0, 4), 1, 0, [backward]) == []
}
scenario "a negative net cost is a located fault" {
  expect step(field(0, 1), forward, 0, 1, -1) == field(1, 3)
}
'''


@pytest.mark.parametrize("engine", ["python", "c"])
def test_the_geometry_built_ins_in_a_rule_file(tmp_path, engine):
    from vbr.scenario import run_file
    (tmp_path / "geometry.vbr").write_text(GEOMETRY)
    (tmp_path / "t.vbr").write_text(GEOMETRY_TESTS)
    ok, bad = run_file(tmp_path / "t.vbr", engine=engine)
    assert ok.ok, ok.message
    assert not bad.ok and "`step`'s net cost is -1: it must be 0 or more" in bad.message
