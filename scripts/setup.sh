#!/usr/bin/env bash
# Set up a fresh machine: the Debian packages the tests drive for real (graphviz's `dot`, tmux for
# terminal play, chromium for the HTML report), a virtualenv, vbr with its extras and test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
