"""The report page: the diagram, the source, a simulation's answers and the rulebook trace.

Everything from the rule file (titles, names, conditions, comments, scenario titles) is untrusted
text: it reaches the page only through `html.escape`, Pygments (which escapes), or Graphviz and
matplotlib SVG (which escape their text); control characters (C0 but the newline and the tab,
DEL, C1), which those escapings leave raw, and bidi controls anywhere on the page are shown as
`\x1b` and `\u202e` escapes (vbr.terminal.clean). SVG ids are prefixed per picture, so two
pictures on one page never share an id.
"""
from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path

from vbr.terminal import clean


def esc(value) -> str:
    return html.escape(str(value), quote=True)


# ------------------------------------------------------------------------------ the page
def build_report(file, options: dict, n: int = 200, agents: str = "random", seed: int = 0, workers: int = 1,
                 labels: str = "short", expand=(), engine="python") -> str:
    """The page; its games played through `engine`: a name, or a function that loads the game
    to play and gives (its engine's name, the game): the command's `--engine`, resolved as the
    game is loaded. The game is loaded through that engine alone."""
    from vbr.cli_common import check_agents
    from vbr.play import parse_agents
    from vbr.sim import game_for
    from vbr.visualizer.command import check_expand, expand_names, load_graph, overlay_of
    from vbr.visualizer.findings import findings
    engine, game = engine() if callable(engine) else (engine, game_for(str(file), tuple(sorted(options.items())), engine))
    game, model, graph = load_graph(file, options, fold=True, game=game)
    check_expand(graph, list(expand))
    agent_list = parse_agents(agents, game.seats)
    check_agents(engine, agent_list)
    stats, trials = _simulation(game, n, seed, agent_list, workers, engine)
    overlay = overlay_of(trials)  # the diagram's counts come from the games of the metrics
    files = list(model.rules.sources)
    anchors = {f: f"src{i}" for i, f in enumerate(files)}
    links = {}
    for node, data in graph.nodes(data=True):
        span = data.get("span")
        if span is not None and span.file in anchors:
            links[node] = f"#{anchors[span.file]}-{span.line}"
    diagram = _diagram(graph, overlay, labels, n, expand_names(graph, list(expand)), links)
    warnings = [d.render(model.rules.sources) for d in findings(model)]
    sections = [
        _header(game, model, stats, n, seed, agent_list, options),
        _section("diagram", "Turn flow", _diagram_help(n, agent_list) + diagram
                 + "".join(f'<p class="warn">{esc(w)}</p>' for w in warnings)),
        _section("phases", "Phases", _phases(graph, links, overlay, n)),
        _section("simulation", "Simulation", _simulation_html(stats, trials, game)),
        _section("trace", "Rulebook trace", _trace(game, anchors)),
        _section("options", "Options", _options(model, options)),
        _section("source", "Source", _sources(model.rules.sources, anchors)),
    ]
    return clean(_page(game.title, "\n".join(sections)))  # no text of the file reorders the page or controls it


def _simulation(game, n: int, seed: int, agents: list[str], workers: int, engine: str):
    from vbr.analysis.commands import Variant, options_text, summary
    from vbr.backends import LocalBackend
    from vbr.sim import RunSpec, run
    backend = LocalBackend(workers)
    result = run(RunSpec.of(game.path, game.options, seed, agents, n, trace=True, engine=engine), backend)
    return summary(Variant(game, options_text(game.option_values)), result, backend, agents), result.trials


# ------------------------------------------------------------------------------ parts
def _header(game, model, stats, n, seed, agents, options) -> str:
    from vbr.cli_common import version
    shown = ", ".join(f"{k}={_word(v)}" for k, v in model.options.items()) or "none"
    return (f'<header><h1>{esc(game.title)}</h1>'
            f'<p class="meta">Rule file <code>{esc(shown_path(game.path))}</code> · options {esc(shown)} · '
            f'{esc(n)} simulated games, agents {esc(", ".join(agents))}, seed {esc(seed)}, engine '
            f'{esc(stats["engine"])} · vbr {esc(version())}</p>'
            '<nav><a href="#diagram">Turn flow</a> <a href="#phases">Phases</a> <a href="#simulation">Simulation</a> '
            '<a href="#trace">Rulebook trace</a> <a href="#options">Options</a> <a href="#source">Source</a></nav>'
            '</header>')


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}"><h2>{esc(title)}</h2>\n{body}\n</section>'


