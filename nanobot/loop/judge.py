"""The model's own yes/no judgement of what the user's message asks, in any language it reads.

``asks(agent, "change")``: the probability mass the model puts on "yes" against "no" as the first
token of its answer to one short question (``QUESTIONS``) appended to the conversation as the model
sees it this turn. The conversation is the prompt's prefix, already in llama.cpp's KV cache, so a
judgement costs the question's tokens and one token per answer, and the reply that follows still
reuses the cache up to the user's message. A backend without first-token probabilities (an
OpenAI-compatible server) gets None: the caller falls back to ``nanobot.loop.wording``.

The judgements are cached per user message; the call policy (``nanobot.loop.callpolicy``) and the
reply checks (``nanobot.loop.replycheck``) read them instead of English word lists.
"""

from __future__ import annotations

from typing import Any

from nanobot.backends.base import Message
from nanobot.base.errors import ModelError
from nanobot.core.features import Agent
from nanobot.core.gitasks import (
    DIFF_SHOTS,
    DIFF_SYSTEM,
    HISTORY_SHOTS,
    HISTORY_SYSTEM,
    REPO_SHOTS,
    REPO_SYSTEM,
)

QUESTIONS = {
    "change": "Does this message ask you to create, change, add to, rename or delete a file, a setting or a "
              "saved item (or agree to such a change you proposed)?",  # ``ALLOW`` where the backend has it
    "look": "Does this message ask you to show, read, list, count or run something on this computer "
            "(a file, a folder or a command)?",
    "remember": "Does this message ask you to remember or keep a fact for later?",
    "keep": "Does this message tell you to leave a file unchanged (to look at it or answer about it without editing it)?",
    "repair": "Does this message report something broken, failing or wrong in a file or program for you to fix?",
}


# "change" is asked as a classifier of its own: a few-shot prompt (``ALLOW``), scored apart from the
# conversation (``LlamaBackend.yes_no_apart``, which puts the conversation's KV state back), because a
# small model's yes/no on a question appended to the conversation barely moves with the message, while
# with examples it separates asks from the rest. The examples are in three languages; a coding ask (a test
# to add) and a question about code are among them, which a request to add a test otherwise falls under.
ALLOW_SYSTEM = ("You classify messages to an assistant that can edit files. Does the message allow you to "
                "change a file? Answer only yes or no.")
ALLOW_SHOTS = (("Fix the typo in readme.md", "yes"), ("what's in notes.txt?", "no"),
               ("Open report.txt and tell me the total, but don't edit it.", "no"),
               ("Füge in plan.md eine Zeile 'Montag: Sport' hinzu", "yes"), ("good morning!", "no"),
               ("Only change the title in index.html, leave everything else alone.", "yes"),
               ("Regarde config.json sans le modifier : quel est le port ?", "no"), ("delete old.log", "yes"),
               ("Add a test for parse to test_util.py", "yes"), ("Does parse in util.py handle empty input?", "no"))
# The look classifier asks whether a right answer needs something read or run on this computer now,
# with examples of both kinds in four languages (a state of the repository or a running server asked, a
# how-to, a fact about the world, small talk or a change not: two changes among the no's keep a change
# request under the calibration's no, and a check to run among the yes's keeps "make sure the tests
# still pass" a look): asked only "does it ask you to show, read, list, count or run?", a small model says yes to thanks
# and to how-to questions too.
LOOK_SYSTEM = ("You sort messages sent to an assistant that runs on the user's computer, next to their files, "
               "folders and git repository. Answer yes when a right answer needs something read or run on that "
               "computer now: a file, a folder, the repository's state, a program's output. Answer no when general "
               "knowledge, the conversation or the assistant's memory answers it, or when it is small talk or asks "
               "for a change. Answer only yes or no.")
