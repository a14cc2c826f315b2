"""The "sensible player" of docs/rulebooks/volleyball-high.md, and the two tables measured with it.

The player (docs/rulebooks/volleyball-high.md, "Simulation"): it never pays to flip a member up
and never rearranges, runs with the nearest member, defends with its highest DEF first, attacks
at once with its highest HIT card into the space farthest from the opponent's Ready members,
passes to the space nearest its own, commits ⌈HIT/2⌉+1 cards against a Heavy, always uses its Decoys, Digs and
optional draws. Where that description does not decide a choice, it takes the first legal
option (`FIRST` below names those prompts).

`choose(state, seat)` reads only `state.observation(seat)`: what that seat may see. It knows the
prompts of rules/volleyball-high.vbr; a prompt it does not know is a ValueError, so that a
changed rule file is noticed rather than played by guess.

    PYTHONPATH=$PWD python docs/rulebooks/volleyball_high_sensible.py [--games 150] [--solo-games 200] [--workers 2]

prints the two Markdown tables of the doc: every ordered pair of schools in 1v1, both seats this
player, seeds 0..N-1 each way; and solo against the AI of each school (the player's own school the
same), seeds 0..N-1. This is a script for this one rule file, not part of vbr.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing
import re
import sys
from pathlib import Path

import vbr
from vbr.analysis.stats import wilson
from vbr.court import Court
from vbr.values import Cell

RULES = Path(__file__).resolve().parents[2] / "rules" / "volleyball-high.vbr"

# The court of rules/volleyball-high.vbr (`court { ... }`): two halves of 2 rows x 4 columns, one
# net row; fields 1-4 the front row (row 2), 5-8 the back row (row 1), columns from the side's own
# left; the serve space at row 0 col 4. Cells are in one frame for both sides, as the engines
# place them (docs/language.md, `court`): side 0's rows are y 0-1, the net y 2, side 1's y 3-4.
ROWS, COLS, NET = 2, 4, 1
HEIGHT = 2 * ROWS + NET
FIELDS = {f: (2, f) if f <= 4 else (1, f - 4) for f in range(1, 9)}
SERVE = (0, 4)
COURT = Court(ROWS, COLS, NET, FIELDS, {"serve": SERVE})

CARD = re.compile(r"#(\d+) Action\((.*)\)")
MEMBER = re.compile(r"#(\d+) Member\((.*)\)")


# ------------------------------------------------------------------------------ what the seat sees

def fields_of(text: str) -> dict:
    """`type=set, hit=1, down=false` as a dict, numbers as ints and true/false as bools."""
    out = {}
    for part in text.split(", "):
        key, value = part.split("=", 1)
        out[key] = int(value) if value.lstrip("-").isdigit() else {"true": True, "false": False}.get(value, value)
    return out


def things(entries: list, pattern: re.Pattern) -> dict:
    """The seen things of a zone (`#17 Action(...)`) by their id text (`#17`)."""
    found = (pattern.fullmatch(e) for e in entries if isinstance(e, str))
    return {f"#{m.group(1)}": fields_of(m.group(2)) for m in found if m}


def cell(text: str) -> tuple[int, int] | None:
    """A cell's text (`@1:5`, `@0:serve`) as (x, y) in the common frame; `none` as None."""
    if text == "none":
        return None
    side, name = text[1:].split(":")
    row, col = SERVE if name == "serve" else FIELDS[int(name)]
    return (col - 1, row - 1) if side == "0" else (COLS - col, HEIGHT - row)


