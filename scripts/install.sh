#!/usr/bin/env bash
# Install nanobot and everything it needs into ./.venv (idempotent; safe to re-run).
# llama-cpp-python builds from source the first time (~10 min on 2 cores); pip caches the wheel,
# so later runs take seconds. Set CMAKE_ARGS for GPU builds (see models/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# CPU build of torch first, pinned: an unpinned torch (pulled in by sentence-transformers) is a
# multi-GB CUDA build.
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e '.[dev,bench]'
echo "nanobot installed in .venv: run .venv/bin/nanobot chat"
