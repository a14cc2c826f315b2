"""Rule files as OpenSpiel games (vbr/rl/openspiel_game.py): OpenSpiel's own random simulation
check on every bundled game, its MCTS bot against its random bot on Siatka, the chance nodes
(outcomes, probabilities, the bound) and the game types, observations and errors that come from
the rule file."""
from __future__ import annotations

import json
import random
import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, mcts

import vbr
import vbr.rl
from conftest import ROOT
from vbr.engines.game import State as TypedState
from vbr.errors import IllegalActionError, UsageError
from vbr.rl.information_state import view
from vbr.rl.state_reader import reader

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
    """The value of var `name` as text (the bundled games' vars are public: seat 0 sees them)."""
    return state.vbr_state().observation(0)["vars"][name]


def zone_things(state, name):
    """The ids of the things in zone `name`, from the bottom up."""
    st = state.vbr_state()
    return [int(e) for e in reader(st).zone(st.game.program.names.zones.index(name))]


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
    assert game.num_distinct_actions() == 2  # fixed ids: the only choice is among the numbers 1..2
    assert game.max_chance_outcomes() == 0
    state = game.new_initial_state()
    while not state.is_terminal():
        assert not state.is_chance_node() and state.current_player() in (0, 1)
        state.apply_action(state.legal_actions()[-1])
    assert state.history() == [1, 1, 1]  # id 1 is the number 2: 2 + 2 + 2 reaches five: three choices
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
    while reader(state.vbr_state()).prompt() != "which of the two bounces":
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
    for s in range(2):
        deck = [*zone_things(state, f"deck[{s}]"), *reversed(zone_things(state, f"hand[{s}]"))]
        assert deck == sorted(deck) and len(deck) == 12  # refill drew the top three, from the end


def test_a_chance_outcome_that_is_not_offered_is_an_illegal_action():
    state = pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state()
    with pytest.raises(IllegalActionError, match="not one of `shuffle deck\\[0\\], position 11`'s"):
        state.apply_action(12)



@pytest.mark.parametrize("engine", ["python", "c"])
def test_an_action_once_the_game_is_over_is_illegal_and_leaves_the_state_as_it_was(tmp_path, engine):
    # The state kept the words of its last choice's options: action 0 was taken as that choice's
    # first option again, OpenSpiel's history grew by an action that never happened, and the
    # information states, replayed from that history, failed with an AttributeError
    path = tmp_path / "race.vbr"
    path.write_text(RACE)
    game = pyspiel.load_game(vbr.rl.register_openspiel(str(path), name=f"vbr_race_over_{engine}", engine=engine))
    state = game.new_initial_state()
    for _ in range(3):
        state.apply_action(1)  # 2 each time (fixed ids: 1 and 2 are actions 0 and 1): 2, 4, 6
    assert state.is_terminal() and state.returns() == [1.0, -1.0]  # seat 0 reached 5 first
    for action in (0, 1):
        with pytest.raises(IllegalActionError, match="the game is over"):
            state.apply_action(action)
    assert state.history() == [1, 1, 1] and state.legal_actions() == [] and state.returns() == [1.0, -1.0]
    assert state.information_state_string(1).startswith("seat 1")


GROW = ROOT / "tests" / "fixtures" / "valid" / "grow.vbr"


def test_an_action_to_a_choice_too_large_for_the_action_space_leaves_the_state_as_it_was():
    # the error came after the position had moved on: the history said one action while the
    # state offered seat 0 the actions 0..3, one past num_distinct_actions (3)
    game = pyspiel.load_game(vbr.rl.register_openspiel(str(GROW), name="vbr_grow_too_large"))
    assert game.num_distinct_actions() == 3
    state = game.new_initial_state()
    state.apply_action(0)  # seat 0 takes 1
    with pytest.raises(UsageError, match="offers 4 options, more than the 3 actions"):
        state.apply_action(1)  # seat 1 takes 2: total 3, and seat 0 would be offered 1..4
    assert state.history() == [0] and state.current_player() == 1 and state.legal_actions() == [0, 1]
    assert str(game.deserialize_state(state.serialize())) == str(state)


def test_a_states_text_shows_the_rule_files_control_characters_escaped(tmp_path):
    # str(state), which OpenSpiel's tools and users print, held the prompt as written
    path = tmp_path / "esc.vbr"
    path.write_text('game "Esc"\nseats 2\nstart a\nphase a {\n  choose k from 1..2 by 0 as "pick \x1b[2J"\n'
                    '  end draw\n}\n', encoding="utf-8")
    state = pyspiel.load_game(vbr.rl.register_openspiel(str(path), name="vbr_esc_text")).new_initial_state()
    assert str(state).endswith("seat 0 pick \\x1b[2J: 1 | 2") and "\x1b" not in str(state)

