"""File tools: read_file (in line ranges; a short file whole where the user gave no range:
``readwindow``), write_file, edit_file (exact-match replace; failing that, one match with other
whitespace: ``looseedit.py``), list_dir.

All paths go through ``paths.resolve_in_roots``; writes are atomic and refused where a write could make
something run later (VCS metadata, nanobot's own config and state: ``protected.py``). list_dir shows a
symlink that leaves the roots as ``name -> (link)`` and never follows it. A write or edit that would
leave a Python file that no longer parses is refused with the file, line and error (``refuse_broken``);
one that would remove lines the user did not ask to remove is refused too (``editloss``), and an
edit_file that points a new Python function at an existing one adds it after that one (``pydefs.add_defs``;
also where it points at a fragment, a def line's name, and the request names the new one),
as it does a line the user dictated (``editloss.added_after``); a name the user asks to rename is renamed
everywhere in the file (``renames``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from nanobot.base.atomic import atomic_write
from nanobot.base.errors import ToolError
from nanobot.base.pysyntax import is_python, refuse_broken
from nanobot.base.regular import NotRegularFile, read_regular
from nanobot.base.safe_text import has_controls
from nanobot.base.written import record_written
from nanobot.core.provenance import PolicyError, Refusal, Refused
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.defrename import refuse_unasked_rename
from nanobot.tools.echoedit import repeats, restated
from nanobot.tools.editloss import added_after, lost, refuse_loss
from nanobot.tools.effects import Effect
from nanobot.tools.listing import header
from nanobot.tools.looseedit import loose_replace
from nanobot.tools.named import nearest
from nanobot.tools.namedcode import focus
from nanobot.tools.namedlook import held as looked_at
from nanobot.tools.namedonly import named_occurrence, named_only
from nanobot.tools.ownfiles import bookkeeping
from nanobot.tools.paths import (
    display,
    links_inside,
    resolve_in_roots,
    roots,
    start_folder_error,
    start_outside,
)
from nanobot.tools.protected import check_writable
from nanobot.tools.pydefs import add_defs, replace_defs, request_of, said_words, unnamed_changes
from nanobot.tools.readwindow import whole
from nanobot.tools.renameask import leaned_edit
from nanobot.tools.renames import rename
from nanobot.tools.retryedit import held, note_miss
from nanobot.tools.testargs import refuse_unfilled
from nanobot.tools.testimports import completed
from nanobot.tools.testless import refuse_testless

MAX_READ_LINES = 200
MAX_FILE_BYTES = 5_000_000


def _missing(raw: str, ctx: ToolContext | None, what: str = "file", create: bool = False) -> ToolError:
    """A missing path's error, offering the one entry a typo away when there is one (``tools.named``);
    with ``create`` (an edit) and none near, where the model judges the message asks for a new file,
    pointing to ``write_file``, which a retry then calls (the judgement is asked only then)."""
    near = nearest(raw, roots(ctx)) if ctx is not None else ""
    if not near and ctx is not None and (elsewhere := start_folder_error(raw, ctx, what)):
        return elsewhere
    if create and not near and _new_file_asked(ctx):
        return ToolError(f"{what} '{raw}' does not exist, and edit_file only changes a file that exists; to create "
                         "it, call write_file with the file's whole text. Nothing was changed", instead="write_file")
    return ToolError(f"{what} '{raw}' does not exist; " + (f"did you mean '{near}'?" if near else
                                                          "list_dir shows what is there"))


def _new_file_asked(ctx: ToolContext) -> bool:
    """Whether the model judges that the user's message asks for a new file (``loop.judge``'s create
    classifier, read through ``agent.judge``): a change of a file that is missing is not made into a new
    one. False outside a chat, or where the model cannot say (a server, a scripted model) or is unsure."""
    agent = ctx.agent
    return agent is not None and agent.judge.sure(agent, "create") is True


def _typo_resolved(args: ToolArgs, ctx: ToolContext, what: str) -> tuple[Any, str]:
    """A look at a path that is not there, turned to the one root entry a typo away (``tools.named``:
    "inventry.csv" is "inventory.csv", "q3.txt" is "reports/q3.txt"), and the line that says so;
    ``args`` unchanged where the path exists or no single entry is near. Only looks are turned: a
    change goes to the path it names."""
    if resolve_in_roots(args.path, ctx).exists() or not (near := nearest(args.path, roots(ctx))):
        return args, ""
    if (resolve_in_roots(near, ctx).is_dir()) != (what == "directory"):
        return args, ""
    return args.model_copy(update={"path": near}), f"({what} '{args.path}' does not exist; this is '{near}')\n"


def _read_text(path: Path, raw: str, ctx: ToolContext | None = None, look: bool = False) -> str:
    """The text of the file ``path``; a ToolError naming what is wrong. ``look``: a read_file call, whose
    error on a folder points to list_dir (``ToolError.instead``: the next step lists it)."""
    if not path.exists():
        raise _missing(raw, ctx)
    if path.is_dir():
        raise ToolError(f"'{raw}' is a directory; use list_dir", instead="list_dir" if look else "")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ToolError(f"file '{raw}' is over {MAX_FILE_BYTES // 1_000_000} MB; read it with exec (head, sed -n)")
    try:
        return read_regular(path).decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"file '{raw}' is not UTF-8 text") from None
    except OSError as e:
        raise ToolError(f"cannot read '{raw}': {e.strerror}") from None


def _writable(raw: str, ctx: ToolContext) -> Path:
    """``raw`` resolved in the roots, refused where a write could make something run later."""
    path = resolve_in_roots(raw, ctx)
    check_writable(path, raw, ctx)
    return path


def _root(path: Path, ctx: ToolContext) -> Path | None:
    """The root ``path`` is in."""
    return next((r for r in roots(ctx) if r == path or r in path.parents), None)


def _write(path: Path, text: str, raw: str, ctx: ToolContext) -> None:
    """``text`` written atomically to ``path`` and recorded as nanobot's own write; the folders below its
    root are opened without following links (a folder swapped for a link after the check fails the write).
    The file's text before the turn's first write to it goes to ``Provenance.before``, for the checks."""
    if ctx.agent is not None and str(path) not in (before := ctx.agent.provenance.before):
        before[str(path)] = (_old_text(path, raw) or "") if path.exists() else ""
    try:
        atomic_write(path, text, root=_root(path, ctx))
    except OSError as e:
        raise ToolError(f"cannot write '{raw}': {e.strerror}") from None
    record_written(ctx.settings.home, ctx.workspace, path)


class PathArgs(ToolArgs):
    path: str = Field(description="file path, relative to the current directory", max_length=200)


class ReadArgs(PathArgs):
    start: int = Field(1, ge=1, description="first line (1-based)")
    lines: int = Field(100, ge=1, description=f"how many lines (at most {MAX_READ_LINES})")


class ReadFile(Tool):
    name = "read_file"
    effects = frozenset({Effect.LOOKS})
    target_args = {"path": "path"}
    description = "Read a text file, a range of lines at a time."
    intent = "read or show a file the user names"
    Args = ReadArgs

    def offered(self, ctx: ToolContext) -> dict:
        """``path`` held to the files the user's message names, where it names any (``tools.namedlook``)."""
        return looked_at(self.parameters(), ctx, "file")

    def run(self, args: ReadArgs, ctx: ToolContext) -> str:
        args, was = _typo_resolved(args, ctx, "file")
        text = _read_text(resolve_in_roots(args.path, ctx), args.path, ctx, look=True)
        all_lines = text.splitlines()
        total = len(all_lines)
        if total == 0:
            return f"{args.path}: empty file"
        prov = ctx.agent.provenance if ctx.agent is not None else None
        if prov is not None and prov.said and whole(args.start, args.lines, total, prov.said[-1], MAX_READ_LINES):
            args = args.model_copy(update={"start": 1, "lines": total})  # a window nobody asked for: the file
        if args.start > total:
            raise ToolError(f"start={args.start} is past the end of '{args.path}' ({total} lines)")
        end = min(total, args.start + min(args.lines, MAX_READ_LINES) - 1)
        body = "\n".join(all_lines[args.start - 1:end])
        head = f"{was}{args.path} lines {args.start}-{end} of {total}"
        more = f"\n[more: read_file start={end + 1}]" if end < total else ""
        named = focus(text, prov.said[-1]) if prov is not None and prov.said else ""
        named = "" if named and _change_sure(ctx) else named  # asked only where there is a note to leave out
        return f"{head}\n{body}{more}" + (f"\n{named}" if named else "")


