"""What one seat may see, as lines of text for an 80×24 terminal.

Everything here is drawn from a seat's observation (vbr.engines.game's `State.observation(seat)`: the vars, the
contents of the zones the seat may look into and the sizes of the rest, the prompt and the legal
choices), from the events of the log filtered for that seat, and from the rule file's fixed
declarations (the court, the kinds' fields, the zones' owners). It never sees the state itself,
so a hidden card cannot reach the screen.

A line is a list of spans `(text, style)`; `plain` and `styled` turn it into a string, with ANSI
colour or without. All text that comes from the rule file or the log passes through
`vbr.terminal.clean` here, so control characters show as `\\xNN`.
"""
from __future__ import annotations

import re
import unicodedata

from vbr.values import Cell
from vbr.terminal import clean

WIDTH = 80
HEIGHT = 24

Span = tuple[str, str | None]
Line = list[Span]

_SGR = {"title": "1;7", "ball": "1;33", "mine": "32", "num": "1", "prompt": "1;36", "hint": "31",
        "result": "1", "dim": "2"}


# ---------------------------------------------------------------------------------------- lines
def width(s: str) -> int:
    """Columns `s` takes on a terminal: wide East Asian characters two, combining marks none."""
    w = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return w


def plain(line: Line) -> str:
    return "".join(t for t, _ in line).rstrip()


def styled(line: Line) -> str:
    out = []
    for t, style in line:
        code = _SGR.get(style) if style else None
        out.append(f"\x1b[{code}m{t}\x1b[0m" if code and t else t)
    return "".join(out).rstrip()


def text_line(text: str, style: str | None = None) -> Line:
    return [(text, style)]


def truncate(s: str, w: int) -> str:
    """`s` cut to at most `w` columns, a cut marked with `~`."""
    if width(s) <= w:
        return s
    out, used = [], 0
    for ch in s:
        cw = 0 if unicodedata.combining(ch) else (2 if unicodedata.east_asian_width(ch) in "WF" else 1)
        if used + cw > w - 1:
            break
        out.append(ch)
        used += cw
    return "".join(out) + "~"


def wrap(text: str | list[str], first: str = "", rest: str = "    ", limit: int = WIDTH) -> list[str]:
    """Words of `text` in lines of at most `limit` columns, the first line led by `first`, the
    others by `rest`; a word longer than a line is cut across lines. `text` may be a list of
    words already (a card's `#3 2/A/0` kept on one line)."""
    lines: list[str] = []
    cur = first
    fresh = True  # nothing but the lead on the current line yet
    for word in (text.split(" ") if isinstance(text, str) else text):
        if not word:
            continue
        sep = "" if fresh else " "
        if width(cur) + len(sep) + width(word) <= limit:
            cur += sep + word
            fresh = False
            continue
        if not fresh:
            lines.append(cur)
            cur, fresh = rest, True
        while width(cur) + width(word) > limit:  # a word longer than a whole line
            room = limit - width(cur)
            head = truncate(word, room + 1)[:-1] or word[:1]
            lines.append(cur + head)
            word = word[len(head):]
            cur = rest
        cur += word
        fresh = False
    if not fresh or not lines:
        lines.append(cur)
    return lines


