"""Time awareness: how long since the last interaction, what that means, and the session pattern.

Everything is computed from the session transcripts (first and last record of each, read cheaply)
and an injectable ``now``, so tests can put the clock anywhere. Buckets (gap since the last user or
assistant message):

=====================  ==========  =============================================================
gap                    bucket      hint
=====================  ==========  =============================================================
< 5 min                continue    continue naturally (the gap reads "just now")
5-30 min               back        a brief "back to it" is enough
30 min - 2 h           reorient    re-orient briefly: check CONTEXT.md for the current task
2 h+ (same day)        summarize   start by summarizing where we left off
an earlier day         new_day     fresh start: briefly review where we left off (any gap: a day
                                   boundary counts as the next day)
=====================  ==========  =============================================================

At session start, the "Last session" section (``TimeReport.before``: stable, cached with the prefix)::

    Ended Tuesday 10 Mar, 13:00; it lasted 20 min.
    Pattern: deep work (recent sessions ~1 h 10 min)

and the Time section's lines under "Now" (``TimeReport.lines``: volatile)::

    Session: just started (first session)                     <- no earlier session
    Session: just started; we last talked 2 hours ago. Start by summarizing where we left off.

The pattern comes from the last five sessions with messages: "debugging sessions" when at least half of
them were spent on errors (a user message naming an error, a traceback, a failing test, a bug...), else
quick check-ins (median under 10 min), deep work (45 min or more) or mixed sessions.

Later turns say how long the session has run and how long we had not talked before it
(``session_line``), in front of the user's message: "how long since we last talked" is the gap since the
previous session's end, never this session's length.
"""

from __future__ import annotations

import json
import re
import statistics
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from nanobot.base.regular import read_regular
from nanobot.core.transcript import list_transcripts

Bucket = Literal["first", "continue", "back", "reorient", "summarize", "new_day"]
HINTS: dict[str, str] = {
    "first": "",
    "continue": "Continue naturally.",
    "back": "A brief \"back to it\" is enough.",
    "reorient": "Re-orient briefly: check CONTEXT.md for the current task.",
    "summarize": "Start by summarizing where we left off.",
    "new_day": "Fresh start: briefly review where we left off.",
}
_USER = b'"role":"user"'
_ASSISTANT = b'"role":"assistant"'
JUST_NOW = timedelta(minutes=5)  # gaps under this read "just now"
# a user message with one of these words marks a debugging session
_DEBUG = re.compile(rb"\b(error|errors|traceback|exception|stack ?trace|bug|bugs|debug\w*|crash\w*|"
                    rb"fail(s|ed|ing|ure)?|broken|segfault|panic\w*)\b", re.IGNORECASE)


class SessionSpan(BaseModel):
    id: str
    start: datetime
    end: datetime  # last record of any kind
    last_interaction: datetime | None = None  # last user/assistant record
    user_turns: int = 0
    debugging: bool = False  # a user message spoke of an error, a traceback, a failing test...

    @property
    def minutes(self) -> float:
        return (self.end - self.start).total_seconds() / 60


class TimeReport(BaseModel):
    now: datetime
    last: datetime | None = None
    gap: timedelta | None = None
    bucket: Bucket = "first"
    pattern: str = ""
    last_minutes: float | None = None  # how long the last session lasted

    @property
    def hint(self) -> str:
        return HINTS[self.bucket]

    def lines(self) -> str:
        """The Time section's lines under "Now": how long ago we last talked and what that means (they
        depend on now, so they are volatile)."""
        if self.last is None or self.gap is None:
            return "Session: just started (first session)"
        return f"Session: just started; we last talked {ago(self.gap)}. {self.hint}".rstrip()

    def before(self) -> str:
        """The "Last session" section: when the previous session ended, how long it lasted, and the
        pattern. Nothing here depends on now, so the text is the same from that session's end to this
        one's start, and its KV state is cached with the stable prefix (``kvcache/prewarm.py``)."""
        out = []
        if self.last is not None:
            lasted = "" if self.last_minutes is None else \
                f"; it lasted {human_gap(timedelta(minutes=self.last_minutes))}"
            out.append(f"Ended {self.last:%A %d %b, %H:%M}{lasted}.")
        if self.pattern:
            out.append(f"Pattern: {self.pattern}")
        return "\n".join(out)


def bucket_for(gap: timedelta, last: datetime, now: datetime) -> Bucket:
    """The bucket of a gap (see the module docstring).

    >>> from datetime import datetime as d
    >>> bucket_for(timedelta(minutes=3), d(2026, 1, 1, 9, 0), d(2026, 1, 1, 9, 3))
    'continue'
    """
    if now.date() > last.date():
        return "new_day"
    minutes = gap.total_seconds() / 60
    if minutes < 5:
        return "continue"
    if minutes < 30:
        return "back"
    if minutes < 120:
        return "reorient"
    return "summarize"


