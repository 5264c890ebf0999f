"""The assistant bench's remember / recall / neither messages, check-only half (issue 74;
``bench/assistant_bench.py --set mem_check --masked``), scored like ``assistant_mem_dev``: remember
needs a memory_add this turn holding the fact and no token the user never said; recall needs the kept
value in the reply and no memory write; neither needs no memory write. Seven languages.

DEVELOPERS: DO NOT READ THIS FILE. It is only run and checked, never read, never tuned on; report its summary numbers only.
No rule in nanobot may name its files, values or phrasings, and no one working on nanobot should look
at them (nor at its runs' per-turn output). Once it has been read it is no longer unseen: replace it
with another set written by someone else.
"""

from __future__ import annotations

from assistant_requests import Session, Turn

FILES = {
    "locker_codes.txt": "Staff locker combination: Marlow-3306-Tansy\n",
    "garden.md": "# Garden\n- prune the pear tree\n- sow chard\n",
}
COMMIT = "home notes"
MEMORY = """
## Kept earlier
- My piano teacher is Ms. Quennell.
- Meine Steuer-ID endet auf 4471.
- Mi sobrino Bruno vive en Valladolid.
- Mon train pour Lyon part du quai 7 à 8h12.
- A minha sogra faz anos a 22 de outubro.
- Il codice del garage è 3390.
- Mijn fietsnummer is NL-55821.
- The recycling bin goes out every second Tuesday.
- My dentist is on Harcourt Street.
"""

ADD, MEM = ("memory_add",), ("memory_search",)


def keep(text: str, *tokens: str) -> Turn:
    return Turn(text, ADD, keep=tokens, kind="remember")


def recall(text: str, *says: str) -> Turn:
    return Turn(text, MEM, none_ok=True, says=says, no_write=True, kind="recall")


def neither(text: str, *says: str, want: tuple[str, ...] = ()) -> Turn:
    return Turn(text, want, none_ok=bool(want), says=says, no_write=True, kind="neither")


SESSIONS = [
    Session("storing", [
        keep("Please remember my library card number: 2208 5517.", "5517"),
        keep("Just so you know for later, my daughter's teacher is Mr. Whitcombe.", "whitcombe"),
        keep("Make a note that the car insurance renews on 14 March.", "14"),
        keep("Store this: the router admin page is at 192.168.8.1.", "192.168.8.1"),
        keep("Notier dir, dass mein Kollege Jannik am Montag Urlaub hat.", "jannik"),
        keep("Behalte im Kopf: die Heizung ist auf 21 Grad eingestellt.", "21"),
        keep("No olvides que mi cuñada se llama Itziar.", "itziar"),
        keep("Apúntate que el veterinario cierra a las 19:30.", "19:30"),
        keep("N'oublie pas que mon code de parking est 5864.", "5864"),
        keep("Garde en tête que je suis végétarienne.", "gétarien"),
        keep("Toma nota: o meu voo para o Porto é o TP1947.", "tp1947"),
        keep("Grava isto: a minha vizinha Custódia rega as plantas às quartas.", "cust"),
        keep("Tieni a mente che il mio medico di base è la dottoressa Ferri.", "ferri"),
        keep("Onthoud dat mijn buurman Joost heet.", "joost"),
        keep("Vergeet niet dat de glasbak op zaterdag geleegd wordt.", "zaterdag"),
    ]),
    Session("looking back", [
        recall("Who's my piano teacher again?", "quennell"),
        recall("Welche Ziffern hat das Ende meiner Steuer-ID?", "4471"),
        recall("¿Dónde vive mi sobrino Bruno?", "valladolid"),
        recall("De quel quai part mon train pour Lyon ?", "7"),
        recall("Quando faz anos a minha sogra?", "22"),
        recall("Qual era il codice del garage?", "3390"),
        recall("Wat is mijn fietsnummer?", "55821"),
        recall("When does the recycling bin go out?", "second tuesday", "every other tuesday", "2nd tuesday"),
        recall("Remember where my dentist is? Which street?", "harcourt"),
        recall("Do you still remember the garage code? I need it now.", "3390"),
        recall("Kannst du mir sagen, wie meine Klavierlehrerin heißt?", "quennell"),
        recall("À quelle heure part mon train pour Lyon ?", "8h12", "8:12", "8.12"),
        recall("What did I tell you about my nephew Bruno?", "valladolid"),
    ]),
    Session("other talk", [
        neither("Can you remember things I tell you in another chat?", want=MEM),
        neither("What is a mnemonic?", "memor", "remember"),
        neither("How do I get my browser to stop remembering passwords?", "password"),
        neither("Wie sagt man 'merken' auf Englisch?", "remember", "notice", "note"),
        neither("Ich vergesse ständig meine Termine. Was hilft dagegen?"),
        neither("¿Cuánto es 13 por 7?", "91"),
        neither("No hace falta que guardes nada: ¿cuál es el río más largo de España?", "tajo"),
        neither("Ne note rien, dis-moi juste combien de jours il y a en février 2028.", "29"),
        neither("Olá! Tudo bem contigo?"),
        neither("Keep your answer brief: what does RAM stand for?", "random access memory", "random-access memory"),
        neither("Ricordami come si scrive 'necessario' in inglese.", "necessary"),
        neither("Hoe zeg je 'onthouden' in het Engels?", "remember"),
        neither("My grandfather remembered every phone number he ever dialled. Is that common?"),
        neither("Good night, that's everything.", ),
    ]),
]
