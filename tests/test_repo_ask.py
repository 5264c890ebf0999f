"""A question about the repository's state is looked up with git (issue 75): a message naming no file,
in a git work tree, that the model's repo and look classifiers are sure of, gets ``exec`` as its first
call whatever tool the model picked (the command is the model's), and no guessed read after it. Loop
logic with a scripted model whose classifiers are fixed; the 1.5B's side is bench/assistant_bench.py
--set cmd_check2 / cmd_check3."""

from __future__ import annotations

from nanobot.config import load_settings
from nanobot.core.events import Notice, ToolCall, ToolResult
from nanobot.loop.agent import Agent
from nanobot.tools.feature import attach_tools
from nanobot.workspace import init_workspace
from tests.test_repo_facts import make_repo
from tests.test_templatecalls import JudgingTemplateModel, body

ASK = "Heb ik nog wijzigingen die niet gecommit zijn?"


class RepoJudged(JudgingTemplateModel):
    """... whose repo classifier gives ``repo`` (its calibration answered right); ``asked``: the kinds judged."""

    def __init__(self, replies, probs, repo: float, look: float = 0.9):
        super().__init__(replies, probs, change=False, look=look)
        self.repo, self.asked = repo, []

    def yes_no_apart(self, messages, **kw):
        from nanobot.loop.judge import CALIBRATION, CLASSIFIERS

        kind = next((k for k, (system, _) in CLASSIFIERS.items() if system == messages[0].content), "")
        self.asked.append(kind)
        if kind == "repo" and messages[-1].content not in dict(CALIBRATION["repo"]):
            return self.repo, 1 - self.repo
        return super().yes_no_apart(messages, **kw)


def agent_in(home, folder, model, monkeypatch):
    settings = load_settings(home, tools={"roots": [str(folder)], "listing": "lean", "exec_allow": ["ls"],
                                          "enabled": ["read_file", "list_dir", "exec"]},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    monkeypatch.chdir(folder)
    agent = Agent(settings, model)
    attach_tools(agent)
    return agent


def calls(events):
    return [(e.name, e.arguments.get("command") or e.arguments.get("path")) for e in events if isinstance(e, ToolCall)]


def test_an_uncommitted_question_runs_git_not_a_guessed_read(home, tmp_path, monkeypatch):
    repo = make_repo(tmp_path)
    model = RepoJudged([body("exec", {"command": "git status"}), "Ja: lamp.py is gewijzigd, fog.txt is nieuw."],
                       [0.9] * 8, repo=0.9)
    events = list(agent_in(home, repo, model, monkeypatch).turn(ASK))
    assert calls(events) == [("exec", "git status")]  # no name pick (it could be a read); after git no other step
    assert events[-1].reply == "Ja: lamp.py is gewijzigd, fog.txt is nieuw."
    assert any("fog.txt" in m.content for m in model.calls[-1]["messages"])  # answered from git's output


def test_an_unsure_repo_judgement_keeps_the_models_pick(home, tmp_path, monkeypatch):
    repo = make_repo(tmp_path)
    model = RepoJudged(['list_dir"', body("list_dir", {"path": "."}), "lamp.py and fog.txt."], [0.9, 0.1, 0.1],
                       repo=0.6)
    events = list(agent_in(home, repo, model, monkeypatch).turn("What is in this folder?"))
    assert "repo" in model.asked and calls(events)[0] == ("list_dir", ".")


def test_no_repo_judgement_outside_a_repository_or_for_a_message_naming_a_file(home, tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    model = RepoJudged(["Nee."], [0.0] * 4, repo=0.9, look=0.2)
    list(agent_in(home, plain, model, monkeypatch).turn(ASK))
    assert "repo" not in model.asked
    repo = make_repo(tmp_path)
    model = RepoJudged(['read_file"', body("read_file", {"path": "lamp.py"}), "ON is 20."], [0.9, 0.1, 0.1], repo=0.9)
    events = list(agent_in(home / "b", repo, model, monkeypatch).turn("What is ON in lamp.py?"))
    assert "repo" not in model.asked and calls(events)[0] == ("read_file", "lamp.py")


def test_an_all_but_certain_repo_judgement_needs_only_a_look_that_is_not_a_sure_no(home, tmp_path, monkeypatch):
    """"¿Hay archivos sin seguimiento en el repositorio?": P(repo) 0.94 with P(look) 0.55 listed the folder
    and answered "No"; at P(repo) 0.8 the same look keeps the pick."""
    repo = make_repo(tmp_path)
    model = RepoJudged([body("exec", {"command": "git status"}), "Sí: fog.txt."], [0.9] * 8, repo=0.95, look=0.55)
    events = list(agent_in(home, repo, model, monkeypatch).turn("¿Hay archivos sin seguimiento en el repositorio?"))
    assert calls(events) == [("exec", "git status")]
    model = RepoJudged(['list_dir"', body("list_dir", {"path": "."}), "lamp.py, fog.txt."], [0.9, 0.1, 0.1],
                       repo=0.8, look=0.55)
    events = list(agent_in(home / "b", repo, model, monkeypatch).turn("¿Hay archivos sin seguimiento en el repositorio?"))
    assert calls(events)[0] == ("list_dir", ".")


def test_a_repo_question_the_model_would_not_call_for_still_looks_with_git(home, tmp_path, monkeypatch):
    """"Wat is het onderwerp van de laatste commit?": P(repo) 0.96 and P(look) 0.58 make it a question
    about the repository, but P(call) was under the look floor and the look classifier under its sure
    bound for a tool that runs, so no call was made and the reply named files instead of the subject.
    The repository question's own bar decides the first look."""
    repo = make_repo(tmp_path)
    model = RepoJudged([body("exec", {"command": "git log -1"}), "Light the lamp at seven."], [0.01] * 8,
                       repo=0.96, look=0.58)
    events = list(agent_in(home, repo, model, monkeypatch).turn("Wat is het onderwerp van de laatste commit?"))
    assert calls(events) == [("exec", "git log -1")]
    assert not [e for e in events if isinstance(e, Notice)]  # a step's call, not a reply's text run after it
    assert events[-1].reply == "Light the lamp at seven."


def test_a_git_command_refused_for_its_form_is_followed_by_git_status_for_a_repo_question(home, tmp_path, monkeypatch):
    """"Quali file ha toccato l'ultimo commit?": the model wrote ``git show HEAD --kiln.ini`` (refused:
    not an option), and wrote it again when asked once more. The retry is the facts' ``git status``,
    whose In short lines say what the newest commit changed, and the reply is given from it."""
    repo = make_repo(tmp_path)
    model = RepoJudged([body("exec", {"command": "git show HEAD --lamp.py"}), "lamp.py."], [0.9] * 8, repo=0.98)
    events = list(agent_in(home, repo, model, monkeypatch).turn("Quali file ha toccato l'ultimo commit?"))
    assert calls(events) == [("exec", "git show HEAD --lamp.py"), ("exec", "git status")]
    shown = [e.text for e in events if isinstance(e, ToolResult)]
    assert "refused" in shown[0] and 'the newest, ' in shown[1] and '"Light the lamp at seven", added lamp.py.' in shown[1]
    assert events[-1].reply == "lamp.py."
