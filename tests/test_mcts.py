"""The information-set MCTS agent: stronger than random on every bundled game, reproducible from its
seed, blind to what its seat cannot see, and reasoning for its own side at every choice."""
import math
import textwrap

import pytest

from vbr.agents import SeatView, make_agent
from vbr.errors import StepLimitExceeded
from vbr.interpreter.game import load
from vbr.play import play_game

from conftest import RULES


def write(tmp_path, name, text):
    p = tmp_path / f"{name}.vbr"
    p.write_text(textwrap.dedent(text).lstrip())
    return p


def binomial_tail(wins: int, n: int) -> float:
    """P(at least `wins` of `n`) for a fair coin: the one-sided p-value against 50%."""
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2 ** n


def mcts_wins(game, spec: str, n: int) -> int:
    """Games won by `spec` against random, the two trading sides (and teams) game by game."""
    wins = 0
    for i in range(n):
        side = i % 2
        agents = [spec if seat % 2 == side else "random" for seat in range(game.seats)]
        wins += play_game(game, 100 + i, agents).winner == side
    return wins


# Budgets measured on 2 cores: 3 to 15 s each. Tanto Cuore's games are long, so its playouts stop
# after 20 choices and score the points lead: as strong as full playouts there, at a third of the
# time (it won 18/20 and 20/20 on two sets of seeds; siatka 38/40, cattack 37/40 and Volleyball
# High 39/40 with 20 full playouts).
@pytest.mark.parametrize("name, spec, games", [
    ("siatka", "mcts:iterations=20", 20),
    ("cattack", "mcts:iterations=20", 20),
    ("tanto-cuore-beach-volleyball", "mcts:iterations=40,depth=20", 20),
    ("volleyball-high", "mcts:iterations=20", 16),
])
def test_mcts_beats_random(name, spec, games):
    wins = mcts_wins(load(RULES / f"{name}.vbr"), spec, games)
    assert binomial_tail(wins, games) < 0.01, f"{wins}/{games}"


@pytest.mark.parametrize("name, options, agents", [
    ("tanto-cuore-beach-volleyball", {}, ["mcts:iterations=10", "mcts:iterations=10,depth=5"]),
    ("cattack", {"players": 4}, ["mcts:iterations=10", "random", "mcts:iterations=10", "random"]),
    ("volleyball-high", {"mode": "solo"}, ["mcts:iterations=5"]),  # one seat against the book's AI
], ids=["tanto-cuore", "cattack-4-players-in-teams", "volleyball-high-solo"])
def test_same_seed_gives_the_same_game(name, options, agents):
    game = load(RULES / f"{name}.vbr", options)
    first = play_game(game, 11, agents, record=True).state.log
    again = play_game(game, 11, agents, record=True).state.log
    assert first == again


# One choice decides the game: `k == chooser` wins for the chooser's side, anything else loses.
DECIDER = """
    game "Decider"
    seats 4 teams { a: 0 2  b: 1 3 }
    option chooser = 1
    start opening

    phase opening "First" {
      choose k from 0..3 by chooser as "the winning number is the chooser's seat"
      if k == chooser {
        end winner chooser
      }
      end winner (chooser + 1) % 4
    }
"""

SOLO = """
    game "Solo"
    seats 1 teams { you: 0  rules: }
    start opening

    phase opening "First" {
      choose k from 0..3 by 0 as "2 wins, anything else hands the game to the seatless side"
      if k == 2 {
        end winner 0
      }
      end winner team 1
    }
"""


@pytest.mark.parametrize("chooser", [1, 2, 3])
def test_mcts_at_any_seat_of_a_team_game_picks_its_own_teams_win(tmp_path, chooser):
    game = load(write(tmp_path, "decider", DECIDER), {"chooser": chooser})
    state = game.new_state(0)
    picks = {make_agent("mcts:iterations=40", chooser, seed).act(SeatView(state, chooser)) for seed in range(3)}
    assert [state.pending.options[i] for i in picks] == [chooser]


def test_mcts_alone_against_a_seatless_team_picks_its_win_over_the_teams(tmp_path):
    game = load(write(tmp_path, "solo", SOLO))
    state = game.new_state(0)
    picks = {make_agent("mcts:iterations=40", 0, seed).act(SeatView(state, 0)) for seed in range(3)}
    assert [state.pending.options[i] for i in picks] == [2]


# ---------------------------------------------------------------------- whose reward a choice serves
TRAP = """
    game "Trap"
    seats 4 teams { a: 0 2  b: 1 3 }
    option answerer = 1
    start opening

    phase opening "First" {
      choose a from [0, 1] by 0 as "risk it (0) or settle for a draw (1)"
      if a == 1 {
        end draw
      }
      choose b from 0..3 by answerer as "answer"
      if b == 3 {
        end winner 1
      }
      end winner 0
    }
"""