def _change_sure(ctx: ToolContext) -> bool:
    """The model's change judgement is sure the user's message asks for a change: a read in such a turn
    is the edit's source, and ``focus``'s note is left out: a small model copies its first line
    ("square_area (named in the message)") into an edit's ``old``."""
    agent = ctx.agent
    return agent is not None and agent.judge.sure(agent, "change") is True


class WriteArgs(PathArgs):
    content: str = Field(description="the whole new file content", max_length=20_000)


class WriteFile(Tool):
    name = "write_file"
    effects = frozenset({Effect.CHANGES})
    target_args = {"path": "path"}
    description = "Create or overwrite a text file."
    intent = "create a file, only when asked to"
    Args = WriteArgs

    def offered(self, ctx: ToolContext) -> dict:
        """``path`` held to the files the message names, there or new, outside a coding session (``namedlook``)."""
        return looked_at(self.parameters(), ctx, "file", new=True, change=True)

    def run(self, args: WriteArgs, ctx: ToolContext) -> str:
        path = _writable(args.path, ctx)
        if path.is_dir():
            raise ToolError(f"'{args.path}' is a directory; give a file path")
        existed = path.exists()
        if not existed and (elsewhere := start_folder_error(args.path, ctx)):
            raise elsewhere  # the user's file of that name is here, outside the roots: not a new one beside it
        old = _old_text(path, args.path) if existed else None
        refuse_broken(old, args.content, args.path, "write_file")
        refuse_testless(args.path, args.content)  # nanobot.tools.testless
        refuse_unfilled("write_file", args.path, path, _root(path, ctx), old, args.content)  # nanobot.tools.testargs
        if old is not None:  # an overwrite keeps every line the user did not ask to remove (editloss)
            refuse_loss(old, args.content, _asked(ctx), args.path, "write_file")
            refuse_unasked_rename(old, args.content, _asked(ctx), args.path, "write_file")
        content, also = completed(args.content, path, roots(ctx))  # nanobot.tools.testimports
        _write(path, content, args.path, ctx)
        verb = "overwrote" if existed else "created"
        return f"{verb} {display(path, ctx)} ({len(content)} chars){also}"


