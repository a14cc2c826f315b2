"""Agent specs: `NAME[:PARAM=VALUE,...]`, lists of them, their canonical text and their errors."""
import pytest

from vbr.agents import AGENTS, describe_agents
from vbr.agents.spec import AgentSpecError, parse_agent, parse_agent_list
from vbr.play import parse_agents, search_settings, typed_agent


@pytest.mark.parametrize("spec", ["random", "greedy:samples=5", "mcts", "mcts:iterations=400,c=0.25",
                                  "mcts:depth=30,rollout=random,c=2", " mcts : c = 1.5 "])
def test_canonical_spec_parses_back_to_the_same_agent(spec):
    [canonical] = parse_agent_list(spec, 1)
    assert parse_agent(canonical) == parse_agent(spec)
    assert parse_agent_list(canonical, 1) == [canonical]


def test_canonical_spec_names_only_changed_parameters_in_alphabetical_order():
    assert parse_agent_list("mcts:rollout=random,iterations=400,c=1.5", 1) == ["mcts:c=1.5,iterations=400"]
    assert parse_agent_list("mcts:c=0.70,iterations=200", 1) == ["mcts"]
    assert parse_agent_list("mcts:c=2", 1) == ["mcts:c=2"]


def test_parse_agent_fills_in_defaults():
    assert parse_agent("mcts:iterations=7") == ("mcts", {"iterations": 7, "c": 0.7, "rollout": "random", "depth": 3,
                                                         "reward": "margin", "greedy_moves": 0, "worlds": 1, "widen": 0.0,
                                                         "tree": "closed", "inner_c": 0.1, "spread_playouts": 8,
                                                         "budget": 6000, "cut": "lead", "spread_scale": 1.5,
                                                         "extend": 4.0, "confidence": 1.0})
    assert parse_agent("random") == ("random", {})


def test_token_with_equals_belongs_to_the_agent_before_it():
    specs = parse_agent_list("mcts:iterations=400,c=0.9,rollout=random,mcts", 2)
    assert specs == ["mcts:c=0.9,iterations=400", "mcts"]
    assert parse_agent_list("greedy,samples=3,random", 2) == ["greedy:samples=3", "random"]


def test_one_agent_plays_every_seat_and_none_means_random():
    assert parse_agent_list("mcts:iterations=50", 3) == ["mcts:iterations=50"] * 3
    assert parse_agent_list(None, 2) == ["random", "random"]


@pytest.mark.parametrize("spec", ["random,,greedy", "random,", ",random", "mcts:iterations=5,,greedy"])
def test_an_empty_place_between_commas_is_an_error_not_a_seat_left_out(spec):
    # `random,,greedy` was read as `random,greedy`: the seat meant for the empty place went to greedy
    with pytest.raises(AgentSpecError, match="empty place between commas"):
        parse_agent_list(spec, 2)


@pytest.mark.parametrize("spec", [" , ", "", ","])
def test_a_spec_given_that_names_no_agent_is_refused_not_taken_for_random(spec):
    # `--agents ","` is a slip, not a wish for random seats: it says so
    with pytest.raises(AgentSpecError, match="names no agent"):
        parse_agent_list(spec, 2)


def test_play_parse_agents_reads_specs():
    assert parse_agents("greedy:samples=3,first", 2) == ["greedy:samples=3", "first"]


