"""Game states: plain data (values, zones, entities, frames, one RNG int) plus the VM that runs them.

A state runs until it reaches a choice point or the end. The legal choices come from the one
generator in the compiled rules; agents only pick among them (python-chess's push/push_san split:
`apply` checks legality, `apply_index` trusts the index).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import lru_cache

from vbr.errors import Diagnostic, IllegalActionError, InvalidActionError, StepLimitExceeded, VbrRuntimeError
from vbr.interpreter import rng as R
from vbr.interpreter.program import Frame, Program
from vbr.interpreter.scope import Fault, OverBudget
from vbr.actions import Action, Outcome  # noqa: F401 — read here by older callers
from vbr.values import ENT_IDS, Ent, ZoneRef, text
from vbr.values import kind as value_kind

FORCED_PICK = -1  # the key of `forced` whose values the next `pick`s return (dice use their index)


class ChanceNeeded(Exception):
    """A draw the state's chance oracle has not decided: `what` it is (`roll d`, `pick`,
    `shuffle deck[0], position 11`) and the `values` it draws one of, uniformly. The state is left
    in the middle of a step: a caller decides the outcome and replays the step from a copy made
    before it (vbr/rl/chance_nodes.py). Not a Fault: `State.run` lets it through."""

    def __init__(self, what: str, values):
        super().__init__(what)
        self.what = what
        self.values = values

    def outcomes(self) -> tuple[tuple[int, float], ...]:
        """(index, probability) per distinct value, in order: equal values (the two 1s of a die
        [1, 1, 2]) are one outcome, named by the first index holding it."""
        values = self.values
        return _outcomes(values, None if type(values) is range else tuple(map(type, values)))


class Chance:
    """An oracle for a state's draws: the outcomes decided outside it (by OpenSpiel's chance
    nodes), in order, each an index into the draw's values as `ChanceNeeded.outcomes` names them.
    The draw after the last one decided raises ChanceNeeded. Installed with `State.decide`."""

    __slots__ = ("decided", "used")

    def __init__(self, decided=()):
        self.decided = list(decided)
        self.used = 0

    def draw(self, what: str, values) -> int:
        i = self.used
        if i == len(self.decided):
            raise ChanceNeeded(what, values)
        self.used = i + 1
        return self.decided[i]


class _Routed(dict):
    """`forced` while an oracle decides the draws: true even when empty, so that the compiled
    `roll` (which draws in place while `forced` is empty and nothing is logged) calls State.roll."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return True


