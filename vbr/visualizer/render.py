"""Turn-flow graph → Graphviz DOT text, and DOT text → SVG, PNG or PDF through the `graphviz`
package (which runs Graphviz's `dot`).

Writing DOT ourselves keeps the layout choices in one readable place: stages become nested
clusters, automatic edges (no one chooses in the phase they leave) are dashed, and an optional
overlay of counts from simulated games thickens the edges play took and greys out the phases it
never reached, so a diagram shows at a glance which parts of the rules real games use.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import networkx as nx

from vbr.errors import UsageError
from vbr.terminal import clean
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
    """A DOT quoted string. Newlines become DOT's centred line break `\\n`; control characters from
    the rule file are shown as `\\xNN` (vbr/terminal.py), so neither the DOT text on a terminal nor
    the drawing carries them raw."""
    escaped = clean(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _attrs(**attrs) -> str:
    return "[" + ", ".join(f"{k}={_q(v)}" for k, v in attrs.items()) + "]"


# ---------------------------------------------------------------------------------- files
def check_output(out_path: str | Path) -> Path:
    """The file `render` can write: a known format, in a folder that exists. Checked before any
    work, so that a long `--sim` is not wasted on a name that cannot be written."""
    out = Path(out_path)
    if out.suffix.lower() not in (*FORMATS, ".dot"):
        raise UsageError(f"cannot write {out}: give a file ending in .svg, .png, .pdf or .dot")
    if out.is_dir():
        raise UsageError(f"cannot write {out}: it is a directory")
    if not out.parent.is_dir():
        raise UsageError(f"cannot write {out}: the folder {out.parent} does not exist")
    return out


def render(dot_text: str, out_path: str | Path) -> Path:
    """Write DOT text as-is (.dot) or drawn by Graphviz (.svg, .png, .pdf), through the `graphviz`
    package. The file appears whole or not at all: written beside its name, then renamed over it."""
    out = check_output(out_path)
    suffix = out.suffix.lower()
    data = dot_text.encode("utf-8") if suffix == ".dot" else draw(dot_text, FORMATS[suffix])
    _write_atomic(out, data)
    return out


def draw(dot_text: str, fmt: str) -> bytes:
    """DOT text drawn by Graphviz's `dot` into `fmt` (svg, png, pdf)."""
    import graphviz
    try:
        return graphviz.Source(dot_text, engine="dot").pipe(format=fmt, quiet=True)
    except graphviz.ExecutableNotFound:
        raise RenderError("cannot draw: Graphviz's `dot` program is not installed (or not on PATH). "
                          "Install Graphviz (`apt install graphviz`, `brew install graphviz`), "
                          "or write the DOT text with `-o FILE.dot`") from None
    except graphviz.CalledProcessError as exc:
        said = (exc.stderr or b"").decode("utf-8", "replace").strip()
        raise RenderError(f"Graphviz's `dot` could not draw the graph: {said or f'exit status {exc.returncode}'}") from None
    except OSError as exc:
        raise RenderError(f"cannot run Graphviz's `dot`: {exc.strerror or exc}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_atomic(out: Path, data: bytes) -> None:
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # as a plain open() would make it, not mkstemp's 0600
        os.replace(tmp, out)
    except OSError as exc:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        raise RenderError(f"cannot write {out}: {(exc.strerror or str(exc)).lower()}") from None
    except BaseException:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        raise