DIVIDE = """game "Divide"
seats 2
start play
die d3 = 0..2
var total: int = 0
var turn: seat = 0
phase play {
  choose n from 0..2 by turn
  total += 6 / n
  let r = roll d3
  total += 6 / r
  if total >= 9 {
    end winner turn
  }
  turn = other(turn)
  goto play
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_an_action_stopped_by_an_error_of_the_rules_leaves_the_state_as_it_was(tmp_path, engine):
    # Choosing 0, or rolling a 0, divides by zero: the error is raised, and the state stays the one
    # before the action (OpenSpiel's history did not grow), so it still serializes and plays on.
    from vbr.errors import VbrRuntimeError
    path = tmp_path / "divide.vbr"
    path.write_text(DIVIDE)
    game = pyspiel.load_game(vbr.rl.register_openspiel(str(path), name=f"vbr_divide_{engine}", engine=engine))
    state = game.new_initial_state()
    with pytest.raises(VbrRuntimeError, match="division by zero"):
        state.apply_action(0)  # choose n = 0 (fixed ids: the numbers 0, 1, 2 in order)
    assert state.history() == [] and state.legal_actions() == [0, 1, 2]
    assert str(game.deserialize_state(state.serialize())) == str(state)
    state.apply_action(1)  # n = 1: total 6, then the die
    assert state.is_chance_node()
    with pytest.raises(VbrRuntimeError, match="division by zero"):
        state.apply_action(0)  # the die shows 0
    assert state.history() == [1] and state.is_chance_node()
    assert str(game.deserialize_state(state.serialize())) == str(state)
    state.apply_action(1)  # the die shows 1: total 6 + 6 = 12, seat 0 wins
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    again = game.deserialize_state(state.serialize())
    assert again.history() == [1, 1] and str(again) == str(state)


def test_max_chance_outcomes_bounds_every_draw_from_the_declarations():
    # rules/siatka.vbr: dice of 6 faces, 2 seats, and 36 things created in setup (6 tiles and 12
    # tactic cards per seat), any of which a shuffle or a pick from a zone might draw among
    assert pyspiel.load_game(vbr.rl.register_openspiel("siatka")).max_chance_outcomes() == 36



def test_numpy_integers_are_whole_numbers_of_max_actions_and_max_chance_outcomes():
    name = vbr.rl.register_openspiel("siatka", name="vbr_siatka_numpy_bounds", max_actions=np.int64(40),
                                     max_chance_outcomes=np.int32(50))
    game = pyspiel.load_game(name)
    assert game.num_distinct_actions() == 40 and game.max_chance_outcomes() == 50

def test_a_draw_beyond_the_bound_is_an_error_naming_the_draw():
    line = vbr.load("siatka", engine="python").path.read_text().splitlines().index("    shuffle deck[s]") + 1
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


def test_a_rule_file_edited_since_its_registration_is_another_game_not_the_old_one_again(tmp_path):
    # docs/rl.md: the same file with the same options and settings again returns the same name;
    # another game under a name already taken is an error. The edited file's rules are another game.
    path = tmp_path / "race.vbr"
    path.write_text(RACE)
    name = vbr.rl.register_openspiel(str(path), name="vbr_test_edited")
    assert vbr.rl.register_openspiel(str(path), name="vbr_test_edited") == name
    path.write_text(RACE.replace("total >= 5", "total >= 3"))
    with pytest.raises(UsageError, match="'vbr_test_edited' is already registered with other rules"):
        vbr.rl.register_openspiel(str(path), name="vbr_test_edited")


def test_without_the_rl_extra_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open-spiel were not installed
    with pytest.raises(UsageError, match=r"needs the optional package 'pyspiel'.*pip install 'vbr\[rl\]'"):
        vbr.rl.register_openspiel("siatka")


def test_observe_options_appends_each_options_row_to_the_observation_tensor():
    from vbr.rl.observation import encoding, option_features
    name = vbr.rl.register_openspiel("cattack", {"players": 2}, name="vbr_test_cattack_options", observe_options=True)
    game = pyspiel.load_game(name)
    enc = encoding(vbr.load("cattack", {"players": 2}, engine="python"))
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


# ---------------------------------------------------------------------- information states
HIGH_CARD = """game "High card"
seats 2
start bet

kind Card { v: int }
enum Move { call, fold }

zone deck hidden ordered
zone hand per seat owner

setup {
  for v in 1..4 {
    create Card(v: v) in deck
  }
  shuffle deck
  move top(deck) to hand[0]
  move top(deck) to hand[1]
}

phase bet "Bet" {
  choose m from [call, fold] by 0 as "call or fold"
  if m == fold {
    end draw
  }
  if top(hand[0]).v > top(hand[1]).v {
    end winner 0
  }
  end winner 1
}
"""

# seat 1 lays one of its two cards face down (a public var names it); then seat 0 guesses its value
SECRET = """game "Secret"
seats 2
start hide

kind Card { v: int }
var laid: Card = none

zone hand per seat owner
zone secret hidden

setup {
  create Card(v: 1) in hand[1]
  create Card(v: 2) in hand[1]
}

