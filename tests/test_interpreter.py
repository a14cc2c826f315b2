"""The generic interpreter through its public API: conservation, determinism, limits, visibility."""
import itertools
import random

import pytest

from vbr.errors import IllegalActionError, StepLimitExceeded, VbrRuntimeError
from vbr.interpreter.game import load
from vbr.interpreter.state import Action
from vbr.play import play_game

OPTION_SETS = [dict(zip(["abilities", "block_marker", "rotation"], c)) for c in itertools.product([False, True], repeat=3)]


def write(tmp_path, text, name="g.vbr"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "+".join(k for k, v in o.items() if v) or "base")
def test_random_games_keep_every_invariant(options):
    """OpenSpiel's random_sim_test: many seeded games through the public API, checking after every
    step that nothing is lost, scores never fall, and every game ends."""
    game = load("siatka", options)
    for seed in range(12):
        st = game.new_state(seed)
        rng = random.Random(seed)
        last = st.points()
        steps = 0
        while not st.is_terminal():
            assert st.audit() == []
            legal = st.legal_actions()
            assert legal and all(a.seat == st.current_player() for a in legal)
            st.apply(legal[rng.randrange(len(legal))])
            pts = st.points()
            assert all(b >= a for a, b in zip(last, pts)), (last, pts)
            last = pts
            steps += 1
            assert steps < 5000
        assert st.audit() == []
        out = st.outcome()
        assert out.winner in (0, 1) and max(out.points) == 9 and out.points[out.winner] == 9
        # 36 entities: 12 tiles and 24 cards
        assert len(st.ent) == 36


def test_same_seed_same_game_byte_for_byte():
    game = load("siatka", {"abilities": True})
    a = play_game(game, 42, ["random", "greedy"], record=True).state.log
    b = play_game(game, 42, ["random", "greedy"], record=True).state.log
    c = play_game(game, 43, ["random", "greedy"], record=True).state.log
    assert a == b
    assert a != c


def test_legal_choice_counts_from_a_fixed_seed():
    """A 'perft' for vbr: the exact legal-choice counts along the first-legal line of seed 7."""
    game = load("siatka", {"abilities": True, "block_marker": True})
    st = game.new_state(7)
    counts = []
    for _ in range(20):
        counts.append(len(st.legal_actions()))
        st.apply_index(0)
    # placement offers 6, 5, ..., 1 tiles to each seat in turn
    assert counts[:12] == [6, 5, 4, 3, 2, 1] * 2
    # then, taking the first option each time (recorded, and read off the play-by-play): seat 0
    # serves with Zagrywka to one of 6 fields (no ace); seat 0 may put the block marker on one of
    # its 3 front-row tiles or pass (4); seat 1 bounces forward or backward (2: over on bounce
    # 1); seat 1's marker (4); seat 0's tile has R: roll or move freely (2), then one of the 8
    # directions; seat 0's marker (4); seat 1 picks between the two diagonals (2: out, a point).
    assert counts[12:] == [6, 4, 2, 4, 2, 8, 4, 2]


def test_actions_round_trip_through_text():
    game = load("siatka")
    st = game.new_state(1)
    for a in st.legal_actions():
        assert Action.parse(str(a)) == a
    with pytest.raises(IllegalActionError):
        st.apply(Action(1 - st.current_player(), st.legal_actions()[0].text))
    with pytest.raises(IllegalActionError, match="not legal here"):
        st.apply(Action(st.current_player(), "#999"))


def test_clone_is_independent():
    game = load("siatka")
    st = game.new_state(3)
    c = st.clone()
    for _ in range(30):
        c.apply_index(0)
    assert st.choices == 0 and c.choices == 30
    assert st.audit() == [] and c.audit() == []
    assert st.legal_actions() == game.new_state(3).legal_actions()


