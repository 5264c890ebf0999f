#!/usr/bin/env bash
# Produce the performance table of docs/benchmarks/performance.md on this machine: the bundled model and the synthetic 3B.
# Results (every figure, as JSON) go to bench/results/; the table is printed as Markdown.
# Takes ~5 min for the bundled model and ~20-40 min for the synthetic 3B on a 2-core CPU
# (the synthetic GGUF is built once, ~2 GB, under $NANOBOT_HOME/cache/synthetic/).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
mkdir -p bench/results
$PY -m nanobot bench --json bench/results/smollm2.json "$@"
$PY -m nanobot bench --synthetic 3b --json bench/results/synthetic-3b.json "$@"
$PY bench/readme_table.py bench/results/smollm2.json bench/results/synthetic-3b.json
