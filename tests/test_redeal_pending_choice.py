"""A world dealt anew (State.determinize) while a choice is pending whose options are things hidden
from the dealing seat: each option names the thing now dealt into its thing's old place, so the
options are again what the chooser's zone holds, the real cards are not named, and the search and
greedy agents, which imagine such worlds, do not learn the cards they cannot see; alike in the
python and the c engine."""
import math
import textwrap

import pytest

import vbr
from vbr.play import play_game

ENGINES = ("python", "c")

# Seat 1 holds three cards of six (the rest in its hidden deck, so seat 0 pools hand and deck:
# one kind on one side) and plays one of them.
PLAY = """
    game "Play a card"
    seats 2
    start play

    kind Card { v: int }

    zone deck per seat hidden ordered
    zone hand per seat owner
    zone table public

    setup {
      for v in 0..5 {
        create Card(v: v) in deck[1]
      }
      shuffle deck[1]
      repeat 3 {
        move top(deck[1]) to hand[1]
      }
    }

    phase play "Play" {
      choose c from hand[1] by 1 as "play a card"
      move c to table
      end draw
    }
"""

# Seat 0 takes one of seat 1's two cards unseen and wins when it is the higher.
STEAL = """
    game "Steal"
    seats 2
    start steal

    kind Card { v: int }

    zone deck per seat hidden ordered
    zone hand per seat owner
    zone table public

    setup {
      for v in 0..5 {
        create Card(v: v) in deck[1]
      }
      shuffle deck[1]
      move top(deck[1]) to hand[1]
      move top(deck[1]) to hand[1]
    }

    phase steal "Steal" {
      choose c from hand[1] by 0 as "take a card unseen"
      move c to table
      if c.v > top(hand[1]).v {
        end winner 0
      }
      end winner 1
    }
"""


def load(tmp_path, name, text, engine):
    path = tmp_path / f"{name}.vbr"
    path.write_text(textwrap.dedent(text).lstrip())
    return vbr.load(path, engine=engine)


def zone(state, name):
    p = state.game.program
    at = p.layout.zone(p.names.zones.index(name))
    return [int(x) for x in state.words[at + 1:at + 1 + int(state.words[at])]]


def options(state):
    lay = state.game.program.layout
    return [int(x) for x in state.words[lay.options:lay.options + len(state.legal_actions())]]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_world_dealt_for_the_other_seat_offers_the_cards_now_in_the_choosers_hand(tmp_path, engine):
    state = load(tmp_path, "play", PLAY, engine).new_state(3)
    assert state.current_player() == 1 and options(state) == zone(state, "hand[1]")
    moved = 0
    for seed in range(30):
        world = state.determinize(0, seed)
        hand, deck = zone(world, "hand[1]"), zone(world, "deck[1]")
        moved += hand != zone(state, "hand[1]")
        assert options(world) == hand, seed  # option i: the card at the i-th place of the hand
        for i, card in enumerate(hand):
            after = world.clone()
            after.apply_index(i)
            assert zone(after, "table") == [card] and zone(after, "deck[1]") == deck
            assert zone(after, "hand[1]") == hand[:i] + hand[i + 1:]
    assert moved > 20  # the hand was dealt anew (3 of 6 cards in order: the same in 1 of 120)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_world_dealt_for_the_chooser_keeps_its_options(tmp_path, engine):
    state = load(tmp_path, "play", PLAY, engine).new_state(3)
    for seed in range(10):
        world = state.determinize(1, seed)
        assert options(world) == options(state) and zone(world, "hand[1]") == zone(state, "hand[1]")


def test_python_and_c_deal_a_pending_choices_options_alike(tmp_path):
    py, c = (load(tmp_path, "play", PLAY, engine) for engine in ENGINES)
    for game_seed in range(4):
        a, b = py.new_state(game_seed), c.new_state(game_seed)
        for seed in range(10):
            assert a.determinize(0, seed).words_in_use() == b.determinize(0, seed).words_in_use()


def at_least(wins: int, n: int) -> float:
    """P(at least `wins` of `n`) for a fair coin."""
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2 ** n


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("agent", ["mcts:iterations=50,budget=0", "greedy"])
def test_an_agent_taking_a_card_unseen_wins_no_more_than_chance(tmp_path, engine, agent):
    """Which of two unseen cards is the higher is a coin toss to seat 0: 30 wins of 40 or more
    happen by chance about once in a thousand (at_least(30, 40)). A search whose worlds named the
    real cards among its options would take the higher every time."""
    assert at_least(30, 40) < 0.002
    game = load(tmp_path, "steal", STEAL, engine)
    wins = sum(play_game(game, seed, [agent, "random"]).winner == 0 for seed in range(40))
    assert wins < 30
