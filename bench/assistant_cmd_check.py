"""The assistant bench's command questions, the first check-only half, now read (issue 75; ``bench/assistant_bench.py
--set cmd_check``): questions only this computer can answer, in a git repository on a branch
of its own with uncommitted work, in six languages. Scored like ``assistant_cmd_dev``.

A development set since round 50: a developer's search showed five of its turns. Its check-only
successor is ``assistant_cmd_check2`` (written by a helper, never read).
"""

from __future__ import annotations

from assistant_requests import Session, Turn

IGNORE = ("# nanobot's own files\nSOUL.md\nUSER.md\nCONTEXT.md\nMEMORY.md\nHEARTBEAT.md\nobservations/\nknowledge/\n"
          "skills/\naudit/\nsessions/\n.nanobot/\n__pycache__/\n*.db\n*.db-*\n*.lock\n")
BRANCH = "spike/quarry-ledger-19"
HISTORY = [
    ("import the quarry inventory", {".gitignore": IGNORE, "crew.txt": "Ilse Varga\nTomasz Brill\n"}),
    ("blasting schedule for bench 3", {"blasting.ini": "[bench3]\ncharge_kg = 22\ndelay_ms = 25\nwindow = 11:30\n"}),
    ("crusher: log belt speed", {"samples/belt.txt": "belt speed 1.6 m/s\n"}),
]
FILES = {
    "crew.txt": "Ilse Varga\nTomasz Brill\nNoor Haddad\n",
    "blasting.ini": "[bench3]\ncharge_kg = 22\ndelay_ms = 25\nwindow = 11:30\n",
    "ledger.py": ('loads = [("Mo", 38.6), ("Di", 41.25), ("Mi", 17.9), ("Do", 44.05), ("Fr", 29.35), ("Sa", 12.8)]\n'
                  "total = sum(t for _, t in loads)\nheaviest = max(loads, key=lambda x: x[1])\n"
                  'print(f"haulage this week: {total:.2f} t")\nprint(f"heaviest day: {heaviest[0]} with {heaviest[1]} t")\n'),
    "seam.py": ('import hashlib\nimport zlib\n\ncore = "granite/B7/bench-3"\n'
                'print("seam id:", hashlib.blake2b(core.encode(), digest_size=5).hexdigest())\n'
                'print("crc:", zlib.crc32(core.encode()) % 100000)\n'),
    "shifts.py": ("import calendar\n\n"
                  "paydays = [m for m in range(1, 13) if calendar.weekday(2027, m, 13) == calendar.FRIDAY]\n"
                  "names = [calendar.month_name[m] for m in paydays]\n"
                  'print("bonus shifts (Friday the 13th) in 2027:", ", ".join(names) or "none")\n'),
    "samples/belt.txt": "belt speed 1.6 m/s\n",
    "samples/core_log.txt": ("depth 2 m: granite, coarse\ndepth 4 m: granite with quartz veins\ndepth 6 m: schist band\n"
                             "depth 8 m: granite, fine\ndepth 10 m: clay seam\ndepth 12 m: granite, fractured\n"
                             "depth 14 m: schist\n"),
    "samples/assay.csv": "sample,silica_pct\nS1,71.2\nS2,68.9\n",
}
COMMIT = "ledger: round haulage weights to the nearest 5 kg"
DIRTY = {  # left uncommitted: blasting.ini and crew.txt changed, survey_draft.md new
    "blasting.ini": "[bench3]\ncharge_kg = 26\ndelay_ms = 25\nwindow = 11:30\n",
    "crew.txt": "Ilse Varga\nTomasz Brill\nNoor Haddad\nRafe Okonjo\n",
    "survey_draft.md": "# Survey draft\nEast face needs a new benchmark.\n",
}
MEMORY = ""
EXEC_ALLOW = ["python3", "git status", "git log", "git branch", "git diff", "git show", "git rev-parse",
              "ls", "wc", "cat", "head", "grep", "date", "pwd"]

RUNS: dict[str, str] = {}  # a turn's text -> the command whose output holds its answer (tests/test_bench_sets.py runs it)


def ask(text: str, command: str, kind: str, none_ok: bool = False, **rules) -> Turn:
    """A turn answered by ``command``'s output (exec); ``none_ok`` where the prompt may carry it."""
    RUNS[text] = command
    return Turn(text, ("exec",), none_ok=none_ok, kind=kind, **rules)


