"""Observations as tensors: one fixed-shape float vector per seat, derived from the declarations.

The layout is worked out once per checked rule file (`Encoding`), from the seats, phases, `choose`
statements, vars, court, kinds and zones the rule file declares; no game is known here. A seat's
vector holds only what that seat may see (`State.observation` is the reference): every var, the
size of every zone, the contents of the zones it may see, and the court positions of the pieces
in those zones. docs/rl.md lists the blocks in order. The referee's encoding (`referee=True`) is
the same layout seen by no seat and hiding nothing: no observer block, and every zone's contents:
the global state of centralised training.

    enc = encoding(game)                     # a typed game (python or c) or its state
    x = observation_tensor(state, seat)      # numpy float32, shape enc.shape
    enc.layout                               # [(block name, offset, size), ...]
    s = state_tensor(state)                  # everything, shape encoding(game, referee=True).shape
"""
from __future__ import annotations

import weakref

import numpy as np

from vbr.errors import Diagnostic, UsageError, VbrError
from vbr.grammar import ast as A
from vbr.checking import types as T
from vbr.court import court_of
from vbr.values import Cell, Ent, ZoneRef
from vbr.ir.build import visibility
from vbr.rl.state_reader import model_of, reader

INF = np.inf


class EncodingError(VbrError):
    """A declaration whose values have no fixed-size encoding (a list of lists, say)."""


