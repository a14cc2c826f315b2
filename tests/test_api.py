"""The public Python API (docs/api.md): every name it documents exists as documented, its example
runs, and misuse raises the documented errors."""
import inspect
import re

import pytest

import vbr
import vbr.cache_contents as vbr_cache_contents
import vbr.checking as vbr_checking
import vbr.engines.c_cache as vbr_c_cache
import vbr.errors as vbr_errors
import vbr.gamelog as vbr_gamelog
import vbr.play as vbr_play
from conftest import ROOT
from vbr.errors import IllegalActionError, InvalidActionError
from vbr.actions import Outcome
from vbr.play import play_game

API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
# a table row's name: `Owner.name` or `Owner.name(params)`
DOCUMENTED = re.findall(r"^\| `([A-Za-z_.]+?)\.([a-z_]+)(?:\(([^)]*)\))?` \|", API, re.M)


@pytest.fixture(scope="module")
def things():
    game = vbr.load("siatka", engine="python")
    result = play_game(game, 1, ["random", "random"])
    state = game.new_state(1)
    return {"vbr": vbr, "vbr.checking": vbr_checking, "vbr.errors": vbr_errors, "vbr.play": vbr_play,
            "vbr.gamelog": vbr_gamelog, "vbr.cache_contents": vbr_cache_contents, "vbr.engines.c_cache": vbr_c_cache,
            "Game": game,
            "State": state,
            "Action": state.legal_actions()[0], "Outcome": result.state.outcome(), "GameResult": result}


def test_the_api_page_documents_the_core_names():
    names = {f"{owner}.{name}" for owner, name, _ in DOCUMENTED}
    assert {"vbr.load", "Game.new_state", "State.legal_actions", "State.apply", "State.apply_index",
            "State.is_terminal", "State.outcome", "State.current_player", "State.clone", "State.observation",
            "vbr.play.play_game", "GameResult.winner", "GameResult.choices"} <= names


@pytest.mark.parametrize("owner, name, params", DOCUMENTED, ids=[f"{o}.{n}" for o, n, _ in DOCUMENTED])
def test_each_documented_name_exists_with_its_documented_parameters(things, owner, name, params):
    assert hasattr(things[owner], name), f"docs/api.md documents `{owner}.{name}`, which does not exist"
    if params:
        taken = inspect.signature(getattr(things[owner], name)).parameters
        for p in params.split(","):
            assert p.split("=")[0].strip() in taken, f"`{owner}.{name}` takes no parameter `{p.strip()}`"


@pytest.mark.parametrize("block", re.findall(r"```python\n(.*?)```", API, re.S))
def test_the_api_examples_run(block, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(block, "docs/api.md", "exec"), {})


def test_applying_a_number_raises_an_illegal_action_naming_what_is_legal():
    state = vbr.load("siatka", engine="python").new_state(1)
    legal = [str(a) for a in state.legal_actions()]
    with pytest.raises(IllegalActionError) as info:
        state.apply(999)
    assert isinstance(info.value, ValueError)
    assert "apply_index" in str(info.value) and all(a in str(info.value) for a in legal)
    assert [str(a) for a in state.legal_actions()] == legal  # nothing was applied


def test_an_index_past_the_legal_actions_raises_an_illegal_action():
    state = vbr.load("siatka", engine="python").new_state(1)
    n = len(state.legal_actions())
    with pytest.raises(IllegalActionError, match=rf"^option {n} is not legal here: there are {n} options \(0\.\.{n - 1}\)$"):
        state.apply_index(n)
    with pytest.raises(IllegalActionError):
        state.apply_index(-1)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_an_index_once_the_game_is_over_says_the_game_is_over(engine):
    # No choice is pending once the game has ended: there is no range of options to name.
    state = vbr.load(str(ROOT / "docs" / "tutorial" / "bump.vbr"), engine=engine).new_state(4)
    while not state.is_terminal():
        state.apply_index(0)
    with pytest.raises(IllegalActionError, match=r"^option 0 is not legal here: the game is over$"):
        state.apply_index(0)


