"""The pictures behind `vbr sim/sweep/compare --plot DIR`: a balance question is answered faster by
eye than from a table of intervals.

Each plot is two functions: a pure one that turns trials and summaries into plain lists and dicts
(tested without pixels), and one that draws it. matplotlib is imported only inside the drawing
functions, so `vbr check` and everything else that imports this package never pays for it; and
figures are drawn with `matplotlib.figure.Figure` on the Agg canvas, never through pyplot, so no
global backend or figure registry is touched.

Files written into DIR, each as `.png` and `.svg` (SVG text kept as text, so it can be searched):

- `vbr sim`: `win_rate`, `length`, `margin`;
- `vbr compare`: the same three with both variants on each, and `metrics` (every metric of the
  two variants side by side, one panel each, since their units differ);
- `vbr sweep`: `sweep_win_rate_<side>` for each side, then `sweep_<metric>` for each metric the
  summaries carry.

`margin` is left out when no game has a score (the rule file declares no `points`), `metrics`
when the two summaries share no metric with a value, and a sweep metric when no row has a value
for it: the list a writer returns is what was written.
Sides are named in the game's words (`side_names`), options as in the rule file (`target=5`,
`abilities=true`). Every text a writer is given (titles, names, labels, option values) is shown as
a terminal shows it (`shown`): a raw control character makes an SVG file no XML at all.
"""
from __future__ import annotations

import io
import math
import os
import statistics
import textwrap
from bisect import bisect_right
from contextlib import contextmanager
from pathlib import Path

from vbr.analysis.trial import Trial

FORMATS = ("png", "svg")
MAX_BINS = 30  # length histogram: more bars than this and single games turn into noise
_RC = {"svg.fonttype": "none", "svg.hashsalt": "vbr", "font.size": 10, "axes.spines.top": False,
       "axes.spines.right": False, "text.parse_math": False}  # text from rule files is never TeX
_SAVE = {"png": {"dpi": 110}, "svg": {"metadata": {"Date": None}}}  # no date: same run, same file
_DRAW = "0.55"  # grey: a draw is no side's colour


