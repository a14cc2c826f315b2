import os
import time
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# CI and the default run use "ci"; long fuzz/soak runs: VBR_HYPOTHESIS=soak pytest ...
settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("soak", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("VBR_HYPOTHESIS", "ci"))


def rule_files():
    return sorted(RULES.glob("*.vbr"))


def scenario_files():
    return sorted((RULES / "tests").glob("*.vbr"))


def built_probe(where: str, name: str, text: str):
    """`text` built for real (Cython and `cc`) as the one module of a library in `where`, with the
    .pxd files every native part cimports, and loaded."""
    from vbr.interpreter import native as N
    from vbr.interpreter import native_build as NB
    from vbr.interpreter import native_cache as NC
    data = NB.build([text], name, where, f"{where}/{name}{NB.suffix()}", N.headers())
    (module,) = NC.load(NB.part_names(name, 1), data, where)
    return module


def rewritten_by(rewriter, source: str) -> str:
    """The text of `source` rewritten by `rewriter` (native_slots, native_ints), which must leave
    the tree as it found it once undone (the program keeps its code)."""
    import ast
    tree = ast.parse(source)
    before = ast.dump(tree)
    rewriter.rewrite(tree)
    text = ast.unparse(tree)
    rewriter.undo()
    assert ast.dump(tree) == before
    return text


def ended(pids, seconds: float = 30) -> bool:
    """Every process of `pids` has ended (a zombie waiting for its parent or init to reap it
    counts as ended) within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        alive = set()
        for pid in pids:
            try:
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.add(pid)
            except OSError:
                pass
        if not alive or time.monotonic() > deadline:
            return not alive
        time.sleep(0.1)