class EditArgs(PathArgs):
    old: str = Field(description="exact text to replace (must occur once)", min_length=1, max_length=5_000)
    new: str = Field(description="replacement text", max_length=5_000)


class EditFile(Tool):
    name = "edit_file"
    effects = frozenset({Effect.CHANGES})
    target_args = {"path": "path", "old": "text to replace"}
    description = "Replace one exact occurrence of a text in a file."
    intent = "change a file, only when asked to"
    rewrites = True  # a template-tool model's call is made from its rewrite of a short file (``tools.rewrite``)
    Args = EditArgs

    def offered(self, ctx: ToolContext) -> dict:
        """After this turn's edit missed its text to replace, the retry's ``old`` is held to the lines
        the request is about (``tools.retryedit``); ``path`` to the files the message names, where it
        names any, outside a coding session (``tools.namedlook``)."""
        return looked_at(held(self.parameters(), ctx), ctx, "file", change=True)

    def run(self, args: EditArgs, ctx: ToolContext) -> str:
        note_miss(ctx, None)
        path = _writable(args.path, ctx)
        if not path.exists():
            raise _missing(args.path, ctx, create=True)
        text = _read_text(path, args.path, ctx)
        if (trimmed := restated(text, args.old, args.new)) != args.new:  # context restated stays once
            args = args.model_copy(update={"new": trimmed})
        renamed = None
        if is_python(args.path) and (whole := replace_defs(text, args.old, args.new)) is not None:
            new, where = whole[0], f": {', '.join(whole[1])} replaced whole"  # nanobot.tools.pydefs
        elif (renamed := rename(text, args.old, args.new, _asked(ctx))) is not None:
            new, where = renamed[0], f": {args.old} renamed to {args.new} ({renamed[1]} places)"
            refuse_broken(text, new, args.path, "edit_file")
        else:
            asked = _asked(ctx)
            try:
                new, where = _replaced(text, args, request_of(text, asked or []) if is_python(args.path) else "")
            except NotFound:
                note_miss(ctx, args.path)
                raise
            except ToolError:  # the plain replacement breaks the file: new definitions the request names,
                if (not is_python(args.path) or (added := add_defs(text, args.old, args.new)) is None  # pointed at
                        or not set(added[1]) <= said_words(" ".join(asked or []))):  # a fragment of existing code
                    raise
                new, where = added[0], f": {', '.join(added[1])} added after the code old pointed at, which is kept"
            if asked is not None and lost(text, new, asked, args.path):  # old pointed at where new goes
                if is_python(args.path) and (added := add_defs(text, args.old, args.new)) is not None:
                    new, where = added[0], f": {', '.join(added[1])} added after the code old pointed at, which is kept"
                elif not is_python(args.path) and (kept := added_after(text, args.old, args.new, asked)) is not None:
                    new, where = kept, (": the new text added after the line old is on, which is kept "
                                        "(nothing the user did not name is removed)")
        if ctx.agent is not None and (asked_for := leaned_edit(ctx.agent, ctx.settings, text, new, _asked(ctx) or [], path)):
            return self.run(args.model_copy(update=asked_for), ctx) + f" (the call had {args.new.strip()[:60]!r})"
        refuse_loss(text, new, _asked(ctx), args.path, "edit_file")  # nanobot.tools.editloss
        refuse_unasked_rename(text, new, _asked(ctx), args.path, "edit_file")  # nanobot.tools.defrename
        if new == text:  # a definition replaced whole by itself, old and new the same: nothing to report as done
            raise ToolError(f"edit_file: {args.path} would stay exactly as it is (new says what is already there); "
                            "nothing was changed. Put the text as it should become in new")
        if same := repeats(text, new):  # nanobot.tools.echoedit
            raise ToolError(f"edit_file: the edit only repeats {same[0]!r}, which is already there next to it; "
                            f"{args.path} would not change otherwise. Put the line as it should become in new")
        if is_python(args.path) and renamed is None and _asked(ctx) is not None and (
                others := unnamed_changes(text, new, said := request_of(text, _asked(ctx)))):
            if (kept := named_only(text, new, said)) is None:
                raise PolicyError(Refused(f"edit_file refused: it would change {', '.join(others)} in {args.path}, "
                                          "which the user did not name; the file was not changed. Change only what "
                                          "was asked", Refusal.LOSES_LINES))
            new, where = kept[0], f"{where}; {', '.join(kept[1])} kept as it was (the user did not name it)"
        new, added = completed(new, path, roots(ctx))  # nanobot.tools.testimports
        refuse_unfilled("edit_file", args.path, path, _root(path, ctx), text, new)  # nanobot.tools.testargs
        _write(path, new, args.path, ctx)
        where += added
        asked_rename = renamed is not None or rename(text, args.old, args.new, _asked(ctx), least=1) is not None
        also = _renamed_elsewhere(args, path, ctx) if asked_rename else ""
        return f"edited {display(path, ctx)}{where}{also}"