def test_observation_hides_what_a_seat_may_not_see():
    game = load("siatka")
    st = game.new_state(5)
    o0, o1 = st.observation(0), st.observation(1)
    assert isinstance(o0["zones"]["hand[0]"], list) and len(o0["zones"]["hand[0]"]) == 3
    assert o0["zones"]["hand[1]"] == 3  # only the size of the other hand
    assert o1["zones"]["deck[1]"] == 9  # a face-down deck: only its size, even to its owner
    assert isinstance(o1["zones"]["discard[0]"], list)  # public
    mover = st.current_player()
    assert "legal" in st.observation(mover) and "legal" not in st.observation(1 - mover)


def test_determinize_keeps_what_the_seat_knows():
    game = load("siatka")
    st = game.new_state(5)
    for _ in range(20):
        st.apply_index(0)
    seat = st.current_player()
    world = st.determinize(seat, 99)
    assert world.audit() == []
    assert world.observation(seat) == st.observation(seat)
    assert [len(z) for z in world.zones] == [len(z) for z in st.zones]
    # what the seat cannot see is dealt anew: the other hand and the decks differ in some world...
    hidden = [i for i, name in enumerate(st.prog.zone_names)
              if name in (f"hand[{1 - seat}]", "deck[0]", "deck[1]")]
    worlds = [st.determinize(seat, s) for s in range(5)]
    assert any([w.zones[z] for z in hidden] != [st.zones[z] for z in hidden] for w in worlds)
    # ...but each seat's cards stay among its own zones (a seat knows its deck holds its cards)
    for w in worlds:
        for z in hidden:
            owner = st.prog.zone_owner[z]
            assert all(st.prog.zone_owner[st.where[e]] == owner for e in w.zones[z])


def test_determinize_pools_a_teams_deck_with_its_players_hands():
    """Cattack: team decks (`per team hidden`) and seat hands (`per seat owner`). An imagined world
    must not keep an opponent's hand as it truly is (a card of their team's deck could be there
    instead), and must never move a card to the other team's zones."""
    game = load("cattack", {"players": 4})
    prog = game.program
    st = game.new_state(3)
    for _ in range(6):
        st.apply_index(0)
    seat = st.current_player()
    mine = prog.team_of[seat]
    names = prog.zone_names
    hands = [i for i, n in enumerate(names) if n.startswith("hand[") and int(n[5:-1]) != seat]
    assert len(hands) == 3 and all(st.zones[z] for z in hands)
    assert {prog.team_of[int(names[z][5:-1])] for z in hands} == {0, 1}  # a partner and two rivals
    worlds = [st.determinize(seat, k) for k in range(8)]
    for z in hands:  # every other hand is dealt anew from its team's hidden cards in some world
        assert any(set(w.zones[z]) != set(st.zones[z]) for w in worlds), names[z]
    side = prog.zone_sides()
    for w in worlds:
        assert w.audit() == [] and w.observation(seat) == st.observation(seat)
        for z in st.hidden_zones(seat):
            assert all(side[st.where[e]] == side[z] for e in w.zones[z]), names[z]


def test_step_limit_is_a_clear_located_error(tmp_path):
    p = write(tmp_path, 'game "x"\nlimit steps 1000\nvar n: int = 0\nstart p\nphase p {\n  n += 1\n  goto p\n}\n')
    with pytest.raises(StepLimitExceeded) as info:
        load(p).new_state(0)
    assert "step limit of 1000 reached in `p`" in info.value.message
    assert info.value.span.line in (6, 7)


def test_loop_max_is_enforced(tmp_path):
    p = write(tmp_path, 'game "x"\nvar n: int = 0\nstart p\nphase p {\n  loop max 5 {\n    n += 1\n  }\n  end draw\n}\n')
    with pytest.raises(VbrRuntimeError, match="loop ran more than its `max 5` rounds") as info:
        load(p).new_state(0)
    assert info.value.span.line == 5


def test_runtime_errors_are_located(tmp_path):
    p = write(tmp_path, 'game "x"\nvar n: int per seat = 0\nstart p\nphase p {\n  n[7] = 1\n  end draw\n}\n')
    with pytest.raises(VbrRuntimeError) as info:
        load(p).new_state(0)
    assert (info.value.span.line, info.value.span.col) == (5, 3)
    assert "index out of range 0..1" in info.value.message