def side_of_cell(xy: tuple[int, int]) -> int:
    """0 or 1 for a cell of a half (the net row is neither: -1)."""
    return 0 if xy[1] < ROWS else 1 if xy[1] >= ROWS + NET else -1


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Unit steps along the rows and columns (the rule file's `distance`)."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def reach(start: tuple[int, int], n: int, net_cost: int) -> set[tuple[int, int]]:
    """Every cell a movement of exactly n unit steps can end on (the rule file's `reach`, all four
    directions), as vbr's court works it out (vbr.court.Court.reach): it never reverses on an
    axis, never leaves the court, crosses the net row straight, never ends on it, and pays
    `net_cost` for entering it (0 for a serve)."""
    return {(c[0], c[1]) for c in COURT.reach(Cell(*start), n, 0, [(0, 1), (0, -1), (1, 0), (-1, 0)], net_cost)}


class View:
    """One seat's observation, read: its side, its hand, the members, the ball."""

    def __init__(self, obs: dict, seat: int):
        self.obs, self.seat = obs, seat
        self.side = seat % 2  # 1v1 and solo: seat s is side s; 2v2: seats 0, 2 side 0 and 1, 3 side 1
        self.vars = obs["vars"]
        self.hand = things(obs["zones"][f"hand[{seat}]"], CARD)
        self.roster = things(obs["zones"]["roster"], MEMBER)
        self.ball = cell(self.vars["ball"])
        self.legal = obs["legal"]
        self.serving = self.vars["ball"].endswith(":serve")

    def spot(self, member: dict) -> tuple[int, int]:
        row, col = FIELDS[member["field"]]
        return (col - 1, row - 1) if member["side"] == 0 else (COLS - col, HEIGHT - row)

    def ready(self, side: int) -> list[tuple[int, int]]:
        """The spots of a side's Ready members on court."""
        return [self.spot(m) for m in self.roster.values() if m["side"] == side and m["field"] > 0 and not m["down"]]

    def landings(self, d: int) -> set[tuple[int, int]]:
        """Where a movement of d from the ball may end: over the net for a serve (which ignores
        the net), anywhere on the court for a hit."""
        if self.serving:
            return {x for x in reach(self.ball, d, 0) if side_of_cell(x) == 1 - self.side}
        return reach(self.ball, d, 1)

    def crosses(self, card: dict) -> bool:
        """The card can send the ball into the opponent's half with one of its Distances."""
        return any(side_of_cell(x) == 1 - self.side for d in range(card["lo"], card["hi"] + 1) for x in self.landings(d))


# ------------------------------------------------------------------------------ the choices

def best(options: list, key) -> int:
    """The index of the option with the largest key (ties: the first)."""
    return max(range(len(options)), key=lambda i: (key(options[i]), -i))


def first(view: View) -> int:
    """A prompt the description does not decide: the first legal option."""
    return 0


def not_pass(view: View) -> int:
    """Always use it: the first option that is not `pass` (Decoys, Digs)."""
    return next((i for i, o in enumerate(view.legal) if o != "pass"), 0)


def pass_(view: View) -> int:
    """Never: `pass` (no line-up change, no flip-up paid for)."""
    return view.legal.index("pass")


def yes(view: View) -> int:
    """An optional draw: take it."""
    return view.legal.index("true")


def nearest_member(view: View) -> int:
    """Runs with the member nearest the ball (the fewest cards to discard)."""
    return best(view.legal, lambda m: -distance(view.spot(view.roster[m]), view.ball))


def highest_def(view: View) -> int:
    """Defends with its highest DEF card first (the printed DEF)."""
    return best(view.legal, lambda c: view.hand[c]["def"])


def heavy_commit(view: View) -> int:
    """Commits ⌈HIT/2⌉+1 cards against a Heavy, or its whole hand when it holds fewer."""
    want = math.ceil(int(view.vars["incoming"]) / 2) + 1
    counts = [int(o) for o in view.legal]
    return counts.index(min(want, max(counts)))


def play_card(view: View) -> int:
    """Attacks at once: of the cards that can send the ball over, the highest HIT (printed). When
    none can, it passes; which card it passes with the description does not say: the first."""
    over = [i for i, c in enumerate(view.legal) if view.crosses(view.hand[c])]
    if not over:
        return 0
    return over[best([view.legal[i] for i in over], lambda c: view.hand[c]["hit"])]


def target_score(view: View, spots) -> float | None:
    """How good the best of `spots` is: over the net, the distance from the opponent's nearest
    Ready member (farther is better); else, a pass, minus the distance from its own nearest Ready
    member (nearer is better). An attack beats any pass. None when `spots` is empty."""
    spots = list(spots)
    if not spots:
        return None
    theirs, mine = view.ready(1 - view.side), view.ready(view.side)
    over = [x for x in spots if side_of_cell(x) == 1 - view.side]
    if over:
        return 100 + max(min((distance(x, m) for m in theirs), default=0) for x in over)
    return -min(min((distance(x, m) for m in mine), default=0) for x in spots)


def how_far(view: View) -> int:
    """The Distance whose best landing is best (see `target_score`)."""
    scores = [target_score(view, view.landings(int(d))) for d in view.legal]
    return best(scores, lambda s: -math.inf if s is None else s)


def where(view: View) -> int:
    """Over the net if it can, into the space farthest from the opponent's Ready members; else a
    pass to the space nearest its own Ready members."""
    return best(view.legal, lambda x: target_score(view, [cell(x)]))


# Every prompt of rules/volleyball-high.vbr, and what the player does there.
POLICY = {
    "line-up: move which member (pass: done)": pass_,  # never rearranges
    "line-up: to which field": first,  # never reached: it never picks a member to move
    "serve: play a card": play_card,  # a serve is an attack: highest HIT of the cards that reach
    "serve: how far": how_far,
    "serve: where the ball lands": where,
    "defend: discard a card": highest_def,
    "Heavy: how many cards do you commit?": heavy_commit,
    "Decoy: cancel this Block?": not_pass,
    "Dig: flip a member DOWN for +2 DEF?": not_pass,  # always; which member is not said: the first
    "who plays the ball": nearest_member,
    "play a card": play_card,
    "how far": how_far,
    "where the ball goes": where,
    "flip a DOWN member back up?": pass_,  # never flips up
    "Michael: flip up which member?": first,  # the card's flip-up is an order, not a choice to pass
    "Akame: draw 3 cards?": yes,  # an optional draw
    # Not decided by the description: the first legal option.
    "running to the ball: discard a card": first,
    "discard for the flip-up": first,  # never reached: it never flips up
    "Ru: discard a card for +2 HIT?": first,  # the first option is a card: it discards it
    "hand limit: discard a card": first,
    "Mirugi: flip one of your members DOWN": first,
    "Shima: discard a card": first,
    "the AI's nearest members tie: you decide who hits": first,
    "the AI aims: you decide where": first,
    "defence: who adds the next card": first,  # 2v2 only
    "who takes the ball: you or your partner": first,  # 2v2 only
}
FIRST = sorted(p for p, f in POLICY.items() if f is first)


def choose(state, seat: int) -> int:
    """The index, in the seat's legal options, of the sensible player's choice. Reads only
    `state.observation(seat)`. A prompt it does not know is a ValueError."""
    obs = state.observation(seat)
    rule = POLICY.get(obs["prompt"])
    if rule is None:
        raise ValueError(f"the sensible player does not know the prompt {obs['prompt']!r}")
    return rule(View(obs, seat))


# ------------------------------------------------------------------------------ the tables

def play(game, seed: int):
    """One game from `seed`, every seat this player: its Outcome."""
    state = game.new_state(seed)
    while not state.is_terminal():
        state.apply_index(choose(state, state.current_player()))
    outcome = state.outcome()
    if outcome is None:
        raise RuntimeError(f"seed {seed}: the game stopped at an error in its rules")
    return outcome


def schools(path: Path) -> list[str]:
    """The values of the rule file's `school0` option: the members of its enum, in order."""
    model = vbr.load(path, engine="python").model
    return list(model.enums[model.member_enum[model.options["school0"]]])


def share(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k}/{n} ({100 * k / n:.1f}%, {100 * lo:.1f}–{100 * hi:.1f}%)"


def outcomes(task: tuple) -> list[tuple[int, int]]:
    """Games of one option set, seeds 0..games-1: each game's winning team and side 0's points.
    `task` is (rule file, options, games, engine), so that worker processes can take it."""
    path, options, games, engine = task
    game = vbr.load(path, options, engine=engine)
    return [(o.team, o.points[0]) for o in (play(game, seed) for seed in range(games))]


def run_all(tasks: list[tuple], workers: int) -> list[list[tuple[int, int]]]:
    """`outcomes` of every task, in order; in `workers` processes when more than one (each game is
    the same game in any process: the results do not depend on it)."""
    if workers <= 1:
        return [outcomes(t) for t in tasks]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return pool.map(outcomes, tasks, chunksize=1)


def pairs_table(names: list[str], games: int, wins: dict) -> str:
    """The row school's wins against the column school, `games` each way; `wins[a, b]` are a's
    wins as side 0 against b as side 1."""
    lines = ["| sensible player | " + " | ".join(n.capitalize() for n in names) + " | overall |",
             "|---" * (len(names) + 2) + "|"]
    for a in names:
        cells, total = [], 0
        for b in names:
            if a == b:
                cells.append("—")
                continue
            k = wins[a, b] + games - wins[b, a]
            total += k
            cells.append(f"{k}/{2 * games} ({100 * k / (2 * games):.0f}%)")
        lines.append(f"| {a.capitalize()} | " + " | ".join(cells) + f" | {share(total, 2 * games * (len(names) - 1))} |")
    return "\n".join(lines)


def solo_table(names: list[str], games: int, results: dict) -> str:
    """Solo against the AI of each school (the player's school the same): `results[s]` are the
    games against school s's AI, as `outcomes` gives them."""
    lines = ["| AI school (and yours) | your wins (95% CI) | AI wins | your points per game |", "|---|---|---|---|"]
    for s in names:
        won = sum(team == 0 for team, _ in results[s])
        points = sum(p for _, p in results[s]) / games
        lo, hi = wilson(won, games)
        lines.append(f"| {s.capitalize()} | {won} ({100 * won / games:.1f}%, {100 * lo:.1f}–{100 * hi:.1f}%) "
                     f"| {games - won} | {points:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The sensible player's tables of docs/rulebooks/volleyball-high.md.")
    parser.add_argument("--games", type=int, default=150, help="1v1 games of each ordered pair of schools (default 150)")
    parser.add_argument("--solo-games", type=int, default=200, help="solo games against each school's AI (default 200)")
    parser.add_argument("--engine", default="c", choices=["c", "python"], help="the engine (default c)")
    parser.add_argument("--workers", type=int, default=2, help="processes to play in (default 2)")
    parser.add_argument("--rules", type=Path, default=RULES, help="the rule file (default rules/volleyball-high.vbr)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.solo_games < 1:
        parser.error("--games and --solo-games must be 1 or more")
    names = schools(args.rules)
    pairs = [(a, b) for a in names for b in names if a != b]
    tasks = [(args.rules, {"mode": "1v1", "school0": a, "school1": b}, args.games, args.engine) for a, b in pairs]
    tasks += [(args.rules, {"mode": "solo", "school0": s, "school1": s}, args.solo_games, args.engine) for s in names]
    results = run_all(tasks, args.workers)
    wins = {pair: sum(team == 0 for team, _ in r) for pair, r in zip(pairs, results)}
    print(f"All pairs, {args.games} games each way (seeds 0-{args.games - 1}), as the row school's wins:\n")
    print(pairs_table(names, args.games, wins))
    print(f"\nSolo, against the AI of each school (own school the same), {args.solo_games} games each "
          f"(seeds 0-{args.solo_games - 1}):\n")
    print(solo_table(names, args.solo_games, dict(zip(names, results[len(pairs):]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