def _renamed_elsewhere(args: EditArgs, done: Path, ctx: ToolContext) -> str:
    """The asked rename (``tools.renames``) made in the other files the user's message names where
    ``old`` occurs as a word, each still parsing; not where the model is sure the message says to
    leave a file as it is. Returns what to add to the result ("" when nothing)."""
    from nanobot.tools.named import named, roots_of

    agent = ctx.agent
    if agent is None or not agent.provenance.said:
        return ""
    out: list[str] = []
    for n in named(agent.provenance.said[-1], roots_of(ctx.settings)):
        try:
            other = _writable(n.path, ctx) if n.kind == "file" else done
            if other == done or not other.exists():
                continue
            text = _read_text(other, n.path, ctx)
            if (renamed := rename(text, args.old, args.new, _asked(ctx), least=1)) is None:
                continue
            if not out and agent.judge.sure(agent, "keep") is True:  # "... but leave the test alone"
                return ""
            refuse_broken(text, renamed[0], n.path, "edit_file")
        except ToolError:
            continue
        _write(other, renamed[0], n.path, ctx)
        out.append(f"{display(other, ctx)} ({renamed[1]} place{'s' if renamed[1] > 1 else ''})")
    return f"; also renamed in {', '.join(out)} (the other files the user named)" if out else ""


