"""Siatka in plain Python control flow, but with all of its state in vbr's data model.

What it is for. Issue 11 wants vbr to play Siatka at least as fast as Siatka written by hand in
plain Python (handwritten_siatka.py). The gap can be in vbr's *data model* (the state as flat
lists) or in the *shape of the generated code* (ops as separate functions, the VM loop between
them, frames whose locals live in lists, choices suspended or answered through `st.auto`). This
file takes the first without the second: the control flow of handwritten_siatka.py (methods,
Python locals, Python loops, a rally returning its scorer), the state exactly as vbr keeps it.
So  datamodel / plain  is the price of the data model, and  vbr / datamodel  the price of the
code's shape (with the run-time checks vbr makes and this file does not).

Kept of vbr's data model (vbr/interpreter/state.py and the lowered code of rules/siatka.vbr):
  - `vals`, one list for the vars, at vbr's own indices: score[0], score[1], server, holder,
    ball, bounces, played, hitter, marker (0..8); every read and write of a var goes through it.
  - `zones`, one list of lists (bench, team, deck, hand, discard, each per seat), a zone of a
    seat found through a per-seat table of zone indices; `where` (thing id -> zone index) kept
    in step on every move: remove from the old zone's list, append to the new one, update where.
  - things as ids (vbr's own `Ent` ids) with their fields in `ent` tuples, a field write
    rebuilding the tuple (`a[:pos] + (v,) + a[pos + 1:]`) as State.set_attr and the lowered
    code do; `kind` checked before every field read and write, as the lowered code checks it
    (`E[x][i] if x is not None and KD[x] == k else fault`).
  - the court as vbr's tables: cells as (x, y) tuples looked up in dicts (field -> cell, cell ->
    number, side, in court), the ball moved as Court.step moves it, directions by name.
  - `tile_at(s, f)` as the rule file says it, `first(t for t in team[s] if t.field == f)`: a scan
    of the team zone with a kind check per tile, as the compiled `first_in` does it.
  - choices as vbr builds them: a copied or filtered list of the options, `None` appended for an
    optional choice (no choice at all when nothing matches); the pick is Autoplay.pick's
    (`options[(draws[seat](64) * k) >> 64]`, options offered and forced choices counted); dice
    index vbr's face tuples, shuffles are State.shuffle's, from the same generators and seeds.
  - `steps` counted where vbr counts them, approximately: one per goto, per call and return of a
    proc vbr pushes (point), per round of a loop, per item a scan, filter or loop goes through,
    per choice; checked against the step limit where the lowered code checks it. `choices` too.
Not kept: frames and their locals in lists (Python locals here), ops and the VM loop between them,
the pending-choice objects, the fault bookkeeping (`_k`, fault spans), the checks of seats,
integer ranges and loop bounds, the play-by-play hooks (`st.log`, `st.trace`), score tracking,
Ent ids made on demand past 1024 and cells as vbr's Cell type (plain tuples here).

It plays the same games as handwritten_siatka.py (and so as vbr): `--agreement N` checks winner,
score and choices for N seeds of every set of options.

    python benchmarks/datamodel_siatka.py --agreement 300
    python benchmarks/datamodel_siatka.py --time [-n 5000]   # games/s of the three, in turns
    python benchmarks/datamodel_siatka.py [-n GAMES] [--seed S] [--option NAME ...]
"""
from __future__ import annotations

import argparse
import random
import time

import handwritten_siatka as hand
from vbr.values import ENT_IDS

TARGET = 9
STEP_LIMIT = 1_000_000
CHOICE_LIMIT = 200_000
SEATS = (0, 1)

# vals: vbr's indices for Siatka's vars
SCORE, SERVER, HOLDER, BALL, BOUNCES, PLAYED, HITTER, MARKER = 0, 2, 3, 4, 5, 6, 7, 8
N_VALS = 9
# zones: vbr's order (the rule file's), each per seat
BENCH, TEAM, DECK, HAND, DISCARD = (0, 1), (2, 3), (4, 5), (6, 7), (8, 9)
N_ZONES = 10
# kinds and the positions of their fields in `ent`
TILE, CARD = 0, 1
DEFENCE, ABILITY, FIELD = 0, 1, 2
TACTIC = 0

