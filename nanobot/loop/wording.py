"""The phrase lists that remain, per language, in one place: the fallback for a backend that cannot
score the model's own yes/no judgement (``nanobot.loop.judge``: an OpenAI-compatible server has no
first-token probabilities), and for the reply checks' reading of the *model's* reply (a claimed
change, a declined one), which is text the runtime must read as text.

On a llama.cpp model no list here decides whether a tool runs: the judgement does, with the facts
of ``nanobot.core.named`` (a path the message names exists in the roots). Only English is listed;
another language is a dict entry of the same keys, and ``asks`` reads every language listed.
"""

from __future__ import annotations

import re

WORDS: dict[str, dict[str, str]] = {
    "en": {
        # a request to change something (and the assent to a proposed change: "yes", "go ahead")
        "change": r"write|writes|create|make|save|edit|change|modify|fix|add|append|insert|update|replace|rename|"
                  r"delete|remove|put|implement|refactor|correct|generate|rewrite|overwrite|commit|apply|set|"
                  r"touch|move|copy|install|yes|ok|okay|go ahead|do it|please do|sure",
        # a request to keep something in memory
        "remember": r"remember|memori[sz]e|note|save|keep in mind",
        # the words that name a file without its name
        "file": r"file|files|folder|directory|script|module|readme|config",
    },
}


def _pattern(key: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(lang[key] for lang in WORDS.values() if key in lang) + r")\b", re.I)


_COMPILED = {key: _pattern(key) for key in ("change", "remember", "file")}


def says(key: str, text: str) -> bool:
    """Whether ``text`` holds a phrase of ``key`` in a listed language.

    >>> says("change", "please fix calc.py"), says("change", "What is 2+2?")
    (True, False)
    """
    if key == "remember":
        return bool(_COMPILED[key].search(text)) and not text.rstrip().endswith("?")
    return bool(_COMPILED[key].search(text))


# -- the model's reply, read as text (what it claims, denies or says is absent) ----------------------
_VERBS = (r"(?:created|updated|edited|written|wrote|saved|added|changed|modified|fixed|deleted|removed|renamed|replaced|"
          r"appended|inserted|stored|remembered)")
REPLY: dict[str, re.Pattern[str]] = {
    # a claimed change; not a bare "successfully": "greet.py was read successfully" claims no change
    "claim": re.compile(rf"\b(?:I(?:'ve| have)?\s+(?:now\s+|successfully\s+|also\s+)?{_VERBS}|(?:has|have)\s+(?:now\s+)?"
                        rf"been\s+(?:successfully\s+)?{_VERBS}|{_VERBS}\s+successfully|successfully\s+{_VERBS}|"
                        r"the user edited|is now (?:saved|updated|created|stored|in))\b", re.I),
    # "File hello.txt created.": a claim when a change was asked
    "done": re.compile(rf"\b(?:{_VERBS}|done|deleted)\b", re.I),
    "denial": re.compile(r"\b(?:fail|failed|failure|error|could ?n[o'’]t|can(?:no|['’]| no)t|unable|not found|did ?n[o'’]t|"
                         r"was ?n[o'’]t|not (?:been )?(?:changed|created|updated|edited|saved|able)|no (?:access|tool)|sorry|"
                         r"gave up|give up|does ?n[o'’]t exist|do ?n[o'’]t exist|no such|there (?:is|are) no|"
                         r"is ?n[o'’]t (?:there|any))\b", re.I),
    # "X does not exist" / "there is no X" states what is on disk: it needs a look like any content does
    "absent": re.compile(r"\b(?:not found|does ?n[o']t exist|do ?n[o']t exist|no such|there (?:is|are) no|"
                         r"is ?n[o']t (?:there|any)|there is ?n[o']t|no,? there is)\b", re.I),
    "files": re.compile(r"\bfiles?\b", re.I),
    # a slot left for a value the model does not have ("The most recent commit is: [commit-hash]"): a
    # bracketed name with a letter in it, not a Markdown link, a checkbox, an index (``d[key]``), a
    # quoted key, a list or nanobot's own note
    "placeholder": re.compile(r"(?<![\w\])])\[(?!nanobot\b)(?=[^\]\n]*[^\W\d_])[^\]\[\n(),\"'`]{3,40}\](?!\()", re.I),
}

# -- the user's message, where no judgement can be scored (the fallback of ``says``) -----------------
USER: dict[str, re.Pattern[str]] = {
    "create": re.compile(r"\b(?:create|new|write)\b", re.I),  # a new file's writer, for a retry's note
    "asks_how": re.compile(r"\s*(?:how|what|why|where|when|which|who|should|would)\b", re.I),  # a question about a change
}
