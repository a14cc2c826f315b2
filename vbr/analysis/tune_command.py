"""`vbr tune FILE --option NAME=LO..HI --target MEASURE=VALUE [-n BUDGET] ...`: the command around
`vbr.analysis.tune`, which vbr/cli.py registers with `add_parser(subparsers)`.

Everything is checked before the first game: the option to tune (declared, a whole number for a
range, every value one it may take), the measure (listed when unknown), the agents, the engine,
the budget. Exit 0 with an answer; 1 when no value brings the measure near the target, or no
value measured it; 2 on a usage error; 130 (or the signal's code) when stopped, after printing
what the games played so far say.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys

from vbr.analysis.tune import SIDE_RATE, Search, Target, Tuned, Verdict, measure_names, parse_target, search, split_options, verdict
from vbr.errors import UsageError

NO_ANSWER = 1


def add_parser(subparsers) -> argparse.ArgumentParser:
    from vbr.cli_common import engine_choice, integer, seed
    p = subparsers.add_parser(
        "tune", help="find the option value that brings a measure closest to a target",
        description="Race the values of one option (a range LO..HI of whole numbers, or a listed set A,B,C) to the "
                    "value whose measure comes closest to a target, with each value's 95% interval; games go to "
                    "the values still in contention (docs/analysis.md, \"vbr tune\").")
    p.add_argument("file", help="a .vbr file, or a bundled rule file's name (e.g. siatka)")
    p.add_argument("--option", action="append", metavar="NAME=LO..HI|NAME=A,B,C|NAME[=VALUE]",
                   help="the option to tune (a range or a listed set: exactly one), or a fixed option (repeatable)")
    p.add_argument("--target", required=True, metavar="MEASURE=VALUE",
                   help="the figure to bring to VALUE (0.5 or 50%%): a metric of `vbr sim --json` "
                        "(first_mover_advantage, length_mean, draw_rate, ...), a side's win rate (win_rate:0) or a "
                        "measure the rule file declares (measure:NAME)")
    p.add_argument("-n", type=integer, default=2000, metavar="BUDGET", help="games in all, over every value (default 2000)")
    p.add_argument("--seed", type=seed, default=0, metavar="S", help="the seed of every value's games (default 0)")
    p.add_argument("--agents", default="random", help="one agent for all seats, or one per seat (as `vbr sim`)")
    p.add_argument("--engine", default="auto", type=engine_choice, metavar="{auto,c,python}",
                   help="what plays the games (as `vbr sim`; default auto: c where a C compiler builds the rules)")
    p.add_argument("--rotate-seats", action=argparse.BooleanOptionalAction, default=None,
                   help="play every deal in each seating of the agents (default: on when the agents differ)")
    p.add_argument("--workers", type=integer, metavar="W", help="play in W processes at once (default: one per core with an mcts agent, else 1; "
                        "the answer does not depend on it)")
    p.add_argument("--backend", default="local", choices=["local", "ray"], help="local processes, or Ray")
    p.add_argument("--ray-address", metavar="auto|HOST:PORT", help="a running Ray cluster (default: start a local Ray)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr, with the best value so far (default: on a terminal only)")
    p.set_defaults(func=run, command="tune")
    return p


def run(args) -> int:
    from vbr.analysis.commands import backend_for, check_count
    from vbr.cli_common import asked_engine, played_game
    from vbr.progress import Progress
    check_count(args.n)
    tuned, fixed = split_options(args.option)
    target = parse_target(args.target)
    choice = None
    if asked_engine(args) == "auto":  # each value's engine picked when it is first played (vbr.engine_choice)
        from vbr.analysis.commands import note
        from vbr.engine_choice import EngineChoice
        from vbr.sim import game_for
        args.engine = "auto"
        game = game_for(str(args.file), tuple(sorted(fixed.items())), "python")
        choice = EngineChoice(game.path, args.agents, (args.workers or 1) if args.backend == "local" else 1, note)
    else:
        game = played_game(args, args.file, fixed)  # only through the engine the games are played by
    check_values(game, tuned, fixed, "python" if choice else args.engine)
    if args.engine == "c" or (choice and choice.searching):  # the first round's values in C: built at once
        from vbr.analysis.tune import first_grid
        from vbr.sim import build_ahead
        build_ahead([(game.path, fixed | {tuned.name: value}) for value in first_grid(tuned)])
    label, unit = check_measure(game, target)
    spec = base_spec(args, game, fixed)
    with backend_for(args) as backend:
        best = Best(tuned.name, unit)
        progress = Progress.for_terminal(f"tune {tuned.name}", quiet=args.json, force=args.progress, estimate=best.text,
                                         may_stop_early=True)  # a decided search does not spend the rest
        try:
            found = search(tuned, target, spec, args.n, backend, progress, on_round=best.update, choice=choice)
            if progress:  # the line's last draw came before the last round was judged
                best.update(found)
                progress.draw(found.spent, args.n)
        finally:
            if progress:
                progress.close()
        report = to_json(found, verdict(found), game, label, unit, backend)
    print(json.dumps(report, sort_keys=True) if args.json else render(report))
    if found.exit_code:
        print(f"vbr: interrupted after {found.spent} of {args.n} games", file=sys.stderr)
        return found.exit_code
    return NO_ANSWER if report["status"] in ("out_of_range", "unmeasured") else 0


class Best:
    """The best value after the last finished round, as the progress line shows it."""

    def __init__(self, name: str, unit: str):
        self.name, self.unit, self.arm = name, unit, None

    def update(self, s: Search) -> None:
        self.arm = s.best()

    def text(self) -> str:
        a = self.arm
        return f"best {self.name}={a.value}: {fmt(a.estimate, self.unit)} ({fmt_ci(a.ci, self.unit)})" if a else ""


# ------------------------------------------------------------------------------ checks
def check_values(game, tuned: Tuned, fixed: dict, engine: str) -> None:
    """The tuned option is one the file declares, not also fixed, and each value is one it takes
    (a listed value checked by loading its game through `engine`, kept for its games)."""
    declared = game.option_values
    if tuned.name not in declared:
        names = ", ".join(sorted(declared)) or "none"
        raise UsageError(f"unknown option `{tuned.name}` ({game.path.name} has options: {names})"
                         + game.model.suggest(tuned.name, declared))
    if tuned.name in fixed:
        raise UsageError(f"option `{tuned.name}` is both tuned and fixed (--option {tuned.name}=...)")
    if tuned.is_range:
        check_range(game, tuned)
        return
    from vbr.analysis.sweep import refuse_same_values
    from vbr.sim import build_ahead, game_for
    if engine == "c":
        build_ahead([(game.path, fixed | {tuned.name: value}) for value in tuned.values])
    typed = [game_for(str(game.path), tuple(sorted((fixed | {tuned.name: value}).items())), engine)
             .option_values[tuned.name] for value in tuned.values]  # loading checks each (game_for keeps the last)
    refuse_same_values("--option", tuned.name, tuned.values, typed)


def check_range(game, tuned: Tuned) -> None:
    from vbr.checker import literal_value
    default = game.option_values[tuned.name]
    if isinstance(default, bool) or not isinstance(default, int):
        raise UsageError(f"option `{tuned.name}` is not a number, so it has no range; list its values: "
                         f"--option {tuned.name}=A,B,C")
    decl = game.model.option_decls[tuned.name]
    allowed = [literal_value(game.model, c) for c in decl.choices]
    # the first few values outside (a range longer than the allowed values holds one within their count)
    outside = list(itertools.islice((v for v in tuned.values if v not in allowed), 6)) if allowed else []
    if outside:
        raise UsageError(f"option `{tuned.name}` takes only {', '.join(map(str, allowed))}; the range "
                         f"{tuned.describe()} holds {', '.join(map(str, outside[:5]))}"
                         + (" ..." if len(outside) > 5 else "") + f" (list its values: --option {tuned.name}=A,B,C)")


def declared_measures(game) -> list:
    return list(getattr(game.program, "measures", ()))


def check_measure(game, target: Target) -> tuple[str, str]:
    """(label, unit) of the target's measure; a UsageError listing every name when it is unknown,
    when a share is given a value outside 0..1, or a figure that is no share a percent."""
    from vbr.play import sides
    names = measure_names(sides(game), [m.name for m in declared_measures(game)])
    if target.measure not in names:
        raise UsageError(f"unknown measure `{target.measure}`; --target can name: {', '.join(names)}")
    label, unit = measure_label(game, target.measure)
    if target.percent and unit != "share":  # `length_mean=20%` was taken as 0.2 choices
        raise UsageError(f"--target {target.measure}: {label} is not a share (its unit: {unit}), so it takes no "
                         f"percent: write the number ({100 * target.value:g})")
    if unit == "share" and not 0 <= target.value <= 1:
        raise UsageError(f"--target {target.measure}: a share lies from 0 to 1 (or 0% to 100%), not {target.value:g}")
    return label, unit


def measure_label(game, measure: str) -> tuple[str, str]:
    """(label, unit) of a measure --target names, as `vbr sim` labels it: the first-mover
    advantage with whose first move it is (`commands.first_mover_label`)."""
    from vbr.analysis.commands import first_mover_label
    from vbr.analysis.metrics import METRICS
    from vbr.play import side_names
    if measure.startswith(SIDE_RATE):
        return f"{side_names(game)[int(measure[len(SIDE_RATE):])]} win rate", "share"
    if measure.startswith("measure:"):
        m = next(d for d in declared_measures(game) if d.name == measure.split(":", 1)[1])
        if m.type == "int":
            return f"{m.label}, mean", "count"
        return (f"{m.label} wins" if m.type in ("seat", "side") else m.label), "share"
    m = next(m for m in METRICS if m.name == measure)
    return (first_mover_label(m.label, game) if measure == "first_mover_advantage" else m.label), m.unit


def base_spec(args, game, fixed: dict):
    """What every game of the search shares: file, fixed options, seed, agents, engine, seating."""
    from vbr.analysis.commands import note, side_of_seat
    from vbr.cli_common import seat_agents
    from vbr.seating import seating_cycle
    from vbr.sim import RunSpec
    agents = seat_agents(args, game, args.agents)
    sides = side_of_seat(game)
    rotate = len(set(agents)) > 1 if args.rotate_seats is None else args.rotate_seats
    if rotate and args.rotate_seats is None:
        note(f"the agents differ, so seats are rotated: every deal is played in each of the "
             f"{len(seating_cycle(agents, sides)[0])} seatings of the agents (--no-rotate-seats plays each deal once)")
    return RunSpec.of(game.path, fixed, args.seed, agents, 0, engine=args.engine, rotate=rotate, sides=sides)


# ------------------------------------------------------------------------------ the report
def arm_json(arm) -> dict:
    out = {"value": arm.value, "games": arm.games, "estimate": arm.estimate,
           "ci95": list(arm.ci) if arm.ci else None, "engine": arm.engine}
    if arm.reason:
        out["reason"] = arm.reason
    return out


def engines_text(s: Search) -> str:
    """The engine the games played in; under auto, each engine the values played in, python first."""
    if s.choice is None:
        return s.base.engine
    return ", ".join(sorted({a.engine for a in s.arms.values() if a.engine}, reverse=True)) or "auto"


def to_json(s: Search, v: Verdict, game, label: str, unit: str, backend) -> dict:
    """Everything `vbr tune --json` prints; `arms` in the option's order, each value played."""
    order = s.tuned.values.index
    live = {a.value for a in s.contenders()}
    return {"rules": str(game.path), "title": game.title, "option": s.tuned.name,
            "values": ({"range": [s.tuned.values[0], s.tuned.values[-1]]} if s.tuned.is_range
                       else {"set": list(s.tuned.values)}),
            "fixed_options": dict(s.base.options), "measure": s.target.measure, "label": label, "unit": unit,
            "target": s.target.value, "agents": list(s.base.agents), "seed": s.base.seed,
            "rotate_seats": s.base.rotate, "engine": engines_text(s), "backend": backend.name, "workers": backend.workers,
            "budget": s.budget, "games": s.spent, "rounds": s.rounds, "interrupted": bool(s.exit_code),
            "status": v.status, "answer": arm_json(v.answer) if v.answer else None,
            "contenders": [a.value for a in v.contenders], "closest": [arm_json(a) for a in v.closest],
            "side": v.side, "between": list(v.bracket) if v.bracket else None, "untried_beside": v.untried,
            "untried_beside_more": v.untried_more,
            "arms": [arm_json(a) | {"in_contention": a.value in live}
                     for a in sorted(s.arms.values(), key=lambda a: order(a.value))]}


