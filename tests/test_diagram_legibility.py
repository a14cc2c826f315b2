"""Legibility from dot's own layout: every bundled diagram fits 1,600 × 1,600 px at 96 dpi, and
no edge label runs over 4 lines with `--labels short` (the default)."""
from __future__ import annotations

import json
import shutil

import pytest

from vbr.loader import bundled_names
from vbr.visualizer.command import load_graph
from vbr.visualizer.render import draw, to_dot

MAX_PX = 1600
DPI = 96


def layout(name: str, **kw) -> dict:
    _, _, graph = load_graph(name, {})
    return json.loads(draw(to_dot(graph, **kw), "json"))


def size_px(drawing: dict) -> tuple[float, float]:
    """The bounding box (points, 72 a inch) in pixels at 96 dpi."""
    x0, y0, x1, y1 = (float(v) for v in drawing["bb"].split(","))
    return (x1 - x0) * DPI / 72, (y1 - y0) * DPI / 72


def label_lines(drawing: dict) -> list[tuple[str, int]]:
    """Each edge's label as dot drew it, and its number of lines (`_ldraw_` has one text op a line)."""
    out = []
    for e in drawing.get("edges", []):
        texts = [op for op in e.get("_ldraw_", []) if op.get("op") == "T"]
        out.append((" / ".join(op["text"] for op in texts), len(texts)))
    return out


@pytest.mark.parametrize("name", bundled_names())
def test_each_bundled_diagram_fits_and_keeps_labels_short(name):
    assert shutil.which("dot"), "Graphviz's `dot` must be installed to test diagrams"
    drawing = layout(name)
    w, h = size_px(drawing)
    assert w <= MAX_PX and h <= MAX_PX, f"{name}: {w:.0f} × {h:.0f} px"
    lines = label_lines(drawing)
    assert lines, f"{name}: no edges drawn"
    longest = max(lines, key=lambda t: t[1])
    assert longest[1] <= 4, f"{name}: a label of {longest[1]} lines: {longest[0]}"


@pytest.mark.parametrize("name", bundled_names())
def test_full_labels_keep_the_whole_guard(name):
    _, _, graph = load_graph(name, {})
    dot = to_dot(graph, labels="full")
    for _, _, data in graph.edges(data=True):
        if not data.get("guard"):
            continue  # taken whichever way its tests go: no condition to show
        for alternative in data.get("alternatives") or []:
            for term in alternative:
                assert term.replace('"', '\\"') in dot


def test_volleyball_highs_turn_expanded_still_fits():
    _, _, graph = load_graph("volleyball-high", {"mode": "1v1"}, fold=True)
    drawing = json.loads(draw(to_dot(graph, expand=["touch"]), "json"))
    w, h = size_px(drawing)
    assert w <= MAX_PX and h <= MAX_PX, f"{w:.0f} × {h:.0f} px"
    listed = [o["text"] for n in drawing["objects"] if n.get("name") == "choices: touch" for o in n.get("_ldraw_", [])
              if o.get("op") == "T"]
    assert listed[0] == "choice points of touch:" and len(listed) > 3
    assert any("(in take())" in t for t in listed)  # a choice inside a procedure the phase calls
