"""Turn-flow graph → Graphviz DOT text, and DOT text → SVG, PNG or PDF through the `graphviz`
package (which runs Graphviz's `dot`).

Writing DOT ourselves keeps the layout choices in one readable place: stages become nested
clusters, automatic edges (no one chooses in the phase they leave) are dashed, and an optional
overlay of counts from simulated games thickens the edges play took and greys out the phases it
never reached, so a diagram shows at a glance which parts of the rules real games use.
"""
from __future__ import annotations

import re

from pathlib import Path
from typing import Iterable

import networkx as nx

from vbr.atomic_file import can_create_in, no_folder, write_atomic
from vbr.errors import UsageError
from vbr.flow_steps import FlowCounts
from vbr.terminal import clean
from vbr.visualizer.graph import END, START
from vbr.visualizer.labels import MAX_LINES, full, short

FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
FONT = "Helvetica"
UNREACHED = "lightgrey"

Overlay = FlowCounts  # what games did along the drawn edges, and how often they entered each node


class RenderError(Exception):
    """The diagram could not be written: no Graphviz, an unknown format, a file that won't open."""


LABELS = ("short", "full", "none")


def to_dot(graph: nx.DiGraph, overlay: Overlay | None = None, labels: str = "short", games: int | None = None,
           expand: Iterable[str] = (), links: dict[str, str] | None = None) -> str:
    """DOT text for the graph; `overlay`: how often `games` games took each step between the
    graph's nodes (a procedure's node entered by its call, left by a `goto`, the end, or its
    return to its caller's node) and entered each node (vbr.flow_steps). `labels`: short, full or
    none (the full guard is always the edge's tooltip). `expand`: phases (or procedure nodes)
    whose choice points are listed beside them. `links`: node → URL (the report's source lines)."""
    if labels not in LABELS:
        raise UsageError(f"--labels {labels!r}: choose short, full or none")
    counts = overlay.steps if overlay is not None else None
    shares = _shares(counts)
    visits = _visits(graph, overlay, games) if overlay is not None else None
    title = graph.graph.get("title", "turn flow")
    lines = [f"digraph {_q(title)} {{",
             f"  graph [label={_q(title)}, labelloc=t, fontname={_q(FONT)}, compound=true, tooltip={_q(title)}, "
             "nodesep=0.25, ranksep=0.4];",
             f"  node [shape=box, style=rounded, fontname={_q(FONT)}, fontsize=12, margin=\"0.1,0.04\"];",
             f"  edge [fontname={_q(FONT)}, fontsize=10];"]
    ctx = _Drawing(counts, visits, set(expand), links or {})
    lines += _nodes_in(graph, (), ctx, "  ")
    lines += ["  " + _edge(u, v, data, counts, shares, labels, _hands_back(graph, u, v))
              for u, v, data in graph.edges(data=True)]
    lines += ["  " + _stray(key, n) for key, n in (counts or {}).items() if not graph.has_edge(*key)]
    for name in sorted(ctx.expand):
        if name in graph:
            lines += _expansion(name, graph.nodes[name], "  ")
    lines.append("}")
    return "\n".join(lines) + "\n"


class _Drawing:
    def __init__(self, counts, visits, expand, links):
        self.counts, self.visits, self.expand, self.links = counts, visits, expand, links


def _shares(counts: Overlay | None) -> dict[tuple[str, str], float]:
    """Each step's share of the exits from its node."""
    if counts is None:
        return {}
    total: dict[str, int] = {}
    for (u, _), n in counts.items():
        total[u] = total.get(u, 0) + n
    return {(u, v): n / total[u] for (u, v), n in counts.items() if total[u]}


def _visits(graph: nx.DiGraph, overlay: Overlay, games: int | None) -> dict[str, float]:
    """How often play entered each node, per game (the start: once a game): a phase by a `goto`,
    a procedure's node by a call, never a node by a return into it."""
    entered = overlay.entered
    games = games or entered.get(END, 0) or 1
    out = {n: entered.get(n, 0) / games for n in graph.nodes}
    out[START] = 1.0
    return out


