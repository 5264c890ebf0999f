"""The assistant bench's sixth check-only set (``bench/assistant_bench.py --set check6 --masked``): the
jobs of ``assistant_heldout`` (looking, running, changing, code, "leave it as it is", plain questions,
remembering and recall in a later session) with new files, new values and new wording in six
languages. Scored by the same code; a remember turn's stored fact must also hold the fact's tokens and
no token the user never said (``Turn.keep``).

Read in part in round 53 (its files and one turn were seen): a development set from then on; its runs
before round 53 were check-only. bench/assistant_check7.py replaces it as the general check-only set.
"""

from __future__ import annotations

from assistant_requests import Session, Turn

FILES = {
    "hives.csv": "hive,frames,queen_year\nAlder,9,2024\nBirch,7,2025\nCedar,10,2023\nDamson,6,2025\n",
    "apiary.ini": ("[apiary]\nlocation = Hollow Lane\ninspect_every_days = 9\nsmoker_fuel = pine needles\n"
                   "alert_temp_c = 34\n"),
    "honey_log.md": "# Honey log\n- June: 14 kg from Alder\n- July: 22 kg from Cedar\n- August: 9 kg from Birch\n",
    "swarm.py": ("def colony_size(frames):\n    return frames * 2500\n\n\n"
                 "def total_bees(hives):\n    return sum(colony_size(f) for f in hives) - 1\n\n\n"
                 "print(total_bees([9, 7, 10, 6]))\n"),
    "notes/inspection.txt": "Inspection 12 May: Birch hive has chalkbrood.\nNext visit: 21 May with Oksana.\n",
    "LEGGIMI.md": "# Progetto Alveare\nAvvia con `python3 swarm.py`.\n",
    "suppliers.txt": "Wax: Brandt & Co, +49 30 5550 1942\nJars: Vidrio Sol, +34 955 01 77 20\n",
    "haiku.txt": "bees on the lavendar\nthe hum of a slow noon\nwarm the wax, warm the hand\n",
    "units.py": "def c_to_f(c):\n    return c * 9 / 5 + 32\n",
}
COMMIT = "apiary records, spring"
MEMORY = "\n## Other chat\n- Oksana asked to set inspect_every_days = 5 in apiary.ini some day\n"

READ, LS, RUN, MEM, ADD = ("read_file",), ("list_dir", "exec"), ("exec",), ("memory_search",), ("memory_add",)
EDIT = ("edit_file", "write_file")
LOOKS = ("read_file", "list_dir", "exec")