def test_range_wrap_and_clamp(tmp_path):
    p = write(tmp_path, 'game "x"\nvar s: int = 0 range 0..4 wrap 1\nvar c: int = 0 range 0..3 clamp\n'
                        'var hist: int = 0\nstart p\nphase p {\n  repeat 6 {\n    s += 1\n    c += 1\n    hist = hist * 10 + s\n  }\n'
                        '  end draw\n}\n')
    st = load(p).new_state(0)
    vals = dict(zip(st.prog.var_names, st.vals))
    assert vals["hist"] == 123412  # 1, 2, 3, 4, then 4 + 1 wraps to 1, 2
    assert vals["c"] == 3


def test_events_run_handlers_in_order_with_guards(tmp_path):
    p = write(tmp_path, 'game "x"\nvar log: int = 0\nevent scored(n: int)\n'
                        'on scored(n: int) {\n  log = log * 10 + n\n}\n'
                        'on scored(n: int) when n > 1 {\n  log = log * 10 + 9\n}\n'
                        'start p\nphase p {\n  emit scored(1)\n  emit scored(2)\n  end draw\n}\n')
    st = load(p).new_state(0)
    assert st.vals[0] == 129


def test_teams_visibility_and_partner(tmp_path):
    p = write(tmp_path, 'game "x"\nseats 4 teams { a: 0 2 b: 1 3 }\nkind C { v: int }\nzone hand per seat owner\n'
                        'zone shared per team team\nsetup {\n  for s in seats {\n    create C(v: s) in hand[s]\n  }\n'
                        '  create C(v: 9) in shared[0]\n}\nstart p\nphase p {\n  choose c from hand[partner(0)] by 0\n  end winner partner(1)\n}\n')
    st = load(p).new_state(0)
    assert [a.text for a in st.legal_actions()] == ["#2"]
    assert isinstance(st.observation(2)["zones"]["shared[0]"], list)
    assert st.observation(1)["zones"]["shared[0]"] == 1
    st.apply_index(0)
    assert st.outcome().winner == 3


def test_a_team_with_no_seat_is_played_by_the_rules(tmp_path):
    """A solo game's opponent: per-team storage for it, and its win is every seat's loss."""
    p = write(tmp_path, 'game "Solo"\nseats 1 teams { you: 0 ai: }\nvar score: int per team = 0\npoints score\n'
                        'die d = [0, 1]\nstart p\nphase p {\n  let t = roll d\n  score[t] += 1\n'
                        '  if score[t] >= 2 {\n    end winner team t\n  }\n  goto p\n}\n')
    game = load(p)
    assert game.program.teams == [[0], []]
    outcomes = {str(game.new_state(seed).outcome()).split(" (")[0] for seed in range(12)}
    assert outcomes == {"team 0 wins", "team 1 wins"}
    ai_win = next(game.new_state(s) for s in range(12) if game.new_state(s).outcome().team == 1)
    assert ai_win.outcome().winner is None and ai_win.outcome().by_team


