"""Rule files as OpenSpiel games (vbr/rl/openspiel_game.py): OpenSpiel's own random simulation
check on every bundled game, its MCTS bot against its random bot on Siatka, the chance nodes
(outcomes, probabilities, the bound) and the game types, observations and errors that come from
the rule file."""
from __future__ import annotations

import random
import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, mcts

import vbr
import vbr.rl
from vbr.errors import IllegalActionError, UsageError
from vbr.interpreter.values import text

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


def settle(state):
    """Decide chance nodes (each its first outcome) until a seat is to choose."""
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def to_chance_node(state, what):
    """Play on (first outcomes, first options, `pass` where offered) to the first chance node
    drawing `what` (e.g. `roll green`)."""
    while not state.is_terminal():
        if state.is_chance_node():
            if str(state).endswith(f"chance: {what}"):
                return state
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(option(state, "pass", default=0))
    raise AssertionError(f"the game ended without drawing {what}")


def option(state, want, default=None):
    """The action whose text is `want` (`default` when there is none)."""
    texts = [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]
    return texts.index(want) if want in texts else default


def var_text(state, name):
    st = state.vbr_state()
    return text(st.vals[st.prog.var_names.index(name)], st.prog)


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_openspiel_random_simulation_check_passes_with_explicit_chance_and_serialization(name, options):
    game = pyspiel.load_game(vbr.rl.register_openspiel(name, options))
    assert game.get_type().chance_mode == T.ChanceMode.EXPLICIT_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_a_deterministic_perfect_information_file_is_declared_so_and_has_no_chance_node(tmp_path):
    path = tmp_path / "race.vbr"
    path.write_text(RACE)
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_race"))
    kind = game.get_type()
    assert kind.chance_mode == T.ChanceMode.DETERMINISTIC  # no roll, pick or shuffle
    assert kind.information == T.Information.PERFECT_INFORMATION  # no zone at all
    assert kind.utility == T.Utility.ZERO_SUM
    assert game.num_distinct_actions() == 3  # 2 seats, 2 teams, 2 booleans: at most 2 values, +1 for `pass`
    assert game.max_chance_outcomes() == 0
    state = game.new_initial_state()
    while not state.is_terminal():
        assert not state.is_chance_node() and state.current_player() in (0, 1)
        state.apply_action(state.legal_actions()[-1])
    assert state.history() == [1, 1, 1]  # 2 + 2 + 2 reaches five: three choices, nothing else
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_siatka_green_die_is_a_chance_node_of_six_outcomes_of_one_sixth():
    # rules/siatka.vbr: `die green = 1..6`, rolled to serve (`ball = field(receiver, roll green)`)
    state = to_chance_node(pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state(), "roll green")
    assert state.current_player() == pyspiel.PlayerId.CHANCE
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [0, 1, 2, 3, 4, 5]
    assert [p for _, p in outcomes] == pytest.approx([1 / 6] * 6) and sum(p for _, p in outcomes) == pytest.approx(1)
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in outcomes] == [
        f"roll green: {face}" for face in range(1, 7)]


def test_equal_faces_of_a_die_are_one_outcome_named_by_its_first_face():
    # rules/siatka.vbr: `die movement = [diagonal, diagonal, straight, straight, sideways, sideways]`
    state = to_chance_node(pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state(), "roll movement")
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [0, 2, 4]
    assert [p for _, p in outcomes] == pytest.approx([1 / 3] * 3)
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in outcomes] == [
        "roll movement: diagonal", "roll movement: straight", "roll movement: sideways"]


def test_a_rolled_face_decides_the_options_that_follow_it():
    # rules/siatka.vbr: after `roll movement`, `choose d from bounces_of(face)`; sideways offers
    # [left, right] (no card is played: every optional choice on the way passes)
    state = to_chance_node(pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state(), "roll movement")
    state.apply_action(4)  # sideways
    while state.vbr_state().pending.prompt != "which of the two bounces":
        state.apply_action(option(state, "pass"))
    assert [state.action_to_string(state.current_player(), a) for a in state.legal_actions()] == ["left", "right"]


@pytest.mark.parametrize("server", [0, 1])
def test_setup_pick_of_the_first_server_follows_the_chosen_outcome(server):
    # rules/siatka.vbr setup: each seat's 12 cards are shuffled (11 swaps each), then
    # `server = pick seats`: 23 chance nodes, the last one the pick among the 2 seats
    state = pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state()
    for _ in range(22):
        assert str(state).splitlines()[-1].startswith("chance: shuffle deck[")
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)] and str(state).endswith("chance: pick")
    state.apply_action(server)
    assert not state.is_chance_node() and var_text(state, "server") == str(server)


def test_shuffle_swaps_follow_the_chosen_outcomes():
    # a shuffle of n things is n - 1 chance nodes, position i (from the last down) taking the
    # thing at one of positions 0..i: choosing i each time keeps the order the cards were created in
    state = pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state()
    sizes = []
    while state.is_chance_node() and "shuffle" in str(state).splitlines()[-1]:
        outcomes = state.chance_outcomes()
        sizes.append(len(outcomes))
        assert [p for _, p in outcomes] == pytest.approx([1 / len(outcomes)] * len(outcomes))
        state.apply_action(outcomes[-1][0])
    assert sizes == [*range(12, 1, -1)] * 2
    st = state.vbr_state()
    zone = st.prog.zone_names.index
    for s in range(2):
        deck = [*st.zones[zone(f"deck[{s}]")], *reversed(st.zones[zone(f"hand[{s}]")])]
        assert deck == sorted(deck) and len(deck) == 12  # refill drew the top three, from the end


