"""A world dealt anew (State.determinize) while a choice is pending whose options are things hidden
from the dealing seat: every thing keeps its id and its place and what it is is dealt, so the
options, and the card a paused `for` is at, are the cards now in the places they named; no word
names the real card behind a hidden place, and the search and greedy agents, which imagine such
worlds, do not learn the cards they cannot see; alike in the python and the c engine."""
import math
import textwrap

import pytest

import vbr
from vbr.play import play_game

from card_games import six_cards

ENGINES = ("python", "c")

# Seat 1 holds three cards of six (the rest in its hidden deck, so seat 0 pools hand and deck:
# one kind on one side) and plays one of them.
PLAY = six_cards("Play a card", "play", 3, """
    phase play "Play" {
      choose c from hand[1] by 1 as "play a card"
      move c to table
      end draw
    }
""")

# Seat 0 takes one of seat 1's two cards unseen and wins when it is the higher.
STEAL = six_cards("Steal", "steal", 2, """
    phase steal "Steal" {
      choose c from hand[1] by 0 as "take a card unseen"
      move c to table
      if c.v > top(hand[1]).v {
        end winner 0
      }
      end winner 1
    }
""")


def load(tmp_path, name, text, engine):
    path = tmp_path / f"{name}.vbr"
    path.write_text(textwrap.dedent(text).lstrip())
    return vbr.load(path, engine=engine)


def zone(state, name):
    p = state.game.program
    at = p.layout.zone(p.names.zones.index(name))
    return [int(x) for x in state.words[at + 1:at + 1 + int(state.words[at])]]


def values(state, name):
    """The `v` of each card of zone `name`, in order (Card's only field)."""
    lay = state.game.program.layout
    return [int(state.words[lay.fields + e * lay.width]) for e in zone(state, name)]


def options(state):
    lay = state.game.program.layout
    return [int(x) for x in state.words[lay.options:lay.options + len(state.legal_actions())]]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_world_dealt_for_the_other_seat_offers_the_cards_now_in_the_choosers_hand(tmp_path, engine):
    state = load(tmp_path, "play", PLAY, engine).new_state(3)
    assert state.current_player() == 1 and options(state) == zone(state, "hand[1]")
    dealt = 0
    for seed in range(30):
        world = state.determinize(0, seed)
        hand, deck = values(world, "hand[1]"), values(world, "deck[1]")
        dealt += hand != values(state, "hand[1]")
        assert options(world) == zone(world, "hand[1]"), seed  # option i: the card at the i-th place of the hand
        for i, card in enumerate(hand):
            after = world.clone()
            after.apply_index(i)
            assert values(after, "table") == [card] and values(after, "deck[1]") == deck
            assert values(after, "hand[1]") == hand[:i] + hand[i + 1:]
    assert dealt > 20  # the hand was dealt anew (3 of 6 cards in order: the same in 1 of 120)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_world_dealt_for_the_chooser_keeps_its_options(tmp_path, engine):
    state = load(tmp_path, "play", PLAY, engine).new_state(3)
    for seed in range(10):
        world = state.determinize(1, seed)
        assert options(world) == options(state) and values(world, "hand[1]") == values(state, "hand[1]")


def test_python_and_c_deal_a_pending_choices_options_alike(tmp_path):
    py, c = (load(tmp_path, "play", PLAY, engine) for engine in ENGINES)
    for game_seed in range(4):
        a, b = py.new_state(game_seed), c.new_state(game_seed)
        for seed in range(10):
            assert a.determinize(0, seed).words_in_use() == b.determinize(0, seed).words_in_use()


# Seat 1 goes through its hand card by card, playing each or keeping it.
LOOP = six_cards("One by one", "play", 3, """
    phase play "Play" {
      for c in hand[1] {
        choose m from [0, 1] by 1 as "play this card (1) or keep it (0)"
        if m == 1 {
          move c to table
        }
      }
      end draw
    }
""")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_for_paused_in_a_world_dealt_anew_goes_on_with_the_card_now_in_its_place(tmp_path, engine):
    """The `for`'s card and the list it goes through name places of seat 1's hand: in seat 0's
    worlds they are the cards dealt there, not the real ones (which may lie in the deck there)."""
    state = load(tmp_path, "loop", LOOP, engine).new_state(0)
    for seed in range(20):
        world = state.determinize(0, seed)
        hand, deck = values(world, "hand[1]"), values(world, "deck[1]")
        world.apply_index(1)  # play the first card
        assert values(world, "table") == hand[:1] and values(world, "deck[1]") == deck
        world.apply_index(1)  # and the second
        assert values(world, "table") == hand[:2] and values(world, "hand[1]") == hand[2:]


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