SESSIONS = [
    Session("peek", [
        Turn("whats in hives.csv", READ, says=("alder", "birch"), kind="file"),
        Turn("¿Qué pone en honey_log.md?", READ, says=("22", "cedar", "alder"), kind="file"),
        Turn("Zeig mir mal apiary.ini", READ, says=("hollow lane",), kind="file"),
        Turn("which files are in the notes folder", LS, says=("inspection.txt",), kind="file"),
        Turn("How many hives are listed in hives.csv?", LOOKS, says=("4", "four"), kind="file"),
        Turn("Who am I visiting the hives with on 21 May? It's in notes/inspection.txt", READ, says=("oksana",),
             kind="file"),
        Turn("Il y a un fichier qui s'appelle queens.txt ici ?", LOOKS, kind="file"),
        Turn("what's the wax supplier's phone number in suppliers.txt", READ, says=("1942",), kind="file"),
        Turn("apri LEGGIMI.md", READ, says=("alveare",), kind="file"),
        Turn("Qual é a temperatura de alerta em apiary.ini? Não mudes nada.", READ, says=("34",), kind="file"),
    ]),
    Session("run", [
        Turn("run python3 swarm.py", RUN, says=("79999",), kind="command"),
        Turn("what's the message of the last commit?", RUN, says=("apiary records",), kind="command"),
        Turn("Führe ls aus und sag mir, was da ist", LS, says=("hives.csv", "swarm.py"), kind="command"),
        Turn("count the lines in honey_log.md with wc -l", RUN, says=("4",), kind="command"),
        Turn("esegui git status", RUN, kind="command"),
        Turn('ejecuta python3 -c "import units; print(units.c_to_f(35))"', RUN, says=("95",), kind="command"),
    ]),
    Session("edit", [
        Turn("Add a line '- September: 5 kg from Damson' at the end of honey_log.md", EDIT,
             change={"honey_log.md": "September: 5 kg from Damson"}, kind="change"),
        Turn("in apiary.ini change smoker_fuel to hessian", EDIT, change={"apiary.ini": "smoker_fuel = hessian"},
             drops=("smoker_fuel",), kind="change"),
        Turn("Setz in apiary.ini inspect_every_days auf 7", EDIT, change={"apiary.ini": "inspect_every_days = 7"},
             drops=("inspect_every_days",), kind="change"),
        Turn("create a file named jars.txt with the line: 40 jars washed", ("write_file",),
             change={"jars.txt": "40 jars washed"}, kind="change"),
        Turn("Crée un fichier bonjour.txt qui contient : Bonjour les abeilles", ("write_file",),
             change={"bonjour.txt": "Bonjour les abeilles"}, kind="change"),
        Turn("there's a typo in haiku.txt, fix it please", EDIT, change={"haiku.txt": "lavender"},
             drops=("lavendar",), kind="change"),
        Turn("Remove the line about Birch from honey_log.md", EDIT, change={"honey_log.md": "Cedar"},
             gone={"honey_log.md": "Birch"}, drops=("Birch",), kind="change"),
        Turn("update hive_map.yaml so the Alder hive is in row 2", ("edit_file", "read_file", "list_dir", "write_file"),
             kind="failing change"),
    ]),
    Session("program", [
        Turn("what does units.py do?", READ, says=("fahrenheit", "celsius", "c_to_f", "9 / 5"), kind="coding"),
        Turn("swarm.py prints 79999 but 32 frames of 2500 bees make 80000. please fix total_bees", EDIT,
             change={"swarm.py": "def total_bees"}, gone={"swarm.py": ") - 1"}, drops=("- 1",), kind="coding"),
        Turn("add a function f_to_c(f) to units.py that converts fahrenheit to celsius", EDIT,
             change={"units.py": "def f_to_c"}, kind="coding"),
        Turn("run python3 swarm.py again", RUN, says=("80000",), kind="coding"),
    ]),
    Session("as it is", [
        Turn("Lies hives.csv, aber ändere nichts: aus welchem Jahr ist die Königin von Cedar?", READ, says=("2023",),
             kind="file"),
        Turn("Don't touch swarm.py. How many bees does colony_size count per frame?", READ, none_ok=True,
             says=("2500", "2,500", "2.500", "2 500"), kind="file"),
        Turn("Não alteres nada: quantos quadros tem a colmeia Birch em hives.csv?", READ, says=("7", "sete"), kind="file"),
        Turn("should I delete the old honey log?", kind="question"),
    ]),
    Session("ask", [
        Turn("What is 17 times 23?", says=("391",), kind="question"),
        Turn("Quanto fa 144 diviso 12?", says=("12", "dodici"), kind="question"),
        Turn("¿Cuál es la capital de Noruega?", says=("oslo",), kind="question"),
        Turn("What does JSON stand for?", says=("javascript object notation",), kind="question"),
        Turn("Écris une phrase sur les abeilles.", kind="question"),
        Turn("thanks, bye for now", kind="question"),
    ]),
    Session("keep", [
        Turn("My beekeeping association number is 7719, keep that in mind.", ADD, keep=("7719",), kind="remember"),
        Turn("Merk dir: die Honigschleuder leihe ich mir am 2. Juni aus.", ADD, keep=("schleuder",), kind="remember"),
        Turn("Recuerda que mi abeja reina favorita se llama Maite.", ADD, keep=("maite",), kind="remember"),
        Turn("n'oublie pas : le rucher ferme le 30 octobre", ADD, keep=("30",), kind="remember"),
    ]),
    Session("afterwards", [
        Turn("What's my beekeeping association number?", MEM, none_ok=True, says=("7719",), kind="recall"),
        Turn("Wann leihe ich mir die Honigschleuder aus?", MEM, none_ok=True, says=("juni", "june"), kind="recall"),
        Turn("¿Cómo se llama mi reina favorita?", MEM, none_ok=True, says=("maite",), kind="recall"),
        Turn("Quand est-ce que le rucher ferme ?", MEM, none_ok=True, says=("30",), kind="recall"),
    ]),
]
