"""Human-readable renderings of game events and simulation statistics.

Titles, side names, `say` strings, prompts and items come from the rule file, which is untrusted:
every rendering here passes them through `vbr.terminal.clean`, so none of their control characters
reaches a terminal raw (JSON output is escaped by `json.dumps` or `vbr.json_text` instead)."""
from __future__ import annotations

from vbr.analysis.rounding import exact
from vbr.terminal import clean
from vbr.values import text


def render_events(events: list[dict]) -> list[str]:
    return [clean(line) for line in _event_lines(events)]


def _event_lines(events: list[dict]) -> list[str]:
    lines = []
    for e in events:
        t = e["t"]
        if t == "phase":
            lines.append(f"[{e['phase']}]")
        elif t == "choice":
            what = e.get("item", e["action"])
            lines.append(f"  seat {e['seat']}: {e['prompt']} -> {what}" + (" (only option)" if e["of"] == 1 else ""))
        elif t == "roll":
            lines.append(f"  roll {e['die']}: {e['value']}")
        elif t == "pick":
            lines.append(f"  drawn at random: {e['value']}")
        elif t == "shuffle":
            lines.append(f"  shuffle {e['zone']}")
        elif t == "say":
            lines.append(f"  {e['text']}")
        elif t == "reveal":
            lines.append(f"  reveal {e['what']}: {', '.join(e['items']) or 'nothing'}")
        elif t == "end":
            if "team" in e:
                who = f"team {e['team']} wins"
            else:
                who = "a draw" if e["winner"] is None else f"seat {e['winner']} wins"
            pts = ", ".join(map(str, e.get("points") or []))  # as Outcome prints them: (1, -1)
            lines.append(f"game over: {who}" + (f" ({pts})" if pts else ""))
    return lines


def _engine_named(engine: str | None) -> str:
    """`, engine c` after a run's agents: the engine that played it (nothing for a summary that
    names none)."""
    return f", engine {engine}" if engine else ""


