"""The "Your Knowledge" section: every doc of knowledge/ as one line, grouped by folder, within a budget.

Layout: ``### projects/ (12 docs)`` per folder (the top of knowledge/ first, as ``./``, then folders
alphabetically), then ``- name.md — summary`` per doc, alphabetical; a doc without a summary shows its
title, one without either just its name. Docs whose frontmatter cannot be read are left out (the
caller warns, naming each). The budget follows the model's context (``rank.toc_budget``).

Fitting rule (so the agent sees as much of its vault as fits; header included in the count):
1. Every doc with its whole summary, if that fits.
2. Else summaries are shortened first, all alike, to the longest of 12, 8, 5 or 3 words (``…``) with
   which every doc fits, and if none does, every doc by name alone; the tokens left over give the first
   docs in ``order`` (below) their longer summaries.
3. Else docs must go (names alone): they are admitted in ``order`` -- the caller's priority,
   ``rank.order``: docs the ledger shows in use, then recently changed ones, then round-robin across
   folders (the first doc of each folder, then the second, ...) -- while the section still fits. Every
   folder keeps its ``###`` line; one with docs left out ends with ``- … and 37 more in projects/``.
4. If even the folder lines do not fit, folders are dropped from the end and the section ends with
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

from nanobot.base.safe_text import one_line
from nanobot.vault.fmcache import DocMeta

HEADER = "## Your Knowledge"
LEVELS = (None, 12, 8, 5, 3, 0)  # summary words tried, in turn (None: whole; 0: the name alone)
Counter = Callable[[str], int]


def doc_line(d: DocMeta, words: int | None = None) -> str:
    """One line of plain text whatever the doc's name, title or summary hold (``one_line``);
    ``words`` shortens the summary (0: the name alone)."""
    text = "" if words == 0 else one_line(d.summary or d.title)
    if words is not None and len(text.split()) > words:
        text = " ".join(text.split()[:words]) + "…"
    name = one_line(d.name)
    return f"- {name} — {text}" if text else f"- {name}"


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


def round_robin(docs: list[DocMeta]) -> list[DocMeta]:
    """The first doc of every folder (alphabetically), then the second of every folder, ..."""
    groups = [ds for _, ds in group(docs)]
    return [ds[j] for j in range(max(map(len, groups), default=0)) for ds in groups if j < len(ds)]


def render_toc(docs: list[DocMeta], budget: int, count: Counter, header: str = HEADER,
               order: list[DocMeta] | None = None) -> str:
    """The section text (header included) within ``budget`` tokens; "" when there is nothing to list.
    ``order``: which docs to keep first when some must go (default: round-robin across folders)."""
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
    k = 0  # rule 4: how many folders keep their line
    while k < len(groups) and base + sum(heads[:k + 1]) + (cost(d) if (d := drop_line(k + 1)) else 0) <= budget:
        k += 1
    if k == 0:
        return ""
    total = base + sum(heads[:k]) + (cost(d) if (d := drop_line(k)) else 0)
    kept = groups[:k]
    folder_of = {d.path: i for i, (_, ds) in enumerate(kept) for d in ds}
    shown: list[set[str]] = [set() for _ in kept]

    longer: dict[str, int | None] = {}  # docs given more summary words than the rest (rule 2)

    def render(words: int | None) -> str:
        out = [header]
        for i, (folder, ds) in enumerate(kept):
            out.append(f"### {label(folder)} ({_docs_word(len(ds))})")
            out += [doc_line(d, longer.get(d.path, words)) for d in ds if d.path in shown[i]]
            if len(shown[i]) < len(ds):
                out.append(f"- … and {len(ds) - len(shown[i])} more in {label(folder)}")
        if d := drop_line(k):
            out.append(d)
        return "\n".join(out)

    everything = total - sum(more(f, len(ds)) for f, ds in kept)
    ranked = order if order is not None else round_robin(docs)

    def fits(words: int | None) -> int | None:
        """Tokens of every doc at ``words``, or None as soon as they pass the budget (so 1,000 docs
        cost a few dozen counted lines)."""
        used = everything
        for d in (d for _, ds in kept for d in ds):
            used += cost(doc_line(d, words))
            if used > budget:
                return None
        return used

    # names alone first: when even they do not all fit (a large vault) go straight to rule 3
    levels = list(enumerate(LEVELS)) if fits(LEVELS[-1]) is not None else []
    for n, words in levels:  # rules 1 and 2: every doc, summaries shortened as little as needed
        used = fits(words)
        if used is not None:
            shown = [{d.path for d in ds} for _, ds in kept]
            for d in ranked:  # what is left goes to the first docs in order: their longer summaries
                if d.path not in folder_of:
                    continue
                extras = [(better, cost(doc_line(d, better)) - cost(doc_line(d, words))) for better in LEVELS[:n]]
                fits = [(b, e) for b, e in extras if e > 0 and used + e <= budget]
                if not fits:
                    break  # the first doc that cannot grow ends it (the ones after it are no more important)
                longer[d.path], used = fits[0][0], used + fits[0][1]
            text = render(words)
            while count(text) > budget and longer:  # the estimate was low: the upgrades go first
                longer.popitem()
                text = render(words)
            if count(text) <= budget:
                return text
            longer.clear()
    words = LEVELS[-1]  # rule 3: docs go, the caller's order deciding which stay
    admitted: list[DocMeta] = []
    for d in ranked:
        i = folder_of.get(d.path)
        if i is None or d.path in shown[i]:
            continue
        folder, ds = kept[i]
        left = len(ds) - len(shown[i])
        delta = cost(doc_line(d, words)) - more(folder, left) + more(folder, left - 1)
        if total + delta > budget:
            break  # full: the docs after this one in order are the less important ones
        total += delta
        shown[i].add(d.path)
        admitted.append(d)
    text = render(words)
    while count(text) > budget and admitted:  # the estimate was low: give back the last admitted
        d = admitted.pop()
        shown[folder_of[d.path]].discard(d.path)
        text = render(words)
    return text if count(text) <= budget else ""
