"""A fourth check-only set of command questions (``--set cmd_check4 --masked``), written by a helper whose text the developers do not read.

DEVELOPERS: DO NOT READ THIS FILE. It is only run and checked, never read, never tuned on; report its summary numbers only.

Questions only this computer can answer, in the manner of ``assistant_cmd_dev``: the workspace is a git
repository on a branch of its own with six commits and uncommitted work (two changed tracked files and a
new untracked one); the turns ask for the branch, the last commit, the number of commits, what is
uncommitted, what a commit changed, a script's output and an allowed command's output, in ten
languages. The branch, the last commit's subject and the number of commits may come from the prompt
(``none_ok``); the rest need a run (exec) this turn.
"""

from __future__ import annotations

from assistant_requests import Session, Turn

IGNORE = ("# nanobot's own files\nSOUL.md\nUSER.md\nCONTEXT.md\nMEMORY.md\nHEARTBEAT.md\nobservations/\nknowledge/\n"
          "skills/\naudit/\nsessions/\n.nanobot/\n__pycache__/\n*.db\n*.db-*\n*.lock\n")
BRANCH = "regatta/saltings-autumn-31"
_BOATS = ("sail_no,boat,class,py\n918,Bramble,Wayfarer,1102\n1526,Quillwort,Solo,1142\n3377,Moonraker,Albacore,1040\n"
          "4410,Saltmarsh,RS200,1046\n2140,Petrel,Laser,1100\n772,Juniper,Wayfarer,1102\n")
_SERIES = ('[series]\nname = "Autumn Series 2026"\nclub = "Saltings Sailing Club"\nraces = 8\ndiscards = 1\n'
           'scoring = "low point"\nrace_officer = "M. Okafor"\n')
_CREWS = ("# Crews, autumn series\n- Bramble: Tomasz Wrobel (helm), Ada Kerr\n- Quillwort: Yusuf Demir (single-handed)\n"
          "- Moonraker: Rhys Penhaligon (helm), Sofie Brandt\n- Saltmarsh: Lotte Verbeek (helm), Jonas Ek\n"
          "- Petrel: Ines Carvalho (single-handed)\n- Juniper: Carla Bianchi (helm), Piet Dekker\n")
_RACES_1_2 = ("race,boat,elapsed_s\n1,Bramble,3047\n1,Quillwort,3178\n1,Moonraker,2810\n1,Saltmarsh,2893\n1,Petrel,2986\n"
              "1,Juniper,3021\n2,Bramble,3369\n2,Quillwort,DNF\n2,Moonraker,3254\n2,Saltmarsh,3120\n2,Petrel,3312\n"
              "2,Juniper,3402\n")
_RACE_3 = "3,Bramble,2851\n3,Quillwort,2990\n3,Moonraker,DNF\n3,Saltmarsh,2737\n3,Petrel,2744\n3,Juniper,2720\n"
_HANDICAP = ('import csv\n\nwith open("boats.csv") as f:\n    py = {r["boat"]: int(r["py"]) for r in csv.DictReader(f)}\n'
             'best = {}\nwith open("results.csv") as f:\n    for r in csv.DictReader(f):\n'
             '        if r["elapsed_s"] == "DNF":\n            continue\n'
             '        t = int(r["elapsed_s"]) * 1000 / py[r["boat"]]\n        race = int(r["race"])\n'
             '        if race not in best or t < best[race][1]:\n            best[race] = (r["boat"], t)\n'
             "for race, (boat, t) in sorted(best.items()):\n"
             '    print(f"race {race}: {boat} wins on corrected time ({t:.1f} s)")\n')
_TALLY = ('import csv\nfrom collections import defaultdict\n\nwith open("boats.csv") as f:\n'
          '    py = {r["boat"]: int(r["py"]) for r in csv.DictReader(f)}\nraces = defaultdict(dict)\n'
          'with open("results.csv") as f:\n    for r in csv.DictReader(f):\n'
          '        t = None if r["elapsed_s"] == "DNF" else int(r["elapsed_s"]) * 1000 / py[r["boat"]]\n'
          '        races[r["race"]][r["boat"]] = t\n'
          "points = defaultdict(int)\nfor times in races.values():\n"
          "    done = sorted((t, b) for b, t in times.items() if t is not None)\n"
          "    for place, (_, boat) in enumerate(done, 1):\n        points[boat] += place\n"
          "    for boat, t in times.items():\n        if t is None:\n            points[boat] += len(times) + 1\n"
          "table = sorted(points.items(), key=lambda x: (x[1], x[0]))\n"
          'print(f"after {len(races)} races")\nfor n, (boat, p) in enumerate(table, 1):\n'
          '    print(f"{n}. {boat}: {p} points")\n')
_RACEDAYS = ("import datetime\n\nstart = datetime.date(2026, 9, 6)\nraces = []\nday = start\n"
             "while day <= datetime.date(2026, 12, 20):\n"
             "    hw = (7 * 60 + 12 + 50 * (day - start).days) % 745  # the morning high water, minutes after midnight\n"
             "    if 9 * 60 <= hw < 15 * 60:\n        races.append(day)\n    day += datetime.timedelta(days=7)\n"
             'print(f"race days planned: {len(races)}")\nprint(f"first: {races[0].isoformat()}")\n'
             'print(f"last: {races[-1].isoformat()}")\n')
