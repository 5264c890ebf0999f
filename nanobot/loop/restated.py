"""Whether a reply restates what the user's message said: a fact to keep said back ("Anotado: tu vuelo
sale a las 7:15." to "Apunta que mi vuelo sale a las 7:15."), a change named back. A fact of the two
texts, in any language: the longest run of characters they share, across a word boundary. The reply
checks ask the model's reading of a claim (``judge.reply_claims``, an evaluation) only for such a
reply to a message that is no question: "hi" answered "Hello! How can I help?" asks nothing.
"""

from __future__ import annotations

from difflib import SequenceMatcher

RUN = 10  # characters in common, a space among them: two words or more said back


def restates(user_text: str, reply: str) -> bool:
    """Whether ``reply`` says back a run of ``user_text`` (not a question) of ``RUN`` characters or more.

    >>> restates("Apunta que mi vuelo sale a las 7:15.", "Anotado: tu vuelo sale a las 7:15.")
    True
    >>> restates("hi", "Hello! How can I help?"), restates("When does my flight leave?", "Your flight leaves at 7:15.")
    (False, False)
    """
    said, back = " ".join(user_text.lower().split()), " ".join(reply.lower().split())
    if not said or said.endswith(("?", "？")):
        return False
    run = SequenceMatcher(None, said, back, autojunk=False).find_longest_match(0, len(said), 0, len(back))
    common = said[run.a:run.a + run.size].strip()
    return len(common) >= RUN and " " in common
