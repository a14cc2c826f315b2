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
        st.apply_index(rng.randrange(len(st.pending.options)))
        i += 1
    yield st


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_shape_is_fixed_and_values_stay_in_the_declared_bounds(name, options):
    game = vbr.load(name, options, engine="closure")
    enc = encoding(game.program)
    for st in _states(game, seed=3):
        for seat in range(game.seats):
            x = observation_tensor(st, seat)
            assert x.shape == enc.shape and x.dtype == np.float32
            assert np.all(x >= enc.low) and np.all(x <= enc.high)
            assert x[seat] == 1 and x[:game.seats].sum() == 1  # the observer's one-hot comes first


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_redealing_what_a_seat_cannot_see_never_changes_its_tensor(name, options):
    game = vbr.load(name, options, engine="closure")
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
    hidden = st.hidden_zones(seat)
    for a in hidden:
        for b in hidden:
            if a >= b:
                continue
            for i, e1 in enumerate(st.zones[a]):
                for j, e2 in enumerate(st.zones[b]):
                    if st.kind[e1] == st.kind[e2] and st.ent[e1] != st.ent[e2]:
                        c = st.clone()
                        c.zones[a][i], c.zones[b][j] = e2, e1
                        c.where[e1], c.where[e2] = b, a
                        assert c.audit() == []
                        return c, (a, b)
    return None


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_a_card_swapped_between_hidden_zones_changes_only_the_tensors_of_seats_that_see_them(name, options):
    game = vbr.load(name, options, engine="closure")
    prog = game.program
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
                if st.visible(a, o) or st.visible(b, o):  # the owner of the hand sees its card change
                    assert not np.array_equal(observation_tensor(c, o), observation_tensor(st, o)), \
                        (prog.zone_names[a], prog.zone_names[b], o)
    assert swaps > 0  # every bundled game has hands and decks hidden from the opponents


def _field_change(st, seat):
    """A copy of st in which one card the seat can see shows another face: an enum or bool
    field set to another value."""
    prog = st.prog
    m = prog.model
    kinds = list(m.kinds.values())
    for z in range(len(st.zones)):
        if not st.visible(z, seat):
            continue
        for e in st.zones[z]:
            for fname, (pos, t) in kinds[st.kind[e]].fields.items():
                v = st.ent[e][pos]
                if t == "bool":
                    new = not v
                elif t.startswith("enum:"):
                    members = m.enums[t[5:]]
                    new = members[(members.index(v) + 1) % len(members)] if v in members else members[0]
                    if new == v:
                        continue
                else:
                    continue
                c = st.clone()
                c.set_attr(e, pos, new)
                return c, prog.zone_names[z]
    return None


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_a_change_the_seat_can_see_changes_its_tensor(name, options):
    game = vbr.load(name, options, engine="closure")
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
    game = vbr.load(name, options, engine="closure")
    st = game.new_state(1)
    for seat in range(game.seats):
        hidden = [z for z in st.hidden_zones(seat) if st.zones[z]]
        assert hidden, "every bundled game hides some non-empty zone from every seat at the start"
        z = hidden[0]
        c = st.clone()
        e = c.zones[z][-1]
        target = next(t for t in range(len(c.zones)) if t != z)
        c.move(e, target)  # one card fewer there: the size is public (docs/language.md, `zone`)
        enc = encoding(game.program)
        size_at = next(off for name, off, _ in enc.layout if name == f"zone {game.program.zone_names[z]} size")
        x, y = observation_tensor(st, seat), observation_tensor(c, seat)
        assert x[size_at] == len(st.zones[z]) and y[size_at] == len(st.zones[z]) - 1


def test_a_ranged_var_is_scaled_by_its_declared_range():
    # volleyball-high: `var synergy: int per team = 0 range 0..4 wrap 1`: 2 lies halfway
    game = vbr.load("volleyball-high", {"mode": "1v1"}, engine="closure")
    st = game.new_state(0)
    slot = game.program.var_names.index("synergy[1]")
    st.vals[slot] = 2
    enc = encoding(game.program)
    off = next(off for name, off, _ in enc.layout if name == "var synergy[1]")
    assert observation_tensor(st, 0)[off] == pytest.approx(0.5)
    st.vals[slot] = 4
    assert observation_tensor(st, 0)[off] == pytest.approx(1.0)


def test_the_ball_is_one_hot_on_the_court_plane_at_its_cell():
    game = vbr.load("siatka", engine="closure")
    prog = game.program
    st = game.new_state(0)
    court = prog.court
    cell = court.field(1, 3)  # side 1's field 3, in global coordinates (x across, y from side 0's baseline)
    st.vals[prog.var_names.index("ball")] = cell
    enc = encoding(prog)
    name, off, size = next(b for b in enc.layout if b[0].startswith("var ball"))
    plane = observation_tensor(st, 0)[off:off + size]
    assert size == court.height * court.cols + 2 * len(court.spaces) + 1
    assert plane.sum() == 1 and plane[cell[1] * court.cols + cell[0]] == 1


