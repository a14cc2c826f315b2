"""A typed engine's game as events: what a log and `vbr run` show.

An engine reports six kinds of event while it runs (`say`, `reveal`, `phase`, and its draws:
`roll`, `pick`, `shuffle`, each as it is drawn, whether drawn at random, forced by a scenario or
decided outside, vbr.ir.chance_program); the game API (vbr.engines.game) adds a `choice` before
each answer and an `end` when the game is over. Every event is made here, from the program's
tables and the state's words, so both engines give the same events for the same game, byte for
byte once written.

A logged game's engine also reports each call of a procedure, as its body is about to run (after
its arguments), and each return from a procedure (a unit of kind `proc`; a handler's return is not
one), after the value it gives. A log, `vbr run` and `vbr test --trace` show neither: they are
kept only in a list of events whose `hears_calls` is true (`CallEvents`, or a traced run's step
counter, vbr.flow_steps), as `{"t": "call", "proc": name}` and `{"t": "return", "proc": name}`.

The Python engine calls `EventLog(S, what, *args)` (its generated `LOG`). The C engine calls a
function pointer with integers only, `(S, what, code, n, args)`: `what` is SAY, REVEAL, PHASE,
ROLL, PICK, SHUFFLE, CALL or RETURN; for SAY `code` is the say's index in `say_sites(program)`
and `args` its values; for REVEAL `code` is the reveal's index in `reveal_sites(program)` and
`args[0]` the zone, thing or value revealed; for PHASE `code` is the unit gone to; for ROLL
`code` is the die and `args[0]` the face; for PICK `code` is the pick's random stream (which names the pick: see
`pick_types`) and `args[0]` the item; for SHUFFLE `code` is the zone; for CALL and RETURN
`code` is the procedure's unit.
"""
from __future__ import annotations

from vbr.ir import nodes as N
from vbr.ir.layout import OVER, Header as H
from vbr.ir.values import NONE
from vbr.limits import MAX_TEXT_CHARS, TEXT_CUT_MARK

SAY, REVEAL, PHASE, ROLL, PICK, SHUFFLE, CALL, RETURN = 0, 1, 2, 3, 4, 5, 6, 7


def reveal_sites(program: N.Program) -> list[N.Reveal]:
    """Every `reveal` of the program, in one fixed order: the C engine names one by its index here."""
    return [s for unit in program.units for block in unit.blocks for s in block.stmts if isinstance(s, N.Reveal)]


def revealed_type(site: N.Reveal) -> str:
    """What a reveal shows: `zone`, or the type of the thing or value it names."""
    return "zone" if site.what is None else site.what.ty


def pick_types(program: N.Program) -> dict[int, str]:
    """The type of the items each `pick` of the program draws, by the pick's random stream (each
    pick has its own: vbr.ir.build's `stream`)."""
    tops = [x for unit in program.units for block in unit.blocks for x in (*block.stmts, block.term)]
    tops += [fn.body for fn in program.fns]
    return {n.stream: n.ty for top in tops if top is not None for n in N.walk(top) if isinstance(n, N.Pick)}


def cut(text: str) -> str:
    """`text` as a game writes it: whole up to MAX_TEXT_CHARS characters; a longer one cut there,
    TEXT_CUT_MARK after it."""
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS] + TEXT_CUT_MARK


def cut_items(items) -> list[str]:
    """The texts of `items` as a game writes them, together at most MAX_TEXT_CHARS characters:
    each whole while they fit, the one that goes past cut where they reach it (TEXT_CUT_MARK
    after it), and none after it (those are not written out)."""
    kept, room = [], MAX_TEXT_CHARS
    for item in items:
        if len(item) > room:
            kept.append(item[:room] + TEXT_CUT_MARK)
            break
        kept.append(item)
        room -= len(item)
    return kept


def say_sites(program: N.Program) -> list[N.Say]:
    """Every `say` of the program, in one fixed order (unit, block, statement): the C engine
    names a say by its index here."""
    return [s for unit in program.units for block in unit.blocks for s in block.stmts if isinstance(s, N.Say)]


class CallEvents(list):
    """A logged game's list of events that keeps its calls and returns too (see the module's
    docstring): what a test compares between the engines."""

    hears_calls = True


