"""The PettingZoo AEC environment (vbr/rl/pettingzoo_adapter.py): PettingZoo's own API test on
every bundled game under its main option sets, then what that test cannot know: the same seed
plays the same game as vbr itself, masks match the legal choices, rewards follow the outcome."""
from __future__ import annotations

import random
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

import vbr
import vbr.rl
from vbr.errors import IllegalActionError, UsageError
from vbr.ir.layout import Header as H
from vbr.rl.common import seat_returns

from conftest import ROOT

CONFIGS = [("siatka", {}), ("cattack", {"players": 4}), ("cattack", {"players": 2}),
           ("tanto-cuore-beach-volleyball", {}), ("volleyball-high", {"mode": "1v1"}),
           ("volleyball-high", {"mode": "2v2"})]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}" for n, o in CONFIGS]
# api_test's advice for an observation that is a Dict {"observation", "action_mask"} rather than a
# Box: the masked form PettingZoo's classic games use, whose names api_test exempts by a list; ours
# is not on it. These two, and only these, are expected.
DICT_OBSERVATION_ADVICE = [r"Observation is not a NumPy array$",
                           r"Observation space for each agent probably should be gymnasium\.spaces\.box"]


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_pettingzoo_api_test_passes(name, options):
    env = vbr.rl.pettingzoo_env(name, options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning of its own or of vbr's fails the test
        for advice in DICT_OBSERVATION_ADVICE:
            warnings.filterwarnings("ignore", message=advice, category=UserWarning, module="pettingzoo.test.api_test")
        api_test(env, num_cycles=500)  # 500 cycles: longer than any game of random choices here


def _play(env, seed: int, pick_seed: int):
    """One whole game with seeded random legal actions; returns (the actions, the final rewards)."""
    env.reset(seed=seed)
    rng = random.Random(pick_seed)
    actions, total = [], {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(rng.choice(legal))
        actions.append((agent, a))
        env.step(a)
    return actions, total


def test_the_same_seed_plays_the_same_game_as_vbr_itself():
    env = vbr.rl.pettingzoo_env("siatka")
    actions, _ = _play(env, seed=7, pick_seed=1)
    again, _ = _play(vbr.rl.pettingzoo_env("siatka"), seed=7, pick_seed=1)
    assert actions == again
    assert env.game.engine.name in ("c", "python")  # vbr's default engine, as `vbr run` takes it
    st = vbr.load("siatka").new_state(7)  # `vbr run siatka --seed 7` starts here
    for agent, a in actions:
        assert agent == f"seat_{st.current_player()}"
        st.apply_index(a)
    assert st.is_terminal() and str(st.outcome()) == str(env.vbr_state.outcome())


def test_a_numpy_seed_plays_the_series_of_the_same_int():
    # gymnasium users seed with numpy integers: reset(seed=np.int64(7)) and the resets after it play
    # the games of seed 7's series, not an OverflowError from the seeds' 64-bit arithmetic.
    played = []
    for seed in (7, np.int64(7)):
        env = vbr.rl.pettingzoo_env("siatka", seed=seed)
        env.reset(seed=seed)
        env.reset()
        played.append(env.vbr_state.words_in_use())
    assert played[0] == played[1]


@pytest.mark.parametrize("name,options", [("cattack", {"players": 4}), ("volleyball-high", {"mode": "2v2"}),
                                          ("siatka", {})], ids=["cattack-4", "vbh-2v2", "siatka"])
def test_rewards_at_the_end_are_each_seats_side_result(name, options):
    env = vbr.rl.pettingzoo_env(name, options)
    for seed in range(3):
        _, total = _play(env, seed=seed, pick_seed=seed)
        outcome = env.vbr_state.outcome()
        prog = env.game.program
        expected = seat_returns(env.vbr_state)
        assert [total[f"seat_{s}"] for s in range(prog.seats)] == expected
        winners = [s for s in range(prog.seats) if expected[s] == 1]
        # a side wins whole: in a game of teams, both seats of the winning team get +1
        assert winners == (prog.teams[outcome.team] if outcome.team is not None else [])


def test_the_mask_marks_exactly_the_legal_choices_of_the_seat_to_choose():
    env = vbr.rl.pettingzoo_env("tanto-cuore-beach-volleyball")
    env.reset(seed=4)
    rng = random.Random(4)
    for _ in range(40):
        st = env.vbr_state
        n = len(st.legal_actions())
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            if agent == env.agent_selection:
                assert mask.tolist() == [1] * n + [0] * (env.max_actions - n)
            else:
                assert not mask.any()
        env.step(rng.randrange(n))
        if env.vbr_state.is_terminal():
            break


def test_the_action_space_is_derived_from_the_declarations():
    # Siatka: 36 cards and tiles are the largest set a choice can pick from (court: 12 places,
    # 8 directions, enums of at most 4), and an optional choice adds `pass`: 37
    env = vbr.rl.pettingzoo_env("siatka")
    assert env.action_space("seat_0").n == 37 == int(env.game.new_state(0).words[H.THINGS]) + 1



def test_a_numpy_integer_is_a_whole_number_of_max_actions():
    # a bound read from a numpy array (a config, a sweep) was refused: "max_actions must be a
    # whole number of at least 1, not np.int64(40)"
    env = vbr.rl.pettingzoo_env("siatka", max_actions=np.int64(40))
    assert env.action_space("seat_0").n == 40 and type(env.max_actions) is int
    with pytest.raises(UsageError, match="at least 1"):
        vbr.rl.pettingzoo_env("siatka", max_actions=np.int64(0))

def test_a_choice_with_more_options_than_the_action_space_is_a_clear_error():
    env = vbr.rl.pettingzoo_env("siatka", max_actions=1)
    with pytest.raises(UsageError, match=r"siatka.vbr:\d+:\d+: the choice `.*` offers \d+ options, more than the 1 "
                                         r"actions .*max_actions="):
        env.reset(seed=0)



GROW = ROOT / "tests" / "fixtures" / "valid" / "grow.vbr"


def test_a_step_to_a_choice_too_large_for_the_action_space_leaves_the_environment_as_it_was():
    # Grow's choices offer 1..total+1, which its declarations do not bound: the action space is
    # 3 (the largest of its values, 2 seats or false and true, plus one for a pass). After 1 and 2,
    # seat 0 would be offered 1..4. The error came after the step was taken: seat_1 stayed
    # selected with a mask of zeros while the state asked seat 0 to choose among 4
    env = vbr.rl.pettingzoo_env(str(GROW))
    assert env.max_actions == 3
    env.reset(seed=0)
    env.step(0)  # seat 0 takes 1
    before = (env.agent_selection, env.observe("seat_1")["action_mask"].tolist(), env.vbr_state.choices)
    with pytest.raises(UsageError, match="offers 4 options, more than the 3 actions .* max_actions=4"):
        env.step(1)  # seat 1 takes 2: total 3
    assert (env.agent_selection, env.observe("seat_1")["action_mask"].tolist(), env.vbr_state.choices) == before
    assert before == ("seat_1", [1, 1, 0], 1)

def test_bad_input_is_a_clear_error():
    env = vbr.rl.pettingzoo_env("siatka")
    env.reset(seed=0)
    with pytest.raises(UsageError, match="'seat_2' is not an agent of this game: its agents are seat_0, seat_1"):
        env.observe("seat_2")
    with pytest.raises(UsageError, match="is not an agent"):
        env.action_space("player_0")
    n = len(env.vbr_state.legal_actions())
    with pytest.raises(IllegalActionError, match=f"has actions {', '.join(map(str, range(n)))} "):
        env.step(n)
    with pytest.raises(IllegalActionError, match="not an action"):
        env.step("forward")
    with pytest.raises(UsageError, match="render_mode 'rgb_array' is not one of human, ansi"):
        vbr.rl.pettingzoo_env("siatka", render_mode="rgb_array")
    with pytest.raises(UsageError, match="seed"):
        vbr.rl.pettingzoo_env("siatka", seed=-1)
    with pytest.raises(UsageError, match="unknown option `nonsense`"):
        vbr.rl.pettingzoo_env("siatka", {"nonsense": 1})


def test_ansi_render_shows_public_zones_and_only_the_sizes_of_the_others():
    env = vbr.rl.pettingzoo_env("siatka", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("Siatka")
    assert "hand[0]: " in text and "unseen" in text.split("hand[0]: ")[1].splitlines()[0]



def test_ansi_render_names_the_seat_to_choose_but_not_what_it_is_asked():
    # Siatka asks "Rozegranie: roll again?" only of a seat holding a Rozegranie card: the render
    # wrote the prompt of the pending choice, telling a spectator what a hand it shows as
    # "3 unseen" holds (the observations show another seat's prompt to nobody)
    env = vbr.rl.pettingzoo_env("siatka", render_mode="ansi")
    for seed in range(20):
        env.reset(seed=seed)
        rng = random.Random(seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            if env.vbr_state.observation(seat).get("prompt") == "Rozegranie: roll again?":
                text = env.render()
                assert text.splitlines()[-1] == f"  seat {seat} to choose"
                assert "Rozegranie" not in text and f"hand[{seat}]: " in text and "unseen" in text
                return
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pytest.fail("no seat was asked to roll again in 20 random games")


def test_human_render_prints_the_rule_files_control_characters_escaped(tmp_path, capsys):
    # the title went to the terminal as written: `\x1b[2J` cleared the screen
    path = tmp_path / "esc.vbr"
    path.write_text('game "Esc \x1b[2J\u202e"\nseats 2\nstart a\nphase a {\n  choose k from 1..2 by 0\n  end draw\n}\n',
                    encoding="utf-8")
    env = vbr.rl.pettingzoo_env(str(path), render_mode="human")
    env.reset(seed=0)
    out = capsys.readouterr().out
    assert out.startswith("Esc \\x1b[2J\\u202e — phase a\n") and "\x1b" not in out and "\u202e" not in out
    env = vbr.rl.pettingzoo_env(str(path), render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == out.rstrip("\n")  # the same text, returned

def test_without_the_rl_extra_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pettingzoo", None)  # as if pettingzoo were not installed
    with pytest.raises(UsageError, match=r"needs the optional package 'pettingzoo'.*pip install 'vbr\[rl\]'"):
        vbr.rl.pettingzoo_env("siatka")


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_pettingzoo_api_test_passes_with_the_options_observed(name, options):
    env = vbr.rl.pettingzoo_env(name, options, observe_options=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=500)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    n = int(obs["action_mask"].sum())
    assert obs["options"].shape[0] == env.max_actions
    assert obs["options"][:n].any(axis=1).all() and not obs["options"][n:].any()


def test_rewards_follow_the_declared_returns():
    """tests/fixtures/valid/stakes.vbr: seat 0 raises the stake to 2 (action 1, `true`: the fixed
    ids are `false`, `true`, seat 0, seat 1), seat 1 names itself the winner (action 3): seat 1
    takes 2 chips from seat 0."""
    from conftest import ROOT
    env = vbr.rl.pettingzoo_env(ROOT / "tests" / "fixtures" / "valid" / "stakes.vbr")
    env.reset(seed=0)
    env.step(1)
    env.step(3)
    assert env.rewards == {"seat_0": -2.0, "seat_1": 2.0}
    assert all(env.terminations.values())


def test_pig_has_two_fixed_actions_and_masks_them_by_id():
    from conftest import ROOT
    env = vbr.rl.pettingzoo_env(ROOT / "tests" / "fixtures" / "valid" / "pig.vbr")
    env.reset(seed=1)
    assert env.action_space("seat_0").n == 2
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"].tolist() == [1, 1]
    assert [env.action_text(a) for a in (0, 1)] == ["go_on", "hold"]


SEAT_THEN_NUMBER = """game "Seat then number"
seats 3
start deal
var amount: int = 0
phase deal {
  choose s from seats by 0 as "who"
  choose n from 0..2 by s as "how many"
  amount = n
  end winner s
}
"""



def test_once_the_game_is_over_actions_have_no_text_and_stepping_on_says_to_reset(tmp_path):
    # The state kept its last choice's options: action_text(0) read the text of one of them, a
    # choice no longer offered. Once every agent had taken its None step, step() and last()
    # raised a bare KeyError naming the last agent
    path = tmp_path / "seat_then_number.vbr"
    path.write_text(SEAT_THEN_NUMBER)
    env = vbr.rl.pettingzoo_env(str(path))
    env.reset(seed=0)
    assert env.action_text(1) == "1"
    for odd in (1.5, "x"):  # read as step() reads an action: 1.5 was action 1, "x" a bare ValueError of int()
        with pytest.raises(IllegalActionError):
            env.action_text(odd)
    env.step(1)  # seat 0 names seat 1 (the ids are the numbers 0, 1, 2)
    assert env.agent_selection == "seat_1"
    env.step(0)  # seat 1 takes 0: seat 1 wins
    assert env.vbr_state.is_terminal() and all(env.terminations.values())
    with pytest.raises(IllegalActionError, match="action 0 is not legal here: the game is over"):
        env.action_text(0)
    assert all(not env.observe(a)["action_mask"].any() for a in env.possible_agents)
    for agent in env.agent_iter():
        assert env.last()[1] == (1.0 if agent == "seat_1" else -1.0)
        env.step(None)
    assert env.agents == []
    for call, what in ((lambda: env.step(0), "step"), (lambda: env.step(None), "step"), (env.last, "last")):
        with pytest.raises(UsageError, match=rf"the game is over .*: call reset\(\) before {what}\(\)"):
            call()
    env.reset(seed=1)
    assert env.agents == ["seat_0", "seat_1", "seat_2"] and env.observe("seat_0")["action_mask"].tolist() == [1, 1, 1]

def test_an_options_row_tells_seat_0_and_the_number_0_from_an_action_not_offered(tmp_path):
    # docs/rl.md: a row describes its option, and the rows of actions not offered are zero; so
    # seat 0 and the number 0 must not be all-zero rows. Seats are one-hot, as in the observation.
    path = tmp_path / "seat_then_number.vbr"
    path.write_text(SEAT_THEN_NUMBER)
    env = vbr.rl.pettingzoo_env(path, observe_options=True)
    off = {block: at for block, at, _ in env.encoding.option_layout()}
    env.reset(seed=0)
    obs = env.observe("seat_0")
    assert obs["action_mask"].tolist() == [1, 1, 1]  # seats 0, 1, 2
    for s, row in enumerate(obs["options"]):
        assert row[off["seat (one-hot)"] + s] == 1 and row.sum() == 1
    env.step(2)  # seat 2 chooses how many
    obs = env.observe("seat_2")
    assert [env.action_text(a) for a in (0, 1, 2)] == ["0", "1", "2"]
    for n, row in enumerate(obs["options"]):
        number = off["number (its value, then 1)"]
        assert row[number:number + 2].tolist() == [n, 1] and row.sum() == n + 1


DIVIDE = """game "Divide"
seats 2
start play
var total: int = 0
var turn: seat = 0
phase play {
  choose n from 0..2 by turn
  total += 6 / n
  if total >= 9 {
    end winner turn
  }
  turn = other(turn)
  goto play
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_step_stopped_by_an_error_of_the_rules_leaves_the_environment_as_it_was(tmp_path, engine):
    # Choosing 0 divides by zero: step raises the located error, and the same seat is still to
    # choose among the same actions (never a live agent with an empty mask), so play can go on.
    from vbr.errors import VbrRuntimeError
    path = tmp_path / "divide.vbr"
    path.write_text(DIVIDE)
    env = vbr.rl.pettingzoo_env(vbr.load(path, engine=engine))
    env.reset(seed=0)
    env.step(2)  # seat 0: total 3
    obs, reward, terminated, truncated, _ = env.last()
    with pytest.raises(VbrRuntimeError, match="division by zero"):
        env.step(0)
    assert env.agent_selection == "seat_1"
    again, *rest = env.last()
    assert again["action_mask"].tolist() == [1, 1, 1] and np.array_equal(again["observation"], obs["observation"])
    assert rest[:3] == [reward, terminated, truncated] == [0.0, False, False]
    env.step(1)  # seat 1: total 9, seat 1 wins
    assert env.terminations == {"seat_0": True, "seat_1": True}
    assert env._cumulative_rewards == {"seat_0": -1.0, "seat_1": 1.0}


WALKOVER = """game "Walkover"
seats 2
start play
var n: int = 0
setup {
  end winner 1
}
phase play {
  choose m from 1..2 by 0
  n += m
  end winner 0
}
"""


def test_a_game_over_in_its_setup_gives_each_agent_its_return_in_last(tmp_path):
    # Seat 1 wins before anyone chooses: each agent's last() is terminated with its result, +1 for
    # seat 1 and -1 for seat 0, as OpenSpiel's returns() says of the same file.
    path = tmp_path / "walkover.vbr"
    path.write_text(WALKOVER)
    env = vbr.rl.pettingzoo_env(path)
    env.reset(seed=0)
    seen = {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        seen[agent] = (reward, terminated, truncated)
        env.step(None)
    assert seen == {"seat_0": (-1.0, True, False), "seat_1": (1.0, True, False)}


def test_a_game_loaded_by_a_typed_engine_is_played_as_loaded():
    game = vbr.load("siatka", engine="python")
    env = vbr.rl.pettingzoo_env(game)
    env.reset(seed=0)
    assert env.game is game and env.vbr_state.game is game


def test_what_is_neither_a_rule_file_nor_a_typed_game_is_a_usage_error():
    state = vbr.load("siatka", engine="python").new_state(0)
    with pytest.raises(UsageError, match="a rule file is a path or a bundled name, or a game loaded with "
                                         r"vbr.load\(..., engine='python' or 'c'\), not a State"):
        vbr.rl.pettingzoo_env(state)


def test_without_a_c_compiler_the_environment_plays_the_python_engine_and_says_why(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")  # vbr/engines/c_engine.py reads CC first
    with pytest.warns(UserWarning, match=r"^engine='auto': the C engine cannot run here \(the C compiler "
                                         r"`/nonexistent/cc` .*\); playing through the python engine$") as heard:
        env = vbr.rl.pettingzoo_env("siatka")
    assert env.game.engine.name == "python" and heard[0].filename == __file__


def test_a_deep_copy_of_an_environment_plays_on_apart_from_it():
    # search over environments deep-copies them: it failed inside, a court cell (Volleyball High's
    # encoding holds some) could not be made again from a tuple
    env = vbr.rl.pettingzoo_env("volleyball-high", {"mode": "2v2"})
    env.reset(seed=1)
    import copy
    other = copy.deepcopy(env)
    other.step(int(np.flatnonzero(other.observe(other.agent_selection)["action_mask"])[0]))
    assert (env.vbr_state.choices, other.vbr_state.choices) == (0, 1)
    assert other.game is env.game  # a game is never changed by play: shared, as its states share it


# ---------------------------------------------------------------------- the global state: env.state()
# PettingZoo's `state()` is the global view for centralised training (QMIX, MAPPO's critic) and
# `state_space` its space: here the referee's view, every zone's contents included.
STATE_SPACE_ADVICE = r"Environment's (minimum|maximum) state space value is -?infinity"  # counts have no top


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_pettingzoo_state_space_test_passes_and_every_state_lies_in_the_state_space(name, options):
    # pettingzoo.test.state_test's test_state plays unmasked random actions, so a game whose
    # actions are masked (ours, and PettingZoo's own classic games) cannot run it: its space
    # check runs, and the states of a game of random legal actions are checked here
    import importlib
    state_test = importlib.import_module("pettingzoo.test.state_test")  # the module: its name is also a function's
    env = vbr.rl.pettingzoo_env(name, options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=STATE_SPACE_ADVICE, category=UserWarning)
        state_test.test_state_space(env)
    env.reset(seed=2)
    rng, seen = random.Random(2), 0
    for agent in env.agent_iter():
        s = env.state()
        assert s.shape == env.state_space.shape and s.dtype == np.float32
        assert env.state_space.contains(s) and np.all(np.isfinite(s))
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        seen += 1
    assert env.state_space.contains(env.state()) and seen > 10


def _block(env, name: str, x, referee: bool) -> np.ndarray:
    from vbr.rl.observation import layout
    (off, size), = [(o, n) for b, o, n in layout(env.game, referee) if b == name]
    return x[off:off + size]


def test_the_state_shows_the_cards_that_a_seats_observation_hides():
    # Siatka (rules/siatka.vbr): `zone hand per seat owner`, `zone deck per seat hidden`, and
    # `enum Tactic { rozegranie, mocne_odbicie, superatak, zaskoczenie }`, a Card's only field
    env = vbr.rl.pettingzoo_env("siatka")
    env.reset(seed=3)
    tactics = ["rozegranie", "mocne_odbicie", "superatak", "zaskoczenie"]
    shown = env.vbr_state.observation(1)["zones"]["hand[1]"]  # seat 1 sees its own hand, faces
    held = [t for card in shown for t in tactics if f"tactic={t})" in card]
    assert len(held) == len(shown) == 3  # Siatka deals 3 tactic cards to each hand
    state, seen_by_0 = env.state(), env.observe("seat_0")["observation"]
    assert _block(env, "zone hand[1]: Card.tactic", state, True).tolist() == [held.count(t) for t in tactics]
    assert _block(env, "zone hand[1]: Card count", state, True).tolist() == [3]
    assert not _block(env, "zone hand[1]: Card.tactic", seen_by_0, False).any()  # hidden from seat 0
    # a deck no seat may look into: only its size in an observation, its contents in the state
    assert _block(env, "zone deck[0]: Card.tactic", state, True).sum() == env.vbr_state.observation(0)["zones"]["deck[0]"]
    from vbr.rl.observation import layout
    assert not any(name.startswith("zone deck[0]:") for name, _, _ in layout(env.game))
    # the observation's 183 (docs/rl.md), less the observer's 2, plus each deck's contents: a count
    # and 2 + 4 + 2 for a Tile (defence: sum and count; 4 abilities; field: sum and count), a count
    # and 4 tactics for a Card
    assert env.state_space.shape == (183 - 2 + 2 * (1 + 2 + 4 + 2 + 1 + 4),)


def test_redealing_what_seat_0_cannot_see_changes_the_state_but_not_its_observation():
    env = vbr.rl.pettingzoo_env("siatka")
    env.reset(seed=3)
    st = env.vbr_state
    changed = 0
    for k in range(5):
        dealt = st.determinize(0, seed=k)
        assert np.array_equal(vbr.rl.observation_tensor(dealt, 0), vbr.rl.observation_tensor(st, 0))
        changed += not np.array_equal(vbr.rl.state_tensor(dealt), vbr.rl.state_tensor(st))
    assert changed > 0  # 3 of seat 1's 12 cards in hand: some re-deal shows another hand


def test_the_state_is_the_same_under_the_python_and_c_engines():
    envs = [vbr.rl.pettingzoo_env(vbr.load("volleyball-high", {"mode": "2v2"}, engine=e)) for e in ("python", "c")]
    assert envs[0].state_space == envs[1].state_space
    for env in envs:
        env.reset(seed=5)
    rng, steps = random.Random(5), 0
    while not envs[0].vbr_state.is_terminal() and steps < 300:
        assert np.array_equal(envs[0].state(), envs[1].state())
        legal = np.flatnonzero(envs[0].observe(envs[0].agent_selection)["action_mask"])
        a = int(rng.choice(legal))
        for env in envs:
            env.step(a)
        steps += 1
    assert np.array_equal(envs[0].state(), envs[1].state()) and steps > 10


def test_state_before_reset_is_a_usage_error():
    with pytest.raises(UsageError, match=r"call reset\(\) before state\(\)"):
        vbr.rl.pettingzoo_env("siatka").state()


def test_action_text_before_reset_is_a_usage_error_saying_so():
    with pytest.raises(UsageError, match=r"call reset\(\) before action_text\(\)"):
        vbr.rl.pettingzoo_env("siatka").action_text(0)


# ---------------------------------------------------------------------- pickling (multiprocessing, Ray)
def _snapshot(env) -> tuple:
    """Everything an agent or a learner reads of the environment now."""
    seen = {a: {k: v.tolist() for k, v in env.observe(a).items()} for a in env.possible_agents}
    return (env.agent_selection, seen, env.state().tolist(), dict(env.rewards),
            dict(env._cumulative_rewards), dict(env.terminations), list(env.agents))


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_pickled_environment_mid_game_plays_on_as_the_original(engine):
    import pickle
    env = vbr.rl.pettingzoo_env(vbr.load("siatka", engine=engine), observe_options=True)
    env.reset(seed=9)
    rng = random.Random(9)
    for _ in range(12):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    copy = pickle.loads(pickle.dumps(env))
    assert copy.game is not env.game and copy.game.engine.name == engine  # loaded again, as in a worker
    assert copy.observation_space("seat_0") == env.observation_space("seat_0") and copy.state_space == env.state_space
    for agent in env.agent_iter():
        assert copy.agent_selection == agent and _snapshot(copy) == _snapshot(env)
        _, _, term, trunc, _ = env.last()
        a = None if term or trunc else int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        env.step(a)
        copy.step(a)
    assert _snapshot(copy) == _snapshot(env) and not copy.agents
    assert str(copy.vbr_state.outcome()) == str(env.vbr_state.outcome())


def test_seat_0s_observation_at_its_turn_holds_no_trace_of_a_choice_seat_1_passed():
    # seat 1 is asked `show the 2?` only when dealt the 2 face down; passed, it changes nothing
    # seat 0 sees (docs/rl.md, "Whose turn it is"), so at seat 0's turn its observation and mask
    # are the same in both deals
    env = vbr.rl.pettingzoo_env(vbr.load(ROOT / "tests" / "fixtures" / "valid" / "quiet_card.vbr", engine="python"))
    seen = {}
    for seed in range(40):
        env.reset(seed=seed)
        dealt = env.vbr_state.observation(1)["zones"]["hand[1]"][0].split()[1]
        if env.agent_selection == "seat_1":
            assert dealt == "Card(v=2)"
            pass_at = next(a for a in np.flatnonzero(env.observe("seat_1")["action_mask"]) if env.action_text(a) == "pass")
            env.step(int(pass_at))
        assert env.agent_selection == "seat_0"
        obs = env.observe("seat_0")
        seen.setdefault(dealt, (obs["observation"].tolist(), obs["action_mask"].tolist()))
    assert set(seen) == {"Card(v=1)", "Card(v=2)"}
    assert seen["Card(v=1)"] == seen["Card(v=2)"]