# ---------------------------------------------------------------------------------- nodes
def _nodes_in(g: nx.DiGraph, path: tuple[str, ...], ctx: _Drawing, indent: str) -> list[str]:
    """The nodes directly inside the stage `path` (() is the top level), then its sub-stages."""
    lines = [indent + _node(n, data, ctx) for n, data in g.nodes(data=True)
             if tuple(data.get("stages", ())) == path]
    titles = g.graph.get("stages", {})
    for stage in _child_stages(g, path):
        lines.append(f"{indent}subgraph {_q('cluster_' + stage)} {{")
        lines.append(f"{indent}  label={_q(titles.get(stage, stage))}; style=rounded; color=gray50;")
        lines += _nodes_in(g, path + (stage,), ctx, indent + "  ")
        lines.append(indent + "}")
    return lines


def _child_stages(g: nx.DiGraph, path: tuple[str, ...]) -> list[str]:
    """Stages directly inside `path` that hold a phase, in the order the rule file declares them."""
    found = set()
    for stages in nx.get_node_attributes(g, "stages").values():
        if len(stages) > len(path) and tuple(stages[:len(path)]) == path:
            found.add(stages[len(path)])
    order = list(g.graph.get("stages", {}))
    return sorted(found, key=lambda s: order.index(s) if s in order else len(order))


def actor_words(actor: str) -> str:
    """Who chooses, the way the rules read: `holder` is the holder, `0` seat 0, a loop over
    `seats` each seat, `by team scorer` team scorer, `seat_of(coach)` the seat of the coach, `lead(t)` the lead of t, `can[0]`
    the first of the can; anything else stays the expression the rule file wrote."""
    if actor.isdigit():
        return f"seat {actor}"
    if actor.startswith("team "):
        rest = actor[len("team "):]
        return "each team" if rest == "each of teams" else "team " + _words(rest).removeprefix("the ")
    if actor.startswith("each of "):
        rest = actor[len("each of "):]
        head = rest.split("(", 1)[0]
        return f"each {head[:-1]}" if head.isidentifier() and head.endswith("s") else actor
    return _words(actor)


_ORDINALS = ("first", "second", "third", "fourth")


def _words(expr: str) -> str:
    """A name, a call of one argument or an index by a number, in words; else the expression."""
    expr = expr.strip()
    if expr.isidentifier():
        return "the " + expr.replace("_", " ") if len(expr) > 1 and not expr.isupper() else expr
    call = re.fullmatch(r"([a-z]\w*)\(([^(),]*)\)", expr)
    if call:
        return f"the {call.group(1).removesuffix('_of').replace('_', ' ')} of {_words(call.group(2))}"
    index = re.fullmatch(r"(\w+)\[([0-3])\]", expr)
    if index:
        return f"the {_ORDINALS[int(index.group(2))]} of {_words(index.group(1))}"
    return expr


def _node(name: str, data: dict, ctx: _Drawing) -> str:
    kind = data.get("kind", "phase")
    extra = {}
    if name in ctx.links:
        extra["URL"] = ctx.links[name]
        extra["target"] = "_top"
    span = data.get("span")
    if span is not None and getattr(span, "line", None):
        extra["tooltip"] = f"{name}: line {span.line}"
    visits = ctx.visits.get(name) if ctx.visits is not None else None
    if kind == "start":
        return f"{_q(name)} {_attrs(shape='circle', label=START, style='filled', fillcolor='black', fontcolor='white', **extra)};"
    if kind == "end":
        label = END if visits is None else f"{END}\n{visits:.2g}/game"
        return f"{_q(name)} {_attrs(shape='doublecircle', label=label, **extra)};"
    lines = [name]
    if data.get("title") and data["title"] != name and kind != "proc":
        lines.append(data["title"])
    if data.get("actors"):
        lines.append(_who(data["actors"]))
    if visits is not None:
        shown = _per_game(visits)
        lines.append(f"{shown} visit{'' if shown == '1' else 's'}/game")
    attrs = {"label": "\n".join(lines)}
    if kind == "proc":
        attrs.update(style="rounded,filled", fillcolor="#eef3fb")
    if ctx.counts is not None and not _reached(name, ctx.counts):
        attrs.update(style="rounded,filled", fillcolor=UNREACHED, fontcolor="gray40")
    attrs.update(extra)
    return f"{_q(name)} {_attrs(**attrs)};"


