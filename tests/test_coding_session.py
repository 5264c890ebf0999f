"""Coding sessions on real repositories (both backends; jj skipped where absent), with a scripted model
for the loop: start -> edits -> description updated -> continue -> the parent's description in the new
context -> resume restores the transcript; the tools; context pressure; and each edge case."""

from __future__ import annotations

import json
import shutil

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.coding import store
from nanobot.coding.describe import LISTS, draft_grammar, parse
from nanobot.coding.feature import CodingFeature
from nanobot.coding.query import query
from nanobot.coding.session import CodingSession
from nanobot.coding.vcs import CodingError
from nanobot.config import load_settings
from nanobot.core.events import Notice
from nanobot.runtime import build_agent
from tests.codingrepo import BACKENDS, Repo, isolate

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

DRAFT = {"done": ["wrote the parser"], "decisions": ["use the csv module"], "left": ["docs"],
         "questions": ["quote style?"]}


class Coder(ScriptedModel):
    """'ok' to turns; a description draft when asked under a grammar (or ``bad`` text)."""

    def __init__(self, n_ctx: int = 4096, draft: str | None = None):
        super().__init__([], n_ctx=n_ctx)
        self.draft = json.dumps(DRAFT) if draft is None else draft
        self.drafts = 0

    def stream(self, messages, *, grammar=None, **kw):
        asked = grammar == draft_grammar()  # the description rewrite (not the tool decision)
        self.replies = [self.draft if asked else "ok noted"]
        self.drafts += asked
        return super().stream(messages, grammar=grammar, **kw)


@pytest.fixture(params=BACKENDS)
def repo(request, tmp_path, monkeypatch, home) -> Repo:
    isolate(monkeypatch, tmp_path)
    return Repo.make(request.param, tmp_path / "repo")


@pytest.fixture
def git_repo(tmp_path, monkeypatch, home) -> Repo:
    isolate(monkeypatch, tmp_path)
    return Repo.make("git", tmp_path / "repo")


def settings_for(session_root: str = "", **kw):
    s = load_settings(memory={"enabled": False}, observer={"enabled": False},
                      kv_cache={"enabled": False}, chat={"max_tokens": 64, "temperature": 0}, **kw)
    s.coding.session = session_root
    return s


def agent_for(session: CodingSession, model=None, **kw):
    agent = build_agent(settings_for(session.root, **kw), model or Coder())
    agent.start_session()
    return agent


def say(agent, text: str) -> list:
    return list(agent.turn(text))


def test_start_edit_describe_continue_resume(repo):
    s = CodingSession.start(settings_for(), repo.path, "Add CSV export")
    assert parse(s.description()).session == s.root and parse(s.description()).task == "Add CSV export"
    agent = agent_for(s)
    coding = agent.feature(CodingFeature)
    assert {"new_change", "describe_change", "query_ancestor"} <= set(agent.tool_names())
    repo.write("export.py", "def export(rows):\n    return rows\n")
    say(agent, "write the exporter")
    agent.stop_prefill()  # what the next turn does first: the background rewrite has finished
    desc = parse(s.description())
    assert coding.rewriter.rewrites == 1 and desc.done == DRAFT["done"] and desc.questions == DRAFT["questions"]
    assert desc.task == "Add CSV export" and desc.session == s.root
    agent.end_session("quit")

    # continue: a checkpoint; the new context carries the parent's description as the hand-off
    s2 = CodingSession.latest(settings_for(), repo.path)
    s2.require_resumable()
    parent = s2.current
    new = s2.checkpoint(reason="continue")
    assert s2.meta.changes == [s.root, new] and s2.vcs.parent(new) == parent
    assert "+def export(rows):" in s2.vcs.diff(parent)  # the edits were folded into the parent
    agent2 = agent_for(s2)
    prompt = agent2.system_prompt().text
    assert "Parent change (hand-off)" in prompt and "- wrote the parser" in prompt
    assert agent2.history == []  # a fresh context
    say(agent2, "now the docs")
    agent2.end_session("quit")

    # resume: that change's exchanges come back as history
    s3 = CodingSession.open(settings_for(), s.root[:10])
    s3.require_resumable()
    agent3 = build_agent(settings_for(s3.root), Coder())
    notices = agent3.start_session()
    assert [m.content for m in agent3.history] == ["now the docs", "ok noted"]
    assert any("resumed: 1 exchange(s)" in n.text for n in notices if isinstance(n, Notice))
    recs = store.records(settings_for().sessions_dir, s.root)  # one transcript across checkpoints
    assert [r.content for r in recs if r.role == "user"] == ["write the exporter", "now the docs"]
    assert {r.meta["change"] for r in recs if r.role == "user"} == {s.root, new}