def fmt(x: float | None, unit: str) -> str:
    """A figure as text, rounded once from its full value (`rounding.exact`), as `vbr sim` shows it."""
    from vbr.analysis.rounding import exact
    if x is None:
        return "-"
    x = exact(x)
    return f"{100 * x:.1f}%" if unit == "share" else f"{x:.2f}"


def fmt_ci(ci, unit: str) -> str:
    """An interval as `vbr sim` writes a metric's: its two ends, each as `fmt` writes a figure,
    joined by `..` (`-14.2%..20.5%`: a dash between them would read as a minus)."""
    if not ci:
        return "no CI"
    return f"{fmt(ci[0], unit)}..{fmt(ci[1], unit)}"


def with_ci(a: dict, unit: str) -> str:
    from vbr.report import counted
    return f"{fmt(a['estimate'], unit)} ({fmt_ci(a['ci95'], unit)}, {counted(a['games'], 'game')})"


def render(r: dict) -> str:
    from vbr.terminal import clean
    unit, name = r["unit"], r["option"]
    values = f"{r['values']['range'][0]}..{r['values']['range'][1]}" if "range" in r["values"] else ",".join(r["values"]["set"])
    out = [f"{r['title']}: tuning {name} in {values} to bring {named(r['label'], r['measure'])} to {fmt(r['target'], unit)}",
           f"agents {' | '.join(r['agents'])}, seed {r['seed']}, {r['games']} of {r['budget']} games in {r['rounds']} "
           + ("round" if r["rounds"] == 1 else "rounds") + (f", engine {r['engine']}" if r.get("engine") else ""),
           f"  {name:>10}  {'games':>6}  {r['label']}, 95% CI"]
    answer = r["answer"]["value"] if r["answer"] else None
    for a in r["arms"]:
        mark = "  <- answer" if a["value"] == answer else "  (in contention)" if a["in_contention"] else ""
        est = fmt(a["estimate"], unit) if a["estimate"] is not None else f"not measured ({a.get('reason')})"
        ci = f" ({fmt_ci(a['ci95'], unit)})" if a["estimate"] is not None else ""
        out.append(f"  {str(a['value']):>10}  {a['games']:>6}  {est}{ci}{mark}")
    out += answer_lines(r)
    return clean("\n".join(out))


