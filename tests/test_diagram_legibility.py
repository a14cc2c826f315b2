"""Legibility from dot's own layout: every bundled diagram fits 1,600 × 1,600 px at 96 dpi, no
edge label runs over 4 lines with `--labels short` (the default), no label overlaps another label
or a box, and no arrow runs through another arrow's label."""
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


def label_boxes(drawing: dict) -> list[tuple[tuple[int, int], tuple[float, float, float, float], str]]:
    """Each edge label's box (x0, y0, x1, y1 in points) from its text operations: a line of text
    at `pt` is `width` wide, aligned on `pt` as `align` says, and spans from its baseline a quarter
    of the font size down to 0.8 of it up (descenders, ascenders)."""
    out = []
    for e in drawing.get("edges", []):
        ops = e.get("_ldraw_", [])
        texts = [op for op in ops if op.get("op") == "T"]
        if not texts:
            continue
        size = next((op["size"] for op in ops if op.get("op") == "F"), 10)
        xs, ys = [], []
        for op in texts:
            (x, y), w = op["pt"], op["width"]
            left = {"c": x - w / 2, "l": x, "r": x - w}[op["align"]]
            xs += [left, left + w]
            ys += [y - 0.25 * size, y + 0.8 * size]
        out.append(((e["tail"], e["head"]), (min(xs), min(ys), max(xs), max(ys)), " / ".join(op["text"] for op in texts)))
    return out


def node_boxes(drawing: dict) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Each node's box: `pos` is its centre, `width` and `height` in inches (72 points each)."""
    out = []
    for o in drawing["objects"]:
        if "pos" in o and "width" in o:
            x, y = (float(v) for v in o["pos"].split(","))
            w, h = float(o["width"]) * 36, float(o["height"]) * 36
            out.append((o["name"], (x - w, y - h, x + w, y + h)))
    return out


def edge_points(edge: dict, steps: int = 16) -> list[tuple[float, float]]:
    """Points along an edge's drawn spline: each cubic Bézier piece of `_draw_` sampled."""
    pts = []
    for op in edge.get("_draw_", []):
        if op.get("op") not in ("b", "B"):
            continue
        p = op["points"]
        for k in range(0, len(p) - 3, 3):
            (x0, y0), (x1, y1), (x2, y2), (x3, y3) = p[k:k + 4]
            for i in range(steps + 1):
                t = i / steps
                a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t * t, t ** 3
                pts.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    return pts


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(p, box, pad: float = 1.0) -> bool:
    return box[0] + pad < p[0] < box[2] - pad and box[1] + pad < p[1] < box[3] - pad


@pytest.mark.parametrize("name", bundled_names())
def test_no_label_overlaps_another_or_a_box_and_no_arrow_runs_through_a_label(name):
    drawing = layout(name)
    names = {o["_gvid"]: o["name"] for o in drawing["objects"]}
    labels = label_boxes(drawing)
    assert labels, f"{name}: no edge labels drawn"
    for i, (_, a, text_a) in enumerate(labels):
        for _, b, text_b in labels[i + 1:]:
            assert not overlap(a, b), f"{name}: label {text_a!r} overlaps label {text_b!r}"
        for node, box in node_boxes(drawing):
            assert not overlap(a, box), f"{name}: label {text_a!r} overlaps the box {node!r}"
    for e in drawing.get("edges", []):
        pts = edge_points(e)
        for key, box, text in labels:
            if key != (e["tail"], e["head"]):
                assert not any(inside(p, box) for p in pts), \
                    f"{name}: the arrow {names[e['tail']]} -> {names[e['head']]} runs through the label {text!r}"


def test_the_overlap_check_sees_a_label_an_arrow_runs_through():
    crossing = {"objects": [{"_gvid": 0, "name": "a"}, {"_gvid": 1, "name": "b"}],
                "edges": [{"tail": 0, "head": 1, "_ldraw_": [{"op": "F", "size": 10},
                                                              {"op": "T", "pt": [50, 50], "align": "c", "width": 40, "text": "x > 1"}]},
                          {"tail": 1, "head": 0, "_draw_": [{"op": "b", "points": [[0, 52], [30, 52], [70, 52], [100, 52]]}]}]}
    (key, box, text), = label_boxes(crossing)
    assert box == (30, 47.5, 70, 58) and any(inside(p, box) for p in edge_points(crossing["edges"][1]))


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
