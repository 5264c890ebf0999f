"""The labelled sessions (tests/data/labelled_sessions.json): replay one into a fresh home, let the
observer observe it live and the reflector promote its facts, then score what was written.

Each session is a few (user, assistant) turns, the facts the user stated (each a list of key words a
MEMORY.md line must all contain to count as captured) and a task. ``replay`` writes the transcript and
history as a chat would have, ``score`` checks every line the observer wrote into CONTEXT.md (Now,
Recent) and every line the reflector wrote into MEMORY.md against the user's words with
``nanobot.core.grounding.check``: a line is grounded when its evidence quote (from the observation part)
occurs in what the user typed and the line shares content with it. Shared by tests and
bench/grounding_bench.py.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from nanobot.backends.base import Message
from nanobot.base.regular import read_regular, regular_text
from nanobot.core.grounding import check
from nanobot.observer.contextmd import load_context
from nanobot.observer.observation import ObservationPart
from nanobot.observer.observer import INSTRUCTION, load_observation, observation_path
from nanobot.observer.reflector import LEARNED

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "labelled_sessions.json"


class Labelled(BaseModel):
    id: str
    turns: list[tuple[str, str]]
    facts: list[list[str]]
    task: str


class Score(BaseModel):
    id: str
    lines: list[tuple[str, bool]]  # (line written, grounded)
    facts_captured: list[bool]
    generator: str


def load_labelled(path: Path = DATA) -> list[Labelled]:
    return [Labelled.model_validate(x) for x in json.loads(read_regular(path))]


def replay(agent, session: Labelled) -> None:
    """Put ``session`` into ``agent`` as if it had been chatted: transcript and history."""
    agent.start_session()
    for user, assistant in session.turns:
        agent.transcript.append("user", user)
        agent.transcript.append("assistant", assistant)
        agent.history += [Message(role="user", content=user), Message(role="assistant", content=assistant)]


def evidence_for(line: str, part: ObservationPart) -> str:
    """The quote behind a line written from ``part`` (a clipped line matched by its start)."""
    text = line.rstrip("…").strip()
    for item, quote in part.evidence.items():
        if item == text or item.startswith(text):
            return quote
    return ""


def context_lines(workspace: Path) -> list[str]:
    doc = load_context(workspace / "CONTEXT.md")
    now = [v for v in (doc.now.focus, doc.now.task, doc.now.blocked) if v]
    return now + [r.split(" ", 1)[1] if r[:5].replace("-", "").isdigit() else r for r in doc.recent]


def memory_lines(workspace: Path) -> list[str]:
    text = regular_text(workspace / "MEMORY.md")
    learned = text.split(LEARNED, 1)[1] if LEARNED in text else ""
    return [ln[2:].rsplit(" (", 1)[0] for ln in learned.splitlines() if ln.startswith("- ")]


def score(session: Labelled, workspace: Path, session_id: str) -> Score:
    obs = load_observation(observation_path(workspace, session_id))
    parts = obs.parts if obs else []
    said = "\n".join(u for u, _ in session.turns)
    lines = []
    for line in context_lines(workspace) + memory_lines(workspace):
        quote = next((q for p in parts if (q := evidence_for(line, p))), "")
        lines.append((line, check(line.rstrip("…"), quote, said, INSTRUCTION).kept))
    memory = [m.lower() for m in memory_lines(workspace)]
    captured = [any(all(k.lower() in m for k in keys) for m in memory) for keys in session.facts]
    return Score(id=session.id, lines=lines, facts_captured=captured,
                 generator=parts[-1].generator if parts else "")


def now() -> datetime:
    return datetime.now().astimezone()
