#!/usr/bin/env bash
# The main job on a fresh machine: set up what it needs (`setup.sh --demo`: graphviz's `dot`, vbr and
# its plain dependencies), play one game of Siatka and replay it, simulate 200, draw its turn flow.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --demo
mkdir -p out
.venv/bin/vbr run siatka --seed 1 --agents greedy,random --option abilities --log out/siatka-game.jsonl
.venv/bin/vbr replay out/siatka-game.jsonl
.venv/bin/vbr sim siatka -n 200 --seed 1 --out out/siatka-games.csv --plot out/siatka-plots
.venv/bin/vbr graph siatka -o out/siatka.svg
echo "diagram written to out/siatka.svg; per-game rows in out/siatka-games.csv, plots in out/siatka-plots/"
