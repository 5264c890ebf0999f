"""Write docs/architecture.md's table of the reply checks from ``nanobot.loop.replycheck.CHECKS``.

    .venv/bin/python scripts/pipeline_doc.py           # rewrite the table between its markers
    .venv/bin/python scripts/pipeline_doc.py --check   # exit 1 when the page is stale (the test suite)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PAGE = ROOT / "docs" / "architecture.md"
START, END = "<!-- generated:pipeline -->", "<!-- /generated:pipeline -->"


def table() -> str:
    from nanobot.loop.replycheck import CHECKS

    rows = ["| # | check | module | what it objects to | forces a tool from |", "|---|---|---|---|---|"]
    for i, check in enumerate(CHECKS, 1):
        first = " ".join((check.__doc__ or "").split(">>>")[0].split(". ")[0].split()).rstrip(".").replace("|", "/")
        source = "the reply's own words" if getattr(check, "from_reply", False) else "the user's request"
        rows.append(f"| {i} | `{check.__name__}` | `{check.__module__.removeprefix('nanobot.')}` | {first} | {source} |")
    return "\n".join(rows)


def main() -> int:
    text = PAGE.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    fresh = f"{head}{START}\n{table()}\n{END}{tail}"
    if "--check" in sys.argv:
        if fresh != text:
            print("docs/architecture.md's pipeline table is stale: run .venv/bin/python scripts/pipeline_doc.py")
            return 1
        return 0
    PAGE.write_text(fresh)
    print("wrote docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
