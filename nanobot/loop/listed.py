"""The reply checks about a folder listing: a reply that names none of the entries a listing showed.

"There are 14 files and 9 folders here." may be the answer ("how many files are here?") or not
("which files are here?"); which one only the message's meaning says. So such a reply stands, and the
listing goes under it, without a retry and without calling it wrong: the user has the names either way.
A count that is none of the listing's (its files, its folders, both together) is not from it: retried
with the listing, then corrected. ``lookchecks.not_from_look`` hands a listing of the folder the
message names to ``listing_answer``; ``listing_unnamed`` is the same for a message that names none
("which files are here?"), where the model's look judgement must be a sure yes.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from nanobot.loop.verdict import CheckResult, Facts, Outcome
from nanobot.tools.listing import entries, read

_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.]*\d)")


def names_any(reply: str, names: list[str]) -> bool:
    """Whether the reply names an entry, whole or without its suffix, as a word ("old" is no word of "folders")."""
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", reply, re.I)
               for name in names for n in {name, PurePath(name).stem} if n)


def listing_answer(f: Facts, o: Outcome) -> CheckResult | None:
    """For a listing ``o`` whose entries the reply does not name: the listing under the reply, or, where
    the reply gives a count the listing does not, a retry with it; None when ``o`` is no listing or
    the reply names an entry."""
    listing = read(o.text)
    if not listing or not listing.names or names_any(f.reply, listing.names):
        return None
    where = str((o.args or {}).get("path", "")) or "the folder"
    body = f"{listing.notes}\n{listing.body}".strip()  # its own notes too: "this is nanobot's workspace, not ..."
    if {int(n) for n in _NUMBER.findall(f.reply)} - listing.counts:
        return CheckResult(
            problem=f"the reply's count is not what {o.name} showed",
            note=f"[nanobot: your reply did not use what {o.name} returned:\n{o.text[:1500]}\nAnswer the user's "
                 "message now from this result, in plain sentences.]",
            correction=f"(nanobot: the reply above is not from {where}; {o.name} returned:\n{body[:800]})")
    return CheckResult(problem=f"the reply names nothing {o.name} showed", retry=False,
                       correction=f"(nanobot: {o.name} {where} showed:\n{body[:800]})")


def listing_unnamed(f: Facts) -> CheckResult | None:
    """A listing ran for a message that names nothing to look at, the model sure that it asks to see,
    list or count something, and the reply names none of its entries (``listing_answer``)."""
    listed = [o for o in f.done if o.looks and o.ok and entries(o.text)]
    if f.target or not listed or names_any(f.reply, entries(listed[-1].text) or []) or not f.look_sure:
        return None
    return listing_answer(f, listed[-1])
