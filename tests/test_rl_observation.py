"""Observations as tensors (vbr/rl/observation.py): fixed shape, bounds, and hidden information.

A seat's tensor must hold what that seat may see and nothing else: re-dealing what it cannot see
(State.determinize, or a card swapped between two zones hidden from it) leaves its tensor as it
was, while a change it could see (a card's face in its own hand or a public zone, the size of any
zone) changes it."""
from __future__ import annotations

import random
import sys

import numpy as np
import pytest

import vbr
import vbr.rl
from vbr.errors import UsageError
from vbr.rl.observation import EncodingError, encoding, observation_tensor
from vbr.rl.state_reader import reader

CONFIGS = [("siatka", {}), ("cattack", {"players": 4}), ("cattack", {"players": 2}),
           ("tanto-cuore-beach-volleyball", {}), ("volleyball-high", {"mode": "1v1"}),
           ("volleyball-high", {"mode": "2v2"})]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}" for n, o in CONFIGS]


def _states(game, seed: int, every: int = 1):
    """The states of one seeded game of random choices (every `every`-th of them)."""
    st = game.new_state(seed)
    rng = random.Random(seed)
    i = 0
    while not st.is_terminal():
        if i % every == 0:
            yield st
        st.apply_index(rng.randrange(len(st.options())))
        i += 1
    yield st


# A typed state's words (vbr/ir/layout.py): a thing's kind, zone and fields at fixed places, a
# zone a count then its things from the bottom up.
def _zone(st, z) -> list[int]:
    return [int(e) for e in reader(st).zone(z)]


def _set_zone(st, z, things) -> None:
    at = st.game.program.layout.zone(z)
    st.words[at] = len(things)
    for i, e in enumerate(things):
        st.words[at + 1 + i] = e
        st.words[st.game.program.layout.zone_of + e] = z


def _hidden(st, seat) -> set[int]:
    return set(st.game.program.hidden[seat])


def _faces(st, e) -> list:
    r = reader(st)
    return [r.raw_attr(e, i) for i in range(len(st.game.program.kinds[r.kind[e]][1]))]


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_shape_is_fixed_and_values_stay_in_the_declared_bounds(name, options):
    game = vbr.load(name, options, engine="python")
    enc = encoding(game)
    for st in _states(game, seed=3):
        for seat in range(game.seats):
            x = observation_tensor(st, seat)
            assert x.shape == enc.shape and x.dtype == np.float32
            assert np.all(x >= enc.low) and np.all(x <= enc.high)
            assert x[seat] == 1 and x[:game.seats].sum() == 1  # the observer's one-hot comes first


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_redealing_what_a_seat_cannot_see_never_changes_its_tensor(name, options):
    game = vbr.load(name, options, engine="python")
    others_changed = 0
    for k, st in enumerate(_states(game, seed=5, every=3)):
        for seat in range(game.seats):
            dealt = st.determinize(seat, seed=k)
            assert np.array_equal(observation_tensor(dealt, seat), observation_tensor(st, seat))
            others_changed += any(not np.array_equal(observation_tensor(dealt, o), observation_tensor(st, o))
                                  for o in range(game.seats) if o != seat)
    # not vacuous: the re-deals did change what some other seat sees (its own hand, say)
    assert others_changed > 0


