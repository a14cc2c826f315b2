"""Turn-flow diagrams: the graph's exact shape for small fixtures, its findings, DOT, SVG, the CLI."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vbr
from vbr.checker import build_model
from vbr.cli import main
from vbr.errors import UsageError
from vbr.loader import load_rules
from vbr.visualizer import command, regenerate
from vbr.visualizer.findings import findings
from vbr.visualizer.graph import END, START, build_graph
from vbr.visualizer.render import RenderError, render, to_dot

FIX = Path(__file__).parent / "fixtures" / "valid"
RALLY, EVENTS, PROBLEMS, JUMPS = (str(FIX / f"flow_{n}.vbr") for n in ("rally", "events", "problems", "jumps"))


def vbr_graph(argv: list[str]) -> int:
    return main(["graph", *argv])


def graph_of(path: str) -> nx.DiGraph:
    return build_graph(build_model(load_rules(path)))


def guards(g: nx.DiGraph) -> dict[tuple[str, str], str]:
    return {(u, v): d["guard"] for u, v, d in g.edges(data=True)}


def node_attrs(dot: str, name: str) -> str:
    """The attribute list of a node statement in DOT text."""
    (line,) = [ln.strip() for ln in dot.splitlines() if ln.strip().startswith(f'"{name}" [')]
    return line


def edge_attrs(dot: str, u: str, v: str) -> str:
    (line,) = [ln.strip() for ln in dot.splitlines() if ln.strip().startswith(f'"{u}" -> "{v}" [')]
    return line


def clusters_holding(dot: str) -> dict[str, tuple[str, ...]]:
    """For each node statement, the `subgraph` blocks it sits in, outermost first."""
    stack: list[str] = []
    out: dict[str, tuple[str, ...]] = {}
    for line in dot.splitlines():
        s = line.strip()
        if s.startswith("subgraph "):
            stack.append(s.split('"')[1])
        elif s == "}" and stack:
            stack.pop()
        elif m := re.match(r'^"([^"]+)" \[', s):
            out[m.group(1)] = tuple(stack)
    return out


# ------------------------------------------------------------------------------ the graph
def test_rally_graph_nodes_edges_and_guards():
    g = graph_of(RALLY)
    assert set(g.nodes) == {START, END, "serve", "receive", "fault"}
    assert guards(g) == {
        (START, "serve"): "",
        ("serve", "receive"): "c == 1",
        ("serve", "fault"): "not (c == 1)",
        # the proc's `end` is followed; what comes after it runs only if it did not end
        ("receive", END): "hits >= target",
        ("receive", "fault"): "not (hits >= target) and (d == 3 or hits == 2)",
        ("receive", "serve"): "not (hits >= target) and not (d == 3 or hits == 2)",
        ("fault", "serve"): "",
    }
    auto = {(u, v) for u, v, a in g.edges(data="auto") if a}
    assert auto == {(START, "serve"), ("fault", "serve")}


def test_rally_nodes_carry_kind_stages_actors_titles_and_spans():
    g = graph_of(RALLY)
    assert g.nodes[START]["kind"] == "start" and g.nodes[END]["kind"] == "end"
    assert {n: g.nodes[n]["stages"] for n in ("serve", "receive", "fault")} == {
        "serve": ["match", "rally"], "receive": ["match", "rally"], "fault": ["match"]}
    assert {n: g.nodes[n]["actors"] for n in ("serve", "receive", "fault")} == {
        "serve": ["server"], "receive": ["1 - server"], "fault": []}
    assert [g.nodes[n]["title"] for n in ("serve", "receive", "fault")] == ["Serve", "Receive", "Fault"]
    assert [g.nodes[n]["span"].line for n in ("serve", "receive", "fault")] == [17, 21, 29]
    assert g.edges["receive", END]["span"].line == 10  # the `end` inside the proc
    assert g.graph["stages"] == {"match": "Match", "rally": "Rally"}


def test_setup_handlers_loops_and_merged_edges():
    g = graph_of(EVENTS)
    assert set(g.nodes) == {START, END, "play", "bonus"}
    assert guards(g) == {
        (START, "bonus"): "opener == 1",
        (START, "play"): "not (opener == 1)",
        ("play", "bonus"): "s == 0 or tries > 5",  # a handler's `when` (`who` is `s` there), and a goto in a loop
        ("play", END): "not tries < 2",
        ("play", "play"): "tries < 2",  # not (not tries < 2)
        ("bonus", "play"): "not any(k > tries for k in 1..3) or (not (k == 3) and k == 2)",
        ("bonus", END): "k == 3",
        ("bonus", "bonus"): "not (k == 3) and not (k == 2)",
    }
    merged = g.edges["bonus", "play"]
    assert merged["guards"] == ["not any(k > tries for k in 1..3)", "not (k == 3) and k == 2"]
    assert [s.line for s in merged["spans"]] == [35, 37]
    assert [s.line for s in g.edges["play", "bonus"]["spans"]] == [9, 28]
    assert not any(a for _, _, a in g.edges(data="auto"))  # setup chooses too
    assert g.nodes[START]["actors"] == ["0"]
    assert g.nodes["play"]["actors"] == ["1"] and g.nodes["bonus"]["actors"] == ["0"]
    assert g.nodes["play"]["stages"] == []


def test_a_handler_that_always_jumps_cuts_its_emitter_short():
    g = graph_of(JUMPS)
    assert guards(g) == {
        (START, "play"): "",
        ("play", "rest"): "",  # unconditional through the handler, so the `or` is always true
        ("rest", END): "x > 2",
        ("rest", "play"): "not (x > 2)",
    }  # no play -> play: the `goto play` after `emit whistle()` can never run
    assert g.edges["play", "rest"]["guards"] == ["not (x > 1)", ""]  # after `return`, nothing is known
    assert [s.line for s in g.edges["play", "rest"]["spans"]] == [12, 8]
    assert g.nodes["rest"]["actors"] == ["1"]


def test_a_condition_read_inside_a_procedure_or_handler_is_written_in_its_callers_terms(tmp_path):
    # `s` and `k` mean nothing in phase `p`: the guard `n[s] < 3` there is `n[other(t)] < 3`, and
    # the handler's `when k > 1` is `when t + 1 > 1`; a comprehension's own `s` stays itself
    p = tmp_path / "args.vbr"
    p.write_text('game "x"\nseats 2\nstart p\nvar n: int per seat = 0\nevent hit(k: int)\n'
                 'on hit(k) when k > 1 {\n  end draw\n}\n'
                 'proc score(s: seat) {\n  n[s] += 1\n  if n[s] >= 3 and any(s == 1 for s in seats) {\n'
                 '    end winner s\n  }\n}\n'
                 'phase p {\n  choose t from seats by 0\n  emit hit(t + 1)\n  score(other(t))\n  goto p\n}\n')
    assert guards(graph_of(str(p))) == {
        (START, "p"): "",
        ("p", END): "t + 1 > 1 or n[other(t)] >= 3 and any(s == 1 for s in seats)",
        ("p", "p"): "not (n[other(t)] >= 3 and any(s == 1 for s in seats))",
    }


def test_problem_graph_marks_automatic_edges():
    g = graph_of(PROBLEMS)
    assert set(g.nodes) == {START, END, "toss", "spin", "spun", "stuck", "lonely"}
    auto = {(u, v) for u, v, a in g.edges(data="auto") if a}
    assert auto == {(START, "toss"), ("spin", END), ("spin", "spun"), ("spun", "spin"), ("lonely", END)}
    assert g.out_degree("stuck") == 0 and g.in_degree("lonely") == 0


@pytest.mark.parametrize("path", [RALLY, EVENTS, PROBLEMS, JUMPS])
def test_every_step_random_games_take_is_in_the_graph(path):
    g = build_graph(build_model(load_rules(path)), procs=True, fold=True)  # as `vbr graph --sim` draws it
    taken = command.simulate(vbr.load(path, engine="python"), 15, seed=1)
    assert taken.steps  # the games went somewhere
    assert set(taken.steps) <= set(g.edges)


# ------------------------------------------------------------------------------ findings
def test_findings_name_each_flaw_at_its_phase():
    found = findings(build_model(load_rules(PROBLEMS)))
    assert [(d.span.line, d.severity) for d in found] == [(17, "warning"), (27, "warning"), (31, "warning")]
    loop, dead, lonely = (d.message for d in found)
    assert "`spin` → `spun` → `spin`" in loop and "could never stop" in loop
    assert dead.startswith("phase `stuck` has no way out")
    assert lonely.startswith("phase `lonely` can never be reached") and "`start toss`" in lonely
    assert all(d.span.file == PROBLEMS for d in found)


def test_an_event_nothing_emits_is_a_finding_at_its_declaration(tmp_path):
    # its handler could never run: a misspelt or forgotten `emit`, which the checker alone lets by
    p = tmp_path / "e.vbr"
    p.write_text('game "x"\nseats 2\nstart p\nevent boom(s: seat)\non boom(s) {\n  say "boom"\n}\n'
                 'event bang()\nevent heard()\non heard() {\n  say "heard"\n}\n'
                 'phase p {\n  emit heard()\n  end draw\n}\n')
    found = findings(build_model(load_rules(p)))
    assert [(d.span.line, d.span.col, d.severity, d.message) for d in found] == [
        (4, 1, "warning", "event `boom` is never emitted: its handlers never run (`emit boom(...)` makes it happen)"),
        (8, 1, "warning", "event `bang` is never emitted: no handler listens to it either (`emit bang(...)` makes "
                          "it happen)")]


@pytest.mark.parametrize("path", [RALLY, EVENTS, JUMPS])
def test_sound_flows_have_no_findings(path):
    assert findings(build_model(load_rules(path))) == []


# ------------------------------------------------------------------------------ DOT and SVG
def test_dot_nests_stage_clusters_and_shapes_start_and_end():
    dot = to_dot(graph_of(RALLY))
    assert clusters_holding(dot) == {
        START: (), END: (), "fault": ("cluster_match",),
        "serve": ("cluster_match", "cluster_rally"), "receive": ("cluster_match", "cluster_rally")}
    assert 'label="Rally"' in dot and 'label="Match"' in dot
    assert 'shape="circle"' in node_attrs(dot, START)
    assert 'shape="doublecircle"' in node_attrs(dot, END)
    assert 'label="receive\\nReceive\\nby 1 - server"' in node_attrs(dot, "receive")
    edge = edge_attrs(dot, "receive", "fault")
    assert 'label="hits < target\\nand (d == 3 or hits == 2)"' in edge  # short: `not (a >= b)` read as `a < b`
    assert 'tooltip="not (hits >= target)\\nand (d == 3 or hits == 2)"' in edge  # the whole guard
    full = to_dot(graph_of(RALLY), labels="full")
    assert 'label="not (hits >= target)\\nand (d == 3 or hits == 2)"' in edge_attrs(full, "receive", "fault")
    assert 'label=""' in edge_attrs(to_dot(graph_of(RALLY), labels="none"), "receive", "fault")
    assert 'style="dashed"' in edge_attrs(dot, "fault", "serve")
    assert "dashed" not in edge_attrs(dot, "serve", "fault")


def test_svg_drawn_by_graphviz_names_every_phase(tmp_path):
    assert shutil.which("dot"), "Graphviz's `dot` must be installed to test diagrams"
    out = render(to_dot(graph_of(RALLY)), tmp_path / "rally.svg")
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for name in ("serve", "receive", "fault", "start", "game over", "Rally", "Match"):
        assert f">{name}</text>" in svg


def test_quotes_and_backslashes_survive_into_the_drawing(tmp_path):
    assert shutil.which("dot"), "Graphviz's `dot` must be installed to test diagrams"
    g = nx.DiGraph(title='say "hi"')
    g.add_node(START, kind="start")
    g.add_node("p", kind="phase", title='a "quoted" \\ title', stages=[], actors=[])
    g.add_edge(START, "p", guard='x == "y"', auto=False)
    dot = to_dot(g)
    assert 'label="p\\na \\"quoted\\" \\\\ title"' in dot
    svg = render(dot, tmp_path / "q.svg").read_text()
    assert "a &quot;quoted&quot; \\ title" in svg and "x == &quot;y&quot;" in svg


def test_render_writes_dot_text_and_refuses_unknown_formats(tmp_path):
    out = render("digraph x {}\n", tmp_path / "x.dot")
    assert out.read_text() == "digraph x {}\n"
    with pytest.raises(UsageError, match=r"\.svg, \.png, \.pdf or \.dot"):
        render("digraph x {}\n", tmp_path / "x.gif")
    assert not (tmp_path / "x.gif").exists()


def test_render_without_graphviz_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` to be found: the graphviz package says so
    with pytest.raises(RenderError, match="Graphviz's `dot` program is not installed"):
        render("digraph x {}\n", tmp_path / "x.svg")
    assert list(tmp_path.iterdir()) == []


def test_command_without_graphviz_exits_1_and_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert vbr_graph([RALLY, "-o", str(tmp_path / "rally.svg")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("vbr: error: cannot draw: Graphviz's `dot` program is not installed")
    assert "apt install graphviz" in err and "-o FILE.dot" in err
    assert list(tmp_path.iterdir()) == []
    assert vbr_graph([RALLY, "-o", str(tmp_path / "rally.dot")]) == 0  # DOT text needs no Graphviz


def test_a_drawing_that_fails_leaves_the_old_file_and_no_temporary_one(tmp_path):
    assert shutil.which("dot"), "Graphviz's `dot` must be installed to test diagrams"
    out = tmp_path / "x.svg"
    out.write_text("the old drawing")
    with pytest.raises(RenderError, match="Graphviz's `dot` could not draw the graph: .*syntax error"):
        render("digraph x { -> }\n", out)
    assert out.read_text() == "the old drawing"
    assert list(tmp_path.iterdir()) == [out]


def test_render_replaces_a_file_whole(tmp_path):
    assert shutil.which("dot"), "Graphviz's `dot` must be installed to test diagrams"
    out = tmp_path / "x.png"
    out.write_text("the old drawing")
    render(to_dot(graph_of(RALLY)), out)
    assert out.read_bytes().startswith(b"\x89PNG\r\n")
    assert list(tmp_path.iterdir()) == [out]


def test_control_characters_of_a_rule_file_are_escaped_in_dot_text():
    g = nx.DiGraph(title="T\x1b]0;x\x07")
    g.add_node(START, kind="start")
    g.add_node("p", kind="phase", title="Serve\x1b[2J\x9b", stages=[], actors=[])
    g.add_edge(START, "p", guard="", auto=False)
    dot = to_dot(g)
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", dot)
    assert 'digraph "T\\\\x1b]0;x\\\\x07" {' in dot  # DOT's `\\` is one backslash: the label reads T\x1b]0;x\x07
    assert 'label="p\\nServe\\\\x1b[2J\\\\x9b"' in dot


# ------------------------------------------------------------------------------ overlay
def test_overlay_counts_steps_and_greys_unreached_phases():
    game = vbr.load(PROBLEMS, engine="python")
    overlay = command.simulate(game, 10, seed=0)  # which games: tests/test_seeds.py
    # From the rule file: every game starts in `toss`, which chooses c. With c == 2 (n is 0, never
    # below) the game ends there; with c == 1 it goes to `spin`, which counts n up to 4 through
    # `spun` (spin n=1 -> spun -> spin n=2 -> spun -> spin n=3 -> spun -> spin n=4, draw): three
    # rounds of the loop, then the end from `spin`. `stuck` and `lonely` are never entered.
    spins = overlay.steps[("toss", "spin")]
    assert 0 < spins < 10  # ten random choices of two took both ways
    assert overlay.steps == {(START, "toss"): 10, ("toss", END): 10 - spins, ("toss", "spin"): spins,
                             ("spin", "spun"): 3 * spins, ("spun", "spin"): 3 * spins, ("spin", END): spins}
    assert overlay.entered == {START: 10, "toss": 10, "spin": 4 * spins, "spun": 3 * spins, END: 10}

    dot = to_dot(graph_of(PROBLEMS), overlay)
    for unreached in ("stuck", "lonely"):
        assert 'fillcolor="lightgrey"' in node_attrs(dot, unreached)
    for reached in ("toss", "spin", "spun"):
        assert "fillcolor" not in node_attrs(dot, reached)
    share = spins / sum(n for (u, _), n in overlay.steps.items() if u == "toss")
    assert f'label="c == 1\\n{100 * share:.0f}%"' in edge_attrs(dot, "toss", "spin")
    assert 'label="100%"' in edge_attrs(dot, START, "toss")
    busiest = max(overlay.steps, key=overlay.steps.get)
    assert 'penwidth="5.00"' in edge_attrs(dot, *busiest)
    assert 'color="gray60"' in edge_attrs(dot, "toss", "stuck")  # never taken


# ------------------------------------------------------------------------------ the command
def test_command_prints_dot_and_warns_about_findings(capsys):
    assert vbr_graph([PROBLEMS]) == 0
    out, err = capsys.readouterr()
    assert out.startswith('digraph "Flow problems" {')
    assert f"{PROBLEMS}:31:1: warning: phase `lonely` can never be reached" in err
    assert f"{PROBLEMS}:27:1: warning: phase `stuck` has no way out" in err


def test_command_draws_svg_with_simulation_and_options(tmp_path, capsys):
    out = tmp_path / "rally.svg"
    assert vbr_graph([RALLY, "-o", str(out), "--sim", "3", "--seed", "7", "--option", "target=1"]) == 0
    assert capsys.readouterr() == ("", "")
    svg = out.read_text()
    assert ">100%</text>" in svg  # every game entered `serve` from the start
    # with target 1 the first hit ends the game: `receive`, and maybe_end() it calls, entered once a game
    assert svg.count("1 visit/game</text>") == 2 and "1 visits/game" not in svg


@pytest.mark.parametrize("argv, message", [
    (["nowhere.vbr"], "cannot find rule file 'nowhere.vbr'"),
])
def test_command_reports_errors_without_a_traceback(argv, message, capsys):
    assert vbr_graph(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and message in err and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    ([RALLY, "--option", "target=many"], "vbr: error: option `target` is a whole number, not 'many'"),
    ([RALLY, "--option", "fast"], "vbr: error: unknown option `fast`"),
    ([RALLY, "--option", "=5"], "vbr: error: --option '=5': expected NAME or NAME=VALUE"),
    ([RALLY, "-o", "out.gif"], "vbr: error: cannot write out.gif: give a file ending in .svg, .png, .pdf or .dot"),
    ([RALLY, "-o", "nowhere/out.svg", "--sim", "100000000"],  # refused before a game: this returns at all
     "vbr: error: cannot write nowhere/out.svg: the folder nowhere does not exist"),
    ([RALLY, "-o", "/proc/out.dot", "--sim", "3"],  # a folder no file can be created in, said before a game
     "vbr: error: cannot write /proc/out.dot: cannot write in /proc: "),
])
def test_command_reports_a_bad_option_as_a_usage_error(argv, message, capsys):
    assert vbr_graph(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and "Traceback" not in err


def test_command_rejects_a_negative_number_of_games(capsys):
    assert vbr_graph([RALLY, "--sim", "-1"]) == 2
    assert "is not a number of games" in capsys.readouterr().err


@pytest.mark.parametrize("given", ["-1", "x", str(2**63)])
def test_command_rejects_a_seed_out_of_range(given, capsys):
    assert vbr_graph([RALLY, "--seed", given]) == 2
    assert "vbr graph: error: argument --seed: " in capsys.readouterr().err


def test_command_plays_games_of_the_largest_seed(capsys):
    """Each game's seed is derived from the run's (tests/test_seeds.py), so none passes 2**63 - 1."""
    assert vbr_graph([RALLY, "--seed", str(2**63 - 1), "--sim", "3"]) == 0


def test_options_parse_as_flags_or_strings():
    assert command.parse_options(["quick", "target = 5", "mode=fast=1"]) == {
        "quick": True, "target": "5", "mode": "fast=1"}


# ------------------------------------------------------------------------------ regenerate
def test_regenerate_with_no_bundled_rules_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(regenerate, "bundled_names", lambda: [])
    assert regenerate.main([str(tmp_path / "diagrams")]) == 0
    assert not (tmp_path / "diagrams").exists()
    assert "nothing to draw" in capsys.readouterr().err


def test_regenerate_writes_svg_and_dot_per_rule_file(tmp_path, monkeypatch):
    monkeypatch.setattr(regenerate, "bundled_names", lambda: [RALLY])
    assert regenerate.main([str(tmp_path)]) == 0
    assert (tmp_path / "flow_rally.dot").read_text() == to_dot(command.load_graph(RALLY, {})[2])
    assert ">receive</text>" in (tmp_path / "flow_rally.svg").read_text()


def test_an_edge_taken_whichever_way_a_test_goes_is_unconditional(tmp_path):
    from vbr.checker import build_model
    from vbr.loader import load_rules
    from vbr.visualizer.graph import build_graph
    p = tmp_path / "either.vbr"
    p.write_text('game "E"\nvar x: int = 0\nstart a\nphase a {\n  choose n from 1..2 by 0\n'
                 '  if n == 1 {\n    x = 1\n    goto b\n  }\n  goto b\n}\nphase b {\n  end draw\n}\n')
    g = build_graph(build_model(load_rules(p), {}))
    assert g.edges["a", "b"]["guard"] == ""
    assert g.edges["a", "b"]["guards"] == ["n == 1", "not (n == 1)"]


# ------------------------------------------------------------------------------ drawing for designers
from vbr.visualizer import labels as L  # noqa: E402


def test_simplify_drops_contradictions_merges_complements_and_absorbs():
    assert L.simplify([["a", "not (a)"], ["b"]]) == [["b"]]  # a and not a: never
    assert L.simplify([["s", "k == none", "x"], ["s", "not (k == none)", "x"]]) == [["s", "x"]]
    assert L.simplify([["a"], ["a", "b"]]) == [["a"]]
    assert L.simplify([["a", "b"], ["not (a)"]]) == [["b"], ["not (a)"]]  # b or not a
    assert L.simplify([["a"], ["not (a)"]]) == [[]]  # always


def test_short_labels_factor_shared_terms_and_keep_to_four_lines():
    assert L.short([["p", "q", "x"], ["p", "r", "x"]]) == "p\nand x\nand (q\nor r)"
    many = [["s", f"c{i} == {i}"] for i in range(9)]
    assert L.short(many) == "s\nand one of 9 ways"
    long = [[f"t{i} > 0" for i in range(9)]]
    assert L.short(long).splitlines() == ["…", "and t6 > 0", "and t7 > 0", "and t8 > 0"]
    assert L.short([["x"]], names=["point scored"]) == "point scored"
    assert L.readable("not (score >= target)") == "score < target"
    assert L.readable("not (in_court(ball))") == "not in_court(ball)"


def test_a_procedure_that_ends_the_game_is_drawn_once_as_its_own_node():
    g = command.load_graph(RALLY, {})[2]
    assert g.nodes["maybe_end()"]["kind"] == "proc"
    assert g.has_edge("receive", "maybe_end()") and g.has_edge("maybe_end()", END)
    assert not g.has_edge("receive", END)  # the one way to the end runs through the procedure
    assert g.edges["maybe_end()", END]["guard"] == "hits >= target"
    assert g.edges["maybe_end()", "receive"]["returns"]  # else play goes on where it was called
    assert graph_of(RALLY).has_edge("receive", END)  # the plain graph, for findings, is unchanged


def write(tmp_path, text: str) -> str:
    p = tmp_path / "g.vbr"
    p.write_text(text)
    return str(p)


NAMED = '''game "Named"
seats 2
option fast = false
var x: int = 0
start a
phase a {
  choose n from 1..2 by 0
  if n == 1 {
    goto b as "point scored"
  }
  if fast and n == 2 {
    goto c
  }
  goto b
}
phase b {
  end draw
}
phase c {
  end draw
}
'''


def test_a_named_transition_is_labelled_with_its_name(tmp_path):
    g = command.load_graph(write(tmp_path, NAMED), {})[2]
    assert g.edges["a", "b"]["names"] == ["point scored"]
    dot = to_dot(g)
    assert 'label="point scored"' not in edge_attrs(dot, "a", "b")  # one of the two ways is unnamed
    assert 'tooltip="point scored: ' in edge_attrs(dot, "a", "b")


def test_transitions_the_options_rule_out_are_left_out(tmp_path):
    path = write(tmp_path, NAMED)
    assert command.load_graph(path, {})[2].has_edge("a", "c")
    assert not command.load_graph(path, {}, fold=True)[2].has_edge("a", "c")  # fast is false
    assert command.load_graph(path, {"fast": True}, fold=True)[2].has_edge("a", "c")


def test_actors_read_as_the_rules_do():
    from vbr.visualizer.render import actor_words
    assert [actor_words(a) for a in ("holder", "0", "each of seats", "each of players(t)", "other(holder)",
                                     "server_of(t)", "seat_of(coach)", "can[0]", "f(a, b)",
                                     "team each of teams", "team other(scorer)", "team t")] == [
        "the holder", "seat 0", "each seat", "each player", "the other of the holder",
        "the server of t", "the seat of the coach", "the first of the can", "f(a, b)",
        "each team", "team other of the scorer", "team t"]


def test_expand_lists_a_phases_choice_points(tmp_path, capsys):
    out = tmp_path / "x.dot"
    assert vbr_graph([RALLY, "--expand", "receive", "-o", str(out)]) == 0
    dot = out.read_text()
    assert "\"receive\" -> \"choices: receive\" [style=dotted" in dot
    assert "1. choose d — by 1 - server" in dot


def test_sim_with_agents_and_workers_gives_the_same_shares(tmp_path):
    game = vbr.load(RALLY, engine="python")
    one = command.simulate(game, 120, seed=3, agents=["greedy", "random"], workers=1)
    two = command.simulate(game, 120, seed=3, agents=["greedy", "random"], workers=2)
    assert one == two and sum(n for (_, v), n in one.steps.items() if v == END) == 120


@pytest.mark.parametrize("argv, message", [
    ([RALLY, "--labels", "long"], "argument --labels: invalid choice: 'long'"),
    ([RALLY, "--expand", "nowhere"], "vbr: error: --expand nowhere: no phase or procedure node of that name"),
    ([RALLY, "--workers", "0"], "argument --workers: 0: give from 1 to"),
])
def test_bad_drawing_flags_are_usage_errors(argv, message, capsys, tmp_path):
    out = tmp_path / "x.svg"
    assert vbr_graph(argv + ["-o", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_output_leaves_nothing_behind(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code = vbr_graph([RALLY, "-o", str(locked / "x.svg")])
        err = capsys.readouterr().err
        if os.geteuid() != 0:  # root writes anywhere
            assert code == 1 and "cannot write" in err
        assert [p.name for p in locked.iterdir()] in ([], ["x.svg"])
        assert not [p for p in locked.iterdir() if p.name.endswith(".part")]
    finally:
        locked.chmod(0o700)


def test_functions_of_options_are_folded_too(tmp_path):
    text = NAMED.replace("option fast = false\n", "option fast = false\nfn quick(t: int) = fast and t == 1\n")
    text = text.replace("if fast and n == 2", "if quick(n)")
    path = write(tmp_path, text)
    assert not command.load_graph(path, {}, fold=True)[2].has_edge("a", "c")  # quick(n) is false whatever n is
    assert command.load_graph(path, {"fast": True}, fold=True)[2].has_edge("a", "c")  # now n decides


def test_negated_comparisons_read_directly_and_long_ways_are_cut_not_hidden():
    assert L.readable("not (total + bonus >= need())") == "total + bonus < need()"
    assert L.readable("not (x > f(a, b))") == "x <= f(a, b)"
    assert L.readable("not (a == b and c)") == "not (a == b and c)"  # more than one comparison: kept
    label = L.short([["not (any(k > 1 for k in cards_in_the_hand_of_the_player(s)))"], ["x == 1", "y == 2"]])
    first, second = label.splitlines()
    assert first.startswith("not any(k > 1 for k in") and first.endswith("…") and len(first) <= L.MAX_WIDTH
    assert second == "or x == 1 and y == 2"


def test_a_named_goto_survives_fmt():
    from vbr.grammar.parser import parse
    from vbr.grammar.printer import program
    text = program(parse(NAMED))
    assert 'goto b as "point scored"' in text and program(parse(text)) == text


OPEN_END = """game "open end"
seats 2
var n: int = 0
start a
phase a {
  choose k from [1, 2] by 0 as "k"
  n = k
  if n == 1 {
    goto b
  }
}
phase b {
  end winner 0
}
"""


def test_a_phase_that_falls_off_its_end_on_some_paths_is_a_finding_with_the_condition(tmp_path):
    p = tmp_path / "open.vbr"
    p.write_text(OPEN_END)
    (found,) = findings(build_model(load_rules(p)))
    assert (found.span.line, found.severity) == (5, "warning")
    assert found.message.startswith("phase `a` can reach its end without a `goto` or `end` (when not (n == 1))")


def test_a_phase_whose_every_branch_hands_play_on_is_no_open_end(tmp_path):
    p = tmp_path / "closed.vbr"
    p.write_text(OPEN_END.replace("    goto b\n  }\n}", "    goto b\n  } else {\n    end winner 1\n  }\n}"))
    assert findings(build_model(load_rules(p))) == []


def test_a_phase_ending_in_a_loop_without_break_is_no_open_end(tmp_path):
    # docs/language.md, `loop`: it "runs the block until a `break`, a `goto` or an `end`", and a
    # round past its `max` is an error; with no `break` nothing after it runs. The walk took it
    # to fall through, so a phase whose last statement is such a loop was an open end
    p = tmp_path / "loop.vbr"
    p.write_text(OPEN_END.replace('  choose k from [1, 2] by 0 as "k"\n  n = k\n  if n == 1 {\n    goto b\n  }',
                                  '  loop max 5 {\n    choose k from [1, 2] by 0 as "k"\n    n += k\n    if n > 3 {\n'
                                  '      goto b\n    }\n  }'))
    assert findings(build_model(load_rules(p))) == []
    # with a `break`, play goes on after the loop, and falls off the phase's end
    p.write_text(p.read_text().replace("      goto b\n", "      break\n    }\n    if n == 3 {\n      goto b\n"))
    (found,) = findings(build_model(load_rules(p)))
    assert found.message.startswith("phase `a` can reach its end without a `goto` or `end`")


def test_the_open_end_really_stops_a_game_with_an_error(tmp_path):
    """What the finding warns of: choosing 2 falls off `a`'s end."""
    from vbr.errors import VbrError
    p = tmp_path / "open.vbr"
    p.write_text(OPEN_END)
    for engine in ("python", "c"):
        st = vbr.load(p, engine=engine).new_state(0)
        two = next(i for i, a in enumerate(st.legal_actions()) if a.text == "2")
        with pytest.raises(VbrError, match="ended without `goto` or `end`"):
            st.apply_index(two)