phase hide "Hide" {
  choose c from hand[1] by 1 as "which card to lay face down"
  move c to secret
  laid = c
  choose g from 1..2 by 0 as "guess its value"
  if g == top(secret).v {
    end winner 0
  }
  end winner 1
}
"""


def siatka_setup(changes=None):
    """A Siatka state after setup's 23 chance nodes (11 swaps of deck[0], 11 of deck[1], the
    first server's pick): each node's first outcome unless `changes` maps its index to another."""
    state = pyspiel.load_game(vbr.rl.register_openspiel("siatka")).new_initial_state()
    for i in range(23):
        assert state.is_chance_node()
        state.apply_action((changes or {}).get(i, state.chance_outcomes()[0][0]))
    return state


def zone_text(state, name):
    """The things in zone `name` (`Kind(field=...)`, without their ids), sorted."""
    from vbr.engines.observation import full_view
    st = state.vbr_state()
    return sorted(e.split(" ", 1)[1] for e in full_view(st.game, st.words)["zones"][name])


def test_siatka_declares_information_state_strings_but_no_tensor():
    kind = pyspiel.load_game(vbr.rl.register_openspiel("siatka")).get_type()
    assert kind.provides_information_state_string and not kind.provides_information_state_tensor


@pytest.mark.parametrize("hidden_from", [0, 1])
def test_a_shuffle_of_a_deck_a_seat_cannot_see_leaves_its_information_state_unchanged(hidden_from):
    # deck[s]'s shuffle is nodes 11 s .. 11 s + 10; its first swap (position 11 taking the thing
    # at the outcome) decides a card of the three seat s draws into its hand, which only s sees
    owner = 1 - hidden_from
    first = siatka_setup()
    for outcome in range(12):
        second = siatka_setup({11 * owner: outcome})
        if zone_text(second, f"hand[{owner}]") != zone_text(first, f"hand[{owner}]"):
            break
    else:
        raise AssertionError("no first swap changes the owner's hand")
    assert first.history() != second.history() and not first.is_chance_node()
    assert first.information_state_string(hidden_from) == second.information_state_string(hidden_from)
    assert first.information_state_string(owner) != second.information_state_string(owner)


def test_a_public_chance_outcome_changes_every_seats_information_state():
    # node 22 is `server = pick seats`: the vars are public
    first, second = siatka_setup({22: 0}), siatka_setup({22: 1})
    assert var_text(first, "server") != var_text(second, "server")
    for seat in range(2):
        assert first.information_state_string(seat) != second.information_state_string(seat)


def test_another_seats_hidden_choice_is_not_in_a_seats_information_state(tmp_path):
    path = tmp_path / "secret.vbr"
    path.write_text(SECRET)
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_secret"))
    laid = []
    for card in (0, 1):
        state = game.new_initial_state()
        assert state.current_player() == 1
        state.apply_action(card)
        laid.append(state)
    assert laid[0].current_player() == laid[1].current_player() == 0
    assert laid[0].information_state_string(0) == laid[1].information_state_string(0)
    assert laid[0].information_state_string(1) != laid[1].information_state_string(1)
    # the var holding the face-down card is `unseen` to seat 0; cards are written without their ids
    assert '"var laid":"unseen"' in laid[0].information_state_string(0)
    assert "#" not in laid[1].information_state_string(1)


QUIET = ROOT / "tests" / "fixtures" / "valid" / "quiet_card.vbr"
# QUIET with a die rolled, its face kept nowhere, in the deal of the 2 only, in place of seat 1's
# choice: between the two changes of the public `n`
ROLLED = QUIET.read_text().replace("""  choose c from hand[1] where c.v == 2 by 1 optional as "show the 2?"
  if c != none {
    move c to shown
  }
""", """  if any(c.v == 2 for c in hand[1]) {
    let face = roll d6
  }
""").replace("enum Move { call, fold }\n", "enum Move { call, fold }\ndie d6 = 1..6\n")


def dealt_at_seat_0s_choice(tmp_path, rules, engine):
    """The game of `rules` in its two deals (the shuffle's one swap: outcome 0 puts the 1 on top,
    outcome 1 keeps the 2 there), each at seat 0's choice: seat 1 passes where it is asked, a
    die shows its first face."""
    path = tmp_path / "dealt.vbr"
    path.write_text(rules)
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name=f"vbr_test_dealt_{len(rules)}_{engine}",
                                                       engine=engine))
    states = []
    for outcome in (0, 1):
        state = game.new_initial_state()
        state.apply_action(outcome)
        while state.current_player() != 0:
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            else:
                state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(1, a) == "pass"))
        assert [c.split()[1] for c in state.vbr_state().observation(1)["zones"]["hand[1]"]] == [f"Card(v={outcome + 1})"]
        states.append(state)
    return states


@pytest.mark.parametrize("engine", ["python", "c"])
def test_another_seats_passed_choice_over_its_hidden_hand_is_not_in_a_seats_information_state(tmp_path, engine):
    # seat 1 is asked `show the 2?` only when it holds the 2: passed, it changes nothing seat 0
    # sees, as a player's silent decision not to play a card is not seen at a table; so seat 0
    # cannot tell the deals apart, and seat 1, which sees its hand, can
    ones, twos = dealt_at_seat_0s_choice(tmp_path, QUIET.read_text(), engine)
    assert ones.information_state_string(0) == twos.information_state_string(0)
    assert ones.information_state_string(1) != twos.information_state_string(1)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_draw_made_only_for_a_hidden_hand_does_not_split_a_seats_information_state(tmp_path, engine):
    # the die is rolled only in the deal of the 2, between `n = 1` and `n = 2`: a view taken at
    # that draw would show seat 0 `n` at 1, a line the other deal lacks
    assert "roll d6" in ROLLED and "show the 2?" not in ROLLED
    ones, twos = dealt_at_seat_0s_choice(tmp_path, ROLLED, engine)
    assert ones.information_state_string(0) == twos.information_state_string(0)
    assert '"var n":"1"' not in twos.information_state_string(0)


def test_no_card_id_appears_in_information_states_nor_observation_strings_though_state_observation_has_them():
    state = siatka_setup()
    assert "#" in json.dumps(state.vbr_state().observation(0))  # State.observation writes `#24 Card(...)`
    assert all("#" not in state.information_state_string(s) + state.observation_string(s) for s in range(2))


COPIES = """game "Copies"
seats 2
start play