def _swap_between_hidden_zones(st, seat):
    """A copy of st with two cards of different faces swapped between two zones that `seat`
    cannot see (an opponent's hand and a face-down deck, say), or None if there is no such pair."""
    hidden, kind = sorted(_hidden(st, seat)), reader(st).kind
    for a in hidden:
        for b in hidden:
            if a >= b:
                continue
            for i, e1 in enumerate(_zone(st, a)):
                for j, e2 in enumerate(_zone(st, b)):
                    if kind[e1] == kind[e2] and _faces(st, e1) != _faces(st, e2):
                        c = st.clone()
                        za, zb = _zone(st, a), _zone(st, b)
                        za[i], zb[j] = e2, e1
                        _set_zone(c, a, za)
                        _set_zone(c, b, zb)
                        return c, (a, b)
    return None


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_a_card_swapped_between_hidden_zones_changes_only_the_tensors_of_seats_that_see_them(name, options):
    game = vbr.load(name, options, engine="python")
    zones = game.program.names.zones
    swaps = 0
    for st in _states(game, seed=11, every=4):
        for seat in range(game.seats):
            found = _swap_between_hidden_zones(st, seat)
            if found is None:
                continue
            c, (a, b) = found
            swaps += 1
            assert np.array_equal(observation_tensor(c, seat), observation_tensor(st, seat))
            for o in range(game.seats):
                if a not in _hidden(st, o) or b not in _hidden(st, o):  # the owner of the hand sees its card change
                    assert not np.array_equal(observation_tensor(c, o), observation_tensor(st, o)), \
                        (zones[a], zones[b], o)
    assert swaps > 0  # every bundled game has hands and decks hidden from the opponents


def _field_change(st, seat):
    """A copy of st in which one card the seat can see shows another face: an enum or bool
    field set to another value."""
    p, r = st.game.program, reader(st)
    lay = p.layout
    for z in range(len(p.names.zones)):
        if z in _hidden(st, seat):
            continue
        for e in _zone(st, z):
            kind, names, types = p.kinds[r.kind[e]]
            for name, t in zip(names, types):
                if t == "bool":
                    choices = 2
                elif t.startswith("enum:"):
                    choices = len(p.names.enums[t[5:]])
                else:
                    continue
                if choices < 2:
                    continue
                word = lay.fields + e * lay.width + p.field_at[(r.kind[e], name)]
                c = st.clone()
                c.words[word] = (int(st.words[word]) + 1) % choices if int(st.words[word]) >= 0 else 0
                return c, p.names.zones[z]
    return None


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_a_change_the_seat_can_see_changes_its_tensor(name, options):
    game = vbr.load(name, options, engine="python")
    checked = 0
    for st in _states(game, seed=2, every=5):
        for seat in range(game.seats):
            found = _field_change(st, seat)
            if found is not None:
                c, zone = found
                assert not np.array_equal(observation_tensor(c, seat), observation_tensor(st, seat)), zone
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_the_size_of_a_hidden_zone_is_seen_by_every_seat(name, options):
    game = vbr.load(name, options, engine="python")
    st = game.new_state(1)
    zones = game.program.names.zones
    for seat in range(game.seats):
        hidden = [z for z in sorted(_hidden(st, seat)) if _zone(st, z)]
        assert hidden, "every bundled game hides some non-empty zone from every seat at the start"
        z = hidden[0]
        c = st.clone()
        *rest, e = _zone(st, z)
        target = next(t for t in range(len(zones)) if t != z)
        _set_zone(c, z, rest)  # one card fewer there: the size is public (docs/language.md, `zone`)
        _set_zone(c, target, [*_zone(st, target), e])
        enc = encoding(game)
        size_at = next(off for name, off, _ in enc.layout if name == f"zone {zones[z]} size")
        x, y = observation_tensor(st, seat), observation_tensor(c, seat)
        assert x[size_at] == len(rest) + 1 and y[size_at] == len(rest)


def test_a_ranged_var_is_scaled_by_its_declared_range():
    # volleyball-high: `var synergy: int per team = 0 range 0..4 wrap 1`: 2 lies halfway
    game = vbr.load("volleyball-high", {"mode": "1v1"}, engine="python")
    st = game.new_state(0)
    word = game.program.layout.vars + game.model.vars["synergy"].base + 1  # its slot for team 1
    st.words[word] = 2
    enc = encoding(game)
    off = next(off for name, off, _ in enc.layout if name == "var synergy[1]")
    assert observation_tensor(st, 0)[off] == pytest.approx(0.5)
    st.words[word] = 4
    assert observation_tensor(st, 0)[off] == pytest.approx(1.0)