def test_an_action_text_without_a_seat_is_invalid():
    state = vbr.load("siatka", engine="python").new_state(1)
    with pytest.raises(InvalidActionError):
        state.apply("forward")
    with pytest.raises(InvalidActionError):  # `²` is a digit to str.isdigit, but no seat number
        state.apply("\u00b2 #0")


def test_an_outcome_with_negative_points_prints_them_apart():
    assert str(Outcome(winner=0, points=(1, -1))) == "seat 0 wins (1, -1)"
    assert str(Outcome(winner=None, points=(-2, -2))) == "draw (-2, -2)"


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_team_without_a_seat_wins_with_no_winning_seat(tmp_path, engine):
    # docs/api.md: Outcome.winner is None when the winning team has no seat; Outcome.team names it
    f = tmp_path / "solo.vbr"
    f.write_text('game "Solo"\nseats 1 teams { you: 0  ai: }\nstart a\nphase a {\n  end winner team 1\n}\n')
    outcome = vbr.load(str(f), engine=engine).new_state(0).outcome()
    assert (outcome.winner, outcome.team, str(outcome)) == (None, 1, "team 1 wins")


@pytest.mark.parametrize("engine", ["auto", "c", "python"])
def test_a_construct_the_typed_program_lacks_raises_engine_unavailable_located(tmp_path, engine):
    # docs/api.md's example of one: a list of lists worked out in play, `[[count(deck)]]`
    f = tmp_path / "lists.vbr"
    f.write_text('game "Lists"\nstart a\nzone deck public\nphase a {\n  let n = [[count(deck)]]\n  end draw\n}\n')
    with pytest.raises(vbr_errors.EngineUnavailable) as caught:
        vbr.load(str(f), engine=engine)
    assert caught.value.located().startswith(f"{f}:5:12: error: not supported yet: ")


# ------------------------------------------------------------------------- seeds and seats as researchers pass them
def test_a_numpy_integer_seed_plays_the_game_of_the_same_int():
    # Seeds drawn with numpy (`rng.integers(...)`) are np.int64: the game of that number, not an
    # OverflowError from the seeds' 64-bit arithmetic.
    np = pytest.importorskip("numpy")
    game = vbr.load("siatka", engine="python")
    state, again = game.new_state(np.int64(3)), game.new_state(3)
    state.play_random(5)
    again.play_random(5)
    assert state.words_in_use() == again.words_in_use()
    assert play_game(game, np.int64(3), ["random", "first"]).points == play_game(game, 3, ["random", "first"]).points
    assert game.new_state(3).mcts(iterations=5, seed=np.int64(2)) == game.new_state(3).mcts(iterations=5, seed=2)


@pytest.mark.parametrize("seed", [-1, 2 ** 63, 2 ** 64])
def test_a_game_seed_outside_0_to_2_63_is_refused_not_cut_down(seed):
    # Games are seeded modulo 2**64, so 2**64 would be game 0 again and -1 game 2**64 - 1, which
    # `vbr run --seed` cannot play: docs/api.md takes the seeds `vbr run` takes.
    game = vbr.load("siatka", engine="python")
    with pytest.raises(ValueError, match=rf"^{seed} is not a game seed: seeds run from 0 to 9223372036854775807"):
        game.new_state(seed)
    with pytest.raises(ValueError, match="is not a game seed"):
        play_game(game, seed, ["random", "random"])


@pytest.mark.parametrize("seed", ["5", 1.5, None, True])
def test_a_seed_that_is_no_whole_number_is_a_type_error_saying_so(seed):
    with pytest.raises(TypeError, match=r"^a seed is a whole number, not "):
        vbr.load("siatka", engine="python").new_state(seed)


@pytest.mark.parametrize("seat", [2, -1, "0"])
def test_the_observation_of_a_seat_the_game_lacks_is_a_value_error(seat):
    # -1 would otherwise read seat 1's hand from the end of the list of hidden zones.
    state = vbr.load("siatka", engine="python").new_state(1)
    with pytest.raises(ValueError, match=r"^no seat .*: 'Siatka' has seats 0\.\.1$"):
        state.observation(seat)
    with pytest.raises(ValueError, match=r"^no seat "):
        state.determinize(seat, 0)


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("agents", [["random"], ["first", "random", "random"], []])
def test_play_game_refuses_agents_that_are_not_one_per_seat(engine, agents):
    # A short list left seat 1 without an agent: python raised IndexError, C played on reading past
    # the agents it was given; a long one ignored the extra agents.
    game = vbr.load("siatka", engine=engine)
    with pytest.raises(vbr.errors.UsageError, match=r"^play_game takes one agent spec per seat \(2 here\)"):
        play_game(game, 1, agents)


