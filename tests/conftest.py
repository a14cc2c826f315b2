import os
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
