#!/usr/bin/env bash
# Set up what the tests need (`setup.sh --test`) and run the whole test suite, every tier (pytest
# collects the text scenarios too), on every core: one pytest-xdist worker per CPU, each taking a
# run of tests in order and then, once done, tests the other has not reached (`--dist worksteal`);
# the 20 slowest tests are listed at the end. Arguments go to pytest (`-n 0`: in one process).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test || exit 1
.venv/bin/vbr check rules/*.vbr rules/tests/*.vbr || exit 1
.venv/bin/python -m pytest -q -n auto --dist worksteal --durations=20 "$@"
code=$?
if [ "$code" = 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$code"
