"""The reflector: crystallizes observations into MEMORY.md, and keeps CONTEXT.md fresh.

``reflect`` takes the observation parts not yet reflected (``ReflectorState.processed``), and for each
*grounded* fact they hold (one with evidence: a quote that ``nanobot.core.grounding.check`` finds in what
the user typed in that session's transcript, or, when the transcript is gone, a quote the fact shares
content with; others are listed in ``ReflectReport.ungrounded``), written with the quote's session
and date (``- fact (2026-03-10, session 20260310-100000-abcd)``): a near-duplicate (cosine similarity >= ``observer.merge_similarity`` with the
embedder, or a lexical ratio without it) of a line the *user* wrote is dropped (the user's line wins);
a near-duplicate of a line the *reflector* wrote replaces it when it says more (merged); anything else
is appended under ``## Learned from sessions``. Lines the reflector did not write are never changed or
removed. Each change keeps the old file in ``workspace/.history/MEMORY-<ts>.md`` with a unified diff
beside it, and every write is atomic.

``refresh_context`` rebuilds CONTEXT.md's Now and Recent from the latest observations when the file is
older than ``observer.context_max_age_h`` (user sections and extra lines survive).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from nanobot.base.atomic import atomic_write
from nanobot.base.userfile import update_user_file
from nanobot.config import Settings
from nanobot.core.grounding import check, shares_content
from nanobot.core.transcript import read_transcript
from nanobot.observer.contextmd import update_context
from nanobot.observer.nowtask import set_now
from nanobot.observer.observation import Observation
from nanobot.observer.state import (
    ReflectorState,
    load_state,
    record_written,
    save_state,
    state_path,
)
from nanobot.workspace import read_text, template_dir

LEARNED = "## Learned from sessions"
_BULLET = re.compile(r"^\s*[-*]\s+(.*\S)\s*$")
Similarity = Callable[[list[str], list[str]], list[list[float]]]
Fact = tuple[str, str]  # (the fact, where it was said: "(date, session id)")
_SOURCE = re.compile(r"\s*\(\d{4}-\d\d-\d\d, session [\w-]+\)$")


class ReflectReport(BaseModel):
    observations: list[str] = Field(default_factory=list)  # files with new parts
    added: list[str] = Field(default_factory=list)  # the facts (in MEMORY.md each with its source)
    merged: list[str] = Field(default_factory=list)  # "new -> existing line"
    ungrounded: list[str] = Field(default_factory=list)  # facts not promoted: "fact (reason)"
    similarity: str = ""  # "embedding" | "lexical"
    backup: Path | None = None
    diff: str = ""
    dry_run: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.diff)


def reflect(settings: Settings, *, now: datetime, similarity: Similarity | None = None,
            dry_run: bool = False) -> ReflectReport:
    """Fold unreflected observation facts into MEMORY.md (see the module docstring)."""
    spath = state_path(settings.home, "reflector")
    state = load_state(spath, ReflectorState)
    report = ReflectReport(dry_run=dry_run)
    facts = _new_facts(settings.workspace / "observations", settings.sessions_dir, state, report)
    mem_path = settings.workspace / "MEMORY.md"
    template = read_text(template_dir() / "MEMORY.md")
    sim = None
    if facts:
        sim = similarity or default_similarity(settings)
        report.similarity = getattr(sim, "kind", "custom")
    merged: dict = {}

    def merge(text: str) -> str:
        """Pure in ``text``: redone from scratch when the user edits MEMORY.md meanwhile."""
        old = text or template
        st, rep = state.model_copy(deep=True), ReflectReport()
        new = _merge(old, facts, st, sim, settings.observer.merge_similarity, rep) if facts else old
        merged.update(old=old, new=new, state=st, added=rep.added, merged=rep.merged)
        return new if new != old else text

    if dry_run or not facts:
        merge(read_text(mem_path))
    else:
        update_user_file(mem_path, merge, fault="reflect-write")
    old, new, state = merged["old"], merged["new"], merged["state"]
    report.added, report.merged = merged["added"], merged["merged"]
    if new != old:
        report.diff = "".join(difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            "MEMORY.md (before)", "MEMORY.md (after)"))
    if dry_run:
        return report
    if report.changed:
        report.backup = _backup(settings.workspace, old, report.diff, now)
        record_written(settings.home, settings.workspace, mem_path)
    state.last_run = now
    save_state(spath, state)
    return report


def unreflected(settings: Settings) -> list[Path]:
    """Observation files with parts the reflector has not processed (cheap: counts part headers)."""
    state = load_state(state_path(settings.home, "reflector"), ReflectorState)
    out = []
    for f in sorted((settings.workspace / "observations").glob("*.md")):
        parts = len(re.findall(r"^## Part \d+ · ", read_text(f), flags=re.M))
        if parts > state.processed.get(f.name, 0):
            out.append(f)
    return out


def reflection_due(settings: Settings, now: datetime) -> bool:
    state = load_state(state_path(settings.home, "reflector"), ReflectorState)
    if state.last_run is not None and now - state.last_run < timedelta(hours=settings.observer.reflect_every_h):
        return False
    return bool(unreflected(settings))


# -- similarity ------------------------------------------------------------------------------
def default_similarity(settings: Settings) -> Similarity:
    """Embedding cosine with the memory embedder when it can load, else a lexical ratio."""
    try:
        import numpy as np

        from nanobot.memory.embedder import get_embedder

        emb = get_embedder(settings)
        emb.wait()
    except Exception:  # no embedder module/model: dedupe lexically rather than not at all
        return lexical_similarity

    vectors: dict[str, Any] = {}  # by text: a merge redone on the user's edit embeds only its new lines

    def embedded(texts: list[str]) -> Any:
        if new := [t for t in dict.fromkeys(texts) if t not in vectors]:
            vectors.update(zip(new, emb.embed(new)))
        return np.stack([vectors[t] for t in texts])

    def embedding_similarity(a: list[str], b: list[str]) -> list[list[float]]:
        if not a or not b:
            return [[0.0] * len(b) for _ in a]
        return (embedded(a) @ embedded(b).T).tolist()

    embedding_similarity.kind = "embedding"  # type: ignore[attr-defined]
    return embedding_similarity


def lexical_similarity(a: list[str], b: list[str]) -> list[list[float]]:
    """Without an embedder: the larger of the character-sequence ratio and word containment
    (one text's words all in the other, for texts of 3+ words).

    >>> lexical_similarity(["The user likes tea."], ["the user likes tea", "Ada likes coffee"])[0]
    [1.0, 0.4706]
    """
    def words(s: str) -> list[str]:
        return re.findall(r"\w+", s.lower())

    def score(x: str, y: str) -> float:
        wx, wy = words(x), words(y)
        ratio = difflib.SequenceMatcher(None, " ".join(wx), " ".join(wy)).ratio()
        small = min(len(set(wx)), len(set(wy)))
        contained = len(set(wx) & set(wy)) / small if small >= 3 else 0.0
        return round(max(ratio, contained), 4)

    return [[score(x, y) for y in b] for x in a]


lexical_similarity.kind = "lexical"  # type: ignore[attr-defined]


# -- merge -----------------------------------------------------------------------------------
def _new_facts(obs_dir: Path, sessions_dir: Path, state: ReflectorState,
               report: ReflectReport) -> list[Fact]:
    facts: list[Fact] = []
    for f in sorted(obs_dir.glob("*.md")):
        text = read_text(f)
        if not text.strip():
            continue
        obs = Observation.parse(text)
        done = state.processed.get(f.name, 0)
        if len(obs.parts) <= done:
            continue
        report.observations.append(f.name)
        sid = obs.session or f.stem
        said = _said(sessions_dir / f"{sid}.jsonl")
        for part in obs.parts[done:]:
            for x in part.facts:
                reason = _ungrounded(x, part.evidence.get(x, ""), said)
                if reason:
                    report.ungrounded.append(f"{x} ({reason})")
                elif c := clean_fact(x):
                    facts.append((c, f"({part.at:%Y-%m-%d}, session {sid})"))
        state.processed[f.name] = len(obs.parts)
    return facts


def _said(transcript: Path) -> str | None:
    """What the user typed in a session; None when its transcript is gone."""
    if not transcript.exists():
        return None
    records, _ = read_transcript(transcript)
    return "\n".join(r.content for r in records if r.role == "user")


def _ungrounded(fact: str, quote: str, said: str | None) -> str:
    """Why ``fact`` may not enter MEMORY.md ("" when it may)."""
    if not quote:
        return "no evidence"
    if said is None:
        return "" if shares_content(fact, quote) else "item does not share content with its quote"
    verdict = check(fact, quote, said)
    return "" if verdict.kept else verdict.reason


_TAG = re.compile(r"\s*\((?:[\w./-]+\.md):\d+\)")  # "(MEMORY.md:3)": a retrieved-memory source tag


def clean_fact(fact: str) -> str:
    """A fact as it may enter MEMORY.md: retrieved-memory source tags removed; "" for junk
    (fewer than 3 letters or digits, e.g. "," or "- ...").

    >>> clean_fact("Ana's birthday is 12 May (MEMORY.md:3)"), clean_fact(" , ")
    ("Ana's birthday is 12 May", '')
    """
    fact = " ".join(_TAG.sub("", fact).split()).strip(" -*")
    return fact if len(re.findall(r"\w", fact)) >= 3 else ""


def _merge(text: str, facts: list[Fact], state: ReflectorState, sim: Similarity, threshold: float,
           report: ReflectReport) -> str:
    """Similarity is on the facts' words; a line the reflector writes carries its source."""
    lines = text.splitlines()
    bullets = [(i, m.group(1)) for i, ln in enumerate(lines) if (m := _BULLET.match(ln))]
    ours = set(state.lines)
    existing = [_SOURCE.sub("", b) for _, b in bullets]
    scores = sim([f for f, _ in facts], existing) if existing else [[] for _ in facts]
    added: list[str] = []
    for (fact, source), row in zip(facts, scores):
        best = max(range(len(row)), key=row.__getitem__, default=None)
        if best is not None and row[best] >= threshold:
            idx, line = bullets[best]
            report.merged.append(f"{fact} -> {line}")
            if line in ours and len(fact) > len(existing[best]):  # ours: keep the fuller wording
                new = f"{fact} {source}"
                lines[idx] = lines[idx].replace(line, new)
                state.lines = [new if x == line else x for x in state.lines]
                ours = set(state.lines)
            continue
        plain = [_SOURCE.sub("", a) for a in added]
        dup = [j for j, score in enumerate(sim([fact], plain)[0] if plain else []) if score >= threshold]
        if dup:
            report.merged.append(f"{fact} -> {added[dup[0]]}")
            continue
        added.append(f"{fact} {source}")
    if added:
        lines = _append_learned(lines, added)
        state.lines += added
        report.added = [_SOURCE.sub("", a) for a in added]
    return "\n".join(lines) + "\n"


def _append_learned(lines: list[str], facts: list[str]) -> list[str]:
    new = [f"- {f}" for f in facts]
    if LEARNED not in (ln.strip() for ln in lines):
        while lines and not lines[-1].strip():
            lines.pop()
        return [*lines, "", LEARNED, *new]
    start = next(i for i, ln in enumerate(lines) if ln.strip() == LEARNED)
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("#")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return lines[:end] + new + lines[end:]


def _backup(workspace: Path, old: str, diff: str, now: datetime) -> Path:
    hist = workspace / ".history"
    stamp = now.strftime("%Y%m%d-%H%M%S")
    backup = hist / f"MEMORY-{stamp}.md"
    atomic_write(backup, old)
    atomic_write(hist / f"MEMORY-{stamp}.diff", diff)
    return backup


# -- CONTEXT.md freshness --------------------------------------------------------------------
def refresh_context(settings: Settings, now: datetime, count: Callable[[str], int] | None = None,
                    recent: int = 3) -> str:
    """Refresh a stale CONTEXT.md from the latest observations; returns a note, or '' if fresh."""
    path = settings.workspace / "CONTEXT.md"
    try:
        age = now.timestamp() - path.stat().st_mtime
    except OSError:
        return ""
    if age < settings.observer.context_max_age_h * 3600:
        return ""
    parts = []
    for f in sorted((settings.workspace / "observations").glob("*.md"))[-recent:]:
        text = read_text(f)
        parts += Observation.parse(text).parts if text.strip() else []
    if not parts:
        return ""
    parts.sort(key=lambda p: p.at)
    latest = parts[-1]
    items = []
    for p in reversed(parts):
        items += [f"{p.at:%m-%d} {d}" for d in p.decisions] or ([f"{p.at:%m-%d} {p.summary}"] if p.summary else [])

    def change(doc) -> None:
        set_now(doc, settings.workspace, focus=latest.focus, task=latest.task, blocked=latest.blocked)
        doc.recent = []
        doc.add_recent(items)
        doc.external = []  # stale by definition; the next session start re-detects it

    update_context(path, change, settings.prompt.context, *([count] if count else []))
    record_written(settings.home, settings.workspace, path)
    return f"CONTEXT.md was {int(age // 3600)} h old: refreshed from {len(parts)} observation part(s)"
