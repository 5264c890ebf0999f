"""Session start: external changes reach CONTEXT.md and the Time section, a due reflection runs in
the background, a stale CONTEXT.md is refreshed -- all without the model."""

import os
import subprocess
from datetime import datetime, timedelta

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.observer.contextmd import load_context
from nanobot.observer.feature import attach_observer
from nanobot.observer.observation import Observation, ObservationDraft, ObservationPart
from nanobot.workspace import init_workspace

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.org", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@e.org"}


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, **ENV})


def agent_for(home, **observer):
    settings = load_settings(observer=observer)
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["ok"] * 4))
    hook = attach_observer(agent)
    return agent, hook


def test_external_changes_in_context_md_and_time_section(home, tmp_path):
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "main.rs").write_text("fn main() {}")
    git(repo, "add", "main.rs")
    git(repo, "commit", "-q", "-m", "start")
    agent, hook = agent_for(home, project_dirs=[str(repo)], reflect_on_start=False)
    agent.start_session()
    list(agent.turn("hello"))
    agent.end_session("quit")
    old = (datetime.now() - timedelta(hours=1)).timestamp()
    for f in agent.workspace.rglob("*"):
        os.utime(f, (old, old))  # everything before this point is "last session"
    os.utime(agent.transcript.path, (old, old))
    (repo / "main.rs").write_text("fn main() { println!(); }")
    (repo / "notes.txt").write_text("todo")
    (agent.workspace / "USER.md").write_text("# User\n- Name: Ada\n")
    later = (datetime.now() + timedelta(seconds=2)).timestamp()  # the file system's clock is coarse: a
    for f in (repo / "main.rs", repo / "notes.txt", agent.workspace / "USER.md"):  # write just after the
        os.utime(f, (later, later))  # session's end can be stamped a tick before it
    agent2, hook2 = agent_for(home, project_dirs=[str(repo)], reflect_on_start=False)
    agent2.start_session()
    text = agent2.system_prompt().text
    hook2._external.join(5)
    doc = load_context(agent2.workspace / "CONTEXT.md")
    (proj,) = [x for x in doc.external if x.startswith(str(repo))]
    head, _, files = proj.partition(" (")
    assert head == (f"{repo}: git: 1 modified, 1 untracked; 1 commit in the last 12 h; "
                    "2 file(s) changed since the last session")
    assert sorted(files.rstrip(")").split(", ")) == ["main.rs", "notes.txt"]
    ws = [x for x in doc.external if x.startswith("workspace")]
    assert ws and "USER.md" in ws[0] and "CONTEXT.md" not in ws[0]  # nanobot's own writes skipped
    assert "Changed outside: " in text and "1 untracked" in text
    assert "## External" not in text  # volatile: in the Time section, not the cached CONTEXT prefix


def test_due_reflection_runs_in_the_background_at_start(home):
    agent, hook = agent_for(home, reflect_on_start=True)
    sid = "20260301-100000-abcd"
    fact = "Ada's favourite language is Rust"
    part = ObservationPart.of(ObservationDraft(summary="s", facts=[fact], evidence={fact: fact}), "quit", 2)
    (agent.workspace / "observations" / f"{sid}.md").write_text(Observation(session=sid, parts=[part]).render())
    notices = agent.start_session()
    assert any("reflecting new observations" in n.text for n in notices)
    hook._reflect.join(120)
    assert not hook.last_error
    assert "- Ada's favourite language is Rust" in (agent.workspace / "MEMORY.md").read_text()
    agent.end_session("eof")
    agent3, hook3 = agent_for(home, reflect_on_start=True)
    assert not any("reflecting" in n.text for n in agent3.start_session())  # not due again


def test_stale_context_refreshed_at_start(home):
    agent, hook = agent_for(home, reflect_on_start=False)
    sid = "20260301-100000-abcd"
    part = ObservationPart.of(ObservationDraft(summary="s", focus="the parser", task="tests",
                                               decisions=["use serde"]), "quit", 2)
    (agent.workspace / "observations" / f"{sid}.md").write_text(Observation(session=sid, parts=[part]).render())
    ctx = agent.workspace / "CONTEXT.md"
    old = (datetime.now() - timedelta(days=3)).timestamp()
    os.utime(ctx, (old, old))
    notices = agent.start_session()
    assert any("CONTEXT.md was 72 h old" in n.text for n in notices)
    assert "- Focus: the parser" in agent.system_prompt().text


def test_changed_outside_line_is_kept_with_short_paths_when_time_is_tight(home, tmp_path, model):
    """Long paths in several project dirs: the Time section stays in budget, the "Changed outside"
    line survives (names instead of paths, counts, '+N more'), other Time lines give way first."""
    dirs = []
    for i in range(4):
        deep = tmp_path / ("a-rather-long-folder-name-for-a-project-" * 2 + str(i))
        sub = deep / "src" / "components" / "very" / "deeply" / "nested"
        sub.mkdir(parents=True)
        (sub / f"an_extremely_long_module_name_number_{i}.py").write_text("x = 1")
        git(deep, "init", "-q")
        dirs.append(str(deep))
    settings = load_settings(observer={"project_dirs": dirs, "reflect_on_start": False})
    init_workspace(settings.workspace)
    from nanobot.core.transcript import Transcript

    past = datetime.now().astimezone() - timedelta(hours=3)
    t = Transcript.create(settings.sessions_dir, past, model="x")
    t.append("user", "hi", now=past)  # a past session: a "We last talked" line competes for room
    agent = Agent(settings, model)
    hook = attach_observer(agent)
    agent.start_session()
    hook._external.join(30)
    agent.refresh_prompt()
    built = agent.system_prompt()
    time_ = next(s for s in built.sections if s.name == "time")
    assert time_.tokens <= settings.prompt.time and time_.trimmed_tokens == 0
    assert "\nChanged outside: " in time_.text
    assert "an_extremely_long_module_name" not in time_.text or str(tmp_path) not in time_.text
    # without the fitting, the same changes spelled out are far over the Time budget
    full = "; ".join(ch.line(label) for label, ch in hook._external_changes)
    assert model.count_tokens(full) > settings.prompt.time