@pytest.mark.parametrize("spec, seats, message", [
    ("nonsense", 2, "unknown agent 'nonsense' (agents: random, first, greedy, mcts)"),
    ("mcts:iters=3", 2, "mcts: unknown parameter 'iters' "
                        "(parameters: iterations, c, rollout, depth, reward, greedy_moves, worlds, widen, tree, inner_c, "
                        "spread_playouts, budget, cut, spread_scale, extend, confidence); did you mean iterations?"),
    ("Random", 2, "unknown agent 'Random' (agents: random, first, greedy, mcts); did you mean random?"),
    # `vbr play --agents human` is a hot seat (docs/play.md); elsewhere no person is at a seat
    ("random,human", 2, "unknown agent 'human' (agents: random, first, greedy, mcts); human, a person at the "
                        "terminal, plays only in `vbr play`"),
    ("greedy:samples=1e1", 2, "greedy: samples must be an integer from 1 to 1000, not '1e1': write 10"),
    ("greedy:samples=8.0", 2, "greedy: samples must be an integer from 1 to 1000, not '8.0': write 8"),
    ("greedy:samples=1e4", 2, "greedy: samples must be an integer from 1 to 1000, not '1e4'"),  # 10000: out of range
    ("random:samples=3", 2, "random: unknown parameter 'samples' (parameters: none)"),
    ("mcts:iterations=x", 2, "mcts: iterations must be an integer from 1 to 1000000, not 'x'"),
    ("mcts:iterations=2.5", 2, "mcts: iterations must be an integer from 1 to 1000000, not '2.5'"),
    ("mcts:iterations=0", 2, "mcts: iterations must be an integer from 1 to 1000000, not '0'"),
    ("mcts:c=-1", 2, "mcts: c must be a number from 0 to 100, not '-1'"),
    ("mcts:c=nan", 2, "mcts: c must be a number from 0 to 100, not 'nan'"),
    ("mcts:rollout=smart", 2, "mcts: rollout must be one of random, greedy, not 'smart'"),
    ("mcts:c", 2, "mcts: 'c' needs a value (c=VALUE)"),
    ("mcts:c=1,c=2", 2, "mcts: c is given twice"),
    ("c=1,mcts", 2, "parameter 'c=1' comes before any agent (write NAME:c=1)"),
    # an agent spelt as a call or with a space is not a parameter (that said `write NAME:mcts(...)`)
    ("mcts(iterations=5)", 2, "'mcts(iterations=5)' is neither an agent nor a parameter: write NAME or "
                              "NAME:PARAM=VALUE,... (mcts:iterations=400,c=0.7)"),
    ("random,mcts iterations=5", 2, "'mcts iterations=5' is neither an agent nor a parameter: write NAME or "
                                    "NAME:PARAM=VALUE,... (mcts:iterations=400,c=0.7)"),
    ("random,random,random", 2, "3 agents given for 2 seats (give one, or one per seat)"),
    ("mcts:c=1,random", 4, "2 agents given for 4 seats (give one, or one per seat)"),
    ("random,random", 1, "2 agents given for 1 seat (give one, or one per seat)"),
])
def test_bad_spec_error_names_what_is_allowed(spec, seats, message):
    with pytest.raises(AgentSpecError) as info:
        parse_agent_list(spec, seats)
    assert str(info.value) == message


def test_spec_error_is_a_value_error():
    with pytest.raises(ValueError, match="unknown agent 'x'"):
        parse_agents("x", 2)


def test_parse_agent_takes_exactly_one_agent():
    with pytest.raises(AgentSpecError, match="expected one agent, found 2"):
        parse_agent("mcts,random")


def test_a_spec_hands_its_parameters_to_the_agent_the_engines_play():
    kind, params = typed_agent("mcts:iterations=7,c=1.25,depth=9")
    assert kind == "mcts" and (params["iterations"], params["c"], params["depth"]) == (7, 1.25, 9)
    # the search's settings: the spec's, each one the engines' search takes, unchanged
    settings = search_settings(params)
    assert (settings["iterations"], settings["c"], settings["depth"], settings["rollout"]) == (7, 1.25, 9, "random")
    assert typed_agent("greedy:samples=5") == ("greedy", {"samples": 5})
    assert typed_agent("greedy") == ("greedy", {"samples": 2})


def test_every_agent_vbr_names_is_one_the_engines_play():
    from vbr.play import TYPED_AGENTS
    assert set(AGENTS) == set(TYPED_AGENTS) == {"random", "first", "greedy", "mcts"}


def test_describe_agents_lists_every_agent_and_parameter():
    text = describe_agents()
    for name, kind in AGENTS.items():
        assert f"  {name} " in text
        for p in kind.params:
            assert f"{p.name}=" in text and p.help in text
    assert "iterations=200" in text and "an integer from 1 to 1000000" in text


@pytest.mark.parametrize("spec, message", [
    # docs/analysis.md: greedy_moves is "with rollout=greedy", spread_playouts, spread_scale and cut
    # "with reward=margin", confidence "with extend": without them the search is the same search,
    # and the spec (and every summary naming the agent) said a setting it never used
    ("mcts:greedy_moves=3", "mcts: greedy_moves does nothing without rollout=greedy (rollout is random)"),
    ("mcts:reward=win,cut=even", "mcts: cut does nothing without reward=margin (reward is win)"),
    ("mcts:reward=win,spread_playouts=4", "mcts: spread_playouts does nothing without reward=margin"),
    ("mcts:spread_scale=2,reward=win", "mcts: spread_scale does nothing without reward=margin"),
    ("mcts:extend=1,confidence=2", "mcts: confidence does nothing without extend above 1 (extend is 1)"),
])
def test_a_setting_the_other_settings_leave_nothing_to_do_is_refused(spec, message):
    with pytest.raises(AgentSpecError) as info:
        parse_agent_list(spec, 2)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("spec", ["mcts:rollout=greedy,greedy_moves=3", "mcts:reward=win,cut=lead",
                                  "mcts:extend=2,confidence=2", "mcts:greedy_moves=0", "mcts:reward=win"])
def test_a_setting_beside_what_it_needs_or_at_its_default_is_taken(spec):
    assert parse_agent_list(spec, 2)
