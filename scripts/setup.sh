#!/usr/bin/env bash
# Set up a fresh machine: graphviz's `dot` (Debian package), a virtualenv, vbr and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dot >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq graphviz >/dev/null
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq graphviz >/dev/null
  fi
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
