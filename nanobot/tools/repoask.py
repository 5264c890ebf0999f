"""Whether a message asks about the git repository's state, so that its look is a git command.

"Is there anything here I haven't committed yet?", "Op welke branch staat deze repository nu?": such a
message names no file, and a small model picks a read of one it guesses ("last_commit_message.txt",
".git/logs/...") or answers from the prompt's counts without the names. The facts (the folder relative
paths start in is a git work tree; ``exec`` runs git's read-only commands unasked; the message names no
file, folder or command there) and two judgements of the model's own (``loop.judge``: its repo classifier
sure, and its look classifier sure the message asks something looked up on this computer, or not sure
it does not where the repo classifier is all but certain) make the turn's first call ``exec``, whose
command the model writes ("git status", "git log -1").
"""

from __future__ import annotations

from nanobot.core.features import Agent

# The surer one judgement, the less the other needs: P(repo) at its sure bound (0.7, ``loop.judge.BOUNDS``)
# with the look classifier's sure yes (LOOK_SURE), or P(repo) of REPO_CERTAIN with a look that is merely
# not a sure no (LOOK_NO). P(look) is asked uncalibrated here (``Judge.classified``), as ``asked_here``
# weighs it. On the development sets' turns no turn but git questions reaches REPO_CERTAIN with a look
# over LOOK_NO, save a listing of the folder (docs/tools.md).
LOOK_SURE, LOOK_NO, REPO_CERTAIN = 0.6, 0.5, 0.9


def repo_asked(agent: Agent) -> bool:
    """Whether the user's last message asks about the repository's state (see the module docstring);
    False without the facts, before any judgement is asked."""
    from nanobot.tools.gitexec import unasked
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.paths import base_dir
    from nanobot.tools.repofacts import top_of

    said, settings = agent.provenance.said, agent.settings
    if not said or settings is None or "git status" not in unasked(settings.tools):
        return False
    roots = roots_of(settings)
    if top_of(base_dir(roots)) is None or named(said[-1], roots):
        return False
    if agent.judge.sure(agent, "repo") is not True:
        return False
    look, repo = agent.judge.classified(agent, "look"), agent.judge.probability(agent, "repo") or 0.0
    return look is not None and (look >= LOOK_SURE or repo >= REPO_CERTAIN and look > LOOK_NO)


def repo_args(agent: Agent) -> dict | None:
    """``exec``'s arguments for a look at the repository's state written by the facts: ``git status`` in
    the work tree relative paths start in, whose In short lines (``tools.gitshort``) say what is
    uncommitted and what the newest two commits did. Run where git refused the command the model wrote
    for a repository question ("git show HEAD --kiln.ini"): written again, the model repeats it."""
    from nanobot.tools.named import roots_of
    from nanobot.tools.paths import base_dir
    from nanobot.tools.repofacts import top_of

    top = top_of(base_dir(roots_of(agent.settings))) if agent.settings is not None else None
    return {"command": "git status", "cwd": str(top)} if top is not None else None
