"""Where a command spelled inside a sentence ends, by the program's own word.

"run git log --oneline and list the commits" spells ``git log --oneline and list the commits`` as far
as the words go, and git answers "ambiguous argument 'and'". A run that fails (``exit`` not 0) naming,
in quotes or before a colon, a word of the command after which only plain words follow (letters, two
or more of them: the sentence's rest) is cut before that word, and the cut command is what the user
asked to run: the program has said where its arguments end, whatever the sentence's language.
A program that fails on one word it was given ("python3 app.py run": KeyError 'run') is not cut.

>>> cut_at_rejected("git log --oneline and list the commits", "exit 128\\nfatal: ambiguous argument 'and': unknown revision")
'git log --oneline'
>>> cut_at_rejected("cat notes.txt y dime qué pone", "exit 1\\ncat: y: No such file or directory")
'cat notes.txt'
>>> cut_at_rejected("git log and list the commits", "exit 128\\nfatal: ambiguous argument 'and': unknown revision")
'git log'
>>> cut_at_rejected("python3 app.py run", "exit 1\\nKeyError: 'run'") is None
True
>>> cut_at_rejected("git log --oneline and list", "exit 0\\nabc123 first") is None
True
"""

from __future__ import annotations

import re

_FAILED = re.compile(r"exit [1-9]\d*\n")


def cut_at_rejected(command: str, output: str) -> str | None:
    """``command`` cut before the first word of a plain-word tail that the failed run's ``output`` names
    (see above); None where the run did not fail or names none."""
    if not _FAILED.match(output):
        return None
    words = command.split()
    for i in range(1, len(words) - 1):
        tail = [w.rstrip(".,;!?") for w in words[i:]]
        if not all(w.isalpha() for w in tail):
            continue
        word = re.escape(tail[0])
        if re.search(rf"['\"`‘“]{word}['\"’”]|(?:^|\s){word}:", output, re.M):
            return " ".join(words[:i])
    return None