def test_play_game_reads_a_string_of_agents_as_the_agents_flag_does():
    game = vbr.load("siatka", engine="python")
    assert play_game(game, 4, "random,first").points == play_game(game, 4, ["random", "first"]).points
    assert play_game(game, 4, "first").points == play_game(game, 4, ["first", "first"]).points


@pytest.mark.parametrize("settings, message", [
    ({"iterations": 0, "budget": 0}, r"^mcts: iterations must be an integer from 1 to 1000000, not 0$"),
    ({"c": float("nan")}, r"^mcts: c must be a number from 0 to 100, not nan$"),
    ({"widen": 2}, r"^mcts: widen must be a number from 0 to 1, not 2$"),
    ({"iterations": 2.5}, r"^mcts: iterations must be an integer"),
    ({"reward": "score"}, r"^mcts: reward must be one of win, margin, not 'score'$"),
])
def test_state_mcts_takes_the_settings_the_mcts_agent_takes(settings, message):
    # docs/api.md: State.mcts's settings are the mcts agent's parameters, "as vbr sim --help lists
    # them": `--agents mcts:iterations=0` is refused, so is mcts(iterations=0, budget=0) (it searched
    # nothing and answered anyway); iterations=0 beside a budget is a search bounded by the budget
    state = vbr.load("siatka", engine="python").new_state(1)
    with pytest.raises(vbr_errors.UsageError, match=message):
        state.mcts(**settings)


@pytest.mark.parametrize("settings, message", [
    # docs/api.md: a setting the others leave nothing to do is "refused as --agents refuses it":
    # one rule for both (tests/test_agent_spec.py holds the spec's side)
    ({"greedy_moves": 3}, r"^mcts: greedy_moves does nothing without rollout=greedy \(rollout is random\)"),
    ({"reward": "win", "cut": "even"}, r"^mcts: cut does nothing without reward=margin \(reward is win\)"),
    ({"reward": "win", "spread_playouts": 4}, r"^mcts: spread_playouts does nothing without reward=margin"),
    ({"reward": "win", "spread_scale": 2}, r"^mcts: spread_scale does nothing without reward=margin"),
    ({"extend": 1, "confidence": 2}, r"^mcts: confidence does nothing without extend above 1 \(extend is 1\)"),
])
def test_state_mcts_refuses_a_setting_the_others_leave_nothing_to_do_as_agent_specs_do(settings, message):
    state = vbr.load("siatka", engine="python").new_state(1)
    with pytest.raises(vbr_errors.UsageError, match=message):
        state.mcts(**settings)


def test_state_mcts_takes_a_setting_beside_what_it_needs():
    state = vbr.load("siatka", engine="python").new_state(1)
    assert state.mcts(iterations=10, rollout="greedy", greedy_moves=2, seed=1) in range(len(state.legal_actions()))


def test_state_mcts_names_its_parameters_for_a_setting_it_lacks():
    state = vbr.load("siatka", engine="python").new_state(1)
    with pytest.raises(TypeError, match=r"^mcts: unknown parameter 'iters' \(parameters: iterations, c, "):
        state.mcts(iters=5)


def test_state_mcts_takes_numpy_numbers_as_the_same_settings():
    np = pytest.importorskip("numpy")
    state = vbr.load("siatka", engine="python").new_state(1)
    assert state.mcts(iterations=np.int64(20), c=np.float64(0.5), seed=1) == state.mcts(iterations=20, c=0.5, seed=1)


