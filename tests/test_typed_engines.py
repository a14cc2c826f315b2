"""The typed program and its two engines: the same words in Python and in C, the options and
results the rules work out by hand where nothing is drawn, the random streams' definition, located
faults, and the C build's cache trusted only when it is this user's and intact."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from vbr.engines import c_engine
from vbr.engines.c_source import c_source
from vbr.engines.game import load
from vbr.errors import IllegalActionError, VbrRuntimeError
from vbr.ir import random_streams as R
from vbr.ir.build_expr import Unsupported
from vbr.ir.layout import Header as H

ROOT = Path(__file__).resolve().parent.parent
CONSTRUCTS = ROOT / "tests" / "fixtures" / "typed" / "constructs.vbr"
PIG = ROOT / "examples" / "pig.vbr"
SIATKA = ROOT / "rules" / "siatka.vbr"
ALL_VARIANTS = {"abilities": True, "block_marker": True, "rotation": True}


# ---------------------------------------------------------------------------- random streams

def test_a_stream_from_state_zero_gives_splitmix64s_published_first_outputs():
    # SplitMix64 (Steele, Lea, Flood 2014) seeded with 0: the reference implementation's first three outputs
    state, outputs = 0, []
    for _ in range(3):
        state, x = R.next_word(state)
        outputs.append(x)
    assert outputs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_a_draw_below_n_stays_in_range_and_is_close_to_uniform():
    state, counts = R.first_state(1, R.key("test")), [0] * 6
    for _ in range(60_000):
        state, v = R.below(state, 6)
        counts[v] += 1
    # each count is binomial(60000, 1/6): mean 10000, sd ~91; 6 sd is a bound a fair draw never reaches here
    assert all(abs(c - 10_000) < 550 for c in counts), counts


def test_a_draw_below_a_large_n_redraws_the_products_that_would_favour_low_values():
    # n = 3 * 2**62: 2**64 mod n = 2**62, so a low product under 2**62 must be redrawn; a state whose
    # next output is small enough to give one shows the redraw (a second word is consumed)
    n = 3 << 62
    state = 0
    consumed_two = False
    for _ in range(2000):
        s1, x = R.next_word(state)
        _, v = R.below(state, n)
        expected_single = (x * n) >> 64
        if ((x * n) & R.MASK) < (1 << 62):
            consumed_two = True
            assert v == (R.next_word(s1)[1] * n) >> 64 or ((R.next_word(s1)[1] * n) & R.MASK) < (1 << 62)
        else:
            assert v == expected_single
        state = s1
    assert consumed_two


def test_words_worked_out_together_are_the_streams_next_words_one_by_one():
    from vbr.engines.python_runtime import next_words
    for state in (0, 1, R.MASK, -1, -(1 << 63), R.first_state(3, R.key("x"))):
        states, outs = next_words(state, 40)
        s, expected = state & R.MASK, []
        for _ in range(40):
            s, x = R.next_word(s)
            expected.append((R.signed(s), x))
        assert list(zip(states, outs)) == expected


def test_numbers_drawn_together_are_those_drawn_one_by_one_redraws_included():
    from vbr.engines.python_runtime import draw_below, draws_below
    # below 3 * 2**62 a quarter of the words are redrawn (see above): the batch must go on one by one there
    for bounds in (range(52, 1, -1), range(3 << 62, (3 << 62) - 30, -1)):
        for seed in range(20):
            together = [0, R.signed(R.first_state(seed, R.key("deck")))]
            alone = list(together)
            assert draws_below(together, 1, bounds) == [draw_below(alone, 1, n) for n in bounds]
            assert together == alone


def test_each_stream_starts_from_the_seed_mixed_with_its_key_so_streams_differ():
    a, b = R.first_state(7, R.key("serve/roll green/0")), R.first_state(7, R.key("bounce/roll movement/0"))
    assert a != b and R.first_state(7, R.key("serve/roll green/0")) == a


# ---------------------------------------------------------------------------- the two engines

def _words_match_step_by_step(path, options, seeds, answer, offers=False):
    """Both engines play the same answers; their words agree after every one (and, with
    `offers`, the options each choice offers, as text)."""
    py, c = load(path, options, engine="python"), load(path, options, engine="c")
    ends = []
    for seed in seeds:
        a, b = py.new_state(seed), c.new_state(seed)
        k = 0
        assert a.words_in_use() == b.words_in_use()
        while not a.is_terminal():
            if offers:
                assert [str(x) for x in a.legal_actions()] == [str(x) for x in b.legal_actions()], (seed, k)
            i = answer(seed, k, len(a.legal_actions()))
            a.apply_index(i)
            b.apply_index(i)
            assert a.words_in_use() == b.words_in_use(), (seed, k)
            k += 1
        assert b.is_terminal() and a.outcome() == b.outcome()
        ends.append(a.outcome())
    return ends


@pytest.mark.parametrize("options", [{}, ALL_VARIANTS], ids=["default", "all-variants"])
def test_siatka_plays_the_same_words_in_python_and_in_c(options):
    ends = _words_match_step_by_step(SIATKA, options, range(15), lambda seed, k, n: (seed * 7 + k) % n)
    # the book: "The player who first scores 9 points wins"
    assert all(max(o.points) == 9 and o.points[o.winner] == 9 for o in ends)


def test_pig_plays_the_same_words_in_python_and_in_c():
    ends = _words_match_step_by_step(PIG, {"target": 30}, range(20), lambda seed, k, n: (seed + k) % n)
    assert all(o.points[o.winner] >= 30 for o in ends)


def test_a_whole_random_game_in_one_c_call_equals_the_python_engines_answer_by_answer():
    py, c = load(PIG, {}, engine="python"), load(PIG, {}, engine="c")
    for seed in range(20):
        a, b = py.new_state(seed), c.new_state(seed)
        a.play_random(seed + 1000)
        b.play_random(seed + 1000)
        assert a.words_in_use() == b.words_in_use()


# Seat 1 picks who starts in a set-up phase (`pre`, on no cycle of the turn flow), then the
# starter and the other take turns adding 1 or 2; past 5 the mover wins. The file declares no
# first-mover measure, so a game's first move is its first choice in `turn`.
SET_UP = """game "Set-up"
seats 2
var n: int = 0
var mover: seat = 0
var score: int per seat = 0
points score
measure starter: seat
start pre
phase pre {
  choose who from [0, 1] by 1 as "who starts"
  mover = who
  measure starter = who
  goto turn
}
phase turn {
  choose x from 1..2 by mover
  n += x
  score[mover] += x
  if n > 5 {
    end winner mover
  }
  mover = other(mover)
  goto turn
}
"""


def _result_fields(r) -> tuple:
    return (r.winner, r.points, r.choices, r.forced, r.options, r.first_side, r.score_track, r.measures,
            r.restricted, r.state.words_in_use())


@pytest.mark.parametrize("which", ["siatka", "set-up"])
def test_play_game_of_a_typed_game_is_the_same_game_and_counts_in_one_call_of_either_engine_as_answer_by_answer(
        tmp_path, which):
    from vbr.play import play_game
    path = SIATKA
    if which == "set-up":
        path = tmp_path / "set_up.vbr"
        path.write_text(SET_UP)
    py, c = load(path, {}, engine="python"), load(path, {}, engine="c")
    for seed in range(12):
        a, b = play_game(py, seed, ["random", "random"]), play_game(c, seed, ["random", "random"])
        by_answer = play_game(py, seed, ["random", "random"], record=True)  # a logged game: choice by choice
        assert _result_fields(a) == _result_fields(b) == _result_fields(by_answer)
        if which == "set-up":  # the first move is the starter's, whom seat 1 named in the set-up phase
            assert b.first_side == b.measures["starter"][1] and b.choices >= 4
        else:  # the book: "The player who first scores 9 points wins"
            assert b.points[b.winner] == 9 and b.score_track[-1] == (b.choices, b.points)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_words_in_use_hold_the_pending_choice_only_while_a_choice_waits(engine):
    from vbr.ir.layout import Header as H
    from vbr.play import play_game
    game = load(SIATKA, {}, engine=engine)
    lay = game.program.layout
    waiting = game.new_state(1).words_in_use()
    assert waiting[H.NOPTS] == len(game.new_state(1).legal_actions()) > 0
    for seed in range(3):
        ended = play_game(game, seed, ["random", "random"]).state
        assert ended.is_terminal()
        words = ended.words_in_use()
        assert [words[H.NOPTS], words[H.SEAT], words[H.SITE], words[H.DEST]] == [0, 0, 0, 0]
        assert words[lay.options:lay.options + lay.max_options] == [0] * lay.max_options


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_loop_of_play_game_on_one_game_plays_each_game_as_a_logged_game_plays_it_and_still_checks_its_arguments(
        engine):
    import vbr.play
    from vbr.agents.spec import AgentSpecError
    from vbr.play import play_game
    game = load(SIATKA, {}, engine=engine)
    agents = ["random", "random"]
    for seed in range(4):
        looped = play_game(game, seed, agents)
        assert vbr.play._last_plan[0] is game  # the next call with these agents is a loop's call
        by_answer = play_game(game, seed, agents, record=True)  # a logged game: choice by choice
        assert _result_fields(looped) == _result_fields(by_answer)
    play_game(game, 0, agents)
    for seed in (-1, 2 ** 63, True, 1.0):  # the seeds `vbr run --seed` refuses, refused in a loop too
        with pytest.raises((ValueError, TypeError)):
            play_game(game, seed, agents)
    with pytest.raises(AgentSpecError):
        play_game(game, 0, ["random"])


def test_play_game_with_record_keeps_a_typed_games_events_the_same_in_both_engines():
    from vbr.play import play_game
    logs = [play_game(load(PIG, {}, engine=e), 5, ["random", "random"], record=True).state.log for e in ("python", "c")]
    assert logs[0] == logs[1]
    assert logs[1][-1]["t"] == "end" and any(e["t"] == "choice" for e in logs[1])


def test_a_fault_in_play_is_raised_at_its_rule_from_play_game_in_both_engines(tmp_path):
    from vbr.play import play_game
    path = tmp_path / "late.vbr"
    path.write_text('game "Late"\nseats 2\nvar n: int = 0\nstart turn\nphase turn {\n  choose x from 1..2 by 0\n'
                    '  n += x\n  if n > 4 {\n    end winner 7\n  }\n  goto turn\n}\n')
    for engine in ("python", "c"):
        with pytest.raises(VbrRuntimeError) as err:
            play_game(load(path, {}, engine=engine), 3, ["random", "random"])
        assert err.value.span.line == 9 and "`end winner 7`: no such seat" in err.value.message


ENDLESS = """game "Endless"
seats 2
limit choices 30
var n: int = 0
start turn
phase turn {
  choose x from 1..3 by n % 2
  n += x
  tally(x)
  goto turn
}
proc tally(x: int) {
  choose y from 1..x by 1
  n += y
}
"""


@pytest.mark.parametrize("limits,message", [("limit choices 30", "more than 30 choices"),
                                            ("limit choices 3000\nlimit steps 200", "steps")])
def test_a_limit_passed_in_a_whole_game_of_random_seats_stops_play_game_alike_in_both_engines(tmp_path, limits, message):
    """The game never ends, so play passes its limit of choices (each turn asks two, one in a
    procedure) or of steps; both engines stop at the same rule with the same message."""
    from vbr.play import play_game
    path = tmp_path / "endless.vbr"
    path.write_text(ENDLESS.replace("limit choices 30", limits))
    errors = []
    for engine in ("python", "c"):
        with pytest.raises(VbrRuntimeError) as err:
            play_game(load(path, {}, engine=engine), 4, ["random", "random"])
        errors.append(err.value.render())
    assert errors[0] == errors[1] and message in errors[0], errors


def constructs_by_hand(answer):
    """tests/fixtures/typed/constructs.vbr worked out from its text, for the answers `answer(k,
    n)` gives the k-th choice of n options: what each choice offers (`seat text`), and the end
    and the scores. Cards #0..#7 are red 1..4 and blue 2..5 in turn, #8 and #9 green 9s; the
    deck's top is the card created last; a hand lists its cards in the order they came."""
    card = [("red", v) if i % 2 == 0 else ("blue", v + 1) for i, v in
            ((i, 1 + i // 2) for i in range(8))] + [("green", 9)] * 2
    worth = lambda c: card[c][1] * 2 if card[c][0] == "red" else card[c][1]  # noqa: E731
    deck, hand, score, trail = list(range(10)), [[], []], [0, 0], []

    def choose(seat, texts):
        trail.append([f"{seat} {t}" for t in texts])
        return answer(len(trail) - 1, len(texts))

    for _ in range(3):
        hand[0].append(deck.pop())
        hand[1].insert(0, deck.pop(0))
    turn = 0
    for turns in range(1, 42):
        if turns > 40:
            return trail, "draw", score
        playable = [c for c in hand[turn] if card[c][1] != 2]
        i = choose(turn, [f"#{c}" for c in playable] + ["pass"]) if playable else len(playable)
        if i == len(playable):  # passed, or nothing to offer: draw a card
            if deck:
                hand[turn].append(deck.pop())
            elif not hand[turn]:
                return trail, "draw", score
        else:
            c = playable[i]
            hand[turn].remove(c)
            gain = worth(c) % 4 + (-7) // 2 + 4
            if any(card[x][0] == card[c][0] for x in hand[1 - turn]):
                gain += 1
            elif all(card[x][1] > 1 for x in hand[turn]):
                gain -= 1
            score[turn] += max(gain, 0)
            if score[turn] >= 7:
                return trail, f"seat {turn} wins", score
        for s in (0, 1):
            if any(card[c][1] >= 3 for c in hand[s]) and sum(worth(c) for c in hand[s]) > 40:
                score[s] += 1
        choose(1 - turn, [str(d) for d in (1, 2, 3) if d <= len(hand[turn]) + 1])
        turn = 1 - turn


def test_with_nothing_drawn_both_engines_offer_and_end_as_the_rules_of_every_construct_say():
    py, c = load(CONSTRUCTS, {}, engine="python"), load(CONSTRUCTS, {}, engine="c")
    outcomes = set()
    for seed in range(25):
        b, d = py.new_state(seed), c.new_state(seed)
        trail = []
        while not b.is_terminal():
            offered = [str(x) for x in b.legal_actions()]
            assert offered == [str(x) for x in d.legal_actions()], (seed, len(trail))
            i = (seed + 3 * len(trail)) % len(offered)
            trail.append(offered)
            b.apply_index(i)
            d.apply_index(i)
            assert b.words_in_use() == d.words_in_use(), (seed, len(trail))
        assert d.is_terminal() and b.outcome() == d.outcome()
        end = str(b.outcome()).split(" (")[0]
        assert (trail, end, list(b.points())) == constructs_by_hand(lambda k, n, seed=seed: (seed + 3 * k) % n), seed
        outcomes.add(end)
    assert len(outcomes) >= 2, outcomes  # the answers lead to more than one kind of end


BOOKS = [
    ("siatka.vbr", {}), ("cattack.vbr", {}), ("cattack.vbr", {"players": 2}), ("cattack.vbr", {"players": 3}),
    ("tanto-cuore-beach-volleyball.vbr", {}), ("volleyball-high.vbr", {}), ("volleyball-high.vbr", {"mode": "2v2"}),
    ("volleyball-high.vbr", {"mode": "solo"}),
]


FLOWS = ["flow_events.vbr", "flow_jumps.vbr", "flow_problems.vbr", "flow_rally.vbr", "every_construct_cards.vbr",
         "every_construct_court.vbr"]
RULES = [(ROOT / "rules" / b, o) for b, o in BOOKS] + [(ROOT / "tests" / "fixtures" / "valid" / f, {}) for f in FLOWS]
RULE_IDS = [f"{p.name}-{o}" for p, o in RULES]


# What wins a book's game: Siatka "the player who first scores 9 points"; Cattack "the first team
# to score 3 points"; Tanto Cuore "the first player to win 3 sets"; Volleyball High a side's
# `points` (the file's option, 2 unless set)
BOOK_TARGETS = {"siatka.vbr": 9, "cattack.vbr": 3, "tanto-cuore-beach-volleyball.vbr": 3, "volleyball-high.vbr": 2}


@pytest.mark.parametrize("path, options", RULES, ids=RULE_IDS)
def test_every_book_and_flow_offers_and_plays_alike_in_python_and_in_c_and_a_book_ends_at_its_target(path, options):
    ends = _words_match_step_by_step(path, options, range(2), lambda seed, k, n: (seed * 7 + k) % n, offers=True)
    target = BOOK_TARGETS.get(path.name)
    for end in ends if target else []:  # the side that won reached the target first, the other did not
        assert end.points[end.team] == target and max(end.points[:end.team] + end.points[end.team + 1:]) < target


def test_a_state_keeps_every_thing_in_exactly_one_zone():
    g = load(SIATKA, ALL_VARIANTS, engine="c")
    lay = g.program.layout
    for seed in range(10):
        s, k = g.new_state(seed), 0
        while not s.is_terminal():
            w = s.words_in_use()
            things = w[H.THINGS]
            held = [x for z in range(lay.nzones) for x in w[lay.zone(z) + 1:lay.zone(z) + 1 + w[lay.zone(z)]]]
            assert sorted(held) == list(range(things))
            assert all(w[lay.zone_of + e] == z for z in range(lay.nzones)
                       for e in w[lay.zone(z) + 1:lay.zone(z) + 1 + w[lay.zone(z)]])
            s.apply_index((seed * 7 + k) % len(s.legal_actions()))
            k += 1


def test_a_clone_goes_on_alone():
    g = load(PIG, {}, engine="c")
    s = g.new_state(3)
    before = s.words_in_use()
    t = s.clone()
    t.apply_index(0)
    assert s.words_in_use() == before and t.words_in_use() != before


# ---------------------------------------------------------------------------- faults and refusals

FAULTY = """game "Faults"
seats 2
start one
option which = 0
var n: int = 0
phase one {
  if which == 0 {
    end winner 5
  }
  if which == 1 {
    while true max 3 {
      n += 1
    }
  }
  choose x from [1, 2] where x > 5 by 0 as "none fits"
  goto one
}
"""


@pytest.mark.parametrize("which, line, message", [
    (0, 8, "`end winner 5`: no such seat"),
    (1, 11, "loop ran more than its `max 3` rounds"),
    (2, 15, "`choose x` has nothing to choose from"),
])
@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_fault_is_the_same_located_message_in_both_engines(tmp_path, engine, which, line, message):
    f = tmp_path / "faults.vbr"
    f.write_text(FAULTY)
    g = load(f, {"which": which}, engine=engine)
    with pytest.raises(VbrRuntimeError) as err:
        g.new_state(1)
    assert err.value.span.line == line and message in err.value.message


def test_an_index_out_of_the_options_is_an_illegal_action_naming_the_range():
    s = load(PIG, {}, engine="python").new_state(1)
    with pytest.raises(IllegalActionError, match="there are 2 options"):
        s.apply_index(999)


def test_a_construct_the_typed_program_lacks_is_refused_with_where_it_is(tmp_path):
    f = tmp_path / "lists.vbr"
    f.write_text('game "Lists"\nseats 2\nstart one\nvar seen: list of int per seat = [[1], [2, 3]]\n'
                 'phase one {\n  let n = [[count(seen)]]\n  end draw\n}\n')
    with pytest.raises(Unsupported) as err:  # a list of lists worked out in play
        load(f, {}, engine="python")
    assert err.value.located().startswith(f"{f}:6:12: error: not supported yet:")


def test_no_text_of_the_rule_file_reaches_the_c_source(tmp_path):
    marker = "zq_marker_name"
    f = tmp_path / "names.vbr"
    f.write_text(PIG.read_text().replace("turn_total", marker).replace('"A turn"', '"*/ #include <x> /*"'))
    g = load(f, {}, engine="c")
    assert marker not in g.engine.source and "#include <x>" not in g.engine.source


# ---------------------------------------------------------------------------- the build cache

def test_the_cache_refuses_a_folder_others_may_write(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "vbr" / "c"
    folder.mkdir(parents=True)
    os.chmod(folder, 0o777)
    with pytest.raises(c_engine.CEngineUnavailable, match="written by others"):
        c_engine.cache_dir()


def test_a_tampered_library_is_rebuilt_not_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    source = c_source(load(PIG, {}, engine="python").program)
    lib = c_engine.build_library(source)
    good = lib.read_bytes()
    lib.write_bytes(good[:-16] + b"\0" * 16)
    notes = []
    again = c_engine.build_library(source, note=notes.append)
    assert again == lib and again.read_bytes() == good and notes, "the damaged library was built again"


def test_things_a_procedure_creates_during_play_fit_the_state(tmp_path):
    f = tmp_path / "grow.vbr"
    f.write_text('game "Grow"\nseats 2\nstart one\nkind Chip { v: int }\nzone pile public\nvar n: int = 0\n'
                 'proc add() {\n  create Chip(v: 1) in pile\n}\n'
                 'phase one {\n  add()\n  n += 1\n  if n > 100 {\n    end draw\n  }\n  goto one\n}\n')
    for engine in ("python", "c"):
        s = load(f, {}, engine=engine).new_state(0)
        assert s.is_terminal() and s.words[H.THINGS] == 101


PHASES = """game "Phases"
seats 2
var score: int per seat = 0
points score
start serve
proc ask(s: seat) {
  choose x from 1..2 by s as "how many"
  score[s] += x
}
phase serve {
  ask(0)
  goto reply
}
phase reply {
  ask(1)
  if score[0] + score[1] > 5 {
    end winner if score[0] > score[1] then 0 else 1
  }
  goto serve
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_typed_game_answers_seats_options_path_points_choices_and_phase_as_the_rules_say(tmp_path, engine):
    # nothing is drawn and every answer is the second option (2): at each choice (made inside
    # `ask`, a frame above the phase's) the game names the phase, the points so far and the
    # choices made; 2 a choice makes 4 after a round and 8 (past 5) after the second, a tie that
    # goes to seat 1
    f = tmp_path / "phases.vbr"
    f.write_text(PHASES)
    game = load(f, {}, engine=engine)
    assert (game.seats, game.options, game.path) == (2, {}, f)
    s = game.new_state(0)
    seen = []
    while not s.is_terminal():
        seen.append((s.phase, s.points(), s.choices))
        s.apply_index(1)
    assert seen == [("serve", (0, 0), 0), ("reply", (2, 0), 1), ("serve", (2, 2), 2), ("reply", (4, 2), 3)]
    assert s.points() == (4, 4) and s.outcome().winner == 1


@pytest.mark.parametrize("path, options", RULES, ids=RULE_IDS)
def test_a_whole_game_of_random_seats_in_one_call_is_the_same_in_both_engines_and_answer_by_answer(path, options):
    from vbr.play import play_game
    py, c = load(path, options, engine="python"), load(path, options, engine="c")
    agents = ["random"] * py.seats
    for seed in range(3):
        a, b = play_game(py, seed, agents), play_game(c, seed, agents)
        by_answer = play_game(py, seed, agents, record=True)  # a logged game: choice by choice
        assert _result_fields(a) == _result_fields(b) == _result_fields(by_answer)


def test_a_phase_ending_the_game_after_calls_of_procedures_that_never_suspend_leaves_the_same_words(tmp_path):
    # the C engine sets the frame's pc word to where play goes on before each such call (as a
    # pushed frame's call does); the phase's `end` then leaves it there, and so must Python
    path = tmp_path / "pc.vbr"
    path.write_text('game "pc word"\nseats 2\nvar n: int = 0\nproc bump(k: int) {\n  n += k\n}\nstart p\n'
                    'phase p {\n  bump(1)\n  bump(2)\n  end winner 0\n}\n')
    ends = []
    for engine in ("python", "c"):
        s = load(path, {}, engine=engine).new_state(1)
        s.play_random(2)
        assert s.outcome().winner == 0
        ends.append([int(x) for x in s.words_in_use()])
    assert ends[0] == ends[1]
