#!/usr/bin/env bash
# Set up a fresh machine: the Debian packages the tests drive for real (graphviz's `dot`, tmux for
# terminal play, chromium for the HTML report, node and npm for the VS Code extension, a C compiler
# and Python's headers for native builds), a virtualenv, vbr with its extras and test tools, and
# the extension's node packages.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v cc >/dev/null 2>&1 || missing+=(gcc)  # `--native` builds (vbr[native]): Cython's C, compiled
python3 -c 'import os, sysconfig; raise SystemExit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  || missing+=(python3-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
if [ ! -d editors/vscode/node_modules ]; then
  (cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error)
fi
