"""Naming an installed model in config.toml: ``[models.NAME]`` with its path and measured settings,
added once, and ``model = "NAME"`` (the default) when the file chooses no model yet. Every other byte
of the user's file (comments, order, formatting) is kept via tomlkit, and the file is replaced
atomically under its lock (``base/userfile.py``). A config.toml that does not exist yet starts as the
commented file ``nanobot init`` writes, so the user still has every setting to edit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nanobot.base.errors import ConfigError
from nanobot.base.userfile import update_user_file
from nanobot.catalogue.entries import CatalogueEntry
from nanobot.configfile import EXAMPLES, render_default


@dataclass
class Named:
    added: bool  # [models.NAME] was added
    default: str  # the model config.toml chooses now ("" when none)
    made_default: bool  # this install chose it


def has_model(text: str, name: str) -> bool:
    import tomlkit

    return name in (tomlkit.parse(text).get("models") or {})


def chosen(text: str) -> str:
    """The model ``text`` chooses (its top-level ``model``), or ""."""
    import tomlkit

    value = tomlkit.parse(text).get("model") if text.strip() else None
    return str(value) if value is not None else ""


def name_model(config: Path, entry: CatalogueEntry, path: Path, make_default: bool = True) -> Named:
    """Add ``[models.<entry.name>]`` to ``config`` unless it is there (an entry the user already has
    is left exactly as it is) and, with ``make_default``, choose it when the file chooses no model."""
    from tomlkit.exceptions import TOMLKitError

    def merge(old: str) -> str:
        new = _with_table(old if old.strip() else render_default(), entry, path)
        if make_default and not chosen(new):
            new = _with_default(new, entry.name)
        return new

    try:
        old, new = update_user_file(config, merge)
    except TOMLKitError as e:
        raise ConfigError(f"{config}: not valid TOML ({e}); fix the syntax, then run the install again") from None
    now = chosen(new)
    return Named(added=not (old.strip() and has_model(old, entry.name)), default=now,
                 made_default=now == entry.name and chosen(old) != now)


def _with_table(text: str, entry: CatalogueEntry, path: Path) -> str:
    import tomlkit

    doc = tomlkit.parse(text)
    models = doc.get("models")
    if models is not None and entry.name in models:
        return text
    table = tomlkit.table()
    table.comment(f"{entry.title}, {entry.license}; added by nanobot models install")
    table.add("path", str(path))
    for key, value in entry.settings.items():
        table.add(key, value)
    if models is None:
        models = tomlkit.table(is_super_table=True)
        if text and not text.endswith("\n\n"):
            doc.add(tomlkit.nl())
        doc.add("models", models)
    models.add(entry.name, table)
    return tomlkit.dumps(doc)


def _with_default(text: str, name: str) -> str:
    """``model = "<name>"`` at the top level of ``text``: in place of the starting file's commented
    example line (the user's own comments stay), else before the first table."""
    import tomlkit

    line = f"model = {tomlkit.string(name).as_string()}   # the default model; chosen by nanobot models install"
    header = re.search(r"^[ \t]*\[", text, re.M)
    top = text[: header.start()] if header else text
    example = EXAMPLES["model"][0]
    at = top.find(example + "\n")
    if at >= 0 and (at == 0 or top[at - 1] == "\n"):
        return text[:at] + line + text[at + len(example):]
    doc = tomlkit.parse(text)
    doc.add("model", name)
    return tomlkit.dumps(doc)
