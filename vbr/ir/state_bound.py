"""The bound on a whole typed state's size (vbr.limits.MAX_STATE_WORDS), checked when the rules are
loaded, with a located error at the rule that makes the state large.

Both typed engines keep a game in one array of `Layout.words` words (vbr/ir/layout.py): the C
engine allocates it whole, and every copy of a state (a clone, a search's worlds) allocates it
again. Each part has its own source in the rules: the vars (a list var holds up to 256 items a
slot), the things' records, the zones (each slot with room for every thing), and the frames
(`limit depth` frames of the largest unit when a procedure may call itself). The zones and the
records have bounds of their own (vbr.ir.build); this one bounds their sum with the rest, so
`limit depth 10000` over a procedure of 2,000 `let`s (a state of 160 MB) is refused too.
"""
from __future__ import annotations

from vbr.checker import Model
from vbr.errors import Diagnostic, Span, VbrCheckError
from vbr.grammar import ast as A
from vbr.ir import nodes as N
from vbr.ir.layout import FRAME_HEAD, Layout
from vbr.ir.rule_names import first_line, rule_of
from vbr.limits import MAX_STATE_WORDS


def bound_state(m: Model, layout: Layout, units: list[N.Unit], list_vars: dict, caps: dict) -> None:
    """Nothing when `layout` takes at most MAX_STATE_WORDS words; else a VbrCheckError located at
    the rule behind the largest part of the state (the `limit depth` line, a procedure, a var, a
    kind, a zone), saying how many words the state and that part would take. `list_vars`: each
    list var's (word, capacity); `caps`: each list field's capacity by (kind, field)."""
    total = layout.words
    if total <= MAX_STATE_WORDS:
        return
    parts = [_frames(m, layout, units), _vars(m, layout, list_vars), _records(m, layout, caps), _zones(m, layout),
             (layout.copies, "the room for the lists frames copy onto the stack", None)]
    words, what, span = max(parts, key=lambda p: p[0])
    if span is None:
        span = first_line(m.rules.path)
    raise VbrCheckError([Diagnostic(span, (
        f"a state of this game would take {total:,} words, more than the {MAX_STATE_WORDS:,} words a state may take "
        f"(the limit on a state's size); {words:,} of them are {what}"))], m.rules.sources)


def widest_kind(m: Model, caps: dict):
    """The kind whose record is widest (a list field counting its capacity and its count), or None."""
    return max(m.kinds.values(), key=lambda k: sum(1 + caps.get((k.index, f), 0) for f in k.fields), default=None)


def _frames(m: Model, layout: Layout, units: list[N.Unit]) -> tuple[int, str, Span | None]:
    """The frames' words: `limit depth` frames of the largest unit, at the `limit depth` line when
    the file has one, else at that unit; or the heaviest chain of calls' frames, at its largest unit."""
    largest = max(units, key=lambda u: u.nlocals)
    name, at = rule_of(largest)
    frame = f"{name}'s: {largest.nlocals:,} locals (its parameters and `let`s) and {FRAME_HEAD} words more"
    if layout.frames >= 0:
        return layout.frames, f"the frames of the heaviest chain of calls, the largest {frame}", at
    depth = layout.depth
    limit = next((d for d in m.rules.decls if isinstance(d, A.Limit) and d.name == "limit depth"), None)
    said = "`limit depth`" if limit is not None else f"`limit depth`, {depth:,} unless the file says"
    return (depth * layout.max_frame, f"the room for {depth:,} frames ({said}, as a procedure may call itself) of up "
            f"to {layout.max_frame:,} words each, {frame}", limit.span if limit is not None else at)


def _vars(m: Model, layout: Layout, list_vars: dict) -> tuple[int, str, Span | None]:
    """The vars' words (with the heavy fns' working words and a scenario's queues), at the var
    that takes the most."""
    def words(name: str) -> int:  # a word a slot, and a list's count and items
        v = m.vars[name]
        return v.count * (2 + list_vars[name][1]) if name in list_vars else v.count
    if not m.vars:
        return layout.nvars, "the heavy fns' working words", None
    name = max(m.vars, key=words)
    slots = f"{m.vars[name].count:,} slots" + (f" of a list of up to {list_vars[name][1]:,} items" if name in list_vars else "")
    return layout.nvars, f"the vars' (`{name}` the most: {words(name):,} words, {slots})", m.vars[name].decl.span


def _records(m: Model, layout: Layout, caps: dict) -> tuple[int, str, Span | None]:
    """The things' words (each one's kind, zone, revealed flag and record), at the widest kind."""
    kind = widest_kind(m, caps)
    words = layout.zones - layout.kinds
    things = f"the {layout.things:,} things' the game may hold (a kind, a zone and a revealed flag each"
    if kind is None:
        return words, things + ")", None
    return words, f"{things}, and a record {layout.width:,} words wide, as kind `{kind.decl.name}`'s)", kind.decl.span


def _zones(m: Model, layout: Layout) -> tuple[int, str, Span | None]:
    """The zones' words (each slot with room for every thing), at the zone with the most slots."""
    words = layout.options - layout.zones
    if not m.zones:
        return words, "the zones'", None
    z = max(m.zones.values(), key=lambda z: z.count)
    return (words, f"the zones' ({layout.nzones:,} slots of {layout.zone_size:,} words, one for every thing and "
            f"one more; `{z.decl.name}` has {z.count:,} of them)", z.decl.span)