def _diagram_help(n: int, agents: list[str]) -> str:
    return (f'<p class="note">Drawn from the rule file alone. Percentages: each step\'s share of the exits from '
            f'its box, and visits per game, over {esc(n)} games ({esc(", ".join(agents))}). Dashed: no one chooses '
            'on the way. Hover (or tap) an arrow for its whole condition; click a box for its source lines.</p>')


def _diagram(graph, overlay, labels: str, games: int, expand: list[str], links: dict) -> str:
    from vbr.visualizer.render import draw, to_dot
    svg = draw(to_dot(graph, overlay, labels=labels, games=games, expand=expand, links=links), "svg").decode("utf-8")
    return f'<div class="diagram" id="flow">{inline_svg(svg, "d")}</div><div id="tip" class="tip" hidden></div>'


def _phases(graph, links: dict, overlay, games: int) -> str:
    from vbr.visualizer.render import _visits, actor_words
    visits = _visits(graph, overlay, games) if overlay is not None else {}
    rows = []
    for node, data in graph.nodes(data=True):
        if data.get("kind") not in ("phase", "proc"):
            continue
        span = data.get("span")
        where = f'<a href="{esc(links[node])}">lines {span.line}–{span.end_line}</a>' if node in links else ""
        who = ", ".join(dict.fromkeys(actor_words(a) for a in data.get("actors", []))) or "no one"
        choices = len(data.get("choice_points") or [])
        kind = "procedure" if data["kind"] == "proc" else "phase"
        title = proc_title(node, data.get("title") or "") if kind == "procedure" else data.get("title") or ""
        rows.append(f"<tr><td><code>{esc(node)}</code> <small>{kind}</small></td><td>{esc(title)}</td>"
                    f"<td>{where}</td><td>{esc(who)}</td><td>{choices}</td><td>{visits.get(node, 0):.2f}</td></tr>")
    return _table(["name", "title", "source", "who chooses", "choice points", "visits/game"], rows)


def proc_title(node: str, params: str) -> str:
    """A procedure's title, which the language does not give it: its name in words, and what it is
    called with (`heavy_defence()`, `(t)` → `Heavy defence, called with t`)."""
    words = node.removesuffix("()").replace("_", " ").strip().capitalize()
    inner = params.strip("()")
    return f"{words}, called with {inner}" if inner else words


def _simulation_html(stats: dict, trials, game) -> str:
    from vbr.analysis.commands import plot_view
    from vbr.analysis.plots import write_sim_plots
    from vbr.report import metric_label
    names = stats["side_names"]
    from vbr.analysis.metrics import percent_shares
    shares = percent_shares([*stats["wins"].values(), stats["draws"]])  # rounded to add up to 100
    rows = []
    for share, side in zip(shares, stats["win_rate"]):
        lo, hi = stats["ci95"][side]
        label = names[int(side)] if int(side) < len(names) else f"side {side}"
        rows.append(f"<tr><th>win rate, {esc(label)}</th><td>{share} %</td><td>{_pct(lo)} – {_pct(hi)}</td>"
                    f"<td>{esc(stats['wins'][side])} of {esc(stats['games'])} games</td></tr>")
    for key, m in {**stats["metrics"], **stats.get("measures", {})}.items():
        value = "—" if m.get("value") is None else _figure(m["value"], m)
        ci = m.get("ci95")
        interval = f"{_figure(ci[0], m)} – {_figure(ci[1], m)}" if ci else esc(m.get("reason", "—"))
        label = metric_label(m, names) if "label" in m else key  # the side advantage names its side, as sim's
        rows.append(f"<tr><th>{esc(label)}</th><td>{value}</td><td>{interval}</td>"
                    f"<td>{esc(m.get('over', ''))}, n = {esc(m.get('n', ''))}</td></tr>")
    table = _table(["figure", "value", "95% CI", "over"], rows, "metrics")
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_sim_plots(Path(tmp), trials, plot_view(stats), names, game.title, stats["agents"])
        plots = [inline_svg(p.read_text(encoding="utf-8"), f"p{i}") for i, p in enumerate(paths) if p.suffix == ".svg"]
    figures = "".join(f'<figure class="plot">{svg}</figure>' for svg in plots)
    # no games/s: the same run makes the same page, so a regenerated report changes only with the rules
    return (f'<p class="note">{esc(stats["games"])} games, agents {esc(", ".join(stats["agents"]))}, seed '
            f'{esc(stats["seed"])}; mean {esc(stats["mean_steps"])} choices a game. '
            'Intervals as docs/analysis.md describes them.</p>' + table + f'<div class="plots">{figures}</div>')