def named(label: str, measure: str) -> str:
    """A measure as the report's first line names it: its label, then its name in brackets
    (`mean length (length_mean)`); a label that ends in brackets of its own (`first-mover
    advantage (first server)`) after its name, set off by dashes, not two bracketed parts in a row
    (`first_mover_advantage — first-mover advantage (first server) —`)."""
    return f"{measure} — {label} —" if label.endswith(")") else f"{label} ({measure})"


def answer_lines(r: dict) -> list[str]:
    unit, name, status = r["unit"], r["option"], r["status"]
    target = fmt(r["target"], unit)
    if status == "unmeasured":
        return [f"no value measured {r['label']}: {r['arms'][0].get('reason') if r['arms'] else 'no games'}"]
    closest = "; ".join(f"{name} = {a['value']}: {with_ci(a, unit)}" for a in r["closest"])
    if status == "out_of_range":
        bare = sum(1 for a in r["arms"] if a["estimate"] is not None and not a.get("ci95"))
        said = (f"every value's estimate lies {r['side']} it ({bare} value{'s' if bare != 1 else ''} with too few "
                "games for an interval: a larger -n gives them one)") if bare else f"every value's interval lies {r['side']} it"
        return [f"no value of {name} brings {r['label']} near {target}: {said}", f"closest: {closest}"]
    a = r["answer"]
    out = [f"answer: {name} = {a['value']}: {with_ci(a, unit)}"]
    if status == "near":
        out[0] += ", the target within its interval"
    else:
        between = f" (between {name} = {r['between'][0]} and {r['between'][1]})" if r["between"] else ""
        out.append(f"no value's interval holds {target}: the values lie on both sides of it{between}")
    if r["contenders"]:
        out.append(f"still in contention: {', '.join(map(str, r['contenders']))} "
                   f"(their intervals do not rule them out; a larger -n would separate them)")
    if r["untried_beside"]:
        more = f" and {r['untried_beside_more']:,} more" if r["untried_beside_more"] else ""
        out.append(f"not played, beside the answer: {', '.join(map(str, r['untried_beside']))}{more} (a larger -n would)")
    return out
