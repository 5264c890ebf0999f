"""A definition renamed to a name nobody said: refused, whatever the lines say.

A request that names a function (to add it, fix it or test it) lets an edit touch that function's
lines; the loss guard (``tools.editloss``) then passes its definition line. The 1.5B, asked again to
add ``repeat_char`` to lib.sh, called ``edit_file(old="repeat_char", new="repeat_char_new")``: the
definition the user named became one nobody named. The fact to go on is the code's: definitions that
disappear (``namedcode.definitions``, any language) while others appear whose names no message of the
user's holds. A rename the user asks gives the new name ("Rename passed to is_passing"), so it passes.

>>> renamed_unasked("f() {\\n  echo\\n}\\n", "f_new() {\\n  echo\\n}\\n", ["Add a function f to lib.sh"])
('f', 'f_new')
>>> renamed_unasked("def passed(g):\\n    pass\\n", "def is_passing(g):\\n    pass\\n",
...                 ["Renomme la fonction passed en is_passing"]) is None
True
>>> renamed_unasked("def a():\\n    pass\\n", "def a():\\n    pass\\n\\n\\ndef _helper():\\n    pass\\n", ["add a"]) is None
True
"""

from __future__ import annotations

from nanobot.core.provenance import PolicyError, Refusal, Refused
from nanobot.tools.namedcode import NAME, definitions


def renamed_unasked(before: str, after: str, asked: list[str]) -> tuple[str, str] | None:
    """(a definition that disappears, one that appears that the user's messages ``asked`` never name)."""
    gone, new = definitions(before) - definitions(after), definitions(after) - definitions(before)
    said = {w for m in asked for w in NAME.findall(m)}
    unnamed = sorted(n for n in new if n not in said)
    return (sorted(gone)[0], unnamed[0]) if gone and unnamed else None


def refuse_unasked_rename(before: str, after: str, asked: list[str] | None, raw: str, tool: str) -> None:
    """Refuse (``PolicyError``) a write of ``after`` over ``before`` that renames a definition unasked;
    ``asked`` None (no conversation) checks nothing."""
    if asked is None or (pair := renamed_unasked(before, after, asked)) is None:
        return
    raise PolicyError(Refused(f"{tool} refused: it would turn {pair[0]} into {pair[1]} in {raw}, a name the user "
                              f"did not give; the file was not changed. Keep {pair[0]}'s name", Refusal.LOSES_LINES))
