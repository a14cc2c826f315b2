"""A run's Trials are small (vbr/analysis/trial.py): slots, and the values many games have alike
(agents, points, score track pairs and scores, measures) one object, from one bounded Interner
(`SHARED`), also for the games a worker process sends; and they are the Trials a run made before:
equal to ones made by hand with the same values, rows and pickles alike."""
import gc
import pickle
import subprocess
import sys
import tracemalloc

import vbr
from conftest import ROOT, RULES
from vbr.analysis.trial import Trial
from vbr.shared_values import SHARED, Interner
from vbr.backends import LocalBackend
from vbr.play import play_game
from vbr.sim import RunSpec, TracedTrial, game_seed, play_range

SIATKA = str(RULES / "siatka.vbr")


def run_trials(n: int, agents=("random", "random"), seed: int = 1, trace: bool = False) -> list[Trial]:
    return play_range(RunSpec.of(SIATKA, {}, seed, list(agents), n, trace=trace, engine="c"), 0, n)


def test_a_trial_a_run_makes_equals_one_made_by_hand_from_the_same_game():
    # the C run reads its games from packed words into shared values; the same games played
    # one by one through the python engine (docs: one game for a seed, whatever engine), made
    # into Trials by hand with lists and tuples of their own, are equal, field by field and as rows
    game = vbr.load("siatka", engine="python")
    ran = run_trials(30)
    for t in ran:
        r = play_game(game, game_seed(1, t.index), ["random", "random"])
        hand = Trial(t.index, game_seed(1, t.index), ["random", "random"], 2, r.winner, tuple(r.points),
                     r.choices, r.forced, r.options, r.first_side, [(c, tuple(s)) for c, s in r.score_track],
                     dict(r.measures), (0, 0))
        assert t == hand and hand == t
        assert t.to_row() == hand.to_row()
        assert Trial.from_row(t.to_row()) == t


def test_equal_values_of_a_runs_games_are_one_object():
    ts = run_trials(400)
    first: dict = {}  # value -> the first object met with it
    for t in ts:
        assert t.agents is ts[0].agents  # one seating: one agents list
        for pair in t.score_track:
            assert first.setdefault(pair, pair) is pair
            assert first.setdefault(("score", pair[1]), pair[1]) is pair[1]
        assert first.setdefault(("points", t.points), t.points) is t.points
        assert first.setdefault(("measures", tuple(t.measures.items())), t.measures) is t.measures
    pairs = [p for t in ts for p in t.score_track]
    assert len(set(map(id, pairs))) == len(set(pairs)) < len(pairs)  # one object a value, and values repeat


def test_two_games_with_equal_score_track_pairs_hold_the_same_tuples():
    ts = run_trials(200)
    by_value: dict = {}
    for t in ts:
        for pair in t.score_track:
            by_value.setdefault(pair, []).append(pair)
    shared = [ps for ps in by_value.values() if len(ps) > 1]
    assert shared  # 200 games to 11 points: many rallies scored alike
    assert all(p is ps[0] and p[1] is ps[0][1] for ps in shared for p in ps)


def test_the_interner_stops_interning_new_values_at_its_bound():
    cache = Interner(bound=5)
    values = [(k, k + 1) for k in range(10)]
    assert [cache.one(v) for v in values] == values
    assert len(cache) == 5
    assert cache.one((0, 1)) is values[0]  # the first five are held, and still shared
    late, again = tuple([9, 10]), tuple([9, 10])
    assert cache.one(late) is late and cache.one(again) is again  # past the bound: handed back, not kept
    assert len(cache) == 5


def test_a_flat_score_track_past_the_interners_bound_is_still_the_track():
    cache = Interner(bound=3)
    flat = [4, 1, 0, 9, 1, 1, 12, 2, 1, 15, 2, 2, 20, 3, 2]  # rows of (choices, p0, p1)
    track = cache.track_of(flat, 3)
    assert track == [(4, (1, 0)), (9, (1, 1)), (12, (2, 1)), (15, (2, 2)), (20, (3, 2))]
    assert len(cache) <= 3
    assert cache.track_of(flat, 3) == track