# ---------------------------------------------------------------------------------------- the game
class Board:
    """The fixed facts of a game that the screen needs: names, the court, kinds and zones."""

    def __init__(self, game):
        """`game`: a game of either engine (read through its checked model, title, seats and teams)."""
        from vbr.court import court_of
        from vbr.play import side_names
        model = game.model
        self.title = clean(game.title)
        self.court = court_of(model.court)
        self.seats = game.seats
        self.team_of = list(game.team_of)
        self.teams = [list(t) for t in game.program.teams]
        self.side_names = [clean(n) for n in side_names(game)]
        self.teamed = game.by_team  # won and counted by team (vbr.engines.game.Game.by_team)
        self.kind_fields = {k.decl.name: list(k.fields) for k in model.kinds.values()}
        self.kind_types = {name: {f: t for f, (_, t) in k.fields.items()} for name, k in model.kinds.items()}
        self.zone_owner = dict(zip(model.zone_names, model.zone_owner))
        per_zone = [z.per for z in model.zones.values() for _ in range(z.count)]  # one per zone name
        self.zone_per = dict(zip(model.zone_names, per_zone))
        self.phase_titles = {name: (p.title or name) for name, p in model.phases.items()}
        self.points = model.points.var if model.points is not None else None
        enum_members = {m for ms in model.enums.values() for m in ms}
        self.none_word = "pass" not in enum_members  # `pass` in a var is none, unless an enum has it
        self.cell_vars = [name for name, v in model.vars.items() if v.type == "cell"]
        court = self.court
        self.space_cells = ({court.space(n, s): n for s in (0, 1) for n in court.spaces}
                            if court is not None else {})  # cell -> the space's name

    # -------------------------------------------------------------- sides
    def side_of_seat(self, seat: int) -> int:
        t = self.team_of[seat] if seat < len(self.team_of) else 0
        return t if t in (0, 1) else 0

    def zone_side(self, zone: str) -> int | None:
        """The court side a zone's owner plays on, or None for a zone nobody owns."""
        owner = self.zone_owner.get(zone, -1)
        per = self.zone_per.get(zone)
        if owner < 0 or per is None:
            return None
        side = owner if per == "team" else self.side_of_seat(owner)
        return side if side in (0, 1) else None

    def owns(self, zone: str, seat: int) -> bool:
        owner = self.zone_owner.get(zone, -1)
        per = self.zone_per.get(zone)
        if owner < 0 or per is None:
            return False
        return owner == (self.team_of[seat] if per == "team" else seat)

    def side_label(self, side: int, viewer_side: int) -> str:
        name = self.side_names[side] if self.teamed and side < len(self.side_names) else self._seats_of_side(side)
        return f"you ({name})" if side == viewer_side else name

    def _seats_of_side(self, side: int) -> str:
        seats = [s for s in range(self.seats) if self.side_of_seat(s) == side]
        if len(seats) == 1:
            return f"seat {seats[0]}"
        return self.side_names[side] if side < len(self.side_names) else f"side {side}"

    # -------------------------------------------------------------- values
    def cell(self, text: str):
        """A cell from its canonical text (`@1:3` field 3 of side 1, `@0:serve`, `@2,4`)."""
        if not text.startswith("@") or self.court is None:
            return None
        body = text[1:]
        if ":" in body:
            s, _, n = body.partition(":")
            if not s.lstrip("-").isdigit():
                return None
            side = int(s)
            return self.court.field(side, int(n)) if n.isdigit() else self.court.space(n, side)
        x, _, y = body.partition(",")
        try:
            return Cell(int(x), int(y))
        except ValueError:
            return None

    def cell_words(self, text: str, viewer_side: int) -> str:
        """`@1:3` as a person says it: field 3 on seat 1's side."""
        body = text[1:]
        if text.startswith("@") and ":" in body:
            s, _, n = body.partition(":")
            if s.isdigit() and int(s) in (0, 1):
                where = "your side" if int(s) == viewer_side else f"{self.side_label(int(s), viewer_side)}'s side"
                return f"{'field ' + n if n.isdigit() else n} on {where}"
        return ""


class Item:
    """A card or piece as the observation describes it: `#3 Tile(defence=2, ability=A, field=1)`."""

    __slots__ = ("id", "kind", "fields", "desc")

    def __init__(self, desc: str, board: Board):
        self.desc = desc
        self.id, _, rest = desc.partition(" ")
        self.kind, _, body = rest.partition("(")
        if body.endswith(")"):
            body = body[:-1]
        self.fields = _split_fields(body, board.kind_fields.get(self.kind, []))

    def values(self, skip=()) -> str:
        return "/".join(v for f, v in self.fields.items() if f not in skip)

    def text(self, skip=()) -> str:
        """`#3 Tile(defence=2, ability=A)`: the description without the fields in `skip`."""
        if not skip:
            return self.desc
        body = ", ".join(f"{f}={v}" for f, v in self.fields.items() if f not in skip)
        return f"{self.id} {self.kind}({body})"


def _split_fields(body: str, names: list[str]) -> dict[str, str]:
    """`a=1, b=[x, y], c=z` split at the declared field names (values may hold commas)."""
    out: dict[str, str] = {}
    pos = 0
    for i, name in enumerate(names):
        if not body.startswith(f"{name}=", pos):
            return out
        start = pos + len(name) + 1
        if i + 1 < len(names):
            end = body.find(f", {names[i + 1]}=", start)
            if end < 0:
                return out
        else:
            end = len(body)
        out[name] = body[start:end]
        pos = end + 2
    return out