def test_a_procedures_choices_show_where_its_result_is_taken(tmp_path):
    p = tmp_path / "take.vbr"
    p.write_text('game "take"\nseats 2\nvar got: int = 0\nstart a\n'
                 'proc ask(s: int): int {\n  choose k from [1, 2] by s as "how many"\n  return k\n}\n'
                 'phase a {\n  let n = ask(1)\n  got = ask(0)\n  end winner 0\n}\n')
    g = build_graph(build_model(load_rules(p)))
    points = g.nodes["a"]["choice_points"]
    assert [(c.prompt, c.actor) for c in points] == [("how many", "1"), ("how many", "0")]


def _flow_file(spec) -> str:
    """A rule file from (chooses, targets) per phase: `goto`s behind a choice's value when it
    chooses, else behind tests of a var, so some phases are automatic and some are not."""
    n = len(spec)
    out = ['game "random flow"', "seats 2", "var k: int = 0", "start p0"]
    for i, (chooses, targets) in enumerate(spec):
        body = ['  choose c from [1, 2, 3] by 0 as "c"', "  k = c"] if chooses else ["  k += 1"]
        for j, t in enumerate(targets):
            body += [f"  if k == {j} {{", f"    goto p{t % n}", "  }"]
        if not targets:
            body.append('  say "stuck"')
        elif len(targets) % 2:
            body.append("  end draw")
        out += [f"phase p{i} {{", *body, "}"]
    return "\n".join(out) + "\n"


