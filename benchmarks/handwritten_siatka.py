"""Siatka written by hand in plain, idiomatic Python: the yardstick for vbr's speed.

The same game as rules/siatka.vbr, with the same options (abilities, block_marker, rotation) and
the same choice points in the same order, so that a choice here is a choice there. Random agents
pick uniformly among the legal options of every choice; an optional card or marker choice with
nothing to take but "pass" is skipped, as vbr skips it, and every other choice counts, even one
with a single option.

Randomness is drawn the way the closure engine (vbr's older engine, retired from vbr/) drew it,
so that neither side pays for a slower generator path: one `random.Random` for the dice and
shuffles and one per agent, seeded as its `vbr.play.play_game` seeded them (SplitMix64 `derive`,
written out below), every number in 0..n-1 the top of a 64-bit draw scaled to n (`below`),
shuffles the same Fisher-Yates as its `State.shuffle`. Options are offered in the rule file's
order too. So game `seed` here is the closure engine's game `seed` of `play_game(siatka, seed,
["random", "random"])`, choice by choice: `bench.py --agreement` checks that they are the same,
against the closure engine of a commit that still has it. The typed engines draw from other
generators: their games are other games of the same rules.

    python benchmarks/handwritten_siatka.py [-n GAMES] [--seed S] [--option NAME ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import time

TARGET = 9
SEATS = (0, 1)
FIELD_NUMBERS = (1, 2, 3, 4, 5, 6)
FRONT_ROW = (1, 2, 3)  # the fields at the net

# A half is two rows of three; field number -> (row, col) in the half's own frame, row 2 at the net.
FIELDS = {1: (2, 1), 2: (2, 2), 3: (2, 3), 4: (1, 3), 5: (1, 2), 6: (1, 1)}
ROWS, COLS = 2, 3


def field_cell(side: int, number: int) -> tuple[int, int]:
    """The ball's position in court coordinates: x across, y from side 0's baseline."""
    row, col = FIELDS[number]
    if side == 0:
        return (col - 1, row - 1)
    return (COLS - col, 2 * ROWS - row)


FIELD_CELL = {(s, n): field_cell(s, n) for s in SEATS for n in FIELD_NUMBERS}
CELL_FIELD = {cell: key for key, cell in FIELD_CELL.items()}

# Directions as (right, forward) in the mover's own frame; forward is towards the net.
DIRECTIONS = {
    "forward": (0, 1), "backward": (0, -1), "left": (-1, 0), "right": (1, 0),
    "forward_left": (-1, 1), "forward_right": (1, 1), "back_left": (-1, -1), "back_right": (1, -1),
}
DIRECTION_NAMES = tuple(DIRECTIONS)
# The movement die: two faces of each symbol, each symbol offering two bounces.
MOVEMENT_DIE = ("diagonal", "diagonal", "straight", "straight", "sideways", "sideways")
BOUNCES = {
    "diagonal": ("forward_left", "forward_right"),
    "straight": ("forward", "backward"),
    "sideways": ("left", "right"),
}
TILES = ((2, "A"), (3, "B"), (3, "R"), (4, "Z"), (4, "A"), (5, "B"))
TACTICS = ("rozegranie", "mocne_odbicie", "superatak", "zaskoczenie")
OPTIONS = ("abilities", "block_marker", "rotation")


class Tile:
    def __init__(self, defence: int, ability: str):
        self.defence = defence
        self.ability = ability
        self.field = 0


MASK = (1 << 64) - 1


def mix(x: int) -> int:
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    x = (x ^ (x >> 27)) * 0x94D049BB133111EB & MASK
    return x ^ (x >> 31)


def derive(seed: int, *salt: int) -> int:
    """A seed for a game or an agent, as vbr.seeds.derive makes it."""
    x = seed & MASK
    for s in salt:
        x = mix((x ^ (s * 0x9E3779B97F4A7C15)) & MASK)
    return mix(x)


def below(rng: random.Random, n: int) -> int:
    """A number in 0..n-1: the top of a 64-bit draw scaled to n."""
    return (rng.getrandbits(64) * n) >> 64


def shuffle(rng: random.Random, items: list) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


class RandomAgent:
    def __init__(self, seed: int, seat: int):
        self.rng = random.Random(derive(derive(seed, 7919, seat), seat + 1))

    def choose(self, options: list):
        return options[below(self.rng, len(options))]


class Siatka:
    """One game. `play()` returns the winning seat; `score` and `choices` are read afterwards."""

    def __init__(self, seed: int, abilities: bool = False, block_marker: bool = False, rotation: bool = False):
        self.rng = random.Random(derive(seed))  # dice and shuffles; the agents draw from their own streams
        self.agents = [RandomAgent(seed, s) for s in SEATS]
        self.abilities = abilities
        self.block_marker = block_marker
        self.rotation = rotation
        self.choices = 0
        self.tally = None  # set to a dict to count choices by kind: {what: (choices, options)}
        self.score = [0, 0]
        self.court = [[None] * 6 for _ in SEATS]  # court[s][f - 1]: the tile on field f
        self.lineup = [[] for _ in SEATS]  # each side's tiles in the order they were placed
        self.decks = [[] for _ in SEATS]
        self.hands = [[] for _ in SEATS]
        self.discards = [[] for _ in SEATS]
        self.server = 0
        self.holder = 0
        self.ball = None
        self.bounces = 0
        self.played = 0  # tactic cards played in this play of the ball
        self.hitter = None  # the tile that made the last bounce
        self.marker = None  # Variant 2: the tile the block marker lies on

    # ------------------------------------------------------------------ helpers
    def choose(self, seat: int, options, what: str):
        self.choices += 1
        if self.tally is not None:
            made, offered = self.tally.get(what, (0, 0))
            self.tally[what] = (made + 1, offered + len(options))
        return self.agents[seat].choose(options)

    def roll_green(self) -> int:
        return 1 + below(self.rng, 6)

    def roll_movement(self) -> str:
        return MOVEMENT_DIE[below(self.rng, 6)]

    def tile_at(self, side: int, number: int) -> Tile:
        return self.court[side][number - 1]

    def step(self, direction: str, distance: int) -> None:
        right, forward = DIRECTIONS[direction]
        if self.holder == 1:
            right, forward = -right, -forward
        x, y = self.ball
        self.ball = (x + right * distance, y + forward * distance)

    def offer_card(self, tactic: str) -> bool:
        """The holder may play a card of this tactic; no choice when the hand holds none."""
        hand = self.hands[self.holder]
        matching = [c for c in hand if c == tactic]
        if not matching:
            return False
        card = self.choose(self.holder, matching + [None], tactic)
        if card is None:
            return False
        hand.remove(card)
        self.discards[self.holder].append(card)
        self.played += 1
        return True

    def refill(self, seat: int) -> None:
        hand, deck, discard = self.hands[seat], self.decks[seat], self.discards[seat]
        while len(hand) < 3:
            if not deck:
                if not discard:
                    break
                deck.extend(discard)
                discard.clear()
                shuffle(self.rng, deck)
            hand.append(deck.pop())

    def take_over(self, seat: int) -> None:
        self.holder = seat
        self.bounces = 0
        self.played = 0
        self.marker = None

    # ------------------------------------------------------------------ the game
    def play(self) -> int:
        for s in SEATS:
            deck = self.decks[s]
            for tactic in TACTICS:
                deck += [tactic] * 3
            shuffle(self.rng, deck)
            self.refill(s)
        self.server = SEATS[below(self.rng, len(SEATS))]
        for s in SEATS:
            bench = [Tile(defence, ability) for defence, ability in TILES]
            for f in FIELD_NUMBERS:
                tile = self.choose(s, bench, "placement")
                bench.remove(tile)
                tile.field = f
                self.court[s][f - 1] = tile
                self.lineup[s].append(tile)
        while True:
            scorer = self.rally()
            self.score[scorer] += 1
            if self.score[scorer] >= TARGET:
                return scorer
            if self.rotation and scorer != self.server:
                team = self.court[scorer]
                self.court[scorer] = [team[-1]] + team[:-1]  # field 6 to 1, 1 to 2, ...
                for number, tile in enumerate(self.court[scorer], 1):
                    tile.field = number
            self.server = scorer

    def rally(self) -> int:
        """Serve and play the ball until someone scores; returns the scoring seat."""
        server, receiver = self.server, 1 - self.server
        if self.abilities and self.tile_at(server, 4).ability == "Z":
            self.ball = FIELD_CELL[receiver, self.choose(server, FIELD_NUMBERS, "zagrywka")]
            if self.roll_green() == 6:
                return server
        else:
            self.ball = FIELD_CELL[receiver, self.roll_green()]
        self.take_over(receiver)
        while True:
            scorer = self.bounce()
            if scorer is not None:
                return scorer

    def bounce(self) -> int | None:
        """One bounce by the holder; the seat that scores, or None while the rally goes on."""
        holder = self.holder
        self.bounces += 1
        if self.block_marker and self.marker is None:
            self.offer_block()
        self.hitter = self.tile_at(holder, CELL_FIELD[self.ball][1])
        free = False
        if self.abilities and self.hitter.ability == "R":
            free = self.choose(holder, [True, False], "R")
        if free:
            self.step(self.choose(holder, DIRECTION_NAMES, "R direction"), 1)
        else:
            face = self.roll_movement()
            while self.played < 3 and self.offer_card("rozegranie"):
                face = self.roll_movement()
            distance = 1
            if self.played < 3 and self.offer_card("mocne_odbicie"):
                distance = 2
            self.step(self.choose(holder, BOUNCES[face], "bounce"), distance)
        x, y = self.ball
        if not (0 <= x < COLS and 0 <= y < 2 * ROWS):
            return 1 - holder  # out
        side = 0 if y < ROWS else 1
        if side != holder:
            if self.bounces == 3:
                return self.attack()
            if self.bounces == 2 and self.played < 3 and self.offer_card("zaskoczenie"):
                return self.attack()
            self.refill(holder)
            self.take_over(1 - holder)
            return None
        if self.bounces == 3:
            return 1 - holder  # not over in three bounces
        return None

    def offer_block(self) -> None:
        defender = 1 - self.holder
        options = [t for t in self.lineup[defender] if t.field in FRONT_ROW] + [None]
        self.marker = self.choose(defender, options, "block marker")

    def attack(self) -> int | None:
        attacker, defender = self.holder, 1 - self.holder
        number = CELL_FIELD[self.ball][1]
        target = self.tile_at(defender, number)
        bonus = 0
        while bonus < 2 and self.played < 3 and self.offer_card("superatak"):
            bonus += 1
        self.refill(attacker)  # the ball is over: the attacker refills, whatever the attack brings
        if self.abilities and self.hitter.ability == "A":
            bonus += 1
        result = self.roll_green() + bonus
        if result > target.defence:
            return attacker
        blocks = (self.abilities and target.ability == "B") or (self.block_marker and self.marker is target)
        if blocks and number in FRONT_ROW:
            return defender
        self.take_over(defender)
        return None


def play_game(seed: int, **options) -> tuple[int, tuple[int, int], int]:
    """(winner, final score, choices made) of one game between random agents."""
    game = Siatka(seed, **options)
    winner = game.play()
    return winner, tuple(game.score), game.choices


def simulate(n: int, seed: int = 0, **options) -> dict:
    """Statistics of n games with seeds seed, seed + 1, ...; the same keys as `vbr sim --json`."""
    wins = [0, 0]
    points = [0, 0]
    choices = 0
    choices_sq = 0
    start = time.perf_counter()
    for i in range(n):
        winner, score, made = play_game(seed + i, **options)
        wins[winner] += 1
        points[0] += score[0]
        points[1] += score[1]
        choices += made
        choices_sq += made * made
    elapsed = time.perf_counter() - start
    mean = choices / n
    return {
        "games": n,
        "seed": seed,
        "options": {k: v for k, v in options.items() if v},
        "win_rate": {str(s): round(wins[s] / n, 4) for s in SEATS},
        "mean_steps": round(mean, 2),
        "sd_steps": round(max(0.0, choices_sq / n - mean * mean) ** 0.5, 2),
        "points_per_game": [round(p / n, 3) for p in points],
        "seconds": round(elapsed, 3),
        "games_per_s": round(n / elapsed, 1) if elapsed > 0 else None,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Hand-written Siatka with random agents.")
    ap.add_argument("-n", type=int, default=2000, help="number of games")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", choices=OPTIONS, default=[], help="a variant to switch on (repeatable)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    stats = simulate(args.n, args.seed, **{name: True for name in args.option})
    if args.json:
        print(json.dumps(stats, sort_keys=True))
        return
    for key, value in stats.items():
        print(f"{key:16} {value}")


if __name__ == "__main__":
    main()