class State:
    """One game in progress. Every table is plain data; a card's or piece's fields are a tuple
    (`ent[e]`), replaced whole when a field changes, so that copies share the tuples."""

    __slots__ = ("prog", "vals", "zones", "where", "ent", "kind", "stack", "rng", "pending", "result",
                 "steps", "choices", "log", "forced", "chance", "phase", "trace", "hold_start", "fault_span",
                 "auto", "by_kind", "__weakref__")

    def __init__(self, prog: Program):
        self.prog = prog

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, prog: Program, seed: int, record: bool = False, hold_start: bool = False,
            trace: bool = False, sink: list | None = None, run_setup: bool = True,
            chance: "Chance | None" = None) -> "State":
        """`run_setup=False` stops before setup runs (a scenario forces setup's chance first);
        `run()` then plays it. `chance` decides the draws from the first (a var's initial value
        may roll) instead of the generator (`decide`)."""
        st = cls(prog)
        if sink is not None:
            sink.append(st)
        st.vals = list(prog.fixed_vals)
        st.zones = [[] for _ in prog.zone_names]
        st.where, st.ent, st.kind = [], [], []
        st.stack = []
        st.rng = R.stream(seed)
        st.pending = st.result = None
        st.steps = st.choices = 0
        st.log = [] if record else None
        st.forced = {}
        st.chance = None
        if chance is not None:
            st.decide(chance)
        st.phase = ""
        st.trace = {} if trace else None
        st.hold_start = hold_start
        st.fault_span = None
        st.auto = None
        st.by_kind = {}
        for base, count, init in prog.var_init:
            v = _run_expr(st, init, prog)
            if isinstance(v, tuple) and count > 1:
                if len(v) != count:
                    raise VbrRuntimeError([Diagnostic(prog.model.vars[prog.var_names[base].split("[")[0]].decl.span,
                                                      f"initial list has {len(v)} values for {count} slots")])
                st.vals[base:base + count] = list(v)
            else:
                st.vals[base:base + count] = [v] * count
        if prog.setup is not None:
            st.stack.append(Frame(prog.setup))
        elif not hold_start:
            st.goto(prog.start, prog.phases[prog.start])
        if run_setup:
            st.run()
        return st

    def clone(self, rng=None) -> "State":
        """An independent copy (without a chance oracle); with `rng`, the copy draws from that
        generator instead of a copy of this state's. Cheap: cards' fields are shared tuples, and
        the generator is copied only when the copy (or this state) first draws from it
        (`_Deferred`), since copying a generator's state costs more than the rest of a clone."""
        c = State.__new__(State)
        c.prog = self.prog
        c.vals = self.vals[:]
        c.zones = [z[:] for z in self.zones]
        c.where = self.where[:]
        c.ent = self.ent[:]
        c.kind = self.kind[:]
        c.stack = [f.copy() for f in self.stack]
        if rng is None:
            r = self.rng
            if type(r) is _Deferred:
                r.shared.holders += 1
                c.rng = _Deferred(r.shared, c)
            else:
                shared = _Shared(r)
                self.rng = _Deferred(shared, self)
                c.rng = _Deferred(shared, c)
        else:
            c.rng = rng
        c.pending, c.result = self.pending, self.result
        c.steps, c.choices = self.steps, self.choices
        c.log = self.log[:] if self.log is not None else None
        c.forced = {k: v[:] for k, v in self.forced.items()} if self.forced else {}
        c.chance = None  # an oracle decides one run of one state: a copy draws from its generator
        c.phase = self.phase
        c.trace = dict(self.trace) if self.trace is not None else None
        c.hold_start = self.hold_start
        c.fault_span = None
        c.auto = None  # random seats answer for one play_random of one state
        c.by_kind = {}  # not shared: a copy may go on to make other things under the same ids
        return c

    # ------------------------------------------------------------------ the public API
    def is_terminal(self) -> bool:
        return self.result is not None

    def outcome(self) -> Outcome | None:
        return self.result

    def current_player(self) -> int | None:
        return self.pending.seat if self.pending is not None else None

    def legal_actions(self) -> list[Action]:
        p = self.pending
        if p is None:
            return []
        return [Action(p.seat, text(v, self.prog)) for v in p.options]

    def apply(self, action: "Action | str") -> None:
        """Make the pending choice named by `action` (an `Action`, or its text `SEAT VALUE` as
        `legal_actions` prints it). Anything else, or a choice not legal now, raises
        IllegalActionError (a ValueError) naming what is legal; text that is no action at all
        raises InvalidActionError."""
        if isinstance(action, str):
            action = Action.parse(action)
        p = self.pending
        if p is None:
            raise IllegalActionError("the game is over" if self.result else "no choice is pending")
        if not isinstance(action, Action):
            hint = "; to choose by position, use apply_index(i)" if isinstance(action, int) else ""
            raise IllegalActionError(f"{action!r} is not an Action or its text{hint}; {self._legal_text()}")
        if action.seat != p.seat:
            raise IllegalActionError(f"seat {action.seat} is not to choose; seat {p.seat} is")
        for i, v in enumerate(p.options):
            if text(v, self.prog) == action.text:
                self.apply_index(i)
                return
        raise IllegalActionError(f"{action} is not legal here; {self._legal_text()}")

    def _legal_text(self) -> str:
        return "legal: " + ", ".join(str(a) for a in self.legal_actions())

    def apply_value(self, value) -> None:
        """Apply the option equal to `value` (scenario tests name values, not texts)."""
        p = self.pending
        if p is None:
            raise IllegalActionError("no choice is pending")
        for i, v in enumerate(p.options):
            if v == value and type(v) is type(value) or (v is None and value is None):
                self.apply_index(i)
                return
        raise IllegalActionError(f"{text(value, self.prog)} is not legal here; legal: "
                                 f"{', '.join(text(v, self.prog) for v in p.options)}")

    def apply_index(self, i: int) -> None:
        """Make the pending choice by its position `i` in `legal_actions()` (0-based); a position
        out of range, or no pending choice, raises IllegalActionError."""
        p = self.pending
        if p is None or not hasattr(type(i), "__index__") or not 0 <= i < len(p.options):
            raise self._bad_index(i)
        value = p.options[i]
        if self.log is not None:
            self.record({"t": "choice", "seat": p.seat, "prompt": p.prompt, "action": text(value, self.prog),
                         "index": i, "kind": value_kind(value), "of": len(p.options),
                         **({"item": self.describe(value)} if isinstance(value, Ent) else {})})
        fr = self.stack[-1]
        fr.L[p.slot] = value
        fr.pc = p.next_pc
        self.pending = None
        self.choices += 1
        if self.choices > self.prog.choice_limit:
            raise self._too_many_choices(p)
        self.run()

    def _bad_index(self, i) -> IllegalActionError:
        if self.pending is None:
            return IllegalActionError("the game is over" if self.result else "no choice is pending")
        return IllegalActionError(f"{i!r} is not a position among the {len(self.pending.options)} legal actions "
                                  f"(0..{len(self.pending.options) - 1}); {self._legal_text()}")

    def points(self) -> tuple | None:
        if self.prog.points is None:
            return None
        base, n = self.prog.points
        return tuple(self.vals[base:base + n])

    # ------------------------------------------------------------------ the machine
    def run(self) -> None:
        """Run ops until a choice point or the end. Ops return True when they change control
        (a call, return, goto, emit, choice or end); each of those is a step, and so is every
        round of a loop and every item a loop, a comprehension or a choice goes through or a
        range builds (`scope.spend`, called by the ops themselves): one budget, `limit steps`,
        bounds the work of a whole game. The loop is `run_ops`."""
        run_ops(self)

    def play_random(self, draws: list, lo: int = 0, hi: int = 0, track: list | None = None) -> tuple[int, int]:
        """Play on to the end, every seat choosing uniformly at random: `draws[seat]` is its
        generator's `getrandbits`, and of k options it takes `(draws[seat](64) * k) >> 64`, as
        RandomAgent.act does. Returns (options offered in all, choices that offered one); with
        `track`, appends (choices, vals[lo:hi]) after each choice that changed those values (the
        score). Stops early, as `run` does, if the game stalls with no choice pending.

        While it plays, `auto` answers for the seats: the lowered code asks it where a choice is
        offered and goes on without suspending (lowering.py, `_Chain.answered`); a choice that
        suspends all the same (the closures, or near a limit) is answered in `play_ops`, as
        apply_index would answer it. Either way the same draws, steps and counts."""
        prog = self.prog
        self.auto = Autoplay(draws, self.vals[lo:hi] if track is not None else None, lo, hi, track,
                             prog.step_limit, prog.choice_limit)
        try:
            return play_ops(self, self.auto)
        finally:
            self.auto = None

    def _failure(self, exc: Exception, fr, limit: int) -> VbrRuntimeError | None:
        """What `run` raises for an exception out of an op: a located error, or None to let it
        through as it is (the VM's own errors, a chance oracle's question, anything unexpected)."""
        if isinstance(exc, OverBudget):
            return self._located(fr, _over_budget(limit, fr.code.name if fr else "setup"), StepLimitExceeded)
        if isinstance(exc, Fault):
            return self._located(fr, str(exc))
        if isinstance(exc, VbrRuntimeError):
            return None
        if isinstance(exc, MemoryError):
            return self._located(fr, "out of memory")
        if isinstance(exc, (TypeError, ValueError, IndexError, KeyError, AttributeError, RecursionError, ArithmeticError)):
            return self._located(fr, f"cannot evaluate this: {type(exc).__name__}: {exc}")
        return None

    def _over_limit(self, fr) -> StepLimitExceeded:
        limit = self.prog.step_limit
        top = self.stack[-1] if self.stack else fr
        return StepLimitExceeded([Diagnostic(top.code.spans[min(top.pc, len(top.code.spans) - 1)],
                                             _over_budget(limit, top.code.name))], self.prog.model.rules.sources)

    def _too_many_choices(self, p) -> StepLimitExceeded:
        return StepLimitExceeded([Diagnostic(p.span, f"choice limit of {self.prog.choice_limit} reached; "
                                             "does the game ever end? (raise it with `limit choices N`)")])

    def _located(self, fr, message: str, cls=VbrRuntimeError) -> VbrRuntimeError:
        if fr is None:
            from vbr.errors import Span
            return cls([Diagnostic(Span(file="<rules>"), message)])
        pc = min(fr.pc, len(fr.code.spans) - 1)
        span, self.fault_span = self.fault_span or fr.code.spans[pc], None
        return cls([Diagnostic(span, message)], self.prog.model.rules.sources)

    # ------------------------------------------------------------------ used by compiled ops
    def push(self, frame: Frame) -> bool:
        if len(self.stack) >= self.prog.depth_limit:
            raise Fault(f"calls nest deeper than {self.prog.depth_limit}; a procedure calling itself without end?")
        self.stack.append(frame)
        return True

    def pop(self) -> bool:
        self.stack.pop()
        return True

    def goto(self, name: str, code) -> None:
        if self.trace is not None:
            key = (self.phase, name)
            self.trace[key] = self.trace.get(key, 0) + 1
        if self.log is not None:
            self.record({"t": "phase", "phase": name})
        self.phase = name
        self.stack = [Frame(code, [None] * code.nlocals)]
        return True

    def setup_done(self) -> bool:
        self.stack = []
        if not self.hold_start:
            self.goto(self.prog.start, self.prog.phases[self.prog.start])
        return True

    def finish(self, winner) -> None:
        if winner is not None and not 0 <= winner < self.prog.seats:
            raise Fault(f"`end winner {winner}`: no such seat")
        team = self.prog.team_of[winner] if winner is not None else None
        self.result = Outcome(winner, self.points(), team)
        if self.log is not None:
            self.record({"t": "end", "winner": winner, "points": list(self.result.points or [])})
        return True

    def finish_team(self, team) -> bool:
        if not isinstance(team, int) or not 0 <= team < len(self.prog.teams):
            raise Fault(f"`end winner team {team}`: no such team (0..{len(self.prog.teams) - 1})")
        seats = self.prog.teams[team]
        # a team with no seat is played by the rules (a solo game's opponent): every seat loses
        self.result = Outcome(seats[0] if seats else None, self.points(), team, by_team=True)
        if self.log is not None:
            self.record({"t": "end", "team": team, "points": list(self.result.points or [])})
        return True

    def record(self, event: dict) -> None:
        self.log.append(event)

    def below(self, n: int) -> int:
        return (self.rng.getrandbits(64) * n) >> 64  # rng.below, written out: every die comes here

    def roll(self, die: int):
        forced = self.forced
        faces = self.prog.dice[die]
        if forced and forced.get(die):
            value = forced[die].pop(0)
        elif self.chance is not None:
            value = faces[self.chance.draw(f"roll {self.prog.die_names[die]}", faces)]
        else:
            value = faces[(self.rng.getrandbits(64) * len(faces)) >> 64]  # self.below, written out
        if self.log is not None:
            self.record({"t": "roll", "die": self.prog.die_names[die], "value": text(value, self.prog)})
        return value

    def pick(self, items: tuple):
        if not items:
            return None
        if self.forced:  # a scenario's forced pick, or an oracle (which makes `forced` true)
            v = self._decided_pick(items)
        else:
            v = items[self.below(len(items))]
        if self.log is not None:
            self.record({"t": "pick", "value": text(v, self.prog)})
        return v

    def _decided_pick(self, items: tuple):
        if self.forced.get(FORCED_PICK):
            return self._forced_pick(items)
        if self.chance is not None:
            return items[self.chance.draw("pick", items)]
        return items[self.below(len(items))]

    def _forced_pick(self, items: tuple):
        """The next value a scenario forced for `pick`: it must be one of the items on offer."""
        want = self.forced[FORCED_PICK].pop(0)
        for v in items:
            if v == want and type(v) is type(want):
                return v
        shown = ", ".join(text(v, self.prog) for v in items[:20]) + (", ..." if len(items) > 20 else "")
        raise Fault(f"the forced pick {text(want, self.prog)} is not among the items on offer ({shown})")

    def _decided_shuffle(self, z: int, items: list) -> None:
        """The same Fisher–Yates swaps, each position's partner decided by the oracle: n - 1
        draws for n things, from the last position down, position i swapping with one of 0..i."""
        name = self.prog.zone_names[z]
        for i in range(len(items) - 1, 0, -1):
            j = self.chance.draw(f"shuffle {name}, position {i}", range(i + 1))
            items[i], items[j] = items[j], items[i]

    def decide(self, chance: "Chance | None") -> None:
        """Let `chance` decide this state's draws from now on (None: its generator again)."""
        self.chance = chance
        if chance is not None:
            self.forced = _Routed(self.forced)
        elif type(self.forced) is _Routed:
            self.forced = dict(self.forced)

    def create(self, kind: int, attrs: list, z: int) -> None:
        n = len(self.ent)
        e = ENT_IDS[n] if n < len(ENT_IDS) else Ent(n)
        self.ent.append(attrs)
        self.kind.append(kind)
        self.where.append(z)
        self.zones[z].append(e)

    def set_attr(self, e: int, pos: int, v) -> None:
        a = self.ent[e]  # a tuple other copies of this state may share: replaced, not changed
        self.ent[e] = a[:pos] + (v,) + a[pos + 1:]

    def move(self, e: int, z: int, bottom: bool = False) -> None:
        """Thing `e` onto the top (or the bottom) of zone `z`, as the rules' `move` does."""
        move_items(self, e, z, bottom)

    def of_kind(self, k: int) -> tuple:
        """Every thing of kind `k`, in the order they were made. Things are only ever added, and
        never change kind, so the answer holds while no thing is made: kept in `by_kind` with the
        number of things it was worked out for."""
        kinds = self.kind
        n = len(kinds)
        known = self.by_kind.get(k)
        if known is not None and known[0] == n:
            return known[1]
        ids = ENT_IDS if n <= len(ENT_IDS) else tuple(Ent(i) for i in range(n))
        found = tuple([ids[i] for i, kk in enumerate(kinds) if kk == k])
        self.by_kind[k] = (n, found)
        return found

    def describe(self, v) -> str:
        if v is None:
            return "none"  # in play-by-play text; as a choice, none is still written `pass`
        if isinstance(v, Ent):
            k = self.kind[v]
            fields = ", ".join(f"{n}={text(x, self.prog)}" for n, x in zip(self.prog.kind_fields[k], self.ent[v]))
            return f"{v} {self.prog.kind_names[k]}({fields})"
        return text(v, self.prog)

    def audit(self) -> list[str]:
        """Problems with the conservation invariant: every card and piece in exactly one zone, and
        where it is recorded to be. Empty when all is well (tests and `vbr sim` soak runs call it)."""
        problems = []
        seen: dict[int, int] = {}
        for z, items in enumerate(self.zones):
            for e in items:
                if e in seen:
                    problems.append(f"{e} is in {self.prog.zone_names[seen[e]]} and {self.prog.zone_names[z]}")
                seen[e] = z
        for e in range(len(self.ent)):
            if e not in seen:
                problems.append(f"#{e} is in no zone")
            elif self.where[e] != seen[e]:
                problems.append(f"#{e} is recorded in {self.prog.zone_names[self.where[e]]} but lies in {self.prog.zone_names[seen[e]]}")
        return problems

    # ------------------------------------------------------------------ what a seat may see
    def visible(self, z: int, seat: int) -> bool:
        vis, per = self.prog.zone_visibility[z]
        if vis == "public":
            return True
        if vis == "hidden":
            return False
        owner = self.prog.zone_owner[z]
        seats = self.prog.team_seats(per, owner)
        if vis == "owner":
            return seat in seats
        # "team": every seat of the owner's team
        teams = {self.prog.team_of[s] for s in seats}
        return self.prog.team_of[seat] in teams

    def observation(self, seat: int) -> dict:
        """What `seat` may know: every var, the contents of zones it may see, the sizes of the rest."""
        prog = self.prog
        zones = {}
        for z, name in enumerate(prog.zone_names):
            if self.visible(z, seat):
                zones[name] = [self.describe(e) for e in self.zones[z]]
            else:
                zones[name] = len(self.zones[z])
        hidden = set(self.hidden_zones(seat))
        seen = (lambda v: self._seen_text(v, hidden)) if hidden else (lambda v: text(v, prog))
        obs = {"phase": self.phase, "vars": {n: seen(v) for n, v in zip(prog.var_names, self.vals)},
               "zones": zones}
        if self.pending is not None and self.pending.seat == seat:
            obs["prompt"] = self.pending.prompt
            obs["legal"] = [seen(v) for v in self.pending.options]
        return obs

    def _seen_text(self, value, hidden: set) -> str:
        """A value as a seat that cannot look into the `hidden` zones sees it: a card lying in one
        is `hidden`, never its id (ids follow creation order, so an id would name the card)."""
        if isinstance(value, Ent) and self.where[value] in hidden:
            return "hidden"
        if isinstance(value, tuple) and any(isinstance(x, Ent) for x in value):
            return "[" + ", ".join(self._seen_text(x, hidden) for x in value) + "]"
        return text(value, self.prog)

    def determinize(self, seat: int, seed: int) -> "State":
        """A copy in which everything `seat` cannot see is dealt anew: what an honest agent may
        imagine. Hidden things of one kind and one side (a team's deck and its players' hands, say)
        are pooled and shuffled back into the same zones, since a seat knows a side's deck holds
        that side's cards; so a hidden hand's cards are never kept as they truly are. The copy's
        dice are reseeded."""
        c = self.clone(rng=R.stream(seed))
        c.log = None
        zones, kinds, owners = c.zones, c.kind, self.prog.zone_sides()
        pools: dict[tuple, list] = {}  # (kind, side) -> its things, in the order of their places
        places: dict[tuple, list] = {}  # (kind, side) -> its places: a whole zone z, or (z, i)
        for z in self.hidden_zones(seat):
            items = zones[z]
            if not items:
                continue
            owner = owners[z]
            k = kinds[items[0]]
            for e in items:
                if kinds[e] != k:
                    break
            else:  # one kind (the usual case): the whole zone is one run of places
                key = (k, owner)
                pool = pools.get(key)
                if pool is None:
                    pools[key], places[key] = list(items), [z]
                else:
                    pool += items
                    places[key].append(z)
                continue
            for i, e in enumerate(items):
                key = (kinds[e], owner)
                if key not in pools:
                    pools[key], places[key] = [], []
                pools[key].append(e)
                places[key].append((z, i))
        bits = c.rng.getrandbits
        where = c.where
        for key, items in pools.items():
            for i in range(len(items) - 1, 0, -1):
                j = (bits(64) * (i + 1)) >> 64  # c.below(i + 1), written out
                items[i], items[j] = items[j], items[i]
            items.reverse()  # dealt from the end: the first place gets the last of the shuffle
            runs = places[key]
            if len(runs) == 1 and type(runs[0]) is int:
                zones[runs[0]] = items  # one zone's things shuffled among themselves: `where` holds
                continue
            at = 0
            for p in runs:
                if type(p) is int:
                    n = len(zones[p])
                    zones[p] = part = items[at:at + n]
                    for e in part:
                        where[e] = p
                    at += n
                else:
                    e = items[at]
                    zones[p[0]][p[1]] = e
                    where[e] = p[0]
                    at += 1
        return c

    def hidden_zones(self, seat: int) -> tuple[int, ...]:
        """The zones `seat` may not look into (fixed by the rule file, so worked out once)."""
        cache = self.prog.hidden_cache
        if seat not in cache:
            cache[seat] = tuple(z for z in range(len(self.zones)) if not self.visible(z, seat))
        return cache[seat]


