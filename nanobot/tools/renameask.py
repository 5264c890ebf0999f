"""The rename a user's message asks for, as edit_file's arguments written by the facts and the model's
rename classifier, not by the model's call.

"Rename the method remove to take, in inventory/stock.py and in tests/test_stock.py" names both names;
a small model writing the call may still put another word in ``new`` or a line of its context in ``old``.
The facts give the pairs to weigh: the old name is one that a file the message names defines
(``namedcode.definitions``), the new one a later name of the message that none of those files holds
and that is no part of a file's name (the longest file names taken out of the message first); at most
``PAIRS`` pairs, in the message's order. The model's
rename classifier (``Judge.rename``: the message and one pair) says which pair, if any, is the rename
asked. The call is then ``old`` to ``new`` in the file that defines the old name, and ``tools.renames``
renames every whole-word occurrence, in the other files the message names too. Nothing of the message
is read as English; a message naming no file that defines one of its names costs no judgement.

>>> pairs("Rename shout to yell in t.py", {"t.py": "def shout(x):\\n    return x\\n"})
[('t.py', 'shout', 'to'), ('t.py', 'shout', 'yell'), ('t.py', 'shout', 'in')]
>>> pairs("Add a function yell to t.py", {"t.py": "def shout(x):\\n    return x\\n"})
[]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nanobot.base.regular import read_regular
from nanobot.core.features import Agent
from nanobot.tools.namedcode import MAX_BYTES, NAME, definitions

PAIRS = 3  # the pairs judged at most, one classifier evaluation each


def pairs(said: str, texts: dict[str, str]) -> list[tuple[str, str, str]]:
    """(file, old, new) for ``said`` (the user's message, the files' names as it writes them taken out)
    and ``texts`` ({file: its text} of the files it names): ``old`` defined in ``file``, ``new`` a
    later name of the message that no file holds."""
    held = {w for t in texts.values() for w in NAME.findall(t)}
    defined = {f: definitions(t) for f, t in texts.items()}
    found: list[tuple[str, str, str]] = []
    words = [m.group(0) for m in NAME.finditer(said)]
    for i, old in enumerate(words):
        home = next((f for f, names in defined.items() if old in names), None)
        if home is None:
            continue
        for new in dict.fromkeys(w for w in words[i + 1:] if w not in held and w != old):
            if len(found) == PAIRS:
                return found
            found.append((home, old, new))
    return found


def _said_pairs(agent: Agent, settings: Any = None) -> list[tuple[str, str, str]]:
    """``pairs`` of the user's last message and the files it names (in ``settings``' roots, else the agent's)."""
    from nanobot.tools.named import named, roots_of

    said, settings = agent.provenance.said, settings or agent.settings
    if not said or settings is None:
        return []
    message, texts = said[-1], {}
    for n in sorted(named(said[-1], roots_of(settings)), key=lambda n: -len(n.said)):  # tests/t_b.py before b.py
        message = message.replace(n.said, " ")
        for root in roots_of(settings) if n.kind == "file" else []:
            path = root / n.path
            try:
                if path.is_file() and path.stat().st_size <= MAX_BYTES:
                    texts[n.path] = read_regular(path).decode("utf-8", "replace")
                    break
            except OSError:
                continue
    return pairs(message, texts)


def rename_args(agent: Agent, tools: dict) -> dict | None:
    """edit_file's arguments for the rename the user's last message asks (see the module docstring);
    None where edit_file is not among ``tools``, the facts give no pair or the model is sure of none."""
    if "edit_file" not in tools:
        return None
    for home, old, new in _said_pairs(agent):
        if agent.judge.rename(agent, old, new):
            return {"path": home, "old": old, "new": new}
    return None


LEANS = 0.8  # P(rename) a pair needs where the model's own call already renames its old name


def leaned_rename(agent: Agent, old: str, settings: Any = None) -> dict | None:
    """edit_file's arguments for the rename of ``old`` the user's last message gives, where the model's
    own call renames ``old`` to a name nobody gave (``tools.defrename``): of the message's pairs with that
    old name, the one the rename classifier gives most, at ``LEANS`` or more. Two signals agree that
    ``old`` is what is renamed; the message's own name is the one it becomes. None otherwise."""
    best, top = None, LEANS
    for home, was, new in _said_pairs(agent, settings):
        if was != old:
            continue
        agent.judge.rename(agent, was, new)
        p = agent.judge.cache.get(f"rename {was} {new}")
        if p is not None and p >= top:
            best, top = {"path": home, "old": was, "new": new}, p
    return best


def leaned_edit(agent: Agent, settings: Any, text: str, new: str, asked: list[str], path: Path) -> dict | None:
    """``old``/``new`` of the rename the user's message gives, where an edit of ``path`` from ``text`` to
    ``new`` renames a definition to a name nobody gave (``tools.defrename``) and a pair of the message
    renames that same definition (``leaned_rename``): "Renomme la fonction passed en is_passing" answered
    with ``passed`` turned into ``is_passed``. None otherwise."""
    from nanobot.tools.defrename import renamed_unasked
    from nanobot.tools.named import roots_of

    if (pair := renamed_unasked(text, new, asked)) is None or (fix := leaned_rename(agent, pair[0], settings)) is None:
        return None
    if not any((root / fix["path"]).resolve() == path.resolve() for root in roots_of(settings)):
        return None
    return {"old": fix["old"], "new": fix["new"]}