@pytest.mark.parametrize("options", [["target=3"], "target=3", {3: 1}])
def test_load_refuses_options_that_are_not_a_mapping_of_names_saying_what_they_are(options):
    # the command line's `--option target=3` written as Python: a TypeError saying what options
    # are, not an AttributeError from inside the checker
    with pytest.raises(TypeError, match=r"^options map option names to values, as \{'target': 15\}; not "):
        vbr.load("siatka", options, engine="python")


# ------------------------------------------------------------------------- copies and other processes
@pytest.mark.parametrize("engine", ["python", "c"])
def test_copy_and_deepcopy_of_a_state_are_clones_independent_of_it(engine):
    # copy.copy shared the words, so a move on the copy was made on the original too; deepcopy
    # failed under C (a thread-local cannot be copied)
    import copy
    state = vbr.load("siatka", engine=engine).new_state(3)
    for made in (copy.copy(state), copy.deepcopy(state)):
        made.apply_index(1)
        assert (state.choices, made.choices) == (0, 1)
        assert made.game is state.game


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_pickled_state_plays_on_as_the_original_would(engine):
    # for multiprocessing: a state and its game go to another process and come back
    import pickle
    game = vbr.load("siatka", engine=engine)
    state = game.new_state(3)
    state.apply_index(1)
    again = pickle.loads(pickle.dumps(state))
    assert again.game.engine.name == engine and again.words_in_use() == state.words_in_use()
    again.play_random(7)
    state.play_random(7)
    assert again.outcome() == state.outcome()


def test_a_pickled_game_is_loaded_again_with_its_options_and_engine():
    import pickle
    game = vbr.load("siatka", {"target": 3}, engine="python")
    again = pickle.loads(pickle.dumps(game))
    assert (again.option_values["target"], again.engine.name) == (3, "python")
    assert again.new_state(5).words_in_use() == game.new_state(5).words_in_use()


def test_a_game_result_played_in_one_engine_call_pickles_as_a_game_result():
    # all-random C games are played whole in one call; their result still goes back from a worker
    import pickle
    game = vbr.load("siatka", engine="c")
    result = play_game(game, 3, "random")
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is vbr_play.GameResult
    assert (again.winner, again.points, again.choices, again.score_track) == \
        (result.winner, result.points, result.choices, result.score_track)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_one_call_results_state_read_after_later_games_is_the_state_its_own_game_ended_in(engine):
    # the same game played choice by choice (a recorded game never takes the one-call path) ends
    # in the same words; later games of the same thread must not show through
    game = vbr.load("siatka", engine=engine)
    first = play_game(game, 3, "random")
    later = [play_game(game, seed, "random") for seed in range(4, 14)]
    step_by_step = play_game(game, 3, "random", record=True).state
    assert first.state.words_in_use() == step_by_step.words_in_use()
    assert first.state.is_terminal() and first.state.outcome() == step_by_step.outcome()
    assert later[-1].state.words_in_use() == play_game(game, 13, "random", record=True).state.words_in_use()


def test_one_call_results_of_the_c_engine_do_not_each_hold_a_state():
    # a loop that keeps its results (a list of 2,000 games) must not keep 2,000 states: Siatka's
    # state is 706 words (5,648 bytes), its result's own fields a few hundred bytes
    import tracemalloc
    game = vbr.load("siatka", engine="c")
    state_bytes = 8 * game.engine.words
    play_game(game, 0, "random")
    tracemalloc.start()
    try:
        kept = [play_game(game, seed, "random") for seed in range(2000)]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(kept) == 2000 and held < 2000 * state_bytes / 4, held


def test_an_option_the_chooser_cannot_see_is_hidden_in_its_observation_but_named_in_legal_actions(tmp_path):
    # docs/api.md: legal_actions() is the referee's view (ids, which follow creation order: #0 is
    # the card of value 1); the chooser's fair view is observation(seat)["legal"]
    f = tmp_path / "guess.vbr"
    f.write_text('game "Guess"\nseats 2\nstart a\nkind Card { v: int }\nzone deck hidden ordered\n'
                 'setup {\n  for v in 1..3 {\n    create Card(v: v) in deck\n  }\n  shuffle deck\n}\n'
                 'phase a {\n  choose d from deck by 0 as "guess"\n  end winner 0\n}\n')
    state = vbr.load(str(f), engine="python").new_state(0)
    assert sorted(a.text for a in state.legal_actions()) == ["#0", "#1", "#2"]
    assert state.observation(0)["legal"] == ["hidden", "hidden", "hidden"]


