"""The repository's state in the prompt (issue 75): a real git repository as a root gives the prompt
its branch, last commit and changed files; a commit between turns is in the next turn's prompt; a
home with no repository adds nothing."""

from __future__ import annotations

import subprocess

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.tools import repofacts
from nanobot.tools.feature import attach_tools
from nanobot.workspace import init_workspace


class LookAsked(ScriptedModel):
    """Scripted replies; the model's classifiers: a look asked, nothing else (calibrated before)."""

    def __init__(self, replies):
        from nanobot.loop.judge import CLASSIFIERS

        super().__init__(replies)
        self._judge_trusted = dict.fromkeys(CLASSIFIERS, True)

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import LOOK_SYSTEM

        return (0.95, 0.05) if messages[0].content == LOOK_SYSTEM else (0.05, 0.95)


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def make_repo(tmp_path):
    repo = tmp_path / "lighthouse"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "feature/lamp-7")
    (repo / "lamp.py").write_text("ON = 19\n")
    git(repo, "add", "lamp.py")
    git(repo, "commit", "-q", "-m", "Light the lamp at seven")
    (repo / "lamp.py").write_text("ON = 20\n")
    (repo / "fog.txt").write_text("west\n")
    return repo


def agent_for(home, roots):
    settings = load_settings(home, tools={"roots": [str(r) for r in roots]}, memory={"enabled": False},
                             observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["ok"] * 4))
    attach_tools(agent)
    return agent


def test_a_root_that_is_a_repository_gives_its_state_to_the_prompt(home, tmp_path):
    repo = make_repo(tmp_path)
    agent = agent_for(home, [repo])
    text = agent.system_prompt().text
    assert 'Git lighthouse: branch feature/lamp-7 (1 commit); last commit "Light the lamp at seven"' in text
    assert "uncommitted: lamp.py (changed), fog.txt (untracked)" in text
    assert agent.model.count_tokens(next(s.text for s in agent.system_prompt().sections if s.name == "repo")) <= 40


def test_a_commit_between_turns_is_in_the_next_turns_prompt(home, tmp_path):
    repo = make_repo(tmp_path)
    agent = agent_for(home, [repo])
    list(agent.turn("hi"))
    git(repo, "commit", "-q", "-am", "Light it at eight")
    list(agent.turn("and now?"))
    sent = agent.model.calls[-1]["messages"][0].content
    assert '"Light it at eight"' in sent and "uncommitted: fog.txt (untracked)" in sent
    assert "branch feature/lamp-7 (2 commits);" in sent


def test_a_start_folder_outside_the_roots_gives_its_git_facts_but_no_file_names(home, tmp_path, monkeypatch):
    """``cd lighthouse && nanobot chat`` with no roots: "which branch am I on?" asks of the folder the
    chat started in, so its branch, commits and last commit are in the prompt; the uncommitted files'
    names stay out (no tool reads there), their counts do not."""
    repo = make_repo(tmp_path)
    monkeypatch.chdir(repo)
    text = agent_for(home, []).system_prompt().text
    assert 'Git lighthouse: branch feature/lamp-7 (1 commit); last commit "Light the lamp at seven"' in text
    assert "uncommitted: 1 changed, 1 untracked" in text and "fog.txt" not in text


def test_no_repository_no_section(home, tmp_path):
    agent = agent_for(home, [])
    assert all(s.name != "repo" for s in agent.system_prompt().sections)
    assert repofacts.top_of(tmp_path) is None or not (tmp_path / ".git").exists()


def test_a_reply_from_the_prompts_facts_is_marked_for_verbose(home, tmp_path):
    repo = make_repo(tmp_path)
    settings = load_settings(home, tools={"roots": [str(repo)]}, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["Answer:", "You are on feature/lamp-7."]))
    attach_tools(agent)
    done = list(agent.turn("which branch am I on?"))[-1]
    assert done.timing.from_prompt == ["branch feature/lamp-7"] and "from the prompt: branch" in done.timing.line()


