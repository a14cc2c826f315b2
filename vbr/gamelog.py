"""Game logs as JSON lines, and replaying them: the same seed, options and choices must give the
same events, byte for byte."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from vbr import __version__
from vbr.errors import IllegalActionError, InvalidActionError
from vbr.interpreter.state import Action


def dumps(event: dict) -> str:
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def header(game, seed: int, agents: list[str]) -> dict:
    from vbr.loader import bundled_dirs
    path = game.path.resolve()
    bundled = next((str(path.relative_to(d.resolve()).with_suffix("")) for d in bundled_dirs()
                    if path.is_relative_to(d.resolve())), None)
    return {"t": "header", "vbr": __version__, "rules": str(path), "bundled": bundled,
            "options": game.options, "seed": seed, "agents": agents}


def write_log(path: Path, head: dict, events: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(head) + "\n")
        for e in events:
            f.write(dumps(e) + "\n")


@dataclass
class ReplayResult:
    ok: bool
    message: str
    outcome: object = None


def replay(path: Path) -> ReplayResult:
    from vbr.interpreter.game import load
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines:
        return ReplayResult(False, f"{path}: the log is empty")
    try:
        head = json.loads(lines[0])
        logged = [json.loads(x) for x in lines[1:]]
    except json.JSONDecodeError as exc:
        return ReplayResult(False, f"{path}:{exc.lineno}: not a vbr log: {exc.msg}")
    if head.get("t") != "header":
        return ReplayResult(False, f"{path}:1: not a vbr log (no header line)")
    rules = head["rules"]
    if not Path(rules).is_file() and head.get("bundled"):
        rules = head["bundled"]  # the log travelled to another machine or checkout
    game = load(rules, head.get("options") or {})
    state = game.new_state(int(head["seed"]), record=True)
    for e in logged:
        if e.get("t") != "choice":
            continue
        if state.is_terminal():
            break
        try:
            state.apply(Action(int(e["seat"]), str(e["action"])))
        except (IllegalActionError, InvalidActionError) as exc:
            return ReplayResult(False, f"the logged choice {e['seat']} {e['action']} is not legal on replay: {exc}")
    produced = [dumps(e) for e in state.log]
    expected = [dumps(e) for e in logged]
    for i, (a, b) in enumerate(zip(produced, expected)):
        if a != b:
            return ReplayResult(False, f"{path}:{i + 2}: differs on replay\n  logged:   {b}\n  replayed: {a}")
    if len(produced) != len(expected):
        return ReplayResult(False, f"{path}: the replay has {len(produced)} events, the log {len(expected)}")
    return ReplayResult(True, f"{path}: reproduces exactly ({len(expected)} events, {state.outcome()})", state.outcome())