@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(0, 9), max_size=3)), min_size=1, max_size=8))
@settings(max_examples=60, deadline=None)
def test_findings_agree_with_the_networkx_graph(tmp_path_factory, spec):
    """findings read the walk without NetworkX; on random flows they name the same phases the
    graph's own algorithms find: unreachable, without a way out, in a knot of automatic edges."""
    p = tmp_path_factory.mktemp("flow") / "f.vbr"
    p.write_text(_flow_file(spec))
    model = build_model(load_rules(p))
    g = build_graph(model)
    phases = [n for n, k in g.nodes(data="kind") if k == "phase"]
    reached = nx.descendants(g, START)
    auto = nx.DiGraph((u, v) for u, v, a in g.edges(data="auto") if a and g.nodes[v]["kind"] == "phase"
                      and g.nodes[u]["kind"] == "phase")
    knots = [c for c in nx.strongly_connected_components(auto) if len(c) > 1 or auto.has_edge(*(2 * [next(iter(c))]))]
    found = findings(model)

    def named(words):
        return {d.message.split("`")[1] for d in found if words in d.message}
    assert named("can never be reached") == {q for q in phases if q not in reached}
    assert named("has no way out") == {q for q in phases if g.out_degree(q) == 0}
    loops = [d for d in found if "the loop" in d.message]
    assert len(loops) == len(knots)
    for d, knot in zip(sorted(loops, key=lambda d: d.span.line), sorted(knots, key=lambda c: min(int(q[1:]) for q in c))):
        ring = re.findall(r"`(p\d+)`", d.message)
        assert set(ring) <= knot and ring[0] == ring[-1]
        assert all(auto.has_edge(a, b) for a, b in zip(ring, ring[1:]))
        back = [nx.shortest_path(auto, w, ring[0]) for w in auto.successors(ring[0]) if nx.has_path(auto, w, ring[0])]
        assert len(ring) - 1 == min(map(len, back))  # the shortest way round


