"""Where the conversation's text came from: what the user typed, what the runtime retrieved (memory
blocks, the system prompt's Context), what a tool showed. The Agent keeps one per session
(``Agent.provenance``); the call policy (``nanobot.loop.callpolicy``) and the reply checks
(``nanobot.loop.replycheck``) read it.

>>> p = Provenance()
>>> p.said.append("fix greet.py please"); p.retrieved.append("- greet.py prints hi (observations/x.md:1)")
>>> p.mentioned_by_user("greet.py"), p.only_retrieved("greet.py"), p.only_retrieved("main.py")
(True, False, False)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePath

from nanobot.base.errors import ToolError
from nanobot.core.asks import _FILE
from nanobot.core.grounding import STOP

_WS = re.compile(r"\s+")
_QUOTED = re.compile(r"(?<!\w)[\"'“«„‘]([^\"'”»“’]+)[\"'”»“’](?!\w)")  # what a message quotes
_REF = re.compile(r"\((?:sessions/|observations/|knowledge/)?[\w./-]+:\d+(?:-\d+)?\)")  # a memory line's source
# the call policy's refusals of a call nobody asked for (``nanobot.loop.callpolicy.refusal``)
FROM_RETRIEVED = "comes from retrieved memory or context, not from the user in this conversation"
NOT_ASKED = "the user did not ask for a change in this conversation"
UNGIVEN_VALUE = "a value the user did not give"


class Refusal(StrEnum):
    """Which call-policy rule refused a call (``nanobot.loop.callpolicy``); a ``ToolResult`` carries
    it as ``refused``."""

    FROM_RETRIEVED = "from retrieved"
    NOT_ASKED = "not asked"
    NOT_MEMORY = "not memory"
    OTHER_FILE = "other file"
    KEEP = "keep"
    LOSES_LINES = "loses lines"
    UNSAID = "unsaid"
    UNGIVEN = "ungiven value"

    @property
    def unasked(self) -> bool:
        """A call the user never asked for (its target came only from retrieved text, no change was
        asked, the user said to change nothing, or an edit put a value of its own where the ask was not
        clear): nothing the user needs to hear of."""
        return self in (Refusal.FROM_RETRIEVED, Refusal.NOT_ASKED, Refusal.KEEP, Refusal.UNGIVEN)


class Refused(str):
    """A refusal's message, typed: ``kind`` says which rule refused (``Refusal``)."""

    kind: Refusal

    def __new__(cls, text: str, kind: Refusal) -> Refused:
        obj = super().__new__(cls, text)
        obj.kind = kind
        return obj


class PolicyError(ToolError):
    """A call refused by the call policy or by a tool's own guard (``tools.editloss``); ``kind``
    is the rule (``Refusal``): ``ToolRunner`` puts it on the ToolResult."""

    def __init__(self, why: Refused):
        super().__init__(str(why))
        self.kind = why.kind


def call_key(name: str, args: dict) -> str:
    """A call as the tool steps compare calls (``Provenance.ran``): the same key is the same call made again."""
    return f"{name} {json.dumps(args, sort_keys=True)}"


def unasked(refusal: str) -> bool:
    """Whether a tool's error text is the call policy refusing a call nobody asked for; for callers
    that hold only the text (the template step's notes: ``tools/templatecalls.py``). A ``ToolResult``
    says it typed: ``refused``."""
    return " refused: " in refusal and (FROM_RETRIEVED in refusal or NOT_ASKED in refusal or UNGIVEN_VALUE in refusal)


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().lower()


def _forms(value: str) -> list[str]:
    """A path is named by its full form or its file name (``src/greet.py`` or ``greet.py``)."""
    value = _norm(value).strip("'\"`")
    forms = [value]
    name = PurePath(value).name
    if name and name != value and "." in name:
        forms.append(name)
    return [f for f in forms if f]


def facts_of(text: str) -> list[str]:
    """What ``text`` gives of its own: its numbers, what it quotes, and the words written with a capital
    inside a sentence (names: "Miso"; "Miso's" gives "Miso"; "I'm" none)."""
    inside = re.findall(r"(?<![.!?:]\s)(?<=\s)[^\W\d_][\w'’-]*", text)  # words after a space, not after a full stop
    names = [re.split(r"['’]", w)[0] for w in inside if w[0].isupper()]
    return [*re.findall(r"\d+", text), *_QUOTED.findall(text), *(n for n in names if len(n) >= 2)]


def is_question(text: str) -> bool:
    """Whether ``text`` asks: it holds a question mark, in any script.

    >>> is_question("What's my locker number?"), is_question("¿Cuál es mi taquilla？"), is_question("Note it.")
    (True, True, False)
    """
    return any(q in text for q in "?？؟")