kind Card { v: int }
enum Move { call, fold }

zone deck hidden ordered
zone hand per seat owner
zone table public

setup {
  create Card(v: 1) in table
  create Card(v: 1) in deck
  create Card(v: 2) in deck
  shuffle deck
  move top(deck) to hand[1]
  move top(table) to hand[1]
}

phase play "Play" {
  choose c from hand[1] where c.v == 1 by 1 as "play a 1 face up"
  move c to table
  choose claim from table by 0 optional as "take the 1 played: seat 1 still holds a 1?"
  if claim == none {
    end draw
  }
  if top(hand[1]).v == 1 {
    end winner 0
  }
  end winner 1
}
"""


def test_observation_and_action_strings_do_not_tell_which_of_two_identical_cards_was_played(tmp_path):
    # The first 1 (#0, created first) is dealt to seat 1 face up, with the 1 or the 2 of the
    # face-down deck; seat 1 plays a 1 face up. Seat 0 sees a 1 on the table and one card in seat
    # 1's hand: at a table it cannot tell whether seat 1 still holds a 1. By id it could: the
    # deck's 1 (#1) on the table means the 1 dealt face up (#0) is still in seat 1's hand.
    from open_spiel.python.observation import make_observation
    path = tmp_path / "copies.vbr"
    path.write_text(COPIES)
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_copies"))
    public = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                                private_info=pyspiel.PrivateInfoType.NONE))
    private = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, public_info=False,
                                                                 private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    seen, tables = set(), set()
    for outcome in (0, 1):  # the shuffle's swap: 0 puts the deck's 1 on top, 1 leaves the 2 there
        for played in range(2 - outcome):  # holding two 1s, seat 1 may play either
            state = game.new_initial_state()
            state.apply_action(outcome)
            state.apply_action(state.legal_actions()[played])
            assert state.current_player() == 0
            tables.add(tuple(state.vbr_state().observation(0)["zones"]["table"]))
            seen.add((state.observation_string(0), public.string_from(state, 0), private.string_from(state, 0),
                      state.information_state_string(0), tuple(state.action_to_string(0, a) for a in state.legal_actions())))
    assert tables == {("#0 Card(v=1)",), ("#1 Card(v=1)",)}  # State.observation: the referee's ids
    assert len(seen) == 1


def random_playouts(game, games, seed, steps=None):
    """States along `games` random playouts (chance sampled by its probabilities), at most
    `steps` actions each."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal() and (steps is None or n < steps):
            yield state
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            n += 1
        yield state


@pytest.mark.parametrize("rules", ["high card", "siatka"])
def test_the_information_state_of_the_seat_to_move_determines_its_legal_actions(tmp_path, rules):
    if rules == "high card":
        path = tmp_path / "high_card.vbr"
        path.write_text(HIGH_CARD)
        game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_high_card"))
        playouts = random_playouts(game, 60, seed=3)
    else:  # the opening of Siatka: 40 actions (setup's 23 draws, then the first choices) of 40 games
        game = pyspiel.load_game(vbr.rl.register_openspiel("siatka"))
        playouts = random_playouts(game, 40, seed=4, steps=40)
    legal: dict[str, set] = {}
    visits = 0
    for state in playouts:
        if state.is_chance_node() or state.is_terminal():
            continue
        p = state.current_player()
        legal.setdefault(state.information_state_string(p), set()).add(tuple(state.legal_actions()))
        visits += 1
    assert visits > len(legal)  # some information states were reached by more than one history
    assert all(len(sets) == 1 for sets in legal.values())


def test_each_seats_earlier_information_state_and_action_begin_its_later_ones():
    game = pyspiel.load_game(vbr.rl.register_openspiel("cattack", {"players": 2}))
    before: list[list[str]] = [[], []]  # per seat: its information state + its action, at each choice
    for state in random_playouts(game, 2, seed=6, steps=400):
        for s in range(2):
            now = state.information_state_string(s)
            assert all(now.startswith(prefix) for prefix in before[s])
            assert now.startswith(f"seat {s}\n")
        if not state.is_chance_node() and not state.is_terminal():
            p = state.current_player()
            # the history appends the action before the state moves on: record it here
            before[p].append(state.information_state_string(p) + "\n> ")
        if state.is_terminal():
            before = [[], []]