def test_the_ball_is_one_hot_on_the_court_plane_at_its_cell():
    from vbr.court import court_of
    from vbr.ir.values import cell as cell_word
    game = vbr.load("siatka", engine="python")
    st = game.new_state(0)
    court = court_of(game.model.court)
    cell = court.field(1, 3)  # side 1's field 3, in global coordinates (x across, y from side 0's baseline)
    st.words[game.program.layout.vars + game.model.vars["ball"].base] = cell_word(*cell)
    enc = encoding(game)
    name, off, size = next(b for b in enc.layout if b[0].startswith("var ball"))
    plane = observation_tensor(st, 0)[off:off + size]
    assert size == court.height * court.cols + 2 * len(court.spaces) + 1
    assert plane.sum() == 1 and plane[cell[1] * court.cols + cell[0]] == 1


def test_the_choice_point_is_shown_only_to_the_seat_that_chooses():
    game = vbr.load("siatka", engine="python")
    st = game.new_state(0)
    enc = encoding(game)
    chooser = st.current_player()
    block = slice(enc.off_choice, enc.off_choice + len(enc.choice_index))
    assert observation_tensor(st, chooser)[block].sum() == 1
    assert observation_tensor(st, 1 - chooser)[block].sum() == 0
    turn = slice(enc.off_turn, enc.off_turn + game.seats)  # whose turn it is is public
    assert observation_tensor(st, 1 - chooser)[turn].tolist() == [1.0 if s == chooser else 0.0 for s in range(2)]


@pytest.mark.parametrize("seat", [2, -1, "0", None, True])
def test_a_seat_that_does_not_exist_is_a_usage_error(seat):
    st = vbr.load("siatka", engine="python").new_state(0)
    with pytest.raises(UsageError, match="does not exist: 'Siatka' has seats 0..1"):
        vbr.rl.observation_tensor(st, seat)


def test_a_game_in_place_of_a_state_is_a_usage_error():
    game = vbr.load("siatka", engine="python")
    with pytest.raises(UsageError, match=r"vbr.rl reads a typed game's state \(.*\), not a Game"):
        vbr.rl.observation_tensor(game, 0)


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_the_python_and_c_engines_give_every_seat_the_same_tensor(name, options):
    python, c = (vbr.load(name, options, engine=e) for e in ("python", "c"))
    assert vbr.rl.observation_shape(python) == vbr.rl.observation_shape(c)
    played = 0
    for a, b in zip(_states(python, seed=6, every=3), _states(c, seed=6, every=3), strict=True):
        for seat in range(python.seats):
            assert np.array_equal(observation_tensor(a, seat), observation_tensor(b, seat))
        played += 1
    assert played > 1


UNENCODABLE = """game "Paths"
seats 2
start play
kind Token { steps: list of cell }
zone pile public
zone stash public
var held: Token = none
var trail: list of cell = []
phase play {
  end draw
}
"""


def test_a_rule_file_that_cannot_be_encoded_is_an_error_naming_the_construct(tmp_path):
    path = tmp_path / "paths.vbr"
    path.write_text(UNENCODABLE)
    game = vbr.load(path, engine="python")  # a good rule file: only its tensor is impossible
    with pytest.raises(EncodingError) as info:
        vbr.rl.observation_shape(game)
    message = str(info.value)
    assert "paths.vbr:4:14: error: observations cannot be encoded: field `Token.steps` is a list of cell" in message
    assert "paths.vbr:8:1: error: observations cannot be encoded: var `trail` is a list of cell" in message
    # the field is met in two zones and a var, and reported once
    assert message.count("error:") == 2


def test_without_the_rl_extra_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # as if numpy were not installed
    st = vbr.load("siatka", engine="python").new_state(0)
    with pytest.raises(UsageError, match=r"pip install 'vbr\[rl\]'"):
        vbr.rl.observation_tensor(st, 0)


def _python_blocks(doc):
    import re
    return re.findall(r"^```python\n(.*?)^```", doc.read_text(encoding="utf-8"), flags=re.M | re.S)


