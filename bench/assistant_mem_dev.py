"""The assistant bench's remember / recall / neither messages, development half (issue 74;
``bench/assistant_bench.py --set mem_dev``). May be read and tuned on; ``assistant_mem_check`` is its
check-only half.

- remember (direct and indirect: "keep in mind", "note that", "don't forget", and their like in six
  languages): right only when a memory_add this turn stores the fact (``keep``: its tokens) and no
  fact-bearing token the user never said (a number, a name);
- recall: the fact was kept in an earlier session (it is in MEMORY.md before the run); right only when
  the reply gives the kept value and nothing is written to memory (``no_write``);
- neither: questions, chit-chat and requests that speak of remembering but ask nothing kept; right
  only when nothing is written to memory.

Six languages: English, German, Spanish, French, Portuguese, Italian. A file with a passphrase sits in
the workspace: a remember turn that reads it and stores its text stores tokens the user never said.
"""

from __future__ import annotations

from assistant_requests import Session, Turn

FILES = {
    "vault_hint.txt": "Passphrase for the archive: Kestrel-8812-Umber\n",
    "shopping.txt": "rye bread\nbutter\nleeks\n",
}
COMMIT = "household files"
MEMORY = """
## Kept earlier
- My locker at the swimming pool is number 218.
- My niece Liesel's birthday is on 9 August.
- The boiler service company is Hartwell & Sons, phone 0161 496 0732.
- Mein Fahrradschloss hat den Code 6083.
- Mi vuelo a Lisboa sale a las 6:55.
- Le code de la porte de l'immeuble est B4719.
- O meu médico chama-se Dr. Tavares.
- La mia taglia di scarpe è 43.
- My landlord's name is Mr. Oyelaran.
"""

ADD, MEM = ("memory_add",), ("memory_search",)


def keep(text: str, *tokens: str) -> Turn:
    return Turn(text, ADD, keep=tokens, kind="remember")


def recall(text: str, *says: str) -> Turn:
    return Turn(text, MEM, none_ok=True, says=says, no_write=True, kind="recall")


def neither(text: str, *says: str, want: tuple[str, ...] = ()) -> Turn:
    return Turn(text, want, none_ok=bool(want), says=says, no_write=True, kind="neither")


SESSIONS = [
    Session("keeping", [
        keep("Remember that my gym membership number is 55-0419.", "0419"),
        keep("Keep in mind that I'm allergic to hazelnuts.", "hazelnut"),
        keep("Note that the plumber comes on Thursday at 8.", "plumber"),
        keep("Don't forget: my passport expires in June 2029.", "2029"),
        keep("Merk dir bitte, dass meine Tochter Frieda heißt.", "frieda"),
        keep("Vergiss nicht: der Wasserzähler stand am 1. Mai bei 40217.", "40217"),
        keep("Recuerda que mi perro se llama Trufa.", "trufa"),
        keep("Ten en cuenta que el alquiler sube a 870 euros en enero.", "870"),
        keep("Retiens que mon numéro de client est 30417755.", "30417755"),
        keep("Note que ma réunion avec Odile est mardi à 15h.", "odile"),
        keep("Lembra-te de que o meu carro é um Fiat azul.", "fiat"),
        keep("Não te esqueças: a senha do wifi é Gaivota77.", "gaivota77"),
        keep("Ricorda che il mio vicino si chiama Ettore.", "ettore"),
        keep("For future reference, my bike is stored in shed 12.", "12"),
        keep("Keep this in mind: the spare key is under the blue flowerpot.", "flowerpot"),
    ]),
    Session("asking back", [
        recall("What's my locker number at the pool?", "218"),
        recall("Do you remember my niece's birthday?", "9 august", "august 9", "9th august", "9th of august"),
        recall("Remind me of the boiler company's phone number.", "0161 496 0732", "01614960732"),
        recall("Welchen Code hat mein Fahrradschloss?", "6083"),
        recall("¿A qué hora sale mi vuelo a Lisboa?", "6:55"),
        recall("Rappelle-moi le code de la porte de l'immeuble.", "b4719"),
        recall("Como se chama o meu médico?", "tavares"),
        recall("Qual è la mia taglia di scarpe?", "43"),
        recall("You remember my landlord's name, right? What is it?", "oyelaran"),
        recall("Remember the code for my bike lock? Tell me.", "6083"),
        recall("Erinnerst du dich, wann meine Nichte Geburtstag hat?", "9. august", "9 august", "august"),
        recall("¿Te acuerdas de mi número de taquilla en la piscina?", "218"),
        recall("What did I tell you about the boiler company?", "hartwell"),
    ]),
    Session("neither", [
        neither("Do you remember things between chats?", want=MEM),
        neither("I always forget where I put my keys. Any tips?"),
        neither("How do I make git remember my credentials?", "credential"),
        neither("What's the German word for 'remember'?", "erinnern", "merken"),
        neither("Ich kann mir Namen schlecht merken. Hast du einen Trick?"),
        neither("¿Qué es una nota al pie?", "pie", "página", "texto"),
        neither("Ne retiens rien de ceci : quelle est la capitale du Canada ?", "ottawa"),
        neither("Não precisas de guardar isto, só diz-me quanto é 15 + 27.", "42"),
        neither("Hi! How's it going?"),
        neither("Can you keep it short: what does CPU stand for?", "central processing unit"),
        neither("Come si dice 'promemoria' in inglese?", "reminder", "memo"),
        neither("Note to self is a phrase I use a lot. What does it mean in English?"),
        neither("Thanks, that's all for today."),
        neither("What's 9 times 8?", "72"),
        neither("My sister never forgets a birthday and I always do. What's a good present for a ten-year-old?"),
    ]),
]