def _trace(game, anchors: dict) -> str:
    from vbr.trace import trace
    path = Path(game.path)
    tests = path.parent / "tests" / path.name
    passages, assumed = trace(path, tests if tests.is_file() else None)
    a = anchors.get(str(game.path), "src0")
    rows = []
    for p in passages:
        lines = ", ".join(f'<a href="#{a}-{n}">{n}</a>' for n in p.lines)
        tests_ = "<br>".join(esc(t) for t in dict.fromkeys(p.tests)) or "—"
        rows.append(f"<tr><td>{esc(p.tag)}</td><td>{lines}</td><td>{tests_}</td></tr>")
    out = _table(["book passage", "rule-file lines", "scenario tests"], rows) if rows else "<p>No passages cited.</p>"
    items = "".join(f'<li><a href="#{a}-{n}">line {n}</a>: {esc(t)}</li>' for n, t in assumed)
    out += f"<h3>Assumptions where the book is silent</h3><ul>{items or '<li>none stated</li>'}</ul>"
    return out


def _options(model, given: dict) -> str:
    """One row per option: its value in this report, its default, what it may be, who set it."""
    rows = []
    for name, value in model.options.items():
        decl = model.option_decls.get(name)
        default = _literal(decl.default) if decl is not None else ""
        origin = "set for this report" if name in given else "the default"
        rows.append(f"<tr><td><code>{esc(name)}</code></td><td>{esc(_word(value))}</td><td>{esc(default)}</td>"
                    f"<td>{esc(allowed_values(model, decl, value))}</td><td>{esc(origin)}</td></tr>")
    head = ["option", "value", "default", "allowed values", "value from"]
    return _table(head, rows) if rows else "<p>The rule file has no options.</p>"


def allowed_values(model, decl, value) -> str:
    """What an option may be set to: the values its declaration lists (`in { 2, 3 }`), the members
    of its enum, true or false, else any value of its default's type."""
    if decl is not None and decl.choices:
        return ", ".join(_literal(c) for c in decl.choices)
    enum = model.member_enum.get(_literal(decl.default)) if decl is not None else None
    if enum:
        return ", ".join(model.enums[enum])
    if isinstance(value, bool):
        return "true, false"
    if isinstance(value, int):
        return "any whole number"
    return "any text" if isinstance(value, str) else ""


def _sources(sources: dict[str, str], anchors: dict) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    from vbr.highlight import VbrLexer
    out = []
    for file, text in sources.items():
        fmt = HtmlFormatter(noclasses=True, linenos="inline", lineanchors=anchors[file], style="friendly")
        out.append(f"<h3><code>{esc(shown_path(file))}</code></h3><div class=\"source\">{highlight(text, VbrLexer(), fmt)}</div>")
    return "\n".join(out)