def test_a_reply_from_the_prompts_facts_after_a_look_elsewhere_stands(home, tmp_path):
    repo = make_repo(tmp_path)
    settings = load_settings(home, tools={"roots": [str(repo)], "call_format": "names"}, memory={"enabled": False},
                             observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, LookAsked(["Tool: list_dir", '{"path": "."}', "Answer:", "You are on feature/lamp-7.",
                                        "Answer:", "I could not tell."]))
    attach_tools(agent)
    done = list(agent.turn("which branch am I on?"))[-1]
    assert done.reply == "You are on feature/lamp-7." and not done.corrected


def test_the_facts_fit_their_budget_keeping_the_branch_and_the_counts():
    long = repofacts.RepoFacts(label="lighthouse", branch="feature/lighthouse-7", age="10 d", changed=1, untracked=1,
                               subject="lamp: rotate the lens every fourteen seconds and log each turn")
    words = lambda text: len(text.split())  # noqa: E731 - the scripted model's tokenizer
    for budget in (40, 20, 14, 11):
        text = repofacts.fitted([long], budget, words)
        assert words(text) <= budget or budget < 11, (budget, text)
        assert "branch feature/lighthouse-7" in text and "uncommitted: 1 changed, 1 untracked" in text
    assert repofacts.fitted([long], 40, words) == long.line()


def test_a_reply_that_copies_a_subject_the_prompt_shows_cut_is_no_answer_from_the_prompt(home, tmp_path):
    """A long subject is cut in the prompt, and marked so ("…"); a reply that gives the cut subject
    after a look elsewhere is not passed as answered from the prompt, as a whole one is."""
    from nanobot.loop.checkedturn import prompt_repo

    repo = make_repo(tmp_path)
    git(repo, "commit", "-q", "-am", "lamp: rotate the lens every fourteen seconds and log each turn to the keeper")
    settings = load_settings(home, tools={"roots": [str(repo)], "call_format": "names"}, memory={"enabled": False},
                             observer={"enabled": False})
    init_workspace(settings.workspace)
    (repo / "fog.txt").write_text("west and north and east, thick over the bay at dawn\n" * 3)
    agent = Agent(settings, LookAsked(["Tool: list_dir", '{"path": "."}', "Answer:",
                                        'It is "lamp: rotate the lens every fourteen seconds…".', "Answer:",
                                        "I could not tell."]))
    attach_tools(agent)
    section = prompt_repo(agent)
    assert 'last commit "lamp: rotate the lens every fourteen seconds…"' in section, section
    done = list(agent.turn("what was my last commit about?"))[-1]
    assert done.reply != 'It is "lamp: rotate the lens every fourteen seconds…".', done.reply


def test_a_git_status_the_model_runs_ends_with_whether_the_tree_is_clean(home, tmp_path):
    """git's long status ("no changes added to commit", hints) is read by a small model as a clean
    tree: the output ``exec`` returns ends with one line from ``--porcelain`` saying which it is."""
    from nanobot.tools.base import ToolContext
    from nanobot.tools.shell import Exec

    repo = make_repo(tmp_path)
    settings = load_settings(home, tools={"roots": [str(repo)]})
    settings.workspace.mkdir(parents=True, exist_ok=True)
    ctx = ToolContext(settings=settings)
    dirty = Exec().run(Exec.Args(command="git status", cwd=str(repo)), ctx)
    assert "Changes not staged for commit" in dirty
    assert ("\nIn short: the work tree is not clean; uncommitted: lamp.py (changed), fog.txt (untracked).\n"
            "In short: this branch has 1 commit; the newest, ") in dirty
    assert dirty.rstrip().endswith('"Light the lamp at seven", added lamp.py.')
    (repo / "fog.txt").unlink()
    git(repo, "checkout", "--", "lamp.py")
    clean = Exec().run(Exec.Args(command="git status --short", cwd=str(repo)), ctx)
    assert "\nIn short: the work tree is clean (nothing uncommitted).\nIn short: this branch has 1 commit" in clean