def test_every_checkpoint_carries_the_session_tag_and_list_show_it(repo):
    s = CodingSession.start(settings_for(), repo.path, "task one")
    s.checkpoint()
    s.checkpoint("explicit description")
    for change in s.meta.changes:
        assert f"[session: {s.root}]" in s.vcs.description(change)
    metas = store.list_sessions(settings_for().sessions_dir)
    assert [m.root for m in metas] == [s.root] and len(metas[0].changes) == 3


def test_plain_chat_has_no_coding_feature(git_repo):
    agent = build_agent(settings_for(""), Coder())
    assert agent.feature(CodingFeature) is None
    assert "new_change" not in agent.tool_names()


def test_failed_rewrite_keeps_the_last_good_description(repo):
    s = CodingSession.start(settings_for(), repo.path, "task")
    agent = agent_for(s)
    say(agent, "first")
    agent.stop_prefill()
    good = s.description()
    assert parse(good).done == DRAFT["done"]
    agent.model.draft = "this is not json at all"
    say(agent, "second")
    agent.stop_prefill()
    assert s.description() == good
    events = say(agent, "third")
    assert any("description rewrite failed" in e.text for e in events if isinstance(e, Notice))


def test_rewrite_runs_in_the_background_after_the_reply(repo):
    s = CodingSession.start(settings_for(), repo.path, "task")
    agent = agent_for(s)
    coding = agent.feature(CodingFeature)
    import threading
    gate = threading.Event()
    model = agent.model
    real = model.stream

    def slow(messages, *, grammar=None, **kw):
        if grammar == draft_grammar():
            gate.wait(10)
        return real(messages, grammar=grammar, **kw)
    model.stream = slow
    say(agent, "hello")  # returns while the rewrite waits on the gate
    assert coding.rewriter.rewrites == 0 and coding.rewriter._thread.is_alive()
    gate.set()
    agent.stop_prefill()
    assert coding.rewriter.rewrites == 1


def test_tools_new_change_describe_change_query_ancestor(repo):
    from nanobot.tools.base import ToolContext

    agent = agent_for(CodingSession.start(settings_for(), repo.path, "task"))
    s = agent.feature(CodingFeature).session  # the session as the agent holds it
    say(agent, "find the bug in parse")
    agent.stop_prefill()
    tools = {t.name: t for t in agent.feature(CodingFeature).tools(agent.settings)}
    ctx = ToolContext.for_agent(agent)
    run = lambda name, **a: tools[name].run(tools[name].Args(**a), ctx)  # noqa: E731
    assert "updated" in run("describe_change", description="Fix the parser\n\nDone:\n- found it")
    assert parse(s.description()).task == "Fix the parser"
    repo.write("parse.py", "x = 1\n")
    first = s.current
    assert "new change" in run("new_change", description="Write the tests")
    assert s.vcs.parent(s.current) == first and parse(s.description()).task == "Write the tests"
    out = run("query_ancestor", change_id="@-", include=["description", "diff", "transcript"],
              transcript_filter={"search": "BUG"})
    assert "Fix the parser" in out and "+x = 1" in out and "user: find the bug in parse" in out
    assert "ok noted" not in out  # filtered by search
    out = run("query_ancestor", change_id=first[:8], include=["transcript"], transcript_filter={"range": "-1:"})
    assert "assistant: ok noted" in out and "user:" not in out


def test_context_pressure_checkpoints_instead_of_dropping_turns(repo):
    agent = agent_for(CodingSession.start(settings_for(), repo.path, "task"), Coder(n_ctx=1400))
    s = agent.feature(CodingFeature).session
    say(agent, "w " * 500)
    agent.stop_prefill()
    first = s.current
    assert agent.model.prompt_tokens(agent.messages_for("w " * 500)) > 0.8 * 1400  # crosses 80%
    events = say(agent, "w " * 500)
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert any("checkpoint, new change" in t for t in texts), texts
    assert not any("history trimmed" in t for t in texts)
    assert s.current != first and s.vcs.parent(s.current) == first
    assert len(agent.history) == 2  # fresh context: just this turn
    assert "Parent change (hand-off)" in agent.system_prompt().text


