"""The tables of `reach` with fixed directions and net cost (vbr.ir.reach_tables) are worked out
once per process and shared by the programs built for an equal court, directions and net cost
(a scenario group, an option set); a court of another geometry, other directions or another net
cost gets a table of its own, each row the court's own answer (Court.reach)."""
import pytest

from vbr.court import Court
from vbr.ir.reach_tables import reach_table
from vbr.ir.values import cell
from vbr.values import Cell

FWD, RIGHT = (0, 1), (1, 0)
FIELDS = {1: (2, 1), 2: (2, 2), 3: (2, 3), 4: (1, 3), 5: (1, 2), 6: (1, 1)}


def court(rows=2, net=0, serve=(0, 4)):
    return Court(rows, 3, net, FIELDS, {"serve": serve})


def _answers_of(c: Court, vecs, net_cost) -> dict:
    """Every row a table holds, as the court's own `reach` answers it."""
    longest = c.cols + c.height + 1
    starts = [Cell(x, y) for x in range(-1, c.cols + 1) for y in range(-1, c.height + 1)]
    starts += [c.space("serve", side) for side in (0, 1)]
    return {(cell(*s), d, side): [cell(*x) for x in c.reach(s, d, side, vecs, net_cost)]
            for s in starts for d in range(longest + 1) for side in (0, 1)}


BASE = (court(net=1), [FWD], 1)


@pytest.mark.parametrize("other", [
    (court(rows=3, net=1), [FWD], 1),  # the geometry: another row per side
    (court(net=2), [FWD], 1),  # the geometry: another band of net rows
    (court(net=1, serve=(-1, 2)), [FWD], 1),  # the geometry: the space two rows behind the court
    (court(net=1), [FWD, RIGHT], 1),  # the directions
    (court(net=1), [FWD], 0),  # the net cost
], ids=["rows", "net rows", "space", "directions", "net cost"])
def test_a_table_for_a_court_directions_or_net_cost_of_its_own_is_not_anothers(other):
    base, _ = reach_table(*BASE)
    table, bound = reach_table(*other)
    answers = _answers_of(*other)
    assert table is not base and table != base
    assert {key: table[key] for key in answers} == answers
    assert bound == max(len(row) for row in table.values())


def test_equal_courts_directions_and_net_costs_share_one_table_whose_rows_are_the_courts_answers():
    table, _ = reach_table(court(net=1), [FWD, RIGHT], 1)
    again, _ = reach_table(court(net=1), [(0, 1), (1, 0)], 1)  # another Court, equal vectors
    assert again is table
    answers = _answers_of(court(net=1), [FWD, RIGHT], 1)
    assert {key: table[key] for key in answers} == answers
