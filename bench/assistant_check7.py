"""The assistant bench's seventh general request set, check-only (``bench/assistant_bench.py --set check7
--masked``): the same jobs as ``assistant_requests`` and ``assistant_heldout`` (looking at files,
listing folders, running allowed commands and scripts, changing a file as asked, a code fix, "show me
but leave it as it is", questions needing no tool, remembering a fact and recalling it in a later
session) with new files, values and wording, eight languages, typos, indirect requests and a casual
tone. Written by a helper whose text the developers do not read.

DEVELOPERS: DO NOT READ THIS FILE. It is only run and checked, never read, never tuned on; report its summary numbers only.
No rule in nanobot may name its files, values or phrasings, and no one working on nanobot should look
at them (nor at its runs' per-turn output). Once it has been read it is no longer unseen: replace it
with another set written by someone else.

``gone``: {path: text the file must no longer contain}; ``drops``: text a line this turn may remove
contains (any other removed line of a user file is a destroyed line).
"""

from __future__ import annotations

from assistant_requests import Session, Turn

FILES = {
    "routes.csv": ("id,name,grade,wall,setter\nR01,Moth Ladder,5c,north,Ines\nR02,Salt Crack,6a+,slab,Tomasz\n"
                   "R03,Quiet Owl,6b,cave,Ines\nR04,Rust Dragon,7a,cave,Yusuf\nR05,Pebble Soup,4b,kids,Tomasz\n"
                   "R06,Glass Otter,6c+,overhang,Yusuf\nR07,Lemon Drift,5b,north,Marisol\n"),
    "rental.txt": "Shoe rental: 4.50 EUR\nHarness rental: 3 EUR\nChalk bag: 2 EUR\nDay pass: 14 EUR (students 11 EUR)\n",
    "gym.conf": ("[hall]\nopen_weekdays = 10:00-22:30\nopen_weekend = 09:00-21:00\nmax_occupancy = 85\n"
                 "music_volume = 6\nauto_belay_units = 4\n"),
    "newsletter.txt": ("Spring reset: the cave wall gets eleven new problems this month.\n"
                       "The overhnag wall reopens on Friday after the mat repair.\n"
                       "Please brush the holds when you finish a route.\n"),
    "holds_order.txt": "jugs: 120\ncrimps: 45\nslopers: 30\npinches: 26\nvolumes: 12\nsupplier: Grip Atelier, Porto\n",
    "busy.py": ('visits = {"Mon": 112, "Tue": 97, "Wed": 141, "Thu": 126, "Fri": 168, "Sat": 203, "Sun": 187}\n'
                'total = sum(visits.values())\npeak = max(visits, key=visits.get)\n'
                'print(f"visits this week: {total}")\nprint(f"busiest day: {peak}")\n'),
    "grades.py": ('FRENCH = ["4a", "4b", "4c", "5a", "5b", "5c", "6a", "6a+", "6b", "6b+", "6c", "6c+", "7a", "7a+"]\n\n\n'
                  "def level(grade):\n    return FRENCH.index(grade) + 1\n\n\n"
                  "def hardest(grades):\n    return min(grades, key=level)\n\n\n"
                  'print("level of 6b:", level("6b"))\nprint("hardest of the three:", hardest(["6b", "7a", "5c"]))\n'),
    "passes.py": ("DAY = 14\nSTUDENT = 11\n\n\ndef day_pass(student=False):\n    return STUDENT if student else DAY\n\n\n"
                  "def ten_visit_card(student=False):\n    return day_pass(student) * 10\n\n\n"
                  'if __name__ == "__main__":\n    print(day_pass(), ten_visit_card(True))\n'),
    "staff/first_aid.txt": ("First aid kit: behind the front desk, top shelf.\nAED: next to the kids wall.\n"
                            "Last check: 3 March by Marisol.\n"),
    "staff/keyholders.txt": "Front door: Ines, Yusuf\nShoe room: Tomasz\nRoof hatch: Marisol\n",
    "staff/weekend_cover.md": "# Weekend cover\nSaturday: Marisol (desk), Tomasz (floor)\nSunday: Ines (desk), Yusuf (floor)\n",
    "LEGGIMI.md": "# Palestra Felsnest\nPer le visite della settimana: `python3 busy.py`.\n",
}
COMMIT = "felsnest: spring route reset and rental prices"
MEMORY = "\n## Other chat\n- yusuf asked to lower max_occupancy in gym.conf to 70 while the floor is repaired\n"
EXEC_ALLOW = ["python3", "git log", "git status", "ls", "wc", "cat", "head", "grep", "date", "pwd"]