# ------------------------------------------------------------------------- vbr's agents in a loop of one's own
ONE_MOVE = ('game "One move"\nseats 2\nstart a\nenum Move { lose, win }\nphase a {\n'
            '  choose m from [lose, win] by 0 as "move"\n  if m == win {\n    end winner 0\n  }\n  end winner 1\n}\n')


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("spec", ["greedy", "mcts:iterations=20"])
def test_agent_choice_of_greedy_and_mcts_takes_the_winning_move(tmp_path, engine, spec):
    # the second option (`win`) ends the game won for the chooser, the first lost: a one-step
    # lookahead sees it, and so does a search
    f = tmp_path / "one.vbr"
    f.write_text(ONE_MOVE)
    state = vbr.load(str(f), engine=engine).new_state(0)
    assert vbr_play.agent_choice(state, spec, seed=3) == 1
    assert state.choices == 0 and not state.is_terminal()  # left as it was


def test_agent_choice_of_first_and_random_and_what_it_refuses(tmp_path):
    f = tmp_path / "one.vbr"
    f.write_text(ONE_MOVE)
    state = vbr.load(str(f), engine="python").new_state(0)
    assert vbr_play.agent_choice(state, "first") == 0
    picks = {vbr_play.agent_choice(state, "random", seed=s) for s in range(40)}
    assert picks == {0, 1}  # both options, 40 fair draws
    assert vbr_play.agent_choice(state, "random", seed=7) == vbr_play.agent_choice(state, "random", seed=7)
    with pytest.raises(vbr_errors.UsageError, match="unknown agent 'smart'"):
        vbr_play.agent_choice(state, "smart")
    state.apply_index(1)
    with pytest.raises(IllegalActionError, match="the game is over"):
        vbr_play.agent_choice(state, "first")


@pytest.mark.parametrize("engine", ["python", "c"])
def test_apply_index_takes_a_numpy_integer_as_that_position(engine):
    # a policy's np.argmax(...) is an np.int64: it was refused as "not legal here: there are 6
    # options (0..5)" though it was one of them
    np = pytest.importorskip("numpy")
    game = vbr.load("siatka", engine=engine)
    state, again = game.new_state(1), game.new_state(1)
    state.apply_index(np.argmax(np.array([0.1, 0.9, 0.3])))
    again.apply_index(1)
    assert state.words_in_use() == again.words_in_use()


NESTED = ('game "Nested"\nseats 2\nstart a\nkind Card { v: int, twin: Card }\nzone deck hidden ordered\n'
          'zone table public\nsetup {\n  for v in 1..4 {\n    create Card(v: v) in deck\n  }\n  shuffle deck\n'
          '  create Card(v: 9, twin: top(deck)) in table\n}\nphase a {\n  choose c from table by 0 as "take"\n'
          '  move top(deck) to table\n  choose d from table by 1 as "again"\n  end winner 0\n}\n')


def test_a_field_naming_a_face_down_card_reads_hidden_in_an_observation(tmp_path):
    # The public card's `twin` is the top of the face-down deck: its id (creation order: #k is the
    # card of value k + 1) told every seat which card lay on top. Once that card is on the table,
    # seen by all, the field names it.
    f = tmp_path / "nested.vbr"
    f.write_text(NESTED)
    state = vbr.load(str(f), engine="python").new_state(2)
    from vbr.engines.observation import public_view
    for view in (state.observation(0), state.observation(1), public_view(state.game, state.words)):
        assert view["zones"]["table"] == ["#4 Card(v=9, twin=hidden)"]
    state.apply_index(0)
    table = state.observation(1)["zones"]["table"]
    top = table[1].split(" ")[0]  # the card moved up from the deck, now public
    assert table[0] == f"#4 Card(v=9, twin={top})" and table[1].endswith("twin=none)")
    from vbr.rl.information_state import view  # the OpenSpiel information state writes fields alike
    assert view(state, 1, False)["zone table"][1].endswith("twin=none)")


