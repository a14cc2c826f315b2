"""What a closed search tree observes of a world (python_search._Search.observe and
observed_words, c_search.c's vbr_observe): the game's vars, a var holding a list as its count and
its items, the zones' counts and the things the seat may see with their fields; not the words a
heavy fn works in (layout.values on), nor the room a list keeps past its count, nor which card a
var names when the card lies where the seat may not look. Python and C key their trees alike, so
both search the same tree and pick the same options."""
from __future__ import annotations

from pathlib import Path

import pytest

from vbr.engines import python_search as PS
from vbr.engines.game import load
from vbr.ir.observed_words import fixed_fields, observed_vars

ROOT = Path(__file__).resolve().parent.parent
TANTO = ROOT / "rules" / "tanto-cuore-beach-volleyball.vbr"

# `kept` is given [1, 2, 3] or a one-item list: room for 3 items, of which a one-item list leaves
# the last two as they were
LISTED = """game "Listed"
seats 2
points score
start turn

die d3 = 1..3

var score: int per seat = 0
var player: seat = 0
var kept: list of int = [1, 2, 3]
var moves: int = 0

phase turn "A turn" {
  choose m from kept by player as "which"
  moves += 1
  score[player] += m
  if moves >= 8 {
    if score[0] > score[1] {
      end winner 0
    }
    end winner 1
  }
  let r = roll d3
  if r == 1 {
    kept = [m]
  } else {
    kept = [1, 2, 3]
  }
  player = other(player)
  goto turn
}
"""


@pytest.fixture(scope="module")
def listed(tmp_path_factory):
    path = tmp_path_factory.mktemp("observed") / "listed.vbr"
    path.write_text(LISTED)
    return load(path, {}, engine="python"), load(path, {}, engine="c")


def _search(game, state):
    return PS._Search(game.engine, list(state.words), state.current_player(), PS.SearchParams(), 1)


def test_the_vars_words_are_the_plain_values_then_each_list_var_slot_by_slot(listed):
    p = listed[0].program
    # a word per var slot (score's two seats, player, kept, moves: 5), then kept's list: one slot,
    # its count and its room for 3 items
    assert observed_vars(p) == (5, [(5, 1, 3)]) and p.layout.values == 9


def test_a_list_is_observed_as_its_count_and_items_not_the_room_past_them(listed):
    game = listed[0]
    state = game.new_state(0)
    search = _search(game, state)
    lay = game.program.layout
    kept = lay.vars + 5
    world = list(state.words)
    world[kept:kept + 4] = [1, 2, 2, 3]  # [2], with two stale items
    seen = search.observe(world)
    stale = list(world)
    stale[kept + 2:kept + 4] = [7, 9]
    assert search.observe(stale) == seen
    longer = list(world)
    longer[kept] = 2  # [2, 2]
    assert search.observe(longer) != seen
    other_item = list(world)
    other_item[kept + 1] = 3  # [3]
    assert search.observe(other_item) != seen
    other_var = list(world)
    other_var[lay.vars + 4] += 1  # moves
    assert search.observe(other_var) != seen


def test_a_heavy_fns_working_words_are_not_observed():
    game = load(TANTO, {}, engine="python")
    lay = game.program.layout
    assert lay.values < lay.nvars  # the file's heavy fns keep words past its vars
    state = game.new_state(0)
    search = _search(game, state)
    world = list(state.words)
    seen = search.observe(world)
    for w in range(lay.vars + lay.values, lay.vars + lay.nvars):
        world[w] = w * 31 + 5
    assert search.observe(world) == seen
    world[lay.vars] += 1
    assert search.observe(world) != seen


def _positions(py, c, seeds, plies):
    """Equal Python and C states with two or more options along games answered by a fixed rule."""
    for seed in seeds:
        a, b = py.new_state(seed), c.new_state(seed)
        k = 0
        while not a.is_terminal() and k < 40:
            if k % plies == 0 and len(a.legal_actions()) > 1:
                yield seed * 101 + k, a, b
            i = (seed * 7 + k * 3) % len(a.legal_actions())
            a.apply_index(i)
            b.apply_index(i)
            k += 1


def _same_visits(py, c, seeds, plies, iterations):
    params = PS.SearchParams(iterations=iterations, budget=0, tree="closed")
    searched = 0
    for seed, a, b in _positions(py, c, seeds, plies):
        seat = a.current_player()
        assert PS.mcts_visits(py.engine, a.words, seat, params, seed) == \
            c.engine.mcts_visits(b.words, seat, params, seed), seed
        searched += 1
    return searched


def test_python_and_c_search_the_same_closed_tree_over_a_list_var_with_stale_room(listed):
    assert _same_visits(*listed, seeds=range(4), plies=1, iterations=60) >= 20