# ------------------------------------------------------------------------------ words
def word(value) -> str:
    """An option value as the rule file spells it: `true`, not Python's `True`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _side_name(names: list[str] | None, summary: dict, side: int) -> str:
    if names and side < len(names):
        return names[side]
    return f"{summary.get('sides', 'seat')} {side}"


def _ci(entry: dict) -> tuple[float, float, float]:
    """A value with its interval; no interval is drawn as a zero-width one."""
    v = entry["value"]
    lo, hi = entry.get("ci95") or (v, v)
    return v, lo, hi


# ------------------------------------------------------------------------------ data
def win_rates(summary: dict, side_names: list[str] | None = None, draws: bool | None = None) -> dict:
    """Bars of the win-rate plot. Draws get a bar of their own when there were any (or always,
    with `draws=True`, so two variants show the same bars), since without it the side bars
    silently sum to less than one."""
    out = {"labels": [], "value": [], "lo": [], "hi": []}
    rows = [(_side_name(side_names, summary, int(k)), summary["win_rate"][k])
            for k in sorted(summary["win_rate"], key=int)]
    draw = summary.get("metrics", {}).get("draw_rate")
    if draw and draw.get("value") is not None and (_had_draws(summary) if draws is None else draws):
        rows.append(("draw", draw))
    for label, entry in rows:
        v, lo, hi = _ci(entry)
        out["labels"].append(label)
        out["value"].append(v)
        out["lo"].append(lo)
        out["hi"].append(hi)
    return out


def _had_draws(summary: dict) -> bool:
    draw = summary.get("metrics", {}).get("draw_rate")
    return bool(draw and draw.get("value"))


def length_edges(choices: list[int], max_bins: int = MAX_BINS) -> list[int]:
    """Integer bin edges covering every length, bins [e, e+w): integers, because a game is never
    half a choice long, and shared when two variants are compared, so their bars line up."""
    if not choices:
        return []
    lo, hi = min(choices), max(choices)
    width = max(1, math.ceil((hi - lo + 1) / max_bins))
    bins = math.ceil((hi - lo + 1) / width)
    return [lo + i * width for i in range(bins + 1)]


def length_histogram(trials: list[Trial], edges: list[int] | None = None, max_bins: int = MAX_BINS) -> dict:
    """Games per length bin (in choices, forced ones included) and the median length."""
    return lengths_histogram([t.choices for t in trials], edges, max_bins)


def lengths_histogram(choices, edges: list[int] | None = None, max_bins: int = MAX_BINS) -> dict:
    """`length_histogram` of the games of these lengths (a sequence of ints)."""
    edges = length_edges(choices, max_bins) if edges is None else edges
    counts = [0] * max(0, len(edges) - 1)
    for c in choices:
        i = bisect_right(edges, c) - 1
        if 0 <= i < len(counts):
            counts[i] += 1
    median = statistics.median(choices) if choices else None
    return {"edges": edges, "counts": counts, "median": median}


def final_margin(trial: Trial) -> int | None:
    """The leader's lead over the runner-up at the end. Taken from the score, not the winner:
    a rule file may decide a game by something other than points, and the score still says how
    close it was."""
    return score_margin(trial.points)


def score_margin(points: tuple | None) -> int | None:
    """`final_margin` of a game of this final score (None without one, or of fewer than two sides)."""
    if points is None or len(points) < 2:
        return None
    top, second = sorted(points, reverse=True)[:2]
    return top - second


def margin_distribution(trials: list[Trial]) -> dict[int, int]:
    """Games per final margin, in points, smallest margin first; games without a score are left
    out."""
    return margins_distribution(t.points for t in trials)


def margins_distribution(points) -> dict[int, int]:
    """`margin_distribution` of the games of these final scores (each a tuple, or None)."""
    out: dict[int, int] = {}
    for p in points:
        m = score_margin(p)
        if m is not None:
            out[m] = out.get(m, 0) + 1
    return dict(sorted(out.items()))


def metric_pairs(a_summary: dict, b_summary: dict) -> list[dict]:
    """The metrics both variants have a value for, in the order of the first, each as
    (value, lo, hi) per variant."""
    out = []
    for name, a in a_summary.get("metrics", {}).items():
        b = b_summary.get("metrics", {}).get(name)
        if b is None or a.get("value") is None or b.get("value") is None:
            continue
        out.append({"name": name, "label": a.get("label", name), "unit": a.get("unit", ""),
                    "a": _ci(a), "b": _ci(b)})
    return out


# ------------------------------------------------------------------------------ sweep data
def _key(value):
    return (type(value).__name__, value)  # 1 and True are different option values


def _unique(values: list) -> list:
    seen, out = set(), []
    for v in values:
        if _key(v) not in seen:
            seen.add(_key(v))
            out.append(v)
    return out


def _sorted_values(values: list) -> list:
    try:
        return sorted(values)
    except TypeError:
        return values  # mixed kinds: the order the grid gave


def sweep_axes(rows: list[dict]) -> tuple[str | None, list[str]]:
    """The option on the x axis and the others that vary (one line per combination of them).
    The x option is the first one that varies, in the order the options are written; an option
    with one value throughout says nothing and is left out of the labels."""
    names = _unique([n for r in rows for n in r["options"]])
    varying = [n for n in names if len(_unique([r["options"].get(n) for r in rows])) > 1]
    if not varying:
        return (names[0] if names else None), []
    return varying[0], varying[1:]


def sweep_metrics(rows: list[dict]) -> list[str]:
    """What a sweep plots: `win_rate_<side>` for each side, then each metric some row has a
    value for, in the order the summaries list them."""
    sides = _unique([k for r in rows for k in r["summary"].get("win_rate", {})])
    names = _unique([n for r in rows for n, m in r["summary"].get("metrics", {}).items()
                     if m.get("value") is not None])
    return [f"win_rate_{s}" for s in sorted(sides, key=int)] + names


def _point(summary: dict, metric: str) -> tuple | None:
    if metric.startswith("win_rate_"):
        entry = summary.get("win_rate", {}).get(metric.removeprefix("win_rate_"))
    else:
        entry = summary.get("metrics", {}).get(metric)
    if entry is None or entry.get("value") is None:
        return None
    return _ci(entry)


def _metric_words(rows: list[dict], metric: str, side_names: list[str] | None) -> tuple[str, str]:
    summary = rows[0]["summary"]
    if metric.startswith("win_rate_"):
        side = int(metric.removeprefix("win_rate_"))
        return f"win rate of {_side_name(side_names, summary, side)}", "share"
    for r in rows:
        m = r["summary"].get("metrics", {}).get(metric)
        if m:
            return m.get("label", metric), m.get("unit", "")
    return metric, ""


def sweep_series(rows: list[dict], metric: str, side_names: list[str] | None = None) -> dict:
    """One metric against the swept option: x values, and one line per combination of the other
    varying options (label like `abilities=true, target=5`; None when nothing else varies).
    A grid point with no row, or no value, is None, drawn as a gap."""
    x_name, others = sweep_axes(rows)
    xs = _sorted_values(_unique([r["options"].get(x_name) for r in rows]))
    combos = _unique([tuple(r["options"].get(o) for o in others) for r in rows])
    label, unit = _metric_words(rows, metric, side_names)
    series = []
    for combo in combos:
        at = {_key(r["options"].get(x_name)): _point(r["summary"], metric) for r in rows
              if tuple(map(_key, (r["options"].get(o) for o in others))) == tuple(map(_key, combo))}
        pts = [at.get(_key(x)) for x in xs]
        series.append({"label": ", ".join(f"{o}={word(v)}" for o, v in zip(others, combo)) or None,
                       "y": [p and p[0] for p in pts], "lo": [p and p[1] for p in pts],
                       "hi": [p and p[2] for p in pts]})
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    return {"metric": metric, "label": label, "unit": unit, "option": x_name, "x": xs,
            "numeric": numeric, "series": series}


# ------------------------------------------------------------------------------ drawing
def _ready(directory) -> Path:
    """The plot directory, made if missing; fails before any drawing, with the path in the
    message."""
    d = Path(directory)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"cannot create the plot directory {d}: {exc.strerror or exc}") from exc
    if not os.access(d, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write plots to {d}: permission denied")
    return d


@contextmanager
def _style():
    import matplotlib
    with matplotlib.rc_context(_RC):
        yield


def _figure(title: str, what: str, size=(6.4, 4.2)):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    fig.suptitle(_wrap(f"{title}: {what}" if title else what, int(11 * size[0])), fontsize=11)
    return fig


def _wrap(text: str, width: int = 70) -> str:
    return textwrap.fill(text, width)


def _save(fig, directory: Path, stem: str) -> list[Path]:
    """The figure as `stem.png` and `stem.svg` in `directory`, each written whole or not at all,
    as every file vbr writes (vbr.atomic_file: no file is replaced through a link out of its folder)."""
    from vbr.atomic_file import write_atomic
    paths = []
    for fmt in FORMATS:
        p = directory / f"{stem}.{fmt}"
        data = io.BytesIO()
        fig.savefig(data, format=fmt, **_SAVE[fmt])
        write_atomic(p, data.getvalue())
        paths.append(p)
    return paths


def _yerr(values, los, his):
    """Error bar lengths below and above; a missing value or interval is no bar."""
    below = [v - lo if v is not None and lo is not None else 0 for v, lo in zip(values, los)]
    above = [hi - v if v is not None and hi is not None else 0 for v, hi in zip(values, his)]
    return [below, above]


def _integer_x(ax):
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _colour(i: int) -> str:
    return f"C{i % 10}"


def _bar_colours(labels: list[str]) -> list[str]:
    return [_DRAW if lab == "draw" else _colour(i) for i, lab in enumerate(labels)]


def _win_rate_axes(ax, bars: list[tuple[str, dict]], sides: int):
    """Grouped bars (one group per side) of one or more variants, with the even share marked."""
    width = 0.8 / len(bars)
    labels = bars[0][1]["labels"]
    for j, (name, d) in enumerate(bars):
        xs = [i + (j - (len(bars) - 1) / 2) * width for i in range(len(d["labels"]))]
        colours = _bar_colours(d["labels"]) if len(bars) == 1 else _colour(j)
        ax.bar(xs, d["value"], width * 0.9, yerr=_yerr(d["value"], d["lo"], d["hi"]), capsize=4,
               color=colours, label=name, ecolor="0.2")
    if sides:
        ax.axhline(1 / sides, color="0.4", linestyle="--", linewidth=1, label=f"even share (1/{sides})")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylim(0, 1)
    _percent_y(ax)
    ax.set_ylabel("share of games (95% CI)")


def _length_axes(ax, hists: list[tuple[str, dict]], share: bool):
    for j, (name, h) in enumerate(hists):
        if not h["counts"]:
            continue
        n = sum(h["counts"]) or 1
        heights = [c / n for c in h["counts"]] if share else h["counts"]
        if len(hists) == 1:
            widths = [b - a for a, b in zip(h["edges"], h["edges"][1:])]
            ax.bar(h["edges"][:-1], heights, widths, align="edge", color=_colour(0), edgecolor="white", linewidth=0.5)
            ax.axvline(h["median"], color="0.2", linestyle="--", linewidth=1, label=f"median {h['median']:g}")
        else:
            ax.stairs(heights, h["edges"], fill=True, color=_colour(j), alpha=0.2)
            ax.stairs(heights, h["edges"], color=_colour(j), linewidth=1.5, label=f"{name} (median {h['median']:g})")
            ax.axvline(h["median"], color=_colour(j), linestyle="--", linewidth=1)
    _integer_x(ax)
    ax.set_xlabel("game length (choices made, forced ones included)")
    ax.set_ylabel("share of games" if share else "games")
    if share:
        _percent_y(ax)


def _margin_axes(ax, dists: list[tuple[str, dict[int, int]]], share: bool):
    width = 0.8 / len(dists)
    for j, (name, d) in enumerate(dists):
        n = sum(d.values()) or 1
        xs = [m + (j - (len(dists) - 1) / 2) * width for m in d]
        ys = [c / n for c in d.values()] if share else list(d.values())
        ax.bar(xs, ys, width * 0.9, color=_colour(j), label=name if len(dists) > 1 else None)
    _integer_x(ax)
    ax.set_xlabel("final margin (points: leader minus runner-up)")
    ax.set_ylabel("share of games" if share else "games")
    if share:
        _percent_y(ax)


def _legend(fig, variants: int):
    """One variant: a legend in the corner; two: below the plot, where it covers no bar."""
    handles, labels = fig.axes[0].get_legend_handles_labels()
    if not handles:
        return
    if variants > 1:
        fig.legend(handles, labels, loc="outside lower center", ncols=len(handles), fontsize=9, frameon=False)
    else:
        fig.axes[0].legend(fontsize=9, frameon=False)


def draw_win_rate(directory: Path, bars: list[tuple[str, dict]], sides: int, title: str) -> list[Path]:
    with _style():
        fig = _figure(title, "win rate per side")
        _win_rate_axes(fig.add_subplot(), bars, sides)
        _legend(fig, len(bars))
        return _save(fig, directory, "win_rate")


def draw_length(directory: Path, hists: list[tuple[str, dict]], title: str) -> list[Path]:
    with _style():
        fig = _figure(title, "game length")
        _length_axes(fig.add_subplot(), hists, share=len(hists) > 1)
        _legend(fig, len(hists))
        return _save(fig, directory, "length")


def draw_margin(directory: Path, dists: list[tuple[str, dict[int, int]]], title: str) -> list[Path]:
    with _style():
        fig = _figure(title, "final margin")
        _margin_axes(fig.add_subplot(), dists, share=len(dists) > 1)
        _legend(fig, len(dists))
        return _save(fig, directory, "margin")


def y_floor(unit: str, lows: list[float]) -> float | None:
    """Where a panel's y axis starts: shares and counts (rates per game or per choice) at zero, or
    below it for an interval that reaches under zero, so that 1.60 % against 1.68 % looks as close
    as it is; None for lengths and points, whose panels zoom in and say where their axis starts."""
    if unit in ("share", "count"):
        return min(0.0, *lows)
    return None


def _metric_panel(ax, p: dict, labels: tuple[str, str]):
    for j, key in enumerate(("a", "b")):
        v, lo, hi = p[key]
        ax.errorbar([j], [v], yerr=[[v - lo], [hi - v]], fmt="o", color=_colour(j), capsize=4, label=labels[j])
    ax.set_xlim(-0.6, 1.6)
    ax.set_xticks([0, 1], [_wrap(x, 16) for x in labels])
    ax.set_title(_wrap(p["label"], 30), fontsize=10)
    lows = [p["a"][1], p["b"][1]]
    floor = y_floor(p["unit"], lows)
    unit = "" if p["unit"] == "share" else p["unit"]
    if floor is not None:
        _floor_at(ax, floor)
    else:
        start = max((t for t in ax.get_yticks() if t <= min(lows)), default=min(lows))
        ax.set_ylim(bottom=start)
        unit = f"{unit}, axis from {start:g}" if start > 0 else unit
    if p["unit"] == "share":
        _percent_y(ax)
    ax.set_ylabel(unit, fontsize=9)
    ax.tick_params(labelsize=9)


def _floor_at(ax, floor: float):
    """The y axis from `floor`, with a little room below it when it is an interval's end."""
    top = ax.get_ylim()[1]
    ax.set_ylim(bottom=floor - 0.04 * (top - floor) if floor < 0 else floor)


