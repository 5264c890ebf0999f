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

from nanobot.base.safe_text import one_line
from nanobot.core.fitting import most_that_fits
from nanobot.vault.ledger import LedgerEntry, read_backwards

VERBS = {"create": "Created", "update": "Updated", "delete": "Deleted"}
Counter = Callable[[str], int]


class Digest(BaseModel):
    entries: list[LedgerEntry] = Field(default_factory=list)  # in the window, newest first
    warnings: list[str] = Field(default_factory=list)


def header(hours: float) -> str:
    return f"## Recent Changes (last {hours:g}h)"


MAX_BAD = 1000  # unreadable lines after which the rest of the ledger is not read


def recent(path: Path, now: datetime, hours: float) -> Digest:
    """Entries with ``ts`` >= now - hours, newest first (reading stops at the first older one).

    Unreadable lines give ONE warning (how many, where the first was); after ``MAX_BAD`` of them the
    rest of the file is not read, so a 50 MB garbage ledger costs a bounded read, not 195,000
    warnings. A ledger that is not a regular file raises NotRegularFile (the feature falls back)."""
    out = Digest()
    cutoff = now - timedelta(hours=hours)
    bad, first, torn = 0, None, False
    for offset, raw, terminated in read_backwards(path):
        entry = LedgerEntry.from_line(raw)  # lenient: only ts, action and path are required
        if entry is None:
            if not terminated:
                torn = True
                continue
            bad, first = bad + 1, offset
            if bad >= MAX_BAD:
                break
            continue
        if entry.ts < cutoff:
            break
        out.entries.append(entry)
    if torn:
        out.warnings.append(f"{path.name}: torn last line skipped (not a ledger entry)")
    if bad == 1:
        out.warnings.append(f"{path.name}: corrupt line at byte {first} skipped (not a ledger entry)")
    elif bad:
        more = f", stopped reading after {MAX_BAD}" if bad >= MAX_BAD else ""
        out.warnings.append(f"{path.name}: {bad} corrupt lines skipped (not ledger entries; the earliest "
                            f"read at byte {first}{more}); move the file aside if it is not a ledger")
    return out


def entry_line(e: LedgerEntry, tz, changes: int = 1) -> str:
    """One doc's line: its newest entry, and how many changes it had in the window when more than one.

    A ledger line may carry anything: path and summary become one plain line (``one_line``)."""
    what = one_line(e.change_summary or e.reason)
    line = f"- [{e.ts.astimezone(tz):%H:%M}] {VERBS[e.action]} {one_line(e.path)}"
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

    return text(most_that_fits(len(lines), lambda n: count(text(n)) <= budget))  # "more" line counted