LOOK_SHOTS = (("show me config.json", "yes"), ("thanks, great!", "no"), ("Who discovered penicillin?", "no"),
              ("Läuft mein Server noch auf Port 8080?", "yes"),
              ("Hab ich noch Änderungen, die nicht committet sind?", "yes"), ("How do I delete a branch in git?", "no"),
              ("¿Cuántas líneas tiene datos.csv?", "yes"), ("translate 'thank you' into Spanish", "no"),
              ("Quel est le plus long fleuve du monde ?", "no"), ("what does the newest log file in logs/ say?", "yes"),
              ("what did the build log say about warnings?", "yes"), ("what's 12% of 250?", "no"),
              ("Liste les fichiers du dossier images", "yes"), ("Fix the typo in readme.md", "no"),
              ("Vérifie que le script de build passe toujours", "yes"), ("rename draft.md to final.md", "no"))
# Remember: indirect asks ("just so you're aware") are among the yes's; a thanks is among the no's, which
# a small model otherwise judges a sure yes and keeps with memory_add.
REMEMBER_SYSTEM = ("You classify messages to an assistant with a memory. Does the message ask you to remember or "
                   "keep a fact for later? Answer only yes or no.")
REMEMBER_SHOTS = (("Keep in mind that my flight leaves at 9.", "yes"), ("what's in notes.txt?", "no"),
                  ("Notiere dir: Oma hat am 5. Mai Geburtstag", "yes"), ("thanks, that was really helpful!", "no"),
                  ("good morning!", "no"),
                  ("N'oublie pas que je suis végétarien.", "yes"), ("What did I tell you about my flight?", "no"),
                  ("My dog is named Rex, please don't forget it.", "yes"), ("Fix the typo in readme.md", "no"),
                  ("Just so you're aware, I work night shifts.", "yes"), ("Put 'eggs' on shopping.md", "no"))
# The create classifier is asked only where edit_file met a path that is not there: a request to make a
# new file is then written (``tools.files``), a change of a file that is missing is not.
CREATE_SYSTEM = ("You classify messages to an assistant that can write files. Does the message ask you to make a "
                 "new file, one that is not there yet? Answer yes only for a new file; a change to a file is no. "
                 "Answer only yes or no.")
CREATE_SHOTS = (("Create a file shopping.txt with eggs and bread", "yes"), ("Fix the spelling in report.md", "no"),
                ("Erstelle eine neue Datei notizen.md mit der Überschrift Ideen", "yes"),
                ("Change the colour in theme.css to blue", "no"),
                ("Écris un nouveau script bonjour.py qui affiche bonjour", "yes"),
                ("Add 'call mum' to the end of todo.txt", "no"), ("Save this recipe as pancakes.md", "yes"),
                ("what's in budget.csv?", "no"))
# Keep: "leave this file as it is", asked apart from "does it allow a change?", whose few-shot can read
# "Can you take a look at server.cfg and tell me which port it uses? Don't change anything." as allowing
# one. Its sure yes vetoes a change of a named file (``callpolicy``'s KEEP).
KEEP_SYSTEM = ("You classify messages to an assistant that can edit files. Does the message tell you to leave a file "
               "unchanged -- to look at it, read it or answer about it without editing it? A request to change a file "
               "is no, even when it says to leave the rest alone; a question that does not forbid edits is no. "
               "Answer only yes or no.")
KEEP_SHOTS = (("Show me notes.txt, but don't edit it.", "yes"), ("Fix the typo in readme.md", "no"),
              ("Lies plan.md vor, ohne etwas zu ändern.", "yes"), ("What's in todo.txt?", "no"),
              ("Only change the title in index.html, leave everything else alone.", "no"),
              ("¿Qué puerto usa config.ini? No lo modifiques.", "yes"), ("good morning!", "no"),
              ("Tell me what budget.csv says; I'll edit it myself.", "yes"))
# Repair: a report that something is broken or wrong (a failing test, an error, a wrong result), which asks
# for a fix of the file it names though it names no change: the change classifier reads "X still fails after
# your change" as no. Its sure yes asks for the change and lifts the KEEP veto (``callpolicy``).
REPAIR_SYSTEM = ("You classify messages sent to an assistant that works on the user's code with them. Does the message "
                 "report something broken, failing or wrong in a file or a program (an error, a failing test, a wrong "
                 "result) for you to fix? A question about what code does, a request only to look or to run "
                 "something, thanks or small talk is no. Answer only yes or no.")