class Encoding:
    """The tensor layout of one checked rule file (its `vbr.checker.Model`), and the function
    that fills it from a typed game's state (python or c, read through vbr.rl.state_reader).
    With `referee=True`, the layout of the referee's view: no observer, nothing hidden."""

    def __init__(self, m, referee: bool = False):
        self.model = m
        self.referee = referee
        self.title = m.title
        self.seats = m.seats
        self.dir_vec = dict(m.directions)
        self.zone_names = list(m.zone_names)
        self.kind_names = [k.decl.name for k in m.kinds.values()]
        self._blocks: list[tuple[str, int]] = []
        self._low: list[float] = []
        self._high: list[float] = []
        self._problems: list[Diagnostic] = []

        # who is looking, who is to choose, where play is, which choice is asked (of the looker)
        self.off_seat = None if referee else self._block("seat (the observer, one-hot)", self.seats, 0, 1)
        self.off_turn = self._block("to choose (one-hot seat)", self.seats, 0, 1)
        self.phase_index = {name: i for i, name in enumerate(m.phases)}
        self.off_phase = self._block("phase (one-hot)", len(self.phase_index), 0, 1)
        self.choice_index = _choice_points(m)
        asked = "the seat to choose" if referee else "the observer"
        self.off_choice = self._block(f"choice point asked of {asked} (one-hot `choose`)",
                                      len(self.choice_index), 0, 1)

        # the court: every cell of the grid (net rows included), each space of each side, off court
        self.court = c = court_of(m.court)
        if c is not None:
            self.grid = (c.height, c.cols)
            keys = sorted((side, name) for side in (0, 1) for name in c.spaces)
            self.space_index = {key: i for i, key in enumerate(keys)}
            self._space_of = {}
            for side, name in reversed(keys):  # two spaces on one cell: the first in order names it
                self._space_of[c.space(name, side)] = (side, name)
        else:
            self.grid = (0, 0)
            self.space_index, self._space_of = {}, {}
        self.places = self.grid[0] * self.grid[1] + len(self.space_index) + 1

        # vars, slot by slot
        self.var_fill = []  # (slot, offset, adder)
        self.cell_vars = []  # (slot, offset of its plane)
        self.ent_vars = []  # (slot, offset, kind index or None, field adders)
        for name, v in m.vars.items():
            span = v.decl.span
            for i in range(v.count):
                slot = v.base + i
                label = f"var {name}[{i}]" if v.per else f"var {name}"
                if v.type == "cell":
                    self.cell_vars.append((slot, self._block(label + " (court plane)", self.places, 0, 1)))
                elif v.type.startswith("ent"):
                    k = m.kinds[v.type[4:]].index if v.type.startswith("ent:") else None
                    fields = self._fields(k, span, label) if k is not None else []
                    size = 2 + sum(f[1] for f in fields)
                    off = self._block(label + " (present, visible, fields)", size, 0, 1,
                                      lows=[0, 0] + _cat(f[2] for f in fields),
                                      highs=[1, 1] + _cat(f[3] for f in fields))
                    self.ent_vars.append((slot, off, k, fields))
                else:
                    r = v.decl.range
                    rng = (r.lo, r.hi) if r is not None else None
                    enc = self._adder(v.type, span, f"var `{name}`", single=True, rng=rng)
                    if enc is not None:
                        size, lows, highs, add = enc
                        self.var_fill.append((slot, self._block(label, size, 0, 1, lows=lows, highs=highs), add))

        # pieces on the court: one plane per kind and cell field, counting the seen pieces
        self.piece_planes = []  # (kind, field position, offset)
        for kname, k in m.kinds.items():
            for fname, (pos, t) in k.fields.items():
                if t == "cell":
                    self.piece_planes.append((k.index, pos, self._block(f"pieces {kname}.{fname} (court plane, counts)",
                                                                         self.places, 0, INF)))

        # zones: every size; the contents of those some seat may see, per kind and field value
        self.kind_fields = [self._fields(k.index, k.decl.span, f"kind {kname}") for kname, k in m.kinds.items()]
        self.zone_fill = []  # (zone, offset of size, offset of contents or None)
        hidden = visibility(m)[1]
        for z, zname in enumerate(self.zone_names):
            size_off = self._block(f"zone {zname} size", 1, 0, INF)
            seen = referee or any(z not in hidden[s] for s in range(self.seats))
            contents = None
            if seen:
                contents = len(self._low)
                for ki, kname in enumerate(self.kind_names):
                    fields = self.kind_fields[ki]
                    self._block(f"zone {zname}: {kname} count", 1, 0, INF)
                    for fname, size, lows, highs, _pos, _add in fields:
                        self._block(f"zone {zname}: {kname}.{fname}", size, 0, INF, lows=lows, highs=highs)
            self.zone_fill.append((z, size_off, contents))
        self.hidden = {s: frozenset(hidden[s]) for s in range(self.seats)}

        if self._problems:  # a kind's field is met once per zone and var: report it once
            unique = list(dict.fromkeys(self._problems))
            raise EncodingError(unique, m.rules.sources)
        self.size = len(self._low)
        self.shape = (self.size,)
        self.low = np.array(self._low, dtype=np.float32)
        self.high = np.array(self._high, dtype=np.float32)
        self.layout = []
        offsets = [off for _, off in self._blocks] + [self.size]
        for (name, off), end in zip(self._blocks, offsets[1:]):
            self.layout.append((name, off, end - off))

    # ------------------------------------------------------------------ building the layout
    def _block(self, name: str, size: int, lo: float, hi: float, lows=None, highs=None) -> int:
        off = len(self._low)
        self._blocks.append((name, off))
        self._low += list(lows) if lows is not None else [lo] * size
        self._high += list(highs) if highs is not None else [hi] * size
        return off

    def _fields(self, k: int, span, label: str):
        """(name, size, lows, highs, position, adder) of each field of kind k but its cells (those
        go on the court planes), counted over many entities."""
        out = []
        kinfo = list(self.model.kinds.values())[k]
        for fname, (pos, t) in kinfo.fields.items():
            if t == "cell":
                continue
            field_span = next((f.span for f in kinfo.decl.fields if f.name == fname), span)
            enc = self._adder(t, field_span, f"field `{kinfo.decl.name}.{fname}`", single=False)
            if enc is not None:
                size, lows, highs, add = enc
                out.append((fname, size, lows, highs, pos, add))
        return out

    def _adder(self, t: str, span, label: str, single: bool, rng=None):
        """(size, lows, highs, add) for a value of type t: `add(out, off, v)` adds its encoding, so
        that over many entities the one-hots become counts. None (with a problem noted) when t has
        no fixed-size encoding."""
        m = self.model
        top = 1 if single else INF
        if t == "bool":
            return 1, [0], [top], _add_true
        if t == "int":
            if single:
                if rng is not None:
                    lo, hi = rng[0], rng[1]
                    return 1, [0], [1], _add_scaled(lo, hi)
                return 1, [-INF], [INF], _add_number
            return 2, [-INF, 0], [INF, INF], _add_sum_and_count
        if t == "seat":
            return self.seats, [0] * self.seats, [top] * self.seats, _add_index(range(self.seats), int_keys=True)
        if t.startswith("enum:"):
            members = m.enums[t[5:]]
            return len(members), [0] * len(members), [top] * len(members), _add_index(members)
        if t == "dir":
            dirs = list(self.dir_vec)
            return len(dirs), [0] * len(dirs), [top] * len(dirs), _add_index(dirs)
        if t == "zone":
            n = len(self.zone_names)
            return n, [0] * n, [top] * n, _add_index(range(n), int_keys=True)
        if t.startswith("ent"):
            return 1, [0], [top], _add_present
        if t.startswith("list:"):
            item = t[5:]
            if item == "int":
                return 2, [-INF, 0], [INF, INF], _add_list_sum
            if item in ("bool", "seat", "dir", "zone") or item.startswith("enum:"):
                size, lows, highs, add = self._adder(item, span, label, single=False)
                return size + 1, [0] * (size + 1), [INF] * (size + 1), _add_list_counts(add, size)
        self._problems.append(Diagnostic(span, f"observations cannot be encoded: {label} is a {T.show(t)}, which has "
                                               "no fixed-size tensor encoding (vbr.rl encodes numbers, bools, seats, "
                                               "enums, directions, zones, cells, cards and pieces, and lists of "
                                               "numbers, bools, seats, enums, directions or zones)"))
        return None

    # ------------------------------------------------------------------ filling it
    def encode(self, state, seat: int | None) -> np.ndarray:
        """What `seat` may see of `state`; for the referee's encoding, `seat` None and everything."""
        if self.referee:
            if seat is not None:
                raise UsageError(f"the referee's encoding sees for no seat: encode(state, None), not seat {seat!r}")
            hidden = frozenset()
        else:
            seat = check_seat(self, seat)
            hidden = self.hidden[seat]
        r = reader(state)
        out = np.zeros(self.size, dtype=np.float32)
        if self.off_seat is not None:
            out[self.off_seat + seat] = 1
        if r.chooser is not None:
            out[self.off_turn + r.chooser] = 1
            if r.chooser == seat or self.referee:
                i = self.choice_index.get(r.choice_key())
                if i is not None:
                    out[self.off_choice + i] = 1
        i = self.phase_index.get(r.phase)
        if i is not None:
            out[self.off_phase + i] = 1
        for slot, off, add in self.var_fill:
            add(out, off, r.var(slot))
        for slot, off in self.cell_vars:
            place = self._place(r.var(slot))
            if place is not None:
                out[off + place] = 1
        where, kinds = r.where, r.kind
        for slot, off, k, fields in self.ent_vars:
            e = r.var(slot)
            if e is None:
                continue
            out[off] = 1
            if where[e] in hidden:
                continue
            out[off + 1] = 1
            self._add_fields(out, off + 2, r, e, fields)
        kind_fields = self.kind_fields
        kind_offsets = self._kind_offsets()
        for z, size_off, contents in self.zone_fill:
            items = r.zone(z)
            out[size_off] = len(items)
            if contents is None or z in hidden:
                continue
            for e in items:
                k = kinds[e]
                at = contents + kind_offsets[k]
                out[at] += 1
                self._add_fields(out, at + 1, r, e, kind_fields[k])
        for k, pos, off in self.piece_planes:
            for e, kk in enumerate(kinds):
                if kk == k and where[e] not in hidden:
                    place = self._place(r.attr(e, pos))
                    if place is not None:
                        out[off + place] += 1
        return out

    @staticmethod
    def _add_fields(out, at: int, r, e: int, fields) -> None:
        """Thing `e`'s encoded fields (`fields`, from `_fields`) added from `out[at]` on."""
        for _name, size, _lo, _hi, pos, add in fields:
            add(out, at, r.attr(e, pos))
            at += size

    # ------------------------------------------------------------------ the options of a choice
    def option_layout(self) -> list[tuple[str, int, int]]:
        """(block, offset, size) of one option's features (`option_features`), worked out when
        first asked; `_opt_layout` is set last, so a thread that finds it finds the rest (an
        encoding is shared by every environment of its game, whatever thread plays it)."""
        if getattr(self, "_opt_layout", None) is None:
            self._members = [x for members in self.model.enums.values() for x in members]
            self._member_index = {x: i for i, x in enumerate(self._members)}
            self._dir_index = {d: i for i, d in enumerate(self.dir_vec)}
            blocks = [("pass", 1), ("number (its value, then 1)", 2), ("seat (one-hot)", self.seats),
                      ("false, true", 2), ("direction (one-hot)", len(self._dir_index)),
                      ("enum member (one-hot over every enum's members)", len(self._members)),
                      ("zone (one-hot)", len(self.zone_names)), ("cell (court place, one-hot)", self.places),
                      ("card or piece: unseen", 1), ("card or piece: kind (one-hot)", len(self.kind_names)),
                      ("card or piece: the zone it lies in (one-hot)", len(self.zone_names))]
            bounds = {"number (its value, then 1)": ([-INF, 0], [INF, 1])}
            for kname, fields in zip(self.kind_names, self.kind_fields):
                for fname, size, lows, highs, *_ in fields:
                    blocks.append((f"card or piece: {kname}.{fname}", size))
                    bounds[blocks[-1][0]] = (lows, highs)
            blocks.append(("other (a list, a text)", 1))
            layout, at, low, high = [], 0, [], []
            for name, size in blocks:
                layout.append((name, at, size))
                lo, hi = bounds.get(name, ([0] * size, [1] * size))
                low += list(lo)
                high += list(hi)
                at += size
            self.option_low = np.array(low, dtype=np.float32)
            self.option_high = np.array(high, dtype=np.float32)
            self._opt = {name: off for name, off, _ in layout}
            self.option_size = at
            self._opt_layout = layout
        return self._opt_layout

    def option_features(self, state, seat: int, max_actions: int) -> np.ndarray:
        """One row per action: what the option with that index is, as the observer may see it;
        all zero for a seat that is not asked (the options are the chooser's to see) and for rows
        past the options, and never for an option offered (the number 0 has its 1, seat 0 its
        one-hot). A card or piece in a zone the observer may not look into is only `unseen` (the
        option's text, `#17`, says no more)."""
        self.option_layout()
        check_seat(self, seat)
        out = np.zeros((max_actions, self.option_size), dtype=np.float32)
        r = reader(state)
        if r.chooser != seat:
            return out
        o = self._opt
        hidden = self.hidden[seat]
        seats = r.option_type() == "seat"
        for i, v in enumerate(r.options()[:max_actions]):
            row = out[i]
            if v is None:
                row[o["pass"]] = 1
            elif v is True or v is False:
                row[o["false, true"] + (1 if v else 0)] = 1
            elif isinstance(v, Ent):
                if r.where[v] in hidden:
                    row[o["card or piece: unseen"]] = 1
                    continue
                k = r.kind[v]
                row[o["card or piece: kind (one-hot)"] + k] = 1
                row[o["card or piece: the zone it lies in (one-hot)"] + r.where[v]] = 1
                kname = self.kind_names[k]
                for fname, _size, _lo, _hi, pos, add in self.kind_fields[k]:
                    add(row, o[f"card or piece: {kname}.{fname}"], r.attr(v, pos))
            elif isinstance(v, ZoneRef):
                row[o["zone (one-hot)"] + int(v)] = 1
            elif isinstance(v, Cell):
                row[o["cell (court place, one-hot)"] + self._place(v)] = 1
            elif isinstance(v, int) and seats:
                row[o["seat (one-hot)"] + v] = 1
            elif isinstance(v, int):  # the 1 tells the number 0 from an action not offered
                row[o["number (its value, then 1)"]:o["number (its value, then 1)"] + 2] = v, 1
            elif isinstance(v, str) and v in self._dir_index:
                row[o["direction (one-hot)"] + self._dir_index[v]] = 1
            elif isinstance(v, str) and v in self._member_index:
                row[o["enum member (one-hot over every enum's members)"] + self._member_index[v]] = 1
            else:
                row[o["other (a list, a text)"]] = 1
        return out

    def _kind_offsets(self) -> list[int]:
        offs = getattr(self, "_koffs", None)
        if offs is None:
            offs, at = [], 0
            for fields in self.kind_fields:
                offs.append(at)
                at += 1 + sum(f[1] for f in fields)
            self._koffs = offs
        return offs

    def _place(self, c) -> int | None:
        """The index of a cell among the court's places: the grid row-major in global
        coordinates (y from side 0's baseline, x across), then the spaces, then `off the court`."""
        if c is None:
            return None
        h, w = self.grid
        x, y = c[0], c[1]
        if 0 <= x < w and 0 <= y < h:
            return y * w + x
        key = self._space_of.get(c)
        if key is not None:
            return h * w + self.space_index[key]
        return self.places - 1


