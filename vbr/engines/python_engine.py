"""The Python engine: a typed program's generated Python (python_source.py) and the loop that
runs it. A state is a list of ints (`vbr.ir.layout`); the engine runs it until a choice point,
the end or a fault, and never decides a choice itself.
"""
from __future__ import annotations

import threading
from array import array
from functools import cached_property

from vbr.collector import uncollected
from vbr.engines.python_runtime import EngineFault, next_words
from vbr.engines.python_source import python_parts, python_source
from vbr.engines.unit_call import call_unit
from vbr.ir import nodes as N
from vbr.ir.build import CELL_FAULT, CHOICE_FAULT, COPY_FAULT, DEPTH_FAULT
from vbr.ir import random_streams as R
from vbr.ir.layout import CHOICE, FAULT, RUNNING, Header as H
from vbr.ir.values import NONE

TRACK_ROWS = 4096  # score changes a game's track keeps (play_seats)
DRAWN_TOGETHER = 32  # an agent stream's words worked out at once
COMPILED_CHARS = 100_000  # characters of generated Python compiled at once (the compiler's memory grows with them)


class PythonEngine:
    """Runs one typed program's states. `name` goes into results and logs."""

    name = "python"

    @uncollected()
    def __init__(self, program: N.Program):
        self.program = program
        self.layout = program.layout
        self.keys = [R.key(k) for k in program.streams]
        tables = program.court_tables or {}
        self._base = {
            "FIELDS_OF": {k: v for k, v in tables.get("fields", {}).items()},
            "DIRS": tuple(program.directions),
            "DEPTH_FAULT": DEPTH_FAULT,
            "COPY_FAULT": COPY_FAULT,
            "CELL_FAULT": CELL_FAULT,
            "REACH": program.reach_tables,
            "LOG": None,
            "AUTO": None,
            "field_missing": _field_missing,
        }
        name = f"<vbr python engine: {program.title}>"
        self._codes = [compile(text, name, "exec") for text in _runs(python_parts(program), COMPILED_CHARS)]
        self._mine = threading.local()  # this thread's namespace of the generated code (namespace)
        self._own_namespace()  # the loading thread's, made now: a bad program fails at load
        self.step_limit = program.limits["steps"]
        self.choice_limit = program.limits["choices"]

    @cached_property
    def source(self) -> str:
        """The generated module's text (made again when read: the engine keeps only its code)."""
        return python_source(self.program)

    @property
    def namespace(self) -> dict:
        """The generated code's globals for the calling thread: its units (UNITS), and the log
        (LOG) and in-play agent (AUTO) it hears while this thread runs a state. Each thread has
        its own, the code run in it once when the thread first plays, so that threads playing
        at once (docs/api.md, play_game) never hear each other's log or agent."""
        try:
            return self._mine.space
        except AttributeError:
            return self._own_namespace()

    @property
    def units(self) -> tuple:
        """The calling thread's functions of the program's units (namespace's UNITS)."""
        try:
            return self._mine.units
        except AttributeError:
            return self._own_namespace()["UNITS"]

    def _own_namespace(self) -> dict:
        """The calling thread's namespace, made: the generated code run in a copy of its tables."""
        space = dict(self._base)
        for code in self._codes:
            exec(code, space)
        self._mine.space, self._mine.units = space, space["UNITS"]
        return space

    def new(self, seed: int, log=None) -> list:
        """A state seeded with `seed`, run to its first choice (or its end)."""
        S = self.held(seed)
        p = self.program
        S += [-1, p.init, 0] + [NONE] * p.units[p.init].nlocals
        S[H.TOP] = len(S)
        S[H.DEPTH] = 1
        self.run(S, log)
        return S

    def held(self, seed: int) -> list:
        """A state seeded with `seed` before anything has run: no frame on its stack."""
        lay = self.layout
        S = [0] * lay.stack
        S[H.FP] = lay.stack
        S[H.TOP] = lay.stack
        S[H.WINNER] = S[H.RETURNED] = S[H.FAULT_A] = S[H.FAULT_B] = NONE
        for k, key in enumerate(self.keys):
            S[lay.streams + k] = R.signed(R.first_state(seed, key))
        return S

    def call(self, S: list, unit: int, log=None) -> int | None:
        """Run `unit` (one without parameters) at once, above the frames play holds, as a
        procedure called where play stands (vbr.engines.unit_call says what it gives back)."""
        def run():
            fp = len(S)
            S.extend([S[H.FP], unit, 0] + [NONE] * self.program.units[unit].nlocals)
            S[H.FP], S[H.TOP], S[H.DEPTH], S[H.STATUS] = fp, len(S), S[H.DEPTH] + 1, RUNNING
            space = self.namespace
            space["LOG"] = log
            try:
                space["UNITS"][unit](S, fp, 0)
            finally:
                space["LOG"] = None
                S[H.TOP] = len(S)
        return call_unit(S, run)

    def goto(self, S: list, unit: int, log=None) -> None:
        """Every frame dropped and play started in phase `unit`, run to a choice or the end."""
        del S[self.layout.stack:]
        S += [-1, unit, 0] + [NONE] * self.program.units[unit].nlocals
        S[H.FP], S[H.TOP], S[H.DEPTH], S[H.STATUS] = self.layout.stack, len(S), 1, RUNNING
        self.run(S, log)

    def run(self, S: list, log=None) -> None:
        """Play on until a choice, the end or a fault; `log(S, what, *args)` hears says and phases."""
        if log is None:
            _run(self.units, S)
            return
        space = self.namespace
        space["LOG"] = log
        try:
            _run(space["UNITS"], S)
        finally:
            space["LOG"] = None

    def options(self, S: list) -> list[int]:
        at = self.layout.options
        return S[at:at + S[H.NOPTS]] if S[H.STATUS] == CHOICE else []

    def apply(self, S: list, i: int, log=None) -> None:
        """Option i of the pending choice is the answer; play goes on. i is trusted."""
        S[S[H.DEST]] = S[self.layout.options + i]
        choices = S[H.CHOICES] = S[H.CHOICES] + 1
        if choices > self.choice_limit:
            S[H.STATUS], S[H.FAULT], S[H.FAULT_A], S[H.FAULT_B] = FAULT, CHOICE_FAULT, NONE, NONE
            return
        S[H.STATUS] = RUNNING
        self.run(S, log)

    def play_seats(self, S: list, streams: list[int], kinds: list[int], stats: list[int], track: list,
                   samples: list[int] | None = None) -> list[int]:
        """Play on while the seat to move is random (kinds[seat] == 0): its pick of k options is one
        draw below k from its stream; a seat of any other kind (python_runtime's GREEDY_SEAT and
        FIRST_SEAT too, which the C engine plays on, a greedy one with its `samples`) is left to
        be played by hand. `stats` = [options offered, one-option choices, the first
        chooser or -1, rows of `track`, then the points as they last were]; `track` gets
        (choices made, points) each time the points change, while it holds fewer than TRACK_ROWS.
        Returns the streams as they are left."""
        points = self.program.points
        auto = Autoplay(list(streams), kinds, stats, track, self.layout.vars + points[0] if points else 0,
                        points[1] if points else 0)
        if stats[2] < 0 and S[H.STATUS] == CHOICE and not kinds[S[H.SEAT]]:
            stats[2] = S[H.SEAT]  # the first choice of all is answered here
        self._autoplay(S, auto)
        stats[0] += sum(auto.offered)
        stats[1] += auto.offered.count(1)
        return [auto.stream(seat) & R.MASK for seat in range(len(streams))]

    def whole_games(self, repeating: tuple | None, reads: tuple):
        """A function playing a whole game with every seat random, as CEngine.whole_games does and
        giving what it gives: `play(seed)` returns (the state's status, its words, and as bytes
        of 64-bit words in the machine's order: [status, winner, winner's team + 1 or 0, choices,
        options offered, one-option choices, the first chooser or -1, the first chooser in a
        repeating phase (none when play reached none; -1 when `repeating` is None), rows of
        track, the points, the words `reads` names], then the score track's rows, each the
        choices made and the points). Each seat's stream is random_streams.agent_stream's.
        `play.words(seed)` is the words of the game's end, played again."""
        points = self.program.points
        at, count = (self.layout.vars + points[0], points[1]) if points else (0, 0)
        phase_word = self.layout.stack + 1  # the running phase's unit (the bottom frame's)
        seats = range(self.program.seats)
        everyone = [0] * len(seats)

        def play(seed: int) -> tuple:
            S = self.new(seed)
            streams = [R.agent_stream(seed, seat) for seat in seats]
            stats = [0, 0, -1, 0, *S[at:at + count]]
            track: list = []
            first_move = -1 if repeating is None else NONE
            while repeating is not None and S[H.STATUS] == CHOICE:  # the set-up: up to a repeating phase
                if repeating[S[phase_word]]:
                    first_move = S[H.SEAT]
                    break
                self._play_one(S, streams, stats, track, at, count)
            if S[H.STATUS] == CHOICE:
                self.play_seats(S, streams, everyone, stats, track)
            packed = [S[H.STATUS], S[H.WINNER], S[H.WINNER_TEAM], S[H.CHOICES], stats[0], stats[1], stats[2],
                      first_move, stats[3], *stats[4:], *(S[w] for w in reads)]
            for choices, now in track:
                packed += (choices, *now)
            return S[H.STATUS], S, array("q", packed).tobytes()
        play.words = lambda seed: play(seed)[1]  # the game's final state, played again (CEngine.whole_games)
        return play

    def _play_one(self, S: list, streams: list[int], stats: list[int], track: list, at: int, count: int) -> None:
        """One choice of the seat to move, drawn below its options from its stream and counted as
        play_seats counts it (the C engine's vbr_play_one)."""
        k, seat = S[H.NOPTS], S[H.SEAT]
        stats[2] = seat if stats[2] < 0 else stats[2]
        stats[0] += k
        stats[1] += k == 1
        streams[seat], i = R.below(streams[seat], k)
        self.apply(S, i)
        now = S[at:at + count]
        if now != stats[4:]:
            _scored(S, now, stats, track)

    def play_random(self, S: list, agent_seed: int) -> None:
        """Every choice answered uniformly at random from the agents' stream until the end."""
        self._autoplay(S, RandomAnswers(R.first_state(agent_seed, R.AGENT_KEY)))

    def _autoplay(self, S: list, auto: "Autoplay | RandomAnswers") -> None:
        """Choices answered by `auto` as play reaches them (the generated code asks it, `AUTO`),
        each applied as `apply` applies it, until a seat it does not play is to move or the end."""
        space = self.namespace
        space["AUTO"] = auto.pick
        try:
            while S[H.STATUS] == CHOICE:
                i = auto.pick(S, S[H.SEAT], S[H.NOPTS])
                if i < 0:
                    break
                self.apply(S, i)
                auto.settle(S)
        finally:
            space["AUTO"] = None