def test_summarizing_play_games_results_gives_the_figures_vbr_sim_prints():
    # docs/api.md: Trials made from play_game's results with vbr sim's seeds summarise as the games
    # vbr sim plays (-n 20 --seed 1, the agents in fixed seats) do
    from vbr.analysis.metrics import summarize
    from vbr.analysis.trial import Trial
    from vbr.sim import RunSpec, game_seed, game_sides, play_games
    game, agents = vbr.load("siatka", engine="python"), ["greedy", "random"]
    ours = [Trial(i, game_seed(1, i), agents, game_sides(game), *play_game(game, game_seed(1, i), agents).trial_fields())
            for i in range(20)]
    sims = list(play_games(RunSpec.of(game.path, {}, 1, agents, 20, engine="python"), 0, 20))
    assert summarize(ours) == summarize(sims)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_move_after_an_error_in_the_rules_names_the_error(tmp_path, engine):
    # `6 / n` with n = 0 stops the game at line 7; a further move said "there are 0 options (0..-1)"
    f = tmp_path / "fault.vbr"
    f.write_text('game "Fault"\nseats 2\nstart a\nvar x: int = 0\nphase a {\n'
                 '  choose n from 0..2 by 0 as "n"\n  x = 6 / n\n  end winner 0\n}\n')
    state = vbr.load(str(f), engine=engine).new_state(0)
    with pytest.raises(vbr_errors.VbrRuntimeError):
        state.apply_index(0)
    assert state.is_terminal() and state.outcome() is None
    stopped = f"the game stopped at an error in its rules ({f}:7:7: division by zero)"
    with pytest.raises(IllegalActionError, match=re.escape(f"option 0 is not legal here: {stopped}")):
        state.apply_index(0)
    with pytest.raises(IllegalActionError, match=re.escape(f"legal: none (the game stopped at an error in its rules: {f}:7:7: division by zero)")):
        state.apply("0 1")
    # a search or an agent asked for its choice names the error too, not "the game is over"
    with pytest.raises(IllegalActionError, match=re.escape(f"{stopped}: there is no choice to search")):
        state.mcts(iterations=5)
    with pytest.raises(IllegalActionError, match=re.escape(f"{stopped}: there is no choice to make")):
        vbr_play.agent_choice(state, "greedy")


@pytest.mark.parametrize("log", [True, "game.jsonl"])
def test_a_log_that_is_no_list_is_a_type_error_saying_what_a_log_is(log):
    # log=True (a flag?) or a file name failed deep inside with "'bool' object has no attribute 'append'"
    with pytest.raises(TypeError, match=r"^log is a list the game's events are appended to \(log=\[\]\)"):
        vbr.load("siatka", engine="python").new_state(1, log=log)


def test_checked_model_takes_a_path_or_bundled_name_and_refuses_options_that_are_no_mapping():
    # docs/api.md: checked_model(rules, options); a path in place of rules failed with
    # "'str' object has no attribute 'problems'"
    model = vbr_checking.checked_model("siatka", {"target": 5})
    assert model.rules.sources and "score" in model.vars
    with pytest.raises(TypeError, match=r"^options map option names to values"):
        vbr_checking.checked_model("siatka", ["target=5"])


def test_a_clone_of_a_logged_game_logs_nothing_into_the_original_log():
    # docs/api.md: a clone keeps no log (exploring from a clone leaves the recorded game as it was)
    log = []
    state = vbr.load("siatka", engine="python").new_state(1, log=log)
    before = list(log)
    explore = state.clone()
    explore.apply_index(0)
    assert explore.log is None and log == before


def test_numpy_option_values_are_the_python_values_they_hold():
    # an option swept with numpy (np.arange, np.bool_) was refused as "`target` is a number, not
    # np.int64(5)"; the game keeps Python values, so its options go into a log's JSON header
    np = pytest.importorskip("numpy")
    import json
    from vbr.gamelog import header
    game = vbr.load("siatka", {"target": np.int64(5), "abilities": np.bool_(True)}, engine="python")
    assert game.option_values["target"] == 5 and game.option_values["abilities"] is True
    assert json.loads(json.dumps(header(game, 1, ["random", "random"], "python")))["options"] == {
        "target": 5, "abilities": True}


