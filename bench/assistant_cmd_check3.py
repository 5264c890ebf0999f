"""A third set of command questions (``--set cmd_check3``), written by a helper as a check-only set;
a development set since round 56 (two of its turns were read); ``cmd_check4`` is the check-only one now.

Questions only this computer can answer, in the manner of ``assistant_cmd_dev``: the workspace is a git
repository on a branch of its own with five commits and uncommitted work (two changed tracked files and a
new untracked one); the turns ask for the branch, the last commit, the number of commits, what is
uncommitted, what a commit changed, a script's output and an allowed command's output, in eight
languages. The branch, the last commit's subject and the number of commits may come from the prompt
(``none_ok``); the rest need a run (exec) this turn.
"""

from __future__ import annotations

from assistant_requests import Session, Turn

IGNORE = ("# nanobot's own files\nSOUL.md\nUSER.md\nCONTEXT.md\nMEMORY.md\nHEARTBEAT.md\nobservations/\nknowledge/\n"
          "skills/\naudit/\nsessions/\n.nanobot/\n__pycache__/\n*.db\n*.db-*\n*.lock\n")
BRANCH = "kiln/ash-glaze-run-22"
_FIRINGS = ("date,kind,cone,pieces\n2026-01-05,bisque,04,31\n2026-01-16,glaze,6,27\n2026-01-27,bisque,04,24\n"
            "2026-02-07,glaze,6,29\n2026-02-16,bisque,04,35\n")
_KILN = "[bisque]\npeak_c = 1000\n\n[glaze]\npeak_c = 1222\ncone = 6\n"
_KILN_HOLD = "[bisque]\npeak_c = 1000\nhold_573_min = 20\n\n[glaze]\npeak_c = 1222\ncone = 6\n"
_GLAZES = ("# Glazes for cone 6\n1. tenmoku - iron 10%\n2. celadon - iron 1.5%\n3. shino - soda feldspar, heavy\n"
           "4. wood ash - 40% ash, 40% feldspar, 20% ball clay\n")
_BATCH = ('import hashlib\n\nglazes = ["tenmoku", "celadon", "shino", "wood ash", "oribe"]\n'
          'label = hashlib.md5(",".join(sorted(glazes)).encode()).hexdigest()[:7]\nprint(f"batch label: K-{label}")\n')
_CALENDAR = ("import datetime\n\nday = datetime.date(2026, 1, 5)\nfired = []\nwhile day.year == 2026:\n"
             "    fired.append(day)\n    day += datetime.timedelta(days=11 if day.weekday() < 4 else 9)\n"
             "weekend = sum(d.weekday() >= 5 for d in fired)\n"
             'print(f"firings planned for 2026: {len(fired)}")\nprint(f"on a weekend: {weekend}")\n'
             'print(f"last firing: {fired[-1].isoformat()}")\n')
_SHRINK = ('pieces = {"TB-14": (212.0, 187.9), "VS-02": (305.5, 270.1), "MG-31": (118.2, 104.3), '
           '"PL-09": (274.0, 242.6),\n          "JR-05": (190.4, 168.3)}\n'
           "rates = {code: (wet - fired) / wet * 100 for code, (wet, fired) in pieces.items()}\n"
           "order = sorted(rates, key=rates.get, reverse=True)\n"
           'print(f"most shrinkage: {order[0]} ({rates[order[0]]:.2f}%)")\n'
           'print(f"least shrinkage: {order[-1]} ({rates[order[-1]]:.2f}%)")\n'
           'print(f"mean shrinkage: {sum(rates.values()) / len(rates):.2f}%")\n')
