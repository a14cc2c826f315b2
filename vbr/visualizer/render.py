"""Turn-flow graph → Graphviz DOT text, and DOT text → SVG, PNG or PDF through the real `dot`.

Writing DOT ourselves keeps the layout choices in one readable place: stages become nested
clusters, automatic edges (no one chooses in the phase they leave) are dashed, and an optional
overlay of counts from simulated games thickens the edges play took and greys out the phases it
never reached, so a diagram shows at a glance which parts of the rules real games use.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import networkx as nx

from vbr.visualizer.graph import END, START

FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
FONT = "Helvetica"
UNREACHED = "lightgrey"

Overlay = dict[tuple[str, str], int]


class RenderError(Exception):
    """The diagram could not be written: no Graphviz, an unknown format, a file that won't open."""


def to_dot(graph: nx.DiGraph, overlay: Overlay | None = None) -> str:
    """DOT text for the graph; `overlay` maps (from, to) to how often games took that step
    (from "" means the start, as in `state.trace`)."""
    counts = _counts(overlay)
    title = graph.graph.get("title", "turn flow")
    lines = [f"digraph {_q(title)} {{",
             f"  graph [label={_q(title)}, labelloc=t, fontname={_q(FONT)}, compound=true];",
             f"  node [shape=box, style=rounded, fontname={_q(FONT)}];",
             f"  edge [fontname={_q(FONT)}, fontsize=10];"]
    lines += _nodes_in(graph, (), counts, "  ")
    lines += ["  " + _edge(u, v, data, counts) for u, v, data in graph.edges(data=True)]
    lines += ["  " + _stray(key, n) for key, n in (counts or {}).items() if not graph.has_edge(*key)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _counts(overlay: Overlay | None) -> Overlay | None:
    if overlay is None:
        return None
    out: Overlay = {}
    for (src, dst), n in overlay.items():
        key = (src or START, dst)
        out[key] = out.get(key, 0) + n
    return out


# ---------------------------------------------------------------------------------- nodes
def _nodes_in(g: nx.DiGraph, path: tuple[str, ...], counts: Overlay | None, indent: str) -> list[str]:
    """The nodes directly inside the stage `path` (() is the top level), then its sub-stages."""
    lines = [indent + _node(n, data, counts) for n, data in g.nodes(data=True)
             if tuple(data.get("stages", ())) == path]
    titles = g.graph.get("stages", {})
    for stage in _child_stages(g, path):
        lines.append(f"{indent}subgraph {_q('cluster_' + stage)} {{")
        lines.append(f"{indent}  label={_q(titles.get(stage, stage))}; style=rounded; color=gray50;")
        lines += _nodes_in(g, path + (stage,), counts, indent + "  ")
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


def _node(name: str, data: dict, counts: Overlay | None) -> str:
    kind = data.get("kind", "phase")
    if kind == "start":
        return f"{_q(name)} {_attrs(shape='circle', label=START, style='filled', fillcolor='black', fontcolor='white')};"
    if kind == "end":
        return f"{_q(name)} {_attrs(shape='doublecircle', label=END)};"
    lines = [name]
    if data.get("title") and data["title"] != name:
        lines.append(data["title"])
    if data.get("actors"):
        lines.append("by " + ", ".join(data["actors"]))
    attrs = {"label": "\n".join(lines)}
    if counts is not None and not _reached(name, counts):
        attrs.update(style="rounded,filled", fillcolor=UNREACHED, fontcolor="gray40")
    return f"{_q(name)} {_attrs(**attrs)};"


def _reached(phase: str, counts: Overlay) -> bool:
    return any(phase in key for key in counts)


# ---------------------------------------------------------------------------------- edges
def _edge(u: str, v: str, data: dict, counts: Overlay | None) -> str:
    attrs = {"label": _guard_label(data)}
    if data.get("auto"):
        attrs["style"] = "dashed"
    if counts is not None:
        n = counts.get((u, v), 0)
        if n:
            attrs["label"] = "\n".join(t for t in (attrs["label"], f"×{n}") if t)
            attrs["penwidth"] = f"{1 + 4 * n / max(counts.values()):.2f}"
        else:
            attrs.update(color="gray60", fontcolor="gray60")
    return f"{_q(u)} -> {_q(v)} {_attrs(**attrs)};"


def _guard_label(data: dict) -> str:
    """The guard over several lines, one conjunct each, so long conditions stay readable."""
    if not data.get("guard"):
        return ""
    alternatives = data.get("alternatives") or [[data["guard"]]]
    return "\nor\n".join("\nand ".join(a) for a in alternatives)


def _stray(key: tuple[str, str], n: int) -> str:
    """A step games took that the static graph lacks: drawn in red, as it points at a bug."""
    return f"{_q(key[0])} -> {_q(key[1])} {_attrs(label=f'×{n} (not in the rules graph)', color='red', fontcolor='red')};"


# ---------------------------------------------------------------------------------- DOT text
def _q(text: str) -> str:
    """A DOT quoted string. Newlines become DOT's centred line break `\\n`."""
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _attrs(**attrs) -> str:
    return "[" + ", ".join(f"{k}={_q(v)}" for k, v in attrs.items()) + "]"


# ---------------------------------------------------------------------------------- files
def render(dot_text: str, out_path: str | Path) -> Path:
    """Write DOT text as-is (.dot) or drawn by Graphviz's `dot` (.svg, .png, .pdf)."""
    out = Path(out_path)
    suffix = out.suffix.lower()
    if suffix == ".dot":
        _write(out, dot_text)
    elif suffix in FORMATS:
        _run_dot(dot_text, out, FORMATS[suffix])
    else:
        raise RenderError(f"cannot write {out}: give a file ending in .svg, .png, .pdf or .dot")
    return out


def _write(out: Path, text: str) -> None:
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RenderError(f"cannot write {out}: {exc.strerror}") from None


def _run_dot(dot_text: str, out: Path, fmt: str) -> None:
    exe = shutil.which("dot")
    if exe is None:
        raise RenderError(f"cannot draw {out}: Graphviz's `dot` program is not installed (or not on PATH). "
                          "Install Graphviz (`apt install graphviz`, `brew install graphviz`), "
                          "or write the DOT text with `-o FILE.dot`")
    try:
        done = subprocess.run([exe, f"-T{fmt}", "-o", str(out)], input=dot_text, text=True,
                              capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RenderError(f"cannot run Graphviz's `dot`: {exc}") from None
    if done.returncode != 0:
        raise RenderError(f"Graphviz's `dot` could not draw {out}: {done.stderr.strip()}")