def _asked(ctx: ToolContext) -> list[str] | None:
    """The user's last two messages (what a removed line must be mentioned in); None outside a chat."""
    return list(ctx.agent.provenance.said[-2:]) if ctx.agent is not None else None


def _replaced(text: str, args: EditArgs, said: str = "") -> tuple[str, str]:
    """The file's text with ``old`` replaced once (as given, else with free whitespace), and where; of
    several occurrences, the one inside the one definition the request ``said`` names (``namedonly``)."""
    count, loose = text.count(args.old), None
    if count == 0 and (loose := loose_replace(text, args.old, args.new)) is None:
        raise NotFound(not_found(args.path, text))
    if count > 1 and (at := named_occurrence(text, args.old, said)) is not None:
        new = text[:at] + args.new + text[_end(text, at, args):]
        refuse_broken(text, new, args.path, "edit_file")
        return new, f" at line {text[:at].count(chr(10)) + 1} (in the definition the request names)"
    if count > 1:
        raise ToolError(f"text to replace occurs {count} times in '{args.path}'; include more surrounding text so it is "
                        f"unique (the lines around it, e.g. the def line). The file's text is:\n{_shown(text)}")
    at = text.index(args.old) if loose is None else loose[1]
    new = loose[0] if loose else text[:at] + args.new + text[_end(text, at, args):]
    refuse_broken(text, new, args.path, "edit_file")
    how = " (old matched with other whitespace)" if loose else ""
    return new, f" at line {text[:at].count(chr(10)) + 1}{how}"


def _end(text: str, at: int, args: EditArgs) -> int:
    """Where the replaced text ends: after ``old``, and after its line break too when ``old`` is whole lines
    and ``new`` is empty, so a removed line leaves no blank line behind.

    >>> text = "hammer,3\\nduct tape,4\\nladder,1\\n"
    >>> text[:9] + text[_end(text, 9, EditArgs(path="a.csv", old="duct tape,4", new="")):]
    'hammer,3\\nladder,1\\n'
    """
    end = at + len(args.old)
    whole = (at == 0 or text[at - 1] == "\n") and text[end:end + 1] == "\n" and args.old.strip()
    return end + 1 if whole and not args.new else end


class NotFound(ToolError):
    """edit_file's text to replace is not in the file."""


SHOWN_CHARS = 1500  # of the file, in edit_file's "not found" error


def not_found(raw: str, text: str) -> str:
    """edit_file's error when the old text is not in the file: the file's text, for the next call to copy."""
    return (f"text to replace not found in '{raw}'; the file's text is:\n{_shown(text)}\n"
            "Call edit_file again with old copied exactly from it (to add lines, replace the line "
            "they follow with that line plus the new lines).")


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "\n[... the rest of the file not shown]"