@pytest.mark.parametrize("engine", ["python", "c"])
def test_state_mcts_takes_numpy_indices_in_among_and_answers_a_python_int(engine):
    # docs/api.md: `among`, the indices a restricted seat may take; the answer is an index into
    # legal_actions(), the same in both engines: with a single one allowed, that one
    np = pytest.importorskip("numpy")
    state = vbr.load("siatka", engine=engine).new_state(1)
    pick = state.mcts(iterations=10, seed=1, among=np.array([2]))
    assert pick == 2 and type(pick) is int


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("among", [[None], "1", [True], 3, [0.5]])
def test_state_mcts_refuses_an_among_of_no_option_indices_as_a_value_error(engine, among):
    state = vbr.load("siatka", engine=engine).new_state(1)
    with pytest.raises(ValueError, match="among must name some of the 6 options"):
        state.mcts(iterations=10, seed=1, among=among)


@pytest.mark.parametrize("restrict", [["0=never:superatak"], {5: "R"}, {0: "never:superatak"}, {True: "R"}, "0=never:superatak"])
def test_play_game_refuses_a_restrict_that_is_no_mapping_of_its_seats_to_restrictions(restrict):
    # docs/api.md: restrict is a dict of seat to vbr.restrict.Restriction (parse_restrictions makes
    # them); a list of --restrict's words was silently ignored, a seat the game lacks too
    from vbr.restrict import Restriction
    game = vbr.load("siatka", engine="python")
    restrict = {k: Restriction(never=frozenset({"superatak"})) if v == "R" else v for k, v in restrict.items()} \
        if isinstance(restrict, dict) else restrict
    with pytest.raises(vbr_errors.UsageError, match=r"^restrict maps seats \(0\.\.1\) to vbr\.restrict\.Restriction"):
        play_game(game, 1, ["random", "random"], restrict=restrict)


def test_play_game_takes_a_numpy_integer_seat_in_restrict_as_that_seat():
    np = pytest.importorskip("numpy")
    from vbr.restrict import parse_restrictions
    game = vbr.load("siatka", {"abilities": True}, engine="python")
    by_int = parse_restrictions(["0=never:superatak"], game.seats, game.model)
    by_numpy = {np.int64(0): by_int[0]}
    played = play_game(game, 1, ["random", "random"], restrict=by_numpy)
    assert played.restricted[0] > 0  # seat 0 was offered a superatak, and was held back from it
    assert played.trial_fields() == play_game(game, 1, ["random", "random"], restrict=by_int).trial_fields()


@pytest.mark.parametrize("spec", [["random"], None, 3])
def test_agent_choice_refuses_a_spec_that_is_no_text_as_an_agent_spec_error(spec):
    state = vbr.load("siatka", engine="python").new_state(1)
    with pytest.raises(vbr_errors.UsageError, match="agent_choice takes one agent spec as text"):
        vbr_play.agent_choice(state, spec)


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("position", ["array", "array0d_float", True, "numpy_true"])
def test_apply_index_refuses_what_is_no_integer_position_as_illegal_leaving_the_state(engine, position):
    # docs/api.md: apply_index takes an int or a numpy integer; np.array([1]) raised a raw
    # TypeError, and True was taken as option 1 (though seeds and seats refuse a bool)
    np = pytest.importorskip("numpy")
    i = {"array": np.array([1]), "array0d_float": np.array(1.0), "numpy_true": np.True_}.get(position, position)
    state = vbr.load("siatka", engine=engine).new_state(1)
    before = state.words_in_use()
    with pytest.raises(IllegalActionError, match=r"is not legal here: there are 6 options \(0\.\.5\)"):
        state.apply_index(i)
    assert state.words_in_use() == before and state.choices == 0


@pytest.mark.parametrize("text", [5, None, b"0 pass"])
def test_action_parse_of_what_is_no_text_is_an_invalid_action(text):
    from vbr.actions import Action
    with pytest.raises(InvalidActionError, match="is not an action"):
        Action.parse(text)