TILES = ((2, "A"), (3, "B"), (3, "R"), (4, "Z"), (4, "A"), (5, "B"))
TACTICS = ("rozegranie", "mocne_odbicie", "superatak", "zaskoczenie")
GREEN = (1, 2, 3, 4, 5, 6)
MOVEMENT = ("diagonal", "diagonal", "straight", "straight", "sideways", "sideways")
BOUNCES_OF = {"diagonal": ("forward_left", "forward_right"), "straight": ("forward", "backward"),
              "sideways": ("left", "right")}
DIRECTION = dict(hand.DIRECTIONS)  # name -> (right, forward)
DIRECTION_NAMES = tuple(DIRECTION)
FIELD_NUMBERS = (1, 2, 3, 4, 5, 6)

# The court as vbr's tables: field(s, f) -> cell; a cell's number, side and whether it is on court.
FIELD_CELL = dict(hand.FIELD_CELL)
NUMBER = {cell: key[1] for key, cell in FIELD_CELL.items()}
SIDE = {cell: key[0] for key, cell in FIELD_CELL.items()}
IN_COURT = {cell: True for cell in FIELD_CELL.values()}
# front_row(s, f) = row(field(s, f)) == 2: a pure function, memoised by vbr as this table
FRONT_ROW = {(s, f): hand.FIELDS[f][0] == 2 for s in SEATS for f in FIELD_NUMBERS}


class Fault(Exception):
    pass


def fault(what: str):
    raise Fault(what)


def step_cell(c: tuple, vec: tuple, side: int, n: int) -> tuple:
    """Court.step: n fields along vec in the mover's frame."""
    if side == 0:
        return (c[0] + vec[0] * n, c[1] + vec[1] * n)
    return (c[0] - vec[0] * n, c[1] - vec[1] * n)