class NO_PICK:
    """take's answer where it gives none: the choice suspends."""


class Autoplay:
    """Random seats' answers while `State.play_random` plays: the pick each seat's generator
    makes, and the counts play_game reports (options offered, forced choices, score changes).
    The lowered code calls `take` where a choice is offered, while `st.auto` is set."""

    __slots__ = ("draws", "last", "lo", "hi", "track", "offered", "one_option", "scored", "step_limit", "choice_limit")

    def __init__(self, draws: list, last: list | None, lo: int, hi: int, track: list | None,
                 step_limit: int, choice_limit: int):
        self.draws, self.last, self.lo, self.hi, self.track = draws, last, lo, hi, track
        self.offered = self.one_option = 0  # options offered in all; choices that offered one
        self.scored = False  # the score var written since it was last looked at (statements.py)
        self.step_limit, self.choice_limit = step_limit, choice_limit


def run_ops(st: State) -> None:
    """State.run's loop: each frame's ops until one changes control, a step counted for each
    such change, up to the program's step limit; an op's exception comes out located."""
    limit = st.prog.step_limit
    fr = None
    try:
        while st.pending is None and st.result is None:
            stack = st.stack
            if not stack:
                return
            fr = stack[-1]
            ops = fr.code.ops
            while not ops[fr.pc](st, fr):
                pass
            steps = st.steps + 1
            st.steps = steps
            if steps > limit:
                raise st._over_limit(fr)
    except Exception as exc:
        failure = st._failure(exc, fr, limit)
        if failure is None:
            raise
        raise failure from None