# ---------------------------------------------------------------------------------------- screen
class Screen:
    """One seat's view of one moment: built from an observation, drawn as lines."""

    def __init__(self, board: Board, obs: dict, seat: int, you: tuple[int, ...] | None = None,
                 shared: bool = False):
        """`obs`: what `seat` may know; `you`: the seats the person looking plays (`seat` alone
        by default). `shared`: the screen is for everyone at the terminal (the end of a hot-seat
        game): nobody is `you`, `seat` only sets which way up the court is drawn."""
        self.board = board
        self.obs = obs
        self.seat = seat
        self.shared = shared
        self.you = () if shared else tuple(you) if you else (seat,)
        self.side = board.side_of_seat(seat)
        self.items: dict[str, Item] = {}  # every card and piece the seat may see, by `#id`
        self.zone_items: dict[str, list[Item]] = {}
        for zone, content in obs["zones"].items():
            if isinstance(content, list):
                items = [Item(d, board) for d in content]
                self.zone_items[zone] = items
                for it in items:
                    self.items[it.id] = it
        self.placed: dict = {}  # cell -> [(label, mine)]
        self.on_court: dict[str, int] = {}  # zone -> how many of its things are on the court
        self.cut = False  # some piece's label did not fit its cell
        self._place_pieces()

    def narrow(self, ids) -> None:
        """Keep only the things whose id is in `ids`: what the events name, the zones list and the
        court draws (the things every person at the terminal may see)."""
        keep = set(ids)
        self.items = {k: v for k, v in self.items.items() if k in keep}
        self.zone_items = {z: [it for it in items if it.id in keep] for z, items in self.zone_items.items()}
        self.placed, self.on_court = {}, {}
        self._place_pieces()

    # -------------------------------------------------------------- what is where
    def _place_pieces(self) -> None:
        b = self.board
        if b.court is None:
            return
        for zone, items in self.zone_items.items():
            owner_side = b.zone_side(zone)
            for it in items:
                where, skip = self._position(it, owner_side)
                if where is None or not b.court.on_board(where):
                    continue
                label = clean(it.id + (" " + it.values(skip) if it.values(skip) else ""))
                self.placed.setdefault(where, []).append((label, b.owns(zone, self.seat)))
                self.on_court[zone] = self.on_court.get(zone, 0) + 1

    def _position(self, it: Item, owner_side: int | None):
        b = self.board
        types = b.kind_types.get(it.kind, {})
        for f, t in types.items():
            if t == "cell" and f in it.fields:
                c = b.cell(it.fields[f])
                if c is not None:
                    return c, (f,)
        n = it.fields.get("field")
        if types.get("field") == "int" and n is not None and n.isdigit() and int(n) in b.court.fields:
            side = owner_side
            skip = ("field",)
            s = it.fields.get("side")
            if types.get("side") == "int" and s is not None and s.isdigit():
                side, skip = int(s), ("field", "side")
            if side in (0, 1):
                return b.court.field(side, int(n)), skip
        return None, ()

    def idle_fields(self, items: list[Item]) -> dict[str, tuple[str, ...]]:
        """Per kind, the fields that would place a piece on the court but place none of `items`
        there (a tile's `field=0` on the bench): they mean nothing for these things, so they are
        not shown. A field is left out only when it is idle for every item of its kind."""
        out: dict[str, tuple[str, ...]] = {}
        for kind in dict.fromkeys(it.kind for it in items):
            mine = [it for it in items if it.kind == kind]
            if any(len(it.fields) != len(self.board.kind_fields.get(kind, [])) for it in mine):
                continue  # a description we could not split: shown as it is
            out[kind] = tuple(f for f in self.board.kind_fields.get(kind, [])
                              if all(self._idle(it, f) for it in mine))
        return out

    def _idle(self, it: Item, f: str) -> bool:
        b = self.board
        if b.court is None:
            return False
        t, v = b.kind_types.get(it.kind, {}).get(f), it.fields.get(f, "")
        if t == "cell":
            return v in ("none", "pass") or (v.startswith("@") and b.cell(v) is None)
        return f == "field" and t == "int" and v.lstrip("-").isdigit() and int(v) not in b.court.fields

    def _cell_vars(self) -> dict:
        out: dict = {}
        for name, value in self.obs["vars"].items():
            if name.split("[")[0] in self.board.cell_vars and value != "pass":
                c = self.board.cell(value)
                if c is not None:
                    out.setdefault(c, []).append(clean(name))
        return out

    # -------------------------------------------------------------- parts
    def header(self) -> list[Line]:
        b = self.board
        phase = clean(b.phase_titles.get(self.obs["phase"], self.obs["phase"]))
        who = f"you: seat {self.seat}"
        if self.shared:
            who = "all seats"
        elif b.teamed:
            who += f" of {b.side_names[b.team_of[self.seat]]}" if b.team_of[self.seat] < len(b.side_names) else ""
        score = ""
        if b.points:
            pts = [v for k, v in self.obs["vars"].items() if k.split("[")[0] == b.points]
            if pts:
                score = f" | {clean(b.points)} {'-'.join(clean(p) for p in pts)}"
        tail = f" | {who}{score} "
        room = WIDTH - 3 - width(tail) - 3  # `== `, the tail, ` | ` between title and phase
        title = truncate(b.title, max(room // 2, room - width(phase), 8))
        phase = truncate(phase, max(room - width(title), 8))
        head = truncate(f"== {title} | {phase}{tail}", WIDTH)
        return [text_line(head + "=" * (WIDTH - width(head)), "title")]

    def var_lines(self) -> list[Line]:
        words = []
        for name, value in self.obs["vars"].items():
            if self.board.points and name.split("[")[0] == self.board.points:
                continue
            if name.startswith("measure "):  # a figure for reports, which play never reads
                continue
            shown = "none" if value == "pass" and self.board.none_word else value
            words.append(clean(f"{name}={shown}"))
        if not words:
            return []
        return [text_line(s) for s in wrap(" ".join(words), first="", rest="")]

    def court_lines(self) -> list[Line]:
        b = self.board
        court = b.court
        if court is None:
            return []
        balls = self._cell_vars()
        cells = [Cell(x, y) for x in range(court.cols) for y in range(court.height)] + list(b.space_cells)
        xs = [c[0] for c in cells]
        ys = [c[1] for c in cells]
        xr = range(min(xs), max(xs) + 1)
        yr = range(max(ys), min(ys) - 1, -1)  # side 0 at the bottom
        if self.side == 1:
            xr, yr = xr[::-1], yr[::-1]
        labels = {s: b.side_label(s, -1 if self.shared else self.side) for s in (0, 1)}
        margin = min(max(width(v) for v in labels.values()) + 1, 16)

        def content(c) -> list[tuple[str, str | None]]:
            if not court.on_board(c):
                return []
            if court.on_net(c):
                spans = [("net", "dim")]
            elif court.number(c):
                spans = [(str(court.number(c)), "dim")]
            else:
                spans = [(clean(b.space_cells.get(c, "?")), "dim")]
            for label, mine in self.placed.get(c, []):
                spans.append((" " + label, "mine" if mine else None))
            for name in balls.get(c, []):
                spans.append((" " + name.upper() if name == "ball" else " " + name, "ball"))
            return spans

        grid = [[content(Cell(x, y)) for x in xr] for y in yr]
        natural = max([sum(width(t) for t, _ in sp) for row in grid for sp in row] + [3])
        room = (WIDTH - margin - 3 * (len(xr) - 1)) // max(len(xr), 1)
        cw = min(natural, room)
        self.cut = natural > room
        lines: list[Line] = []
        sides_started: set = set()
        prev_side = None
        for y, row in zip(yr, grid):
            row_side = _row_side(court, y)
            if court.net == 0 and prev_side is not None and row_side != prev_side and -1 not in (row_side, prev_side):
                total = margin + cw * len(xr) + 3 * (len(xr) - 1)
                lines.append(text_line(" " * margin + " net ".center(total - margin, "-"), "dim"))
            if row_side != -1:
                prev_side = row_side
            label = ""
            if row_side in (0, 1) and row_side not in sides_started and any(court.in_grid(Cell(x, y)) for x in xr):
                sides_started.add(row_side)
                label = labels[row_side]
            mine = row_side == self.side and label and not self.shared
            line: Line = [(truncate(label, margin - 1).ljust(margin), "mine" if mine else None)]
            for i, sp in enumerate(row):
                if i:
                    inside = court.on_board(Cell(xr[i - 1], y)) or court.on_board(Cell(xr[i], y))
                    line.append((" | " if inside else "   ", "dim"))
                line += _fit(sp, cw)
            lines.append(line)
        return lines

    def zone_lines(self, full: bool = False) -> list[Line]:
        """Every zone the seat may see with its contents; hidden zones as counts (on a shared
        screen, also those some person at the terminal may not see). Unless `full`,
        a zone of another seat, or of nobody, takes at most 2 lines, its latest things kept: a
        long discard pile shows as `... 20 more, #8 ..., #9 ...`. The seat's own are never cut."""
        b = self.board
        lines: list[Line] = []
        hidden, empty = [], []
        for zone, content in self.obs["zones"].items():
            name = clean(zone)
            if not isinstance(content, list):
                hidden.append(f"{name} {content}")
                continue
            if len(self.zone_items[zone]) != len(content):  # a shared screen: someone may not see it
                hidden.append(f"{name} {len(content)}")
                continue
            if not content:
                empty.append(name)
                continue
            mine = not self.shared and b.owns(zone, self.seat)
            style = "mine" if mine else None
            tag = f"{name} (yours)" if mine else name
            items = self.zone_items[zone]
            if self.on_court.get(zone) == len(items) and not self.cut:
                lines += [text_line(s, style) for s in wrap(f"{tag}: {len(items)} on the court", rest="    ")]
                continue
            kinds = {it.kind for it in items}
            idle = self.idle_fields(items)
            if len(kinds) == 1:
                kind = items[0].kind
                skip = idle.get(kind, ())
                fields = [f for f in b.kind_fields.get(kind, []) if f not in skip]
                head = f"{tag}: {kind}" + (f"({'/'.join(fields)})" if len(fields) > 1 else "")
                words = [f"{it.id} {it.values(skip)}".rstrip() for it in items]
            else:
                head = f"{tag}:"
                words = [f"{it.id} {it.kind}({it.values(idle.get(it.kind, ()))})" for it in items]
            words = [clean(w) for w in words]
            cap = None if full or mine else 2
            lines += [text_line(s, style) for s in _listing(clean(head), words, cap)]
        if hidden:
            lines += [text_line(s, "dim") for s in wrap("hidden (how many): " + ", ".join(hidden), rest="    ")]
        if empty:
            lines += [text_line(s, "dim") for s in wrap("empty: " + ", ".join(empty), rest="    ")]
        return lines

    def board_lines(self, full: bool = False) -> list[Line]:
        return self.header() + self.var_lines() + self.court_lines() + self.zone_lines(full)

    # -------------------------------------------------------------- the choice
    def labels(self) -> list[str]:
        """Each legal choice as the person reads it: the card's description (without the fields
        that place nothing, `idle_fields`), where a cell is."""
        legal = self.obs.get("legal", [])
        idle = self.idle_fields([self.items[a] for a in legal if a in self.items])
        out = []
        for action in legal:
            it = self.items.get(action)
            if it is not None:
                label = it.text(idle.get(it.kind, ()))
            elif action.startswith("@"):
                words = self.board.cell_words(action, self.side)
                label = f"{action} ({words})" if words else action
            else:
                label = action
            out.append(clean(label))
        return out

    def placing_hint(self) -> list[str]:
        """When the choice is among pieces not on the court, the prompt cannot say where the one
        chosen goes (its text is fixed), so the free fields of the seat's side are named under
        it: `free on your side: field 4, field 5, field 6`."""
        legal = [self.items[a] for a in self.obs.get("legal", []) if a in self.items]
        court = self.board.court
        if court is None or not any(self.idle_fields(legal).values()) or self.side not in (0, 1):
            return []
        free = [f"field {n}" for n in sorted(court.fields) if court.field(self.side, n) not in self.placed]
        return wrap("free on your side: " + ", ".join(free), first="  ", rest="    ") if free else []

    def zone_of(self, thing: str) -> str | None:
        """The zone the seat sees `thing` (`#3`) in, or None."""
        return next((z for z, items in self.zone_items.items() if any(it.id == thing for it in items)), None)

    def offers(self) -> list[tuple[int, int]]:
        """What the person picks from: (index of a legal choice, how many choices it stands for).
        Cards alike in everything but their id, in the same zone, are offered once, as the first
        of them, with a count: which of two equal cards is played changes nothing a person can
        see. Alike cards in two zones (one in the hand, one face up) are two offers: where the
        card played comes from is a choice."""
        legal = self.obs.get("legal", [])
        firsts: dict[str, int] = {}
        out: list[list[int]] = []
        for i, action in enumerate(legal):
            it = self.items.get(action)
            key = f"{self.zone_of(action)}:{it.kind}({it.desc.partition('(')[2]}" if it is not None else None
            if key is not None and key in firsts:
                out[firsts[key]][1] += 1
                continue
            if key is not None:
                firsts[key] = len(out)
            out.append([i, 1])
        return [(i, n) for i, n in out]

    def choice_lines(self) -> list[Line]:
        prompt = clean(self.obs.get("prompt", ""))
        who = f"seat {self.seat}, " if len(self.you) > 1 else ""
        lines = [text_line(s, "prompt") for s in wrap(f"{who}{prompt}", first="> ", rest="  ")]
        lines += [text_line(s, "dim") for s in self.placing_hint()]
        offers = self.offers()
        labels = self.labels()
        nw = len(str(len(offers)))
        lead = " " * (nw + 4)
        if any(width(lead + labels[i]) > WIDTH for i, _ in offers):  # cards in short: the fields named once
            labels, kinds = self._short_labels()
            for kind, fields in kinds.items():
                lines.append(text_line(truncate(clean(f"{lead}{kind}({'/'.join(fields)}):"), WIDTH), "dim"))
        where = self._zones_named([i for i, _ in offers])
        labels = [labels[i] + where.get(i, "") + (f" \u00d7{n}" if n > 1 else "") for i, n in offers]
        table = _columns(labels, nw)
        if table:
            return lines + table
        for i, label in enumerate(labels, 1):
            lead = f"  {str(i).rjust(nw)}) "
            parts = wrap(label, first=lead, rest=" " * len(lead))
            lines.append([(lead, "num"), (parts[0][len(lead):], None)])
            lines += [text_line(p) for p in parts[1:]]
        return lines

    def _zones_named(self, indices: list[int]) -> dict[int, str]:
        """When the things offered lie in more than one zone, each one's zone (` in faceup[0]`),
        by its index among the legal choices: alike cards of two zones are told apart."""
        legal = self.obs.get("legal", [])
        zones = {i: self.zone_of(legal[i]) for i in indices if legal[i] in self.items}
        if len(set(zones.values())) < 2:
            return {}
        return {i: f" in {clean(z)}" for i, z in zones.items() if z is not None}

    def _short_labels(self) -> tuple[list[str], dict[str, list[str]]]:
        """Cards as `#3 Tile(2/A)`, and per kind the fields those values are of."""
        legal = self.obs.get("legal", [])
        idle = self.idle_fields([self.items[a] for a in legal if a in self.items])
        labels, kinds = [], {}
        for action, full in zip(legal, self.labels()):
            it = self.items.get(action)
            if it is None or len(self.board.kind_fields.get(it.kind, [])) < 2:
                labels.append(full)
                continue
            skip = idle.get(it.kind, ())
            kinds.setdefault(it.kind, [f for f in self.board.kind_fields[it.kind] if f not in skip])
            labels.append(clean(f"{it.id} {it.kind}({it.values(skip)})"))
        return labels, kinds

    def ask(self) -> str:
        n = len(self.offers())
        return f"your choice (1-{n}, ? choices, q leave): "


COLUMNS_FROM = 13  # choices listed one a line up to 12; more, when short, in columns


def _columns(labels: list[str], nw: int) -> list[Line]:
    """Many short choices (`1) 1`, `2) 2`, ... `40) 40`) side by side, numbered down each column
    as `ls` lists files, so that the question above them stays on a 24-line screen; [] when they
    are few, or too wide for two columns."""
    if len(labels) < COLUMNS_FROM:
        return []
    cells = [(f"{str(i).rjust(nw)}) ", label) for i, label in enumerate(labels, 1)]
    cw = max(width(a + b) for a, b in cells) + 3  # a cell and the gap after it
    cols = (WIDTH - 2 + 3) // cw
    if cols < 2:
        return []
    rows = -(-len(cells) // cols)
    out: list[Line] = []
    for r in range(rows):
        line: Line = [("  ", None)]
        for num, label in cells[r::rows]:
            line += [(num, "num"), (label + " " * (cw - width(num + label)), None)]
        out.append(line)
    return out


def _listing(head: str, words: list[str], cap: int | None) -> list[str]:
    """`head` and the comma-separated `words`, wrapped; cut to `cap` lines by leaving out the
    first words (`... N more,`), since the last are the latest (a move puts a thing on top)."""
    def lay(ws: list[str], more: int) -> list[str]:
        ws = [w + ("," if i < len(ws) - 1 else "") for i, w in enumerate(ws)]
        return wrap([head] + ([f"... {more} more,"] if more else []) + ws, rest="    ")
    out = lay(words, 0)
    cut = 0
    while cap is not None and len(out) > cap and cut < len(words) - 1:
        cut += 1
        out = lay(words[cut:], cut)
    return out


def _row_side(court, y: int) -> int:
    if 0 <= y < court.rows:
        return 0
    if court.rows + court.net <= y < court.height:
        return 1
    if court.rows <= y < court.rows + court.net:
        return -1
    return 0 if y < 0 else 1


def _fit(spans: list, w: int) -> Line:
    """Spans cut or padded to exactly `w` columns."""
    out: Line = []
    used = 0
    for t, style in spans:
        if used >= w:
            break
        if used + width(t) > w:
            t = truncate(t, w - used)
        out.append((t, style))
        used += width(t)
    out.append((" " * (w - used), None))
    return out


# ---------------------------------------------------------------------------------------- events
def event_lines(events: list[dict], board: Board, screen: Screen, known=frozenset(), unseen=frozenset()) -> list[Line]:
    """The events as the seat may know them, in the rule file's words (`render_events`).

    The log is written for replay and holds everything; a person sees less. Another seat's
    choice shows the card chosen only when the seat may see that card now (an id alone would
    tell which card it is: ids follow the order the rule file creates things in), and never
    whether it was that seat's only option (that would tell what its hidden hand holds). A card
    chosen is shown as it was offered, without the fields that placed nothing (`idle_fields`). A
    choice of the person's own (one of `screen.you`) whose position among `events` is in `known`
    chose a card the person saw as they chose it: it is shown even when out of sight now (put
    face down). A choice of another seat's declined (`pass`) whose position is in `unseen` is not
    shown at all: it offered things the person may not see, and was put only because there was
    something to choose (`where` over a hidden hand), so that it was put at all would tell what
    the hand holds. A card drawn at random (`pick`) is named only when the seat may see it now."""
    from vbr.report import render_events
    lines: list[Line] = []
    for k, e in enumerate(events):
        if e.get("t") == "choice":
            seat = e["seat"]
            what = e["action"]
            if k in unseen and seat not in screen.you and e.get("kind") == "none":
                continue
            if "item" in e and (what in screen.items or (seat in screen.you and k in known)):
                # as it was offered: without the fields that placed nothing
                it = Item(e["item"], board)
                what = it.text(screen.idle_fields([it]).get(it.kind, ()))
            elif "item" in e:
                what = "(hidden)"
            prompt = e.get("prompt", "")
            if seat in screen.you:
                text = f"you (seat {seat}): {prompt} -> {what}" + (" (only option)" if e.get("of") == 1 else "")
                style = "mine"
            else:
                text, style = f"seat {seat}: {prompt} -> {what}", None
            lines += [text_line(s, style) for s in wrap(clean(text), first="  ", rest="      ")]
            continue
        if e.get("t") == "pick" and re.fullmatch(r"#\d+", str(e.get("value"))) and e["value"] not in screen.items:
            e = {**e, "value": "(hidden)"}  # a card drawn blind that stays hidden: its id would name it
        for r in render_events([e]):
            style = "result" if e.get("t") == "end" else None
            lines += [text_line(s, style) for s in wrap(r.strip(), first="  " if r.startswith(" ") else "",
                                                        rest="      ")]
    return lines