class RandomAnswers:
    """play_random's answers (`pick`, as Autoplay gives them, counting nothing): of k options,
    a draw below k from one stream."""

    def __init__(self, state: int):
        self.state = state
        self.states = self.outs = ()  # the stream's next words (python_runtime.next_words) ...
        self.used = DRAWN_TOGETHER  # ... and how many of them are drawn

    def pick(self, S: list, seat: int, k: int) -> int:
        d = self.used
        if d == DRAWN_TOGETHER:
            self.states, self.outs = next_words(self.state, DRAWN_TOGETHER)
            d = 0
        m = self.outs[d] * k
        if m & 0xFFFFFFFFFFFFFFFF < k:  # random_streams.below's redraw: one by one, the words ahead dropped
            self.state, i = R.below(self.state, k)
            self.used = DRAWN_TOGETHER
            return i
        self.state, self.used = self.states[d], d + 1
        return m >> 64

    def settle(self, S: list) -> None:
        pass


class Autoplay:
    """The random seats of play_seats: `pick(S, seat, k)` at a choice of k options
    (python_source._Unit.answered: the frame's pc written, not the choice's other words) settles
    the answer before (the points' change, `settle`) and returns the seat's draw below k from its
    stream (keeping k in `offered`), or -1 when a seat it does not play (kinds[seat] != 0) is to
    move."""

    def __init__(self, streams: list[int], kinds, stats: list[int], track: list, at: int, count: int):
        self.streams, self.kinds, self.stats, self.track = streams, kinds, stats, track
        self.at, self.end, self.count = at, at + count, count
        self.points = stats[4:4 + count]  # the points as the track last saw them
        self.pending, self.tracked = False, count != 0
        self.offered: list[int] = []
        # each stream's next words, worked out DRAWN_TOGETHER at a time (python_runtime.next_words):
        # the stream stands at the last of them used (`stream`), or at `streams` before any
        self.states, self.outs = [()] * len(streams), [()] * len(streams)
        self.used = [DRAWN_TOGETHER] * len(streams)

    def stream(self, seat: int) -> int:
        """The seat's stream's state as its draws have left it (either sign)."""
        d, states = self.used[seat], self.states[seat]
        return states[d - 1] if states and d else self.streams[seat]

    def pick(self, S: list, seat: int, k: int) -> int:
        if self.pending:
            self.pending = False
            if S[self.at:self.end] != self.points:
                self.scored(S)
        if self.kinds[seat]:
            return -1
        self.offered.append(k)
        d = self.used[seat]
        if d == DRAWN_TOGETHER:
            self.streams[seat] = base = self.stream(seat)
            self.states[seat], self.outs[seat] = next_words(base, DRAWN_TOGETHER)
            d = 0
        m = self.outs[seat][d] * k
        if m & 0xFFFFFFFFFFFFFFFF < k:  # random_streams.below's redraw: one by one, the words ahead dropped
            self.streams[seat], i = R.below(self.states[seat][d - 1] if d else self.streams[seat], k)
            self.states[seat] = ()
            self.used[seat] = DRAWN_TOGETHER
        else:
            i = m >> 64
            self.used[seat] = d + 1
        self.pending = self.tracked
        return i

    def settle(self, S: list) -> None:
        """After an answer: a row of the track when the points changed."""
        self.pending = False
        if self.count and S[self.at:self.end] != self.points:
            self.scored(S)

    def scored(self, S: list) -> None:
        self.points = S[self.at:self.end]
        _scored(S, self.points, self.stats, self.track)