def play_ops(st: State, auto: Autoplay) -> tuple[int, int]:
    """State.play_random's loop: a choice that suspended answered, then the ops run on
    (`run_ops`) to the next such choice or the end. The lowered code answers most choices where
    it offers them, so this loop turns about once a game."""
    fr = None
    try:
        p = st.pending
        while p is not None:
            fr = st.stack[-1]
            fr.L[p.slot] = take(auto, st, p.seat, p.options, False)
            fr.pc = p.next_pc
            st.pending = None
            if st.choices > auto.choice_limit:
                raise st._too_many_choices(p)
            run_ops(st)  # its own errors come out located
            if st.result is None and st.pending is None:
                return auto.offered, auto.one_option  # no op left to run: the game stalled
            p = st.pending
        look_at_score(auto, st)
    except Exception as exc:
        failure = st._failure(exc, fr, auto.step_limit)
        if failure is None:
            raise
        raise failure from None
    return auto.offered, auto.one_option


def look_at_score(a: Autoplay, st: State) -> None:
    """With `track`: note the score if it changed since it was last noted."""
    if a.last is not None:
        now = st.vals[a.lo:a.hi]
        if now != a.last:
            a.last = now
            a.track.append((st.choices, tuple(now)))


def take(a: Autoplay, st: State, seat: int, options, in_place: bool):
    """Seat `seat`'s answer among `options`, counted as a choice made (`st.choices`); the score
    is looked at first, if anything wrote it since (what the previous choice led to). The lowered
    code calls it once a choice.

    `in_place`: the lowered code asks where it offers the choice, and the step the VM would
    count for the choice is counted here; near the step or choice limit the answer is NO_PICK,
    and the choice suspends so that the VM stops the game where it always did. Otherwise the VM
    asks, for a choice that suspended, and counts the step itself."""
    if in_place and (st.steps >= a.step_limit or st.choices >= a.choice_limit):
        return NO_PICK
    k = len(options)
    a.offered += k
    if k == 1:
        a.one_option += 1
    if a.scored:
        a.scored = False
        look_at_score(a, st)
    st.choices += 1
    if in_place:
        st.steps += 1
    return options[(a.draws[seat](64) * k) >> 64]


