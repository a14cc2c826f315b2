#!/usr/bin/env bash
# Set up a fresh machine, for one of two jobs:
#   --demo  what scripts/demo.sh runs: graphviz's `dot` (Debian package), a virtualenv in .venv/
#           and vbr with its plain dependencies (`pip install -e .`), nothing more;
#   --test  (the default) what the whole test suite drives for real: the Debian packages graphviz, tmux (terminal
#           play), chromium (the HTML report), nodejs and npm (the VS Code extension), gcc (the C
#           engine, `--engine c`), python3-dev (its call of a whole game); vbr with its `test` extra (Ray, OpenSpiel, PettingZoo, the
#           language server, pytest, Playwright...); the extension's node packages.
# Debian packages already present (their command found) are not installed again; apt-get runs as
# root, or through sudo.
set -euo pipefail
usage="usage: bash scripts/setup.sh [--demo | --test]"
[ "$#" -le 1 ] || { echo "$usage" >&2; exit 2; }
case "${1:---test}" in
  --demo) job=demo ;;
  --test) job=test ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

missing=()
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
if [ "$job" = test ]; then
  command -v tmux >/dev/null 2>&1 || missing+=(tmux)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
  command -v cc >/dev/null 2>&1 || missing+=(gcc)  # the C engine (`--engine c`) compiles its rule file's C; Debian's gcc brings the libasan and libubsan tests/test_c_sanitized.py links
  # Python's headers: the C engine's call of a whole game (vbr/engines/whole_game_call.c) compiles against them
  python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || missing+=(python3-dev)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if [ "$job" = demo ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e .
else
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
  if [ ! -d editors/vscode/node_modules ]; then
    (cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
# vbr's modules compiled once, here: an editable install leaves that to each process that imports
# them, and where PYTHONDONTWRITEBYTECODE is set every `vbr` process (the tests start hundreds)
# compiled them all again, about 0.13 s each
.venv/bin/python -m compileall -q vbr >/dev/null
