"""The assistant bench's command questions, development half (issue 75; ``bench/assistant_bench.py
--set cmd_dev``): questions only this computer can answer. The workspace is a git repository on the
branch ``feature/lighthouse-7`` with three commits and uncommitted work (a changed tracked file and a
new untracked one); the turns ask for the branch, the last commit, whether anything is uncommitted,
which files changed, a script's output (values it computes, not guessable from its name or source) and
an allowed command's output, in five languages (English, German, Spanish, French, Portuguese). May be
read and tuned on; ``assistant_cmd_check`` is its check-only half.

A turn is right only when the reply states the true value (``says``/``says_all``) and nothing the
computer does not hold (``never``: "main" or "master" for the branch, a clean tree that is not). The
branch, the last commit's subject and the branch's number of commits may come from the prompt
(``none_ok``); what is uncommitted, a script's output and a command's output need the run (exec) this turn.
"""

from __future__ import annotations

from assistant_requests import Session, Turn

IGNORE = ("# nanobot's own files\nSOUL.md\nUSER.md\nCONTEXT.md\nMEMORY.md\nHEARTBEAT.md\nobservations/\nknowledge/\n"
          "skills/\naudit/\nsessions/\n.nanobot/\n__pycache__/\n*.db\n*.db-*\n*.lock\n")
BRANCH = "feature/lighthouse-7"
HISTORY = [
    ("start the lighthouse log", {".gitignore": IGNORE,
                                  "logbook.txt": "1 Nov: lamp lit at 16:42\n2 Nov: fog from the west, horn on\n"}),
    ("keeper rota for the winter months", {"rota.csv": "week,keeper\n45,Aldous\n46,Brennagh\n47,Corwin\n48,Dagny\n"}),
]
FILES = {
    "logbook.txt": ("1 Nov: lamp lit at 16:42\n2 Nov: fog from the west, horn on\n3 Nov: clear, gulls on the gallery\n"
                    "4 Nov: fog again, horn 3 hours\n5 Nov: lens polished\n6 Nov: gale, 2 panes cracked\n"
                    "7 Nov: fog at dawn, cleared by 9\n"),
    "lamp.toml": "[lamp]\nperiod_s = 14\nflashes = 2\ncolour = \"white\"\nrange_nm = 18\n",
    "beacon.py": ('import hashlib\n\nkeepers = ["Aldous", "Brennagh", "Corwin", "Dagny"]\n'
                  'code = hashlib.sha256("|".join(keepers).encode()).hexdigest()[:8]\nprint(f"watch code: {code}")\n'),
    "tides.py": ('heights = [3.42, 4.07, 2.96, 4.51, 3.88, 2.73, 4.19, 3.35]\n'
                 'days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Mon"]\n'
                 'mean = sum(heights) / len(heights)\nprint(f"mean tide: {mean:.3f} m")\n'
                 'print(f"spring tide: {days[heights.index(max(heights))]} ({max(heights) - min(heights):.2f} m above the lowest)")\n'),
    "fog.py": ("import datetime\n\nstart = datetime.date(2026, 1, 1)\n"
               "fog = {start + datetime.timedelta(days=d * 37 % 365) for d in range(1, 61)}\n"
               "march = sorted(d.day for d in fog if d.month == 3)\n"
               'print("foggy days in March:", ", ".join(str(d) for d in march))\n'
               'print("foggy days in the year:", len(fog))\n'),
    "charts/north_approach.txt": "Rocks 0.4 nm NNE of the light.\n",
    "charts/harbour.txt": "Harbour entrance: keep the red buoy to port.\n",
    "charts/soundings.csv": "point,depth_m\nA,12\nB,7\nC,3\n",
}
COMMIT = "lamp: rotate the lens every 14 seconds"
DIRTY = {  # left uncommitted: lamp.toml changed, storm_notes.txt new
    "lamp.toml": "[lamp]\nperiod_s = 11\nflashes = 2\ncolour = \"white\"\nrange_nm = 18\n",
    "storm_notes.txt": "Gale warning for Thursday night.\n",
}
MEMORY = ""
EXEC_ALLOW = ["python3", "git status", "git log", "git branch", "git diff", "git show", "git rev-parse",
              "ls", "wc", "cat", "head", "grep", "date", "pwd"]

