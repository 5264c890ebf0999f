"""Write a coding-bench repository (bench/coding/spec.py) into a folder as a git repository: its files
committed once, at a fixed date, by a fixed author.

    .venv/bin/python bench/coding/make.py --set dev OUT_DIR   # every repository of the set, one folder each
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

DATE = "2026-11-25T09:00:00+00:00"


def make(repo, path: Path) -> Path:
    """``repo``'s files in ``path`` (created), committed in a new git repository; returns ``path``."""
    path.mkdir(parents=True, exist_ok=True)
    for name, text in repo.files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    env = os.environ | {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
                        "GIT_COMMITTER_EMAIL": "u@x", "GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE,
                        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", f"{repo.name}: start"]):
        subprocess.run(["git", *args], cwd=path, check=True, env=env, capture_output=True)
    return path


def repos(name: str) -> list:
    """The repositories of the set ``name`` (``dev``, ``dev2`` or ``check2``)."""
    return importlib.import_module(name).REPOS


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", default="dev", choices=["dev", "dev2", "check2"])
    ap.add_argument("out", type=Path)
    a = ap.parse_args()
    for r in repos(a.set):
        make(r, a.out / r.name)
    print(f"{len(repos(a.set))} repositories in {a.out}")