def counted(n: int, word: str) -> str:
    """`1 game`, `2 games`: a count with its noun, plural but for one."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render_stats(s: dict) -> str:
    return clean(_stats_text(s))


def _stats_text(s: dict) -> str:
    run = f"from {s['source']}" if s.get("source") else f"seed {s['seed']}"
    games = counted(s["games"], "game")
    if s.get("interrupted"):  # the report of a run stopped early says so itself, wherever stdout goes
        games += f" of {s['games_planned']} (interrupted)"
    out = [f"{s['title']} ({s['rules']}), {games}, {run}, agents {' | '.join(s['agents'])}"
           + _engine_named(s.get("engine"))]
    if s.get("options"):
        out.append("options: " + ", ".join(f"{k}={text(v)}" for k, v in s["options"].items()))  # as typed: true, not True
    names = s.get("side_names") or [f"{s.get('sides', 'seat')} {k}" for k in s["wins"]]
    shares = _win_percents(s)
    for (side, wins), name, share in zip(s["wins"].items(), names, shares):
        out.append(f"  {name}: {counted(wins, 'win')}, {share}% (95% CI {_percents(s['ci95'][side], '-')}%)")
    if s["draws"]:
        out.append(f"  draws: {s['draws']}, {shares[-1]}%")
    out += agent_lines(s)
    if s.get("skill"):
        out.append(skill_line(s["skill"]))
    if s.get("restricted"):
        r = s["restricted"]
        out.append(f"restricted play ({', '.join(r['rules'])}): {r['narrowed_per_game']:.2f} choices narrowed per game, "
                   f"{r['played_whole']} left with no option and played whole")
    out.append(f"mean choices per game: {s['mean_steps']}")
    if s.get("points_per_game"):
        out.append("points per game: " + ", ".join(f"{n}: {p}" for n, p in zip(names, s["points_per_game"])))
    if s.get("metrics"):
        out.append("balance (95% CI):")
        out += metric_lines(s["metrics"], names)
    if s.get("measures"):
        out.append("measures the rule file declares (95% CI):")
        out += metric_lines(s["measures"], names)
    if s.get("precision"):
        out.append(precision_line(s["precision"]))
    if s.get("seconds") is not None:
        out.append(speed_line(s))
    return "\n".join(out)


def speed_line(s: dict) -> str:
    """`720 games/s (2.78 s, loading 0.14 s)`; a run slower than a game a second in seconds per
    game, never `0.0 games/s`. A run of under a second takes its rate from `games_per_s` where
    the run measured it (before `seconds` was rounded to three decimals: 200 games in 0.0021 s
    are 95,200 games/s, not the 100,000 of 0.002 s), and one whose seconds round to 0.0 took
    `under 0.001 s`."""
    from vbr.progress import speed
    took = f"{s['seconds']} s"
    measured = s.get("games_per_s") if s["games"] > 0 and s["seconds"] < 1 else None
    said = speed(s["games"], s["games"] / measured) if measured else speed(s["games"], s["seconds"])
    if s["games"] > 0 and s["seconds"] <= 0 and measured:
        took = "under 0.001 s"
    return f"{said} ({took}" + (f", loading {s['load_seconds']} s)" if s.get("load_seconds") else ")")


def _points(share: float | None) -> str:
    """A half width in percentage points, cut (not rounded) to two decimals: a width just below its
    target never prints as the target itself."""
    import math
    return "none" if share is None else f"\u00b1{math.floor(10_000 * exact(share)) / 100:.2f}"


def precision_line(p: dict) -> str:
    """Where a run with `--precision` stopped, and why: its watched rate with its 95 % confidence
    sequence, and the target it reached or did not."""
    value = "none" if p["value"] is None else f"{_percent(p['value'])}%"
    rate = f"{p['label']} {value} (95% confidence sequence {_percents(p.get('cs95') or (0.0, 1.0), '-')}%)"
    half, target = _points(p.get("half_width")), f"{100 * p['target']:g}"
    if p["reached"]:
        return f"precision reached: {rate}, half width {half} < {target} percentage points"
    if p["value"] is None:  # more games of the same kind will not give it one
        return (f"precision not reached: no game gave {p['label']} a value (a measure no game sets, or "
                f"no decided game), so it has no interval to narrow to {target} percentage points")
    from vbr.analysis.sequential import MOST_NEEDED
    needed = p["games_needed_at_half"]
    about = f"more than {MOST_NEEDED - 1:,}" if needed >= MOST_NEEDED else f"about {needed:,}"
    return (f"precision not reached: {rate}, half width {half}, not below {target} percentage points; "
            f"a rate of 50% needs {about} games (raise -n)")


def agent_lines(s: dict) -> list[str]:
    """With the seats rotated: the seatings (and how many a deal, where deals differ in theirs),
    then each agent's wins over every seating it played, with its interval (Wilson's, each deal's
    games a cluster: `metrics.agent_win_rates`) and, where the sides differ in size, its games and
    the wins of its side on each side. Nothing for a run that kept its seats."""
    if not s.get("per_agent"):
        return []
    seatings = ", ".join(" | ".join(x) for x in s["seatings"])
    per_deal = s.get("seatings_per_deal", len(s["seatings"]))
    each = f", {per_deal} a deal" if per_deal != len(s["seatings"]) else ""
    out = [f"per agent, seats rotated ({counted(len(s['seatings']), 'seating')}{each}: {seatings}):"]
    for name, a in s["per_agent"].items():
        out.append(f"  {name}: {counted(a['wins'], 'win')} of {a['games']}, {_share(a)}% "
                   f"(95% CI {_percents(a['ci95'], '-')}%){_sides_text(a, s.get('side_names', []))}")
    return out


def _sides_text(a: dict, names: list[str]) -> str:
    """Where the sides differ in size (`sides` in an agent's entry): `; on team red 14 of 15 won,
    team blue 14 of 15`, its games on each side and how many that side won."""
    if not a.get("sides"):
        return ""
    on = [f"on {names[int(side)] if int(side) < len(names) else 'side ' + side}: {e['wins']} of {e['games']}"
          for side, e in a["sides"].items()]
    return f"; {on[0]} won, {', '.join(on[1:])}" if len(on) > 1 else f"; {on[0]} won"


def _share(a: dict) -> str:
    """`wins` of `games` in percent to one place, worked out from the counts: `value` is rounded to
    4 decimals already, and rounding that again can move the last digit (17 of 37 is 45.946 %,
    whose 0.4595 would print as 46.0 %)."""
    return f"{100 * a['wins'] / a['games']:.1f}" if a["games"] else _percent(a["value"])


def skill_line(k: dict) -> str:
    """`skill expression: mcts:iterations=400 wins 71.0% (64.4-76.8%) of 200 games against
    mcts:iterations=50`: the `--skill` figure, with the higher setting's interval of `per_agent`."""
    return (f"skill expression: {k['high']} wins {_share(k)}% ({_percents(k['ci95'], '-')}%) of "
            f"{k['games']} games against {k['low']}")


def metric_lines(metrics: dict, names: list[str]) -> list[str]:
    """One aligned line per metric: label, value, interval."""
    labels = [clean(metric_label(m, names)) for m in metrics.values()]
    values = [metric_text(m, ci=False) for m in metrics.values()]
    lw, vw = max(map(len, labels)), max(map(len, values))
    return [f"  {lab:<{lw}}  {val:>{vw}}  {_interval(m)}{_unset_text(m)}".rstrip()
            for lab, val, m in zip(labels, values, metrics.values())]


def _unset_text(m: dict) -> str:
    """For a declared measure some games never set: how many."""
    return f"; unset in {m['unset']} of {m['games']} games" if m.get("unset") else ""


def metric_label(m: dict, names: list[str]) -> str:
    """The label, and for the side advantage which side has it, in the game's words."""
    side = m.get("side")
    if side is not None and side.isdigit() and int(side) < len(names):
        return f"{m['label']} ({names[int(side)]})"
    return m["label"]


def metric_text(m: dict, ci: bool = True) -> str:
    """A metric as a designer reads it: shares in percent, whole numbers whole, the rest to 2 places."""
    if m["value"] is None:
        return "n/a"
    body = number(m["value"], m)
    return body + (f"  {_interval(m)}" if ci and m.get("ci95") else "")


def _interval(m: dict) -> str:
    lohi = m.get("ci95")
    if m["value"] is None:
        return f"({m['reason']})" if m.get("reason") else ""
    if not lohi:
        return f"(no interval: {m['reason']})" if m.get("reason") else ""
    return f"({number(lohi[0], m)}..{number(lohi[1], m)})"


def _percent(x: float) -> str:
    """A share in percent to one place, rounded once from its full value (`rounding.exact`)."""
    return f"{100 * exact(x):.1f}"


def _percents(ci, between: str) -> str:
    """An interval of shares in percent, `lo{between}hi`, each end rounded once (`_percent`)."""
    return f"{_percent(ci[0])}{between}{_percent(ci[1])}"


def number(x: float, m: dict) -> str:
    """Shares in percent; order statistics of whole counts whole (a median of 9 choices is 9); the
    rest to 2 places. Each rounded once, from the figure's full value (`rounding.exact`)."""
    x = exact(x)
    if m.get("unit") == "share":
        return f"{100 * x:.1f}%"
    if str(m.get("method")).startswith("order statistics") and float(x).is_integer():  # deals as clusters too
        return str(int(x))
    return f"{x:.2f}"


def sweep_table(rows: list[dict]) -> list[dict]:
    """One flat row per combination, every row with the same columns in the same order: the swept
    options (a number or a bool as itself, as `vbr sim --json` writes options; another value as
    its text), then for each side k of the combination with the most sides `side_k` (its name in
    this combination: `seat 0`, `team red`) and `win_rate_k` with its CI bounds (empty where this
    combination has no side k), then every figure with its CI bounds."""
    sides = max((len(r["summary"]["win_rate"]) for r in rows), default=0)
    table = []
    for r in rows:
        s = r["summary"]
        flat = {k: v if isinstance(v, (int, float)) else text(v) for k, v in r["options"].items()}
        flat["games"], flat["engine"] = s["games"], s.get("engine")
        keys = list(s["win_rate"])
        names = s.get("side_names") or [f"{s.get('sides', 'seat')} {side}" for side in keys]
        for k in range(sides):
            side = keys[k] if k < len(keys) else None
            flat[f"side_{k}"] = names[k] if side is not None else None
            flat[f"win_rate_{k}"] = s["win_rate"][side] if side is not None else None
            flat[f"win_rate_{k} lo"], flat[f"win_rate_{k} hi"] = s["ci95"][side] if side is not None else (None, None)
        for name, a in (s.get("per_agent") or {}).items():
            flat[f"win_rate agent {name}"] = a["value"]
            flat[f"win_rate agent {name} lo"], flat[f"win_rate agent {name} hi"] = a["ci95"]
        for key, m in {**s["metrics"], **s.get("measures", {})}.items():
            flat[key] = m["value"]
            lohi = m.get("ci95") or (None, None)
            flat[f"{key} lo"], flat[f"{key} hi"] = lohi
        table.append(flat)
    return table


WIDTH = 100  # the sweep table is cut into blocks of columns no wider than this


COMPACT_OVER = 6  # more combinations than this: one line each (headline figures), the rest in --out


def one_agent_everywhere(runs: list[list[str]]) -> str | None:
    """The agents of several runs as one header names them: `a | b` when every run had the same
    agents in the same seats, `a in every seat` when one agent filled every seat of runs with
    different numbers of seats (a sweep over Cattack's `players`), else None."""
    if len({tuple(agents) for agents in runs}) == 1:
        return " | ".join(runs[0])
    names = {a for agents in runs for a in agents}
    return f"{names.pop()} in every seat" if len(names) == 1 else None


def render_sweep(title: str, rows: list[dict], analysis: dict | None = None, out: str | None = None,
                 stopped: str = "") -> str:
    """The sweep as terminal text no wider than `WIDTH` (but for a name the rule file makes longer):
    up to COMPACT_OVER combinations, a column each and a line per figure, cut into blocks of
    columns; more, a line each with the win rates and the mean length, every figure being in
    `--out`. Then what `analysis` found (`commands.sweep_analysis`). `stopped`: how far a sweep
    stopped early got (`interrupted: ...`), said on the first line."""
    first = rows[0]["summary"]
    combos, games = len(rows), first["games"]
    agents = one_agent_everywhere([r["summary"]["agents"] for r in rows]) or "as each column names them"
    each = (f"{games} game{'s' if games != 1 else ''} each" if len({r["summary"]["games"] for r in rows}) == 1
            else "the games each column's `games` line gives")  # a combination stopped early has fewer
    engines = sorted({r["summary"].get("engine") for r in rows} - {None})
    out_lines = [f"{title}: sweep of {combos} combination{'s' if combos != 1 else ''}, {each}"
                 + (f", seed {first['seed']}" if first.get("seed") is not None else "") + f", agents {agents}"
                 + (", seats rotated" if first.get("rotate_seats") else "")
                 + (f", engine{'s' if len(engines) > 1 else ''} {' and '.join(engines)}" if engines else "")
                 + (f" ({stopped})" if stopped else "")]
    out_lines += _sweep_columns(rows) if len(rows) <= COMPACT_OVER else _sweep_compact(rows, out)
    if analysis:
        out_lines += analysis_lines(analysis, sweep_side_names(rows))
    return clean("\n".join(x.rstrip() for x in out_lines))


def _setting(name: str, value) -> str:
    """`NAME=VALUE` of a combination's head; `NAME=n/a` for an option its rule file does not have
    (`vbr summarize` of the rows of several files), whose value is None: no option's value is."""
    return f"{name}={'n/a' if value is None else text(value)}"


def _sweep_columns(rows: list[dict]) -> list[str]:
    heads = [[clean(_setting(k, v)) for k, v in r["options"].items()] for r in rows]
    lines = _sweep_lines(rows)
    w0 = max(len(a) for a, _ in lines)
    widths = [max(*map(len, h), *(len(v[i]) for _, v in lines)) for i, h in enumerate(heads)]
    out: list[str] = []
    for n, block in enumerate(_blocks(widths, WIDTH - w0)):
        out += [""] if n else []
        for k in range(len(heads[0])):
            out.append(" " * w0 + "  " + "  ".join(heads[i][k].ljust(widths[i]) for i in block))
        out += [a.ljust(w0) + "  " + "  ".join(vals[i].ljust(widths[i]) for i in block) for a, vals in lines]
    return out


def _sweep_compact(rows: list[dict], out: str | None) -> list[str]:
    """A line per combination: its options, each side's wins with their interval, the mean length."""
    names = sweep_side_names(rows)
    labels = [clean(", ".join(_setting(k, v) for k, v in r["options"].items())) for r in rows]
    cells = []
    for r in rows:
        s, shares = r["summary"], _win_percents(r["summary"])
        wins = [_side_wins(s, shares, k, "{share}% ({lo:.1f}..{hi:.1f})") for k in range(len(names))]
        cells.append(wins + [metric_text(s["metrics"]["length_mean"], ci=False)])
    heads = [clean(f"{n} wins") for n in names] + ["mean length"]
    w0 = max(len(x) for x in labels)
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    lines = ["", " " * w0 + "  " + "  ".join(h.ljust(w) for h, w in zip(heads, widths))]
    lines += [lab.ljust(w0) + "  " + "  ".join(c.ljust(w) for c, w in zip(cell, widths)) for lab, cell in zip(labels, cells)]
    where = "in the --out file" if out else "--out FILE (.csv, .jsonl or .json)"
    return lines + [f"every figure of every combination, with its 95% CI: {where}"]


def analysis_lines(a: dict, names: list[str]) -> list[str]:
    """The pooled values, the entrants' ranking, and the combinations that differ from the first;
    the sides called by `names` (`sweep_side_names`)."""
    out: list[str] = []
    if a.get("pooled"):
        out += ["", "each value pooled over the rest of the grid (each side's wins, 95% CI; mean length):"]
        labels = [clean(f"{p['option']}={p['value']}") for p in a["pooled"]]
        w0 = max(map(len, labels))
        for lab, p in zip(labels, a["pooled"]):
            wins = "  ".join(clean(f"{n} {100 * v:.1f}% ({100 * ci[0]:.1f}..{100 * ci[1]:.1f})")
                             for n, v, ci in zip(names, p["win_rate"], p["ci95"]))
            out.append(f"  {lab.ljust(w0)}  {p['games']} games  {wins}  {p['mean_length']:.2f}")
    if a.get("entrants"):
        out += entrant_lines(a["entrants"], names)
    out += against_first_lines(a["against_first"])
    return out


def entrant_lines(e: dict, names: list[str]) -> list[str]:
    picks = ", ".join(clean(f"{o} for {n}") for o, n in zip(e["options"], names))
    out = ["", f"the values as entrants ({picks}; mirror matches left out):"]
    ranking = e.get("ranking") or {}
    ranked = [r["value"] for r in ranking.get("ranking", [])] or list(e["entrants"])
    w0 = max(len(clean(v)) for v in ranked)
    by = {r["value"]: r for r in ranking.get("ranking", [])}
    if by:
        out.append("  Bradley-Terry: each value's chance against a value of average strength (95% CI); won/played")
    for n, v in enumerate(ranked, start=1):
        t = e["entrants"][v]
        played = f"won {t['wins']} of {t['games']}" + (f" ({100 * t['value']:.1f}%)" if t["games"] else "")
        if v in by:
            lo, hi = by[v]["vs_average_ci95"]
            out.append(f"  {n:>2}. {clean(v).ljust(w0)}  {100 * by[v]['vs_average']:.1f}% ({100 * lo:.1f}..{100 * hi:.1f})  {played}")
        else:
            out.append(f"      {clean(v).ljust(w0)}  {played}")
    if ranking.get("reason"):
        out.append(f"  {ranking['reason']}")
    elif ranking is None or not by:
        out.append("  no Bradley-Terry ranking: it is fitted for two sides")
    return out


def against_first_lines(a: dict) -> list[str]:
    rows = a["rows"]
    if not rows:
        return []
    from vbr.analysis.comparison import tested as tests_in
    tested = tests_in(rows)
    combos = list(dict.fromkeys(r["combination"] for r in rows))
    out = ["", clean(f"against the first combination, {a['first']}, paired by deal"),
           f"(significant: Holm-adjusted p < 0.05 over all {tested} figures of "
           + ("the one comparison):" if len(combos) == 1 else f"the {len(combos)} comparisons):")]
    quiet = 0
    for c in combos:
        changed = [r for r in rows if r["combination"] == c and r.get("significant")]
        if not changed:
            quiet += 1
            continue
        out.append(clean(f"  {c}:"))
        out += [f"    {r['sentence']}" for r in changed]
    if quiet:
        out.append(f"  {'no figure changed significantly' if quiet == len(combos) else f'{quiet} other combinations: no significant change'}")
    return out


def _sweep_lines(rows: list[dict]) -> list[tuple[str, list[str]]]:
    """(figure, its text in each combination): games, each side's wins, each agent's when the
    seats were rotated, every metric."""
    first = rows[0]["summary"]
    lines: list[tuple[str, list[str]]] = [("games", [str(r["summary"]["games"]) for r in rows])]
    shares = [_win_percents(r["summary"]) for r in rows]
    for k, name in enumerate(sweep_side_names(rows)):
        lines.append((clean(f"{name} wins"), [_side_wins(r["summary"], shares[i], k, "{share}%  ({lo:.1f}%..{hi:.1f}%)")
                                              for i, r in enumerate(rows)]))
    for name in first.get("per_agent") or {}:
        lines.append((clean(f"agent {name} wins"), [metric_text({**_SHARE, **r["summary"]["per_agent"][name]})
                                                    for r in rows]))
    for key, m in first["metrics"].items():
        lines.append((m["label"], [metric_text(r["summary"]["metrics"][key]) for r in rows]))
    measures: dict = {}  # the rule files' declared measures, as `vbr sim` lists them (n/a where a file has none)
    for r in rows:
        measures |= {k: m for k, m in r["summary"].get("measures", {}).items() if k not in measures}
    for key, m in measures.items():
        lines.append((clean(m["label"]), [metric_text(r["summary"]["measures"][key])
                                          if key in r["summary"].get("measures", {}) else "n/a" for r in rows]))
    return lines


_SHARE = {"value": 0.0, "unit": "share"}


def sweep_side_names(rows: list[dict]) -> list[str]:
    """The sides of a sweep's combinations, side by side: side k's name (`team red`), or where
    the combinations name it differently (Cattack's players=2 and players=4), each of its names
    (`seat 0 / team red`); as many as the combination with the most sides has."""
    names: list[dict] = []
    for r in rows:
        s = r["summary"]
        for k, name in enumerate(s.get("side_names") or [f"{s.get('sides', 'seat')} {side}" for side in s["wins"]]):
            names += [{}] * (k + 1 - len(names))
            names[k] = names[k] | {name: None}
    return [" / ".join(n) for n in names]


def _side_wins(s: dict, shares: list[str], k: int, form: str) -> str:
    """Side k's wins in one combination (`s` its summary, `shares` its `_win_percents`) written as
    `form` says; `n/a` in a combination without a side k."""
    sides = list(s["win_rate"])
    if k >= len(sides):
        return "n/a"
    lo, hi = s["ci95"][sides[k]]
    return form.format(share=shares[k], lo=100 * exact(lo), hi=100 * exact(hi))


def _blocks(widths: list[int], room: int) -> list[list[int]]:
    """The columns cut into runs that fit `room` characters (two between columns), in order; a
    column wider than the room alone gets a block of its own."""
    blocks: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        if blocks[-1] and used + 2 + w > room:
            blocks.append([])
            used = 0
        blocks[-1].append(i)
        used += 2 + w
    return blocks


def _win_percents(s: dict) -> list[str]:
    """Each side's win rate in percent, rounded together with the draws so that they add to 100."""
    from vbr.analysis.metrics import percent_shares
    return percent_shares([*s["wins"].values(), s["draws"]])


def render_compare(r: dict) -> str:
    return clean(_compare_text(r))


def _compare_text(r: dict) -> str:
    a, b = r["base"], r["variant"]
    named = one_agent_everywhere([r["base_summary"]["agents"], r["variant_summary"]["agents"]])
    agents = (f"agents {named or ' | '.join(r['agents'])}" + _engine_named(r.get("engine"))
              + (", seats rotated" if r["base_summary"].get("rotate_seats") else ""))
    if r.get("source"):
        played = f"{counted(r['games'], 'game')} from {r['source']}, {agents}"
    elif r.get("base_rows"):
        played = f"{counted(r['games'], 'game')} each on the deals of {r['base_rows']} (the base's games read from it), {agents}"
    else:
        played = f"{counted(r['games'], 'game')} each, seed {r['seed']}, {agents}"
    out = [f"base: {a['label']} ({a['rules']})", f"variant: {b['label']} ({b['rules']})", played]
    out += pairing_lines(r)
    from vbr.analysis.comparison import tested as tests_in
    tested = tests_in(r["metrics"])
    changed = [m for m in r["metrics"] if m.get("significant")]
    out.append("")
    out.append(f"changed significantly (Holm-adjusted p < 0.05 over the {tested} figures with an interval):" if changed
               else f"no figure changed significantly (Holm-adjusted p < 0.05 over the {tested} with an interval)")
    out += [f"  {m['sentence']}" for m in changed]
    rest = [m for m in r["metrics"] if not m.get("significant")]
    if rest:
        out += ["", "no significant change (base → variant, difference and its 95% CI):"]
        out += [f"  {m['sentence']}" + _holm_note(m) for m in rest]
    return "\n".join(out)


def _holm_note(m: dict) -> str:
    """For a figure whose own interval excludes 0 but which Holm's correction does not keep."""
    if not m.get("excludes_0"):
        return ""
    return f" (its CI excludes 0: p {exact(m['p']):.3f}, {exact(m['p_holm']):.2f} after Holm)"


def pairing_lines(r: dict) -> list[str]:
    """What the pairing did: the pairs, how alike their games came out, the unpaired run that
    would have been as precise."""
    p = r.get("pairing")
    if not p or not p.get("paired", bool(p["pairs"])):
        shared = (f"only {counted(p['pairs'], 'game')} {'was' if p['pairs'] == 1 else 'were'}" if p and p["pairs"]
                  else "no game was")
        return [f"unpaired: {shared} played in both variants with the same seed and seating; the intervals treat "
                f"the runs as independent"]
    played = (counted(p["pairs"], "deal") if p.get("deals", p["pairs"]) == p["pairs"]
              else f"{counted(p['pairs'], 'game')} of {counted(p['deals'], 'deal')}")  # the seats rotated
    out = [f"paired: {played} played in both (same seeds and seatings); each interval but the",
           "  quantiles' is taken over the per-deal differences",
           f"  same winner in {p['same_winner']} of {p['pairs']} pairs "
           f"({exact(p['same_winner_if_independent']):.0f} if they were independent games), "
           f"same first side in {p['same_first_side']}"]
    head = next((m for m in r["metrics"] if m["metric"] == "win_rate_0"), None)
    if head and head.get("unpaired_games"):
        out.append(f"  an unpaired run would need {head['unpaired_games']:,} games per variant for the "
                   f"{head['label']}'s interval")
    return out
