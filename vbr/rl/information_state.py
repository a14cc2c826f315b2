"""Information states (perfect recall) for the OpenSpiel games: what one seat has seen and done.

A seat's information state is its action-observation history: the seat's *view* of the game at
the start and wherever a seat is to choose or the game ends, with its own choices between, each
view written as what changed since the previous one; a view that changes nothing adds nothing.
No view is taken at a draw, nor by a seat while another decides a choice it may pass
(vbr.engines.observation.passable_elsewhere): whether either comes at all may turn on hidden
things, and a view taken there would split what the seat sees next into two lines. Everything in
it is something the seat saw or did, so two histories the seat cannot tell apart give the same
sequence; and each earlier information state of the seat is a prefix of a later one (cut just
before the seat's own choice), which is perfect recall.

A *view* is what `State.observation` shows, made safe to remember: cards and pieces are written
by kind and fields, never by id (ids follow creation order, so an id would tell which of two
identical copies a hidden shuffle put where, or name a card lying face down), and a card the
seat cannot see (in a var, a list, a field or an option) is written `unseen`. A view holds:

- `phase` (`none` before the first phase and at the end), `to choose` (the seat asked to choose,
  `none` before the first choice and at the end: the observation tensor's "to choose" block) and `over` (the
  outcome, at the end);
- every var (`var NAME`), its value as text (cards as above; none as `none`);
- every zone (`zone NAME`): its contents in order when the seat may look in, else its size;
- when the seat itself is asked to choose: `choose` (the statement's line:column and prompt, cut as a
  game writes it: vbr.engines.events.cut) and
  `options` (each option as text, cards as above): the number of legal actions.

The string is its lines: `seat S` first, then one line per change of view (a JSON object of the
changed entries; an entry that disappeared is `null`) and one per own choice (`> I`, the index).
No game is known here: the views come from the declarations and the typed program's state.
"""
from __future__ import annotations

import json

import weakref

from vbr.engines.events import cut
from vbr.engines.observation import passable_elsewhere, public_zones
from vbr.ir.layout import Header as H
from vbr.ir.values import NONE, ROW
from vbr.rl.state_reader import reader


def view(st, seat: int | None, at_chance: bool, memo: dict | None = None) -> dict:
    """What `seat` sees of `st` (a typed game's decision state, end, or state stopped at a draw),
    flat: entry name -> text or list of texts; `seat` None: what a spectator sees (the public
    zones' contents). No card id appears. `memo`: the texts of things that read alike to every
    viewer (no thing in their fields), shared by the views of one state."""
    game, r = st.game, reader(st)
    p = game.program
    hidden = set(p.hidden[seat]) if seat is not None else set(range(len(p.names.zones))) - public_zones(game)
    show = _writer(st, r, hidden, {} if memo is None else memo)

    def shown_var(ty: str, v) -> str:
        """A var's value; none reads `none`, as in State.observation (`pass` is an option's)."""
        if ty.startswith("list:"):
            return "[" + ", ".join("none" if x == NONE else show(ty[5:], x) for x in v) + "]"
        return "none" if v == NONE else show(ty, v)

    chooser = None if at_chance else st.current_player()
    out = {"phase": "none" if st.phase is None else st.phase, "to choose": "none" if chooser is None else str(chooser)}
    if st.is_terminal():
        out["over"] = str(st.outcome())
    for slot, n in enumerate(game.var_names):
        out["var " + n] = shown_var(*r.raw_var(slot))
    for z, name in enumerate(p.names.zones):
        items = r.zone(z)
        out["zone " + name] = str(len(items)) if z in hidden else [show("ent", int(e)) for e in items]
    if seat is not None and chooser == seat:
        site = p.choices[int(st.words[H.SITE])]
        out["choose"] = f"{getattr(site.span, 'line', '?')}:{getattr(site.span, 'col', '?')} {cut(site.prompt)}"
        out["options"] = [show(site.item, int(v)) for v in st.options()]
    return out


def option_texts(st, seat: int) -> list[str]:
    """The pending choice's options as `seat`, the seat asked, sees them: as its view's `options`."""
    r = reader(st)
    show = _writer(st, r, set(st.game.program.hidden[seat]), {})
    item = st.game.program.choices[int(st.words[H.SITE])].item
    return [show(item, int(v)) for v in st.options()]