# ---------------------------------------------------------------------- adders
def _add_true(out, off, v):
    if v is True:
        out[off] += 1


def _add_number(out, off, v):
    if isinstance(v, int):
        out[off] += v


def _add_scaled(lo, hi):
    span = hi - lo

    def add(out, off, v):
        if isinstance(v, int) and span:
            out[off] += (v - lo) / span
    return add


def _add_sum_and_count(out, off, v):
    if isinstance(v, int) and not isinstance(v, bool):
        out[off] += v
        out[off + 1] += 1


def _add_index(keys, int_keys: bool = False):
    index = {k: i for i, k in enumerate(keys)}

    def add(out, off, v):
        if v is None or isinstance(v, bool):
            return
        i = index.get(int(v) if int_keys else v)
        if i is not None:
            out[off + i] += 1
    return add


def _add_present(out, off, v):
    if v is not None:
        out[off] += 1


def _add_list_sum(out, off, v):
    if isinstance(v, tuple):
        out[off] += sum(x for x in v if isinstance(x, int))
        out[off + 1] += len(v)


def _add_list_counts(item_add, size):
    def add(out, off, v):
        if isinstance(v, tuple):
            for x in v:
                item_add(out, off, x)
            out[off + size] += len(v)
    return add


def _cat(lists):
    out = []
    for x in lists:
        out += list(x)
    return out


