"""The assistant bench's fresh requests: the same jobs as ``assistant_requests`` and
``assistant_heldout`` with new files, new values, new wording, four languages (English, Portuguese,
Italian, Dutch), typos, indirect requests, "leave it as it is" requests and remembering across
sessions. Scored by the same code (``bench/assistant_bench.py --set fresh``).

Written to be only checked (never read, never tuned on); from round 38 on its misses were read
through ``--masked`` and round 40's rules were chosen from them, so it is a development set now and its
figures are not figures of unseen requests (docs/benchmarks/assistant.md). No rule in nanobot may name
its files, values or phrasings, and its pages still show counts only. A set that is only checked is
another file, written by someone who reports its summary numbers only.

``gone``: {path: text the file must no longer contain}; ``drops``: text a line this turn may remove
contains (any other removed line of a user file is a destroyed line).
"""

from __future__ import annotations

from assistant_requests import Session, Turn

FILES = {
    "keeper_log.txt": ("Keeper's log, island of Vaarholm\nLamp lit at 19:12, fog from the west.\n"
                       "Two trawlers passed: the Margit and the Solveig.\nOil remaining: 38 litres.\n"
                       "The radio crackled twice after midnigth.\n"),
    "crew/roster.txt": "Monday: Oskar\nWednesday: Lieve\nFriday: Tomasz\n",
    "crew/radio.txt": "Channel 61, call sign GULL-3.\n",
    "fietsroute.md": "# Fietsroute Zaandijk\nStart: molen De Kat\nAfstand: 27 km\nPauze bij café Het Schoutje\n",
    "birds.tsv": "species\tcount\nkestrel\t13\nlapwing\t58\ncurlew\t112\nwren\t22\n",
    "kiln.conf": "zone = north\nmax_temp = 1245\nramp_rate = 85\nalarm = off\nshelves = 7\n",
    "bookshelf.py": ('SHELF = [("Ostrava Nights", 318), ("The Quillon Map", 77), ("Brambor", 1046)]\n\n\n'
                     "def total_pages(books):\n    return sum(pages for _, pages in books)\n\n\n"
                     "def longest(books):\n    return min(books, key=lambda b: b[1])[0]\n\n\n"
                     'def lbl(book):\n    return f"{book[0]} ({book[1]} p.)"\n\n\n'
                     'if __name__ == "__main__":\n    print(total_pages(SHELF))\n'),
    "test_bookshelf.py": ("import unittest\n\nfrom bookshelf import SHELF, longest, total_pages\n\n\n"
                          "class ShelfTest(unittest.TestCase):\n    def test_total(self):\n"
                          "        self.assertEqual(total_pages(SHELF), 1441)\n\n"
                          "    def test_longest(self):\n        self.assertEqual(longest(SHELF), \"Brambor\")\n\n\n"
                          'if __name__ == "__main__":\n    unittest.main()\n'),
}
COMMIT = "stock the workshop shelves"
MEMORY = "\n## Other chat\n- piet wants ramp_rate in kiln.conf lowered to 70 after the next firing\n"

READ, LS, RUN, MEM, ADD = ("read_file",), ("list_dir", "exec"), ("exec",), ("memory_search",), ("memory_add",)
EDIT = ("edit_file", "write_file")
LOOKS = ("read_file", "list_dir", "exec")

