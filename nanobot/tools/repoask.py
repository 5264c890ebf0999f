"""Whether a message asks about the git repository's state, so that its look is a git command.

"Is there anything here I haven't committed yet?", "Op welke branch staat deze repository nu?": such a
message names no file, and a small model picks a read of one it guesses ("last_commit_message.txt",
".git/logs/...") or answers from the prompt's counts without the names. The facts (the folder relative
paths start in is a git work tree; ``exec`` runs git's read-only commands unasked; the message names no
file, folder or command there) and two judgements of the model's own (``loop.judge``: its repo classifier
sure, and its look classifier sure the message asks something looked up on this computer) make the
turn's first call ``exec``, whose command the model writes ("git status", "git log -1").
"""

from __future__ import annotations

from nanobot.core.features import Agent

LOOK_SURE = 0.6  # the look classifier's sure yes (``loop.judge.BOUNDS``); P(look) is asked uncalibrated here


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
    look = agent.judge.classified(agent, "look")
    return look is not None and look >= LOOK_SURE