RUNS: dict[str, str] = {}  # a turn's text -> the command whose output holds its answer (tests/test_bench_sets.py runs it)


def ask(text: str, command: str, kind: str, none_ok: bool = False, **rules) -> Turn:
    """A turn answered by ``command``'s output (exec); ``none_ok`` where the prompt may carry it."""
    RUNS[text] = command
    return Turn(text, ("exec",), none_ok=none_ok, kind=kind, **rules)


BRANCH_SAYS, NOT_BRANCH = ("feature/lighthouse-7",), ("main", "master")
SUBJECT = ("rotate the lens",)
CLEAN = ("nothing to commit", "working tree clean", "is clean", "no uncommitted", "no changes")
CHANGED = ("lamp.toml", "storm_notes")

SESSIONS = [
    Session("repository", [
        ask("Which branch am I on?", "git branch --show-current", "branch", True, says=BRANCH_SAYS, never=NOT_BRANCH),
        ask("Auf welchem Branch arbeite ich gerade?", "git branch --show-current", "branch", True, says=BRANCH_SAYS,
            never=NOT_BRANCH),
        ask("what's the subject of the most recent commit?", "git log -1 --format=%s", "last commit", True,
            says=SUBJECT),
        ask("¿Cuál fue el último commit? Dame su mensaje.", "git log -1 --format=%s", "last commit", True, says=SUBJECT),
        ask("Est-ce que j'ai des modifications pas encore commitées ?", "git status --short", "uncommitted",
            says=CHANGED + ("oui",), never=CLEAN + ("aucune modification", "rien à committer")),
        ask("A árvore de trabalho está limpa? Verifica com o git.", "git status --short", "uncommitted",
            says=CHANGED + ("não está limpa",), never=CLEAN + ("nenhuma alteração",)),
        ask("Which files have I changed since the last commit?", "git status --short", "changed files",
            says=("lamp.toml",), never=CLEAN),
        ask("Was habe ich in lamp.toml geändert, das noch nicht committet ist?", "git diff lamp.toml", "changed files",
            says_all=("11",), says=("14",)),
        ask("¿Hay archivos sin seguimiento en el repositorio?", "git status --short", "changed files",
            says=("storm_notes",)),
        ask("How many commits are on this branch so far?", "git rev-list --count HEAD", "last commit", True,
            says=("3", "three")),
        ask("Sur quelle branche suis-je, et quel est le dernier commit ?", "git log -1 --format=%D%n%s", "branch", True,
            says_all=BRANCH_SAYS + SUBJECT, never=NOT_BRANCH),
    ]),
    Session("programs", [
        ask("Run beacon.py and tell me what it prints.", "python3 beacon.py", "script", says=("29515d66",)),
        ask("Ejecuta tides.py y dime la marea media que calcula.", "python3 tides.py", "script", says=("3.639",)),
        ask("Starte bitte fog.py: an welchen Tagen im März ist Nebel?", "python3 fog.py", "script",
            says_all=("16", "26")),
        ask("Roda o tides.py e diz-me em que dia cai a maré viva.", "python3 tides.py", "script",
            says=("thu", "quinta")),
        ask("Lance python3 beacon.py et donne-moi le code affiché.", "python3 beacon.py", "script",
            says=("29515d66",)),
    ]),
    Session("commands", [
        ask("run wc -l logbook.txt", "wc -l logbook.txt", "command", says=("7",)),
        ask("Führe ls charts aus und sag mir, welche Dateien drin sind.", "ls charts", "command",
            says_all=("north_approach", "harbour", "soundings")),
        ask('Ejecuta python3 -c "print(sum(range(1, 38)))" y dime el resultado', 'python3 -c "print(sum(range(1, 38)))"',
            "command", says=("703",)),
        ask("Peux-tu lancer grep -c fog logbook.txt ?", "grep -c fog logbook.txt", "command", says=("3",)),
        ask("Executa cat lamp.toml e diz-me o valor de period_s.", "cat lamp.toml", "command", says=("11",),
            never=("14",)),
        ask("run head -n 3 rota.csv and tell me who keeps week 46", "head -n 3 rota.csv", "command",
            says=("brennagh",)),
    ]),
]