def _old_text(path: Path, raw: str) -> str | None:
    """The file's text before a write; a FIFO, device or socket there is refused (never a hang)."""
    try:
        return read_regular(path).decode("utf-8", errors="replace")
    except NotRegularFile as e:
        raise ToolError(f"cannot write '{raw}': it {e.strerror}") from None
    except OSError:
        return None


def _entry(p: Path) -> str:
    try:
        return f"{p.name}/" if p.is_dir() else f"{p.name} ({p.stat().st_size} B)"
    except OSError:
        return f"{p.name} (unreadable)"


class ListArgs(ToolArgs):
    path: str = Field(".", description="directory, relative to the current directory", max_length=200)


class ListDir(Tool):
    name = "list_dir"
    effects = frozenset({Effect.LOOKS})
    target_args = {"path": "path"}
    description = "List the files in a directory."
    intent = "list the files in a folder"
    Args = ListArgs
    limit = 200

    def offered(self, ctx: ToolContext) -> dict:
        """``path`` held to the folders the user's message names, where it names any (``tools.namedlook``)."""
        return looked_at(self.parameters(), ctx, "folder")

    def run(self, args: ListArgs, ctx: ToolContext) -> str:
        if _invented(args.path, ctx):  # a small model's guess at "this folder": the folder nanobot works in
            return (f"('{args.path}' does not exist and the user did not name it; this is the "
                    "folder nanobot works in)\n" + self.run(ListArgs(path="."), ctx))
        args, was = _typo_resolved(args, ctx, "directory")
        path = resolve_in_roots(args.path, ctx)
        if not path.exists():
            raise _missing(args.path, ctx, "directory")
        if not path.is_dir():  # a look at a file through the listing tool: the file's entry, then its text
            return f"{was}{_entry(path)}: a file, not a folder\n" + ReadFile().run(ReadArgs(path=args.path), ctx)
        allowed = roots(ctx)
        inside = {p: not p.is_symlink() or links_inside(p, allowed) for p in path.iterdir() if not bookkeeping(p, ctx.workspace)}
        folder = {p: inside[p] and p.is_dir() for p in inside}
        entries = sorted(inside, key=lambda p: (not folder[p], p.name))
        lines = [_entry(p) if inside[p] else f"{p.name} -> (link)" for p in entries[: self.limit]]
        more = f"\n[{len(entries) - self.limit} more not shown]" if len(entries) > self.limit else ""
        was += _not_here(args.path, path, allowed, ctx)
        top = header(display(path, ctx), len(entries) - sum(folder.values()), sum(folder.values()))
        return f"{was}{top}\n" + "\n".join(lines) + more if entries \
            else f"{was}{display(path, ctx)}: empty directory"


def _invented(raw: str, ctx: ToolContext) -> bool:
    """An absolute path that is not there and that the user never wrote ("/Users/nano" for "what files
    are in this folder?"): listed as the base folder, said so, rather than refused as outside the roots."""
    path, prov = Path(raw.strip()).expanduser(), ctx.agent.provenance if ctx.agent is not None else None
    return (path.is_absolute() and not has_controls(raw) and not path.exists() and prov is not None
            and bool(prov.said) and not prov.mentioned_by_user(raw))


def _not_here(raw: str, path: Path, allowed: list[Path], ctx: ToolContext) -> str:
    """A listing of the workspace asked for as "." from a folder outside the roots says so, with the
    setting that allows that folder: "what files are in this folder?" asked in a project is otherwise
    answered with nanobot's own files. Started in the home directory or nanobot's own, it is not said."""
    if Path(raw).expanduser().is_absolute() or path != allowed[0] or (here := start_outside(allowed)) is None:
        return ""
    if here in (Path.home().resolve(), ctx.settings.home.expanduser().resolve()) or here in allowed[0].parents:
        return ""
    return (f"(this is nanobot's workspace, not {here}, the folder nanobot was started in: that one is not among "
            f"its roots; to allow it, add roots = [\"{here}\"] under [tools] in {ctx.settings.config_path})\n")