def test_every_python_example_in_docs_rl_runs(capsys):
    from pathlib import Path
    doc = Path(__file__).resolve().parent.parent / "docs" / "rl.md"
    examples = _python_blocks(doc)
    assert len(examples) == 4  # PettingZoo, its global state, OpenSpiel, observations
    for i, code in enumerate(examples):
        exec(compile(code, f"{doc}:example {i + 1}", "exec"), {})
    assert "seat (the observer, one-hot)" in capsys.readouterr().out


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_each_options_row_says_what_that_option_is_to_the_chooser_alone(name, options):
    from vbr.values import Cell, Ent
    from vbr.rl.observation import option_features
    game = vbr.load(name, options, engine="python")
    enc = encoding(game)
    off = {block: at for block, at, _ in enc.option_layout()}
    n_actions = 80  # more than any choice of the bundled games offers
    for st in _states(game, seed=4, every=2):
        if st.is_terminal():
            continue
        r = reader(st)
        chooser, options = r.chooser, r.options()
        rows = option_features(st, chooser, n_actions)
        assert rows.shape == (n_actions, enc.option_size)
        assert not rows[len(options):].any()
        for other in range(game.seats):
            if other != chooser:
                assert not option_features(st, other, n_actions).any()
        for i, v in enumerate(options):
            row = rows[i]
            if v is None:
                assert row[off["pass"]] == 1 and row.sum() == 1
            elif isinstance(v, Ent):
                if r.where[v] in _hidden(st, chooser):  # the option's text, #id, says no more
                    assert row[off["card or piece: unseen"]] == 1 and row.sum() == 1
                else:
                    assert row[off["card or piece: kind (one-hot)"] + r.kind[v]] == 1
                    assert row[off["card or piece: the zone it lies in (one-hot)"] + r.where[v]] == 1
            elif isinstance(v, Cell):
                assert row[off["cell (court place, one-hot)"] + enc._place(v)] == 1 and row.sum() == 1
            elif isinstance(v, str) and v in game.program.names.directions:
                assert row[off["direction (one-hot)"] + game.program.names.directions.index(v)] == 1
            elif isinstance(v, bool):
                assert row[off["false, true"] + int(v)] == 1
            elif isinstance(v, int) and r.option_type() == "seat":
                assert row[off["seat (one-hot)"] + v] == 1 and row.sum() == 1
            elif isinstance(v, int):
                assert row[off["number (its value, then 1)"]:off["number (its value, then 1)"] + 2].tolist() == [v, 1]
            assert row.any()  # an offered option's row is never that of an action not offered
        # what the chooser cannot see stays unseen: a re-deal of it leaves the rows as they were
        dealt = st.determinize(chooser, seed=1)
        assert np.array_equal(option_features(dealt, chooser, n_actions), rows)


def test_the_observer_is_part_of_the_tensor():
    st = vbr.load("siatka", engine="python").new_state(4)
    assert not np.array_equal(observation_tensor(st, 0), observation_tensor(st, 1))


def test_the_sizes_docs_rl_lists_for_the_bundled_games_are_theirs():
    # docs/rl.md, "Sizes of the bundled games": a researcher sizes a network from this table
    import re
    from conftest import ROOT
    doc = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    table = doc.split("### Sizes of the bundled games", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| ([A-Z][^|]*?) \| (\d+) \| (\d+) \|$", table, re.M)
    names = {"Siatka": "siatka", "Cattack": "cattack", "Tanto Cuore": "tanto-cuore-beach-volleyball",
             "Volleyball High": "volleyball-high"}
    seen = []
    for label, size, actions in rows:
        title, _, option = label.partition(", ")
        options = dict([option.strip("`").split("=")]) if option else {}
        game = vbr.load(names[title], options, engine="python")
        seen.append((names[title], options))
        assert (vbr.rl.observation_shape(game), vbr.rl.pettingzoo_env(game).max_actions) == ((int(size),), int(actions)), label
    assert sorted(seen, key=str) == sorted(((n, {k: str(v) for k, v in o.items()}) for n, o in CONFIGS), key=str)