REPAIR_SHOTS = (("The test in test_math.py fails since your last change.", "yes"), ("What does test_math.py check?", "no"),
                ("sort.py gibt die Liste verkehrt herum aus.", "yes"), ("thanks, all green now!", "no"),
                ("main.py: TypeError: unsupported operand type(s) for +: 'int' and 'str'", "yes"),
                ("run the tests in test_math.py", "no"),
                ("La función total en cuentas.py suma mal los impuestos.", "yes"),
                ("Montre-moi sort.py sans le modifier.", "no"))
# Claimed: the *reply* read with the message it answers: does it say something was kept or changed? The
# reply checks read an English list first (``wording.REPLY``); this reads a claim in the words and the
# language the model chose ("C'est noté", "Anotado", "I'll keep that in mind"). Given the reply alone, a
# small model takes explanations for claims; with the message it separates them, at a high boundary (its
# yes's sit high). A translation and a poem are among the no's: a reply that gives what was asked ('"Good
# night" in German is "Gute Nacht".') is no claim of a keeping. The text classified is ``claim_text``'s.
CLAIMED_SYSTEM = ("You read a user's message to an assistant and the assistant's reply. Answer yes when the reply "
                  "says the assistant itself did or will keep something: it saved, noted or remembered a fact, or "
                  "wrote, changed, created or deleted a file. Answer no when the reply only answers, explains how "
                  "something works, shows what a file says, greets, asks, offers or says it could not. Answer only "
                  "yes or no.")


def claim_text(message: str, reply: str) -> str:
    """The claimed classifier's input: the user's message and the reply to it."""
    return f"Message: {message}\nReply: {reply}"


CLAIMED_SHOTS = tuple((claim_text(m, r), a) for (m, r), a in (
    (("Put 'call the bank' at the end of tasks.txt", "I've put 'call the bank' at the end of tasks.txt."), "yes"),
    (("How many lines does tasks.txt have?", "tasks.txt has two lines."), "no"),
    (("Mein Zug fährt um 8.", "Alles klar, ich merke mir: dein Zug fährt um 8."), "yes"),
    (("Wann fährt mein Zug?", "Dein Zug fährt um 8."), "no"),
    (("Cambia el color a azul en estilo.css", "Listo, cambié el color a azul en estilo.css."), "yes"),
    (("Cambia el color a azul en estilo.css", "No pude abrir estilo.css, así que no cambié nada."), "no"),
    (("Translate 'thank you' into French.", "'Thank you' in French is 'merci'."), "no"),
    (("I'm vegetarian, keep that in mind.", "Sure, I'll keep that in mind!"), "yes"),
    (("Explain what git revert does.", "Git revert creates a new commit that undoes an earlier one."), "no"),
    (("Write a short poem about snow.", "Snow falls soft and slow, / the quiet town sleeps."), "no"),
    (("Add eggs to tasks.txt", "Should I add it to tasks.txt?"), "no")))
# Run: does the message ask for a program to be run, its output the answer? Asked only where the message
# names a program file in the roots or a command the allow list holds (``loop.runasked.asked_run``): then
# "what does X.py do?" is a read and "what does X.py print?" a run, in any language.
RUN_SYSTEM = ("You classify messages sent to an assistant that can run programs, tests and commands on the user's "
              "computer. Does the message ask the assistant to run something now -- a program or script, the "
              "project's tests, or a command -- so that what it prints, or whether it passes, answers the message? "
              "Thanks, a question about what code does or contains, a request to write, change, fix, read or show "
              "a file or a test, and a how-to question are no. Answer only yes or no.")
