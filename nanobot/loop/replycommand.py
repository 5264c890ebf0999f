"""A command the reply tells the user to run, run by nanobot when the user asked for it to be done.

Asked "now make sure the tests still pass", a small model often answers "you can run the following
command: ```sh python -m unittest``` ..." and runs nothing, though it can run commands. When nothing
ran this turn, the model's own look judgement says the message asks for something read or run on
this computer (``loop.judge``: a sure yes), and the reply's code holds one command line that ``exec``
runs without asking (``tools.exec_allow``, read-only: ``tools.shell.writes``), that command runs as
an ``exec`` call (``textcall.run_written``: the call policy and the exec permission applied) and the
reply is asked for again with its output in view. A first word the allow list only has with a
version is that form ("python" where "python3" is allowed, as the exec grammar offers it); a test run
the allowed test command (``tools.testcommand``). A how-to
question ("How do I run the tests?") is judged no look and keeps its answer. Facts of the reply and
the allow list, and the model's probabilities; no word list.
"""

from __future__ import annotations

import re

from nanobot.core.events import Event, ToolCall
from nanobot.core.features import Agent

_FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)(```|\Z)", re.S)  # any language: the allow list decides


def proposed(reply: str, allow: list[str]) -> str:
    """The one command line the reply's fenced code holds that ``exec`` runs without asking, "" for none
    (no such block, two commands, one the allow list lacks, one that writes); of a block the reply's
    token limit cut, only its finished lines.

    >>> proposed("Run this:\\n\\n```sh\\npython -m unittest discover\\n```\\nIt runs all tests.", ["python3", "git status"])
    'python3 -m unittest discover'
    >>> proposed("```bash\\n$ git status\\n```", ["git status"]), proposed("```sh\\nrm -rf build\\n```", ["rm"])
    ('git status', '')
    >>> proposed("```sh\\npy calc.py\\n```", ["python3"]), proposed("```sh\\nc a.txt\\n```", ["cat"])  # no version: no form
    ('', '')
    >>> proposed("```sh\\npytest -q\\n```", ["python3 -m pytest"])  # a test run: the allowed test command
    'python3 -m pytest -q'
    >>> proposed("```python\\nprint(2 + 2)\\n```", ["python3"])  # code, not a command the allow list has
    ''
    >>> proposed("```\\ngit status\\ngit log\\n```", ["git status", "git log"])  # two commands: which one?
    ''
    >>> proposed("Run:\\n```sh\\ngit status\\n", ["git status"]), proposed("Run:\\n```sh\\ngit sta", ["git"])  # cut short
    ('git status', '')
    """
    from nanobot.tools.shell import allowed, writes
    from nanobot.tools.testcommand import repaired

    blocks = [body if end or body.endswith("\n") else body.rpartition("\n")[0]  # cut by max_tokens: its
              for body, end in _FENCE.findall(reply)]  # finished lines
    lines = [ln.strip().removeprefix("$ ").strip() for block in blocks for ln in block.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if len(lines) != 1 or writes(lines[0]):
        return ""
    command = lines[0]
    if allowed(command, allow):
        return command
    first = command.split()[0]  # the same program with a version: "python" is "python3", "p" is nothing
    versions = sorted(e.split()[0] for e in allow if e.strip() and re.fullmatch(rf"{re.escape(first)}[\d.]+", e.split()[0]))
    fixed = f"{versions[0]}{command[len(first):]}" if versions else ""
    if fixed and allowed(fixed, allow):
        return fixed
    return (repaired({"command": command}, allow) or {}).get("command", "")  # a test run: the allowed test command


def reply_command(reply: str, agent: Agent, seen: list[Event]) -> tuple[str, dict] | None:
    """The ``exec`` call of the command the reply proposes (``proposed``), or None: something ran this
    turn already, exec is not offered, or the model does not judge the message an ask to read or run."""
    from nanobot.loop.judge import asks

    if "exec" not in agent.tool_names() or any(isinstance(e, ToolCall) for e in seen):
        return None
    from nanobot.tools.gitexec import unasked

    command = proposed(reply, unasked(agent.settings.tools))
    if not command or asks(agent, "look") is not True:
        return None
    return "exec", {"command": command}
