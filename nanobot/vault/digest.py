"""The "Recent Changes" section: ledger entries of the last ``hours``, newest first, within a budget.

Read backwards from the end of the ledger (``ledger.read_backwards``) and stopped at the first entry
older than the window, so a 100,000-line ledger costs a few KiB of reading. One line per doc, the most
recently changed first; repeated edits of one doc are grouped into its line::

    - [14:05] Updated knowledge/projects/zephyr.md — 7 changes, last: Port is now 8443
    - [13:10] Created knowledge/notes.md — Meeting notes

(the time, verb and text of the doc's newest entry, in the session's own time zone; ``change_summary``,
or ``reason`` for older entries without one). A line that lacks fields other than ts/action/path reads
with defaults (``LedgerEntry.from_line``); one that is not a JSON object with those three is skipped with
a warning naming its byte offset. Docs that do not fit the budget are counted in a last line,
``… and 12 more changes`` (``… to 4 docs`` when some were grouped). An empty window says ``No changes.``.
The section is built once at session start and frozen for the session (``VaultFeature``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, Field

from nanobot.vault.ledger import LedgerEntry, read_backwards

VERBS = {"create": "Created", "update": "Updated", "delete": "Deleted"}
Counter = Callable[[str], int]


class Digest(BaseModel):
    entries: list[LedgerEntry] = Field(default_factory=list)  # in the window, newest first
    warnings: list[str] = Field(default_factory=list)


def header(hours: float) -> str:
    return f"## Recent Changes (last {hours:g}h)"


def recent(path: Path, now: datetime, hours: float) -> Digest:
    """Entries with ``ts`` >= now - hours, newest first (reading stops at the first older one)."""
    out = Digest()
    cutoff = now - timedelta(hours=hours)
    for offset, raw, terminated in read_backwards(path):
        entry = LedgerEntry.from_line(raw)
        if entry is None:
            what = "torn last line" if not terminated else f"corrupt line at byte {offset}"
            out.warnings.append(f"{path.name}: {what} skipped (not a ledger entry)")
            continue
        if entry.ts < cutoff:
            break
        out.entries.append(entry)
    return out


def entry_line(e: LedgerEntry, tz, changes: int = 1) -> str:
    """One doc's line: its newest entry, and how many changes it had in the window when more than one."""
    what = " ".join((e.change_summary or e.reason).split())
    line = f"- [{e.ts.astimezone(tz):%H:%M}] {VERBS[e.action]} {e.path}"
    if changes > 1:
        return f"{line} — {changes} changes, last: {what}" if what else f"{line} — {changes} changes"
    return f"{line} — {what}" if what else line


def by_doc(entries: list[LedgerEntry]) -> list[tuple[LedgerEntry, int]]:
    """(newest entry, number of entries) per path, in the order of each path's newest entry."""
    groups: dict[str, list[LedgerEntry]] = {}
    for e in entries:  # newest first, so each group's first entry is its newest
        groups.setdefault(e.path, []).append(e)
    return [(g[0], len(g)) for g in groups.values()]


def render_digest(entries: list[LedgerEntry], now: datetime, hours: float, budget: int,
                  count: Counter) -> str:
    """The section text (header included) within ``budget``; the newest entries are kept."""
    head = header(hours)
    if not entries:
        return f"{head}\nNo changes."
    docs = by_doc(entries)
    lines = [entry_line(e, now.tzinfo, n) for e, n in docs]

    def text(n: int) -> str:
        left = docs[n:]
        changes = sum(k for _, k in left)
        more = f"… and {changes} more change{'s' if changes > 1 else ''}"
        if changes > len(left):
            more += f" to {len(left)} doc{'s' if len(left) > 1 else ''}"
        return "\n".join([head, *lines[:n], *([more] if left else [])])

    lo, hi = 0, len(lines)  # the most lines that fit, with the "more" line counted
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text(mid)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text(lo)
