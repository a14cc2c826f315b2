"""clone and determinize are cheap (shared field tuples, a generator copied at its first draw) and
still give independent states that draw exactly what an eager copy would."""
import random

from vbr.interpreter import rng as R
from vbr.interpreter.game import load


def _play(st, n, seed):
    r = random.Random(seed)
    for _ in range(n):
        if st.result is not None:
            break
        st.apply_index(r.randrange(len(st.pending.options)))
    return st


def _draws(st, n=5):
    return [st.rng.getrandbits(64) for _ in range(n)]


def test_clones_draw_what_eager_copies_draw_in_any_order():
    st = _play(load("siatka").new_state(4), 10, 1)
    expected = _draws(st.clone(rng=R.copy(st.rng)))
    a, b = st.clone(), st.clone()
    c = a.clone()
    # the original, its clones and a clone of a clone each draw the same numbers, whoever goes first
    assert _draws(b) == expected
    assert _draws(st) == expected
    assert _draws(c) == expected
    assert _draws(a) == expected
    assert _draws(st) != expected  # and each goes on along its own copy


def test_a_clone_given_up_before_drawing_leaves_the_generator_to_the_others():
    st = _play(load("siatka").new_state(4), 10, 1)
    expected = _draws(st.clone(rng=R.copy(st.rng)))
    for _ in range(3):
        st.clone()  # dropped at once
    assert _draws(st) == expected
    assert type(st.rng) is random.Random  # taken over, not copied, once no clone is left


def test_cloned_games_play_on_like_the_original():
    game = load("volleyball-high")
    st = _play(game.new_state(2), 30, 3)
    twin = _play(game.new_state(2), 30, 3)
    c = st.clone()
    _play(c, 10_000, 9)
    _play(twin, 10_000, 9)
    _play(st, 10_000, 9)
    for s in (c, st):
        assert (s.vals, s.zones, s.ent, s.where, s.choices) == (twin.vals, twin.zones, twin.ent, twin.where, twin.choices)
        assert s.audit() == []


def test_a_field_set_in_a_clone_stays_in_the_clone():
    game = load("tanto-cuore-beach-volleyball")
    st = _play(game.new_state(1), 20, 2)
    before = list(st.ent)
    c = st.clone()
    e = next(i for i, a in enumerate(c.ent) if a)
    c.set_attr(e, 0, "changed")
    assert c.ent[e][0] == "changed" and st.ent == before


def test_determinize_deals_the_same_worlds_as_the_pooled_shuffle():
    """The per-zone fast path of determinize gives the worlds of the plain algorithm: pool the
    hidden things by (kind, side), shuffle each pool, deal back from its end in place order."""
    def reference(st, seat, seed):
        c = st.clone(rng=R.stream(seed))
        pools, slots = {}, []
        for z in st.hidden_zones(seat):
            for i, e in enumerate(c.zones[z]):
                key = (c.kind[e], st.prog.zone_sides()[z])
                pools.setdefault(key, []).append(e)
                slots.append((z, i, key))
        for items in pools.values():
            for i in range(len(items) - 1, 0, -1):
                j = R.below(c.rng, i + 1)
                items[i], items[j] = items[j], items[i]
        for z, i, key in slots:
            e = pools[key].pop()
            c.zones[z][i] = e
            c.where[e] = z
        return c

    for name in ("siatka", "cattack"):
        st = _play(load(name).new_state(6), 12, 5)
        mixed = st.clone()  # a zone holding things of two kinds takes the general path
        for z in mixed.hidden_zones(0):
            for e in mixed.zones[z][::3]:
                mixed.kind[e] = 99
        for s in (st, mixed):
            for seat in range(st.prog.seats):
                for seed in range(4):
                    a, b = s.determinize(seat, seed), reference(s, seat, seed)
                    assert (a.zones, a.where) == (b.zones, b.where)
                    assert a.rng.getstate() == b.rng.getstate()
                    assert a.audit() == []


def test_generator_is_random_Random():
    for x in (0, 1, 2**64 - 1, 12345):
        assert R.generator(x).getstate() == random.Random(x).getstate()