def test_graph_sim_without_graphviz_says_so_before_playing(tmp_path, monkeypatch, capsys):
    # `--sim` games are played to label a drawing `dot` cannot make: the missing `dot` is said
    # first. This file's games would fail (a division by zero once the choice is made).
    rules = tmp_path / "fails.vbr"
    rules.write_text('game "Fails"\nseats 2\nvar n: int = 0\nstart p\nphase p {\n  choose c from 1..2 by 0\n'
                     '  n = 10 / (c - c)\n  end draw\n}\n')
    monkeypatch.setenv("PATH", str(tmp_path))
    assert vbr_graph([str(rules), "--sim", "3", "--engine", "python", "-o", str(tmp_path / "f.svg")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vbr: error: cannot draw: Graphviz's `dot` program is not installed"), err
    assert "division by zero" not in err


@pytest.mark.parametrize("name", ["siatka", "cattack", "tanto-cuore-beach-volleyball", "volleyball-high"])
def test_the_committed_diagram_is_the_one_its_rule_file_draws(name):
    # docs/diagrams/ is generated (`python -m vbr.visualizer.regenerate`): its DOT text must be what
    # the rule file draws now, or its tooltips point at lines that have moved.
    from conftest import ROOT
    _, _, graph = command.load_graph(name, {})
    committed = (ROOT / "docs" / "diagrams" / f"{name}.dot").read_text(encoding="utf-8")
    assert committed == to_dot(graph), "run: python -m vbr.visualizer.regenerate"


@pytest.mark.parametrize("flag, value", [("--agents", "greedy"), ("--workers", "2"), ("--seed", "5"),
                                         ("--engine", "python"), ("--native", None)])
def test_a_sim_flag_without_sim_is_a_usage_error_not_ignored(capsys, flag, value):
    # --agents, --workers, --seed and the engine say how the --sim games are played: without --sim
    # no game is played, so the flag would change nothing (it was ignored without a word).
    given = [flag] if value is None else [flag, value]
    assert vbr_graph([RALLY, *given]) == 2
    assert capsys.readouterr().err == f"vbr: error: {flag} is for --sim N: without --sim no game is played\n"
    assert vbr_graph([RALLY, *given, "--sim", "2"]) == 0


def test_a_sim_flag_beside_sim_0_says_that_sim_0_plays_no_game(capsys):
    # docs/cli.md: --sim N runs from 0, no games; a flag for the games is then a usage error, and
    # the message must not claim that --sim was not given
    assert vbr_graph([RALLY, "--sim", "0", "--seed", "5"]) == 2
    assert capsys.readouterr().err == "vbr: error: --seed is for --sim N: --sim 0 plays no game\n"


@pytest.mark.parametrize("flag, says", [("--sim", "'many' is not a number of games"),
                                        ("--workers", "'many' is not a number of workers")])
def test_a_count_that_is_not_a_number_is_said_in_words(capsys, flag, says):
    # argparse named the parsing function instead: `invalid _count value: 'many'`
    assert vbr_graph([RALLY, "--sim", "2", flag, "many"]) == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: {says}" in err and "_count" not in err and "_workers" not in err