def _who(actors: list[str], width: int = 24, lines: int = 3) -> str:
    """`by the holder, seat 0`: as many actors as fit on `lines` lines of `width` characters,
    then how many more."""
    words = list(dict.fromkeys(actor_words(a) for a in actors))
    rows = [["by " + words[0]]]
    shown = 1
    for w in words[1:]:
        if len(", ".join(rows[-1] + [w])) > width:
            if len(rows) == lines:
                break
            rows.append([])
        rows[-1].append(w)
        shown += 1
    more = len(words) - shown
    text = ",\n".join(", ".join(r) for r in rows)
    return text + (f" +{more} more" if more else "")


def _per_game(x: float) -> str:
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}".rstrip("0").rstrip(".") if x else "0"


def _reached(phase: str, counts: Overlay) -> bool:
    return any(phase in key for key in counts)


def _expansion(name: str, data: dict, indent: str) -> list[str]:
    """The choice points a node reaches, listed in a box beside it, in the order play meets them."""
    points = data.get("choice_points") or []
    own = name[:-2] if name.endswith("()") else None
    rows = []
    for i, cp in enumerate(points, 1):
        where = f" (in {cp.proc}())" if cp.proc and cp.proc != own else ""
        rows.append(f"{i}. {cp.prompt} — by {actor_words(cp.actor)}{where}")
    if not rows:
        rows = ["no choice points: play goes on by itself"]
    box = f"choices: {name}"
    label = "\\l".join(_esc(r) for r in [f"choice points of {name}:"] + rows) + "\\l"
    tip = "\n".join(f"{i}. line {cp.span.line}: {cp.prompt}" for i, cp in enumerate(points, 1)) or name
    return [f"{indent}{_q(box)} [shape=note, fontsize=10, label=\"{label}\", tooltip={_q(tip)}];",
            f"{indent}{_q(name)} -> {_q(box)} [style=dotted, arrowhead=none, tooltip={_q('inside ' + name)}];"]


# ---------------------------------------------------------------------------------- edges
def _hands_back(graph: nx.DiGraph, u: str, v: str) -> bool:
    """Whether an edge leads from a procedure's box to a phase: play handed back into the turn,
    usually to a phase drawn above the procedure. Such edges do not rank their ends (dot's
    `constraint=false`): ranked, they pull the procedure up among its callers, and the arrows into
    it then cross the labels of its neighbours' arrows."""
    return graph.nodes[u].get("kind") == "proc" and graph.nodes[v].get("kind") == "phase"


def _edge(u: str, v: str, data: dict, counts: Overlay | None, shares: dict, labels: str,
          hands_back: bool = False) -> str:
    guard = _guard_label(data)
    named = data.get("named") or []
    names = data.get("names") if named and all(named) else None  # every way there is named
    if labels == "full":
        label = "\n".join(t for t in ("\n".join(data.get("names") or []), guard) if t)
    elif labels == "short":
        label = short(data.get("alternatives") or ([[data["guard"]]] if data.get("guard") else [[]]), names,
                      MAX_LINES - (counts is not None))
    else:
        label = ""
    tip = guard or "no condition"
    if data.get("names"):
        tip = " / ".join(data["names"]) + ": " + tip
    attrs = {"label": label, "tooltip": tip, "labeltooltip": tip}
    if data.get("auto"):
        attrs["style"] = "dashed"
    if hands_back:
        attrs["constraint"] = "false"
    if data.get("returns"):
        attrs.update(constraint="false", color="gray50", fontcolor="gray40")
    if counts is not None:
        n = counts.get((u, v), 0)
        if n:
            attrs["label"] = "\n".join(t for t in (attrs["label"], f"{100 * shares.get((u, v), 0):.0f}%") if t)
            attrs["penwidth"] = f"{1 + 4 * n / max(counts.values()):.2f}"
            attrs["tooltip"] += f"\n(taken {n} times: {100 * shares.get((u, v), 0):.1f}% of the exits from {u})"
            attrs["labeltooltip"] = attrs["tooltip"]
        else:
            attrs.update(color="gray60", fontcolor="gray60")
    return f"{_q(u)} -> {_q(v)} {_attrs(**attrs)};"


def _guard_label(data: dict) -> str:
    """The guard over several lines, one conjunct each, so long conditions stay readable."""
    if not data.get("guard"):
        return ""
    alternatives = data.get("alternatives") or [[data["guard"]]]
    return full(alternatives)


