"""The state's fixed layout: one array of 64-bit integers, the same in every engine.

    header | random streams | vars | things: kind, zone, revealed, fields | zones | options | stack

A thing's fields are `width` consecutive words from `fields + id * width`. A zone is a count then
`things` words (its items from the bottom up). The stack holds frames `[previous frame, unit, pc,
locals...]`; the array is used up to `Header.TOP`, so a copy of a state copies only that much.
Every bound here comes from the checked program (`vbr.ir.build`) or a documented limit.
"""
from __future__ import annotations

from dataclasses import dataclass


class Header:
    STATUS = 0   # RUNNING, CHOICE, OVER or FAULT
    WINNER = 1   # the winning seat or team, NONE for a draw
    STEPS = 2    # steps counted so far (the `steps` limit: vbr.ir.steps)
    CHOICES = 3  # choices made so far (the `choices` limit)
    FP = 4       # where the top frame starts (-1: none)
    SEAT = 5     # at a choice: who answers
    SITE = 6     # at a choice: which `choose` (Program.choices)
    NOPTS = 7    # at a choice: how many options
    DEST = 8     # at a choice: the word the answer lands in
    FAULT = 9    # after a fault: its message id
    THINGS = 10  # things created so far
    TOP = 11     # words in use
    RETURNED = 12  # the value the last procedure returned
    WINNER_TEAM = 13  # 1 when a team as a whole won
    DEPTH = 14   # frames on the stack
    FAULT_A = 15  # after a fault: the values its message names
    FAULT_B = 16
    LOG = 17     # while the C engine runs a logged call: the function that hears its events, else 0
    ITEMS = 18   # items aggregates and comprehensions went through (ITEMS_PER_STEP for each of the `steps` limit)
    SIZE = 20


RUNNING, CHOICE, OVER, FAULT = 0, 1, 2, 3
ITEMS_PER_STEP = 64  # the items an aggregate or a comprehension goes through that the `steps` limit allows per step
FRAME_HEAD = 3  # previous frame, unit, pc


@dataclass
class Layout:
    streams: int      # where the random streams start
    nstreams: int
    vars: int         # where the vars start
    nvars: int
    things: int       # most things a game may hold
    kinds: int        # where things' kinds start (things words)
    zone_of: int      # where things' zones start
    revealed: int     # where things' revealed flags start
    fields: int       # where things' fields start (things * width words)
    width: int
    zones: int        # where the zones start
    nzones: int
    zone_size: int    # 1 + things
    options: int      # where a choice's options start
    max_options: int
    stack: int        # where the stack starts
    max_frame: int    # the largest frame, head included
    depth: int        # most frames at once
    copies: int = 0   # words for the lists frames copy onto the stack (`Collect`)
    frames: int = -1  # most words the frames on the stack take at once; -1: depth frames at their largest
    values: int = -1  # the vars' own words from `vars` on (lists' included); past them, up to `nvars`, the
    #                   heavy fns' working words and a scenario's queues; -1: all nvars words

    @property
    def words(self) -> int:
        """The most words a state can use: the frames at their most, and the copies."""
        frames = self.frames if self.frames >= 0 else self.depth * self.max_frame
        return self.stack + frames + self.copies

    def zone(self, z: int) -> int:
        return self.zones + z * self.zone_size


def make_layout(nstreams: int, nvars: int, things: int, width: int, nzones: int, max_options: int,
                max_frame: int, depth: int, copies: int = 0, frames: int = -1, values: int = -1) -> Layout:
    streams = Header.SIZE
    var_at = streams + nstreams
    kinds = var_at + nvars
    zone_of = kinds + things
    revealed = zone_of + things
    fields = revealed + things
    zones = fields + things * width
    options = zones + nzones * (1 + things)
    stack = options + max_options
    return Layout(streams, nstreams, var_at, nvars, things, kinds, zone_of, revealed, fields, width, zones, nzones,
                  1 + things, options, max_options, stack, max_frame, depth, copies, frames, values)
