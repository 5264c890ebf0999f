"""Naming an installed model in config.toml: ``[models.NAME]`` with its path and measured settings,
added once, keeping every other byte of the user's file (comments, order, formatting) via tomlkit."""

from __future__ import annotations

from pathlib import Path

from nanobot.base.errors import ConfigError
from nanobot.base.userfile import update_user_file
from nanobot.catalogue.entries import CatalogueEntry


def has_model(text: str, name: str) -> bool:
    import tomlkit

    return name in (tomlkit.parse(text).get("models") or {})


def add_model(config: Path, entry: CatalogueEntry, path: Path) -> bool:
    """Add ``[models.<entry.name>]`` to ``config`` unless it is there; True when it was added.
    An entry the user already has is left exactly as it is."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    def merge(old: str) -> str:
        doc = tomlkit.parse(old)
        models = doc.get("models")
        if models is not None and entry.name in models:
            return old
        table = tomlkit.table()
        table.comment(f"{entry.title}, {entry.license}; added by nanobot models install")
        table.add("path", str(path))
        for key, value in entry.settings.items():
            table.add(key, value)
        if models is None:
            models = tomlkit.table(is_super_table=True)
            if old and not old.endswith("\n\n"):
                doc.add(tomlkit.nl())
            doc.add("models", models)
        models.add(entry.name, table)
        return tomlkit.dumps(doc)

    try:
        old, new = update_user_file(config, merge)
    except TOMLKitError as e:
        raise ConfigError(f"{config}: not valid TOML ({e}); fix the syntax, then run the install again") from None
    return old != new