@pytest.mark.parametrize("answerer, expected", [(1, 1), (3, 1), (2, 0)])
def test_mcts_expects_each_seat_to_play_for_its_own_team(tmp_path, answerer, expected):
    """Risking it wins unless the answerer is an opponent, who then has a winning answer: a
    search that averaged over answers, or scored them all for seat 0, would risk it always."""
    game = load(write(tmp_path, "trap", TRAP), {"answerer": answerer})
    state = game.new_state(0)
    picks = {make_agent("mcts", 0, seed).act(SeatView(state, 0)) for seed in range(5)}
    assert picks == {expected}


# ---------------------------------------------------------------------- hidden information
PEEK = """
    game "Peek"
    seats 2
    start guess

    kind Card { v: int }

    zone deck per seat hidden ordered
    zone hand per seat owner

    setup {
      for v in 0..3 {
        create Card(v: v) in deck[1]
      }
      shuffle deck[1]
      move top(deck[1]) to hand[1]
    }

    phase guess "Guess" {
      choose g from 0..3 by 0 as "which card does seat 1 hold"
      if g == top(hand[1]).v {
        end winner 0
      }
      end winner 1
    }
"""


class ImaginesFrom(SeatView):
    """A window on one state whose imagined worlds come from another with the same observation."""

    __slots__ = ("source",)

    def __init__(self, state, seat, source):
        super().__init__(state, seat)
        self.source = source

    def imagine(self, seed):
        return self.source.determinize(self.seat, seed)


def held_card(state) -> int:
    hand = state.zones[state.prog.zone_names.index("hand[1]")]
    return state.ent[hand[0]][0]


def swap_held_card(state):
    """The same state for seat 0's eyes, with seat 1 holding another card."""
    other = state.clone()
    names = other.prog.zone_names
    hand, deck = (names.index(z) for z in ("hand[1]", "deck[1]"))
    held, spare = other.zones[hand][0], other.zones[deck][0]
    other.zones[hand][0], other.zones[deck][0] = spare, held
    other.where[held], other.where[spare] = deck, hand
    return other


def test_mcts_pick_does_not_depend_on_the_opponents_hidden_card(tmp_path):
    """The agent's pick from a state equals its pick from a state with another hidden card, when
    both imagine the same worlds: it uses nothing but its view. A peek would tell them apart."""
    state = load(write(tmp_path, "peek", PEEK)).new_state(0)
    other = swap_held_card(state)
    assert other.observation(0) == state.observation(0) and held_card(other) != held_card(state)
    for seed in range(4):
        honest = make_agent("mcts:iterations=50", 0, seed).act(SeatView(state, 0))
        swapped = make_agent("mcts:iterations=50", 0, seed).act(ImaginesFrom(other, 0, state))
        assert honest == swapped


def test_mcts_guesses_a_hidden_card_no_better_than_chance(tmp_path):
    """One card in four: a seat that could see it would win every game; 20 of 40 or more would
    happen by chance at 1 in 4 less than once in ten thousand."""
    game = load(write(tmp_path, "peek", PEEK))
    wins = sum(play_game(game, seed, ["mcts:iterations=50", "random"]).winner == 0 for seed in range(40))
    assert wins < 20


# ---------------------------------------------------------------------- forced choices, faults
FORCED = """
    game "Forced"
    seats 2
    start p

    phase p "P" {
      choose a from [7] by 0 as "the only way"
      choose b from [0, 1] by 1 as "coin"
      end winner b
    }
"""

LOOP = """
    game "Loop"
    seats 2
    limit steps 500
    start p

    phase p "P" {
      choose a from [0, 1] by 0 as "stop or spin"
      if a == 0 {
        end draw
      }
      goto spin
    }

    phase spin "Spin" {
      goto spin
    }
"""


class NoImagining(SeatView):
    __slots__ = ()

    def imagine(self, seed):
        raise AssertionError("searched a forced choice")


def test_forced_choice_returns_0_without_searching(tmp_path):
    state = load(write(tmp_path, "forced", FORCED)).new_state(0)
    assert len(state.pending.options) == 1
    assert make_agent("mcts", 0, 1).act(NoImagining(state, 0)) == 0


def test_step_limit_in_a_playout_reaches_the_caller(tmp_path):
    state = load(write(tmp_path, "loop", LOOP)).new_state(0)
    with pytest.raises(StepLimitExceeded, match="step limit of 500"):
        make_agent("mcts:iterations=20", 0, 1).act(SeatView(state, 0))