# ---------------------------------------------------------------------- helpers
def _span_key(span) -> tuple:
    return (span.file, span.line, span.col)


def _choice_points(model) -> dict[tuple, int]:
    """Every `choose` statement of the rule file, in file order: its place -> its index."""
    decls = [*model.phases.values(), *model.procs.values(), *(h for hs in model.handlers.values() for h in hs)]
    if model.setup is not None:
        decls.append(model.setup)
    keys = set()
    for d in decls:
        for n in A.walk(d):
            if isinstance(n, A.Choose):
                keys.add(_span_key(n.span))
    return {k: i for i, k in enumerate(sorted(keys))}


def check_seat(described, seat) -> int:
    """`seat` as an int, when it is one of the game's seats (`described` has `seats` and `title`)."""
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= int(seat) < described.seats:
        raise UsageError(f"seat {seat!r} does not exist: {described.title!r} has seats 0..{described.seats - 1}")
    return int(seat)


_CACHE: dict[tuple[int, bool], tuple] = {}


def encoding(thing, referee: bool = False) -> Encoding:
    """The layout for a typed game or a typed game's state (the referee's with `referee=True`),
    built once per checked model and remembered."""
    m = model_of(thing)
    key = (id(m), bool(referee))
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is m:
        return hit[1]
    enc = Encoding(m, referee=bool(referee))
    _CACHE[key] = (weakref.ref(m, lambda _r, key=key, cache=_CACHE: cache.pop(key, None)), enc)
    return enc


def observation_tensor(state, seat: int) -> np.ndarray:
    """What `seat` may see of `state` (a typed game's, python or c), as a float32 vector of
    `observation_shape(game)`."""
    return encoding(state).encode(state, seat)


def state_tensor(state) -> np.ndarray:
    """The referee's view of `state` (a typed game's, python or c): everything, what the seats
    may not see included, as a float32 vector of `encoding(game, referee=True).shape`. For a centralised critic;
    never a seat's observation."""
    return encoding(state, referee=True).encode(state, None)


def option_features(state, seat: int, max_actions: int) -> np.ndarray:
    """What each of the pending choice's options is, one row per action index, for the seat that
    chooses (zeros for the others): shape (max_actions, option_size)."""
    return encoding(state).option_features(state, seat, max_actions)


def observation_shape(thing) -> tuple[int]:
    return encoding(thing).shape


def layout(thing, referee: bool = False) -> list[tuple[str, int, int]]:
    """(block, offset, size) of every block of the tensor (the state tensor's with
    `referee=True`), in order."""
    return list(encoding(thing, referee).layout)
