"""Past conversations as a memory source (real embedder, real sqlite-vec): earlier sessions'
turns are indexed and shown as "Past Conversations:", never the current session's own turns; a
deleted transcript leaves the index; an assistant's reply ranks below the user's own words."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from nanobot.config import load_settings
from nanobot.core.transcript import Transcript
from nanobot.importing.formats import ImportedMessage, ImportedSession
from nanobot.importing.importer import import_sessions
from nanobot.memory.retriever import MemoryRetriever
from nanobot.memory.service import MemoryService
from nanobot.memory.transcripts import ASSISTANT_WEIGHT, transcript_chunks
from nanobot.observer.contextmd import approx_tokens
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow
AT = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def _session(day: int, *turns: tuple[str, str]) -> ImportedSession:
    when = AT.replace(day=day)
    return ImportedSession(started=when, messages=[ImportedMessage(role=r, content=t, ts=when) for r, t in turns])


@pytest.fixture
def settings(home):
    s = load_settings(home, prompt={"memory": 200}, memory={"min_score": 0.1})
    init_workspace(s.workspace)
    return s


def test_past_sessions_found_current_excluded_deleted_removed(settings, embedder):
    porto, other = import_sessions(settings, [
        _session(1, ("user", "We signed the lease for the flat in Porto, two rooms and a balcony."),
                 ("assistant", "Congratulations on the Porto flat!")),
        _session(2, ("user", "My sister Ana plays the cello in an orchestra."))])
    current = Transcript.create(settings.sessions_dir, datetime.now().astimezone())
    current.append("user", "What did I tell you about the flat in Porto?")
    svc = MemoryService(settings, embedder=embedder)
    retriever = MemoryRetriever(svc, approx_tokens, settings)

    block = retriever("What did I tell you about the flat in Porto?", [], current.id)
    assert block.startswith("Past Conversations:\n"), block
    assert "- 1 March 2026, User: We signed the lease" in block and "sessions/" not in block  # no file to open
    assert current.id not in block  # its own turn is in the context already

    hits = svc.search("the flat in Porto", 10)
    assert any(h.source == f"sessions/{current.id}.jsonl" for h in hits)  # indexed, only excluded
    assert not any(h.source == f"sessions/{current.id}.jsonl"
                   for h in svc.search("the flat in Porto", 10, exclude_session=current.id))

    porto.unlink()  # deleting a session removes it from the index
    assert not any(h.source == f"sessions/{porto.name}" for h in svc.search("flat in Porto balcony", 10))
    assert svc.store.conn.execute("SELECT count(*) FROM chunks WHERE source = ?",
                                  (f"sessions/{porto.name}",)).fetchone()[0] == 0
    assert any(h.source == f"sessions/{other.name}" for h in svc.search("Ana cello", 3))
    svc.close()


def test_a_past_message_with_nothing_the_new_one_lacks_is_not_injected(settings, embedder):
    """An earlier "hi" is the closest match to "hi" and tells nothing: no block, so a greeting's prompt is
    the prompt the disk KV entry holds. A past turn with a word more is still found."""
    import_sessions(settings, [_session(1, ("user", "hi"), ("user", "Hi! My cat is called Pixel."))])
    svc = MemoryService(settings, embedder=embedder)
    retriever = MemoryRetriever(svc, approx_tokens, settings)
    assert any(h.text == "User: hi" for h in svc.search("hi", 10))  # found, above the floor
    block = retriever("hi", [])
    assert "User: hi\n" not in block + "\n"
    assert "Pixel" in retriever("Hi, what is my cat called?", [])
    svc.close()


def test_transcripts_off_and_assistant_weight(settings, embedder, tmp_path):
    import_sessions(settings, [_session(3, ("user", "The boiler code is 4711."),
                                        ("assistant", "The boiler code is 4711."))])
    svc = MemoryService(settings, embedder=embedder)
    hits = svc.search("boiler code 4711", 2)
    assert [h.text.split(":")[0] for h in hits] == ["User", "Assistant"]  # same words: the user's first
    svc.close()

    settings.memory.transcripts = False
    off = MemoryService(settings, embedder=embedder)
    off.db_path = tmp_path / "off.db"
    assert off.search("boiler code 4711", 2) == []
    off.close()

    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in [
        {"ts": "2026-03-01T10:00:00+00:00", "role": "session"},
        {"ts": "2026-03-01T10:00:01+00:00", "role": "user", "content": "hello", "meta": {"speaker": "Ana"}},
        {"ts": "2026-03-01T10:00:02+00:00", "role": "tool", "content": "tool output"},
        '{"ts": "torn',
        {"ts": "2026-03-01T10:00:03+00:00", "role": "assistant", "content": "hi Ana"}]))
    chunks = transcript_chunks(path)
    assert [(c.text, c.line, c.weight) for c in chunks] == [("Ana: hello", 2, 1.0),
                                                             ("Assistant: hi Ana", 5, ASSISTANT_WEIGHT)]


def test_the_same_line_from_several_sessions_is_cited_the_same_whichever_ranks_first():
    """A question asked in three sessions is one line in the block, and the block reads the same
    whichever copy the query ranked first (drafts typed word by word rank near-ties differently:
    the block changed at every word by its source alone, and the prefill re-evaluated it)."""
    from nanobot.memory.retriever import select
    from nanobot.memory.store import Hit

    def hit(session: str, line: int, score: float, text: str = "User: What is the capital of France?") -> Hit:
        return Hit(id=line, text=text, source=f"sessions/{session}.jsonl", line=line, heading="25 November 2026",
                   score=score, cosine=score)

    a, b, c = hit("20261125-0501-aaaa", 2, 0.71), hit("20261125-0502-bbbb", 2, 0.70), hit("20261125-0503-cccc", 4, 0.69)
    other = hit("20261125-0502-bbbb", 3, 0.5, "Assistant: Paris.")
    orders = [[a, b, c, other], [c, a, other, b], [b, other, c, a]]
    picked = [[h.where for h in select(o, 0.3, [])] for o in orders]
    assert picked[0] == ["sessions/20261125-0503-cccc.jsonl:4", "sessions/20261125-0502-bbbb.jsonl:3"]
    assert picked[1] == picked[0] and picked[2] == picked[0]
    assert [h.where for h in select([a, b, c], 0.695, [])] == [b.where]  # below the floor: not cited


def test_past_lines_are_read_in_the_order_they_were_said(settings, embedder):
    """The search picks the lines, best first; the block then gives them as the conversation went, so
    each "yesterday" sits under its own day. Here the later session ranks first."""
    import_sessions(settings, [
        _session(1, ("user", "I made a bowl in my pottery class yesterday.")),
        _session(5, ("user", "I signed up for a second pottery class yesterday."))])
    svc = MemoryService(settings, embedder=embedder)
    question = "When did I sign up for the pottery class?"
    ranked = [h.heading for h in svc.search(question, 2)]
    assert ranked == ["5 March 2026", "1 March 2026"]  # the later session is the better match
    block = MemoryRetriever(svc, approx_tokens, settings)(question, [])
    assert block.index("- 1 March 2026, User: I made a bowl") < block.index("- 5 March 2026, User: I signed up"), block
    svc.close()


def test_a_session_deleted_while_the_index_is_held_back_is_not_offered(settings, embedder, monkeypatch):
    """A background run (an import's) can keep the index from seeing a deletion for minutes; the session
    the user removed is not searched meanwhile."""
    gone, kept = import_sessions(settings, [_session(1, ("user", "My locker code is 1234, the blue locker.")),
                                            _session(2, ("user", "The red locker is at the gym."))])
    svc = MemoryService(settings, embedder=embedder)
    svc.refresh()
    monkeypatch.setattr(svc, "refresh", lambda *a, **k: None)  # the index is not refreshed before the search
    gone.unlink()
    assert svc.store.conn.execute("SELECT count(*) FROM chunks WHERE source = ?",
                                  (f"sessions/{gone.name}",)).fetchone()[0] == 1  # still indexed
    hits = svc.search("what is my locker code", 5)
    assert hits and f"sessions/{kept.name}" in {h.source for h in hits}
    assert f"sessions/{gone.name}" not in {h.source for h in hits}
    svc.close()