class Siatka:
    """One game; all of its state in vals, zones, where, ent and kind, as vbr's State holds it."""

    __slots__ = ("vals", "zones", "where", "ent", "kind", "steps", "choices", "options", "forced",
                 "rng", "draws", "abilities", "block_marker", "rotation")

    def __init__(self, seed: int, abilities: bool = False, block_marker: bool = False, rotation: bool = False):
        self.vals = [0, 0, 0, 0, None, 0, 0, None, None]
        self.zones = [[] for _ in range(N_ZONES)]
        self.where, self.ent, self.kind = [], [], []
        self.steps = self.choices = self.options = self.forced = 0
        self.rng = random.Random(hand.derive(seed))
        self.draws = [random.Random(hand.derive(hand.derive(seed, 7919, s), s + 1)).getrandbits for s in SEATS]
        self.abilities, self.block_marker, self.rotation = abilities, block_marker, rotation

    # ------------------------------------------------------------------ the data model
    def create(self, kind: int, fields: tuple, z: int) -> None:
        E = self.ent
        e = ENT_IDS[len(E)]
        E.append(fields)
        self.kind.append(kind)
        self.where.append(z)
        self.zones[z].append(e)

    def move(self, e, z: int) -> None:
        Z, W = self.zones, self.where
        if e is None:
            fault("`move` of none")
        Z[W[e]].remove(e)
        Z[z].append(e)
        W[e] = z

    def shuffle(self, z: int) -> None:
        items = self.zones[z]
        bits = self.rng.getrandbits
        for i in range(len(items) - 1, 0, -1):
            j = (bits(64) * (i + 1)) >> 64
            items[i], items[j] = items[j], items[i]

    def choose(self, seat: int, options: list):
        """Autoplay.pick: the seat's generator picks; options offered and choices counted."""
        k = len(options)
        self.options += k
        if k == 1:
            self.forced += 1
        self.choices += 1
        self.steps += 1
        return options[(self.draws[seat](64) * k) >> 64]

    def choose_card(self, seat: int, tactic: str):
        """`choose c from hand[seat] where c.tactic == tactic by seat optional`: the matching
        cards in hand order, then None; no choice (None) when no card matches."""
        E, KD = self.ent, self.kind
        items = self.zones[HAND[seat]]
        self.steps += len(items)
        opts = []
        for c in items:
            if (E[c][TACTIC] if c is not None and KD[c] == CARD else fault("no field `tactic`")) == tactic:
                opts.append(c)
        if not opts:
            return None
        opts.append(None)
        return self.choose(seat, opts)

    def tile_at(self, s: int, f: int):
        """`first(t for t in team[s] if t.field == f)`, a scan as the compiled first_in makes it."""
        items = self.zones[TEAM[s]]
        self.steps += len(items)
        KD, E = self.kind, self.ent
        for t in items:
            if KD[t] != TILE:
                fault("no field `field`")
            if E[t][FIELD] == f:
                return t
        return None

    def tile_field(self, t, pos: int):
        return self.ent[t][pos] if t is not None and self.kind[t] == TILE else fault("not a Tile")

    def set_field(self, t, v: int) -> None:
        E = self.ent
        if t is None or self.kind[t] != TILE:
            fault("not a Tile")
        a = E[t]
        E[t] = a[:FIELD] + (v,) + a[FIELD + 1:]

    def count_step(self) -> None:
        """A round of a loop: a step, checked against the limit as the lowered code checks it."""
        self.steps += 1
        if self.steps > STEP_LIMIT:
            fault("step limit")

    # ------------------------------------------------------------------ procs
    def play_card(self, c) -> None:
        V = self.vals
        self.move(c, DISCARD[V[HOLDER]])
        V[PLAYED] += 1

    def offer_card(self, tactic: str) -> bool:
        c = self.choose_card(self.vals[HOLDER], tactic)
        if c is None:
            return False
        self.play_card(c)
        return True

    def refill(self, s: int) -> None:
        Z = self.zones
        hand_z, deck_z, discard_z = HAND[s], DECK[s], DISCARD[s]
        rounds = 0
        while len(Z[hand_z]) < 3:
            rounds += 1
            if rounds > 3:
                fault("loop bound")
            self.count_step()
            if not Z[deck_z]:
                if not Z[discard_z]:
                    break
                for c in tuple(Z[discard_z]):  # `move discard[s] to deck[s]`: move_many
                    self.move(c, deck_z)
                self.shuffle(deck_z)
            deck = Z[deck_z]
            self.move(deck[-1] if deck else None, hand_z)

    def take_over(self, s: int) -> None:
        V = self.vals
        V[HOLDER] = s
        V[BOUNCES] = 0
        V[PLAYED] = 0
        V[MARKER] = None

    def offer_block(self) -> None:
        V, E, KD = self.vals, self.ent, self.kind
        d = 1 - V[HOLDER]
        items = self.zones[TEAM[d]]
        self.steps += len(items)
        opts = []
        for t in items:
            if FRONT_ROW[d, E[t][FIELD] if t is not None and KD[t] == TILE else fault("no field `field`")]:
                opts.append(t)
        if not opts:
            return
        opts.append(None)
        t = self.choose(d, opts)
        if t is not None:
            V[MARKER] = t

    def rotate(self, s: int) -> None:
        items = tuple(self.zones[TEAM[s]])  # items_of: a step per item
        self.steps += len(items)
        for t in items:
            f = self.tile_field(t, FIELD)
            self.set_field(t, 1 if f == 6 else f + 1)

    # ------------------------------------------------------------------ the game
    def play(self) -> int:
        V = self.vals
        for s in SEATS:
            for defence, ability in TILES:
                self.create(TILE, (defence, ability, 0), BENCH[s])
            for tactic in TACTICS:
                self.steps += 3
                for _ in range(3):
                    self.create(CARD, (tactic,), DECK[s])
            self.shuffle(DECK[s])
            self.refill(s)
        V[SERVER] = SEATS[(self.rng.getrandbits(64) * 2) >> 64]
        self.steps += 1  # goto placement
        for s in SEATS:
            for f in FIELD_NUMBERS:
                self.count_step()
                opts = self.zones[BENCH[s]][:]
                self.steps += len(opts)
                if not opts:
                    fault("nothing to choose from")
                t = self.choose(s, opts)
                self.set_field(t, f)
                self.move(t, TEAM[s])
        while True:
            self.steps += 1  # goto serve
            scorer = self.rally()
            self.steps += 2  # point(s): call and return
            V[SCORE + scorer] += 1
            if V[SCORE + scorer] >= TARGET:
                return scorer
            if self.rotation and scorer != V[SERVER]:
                self.steps += 2
                self.rotate(scorer)
            V[SERVER] = scorer

    def rally(self) -> int:
        """The serve phase, then bounce and attack phases until a point; returns the scorer."""
        V = self.vals
        server = V[SERVER]
        receiver = 1 - server
        V[HITTER] = hitter = self.tile_at(server, 4)
        if self.abilities and self.tile_field(hitter, ABILITY) == "Z":
            f = self.choose(server, list(range(1, 7)))
            self.steps += 6
            V[BALL] = FIELD_CELL[receiver, f]
            if GREEN[(self.rng.getrandbits(64) * 6) >> 64] == 6:
                return server
        else:
            V[BALL] = FIELD_CELL[receiver, GREEN[(self.rng.getrandbits(64) * 6) >> 64]]
        self.take_over(receiver)
        while True:
            self.steps += 1  # goto bounce
            scorer = self.bounce()
            if scorer is not None:
                return scorer

    def bounce(self) -> int | None:
        """The bounce phase: the seat that scores, or None while the rally goes on."""
        V = self.vals
        bits = self.rng.getrandbits
        V[BOUNCES] += 1
        if self.block_marker and V[MARKER] is None:
            self.steps += 2
            self.offer_block()
        holder = V[HOLDER]
        V[HITTER] = hitter = self.tile_at(holder, NUMBER.get(V[BALL], 0))
        free = False
        if self.abilities and self.tile_field(hitter, ABILITY) == "R":
            free = self.choose(holder, [True, False])
        if free:
            self.steps += 8
            d = self.choose(holder, list(DIRECTION_NAMES))
            V[BALL] = step_cell(V[BALL], DIRECTION[d], V[HOLDER], 1)
        else:
            face = MOVEMENT[(bits(64) * 6) >> 64]
            rounds = 0
            while V[PLAYED] < 3:
                rounds += 1
                if rounds > 3:
                    fault("loop bound")
                self.count_step()
                if not self.offer_card("rozegranie"):
                    break
                face = MOVEMENT[(bits(64) * 6) >> 64]
            distance = 1
            if V[PLAYED] < 3 and self.offer_card("mocne_odbicie"):
                distance = 2
            opts = list(BOUNCES_OF[face])
            self.steps += len(opts)
            d = self.choose(V[HOLDER], opts)
            V[BALL] = step_cell(V[BALL], DIRECTION[d], V[HOLDER], distance)
        ball = V[BALL]
        if not IN_COURT.get(ball, False):
            return 1 - V[HOLDER]  # out
        if SIDE.get(ball, -1) != V[HOLDER]:
            if V[BOUNCES] == 3:
                self.steps += 1  # goto attack
                return self.attack()
            if V[BOUNCES] == 2 and V[PLAYED] < 3 and self.offer_card("zaskoczenie"):
                self.steps += 1  # goto attack
                return self.attack()
            self.steps += 2  # refill: call and return
            self.refill(V[HOLDER])
            self.take_over(1 - V[HOLDER])
            return None
        if V[BOUNCES] == 3:
            return 1 - V[HOLDER]  # not over in three bounces
        return None

    def attack(self) -> int | None:
        """The attack phase: the seat that scores, or None when the defender takes over."""
        V = self.vals
        attacker = V[HOLDER]
        defender = 1 - attacker
        target = self.tile_at(defender, NUMBER.get(V[BALL], 0))
        bonus = 0
        rounds = 0
        while bonus < 2 and V[PLAYED] < 3:
            rounds += 1
            if rounds > 2:
                fault("loop bound")
            self.count_step()
            c = self.choose_card(attacker, "superatak")
            if c is None:
                break
            self.play_card(c)
            bonus += 1
        self.refill(attacker)
        if self.abilities and self.tile_field(V[HITTER], ABILITY) == "A":
            bonus += 1
        result = GREEN[(self.rng.getrandbits(64) * 6) >> 64] + bonus
        if result > self.tile_field(target, DEFENCE):
            return attacker
        blocks = ((self.abilities and self.tile_field(target, ABILITY) == "B")
                  or (self.block_marker and V[MARKER] == target))
        if blocks and FRONT_ROW[defender, self.tile_field(target, FIELD)]:
            return defender
        self.take_over(defender)
        return None