def test_a_git_read_the_model_runs_ends_with_the_count_and_what_the_newest_commits_changed(home, tmp_path):
    """A small model miscounts a long ``git log``, ``--oneline`` shows no files, and it runs ``git log -1``
    for "is anything uncommitted?" or ``git branch -v`` for "which files did the commit before the last
    one add?": a read of the repository's state (a log of HEAD's own history, a status) ends with
    whether the work tree is clean, the branch's commit count and what its newest two commits did; a
    log of another revision or of a path gets no such lines, as HEAD's facts would not be its answer
    (the branch checked out, named, is HEAD), and a branch listing none, as its one line is the answer
    and the 1.5B answered "which branch?" from the lines under it."""
    from nanobot.tools.base import ToolContext
    from nanobot.tools.shell import Exec

    repo = make_repo(tmp_path)
    (repo / "keeper.md").write_text("Ada\n")
    git(repo, "add", "keeper.md", "lamp.py")
    git(repo, "commit", "-q", "-m", "Name the keeper")
    settings = load_settings(home, tools={"roots": [str(repo)], "exec_allow": ["git log"]})
    settings.workspace.mkdir(parents=True, exist_ok=True)
    ctx = ToolContext(settings=settings)
    short = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                           text=True).stdout.strip()
    before = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD~1"], capture_output=True,
                            text=True).stdout.strip()
    settings.tools.exec_allow.append("git branch")
    for command in ("git log --oneline", "git log -n 1", "git log", "git log --oneline feature/lamp-7"):
        out = Exec().run(Exec.Args(command=command, cwd=str(repo)), ctx)
        assert "\nIn short: the work tree is not clean; uncommitted: fog.txt (untracked).\n" in out, (command, out)
        assert out.rstrip().endswith(f'\nIn short: this branch has 2 commits; the newest, {short} "Name the keeper", '
                                     f'added keeper.md and changed lamp.py; the one before, {before} '
                                     '"Light the lamp at seven", added lamp.py.'), (command, out)
    git(repo, "branch", "dark")
    for command in ("git log --oneline -- lamp.py", "git log --oneline dark", "git log HEAD~1", "git branch -v"):
        assert "In short" not in Exec().run(Exec.Args(command=command, cwd=str(repo)), ctx)


class DiffAsked(LookAsked):
    """The model's classifiers: a look asked and the file's uncommitted changes asked, nothing else."""

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import DIFF_SYSTEM, LOOK_SYSTEM

        return (0.95, 0.05) if messages[0].content in (LOOK_SYSTEM, DIFF_SYSTEM) else (0.05, 0.95)


def _asked(home, repo, model, text: str) -> Agent:
    """An agent with ``repo`` as its root, ``text`` as the user's message its judgements read."""
    settings = load_settings(home, tools={"roots": [str(repo)]}, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, model)
    attach_tools(agent)
    agent.provenance.said.append(text)
    agent.judge.context(text, [])
    return agent


@pytest.mark.parametrize("committed", [False, True])
def test_a_question_about_a_files_uncommitted_changes_looks_with_git_not_a_read(home, tmp_path, committed):
    """ "What did I change in lamp.py?" names a file, so the facts would read it; a read shows the file
    as it is now, not what changed. When git has uncommitted changes of the file and the model judges
    the changes asked, the look is ``exec`` (``git diff`` runs unasked); with nothing uncommitted in
    it there is nothing to diff, and the file is read."""
    from nanobot.tools.base import ToolContext
    from nanobot.tools.firstlook import asks_to_look, first_args
    from nanobot.tools.shell import Exec

    repo = make_repo(tmp_path)
    if committed:
        git(repo, "commit", "-q", "-am", "Light it at eight")
    agent = _asked(home, repo, DiffAsked([]), "What did I change in lamp.py since the last commit?")
    assert asks_to_look(agent) == ("read_file" if committed else "exec")
    assert agent.judge.probability(agent, "diff") == pytest.approx(0.95)
    given = first_args(agent, 0, "exec", {"exec": 1})  # the call's arguments, written by the facts
    if committed:
        assert given is None
        return
    assert given == {"command": "git diff -- lamp.py", "cwd": str(repo.resolve())}
    out = Exec().run(Exec.Args(**given), ToolContext(settings=agent.settings))  # runs unasked (git_reads)
    assert "-ON = 19" in out and "+ON = 20" in out


