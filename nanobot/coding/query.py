"""``query_ancestor``'s answer: an ancestor's description, diff and transcript, on demand, and a
clear report when the id is not an ancestor any more (a rebase onto an unrelated parent) instead
of a wrong one.

``change_id`` may be a full id, a unique prefix of one of the session's changes, ``@`` (the current
change) or ``@-`` (its parent). ``transcript_filter``: ``search`` (case-insensitive substring) and
``range`` (``"START:END"``, Python slice over the matching records, e.g. ``"-4:"``).
"""

from __future__ import annotations

from nanobot.coding.session import CodingSession
from nanobot.coding.vcs import CodingError


def resolve(session: CodingSession, change_id: str) -> str:
    cid = change_id.strip()
    if cid in ("@", ""):
        return session.current
    if cid == "@-":
        parent = session.vcs.parent(session.current)
        if parent is None:
            raise CodingError(f"the current change {session.current[:12]} has no parent change with an id")
        return parent
    hits = [c for c in session.meta.changes if c.startswith(cid)]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise CodingError(f"{cid!r} matches {len(hits)} changes of this session; give more of the id")
    if session.vcs.exists(cid):
        return cid
    raise CodingError(f"no change {cid!r} in {session.meta.repo}; the session's changes are "
                      + ", ".join(c[:12] for c in session.meta.changes))


def query(session: CodingSession, change_id: str, include: list[str], search: str | None = None,
          range_: str | None = None) -> str:
    cid = resolve(session, change_id)
    if not session.vcs.is_ancestor(cid, session.current):
        ours = " (one of this session's changes)" if cid in session.meta.changes else ""
        raise CodingError(f"change {cid[:12]}{ours} is not an ancestor of the current change "
                          f"{session.current[:12]}: the history was rewritten (rebased onto an unrelated "
                          "parent?); not reporting it as an ancestor")
    parts = [f"change {cid}"]
    if "description" in include:
        parts.append("description:\n" + (session.vcs.description(cid) or "(empty)"))
    if "diff" in include:
        stat = session.vcs.diff(cid, stat=True).strip()
        parts.append("diff:\n" + (stat + "\n\n" + session.vcs.diff(cid) if stat else "(no changes)"))
    if "transcript" in include:
        recs = session.records(cid)
        if search:
            recs = [r for r in recs if search.lower() in r.content.lower()]
        recs = recs[_slice(range_)]
        lines = [f"{r.role}: {r.content}" for r in recs]
        parts.append("transcript:\n" + ("\n".join(lines) if lines else "(no matching records)"))
    return "\n\n".join(parts)


def _slice(spec: str | None) -> slice:
    if not spec or not spec.strip():
        return slice(None)
    a, sep, b = spec.partition(":")
    try:
        start = int(a) if a.strip() else None
        end = int(b) if b.strip() else None
    except ValueError:
        raise CodingError(f"transcript_filter.range {spec!r} is not START:END (e.g. \"0:4\" or \"-3:\")") from None
    return slice(start, end) if sep else slice(start, None if start == -1 else (start + 1 if start is not None else None))
