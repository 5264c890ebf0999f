"""What the user's message asks to see or run: a file, a folder or a command (``looks_at``).

Read by the reply checks (a reply that speaks of it must have looked: ``loop/replycheck.py``) and by the
template tool step (a message that asks to look makes its first step a call: ``tools/templatecalls.py``).

>>> looks_at("read notes.txt"), looks_at("What files are in this folder?"), looks_at("What is 2+2?")
('notes.txt', 'this folder', '')
"""

from __future__ import annotations

import re
import shutil

# A file's name as people write it: folders, then a name with an extension, inner dots too ("calc.test.js",
# "config.local.toml"), where the file is one the message is about (the call policy, a spelled-out edit).
FILE_NAME = r"(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}"
# A name that by its shape alone is a file to look at: one dot ("os.path.join" is code, not a file; a name
# with inner dots is a file where the roots hold it: ``tools.named``).
_FILE = re.compile(r"(?<![\w@/.])((?:~?/|\./)?(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5})\b(?!\.\w)")
_DIR = re.compile(r"(?:\b(?:list|ls|show|what(?:'s| is) in)\s+(?:the\s+)?(?:folder|directory|dir)?\s*)((?:~|\.{1,2})?/[\w./-]*|[\w.-]+/)")
_COMMAND = re.compile(r"(?:\brun\b|\bexecute\b)\s+(?:the\s+command\s+)?`?([\w./-]+(?: [^`\n?]*)?)`?|`((?:git|ls|cat|python3?|pytest|make|npm|grep|wc|head|tail|pwd|echo|date)\b[^`\n]*)`", re.I)
_HERE = re.compile(r"\b(?:files?|what(?:'s| is))\s+(?:are\s+)?(?:in|inside)\s+(?:this|the|my|current)\s+(?:current\s+)?(?:folder|directory|dir|workspace|project)\b|\blist\s+(?:the\s+|all\s+|my\s+)?files\b", re.I)
_LOOK = re.compile(r"\b(?:read|show|open|cat|print|display|contents?|what(?:'s| is| does)|summari[sz]e|look at|check|"
                   r"tell me|list|run|execute|output|says?|is there|are there|exists?|find)\b", re.I)
_NOT_FILES = {"e.g", "i.e", "etc", "vs"}
ASKS = re.compile(r"[?\uff1f\u061f]")  # a message that asks a question, anywhere in it, in any script's question mark


def runnable(command: str) -> bool:
    """The command's first word is a program on this machine's PATH or a path ("./build.sh", "tools/x"):
    a fact. A "run ..." that is no such command is a command to look at only where the message names no
    file: "run the tests" asks for a run, "deploy.yaml should run four replicas" is about deploy.yaml.

    >>> runnable("git log --oneline"), runnable("four replicas instead of two.")
    (True, False)
    """
    first = command.split()[0] if command.split() else ""
    return bool(first) and ("/" in first or bool(re.search(r"\.\w+$", first)) or shutil.which(first) is not None)


def command_of(m: re.Match) -> str:
    """The command a ``_COMMAND`` match names. A script named by its path ("run hello.py with python3 and
    tell me what it prints") is the script alone: the words after a path that is no program on PATH are
    the sentence's, not the command's.

    >>> command_of(_COMMAND.search("run hello.py with python3 and tell me what it prints"))
    'hello.py'
    >>> command_of(_COMMAND.search("run git log --oneline")), command_of(_COMMAND.search("run the tests"))
    ('git log --oneline', 'the tests')
    """
    text = (m.group(1) or m.group(2) or "").strip()
    first = text.split()[0] if text.split() else ""
    if m.group(1) and re.search(r"\.[A-Za-z]\w*$", first) and shutil.which(first) is None:
        return first
    return text


def looks_at(user_text: str) -> str:
    """The file, folder or command the user asks to see or run; "" for none."""
    if not _LOOK.search(user_text) and not _HERE.search(user_text):
        return ""
    if (m := _COMMAND.search(user_text)) and (m.group(2) or runnable(m.group(1)) or not _FILE.search(user_text)):
        return command_of(m)
    for m in _FILE.finditer(user_text):
        if m.group(1).lower() not in _NOT_FILES and not re.match(r"^\d", m.group(1)):
            return m.group(1)
    if m := _DIR.search(user_text):
        return m.group(1)
    if _HERE.search(user_text):
        return "this folder"
    return ""
