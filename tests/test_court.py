"""Court geometry: frames, field numbering, exact-distance trajectories."""
import pytest

from vbr.interpreter.court import Court
from vbr.interpreter.values import Cell

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


def test_spaces_are_in_play_and_belong_to_a_side():
    c = court()
    s = c.space("serve", 0)
    assert c.in_court(s) and c.side(s) == 0 and not c.in_grid(s)


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


@pytest.mark.parametrize("net", [0, 1, 2])
def test_lookup_tables_answer_as_the_methods_do(net):
    """Lowered code reads `number`, `side`, `row`, `col`, `in_court` and `on_net` from
    Court.table: the same answer as the method for every cell on, around and far off the court."""
    court = Court(2, 3, net, {1: (2, 1), 2: (2, 2), 3: (2, 3), 4: (1, 3), 5: (1, 2), 6: (1, 1)}, {"serve": (0, 3)})
    cells = [Cell(x, y) for x in range(-4, court.cols + 4) for y in range(-4, court.height + 4)]
    for method in ("number", "side", "row", "col", "in_court", "on_net"):
        table, default = court.table(method)
        fn = getattr(court, method)
        for c in cells:
            assert table.get(c, default) == fn(c), (method, c)