def test_a_chance_outcome_that_is_not_offered_is_an_illegal_action():
    state = pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state()
    with pytest.raises(IllegalActionError, match="not one of `shuffle deck\\[0\\], position 11`'s"):
        state.apply_action(12)


def test_max_chance_outcomes_bounds_every_draw_from_the_declarations():
    # rules/siatka.vbr: dice of 6 faces, 2 seats, and 36 things created in setup (6 tiles and 12
    # tactic cards per seat), any of which a shuffle or a pick from a zone might draw among
    assert pyspiel.load_game(vbr.rl.register_openspiel("siatka")).max_chance_outcomes() == 36


def test_a_draw_beyond_the_bound_is_an_error_naming_the_draw():
    line = vbr.load("siatka").path.read_text().splitlines().index("    shuffle deck[s]") + 1
    game = pyspiel.load_game(vbr.rl.register_openspiel("siatka", name="vbr_test_small_bound", max_chance_outcomes=6))
    with pytest.raises(UsageError, match=rf"siatka.vbr:{line}:\d+: `shuffle deck\[0\], position 11` draws among 12 "
                                         r"outcomes, more than the 6 .* max_chance_outcomes=12"):
        game.new_initial_state()


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
    assert kind.chance_mode == T.ChanceMode.EXPLICIT_STOCHASTIC  # every bundled game rolls or shuffles
    assert kind.information == T.Information.IMPERFECT_INFORMATION  # and hides a hand or a deck
    assert kind.utility == utility
    assert kind.reward_model == T.RewardModel.TERMINAL
    assert game.num_players() == players


def test_the_same_actions_and_chance_outcomes_give_the_same_state():
    game = pyspiel.load_game(vbr.rl.register_openspiel("siatka"))
    rng = random.Random(5)
    state = game.new_initial_state()
    for _ in range(60):
        state.apply_action(rng.choice(state.legal_actions()))
    again = game.new_initial_state()
    for a in state.history():
        again.apply_action(a)
    assert str(again) == str(state) and again.history() == state.history()
    first, second = game.new_initial_state(), game.new_initial_state()
    second.apply_action(1)  # seat 0's last card swaps with its second, not its first
    assert str(settle(first)) != str(settle(second))


def test_a_state_serializes_and_replays_its_choices_and_chance_outcomes():
    game = pyspiel.load_game(vbr.rl.register_openspiel("tanto-cuore-beach-volleyball"))
    state = game.new_initial_state()
    rng = random.Random(9)
    for _ in range(120):
        state.apply_action(rng.choice(state.legal_actions()))
    players = [h.player for h in state.full_history()]
    assert pyspiel.PlayerId.CHANCE in players and 0 in players and 1 in players
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()


@pytest.mark.parametrize("at", ["a chance node in setup", "a choice"])
def test_observations_are_the_seats_tensors(at):
    game = pyspiel.load_game(vbr.rl.register_openspiel("volleyball-high", {"mode": "2v2"}))
    state = game.new_initial_state()
    for _ in range(10):
        state.apply_action(state.legal_actions()[0])
    if at == "a choice":
        settle(state)
        for _ in range(10):
            state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node() == (at == "a chance node in setup")
    for p in range(4):
        expected = vbr.rl.observation_tensor(state.vbr_state(), p)
        assert np.array_equal(np.array(state.observation_tensor(p), dtype=np.float32), expected)
        assert game.observation_tensor_shape() == [expected.size]


def test_mcts_beats_the_random_bot_at_siatka():
    """8 seeded games of Siatka to 3 points (`target=3`: every draw is a node of a rollout, so
    short games keep the test quick), MCTS (25 simulations, random rollouts) alternating seats
    with OpenSpiel's uniform random bot. The seats are symmetric, so a bot no better than random would win about
    half: 7 or more wins of 8 would then happen with probability 9/256 (3.5%). The seeds (of the
    chance outcomes evaluate_bots samples, and of both bots) are fixed, so the result is too; it
    is a check of strength, not of speed.

    OpenSpiel's MCTS searches the state it is given, hidden cards included, and samples each
    chance node's outcome per simulation: this measures the adapter, not a fair agent."""
    game = pyspiel.load_game(vbr.rl.register_openspiel("siatka", {"target": 3}))
    wins = 0
    for i in range(8):
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
    with pytest.raises(UsageError, match="max_chance_outcomes must be a whole number"):
        vbr.rl.register_openspiel("siatka", name="vbr_test_no_outcomes", max_chance_outcomes=0)


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
    state = settle(game.new_initial_state())
    p = state.current_player()
    x = np.array(state.observation_tensor(p), dtype=np.float32)
    assert np.array_equal(x[:enc.size], vbr.rl.observation_tensor(state.vbr_state(), p))
    rows = option_features(state.vbr_state(), p, n)
    assert rows.any() and np.array_equal(x[enc.size:].reshape(rows.shape), rows)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