def test_cfr_finds_the_dominant_strategy_of_a_hidden_high_card_game(tmp_path):
    """Four cards 1..4 shuffled face down, one dealt to each seat; seat 0 sees its own and calls
    (the higher card wins) or folds (a draw). Against the three cards left, calling wins on
    average with a 3 (+1/3) or a 4 (+1) and loses with a 1 (-1) or a 2 (-1/3), so the only
    equilibrium strategy calls with 3 and 4 and folds with 1 and 2 (game value +1/3 to seat 0).
    The 24 deals must give seat 0 exactly four information states: its card."""
    from open_spiel.python.algorithms import cfr, exploitability
    path = tmp_path / "high_card.vbr"
    path.write_text(HIGH_CARD)
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_high_card_cfr"))
    solver = cfr.CFRSolver(game)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    assert len(policy.state_lookup) == 4
    call = {}
    for info, row in policy.state_lookup.items():
        probs = policy.action_probability_array[row]
        assert probs[:2].sum() == pytest.approx(1) and not probs[2:].any()  # over the 2 legal actions only
        card = info.rsplit('"zone hand[0]":["Card(v=', 1)[1][0]
        call[int(card)] = probs[0]  # option 0 is `call`
    assert call[1] < 0.05 and call[2] < 0.05 and call[3] > 0.95 and call[4] > 0.95
    assert exploitability.exploitability(game, policy) < 0.02


def test_outcome_sampling_mccfr_gives_a_policy_over_the_legal_actions(tmp_path):
    from open_spiel.python.algorithms import outcome_sampling_mccfr
    path = tmp_path / "secret.vbr"
    path.write_text(SECRET)
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_secret_mccfr"))
    np.random.seed(0)  # the solver samples with numpy's global generator
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(200):
        solver.iteration()
    policy = solver.average_policy()
    for state in random_playouts(game, 10, seed=1):
        if not state.is_terminal():
            probs = policy.action_probabilities(state)
            assert sorted(probs) == state.legal_actions() and sum(probs.values()) == pytest.approx(1)


def test_draws_whose_outcomes_a_seat_cannot_see_add_no_line_to_its_information_state(tmp_path):
    # HIGH_CARD's setup shuffles the face-down deck (3 chance nodes), then deals: seat 0 sees the
    # start, then the deal and its choice; nothing for the three swaps
    path = tmp_path / "high_card.vbr"
    path.write_text(HIGH_CARD)
    state = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_high_card_lines")).new_initial_state()
    swaps = 0
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
        swaps += 1
    assert swaps == 3
    lines = state.information_state_string(0).splitlines()
    assert lines[0] == "seat 0" and len(lines) == 3 and '"options":["call","fold"]' in lines[2]


def test_openspiels_playthrough_runs_and_its_public_and_private_observations_hide_the_hands(tmp_path):
    # OpenSpiel's own playthrough (open_spiel/python/algorithms/generate_playthrough.py) asks an
    # imperfect-information game for its public and private observations. HIGH_CARD's cards lie in
    # a hidden deck and in `owner` hands: the public view names no card, and a seat's private view
    # names its own hand's card only. A kind of observation the game lacks (all players') is None.
    from open_spiel.python.algorithms import generate_playthrough
    from open_spiel.python.observation import make_observation
    path = tmp_path / "high_card.vbr"
    path.write_text(HIGH_CARD)
    name = vbr.rl.register_openspiel(str(path), name="vbr_high_card_playthrough")
    lines = generate_playthrough.playthrough(name, None).splitlines()
    public = [line for line in lines if line.startswith("PublicObservationString()")]
    private = {s: [line for line in lines if line.startswith(f"PrivateObservationString({s})")] for s in (0, 1)}
    assert public and all("Card(" not in line for line in public)
    assert '"zone deck": "2", "zone hand[0]": "1", "zone hand[1]": "1"' in public[-1]  # after the deal, sizes only
    for seat, other in ((0, 1), (1, 0)):
        assert f'hand[{seat}]": ["Card(' in private[seat][-1] and f"hand[{other}]" not in "".join(private[seat])
    game = pyspiel.load_game(name)
    every = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                       private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
    assert make_observation(game, every) is None


BLIND_PICK = """game "Blind pick"
seats 2
start play
kind Card { v: int }
zone hand per seat owner
zone won public
setup {
  for v in 1..3 {
    create Card(v: v) in hand[1]
  }
  shuffle hand[1]
}
phase play {
  choose c from hand[1] by 0 as "blind pick"
  move c to won
  if c.v == 3 {
    end winner 0
  }
  end winner 1
}
"""


def test_action_strings_of_cards_the_chooser_cannot_see_are_the_same_for_every_deal(tmp_path):
    # Seat 0 picks blind from seat 1's shuffled hand (`owner`: seat 0 may not look in). Its action
    # strings must not tell the cards apart (by id, the order they were created in: `#2` would be
    # the winning 3 in every deal): they read `unseen`, as its information state writes them.
    path = tmp_path / "blind_pick.vbr"
    path.write_text(BLIND_PICK)
    game = pyspiel.load_game(vbr.rl.register_openspiel(str(path), name="vbr_test_blind_pick"))
    seen = set()
    for first in range(3):  # the shuffle: position 2 takes one of 0..2, then position 1 one of 0..1
        for second in range(2):
            state = game.new_initial_state()
            state.apply_action(first)
            state.apply_action(second)
            assert state.current_player() == 0
            seen.add(tuple(state.action_to_string(0, a) for a in state.legal_actions()))
    assert seen == {("unseen (option 0)", "unseen (option 1)", "unseen (option 2)")}


