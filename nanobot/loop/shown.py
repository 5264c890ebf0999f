"""A look the user spelled out and nothing else: its result is the reply, shown by nanobot.

"show me todo.md", "read calc.py", "run date", "now run python3 calc.py": the whole message asks to
see one file or one command's output, and ``nanobot.loop.explicit`` has already made that call. A
terminal answers such a line with the output itself; so does nanobot, instead of asking the model to
retell it: a small model's retelling adds mistakes (an earlier turn's answer, a vague summary of a
listing) and costs a model reply for nothing the output does not say. A message with more in it ("run
pytest and tell me what fails", "How many lines does notes.txt have? Run wc -l notes.txt", "Summarize
notes.txt") is still answered by the model.

The reply names what was shown (the path and its line range, or the command and its exit status) on
one line, then the output verbatim; the CLI prints it as text (``printable``: no terminal markup or
control codes). A look that failed is reported as the tool's error.
"""

from __future__ import annotations

import re

_LEAD = re.compile(r"^(?:[\w.-]+:\s+)?(?:please\s+|now\s+|ok(?:ay)?,?\s+|can you\s+|could you\s+)*"
                   r"(?:run|execute)\s+(?:the\s+command\s+)?", re.I)
_READ_HEAD = re.compile(r"\A(\S+) (lines \d+-\d+ of \d+)\n?")
_EXIT_HEAD = re.compile(r"\Aexit (-?\d+)\n?")
_MORE = re.compile(r"\n\[more: read_file start=(\d+)\]\Z")  # read_file's pointer to the next lines, for the model


def only_look(user_text: str, call: tuple[str, dict]) -> bool:
    """Whether ``user_text`` is nothing but the spelled-out look ``call`` (``explicit``'s answer).

    >>> only_look("run date", ("exec", {"command": "date"}))
    True
    >>> only_look("alice: read greet.py please", ("read_file", {"path": "greet.py"}))
    True
    >>> only_look("How many lines? Run wc -l notes.txt", ("exec", {"command": "wc -l notes.txt"}))
    False
    """
    name, args = call
    if name == "read_file":
        return True  # explicit's read form is the whole message already
    if name != "exec":
        return False
    rest = _LEAD.sub("", user_text.strip(), count=1).strip().rstrip(" .!?").strip()
    rest = re.sub(r"\s+please$", "", rest, flags=re.I).strip("`").strip()
    return rest == args.get("command", "").strip()


def shown_reply(name: str, args: dict, ok: bool, text: str) -> str:
    """The reply for a look the user spelled out: a one-line caption, then the output as it came.

    >>> print(shown_reply("read_file", {"path": "todo.md"}, True, "todo.md lines 1-2 of 2\\n# Todo\\n- milk"))
    todo.md (lines 1-2 of 2):
    # Todo
    - milk
    >>> print(shown_reply("exec", {"command": "date"}, True, "exit 0\\nWed Nov 25"))
    `date` (exit 0):
    Wed Nov 25
    """
    if not ok:
        return f"{name} failed: {text.strip()}"
    if name == "read_file":
        if m := _READ_HEAD.match(text):
            path, body = m.group(1), text[m.end():].rstrip()
            body = _MORE.sub(lambda n: f"\n[more from line {n[1]}: ask to read {path} from line {n[1]}]", body)
            return f"{path} ({m.group(2)}):\n{body}"
        return text.strip()  # "x.txt: empty file"
    m = _EXIT_HEAD.match(text)
    code, body = (m.group(1), text[m.end():].rstrip()) if m else ("?", text.rstrip())
    return f"`{args.get('command', '')}` (exit {code}):\n{body or '(no output)'}"


def look_result(seen: list, name: str) -> tuple[bool, str] | None:
    """(ok, text) of the last ``name`` result among a turn's events; None when it did not run."""
    for ev in reversed(seen):
        if getattr(ev, "kind", "") == "tool_result" and ev.name == name:
            return ev.ok, ev.text
    return None


_CAPTION = re.compile(r"^\s*(?:`[^`\n]+` \(exit -?\d+\)|\S+ \(lines \d+-\d+ of \d+\)):\s*$", re.M)


def imitates(reply: str) -> bool:
    """Whether a model's reply holds the caption nanobot puts over a look it shows: copied from the
    history over output of its own, it would pass invented output off as a tool's.

    >>> imitates("`python3 calc.py` (exit 0):\\n42"), imitates("Run `ls` (exit code 0 means success).")
    (True, False)
    """
    return bool(_CAPTION.search(reply))


def uncaptioned(reply: str) -> str:
    """A shown reply as the model's history keeps it: the output without nanobot's caption. The output
    stays, so a follow-up ("What time should I call Bob?" after "show me notes.txt") is answered from
    it; the caption goes, so the model does not learn to write it over contents of its own.

    >>> uncaptioned("notes.txt (lines 1-1 of 1):\\nCall Bob at 5pm."), uncaptioned("read_file failed: no such file")
    ('Call Bob at 5pm.', 'read_file failed: no such file')
    """
    first, _, rest = reply.partition("\n")
    return rest if _CAPTION.fullmatch(first) else reply


def direct(user_text: str, call: tuple[str, dict], seen: list) -> str:
    """The reply nanobot shows for a spelled-out look that is the whole message; "" otherwise."""
    if not only_look(user_text, call) or (result := look_result(seen, call[0])) is None:
        return ""
    return shown_reply(call[0], call[1], *result)