def test_python_and_c_search_the_same_closed_tree_past_a_heavy_fns_working_words():
    py, c = load(TANTO, {}, engine="python"), load(TANTO, {}, engine="c")
    assert _same_visits(py, c, seeds=range(2), plies=4, iterations=25) >= 4


FIELDS = """game "Fields"
seats 2
start one

kind Card { value: int, owner: int, tags: list of int }
kind Token { spot: int }

zone deck public ordered
zone pile public

setup {
  create Card(value: 1, owner: 0, tags: [1, 2]) in deck
  create Token(spot: 3) in pile
}

phase one {
  choose x from [1, 2] by 0 as "a pick"
  let c = top(deck)
  c.owner = 1
  c.tags = [3]
  end winner 0
}
"""


def test_the_fields_no_statement_sets_are_fixed_and_so_are_the_words_past_a_kinds_own(tmp_path):
    path = tmp_path / "fields.vbr"
    path.write_text(FIELDS)
    p = load(path, {}, engine="python").program
    assert [name for name, _, _ in p.kinds] == ["Card", "Token"]
    card, token = 0, 1
    every = (1 << p.layout.width) - 1
    tags = p.field_at[(card, "tags")]
    assert p.list_caps[(card, tags)] == 2  # the longest list it is given
    # Card: value and the words past its fields are fixed; owner is set in play, and so is tags:
    # its count and its room for two items
    set_in_play = 1 << p.field_at[(card, "owner")] | 0b111 << tags
    assert fixed_fields(p)[card] == every & ~set_in_play
    # Token: spot and every word past it
    assert fixed_fields(p)[token] == every


def test_a_fixed_field_goes_unobserved_only_for_a_thing_the_root_had(tmp_path):
    path = tmp_path / "fields.vbr"
    path.write_text(FIELDS)
    game = load(path, {}, engine="python")
    p = game.program
    state = game.new_state(0)  # at the pick, after the setup: both things made, in public zones
    lay = p.layout
    value = lay.fields + 0 * lay.width + p.field_at[(0, "value")]  # the card is thing 0
    search = PS._Search(game.engine, list(state.words), 0, PS.SearchParams(), 1)
    world = list(state.words)
    changed = list(world)
    changed[value] = 5
    assert search.observe(changed) == search.observe(world)
    # a thing made after the root (here: as if the root had made none yet) shows every field:
    # its id alone does not tell what it was made with in this world
    search.root_things = 0
    assert search.observe(changed) != search.observe(world)


WIDE = """game "Wide"
seats 2
points score
start turn

kind Bag { items: list of int, mark: int }

zone shelf public

var score: int per seat = 0
var player: seat = 0
var moves: int = 0

setup {
  create Bag(items: [""" + ", ".join(str(i) for i in range(70)) + """], mark: 0) in shelf
}

phase turn "A turn" {
  choose m from [1, 2, 3] by player as "how many"
  moves += 1
  score[player] += m
  let b = top(shelf)
  b.mark = m
  if moves >= 8 {
    if score[0] > score[1] {
      end winner 0
    }
    end winner 1
  }
  player = other(player)
  goto turn
}
"""


def test_a_row_wider_than_a_mask_word_is_observed_past_its_first_64_words_alike_in_python_and_c(tmp_path):
    path = tmp_path / "wide.vbr"
    path.write_text(WIDE)
    py, c = load(path, {}, engine="python"), load(path, {}, engine="c")
    p = py.program
    assert p.layout.width > 64  # the list's count and its room for 70 items, then mark
    assert fixed_fields(p)[0] < 1 << 64
    assert _same_visits(py, c, seeds=range(2), plies=1, iterations=40) >= 8


# Seat 0 settles for a draw or gambles: the four cards it has seen on the table go into seat 1's
# hidden deck, seat 1 draws one unseen (noted in `drawn`) and seat 0 must name it. Gambling wins 1
# in 4, worth less than the draw's half.
GAMBLE = """game "Gamble"
seats 2
start open

kind Card { v: int }

zone deck per seat hidden ordered
zone hand per seat owner
zone table public

var drawn: Card = none

setup {
  for v in 0..3 {
    create Card(v: v) in table
  }
}

phase open "Open" {
  choose m from [0, 1] by 0 as "settle for a draw (0) or gamble (1)"
  if m == 0 {
    end draw
  }
  while not empty(table) max 4 {
    move top(table) to deck[1]
  }
  shuffle deck[1]
  drawn = top(deck[1])
  move drawn to hand[1]
  choose g from 0..3 by 0 as "which card did seat 1 draw"
  if g == drawn.v {
    end winner 0
  }
  end winner 1
}
"""


