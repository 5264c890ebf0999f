"""Confinement for the file tools: every path must stay inside the workspace or a configured root.

A relative path resolves against the directory nanobot was started in when that directory is inside
a root (``[tools] roots = ["~/code"]`` and ``cd ~/code/app && nanobot chat``: ``notes.txt`` is
``~/code/app/notes.txt``), else against the workspace (``base_dir``).

Refused with a clear message: control characters in the name (newlines, tabs, escapes: a name must
not break the prompt or the terminal), ``..`` components, absolute paths outside every root, and symlinks that
resolve outside (the check is on the fully resolved path, so a link inside the workspace pointing to
``/etc`` is caught).

``resolve_in_roots("notes/a.md", ctx)`` is ``workspace/notes/a.md``.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from nanobot.base.errors import ToolError
from nanobot.base.safe_text import has_controls, printable
from nanobot.tools.base import ToolContext


def roots(ctx: ToolContext) -> list[Path]:
    """The workspace of this call, then ``[tools] roots`` (``tools.named.roots_of`` for settings)."""
    return [ctx.workspace.resolve(), *(Path(r).expanduser().resolve() for r in ctx.settings.tools.roots)]


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def base_dir(allowed: list[Path]) -> Path:
    """Where relative paths start: the current directory when it is inside a root, else the workspace
    (``allowed[0]``)."""
    try:
        here = Path.cwd().resolve()
    except OSError:  # the directory was deleted under us
        return allowed[0]
    return here if any(_inside(here, r) for r in allowed) else allowed[0]


def here_outside(raw: str, allowed: list[Path]) -> Path | None:
    """The directory nanobot was started in, when it is outside every root and holds ``raw`` (relative, or
    an absolute path into it): ``cd ~/proj && nanobot chat`` with no roots, "what does utils.py do?". The
    file stays unread; the error that names the folder tells the user the one setting that lets nanobot
    use it (``start_folder_error``)."""
    here = start_outside(allowed)
    if here is None:
        return None
    path = Path(raw).expanduser()
    path = path if path.is_absolute() else here / path
    return here if path.exists() and _inside(path.resolve(), here) else None


def start_folder_error(raw: str, ctx: ToolContext, what: str = "file") -> ToolError | None:
    """The error for ``raw`` in the start folder outside every root (``here_outside``): the folder and the
    setting that allows it, not "does not exist" or "outside the workspace"."""
    if (here := here_outside(raw, roots(ctx))) is None:
        return None
    return ToolError(f"{what} '{raw}' is in {here}, which is not one of nanobot's roots, so it cannot be used; "
                     f"to allow it, add roots = [\"{here}\"] under [tools] in {ctx.settings.config_path}")


def start_outside(allowed: list[Path]) -> Path | None:
    """The directory nanobot was started in, when it is outside every root (relative paths then start
    at the workspace, not there)."""
    try:
        here = Path.cwd().resolve()
    except OSError:
        return None
    return None if any(_inside(here, r) for r in allowed) else here


def resolve_in_roots(raw: str, ctx: ToolContext) -> Path:
    """The real path for ``raw`` (relative: to ``base_dir``), or ToolError if it escapes."""
    if has_controls(raw):
        raise ToolError(f"path '{printable(raw, keep='')}' contains control characters (a newline, "
                        "tab or escape); use a plain file name")
    text = raw.strip() or "."
    if ".." in PurePosixPath(text.replace("\\", "/")).parts:
        raise ToolError(f"path '{raw}' contains '..'; use a path inside the workspace")
    allowed = roots(ctx)
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = base_dir(allowed) / candidate
    real = candidate.resolve()
    if not any(_inside(real, r) for r in allowed):
        what = "is a symlink that points outside" if candidate.absolute() != real and \
            any(_inside(candidate.absolute(), r) for r in allowed) else "is outside"
        if what == "is outside" and (start := start_folder_error(raw, ctx, "path")):
            raise start
        raise ToolError(f"path '{raw}' {what} the workspace; allowed roots: "
                        + ", ".join(str(r) for r in allowed))
    return real


def display(path: Path, ctx: ToolContext) -> str:
    """``path`` relative to where relative paths start (``base_dir``: the folder nanobot was started in,
    inside a root; else the workspace) when inside it, else absolute: "edited textutil.py", the name a
    next call writes and a reply repeats, not the root's whole path."""
    base = base_dir(roots(ctx)).resolve()
    return str(path.relative_to(base)) if _inside(path, base) and path != base else (
        "." if path == base else str(path))


def links_inside(link: Path, allowed: list[Path]) -> bool:
    """Whether a symlink resolves (without error) to an existing path inside a root."""
    try:
        real = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return any(real == r or r in real.parents for r in allowed)