# -- edge cases ----------------------------------------------------------------------------------
def test_squashed_into_parent_session_stays_valid(repo):
    s = CodingSession.start(settings_for(), repo.path, "task")
    repo.write("a.py", "a\n")
    child = s.checkpoint()
    repo.squash_head_into_parent()
    meta = CodingSession.open(settings_for(), s.root).check()
    assert meta.status == "active" and meta.current == s.root
    assert f"{child[:12]} was squashed into its parent" in meta.reason
    CodingSession.open(settings_for(), s.root).require_resumable()  # still resumable


def test_abandoned_session_is_not_resumable_and_list_says_why(repo, cli):
    s = CodingSession.start(settings_for(), repo.path, "doomed task")
    s.checkpoint()
    repo.abandon_session(s.root, 2)
    again = CodingSession.open(settings_for(), s.root)
    with pytest.raises(CodingError, match="cannot be resumed: root change .* is gone"):
        again.require_resumable()
    out = cli("session", "list")
    assert out.returncode == 0 and "broken (root change" in out.stdout and "doomed task" in out.stdout
    res = cli("session", "resume", s.root[:10])
    assert res.returncode == 2 and res.stderr.startswith("Error: session") and "Traceback" not in res.stderr


def test_rebased_onto_unrelated_parent_query_reports_the_break(repo):
    s = CodingSession.start(settings_for(), repo.path, "task")
    s.checkpoint()
    repo.rebase_head_onto_unrelated(s.current)
    s = CodingSession.open(settings_for(), s.root)
    with pytest.raises(CodingError, match="is not an ancestor of the current change .*rebased onto an unrelated parent"):
        query(s, s.root, ["description"])
    parent, note = s.handoff()
    assert parent is None and "rebased onto an unrelated parent" in note


def test_dirty_working_tree_at_start(git_repo):
    git_repo.write("base0.txt", "edited\n")
    git_repo.write("new.txt", "untracked\n")
    with pytest.raises(CodingError, match=r"uncommitted changes \(.*and 1 more\); commit or stash"):
        CodingSession.start(settings_for(), git_repo.path, "task")
    s = CodingSession.start(settings_for(), git_repo.path, "task", allow_dirty=True)
    s.checkpoint()
    assert "new.txt" in s.vcs.diff(s.root, stat=True)  # folded into the session's first change


def test_detached_head(git_repo):
    git_repo.run("checkout", "-q", "--detach")
    with pytest.raises(CodingError, match="HEAD is detached .*git switch -c NAME"):
        CodingSession.start(settings_for(), git_repo.path, "task")


def test_repository_with_no_commits_yet(tmp_path, monkeypatch, home):
    isolate(monkeypatch, tmp_path)
    repo = Repo.make("git", tmp_path / "empty", commits=0)
    s = CodingSession.start(settings_for(), repo.path, "first ever task")
    assert s.vcs.parent(s.root) is None and s.handoff()[0] is None
    repo.write("x.txt", "x\n")
    assert "x.txt" in s.vcs.diff(s.root, stat=True)
    new = s.checkpoint()
    assert s.vcs.parent(new) == s.root


def test_not_a_repository_is_one_line(tmp_path, cli):
    res = cli("session", "start", "task", "--path", str(tmp_path))
    assert res.returncode == 2 and "not a git or jj repository; start one with `git init`" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_lists_are_always_there(repo):
    s = CodingSession.start(settings_for(), repo.path, "task")
    text = s.description()
    assert [line for line in text.splitlines() if line.endswith(":")] == [f"{v}:" for v in LISTS.values()]


# -- conformance (issue 25) ----------------------------------------------------------------------
def test_resume_accepts_any_change_id_of_the_session(repo, cli):
    s = CodingSession.start(settings_for(), repo.path, "Add CSV export")
    first = s.checkpoint()
    s.checkpoint()
    for named in (s.root, first, s.current):  # the first change, a checkpoint, the current change
        opened = CodingSession.open(settings_for(), named[:14])
        assert opened.root == s.root and store.change_named(opened.meta, named[:14]) == named
    other = CodingSession.start(settings_for(), repo.path, "another session", allow_dirty=True)
    assert CodingSession.open(settings_for(), other.current[:14]).root == other.root
    res = cli("session", "show", first[:14])  # the CLI takes a checkpoint's id too
    assert res.returncode == 0 and f"session {s.root}" in res.stdout


def test_an_id_that_is_not_a_session_change_says_so_in_one_line(git_repo, cli):
    s = CodingSession.start(settings_for(), git_repo.path, "task")
    git_repo.commit("a plain commit, no session")
    for bad in ("Ideadbeef", git_repo.run("rev-parse", "HEAD").strip()[:12]):
        res = cli("session", "resume", bad)
        assert res.returncode == 2 and "Traceback" not in res.stderr
        assert res.stderr.strip() == (f"Error: {bad!r} is not a change of any coding session (neither a "
                                      "session's first change nor one of its checkpoints); `nanobot session "
                                      "list` shows the ids")
    assert s.root


