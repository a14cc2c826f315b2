"""Which agents sit in which seats when a run rotates the seats: the seatings each deal is played in.

A run that rotates the seats plays every deal (a game seed) once in each of its seatings. Where
every side that has seats has as many seats as every other (two single seats, two pairs), the
seatings are the cyclic rotations of the agents over the seats (`seatings`): each agent given
sits in each seat once a deal, and so on each side as often as on any other.

Where the sides differ in size (a pair against one seat), a rotation over the seats puts an agent
on a side as often as that side has seats: on the pair in 2 of 3 seatings. `seating_cycle` then
plays the side-balanced seatings of `balanced_cycle` when the agents allow them (one agent, the
filler, given more than once, every other agent once), else the rotations, whose spread over the
sides `spread` tells.
"""
from __future__ import annotations

from collections import Counter
from math import lcm


def seatings(agents) -> list[tuple]:
    """The distinct cyclic rotations of the agents over the seats, the given order first: seating k
    puts the agent given for seat (s + k) mod n in seat s. Two agents: (a, b), then (b, a); agents
    that repeat give fewer seatings ((a, b, a, b) has two)."""
    agents = tuple(agents)
    out: list[tuple] = []
    for k in range(len(agents)):
        seating = agents[k:] + agents[:k]
        if seating not in out:
            out.append(seating)
    return out


def seating_cycle(agents, sides=()) -> list[list[tuple]]:
    """The seatings of each deal of a run that rotates the seats: deal d is played in each seating
    of `cycle[d % len(cycle)]`, in order, and every deal in as many. `sides`: the side of each seat
    (its team; empty: each seat its own side). The `balanced_cycle` when the sides differ in size
    and the agents allow it; else one deal's worth, the rotations (`seatings`)."""
    return balanced_cycle(agents, sides) or [seatings(agents)]


def side_seats(sides) -> list[list[int]]:
    """The seats of each side that has seats, in seat order, the sides in the order of their numbers."""
    by_side: dict = {}
    for seat, side in enumerate(sides):
        by_side.setdefault(side, []).append(seat)
    return [by_side[side] for side in sorted(by_side)]


def unequal_sides(sides) -> bool:
    """Whether the sides that have seats differ in how many they have."""
    return len({len(seats) for seats in side_seats(sides)}) > 1


def balanced_cycle(agents, sides) -> list[list[tuple]] | None:
    """Side-balanced seatings for sides of unequal size, or None where the sides are equal or the
    agents do not allow them.

    They need one agent given more than once (the filler) and every other agent (the players
    compared) given once, few enough to spread evenly: with T sides, at most T times the seats of
    the smallest side. Then each deal has T seatings: in seating r the j-th player (in the order
    given) sits on side (t0 + j + r) mod T, so each player is on every side once a deal; on its
    side the players there sit, in the order given, from position (p0 + d) mod size of the side's
    seats on, in deal d, so over lcm(sizes) deals each player sits in every seat of a side equally
    often; the filler takes the other seats. t0 and p0 are the side and position the first player
    is given, so that with one player deal 0 plays the agents as given first.
    Each seating puts a player on one side only; the filler may sit on several at once."""
    agents, teams = tuple(agents), side_seats(sides)
    if len(sides) != len(agents) or not unequal_sides(sides):
        return None
    repeated = [name for name, k in Counter(agents).items() if k > 1]
    if len(repeated) != 1:
        return None
    filler = repeated[0]
    players = [name for name in agents if name != filler]
    if not players:
        return None
    sizes = [len(seats) for seats in teams]
    if -(-len(players) // len(teams)) > min(sizes):
        return None
    first = agents.index(players[0])
    t0 = next(t for t, seats in enumerate(teams) if first in seats)
    p0 = teams[t0].index(first)
    return [[_seating(players, filler, teams, (t0 + r) % len(teams), p0 + d) for r in range(len(teams))]
            for d in range(lcm(*sizes))]


def _seating(players: list, filler, teams: list[list[int]], start: int, shift: int) -> tuple:
    """Player j on side (start + j) mod T, the players of a side from position `shift` of its seats
    on (wrapping round), the filler in every other seat."""
    seating = [filler] * sum(map(len, teams))
    for t, seats in enumerate(teams):
        here = [name for j, name in enumerate(players) if (start + j) % len(teams) == t]
        for rank, name in enumerate(here):
            seating[seats[(shift + rank) % len(seats)]] = name
    return tuple(seating)


def spread(cycle: list[list[tuple]], sides) -> dict[str, dict]:
    """How the agents sit on the sides over the seatings of a cycle (`seating_cycle`): for each
    agent, in the order first seated, `sides` the seatings in which it has a seat on each side
    (by side number, in order) and `several` those in which it has seats on more than one."""
    out: dict[str, dict] = {}
    for seating in (s for deal in cycle for s in deal):
        on: dict = {}
        for seat, name in enumerate(seating):
            on.setdefault(name, set()).add(sides[seat])
        for name, its in on.items():
            entry = out.setdefault(name, {"sides": {side: 0 for side in sorted(set(sides))}, "several": 0})
            for side in its:
                entry["sides"][side] += 1
            entry["several"] += len(its) > 1
    return out