_ENTRY = ('import hashlib\n\nfees = {"Laser": 18, "Solo": 18, "Wayfarer": 26, "Albacore": 26, "RS200": 24}\n'
          'fleet = {"Bramble": "Wayfarer", "Quillwort": "Solo", "Moonraker": "Albacore", "Saltmarsh": "RS200",\n'
          '         "Petrel": "Laser", "Juniper": "Wayfarer"}\n'
          'code = hashlib.sha1("|".join(sorted(fleet)).encode()).hexdigest()[:6].upper()\n'
          'print(f"series entry code: SSC-{code}")\nprint(f"entry fees due: {sum(fees[c] for c in fleet.values())} GBP")\n')
HISTORY = [
    ("open the autumn series register", {".gitignore": IGNORE, "boats.csv": _BOATS, "series.toml": _SERIES}),
    ("crew list for the six entries", {"crews.md": _CREWS}),
    ("finish times for races 1 and 2", {"results.csv": _RACES_1_2}),
    ("corrected times by Portsmouth Yardstick", {"handicap.py": _HANDICAP}),
    ("series points, entry fees and the race calendar", {"tally.py": _TALLY, "entry.py": _ENTRY,
                                                         "racedays.py": _RACEDAYS}),
]
FILES = {  # the last commit: race 3 appended to results.csv, incidents.md new
    ".gitignore": IGNORE,
    "boats.csv": _BOATS,
    "series.toml": _SERIES,
    "crews.md": _CREWS,
    "results.csv": _RACES_1_2 + _RACE_3,
    "incidents.md": ("# Incidents\n- Race 3, second beat: Moonraker retired after the tiller snapped at the gybe "
                     "mark; towed in by the safety RIB.\n"),
    "handicap.py": _HANDICAP,
    "tally.py": _TALLY,
    "entry.py": _ENTRY,
    "racedays.py": _RACEDAYS,
}
COMMIT = "race 3 finishes; Moonraker retired with a broken tiller"
DIRTY = {  # left uncommitted: series.toml and boats.csv changed, trophy_engraving.txt new
    "series.toml": _SERIES.replace("M. Okafor", "T. Lindqvist"),
    "boats.csv": _BOATS + "5083,Whimbrel,Enterprise,1113\n",
    "trophy_engraving.txt": ("Saltings Cup - Autumn Series 2026\nEngraver: Pellow & Daughters, 14 Quay Lane\n"
                             "Text: the winning boat's name and sail number\nCollect by: 2026-12-12\n"
                             "Quoted price: 38 GBP\n"),
}
MEMORY = ""
EXEC_ALLOW = ["python3", "git status", "git log", "git branch", "git diff", "git show", "git rev-parse",
              "git rev-list", "ls", "wc", "cat", "head", "grep", "date", "pwd"]

RUNS: dict[str, str] = {}  # a turn's text -> the command whose output holds its answer (the tests run it)


def ask(text: str, command: str, kind: str, none_ok: bool = False, **rules) -> Turn:
    """A turn answered by ``command``'s output (exec); ``none_ok`` where the prompt may carry it."""
    RUNS[text] = command
    return Turn(text, ("exec",), none_ok=none_ok, kind=kind, **rules)


BR, NOT_BR, CUR = ("saltings-autumn-31",), ("main", "master"), "git branch --show-current"
SUBJECT = ("moonraker", "tiller")
LAST, COUNT = "git log -1 --format=%s", "git rev-list --count HEAD"
CLEAN = ("nothing to commit", "working tree clean", "is clean", "no uncommitted")
CHANGED, STATUS = ("series.toml", "boats.csv", "trophy_engraving"), "git status --short"
SHOW = "git show --stat --format= HEAD"

