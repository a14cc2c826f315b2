"""The sensible player of docs/rulebooks/volleyball-high.md (docs/rulebooks/volleyball_high_sensible.py)
does what the page says it does: "it never pays to flip a member up and never rearranges, runs
with the nearest member, defends with its highest DEF first, attacks at once with its highest HIT
card into the space farthest from the opponent's Ready members, passes to the space nearest its
own, commits ⌈HIT/2⌉+1 cards against a Heavy, always uses its Decoys, Digs and optional draws".

Each check plays whole games with the player and looks at every choice of one kind; where a
check needs to know where a card can go, the engine says it (a clone plays the card and lists
the landings), not the script's own geometry."""
import importlib.util
import math
import re

import pytest

import vbr
from conftest import ROOT, RULES

SCRIPT = ROOT / "docs" / "rulebooks" / "volleyball_high_sensible.py"
_spec = importlib.util.spec_from_file_location("volleyball_high_sensible", SCRIPT)
sensible = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sensible)

BOOK = RULES / "volleyball-high.vbr"
MEMBER = re.compile(r"#(\d+) Member\(side=(\d), name=\w+, is_star=\w+, spec1=\w+, spec2=\w+, red=\w+, field=(\d), down=(\w+)\)")
CARD = re.compile(r"#(\d+) Action\(type=\w+, star=\w+, hit=(\d+), def=(\d+),")


@pytest.fixture(scope="module")
def games():
    """Every choice the player makes, as `decisions` lists them, in two 1v1 games between schools
    whose cards bring the optional prompts (Volcano's Ru, Miracle's Akame; Spartan's Mirugi and
    Shima) and one solo game, in which the AI's Heavies come (seed 0 of Miracle against Miracle's
    AI has two)."""
    return list(decisions([(vbr.load(BOOK, {"school0": "volcano", "school1": "miracle"}, engine="c"), 0),
                           (vbr.load(BOOK, {"school0": "spartan", "school1": "hawk"}, engine="c"), 1),
                           (vbr.load(BOOK, {"mode": "solo", "school0": "miracle", "school1": "miracle"}, engine="c"), 0)]))


def decisions(games):
    """Every choice of the player in the games: (a copy of the state before it, the seat, its
    observation, the option chosen)."""
    for game, seed in games:
        state = game.new_state(seed)
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            i = sensible.choose(state, seat)
            yield state.clone(), seat, obs, obs["legal"][i]
            state.apply_index(i)


def at(games, prompt):
    """The decisions at one prompt; there must be some, or the check would be empty."""
    found = [d for d in games if d[2]["prompt"] == prompt]
    assert found, f"no {prompt!r} in the games"
    return found


def spot(text: str) -> tuple[int, int, int]:
    """A field's text (`@1:6`) as (side, row, column) in its side's own frame: fields 1-4 the front
    row (2), 5-8 the back row (1), columns from the side's left (the rule file's court)."""
    side, f = text[1:].split(":")
    f = int(f)
    return int(side), (2 if f <= 4 else 1), (f if f <= 4 else f - 4)


