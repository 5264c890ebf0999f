"""An edit of a short file written as its new text: the ``edit_file`` call made from the lines that differ.

A small model writes ``edit_file``'s ``old`` and ``new`` poorly (a function to add becomes a rename of
one, a typo to fix a word the file does not hold, a bug fix the same body again), yet a coder model
rewrites a short file well. So where a template-tool model calls ``edit_file`` and the turn is about one
file of at most ``MOST_TOKENS`` (the one the user's message names in the roots, else the one read this
turn), the model writes that file's whole new text in a code block (``rewritten``) from a prompt of
its own: the file and the user's message, nothing else, so the system prompt's volatile lines (the
time, retrieved memory) cannot leak into the file. The conversation's KV state is set aside and put
back around it (``generate_apart``); a backend without that leaves the call to the model. The call's
``old`` is the first to the last line that differ, widened by lines both sides hold until it occurs
once, and ``new`` what the rewrite has there (``call_from``). The call then runs as any other: the call
policy (was a change asked?), the loss guard (``tools.editloss``) and the syntax check. A rewrite that
changes nothing, is cut off, replaces more than ``MOST_LINES`` of the file's lines, or keeps none of
several leaves the call's arguments to the model.
"""

from __future__ import annotations

import difflib
from typing import Any

from nanobot.backends.base import Message
from nanobot.core.features import Agent
from nanobot.tools.callgrammar import parse_call

MOST_TOKENS = 800  # a longer file is edited by the model's own old/new: its rewrite would be slow and long
MOST_LINES = 6  # the most of the file's lines a rewrite may replace or drop: more is a new file, not an edit
ROOM = 256  # tokens the rewrite may add to the file's


def call_from(text: str, new_text: str) -> tuple[str, str] | None:
    """(old, new) of the one ``edit_file`` call that turns ``text`` into ``new_text``; None when they
    differ in nothing but blank lines, replace or drop more than ``MOST_LINES`` lines, or no unique
    ``old`` holds the change.

    >>> call_from("a\\nb\\nc\\n", "a\\nB\\nc\\n")
    ('b', 'B')
    >>> call_from("x = 1\\n\\n\\ny = 2\\n", "x = 1\\n\\n\\ny = 2\\n\\n\\nz = 3\\n")
    ('y = 2', 'y = 2\\n\\n\\nz = 3')
    >>> call_from("a\\nb\\n", "a\\nb\\n") is None
    True
    """
    mine, theirs = text.splitlines(), new_text.splitlines()
    every = difflib.SequenceMatcher(a=mine, b=theirs, autojunk=False).get_opcodes()
    kept = sum(1 for tag, i1, i2, _, _ in every if tag == "equal" for x in mine[i1:i2] if x.strip())
    ops = [op for op in every if op[0] != "equal" and any(x.strip() for x in mine[op[1]:op[2]] + theirs[op[3]:op[4]])]
    if not ops or sum(i2 - i1 for _, i1, i2, _, _ in ops) > MOST_LINES or (not kept and sum(1 for x in mine if x.strip()) > 1):
        return None  # nothing, or more than an edit: a file of several lines with none of them kept is new
    a, b, j1, j2 = ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]
    while a > 0 or b < len(mine):
        old = "\n".join(mine[a:b])
        if a < b and any(x.strip() for x in mine[a:b]) and text.count(old) == 1:
            break
        if a > 0:  # a line before, then after, that both sides hold as it is
            a, j1 = a - 1, j1 - 1
        else:
            b, j2 = b + 1, j2 + 1
        if j1 < 0 or j2 > len(theirs) or mine[a:ops[0][1]] != theirs[j1:ops[0][3]] or mine[ops[-1][2]:b] != theirs[ops[-1][4]:j2]:
            return None
    old = "\n".join(mine[a:b])
    if not old.strip() or text.count(old) != 1:
        return None
    return old, "\n".join(theirs[j1:j2])


def target(agent: Agent, msgs: list[Message], said: str) -> str:
    """The one file the user's message names in the roots, else the one file read this turn; "" else.
    For a report of something broken (the repair judgement is sure) that names several files, the one
    code file among them, never a test file: "test_mean fails. Fix mean in stats.py ..., and leave
    test_stats.py alone" is stats.py; of several code files, the one defining a name the message gives."""
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.testcommand import test_file

    files = {n.path for n in named(said, roots_of(agent.settings)) if n.kind == "file"}
    if (len(files) > 1 or any(map(test_file, files))) and agent.judge.sure(agent, "repair") is True:
        code = [f for f in files if not test_file(f)]
        if len(code) > 1:  # "Korrigiere file_ext in lib.sh und ändere tests.sh nicht": the file defining file_ext
            code = [f for f in code if _defines_named(f, said, agent)]
        return code[0] if len(code) == 1 else ""
    if not files:
        start = max((k for k, m in enumerate(msgs) if m.role == "user"), default=0)
        for m in msgs[start:]:
            call = parse_call(m.content) if m.role == "assistant" else None
            if call and call[0] == "read_file" and isinstance(call[1].get("path"), str):
                files.add(call[1]["path"])
    return files.pop() if len(files) == 1 else ""


def _defines_named(path: str, said: str, agent: Agent) -> bool:
    """Whether the file ``path`` of the roots defines a name the message ``said`` gives."""
    from nanobot.base.regular import read_regular
    from nanobot.tools.named import roots_of
    from nanobot.tools.namedcode import MAX_BYTES, NAME, definitions

    for root in roots_of(agent.settings):
        try:
            text = read_regular(root / path, MAX_BYTES).decode("utf-8", "replace")
        except (OSError, ValueError):
            continue
        return bool(definitions(text) & set(NAME.findall(said)))
    return False


def rewritten(runner: Any, agent: Agent, msgs: list[Message], said: str) -> dict | None:
    """``edit_file``'s arguments from the model's rewrite of the file the turn is about (see the module);
    None where there is no such file, it is long, or the rewrite changes nothing one call can hold."""
    from nanobot.base.errors import ToolError
    from nanobot.base.regular import read_regular
    from nanobot.tools.base import ToolContext
    from nanobot.tools.paths import resolve_in_roots

    path = target(agent, msgs, said) if callable(getattr(agent.model, "generate_apart", None)) else ""
    if not path:  # a backend that cannot put the conversation's KV state back leaves the call to the model
        return None
    try:
        text = read_regular(resolve_in_roots(path, ToolContext.for_agent(agent))).decode("utf-8")
    except (ToolError, OSError, UnicodeDecodeError, ValueError):
        return None
    size = agent.model.count_tokens(text)
    if "\r" in text or not text.strip() or size > MOST_TOKENS:
        return None
    fence = "````" if "```" in text else "```"
    ask = Message(role="user", content=f"{path}:\n{fence}\n{text.rstrip(chr(10))}\n{fence}\n\n{said}\n\nWrite the "
                                       f"whole new text of {path} with that change, in one code block; keep every "
                                       "other line exactly as it is.")
    out = runner._generate(agent, [ask], None, f"{fence}\n", size + ROOM, "rewrite", "edit_file", apart=True, copies=True,
                           stop=[fence])
    if agent.model.last.finish_reason == "length":
        return None
    change = call_from(text, out)
    return {"path": path, "old": change[0], "new": change[1]} if change else None
