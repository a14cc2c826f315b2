"""A run-time error of the rules met only in a world an agent imagined (greedy's and mcts's
worlds deal anew what the seat cannot see) is said as such, not as the game's own error."""
import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError
from vbr.play import play_game

# Seat 1's hand holds the bomb and its deck a plain card; seat 0 cannot see either, so a world it
# imagines may deal the bomb to the top of seat 1's deck, where the rules divide by zero. The
# game itself never does: the bomb stays in seat 1's hand.
RULES = """game "Imagined"
seats 2
kind Card { bomb: bool }
zone deck per seat hidden ordered
zone hand per seat owner
var n: int = 0
start turn
setup {
  create Card(bomb: false) in hand[0]
  create Card(bomb: false) in hand[0]
  create Card(bomb: false) in deck[1]
  create Card(bomb: true) in hand[1]
}
phase turn {
  choose c from hand[0] by 0
  if top(deck[1]).bomb {
    n = 1 / 0
  }
  end winner 0
}
"""


@pytest.fixture(scope="module", params=["python", "c"])
def game(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("imagined") / "imagined.vbr"
    path.write_text(RULES, encoding="utf-8")
    return load(path, {}, engine=request.param)


def test_the_game_itself_never_meets_the_error(game):
    assert all(play_game(game, seed, ["random", "random"]).winner == 0 for seed in range(20))


@pytest.mark.parametrize("agent", ["greedy:samples=8", "mcts:iterations=50"])
def test_an_error_met_in_an_imagined_world_says_whose_agent_imagined_it_and_where(game, agent):
    with pytest.raises(VbrRuntimeError) as err:
        play_game(game, 0, [agent, "random"])
    kind = agent.split(":")[0]
    assert err.value.span.line == 17
    assert err.value.message == (f"division by zero (in a world seat 0's {kind} agent imagined at choice 1, "
                                 "dealing anew what seat 0 cannot see; this game itself did not come there)")
