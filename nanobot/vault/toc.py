"""The "Your Knowledge" section: every doc of knowledge/ as one line, grouped by folder, within a budget.

Layout: ``### projects/ (12 docs)`` per folder (the top of knowledge/ first, as ``./``, then folders
alphabetically), then ``- name.md — summary`` per doc, alphabetical; a doc without a summary shows its
title, one without either just its name. Docs whose frontmatter cannot be read are left out (the
caller warns, naming each).

Truncation rule (so 1,000 docs cannot blow the budget; header included in the count):
1. Every folder keeps its ``###`` line. Docs are admitted round-robin across folders -- the first doc
   of every folder, then the second of every folder, ... -- while the section still fits.
2. A folder with docs left out ends with ``- … and 37 more in projects/``.
3. If even the folder lines do not fit, folders are dropped from the end and the section ends with
   ``… and 120 more docs in 9 more folders``.

>>> docs = [DocMeta(path=p, summary=s) for p, s in [("b.md", "B"), ("p/x.md", "X"), ("p/a.md", "")]]
>>> print(render_toc(docs, 100, lambda t: len(t.split())))
## Your Knowledge
### ./ (1 doc)
- b.md — B
### p/ (2 docs)
- a.md
- x.md — X
"""

from __future__ import annotations

from collections.abc import Callable

from nanobot.safe_text import one_line
from nanobot.vault.fmcache import DocMeta

HEADER = "## Your Knowledge"
Counter = Callable[[str], int]


def doc_line(d: DocMeta) -> str:
    """One line of plain text whatever the doc's name, title or summary hold (``one_line``)."""
    text = one_line(d.summary or d.title)
    return f"- {one_line(d.name)} — {text}" if text else f"- {one_line(d.name)}"


def _docs_word(n: int) -> str:
    return f"{n} doc" if n == 1 else f"{n} docs"


def group(docs: list[DocMeta]) -> list[tuple[str, list[DocMeta]]]:
    """(folder, its docs sorted by name) for readable docs; the top folder ('') first."""
    groups: dict[str, list[DocMeta]] = {}
    for d in docs:
        if not d.error:
            groups.setdefault(d.folder, []).append(d)
    return [(f, sorted(groups[f], key=lambda d: (d.name.casefold(), d.name)))
            for f in sorted(groups, key=lambda f: (f != "", f.casefold(), f))]


def render_toc(docs: list[DocMeta], budget: int, count: Counter, header: str = HEADER) -> str:
    """The section text (header included) within ``budget`` tokens; "" when there is nothing to list."""
    groups = group(docs)
    if not groups:
        return ""
    memo: dict[str, int] = {}

    def cost(line: str) -> int:  # a line plus its newline (summing lines rarely undercounts)
        if line not in memo:
            memo[line] = count(line) + 1
        return memo[line]

    def label(folder: str) -> str:
        return one_line(folder) or "./"

    def more(folder: str, left: int) -> int:
        return cost(f"- … and {left} more in {label(folder)}") if left else 0

    def drop_line(k: int) -> str:
        if k == len(groups):
            return ""
        rest, n = sum(len(ds) for _, ds in groups[k:]), len(groups) - k
        return f"… and {rest} more docs in {n} more folder{'s' if n > 1 else ''}"

    heads = [cost(f"### {label(f)} ({_docs_word(len(ds))})") + more(f, len(ds)) for f, ds in groups]
    base = cost(header)
    k = 0  # rule 3: how many folders keep their line
    while k < len(groups) and base + sum(heads[:k + 1]) + (cost(d) if (d := drop_line(k + 1)) else 0) <= budget:
        k += 1
    if k == 0:
        return ""
    total = base + sum(heads[:k]) + (cost(d) if (d := drop_line(k)) else 0)
    shown = [0] * k
    full = False
    while not full:  # rule 1: round-robin
        full = True
        for i, (folder, ds) in enumerate(groups[:k]):
            j = shown[i]
            if j == len(ds):
                continue
            delta = cost(doc_line(ds[j])) - more(folder, len(ds) - j) + more(folder, len(ds) - j - 1)
            if total + delta > budget:
                full = True
                break
            total += delta
            shown[i] += 1
            full = False

    def render() -> str:
        out = [header]
        for i, (folder, ds) in enumerate(groups[:k]):
            out.append(f"### {label(folder)} ({_docs_word(len(ds))})")
            out += [doc_line(d) for d in ds[: shown[i]]]
            if shown[i] < len(ds):
                out.append(f"- … and {len(ds) - shown[i]} more in {label(folder)}")
        if d := drop_line(k):
            out.append(d)
        return "\n".join(out)

    text = render()
    while count(text) > budget and any(shown):  # the estimate was low: give back the last lines
        i = max(range(k), key=lambda i: (shown[i], i))
        shown[i] -= 1
        text = render()
    return text if count(text) <= budget else ""