def play_game(seed: int, **options) -> tuple[int, tuple[int, int], int]:
    """(winner, final score, choices made) of one game between random agents."""
    game = Siatka(seed, **options)
    winner = game.play()
    return winner, tuple(game.vals[SCORE:SCORE + 2]), game.choices


# ---------------------------------------------------------------------- agreement and timing
CONFIGS = [{}, {"abilities": True}, {"block_marker": True}, {"rotation": True},
           {"abilities": True, "block_marker": True, "rotation": True}]


def options_text(options: dict) -> str:
    return " ".join(f"--option {k}" for k in options) or "(default)"


def agreement(n: int) -> int:
    """Games (of n seeds per set of options) where this Siatka and handwritten_siatka differ."""
    total = 0
    for options in CONFIGS:
        differ = [seed for seed in range(n) if play_game(seed, **options) != hand.play_game(seed, **options)]
        total += len(differ)
        print(f"{options_text(options):60} {n} games, {len(differ)} differ"
              + (f" (seeds {differ[:10]})" if differ else ""))
    return total


BLOCK = 20  # games each implementation plays before the next takes its turn (as bench.py)


def timing(n: int) -> None:
    """Games/s of this Siatka, the plain one and vbr, playing seeds 0..n-1 in turns of BLOCK
    games (datamodel 0-19, plain 0-19, vbr 0-19, datamodel 20-39, ...), thread CPU time."""
    import vbr
    from vbr.play import play_game as vbr_play

    game = vbr.load("siatka", engine="closure")
    agents = ["random", "random"]
    plays = {
        "datamodel": lambda seed: play_game(seed)[2],
        "plain": lambda seed: hand.play_game(seed)[2],
        "vbr": lambda seed: vbr_play(game, seed, agents).choices,
    }
    clock = time.thread_time
    times = dict.fromkeys(plays, 0.0)
    choices = dict.fromkeys(plays, 0)
    for start in range(0, n, BLOCK):
        seeds = range(start, min(start + BLOCK, n))
        for name, play in plays.items():
            t0 = clock()
            for seed in seeds:
                choices[name] += play(seed)
            times[name] += clock() - t0
    for name in plays:
        print(f"{name:10} {n / times[name]:9.1f} games/s   {choices[name] / n:.2f} choices/game")
    print(f"datamodel / plain  {times['plain'] / times['datamodel']:.3f}")
    print(f"vbr / datamodel    {times['datamodel'] / times['vbr']:.3f}")
    print(f"vbr / plain        {times['plain'] / times['vbr']:.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Siatka in plain control flow over vbr's data model.")
    ap.add_argument("--agreement", type=int, metavar="N", help="check N seeds of each set of options against handwritten_siatka")
    ap.add_argument("--time", action="store_true", help="games/s of this, the plain Siatka and vbr, in turns")
    ap.add_argument("-n", type=int, default=5000, help="number of games")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", choices=hand.OPTIONS, default=[], help="a variant to switch on (repeatable)")
    args = ap.parse_args(argv)
    if args.agreement:
        return 1 if agreement(args.agreement) else 0
    if args.time:
        timing(args.n)
        return 0
    options = {name: True for name in args.option}
    wins = [0, 0]
    t0 = time.thread_time()
    for seed in range(args.seed, args.seed + args.n):
        wins[play_game(seed, **options)[0]] += 1
    elapsed = time.thread_time() - t0
    print(f"{args.n} games, wins {wins}, {args.n / elapsed:.1f} games/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
