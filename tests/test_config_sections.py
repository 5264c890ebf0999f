"""Each feature's config.toml section is a module of its own, named for the feature
(``nanobot/config/vault.py``: ``[vault]``), not a class among the core's in ``nanobot/config/__init__.py``;
the sections, keys and defaults are what they were (``tests/test_config*.py``)."""

from __future__ import annotations

from nanobot.config import Settings

FEATURE_SECTIONS = {"memory": "memory", "observer": "observer", "kv_cache": "kvcache", "mcp": "mcp",
                    "consolidation": "chats", "coding": "coding", "vault": "vault"}


def test_each_features_section_is_its_own_module():
    where = {name: Settings.model_fields[name].annotation.__module__ for name in FEATURE_SECTIONS}
    assert where == {name: f"nanobot.config.{module}" for name, module in FEATURE_SECTIONS.items()}


def test_the_core_keeps_only_its_own_sections():
    core = {name for name, f in Settings.model_fields.items()
            if getattr(f.annotation, "__module__", "") == "nanobot.config"}
    assert core == {"prompt", "chat", "tools"}
