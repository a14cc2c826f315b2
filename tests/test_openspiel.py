"""Rule files as OpenSpiel games (vbr/rl/openspiel_game.py): OpenSpiel's own random simulation
check on every bundled game, its MCTS bot against its random bot on Siatka, and the game types,
seeds, observations and errors that come from the rule file."""
from __future__ import annotations

import random
import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, mcts

import vbr
import vbr.rl
from vbr.errors import UsageError
from vbr.rl.common import full_text

CONFIGS = [("siatka", {}), ("cattack", {"players": 4}), ("cattack", {"players": 2}),
           ("tanto-cuore-beach-volleyball", {}), ("volleyball-high", {"mode": "1v1"}),
           ("volleyball-high", {"mode": "2v2"})]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}" for n, o in CONFIGS]
T = pyspiel.GameType

RACE = """game "Race to five"
seats 2
start play
var total: int = 0
var turn: seat = 0
phase play {
  choose n from 1..2 by turn
  total += n
  if total >= 5 {
    end winner turn
  }
  turn = other(turn)
  goto play
}
"""


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_openspiel_random_simulation_check_passes(name, options):
    game = pyspiel.load_game(vbr.rl.register_openspiel(name, options))
    # serialize=False: OpenSpiel serializes a SAMPLED_STOCHASTIC game with the game's RNG state
    # (Game::GetRNGState), which a Python game cannot provide; a state's own serialization is
    # checked below (test_a_state_serializes_and_replays)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_a_deterministic_perfect_information_file_is_declared_so_and_passes_with_serialization(tmp_path):
    path = tmp_path / "race.vbr"
    path.write_text(RACE)
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_race"))
    kind = game.get_type()
    assert kind.chance_mode == T.ChanceMode.DETERMINISTIC  # no roll, pick or shuffle
    assert kind.information == T.Information.PERFECT_INFORMATION  # no zone at all
    assert kind.utility == T.Utility.ZERO_SUM
    assert game.num_distinct_actions() == 3  # 2 seats, 2 teams, 2 booleans: at most 2 values, +1 for `pass`
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("name,options,utility,players", [
    ("siatka", {}, T.Utility.ZERO_SUM, 2),
    ("cattack", {"players": 4}, T.Utility.ZERO_SUM, 4),  # two teams of two
    ("cattack", {"players": 3}, T.Utility.GENERAL_SUM, 3),  # two against one: +1 +1 -1 does not sum to 0
    ("volleyball-high", {"mode": "solo"}, T.Utility.GENERAL_SUM, 1),  # one seat against the rules
], ids=["siatka", "cattack-4", "cattack-3", "vbh-solo"])
def test_the_game_type_comes_from_the_rules(name, options, utility, players):
    game = pyspiel.load_game(vbr.rl.register_openspiel(name, options))
    kind = game.get_type()
    assert kind.dynamics == T.Dynamics.SEQUENTIAL
    assert kind.chance_mode == T.ChanceMode.SAMPLED_STOCHASTIC  # every bundled game rolls or shuffles
    assert kind.information == T.Information.IMPERFECT_INFORMATION  # and hides a hand or a deck
    assert kind.utility == utility
    assert kind.reward_model == T.RewardModel.TERMINAL
    assert game.num_players() == players


def test_the_seed_parameter_fixes_the_game():
    name = vbr.rl.register_openspiel("siatka")
    three = pyspiel.load_game(name, {"seed": 3}).new_initial_state()
    assert str(three) == full_text(vbr.load("siatka").new_state(3))
    assert str(three) == str(pyspiel.load_game(name, {"seed": 3}).new_initial_state())
    assert str(three) != str(pyspiel.load_game(name, {"seed": 4}).new_initial_state())


def test_a_state_serializes_and_replays():
    game = pyspiel.load_game(vbr.rl.register_openspiel("tanto-cuore-beach-volleyball"), {"seed": 9})
    state = game.new_initial_state()
    rng = random.Random(9)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()


def test_observations_are_the_seats_tensors():
    game = pyspiel.load_game(vbr.rl.register_openspiel("volleyball-high", {"mode": "2v2"}))
    state = game.new_initial_state()
    for _ in range(10):
        state.apply_action(state.legal_actions()[0])
    for p in range(4):
        expected = vbr.rl.observation_tensor(state.vbr_state(), p)
        assert np.array_equal(np.array(state.observation_tensor(p), dtype=np.float32), expected)
        assert game.observation_tensor_shape() == [expected.size]


def test_mcts_beats_the_random_bot_at_siatka():
    """8 seeded games, MCTS (25 simulations, random rollouts) alternating seats with OpenSpiel's
    uniform random bot. The seats are symmetric, so a bot no better than random would win about
    half: 7 or more wins of 8 would then happen with probability 9/256 (3.5%). The seeds are
    fixed, so the result is too; it is a check of strength, not of speed.

    OpenSpiel's MCTS searches the state it is given, hidden cards included, and clones draw the
    same dice (chance is sampled inside the state): this measures the adapter, not a fair agent."""
    name = vbr.rl.register_openspiel("siatka")
    wins = 0
    for i in range(8):
        game = pyspiel.load_game(name, {"seed": i})
        me = i % 2
        bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=25, solve=False,
                           evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(i)),
                           random_state=np.random.RandomState(1000 + i))
        rnd = pyspiel.make_uniform_random_bot(1 - me, 2000 + i)
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, rnd] if me == 0 else [rnd, bot],
                                              np.random.RandomState(i))
        wins += returns[me] > 0
    assert wins >= 7


def test_registering_again_is_harmless_and_a_clash_is_an_error():
    name = vbr.rl.register_openspiel("siatka", name="vbr_test_clash")
    assert vbr.rl.register_openspiel("siatka", name="vbr_test_clash") == name
    with pytest.raises(UsageError, match="'vbr_test_clash' is already registered with other rules"):
        vbr.rl.register_openspiel("cattack", name="vbr_test_clash")
    with pytest.raises(UsageError, match="OpenSpiel already has a game named 'tic_tac_toe'"):
        vbr.rl.register_openspiel("siatka", name="tic_tac_toe")
    with pytest.raises(UsageError, match="letters, digits and `_`"):
        vbr.rl.register_openspiel("siatka", name="two words")
    with pytest.raises(UsageError, match="seed"):
        vbr.rl.register_openspiel("siatka", seed=-3)


def test_without_the_rl_extra_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open-spiel were not installed
    with pytest.raises(UsageError, match=r"needs the optional package 'pyspiel'.*pip install 'vbr\[rl\]'"):
        vbr.rl.register_openspiel("siatka")


def test_observe_options_appends_each_options_row_to_the_observation_tensor():
    from vbr.rl.observation import encoding, option_features
    name = vbr.rl.register_openspiel("cattack", {"players": 2}, name="vbr_test_cattack_options", observe_options=True)
    game = pyspiel.load_game(name)
    enc = encoding(vbr.load("cattack", {"players": 2}).program)
    enc.option_layout()
    n = game.num_distinct_actions()
    assert game.observation_tensor_shape() == [enc.size + n * enc.option_size]
    state = game.new_initial_state()
    p = state.current_player()
    x = np.array(state.observation_tensor(p), dtype=np.float32)
    assert np.array_equal(x[:enc.size], vbr.rl.observation_tensor(state.vbr_state(), p))
    rows = option_features(state.vbr_state(), p, n)
    assert rows.any() and np.array_equal(x[enc.size:].reshape(rows.shape), rows)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