def _stray(key: tuple[str, str], n: int) -> str:
    """A step games took that the static graph lacks: drawn in red, as it points at a bug."""
    return f"{_q(key[0])} -> {_q(key[1])} {_attrs(label=f'×{n} (not in the rules graph)', color='red', fontcolor='red')};"


# ---------------------------------------------------------------------------------- DOT text
def _esc(text: str) -> str:
    """Text for inside a DOT quoted string (see `_q`)."""
    return clean(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _q(text: str) -> str:
    """A DOT quoted string. Newlines become DOT's centred line break `\\n`; control characters from
    the rule file are shown as `\\xNN` (vbr/terminal.py), so neither the DOT text on a terminal nor
    the drawing carries them raw."""
    escaped = clean(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _attrs(**attrs) -> str:
    return "[" + ", ".join(f"{k}={_q(v)}" for k, v in attrs.items()) + "]"


# ---------------------------------------------------------------------------------- files
def check_output(out_path: str | Path) -> Path:
    """The file `render` can write: a known format, in a folder that exists and takes a new file.
    Checked before any work, so that a long `--sim` is not wasted on a name that cannot be written."""
    out = Path(out_path)
    if out.suffix.lower() not in (*FORMATS, ".dot"):
        raise UsageError(f"cannot write {out}: give a file ending in .svg, .png, .pdf or .dot")
    if out.is_dir():
        raise UsageError(f"cannot write {out}: it is a directory")
    if not out.parent.is_dir():
        raise UsageError(f"cannot write {out}: {no_folder(out.parent)}")
    why = can_create_in(out.parent)
    if why is not None:
        raise UsageError(f"cannot write {out}: cannot write in {out.parent}: {why}")
    return out


def render(dot_text: str, out_path: str | Path) -> Path:
    """Write DOT text as-is (.dot) or drawn by Graphviz (.svg, .png, .pdf), through the `graphviz`
    package. The file appears whole or not at all: written beside its name, then renamed over it."""
    out = check_output(out_path)
    suffix = out.suffix.lower()
    data = dot_text.encode("utf-8") if suffix == ".dot" else draw(dot_text, FORMATS[suffix], NO_DOT_FOR_FILE)
    _write_atomic(out, data)
    return out


NO_DOT = ("cannot draw: Graphviz's `dot` program is not installed (or not on PATH). "
          "Install Graphviz (`apt install graphviz`, `brew install graphviz`)")
NO_DOT_FOR_FILE = NO_DOT + ", or write the DOT text with `-o FILE.dot`"  # `vbr graph -o`, which can write it


def require_dot(out_path: str | Path | None = None) -> None:
    """A RenderError when drawing into `out_path` (any drawing, when None) needs Graphviz's `dot`
    and none is on the PATH: what a command checks before its games, so that they are not played
    for a drawing that cannot be made. DOT text (.dot) needs no `dot`, and only a drawing into a
    file of its own (`out_path` given) is told it could be written as DOT text instead."""
    import shutil
    if out_path is not None and Path(out_path).suffix.lower() == ".dot":
        return
    if shutil.which("dot") is None:
        raise RenderError(NO_DOT if out_path is None else NO_DOT_FOR_FILE)


def draw(dot_text: str, fmt: str, missing: str = NO_DOT) -> bytes:
    """DOT text drawn by Graphviz's `dot` into `fmt` (svg, png, pdf); a RenderError saying
    `missing` when there is no `dot`."""
    import graphviz
    try:
        return graphviz.Source(dot_text, engine="dot").pipe(format=fmt, quiet=True)
    except graphviz.ExecutableNotFound:
        raise RenderError(missing) from None
    except graphviz.CalledProcessError as exc:
        said = (exc.stderr or b"").decode("utf-8", "replace").strip()
        raise RenderError(f"Graphviz's `dot` could not draw the graph: {said or f'exit status {exc.returncode}'}") from None
    except OSError as exc:
        raise RenderError(f"cannot run Graphviz's `dot`: {exc.strerror or exc}") from None


def _write_atomic(out: Path, data: bytes) -> None:
    try:
        write_atomic(out, data)
    except OSError as exc:
        raise RenderError(f"cannot write {out}: {(exc.strerror or str(exc)).lower()}") from None