def test_the_choice_point_is_shown_only_to_the_seat_that_chooses():
    game = vbr.load("siatka", engine="closure")
    st = game.new_state(0)
    enc = encoding(game.program)
    chooser = st.pending.seat
    block = slice(enc.off_choice, enc.off_choice + len(enc.choice_index))
    assert observation_tensor(st, chooser)[block].sum() == 1
    assert observation_tensor(st, 1 - chooser)[block].sum() == 0
    turn = slice(enc.off_turn, enc.off_turn + game.seats)  # whose turn it is is public
    assert observation_tensor(st, 1 - chooser)[turn].tolist() == [1.0 if s == chooser else 0.0 for s in range(2)]


@pytest.mark.parametrize("seat", [2, -1, "0", None, True])
def test_a_seat_that_does_not_exist_is_a_usage_error(seat):
    st = vbr.load("siatka", engine="closure").new_state(0)
    with pytest.raises(UsageError, match="does not exist: 'Siatka' has seats 0..1"):
        vbr.rl.observation_tensor(st, seat)


UNENCODABLE = """game "Paths"
seats 2
start play
kind Token { steps: list of cell }
zone pile public
zone stash public
var held: Token = none
var trail: list of cell = none
phase play {
  end draw
}
"""


def test_a_rule_file_that_cannot_be_encoded_is_an_error_naming_the_construct(tmp_path):
    path = tmp_path / "paths.vbr"
    path.write_text(UNENCODABLE)
    game = vbr.load(path, engine="closure")  # a good rule file: only its tensor is impossible
    with pytest.raises(EncodingError) as info:
        vbr.rl.observation_shape(game)
    message = str(info.value)
    assert "paths.vbr:4:14: error: observations cannot be encoded: field `Token.steps` is a list of cell" in message
    assert "paths.vbr:8:1: error: observations cannot be encoded: var `trail` is a list of cell" in message
    # the field is met in two zones and a var, and reported once
    assert message.count("error:") == 2


def test_without_the_rl_extra_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # as if numpy were not installed
    st = vbr.load("siatka", engine="closure").new_state(0)
    with pytest.raises(UsageError, match=r"pip install 'vbr\[rl\]'"):
        vbr.rl.observation_tensor(st, 0)


def _python_blocks(doc):
    import re
    return re.findall(r"^```python\n(.*?)^```", doc.read_text(encoding="utf-8"), flags=re.M | re.S)


def test_every_python_example_in_docs_rl_runs(capsys):
    from pathlib import Path
    doc = Path(__file__).resolve().parent.parent / "docs" / "rl.md"
    examples = _python_blocks(doc)
    assert len(examples) == 3  # PettingZoo, OpenSpiel, observations
    for i, code in enumerate(examples):
        exec(compile(code, f"{doc}:example {i + 1}", "exec"), {})
    assert "seat (the observer, one-hot)" in capsys.readouterr().out


@pytest.mark.parametrize("name,options", CONFIGS, ids=IDS)
def test_each_options_row_says_what_that_option_is_to_the_chooser_alone(name, options):
    from vbr.interpreter.values import Cell, Ent
    from vbr.rl.observation import option_features
    game = vbr.load(name, options, engine="closure")
    enc = encoding(game.program)
    off = {block: at for block, at, _ in enc.option_layout()}
    n_actions = 80  # more than any choice of the bundled games offers
    for st in _states(game, seed=4, every=2):
        if st.is_terminal():
            continue
        chooser = st.pending.seat
        rows = option_features(st, chooser, n_actions)
        assert rows.shape == (n_actions, enc.option_size)
        assert not rows[len(st.pending.options):].any()
        for other in range(game.seats):
            if other != chooser:
                assert not option_features(st, other, n_actions).any()
        for i, v in enumerate(st.pending.options):
            row = rows[i]
            if v is None:
                assert row[off["pass"]] == 1 and row.sum() == 1
            elif isinstance(v, Ent):
                if st.where[v] in st.hidden_zones(chooser):  # the option's text, #id, says no more
                    assert row[off["card or piece: unseen"]] == 1 and row.sum() == 1
                else:
                    assert row[off["card or piece: kind (one-hot)"] + st.kind[v]] == 1
                    assert row[off["card or piece: the zone it lies in (one-hot)"] + st.where[v]] == 1
            elif isinstance(v, Cell):
                assert row[off["cell (court place, one-hot)"] + enc._place(v)] == 1 and row.sum() == 1
            elif isinstance(v, str) and v in game.program.dir_vec:
                assert row[off["direction (one-hot)"] + list(game.program.dir_vec).index(v)] == 1
            elif isinstance(v, bool):
                assert row[off["false, true"] + int(v)] == 1
            elif isinstance(v, int):
                assert row[off["number"]] == v
        # what the chooser cannot see stays unseen: a re-deal of it leaves the rows as they were
        dealt = st.determinize(chooser, seed=1)
        assert np.array_equal(option_features(dealt, chooser, n_actions), rows)


def test_the_observer_is_part_of_the_tensor():
    st = vbr.load("siatka", engine="closure").new_state(4)
    assert not np.array_equal(observation_tensor(st, 0), observation_tensor(st, 1))
