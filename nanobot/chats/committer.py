"""Pass C, the committer: render the reviewed file newest first, within its byte cap, and write it.

The write goes through ``nanobot.base.userfile.update_user_file`` (lock, atomic rename, compare-and-retry):
the hand lines are taken from the file as it is at that moment, so a line the user adds while the
model runs is kept too. A crash at any point before the rename leaves the previous file as it was.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field

from nanobot.base.userfile import update_user_file
from nanobot.chats.contextfile import ContextFile, Item, render_capped


class Commit(BaseModel):
    old: str
    new: str
    dropped: list[Item] = Field(default_factory=list)  # over the cap: oldest, lowest priority first
    written: bool = False


def render(doc: ContextFile, current: str, chat_id: str, now: datetime, max_bytes: int,
           group: bool) -> tuple[str, list[Item]]:
    """The new file: ``doc``'s items, ``current``'s hand lines, stamped ``now``, at most ``max_bytes``."""
    full = doc.with_hand_of(ContextFile.parse(current))
    full = full.model_copy(update={"chat": chat_id, "updated": now.replace(tzinfo=None)})
    return render_capped(full, max_bytes, group)


def commit(path: Path, doc: ContextFile, chat_id: str, now: datetime, max_bytes: int,
           group: bool) -> Commit:
    dropped: list[Item] = []

    def merge(current: str) -> str:
        text, cut = render(doc, current, chat_id, now, max_bytes, group)
        dropped[:] = cut
        return text

    old, new = update_user_file(path, merge)
    return Commit(old=old, new=new, dropped=dropped, written=old != new)
