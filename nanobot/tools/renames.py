r"""edit_file's rename: a name the user asked to rename is renamed everywhere in the file.

A rename asked in words ("In units.js the function celsius should be called toCelsius") reaches
edit_file as ``old="celsius", new="toCelsius"``, and the name occurs twice (its definition and its
export): "must occur once" fails, and a small model does not find a unique span that covers both. When
``old`` and ``new`` are both names (identifiers) and both are words of the user's last messages, the
request is that rename: every whole-word occurrence is renamed. Both names must be in the user's last
message, the old one first ("Add a function tip ... like split_bill" renames nothing). Otherwise
nothing is guessed. The other files that message names are renamed too, wherever the old name
occurs (``tools.files``: "Rename shout to yell in textutil.py and test_textutil.py" is one ask, and a
small model's turn ends after its first call), unless the model is sure the message says to leave a
file as it is. A file that already holds the new name is not renamed: the two would become one.

>>> rename("function celsius(f) {}\nmodule.exports = { celsius };\n", "celsius", "toCelsius",
...        ["rename celsius to toCelsius in u.js"])
('function toCelsius(f) {}\nmodule.exports = { toCelsius };\n', 2)
>>> rename("a = x\nb = x\n", "x", "y", ["change the numbers"]) is None
True
>>> rename("def split_bill(t, n): ...\nsplit_bill(1, 2)\n", "split_bill", "tip",
...        ["What does split_bill do?", "Add a function tip(total, pct)"]) is None
True
>>> rename('check "file_ext" "$(file_ext a.tar.gz)" "gz"\n', "file_ext", "gz", ["fix file_ext: tar.gz, not gz"]) is None
True
"""

from __future__ import annotations

import re

from nanobot.tools.namedcode import NAME


def rename(text: str, old: str, new: str, asked: list[str] | None, least: int = 2) -> tuple[str, int] | None:
    """(``text`` with every whole-word ``old`` renamed ``new``, how many) for a rename the user asked
    for (see the module docstring); None otherwise, and where ``old`` occurs fewer than ``least`` times
    (once: a plain edit, unless the rename was made already in another file)."""
    if not asked or not NAME.fullmatch(old) or not NAME.fullmatch(new):
        return None
    words = NAME.findall(asked[-1])  # the last message: "What does split_bill do?" then "Add tip" is no rename
    word = re.compile(rf"(?<![\w$]){re.escape(old)}(?![\w$])")
    hits = len(word.findall(text))
    if old not in words or new not in words or words.index(old) > words.index(new) or hits < least:
        return None
    if re.search(rf"(?<![\w$]){re.escape(new)}(?![\w$])", text):
        return None  # the new name is there already: renaming would merge two names (the expected "gz" of a test)
    return word.sub(new, text), hits
