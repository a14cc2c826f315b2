"""What the RL encoders read of a typed game's state (python or c: the same words).

`reader(state)` gives a `TypedReader`, which decodes the words by the types the program gives
them: `None` for none, `True`/`False`, ints, an enum member or a direction as its name, a thing
as an `Ent` id, a zone as a `ZoneRef`, a court position as a `Cell`, a text as a str, a list as
a tuple.
"""
from __future__ import annotations

import weakref
from functools import cached_property

from vbr.engines.game import Game, State
from vbr.errors import UsageError
from vbr.values import Cell, Ent, ZoneRef
from vbr.ir.layout import CHOICE, OVER, Header as H
from vbr.ir.values import NONE, cell_xy


def reader(state) -> "TypedReader":
    """The Reader of a typed game's state (`vbr.engines.game.State`, python or c)."""
    return TypedReader(typed_state(state))


def typed_state(state):
    """`state` when it is a typed game's state, else a usage error saying what the RL adapters read."""
    if not isinstance(state, State):
        raise UsageError(f"vbr.rl reads a typed game's state (a `vbr.load(...)` game's, engine python or c), "
                         f"not a {type(state).__name__}")
    return state


def model_of(thing):
    """The checked model behind a typed game (`vbr.engines.game.Game`) or a typed game's state."""
    if isinstance(thing, Game):
        return thing.model
    return typed_state(thing).game.model


class TypedReader:
    """A typed game's state: its words decoded by the types the program gives them."""

    def __init__(self, state):
        self.game, self.words = state.game, state.words
        p = self.p = state.game.program
        self.lay = p.layout
        status = int(self.words[H.STATUS])
        self.chooser = int(self.words[H.SEAT]) if status == CHOICE else None
        self.phase = state.phase if status != OVER else None
        self._var_at = _var_words(state.game)

    @cached_property
    def where(self) -> list[int]:
        """Each thing's zone, by id."""
        at = self.lay.zone_of
        return [int(z) for z in self.words[at:at + int(self.words[H.THINGS])]]

    @cached_property
    def kind(self) -> list[int]:
        """Each thing's kind, by id."""
        at = self.lay.kinds
        return [int(k) for k in self.words[at:at + int(self.words[H.THINGS])]]

    def choice_key(self) -> tuple | None:
        span = self.span()
        return (span.file, span.line, span.col)

    def span(self):
        return self.p.choices[int(self.words[H.SITE])].span

    def prompt(self) -> str:
        return self.p.choices[int(self.words[H.SITE])].prompt

    def option_type(self) -> str:
        """The type of the pending choice's options (`seat`, `int`, `ent`, `enum:Move`, ...)."""
        return self.p.choices[int(self.words[H.SITE])].item

    def option_text(self, i: int) -> str:
        site = self.p.choices[int(self.words[H.SITE])]
        return self.p.names.text(site.item, int(self.words[self.lay.options + i]), self.words)

    def var(self, slot: int):
        word, ty, cap = self._var_at[slot]
        return self._value(ty, word, cap is not None)

    def attr(self, e: int, pos: int):
        p, k = self.p, self.kind[e]
        _, names, types = p.kinds[k]
        word = self.lay.fields + e * self.lay.width + p.field_at[(k, names[pos])]
        return self._value(types[pos], word, types[pos].startswith("list:"))

    def zone(self, z: int) -> list:
        at = self.lay.zone(z)
        return [Ent(int(e)) for e in self.words[at + 1:at + 1 + int(self.words[at])]]

    def options(self) -> list:
        """The pending choice's options, decoded; none when no seat is to choose (the words of
        the last choice's options stay in a state that is over: they are offered no more)."""
        if self.chooser is None:
            return []
        site = self.p.choices[int(self.words[H.SITE])]
        at = self.lay.options
        return [decode(self.p, site.item, int(v)) for v in self.words[at:at + int(self.words[H.NOPTS])]]

    def raw_var(self, slot: int) -> tuple[str, object]:
        """Var slot `slot` as the program holds it: (its type, its word), a list's words as a list."""
        word, ty, cap = self._var_at[slot]
        return ty, self._raw(word, cap is not None)

    def raw_attr(self, e: int, pos: int) -> tuple[str, object]:
        """Field number `pos` of thing `e` as the program holds it (as `raw_var`)."""
        p, k = self.p, self.kind[e]
        _, names, types = p.kinds[k]
        word = self.lay.fields + e * self.lay.width + p.field_at[(k, names[pos])]
        return types[pos], self._raw(word, types[pos].startswith("list:"))

    def _raw(self, word: int, listed: bool):
        if listed:
            return [int(x) for x in self.words[word + 1:word + 1 + int(self.words[word])]]
        return int(self.words[word])

    def _value(self, ty: str, word: int, listed: bool):
        if listed:
            items = self.words[word + 1:word + 1 + int(self.words[word])]
            return tuple(decode(self.p, ty[5:], int(x)) for x in items)
        return decode(self.p, ty, int(self.words[word]))


_VAR_WORDS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _var_words(game) -> dict:
    """Var slot -> (its word, its type, a list's capacity or None) in `game`'s states, worked
    out once per game."""
    known = _VAR_WORDS.get(game)
    if known is None:
        p, known = game.program, {}
        for name, v in game.model.vars.items():
            for i in range(v.count):
                if v.type.startswith("list:"):
                    at, cap = p.list_vars[name]
                    known[v.base + i] = (p.layout.vars + at + i * (1 + cap), v.type, cap)
                else:
                    known[v.base + i] = (p.layout.vars + v.base + i, v.type, None)
        _VAR_WORDS[game] = known
    return known


def decode(program, ty: str, v: int):
    """Typed value `v` of type `ty` decoded (see the module's docstring)."""
    if v == NONE:
        return None
    if ty == "bool":
        return bool(v)
    if ty.startswith("enum:"):
        return program.names.enums[ty[5:]][v]
    if ty == "dir":
        return program.names.directions[v]
    if ty.startswith("ent"):
        return Ent(v)
    if ty == "zone":
        return ZoneRef(v)
    if ty == "cell":
        return Cell(*cell_xy(v))
    if ty == "str":
        return program.names.texts[v]
    return v