def test_three_sides_score_tracks_read_from_flat_rows():
    cache = Interner()
    track = cache.track_of([3, 1, 0, 0, 7, 1, 0, 2], 4)
    assert track == [(3, (1, 0, 0)), (7, (1, 0, 2))]
    assert cache.track_of([3, 1, 0, 0], 4)[0] is track[0]


def test_a_kept_siatka_game_costs_a_few_hundred_bytes():
    # 13 slots and a score track of about 13 shared pairs; as a dataclass with a __dict__ and
    # tuples of its own a game cost 2,318 bytes
    run_trials(200)  # the values most games share, interned first
    gc.collect()
    tracemalloc.start()
    try:
        ts = run_trials(5000, seed=2)
        gc.collect()
        used = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(ts) == 5000 and used / 5000 < 700


def test_a_traced_trial_pickles_as_itself():
    ts = run_trials(5, trace=True)
    again = pickle.loads(pickle.dumps(ts))
    assert all(type(t) is TracedTrial for t in again)
    assert again == ts and again[0].steps == ts[0].steps and again[0].entered == ts[0].entered


def test_trials_pickled_here_and_unpickled_in_a_fresh_process_are_equal_and_shared_there(tmp_path):
    ts = run_trials(300)
    path = tmp_path / "batch.pickle"
    path.write_bytes(pickle.dumps(ts))
    check = (
        "import pickle, sys\n"
        "from vbr.analysis.trial import Trial\n"
        "from vbr.sim import RunSpec, play_range\n"
        f"got = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        f"ours = play_range(RunSpec.of({SIATKA!r}, {{}}, 1, ['random', 'random'], 300, engine='c'), 0, 300)\n"
        "assert got == ours\n"
        # the arrivals are interned where they arrive: the pairs of the games played there
        "assert all(a is b for g, o in zip(got, ours) for a, b in zip(g.score_track, o.score_track))\n"
        "assert all(g.agents is ours[0].agents for g in got)\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_games_from_two_worker_processes_are_the_runs_games_sharing_this_process_values():
    spec = RunSpec.of(SIATKA, {}, 1, ["random", "random"], 600, engine="c")
    here = play_range(spec, 0, 600)
    parts = list(LocalBackend(2).map(spec, [(0, 200), (200, 400), (400, 600)]))
    got = [t for part in parts for t in part]
    assert got == here
    assert all(a is b for g, h in zip(got, here) for a, b in zip(g.score_track, h.score_track))
    assert all(g.agents is here[0].agents and g.measures is h.measures and g.points is h.points
               for g, h in zip(got, here))
    assert len(SHARED) <= SHARED.bound


def test_the_games_a_run_plays_are_its_specs_deals_each_seating_one_agents_list():
    from vbr.sim import deals
    rotated = RunSpec.of(SIATKA, {}, 5, ["greedy", "random"], 9, engine="c", rotate=True)
    given = RunSpec(SIATKA, (), 0, ("random", "random"), 3, deals=((11, ("a", "b")), (12, ("b", "a")), (13, ("a", "b"))))
    for spec in (rotated, given, RunSpec.of(SIATKA, {}, 5, ["random", "random"], 9, engine="c")):
        got = list(deals(spec, 1, spec.n))
        assert [(i, s, a) for i, s, a in got] == [(i, *spec.deal(i)) for i in range(1, spec.n)]
        by_seating = {tuple(a): a for _, _, a in got}
        assert all(a is by_seating[tuple(a)] for _, _, a in got)


def test_equal_counts_of_options_above_small_ints_are_one_object():
    # a Tanto Cuore game offers some hundreds of options in all: ints Python does not share itself
    path = str(RULES / "tanto-cuore-beach-volleyball.vbr")
    ts = play_range(RunSpec.of(path, {}, 1, ["random", "random"], 300, engine="c"), 0, 300)
    first: dict = {}
    large = [t.options for t in ts if t.options > 256]
    assert len(large) > len(set(large))  # values repeat
    assert all(first.setdefault(o, o) is o for o in large)


def test_a_trial_made_by_hand_with_lists_pickles_as_it_is():
    t = Trial(0, 1, ["random", "random"], 2, 0, [3, 1], 10, 0, 20, 0, [[4, [1, 0]]], {"m": ["int", [2]]})
    again = pickle.loads(pickle.dumps(t))
    assert again == t and again.points == [3, 1] and again.score_track == [[4, [1, 0]]]
