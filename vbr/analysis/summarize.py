"""`vbr summarize ROWS...`: per-game rows of earlier runs merged and summarised again, so a run
can be extended (another `--seed`) instead of repeated.

The rows are merged into arms (`rows.read`: one rule file, options, engine and set of agents
each; a game seen twice counted once). One arm is summarised as `vbr sim` does; two are compared
as `vbr compare` does (paired by deal when they played the same deals), the first as the base;
more are a sweep's table, each against the first. The rule file each row names must still load under the row's options:
the summaries take the game's title and side names from it.
"""
from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from vbr.analysis import rows as R
from vbr.analysis.commands import Variant, measure_labels, note, summary
from vbr.loader import MissingFileError
from vbr.sim import RunResult, RunSpec

FROM_ROWS = SimpleNamespace(name="rows", workers=0)  # the "backend" of games read back from rows


def cmd_summarize(args) -> int:
    try:
        merged = R.read(args.rows)
    except R.RowsError as exc:
        print(f"vbr: error: {exc}" if isinstance(exc, R.RowsUnreadable) else str(exc), file=sys.stderr)
        return 1
    arms = [a for a in merged.arms if a.trials]
    if not arms:
        print("vbr: error: the rows files hold no games", file=sys.stderr)
        return 1
    if merged.duplicates:
        note(f"{merged.duplicates} games appear more than once (the same rule file, options, engine, seed, "
             f"seating and index in its run): each is counted once")
    files = len({os.path.realpath(name) for name in args.rows})  # a file given twice is one file
    source = f"rows of {files} file{'s' if files > 1 else ''}"
    lost = [a.rules for a in arms if _lost(a.rules)]
    try:
        if len(arms) == 1:
            return _one(args, arms[0], source)
        if len(arms) == 2:
            return _two(args, arms, source)
        return _many(args, arms, source)
    except MissingFileError as exc:
        if not lost:
            raise
        print(exc.render(), file=sys.stderr)  # then why a file the run found is not found now
        note(f"the rows name {lost[0]} as their run was given it, relative to the folder the run was played in; "
             f"this is {Path.cwd()}")
        return 1
    except R.RowsError as exc:  # an arm whose games do not fit its rule file
        print(str(exc), file=sys.stderr)
        return 1


def _lost(rules: str) -> bool:
    """Whether a rows file's relative rule-file name finds no file from here (one the file system
    refuses, too long or with a NUL in it, finds none)."""
    try:
        return not Path(rules).is_absolute() and not Path(rules).exists()
    except (OSError, ValueError):
        return True


def variant_of(arm: R.Arm) -> Variant:
    """The arm's game, loaded from its rule file under its options (for side names and title)
    through the python engine, whatever engine played the arm (the engines' games read alike,
    and python needs no compiler). RowsError when the arm's games have other sides or seats than
    the game, or options it does not declare (a row's options are not the command line's)."""
    from vbr.errors import UsageError
    from vbr.sim import game_for, game_sides
    try:
        game = game_for(str(arm.rules), tuple(sorted(dict(arm.rule_options).items())), "python")
    except UsageError as exc:
        raise R.RowsError(f"{arm.where}:1: error: {exc}") from None
    arm.check_game(game_sides(game), game.seats)
    return Variant(game, arm.label)


def result_of(arm: R.Arm) -> RunResult:
    """The arm's games as a run's result, its deals their seeds and seatings."""
    deals = tuple((t.seed, tuple(t.agents)) for t in arm.trials)
    first = list(arm.trials[0].agents)
    spec = RunSpec.of(arm.rules, dict(arm.rule_options), 0, first, len(deals), engine=arm.engine,
                      rotate=len({a for _, a in deals}) > 1, restrict=arm.restrict)
    return RunResult(replace(spec, deals=deals), list(arm.trials), seconds=0.0)


def arm_summary(arm: R.Arm, source: str) -> tuple[Variant, dict]:
    variant = variant_of(arm)
    result = result_of(arm)
    s = summary(variant, result, FROM_ROWS, list(arm.trials[0].agents))
    s |= {"seed": None, "source": source, "arm": arm.label, "seconds": None, "games_per_s": None}
    return variant, s


def _one(args, arm: R.Arm, source: str) -> int:
    _, s = arm_summary(arm, source)
    if args.json:
        print(json.dumps(s, sort_keys=True))
    else:
        from vbr.report import render_stats
        print(render_stats(s))
    return 0