def steps(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    """Unit steps between two fields of the same side."""
    assert a[0] == b[0]
    return abs(a[1] - b[1]) + abs(a[2] - b[2])


def members(obs) -> dict:
    """The members on court by id: (field text, ready)."""
    out = {}
    for m in (MEMBER.fullmatch(e) for e in obs["zones"]["roster"]):
        if int(m.group(3)) > 0:
            out[f"#{m.group(1)}"] = (f"@{m.group(2)}:{m.group(3)}", m.group(4) == "false")
    return out


def cards(obs, seat) -> dict:
    """The seat's hand: id -> (HIT, DEF) as printed."""
    return {f"#{m.group(1)}": (int(m.group(2)), int(m.group(3)))
            for m in (CARD.match(e) for e in obs["zones"][f"hand[{seat}]"])}


def landings(state, i) -> set[str]:
    """Where the ball may land after the pending option i, as the engine lists it: the options of
    "where the ball goes", over every Distance the card offers."""
    after = state.clone()
    after.apply_index(i)
    prompt = after.observation(after.current_player())["prompt"]
    if prompt.endswith("how far"):
        return set().union(*(landings(after, d) for d in range(len(after.legal_actions()))))
    return set(after.observation(after.current_player())["legal"])


def test_it_never_rearranges_or_flips_up_though_it_could(games):
    for prompt in ("line-up: move which member (pass: done)", "flip a DOWN member back up?"):
        for _, _, obs, chosen in at(games, prompt):
            assert len(obs["legal"]) > 1 and chosen == "pass"


def test_it_defends_with_its_highest_def_card_first(games):
    for _, seat, obs, chosen in at(games, "defend: discard a card"):
        hand = cards(obs, seat)
        assert hand[chosen][1] == max(hand[c][1] for c in obs["legal"])


def test_it_runs_with_the_member_nearest_the_ball(games):
    for _, _, obs, chosen in at(games, "who plays the ball"):
        on_court, ball = members(obs), spot(obs["vars"]["ball"])
        assert steps(spot(on_court[chosen][0]), ball) == min(steps(spot(on_court[m][0]), ball) for m in obs["legal"])


def test_it_attacks_at_once_with_the_highest_hit_card_that_can_send_the_ball_over(games):
    attacks = 0
    for state, seat, obs, chosen in at(games, "play a card"):
        over = f"@{1 - seat % 2}:"
        crossing = [c for i, c in enumerate(obs["legal"]) if any(x.startswith(over) for x in landings(state, i))]
        if crossing:
            attacks += 1
            hand = cards(obs, seat)
            assert chosen in crossing and hand[chosen][0] == max(hand[c][0] for c in crossing)
    assert attacks > 0


def test_it_aims_farthest_from_the_opponents_ready_members_and_passes_nearest_its_own(games):
    # at "how far" the landings of each Distance are the engine's (a clone plays it); at "where
    # the ball goes" the options themselves. Over the net if it can: the landing whose nearest
    # Ready opponent is farthest; else a pass: the landing whose nearest Ready member of its own
    # is nearest.
    kinds = set()
    for state, seat, obs, chosen in games:
        if obs["prompt"] == "where the ball goes":
            options = {x: {x} for x in obs["legal"]}
        elif obs["prompt"].endswith("how far"):
            options = {d: landings(state, i) for i, d in enumerate(obs["legal"])}
        else:
            continue
        mine, theirs = seat % 2, 1 - seat % 2
        ready = [spot(f) for f, up in members(obs).values() if up]

        def gap(x, side):
            return min((steps(spot(x), r) for r in ready if r[0] == side), default=0)

        def farthest(spots):
            return max((gap(x, theirs) for x in spots if x.startswith(f"@{theirs}:")), default=None)
        if any(farthest(spots) is not None for spots in options.values()):
            kinds.add("attack")
            assert farthest(options[chosen]) == max(f for f in map(farthest, options.values()) if f is not None)
        else:
            kinds.add("pass")
            nearest = {o: min(gap(x, mine) for x in spots) for o, spots in options.items()}
            assert nearest[chosen] == min(nearest.values())
    assert kinds == {"attack", "pass"}


def test_it_always_uses_its_decoys_digs_and_optional_draws(games):
    for prompt in ("Decoy: cancel this Block?", "Dig: flip a member DOWN for +2 DEF?"):
        for _, _, obs, chosen in at(games, prompt):
            assert chosen != "pass"
    for _, _, obs, chosen in at(games, "Akame: draw 3 cards?"):
        assert chosen == "true"


def test_against_a_heavy_it_commits_half_the_hit_rounded_up_and_one(games):
    for _, _, obs, chosen in at(games, "Heavy: how many cards do you commit?"):
        hit, most = int(obs["vars"]["incoming"]), max(int(n) for n in obs["legal"])
        assert int(chosen) == min(math.ceil(hit / 2) + 1, most)


def test_its_own_court_geometry_gives_the_engines_landings(games):
    # the script works out where a card can go (to know whether it can cross, and which Distance
    # leads where); at every "how far" its landings for each Distance are the engine's options
    checked = 0
    for state, seat, obs, _ in games:
        if obs["prompt"].endswith("how far"):
            view = sensible.View(obs, seat)
            for i, d in enumerate(obs["legal"]):
                mine = view.landings(int(d))
                if obs["vars"]["touches"] == "2":  # the third hit must cross
                    mine = {x for x in mine if sensible.side_of_cell(x) != view.side}
                assert {sensible.cell(x) for x in landings(state, i)} == mine
                checked += 1
    assert checked > 0


def test_the_schools_are_read_from_the_rule_file():
    assert sensible.schools(BOOK) == ["hawk", "panther", "spartan", "volcano", "miracle"]


def test_two_games_play_to_the_end_alike_in_both_engines():
    options = {"school0": "volcano", "school1": "miracle"}
    played = {engine: [sensible.play(vbr.load(BOOK, options, engine=engine), seed) for seed in (0, 1)]
              for engine in ("c", "python")}
    assert all(o.team in (0, 1) for o in played["c"])
    assert played["c"] == played["python"]
