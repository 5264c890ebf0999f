"""Questions about a folder's contents, asked on a new workspace: does the reply name what is there,
or give the right count? (``list_dir``'s header, ``loop.looks.listing_unnamed``.)

    .venv/bin/python bench/listing_bench.py --model <1.5B gguf> --set dev|check [--threads 1] [--json F]

``dev`` (12 questions, five languages) was written to tune on; ``check`` (12 others: another folder,
other wording, other languages) was written before the change it measures and is only checked.
Each question is asked in a session of its own on the assistant bench's settings (``assistant_bench.setup``).
A question is right when the reply names at least three of the folder's files (for "which files"),
both files of a named subfolder, or the right count; ``own`` reads the model's words only, ``shown``
what the user sees, nanobot's lines under the reply included.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

SETS = {
    "dev": ({"invoice_march.pdf.txt": "x", "grocery.md": "- eggs", "tasks.txt": "a", "sketch.py": "print(1)",
             "README.md": "# r", "budget.csv": "a,b", "photos/beach.txt": "x", "photos/city.txt": "y",
             "old/archive.txt": "z", "music/list.txt": "m", "notes/monday.txt": "n", "notes/tuesday.txt": "t"},
            [("which files are here?", "names"), ("what files do I have in this folder?", "names"),
             ("show me what's in the notes folder", "notes/monday,tuesday"), ("what's in photos?", "photos/beach,city"),
             ("which files does this project have?", "names"), ("¿qué archivos hay aquí?", "names"),
             ("welche Dateien liegen in diesem Ordner?", "names"), ("how many files are in this folder?", "files"),
             ("list the folders here", "folder names"), ("is there a budget file here?", "budget"),
             ("quels fichiers y a-t-il ici ?", "names"), ("what do we have in this directory?", "names")]),
    "check": ({"report_q3.txt": "x", "shopping.txt": "milk", "cv.md": "# cv", "run.sh": "echo", "data.json": "{}",
               "LICENSE": "mit", "images/cat.txt": "c", "images/dog.txt": "d", "drafts/a.txt": "a",
               "backup/b.txt": "b", "src/app.py": "x=1", "src/util.py": "y=2"},
              [("what's in here?", "names"), ("can you list my files?", "names"),
               ("tell me the files in this directory", "names"), ("quali file ci sono qui?", "names"),
               ("que arquivos tem nesta pasta?", "names"), ("which documents are in this folder?", "names"),
               ("what is inside src?", "src/app,util"), ("how many files are in this directory?", "files"),
               ("count the folders here", "folders"), ("give me the list of files", "names"),
               ("hvilke filer er her?", "names"), ("show the contents of images", "images/cat,dog")]),
}


def right(want: str, text: str, ws: Path) -> bool:
    from nanobot.tools.ownfiles import bookkeeping

    text = text.lower()
    top = [p for p in ws.iterdir() if not bookkeeping(p, ws)]  # what a listing shows: not nanobot's own files
    files = [p for p in top if p.is_file()]
    folders = [p for p in top if p.is_dir()]
    if want == "names":
        return sum(p.stem.lower() in text for p in files) >= 3
    if want in ("files", "folders"):
        n = len(files) if want == "files" else len(folders)
        return re.search(rf"\b({n}|{n - 1})\b" if want == "folders" else rf"\b{n}\b", text) is not None  # .git or not
    if want == "folder names":
        return sum(p.name.lower() in text for p in folders if not p.name.startswith(".")) >= 3
    if "/" in want:
        _, names = want.split("/")
        return all(n in text for n in names.split(","))
    return want in text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--set", choices=sorted(SETS), default="dev")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json")
    opts = ap.parse_args()
    import assistant_bench as bench

    from nanobot.core.events import Notice, ToolCall, TurnDone

    bench.use("dev")
    files, questions = SETS[opts.set]
    agent, ws = bench.setup(Path(tempfile.mkdtemp(prefix="nanobot-listing-")), opts.model, 64, opts.threads)
    for name, text in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    at = datetime.fromisoformat("2026-11-25 09:30").astimezone()
    agent.clock = lambda: at
    rows, started = [], time.time()
    for text, want in questions:
        agent.start_session()
        calls, notices, reply = [], [], ""
        for ev in agent.turn(text):
            calls += [ev.name] if isinstance(ev, ToolCall) else []
            notices += [ev.text] if isinstance(ev, Notice) else []
            reply = ev.reply if isinstance(ev, TurnDone) else reply
        agent.end_session()
        own = reply.split("(nanobot:")[0]
        row = {"text": text, "want": want, "calls": calls, "own": right(want, own, ws), "shown": right(want, reply, ws),
               "flagged": [n for n in notices if n.startswith("reply check")], "reply": reply[:400]}
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    summary = {"set": opts.set, "model": Path(opts.model).stem, "questions": len(rows),
               "own": sum(r["own"] for r in rows), "shown": sum(r["shown"] for r in rows),
               "wall_s": round(time.time() - started), "load_after": list(os.getloadavg())}
    print(json.dumps(summary))
    if opts.json:
        Path(opts.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