def test_the_information_states_docs_rl_shows_are_the_games(tmp_path):
    # docs/rl.md's example: every swap of the shuffle takes its last outcome (position i keeps its
    # card), so the deck stays 1..4 in creation order, its top (4) goes to seat 0 and the 3 to
    # seat 1; seat 0 calls. The phase reads `none` before the first phase and at the end.
    import re
    doc = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    shown = {b.split("\n")[0]: b.strip() for b in re.findall(r"^```text\n(seat \d\n.*?)^```", doc, flags=re.M | re.S)}
    path = tmp_path / "high_card.vbr"
    path.write_text(HIGH_CARD)
    state = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_high_card_doc")).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[-1][0])
    state.apply_action(0)  # call
    assert shown == {f"seat {s}": state.information_state_string(s) for s in (0, 1)}


def test_a_var_holding_none_reads_none_in_views_not_pass():
    # Siatka's `ball` is none before the first serve: `pass` is the text of a choice's none option
    state = vbr.load("siatka", engine="python").new_state(1)
    assert state.observation(0)["vars"]["ball"] == "none"
    from vbr.rl.information_state import view
    assert view(state, 0, False)["var ball"] == "none"


def test_the_cfr_example_of_docs_rl_runs_and_prints_a_small_exploitability(tmp_path, monkeypatch, capsys):
    import re
    from pathlib import Path
    doc = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"^```py\n(.*?)^```", doc, flags=re.M | re.S) if "CFRSolver" in b]
    (tmp_path / "high_card.vbr").write_text(HIGH_CARD)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/rl.md: the CFR example", "exec"), {})
    assert 0 <= float(capsys.readouterr().out.split()[-1]) < 0.02


STAKES = ROOT / "tests" / "fixtures" / "valid" / "stakes.vbr"


def test_declared_returns_set_the_utility_bounds_and_are_each_seats_stake():
    """tests/fixtures/valid/stakes.vbr: a raised stake (2) or not (1) goes from the loser to the winner."""
    game = pyspiel.load_game(vbr.rl.register_openspiel(STAKES, name="vbr_test_stakes"))
    assert (game.min_utility(), game.max_utility()) == (-2.0, 2.0)
    assert game.get_type().utility == T.Utility.ZERO_SUM and game.utility_sum() == 0.0  # `total 0`
    # fixed action ids: 0 `false`, 1 `true`, 2 seat 0, 3 seat 1
    for raise_, winner, returns in [(1, 3, [-2.0, 2.0]), (0, 2, [1.0, -1.0])]:
        state = game.new_initial_state()
        state.apply_action(raise_)
        state.apply_action(winner)
        assert state.is_terminal() and state.returns() == returns
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_returns_without_a_total_are_general_sum(tmp_path):
    path = tmp_path / "stakes.vbr"
    path.write_text(STAKES.read_text().replace(" total 0", ""))
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_stakes_general"))
    assert game.get_type().utility == T.Utility.GENERAL_SUM


def test_a_return_outside_its_range_is_a_located_error(tmp_path):
    from vbr.errors import VbrRuntimeError
    path = tmp_path / "stakes.vbr"
    path.write_text(STAKES.read_text().replace("stake = 2", "stake = 3"))
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, name="vbr_test_stakes_over"))
    state = game.new_initial_state()
    state.apply_action(1)  # `true`: raise
    state.apply_action(2)  # seat 0 wins
    with pytest.raises(VbrRuntimeError, match=r"`returns` gives seat 0 3, outside its range -2..2") as info:
        state.returns()
    assert (info.value.span.line, info.value.span.col) == (7, 14)


PIG = ROOT / "tests" / "fixtures" / "valid" / "pig.vbr"


def test_pig_has_two_fixed_action_ids_meaning_the_same_move_in_every_state():
    """tests/fixtures/valid/pig.vbr chooses only among the members of `enum Move { go_on, hold }`:
    as in OpenSpiel's own pig, two actions, 0 to roll again and 1 to hold, whatever the state."""
    game = pyspiel.load_game(vbr.rl.register_openspiel(PIG, name="vbr_test_pig"))
    assert game.num_distinct_actions() == 2
    rng = random.Random(3)
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([o for o, _ in state.chance_outcomes()]))
                continue
            assert state.legal_actions() == [0, 1]
            assert [state.action_to_string(a) for a in (0, 1)] == ["go_on", "hold"]
            state.apply_action(rng.choice([0, 1]))
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_a_choice_among_cards_keeps_position_ids():
    game = pyspiel.load_game(vbr.rl.register_openspiel("siatka"))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.legal_actions() == list(range(6))  # six tiles to place: their positions 0..5
    assert game.num_distinct_actions() == 37


def test_option_rows_follow_the_fixed_ids():
    """Stakes: seat 1 chooses among the seats, ids 2 and 3: rows 2 and 3 are seats 0 and 1, one-hot;
    rows 0 and 1 (`false`, `true`, not offered) are empty."""
    game = pyspiel.load_game(vbr.rl.register_openspiel(STAKES, name="vbr_test_stakes_rows", observe_options=True))
    state = game.new_initial_state()
    state.apply_action(0)
    observer = game.make_py_observer()
    observer.set_from(state, 1)
    rows = observer.dict["options"]
    seat = {block: at for block, at, _ in game.spec.encoding.option_layout()}["seat (one-hot)"]
    assert rows.shape[0] == 4 and not rows[:2].any()
    assert rows[2, seat] == rows[3, seat + 1] == 1 and rows[2].sum() == rows[3].sum() == 1


