"""A command line the user typed into a message, in any language: an allow-listed command followed by
its arguments up to the last one that names a file or folder in the roots ("Esegui cat apiary.toml e
dimmi ...", "Draai head -n 4 hives.csv: uit welk jaar ...", 'Zähl mit grep -c "queen seen" log.txt, ...').

The words around it are the message's prose, whatever its language; the command is what the allow list
and the roots recognise. A command whose arguments name nothing that is there ("Use wc -l.") is no
typed command: run without its file it would read nothing, and the model picks the call instead.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from nanobot.tools.shell import allowed

# Where a command's words end: a clause's punctuation followed by a space, or the message's end.
_CLAUSE = re.compile(r"[,;:!?](?=\s|$)|\.(?=\s|$)|\s[–—-]\s")
MAX_WORDS = 8  # arguments after the command word(s), at most


def typed_command(text: str, allow: list[str], base: Path) -> str:
    """The allow-listed command line ``text`` types, its last argument a path that exists under ``base``
    (relative paths start there); "" for none, or for two different ones.

    >>> import tempfile; d = Path(tempfile.mkdtemp()); _ = (d / "log.txt").write_text("x")
    >>> typed_command('Zähl mit grep -c "queen seen" log.txt, bei wie vielen?', ["grep", "wc"], d)
    'grep -c "queen seen" log.txt'
    >>> typed_command("Esegui cat log.txt e dimmi l'ultima riga", ["cat"], d)
    'cat log.txt'
    >>> typed_command("How many lines does log.txt have? Use wc -l.", ["wc"], d)
    ''
    >>> typed_command("the cat sat on log.txt", ["rm"], d), typed_command("cat missing.txt", ["cat"], d)
    ('', '')
    """
    found: set[str] = set()
    for prefix in dict.fromkeys(a.strip() for a in allow if a.strip()):
        for m in re.finditer(rf"(?<![\w./-]){re.escape(prefix)}(?![\w-])", text):
            rest = text[m.end():]
            end = _CLAUSE.search(rest)
            words = _words(rest[:end.start()] if end else rest)[:MAX_WORDS]
            last = max((i for i, w in enumerate(words) if _there(w, base)), default=-1)
            if last < 0:
                continue
            command = shlex.join([*prefix.split(), *words[:last + 1]])
            command = _as_typed(command, text)
            if allowed(command, allow):
                found.add(command)
    return found.pop() if len(found) == 1 else ""


# A word of a command line: a quoted string, or a run of other characters (an apostrophe inside a word,
# "l'ultima", is the prose's, not a quote).
_WORD = re.compile(r'"([^"]*)"|\'([^\']*)\'(?!\w)|(\S+)')


def _words(text: str) -> list[str]:
    """``text``'s words as a shell would split a simple line, quotes taken off.

    >>> _words("-c 'queen seen' log.txt e dimmi l’ultima e l'altra")
    ['-c', 'queen seen', 'log.txt', 'e', 'dimmi', 'l’ultima', 'e', "l'altra"]
    """
    return [next(g for g in m.groups() if g is not None) for m in _WORD.finditer(text)]


def _there(word: str, base: Path) -> bool:
    """Whether ``word`` names a file or folder under ``base`` (no absolute path, no way out)."""
    if not word or word.startswith(("-", "/", "~")) or ".." in Path(word).parts:
        return False
    try:
        return (base / word).exists()
    except (OSError, ValueError):
        return False


def _as_typed(command: str, text: str) -> str:
    """``command`` with the message's own quoting where the message holds it word for word
    (``shlex.join`` quotes with single quotes: 'queen seen' for the typed "queen seen")."""
    words = shlex.split(command)
    for quote in ('"', "'"):
        spelled = " ".join(f"{quote}{w}{quote}" if (" " in w or not w) else w for w in words)
        if spelled in text:
            return spelled
    return command