def move_items(st: State, x, z: int, bottom: bool) -> None:
    """`move X to Z`, X one thing, a list of things or a whole zone: the things in order onto
    the top of Z, or one by one from the last onto its bottom, so that they keep their order. The
    statement's closures and the lowered form of a list or zone's move call it (one thing's is
    written out, statements.py `_move_template`)."""
    if isinstance(x, ZoneRef):
        items = tuple(st.zones[x])
    elif isinstance(x, tuple):
        items = x
    elif x is None:
        raise Fault("`move` of none")
    else:
        items = (x,)
    zones, where = st.zones, st.where
    for e in (reversed(items) if bottom else items):
        if e is None:
            raise Fault("`move` of none")
        zones[where[e]].remove(e)
        if bottom:
            zones[z].insert(0, e)
        else:
            zones[z].append(e)
        where[e] = z


def shuffle(st: State, z: int) -> None:
    """Zone `z` in a random order (Fisher–Yates, from the last position down); the generated code
    and the closures call it."""
    items = st.zones[z]
    if st.chance is not None:
        st._decided_shuffle(z, items)
    else:
        bits = st.rng.getrandbits
        for i in range(len(items) - 1, 0, -1):
            j = (bits(64) * (i + 1)) >> 64  # st.below(i + 1), written out
            items[i], items[j] = items[j], items[i]
    if st.log is not None:
        st.record({"t": "shuffle", "zone": st.prog.zone_names[z]})