HISTORY = [
    ("open the kiln log", {".gitignore": IGNORE, "firings.csv": _FIRINGS, "kiln.ini": _KILN}),
    ("glaze recipes: tenmoku, celadon, shino, wood ash", {"glazes.md": _GLAZES}),
    ("shrinkage tests for the spring pieces", {"shrink.py": _SHRINK}),
    ("batch labels and the firing calendar", {"batch.py": _BATCH, "calendar_2026.py": _CALENDAR}),
]
FILES = {  # the last commit: the bisque hold in kiln.ini, oribe added to glazes.md
    ".gitignore": IGNORE,
    "firings.csv": _FIRINGS,
    "kiln.ini": _KILN_HOLD,
    "glazes.md": _GLAZES + "5. oribe - copper 4%\n",
    "shrink.py": _SHRINK,
    "batch.py": _BATCH,
    "calendar_2026.py": _CALENDAR,
}
COMMIT = "bisque: hold 20 min at 573 for the quartz inversion"
DIRTY = {  # left uncommitted: kiln.ini and firings.csv changed, clay_order.txt new
    "kiln.ini": _KILN_HOLD.replace("1222", "1238"),
    "firings.csv": _FIRINGS + "2026-02-27,glaze,6,22\n2026-03-10,glaze,6,18\n",
    "clay_order.txt": ("supplier: Hollow Oak Clay Co.\n25 kg stoneware B-mix\n10 kg porcelain P-300\n"
                       "5 kg red earthenware\ndeliver by 2026-03-20\n"),
}
MEMORY = ""
EXEC_ALLOW = ["python3", "git status", "git log", "git branch", "git diff", "git show", "git rev-parse",
              "ls", "wc", "cat", "head", "grep", "date", "pwd"]

RUNS: dict[str, str] = {}  # a turn's text -> the command whose output holds its answer (the tests run it)


def ask(text: str, command: str, kind: str, none_ok: bool = False, **rules) -> Turn:
    """A turn answered by ``command``'s output (exec); ``none_ok`` where the prompt may carry it."""
    RUNS[text] = command
    return Turn(text, ("exec",), none_ok=none_ok, kind=kind, **rules)


BR, NOT_BR, CUR = ("ash-glaze-run-22",), ("main", "master"), "git branch --show-current"
SUBJECT = ("573", "quartz", "quarz", "cuarzo", "quarzo")
LAST, COUNT = "git log -1 --format=%s", "git rev-list --count HEAD"
CLEAN = ("nothing to commit", "working tree clean", "is clean", "no uncommitted")
CHANGED, STATUS = ("kiln.ini", "firings.csv", "clay_order"), "git status --short"
SHOW = "git show --stat --format= HEAD"