class EventLog:
    """The events of one game, appended to `events` as they happen; calls and returns only when
    `events.hears_calls` is true."""

    def __init__(self, program: N.Program, events: list):
        self.p, self.events = program, events
        self.hears_calls = bool(getattr(events, "hears_calls", False))
        self._says: list[N.Say] | None = None
        self._reveals: list[str] | None = None  # per reveal site, the type of what it shows
        self._picks: dict[int, str] | None = None  # per pick's stream, the type of its items
        self._offsets: dict[int, list[int]] = {}  # per kind: where each field starts

    # ------------------------------------------------------------------ what the engines report
    def __call__(self, S, what: str, *args) -> None:
        """The Python engine's LOG: ('say', pieces, ((type, value), ...)), ('reveal', type, value)
        (the type `zone` for a zone; `items:T` for a list, with its count after), ('phase', unit),
        ('roll', die, face), ('pick', stream, item), ('shuffle', zone), ('call', unit) or
        ('return', unit)."""
        if what == "say":
            self.say(S, args[0], args[1])
        elif what == "reveal":
            self.reveal(S, *args)
        elif what == "roll":
            self.roll(*args)
        elif what == "pick":
            self.pick(S, *args)
        elif what == "shuffle":
            self.shuffle(args[0])
        elif what == "call" or what == "return":
            self.called(what, args[0])
        else:
            self.phase(args[0])

    def from_c(self, S, what: int, code: int, n: int, args) -> None:
        """The C engine's report of an event, in integers (see the module's docstring)."""
        if what == SAY:
            if self._says is None:
                self._says = say_sites(self.p)
            site = self._says[code]
            self.say(S, site.pieces, [(a.ty, args[i]) for i, a in enumerate(site.args[:n])])
        elif what == REVEAL:
            if self._reveals is None:
                self._reveals = [revealed_type(site) for site in reveal_sites(self.p)]
            self.reveal(S, self._reveals[code], *args[:n])
        elif what == ROLL:
            self.roll(code, args[0])
        elif what == PICK:
            self.pick(S, code, args[0])
        elif what == SHUFFLE:
            self.shuffle(code)
        elif what == CALL or what == RETURN:
            self.called("call" if what == CALL else "return", code)
        else:
            self.phase(code)

    def say(self, S, pieces, args) -> None:
        """A hole of type `items:T` is a list: it and the next argument are where its items
        start in S and how many there are (vbr.ir.build, UnitBuilder.s_Say); its items are
        written as choices are (a thing as `#e`). The text is `cut` (the holes past the cut are
        not written out)."""
        texts = self.p.texts
        parts = [texts[pieces[0]]]
        size = len(parts[0])
        args = iter(args)
        for (ty, v), piece in zip(args, pieces[1:]):
            if size > MAX_TEXT_CHARS:
                break
            if ty.startswith("items:"):
                start, n = int(v), int(next(args)[1])
                parts.append(self.list_text(S, ty[len("items:"):], S[start:start + n]))
            else:
                parts.append(self.describe(S, ty, int(v)))
            parts.append(texts[piece])
            size += len(parts[-2]) + len(parts[-1])
        self.events.append({"t": "say", "text": cut("".join(parts))})

    def reveal(self, S, ty: str, v, count=None) -> None:
        """A zone's things, a thing, a value, or a list (`items:T`: its items start at S[v], `count`
        of them), as in `reveal pick [1, 2]`. What is shown is written as a value is, but for none,
        which reads `none` there as in the items, alone or in a list (nothing was passed). What
        is revealed is `cut`, and so are its items together (`cut_items`)."""
        v = int(v)
        if ty.startswith("items:"):
            item = ty[len("items:"):]
            words = [int(w) for w in S[v:v + int(count)]]
            what, items = self.list_text(S, item, words, "none"), (self.describe(S, item, w, "none") for w in words)
        elif ty == "zone":
            z = self.p.layout.zone(v)
            what, items = self.p.names.zones[v], (self.thing(S, int(e)) for e in S[z + 1:z + 1 + S[z]])
        elif ty.startswith("ent") and v != NONE:
            what, items = self.p.names.text("ent", v), [self.thing(S, v)]
        else:
            what, items = self.p.names.text(ty, v, S, "none"), [self.describe(S, ty, v, "none")]
        self.events.append({"t": "reveal", "what": cut(what), "items": cut_items(items)})

    def list_text(self, S, item: str, words, none: str = "pass") -> str:
        """A list as a log writes it, `[a, b]`, each item as a choice is written (a thing as `#e`;
        an item of a list of lists as its list), none as `none` says (`pass`, the canonical text)."""
        return "[" + ", ".join(self.p.names.text(item, int(w), S, none) for w in words) + "]"

    def phase(self, unit: int) -> None:
        self.events.append({"t": "phase", "phase": self.p.units[unit].name})

    def roll(self, die: int, face) -> None:
        """A face of the die, written as a value is (a thing as `#e`)."""
        p = self.p
        self.events.append({"t": "roll", "die": p.die_names[die], "value": p.names.text(p.die_types[die], int(face))})

    def pick(self, S, stream: int, item) -> None:
        """The item the pick drawing from `stream` drew, written as a value is
        (a list of lists' item, a ROW, as its slot's list in S now)."""
        if self._picks is None:
            self._picks = pick_types(self.p)
        self.events.append({"t": "pick", "value": self.p.names.text(self._picks[stream], int(item), S)})

    def shuffle(self, zone: int) -> None:
        self.events.append({"t": "shuffle", "zone": self.p.names.zones[zone]})

    def called(self, what: str, unit: int) -> None:
        """A call of procedure `unit` (`what` is `call`) or a return from it (`return`): kept only
        where the events hear calls."""
        if self.hears_calls:
            self.events.append({"t": what, "proc": self.p.units[unit].name})

    # ------------------------------------------------------------------ what the game API adds
    def choice(self, S, i: int) -> None:
        """Option i of the pending choice is about to be taken; its prompt and its thing `cut`."""
        p = self.p
        site = p.choices[S[H.SITE]]
        v = int(S[p.layout.options + i])
        event = {"t": "choice", "seat": int(S[H.SEAT]), "prompt": cut(site.prompt), "action": p.names.text(site.item, v, S),
                 "index": i, "kind": p.names.kind_of(site.item, v), "of": int(S[H.NOPTS])}
        if site.item.startswith("ent") and v != NONE:
            event["item"] = cut(self.thing(S, v))
        self.events.append(event)

    def end(self, S) -> None:
        """The game is over: its winner (or team) and points, when the state says it is."""
        if S[H.STATUS] != OVER:
            return
        p = self.p
        points = []
        if p.points is not None:
            at = p.layout.vars + p.points[0]
            points = [int(x) for x in S[at:at + p.points[1]]]
        team = int(S[H.WINNER_TEAM])
        if team:
            self.events.append({"t": "end", "team": team - 1, "points": points})
        else:
            w = int(S[H.WINNER])
            self.events.append({"t": "end", "winner": None if w == NONE else w, "points": points})

    # ------------------------------------------------------------------ values as text
    def describe(self, S, ty: str, v: int, none: str = "pass") -> str:
        """A value as play-by-play text: a thing with its kind and fields, none as `none`; a none
        in a list (an item of a list of lists) as `none` says (`pass`, the canonical text)."""
        if v == NONE:
            return "none"
        if ty.startswith("ent"):
            return self.thing(S, v)
        return self.p.names.text(ty, v, S, none)

    def thing(self, S, e: int, text=None) -> str:
        """`#e Kind(field=value, ...)`, the fields as they are in S now, each value as
        `text(type, value)` writes it (default: as a log writes it, vbr.ir.values.Names.text)."""
        p, lay = self.p, self.p.layout
        text = text or p.names.text
        k = int(S[lay.kinds + e])
        name, fields, types = p.kinds[k]
        word, shown = lay.fields + e * lay.width, []
        for offset, (field, ty) in enumerate(zip(fields, types)):
            at = word + self._offset(k, offset)
            if ty.startswith("list:"):
                inner = ty[5:]
                items = ", ".join(text(inner, int(x)) for x in S[at + 1:at + 1 + S[at]])
                shown.append(f"{field}=[{items}]")
            else:
                shown.append(f"{field}={text(ty, int(S[at]))}")
        return f"#{e} {name}({', '.join(shown)})"

    def _offset(self, kind: int, field: int) -> int:
        """Where field number `field` of a thing of `kind` starts among its words (a list field
        takes a count and its capacity, vbr.ir.build's field layout)."""
        offsets = self._offsets
        if kind not in offsets:
            word, at = 0, []
            for ty in self.p.kinds[kind][2]:
                at.append(word)
                word += 1 + self.p.list_caps[(kind, word)] if ty.startswith("list:") else 1
            offsets[kind] = at
        return offsets[kind][field]
