"""A change that quotes a file's text is made with the file in view (``nanobot.tools.seefirst``): a call
whose text to replace is not in a file the context has not shown reads the file first and is made again."""

from __future__ import annotations

import pytest

from nanobot.backends.base import Message
from nanobot.config import load_settings
from nanobot.core.events import ToolCall, ToolResult
from nanobot.tools.files import EditFile, ReadFile
from nanobot.tools.seefirst import unseen_file
from tests.qwen import SKIP_REASON, qwen_path
from tests.test_templatecalls import ToolTemplateModel, body, make_agent

QWEN = qwen_path()

DEPLOY = "service: quokka-api\nreplicas: 2\nregion: eu-north-1\n"
ASK = "In deploy.yaml change the number of replicas from two to four."
EDIT_TOOLS = ["read_file", "write_file", "edit_file"]


def _agent(home, model):
    agent = make_agent(home, model, enabled=EDIT_TOOLS)
    (agent.workspace / "deploy.yaml").write_text(DEPLOY)
    return agent


def test_only_a_text_to_replace_that_is_not_in_an_unshown_file_asks_for_the_file_first(home):
    agent = _agent(home, ToolTemplateModel([], []))
    blind = EditFile.Args(path="deploy.yaml", old="two", new="four")
    user = [Message(role="user", content=ASK)]
    assert unseen_file(EditFile(), blind, user, agent) == "deploy.yaml"
    assert unseen_file(EditFile(), blind.model_copy(update={"old": "replicas: 2"}), user, agent) == ""
    assert unseen_file(EditFile(), blind.model_copy(update={"old": "replicas:   2"}), user, agent) == ""  # whitespace
    shown = user + [Message(role="tool", content=f"deploy.yaml lines 1-3 of 3\n{DEPLOY}")]
    assert unseen_file(EditFile(), blind, shown, agent) == ""  # the tool's own error, with the text, then
    assert unseen_file(EditFile(), blind.model_copy(update={"path": "nowhere.yaml"}), user, agent) == ""
    assert unseen_file(ReadFile(), ReadFile.Args(path="deploy.yaml"), user, agent) == ""  # replaces nothing


def test_a_blind_edit_reads_the_file_then_is_made_again_without_the_blind_call_in_view(home):
    model = ToolTemplateModel([body("edit_file", {"path": "deploy.yaml", "old": "two", "new": "four"}),
                               body("edit_file", {"path": "deploy.yaml", "old": "replicas: 2", "new": "replicas: 4"}),
                               "Done: four replicas."], [0.9, 0.1, 0.1, 0.1])
    agent = _agent(home, model)
    events = list(agent.turn(ASK))
    calls = [(e.name, e.arguments) for e in events if isinstance(e, ToolCall)]
    assert calls == [("read_file", {"path": "deploy.yaml", "start": 1, "lines": 100}),
                     ("edit_file", {"path": "deploy.yaml", "old": "replicas: 2", "new": "replicas: 4"})]
    assert [r.ok for r in events if isinstance(r, ToolResult)] == [True, True], [r.text for r in events if isinstance(r, ToolResult)]
    assert "replicas: 4" in (agent.workspace / "deploy.yaml").read_text()
    again = "\n".join(m.content for m in model.calls[1]["messages"])
    assert '"old": "two"' not in again and "replicas: 2\nregion" in again  # the file in view, not the guess


def test_an_edit_whose_text_is_in_the_file_runs_as_made(home):
    model = ToolTemplateModel([body("edit_file", {"path": "deploy.yaml", "old": "replicas: 2", "new": "replicas: 4"}),
                               "Done."], [0.9, 0.1])
    agent = _agent(home, model)
    events = list(agent.turn(ASK))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"]
    assert "replicas: 4" in (agent.workspace / "deploy.yaml").read_text()


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_the_assistant_never_edits_a_file_it_has_not_seen_with_text_the_file_lacks(home):
    """The 1.5B in its own call format, made to edit a typo it cannot know without the file: whatever
    ``old`` it writes, an edit of notice.txt whose ``old`` the file lacks runs only after a read of it."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model
    from nanobot.tools.templatecalls import TemplateCalls

    agent = _agent(home, LlamaBackend(resolve_model(load_settings(home), str(QWEN))))
    notice = "Dear neighbours,\nthe laundry room is closed on Thrusday for repairs.\nThe caretaker\n"
    (agent.workspace / "notice.txt").write_text(notice)
    step = TemplateCalls(agent.tool_runner)
    msgs = step.messages([Message(role="system", content="You edit the user's files."),
                          Message(role="user", content="I misspelled a weekday in notice.txt, please fix it.")])
    calls = [e for e in step.call(agent, msgs, set(), only="edit_file") if isinstance(e, ToolCall)]
    assert any(c.arguments.get("path") == "notice.txt" for c in calls), calls
    for i, c in enumerate(calls):
        if c.name == "edit_file" and c.arguments["old"] not in notice:
            assert any(e.name == "read_file" and e.arguments["path"] == "notice.txt" for e in calls[:i]), calls
