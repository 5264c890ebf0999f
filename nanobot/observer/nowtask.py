"""CONTEXT.md's Now fields from the task board first, the model's draft second.

``Task:`` is the task board's active item when there is one (the draft's task only when there is
none); ``Blocked:`` joins the board's blocked items and the draft's ``blocked`` field, and is
cleared when both are empty (an empty field is never sent to the model).
"""

from __future__ import annotations

from pathlib import Path

from nanobot.observer.contextmd import ContextDoc
from nanobot.tools.tasks import board_now


def set_now(doc: ContextDoc, workspace: Path, *, focus: str, task: str, blocked: str) -> None:
    active, waiting = board_now(workspace)
    items = [*waiting, *([blocked.strip()] if blocked.strip() else [])]
    doc.set_now(focus=focus, task=active or task, blocked="; ".join(items))
