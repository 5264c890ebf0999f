"""Incremental indexing of a real workspace with the real embedder and real sqlite-vec."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from nanobot.config import load_settings
from nanobot.memory import indexer
from nanobot.memory.service import MemoryService, insert_bullet
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    st = path.stat()  # make sure a same-second rewrite still looks changed
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def test_embedder_api(embedder):
    v = embedder.embed(["My dog is a beagle.", "Our puppy is a beagle.", "Quarterly tax filing."])
    assert v.shape == (3, embedder.dim) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_sources_edit_delete_and_cache(svc):
    ws = svc.workspace
    write(ws / "MEMORY.md", "# Memory\n<!-- guidance: never indexed -->\n## Pets\n- Biscuit is a beagle.\n- Biscuit eats at 6pm.\n")
    write(ws / "observations" / "s1.md", "---\nsession: s1\n---\n# Observation\n- Chose serde for CSV parsing.\n")
    write(ws / "knowledge" / "deep" / "zephyr.md", "# Zephyr\nZephyr is the billing service, written in Rust.\n")
    r = svc.refresh()
    assert sorted(r.added) == ["MEMORY.md", "knowledge/deep/zephyr.md", "observations/s1.md"]
    assert (r.chunks, r.embedded) == (4, 4)
    texts = {h.text for h in svc.search("guidance never indexed", 10)}
    assert not any("guidance" in t for t in texts)

    again = svc.refresh()  # nothing changed: stat only
    assert not again.changed and again.embedded == 0 and again.chunks == 4

    write(ws / "MEMORY.md", "# Memory\n## Pets\n- Biscuit is a beagle.\n- Biscuit eats at 7pm now.\n")
    r = svc.refresh()
    assert r.updated == ["MEMORY.md"] and (r.embedded, r.cached) == (1, 1)
    assert svc.search("when does Biscuit eat?", 1)[0].text == "Biscuit eats at 7pm now."
    assert "Biscuit eats at 6pm." not in {h.text for h in svc.search("Biscuit dinner", 10)}

    (ws / "knowledge" / "deep" / "zephyr.md").unlink()
    r = svc.refresh()
    assert r.removed == ["knowledge/deep/zephyr.md"] and r.chunks == 3
    assert all(h.source != "knowledge/deep/zephyr.md" for h in svc.search("billing service Rust", 10))

    touched = svc.refresh(full=True)  # re-chunks everything, embeds nothing
    assert touched.embedded == 0 and touched.cached == 3 and touched.chunks == 3


def test_binary_skipped_and_non_utf8_indexed_with_warning(svc):
    ws = svc.workspace
    write(ws / "MEMORY.md", "- Ana likes jasmine tea.\n")
    (ws / "knowledge").mkdir(exist_ok=True)
    (ws / "knowledge" / "latin1.md").write_bytes("caf\xe9 notes".encode("latin-1"))
    (ws / "knowledge" / "blob.md").write_bytes(b"\x00\x01\x02binary")
    r = svc.refresh()
    assert r.chunks == 2 and len(r.warnings) == 2  # the Latin-1 file is indexed (U+FFFD), binary skipped
    assert any("latin1.md is not valid UTF-8" in w and "re-save" in w for w in r.warnings)
    assert any("blob.md: binary" in w for w in r.warnings)
    assert svc.search("tea", 1)[0].text == "Ana likes jasmine tea."
    assert not svc.refresh().warnings  # reported once, not every turn


def test_memory_add_appends_under_heading_and_indexes(svc):
    write(svc.workspace / "MEMORY.md", "# Memory\n## Family\n- Wife: Ana\n\n## Work\n- Deploy on Tuesdays\n")
    path, line, new = svc.add("Ana likes   jasmine tea", heading="Family")
    assert path.name == "MEMORY.md" and line == 4 and new
    assert path.read_text().splitlines()[3] == "- Ana likes jasmine tea"
    hit = svc.search("what tea does Ana like", 1)[0]
    assert (hit.text, hit.where) == ("Ana likes jasmine tea", "MEMORY.md:4")
    obs, _, _ = svc.add("Tried the espresso machine", kind="observation")
    assert obs.parent.name == "observations"
    assert svc.search("espresso", 1)[0].source == f"observations/{obs.name}"


def test_the_same_fact_kept_again_is_not_added_twice(svc):
    write(svc.workspace / "MEMORY.md", "# Memory\n## Pets\n- My cat is called Miso\n")
    before = (svc.workspace / "MEMORY.md").read_text()
    path, line, new = svc.add("my cat is  called Miso", heading="Other")
    assert (line, new) == (3, False) and path.read_text() == before
    assert svc.add("My cat is called Miso and she is 3", heading=None).new  # more said: kept
    assert path.read_text().count("Miso") == 2
    first = svc.add("Miso likes the balcony", kind="observation")  # today's observations: the same
    again = svc.add("miso likes the  balcony", kind="observation")
    assert first.new and not again.new and again.line == first.line
    assert first.path.read_text().count("balcony") == 1


def test_a_fact_told_back_in_other_words_is_not_kept_twice_and_a_changed_one_is(svc):
    """A recall answered with memory_add ("Remember the code for my bike lock? Tell me.") restates a kept
    fact: it is held where it is. A new number, or the same number for something else, is a new fact."""
    write(svc.workspace / "MEMORY.md", "# Memory\n- The code of my bike lock is 6083\n")
    again = svc.add("My bike lock code is 6083.")
    assert (again.line, again.new) == (2, False)
    assert svc.add("My bike lock code is now 6084.").new
    assert svc.add("My PIN is 6083").new
    assert (svc.workspace / "MEMORY.md").read_text().count("6083") == 2


def test_insert_bullet_new_heading_and_plain_end():
    assert insert_bullet("# Memory\n", "x", "Health") == ("# Memory\n\n## Health\n- x\n", 4)
    assert insert_bullet("", "x", None) == ("- x\n", 1)


class _NoEmbedder:
    """Stands in for the model to prove it is never needed."""

    path = Path("unused")
    name = "unused"

    def start(self):
        raise AssertionError("the embedder was started")

    def embed(self, texts):
        raise AssertionError("the embedder was used")


def test_empty_memory_never_loads_the_embedder(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    service = MemoryService(settings, embedder=_NoEmbedder())
    assert not service.has_content()  # the MEMORY.md template is all guidance
    service.start_background()
    assert service.search("anything at all") == []


def transcript(sessions: Path, sid: str, said: list[str]) -> Path:
    """A session transcript as the chat writes it: the session record, then user and assistant turns."""
    recs = [{"ts": "2026-03-01T10:00:00", "role": "session", "meta": {"id": sid}}]
    recs += [{"ts": f"2026-03-01T10:{i // 60:02d}:{i % 60:02d}", "role": ("user", "assistant")[i % 2],
              "content": text} for i, text in enumerate(said, start=1)]
    path = sessions / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_a_torn_transcript_tail_keeps_its_intact_lines(svc):
    """A power cut leaves NUL bytes (or a cut line) where the last appends were: the lines before are
    indexed, and so is a whole record appended after the NULs."""
    p = transcript(svc.sessions, "20260301-100000-aaaa", ["The boiler code is 4711.", "Noted."])
    with open(p, "ab") as f:
        f.write(b'{"ts": "2026-03-01T10:05:00", "role": "user", "content": "the cut li' + b"\x00" * 4096)
        f.write(b'{"ts": "2026-03-01T10:09:00", "role": "user", "content": "Biscuit naps at noon."}\n')
    r = svc.refresh()
    assert "sessions/20260301-100000-aaaa.jsonl" in r.added and not r.warnings and r.chunks == 3
    assert "4711" in svc.search("what is the boiler code", 1)[0].text
    assert "noon" in svc.search("when does Biscuit nap", 1)[0].text


def test_an_interrupted_index_keeps_its_batches_and_goes_on_from_there(svc, monkeypatch):
    monkeypatch.setattr(indexer, "BATCH_CHUNKS", 10, raising=False)
    for n in range(6):
        transcript(svc.sessions, f"2026030{n}-100000-abcd", [f"In week {n} fact {i} was new" for i in range(10)])
    calls: list[int] = []

    def cut(texts):
        calls.append(len(texts))
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C (or a kill) during the third batch
        return svc.embedder.embed(texts)

    with pytest.raises(KeyboardInterrupt):
        indexer.index_workspace(svc.workspace, svc.store, cut, svc.sessions)
    assert svc.store.count() == 20 and len([s for s in svc.store.sources() if s.startswith("sessions/")]) == 2
    r = svc.refresh()
    assert (len(r.added), r.embedded, r.cached, r.chunks) == (4, 40, 0, 60)


def test_a_search_does_not_wait_behind_a_big_index_and_the_chat_says_how_far_it_is(svc, monkeypatch):
    from nanobot.memory.feature import MemoryFeature

    monkeypatch.setattr(indexer, "BATCH_CHUNKS", 1, raising=False)
    for n in range(25):
        transcript(svc.sessions, f"202603{n + 1:02d}-100000-abcd", [f"The code word of day {n} is zebra{n}."])
    gate, holding, batches = threading.Event(), threading.Event(), []
    real = svc.embedder.embed

    def held(texts):  # the index stops after three texts; the search's own query goes through
        if threading.current_thread().name == "indexing":
            batches.append(len(texts))
            if sum(batches) > 3:
                holding.set()
                gate.wait(60)
        return real(texts)

    monkeypatch.setattr(svc.embedder, "embed", held)
    indexing = threading.Thread(target=svc.refresh, name="indexing")
    indexing.start()
    try:
        assert holding.wait(60)
        found: list = []
        searching = threading.Thread(target=lambda: found.extend(svc.search("the code word of day 1", 3)))
        searching.start()
        searching.join(10)
        assert not searching.is_alive(), "the search waited for the whole index"
        assert any("zebra1." in h.text for h in found)
        indexed, total = svc.searchable()
        assert (indexed, total) == (4, 26)  # MEMORY.md and three transcripts so far
        (line,) = MemoryFeature(svc, None)._backlog()
        assert line.text.startswith("memory: 4 of 26 files") and "in the background" in line.text
    finally:
        gate.set()
        indexing.join(60)
    assert svc.store.count() == 25 and MemoryFeature(svc, None)._backlog() == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread is Linux's")
def test_the_background_index_runs_below_the_chat(svc, monkeypatch):
    """The chat's model goes first: a big import indexed behind a chat slowed its first reply 2x."""
    write(svc.workspace / "MEMORY.md", "- Biscuit is a beagle.\n")
    seen: list[int] = []
    monkeypatch.setattr(svc, "refresh", lambda *a, **k: seen.append(
        os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    svc.start_background()
    svc._thread.join(10)
    assert seen == [max(10, before)]  # below the chat (a process already lower stays as low)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before  # this thread: unchanged