def test_sim_counts_wins_per_team_when_a_team_has_no_seat(tmp_path, capsys):
    import json
    from vbr.cli import main
    p = write(tmp_path, 'game "Solo"\nseats 1 teams { you: 0 ai: }\nvar score: int per team = 0\npoints score\n'
                        'die d = [0, 1]\nstart p\nphase p {\n  choose x from [0, 1] by 0\n  let t = roll d\n'
                        '  score[t] += 1\n  if score[t] >= 2 {\n    end winner team t\n  }\n  goto p\n}\n')
    assert main(["sim", str(p), "-n", "60", "--json", "--agents", "greedy"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["sides"] == "team" and set(stats["wins"]) == {"0", "1"}
    assert sum(stats["wins"].values()) == 60 and stats["wins"]["1"] > 0 and stats["draws"] == 0


def test_below_is_the_scaled_top_of_a_64_bit_draw():
    """State.below and Agent.below write rng.below out for speed: the same numbers, the same
    stream afterwards, and every value of 0..n-1 reachable."""
    from vbr.agents.base import Agent
    from vbr.interpreter import rng as R
    st = load("siatka").new_state(5)
    agent = Agent(0, 5)
    for holder in (st, agent):
        for n in (1, 2, 6, 7, 1000):
            twin = R.copy(holder.rng)
            bits = R.copy(twin).getrandbits(64)
            got = holder.below(n)
            assert got == R.below(twin, n) == (bits * n) >> 64
            assert holder.rng.getstate() == twin.getstate()
        assert {holder.below(6) for _ in range(200)} == set(range(6))


def test_endless_recursion_is_located_at_the_call(tmp_path):
    p = write(tmp_path, 'game "x"\nvar n: int = 0\nstart p\nproc deeper() {\n  choose x from [1, 2] by 0 else {\n'
                        '    return\n  }\n  n += 1\n  deeper()\n}\nphase p {\n  deeper()\n  end draw\n}\n')
    st = load(p).new_state(0)
    with pytest.raises(VbrRuntimeError, match=r"g.vbr:9:3: error: calls nest deeper than") as info:
        while True:
            st.apply_index(0)
    assert "deeper()" in str(info.value)


def test_play_game_draws_for_random_agents_as_the_agents_do():
    """play_game writes a random agent's pick into its loop: the same games as asking agents made
    from their specs, with their own views, choice by choice."""
    from vbr.agents import SeatView, make_agent
    from vbr.interpreter import rng as R
    game = load("siatka", {"abilities": True})
    for seed in range(3):
        played = play_game(game, seed, ["random", "random"], record=True).state
        st = game.new_state(seed, record=True)
        agents = [make_agent("random", s, R.derive(seed, 7919, s)) for s in range(2)]
        while not st.is_terminal():
            st.apply_index(agents[st.current_player()].act(SeatView(st, st.current_player())))
        assert st.log == played.log



def random_agent_loop(game, seed):
    """A game played by asking agents made from their specs, choice by choice, with the counts
    play_game keeps (options offered, forced choices, the score after each change)."""
    from vbr.agents import SeatView, make_agent
    from vbr.interpreter import rng as R
    st = game.new_state(seed)
    agents = [make_agent("random", s, R.derive(seed, 7919, s)) for s in range(game.seats)]
    options = forced = 0
    track, last = [], st.points()
    while not st.is_terminal():
        k = len(st.legal_actions())
        options, forced = options + k, forced + (k == 1)
        st.apply_index(agents[st.current_player()].act(SeatView(st, st.current_player())))
        if st.points() != last:
            last = st.points()
            track.append((st.choices, last))
    return st, options, forced, track


@pytest.mark.parametrize("name,options", [("siatka", {}), ("siatka", {"abilities": True, "block_marker": True}),
                                          ("cattack", {}), ("volleyball-high", {})])
def test_play_random_plays_the_games_the_agents_play(name, options):
    """Without a log, play_game runs random seats through State.play_random (apply_index and run
    written into one loop): the same states, steps and counts as the loop through the API."""
    game = load(name, options)
    for seed in range(3):
        r = play_game(game, seed, ["random"] * game.seats)
        st, n_options, n_forced, track = random_agent_loop(game, seed)
        assert (r.state.vals, r.state.zones, r.state.ent, r.state.steps, r.state.choices) == \
               (st.vals, st.zones, st.ent, st.steps, st.choices)
        assert (r.options, r.forced, r.score_track) == (n_options, n_forced, track)


FAULT_AFTER_CHOICES = """game "g"
seats 2
limit choices 50
var n: int = 0
start p
phase p {
  loop max 1000 {
    choose x from [1, 2, 3] by n % 2 as "pick"
    n = n + x
    if n > 40 {
      n = n / (n - n)
    }
  }
}
"""


@pytest.mark.parametrize("text,error", [(FAULT_AFTER_CHOICES, VbrRuntimeError),
                                        (FAULT_AFTER_CHOICES.replace("40", "400"), StepLimitExceeded),
                                        (FAULT_AFTER_CHOICES.replace("40", "400").replace("limit choices 50",
                                                                                          "limit steps 77"),
                                         StepLimitExceeded)],
                         ids=["fault", "choice-limit", "step-limit"])
def test_play_random_fails_as_apply_index_fails(tmp_path, text, error):
    """A fault after some choices, or the choice or step limit, is the same located error from
    play_game's loop (State.play_random, random seats answered in place) as from apply_index."""
    game = load(write(tmp_path, text))
    with pytest.raises(error) as fast:
        play_game(game, 1, ["random", "random"])
    with pytest.raises(error) as slow:
        random_agent_loop(game, 1)
    assert str(fast.value) == str(slow.value)



def test_things_of_a_kind_are_remembered_until_a_thing_is_made():
    """State.of_kind keeps its answer per kind while no thing is made; a copy that makes other
    things under the same ids than the original does sees its own."""
    game = load("cattack")
    st = game.new_state(3)

    def brute(state, k):
        return tuple(i for i, kk in enumerate(state.kind) if kk == k)
    kinds = sorted(set(st.kind))
    assert len(kinds) >= 2
    for k in kinds:
        assert st.of_kind(k) == brute(st, k) and st.of_kind(k) is st.of_kind(k)
    a, b = kinds[:2]
    copy = st.clone()
    st.create(a, st.ent[st.of_kind(a)[0]], 0)
    copy.create(b, copy.ent[copy.of_kind(b)[0]], 0)
    for state in (st, copy):
        for k in kinds:
            assert state.of_kind(k) == brute(state, k)
    assert st.of_kind(a)[-1] == copy.of_kind(b)[-1] == len(st.kind) - 1


BY_TEAM = """game "pairs"
seats 3 teams { red: 0 2 blue: 1 ghost: }
var who: int = 0
start p
phase p {
  choose s from [0, 2] by team 0 as "which of you serves"
  choose k from [1, 2] by team 1 as "blue decides"
  who = s
  choose x from [7] by team 2 as "nobody can"
  end winner who
}
"""


@pytest.mark.parametrize("lower", [True, False], ids=["lowered", "closures"])
def test_choose_by_team_asks_the_teams_first_seat(tmp_path, lower):
    game = load(write(tmp_path, BY_TEAM), lower=lower)
    st = game.new_state(0)
    assert st.pending.seat == 0 and st.pending.prompt == "which of you serves"
    st.apply_value(2)
    assert st.pending.seat == 1


@pytest.mark.parametrize("lower", [True, False], ids=["lowered", "closures"])
def test_choose_by_a_team_without_seats_is_a_located_error(tmp_path, lower):
    game = load(write(tmp_path, BY_TEAM), lower=lower)
    st = game.new_state(0)
    st.apply_value(0)
    with pytest.raises(VbrRuntimeError) as exc:
        st.apply_value(1)
    assert exc.value.span.line == 9
    assert "`by team 2`: that team has no seat to answer" in exc.value.render()


def test_choose_by_team_wants_a_team_number(tmp_path):
    from vbr.errors import VbrError
    p = write(tmp_path, BY_TEAM.replace("by team 1 as", 'by team "blue" as'))
    with pytest.raises(VbrError) as exc:
        load(p)
    assert f"{p}:7:" in exc.value.render() and "`by team`" in exc.value.render()


RESULTS = """game "results"
seats 2
var got: int = 0
var far: int = 0
start p
proc maybe(n: int): int {
  if n > 5 {
    return n
  }
}
proc ask(s: int): int {
  choose k from [1, 2, 3] by s as "how many"
  return k * 10
}
proc nested(s: int): int {
  let a = ask(s)
  return a + 1
}
phase p {
  let a = maybe(7)
  let b = maybe(1)
  got = ask(1)
  far = nested(0)
  end winner (if a == 7 and b == none and got == 20 and far == 31 then 1 else 0)
}
"""


@pytest.mark.parametrize("lower", [True, False], ids=["lowered", "closures"])
def test_a_procedure_returns_a_value_across_its_choices(tmp_path, lower):
    """7 is returned, 1 falls off the end (none), 2 chosen gives 20, 3 chosen in a nested call 31."""
    st = load(write(tmp_path, RESULTS), lower=lower).new_state(0)
    assert (st.pending.seat, st.pending.prompt) == (1, "how many")
    st.apply_value(2)
    assert st.pending.seat == 0
    st.apply_value(3)
    assert st.result is not None and st.result.winner == 1


@pytest.mark.parametrize("text, message", [
    ("proc f() {\n  return 1\n}\n", "`return` with a value needs a declared result type: `proc f(...): TYPE`"),
    ("event e()\non e() {\n  return 1\n}\n", "`return` with a value needs a declared result type"),
    ("proc f(): int {\n  return true\n}\n", "the returned value must be int"),
    ("proc f() {\n  say \"x\"\n}\nphase q {\n  let x = f()\n  end draw\n}\n", "`f` gives no value: declare its result type"),
    ("proc f(): int {\n  return 1\n}\nphase q {\n  let x = f() + 1\n  end draw\n}\n",
     "`f` is a procedure: take its result whole (`let x = f(...)` or `x = f(...)`)"),
])
def test_procedure_results_are_checked(tmp_path, text, message):
    from vbr.errors import VbrError
    p = write(tmp_path, 'game "g"\nseats 2\nstart p\nphase p {\n  end draw\n}\n' + text)
    with pytest.raises(VbrError) as exc:
        load(p)
    assert message in exc.value.render()


@pytest.mark.parametrize("args", ["true, 1", "1, true"])
def test_two_argument_max_checks_both_arguments(tmp_path, args):
    from vbr.errors import VbrError
    p = write(tmp_path, f'game "g"\nseats 2\nvar n: int = 0\nstart p\nphase p {{\n  n = max({args})\n  end draw\n}}\n')
    with pytest.raises(VbrError) as exc:
        load(p)
    assert "`max`'s argument must be int, not bool" in exc.value.render()


FACE_DOWN = """game "face down"
seats 2
kind Card { v: int }
zone hand per seat owner
zone pile public
var laid: Card = none
start p
setup {
  create Card(v: 1) in hand[0]
  create Card(v: 2) in hand[0]
}
phase p {
  choose c from hand[0] by 0 as "lay one"
  laid = c
  choose g from hand[0] by 1 as "guess blind"
  move g to pile
  end draw
}
"""


def test_an_observation_never_names_a_card_the_seat_cannot_see(tmp_path):
    """A public var naming a card in seat 0's hand, and a blind choice among that hand's cards:
    seat 1 sees `hidden` (an id would say which card, ids follow creation order); seat 0 sees ids."""
    st = load(write(tmp_path, FACE_DOWN)).new_state(0)
    st.apply_value(st.pending.options[1])
    assert st.observation(0)["vars"]["laid"] == "#1"
    assert st.observation(1)["vars"]["laid"] == "hidden"
    assert st.observation(1)["legal"] == ["hidden", "hidden"]
    st.apply_index(0)  # the blind guess takes #0 to the public pile: seen now, it is named
    assert st.observation(1)["zones"]["pile"] == ["#0 Card(v=1)"]
    assert st.observation(1)["vars"]["laid"] == "hidden"  # #1 is still in seat 0's hand


@pytest.mark.parametrize("lower", [True, False])
def test_a_procedure_calling_itself_stops_at_the_depth_limit_in_both_forms(tmp_path, lower):
    p = write(tmp_path, 'game "x"\nlimit depth 30\nvar n: int = 0\nstart p\nproc deeper() {\n  n += 1\n  deeper()\n}\n'
                        'phase p {\n  deeper()\n  end draw\n}\n')
    game, sink = load(p, lower=lower), []
    with pytest.raises(VbrRuntimeError, match=r"g.vbr:7:3: error: calls nest deeper than 30"):
        game.new_state(0, sink=sink)
    # the phase's frame and 29 calls make 30 frames: the 29th call's own call is refused
    (st,) = sink
    assert st.vals[0] == 29 and len(st.stack) == 30
