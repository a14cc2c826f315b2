#!/usr/bin/env bash
# Set up a fresh machine and run the whole test suite (pytest collects the text scenarios too).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
.venv/bin/vbr check rules/*.vbr rules/tests/*.vbr || exit 1
.venv/bin/python -m pytest -q "$@"
code=$?
if [ "$code" = 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$code"
