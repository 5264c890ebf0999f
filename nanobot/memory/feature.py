"""Memory as a feature: the per-turn retrieved block, its tools (``memory/tools.py``: memory_search,
memory_add), and a session-start report.

``make_feature`` builds ``MemoryFeature`` and starts warming the embedder in the background (only if
there is memory to search), so chat is ready to type before torch has loaded. Each turn,
``turn_block`` puts what retrieval finds in front of the user's message. At each session start the
feature refreshes nothing itself (that is the background thread's job) but reports files the index
had to skip, and, while a big backlog (an import) is being indexed, how much is searchable so far.
"""

from __future__ import annotations

from nanobot.core.events import Notice
from nanobot.core.features import Feature
from nanobot.memory.retriever import MemoryRetriever
from nanobot.memory.service import BIG_BACKLOG, MemoryService, get_service
from nanobot.memory.tools import TOOLS
from nanobot.tools.registry import offered


class MemoryFeature(Feature):
    name = "memory"

    def __init__(self, service: MemoryService, retriever: MemoryRetriever):
        self.service = service
        self.retriever = retriever
        self._reported: set[str] = set()

    def turn_block(self, agent, query: str) -> str:
        current = agent.transcript.id if agent.transcript is not None else None
        return self.retriever(query, agent.history, current)

    def tools(self, settings) -> list:
        return list(offered(TOOLS, settings).values())

    def on_session_start(self, agent) -> list[Notice]:
        self.service.start_background()
        report = self.service.last_report
        fresh = [w for w in (report.warnings if report else []) if w not in self._reported]
        self._reported.update(fresh)
        notes = [Notice(text=f"memory: {w}", level="warning") for w in fresh]
        return notes + self._backlog() + self.on_turn_start(agent)

    def _backlog(self) -> list[Notice]:
        """One line while a big backlog (an import) is indexed behind the chat: how much is searchable."""
        indexed, total = self.service.searchable()
        if total - indexed < BIG_BACKLOG:
            return []
        return [Notice(text=f"memory: {indexed:,} of {total:,} files (notes and past conversations) are "
                            "searchable so far; the rest is being indexed in the background")]

    def on_turn_start(self, agent) -> list[Notice]:
        """One-time messages of the service (e.g. a damaged index rebuilt), as soon as they exist."""
        return [Notice(text=n, level="warning") for n in self.service.notices()]


def catalogue(settings) -> tuple[dict, dict, list[str]]:
    """The memory tools, and the ones a chat with ``settings`` offers (``runtime.every_tool``)."""
    return {t.name: t for t in TOOLS}, offered(TOOLS, settings), []


def make_feature(agent) -> MemoryFeature:
    """The feature for ``agent``; starts warming the embedder in the background."""
    service = get_service(agent.settings)
    retriever = MemoryRetriever(service, agent.model.count_tokens, agent.settings)
    service.start_background()
    return MemoryFeature(service, retriever)