RUN_SHOTS = (("Execute backup.sh, what's the output?", "yes"), ("Thanks, the backup script works now!", "no"),
             ("Führ mal zahlen.py aus, was kommt raus?", "yes"), ("What does backup.sh do?", "no"),
             ("Run the test suite and tell me what fails", "yes"), ("Merci, les tests passent maintenant.", "no"),
             ("¿Qué imprime saludo.py cuando lo ejecuto?", "yes"), ("Add a test for parse_date to test_dates.py", "no"),
             ("Lance le script stats.py", "yes"), ("How do I run the tests in a Python project?", "no"),
             ("Prüf mal, ob die Tests noch durchlaufen.", "yes"), ("Zeig mir zahlen.py", "no"),
             ("count the words in essay.txt with wc -w", "yes"), ("Fix the bug in stats.py", "no"),
             ("what does stats.py print?", "yes"), ("¿Qué hace la función limpiar en datos.py?", "no"),
             ("Ouvre compte.py sans le lancer et explique-le.", "no"), ("Show me deploy.py without running it", "no"))
# Rename: the message with one pair of names from it, the old one a name its files define and the new
# one a name no file holds (``tools.renameask``): does the message ask that rename? A pair with the
# wrong new name ("to", "en", a word of the sentence) and a message asking a fix or an addition are no.
RENAME_SYSTEM = ("You read a user's message to an assistant that edits code, and one rename of a name in that code. "
                 "Answer yes when the message asks to rename the first name to the second, in any words or language. "
                 "Answer no when the message asks something else -- a fix, a new function, a test, a question, a "
                 "move -- or when the second name is not the new name the message asks for. Answer only yes or no.")


def rename_text(message: str, old: str, new: str) -> str:
    """The rename classifier's input: the user's message and one rename."""
    return f"Message: {message}\nRename: {old} -> {new}"


RENAME_SHOTS = tuple((rename_text(m, o, n), a) for (m, o, n), a in (
    (("Rename add_item to append_item in cart.py", "add_item", "append_item"), "yes"),
    (("Rename add_item to append_item in cart.py", "add_item", "to"), "no"),
    (("Benenne die Klasse Kunde in Client um.", "Kunde", "Client"), "yes"),
    (("Benenne die Klasse Kunde in Client um.", "Kunde", "in"), "no"),
    (("Fix total in bill.py so it adds the tax", "total", "adds"), "no"),
    (("Renombra la función limpiar a sanear en datos.py", "limpiar", "sanear"), "yes"),
    (("In stats.py, make mean return 0 for an empty list", "mean", "empty"), "no"),
    (("Call parse_args get_options instead, in cli.py and main.py", "parse_args", "get_options"), "yes"),
    (("Use format_date inside print_report in report.py", "format_date", "print_report"), "no"),
    (("Renomme la méthode save en store partout dans db.js", "save", "partout"), "no")))
# the questions asked as classifiers of their own (``yes_no_apart``) where the backend can
CLASSIFIERS = {"run": (RUN_SYSTEM, RUN_SHOTS), "change": (ALLOW_SYSTEM, ALLOW_SHOTS), "look": (LOOK_SYSTEM, LOOK_SHOTS),
               "remember": (REMEMBER_SYSTEM, REMEMBER_SHOTS), "create": (CREATE_SYSTEM, CREATE_SHOTS),
               "keep": (KEEP_SYSTEM, KEEP_SHOTS), "repair": (REPAIR_SYSTEM, REPAIR_SHOTS),
               "claimed": (CLAIMED_SYSTEM, CLAIMED_SHOTS), "diff": (DIFF_SYSTEM, DIFF_SHOTS),
               "rename": (RENAME_SYSTEM, RENAME_SHOTS), "repo": (REPO_SYSTEM, REPO_SHOTS),
               "history": (HISTORY_SYSTEM, HISTORY_SHOTS)}
# where a judgement counts, per kind: (no under, yes at or over); between, the model is unsure. The
# change classifier has one boundary, between the asks and the other messages of its development set
BOUNDS = {"run": (0.5, 0.75), "change": (0.6, 0.6), "look": (0.5, 0.6), "remember": (0.7, 0.7), "create": (0.9, 0.9),
          "keep": (0.6, 0.6), "repair": (0.6, 0.6), "claimed": (0.92, 0.92), "diff": (0.6, 0.7),
          "rename": (0.5, 0.95), "repo": (0.5, 0.7), "history": (0.5, 0.7)}  # keep: a veto errs toward letting a change be


