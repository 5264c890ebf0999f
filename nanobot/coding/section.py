"""The coding section of the system prompt: the current change's description, the parent's (the
hand-off; on the session's first change a line saying so), and the diff -- its ``--stat`` first, then
hunks while they fit the budget. A change with no edits yet shows its parent's ``--stat`` instead, so a
fresh context after a checkpoint still sees what the hand-off is about.

The three parts are always there: each description is held to a share of the budget (cut at a line
with a note), so a long description can never push the diff out of the section.

Built once per session (and after each checkpoint), so the cached prompt prefix stays valid.
"""

from __future__ import annotations

from collections.abc import Callable

from nanobot.coding.session import CodingSession
from nanobot.core.prompt import trim_to_budget

DESCRIPTION_SHARE = 0.35  # of the budget, at most, for each of the two descriptions


def _bounded(text: str, budget: int, count: Callable[[str], int]) -> str:
    text = text.strip() or "(empty)"
    if count(text) <= budget:
        return text
    return trim_to_budget(text, max(0, budget - 12), count) + "\n(description cut; query_ancestor shows it all)"


def session_context(session: CodingSession, budget: int, count: Callable[[str], int]) -> str:
    meta = session.meta
    share = int(budget * DESCRIPTION_SHARE)
    head = [f"Session {meta.root[:12]} · change {meta.current[:12]} ({meta.backend}, {meta.repo}) · "
            f"{len(meta.changes)} change(s). Tools: new_change, describe_change, query_ancestor.",
            "Current change description:", _bounded(session.description(), share, count)]
    parent, text = session.handoff()
    head += ["Parent change (hand-off)" + (f" {parent[:12]}:" if parent else ":"),
             _bounded(text, share, count) if parent else text]
    stat = session.vcs.diff(meta.current, stat=True).rstrip()
    if not stat and parent:
        parent_stat = session.vcs.diff(parent, stat=True).rstrip()
        head += ["Diff of the current change: (no changes yet)",
                 f"Diff of the parent change {parent[:12]} (stat):",
                 trim_to_budget(parent_stat, share, count) if parent_stat else "(no changes)"]
        return "\n".join(head)
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