def _scored(S: list, now: list, stats: list[int], track: list) -> None:
    """The points changed to `now`: kept in stats[4:], and a row of `track` (the choices made,
    the points) while it holds fewer than TRACK_ROWS (counted in stats[3])."""
    stats[4:4 + len(now)] = now
    if stats[3] < TRACK_ROWS:
        track.append((S[H.CHOICES], tuple(now)))
        stats[3] += 1


def _run(units: tuple, S: list) -> None:
    """Each unit's function runs the frame on top until the state is no longer running. The
    generated code keeps the state's words in use as long as the list (Header.TOP is len(S)
    throughout) and writes TOP only here, where play leaves it."""
    try:
        while S[0] == RUNNING:  # Header.STATUS
            fp = S[4]  # Header.FP
            units[S[fp + 1]](S, fp, S[fp + 2])
    except EngineFault as f:
        S[H.STATUS], S[H.FAULT], S[H.FAULT_A], S[H.FAULT_B] = FAULT, f.fault, f.a, f.b
    finally:
        S[H.TOP] = len(S)


def _field_missing(side: int, number: int, fault: int):
    raise EngineFault(fault, side, number)


def _runs(parts: list[str], chars: int) -> list[str]:
    """The parts joined, in order, into texts of at most `chars` characters (a longer part a text
    of its own)."""
    runs: list[list[str]] = [[]]
    size = 0
    for part in parts:
        if runs[-1] and size + len(part) > chars:
            runs.append([])
            size = 0
        runs[-1].append(part)
        size += len(part) + 2
    return ["\n\n".join(run) + "\n" for run in runs]
