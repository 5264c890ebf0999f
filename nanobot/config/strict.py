"""The base of every config.toml section: an unknown key is an error (a typo names itself), and a
value set later is validated too. Every number a section takes has a range: the bounds below are the
most any setting of that kind may name (``tests/test_config_bounds.py`` walks every numeric field)."""

from __future__ import annotations

import os
from typing import get_args

from pydantic import BaseModel, ConfigDict

TOKENS = 1 << 20  # any size in tokens (a context, a batch, a budget): beyond every GGUF's context
THREADS = 4 * (os.cpu_count() or 1)  # threads: more than 4 per core only slows llama.cpp (or crashes it)
MANY = 10_000  # any count: steps, retries, layers, days, items
SECONDS = 86_400.0  # any timeout: a day
HOURS = 24.0 * 366  # any age or interval: a year
BYTES = 1 << 30  # any file size in bytes
MEGABYTES = 1 << 20  # any size in MB (a terabyte)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def allowed_range(model: type[BaseModel], loc: tuple) -> str:
    """``"from 1 to 64"`` for the numeric field at ``loc`` (a validation error's location, dict keys
    such as a model's name included) under ``model``; "" when there is none."""
    info, cls = None, model
    for part in loc:
        if info is not None:
            inner = [a for a in (get_args(info.annotation) or (info.annotation,))
                     if isinstance(a, type) and issubclass(a, BaseModel)]
            if not inner:
                return ""
            cls = inner[0]
        if isinstance(part, str) and part in cls.model_fields:
            info = cls.model_fields[part]
    if info is None:
        return ""
    bound = {k: getattr(m, k) for m in info.metadata for k in ("ge", "gt", "le") if getattr(m, k, None) is not None}
    if "le" not in bound:
        return ""
    n = {k: f"{v:g}" if isinstance(v, float) and not v.is_integer() else str(int(v)) for k, v in bound.items()}
    if "ge" in n:
        return f"from {n['ge']} to {n['le']}"
    return f"above {n['gt']} and at most {n['le']}" if "gt" in n else f"at most {n['le']}"
