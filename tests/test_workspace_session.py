import json
from datetime import UTC

from nanobot.base.atomic import append_line, atomic_write
from nanobot.core.transcript import Transcript, read_transcript
from nanobot.workspace import init_workspace, visible_text


def test_init_creates_template_and_never_overwrites(tmp_path):
    ws = tmp_path / "ws"
    created = init_workspace(ws)
    for name in ("SOUL.md", "USER.md", "CONTEXT.md", "MEMORY.md"):
        assert (ws / name).is_file()
    for d in ("observations", "knowledge", "skills"):
        assert (ws / d).is_dir()
    assert created
    (ws / "USER.md").write_text("# User\n- Name: Ada\n")
    (ws / "SOUL.md").unlink()
    again = init_workspace(ws)
    assert (ws / "USER.md").read_text() == "# User\n- Name: Ada\n"
    assert again == [ws / "SOUL.md"]


def test_visible_text_drops_comments_empty_fields_and_bare_headings():
    assert visible_text("# A\n<!-- guide -->\n## B\n- x:\n") == ""
    assert visible_text("# A\n## B\n- x: 1\n## C\n") == "# A\n## B\n- x: 1"


def test_transcript_survives_a_torn_line(tmp_path):
    from datetime import datetime
    t = Transcript.create(tmp_path, datetime(2026, 1, 1, tzinfo=UTC), model="m")
    t.append("user", "hello")
    with open(t.path, "ab") as f:  # a crash mid-write leaves half a line
        f.write(b'{"ts": "2026-01-01T00:00:00Z", "role": "assis')
    t.append("user", "still here")  # the next append starts on a fresh line
    records, warnings = read_transcript(t.path)
    assert [r.content for r in records if r.role == "user"] == ["hello", "still here"]
    assert len(warnings) == 1 and ":3:" in warnings[0] and "skipped" in warnings[0]


def test_atomic_write_replaces_whole_file(tmp_path):
    p = tmp_path / "f.md"
    atomic_write(p, "one")
    atomic_write(p, "two")
    assert p.read_text() == "two"
    assert [x.name for x in tmp_path.iterdir()] == ["f.md"]  # no temp files left
    append_line(tmp_path / "log.jsonl", json.dumps({"a": 1}))
    assert (tmp_path / "log.jsonl").read_text() == '{"a": 1}\n'
