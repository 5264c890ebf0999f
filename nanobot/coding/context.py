"""The coding section of the system prompt: the current change's description, the parent's (the
hand-off), and the current diff -- its ``--stat`` first, then hunks while they fit the budget.

Built once per session (and after each checkpoint), so the cached prompt prefix stays valid.
"""

from __future__ import annotations

from collections.abc import Callable

from nanobot.coding.session import CodingSession


def session_context(session: CodingSession, budget: int, count: Callable[[str], int]) -> str:
    meta = session.meta
    head = [f"Session {meta.root[:12]} · change {meta.current[:12]} ({meta.backend}, {meta.repo}) · "
            f"{len(meta.changes)} change(s). Tools: new_change, describe_change, query_ancestor.",
            "Current change description:", session.description().strip() or "(empty)"]
    parent, text = session.handoff()
    head += ["Parent change (hand-off)" + (f" {parent[:12]}:" if parent else ":"), text.strip() or "(empty)"]
    stat = session.vcs.diff(meta.current, stat=True).rstrip()
    head += ["Diff of the current change:", stat or "(no changes yet)"]
    text = "\n".join(head)
    if not stat:
        return text
    used = count(text)
    hunks = session.vcs.diff(meta.current).splitlines()
    kept: list[str] = []
    for line in hunks:
        cost = count(line) + 1
        if used + cost > budget - 16:  # room for the note
            break
        kept.append(line)
        used += cost
    if len(kept) < len(hunks):
        kept.append(f"(diff cut: {len(hunks) - len(kept)} more line(s); query_ancestor(\"@\", [\"diff\"]) shows it all)")
    return "\n".join([text, *kept])
