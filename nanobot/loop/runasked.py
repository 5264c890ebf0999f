"""A run the message asks for, in any language, made before the model is asked (``loop.checkedturn``):
the allowed command line the message types (``tools.typedcommand``), or the one program file it names
that an allowed interpreter runs, where the model's run classifier agrees; its output then answers, a
read of the file does not. An English run form's command ("run python3 swarm.py again") is cut to the
line the message types.
"""

from __future__ import annotations

from pathlib import Path

from nanobot.core.features import Agent


def _allow(agent: Agent) -> list[str]:
    from nanobot.tools.gitexec import unasked

    return unasked(agent.settings.tools)


INTERPRETERS = {".py": ("python3", "python"), ".sh": ("bash", "sh"), ".js": ("node",), ".rb": ("ruby",),
                ".pl": ("perl",), ".php": ("php",), ".lua": ("lua",)}  # a program file's suffix -> what runs it


def named_program(user_text: str, agent: Agent) -> str:
    """The command that runs the one program file the message names in the roots whose interpreter the
    allow list holds ("python3 fog.py"), a fact of the message and the roots; "" for none or several."""
    from nanobot.tools.gitexec import unasked
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.shell import allowed

    if "exec" not in getattr(agent, "tool_names", list)():  # a check's view of an agent may have no tools
        return ""
    allow = unasked(agent.settings.tools)
    runs: set[str] = set()
    for n in named(user_text, roots_of(agent.settings)):
        interpreters = INTERPRETERS.get(Path(n.path).suffix.lower(), ()) if n.kind == "file" else ()
        if runner := next((i for i in interpreters if allowed(f"{i} {n.path}", allow)), ""):
            runs.add(f"{runner} {n.path}")
    return runs.pop() if len(runs) == 1 else ""


def asked_run(user_text: str, agent: Agent) -> tuple[str, dict] | None:
    """The ``exec`` call of a run the message asks for, in any language: the allowed command line it
    types (``tools.typedcommand``: "Draai head -n 4 hives.csv: uit welk jaar ...") unless the model's
    run classifier is sure no run is asked ("do not run python3 wipe.py"), or the program it names
    (``named_program``) where that classifier is sure one is. Its output then answers; a read of the
    file does not. None otherwise: one judgement, asked only where such a command or program is named."""
    from nanobot.loop.judge import asks
    from nanobot.tools.named import roots_of
    from nanobot.tools.paths import base_dir
    from nanobot.tools.typedcommand import typed_command

    if "exec" not in getattr(agent, "tool_names", list)():
        return None
    if typed := typed_command(user_text, _allow(agent), base_dir(roots_of(agent.settings))):
        return ("exec", {"command": typed}) if asks(agent, "run", user_text) is not False else None
    command = named_program(user_text, agent)
    return ("exec", {"command": command}) if command and asks(agent, "run", user_text) is True else None


def as_typed(call: tuple[str, dict] | None, user_text: str, agent: Agent) -> tuple[str, dict] | None:
    """``call`` with an English run form's command cut to the command line the message types
    (``tools.typedcommand``) where that is how it starts: "run python3 swarm.py again" runs
    ``python3 swarm.py``, not a script given the argument "again"."""
    from nanobot.tools.named import roots_of
    from nanobot.tools.paths import base_dir
    from nanobot.tools.typedcommand import typed_command

    if call is None or call[0] != "exec" or "exec" not in getattr(agent, "tool_names", list)():
        return call
    command = str(call[1].get("command", ""))
    typed = typed_command(user_text, _allow(agent), base_dir(roots_of(agent.settings)))
    return ("exec", {**call[1], "command": typed}) if typed and command.startswith(f"{typed} ") else call