class _Shared:
    """A generator that several copies of a state hold until they draw from it."""

    __slots__ = ("gen", "holders")

    def __init__(self, gen):
        self.gen = gen
        self.holders = 2


class _Deferred:
    """A state's generator, shared with its copies until one of them draws: the first to draw
    takes a copy of it (the last holder takes the generator itself) and puts it in its `rng`,
    so that every state draws exactly the numbers it would have drawn from a copy made at
    clone time. A state given up before drawing hands its share back (`__del__`)."""

    __slots__ = ("shared", "owner", "own")

    def __init__(self, shared: _Shared, state: State):
        self.shared = shared
        self.owner = weakref.ref(state)
        self.own = None

    def _take(self):
        own = self.own
        if own is None:
            shared = self.shared
            self.shared = None
            if shared.holders > 1:
                shared.holders -= 1
                own = R.copy(shared.gen)
            else:
                own = shared.gen
                shared.gen = None
            self.own = own
            st = self.owner()
            if st is not None and st.rng is self:
                st.rng = own
        return own

    def getrandbits(self, k: int) -> int:
        return self._take().getrandbits(k)

    def getstate(self):
        return self._take().getstate()

    def setstate(self, state) -> None:
        self._take().setstate(state)

    def __del__(self):
        shared = self.shared
        if shared is not None:
            shared.holders -= 1


