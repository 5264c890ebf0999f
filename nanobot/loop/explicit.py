"""A call the user spelled out, or a run the user asked for: nanobot makes it first, instead of
asking a small model to pick it, through the path of a call the model wrote as text
(``written.run_written``: validated, the call policy and the exec permission applied); the model
answers from its result.

- ``explicit``: "run python3 calc.py", "read calc.py", "In todo.md replace 'a' with 'b'"
  (``loop.spelledit``), "create a file hello.txt containing: ...": the tool and its whole arguments, in
  the message's words. Only what the user typed counts: a command is a word naming a program on this
  machine (``shutil.which``) or a path to one, so "run a marathon" is no call. These patterns are
  English; ``asked_run`` is how a run is asked for in any language.
- ``asked_run``: a program file the message names, where the model judges that the message asks for
  it to be run (``judge``'s "run" classifier).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from nanobot.core.features import Agent
from nanobot.loop.spelledit import spelled_edit

_RUN = re.compile(r"(?:^|[\s.?!,;:])(?:please\s+|now\s+|can you\s+|could you\s+)?(?:run|execute)\s+"
                  r"(?:the\s+command\s+)?(`[^`\n]+`|[^\s`][^\n]*)", re.I)
_WRITE = re.compile(r"\b(?:create|write|make)\s+(?:a\s+|the\s+)?(?:new\s+)?file\s+(?:called\s+|named\s+)?"
                    r"[`'\"]?([\w./-]+\.\w+)[`'\"]?\s+(?:containing|with\s+(?:the\s+)?(?:content|text))\s*:?\s*(.+)$",
                    re.I | re.S)


# "read calc.py", "show me todo.md", "alice: read greet.py please": the whole message asks to see one file
_READ = re.compile(r"^(?:[\w.-]+:\s+)?(?:please\s+|now\s+|can you\s+|could you\s+)?(?:read|show(?:\s+me)?|open|display)\s+"
                   r"(?:the\s+)?(?:file\s+)?[`'\"]?((?:~?/|\./)?(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5})[`'\"]?"
                   r"(?:\s+please)?\s*[.!?]?\s*$", re.I)
_PROSE = re.compile(r"\.\s|\?|!|,\s+(?:and|then)\b|\s+(?:and|then)\s+(?:tell|show|explain|let|say|report|give|"
                    r"fix|see|check|summari[sz]e|paste|print me)\b", re.I)


def _command(text: str) -> str:
    """The command line as typed: backticks dropped, the prose after it ("... and tell me what
    fails", the next sentence) and a sentence's end trimmed."""
    text = text.strip()
    if text.startswith("`"):
        return text.strip("`").strip()
    if m := _PROSE.search(text):
        text = text[:m.start()]
    return text.rstrip(" .!?").strip()


def _is_program(word: str) -> bool:
    return word.startswith(("./", "../")) or shutil.which(word) is not None


def explicit(user_text: str, offered: list[str]) -> tuple[str, dict] | None:
    """(tool, arguments) of the call ``user_text`` spells out, when that tool is offered; else None.

    >>> explicit("run python3 calc.py", ["exec"])
    ('exec', {'command': 'python3 calc.py'})
    >>> explicit("How many lines does notes.txt have? Run wc -l notes.txt", ["exec"])
    ('exec', {'command': 'wc -l notes.txt'})
    >>> explicit("Please run pytest and tell me what fails", ["exec"])
    ('exec', {'command': 'pytest'})
    >>> explicit("Create a file hello.txt containing: Hello world", ["write_file"])
    ('write_file', {'path': 'hello.txt', 'content': 'Hello world'})
    >>> explicit("alice: read greet.py please", ["read_file"]), explicit("show me todo.md", ["read_file"])
    (('read_file', {'path': 'greet.py'}), ('read_file', {'path': 'todo.md'}))
    >>> explicit("run a marathon with me", ["exec"]), explicit("run date", ["read_file"])
    (None, None)
    >>> explicit("read calc.py and explain sub", ["read_file"]), explicit("show me how to open a.txt", ["read_file"])
    (None, None)
    """
    if "exec" in offered:
        for m in _RUN.finditer(user_text):
            command = _command(m.group(1))
            if command and _is_program(command.split()[0]):
                return "exec", {"command": command}
    if "read_file" in offered and (m := _READ.search(user_text.strip())):
        return "read_file", {"path": m.group(1)}
    if "write_file" in offered and (m := _WRITE.search(user_text.strip())):
        return "write_file", {"path": m.group(1), "content": m.group(2).strip()}
    if "edit_file" in offered and (args := spelled_edit(user_text)):  # nanobot.loop.spelledit
        return "edit_file", args
    return None


INTERPRETERS = {".py": ("python3", "python"), ".sh": ("bash", "sh"), ".js": ("node",), ".rb": ("ruby",),
                ".pl": ("perl",), ".php": ("php",), ".lua": ("lua",)}  # a program file's suffix -> what runs it


def asked_run(user_text: str, agent: Agent) -> tuple[str, dict] | None:
    """The ``exec`` call of the one program file the message names in the roots whose interpreter the
    allow list holds ("python3" for ``fog.py``), when the model judges, in any language, that the
    message asks for it to be run (``judge``'s "run" classifier, a sure yes). A command the message
    types is the model's to call (``explicit`` where it is spelled out in English). Its output then
    answers; a read of its source does not. None otherwise: one judgement, asked only where such a
    program is named."""
    from nanobot.loop.judge import asks
    from nanobot.tools.gitexec import unasked
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.shell import allowed

    if "exec" not in agent.tool_names():
        return None
    allow = unasked(agent.settings.tools)
    programs = {n.path for n in named(user_text, roots_of(agent.settings)) if n.kind == "file"
                and any(allowed(f"{i} {n.path}", allow) for i in INTERPRETERS.get(Path(n.path).suffix.lower(), ()))}
    if len(programs) != 1:
        return None
    path = programs.pop()
    runner = next(i for i in INTERPRETERS[Path(path).suffix.lower()] if allowed(f"{i} {path}", allow))
    return ("exec", {"command": f"{runner} {path}"}) if asks(agent, "run", user_text) is True else None
