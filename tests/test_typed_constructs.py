"""The constructs the typed program gained last: vars holding lists (bounded records, the same
located error past the bound in both engines), `reach` whose directions or net cost are known
only in play (the court's search, run in each engine), events with list parameters, lists said
and revealed, strings chosen and said, a fn called as a statement, and lists given by procs. The
Python and the C engine offer the same options, hold the same words after every choice and end
alike; what they offer and how the game ends is checked against the rules worked out by hand (a
model of the rule text in a few lines of Python, or values reasoned in a comment)."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from vbr.engines.game import load
from vbr.errors import VbrRuntimeError
from vbr.ir.build import MAX_LIST_VAR

def started(tmp_path, rules: str, engine: str):
    """A game of `rules` under `engine`, seed 0, run to its first choice or end, with its log."""
    f = tmp_path / "rules.vbr"
    f.write_text(rules)
    log: list = []
    return load(f, {}, engine=engine).new_state(0, log), log


LISTS = """game "Lists"
seats 2
start one
var picks: list of int = [0, 0]
var seen: list of int per seat = [[1], [2, 3]]
var n: int = 0
phase one {
  choose k from 0..3 by n % 2
  picks = every(i * k for i in 0..k)
  seen[n % 2] = [k, count(picks), max(picks)]
  n += 1
  if k in picks and n > 6 {
    end winner if sum(x for x in seen[0]) > sum(x for x in seen[1]) then 0 else 1
  }
  if n > 9 {
    end draw
  }
  choose p from picks where p != picks[0] by n % 2 optional
  goto one
}
"""

REACH = """game "Reach in play"
seats 2
start aim
court {
  rows 3
  cols 3
  net NET_ROWS
  field 1 at row 1 col 1
}
direction forward = (0, 1)
direction backward = (0, -1)
direction left = (-1, 0)
direction right = (1, 0)
direction long = (1, 2)
var ball: cell = none
var rounds: int = 0
phase aim {
  rounds += 1
  if rounds > 12 {
    end draw
  }
  choose start from cells(rounds % 2) by 0
  choose a from directions() by 0
  choose b from directions() where b != a by 1
  choose cost from 0..2 by 1
  choose d from 0..6 by 0
  choose to from reach(start, d, rounds % 2, [a, b, a], cost) by 1 optional
  if to != none {
    ball = to
  }
  goto aim
}
"""


def _same_games(path, options, answers, seeds=range(6)):
    """The Python and the C engine offer the same options, hold the same words after each answer
    and end alike for the same answers (nothing is drawn). For each seed: what each choice
    offered (`seat text` each), and how the game ended."""
    py, c = load(path, options, engine="python"), load(path, options, engine="c")
    games = []
    for seed in seeds:
        b, d = py.new_state(seed), c.new_state(seed)
        trail = []
        while not b.is_terminal():
            offered = [str(x) for x in b.legal_actions()]
            assert offered == [str(x) for x in d.legal_actions()], (seed, len(trail))
            i = answers(seed, len(trail), len(offered))
            trail.append(offered)
            b.apply_index(i)
            d.apply_index(i)
            assert b.words_in_use() == d.words_in_use(), (seed, len(trail))
        assert d.is_terminal() and str(b.outcome()) == str(d.outcome())
        games.append((trail, str(b.outcome())))
    return games


def lists_by_hand(answer):
    """LISTS worked out from its text: `choose k` offers 0..3 to seat n % 2; picks becomes
    0, k, 2k .. k*k; the game ends once n passes 6 (k is always in picks), seat 0 winning when
    the row it wrote last adds up to more than seat 1's; else `choose p` offers picks but its
    first (0) and pass to seat n % 2 after the count, and is skipped when there is nothing."""
    n, seen, trail = 0, [[1], [2, 3]], []
    while True:
        trail.append([f"{n % 2} {v}" for v in range(4)])
        k = answer(len(trail) - 1, 4)
        picks = [i * k for i in range(k + 1)]
        seen[n % 2] = [k, len(picks), max(picks)]
        n += 1
        if k in picks and n > 6:
            return trail, "seat 0 wins" if sum(seen[0]) > sum(seen[1]) else "seat 1 wins"
        rest = [p for p in picks if p != picks[0]]
        if rest:
            trail.append([f"{n % 2} {p}" for p in rest] + [f"{n % 2} pass"])
            answer(len(trail) - 1, len(rest) + 1)


SAME_LISTS = """game "Same lists"
seats 2
start one
var picks: list of int = [0, 0]
var n: int = 0
phase one {
  choose k from 0..2 by n % 2
  picks = every(i * k for i in 0..k)
  n += 1
  if picks == [0, 1] {
    end winner 0
  }
  if [0, 2, 4] == picks {
    end winner 1
  }
  if picks != [0] {
    end winner 0
  }
  if n > 3 {
    end draw
  }
  goto one
}
"""


def test_lists_compared_as_values_end_as_the_rules_say_in_both_typed_engines(tmp_path):
    """Answer k makes picks [0], [0, 1] or [0, 2, 4]. The answers below are the same in every
    round of a seed: seed 0 answers 0 (picks stays [0], so `!= [0]` is false: a draw in round
    4), seed 1 answers 2 (seat 1 wins), seed 2 answers 1 (seat 0 wins)."""
    f = tmp_path / "same.vbr"
    f.write_text(SAME_LISTS)
    games = _same_games(f, {}, lambda seed, k, n: (seed * 5 + k * 3) % n, seeds=range(3))
    assert [end for _, end in games] == ["draw", "seat 1 wins", "seat 0 wins"]
    assert [len(trail) for trail, _ in games] == [4, 1, 1]


@pytest.mark.parametrize("net_rows", [0, 1, 2])
def test_reach_with_directions_and_net_cost_chosen_in_play_ends_where_the_courts_search_ends(tmp_path, net_rows):
    f = tmp_path / "reach.vbr"
    f.write_text(REACH.replace("NET_ROWS", str(net_rows)))
    _same_games(f, {}, lambda seed, k, n: (seed * 7 + k * 11 + k * k) % n, seeds=range(8))


REACH_BY_HAND = """game "Reach by hand"
seats 2
start one
court {
  rows 3
  cols 3
  net 1
  field 1 at row 1 col 1
}
direction forward = (0, 1)
direction right = (1, 0)
var dirs: list of dir = [forward]
var cost: int = 1
phase one {
  choose d from [0, 1] by 0
  if d == 1 {
    dirs = [forward, right]
  }
  choose k from 0..1 by 1
  cost = k
  let two = reach(field(0, 1), 2, 0, dirs, cost)
  let three = reach(field(0, 1), 3, 0, dirs, cost)
  let four = reach(field(0, 1), 4, 0, dirs, cost)
  say "{count(two)} {cell_at(0, 3, 1) in two} {cell_at(0, 2, 2) in two} {cell_at(0, 1, 3) in two}"
  say "{count(three)} {cell_at(1, 3, 3) in three} {count(four)} {cell_at(1, 3, 3) in four} {cell_at(1, 2, 3) in four}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_reach_with_directions_and_net_cost_set_in_play_ends_where_the_rules_say(tmp_path, engine):
    """From side 0's back-row corner (row 1, col 1) on a court of 3 rows and a net row.
    Forward only: 2 steps end on row 3; 3 steps end on the net row (no end) at cost 1, and at
    cost 0 cross it to side 1's front row (its row 3; its columns read from its own left, so
    column 1 seen from side 0 is its column 3); 4 steps reach that front row at cost 1 and one
    row beyond (its row 2) at cost 0. Forward and right: 2 steps end on (3, 1), (2, 2) and
    (1, 3); 3 steps end on (3, 2) and (2, 3) (going forward from row 3 ends on the net); 4 steps
    on (3, 3) and, forward all the way at cost 1, on side 1's front row."""
    f = tmp_path / "reach.vbr"
    f.write_text(REACH_BY_HAND)
    said = []
    for d, k in ((0, 0), (0, 1), (1, 1)):
        s, log = started(tmp_path, REACH_BY_HAND, engine)
        s.apply_index(d)
        s.apply_index(k)
        assert s.is_terminal()
        said.append([e["text"] for e in log if e["t"] == "say"])
    assert said[0] == ["1 true false false", "1 true 1 false true"]
    assert said[1] == ["1 true false false", "0 false 1 true false"]
    assert said[2] == ["3 true true true", "2 false 2 true false"]


TOO_LONG = f"""game "Too long"
seats 2
start one
var picks: list of int = [1]
phase one {{
  choose k from [{MAX_LIST_VAR}, {MAX_LIST_VAR + 1}] by 0
  picks = 1..k
  end winner count(picks) % 2
}}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_var_given_more_items_than_it_holds_is_the_same_located_error_in_both_engines(tmp_path, engine):
    f = tmp_path / "long.vbr"
    f.write_text(TOO_LONG)
    s = load(f, {}, engine=engine).new_state(0)
    s.apply_index(0)  # MAX_LIST_VAR items fit: an even count, seat 0 wins
    assert s.is_terminal() and s.outcome().winner == 0
    s = load(f, {}, engine=engine).new_state(0)
    with pytest.raises(VbrRuntimeError) as err:
        s.apply_index(1)
    assert (err.value.span.line, err.value.span.col) == (7, 3)
    assert f"`picks` holds at most {MAX_LIST_VAR} items; this list has {MAX_LIST_VAR + 1}" in err.value.message


@pytest.mark.parametrize("engine", ["python", "c"])
def test_reach_in_play_with_a_negative_net_cost_is_the_same_located_error_in_both_engines(tmp_path, engine):
    f = tmp_path / "reach.vbr"
    f.write_text(REACH.replace("NET_ROWS", "1").replace("choose cost from 0..2 by 1", "let cost = -1"))
    s = load(f, {}, engine=engine).new_state(0)
    with pytest.raises(VbrRuntimeError) as err:
        for _ in range(4):
            s.apply_index(0)
    assert (err.value.span.line, err.value.span.col) == (27, 18) and "`reach`'s net cost is -1: it must be 0 or more" in err.value.message


def heavy_fns(levels: int) -> str:
    """`g_i` calls `g_(i-1)` twice and `k_i` (untyped) `k_(i-1)` twice: written out, a call of
    the last would be 2**levels copies of the first."""
    gs = "fn g0(a: int) = a % 5\n" + "".join(f"fn g{i}(a: int) = g{i - 1}(a + 1) - g{i - 1}(a) + {i}\n"
                                             for i in range(1, levels + 1))
    ks = "fn k0(x) = x\n" + "".join(f"fn k{i}(x) = if k{i - 1}(x) == x then k{i - 1}(x) else none\n"
                                    for i in range(1, levels + 1))
    return f"""game "Heavy"
seats 2
start one
enum Tone {{ low, high }}
{gs}{ks}var n: int = 0
var t: Tone = low
var rounds: int = 0
phase one {{
  choose x from 0..3 by rounds % 2
  n += g{levels}(x + n % 3) + (if k{levels}(t) == low then 1 else 2) + k{levels}(x)
  t = if n % 2 == 0 then low else high
  rounds += 1
  if rounds > 5 {{
    end winner n % 2
  }}
  goto one
}}
"""


def heavy_by_hand(levels: int, answer):
    """heavy_fns(levels) worked out from its text: k_i(x) is x at every level (k_0 is, and k_i
    gives k_(i-1)(x) when that is x), so a round adds g(x + n % 3) + (1 when t is low, else 2)
    + x; `%` rounds down, as Python's; after 6 rounds seat n % 2 wins."""
    @functools.cache
    def g(i: int, a: int) -> int:
        return a % 5 if i == 0 else g(i - 1, a + 1) - g(i - 1, a) + i
    n, low, trail = 0, True, []
    for rounds in range(6):
        trail.append([f"{rounds % 2} {x}" for x in range(4)])
        x = answer(rounds, 4)
        n += g(levels, x + n % 3) + (1 if low else 2) + x
        low = n % 2 == 0
    return trail, f"seat {n % 2} wins"


def test_heavy_fns_called_in_play_give_what_the_rules_work_out_in_both_typed_engines(tmp_path):
    f = tmp_path / "heavy.vbr"
    f.write_text(heavy_fns(11))
    games = _same_games(f, {}, lambda seed, k, n: (seed + k * 5) % n)
    assert games == [heavy_by_hand(11, lambda k, n, seed=seed: (seed + k * 5) % n) for seed in range(6)]
    assert len({end for _, end in games}) >= 2, games


def test_a_heavy_fn_is_built_once_so_a_level_more_adds_one_levels_worth_of_program(tmp_path):
    from vbr.engines.python_source import python_source
    sizes = []
    for levels in (9, 10):
        f = tmp_path / f"heavy{levels}.vbr"
        f.write_text(heavy_fns(levels))
        sizes.append(len(python_source(load(f, {}, engine="python").program)))
    # written out at every call, the 10th level would double the program
    assert sizes[1] - sizes[0] < sizes[0] / 5, sizes


def test_a_call_of_a_heavy_fn_pays_steps_for_its_size_so_forty_pass_the_step_limit(tmp_path):
    # g10 is over 10,000 nodes written out: at a step per 64, 40 calls pay far more than 400
    # steps, while the 40 rounds alone take far fewer
    f = tmp_path / "loop.vbr"
    f.write_text(heavy_fns(10).replace('seats 2\n', 'seats 2\nlimit steps 400\n').replace(
        "phase one {\n", "phase one {\n  repeat 40 {\n    n = g10(n % 3)\n  }\n  end draw\n"))
    errors = []
    for engine in ("python", "c"):
        with pytest.raises(VbrRuntimeError) as err:
            load(f, {}, engine=engine).new_state(0)
        assert "400" in err.value.message and "step" in err.value.message
        errors.append(err.value.render())
    assert errors[0] == errors[1]
    f.write_text(f.read_text().replace("repeat 40", "repeat 1"))  # one call alone stays under 400
    assert load(f, {}, engine="python").new_state(0).is_terminal()


def test_a_greedy_and_a_random_seat_keep_the_same_score_track_in_python_and_in_c():
    # the greedy seat's turns are played by hand and the random seat's by the engine's own loop:
    # both keep rows of the same track
    from vbr.play import play_typed_game
    path = Path(__file__).resolve().parent.parent / "rules" / "siatka.vbr"
    py, c = load(path, {}, engine="python"), load(path, {}, engine="c")
    for seed in range(4):
        a, b = play_typed_game(py, seed, ["greedy", "random"]), play_typed_game(c, seed, ["greedy", "random"])
        assert a.score_track == b.score_track and a.points == b.points, seed


LIST_EVENT = """game "List event"
seats 2
start one
var total: int = 0
event shown(who: seat, xs: list of int, k: int)
on shown(who, xs, k) when count(xs) > 1 {
  total += sum(x for x in xs) * k
}
on shown(who, xs, k) {
  total += max(xs) + who
}
phase one {
  choose k from 1..3 by 0
  let ys = every(i for i in 0..k)
  emit shown(1, ys, 10)
  emit shown(0, every(y * 2 for y in ys), 1)
  end winner if total == TOTAL then 0 else 1
}
"""


@pytest.mark.parametrize("k", [1, 2, 3])
def test_an_event_with_a_list_parameter_reaches_every_handler_in_both_typed_engines(tmp_path, k):
    # ys = 0..k: the first emit adds sum(ys) * 10 (guarded: 2+ items) and max(ys) + 1 = k + 1;
    # the second, of the doubled list, adds 2 * sum(ys) and 2k + 0
    s = k * (k + 1) // 2
    total = s * 10 + k + 1 + 2 * s + 2 * k
    f = tmp_path / "event.vbr"
    f.write_text(LIST_EVENT.replace("TOTAL", str(total)))
    [(trail, end)] = _same_games(f, {}, lambda seed, step, n: k - 1, seeds=[0])
    assert (trail, end) == ([["0 1", "0 2", "0 3"]], "seat 0 wins")


TWO_CARDS = """seats 2
start one
kind Card { value: int }
zone deck public ordered
setup {
  create Card(value: 3) in deck
  create Card(value: 5) in deck
}
"""  # a deck of two things, #0 (value 3) under #1 (value 5)

SAY_LISTS = 'game "Say lists"\n' + TWO_CARDS + """var seen: list of int = [1, 2]
phase one {
  let ys = [4, 5, 6]
  for k in 1..2 {
    say "{k}: {ys} {every(y * k for y in ys)} {[k == 1, false]} {seen}"
  }
  say "{every(c for c in deck if c.value > 4)} {[none, 1]} {every(k for k in 0..0 if k > 0)}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_list_said_is_written_with_its_items_as_choices_write_them(tmp_path, engine):
    # a list is written `[a, b]`, each item as a choice offers it: a number as itself, a thing as
    # its number (`#1`), none as `pass`, a truth as `true`/`false`
    s, log = started(tmp_path, SAY_LISTS, engine)
    assert s.is_terminal()
    assert [e["text"] for e in log if e["t"] == "say"] == [
        "1: [4, 5, 6] [4, 5, 6] [true, false] [1, 2]",
        "2: [4, 5, 6] [8, 10, 12] [false, false] [1, 2]",
        "[#1] [pass, 1] []"]


CALLED_FOR_NOTHING = """game "Called for nothing"
seats 2
start one
fn side_of(s: seat) = other(s)
fn sides(k: int) = every(other(i) for i in 0..k)
phase one {
  choose k from [1, 2] by 0
  sides(k)
  side_of(0)
  end winner 0
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_fn_called_as_a_statement_is_worked_out_and_its_fault_is_the_same_located_error(tmp_path, engine):
    # sides(1) asks other(0) and other(1): fine, and the game ends; sides(2) asks other(2), which
    # has no other side
    f = tmp_path / "called.vbr"
    f.write_text(CALLED_FOR_NOTHING)
    s = load(f, {}, engine=engine).new_state(0)
    s.apply_index(0)
    assert s.is_terminal() and s.outcome().winner == 0
    s = load(f, {}, engine=engine).new_state(0)
    with pytest.raises(VbrRuntimeError) as err:
        s.apply_index(1)
    assert (err.value.span.line, err.value.span.col) == (5, 26)  # `other(i)` in sides
    assert "`other(2)`: only 0 and 1 have an other side" in err.value.message


REVEAL_LISTS = 'game "Reveal lists"\n' + TWO_CARDS + """phase one {
  reveal [3, 4]
  reveal every(c for c in deck)
  reveal every(c.value * 2 for c in deck if c.value > 3)
  reveal [none, true]
  end draw
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_list_revealed_is_logged_as_its_text_and_each_item_described(tmp_path, engine):
    # a list is logged as its text and each item as a value is described: a thing with its kind
    # and fields, none as `none` (in the text too: nothing was passed)
    _, log = started(tmp_path, REVEAL_LISTS, engine)
    assert [(e["what"], e["items"]) for e in log if e["t"] == "reveal"] == [
        ("[3, 4]", ["3", "4"]),
        ("[#0, #1]", ["#0 Card(value=3)", "#1 Card(value=5)"]),
        ("[10]", ["10"]),
        ("[none, true]", ["none", "true"])]


REVEAL_NONE = 'game "Reveal none"\n' + TWO_CARDS + """var n: int = none
var c: Card = none
const LINES = [[1, none], [2]]
var picks: list of int per seat = [1, 2]
phase one {
  picks[1] = [n]
  reveal n
  reveal c
  reveal [n]
  reveal [c, top(deck)]
  reveal every(x for x in [3] if x > 3)
  reveal LINES
  reveal picks
  say "{n} {[n]}"
  end draw
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_none_revealed_reads_none_alone_or_in_a_list(tmp_path, engine):
    # docs/language.md, `reveal`: none reads `none`, alone or in a list, in the text as in the
    # items (it read `pass`, a choice's answer, though nothing was passed); an empty list shows
    # no item; a say keeps its own words (none alone `none`, in a list `pass`)
    _, log = started(tmp_path, REVEAL_NONE, engine)
    assert [(e["what"], e["items"]) for e in log if e["t"] == "reveal"] == [
        ("none", ["none"]),
        ("none", ["none"]),
        ("[none]", ["none"]),
        ("[none, #1]", ["none", "#1 Card(value=5)"]),
        ("[]", []),
        ("[[1, none], [2]]", ["[1, none]", "[2]"]),
        ("[[1, 2], [none]]", ["[1, 2]", "[none]"])]
    assert [e["text"] for e in log if e["t"] == "say"] == ["none [pass]"]


STRINGS = """game "Strings"
seats 2
start one
phase one {
  choose w from ["left", "right"] by 0 as "which way"
  say "went {w}"
  if w == "left" {
    end winner 0
  }
  end winner 1
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_string_chosen_and_said_reads_as_its_text_in_both_typed_engines(tmp_path, engine):
    # a string is offered as its text (`0 left`: seat 0, then the text), logged as a choice of
    # kind `text`, and said as itself
    s, log = started(tmp_path, STRINGS, engine)
    assert [str(a) for a in s.legal_actions()] == ["0 left", "0 right"]
    s.apply_index(1)
    choice = next(e for e in log if e["t"] == "choice")
    assert (choice["action"], choice["kind"]) == ("right", "text")
    assert [e["text"] for e in log if e["t"] == "say"] == ["went right"]
    assert s.outcome().winner == 1


LIST_PROCS = """game "Lists given"
seats 2
start one
var kept: list of int = [0, 0, 0]
proc upto(n: int, skip: list of int): list of int {
  for i in 1..n {
    if i in skip {
      continue
    }
    if i == 5 {
      return every(j for j in 1..n if j < i and not (j in skip))
    }
  }
  return [n]
}
phase one {
  let ys = upto(7, [2])
  say "{ys}"
  let zs = upto(3, ys)
  say "{zs}"
  kept = upto(9, [1, 2, 3, 4])
  say "{kept}"
  ys = upto(6, [])
  say "{ys}"
  upto(2, [])
  end winner count(ys) - 3
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_list_a_proc_gives_is_the_list_its_return_names(tmp_path, engine):
    # upto(7, [2]) meets i = 5 and gives the numbers below 5 but 2; upto(3, [1, 3, 4]) never
    # meets 5 and gives [3]; upto(9, [1, 2, 3, 4]) gives the numbers below 5 not skipped: none;
    # upto(6, []) gives 1..4, so seat count(ys) - 3 = 1 wins
    s, log = started(tmp_path, LIST_PROCS, engine)
    assert s.is_terminal() and s.outcome().winner == 1
    assert [e["text"] for e in log if e["t"] == "say"] == ["[1, 3, 4]", "[3]", "[]", "[1, 2, 3, 4]"]


LIST_PROC_CHOOSES = """game "A list chosen"
seats 2
start one
var kept: list of int = [0, 0]
proc pair(k: int): list of int {
  choose a from 1..k by 0
  choose b from 1..k by 1
  let r = sums(a, b)
  return r
}
proc sums(a: int, b: int): list of int {
  if a == b {
    return [a]
  }
  return [a, b, a + b]
}
phase one {
  let ys = pair(3)
  kept = pair(2)
  end winner if count(ys) + count(kept) == 6 then 1 else 0
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_proc_giving_a_list_may_stop_for_choices_and_gives_the_list_they_make(tmp_path, engine):
    f = tmp_path / "chosen.vbr"
    f.write_text(LIST_PROC_CHOOSES)
    game = load(f, {}, engine=engine)

    def play(*values):
        s = game.new_state(0)
        for v in values:
            s.apply(next(a for a in s.legal_actions() if a.text == str(v)))
        return s
    # 2 and 2 give [2], then 1 and 1 give [1] into `kept`: 2 items in all, seat 0 wins
    assert play(2, 2, 1, 1).outcome().winner == 0
    # 1 and 3 give [1, 3, 4], then 1 and 2 give [1, 2, 3]: 6 items, seat 1 wins
    assert play(1, 3, 1, 2).outcome().winner == 1


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_proc_giving_a_list_that_runs_off_its_end_is_a_located_error(tmp_path, engine):
    f = tmp_path / "off.vbr"
    f.write_text('game "Off"\nseats 2\nstart one\nproc evens(n: int): list of int {\n  if n > 100 {\n'
                 '    return [1]\n  }\n}\nphase one {\n  let ys = evens(6)\n  end draw\n}\n')
    with pytest.raises(VbrRuntimeError, match=r"procedure `evens` ended without `return`: it gives a list") as err:
        load(f, {}, engine=engine).new_state(0)
    assert (err.value.span.line, err.value.span.col) == (4, 1)



SELF_CALLING_LISTS = """game "Lists given by calls"
seats 2
start one
var kept: list of int = [0, 0, 0, 0]
proc down(n: int): list of int {
  if n == 0 {
    return []
  }
  let rest = down(n - 1)
  return every(x + n for x in 0..count(rest))
}
proc halves(xs: list of int): list of int {
  if count(xs) <= 1 {
    return xs
  }
  let inner = halves(every(x / 2 for x in xs if x % 2 == 0))
  return every(x * 10 for x in inner)
}
proc ping(n: int): list of int {
  if n == 0 {
    return [0]
  }
  let r = pong(n - 1)
  return every(x + 1 for x in r)
}
proc pong(n: int): list of int {
  let r = ping(n)
  return [count(r), max(r)]
}
phase one {
  let xs = down(4)
  say "{xs}"
  let ys = halves([4, 8, 3, 16, 6])
  say "{ys}"
  kept = down(3)
  say "{kept}"
  let zs = ping(2)
  say "{zs}"
  end winner count(zs) - 1
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_proc_giving_a_list_may_call_itself_directly_or_through_another(tmp_path, engine):
    # down(0) = []; down(n) = n + 0..count(down(n - 1)): down(1) = [1], down(2) = [2, 3],
    # down(3) = [3, 4, 5], down(4) = [4, 5, 6, 7].
    # halves halves the even items until one is left, then multiplies by 10 per level:
    # [4, 8, 3, 16, 6] -> [2, 4, 8, 3] -> [1, 2, 4] -> [1, 2] -> [1]: four levels, [10000].
    # ping(0) = [0]; pong(0) = [1, 0]; ping(1) = [2, 1]; pong(1) = [2, 2]; ping(2) = [3, 3]:
    # two items, so seat 1 wins.
    s, log = started(tmp_path, SELF_CALLING_LISTS, engine)
    assert s.is_terminal() and s.outcome().winner == 1
    assert [e["text"] for e in log if e["t"] == "say"] == ["[4, 5, 6, 7]", "[10000]", "[3, 4, 5]", "[3, 3]"]


SELF_CALLING_CHOICE = """game "A list chosen by calls"
seats 2
start one
proc picks(n: int): list of int {
  if n == 0 {
    return []
  }
  choose k from 1..3 by n % 2
  let rest = picks(n - 1)
  return every(x for x in [k, sum(r for r in rest)] if x > 0)
}
phase one {
  let ys = picks(3)
  end winner if max(ys) > 4 then 1 else 0
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_proc_giving_a_list_that_calls_itself_may_stop_for_choices(tmp_path, engine):
    f = tmp_path / "chosen.vbr"
    f.write_text(SELF_CALLING_CHOICE)
    game = load(f, {}, engine=engine)

    def play(*values):
        s, seats = game.new_state(0), []
        for v in values:
            seats.append(s.current_player())
            s.apply(next(a for a in s.legal_actions() if a.text == str(v)))
        assert seats == [1, 0, 1]  # picks(3), picks(2), picks(1) ask seat n % 2
        return s
    # picks(1) after k = c gives [c]; picks(2) after k = b gives [b, c]; picks(3) after a: [a, b + c].
    # 1, 1, 1: [1, 2], max 2, seat 0 wins; 1, 3, 2: [1, 5], max 5, seat 1 wins
    assert play(1, 1, 1).outcome().winner == 0
    assert play(1, 3, 2).outcome().winner == 1


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_self_calling_proc_that_runs_off_its_end_is_a_located_error(tmp_path, engine):
    f = tmp_path / "off.vbr"
    f.write_text('game "Off"\nseats 2\nstart one\nproc evens(n: int): list of int {\n  if n > 0 {\n'
                 '    let r = evens(n - 1)\n    return r\n  }\n}\nphase one {\n  let ys = evens(2)\n  end draw\n}\n')
    with pytest.raises(VbrRuntimeError, match=r"procedure `evens` ended without `return`: it gives a list") as err:
        load(f, {}, engine=engine).new_state(0)
    assert (err.value.span.line, err.value.span.col) == (4, 1)


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_self_calling_proc_giving_more_than_4096_items_is_a_located_error(tmp_path, engine):
    f = tmp_path / "many.vbr"
    f.write_text('game "Many"\nseats 2\nstart one\nkind Chip { n: int }\nzone pile public\n'
                 'proc chips(n: int): list of Chip {\n  if n == 0 {\n    return every(c for c in pile)\n  }\n'
                 '  let r = chips(n - 1)\n  return r\n}\nsetup {\n  create Chip(n: 1) in pile times 5000\n}\n'
                 'phase one {\n  let cs = chips(1)\n  end draw\n}\n')
    with pytest.raises(VbrRuntimeError, match=r"procedure `chips` gives at most 4096 items when it calls itself; "
                                              r"this list has 5000") as err:
        load(f, {}, engine=engine).new_state(0)
    assert (err.value.span.line, err.value.span.col) == (8, 5)


ROWS = """game "Rows"
seats 3
start one
var seen: list of int per seat = [[1], [2, 3], []]
var total: int = 0
phase one {
  say "{count(seen)} rows: {seen}"
  for xs in seen {
    total += sum(x for x in xs)
  }
  let sizes = every(count(xs) for xs in seen)
  let firsts = every(first(x for x in xs) for xs in seen if count(xs) > 0)
  say "{sizes} {firsts} {total} {[2, 3] in seen} {[3, 2] in seen} {firsts not in seen}"
  seen[2] = [7, 7, 7]
  reveal seen
  choose ys from seen where count(ys) > 1 by 0
  say "{ys} {max(ys)}"
  end winner count(ys) - 1
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_list_kept_per_seat_read_whole_is_a_list_of_its_slots_lists(tmp_path, engine):
    # seen is [[1], [2, 3], []]: 3 rows, totals 1 + 5 + 0 = 6, sizes [1, 2, 0], the first items
    # of the rows that have one [1, 2]; [2, 3] is a row, [3, 2] (its items in another order) and
    # [1, 2] are none. Then row 2 becomes [7, 7, 7]: the rows with more than one
    # item are [2, 3] and [7, 7, 7], offered in slot order, written as lists.
    s, log = started(tmp_path, ROWS, engine)
    assert [e["text"] for e in log if e["t"] == "say"] == ["3 rows: [[1], [2, 3], []]", "[1, 2, 0] [1, 2] 6 true false true"]
    assert [(e["what"], e["items"]) for e in log if e["t"] == "reveal"] == [("[[1], [2, 3], [7, 7, 7]]", ["[1]", "[2, 3]", "[7, 7, 7]"])]
    assert [a.text for a in s.legal_actions()] == ["[2, 3]", "[7, 7, 7]"]
    s.apply(s.legal_actions()[1])
    assert s.outcome().winner == 2 and [e["text"] for e in log if e["t"] == "say"][-1] == "[7, 7, 7] 7"


@pytest.mark.parametrize("engine", ["python", "c"])
def test_a_list_argument_longer_than_a_called_unit_reads_is_a_located_error(tmp_path, engine):
    # a called procedure or handler reads a list parameter as at most 4,096 items (the C engine
    # copies it into buffers of that size): 5,000 things passed fault at the argument, in both
    # engines, before the procedure runs (it would say how many it got)
    f = tmp_path / "big.vbr"
    f.write_text('game "Big"\nseats 2\nstart one\nkind Chip { n: int }\nzone pile public\n'
                 'event heard(xs: list of Chip)\non heard(xs) {\n  say "{count(xs)}"\n}\n'
                 'proc f(xs: list of Chip) {\n  say "{sum(c.n for c in xs)}"\n}\n'
                 'setup {\n  create Chip(n: 1) in pile times 5000\n}\n'
                 'phase one {\n  f(every(c for c in pile))\n  emit heard(every(c for c in pile))\n  end draw\n}\n')
    with pytest.raises(VbrRuntimeError, match=r"a list passed to a procedure or handler holds at most 4096 items; "
                                              r"this list has 5000") as err:
        load(f, {}, engine=engine).new_state(0)
    assert (err.value.span.line, err.value.span.col) == (17, 5)
    f.write_text(f.read_text().replace("  f(every(c for c in pile))\n", ""))
    with pytest.raises(VbrRuntimeError, match=r"holds at most 4096 items; this list has 5000") as err:
        load(f, {}, engine=engine).new_state(0)
    assert (err.value.span.line, err.value.span.col) == (17, 14)