def ago(gap: timedelta) -> str:
    """A gap as the Time section says it: just now (under 5 min), N min, N hours (from 1 h), N days (from 24 h).

    >>> ago(timedelta(minutes=4)), ago(timedelta(minutes=59)), ago(timedelta(hours=1, minutes=50)), ago(timedelta(hours=30))
    ('just now', '59 min ago', '1 hour ago', '1 day ago')
    """
    if gap < JUST_NOW:
        return "just now"
    minutes = int(gap.total_seconds() // 60)
    if minutes < 60:
        return f"{minutes} min ago"
    hours = minutes // 60
    if hours < 24:
        return f"{hours} hour{'s' * (hours != 1)} ago"
    days = hours // 24
    return f"{days} day{'s' * (days != 1)} ago"


def session_line(started: datetime, now: datetime, before: timedelta | None = None) -> str:
    """How long this session has run, for later turns, and (``before``: the gap between the previous
    session's end and this one's start) how long we had not talked before it; "" in its first minute.
    The session's length is never the answer to "how long since we last talked": the line says both.

    >>> from datetime import datetime as d
    >>> session_line(d(2026, 1, 1, 9, 0), d(2026, 1, 1, 9, 25), timedelta(hours=3))
    'Session: running for 25 min; before it, we had not talked for 3 h'
    """
    gap = now - started
    if gap < timedelta(minutes=1):
        return ""
    since = f"; before it, we had not talked for {human_gap(before)}" if before is not None else " (first session)"
    return f"Session: running for {human_gap(gap)}{since}"


def human_gap(gap: timedelta) -> str:
    """A gap for people.

    >>> human_gap(timedelta(minutes=75))
    '1 h 15 min'
    """
    minutes = int(gap.total_seconds() // 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {rest} min" if rest else f"{hours} h"
    return f"{hours // 24} days"


def session_pattern(spans: list[SessionSpan], n: int = 5) -> str:
    """Debugging, quick check-ins or deep work, from the last ``n`` sessions with messages."""
    talked = [s for s in spans if s.user_turns][-n:]
    if len(talked) < 2:
        return ""
    median = statistics.median(s.minutes for s in talked)
    typical = human_gap(timedelta(minutes=median))
    if 2 * sum(s.debugging for s in talked) >= len(talked):
        return f"debugging sessions (recent sessions ~{typical})"
    if median < 10:
        return f"quick check-ins (recent sessions ~{typical})"
    if median >= 45:
        return f"deep work (recent sessions ~{typical})"
    return f"mixed sessions (recent sessions ~{typical})"


def recent_spans(sessions_dir: Path, exclude: str | None = None, limit: int = 12) -> list[SessionSpan]:
    """The last ``limit`` sessions (oldest first), each read from its first and last lines."""
    spans = []
    for path in list_transcripts(sessions_dir)[-(limit + 1):]:
        if path.stem == exclude:
            continue
        span = read_span(path)
        if span is not None:
            spans.append(span)
    return spans[-limit:]


def read_span(path: Path) -> SessionSpan | None:
    try:
        raw = read_regular(path)
    except OSError:
        return None
    lines = [ln for ln in raw.split(b"\n") if ln.strip()]
    stamps = [_ts(ln) for ln in lines[:1] + lines[-3:]]
    stamps = [s for s in stamps if s is not None]
    if not stamps:
        return None
    last_talk = next((_ts(ln) for ln in reversed(lines) if _USER in ln or _ASSISTANT in ln), None)
    debugging = any(_USER in ln and _DEBUG.search(ln) for ln in lines)
    return SessionSpan(id=path.stem, start=stamps[0], end=max(stamps), last_interaction=last_talk,
                       user_turns=raw.count(_USER), debugging=debugging)


def time_report(sessions_dir: Path, now: datetime, exclude: str | None = None) -> TimeReport:
    now = now if now.tzinfo else now.astimezone()
    spans = recent_spans(sessions_dir, exclude)
    report = TimeReport(now=now, pattern=session_pattern(spans))
    talked = [s for s in spans if s.last_interaction]
    last = max((s.last_interaction for s in talked), default=None)
    if last is not None:
        latest = max(talked, key=lambda s: s.last_interaction)
        report.last_minutes = max(0.0, (latest.last_interaction - latest.start).total_seconds() / 60)
        last = last.astimezone(now.tzinfo)
        gap = max(now - last, timedelta(0))
        report.last, report.gap, report.bucket = last, gap, bucket_for(gap, last, now)
    return report


def _ts(line: bytes) -> datetime | None:
    try:
        return datetime.fromisoformat(json.loads(line)["ts"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
