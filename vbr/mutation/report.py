"""The score and the survivors of a `vbr mutate` run, as text and as JSON.

Survivors are grouped by the rulebook passage the mutated line cites: the `[Section, part]` tags of
the line's own comment, else of the nearest cited line above it in the same declaration (counting
the comment block just above the declaration), as `vbr trace` reads them (vbr.trace.citations).
Survivors the rule file marks `EQUIVALENT(kind): why` are listed apart, with the reason, and left
out of the score. One count throughout: a mutant is *counted* when it passes the checker and is not
marked equivalent; the score, its line and the counts per kind are all killed of counted, and the
equivalent ones are given apart, in total and per kind.
"""
from __future__ import annotations

from dataclasses import dataclass

from vbr.grammar import ast as A
from vbr.mutation.mutants import Mutant
from vbr.mutation.runner import Context, Result, equivalences
from vbr.trace import citations, source_lines


@dataclass
class Line:
    mutant: Mutant
    passages: list[str]
    reason: str = ""  # for an equivalent survivor: why; for a killed one: what killed it


def passages_by_line(ctx: Context) -> dict[int, list[str]]:
    """Line → the passages it falls under (see the module's docstring)."""
    cited: dict[int, list[str]] = {}
    for tag, p in citations(ctx.text).items():
        for n in p.lines:
            cited.setdefault(n, []).append(tag)
    lines = source_lines(ctx.text)
    out: dict[int, list[str]] = {}
    for d in _decls(ctx.tree.decls):
        top = d.span.line
        while top > 1 and lines[top - 2].strip().startswith("#"):
            top -= 1
        current: list[str] = []
        for n in range(top, d.span.end_line + 1):
            if n in cited:
                current = cited[n]
            if n >= d.span.line:
                out[n] = current
    return out


def _decls(decls):
    for d in decls:
        if isinstance(d, A.Stage):
            yield from _decls(d.members)
        else:
            yield d


def shown(path) -> str:
    """A path as the user would type it: relative to the working directory when it is under it."""
    from pathlib import Path
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def summary(ctx: Context, result: Result) -> dict:
    equiv = equivalences(ctx.text)
    where = passages_by_line(ctx)
    checked = [o for o in result.tried if o.status != "invalid"]
    killed = [o for o in checked if o.status == "killed"]
    survivors, equivalent, equivalent_ids = [], [], set()
    for o in checked:
        if o.status != "survived":
            continue
        m = ctx.mutants[o.index]
        why = next((e.why for e in equiv if e.covers(m)), None)
        item = {"file": shown(ctx.path), "line": m.line, "col": m.col, "kind": m.kind, "before": m.before,
                "after": m.after, "passages": where.get(m.line, [])}
        if why is None:
            survivors.append(item)
        else:
            equivalent.append({**item, "why": why})
            equivalent_ids.add(o.index)
    key = lambda x: (x["line"], x["col"], x["kind"], x["after"])  # noqa: E731
    counted = len(checked) - len(equivalent)
    return {
        "file": shown(ctx.path), "tests": shown(result.tests), "seed": result.seed, "n": result.requested,
        "mutants": result.total, "selected": result.selected, "tried": len(result.tried), "invalid": len(result.tried) - len(checked),
        "stopped": result.stopped or None,
        "checked": len(checked), "killed": len(killed), "survived": len(survivors), "equivalent": len(equivalent),
        "score": round(100 * len(killed) / counted, 1) if counted else 100.0,
        "step_guard": result.guard,
        "by_kind": _by_kind(ctx, checked, equivalent_ids),
        "survivors": sorted(survivors, key=key), "equivalents": sorted(equivalent, key=key),
        "killed_by": {str(o.index): o.reason for o in killed},
    }


def _by_kind(ctx: Context, checked, equivalent_ids: set[int]) -> dict:
    """Kind → killed, of (counted: checked and not marked equivalent) and equivalent, as in the score."""
    out: dict[str, dict[str, int]] = {}
    for o in checked:
        k = out.setdefault(ctx.mutants[o.index].kind, {"killed": 0, "of": 0, "equivalent": 0})
        if o.index in equivalent_ids:
            k["equivalent"] += 1
        else:
            k["of"] += 1
            k["killed"] += o.status == "killed"
    return dict(sorted(out.items()))


def _kind_text(kind: str, v: dict) -> str:
    return f"{kind} {v['killed']}/{v['of']}" + (f" (+{v['equivalent']} equivalent)" if v["equivalent"] else "")


def text(s: dict) -> str:
    counted = s["checked"] - s["equivalent"]
    pool = f"{s['mutants']}" if s["selected"] == s["mutants"] else f"{s['selected']} selected of {s['mutants']}"
    out = [f"{s['file']}: {s['killed']} of {counted} counted mutants killed ({s['score']} %) by {s['tests']}",
           f"  seed {s['seed']}, {s['checked']} mutants checked of {pool} (n {s['n']}); "
           f"{s['invalid']} rejected by the checker and {s['equivalent']} marked equivalent, neither counted; "
           f"step guard {s['step_guard']}",
           "  killed of counted by kind: " + (", ".join(_kind_text(k, v) for k, v in s["by_kind"].items())
                                              or "none counted")]
    if s.get("stopped"):
        out.insert(2, f"  stopped early, at {s['stopped']}: {s['tried']} mutants tried, {s['invalid']} of them "
                      "rejected by the checker")
    if s["survivors"]:
        out += ["", f"survivors ({len(s['survivors'])}):"]
        groups: dict[str, list[dict]] = {}
        for x in s["survivors"]:
            groups.setdefault(", ".join(f"[{p}]" for p in x["passages"]) or "(no passage cited)", []).append(x)
        for g in sorted(groups, key=lambda g: min(x["line"] for x in groups[g])):
            out.append(f"  {g}")
            out += [f"    {x['file']}:{x['line']}:{x['col']}: {x['before']} → {x['after']}  ({x['kind']})"
                    for x in groups[g]]
    if s["equivalents"]:
        out += ["", f"equivalent survivors ({len(s['equivalents'])}), not counted:"]
        out += [f"  {x['file']}:{x['line']}:{x['col']}: {x['before']} → {x['after']}  ({x['kind']}): {x['why']}"
                for x in s["equivalents"]]
    return "\n".join(out) + "\n"