@pytest.fixture(scope="module")
def gamble(tmp_path_factory):
    path = tmp_path_factory.mktemp("observed") / "gamble.vbr"
    path.write_text(GAMBLE)
    return load(path, {}, engine="python"), load(path, {}, engine="c")


def test_a_var_naming_a_card_the_seat_cannot_see_is_observed_as_hidden_whichever_card_it_is(gamble):
    game = gamble[0]
    state = game.new_state(0)
    state.apply_index(1)  # gamble: seat 1 has drawn, seat 0 is to name the card
    lay, drawn = game.program.layout, game.program.layout.vars  # `drawn` is the only var
    search = _search(game, state)
    world = list(state.words)
    hand = lay.zone(game.program.names.zones.index("hand[1]"))
    assert world[hand] == 1 and world[drawn] == world[hand + 1] and 0 <= world[drawn] < 4
    seen = search.observe(world)
    for other in range(4):  # any of the four cards: the same observation
        named = list(world)
        named[drawn] = other
        assert search.observe(named) == seen, other
    unset = list(world)
    unset[drawn] = PS.NONE
    assert search.observe(unset) != seen  # whether the var names a card at all is seen


# The same, the drawn card noted in a field of a note everyone sees rather than in a var.
GAMBLE_FIELD = GAMBLE.replace("kind Card { v: int }", "kind Card { v: int }\nkind Note { card: Card }").replace(
    "zone table public", "zone table public\nzone notes public").replace(
    "var drawn: Card = none", "var unused: int = 0").replace(
    "    create Card(v: v) in table\n  }", "    create Card(v: v) in table\n  }\n  create Note(card: none) in notes").replace(
    "  drawn = top(deck[1])\n  move drawn to hand[1]", "  let note = top(notes)\n  note.card = top(deck[1])\n  move note.card to hand[1]").replace(
    "g == drawn.v", "g == top(hand[1]).v")


@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("rules", [GAMBLE, GAMBLE_FIELD], ids=["a var", "a field"])
def test_a_closed_search_does_not_gamble_on_naming_a_card_it_will_not_see(tmp_path, engine, rules):
    """A closed tree that told its worlds apart by the drawn card's id (noted in a var, or in a
    field of a card everyone sees) would learn to name it in each, and so gamble every time."""
    path = tmp_path / "gamble.vbr"
    path.write_text(rules)
    state = load(path, {}, engine=engine).new_state(0)
    picks = {state.mcts(iterations=300, budget=0, seed=k, tree="closed", reward="win") for k in range(6)}
    assert picks == {0}


# Each turn a seat draws a card unseen by the other, notes it (`drawn`, kept per seat) and plays a
# card of its hand to the table, the last two noted in `pair`: vars naming cards that lie where a
# seat may not look, cards that were hidden and now lie on the table, and none.
NOTED = """game "Noted"
seats 2
points score
start turn

kind Card { v: int }

zone deck per seat hidden ordered
zone hand per seat owner
zone table public

var score: int per seat = 0
var player: seat = 0
var moves: int = 0
var drawn: Card per seat = none
var pair: list of Card = []

setup {
  for s in seats {
    for v in 0..5 {
      create Card(v: v + s) in deck[s]
    }
    shuffle deck[s]
    move top(deck[s]) to hand[s]
  }
}

phase turn "A turn" {
  drawn[player] = top(deck[player])
  move drawn[player] to hand[player]
  choose c from hand[player] by player as "play a card"
  move c to table
  pair = [drawn[player], c]
  score[player] += c.v
  moves += 1
  if moves >= 6 {
    if score[0] > score[1] {
      end winner 0
    }
    end winner 1
  }
  player = other(player)
  goto turn
}
"""


# NOTED with each card played noting the card the other seat drew last, and the table's top card
# noting the card played and the one drawn: fields naming cards hidden, once hidden, seen, and none.
NOTED_FIELDS = NOTED.replace("kind Card { v: int }", "kind Card { v: int, last: Card, two: list of Card }").replace(
    "create Card(v: v + s) in deck[s]", "create Card(v: v + s, two: []) in deck[s]").replace(
    "  pair = [drawn[player], c]", "  pair = [drawn[player], c]\n  c.last = drawn[other(player)]\n"
    "  let top_card = top(table)\n  top_card.two = [c, drawn[player]]")


@pytest.mark.parametrize("rules", [NOTED, NOTED_FIELDS], ids=["vars", "fields"])
def test_python_and_c_search_the_same_closed_tree_over_words_naming_hidden_cards(tmp_path, rules):
    path = tmp_path / "noted.vbr"
    path.write_text(rules)
    py, c = load(path, {}, engine="python"), load(path, {}, engine="c")
    assert _same_visits(py, c, seeds=range(4), plies=1, iterations=60) >= 16