def restated(text: str, line: str, share: float = 0.5) -> bool:
    """Whether ``line`` already says what ``text`` says: every fact of ``text`` (``facts_of``) is in it,
    and so are at least two of its content words (3+ letters, no stop word, at a word's start) and
    ``share`` of them. A message asking about a kept line, or a fact told back, restates that line.

    >>> restated("My bike lock code is 6083.", "- The code of my bike lock is 6083", 2 / 3)
    True
    >>> [restated(a, b) for a, b in [("My bike lock code is now 6084.", "- The code of my bike lock is 6083"),
    ...                              ("My PIN is 6083", "- my bike lock code is 6083"), ("I have 2 cats", "- I have 2 dogs")]]
    [False, False, False]
    """
    have = _norm(line)
    words = {w for w in re.findall(r"\w+", _norm(text)) if len(w) >= 3 and w not in STOP and not w.isdigit()}
    shared = {w for w in words if re.search(rf"(?<!\w){re.escape(w)}", have)}
    return (len(shared) >= 2 and len(shared) >= share * len(words)
            and all(_norm(f) in have for f in facts_of(text)))


@dataclass
class Provenance:
    said: list[str] = field(default_factory=list)  # the user's messages as typed, this session
    retrieved: list[str] = field(default_factory=list)  # memory blocks and Context the runtime added
    looked: list[str] = field(default_factory=list)  # tool results shown this session
    this_turn: list[str] = field(default_factory=list)  # tool results (looks and searches) since the last message
    ran: set[str] = field(default_factory=set)  # calls run since the last message before the tool steps (``call_key``)
    lured: int = 0  # len(said) when a call was last refused as nobody's ask (``unlured``)
    missed: tuple[int, str] | None = None  # (len(said), path) of this turn's edit whose old was not found (``tools.retryedit``)
    before: dict[str, str] = field(default_factory=dict)  # each file a file tool wrote this turn: its text before ("" new)

    def _in(self, value: str, texts: list[str]) -> bool:
        hay = [_norm(t) for t in texts]
        return any(f in h for f in _forms(value) for h in hay)

    def mentioned_by_user(self, value: str) -> bool:
        return self._in(value, self.said)

    def seen_by_tool(self, value: str) -> bool:
        return self._in(value, self.looked)

    def grounded(self, value: str) -> bool:
        """Whether ``value`` shares a content word with what the user said or a tool showed this
        session: a fact to keep comes from the conversation, not from nowhere. A content word is a
        number, or a word of 3+ letters that is no stop word (``core.grounding.STOP``: "that" and "this"
        are in every sentence), found at the start of a word there ("cat" is not in "bobcat"; "leave"
        is in "leaves"). A word in a script without spaces ("我的火车七点出发") is matched by any two
        characters of it.

        >>> Provenance(said=["remember that my train leaves at 7"]).grounded("12345")
        False
        >>> Provenance(said=["remember that my train leaves at 7"]).grounded("The user's train: 7 am")
        True
        >>> Provenance(said=["remember that my cat is called Miso"]).grounded("This is a fact, and that is all.")
        False
        """
        hay = " ".join(_norm(t) for t in [*self.said, *self.looked])
        words = {w for w in re.findall(r"\w+", _norm(value)) if w.isdigit() or len(w) >= 3 and w not in STOP}
        return any(re.search(rf"(?<!\w){re.escape(w)}" + (r"(?!\d)" if w.isdigit() else ""), hay)
                   or not w.isascii() and any(w[i:i + 2] in hay for i in range(len(w) - 1)) for w in words)

    def facts(self) -> list[str]:
        """What the user's last message gives of its own: its numbers, what it quotes, and the words
        written with a capital inside a sentence (names: "Miso"; "Miso's" gives "Miso"; "I'm" none).

        >>> Provenance(said=["remember that my cat Miso's vet is Dr Vale, door 12"]).facts()
        ['12', 'Miso', 'Dr', 'Vale']
        """
        return facts_of(self.said[-1] if self.said else "")

    def points_back(self) -> bool:
        """Whether the user's last message may be about something said before, rather than carry a fact
        of its own (``facts``: "remember that", "merk dir das bitte"; not "remember that my cat is
        called Miso").

        >>> Provenance(said=["please remember what I just told you"]).points_back()
        True
        >>> Provenance(said=["remember that my cat is called Miso"]).points_back()
        False
        """
        return not self.facts()

    def keeps_a_fact(self, value: str) -> bool:
        """Whether ``value`` keeps at least one of the facts the user's last message gives (``facts``;
        True where it gives none): "The fact that you have a cat is a very special thing" shares "cat"
        with "remember that my cat is called Miso" but keeps nothing of what was said about it.

        >>> p = Provenance(said=["remember that my cat is called Miso"])
        >>> p.keeps_a_fact("The fact that you have a cat is special"), p.keeps_a_fact("The user's cat: miso")
        (False, True)
        """
        have, quoted, facts = _norm(value), _QUOTED.findall(self.said[-1] if self.said else ""), self.facts()
        return not facts or any(
            Provenance(said=[f]).grounded(value) if f in quoted else  # a quote by any content word of it
            re.search(rf"(?<!\d){f}(?!\d)", have) if f.isdigit() else
            re.search(rf"(?<!\w){re.escape(f.lower())}", have) if f.isascii() else f.lower() in have
            for f in facts)

    def grounded_here(self, value: str) -> bool:
        """Whether ``value`` is grounded (``grounded``) in the user's last message, or anywhere in the
        session (what a tool showed included) where that message points back (``points_back``): a fact to keep is
        the one the message that asks to keep it gives, not a number from an earlier question."""
        if self.points_back():
            return self.grounded(value)
        return Provenance(said=self.said[-1:]).grounded(value)  # not an earlier turn's tool result either

    def has_facts(self) -> bool:
        """Whether the user's last message may ask to keep something new, rather than ask about a fact
        memory already holds: it is about a kept fact when at least two of its content words, and half
        of them, are in one retrieved line (the memory block, a search's result) and every fact it gives
        (``facts``) is there too. "Remind me of the boiler company's phone number" beside "The boiler
        service company is Hartwell & Sons, phone 0161 496 0732" asks; a keeping forced on it could only
        copy memory back.

        >>> kept = ["- The boiler service company is Hartwell & Sons, phone 0161 496 0732. (MEMORY.md:4)"]
        >>> Provenance(said=["Remind me of the boiler company's phone number."], retrieved=kept).has_facts()
        False
        >>> Provenance(said=["Keep in mind the boiler company moved to phone 0161 555 0100."], retrieved=kept).has_facts()
        True
        >>> Provenance(said=["remember that I'm vegetarian"], retrieved=kept).has_facts()
        True
        """
        last = self.said[-1] if self.said else ""
        return not any(restated(last, line) for text in self.retrieved for line in text.splitlines() if line.strip())

    def unsaid(self, value: str) -> list[str]:
        """What ``value``, a fact to keep, holds that the user never said: its numbers, and its names and
        content words found in what a tool showed but not in the user's words. The user's words are the
        last message, or the session's where it points back (``points_back``: "remember what I just
        told you"), and then what a tool showed counts as said ("remember the port in server.cfg").

        >>> p = Provenance(said=["keep this in mind: my gym locker is 42"], looked=["Passphrase: tangerine owl 17"])
        >>> p.unsaid("gym locker 42"), p.unsaid("gym locker 42, passphrase tangerine owl 17")
        ([], ['17', 'passphrase', 'tangerine', 'owl'])
        >>> Provenance(said=["my train leaves at 7:42, remember it"]).unsaid("train at 7.42 from Delft")
        ['Delft']
        """
        back = self.points_back()
        said = _norm(" ".join([*self.said, *self.looked] if back else self.said[-1:]))
        shown = "" if back else _norm(" ".join(self.looked))
        out: list[str] = []
        for num in re.findall(r"\d+", value):
            if num.strip("0") and not re.search(rf"(?<!\d){num}(?!\d)", said):
                out.append(num)
        names = Provenance(said=[value]).facts()
        for word in re.findall(r"[^\W\d_][\w'’-]*", value):
            key = word.lower()
            name = word in names and len(word) >= 2
            if not (name or len(key) >= 3 and key not in STOP and re.search(rf"(?<!\w){re.escape(key)}", shown)):
                continue
            if not (re.search(rf"(?<!\w){re.escape(key)}", said) if key.isascii() else key in said):
                out.append(word)
        return list(dict.fromkeys(out))

    def only_retrieved(self, value: str) -> bool:
        """True when ``value`` occurs in retrieved text but neither the user nor a tool brought it."""
        return (bool(value.strip()) and self._in(value, self.retrieved)
                and not self.mentioned_by_user(value) and not self.seen_by_tool(value))

    def unlured(self, content: str, always: bool = False) -> str:
        """The user's message ``content`` without the retrieved block in front of it, once a call this
        turn was refused as nobody's ask (or ``always``): a model that copied a memory note into a call
        would otherwise copy it again, call after call."""
        if not self.said or not (always or self.lured == len(self.said)):
            return content
        block = self._block(content)
        return content[len(block):].lstrip("\n") if block else content

    def lures(self, content: str) -> bool:
        """Whether the retrieved block in front of the user's message names a file that neither the user
        nor a tool brought (its source references aside): a call decided with it may come from it alone."""
        block = _REF.sub("", self._block(content))
        return any(not self.mentioned_by_user(m.group(1)) and not self.seen_by_tool(m.group(1))
                   for m in _FILE.finditer(block))

    def _block(self, content: str) -> str:
        for block in self.retrieved:
            if block and content.startswith(block) and content[len(block):].lstrip("\n").startswith(self.said[-1]):
                return block
        return ""