class HistoryAsked(LookAsked):
    """The model's classifiers: a look asked and the file's history asked, nothing else."""

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import HISTORY_SYSTEM, LOOK_SYSTEM

        return (0.95, 0.05) if messages[0].content in (LOOK_SYSTEM, HISTORY_SYSTEM) else (0.05, 0.95)


@pytest.mark.parametrize("tracked", [True, False])
def test_a_question_about_a_files_history_looks_with_git_log_not_a_read(home, tmp_path, tracked):
    """"When did keeper.md get committed?" names a file, so the facts would read it; its text does not
    say which commit brought it. When git has commits of the file and the model judges its history
    asked, the look is ``git log`` of the file, written by the facts, and its output holds the commit;
    a file git has no commit of is read."""
    from nanobot.tools.base import ToolContext
    from nanobot.tools.firstlook import asks_to_look, first_args
    from nanobot.tools.shell import Exec

    repo = make_repo(tmp_path)
    (repo / "keeper.md").write_text("Ada\n")
    if tracked:
        git(repo, "add", "keeper.md")
        git(repo, "commit", "-q", "-m", "Name the keeper")
    agent = _asked(home, repo, HistoryAsked([]), "When did keeper.md get committed? Give me its message.")
    assert asks_to_look(agent) == ("exec" if tracked else "read_file")
    given = first_args(agent, 0, "exec", {"exec": 1})
    if not tracked:
        assert given is None
        return
    assert given["command"].startswith("git log -n 3 ") and given["command"].endswith(" -- keeper.md")
    out = Exec().run(Exec.Args(**given), ToolContext(settings=agent.settings))  # runs unasked (git_reads)
    assert "t: Name the keeper" in out and "+Ada" in out and "Light the lamp" not in out


class ChangeAndDiffAsked(LookAsked):
    """The diff classifier says yes and the change classifier is sure of a change too."""

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import ALLOW_SYSTEM, DIFF_SYSTEM, LOOK_SYSTEM

        return (0.95, 0.05) if messages[0].content in (LOOK_SYSTEM, DIFF_SYSTEM, ALLOW_SYSTEM) else (0.05, 0.95)


def test_a_change_asked_of_a_file_with_uncommitted_changes_is_no_diff_question(home, tmp_path):
    """"Añade a la clase Agenda de agenda.py un método remove_contact ..." after a fix left agenda.py
    uncommitted: the 1.5B's diff classifier said yes (0.70), and the turn's one call was ``git diff``,
    the method never added. Where the change classifier is sure of a change, the file's diff is not
    the look: the model's own call makes the change."""
    from nanobot.tools.firstlook import asks_to_look, first_args

    repo = make_repo(tmp_path)
    agent = _asked(home, repo, ChangeAndDiffAsked([]), "Añade a lamp.py una función off() que devuelva 0.")
    assert agent.judge.probability(agent, "diff") == pytest.approx(0.95)
    assert asks_to_look(agent) == "read_file" and first_args(agent, 0, "exec", {"exec": 1}) is None


