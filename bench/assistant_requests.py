"""The assistant bench's scripted requests (issue 29): realistic turns a new user types, grouped in
sessions, each with what a correct turn does. Used by bench/assistant_bench.py.

``want``: the tools that are right for the turn (any of them); empty = answer without a tool.
``none_ok``: answering without a tool is right too (e.g. the fact is already in the prompt).
``says``: the reply must contain one of these (lower case) -- the looked-up content, the answer.
``change``: {path: text the file must then contain}: the one change this turn may make.
``gone``: {path: text the file must no longer contain}.
``drops``: text that a line this turn may remove from a changed file contains (the line the request
replaces); any other removed line is a destroyed line.

Rules the later sets add (a turn that leaves them at their defaults is scored as before):
``never``: the reply must contain none of these (lower case, whole words): a value the computer does
not hold ("master" for a branch of another name), the output of a command nobody asked to run.
``says_all``: the reply must contain every one of these (lower case).
``keep``: a remember turn's memory_add text must hold each of these (lower case), and every
fact-bearing token of it (a number, a capitalised name) must be in the user's message.
``no_write``: the turn writes nothing to memory (no memory_add, MEMORY.md and USER.md unchanged).
``only``: every tool call must match one of these: a tool's name, or ``name:text`` (that tool, with
``text`` in its arguments); any other call is a stray call.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Turn:
    text: str
    want: tuple[str, ...] = ()
    none_ok: bool = False
    says: tuple[str, ...] = ()
    change: dict[str, str] = field(default_factory=dict)
    kind: str = ""
    gone: dict[str, str] = field(default_factory=dict)
    drops: tuple[str, ...] = ()
    never: tuple[str, ...] = ()
    says_all: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()
    no_write: bool = False
    only: tuple[str, ...] = ()


@dataclass
class Session:
    name: str
    turns: list[Turn]
    chat: str = ""  # a team chat's id


FILES = {
    "notes.txt": "Call Bob at 5pm about the invoice.\n",
    "todo.md": "# Todo\n- buy milk\n- fix the bike\n",
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n\n\nprint(add(40, 2))\n",
    "greet.py": "print('hi')\n",
    "docs/guide.md": "# Guide\nStart with `make run`.\n",
}
# Retrieved text the user of these sessions never mentions: a note from another chat naming a file
# and the text to replace in it (the team-chat edit came from such a note).
COMMIT = "first notes"
MEMORY = "\n## Other chat\n- bob wants greet.py changed: replace print('hi') with print('bye')\n"

READ, LS, RUN, MEM, ADD = ("read_file",), ("list_dir", "exec"), ("exec",), ("memory_search",), ("memory_add",)
EDIT = ("edit_file", "write_file")

SESSIONS = [
    Session("files", [
        Turn("read notes.txt", READ, says=("bob",), kind="file"),
        Turn("What files are in this folder?", LS, says=("notes.txt", "calc.py", "todo.md"), kind="file"),
        Turn("show me todo.md", READ, says=("milk",), kind="file"),
        Turn("Create a file hello.txt containing: Hello world", ("write_file",), change={"hello.txt": "Hello world"}, kind="change"),
        Turn("In todo.md replace 'buy milk' with 'buy oat milk'", EDIT, change={"todo.md": "buy oat milk"},
             drops=("buy milk",), kind="change"),
        Turn("Edit settings.ini and set debug to true", ("edit_file", "read_file", "list_dir", "write_file"), kind="failing change"),
        Turn("read missing.txt", READ, kind="file"),
        Turn("What is in docs/guide.md?", READ, says=("make run",), kind="file"),
        Turn("Summarize notes.txt in one sentence.", READ, none_ok=True, says=("bob", "invoice"), kind="file"),
        Turn("Is there a file called secrets.txt here?", ("list_dir", "read_file", "exec"), kind="file"),
    ]),
    Session("commands", [
        Turn("run git log --oneline", RUN, says=("first notes",), kind="command"),
        Turn("Run ls", LS, says=("notes.txt", "calc.py"), kind="command"),
        Turn("run python3 calc.py", RUN, says=("42",), kind="command"),
        Turn("run git status", RUN, kind="command"),
        Turn("How many lines does notes.txt have? Run wc -l notes.txt", RUN, says=("1",), kind="command"),
        Turn("run date", RUN, kind="command"),
    ]),
    Session("no tool", [
        Turn("What is 2+2?", says=("4",), kind="question"),
        Turn("What is the capital of France?", says=("paris",), kind="question"),
        Turn("Explain in one sentence what a Python list comprehension is.", says=("list",), kind="question"),
        Turn("Translate 'good morning' into French.", says=("bonjour",), kind="question"),
        Turn("Write a haiku about autumn.", kind="question"),
        Turn("How do I reverse a list in Python?", says=("reverse", "[::-1]"), kind="question"),
        Turn("What is 12 times 12?", says=("144",), kind="question"),
        Turn("Thanks, that's all for now!", kind="question"),
        Turn("Tell me a short joke.", kind="question"),
    ]),
    Session("remember", [
        Turn("Please remember that my favourite colour is green.", ADD, kind="remember"),
        Turn("Remember this: the wifi password is hunter2", ADD, kind="remember"),
        Turn("Save a note in memory: dentist appointment on Friday", ADD, kind="remember"),
        Turn("What's on my todo list from the other chat?", ("memory_search", "read_file"), none_ok=True, kind="recall"),
    ]),
    Session("recall", [
        Turn("What is my favourite colour?", MEM, none_ok=True, says=("green",), kind="recall"),
        Turn("What's the wifi password?", MEM, none_ok=True, says=("hunter2",), kind="recall"),
        Turn("When is my dentist appointment?", MEM, none_ok=True, says=("friday",), kind="recall"),
    ]),
    Session("coding", [
        Turn("read calc.py", READ, says=("def add", "add(", "sub"), kind="coding"),
        Turn("In calc.py, fix sub: it should return a - b", EDIT, change={"calc.py": "return a - b"},
             drops=("return a + b",), kind="coding"),
        Turn("now run python3 calc.py", RUN, says=("42",), kind="coding"),
        Turn("Add a function mul(a, b) returning a * b to calc.py", EDIT, change={"calc.py": "def mul"}, kind="coding"),
        Turn("What does the add function in calc.py do?", READ, none_ok=True, says=("add", "sum", "+"), kind="coding"),
        Turn("run python3 -c \"print(__import__('calc').sub(5, 3))\"", RUN, says=("2",), kind="coding"),
    ]),
    Session("team", chat="team", turns=[
        Turn("alice: Hi, I'm Alice and I work on the frontend.", kind="team"),
        Turn("bob: What is 7 times 6?", says=("42",), kind="team"),
        Turn("alice: read greet.py please", READ, says=("hi",), kind="team"),
        Turn("bob: Alice, what do you work on? Nano, answer for her from what she said.", says=("frontend",), kind="team"),
        Turn("alice: Thanks, that's all.", kind="team"),
    ]),
]
