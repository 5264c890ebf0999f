"""A reply that speaks of the user's files with nothing looked at this turn, where the model judges the
message asks for something read or run here: "you can run the test_pricing.py script again" to "now
make sure the tests still pass", or a listing of files given from memory.

Read from facts, not from the reply's wording: the reply names a file that exists in the roots
(``tools.named``, in any language), no tool was tried this turn, the user's message names nothing to
look at (``lookchecks.not_looked`` has that case), and the model's own look judgement of the message
is a sure yes (``loop.judge``: a right answer needs something read or run on this computer now). A
command the reply names does not count: the look judgement also says yes to how-to questions ("what
command shows the last commit?"), whose answer is the command. The retry
makes the look with the looking tool the runner picks; a reply that still names the files unlooked
then stands.
"""

from __future__ import annotations

from nanobot.loop.verdict import ANY_LOOK, CheckResult, Facts


def named_unlooked(f: Facts) -> CheckResult | None:
    """The reply names the user's files, nothing was tried, and the model judges the message asks for
    something read or run here: retried with a look."""
    if f.done or f.target or (f.offered is not None and not f.offered):
        return None
    names = f.extra.get("files", lambda: [])()  # the reply's paths in the roots (``replycheck.reply_paths``)
    if not names or not f.look_sure:
        return None
    return CheckResult(problem=f"the reply speaks of {names[0]} but nothing was read or run this turn",
                       tool=ANY_LOOK, note=f"[nanobot: you have not looked. Use a tool on this computer for "
                                           f"{names[0]} now and answer from its result.]")
