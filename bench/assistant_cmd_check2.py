"""A second set of command questions (``--set cmd_check2``), written by a helper as a check-only set;
read by the developers in round 55 and a development set since (``cmd_check3`` is the check-only one now).
"""

from __future__ import annotations

from assistant_requests import Session, Turn

IGNORE = ("# nanobot's own files\nSOUL.md\nUSER.md\nCONTEXT.md\nMEMORY.md\nHEARTBEAT.md\nobservations/\nknowledge/\n"
          "skills/\naudit/\nsessions/\n.nanobot/\n__pycache__/\n*.db\n*.db-*\n*.lock\n")
BRANCH = "survey/hive-census-23"
HIVES = ("hive,queen_year,colour,frames\nH1,2024,white,10\nH2,2025,yellow,8\nH3,2023,red,10\nH4,2025,yellow,12\n"
         "H5,2026,blue,8\nH6,2024,white,10\n")
EAST = "day,kg\n2026-05-02,41.6\n2026-05-09,44.35\n2026-05-16,43.9\n2026-05-23,47.15\n2026-05-30,52.8\n2026-06-06,51.45\n"
HISTORY = [
    ("set up the hive register", {".gitignore": IGNORE, "hives.csv": HIVES}),
    ("spring inspection notes, weeks 15 to 17", {"inspections.txt": "12 Apr H1: queen seen, 6 frames brood\n"
                                                 "12 Apr H2: queen cells capped, split planned\n"}),
    ("east yard scale readings", {"scale/east.csv": EAST}),
]
FILES = {
    "hives.csv": HIVES,
    "inspections.txt": ("12 Apr H1: queen seen, 6 frames brood\n12 Apr H2: queen cells capped, split planned\n"
                        "19 Apr H3: calm, queen seen\n19 Apr H4: chalkbrood on 2 frames\n26 Apr H5: queen seen, eggs\n"
                        "26 Apr H6: no eggs, queenless?\n03 May H2: swarm left at noon\n03 May H1: super added\n"
                        "10 May H4: queen seen, marked red\n"),
    "apiary.toml": "[yard]\nname = \"Lindenhof\"\nmax_supers = 3\ntreatment_threshold_pct = 3.0\nsmoker_fuel = \"hessian\"\n",
    "scale/east.csv": EAST,
    "scale/west.csv": "day,kg\n2026-05-02,38.2\n2026-05-09,39.05\n",
    "scale/calibration.txt": "tare 0.35 kg, checked 28 Apr\n",
    "mites.py": ('counts = {"H1": 7, "H2": 13, "H3": 4, "H4": 19, "H5": 9, "H6": 12}\n'
                 "loads = {h: n / 300 * 100 for h, n in counts.items()}\nworst = max(loads, key=loads.get)\n"
                 'print(f"mean mite load: {sum(loads.values()) / len(loads):.3f} %")\n'
                 'print(f"treat first: {worst} ({loads[worst]:.2f} %)")\n'),
    "harvest.py": ("import csv\nimport zlib\n\nwith open(\"scale/east.csv\") as f:\n"
                   '    kg = [float(r["kg"]) for r in csv.DictReader(f)]\n'
                   "gains = [b - a for a, b in zip(kg, kg[1:])]\n"
                   'print(f"net gain: {kg[-1] - kg[0]:.2f} kg over {len(gains)} weeks")\n'
                   'print(f"best week: +{max(gains):.2f} kg")\n'
                   "print(f\"jar batch: EY-{zlib.adler32(b'east-yard/acacia/2026') % 46656:05d}\")\n"),
    "queen.py": ("import datetime\n\nfirst = datetime.date(2026, 4, 3)\n"
                 "visits = [first + datetime.timedelta(days=9 * i) for i in range(16)]\n"
                 "marked = datetime.date(2026, 5, 10)\n"
                 'print("last inspection:", visits[-1].strftime("%A %d %B %Y"))\n'
                 'print("days since the queen was marked:", (visits[-1] - marked).days)\n'),
}
COMMIT = "varroa: count mites per 300 bees"
DIRTY = {  # left uncommitted: apiary.toml and hives.csv changed, swarm_calls.md new
    "apiary.toml": "[yard]\nname = \"Lindenhof\"\nmax_supers = 3\ntreatment_threshold_pct = 2.5\nsmoker_fuel = \"hessian\"\n",
    "hives.csv": HIVES + "H7,2026,blue,6\n",
    "swarm_calls.md": "# Swarm calls\n- Fri: cluster in the Brandt's plum tree\n",
}
MEMORY = ""
EXEC_ALLOW = ["python3", "git status", "git log", "git branch", "git diff", "git show", "git rev-parse", "git rev-list",
              "ls", "wc", "cat", "head", "grep", "pwd"]

RUNS: dict[str, str] = {}  # a turn's text -> the command whose output holds its answer (tests/test_bench_sets.py runs it)


def ask(text: str, command: str, kind: str, none_ok: bool = False, **rules) -> Turn:
    """A turn answered by ``command``'s output (exec); ``none_ok`` where the prompt may carry it."""
    RUNS[text] = command
    return Turn(text, ("exec",), none_ok=none_ok, kind=kind, **rules)


BRANCH_SAYS, NOT_BRANCH = ("survey/hive-census-23",), ("main", "master")
SUBJECT = ("mites per 300", "count mites")
COUNT = "git rev-list --count HEAD"
CLEAN = ("nothing to commit", "working tree clean", "is clean", "no uncommitted", "no changes")
CHANGED = ("apiary.toml", "hives.csv", "swarm_calls")
SHOW, LAST, STATUS = "git branch --show-current", "git log -1 --format=%s", "git status --short"

