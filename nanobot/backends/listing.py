"""The rows of ``nanobot models``: every configured model with its file, or its server and what that
server answered to a short probe (``backends/wire.py``)."""

from __future__ import annotations

from nanobot.base.redact import redact, redact_url
from nanobot.config import Settings
from nanobot.models import bundled_model_path, configured_models


def list_models(settings: Settings, probe_s: float = 1.5) -> list[dict]:
    """Rows for ``nanobot models``: name, path, size, exists, default; a model server's row has
    ``url`` and ``server`` (what answered within ``probe_s`` seconds, or why nothing did)."""
    rows = []
    for name, ms in configured_models(settings).items():
        if ms.base_url:
            from nanobot.backends.wire import probe_line  # httpx: only when a server is configured

            up, line = probe_line(ms, probe_s)
            rows.append({"name": name, "path": None, "url": redact_url(ms.base_url),
                         "served_model": ms.served_model or name, "size_mb": None, "exists": up,
                         "server": redact(line), "default": name == settings.model})
            continue
        path = ms.path.expanduser() if ms.path else bundled_model_path()
        exists = bool(path and path.is_file())
        rows.append({
            "name": name,
            "path": str(path) if path else None,
            "size_mb": round(path.stat().st_size / 1e6, 1) if exists else None,
            "exists": exists,
            "default": name == settings.model,
        })
    return rows