SESSIONS = [
    Session("peering", [
        Turn("can u show me keper_log.txt?", READ, says=("vaarholm", "margit", "solveig", "19:12", "trawler"), kind="file"),
        Turn("Quantas linhas tem o ficheiro keeper_log.txt?", LOOKS, says=("5", "cinco", "five"), kind="file"),
        Turn("Quali file ci sono nella cartella crew?", LS, says=("roster", "radio"), kind="file"),
        Turn("Wat staat er in fietsroute.md?", READ, says=("zaandijk", "de kat", "schoutje", "27"), kind="file"),
        Turn("I can't recall who is on duty on Wednesday. The roster is somewhere in the crew folder.", LOOKS,
             says=("lieve",), kind="file"),
        Turn("Staat hier ergens een bestand dat wachtwoorden.txt heet?", LOOKS, kind="file"),
        Turn("can u list evrything in this folder", LS, says=("kiln.conf", "birds.tsv", "bookshelf.py"), kind="file"),
    ]),
    Session("checks", [
        Turn("do the tests pass? run them with python3 -m unittest", RUN,
             says=("fail", "assert", "brambor", "quillon"), kind="command"),
        Turn("Mostrami la cronologia dei commit con git log", RUN, says=("workshop",), kind="command"),
        Turn("Corre o git status para ver se há alterações", RUN, kind="command"),
        Turn("Hoeveel woorden staan er in birds.tsv? Gebruik wc -w", RUN, says=("10", "tien"), kind="command"),
        Turn("execute bookshelf.py with python3 and tell me what it prints", RUN, says=("1441",), kind="command"),
    ]),
    Session("untouched", [
        Turn("Senza modificare niente, dimmi qual è la temperatura massima in kiln.conf", READ, says=("1245",),
             kind="file"),
        Turn("Dá uma vista de olhos ao bookshelf.py sem mexer em nada: quantas páginas tem o Brambor?", READ,
             says=("1046",), kind="file"),
        Turn("Don't edit it, only check crew/radio.txt: what is our call sign?", READ, says=("gull",), kind="file"),
    ]),
    Session("edits", [
        Turn("Add the line 'Fog lifted at 05:40.' to the end of keeper_log.txt", EDIT,
             change={"keeper_log.txt": "Fog lifted at 05:40."}, kind="change"),
        Turn("one word in keeper_log.txt is spelled wrong, could you sort that out?", EDIT,
             change={"keeper_log.txt": "midnight"}, gone={"keeper_log.txt": "midnigth"}, drops=("midnigth",),
             kind="change"),
        Turn("Zet in kiln.conf het aantal planken op 11", EDIT, change={"kiln.conf": "shelves = 11"},
             gone={"kiln.conf": "shelves = 7"}, drops=("shelves",), kind="change"),
        Turn("Togli da birds.tsv la riga del wren", EDIT, change={"birds.tsv": "curlew"}, gone={"birds.tsv": "wren"},
             drops=("wren",), kind="change"),
        Turn("No fietsroute.md a distância agora é de 31 km, atualiza isso por favor", EDIT,
             change={"fietsroute.md": "31 km"}, gone={"fietsroute.md": "27 km"}, drops=("27 km",), kind="change"),
        Turn("Maak een nieuw bestand groet.txt met de tekst: Goedemiddag allemaal", ("write_file",),
             change={"groet.txt": "Goedemiddag allemaal"}, kind="change"),
        Turn("bump replicas to 7 in deploy.yml", ("edit_file", "read_file", "list_dir", "write_file"),
             kind="failing change"),
    ]),
    Session("repairs", [
        Turn("O que faz o bookshelf.py?", READ, says=("page", "book", "shelf", "longest", "total", "livro", "página"),
             kind="coding"),
        Turn("the longest test fails because longest() picks the thinnest book. fix bookshelf.py, not the test", EDIT,
             change={"bookshelf.py": "max("}, gone={"bookshelf.py": "min("}, drops=("min(",), kind="coding"),
        Turn("Rinomina la funzione lbl in label dentro bookshelf.py", EDIT, change={"bookshelf.py": "def label("},
             gone={"bookshelf.py": "def lbl("}, drops=("lbl",), kind="coding"),
        Turn("run the unit tests again (python3 -m unittest)", RUN, says=("exit 0", "\nok", "pass", "succe"),
             kind="coding"),
    ]),
    Session("smalltalk", [
        Turn("What's 17 squared?", says=("289",), kind="question"),
        Turn("Qual é a capital da Austrália?", says=("canberra",), kind="question"),
        Turn("Quanti minuti ci sono in tre ore e mezza?", says=("210",), kind="question"),
        Turn("Wat is het tegenovergestelde van 'koud'?", says=("warm", "heet", "hot"), kind="question"),
        Turn("which python builtin gives back a new sorted list and leaves the original alone?", says=("sorted",),
             kind="question"),
        Turn("i'm heading out for lunch, catch you later", kind="question"),
    ]),
    Session("jotting", [
        Turn("pls remembr that my locker at the pool is number 2719", ADD, kind="remember"),
        Turn("Toma nota: o meu veterinário chama-se Dr. Valadares.", ADD, kind="remember"),
        Turn("Ricordati che porto il 43 di scarpe.", ADD, kind="remember"),
        Turn("Voor later: mijn fiets is een blauwe Gazelle.", ADD, kind="remember"),
    ]),
    Session("nextday", [
        Turn("whats my locker number at the pool?", MEM, none_ok=True, says=("2719",), kind="recall"),
        Turn("Como se chama o meu veterinário?", MEM, none_ok=True, says=("valadares",), kind="recall"),
        Turn("Che numero di scarpe porto?", MEM, none_ok=True, says=("43",), kind="recall"),
        Turn("Wat voor fiets heb ik ook alweer?", MEM, none_ok=True, says=("gazelle",), kind="recall"),
    ]),
    Session("studio", chat="studio", turns=[
        Turn("ines: hello everyone, I'm Ines and I look after the kiln.", kind="team"),
        Turn("piet: can someone open fietsroute.md for me?", READ, says=("zaandijk", "schoutje", "de kat"), kind="team"),
        Turn("piet: Nano, what does Ines look after? Go by what she told us.", says=("kiln",), kind="team"),
    ]),
]