# A model's classifier is used only where it gets these right (asked once per model and kind, on
# messages that are not among the examples): a 135M model's answers sit near chance, and a veto
# (``callpolicy``'s KEEP) must not rest on them. Then the wording decides, as on a server.
CALIBRATION = {
    "run": (("Run report.py and give me its output", True), ("Executa o script limpa.sh", True),
            ("What does report.py do?", False), ("Show me report.py", False)),
    "change": (("Replace 'foo' with 'bar' in data.txt", True), ("Append a line 'done' to log.md", True),
               ("What does data.txt say?", False), ("Show me log.md without changing it", False)),
    "look": (("What does data.txt say?", True), ("list the folder docs", True),
             ("Replace 'foo' with 'bar' in data.txt", False), ("hello there", False)),
    "remember": (("Remember that my locker number is 42.", True), ("Merk dir bitte: die Katze heißt Mia.", True),
                 ("What is my locker number?", False), ("Show me log.md", False)),
    "create": (("Make a new file called plan.txt that says hi", True), ("Crea un file vuoto chiamato note.txt", True),
               ("Replace 'foo' with 'bar' in data.txt", False), ("Append a line 'done' to log.md", False)),
    "keep": (("Read a.txt but do not change it", True), ("Zeig mir b.md, ohne es zu ändern", True),
             ("Replace 'foo' with 'bar' in data.txt", False), ("What does data.txt say?", False)),
    "repair": (("parse.py crashes with an IndexError on an empty line", True),
               ("The build is red since your edit to setup.py", True), ("What does parse.py do?", False),
               ("hello there", False)),
    "diff": (("What have I changed in report.md that isn't committed?", True),
             ("Montre-moi les modifications non commitées de main.c", True),
             ("Who last committed report.md, says git log?", False), ("Commit main.c", False)),
    "history": (("Which commit last touched report.md?", True), ("Qui a modifié main.c en dernier, d'après git ?", True),
                ("What have I changed in report.md that isn't committed?", False), ("Commit main.c", False)),
    "repo": (("Which branch is this checkout on?", True), ("¿Hay cambios sin commitear aquí?", True),
             ("What does setup.py do?", False), ("Push my branch to origin", False)),
    "rename": ((rename_text("Rename load to fetch in api.py", "load", "fetch"), True),
               (rename_text("Renomme la classe Chat en Gato dans zoo.py", "Chat", "Gato"), True),
               (rename_text("Rename load to fetch in api.py", "load", "to"), False),
               (rename_text("Fix load in api.py so it retries", "load", "retries"), False)),
    "claimed": ((claim_text("The gym opens at 6, note it.", "I've saved your note: the gym opens at 6."), True),
                (claim_text("Notier dir: das Gym öffnet um 6.", "Ok, ich habe es notiert."), True),
                (claim_text("When does the gym open?", "The gym opens at 6."), False),
                (claim_text("Save the gym's hours", "I could not save it."), False)),
}


def trusted(model: Any, kind: str) -> bool:
    """Whether ``model``'s classifier for ``kind`` answers ``CALIBRATION`` right (cached on the model)."""
    cache = model.__dict__.setdefault("_judge_trusted", {})
    if kind not in cache:
        store = getattr(model, "apart_store", None)  # the disk's answer for this model and these prompts
        parts = ["calibration", kind, CLASSIFIERS[kind], CALIBRATION[kind], BOUNDS[kind]]
        cache[kind] = (store.remembered(parts, lambda: _calibrated(model, kind)) if store is not None
                       else _calibrated(model, kind))
    return cache[kind]


def _calibrated(model: Any, kind: str) -> bool:
    from nanobot.loop.budget import unmetered

    no, yes = BOUNDS[kind]
    ok = True
    with unmetered():  # once per model and process: no turn's cost
        for text, want in CALIBRATION[kind]:
            y, n = model.yes_no_apart(classifier_prompt(kind, text))
            p = y / (y + n) if y + n > 0 else 0.5
            ok = ok and (p >= yes if want else p < no)
    return ok