# ---------------------------------------------------------------------- the engines and the chance nodes
BOOKS = [("siatka", {}), ("cattack", {"players": 2}), ("tanto-cuore-beach-volleyball", {}),
         ("volleyball-high", {"mode": "1v1"})]
BOOK_IDS = [n for n, _ in BOOKS]


def sampled_actions(state, rng):
    """One action at `state`: a chance outcome drawn by its probability, else a legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return rng.choices(outcomes, probs)[0]
    return rng.choice(state.legal_actions())


@pytest.mark.parametrize("name,options", BOOKS, ids=BOOK_IDS)
def test_every_chance_node_offers_increasing_outcomes_whose_probabilities_add_up_to_one(name, options):
    game = pyspiel.load_game(vbr.rl.register_openspiel(name, options))
    nodes = 0
    for state in random_playouts(game, 2, seed=7, steps=300):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            assert actions == sorted(set(actions)) and all(0 <= a < game.max_chance_outcomes() for a in actions)
            assert all(p > 0 for _, p in outcomes) and sum(p for _, p in outcomes) == pytest.approx(1)
            nodes += 1
    assert nodes > 0


@pytest.mark.parametrize("name,options", BOOKS, ids=BOOK_IDS)
def test_the_c_engine_passes_openspiels_checks_and_plays_the_python_engines_game(name, options):
    """The same actions through the game played by either engine: the same players, legal actions,
    chance outcomes, observations (every seat's string and tensor), states and returns."""
    games = [pyspiel.load_game(vbr.rl.register_openspiel(name, options, engine=e)) for e in ("python", "c")]
    assert games[1].get_type().short_name.endswith("_c")
    pyspiel.random_sim_test(games[1], num_sims=1, serialize=True, verbose=False)
    rng = random.Random(11)
    states = [g.new_initial_state() for g in games]
    for _ in range(400):
        py, c = states
        assert (py.current_player(), py.is_chance_node(), str(py)) == (c.current_player(), c.is_chance_node(), str(c))
        assert py.legal_actions() == c.legal_actions() and py.chance_outcomes() == c.chance_outcomes()
        for seat in range(games[0].num_players()):
            assert py.observation_string(seat) == c.observation_string(seat)
            assert py.observation_tensor(seat) == c.observation_tensor(seat)
        if py.is_terminal():
            break
        action = sampled_actions(py, rng)
        for s in states:
            s.apply_action(action)
    assert states[0].returns() == states[1].returns()


def direct_play(rule_file, options, steps):
    """The typed engine (python) on the chance program, each step run once with all its outcomes
    queued before it runs: `steps` is [(option text or None for setup, outcomes)]. The states
    after each step."""
    from vbr.rl.chance_nodes import Draws
    draws = Draws.load(rule_file, options, "python")
    engine, program = draws.engine, draws.game.program
    words = engine.held(0)
    draws.fill(words, steps[0][1])
    engine.goto(words, program.init)
    state = TypedState(draws.game, words)
    states = [state]
    for option, outcomes in steps[1:]:
        state = state.clone()
        draws.fill(state.words, outcomes)
        state.apply_index([a.text for a in state.legal_actions()].index(option))
        states.append(state)
    return states


@pytest.mark.parametrize("name,options", BOOKS, ids=BOOK_IDS)
def test_a_game_through_openspiels_chance_nodes_shows_what_the_typed_engine_shows_given_the_same_outcomes(name, options):
    """A random game through OpenSpiel (chance node by chance node, each step run again up to its
    next draw) and the same choices and outcomes given to the typed engine at once (each step
    run once, its outcomes queued before it): every seat's observation after every step is the same."""
    game = pyspiel.load_game(vbr.rl.register_openspiel(name, options))
    rng = random.Random(3)
    state = game.new_initial_state()
    steps, seen = [[None, []]], []
    for _ in range(300):
        if state.is_terminal():
            break
        if state.is_chance_node():
            action = sampled_actions(state, rng)
            steps[-1][1].append(action)
            state.apply_action(action)
            continue
        seen.append([state.observation_string(s) for s in range(game.num_players())])
        action = rng.choice(state.legal_actions())
        referee = state.vbr_state().legal_actions()  # the bundled games' actions are positions (docs/rl.md)
        steps.append([referee[state.legal_actions().index(action)].text, []])
        state.apply_action(action)
    if not state.is_chance_node():
        seen.append([state.observation_string(s) for s in range(game.num_players())])
    else:
        steps.pop()  # the last step stopped at a draw: the typed engine runs whole steps only
    direct = direct_play(name, options, steps)
    assert len(steps) > 10 and len(direct) == len(seen)
    for views, st in zip(seen, direct):
        assert views == [json.dumps(view(st, s, False), sort_keys=True) for s in range(game.num_players())]


def test_pig_through_chance_nodes_follows_the_rules_roll_by_roll():
    """tests/fixtures/valid/pig.vbr: outcome i of `roll d6` is the face i + 1. Seat 0 rolls a 4 and
    a 6 (turn total 10) and holds (its total 10, seat 1's turn); seat 1 rolls a 1: its turn total
    is lost and seat 0 plays again."""
    game = pyspiel.load_game(vbr.rl.register_openspiel(PIG, name="vbr_test_pig_rolls"))
    state = game.new_initial_state()

    def shown():
        return {k[4:]: v for k, v in json.loads(state.observation_string(0)).items() if k.startswith("var ")}

    for action, expect in [(0, None), (3, {"turn_total": "4", "turn": "0"}), (0, None),
                           (5, {"turn_total": "10", "turn": "0"}),
                           (1, {"turn_total": "0", "total[0]": "10", "turn": "1"}), (0, None),
                           (0, {"turn_total": "0", "total[1]": "0", "turn": "0"})]:
        if expect is None:  # go_on: the roll is the next node, six faces of 1/6
            assert not state.is_chance_node()
            state.apply_action(action)
            assert state.chance_outcomes() == [(i, pytest.approx(1 / 6)) for i in range(6)]
        else:
            state.apply_action(action)
            assert {k: shown()[k] for k in expect} == expect and state.current_player() == int(expect["turn"])


def test_the_c_engine_without_a_compiler_is_an_error_saying_why_and_no_other_engine_is_taken(monkeypatch):
    from vbr.engines.c_engine import CEngineUnavailable
    monkeypatch.setenv("CC", "/nonexistent/cc")
    with pytest.raises(CEngineUnavailable, match="C compiler"):
        vbr.rl.register_openspiel("siatka", name="vbr_test_no_cc", engine="c")
    with pytest.raises(UsageError, match="plays the typed engines, `python` or `c`, not 'auto'"):
        vbr.rl.register_openspiel("siatka", name="vbr_test_auto", engine="auto")  # no fall-back to choose


@pytest.mark.parametrize("engine, horizon", [("python", 1000), ("c", 1000), ("python", 9)])
def test_pig_written_in_vbr_plays_openspiels_own_pig_move_for_move(engine, horizon):
    """examples/pig.vbr beside OpenSpiel's built-in `pig` (two players, 100 points to win, the
    same horizon): the same moves (vbr's `again`/`hold` are OpenSpiel's 0 = roll, 1 = stop) and
    the same die faces (OpenSpiel's outcome k is the face k + 1, vbr's `roll d6: k + 1`) give, at
    every step, the same kind of node, the same player to move, the same legal moves (only a
    hold once holding would bank 100) and the same chance outcomes with the same probabilities,
    and at the end the same returns: +1 and -1, or 0 and 0 once `horizon` moves are made. Random
    moves, 40 games, each to its end (a horizon of 9 moves ends most in a draw)."""
    ours = pyspiel.load_game(vbr.rl.register_openspiel(ROOT / "examples" / "pig.vbr", {"horizon": horizon},
                                                       name=f"vbr_pig_{engine}_{horizon}_vs_own", engine=engine))
    own = pyspiel.load_game("pig", {"players": 2, "winscore": 100, "horizon": horizon})
    rng = random.Random(11)
    ends = {"won": 0, "drawn": 0}
    for _ in range(40):
        a, b = ours.new_initial_state(), own.new_initial_state()
        while True:
            assert a.is_terminal() == b.is_terminal() and a.is_chance_node() == b.is_chance_node()
            if b.is_terminal():
                assert a.returns() == b.returns()
                ends["won" if b.returns()[0] else "drawn"] += 1
                break
            if b.is_chance_node():
                assert [p for _, p in a.chance_outcomes()] == pytest.approx([p for _, p in b.chance_outcomes()])
                k = rng.randrange(6)
                faces = {a.action_to_string(pyspiel.PlayerId.CHANCE, o): o for o, _ in a.chance_outcomes()}
                a.apply_action(faces[f"roll d6: {k + 1}"])
                b.apply_action(k)
                continue
            assert a.current_player() == b.current_player() and a.legal_actions() == b.legal_actions()
            assert [a.action_to_string(a.current_player(), m) for m in a.legal_actions()] == \
                [["again", "hold"][m] for m in b.legal_actions()]
            move = b.legal_actions()[-1] if rng.random() < 0.3 else b.legal_actions()[0]
            a.apply_action(move)
            b.apply_action(move)
    assert ends["drawn"] > 20 if horizon == 9 else ends["won"] == 40


def test_a_registered_game_pickles_and_loads_in_a_process_that_never_registered_it(tmp_path):
    # OpenSpiel's tools hand games to worker processes by pickle: the registration's class was
    # made at run time, so pickle could not find it ("attribute lookup VbrGame_vbr_siatka failed")
    import pickle
    import subprocess
    game = pyspiel.load_game(vbr.rl.register_openspiel("siatka", {"target": 3}))
    again = pickle.loads(pickle.dumps(game))
    assert (again.num_distinct_actions(), again.observation_tensor_size()) == (
        game.num_distinct_actions(), game.observation_tensor_size())
    (tmp_path / "game.pickle").write_bytes(pickle.dumps(game))
    done = subprocess.run([sys.executable, "-c", "import pickle, sys; g = pickle.load(open(sys.argv[1], 'rb')); "
                           "print(g.get_type().short_name, g.num_distinct_actions())", str(tmp_path / "game.pickle")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["vbr_siatka_target_3", str(game.num_distinct_actions())]
