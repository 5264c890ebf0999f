"""The assistant bench's held-out requests (issue 39): the same jobs as ``assistant_requests`` with
other files, other wording, four languages (English, Spanish, German, French), typos, indirect
requests, "don't change it" requests and remembering across sessions. Scored by the same code
(``bench/assistant_bench.py --set heldout``). It is only checked, never tuned on: no rule in
nanobot may name its files or phrasings.

``gone``: {path: text the file must no longer contain}; ``drops``: text a line this turn may remove
contains (any other removed line of a user file is a destroyed line).
"""

from __future__ import annotations

from assistant_requests import Session, Turn

FILES = {
    "inventory.csv": "item,qty\nwidgets,17\ngaskets,243\nsprockets,9\n",
    "recipe.md": "# Flan\n- 4 eggs\n- 500 ml milk\n- 120 g sugar\nBake 50 minutes at 160C.\n",
    "server.cfg": "port = 8731\nhost = 0.0.0.0\nlog_level = warn\nworkers = 3\n",
    "shapes.py": ("import math\n\n\ndef area_circle(r):\n    return math.pi * r * r\n\n\n"
                  "def area_square(s):\n    return s * 4\n\n\nprint(round(area_circle(2), 2))\n"),
    "poem.txt": ("The heron waits by the grey canal,\nthe lantren hums a tune.\nA ferry sleeps beneath the wall\n"
                 "and dreams of the orange moon.\n"),
    "notes/meeting.txt": "Meeting with Ingrid on Tuesday 14:30 in room B7.\nBudget: 3200 EUR.\n",
    "textutil.py": 'def slugify(s):\n    return s.lower().replace(" ", "-")\n',
    "LIESMICH.md": "# Projekt Kranich\nStarte mit `python3 shapes.py`.\n",
    "contacts.txt": "Marta: +34 611 20 45 88\nKenji: +81 90 1234 5678\n",
}
COMMIT = "import kranich sources"
MEMORY = "\n## Other chat\n- dev asked to set workers = 8 in server.cfg next week\n"

READ, LS, RUN, MEM, ADD = ("read_file",), ("list_dir", "exec"), ("exec",), ("memory_search",), ("memory_add",)
EDIT = ("edit_file", "write_file")
LOOKS = ("read_file", "list_dir", "exec")