BRANCH_SAYS, NOT_BRANCH = ("spike/quarry-ledger-19",), ("main", "master")
SUBJECT = ("round haulage", "nearest 5 kg")
CLEAN = ("nothing to commit", "working tree clean", "is clean", "no uncommitted", "no changes")
CHANGED = ("blasting.ini", "crew.txt", "survey_draft")

SESSIONS = [
    Session("repo", [
        ask("Su quale branch sto lavorando?", "git branch --show-current", "branch", True, says=BRANCH_SAYS,
            never=NOT_BRANCH),
        ask("tell me the name of the current git branch", "git branch --show-current", "branch", True,
            says=BRANCH_SAYS, never=NOT_BRANCH),
        ask("Wie lautet die Nachricht des letzten Commits?", "git log -1 --format=%s", "last commit", True,
            says=SUBJECT),
        ask("What did the last commit do? Give me its message.", "git log -1 --format=%s", "last commit", True,
            says=SUBJECT),
        ask("¿Tengo cambios sin confirmar en el repo?", "git status --short", "uncommitted", says=CHANGED + ("sí",),
            never=CLEAN + ("no hay cambios", "no tienes cambios")),
        ask("is my working tree clean or not?", "git status --short", "uncommitted", says=CHANGED + ("not clean",),
            never=CLEAN),
        ask("Welche Dateien sind seit dem letzten Commit verändert worden?", "git status --short", "changed files",
            says_all=("blasting.ini", "crew.txt"), never=CLEAN + ("keine änderungen",)),
        ask("Quelles valeurs ai-je changées dans blasting.ini depuis le dernier commit ?", "git diff blasting.ini",
            "changed files", says_all=("26",), says=("22",)),
        ask("Zijn er bestanden die git nog niet bijhoudt?", "git status --short", "changed files",
            says=("survey_draft",)),
        ask("Quanti commit ci sono in questo branch?", "git rev-list --count HEAD", "last commit",
            says=("4", "quattro")),
        ask("which branch is checked out, and what is the latest commit about?", "git log -1 --format=%D%n%s",
            "branch", True, says_all=BRANCH_SAYS, says=SUBJECT, never=NOT_BRANCH),
    ]),
    Session("scripts", [
        ask("execute ledger.py and tell me the total haulage", "python3 ledger.py", "script", says=("183.95",)),
        ask("Lass seam.py laufen und sag mir die Seam-ID.", "python3 seam.py", "script", says=("6c3d0cd910",)),
        ask("Corre shifts.py: ¿en qué mes caen los turnos extra?", "python3 shifts.py", "script",
            says=("august", "agosto")),
        ask("Esegui python3 ledger.py e dimmi quante tonnellate ha il giorno più pesante.", "python3 ledger.py",
            "script", says=("44.05",)),
        ask("Exécute seam.py et donne-moi le crc.", "python3 seam.py", "script", says=("65446",)),
        ask("Draai python3 shifts.py en vertel me wat het uitprint.", "python3 shifts.py", "script",
            says=("august", "augustus")),
    ]),
    Session("shell", [
        ask("run wc -w crew.txt", "wc -w crew.txt", "command", says=("8",)),
        ask("Führe ls samples aus: was liegt da?", "ls samples", "command", says_all=("belt", "core_log", "assay")),
        ask('ejecuta python3 -c "print(2**19 % 1000)" y dime qué sale', 'python3 -c "print(2**19 % 1000)"', "command",
            says=("288",)),
        ask("lance grep -c granite samples/core_log.txt", "grep -c granite samples/core_log.txt", "command",
            says=("4",)),
        ask("Esegui cat blasting.ini e dimmi quanti kg di carica ci sono.", "cat blasting.ini", "command",
            says=("26",), never=("22",)),
        ask("voer head -n 2 crew.txt uit", "head -n 2 crew.txt", "command", says_all=("ilse", "tomasz")),
        ask('run python3 -c "print(sum(i*i for i in range(1, 24)))" and report the number',
            'python3 -c "print(sum(i*i for i in range(1, 24)))"', "command", says=("4324",)),
    ]),
]