SESSIONS = [
    Session("log", [
        ask("Which branch am I working on right now? I want to mention it at the stand-up.", CUR, "branch", True,
            says=BR, never=NOT_BR),
        ask("Vilken gren är utcheckad just nu?", CUR, "branch", True, says=BR, never=NOT_BR),
        ask("Na které větvi teď vlastně pracuju?", CUR, "branch", True, says=BR, never=NOT_BR),
        ask("Diz-me só o nome do branch em que estou a trabalhar.", CUR, "branch", True, says=BR, never=NOT_BR),
        ask("Geef me de naam van de huidige branch en waar de laatste commit over ging.",
            "git log -1 --format=%D%n%s", "branch", True, says_all=BR + ("moonraker",), never=NOT_BR),
        ask("Come si chiama il branch attivo in questa cartella?", CUR, "branch", True, says=BR, never=NOT_BR),
        ask("Remind me what my latest commit was about: the message, word for word.", LAST, "last commit", True,
            says=SUBJECT),
        ask("Mit welcher Commit-Nachricht habe ich zuletzt eingecheckt?", LAST, "last commit", True, says=SUBJECT),
        ask("Je dois recopier le message du commit le plus récent dans le journal du club : c'était quoi ?", LAST,
            "last commit", True, says=SUBJECT),
        ask("¿Cuántos commits lleva ya este repositorio?", COUNT, "last commit", True, says=("6", "seis")),
        ask("Policz mi commity na tej gałęzi: ile ich jest?", COUNT, "last commit", True, says=("6", "sześć")),
        ask("Hur många commits finns det i historiken hittills?", COUNT, "last commit", True, says=("6", "sex")),
    ]),
    Session("pending", [
        ask("I'm about to pull from the club's remote. Is there local work I haven't committed, and in which files?",
            STATUS, "uncommitted", says=CHANGED, never=CLEAN),
        ask("Ist mein Arbeitsverzeichnis sauber, oder liegt da noch etwas Uncommittetes herum?", STATUS,
            "uncommitted", says=CHANGED, never=CLEAN + ("ist sauber",)),
        ask("Mám v repozitáři nějaké změny, které ještě nejsou v commitu?", STATUS, "uncommitted", says=CHANGED,
            never=CLEAN + ("žádné změny",)),
        ask("Prima di chiudere il portatile: c'è qualcosa che non ho ancora committato?", STATUS, "uncommitted",
            says=CHANGED, never=CLEAN + ("nessuna modifica",)),
        ask("List the tracked files that have edits not yet in a commit.", STATUS, "changed files",
            says_all=("series.toml", "boats.csv"), never=CLEAN),
        ask("Finns det någon fil här som git inte spårar ännu?", STATUS, "changed files",
            says=("trophy_engraving",)),
        ask("Enséñame el cambio pendiente en series.toml: ¿qué valor he puesto?", "git diff series.toml",
            "changed files", says_all=("lindqvist",)),
        ask("Acrescentei um barco ao boats.csv e ainda não fiz commit. Qual foi mesmo?", "git diff boats.csv",
            "changed files", says=("whimbrel",)),
        ask("Pokaż mi, jakie pliki weszły do ostatniego commita.", SHOW, "changed files",
            says_all=("results.csv", "incidents.md"), never=("series.toml", "boats.csv")),
        ask("Welche Dateien wurden mit dem vorletzten Commit angelegt?", "git show --stat --format= HEAD~1",
            "changed files", says_all=("tally.py", "entry.py", "racedays.py")),
        ask("crews.md: which commit brought it in? I need that commit's subject line.",
            "git log --format=%s -- crews.md", "changed files", says=("crew list",)),
    ]),
    Session("programs run", [
        ask("Please run handicap.py: who came out on top in race 2 once the yardsticks are applied?",
            "python3 handicap.py", "script", says=("saltmarsh",)),
        ask("Draai handicap.py eens. Wat is de gecorrigeerde tijd van de winnaar van race 3?", "python3 handicap.py",
            "script", says=("2468.2", "2468,2")),
        ask("Führ tally.py aus: wer führt die Serie gerade an?", "python3 tally.py", "script", says=("petrel",)),
        ask("Spusť tally.py: kdo je po třech rozjížďkách druhý a s kolika body?", "python3 tally.py", "script",
            says_all=("juniper",), says=("8",)),
        ask("Lance racedays.py et dis-moi combien de jours de course il prévoit.", "python3 racedays.py", "script",
            says=("5", "cinq")),
        ask("Fai girare racedays.py: quando cade l'ultima regata?", "python3 racedays.py", "script",
            says=("2026-11-22", "22 novembre", "22/11", "22.11")),
        ask("Ejecuta entry.py y pásame el código de inscripción de la serie.", "python3 entry.py", "script",
            says=("6afb91",)),
        ask("Kör entry.py: hur mycket blir anmälningsavgifterna totalt?", "python3 entry.py", "script",
            says=("138",)),
    ]),
    Session("one-liners", [
        ask("Count the lines of results.csv with wc -l.", "wc -l results.csv", "command", says=("19",)),
        ask("Użyj grep -c DNF results.csv: ile razy ktoś nie ukończył wyścigu?", "grep -c DNF results.csv",
            "command", says=("2", "dwa", "dwukrotnie")),
        ask("Corre head -n 4 boats.csv e diz-me qual é o yardstick do Moonraker.", "head -n 4 boats.csv", "command",
            says=("1040",)),
        ask("Doe even cat trophy_engraving.txt: wie graveert de beker?", "cat trophy_engraving.txt", "command",
            says=("pellow",)),
        ask("Con grep Saltmarsh crews.md: chi tiene il timone su Saltmarsh?", "grep Saltmarsh crews.md", "command",
            says=("verbeek",)),
        ask("Vypiš přes ls *.py, jaké skripty tu mám.", "ls *.py", "command",
            says_all=("entry.py", "handicap.py", "racedays.py", "tally.py")),
        ask("Fais un grep -i wayfarer boats.csv : quels bateaux sont des Wayfarer ?", "grep -i wayfarer boats.csv",
            "command", says_all=("bramble", "juniper")),
        ask("Zeig mir mit cat series.toml, wer gerade als Wettfahrtleiter eingetragen ist.", "cat series.toml",
            "command", says=("lindqvist",), never=("okafor",)),
    ]),
]