def _writer(st, r, hidden: set, memo: dict):
    """`show(type, value)`: a value as a view writes it, for a viewer who may not look into the
    zones `hidden`: a card by kind and fields (a card in a card's field by its kind only: no
    cycles), `unseen` where it lies in a zone of `hidden`; never by id."""
    p, words = st.game.program, st.words
    plans, width, fields_at = _plans(st.game), p.layout.width, p.layout.fields

    def thing(e: int) -> str:
        name, plan, nested = plans[r.kind[e]]
        if not nested and e in memo:
            return memo[e]
        at = fields_at + e * width
        shown = f"{name}(" + ", ".join(f"{n}={field(ty, at + off, listed)}" for n, off, ty, listed in plan) + ")"
        if not nested:
            memo[e] = shown
        return shown

    def field(ty: str, word: int, listed: bool) -> str:
        """A field's value as State.observation writes it (none as `none`), cards as above."""
        def one(v: int) -> str:
            return "none" if v == NONE else show(ty, v, 1)
        if listed:
            return "[" + ", ".join(one(int(x)) for x in words[word + 1:word + 1 + int(words[word])]) + "]"
        return one(int(words[word]))

    def show(ty: str, v: int, depth: int = 0) -> str:
        if ty.startswith("ent") and v != NONE:
            if r.where[v] in hidden:
                return "unseen"
            return plans[r.kind[v]][0] if depth else thing(v)
        if ty.startswith(ROW) and v != NONE:  # an item of a list of lists: that list
            return "[" + ", ".join(show(item, w, depth) for item, w in p.names.row(ty, v, words)) + "]"
        return p.names.text(ty, v)
    return show


_PLANS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _plans(game) -> list[tuple]:
    """Per kind: its name, its fields as (name, word within the thing, item type, is a list), and
    whether a field may hold a thing; worked out once per game."""
    plans = _PLANS.get(game)
    if plans is None:
        p, plans = game.program, []
        for k, (name, names, types) in enumerate(p.kinds):
            plan = [(n, p.field_at[(k, n)], t[5:] if t.startswith("list:") else t, t.startswith("list:"))
                    for n, t in zip(names, types)]
            plans.append((name, plan, any(t.startswith("ent") for _, _, t, _ in plan)))
        _PLANS[game] = plans
    return plans


def _diff(old: dict, new: dict) -> str | None:
    changed = {k: v for k, v in new.items() if old.get(k) != v}
    for k in old:
        if k not in new:
            changed[k] = None
    if not changed:
        return None
    return json.dumps(changed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Record:
    """Every seat's history so far: per seat, its lines as a chain of (earlier, line) pairs, which
    copies of a state share, and its last view. Immutable in use: `step` returns a new record."""

    __slots__ = ("chains", "last")

    def __init__(self, chains: list, last: list):
        self.chains, self.last = chains, last

    @classmethod
    def start(cls, pos) -> "Record":
        """The seats' first views: of the game as setup left it before its first draw (nothing
        hidden has happened yet), or at its first choice."""
        seats = pos.state.game.seats
        return cls([(None, f"seat {s}") for s in range(seats)], [{} for _ in range(seats)])._observe(pos, True)

    def step(self, pos, actor: int | None, action: int) -> "Record":
        """The record after `actor` (None for chance) took `action`, `pos` being where it led."""
        chains = self.chains[:]
        if actor is not None:
            chains[actor] = (chains[actor], f"> {action}")
        return Record(chains, self.last)._observe(pos)

    def _observe(self, pos, start: bool = False) -> "Record":
        """Each seat's view where `pos` stands, added when it changed. No view is taken at a draw
        after the start, nor by a seat while another decides a choice it may pass
        (observation.passable_elsewhere): whether either comes may turn on hidden things, and a
        view taken there would split what the seat sees next into two lines."""
        st, at_chance = pos.state, pos.need is not None
        if at_chance and not start:
            return self
        chains, last, memo = self.chains, self.last[:], {}
        for s in range(len(chains)):
            if not at_chance and passable_elsewhere(st.game, st.words, s):
                continue
            v = view(st, s, at_chance, memo)
            line = _diff(last[s], v)
            if line is not None:
                chains[s] = (chains[s], line)
                last[s] = v
        self.last = last
        return self

    def string(self, seat: int) -> str:
        lines = []
        node = self.chains[seat]
        while node is not None:
            node, line = node
            lines.append(line)
        lines.reverse()
        return "\n".join(lines)