SESSIONS = [
    Session("looking", [
        Turn("whats in inventry.csv?", READ, says=("gaskets", "243"), kind="file"),
        Turn("¿Qué dice el archivo recipe.md?", READ, says=("huevo", "egg", "flan", "160", "azúcar", "sugar"), kind="file"),
        Turn("Zeig mir bitte poem.txt", READ, says=("heron",), kind="file"),
        Turn("which files are in the notes folder?", LS, says=("meeting.txt",), kind="file"),
        Turn("How many lines are in poem.txt?", LOOKS, says=("4", "four"), kind="file"),
        Turn("Can you take a look at server.cfg and tell me which port it uses? Don't change anything.", READ,
             says=("8731",), kind="file"),
        Turn("Who am I meeting on Tuesday? It's in notes/meeting.txt", READ, says=("ingrid",), kind="file"),
        Turn("Y a-t-il un fichier nommé budget.xlsx ici ?", LOOKS, kind="file"),
        Turn("what's Kenji's number? check contacts.txt", READ, says=("1234",), kind="file"),
        Turn("open LIESMICH.md", READ, says=("kranich",), kind="file"),
        Turn("read the file shapes.py but do not modify it", READ, says=("area_circle", "area_square"), kind="file"),
        Turn("what is in the file called recipie.md", READ, says=("egg", "flan", "sugar"), kind="file"),
        Turn("which files are here?", LS, says=("poem.txt", "shapes.py"), kind="file"),
        Turn("Lies recipe.md und sag mir, wie lange der Flan backt", READ, says=("50",), kind="file"),
    ]),
    Session("running", [
        Turn("what was the last commit message?", RUN, says=("kranich",), kind="command"),
        Turn("is the working tree clean? check with git status", RUN, kind="command"),
        Turn("execute python3 shapes.py", RUN, says=("12.57",), kind="command"),
        Turn("Führe bitte ls aus", LS, says=("poem.txt", "shapes.py"), kind="command"),
        Turn("count the words in poem.txt with wc -w", RUN, says=("24",), kind="command"),
        Turn("ejecuta git log --oneline", RUN, says=("kranich",), kind="command"),
        Turn("print the current working directory with pwd", RUN, says=("/",), kind="command"),
    ]),
    Session("changing", [
        Turn("Add a line 'Eat dessert first.' at the end of poem.txt", EDIT, change={"poem.txt": "Eat dessert first."},
             kind="change"),
        Turn("in server.cfg set the log level to debug", EDIT, change={"server.cfg": "log_level = debug"},
             drops=("log_level",), kind="change"),
        Turn("Ändere bitte in server.cfg die workers auf 5", EDIT, change={"server.cfg": "workers = 5"},
             drops=("workers",), kind="change"),
        Turn("create a file called shopping.txt with the lines apples and bread", ("write_file",),
             change={"shopping.txt": "apples"}, kind="change"),
        Turn("Crea un archivo hola.txt que diga: Hola mundo", ("write_file",), change={"hola.txt": "Hola mundo"},
             kind="change"),
        Turn("add a comment '# geometry helpers' at the top of shapes.py", EDIT,
             change={"shapes.py": "# geometry helpers"}, kind="change"),
        Turn("remove the line about the budget from notes/meeting.txt", EDIT, change={"notes/meeting.txt": "Ingrid"},
             gone={"notes/meeting.txt": "3200"}, drops=("Budget",), kind="change"),
        Turn("there's a spelling mistake in poem.txt, please correct it", EDIT, change={"poem.txt": "lantern"},
             drops=("lantren",), kind="change"),
        Turn("Supprime la ligne 'sprockets,9' de inventory.csv", EDIT, change={"inventory.csv": "gaskets"},
             gone={"inventory.csv": "sprockets"}, drops=("sprockets",), kind="change"),
        Turn("update config.yaml so that retries is 4", ("edit_file", "read_file", "list_dir", "write_file"),
             kind="failing change"),
    ]),
    Session("code", [
        Turn("what does textutil.py do?", READ, says=("slug", "lower", "hyphen", "dash", "-"), kind="coding"),
        Turn("add a function called reverse_words to textutil.py that reverses the order of words in a string", EDIT,
             change={"textutil.py": "def reverse_words"}, kind="coding"),
        Turn("run python3 -c \"import textutil; print(textutil.slugify('Big Red Dog'))\"", RUN, says=("big-red-dog",),
             kind="coding"),
        Turn("area_square in shapes.py is wrong, a square's area is s * s. please fix it", EDIT,
             change={"shapes.py": "s * s"}, drops=("s * 4",), kind="coding"),
        Turn("rename the function area_circle to circle_area in shapes.py", EDIT,
             change={"shapes.py": "def circle_area"}, drops=("area_circle",), kind="coding"),
    ]),
    Session("handsoff", [
        Turn("Look at recipe.md, but leave it as it is: how much sugar?", READ, says=("120",), kind="file"),
        Turn("I don't want you to touch shapes.py, just tell me what area_circle returns", READ, none_ok=True,
             says=("pi", "π", "r * r", "r²", "area"), kind="file"),
        Turn("No cambies nada: ¿cuántos sprockets hay en inventory.csv?", READ, says=("9", "nueve"), kind="file"),
        Turn("should I run git push now?", kind="question"),
    ]),
    Session("asking", [
        Turn("What's 15% of 80?", says=("12",), kind="question"),
        Turn("Wie viel ist 9 mal 7?", says=("63",), kind="question"),
        Turn("¿Cuál es la capital de Japón?", says=("tokio", "tokyo"), kind="question"),
        Turn("Name three primary colours.", says=("red", "blue", "yellow"), kind="question"),
        Turn("what does HTTP stand for?", says=("hypertext",), kind="question"),
        Turn("Write one sentence about the sea.", kind="question"),
        Turn("How do I get the length of a string in Python?", says=("len",), kind="question"),
        Turn("Give me a synonym for 'happy'.", kind="question"),
        Turn("merci, c'est tout", kind="question"),
    ]),
    Session("keeping", [
        Turn("My cat is called Pixel, keep that in mind.", ADD, kind="remember"),
        Turn("Merk dir: mein Zug fährt um 7:42.", ADD, kind="remember"),
        Turn("Recuerda que mi color favorito es el azul.", ADD, kind="remember"),
        Turn("For future reference, the garage code is 5521.", ADD, kind="remember"),
        Turn("please remmeber my sister's birthday is 3 March", ADD, kind="remember"),
    ]),
    Session("later", [
        Turn("What's my cat's name?", MEM, none_ok=True, says=("pixel",), kind="recall"),
        Turn("Wann fährt mein Zug?", MEM, none_ok=True, says=("7:42",), kind="recall"),
        Turn("¿Cuál es mi color favorito?", MEM, none_ok=True, says=("azul", "blue"), kind="recall"),
        Turn("what was the garage code again?", MEM, none_ok=True, says=("5521",), kind="recall"),
        Turn("When is my sister's birthday?", MEM, none_ok=True, says=("march", "3"), kind="recall"),
    ]),
    Session("billing", chat="billing", turns=[
        Turn("carla: Hello, I'm Carla and I handle the billing.", kind="team"),
        Turn("dev: what is 6 times 8?", says=("48",), kind="team"),
        Turn("carla: could you show me contacts.txt?", READ, says=("marta",), kind="team"),
        Turn("dev: What does Carla handle? Answer from what she said.", says=("billing",), kind="team"),
        Turn("carla: great, thanks", kind="team"),
    ]),
]