def _percent_y(ax):
    from matplotlib.ticker import PercentFormatter
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))


def draw_metrics(directory: Path, pairs: list[dict], a_label: str, b_label: str, title: str) -> list[Path]:
    """One small panel per metric: the metrics' units differ, so one shared axis would lie."""
    cols = min(5, max(1, len(pairs)))
    rows = max(1, math.ceil(len(pairs) / cols))
    with _style():
        fig = _figure(title, f"metrics, {a_label} vs {b_label} (95% CI)", size=(2.9 * cols + 0.4, 2.7 * rows + 1.4))
        axes = list(fig.subplots(rows, cols, squeeze=False).flat)
        for ax, p in zip(axes, pairs):
            _metric_panel(ax, p, (a_label, b_label))
        for ax in axes[len(pairs):]:
            ax.set_visible(False)
        handles, labels = fig.axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=2, frameon=False)
        return _save(fig, directory, "metrics")


def draw_sweep(directory: Path, s: dict, title: str) -> list[Path]:
    with _style():
        fig = _figure(title, f"{s['label']} against {s['option']}")
        ax = fig.add_subplot()
        xs = s["x"] if s["numeric"] else list(range(len(s["x"])))
        for j, line in enumerate(s["series"]):
            shift = _dodge(xs, j, len(s["series"]))
            ys = [math.nan if y is None else y for y in line["y"]]
            ax.errorbar([x + shift for x in xs], ys, yerr=_yerr(line["y"], line["lo"], line["hi"]), capsize=3,
                        marker=_MARKERS[j // 10 % len(_MARKERS)], color=_colour(j), label=line["label"])
        _sweep_x(ax, s, xs)
        _sweep_y(ax, s)
        labelled = [line for line in s["series"] if line["label"]]
        if labelled:
            rows = math.ceil(len(labelled) / 3)
            fig.legend(loc="outside lower center", ncols=math.ceil(len(labelled) / rows), fontsize=9, frameon=False)
        return _save(fig, directory, f"sweep_{s['metric']}")


_MARKERS = "osD^v"


def _dodge(xs: list, j: int, lines: int) -> float:
    """A small sideways shift per line, so that intervals of lines at the same x stay apart."""
    if lines < 2 or len(xs) < 1:
        return 0.0
    step = min((b - a for a, b in zip(xs, xs[1:])), default=1) or 1
    return step * 0.25 * (j / (lines - 1) - 0.5)


def _sweep_x(ax, s: dict, xs: list):
    ax.set_xlabel(s["option"] or "(no options)")
    if not s["numeric"]:
        ax.set_xticks(xs, [word(x) for x in s["x"]])
    elif len(xs) <= 12:
        ax.set_xticks(xs, [word(x) for x in xs])
    else:
        _integer_x(ax)


def _sweep_y(ax, s: dict):
    """Shares in percent; shares and counts from zero (as in `y_floor`)."""
    lows = [lo for line in s["series"] for lo in line["lo"] if lo is not None]
    floor = y_floor(s["unit"], lows)
    if floor is not None:
        _floor_at(ax, floor)
    if s["unit"] == "share":
        _percent_y(ax)
    ax.set_ylabel(_sweep_y_label(s))


def _sweep_y_label(s: dict) -> str:
    ci = any(lo is not None and lo != y for line in s["series"] for y, lo in zip(line["y"], line["lo"]))
    words = ", ".join(w for w in (s["unit"], "95% CI" if ci else "") if w)
    return f"{s['label']} ({words})" if words else s["label"]


# ------------------------------------------------------------------------------ writers
def shown(value):
    """`value` with every string in it (in lists, tuples and dicts, keys too) passed through
    `vbr.terminal.clean`: control and bidi characters as `\x1b` and `\u202e`."""
    from vbr.terminal import clean
    if isinstance(value, str):
        return clean(value)
    if type(value) in (list, tuple):
        return type(value)(shown(v) for v in value)
    if type(value) is dict:
        return {shown(k): shown(v) for k, v in value.items()}
    return value


def titled(title: str, agents: list[str] | None) -> str:
    """A figure's title: the game's, and the agents that played it (`Siatka, random | greedy`)."""
    return f"{title}, {' | '.join(agents)}" if agents else title


def write_sim_plots(directory, games, summary: dict, side_names: list[str] | None,
                    title: str, agents: list[str] | None = None) -> list[Path]:
    """`vbr sim --plot DIR`: win_rate, length, margin (margin only when games have a score).
    `games`: a list of Trials, or their columns (anything with `choices` and `points`, as
    vbr.analysis.column_store.ColumnStore has). Without `side_names`, sides are called as the
    summary counts them: `seat 0`, `team 1`. Each title names the game and, when given, the agents."""
    d = _ready(directory)
    summary, side_names, title = shown(summary), shown(side_names), shown(titled(title, agents))
    sides = len(summary["win_rate"])
    paths = draw_win_rate(d, [("", win_rates(summary, side_names))], sides, title)
    if isinstance(games, list):
        choices, points = [t.choices for t in games], [t.points for t in games]
    else:
        choices, points = games.choices, games.points
    paths += draw_length(d, [("", lengths_histogram(choices))], title)
    margins = margins_distribution(points)
    if margins:
        paths += draw_margin(d, [("", margins)], title)
    return paths


def write_compare_plots(directory, a_trials, a_summary: dict, b_trials, b_summary: dict,
                        a_label: str, b_label: str, side_names: list[str] | None, title: str,
                        agents: list[str] | None = None) -> list[Path]:
    """`vbr compare --plot DIR`: win_rate, length, margin with both variants on each (heights as
    shares of games, since the variants may have played different numbers), then metrics.
    `a_trials`, `b_trials`: each variant's games, a list of Trials or their columns (as
    `write_sim_plots` takes them)."""
    d = _ready(directory)
    a_summary, b_summary, a_label, b_label = shown(a_summary), shown(b_summary), shown(a_label), shown(b_label)
    side_names, title = shown(side_names), shown(titled(title, agents))
    sides = len(a_summary["win_rate"])
    draws = _had_draws(a_summary) or _had_draws(b_summary)
    bars = [(a_label, win_rates(a_summary, side_names, draws)), (b_label, win_rates(b_summary, side_names, draws))]
    paths = draw_win_rate(d, bars, sides, title)
    (ca, pa), (cb, pb) = _lengths_and_scores(a_trials), _lengths_and_scores(b_trials)
    edges = length_edges([*_extremes(ca), *_extremes(cb)])
    hists = [(a_label, lengths_histogram(ca, edges)), (b_label, lengths_histogram(cb, edges))]
    paths += draw_length(d, hists, title)
    margins = [(a_label, margins_distribution(pa)), (b_label, margins_distribution(pb))]
    if any(m for _, m in margins):
        paths += draw_margin(d, margins, title)
    pairs = metric_pairs(a_summary, b_summary)
    if pairs:
        paths += draw_metrics(d, pairs, a_label, b_label, title)
    return paths


def _lengths_and_scores(games) -> tuple:
    """(each game's choices, each game's final score) of a list of Trials or of their columns."""
    if isinstance(games, list):
        return [t.choices for t in games], [t.points for t in games]
    return games.choices, games.points


def _extremes(values) -> list:
    """The least and the greatest of these values; none of none."""
    return [min(values), max(values)] if len(values) else []


def write_sweep_plots(directory, rows: list[dict], title: str, side_names: list[str] | None = None,
                      agents: list[str] | None = None) -> list[Path]:
    """`vbr sweep --plot DIR`: sweep_win_rate_<side> per side, then sweep_<metric> per metric."""
    d = _ready(directory)
    rows, side_names, title = shown(rows), shown(side_names), shown(titled(title, agents))
    if not rows:
        return []
    paths = []
    for metric in sweep_metrics(rows):
        paths += draw_sweep(d, sweep_series(rows, metric, side_names), title)
    return paths