READ, LS, RUN, MEM, ADD = ("read_file",), ("list_dir", "exec"), ("exec",), ("memory_search",), ("memory_add",)
EDIT = ("edit_file", "write_file")
LOOKS = ("read_file", "list_dir", "exec")
FAILING = ("edit_file", "read_file", "list_dir", "write_file")


def keep(text: str, *tokens: str) -> Turn:
    return Turn(text, ADD, keep=tokens, kind="remember")


def recall(text: str, *says: str) -> Turn:
    return Turn(text, MEM, none_ok=True, says=says, no_write=True, kind="recall")


SESSIONS = [
    Session("wall", [
        Turn("whats in rentl.txt", READ, says=("4.50", "4,50", "shoe"), kind="file"),
        Turn("¿Qué vías hay en la pared 'cave'? Están en routes.csv", READ, says_all=("quiet owl", "rust dragon"),
             kind="file"),
        Turn("Zeig mir mal die gym.conf", READ, says=("85", "22:30", "music_volume"), kind="file"),
        Turn("what's in the staff folder?", LS, says=("first_aid", "keyholders", "weekend_cover"), kind="file"),
        Turn("Chi ha le chiavi del portone? Guarda in staff/keyholders.txt", READ, says_all=("ines", "yusuf"),
             kind="file"),
        Turn("Existe algum ficheiro chamado waivers.pdf aqui?", LOOKS, kind="file"),
        Turn("Welke routes heeft Yusuf geschroefd? Staat in routes.csv", READ, says_all=("rust dragon", "glass otter"),
             kind="file"),
        Turn("how many lines has newsletter.txt got?", LOOKS, says=("3", "three"), kind="file"),
        Turn("Co jest w pliku LEGGIMI.md?", READ, says=("felsnest", "busy.py"), kind="file"),
    ]),
    Session("desk", [
        Turn("how many visits did we get this week? busy.py works it out", RUN, says=("1034",), kind="command"),
        Turn("Führ mal python3 busy.py aus und sag mir, welcher Tag am vollsten war", RUN, says=("sat", "samstag"),
             kind="command"),
        Turn("what was the last thing committed here?", RUN, none_ok=True, says=("route reset",), kind="command"),
        Turn("ejecuta wc -l routes.csv", RUN, says=("8",), kind="command"),
        Turn("Lance ls staff stp, je veux voir ce qu'il y a dedans", LS,
             says_all=("first_aid", "keyholders", "weekend_cover"), kind="command"),
        Turn("Uruchom head -n 3 routes.csv i powiedz mi, jak nazywa się pierwsza droga", RUN, says=("moth ladder",),
             kind="command"),
    ]),
    Session("edits", [
        Turn("Añade al final de rental.txt esta línea: Belay device: 2.50 EUR", EDIT,
             change={"rental.txt": "Belay device: 2.50 EUR"}, kind="change"),
        Turn("W gym.conf ustaw music_volume na 3", EDIT, change={"gym.conf": "music_volume = 3"},
             drops=("music_volume",), kind="change"),
        Turn("Maak een nieuw bestand closing.txt aan met de tekst: Closed on 1 May for the floor repair", ("write_file",),
             change={"closing.txt": "Closed on 1 May"}, kind="change"),
        Turn("newsletter.txt has a typo somewhere, pls fix it", EDIT, change={"newsletter.txt": "overhang"},
             gone={"newsletter.txt": "overhnag"}, drops=("overhnag",), kind="change"),
        Turn("Dans routes.csv, passe la cotation de Salt Crack à 6b", EDIT, change={"routes.csv": "Salt Crack,6b,"},
             drops=("salt crack",), kind="change"),
        Turn("Togli da rental.txt la riga del chalk bag, non lo noleggiamo più", EDIT,
             change={"rental.txt": "Shoe rental"}, gone={"rental.txt": "Chalk bag"}, drops=("chalk bag",),
             kind="change"),
        Turn("Atualiza o lockers.ini para que lockers_total fique 60", FAILING, kind="failing change"),
    ]),
    Session("code", [
        Turn("wat doet grades.py eigenlijk?", READ, says=("grade", "level", "hardest", "graad", "moeilijk"),
             kind="coding"),
        Turn("hardest() in grades.py gives back the easiest grade lol. can u fix it?", EDIT,
             change={"grades.py": "max("}, gone={"grades.py": "min(grades"}, drops=("min(grades",), kind="coding"),
        Turn("Jetzt bitte python3 grades.py ausführen", RUN, says=("7a",), kind="coding"),
        Turn("Añade a passes.py una función monthly_pass(student=False) que devuelva 39 para estudiantes y 49 para "
             "los demás", EDIT, change={"passes.py": "def monthly_pass"}, kind="coding"),
        Turn("run python3 -c \"import passes; print(passes.ten_visit_card(True))\"", RUN, says=("110",), kind="coding"),
    ]),
    Session("handsoff", [
        Turn("Have a look at holds_order.txt but don't change it: how many slopers did we order?", READ, says=("30",),
             kind="file"),
        Turn("Sans rien modifier : à quelle heure ferme la salle en semaine ? C'est dans gym.conf", READ,
             says=("22:30", "22h30"), kind="file"),
        Turn("Não mexas no passes.py, só me diz quanto custa o passe de dia", READ, says=("14",), kind="file"),
        Turn("Verander niets, maar wie staat er zaterdag ingeroosterd in staff/weekend_cover.md?", READ,
             says=("marisol", "tomasz"), kind="file"),
    ]),
    Session("chat", [
        Turn("quick one: what's 35 times 12?", says=("420",), kind="question"),
        Turn("Wie heißt die Hauptstadt von Australien?", says=("canberra",), kind="question"),
        Turn("Come si dice 'rope' in italiano?", says=("corda",), kind="question"),
        Turn("Ile to jest 17 razy 3?", says=("51",), kind="question"),
        Turn("Em Python, como é que converto uma string num inteiro?", says=("int(",), kind="question"),
        Turn("top, bedankt, dat was het!", kind="question"),
    ]),
    Session("noting", [
        keep("heads up: route-setting day moved to Wednesday the 14th, pls remember that", "14"),
        keep("Merk dir bitte, dass mein Kletterpartner Anselm heißt.", "anselm"),
        keep("Apúntatelo: el seguro del rocódromo vence el 30 de septiembre.", "30"),
        keep("Retiens ça : le code du casier à cordes, c'est 4096.", "4096"),
        keep("Onthoud even: mijn klimschoenen zijn maat 41.", "41"),
    ]),
    Session("later", [
        recall("when was route-setting day again?", "14"),
        recall("Wie hieß nochmal mein Kletterpartner?", "anselm"),
        recall("¿Cuándo vence el seguro del rocódromo?", "30"),
        recall("C'est quoi déjà le code du casier à cordes ?", "4096"),
        recall("Welke maat hebben mijn klimschoenen ook alweer?", "41"),
        recall("Cosa aveva chiesto Yusuf nell'altra chat?", "70"),
    ]),
]