def classifier_prompt(kind: str, text: str) -> list[Message]:
    """The few-shot prompt of ``CLASSIFIERS[kind]`` for ``text``."""
    system, examples = CLASSIFIERS[kind]
    shots = [Message(role=r, content=c) for t, a in examples for r, c in (("user", t), ("assistant", a))]
    return [Message(role="system", content=system), *shots, Message(role="user", content=text)]


def allow_prompt(text: str) -> list[Message]:
    """The classifier's prompt for "does ``text`` allow changing a file?"."""
    return classifier_prompt("change", text)


class Judge:
    """Judgements of one agent's current user message, cached until the message changes."""

    def __init__(self) -> None:
        self.text = ""
        self.cache: dict[str, float | None] = {}
        self.messages: list[Message] = []  # the turn's prompt as the model sees it (``Agent._checked``)

    def context(self, text: str, messages: list[Message]) -> None:
        """The user's new message and the prompt it is the end of."""
        if text != self.text:
            self.text, self.cache = text, {}
        self.messages = messages

    def classified(self, agent: Agent, kind: str) -> float | None:
        """P(yes) from ``CLASSIFIERS[kind]`` whether or not the model answers ``CALIBRATION`` right: for
        a caller that weighs it with a signal of its own (``tools.firstlook.asked_here``: with P(call));
        None when the backend cannot score a classifier of its own."""
        key = f"{kind} unchecked"
        model = getattr(agent, "model", None)
        if key not in self.cache:
            try:
                yes, no = model.yes_no_apart(classifier_prompt(kind, self.text)) if self.text else (0.0, 0.0)
            except (ModelError, AttributeError):
                yes = no = 0.0
            self.cache[key] = yes / (yes + no) if yes + no > 0 else None
        return self.cache[key]

    def rename(self, agent: Agent, old: str, new: str) -> bool | None:
        """Whether the message asks to rename ``old`` to ``new`` (``RENAME_SYSTEM``), where it counts
        (``BOUNDS``); None when unsure, unscored or the model fails ``CALIBRATION``. Cached per pair."""
        key = f"rename {old} {new}"
        model = getattr(agent, "model", None)
        if key not in self.cache:
            p = None
            if self.text and callable(getattr(model, "yes_no_apart", None)):
                try:
                    if trusted(model, "rename"):
                        yes, no = model.yes_no_apart(classifier_prompt("rename", rename_text(self.text[:400], old, new)))
                        p = yes / (yes + no) if yes + no > 0 else None
                except ModelError:
                    p = None
            self.cache[key] = p
        p, (no, yes) = self.cache[key], BOUNDS["rename"]
        return None if p is None or no < p < yes else p >= yes

    def sure(self, agent: Agent, kind: str) -> bool | None:
        """The judgement where it counts (``BOUNDS``): True, False, or None when unsure or unscored."""
        p = self.probability(agent, kind)
        no, yes = BOUNDS.get(kind, (1 - SURE, SURE))
        return None if p is None or no < p < yes else p >= yes

    def probability(self, agent: Agent, kind: str) -> float | None:
        """P(yes) / (P(yes) + P(no)) for ``QUESTIONS[kind]``; None when the backend cannot score."""
        if kind in self.cache:
            return self.cache[kind]
        model = getattr(agent, "model", None)
        if kind in CLASSIFIERS and callable(getattr(model, "yes_no_apart", None)) and self.text:
            try:
                sure = trusted(model, kind)
            except ModelError:
                sure = False
            self.cache[kind] = self.classified(agent, kind) if sure else None  # one evaluation for both
            return self.cache[kind]
        if not callable(getattr(model, "yes_no", None)) or not self.text or kind not in QUESTIONS:
            return None  # a backend that cannot score a first token (a server; a scripted test model),
            # or a kind only a classifier of its own asks (``create``, ``run``)
        base = self.messages or [Message(role="user", content=self.text)]
        if base[-1].role == "assistant":  # after the reply: asked after it, so the reply stays in the KV cache
            question = QUESTIONS[kind].replace("this message", "the user's last message")
            prompt = [*base, Message(role="user", content=f"[nanobot asks, not the user: {question} "
                                                               "Answer only yes or no.]")]
        else:
            last = base[-1] if base[-1].role == "user" else Message(role="user", content=self.text)
            head = base[:-1] if base[-1].role == "user" else base
            prompt = [*head,
                      Message(role="user", content=f"{last.content}\n\n[nanobot asks, not the user: {QUESTIONS[kind]} "
                                                     "Answer only yes or no.]")]
        try:
            yes, no = model.yes_no(prompt, tools=_specs(agent))
        except ModelError:  # the question does not fit n_ctx: no judgement, the wording decides
            self.cache[kind] = None
            return None
        p = yes / (yes + no) if yes + no > 0 else None
        self.cache[kind] = p
        return p