SESSIONS = [
    Session("checkout", [
        ask("I forgot which branch I left this checkout on. Can you look it up?", SHOW, "branch", True,
            says=BRANCH_SAYS, never=NOT_BRANCH),
        ask("Op welke branch staat deze repository nu?", SHOW, "branch", True, says=BRANCH_SAYS, never=NOT_BRANCH),
        ask("Preciso do nome exato do branch atual para abrir um pull request.", SHOW, "branch", True,
            says=BRANCH_SAYS, never=NOT_BRANCH),
        ask("Dime en qué rama estoy y con qué mensaje se hizo el commit más reciente.", "git log -1 --format=%D%n%s",
            "branch", True, says_all=BRANCH_SAYS + SUBJECT[:1], never=NOT_BRANCH),
        ask("Wie lautet die Nachricht des letzten Commits hier?", LAST, "last commit", True, says=SUBJECT),
        ask("J'ai besoin du message de mon dernier commit pour le compte rendu, tu peux le retrouver ?", LAST,
            "last commit", True, says=SUBJECT),
        ask("Quanti commit ci sono nella storia di questo branch?", COUNT, "last commit", True,
            says=("4", "quattro")),
        ask("What did I commit most recently? Just the commit message is fine.", LAST, "last commit", True,
            says=SUBJECT),
    ]),
    Session("working tree", [
        ask("Before I switch branches, is there anything here I haven't committed yet?", STATUS, "uncommitted",
            says=CHANGED + ("yes",), never=CLEAN),
        ask("¿Queda algo pendiente de commit en este repositorio?", STATUS, "uncommitted",
            says=CHANGED + ("sí",), never=CLEAN + ("no hay cambios", "está limpio")),
        ask("Controlla con git se ho lavoro non ancora salvato in un commit.", STATUS, "uncommitted",
            says=CHANGED + ("sì",), never=CLEAN + ("nessuna modifica", "è pulito")),
        ask("Kan ik veilig uitchecken, of heb ik nog niet-gecommitte wijzigingen?", STATUS, "uncommitted",
            says=CHANGED + ("niet veilig",), never=CLEAN + ("geen wijzigingen", "is schoon")),
        ask("Welche Dateien habe ich seit dem letzten Commit bearbeitet?", STATUS, "changed files",
            says_all=("apiary.toml", "hives.csv"), never=CLEAN),
        ask("Qu'est-ce que j'ai modifié dans apiary.toml depuis le dernier commit ?", "git diff apiary.toml",
            "changed files", says_all=("2.5",), says=("3.0",)),
        ask("Tenho algum ficheiro novo que o git ainda não está a seguir?", STATUS, "changed files",
            says=("swarm_calls",)),
        ask("Show me what's different in hives.csv compared with the last commit.", "git diff hives.csv",
            "changed files", says=("h7",)),
    ]),
    Session("scripts", [
        ask("Could you execute mites.py and tell me the average mite load it works out?", "python3 mites.py", "script",
            says=("3.556",)),
        ask("Fammi girare mites.py: quale arnia va trattata per prima?", "python3 mites.py", "script",
            says_all=("h4",), says=("6.33",)),
        ask("Lass harvest.py laufen. Wie viel Gewicht hat die Waage insgesamt dazugewonnen?", "python3 harvest.py",
            "script", says=("9.85",)),
        ask("Ejecuta harvest.py; necesito la etiqueta del lote de tarros que genera.", "python3 harvest.py", "script",
            says=("30149",)),
        ask("Voer queen.py uit en zeg me op welke datum de laatste inspectie valt.", "python3 queen.py", "script",
            says=("16 aug", "aug 16", "16-08", "08-16")),
        ask("Exécute queen.py : combien de jours se sont écoulés depuis le marquage de la reine ?", "python3 queen.py",
            "script", says=("98",)),
        ask("Corre o harvest.py e diz-me qual foi o maior ganho numa semana.", "python3 harvest.py", "script",
            says=("5.65",)),
    ]),
    Session("shell", [
        ask("How many lines does inspections.txt have? Use wc -l.", "wc -l inspections.txt", "command", says=("9",)),
        ask('Zähl mit grep -c "queen seen" inspections.txt, bei wie vielen Kontrollen die Königin gesichtet wurde.',
            'grep -c "queen seen" inspections.txt', "command", says=("4",)),
        ask("Lista el contenido de la carpeta scale con ls.", "ls scale", "command",
            says_all=("east", "west", "calibration")),
        ask("Esegui cat apiary.toml e dimmi la soglia di trattamento impostata adesso.", "cat apiary.toml", "command",
            says=("2.5",), never=("3.0",)),
        ask("Draai head -n 4 hives.csv: uit welk jaar is de koningin van H3?", "head -n 4 hives.csv", "command",
            says=("2023",)),
        ask('Lance python3 -c "print(round(51.45 * 1000 / 340))" et dis-moi ce que ça affiche.',
            'python3 -c "print(round(51.45 * 1000 / 340))"', "command", says=("151",)),
        ask("Faz grep -i swarm inspections.txt e diz-me de que colmeia saiu o enxame.", "grep -i swarm inspections.txt",
            "command", says=("h2",)),
        ask("Wie viele Zeilen hat hives.csv gerade? Nimm wc -l dafür.", "wc -l hives.csv", "command", says=("8",)),
    ]),
]
