"""Which words of a state a search observes, beyond where things lie (python_search._Search.observe).

The vars: the words from `layout.vars` on that hold plain values, then each var holding a list,
slot by slot (a slot: its count, then room for `cap` items, of which only the first `count` are
the list). The words past `layout.values` (the heavy fns' working words, a scenario's queues) and
a list's words past its count are left over from earlier play, not part of what the game shows.

A thing's fields: a field no statement of the program ever sets (`fixed_fields`) keeps, for a
thing that already exists, the value it was made with, so the thing's id already tells it."""
from __future__ import annotations

from vbr.ir import nodes as N


def observed_vars(program: N.Program) -> tuple[int, list[tuple[int, int, int]]]:
    """(how many plain value words start the vars, [(a list var's first word past `layout.vars`, its
    slots, each slot's room in items)] in the order they lie)."""
    lay = program.layout
    values = lay.values if lay.values >= 0 else lay.nvars
    places = sorted(program.list_vars.values())
    plain = places[0][0] if places else values
    lists = []
    for k, (at, cap) in enumerate(places):
        end = places[k + 1][0] if k + 1 < len(places) else values
        lists.append((at, (end - at) // (1 + cap), cap))
    return plain, lists


FIXED_WORDS = 64  # a row's first words that may count as fixed: a mask is one 64-bit word in C


def fixed_fields(program: N.Program) -> list[int]:
    """Per kind, a mask of the words of its things' rows (bit i: word i of `layout.width`) that no
    statement sets once the thing is made (`SetField`, `SetListItems` of a list field): the words of
    fields never assigned, and the words past the kind's own fields; of the first FIXED_WORDS words
    only (the others always count as set)."""
    width = min(program.layout.width, FIXED_WORDS)
    every = (1 << width) - 1
    masks = [every] * len(program.kinds)
    for unit in program.units:
        for block in unit.blocks:
            for stmt in block.stmts:
                for kind, words in _set_words(program, stmt):
                    for k in range(len(masks)) if kind is None else (kind,):
                        masks[k] &= ~words & every
    return masks


def _set_words(program: N.Program, stmt: N.Stmt):
    """(kind or None for every kind, a mask of row words) for each thing's word `stmt` may set."""
    every = (1 << program.layout.width) - 1
    if isinstance(stmt, N.SetField):
        target = stmt.target
        if isinstance(target, N.Field):
            yield target.kind, 1 << target.pos
        elif isinstance(target, N.FieldOfAny):
            for kind, pos in enumerate(target.positions):
                if pos >= 0:
                    yield kind, 1 << pos
        else:  # a target of another shape: any word of any kind
            yield None, every
    elif isinstance(stmt, N.SetListItems) and not isinstance(stmt.target, N.VarItems):
        target = stmt.target
        if isinstance(target, N.FieldItems):
            cap = program.list_caps.get((target.kind, target.pos))
            if cap is not None:
                yield target.kind, ((1 << (1 + cap)) - 1) << target.pos
                return
        yield None, every


def thing_vars(program: N.Program) -> tuple[list[bool], list[bool]]:
    """Which of the observed vars' words name things (so that a search hides those it may not
    see): per plain word (observed_vars' first count), whether its var holds a thing; per var
    holding a list (in observed_vars' order), whether its items are things."""
    plain, lists = observed_vars(program)
    types = program.var_types
    words = [w < len(types) and types[w].startswith("ent") for w in range(plain)]
    vars_at = program.layout.vars
    items = {first - vars_at: item for first, _, item in program.names.rows.values()}
    return words, [str(items.get(at, "")).startswith("ent") for at, _, _ in lists]


def thing_fields(program: N.Program) -> list[list[int]]:
    """Per kind, the words of its things' rows that name things (so that a search hides those it
    may not see), in increasing order: a field holding a thing, and the room for items of a field
    holding a list of things (not its count)."""
    out = []
    for k, (_, names, types) in enumerate(program.kinds):
        words = []
        for name, ty in zip(names, types):
            pos = program.field_at[(k, name)]
            if ty.startswith("ent"):
                words.append(pos)
            elif ty.startswith("list:ent"):
                words += range(pos + 1, pos + 1 + program.list_caps.get((k, pos), 0))
        out.append(sorted(words))
    return out