def told_apart(arms: list[R.Arm], rules: bool = False) -> list[dict]:
    """What sets each arm apart besides its options: its engine, and its agents, and with `rules`
    its rule file, where the arms differ in them (nothing where they do not)."""
    extra: list[dict] = [{} for _ in arms]
    if rules and len({a.rules for a in arms}) > 1:
        for e, a in zip(extra, arms):
            e["rules"] = a.rules
    if len({a.engine for a in arms}) > 1:
        for e, a in zip(extra, arms):
            e["engine"] = a.engine
    if len({a.agents for a in arms}) > 1:
        for e, a in zip(extra, arms):
            e["agents"] = "|".join(a.agents)
    return extra


def options_apart(arms: list[R.Arm]) -> list[dict]:
    """The options in which the arms differ, for each arm those its label does not show already
    (a comparison's rows are labelled `base` and `variant`, which name none of them)."""
    names = [k for k in dict.fromkeys(k for a in arms for k in a.rule_options)
             if len({a.rule_options.get(k) for a in arms}) > 1]
    return [{k: a.rule_options.get(k) for k in names if f"{k}={a.rule_options.get(k)}" not in a.label} for a in arms]


def told_labels(arms: list[R.Arm], extras: list[dict]) -> list[str]:
    """Each arm's label with what sets it apart from the others that it does not name already:
    the options it differs in (`options_apart`), and its `extras` (`told_apart`)."""
    return [arm.label + "".join(f", {k}={v}" for k, v in shown.items()) + "".join(f", {k} {v}" for k, v in extra.items())
            for arm, shown, extra in zip(arms, options_apart(arms), extras)]


def _two(args, arms: list[R.Arm], source: str) -> int:
    from vbr.analysis.comparison import compare
    from vbr.analysis.pairing import pairing
    from vbr.report import sweep_side_names
    (va, sa), (vb, sb) = (arm_summary(a, source) for a in arms)
    a, b = arms
    la, lb = told_labels(arms, told_apart(arms))
    report = {"base": {"label": la, "rules": sa["rules"], "options": sa["options"]},
              "variant": {"label": lb, "rules": sb["rules"], "options": sb["options"]},
              "games": len(a.trials) if len(a.trials) == len(b.trials) else f"{len(a.trials)} and {len(b.trials)}",
              "seed": None, "source": source,
              "agents": sa["agents"], "engine": a.engine if a.engine == b.engine else "mixed",
              "metrics": compare(a.trials, b.trials, sa["sides"], sweep_side_names([{"summary": sa}, {"summary": sb}]),
                                 paired=True,
                                 measure_labels=measure_labels(va.game) | measure_labels(vb.game)),
              "pairing": pairing(a.trials, b.trials), "base_summary": sa, "variant_summary": sb}
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        from vbr.report import render_compare
        print(render_compare(report))
    return 0


def in_label_order(names: list[str], label: str) -> list[str]:
    """The option names in the order the arm's label names them (a sweep's combination,
    `NAME=VALUE, NAME=VALUE` in the order of its `--grid`), those it does not name after them in
    their own order."""
    at = {k: m.start() for k in names if (m := re.search(f"(?:^|, ){re.escape(k)}=", label))}
    return sorted(names, key=lambda k: (k not in at, at.get(k, 0)))


def _many(args, arms: list[R.Arm], source: str) -> int:
    from vbr.analysis.commands import sweep_analysis
    from vbr.analysis.sweep import Axis
    from vbr.report import render_sweep, sweep_side_names
    names = in_label_order([k for k in dict.fromkeys(k for a in arms for k in a.rule_options)
                            if len({a.rule_options.get(k) for a in arms}) > 1], arms[0].label)
    axes = [Axis(k, tuple(dict.fromkeys(a.rule_options.get(k) for a in arms))) for k in names]
    rows, played = [], []
    extras = told_apart(arms, rules=True)
    for arm, extra in zip(arms, extras):
        variant, s = arm_summary(arm, source)
        typed = variant.game.option_values  # as `vbr sweep --json` gives them: a number as a number
        rows.append({"options": {k: typed.get(k) for k in names} | extra, "summary": s})
        played.append((variant, arm.trials))
    labels = [arm.label for arm in arms]
    if len(set(labels)) < len(labels):  # arms of one label (a run's options) that differ in engine, agents or file
        labels = told_labels(arms, extras)
    cells = [(label, {k: arm.rule_options.get(k) for k in names}, arm.trials) for label, arm in zip(labels, arms)]
    first = rows[0]["summary"]
    analysis = sweep_analysis(axes, cells, first["sides"], measure_labels(played[0][0].game), sweep_side_names(rows))
    if args.json:
        print(json.dumps({"grid": {a.name: list(a.values) for a in axes}, "rows": rows, "analysis": analysis,
                          "interrupted": False}, sort_keys=True))
    else:
        print(render_sweep(played[0][0].game.title, rows, analysis))
    return 0