SESSIONS = [
    Session("repository", [
        ask("quick one: which git branch is this checkout on?", CUR, "branch", True, says=BR, never=NOT_BR),
        ask("Sag mal, in welchem Branch stecke ich hier eigentlich gerade?", CUR, "branch", True, says=BR,
            never=NOT_BR),
        ask("Prima di fare push vorrei essere sicuro: su che branch mi trovo adesso?", CUR, "branch", True, says=BR,
            never=NOT_BR),
        ask("Na jakiej gałęzi jestem?", CUR, "branch", True, says=BR, never=NOT_BR),
        ask("今チェックアウトされているブランチの名前を教えて。", CUR, "branch", True, says=BR, never=NOT_BR),
        ask("I can't remember what I committed last. What did the commit message say?", LAST, "last commit", True,
            says=SUBJECT),
        ask("Wat is het onderwerp van de laatste commit?", LAST, "last commit", True, says=SUBJECT),
        ask("Necesito el mensaje del commit más reciente para una nota, ¿me lo pasas tal cual?", LAST, "last commit",
            True, says=SUBJECT),
        ask("how many commits are in this repo's history?", COUNT, "last commit", True, says=("5", "five")),
        ask("Wie viele Commits hat dieser Zweig bisher?", COUNT, "last commit", True, says=("5", "fünf")),
        ask("Ile commitów jest w historii tego repozytorium?", COUNT, "last commit", True, says=("5", "pięć")),
        ask("Dis-moi la branche courante et le message du dernier commit, s'il te plaît.",
            "git log -1 --format=%D%n%s", "branch", True, says_all=BR + ("573",), never=NOT_BR),
    ]),
    Session("working tree", [
        ask("Did I leave anything uncommitted before I went home yesterday?", STATUS, "uncommitted", says=CHANGED,
            never=CLEAN),
        ask("¿Tengo algo pendiente de commit en el repositorio?", STATUS, "uncommitted", says=CHANGED + ("sí",),
            never=CLEAN + ("no hay cambios", "nada pendiente")),
        ask("Czy mam jakieś niezatwierdzone zmiany? Jeśli tak, to w których plikach?", STATUS, "uncommitted",
            says=CHANGED, never=CLEAN + ("brak zmian",)),
        ask("Quels fichiers suivis ai-je modifiés depuis le dernier commit ?", STATUS, "changed files",
            says_all=("kiln.ini", "firings.csv"), never=CLEAN + ("aucune modification",)),
        ask("Is er een nieuw bestand dat git nog niet volgt?", STATUS, "changed files", says=("clay_order",)),
        ask("what exactly did I change in kiln.ini? I haven't committed it yet", "git diff kiln.ini",
            "changed files", says_all=("1238",), says=("1222",)),
        ask("Quali file ha toccato l'ultimo commit?", SHOW, "changed files", says_all=("glazes.md", "kiln.ini"),
            never=("firings.csv", "clay_order.txt")),
        ask("The commit before the latest one: which files did it add?", "git show --stat --format= HEAD~1",
            "changed files", says_all=("batch.py", "calendar_2026.py")),
        ask("when did shrink.py get committed? give me that commit's message", "git log --format=%s -- shrink.py",
            "changed files", says=("shrinkage tests",)),
        ask("Zeig mir, was sich mit dem letzten Commit in glazes.md geändert hat.", "git show HEAD -- glazes.md",
            "changed files", says=("oribe",)),
    ]),
    Session("programs", [
        ask("Run batch.py and tell me the label it prints.", "python3 batch.py", "script", says=("53e1318",)),
        ask("Uruchom batch.py i przepisz mi etykietę, którą wypisze.", "python3 batch.py", "script",
            says=("53e1318",)),
        ask("Lass mal calendar_2026.py laufen: wie viele Brände sind für 2026 geplant?",
            "python3 calendar_2026.py", "script", says=("37",)),
        ask("Exécute calendar_2026.py — combien de cuissons tombent un week-end ?", "python3 calendar_2026.py",
            "script", says=("14",)),
        ask("calendar_2026.py を実行して、最後の焼成日を教えてください。", "python3 calendar_2026.py", "script",
            says=("2026-12-25", "12月25日", "december 25", "25 december", "dec 25")),
        ask("Ejecuta shrink.py y dime qué pieza encoge más.", "python3 shrink.py", "script", says=("mg-31",)),
        ask("Lancia python3 shrink.py: qual è il ritiro medio che calcola?", "python3 shrink.py", "script",
            says=("11.56", "11,56")),
        ask("Kun je shrink.py even draaien? Welk stuk krimpt het minst?", "python3 shrink.py", "script",
            says=("tb-14",)),
    ]),
    Session("commands", [
        ask("wc -l firings.csv, how many lines?", "wc -l firings.csv", "command", says=("8",)),
        ask("Wie viele Glasurbrände stehen in firings.csv? Nimm grep -c glaze dafür.", "grep -c glaze firings.csv",
            "command", says=("4", "vier")),
        ask("Haz head -n 3 firings.csv y dime cuántas piezas entraron en la primera cocción.",
            "head -n 3 firings.csv", "command", says=("31",)),
        ask("Affiche clay_order.txt avec cat : pour quand la livraison est-elle prévue ?", "cat clay_order.txt",
            "command", says=("2026-03-20", "20 mars", "20/03")),
        ask("Esegui grep porcelain clay_order.txt e dimmi quanti chili di porcellana ho ordinato.",
            "grep porcelain clay_order.txt", "command", says=("10",)),
        ask("Zoek met grep naar celadon in glazes.md: hoeveel ijzer zit erin?", "grep celadon glazes.md", "command",
            says=("1.5", "1,5")),
        ask("Uruchom ls *.py i powiedz, jakie skrypty tu są.", "ls *.py", "command",
            says_all=("batch.py", "calendar_2026.py", "shrink.py")),
        ask("cat kiln.ini and tell me the glaze peak temperature", "cat kiln.ini", "command", says=("1238",),
            never=("1222",)),
    ]),
]
