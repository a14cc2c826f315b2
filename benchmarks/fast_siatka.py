"""Siatka written by hand for speed: the upper yardstick for vbr.

The same game as rules/siatka.vbr and handwritten_siatka.py, drawing the same numbers in the same
order (so game `seed` is the same game in all three, choice by choice; `bench.py --agreement`
checks it), but written the way one writes Python to be fast: one function, the state in its
local variables, tiles and cards as small ints, court lookups from prepared tables, the random
agents' picks written out as `(bits(64) * n) >> 64`.

    python benchmarks/fast_siatka.py [-n GAMES] [--seed S] [--option NAME ...]
"""
from __future__ import annotations

import argparse
import random
import time

from handwritten_siatka import DIRECTIONS, FIELD_CELL, OPTIONS, TARGET, TILES, derive

DEFENCE = tuple(d for d, _ in TILES)
ABILITY = tuple(a for _, a in TILES)
ROZ, MOC, SUPER, ZASK = 0, 1, 2, 3  # the tactics, in the order the decks are made
DIRS = tuple(DIRECTIONS.values())  # directions() in the rule file's order
# the movement die's faces (diagonal, diagonal, straight, straight, sideways, sideways): the two
# bounces each offers, as (right, forward)
FACES = ((DIRECTIONS["forward_left"], DIRECTIONS["forward_right"]),) * 2 + \
        ((DIRECTIONS["forward"], DIRECTIONS["backward"]),) * 2 + ((DIRECTIONS["left"], DIRECTIONS["right"]),) * 2
CELL = tuple(tuple(FIELD_CELL[s, n] if n else None for n in range(7)) for s in (0, 1))  # CELL[side][field]
NUMBER = [[0] * 3 for _ in range(4)]  # NUMBER[y][x]: the field number of a cell
for (_side, _n), (_x, _y) in FIELD_CELL.items():
    NUMBER[_y][_x] = _n
NUMBER = tuple(tuple(row) for row in NUMBER)
CARDS = (ROZ,) * 3 + (MOC,) * 3 + (SUPER,) * 3 + (ZASK,) * 3


