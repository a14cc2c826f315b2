"""A unit run at once where play stands (a scenario's `given` block or probe, its setup), above
the frames play holds: the contract both engines' `call` keep (vbr.typed_scenario uses it).

`call_unit(S, run)`: `run()` pushes the unit's frame (its link the frame on top) and runs it
until it returns, stops or faults. It returns what the unit returned, the state's status,
return value and stack as they were; None when it stopped instead of returning (a choice, a
`goto`, the end), the state left where it stopped; and raises EngineFault for a run-time error,
the state's header as it was before the call.
"""
from __future__ import annotations

from vbr.engines.python_runtime import EngineFault
from vbr.ir.layout import FAULT, RUNNING, Header as H

KEPT = (H.STATUS, H.FP, H.TOP, H.DEPTH, H.RETURNED)  # the header words a call leaves as they were


def call_unit(S, run) -> int | None:
    saved = {w: int(S[w]) for w in KEPT}
    try:
        run()
    except EngineFault:
        _restore(S, saved)
        raise
    if S[H.STATUS] == FAULT:
        fault = EngineFault(int(S[H.FAULT]), int(S[H.FAULT_A]), int(S[H.FAULT_B]))
        _restore(S, saved)
        raise fault
    if S[H.STATUS] != RUNNING or S[H.FP] != saved[H.FP] or S[H.TOP] != saved[H.TOP]:
        return None
    value = int(S[H.RETURNED])
    S[H.STATUS], S[H.RETURNED] = saved[H.STATUS], saved[H.RETURNED]
    return value


def _restore(S, saved: dict) -> None:
    if isinstance(S, list):
        del S[saved[H.TOP]:]
    for w, v in saved.items():
        S[w] = v