def test_prompt_always_carries_the_description_the_hand_off_and_the_diff(repo):
    s = CodingSession.start(settings_for(), repo.path, "Add CSV export")
    repo.write("export.py", "def export(rows):\n    return rows\n")
    prompt = agent_for(s).system_prompt().text
    assert "Current change description:\nAdd CSV export" in prompt
    assert "Parent change (hand-off):\n(first change of this session" in prompt  # the root's hand-off
    assert "Diff of the current change:" in prompt and "export.py" in prompt and "+def export(rows):" in prompt
    # a checkpoint: the new change has no edits yet, so the parent's diff stat comes with the hand-off
    s.describe("Add CSV export\n\nDone:\n- wrote export.py")
    s.checkpoint()
    prompt = agent_for(s).system_prompt().text
    assert "Parent change (hand-off)" in prompt and "- wrote export.py" in prompt
    assert "Diff of the current change: (no changes yet)" in prompt and "export.py |" in prompt
    # a description far over the budget cannot push the diff out of the section
    repo.write("more.py", "x = 1\n")
    s.describe("Write the tests\n\n" + "\n".join(f"- note {i} " + "word " * 30 for i in range(60)))
    prompt = agent_for(s).system_prompt().text
    assert "(description cut; query_ancestor shows it all)" in prompt
    assert "Parent change (hand-off)" in prompt and "Diff of the current change:" in prompt and "more.py" in prompt


class Steps(Coder):
    """Turn i's draft: done 'finished step i: ...' (and a decision every fifth turn), left 'step i+1'."""

    def stream(self, messages, *, grammar=None, **kw):
        if grammar == draft_grammar():
            i = self.drafts
            self.draft = json.dumps({"done": [f"finished step {i}: wrote the handler and its tests for the parser"],
                                     "decisions": [f"option {i} chosen because it keeps the code simpler"]
                                     if i % 5 == 0 else [],
                                     "left": [f"step {i + 1}"], "questions": []})
        return super().stream(messages, grammar=grammar, **kw)


def test_thirty_turn_session_keeps_every_item_within_the_description_budget(git_repo):
    from nanobot.coding.describe import unmerge

    s = CodingSession.start(settings_for(), git_repo.path, "Long task")
    agent = agent_for(s, Steps(), coding={"description": 240, "context": 1000})
    for i in range(30):
        git_repo.write(f"f{i}.py", f"x = {i}\n")
        say(agent, f"do step {i}")
        agent.stop_prefill()
    text = s.description()
    desc = parse(text)
    done, decisions = unmerge(desc.done), unmerge(desc.decisions)
    # none dropped, in order: the oldest merged into one line (cut to their first words), the newest whole
    assert len(done) == 30 and all(d.startswith(f"finished step {i}:") for i, d in enumerate(done))
    assert desc.done[0].startswith("Earlier: finished step 0: wrote the…; finished step 1: wrote the…;")
    assert desc.done[-1] == "finished step 29: wrote the handler and its tests for the parser"
    assert len(decisions) == 6 and all(d.startswith(f"option {i}") for i, d in zip(range(0, 30, 5), decisions))
    assert desc.left == ["step 30"]  # the current state, not accumulated
    assert agent.model.count_tokens(text.split("\n\n[session:")[0]) <= 240
    s.checkpoint()  # and the hand-off carries them all
    prompt = agent_for(s, coding={"context": 1000}).system_prompt().text
    assert all(f"finished step {i}:" in prompt for i in range(30))


def test_each_turn_shows_the_change_id_and_vcs_status(repo):
    s = CodingSession.start(settings_for(), repo.path, "task")
    agent = agent_for(s)
    status = [e.text for e in say(agent, "hello") if isinstance(e, Notice) and e.text.startswith("[change ")]
    assert status == [f"[change {s.current[:12]} ({repo.kind}) · no changes yet]"]
    repo.write("a.py", "a = 1\nb = 2\n")
    agent.stop_prefill()
    events = say(agent, "again")
    status = [e.text for e in events if isinstance(e, Notice) and e.text.startswith("[change ")]
    assert status == [f"[change {s.current[:12]} ({repo.kind}) · 1 file changed, 2 insertions(+)]"]
    assert events.index(next(e for e in events if isinstance(e, Notice) and e.text == status[0])) < \
        events.index(next(e for e in events if not isinstance(e, Notice)))  # before the reply
