"""The workspace: SOUL.md, USER.md, CONTEXT.md, MEMORY.md and the folders later features use.

``init_workspace`` copies ``workspace_template/`` into place and never overwrites a user's file.
``visible_text`` is what of a workspace file may enter a prompt: HTML comments (the template's guidance)
are removed, and a file that is then nothing but headings and empty fields counts as empty, so unedited
template text is never sent.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from nanobot.base.errors import WorkspaceError
from nanobot.base.nonutf8 import where_not_utf8
from nanobot.base.regular import read_regular

PROMPT_FILES = ("SOUL.md", "USER.md", "CONTEXT.md", "MEMORY.md")
FOLDERS = ("observations", "knowledge", "skills")

_COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.S)
_EMPTY_FIELD = re.compile(r"^\s*[-*]\s*[^:\n]{1,40}:\s*$")  # "- Focus:" with no value
_HEADING = re.compile(r"^\s*#{1,6}\s")


def template_dir() -> Path:
    """The workspace template: in a source checkout beside the package, else packaged with it."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "workspace_template", here / "workspace_template"):
        if (candidate / "SOUL.md").exists():
            return candidate
    raise WorkspaceError("workspace_template/ is missing from the installation; reinstall nanobot")


def init_workspace(workspace: Path) -> list[Path]:
    """Create missing workspace files and folders; return what was created. Never overwrites."""
    created: list[Path] = []
    src = template_dir()
    try:
        workspace.mkdir(parents=True, exist_ok=True)
        for item in sorted(src.rglob("*")):
            rel = item.relative_to(src)
            dest = workspace / rel
            if item.is_dir():
                if not dest.exists():
                    dest.mkdir(parents=True)
                    created.append(dest)
            elif not dest.exists() and item.name != ".keep":
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(item, dest)
                created.append(dest)
    except OSError as e:
        raise WorkspaceError(f"cannot create workspace at {workspace}: {e.strerror}; check permissions or set NANOBOT_HOME") from None
    return created


PROMPT_READ_MAX = 1 << 20  # what a prompt section reads of a file (its token budget is far smaller)


def read_text(path: Path, limit: int | None = None) -> str:
    """Read a workspace file; missing -> ''. Bytes that are not UTF-8 become U+FFFD (never an error,
    never a dropped file); ``encoding_warnings`` reports such files once, naming the line and the fix;
    a byte-order mark (an editor's "UTF-8 with BOM") is dropped. Only a
    regular file is read (a FIFO raises WorkspaceError at once, never blocks); ``limit`` bounds the
    bytes read (prompt sections pass ``PROMPT_READ_MAX``; a file that is rewritten must not)."""
    try:
        return read_regular(path, limit).decode("utf-8", errors="replace").removeprefix("\ufeff")
    except FileNotFoundError:
        return ""
    except OSError as e:
        raise WorkspaceError(f"cannot read {path}: {e.strerror}") from None


def utf8_problem(raw: bytes, name: str) -> str:
    """'' for valid UTF-8, else a one-line warning naming the file, where its first bad byte is
    (``base.nonutf8.where_not_utf8``) and the fix.

    >>> utf8_problem("# Memory\\n- café".encode("latin-1"), "MEMORY.md")
    'MEMORY.md is not valid UTF-8 (line 2, column 6: byte 0xe9): read with U+FFFD in its place; re-save the file as UTF-8'
    """
    where = where_not_utf8(raw)
    return f"{name} is not valid UTF-8 ({where}): read with U+FFFD in its place; re-save the file as UTF-8" if where else ""


def encoding_warnings(workspace: Path) -> list[str]:
    """One warning per prompt file (SOUL, USER, CONTEXT, MEMORY) that is not valid UTF-8, in what a
    prompt reads of it (``PROMPT_READ_MAX``, cut at a line end: a character cut there is no bad byte)."""
    out = []
    for name in PROMPT_FILES:
        try:
            raw = read_regular(workspace / name, PROMPT_READ_MAX)
        except OSError:
            continue
        if len(raw) == PROMPT_READ_MAX:
            raw = raw[:raw.rfind(b"\n") + 1]
        if problem := utf8_problem(raw, name):
            out.append(problem)
    return out


def visible_text(text: str) -> str:
    """The part of a workspace file that may be sent to the model.

    >>> visible_text("# User\\n<!-- write here -->\\n")
    ''
    >>> visible_text("# User\\n- Name: Ada\\n- Likes:\\n")
    '# User\\n- Name: Ada'
    """
    text = _COMMENT.sub("", text)
    lines = [ln.rstrip() for ln in text.splitlines() if not _EMPTY_FIELD.match(ln)]
    # drop headings with nothing under them (up to the next heading of the same or higher level)
    kept: list[str] = []
    for i, ln in enumerate(lines):
        if _HEADING.match(ln):
            level = len(ln.lstrip()) - len(ln.lstrip().lstrip("#"))
            body = False
            for nxt in lines[i + 1:]:
                if _HEADING.match(nxt):
                    nlevel = len(nxt.lstrip()) - len(nxt.lstrip().lstrip("#"))
                    if nlevel <= level:
                        break
                    continue
                if nxt.strip():
                    body = True
                    break
            if not body:
                continue
        kept.append(ln)
    out = "\n".join(kept)
    return re.sub(r"\n{3,}", "\n\n", out).strip()
