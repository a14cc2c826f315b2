"""What a seat may know of a typed game's state: `State.observation(seat)`.

`observation(game, words, seat)` reads the state's words (either engine's: the same words) and
the program's tables: the phase, every var (a var kept per seat or team as one entry per slot,
`score[0]`), the contents of each zone the seat may look into (each thing as `#e Kind(field=...)`)
and the size of each other zone, and, when the seat is to choose, the choice's prompt (cut, as a
game writes it: vbr.engines.events.cut) and its options. A thing lying in a zone the seat may not
look into reads `hidden`, wherever it is named (a var, a list, an option, a field of a thing it
sees): ids follow creation order, so an id would name the card. A var or field that holds none reads `none`.
`public_view(game, words)` is what a spectator sees: the vars, the public zones' things, the
other zones' sizes; a thing outside the public zones reads `hidden` there too.
`passable_elsewhere(game, words, seat)` says when even *that* a choice is asked is not for `seat`
to know: another seat's choice it may pass.
"""
from __future__ import annotations

from vbr.engines.events import EventLog, cut
from vbr.ir.build_expr import item_type
from vbr.ir.layout import CHOICE, Header as H
from vbr.ir.values import NONE


def observation(game, words, seat: int, phase: str | None) -> dict:
    """The dict `State.observation(seat)` gives (see the module's docstring); `phase`, the
    phase being played (`State.phase`)."""
    p, lay = game.program, game.program.layout
    hidden = set(p.hidden[seat])

    def seen(ty: str, v: int) -> str:
        if ty.startswith("ent") and v != NONE and int(words[lay.zone_of + v]) in hidden:
            return "hidden"
        return p.names.text(ty, v, words)

    obs = {"phase": phase, "vars": _vars(game, words, seen),
           "zones": _zones(game, words, lambda z: z not in hidden, seen)}
    if int(words[H.STATUS]) == CHOICE and int(words[H.SEAT]) == seat:
        site = p.choices[int(words[H.SITE])]
        obs["prompt"] = cut(site.prompt)  # as a game writes it (a log's choice, `vbr run`)
        obs["legal"] = [seen(site.item, int(words[lay.options + i])) for i in range(int(words[H.NOPTS]))]
    return obs


def passable_elsewhere(game, words, seat: int) -> bool:
    """Whether the pending choice is another seat's that offers `pass`. Such a choice is asked
    only when there is something to choose (`optional` skips itself when nothing but `pass` is
    left), and what there is may turn on what `seat` may not see (a `where` over a hidden hand):
    passed, it leaves nothing `seat` sees, so `seat` must not learn it was asked, as no player
    sees another's silent decision not to play a card. Any such choice counts, also one over
    public things, since its `where` may read a hidden zone."""
    if int(words[H.STATUS]) != CHOICE or int(words[H.SEAT]) == seat:
        return False
    at = game.program.layout.options
    return any(int(v) == NONE for v in words[at:at + int(words[H.NOPTS])])


def _vars(game, words, text) -> dict:
    """Each var's value as text (`text(type, value)`), a var kept per seat or team one entry per
    slot; an unset var, or a none in a list, reads `none` (`pass` is an option's text, the none a
    choice may offer)."""
    p, lay, shown = game.program, game.program.layout, {}

    def seen(ty: str, v: int) -> str:
        return "none" if v == NONE else text(ty, v)
    for name, v in game.model.vars.items():
        for i in range(v.count):
            label = f"{name}[{i}]" if v.per else name
            if v.type.startswith("list:"):
                at, cap = p.list_vars[name]
                word = lay.vars + at + i * (1 + cap)
                items = words[word + 1:word + 1 + int(words[word])]
                shown[label] = "[" + ", ".join(seen(item_type(v.type), int(x)) for x in items) + "]"
            else:
                shown[label] = seen(v.type, int(words[lay.vars + v.base + i]))
    return shown


def public_view(game, words) -> dict:
    """What a spectator sees: every var as text (as `vbr run` would write it), the things of
    each public zone and the size of every other zone."""
    p, public = game.program, public_zones(game)
    lay = p.layout

    def seen(ty: str, v: int) -> str:
        if ty.startswith("ent") and v != NONE and int(words[lay.zone_of + v]) not in public:
            return "hidden"
        return p.names.text(ty, v, words)

    return {"vars": _vars(game, words, seen), "zones": _zones(game, words, public.__contains__, seen)}


def public_zones(game) -> set[int]:
    """The zones every seat may look into (declared `public`), by index."""
    return {i for z in game.model.zones.values() if z.decl.visibility == "public" for i in range(z.base, z.base + z.count)}


def full_view(game, words) -> dict:
    """Everything in the state: every var as text and every zone's things described."""
    return {"vars": _vars(game, words, game.program.names.text), "zones": _zones(game, words, lambda z: True)}


def _zones(game, words, shown, seen=None) -> dict:
    """Each zone by name: its things described when `shown(zone)`, else how many it holds; a
    field's value as `seen(type, value)` writes it (so a field naming a thing the viewer may not
    see reads `hidden`, not its id), none as `none`."""
    p, lay = game.program, game.program.layout
    thing = EventLog(p, []).thing
    text = None if seen is None else (lambda ty, v: "none" if v == NONE else seen(ty, v))
    zones: dict = {}
    for z, name in enumerate(p.names.zones):
        at = lay.zone(z)
        items = [int(e) for e in words[at + 1:at + 1 + int(words[at])]]
        zones[name] = [thing(words, e, text) for e in items] if shown(z) else len(items)
    return zones