@lru_cache(maxsize=1024)
def _outcomes(values, types) -> tuple[tuple[int, float], ...]:
    """ChanceNeeded.outcomes, remembered: the same dice, ranges and short lists come back all
    game. Values of the language are immutable (numbers, texts, cards, cells, tuples for lists)
    and so hashable; types count, as a forced pick compares them (card #1 is not the number 1),
    so they are part of the key too."""
    seen: dict = {}
    for i, v in enumerate(values):
        c = seen.get((type(v), v))
        if c is None:
            seen[(type(v), v)] = [i, 1]
        else:
            c[1] += 1
    n = len(values)
    return tuple((i, k / n) for i, k in seen.values())


def _over_budget(limit: int, where: str) -> str:
    return (f"step limit of {limit} reached in `{where}`; an endless loop in the rules? "
            "(raise it with `limit steps N`)")


def _run_expr(st: State, f, prog: Program):
    try:
        return f(st, [None] * 8)
    except OverBudget:
        raise StepLimitExceeded([Diagnostic(_first_span(prog), _over_budget(prog.step_limit, "a var's initial value"))]) from None
    except Fault as exc:
        raise VbrRuntimeError([Diagnostic(prog.model.rules and _first_span(prog), str(exc))]) from None


def _first_span(prog):
    from vbr.errors import Span
    return Span(file=str(prog.model.rules.path))


__all__ = ["State", "Action", "Outcome", "ZoneRef", "Chance", "ChanceNeeded"]
