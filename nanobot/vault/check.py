"""``vault check``: which docs need attention -- unreadable frontmatter, a missing summary, or one that
breaks the rule (one line, plain text, at most 150 characters). Reads every doc (no cache): it is a
maintenance command, and a multi-line summary is only visible in the raw field."""

from __future__ import annotations

from pathlib import Path

from nanobot.base.frontmatter import FrontmatterError, parse, summary_problem
from nanobot.base.regular import read_regular
from nanobot.vault.fmcache import knowledge_dir, walk


def problems(workspace: Path) -> list[tuple[str, str]]:
    """(path relative to knowledge/, what is wrong), sorted by path."""
    root = knowledge_dir(workspace)
    out: list[tuple[str, str]] = []
    for rel, _ in sorted(walk(root)) if root.is_dir() else []:
        try:
            doc = parse(read_regular(root / rel).decode("utf-8", errors="replace"))
        except FrontmatterError as e:
            out.append((rel, f"malformed frontmatter: {e}"))
            continue
        except OSError as e:
            out.append((rel, f"cannot read ({e.strerror})"))
            continue
        if problem := summary_problem(doc.fields.get("summary")):
            out.append((rel, f"summary {problem}"))
    return out