def _specs(agent: Agent) -> list[dict] | None:
    """The tools the prompt is rendered with (a template-tool model), so the judged prompt shares the
    reply's prefix in the KV cache."""
    runner = getattr(agent, "tool_runner", None)
    if runner is None or not callable(getattr(runner, "template_calls", None)) or not runner.template_calls(agent):
        return None
    from nanobot.tools.callgrammar import tool_specs
    from nanobot.tools.leancalls import lean_specs

    lean = callable(getattr(runner, "listed_by_template", None)) and runner.listed_by_template(agent)
    return lean_specs(runner.tools) if lean else tool_specs(runner.tools)


def judge_of(agent: Agent) -> Judge:
    """The agent's Judge (``Agent.judge``); a fresh one, uncached, for anything else."""
    judge = getattr(agent, "judge", None)
    return judge if isinstance(judge, Judge) else Judge()


SURE = 0.7  # a judgement counts at P >= SURE (yes) or P <= 1 - SURE (no); between, the model is unsure


def asks(agent: Agent, kind: str, text: str | None = None) -> bool | None:
    """Whether the model judges the user's message to ask ``kind``; None when it cannot say, or is
    unsure (a 135M model's judgements sit near 0.5): then the caller's wording decides."""
    judge = judge_of(agent)
    if text is not None and text != judge.text:
        judge.context(text, [])
    return judge.sure(agent, kind)


LEAN = 0.5  # P(yes) over P(no): the model leans yes without being sure; read only where a second signal agrees


def leans(agent: Agent, kind: str, text: str | None = None) -> bool:
    """Whether the model's judgement leans to yes (``LEAN``), sure or not: for a check that weighs it
    with a signal of its own (a reply that already speaks as if it had done it). False where it cannot say."""
    judge = judge_of(agent)
    if text is not None and text != judge.text:
        judge.context(text, [])
    p = judge.probability(agent, kind)
    return p is not None and p >= LEAN


def reply_claims(agent: Agent, message: str, reply: str) -> bool:
    """Whether the model, as a classifier of its own (``CLAIMED_SYSTEM``), is sure that ``reply`` says
    something was kept or changed, in whatever words and language the reply is in. False where the
    backend cannot score one or the model does not answer ``CALIBRATION["claimed"]`` right (a 135M
    model): then the English list of ``wording.REPLY`` is the only reading. Cached per reply."""
    judge, model = judge_of(agent), getattr(agent, "model", None)
    key = f"claimed {reply}"
    if key not in judge.cache:
        p = None
        if reply.strip() and callable(getattr(model, "yes_no_apart", None)):
            try:
                if trusted(model, "claimed"):
                    yes, no = model.yes_no_apart(classifier_prompt("claimed", claim_text(message[:300], reply[:600])))
                    p = yes / (yes + no) if yes + no > 0 else None
            except ModelError:
                p = None
        judge.cache[key] = p
    p = judge.cache[key]
    return p is not None and p >= BOUNDS["claimed"][1]
