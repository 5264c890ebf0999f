"""Whether a reply restates what the user's message said: a fact to keep said back ("Anotado: tu vuelo
sale a las 7:15." to "Apunta que mi vuelo sale a las 7:15."), a change named back. A fact of the two
texts, in any language: the longest run of characters they share, across a word boundary. Where a
change was asked, the reply checks ask the model's reading of a claim (``judge.reply_claims``, an
evaluation) only for such a reply to a message that is no question: "hi" answered "Hello! How can I
help?" asks nothing. Where the remember judgement leans to a keeping, a reply that gives back one of
the message's facts (a number, a name, a quote: ``says_back``) is read too: it may say the fact back
translated ("I'll remember your bike is a green Peugeot."), sharing no run of the message.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from nanobot.core.provenance import Provenance

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


def says_back(user_text: str, reply: str) -> bool:
    """``restates``, or ``reply`` keeps one of the facts ``user_text`` (no question) gives: its numbers,
    names or quotes (``Provenance.facts``), in whatever language the rest is said.

    >>> says_back("Pour plus tard : mon vélo est un Peugeot vert.", "Noted, your bike is a green Peugeot.")
    True
    >>> says_back("hi", "Hello! How can I help?"), says_back("Who is Ada Lovelace?", "Ada Lovelace was a mathematician.")
    (False, False)
    """
    if restates(user_text, reply):
        return True
    said = Provenance(said=[user_text])
    return not user_text.rstrip().endswith(("?", "？")) and bool(said.facts()) and said.keeps_a_fact(reply)
