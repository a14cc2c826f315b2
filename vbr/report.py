"""Human-readable renderings of game events and simulation statistics."""
from __future__ import annotations

from vbr.interpreter.values import text


def render_events(events: list[dict]) -> list[str]:
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
            pts = "-".join(map(str, e.get("points") or []))
            lines.append(f"game over: {who}" + (f" ({pts})" if pts else ""))
    return lines


def render_stats(s: dict) -> str:
    out = [f"{s['title']} ({s['rules']}), {s['games']} games, seed {s['seed']}, agents {', '.join(s['agents'])}"]
    if s.get("options"):
        out.append("options: " + ", ".join(f"{k}={text(v)}" for k, v in s["options"].items()))  # as typed: true, not True
    unit = s.get("sides", "seat")
    for side, wins in s["wins"].items():
        lo, hi = s["ci95"][side]
        out.append(f"  {unit} {side}: {wins} wins, {100 * s['win_rate'][side]:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)")
    if s["draws"]:
        out.append(f"  draws: {s['draws']}")
    out.append(f"mean choices per game: {s['mean_steps']}")
    if s.get("points_per_game"):
        label = "team" if unit == "team" or len(s["points_per_game"]) != len(s["agents"]) else "seat"
        out.append("points per game: " + ", ".join(f"{label} {i}: {p}" for i, p in enumerate(s["points_per_game"])))
    out.append(f"{s['games_per_s']} games/s ({s['seconds']} s)")
    return "\n".join(out)
