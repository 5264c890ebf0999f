"""Attaching memory to an Agent: the per-turn retriever and a session-start hook.

At build, ``attach_memory`` sets ``agent.retriever`` and starts warming the embedder in the
background (only if there is memory to search), so chat is ready to type before torch has loaded.
At each session start the hook refreshes nothing itself (that is the background thread's job) but
reports files the index had to skip.
"""

from __future__ import annotations

from nanobot.events import Notice
from nanobot.memory.retriever import MemoryRetriever
from nanobot.memory.service import MemoryService, get_service


class MemoryHook:
    def __init__(self, service: MemoryService):
        self.service = service
        self._reported: set[str] = set()

    def on_session_start(self, agent) -> list[Notice]:
        self.service.start_background()
        report = self.service.last_report
        fresh = [w for w in (report.warnings if report else []) if w not in self._reported]
        self._reported.update(fresh)
        notes = [Notice(text=f"memory: {w}", level="warning") for w in fresh]
        return notes + [Notice(text=n, level="warning") for n in self.service.notices()]


def attach_memory(agent) -> MemoryService:
    service = get_service(agent.settings)
    agent.retriever = MemoryRetriever(service, agent.model.count_tokens, agent.settings)
    agent.hooks.append(MemoryHook(service))
    service.start_background()
    return service