def _lean_agent(home, repo, model) -> Agent:
    """An agent with ``repo`` as its root, read_file and exec under the lean listing, ``model``'s
    classifiers trusted."""
    settings = load_settings(home, tools={"roots": [str(repo)], "enabled": ["read_file", "exec"], "listing": "lean"},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    model._judge_trusted = LookAsked([])._judge_trusted
    agent = Agent(settings, model)
    attach_tools(agent)
    return agent


def test_the_diff_look_runs_git_diff_written_by_the_facts_whatever_the_model_picked(home, tmp_path):
    """The lean step picked read_file by its name, and would have written its own command had it
    picked exec (the 1.5B wrote ``git status lamp.toml``): the turn's first call is ``git diff`` of
    the file, and the reply is given from that diff."""
    from nanobot.core.events import ToolCall, ToolResult
    from tests.test_templatecalls import ToolTemplateModel

    class Model(ToolTemplateModel, DiffAsked):
        pass

    agent = _lean_agent(home, make_repo(tmp_path), Model(['read_file"', "ON went from 19 to 20."], [0.9, 0.05, 0.05]))
    events = list(agent.turn("What did I change in lamp.py since the last commit?"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.name, c.arguments["command"]) for c in calls] == [("exec", "git diff -- lamp.py")]
    assert "+ON = 20" in next(e for e in events if isinstance(e, ToolResult)).text
    assert events[-1].reply == "ON went from 19 to 20."


def test_a_detached_head_is_said_to_be_one_not_named_a_branch(home, tmp_path):
    """``git checkout <commit>``: no branch is checked out, and a hash given as "branch 1a2b3c4" is
    read back as a branch's name ("You are on branch 1a2b3c4")."""
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "--detach")
    text = agent_for(home, [repo]).system_prompt().text
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert f"Git lighthouse: HEAD detached at {head} (1 commit);" in text and "branch " + head not in text


class HistoryAskedLooseLook(HistoryAsked):
    """The history classifier sure, the look classifier unsure (0.55), the change classifier a sure no."""

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import HISTORY_SYSTEM, LOOK_SYSTEM

        return {LOOK_SYSTEM: (0.55, 0.45), HISTORY_SYSTEM: (0.9, 0.1)}.get(messages[0].content, (0.05, 0.95))


def test_the_history_look_is_made_where_the_model_would_not_call_as_a_read_would_be(home, tmp_path):
    """"when did shrink.py get committed?": the history classifier was sure (0.70), but P(call) was under
    the look floor and P(look) 0.56, under the sure bound a tool that runs needs, so the turn read the
    file after its reply and answered with a date from nowhere. A git read the facts write is judged as
    a read: a question naming a file that is there, no change asked, is looked at."""
    from nanobot.core.events import ToolCall
    from tests.test_templatecalls import ToolTemplateModel

    class Model(ToolTemplateModel, HistoryAskedLooseLook):
        pass

    agent = _lean_agent(home, make_repo(tmp_path), Model(["On the first commit, 'Light the lamp at seven'."], [0.01] * 3))
    events = list(agent.turn("when did lamp.py get committed? give me that commit's message"))
    calls = [(e.name, e.arguments["command"]) for e in events if isinstance(e, ToolCall)]
    assert len(calls) == 1 and calls[0][1].startswith("git log -n 3 ") and calls[0][1].endswith("-- lamp.py")
    assert events[-1].reply == "On the first commit, 'Light the lamp at seven'."


def test_the_uncommitted_files_names_give_way_before_the_subject_is_cut():
    """A cut subject ("bisque: hold 20 min at…") was given back as the last commit's message; counts
    stay true as they stand. Where the line with the names does not fit, the counts take their place
    and the subject stays whole."""
    facts = repofacts.RepoFacts(label="workspace", branch="kiln/ash-glaze-run-22", commits=5,
                                subject="bisque: hold 20 min at 573 for the quartz inversion", changed=2,
                                untracked=1, names=["firings.csv (changed)", "kiln.ini (changed)",
                                                    "clay_order.txt (untracked)"])
    words = lambda text: len(text.split())  # noqa: E731 - the scripted model's tokenizer
    whole = repofacts.fitted([facts], words(facts.line()), words)
    assert "firings.csv" in whole and "quartz inversion" in whole
    text = repofacts.fitted([facts], words(facts.line()) - 1, words)
    assert "uncommitted: 2 changed, 1 untracked" in text and '"bisque: hold 20 min at 573 for the quartz inversion"' in text