def play_game(seed: int, abilities: bool = False, block_marker: bool = False, rotation: bool = False):
    """(winner, final score, choices made) of one game between random agents."""
    bits = random.Random(derive(seed)).getrandbits
    agent = (random.Random(derive(derive(seed, 7919, 0), 1)).getrandbits,
             random.Random(derive(derive(seed, 7919, 1), 2)).getrandbits)
    choices = 0
    decks, hands, discards = [], [], []
    for s in (0, 1):
        deck = list(CARDS)
        for i in range(11, 0, -1):
            j = (bits(64) * (i + 1)) >> 64
            deck[i], deck[j] = deck[j], deck[i]
        hands.append([deck.pop(), deck.pop(), deck.pop()])
        decks.append(deck)
        discards.append([])
    server = (bits(64) * 2) >> 64
    court = [[0] * 6, [0] * 6]  # court[s][f - 1]: the tile on field f
    field = [[0] * 6, [0] * 6]  # field[s][t]: where tile t stands
    lineup = ([], [])  # tiles in the order they were placed
    for s in (0, 1):
        bench = [0, 1, 2, 3, 4, 5]
        pick = agent[s]
        for f in range(1, 7):
            t = bench.pop((pick(64) * (7 - f)) >> 64)
            court[s][f - 1] = t
            field[s][t] = f
            lineup[s].append(t)
        choices += 6
    score = [0, 0]

    def refill(s):
        hand, deck, discard = hands[s], decks[s], discards[s]
        while len(hand) < 3:
            if not deck:
                if not discard:
                    return
                deck += discard
                discard.clear()
                for i in range(len(deck) - 1, 0, -1):
                    j = (bits(64) * (i + 1)) >> 64
                    deck[i], deck[j] = deck[j], deck[i]
            hand.append(deck.pop())

    while True:
        # serve
        receiver = 1 - server
        if abilities and ABILITY[court[server][3]] == "Z":
            choices += 1
            x, y = CELL[receiver][1 + ((agent[server](64) * 6) >> 64)]
            if (bits(64) * 6) >> 64 == 5:
                scorer = server
                x = None
        else:
            x, y = CELL[receiver][1 + ((bits(64) * 6) >> 64)]
        if x is not None:
            holder, bounces, played, marker = receiver, 0, 0, None
            while True:  # one bounce
                bounces += 1
                pick = agent[holder]
                if block_marker and marker is None:
                    d = 1 - holder
                    fd = field[d]
                    opts = [t for t in lineup[d] if fd[t] <= 3]
                    choices += 1
                    i = (agent[d](64) * (len(opts) + 1)) >> 64
                    marker = opts[i] if i < len(opts) else None
                hitter = court[holder][NUMBER[y][x] - 1]
                if abilities and ABILITY[hitter] == "R" and (choices := choices + 1) and (pick(64) * 2) >> 64 == 0:
                    choices += 1
                    dx, dy = DIRS[(pick(64) * 8) >> 64]
                else:
                    face = (bits(64) * 6) >> 64
                    hand = hands[holder]
                    while played < 3:
                        k = hand.count(ROZ)
                        if not k:
                            break
                        choices += 1
                        if (pick(64) * (k + 1)) >> 64 == k:
                            break
                        hand.remove(ROZ)
                        discards[holder].append(ROZ)
                        played += 1
                        face = (bits(64) * 6) >> 64
                    distance = 1
                    if played < 3:
                        k = hand.count(MOC)
                        if k:
                            choices += 1
                            if (pick(64) * (k + 1)) >> 64 < k:
                                hand.remove(MOC)
                                discards[holder].append(MOC)
                                played += 1
                                distance = 2
                    choices += 1
                    dx, dy = FACES[face][(pick(64) * 2) >> 64]
                    dx *= distance
                    dy *= distance
                if holder:
                    x -= dx
                    y -= dy
                else:
                    x += dx
                    y += dy
                if not (0 <= x < 3 and 0 <= y < 4):
                    scorer = 1 - holder  # out
                    break
                if (y >= 2) != holder:  # over the net
                    attack = bounces == 3
                    if not attack and bounces == 2 and played < 3:
                        hand = hands[holder]
                        k = hand.count(ZASK)
                        if k:
                            choices += 1
                            if (pick(64) * (k + 1)) >> 64 < k:
                                hand.remove(ZASK)
                                discards[holder].append(ZASK)
                                played += 1
                                attack = True
                    if not attack:
                        refill(holder)
                        holder, bounces, played, marker = 1 - holder, 0, 0, None
                        continue
                    attacker, defender = holder, 1 - holder
                    number = NUMBER[y][x]
                    target = court[defender][number - 1]
                    bonus = 0
                    hand = hands[attacker]
                    while bonus < 2 and played < 3:
                        k = hand.count(SUPER)
                        if not k:
                            break
                        choices += 1
                        if (pick(64) * (k + 1)) >> 64 == k:
                            break
                        hand.remove(SUPER)
                        discards[attacker].append(SUPER)
                        played += 1
                        bonus += 1
                    refill(attacker)
                    if abilities and ABILITY[hitter] == "A":
                        bonus += 1
                    if 1 + ((bits(64) * 6) >> 64) + bonus > DEFENCE[target]:
                        scorer = attacker
                        break
                    if ((abilities and ABILITY[target] == "B") or (block_marker and marker == target)) and number <= 3:
                        scorer = defender
                        break
                    holder, bounces, played, marker = defender, 0, 0, None
                elif bounces == 3:
                    scorer = 1 - holder  # not over in three bounces
                    break
        score[scorer] += 1
        if score[scorer] >= TARGET:
            return scorer, tuple(score), choices
        if rotation and scorer != server:
            team = court[scorer]
            court[scorer] = team = [team[5]] + team[:5]
            fs = field[scorer]
            for number, t in enumerate(team, 1):
                fs[t] = number
        server = scorer


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Siatka written for speed, with random agents.")
    ap.add_argument("-n", type=int, default=20000, help="number of games")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", choices=OPTIONS, default=[], help="a variant to switch on (repeatable)")
    args = ap.parse_args(argv)
    options = {name: True for name in args.option}
    start = time.perf_counter()
    choices = sum(play_game(args.seed + i, **options)[2] for i in range(args.n))
    elapsed = time.perf_counter() - start
    print(f"{args.n} games, {choices / args.n:.2f} choices per game, {args.n / elapsed:.1f} games/s")


if __name__ == "__main__":
    main()