# ------------------------------------------------------------------------------ helpers
def shown_path(path) -> str:
    """A file as the reader knows it: relative to the current folder when inside it (a report
    committed to a repository names no one's home directory), else as given."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def inline_svg(svg: str, prefix: str) -> str:
    """An SVG file's text made fit for inside a page: no XML prolog or DOCTYPE, scaled to its box
    (width and height moved into a max-width), every id prefixed so two pictures never clash."""
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    m = re.match(r"<svg\b[^>]*>", svg)
    if m:
        tag = m.group(0)
        width = re.search(r'\swidth="([\d.]+)(pt|px)?"', tag)
        new = re.sub(r'\s(width|height)="[^"]*"', "", tag)
        style = f' style="max-width:{float(width.group(1)) * (4 / 3 if width.group(2) == "pt" else 1):.0f}px"' if width else ""
        new = new[:-1] + f' preserveAspectRatio="xMidYMin meet"{style}>'
        svg = new + svg[len(tag):]
    svg = re.sub(r'\bid="([^"]+)"', lambda k: f'id="{prefix}-{k.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda k: f"url(#{prefix}-{k.group(1)})", svg)
    svg = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda k: _href(k, prefix), svg)
    return svg


def _href(m, prefix: str) -> str:
    """Inside a picture, `#id` points into it (prefixed); a diagram's links to source lines
    (`#src0-12`) point into the page and stay as they are."""
    target = m.group(2)
    if re.match(r"src\d+-\d+$", target):
        return m.group(0)
    return f'{m.group(1)}="#{prefix}-{target}"'


def _table(head: list[str], rows: list[str], cls: str = "") -> str:
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    c = f' class="{cls}"' if cls else ""
    return f'<div class="scroll"><table{c}><thead><tr>{th}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _pct(x) -> str:
    """A share in percent to one place, rounded once from its full value (`rounding.exact`)."""
    from vbr.analysis.rounding import exact
    return "—" if x is None else f"{100 * exact(x):.1f} %"


def _figure(x, m: dict) -> str:
    """A figure of metric `m` as `vbr sim` prints it (vbr.report.number): a share in percent to
    one place, an order statistic of whole counts whole, the rest to 2 places (a mean length of
    1344.7 choices reads 1344.70, never 1.34e+03)."""
    from vbr.report import number
    if x is None:
        return "—"
    if m.get("unit") == "share":
        return _pct(x)
    return esc(number(x, m))


def _word(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _literal(node) -> str:
    from vbr.grammar.printer import expr
    return expr(node)


# ------------------------------------------------------------------------------ the shell
CSS = """
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d2430;
 margin:0 auto;max-width:1180px;padding:0 1rem 3rem;overflow-wrap:break-word}
header{border-bottom:1px solid #d8dee8;margin-bottom:1rem}
h1{font-size:1.6rem;margin:1rem 0 .25rem}
h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid #e3e8ef;padding-bottom:.25rem}
h3{font-size:1.05rem;margin:1.25rem 0 .4rem}
nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.5rem 0 .75rem}
nav a{text-decoration:none}
a{color:#1f5fbf}
.meta,.note{color:#4a5566;font-size:.9rem}
.warn{color:#8a4b00;font-size:.85rem;font-family:ui-monospace,Menlo,Consolas,monospace}
.diagram{overflow-x:auto;border:1px solid #e3e8ef;border-radius:6px;padding:.5rem;background:#fff}
.diagram svg{display:block;width:100%;min-width:min(640px,100%);height:auto;margin:0 auto}
@media (max-width:600px){.diagram svg{min-width:640px}}
.diagram g.edge{cursor:help}
.tip{position:fixed;z-index:10;max-width:min(28rem,90vw);background:#1d2430;color:#fff;padding:.4rem .6rem;
 border-radius:4px;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;pointer-events:none}
.tip[hidden]{display:none}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border-bottom:1px solid #e3e8ef;padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:#f4f6fa}
tbody th{font-weight:600}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:1rem;margin-top:1rem}
.plot{margin:0}
.plot svg{width:100%;height:auto}
.source{overflow-x:auto;max-width:100%;border:1px solid #e3e8ef;border-radius:6px;font-size:.82rem}
.source pre{margin:0;padding:.5rem}
.source a[id]{scroll-margin-top:4rem}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em}
@media (max-width:600px){body{font-size:14px;padding:0 .6rem 2rem}h1{font-size:1.3rem}th,td{padding:.25rem .3rem}}
"""

SCRIPT = """
(function () {
  var tip = document.getElementById("tip");
  var XLINK = "http://www.w3.org/1999/xlink";
  function textOf(g) {
    var a = g.querySelector("a");
    if (!a) return null;
    return a.getAttributeNS(XLINK, "title") || a.getAttribute("xlink:title") || a.getAttribute("title");
  }
  function place(e) {
    var x = Math.min(e.clientX + 12, window.innerWidth - tip.offsetWidth - 8);
    var y = Math.min(e.clientY + 12, window.innerHeight - tip.offsetHeight - 8);
    tip.style.left = Math.max(4, x) + "px";
    tip.style.top = Math.max(4, y) + "px";
  }
  document.querySelectorAll("#flow g.edge").forEach(function (g) {
    var text = textOf(g);
    if (!text) return;
    function show(e) { tip.textContent = text; tip.hidden = false; place(e); }
    g.addEventListener("mouseenter", show);
    g.addEventListener("mousemove", place);
    g.addEventListener("click", show);
    g.addEventListener("mouseleave", function () { tip.hidden = true; });
  });
})();
"""


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)} · vbr report</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n"
            f"<script>{SCRIPT}</script>\n</body>\n</html>\n")
